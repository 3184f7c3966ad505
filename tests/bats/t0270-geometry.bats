#!/usr/bin/env bats
# --geometry SPEC: the read-only tools read members whose superblocks are
# gone as the SPEC describes them, and give md's bytes.
# The plain suite runs it; under ASan and UBSan the same code runs in the unit
# tests (test_geometry_spec, test_spec_array, test_probe_*) and fuzz_probe.
# suite: plain

bats_require_minimum_version 1.5.0
load helpers
load map-helpers

setup_file() {
	fixtures_ready
}

teardown() {
	map_teardown
}

# spec_of SET [ORDER]: the SPEC the set's MANIFEST describes, its members
# in role order unless ORDER is given (a mirror has no chunk or layout).
spec_of() {
	local set=$1 order=$2 n r level spread=
	n=$(manifest "$set" raid_devices)
	level=$(manifest "$set" level)
	if [ -z "$order" ]; then
		order=0
		for ((r = 1; r < n; r++)); do order+=":$r"; done
	fi
	[ "$level" = raid1 ] ||
		spread=",chunk=$(($(manifest "$set" chunk_bytes) / 1024))K,layout=$(manifest "$set" layout_name)"
	printf 'level=%s%s,data-offset=%ss,size=%sK,order=%s' "$level" "$spread" \
		"$(manifest "$set" member0.data_offset_sectors)" "$(manifest "$set" component_size_kib)" "$order"
}


@test "read --geometry of a 1.2 set with its superblocks zeroed gives md's bytes" {
	local set=r6-5d-64k-ls-1.2
	run stripe-read $(zeroed_set $set)
	assert_failure 2
	[ "$(stripe-read --geometry "$(spec_of $set)" $(zeroed_set $set) | sha)" = "$(manifest $set array_sha256)" ]
}

@test "read --geometry of a 0.90 set with the superblock area at its end zeroed gives md's bytes" {
	local set=r6-4d-64k-0.90
	[ "$(stripe-read --geometry "$(spec_of $set)" $(zeroed_set $set) | sha)" = "$(manifest $set array_sha256)" ]
}

@test "read --geometry of a 0.90 mirror with the superblock area zeroed gives md's bytes" {
	local set=r1-3d-0.90
	[ "$(stripe-read --geometry "$(spec_of $set)" $(zeroed_set $set) | sha)" = "$(manifest $set array_sha256)" ]
}

@test "read --geometry with two roles missing rebuilds them from P and Q" {
	local set=r6-5d-64k-ls-1.2 m
	m=($(zeroed_set $set))
	run bash -c "stripe-read --geometry '$(spec_of $set 0:missing:1:2:missing)' ${m[0]} ${m[2]} ${m[3]} | sha256sum"
	assert_success
	assert_output --partial "$(manifest $set array_sha256)"
}

@test "read --geometry takes the members in the order the SPEC names, not as given" {
	local set=r5-4d-64k-rs-1.0 m
	m=($(zeroed_set $set))
	[ "$(stripe-read -q --geometry "$(spec_of $set 2:0:3:1)" ${m[1]} ${m[3]} ${m[0]} ${m[2]} | sha)" = \
		"$(manifest $set array_sha256)" ]
}

@test "read --geometry with a wrong order gives other bytes" {
	local set=r5-4d-64k-rs-1.0
	[ "$(stripe-read -q --geometry "$(spec_of $set 1:0:2:3)" $(zeroed_set $set) | sha)" != \
		"$(manifest $set array_sha256)" ]
}

@test "read --geometry never writes to the members" {
	local set=r5-4d-64k-rs-1.0 before
	before=$(cat $(zeroed_set $set) | sha)
	stripe-read -q --geometry "$(spec_of $set)" $(in_role_order "$BATS_TEST_TMPDIR/$set"/member*.img) >/dev/null
	[ "$(cat $(in_role_order "$BATS_TEST_TMPDIR/$set"/member*.img) | sha)" = "$before" ]
}

@test "read --geometry refuses a bad SPEC with exit 2 and one line naming the field" {
	local spec want
	while IFS='|' read -r spec want; do
		run --separate-stderr stripe-read --geometry "$spec" $(members r5-4d-64k-rs-1.0)
		[ "$status" -eq 2 ] || fail "$spec: exit $status"
		[ -z "$output" ] || fail "$spec: wrote to stdout"
		[ "${#stderr_lines[@]}" -eq 1 ] || fail "$spec: ${#stderr_lines[@]} lines: $stderr"
		[[ $stderr == "stripe-read: "*"$want"* ]] || fail "$spec: $stderr"
	done <<-'SPECS'
	level=5,chunk=48K,size=8128K,order=0:1:2:3|--geometry: chunk: 96 sectors is not a power of two
	level=5,chunk=64K,size=8128K,order=0:1:2:7|--geometry: order: role 3 names member 7; 4 members given
	level=5,chunk=64K,size=8128K,order=0:1:2|--geometry: order: member 3 is given but holds no role
	level=5,chunk=64K,size=1G,order=0:1:2:3|member0.img: 8388608 bytes; the --geometry data-offset and size need 1073741824
	level=5,chunk=64K,size=8128K,layout=diagonal,order=0:1:2:3|--geometry: layout:
	SPECS
}

@test "check --geometry finds a zeroed set consistent under its SPEC" {
	local set=r6-5d-64k-ls-1.2
	run stripe-check -q --geometry "$(spec_of $set)" $(zeroed_set $set)
	assert_success
	assert_output --partial ": 0 inconsistent"
}

@test "check --geometry finds every row inconsistent under a wrong order" {
	local set=r6-5d-64k-ls-1.2
	run stripe-check -q --geometry "$(spec_of $set 1:0:2:3:4)" $(zeroed_set $set)
	assert_failure 1
	assert_output --partial "1792 units of 4 KiB: 1792 inconsistent"
}

@test "check refuses --repair with --geometry before opening a member" {
	run --separate-stderr stripe-check --repair --geometry "$(spec_of r5-4d-64k-rs-1.0)" "$BATS_TEST_TMPDIR/none.img"
	assert_failure 2
	[[ $stderr == "stripe-check: --geometry: not with --repair;"* ]]
}

# multizone_raid0 LAYOUT: a 1.2 raid0 stripe-create makes of members of
# three sizes (three zones) holding random bytes, then the sha of what
# stripe-read gives with its superblocks, and the SPEC of its data sizes;
# the superblock areas are zeroed after.  Members are $BATS_TEST_TMPDIR/m{a,b,c}.img.
multizone_raid0() {
	local d=$BATS_TEST_TMPDIR layout=$1 sizes
	truncate -s 4160K "$d/ma.img"
	truncate -s 6M "$d/mb.img"
	truncate -s 8M "$d/mc.img"
	stripe-create -q -l 0 -p "$layout" -c 64K "$d"/m{a,b,c}.img
	head -c "$(stripe-examine --json "$d"/m{a,b,c}.img | jq -r .array.size_bytes)" /dev/urandom >"$d/data"
	stripe-write --progress none -i "$d/data" "$d"/m{a,b,c}.img
	MZ_SHA=$(stripe-read "$d"/m{a,b,c}.img | sha)
	sizes=$(stripe-examine --json "$d"/m{a,b,c}.img | jq -r '[.members[].avail_dev_size_sectors | "\(.)s"] | join(":")')
	MZ_SPEC="level=0,chunk=64K,raid0-layout=$layout,data-offset=2048s,sizes=$sizes,order=0:1:2"
	for m in "$d"/m{a,b,c}.img; do
		dd if=/dev/zero of="$m" bs=512 count=2048 conv=notrunc status=none
	done
}

@test "read --geometry of a multi-zone raid0 with its superblocks zeroed gives what its superblocks gave" {
	local layout
	for layout in original alternate; do
		multizone_raid0 $layout
		[ "$(stripe-read --geometry "$MZ_SPEC" "$BATS_TEST_TMPDIR"/m{a,b,c}.img | sha)" = "$MZ_SHA" ] ||
			fail "$layout: other bytes under $MZ_SPEC"
	done
}

@test "read --geometry of a multi-zone raid0 under the other raid0-layout gives other bytes" {
	multizone_raid0 alternate
	[ "$(stripe-read --geometry "${MZ_SPEC/alternate/original}" "$BATS_TEST_TMPDIR"/m{a,b,c}.img | sha)" != "$MZ_SHA" ]
}

@test "read --geometry refuses a multi-zone raid0 SPEC without raid0-layout, naming the field" {
	run --separate-stderr stripe-read --geometry "level=0,chunk=64K,sizes=3M:5M:7M,order=0:1:2" "$BATS_TEST_TMPDIR"/none.img
	assert_failure 2
	[[ $stderr == "stripe-read: --geometry: raid0-layout: not given; these sizes make 3 zones"* ]]
}

@test "examine --geometry shows the array the SPEC describes, and says once that member details do not apply" {
	local set=r5-4d-64k-rs-1.0
	run stripe-examine --geometry "$(spec_of $set 2:0:3:1)" $(zeroed_set $set)
	assert_success
	assert_line "     Raid Level : raid5"
	assert_line "         Layout : right-symmetric"
	assert_line "     Chunk Size : 64K"
	assert_line "     Array Size : $(($(manifest $set array_size_bytes) / 1024)) KiB (23.81 MiB 24.97 MB)"
	assert_line "    Data Offset : 0 sectors"
	assert_line "         Role 0 : $BATS_TEST_TMPDIR/$set/member2.img"
	[ "$(grep -c "per-member superblock details .* do not apply" <<<"$output")" -eq 1 ]
	refute_output --partial "Magic"
}

@test "examine --geometry --json and --export say the array comes from the SPEC" {
	local set=r6-5d-64k-ls-1.2 m
	m=$(zeroed_set $set)
	run stripe-examine --json --geometry "$(spec_of $set)" $m
	assert_success
	[ "$(jq -r '[.source, .array.size_bytes, .array.data_offset_sectors, .array.layout_name] | join(" ")' <<<"$output")" = \
		"geometry $(manifest $set array_size_bytes) 2048 left-symmetric" ]
	run stripe-examine --export --geometry "$(spec_of $set)" $m
	assert_line "STRIPE_SOURCE='geometry'"
	assert_line "STRIPE_GEOMETRY='level=6,chunk=64K,layout=left-symmetric,data-offset=2048s,size=7M,order=0:1:2:3:4'"
}

@test "examine --geometry with a role missing says degraded and exits 1" {
	local set=r6-5d-64k-ls-1.2 m
	m=($(zeroed_set $set))
	run stripe-examine -q --geometry "$(spec_of $set 0:1:2:3:missing)" ${m[@]:0:4}
	assert_failure 1
	assert_line "          State : clean, degraded"
	assert_line "         Role 4 : missing"
}

@test "map -r --geometry of a set with its superblocks zeroed serves md's bytes, mounted as stripe:geometry" {
	map_setup
	local set=r6-5d-64k-ls-1.2
	map_start -r --geometry "$(spec_of $set 0:missing:1:2:3)" $(zeroed_set $set | sed 2d)
	[ "$(sha "$MNT/array")" = "$(manifest $set array_sha256)" ]
	[ "$(findmnt -no SOURCE "$MNT")" = stripe:geometry ]
	map_stop
	[ "$MAP_RC" -eq 0 ] || fail "stripe-map exited $MAP_RC: $(cat "$D/map.err")"
}

@test "map --geometry without -r is refused in one line with exit 2, before any member is opened" {
	run --separate-stderr stripe-map --geometry "$(spec_of r5-4d-64k-rs-1.0)" "$BATS_TEST_TMPDIR"/none.img "$BATS_TEST_TMPDIR"
	assert_failure 2
	[ -z "$output" ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ $stderr == "stripe-map: --geometry: only with -r/--read-only;"* ]]
}
