#!/usr/bin/env bats
# stripe-create --assume-clean keeps the data on the members: it refuses,
# writing nothing, where the superblock, bitmap or bad-block log it would
# lay down covers data found there, and names what to give instead.

bats_require_minimum_version 1.5.0
load helpers

setup() {
	D=$BATS_TEST_TMPDIR
}

# random_members N: N members of 8 MiB of random bytes, the same on each.
random_members() {
	head -c 8M /dev/urandom > "$D/m0.img"
	for ((i = 1; i < $1; i++)); do cp "$D/m0.img" "$D/m$i.img"; done
}

# refused_untouched OPTION... -- MEMBER...: stripe-create with them exits 2
# in one line on stderr, in $stderr, and no member byte changes.
refused_untouched() {
	local before
	before=$(cat "${@: -3}" | sha)
	run --separate-stderr stripe-create -q "$@"
	[ "$status" -eq 2 ] || fail "exit $status: $stderr"
	[ "${#stderr_lines[@]}" -eq 1 ] || fail "${#stderr_lines[@]} lines: $stderr"
	[ "$(cat "${@: -3}" | sha)" = "$before" ] || fail "a member changed"
}

@test "a 1.2 superblock over an ext4 that starts at sector 0 is refused even with --force, and nothing is written" {
	truncate -s 8M "$D"/m{0,1,2}.img
	mkfs.ext4 -q -F "$D/m0.img"
	refused_untouched -f --assume-clean -l 5 -c 64K "$D"/m{0,1,2}.img
	[[ $stderr == "stripe-create: $D/m0.img: sectors 0-"*", where the 1.2 superblock would go, hold an ext4 filesystem (UUID "* ]] ||
		fail "$stderr"
	[[ $stderr == *"refusing to write (even with --force);"*"give --metadata 1.0 (superblock at the end)"* ]] || fail "$stderr"
}

@test "a 1.0 superblock over bytes that are not zero at the end of a member is refused, naming the sector" {
	random_members 3
	refused_untouched -f --assume-clean -e 1.0 -l 1 -n 3 "$D"/m{0,1,2}.img
	[[ $stderr == "stripe-create: $D/m0.img: sector 16368, where the 1.0 superblock would go, holds bytes that are not zero,"* ]] ||
		fail "$stderr"
	[[ $stderr == *"give --metadata 1.2 and the --data-offset the data starts at" ]] || fail "$stderr"
}

@test "a bad-block log over data is refused without --force and laid down with it" {
	random_members 3
	for m in "$D"/m{0,1,2}.img; do
		dd if=/dev/zero of="$m" bs=512 count=16 conv=notrunc status=none
	done
	refused_untouched --assume-clean -l 1 -n 3 "$D"/m{0,1,2}.img
	[[ $stderr == "stripe-create: $D/m0.img: sectors 24-31, where the 1.2 bad-block log would go, hold bytes that are not zero,"* ]] ||
		fail "$stderr"
	stripe-create -q -f --assume-clean -l 1 -n 3 "$D"/m{0,1,2}.img
}

@test "a 1.2 array whose superblock areas were zeroed gets them back and reads as before" {
	local want
	stripe-create -q -l 5 -c 64K --image-size 8M "$D"/m{0,1,2}.img
	head -c "$(stripe-examine --json "$D"/m{0,1,2}.img | jq -r .array.size_bytes)" /dev/urandom > "$D/data"
	stripe-write --progress none -i "$D/data" "$D"/m{0,1,2}.img
	want=$(sha "$D/data")
	for m in "$D"/m{0,1,2}.img; do
		dd if=/dev/zero of="$m" bs=512 count=2048 conv=notrunc status=none
	done
	stripe-create -q --assume-clean -l 5 -c 64K "$D"/m{0,1,2}.img 2>/dev/null
	[ "$(stripe-read -q "$D"/m{0,1,2}.img | sha)" = "$want" ]
}

@test "without --assume-clean a member holding an ext4 is created over with --force, as before" {
	truncate -s 8M "$D"/m{0,1}.img
	mkfs.ext4 -q -F "$D/m0.img"
	run stripe-create -q -f -l 1 "$D"/m{0,1}.img
	assert_success
}

@test "a spare's bytes are not kept data: a spare holding them does not stop --assume-clean" {
	truncate -s 8M "$D"/m{0,1}.img
	head -c 8M /dev/urandom > "$D/spare.img"
	run stripe-create -q --assume-clean -l 1 -x 1 "$D"/m{0,1}.img "$D/spare.img"
	assert_success
}

@test "restoring 1.0 superblocks after a wrong 1.2 re-create passes: the old 1.0 superblock is md's, not data" {
	local size
	stripe-create -q -e 1.0 -l 5 -c 64K --image-size 8M "$D"/m{0,1,2}.img
	size=$(stripe-examine --json "$D"/m{0,1,2}.img | jq -r .array.size_bytes)
	# the first row zero: the wrong 1.2 re-create finds no data where it writes
	{ head -c 131072 /dev/zero; head -c $((size - 131072)) /dev/urandom; } > "$D/data"
	stripe-write --progress none -i "$D/data" "$D"/m{0,1,2}.img
	stripe-create -q -f --assume-clean -e 1.2 -l 5 -c 64K "$D"/m{2,0,1}.img 2>/dev/null
	run --separate-stderr stripe-create -q -f --assume-clean -e 1.0 -l 5 -c 64K "$D"/m{0,1,2}.img
	assert_success
}
