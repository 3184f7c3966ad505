#!/usr/bin/env bats
# Spares as md has them: an array's own hot spares given among the members
# take the roles to rebuild without --spare, and keep their device number
# and UUID, as md's recovery keeps them.

bats_require_minimum_version 1.5.0
load helpers

setup() {
	D=$BATS_TEST_TMPDIR
	stripe-create -q -l 5 -n 4 -x 1 -c 64K --image-size 2M "$D"/m{0..4}.img
	head -c 300000 /dev/urandom > "$D/data"
	stripe-write -q -i "$D/data" "$D"/m{0..4}.img
	rm "$D/m2.img"
	LEFT=("$D"/m{0,1,3}.img "$D/m4.img")
}

# field MEMBER KEY: KEY of MEMBER's superblock, as stripe-examine --json has it.
field() {
	stripe-examine --json "$1" | jq -r ".members[0].$2"
}

@test "stripe-rebuild rebuilds onto the array's own hot spare given among the members" {
	run --separate-stderr stripe-rebuild --progress none "${LEFT[@]}"
	assert_success
	assert_line "rebuilding role 2 onto $D/m4.img (the array's spare)"
	cmp "$D/data" <(stripe-read -q --length 300000 "${LEFT[@]}")
	[ "$(field "$D/m4.img" role)" = 2 ]
	run stripe-check -q --progress none "${LEFT[@]}"
	assert_success
}

@test "the spare keeps its device number and UUID when it takes the role" {
	local uuid=$(field "$D/m4.img" device_uuid) number=$(field "$D/m4.img" dev_number)
	stripe-rebuild -q --progress none "${LEFT[@]}"
	[ "$(field "$D/m4.img" device_uuid)" = "$uuid" ] || fail "device UUID $uuid became $(field "$D/m4.img" device_uuid)"
	[ "$(field "$D/m4.img" dev_number)" = "$number" ] || fail "device number $number became $(field "$D/m4.img" dev_number)"
}

@test "a replacement given takes the role before the array's own spare" {
	stripe-rebuild -q --progress none --spare "$D/new.img" "${LEFT[@]}"
	[ "$(field "$D/new.img" role)" = 2 ]
	[ "$(field "$D/m4.img" state)" = spare ]
}

@test "stripe-rebuild --json calls the spare's rebuild no rebuild in place" {
	run stripe-rebuild --json --progress none "${LEFT[@]}"
	assert_success
	[ "$(jq -c '.targets[] | [.role, .in_place]' <<<"$output")" = '[2,false]' ] || fail "$output"
}

@test "stripe-recover rebuilds onto the array's own hot spare without --spare" {
	plain_suite_only
	run stripe-recover "${LEFT[@]}"
	assert_success
	assert_line "rebuild role 2 onto the array's spare $D/m4.img"
	assert_line "verdict: recovered"
	cmp "$D/data" <(stripe-read -q --length 300000 "${LEFT[@]}")
}
