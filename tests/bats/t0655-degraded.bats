#!/usr/bin/env bats
# Degraded on purpose only: a tool that writes refuses an array whose
# superblocks hold roles in sync that were not given, unless --run (mdadm's
# word), and the tools that read say in one line which roles they serve
# from redundancy, as mdadm says "started with 4 drives (out of 6)".

bats_require_minimum_version 1.5.0
load helpers
load map-helpers

setup() {
	case_sample 2 2
	D=$BATS_TEST_TMPDIR
}

teardown() {
	map_teardown
}

# make_array OPTION...: a six-member array of small images in M, and 100000
# random bytes in $D/data.
make_array() {
	stripe-create -q -c 64K "$@" --image-size 2M "$D"/m{0..5}.img
	M=("$D"/m{0..5}.img)
	head -c 100000 /dev/urandom > "$D/data"
}

# members_sha: one hash over every member's bytes, given or not.
members_sha() {
	cat "${M[@]}" | sha
}

@test "stripe-write refuses an array whose in-sync roles were not given, naming them, and writes nothing" {
	make_array -l 6 -n 6
	local before=$(members_sha)
	run --separate-stderr stripe-write -i "$D/data" "$D"/m{0..3}.img
	assert_failure 2
	[ "$stderr" = "stripe-write: roles 4 and 5 are in sync in the superblocks but were not given; give them, or --run to write degraded" ] ||
		fail "stderr: $stderr"
	[ "$(members_sha)" = "$before" ] || fail "a member changed"
}

@test "one role left out is named alone" {
	make_array -l 6 -n 6
	run --separate-stderr stripe-write -i "$D/data" "$D"/m{0..2}.img "$D/m4.img" "$D/m5.img"
	assert_failure 2
	[ "$stderr" = "stripe-write: role 3 is in sync in the superblocks but was not given; give it, or --run to write degraded" ] ||
		fail "stderr: $stderr"
}

@test "stripe-write --run writes the array degraded and records the roles left out as gone" {
	make_array -l 6 -n 6
	run --separate-stderr stripe-write --run -i "$D/data" "$D"/m{0..3}.img
	assert_success
	cmp "$D/data" <(stripe-read -q --length 100000 "$D"/m{0..3}.img)
	[ "$(stripe-examine --json "$D/m0.img" | jq -r '.members[0].array_state')" = "AAAA.." ]
}

@test "-R is --run" {
	make_array -l 5 -n 6
	stripe-write -R -q -i "$D/data" "$D"/m{0..4}.img
	cmp "$D/data" <(stripe-read -q --length 100000 "$D"/m{0..4}.img)
}

@test "an array already degraded in its superblocks is written without --run" {
	make_array -l 6 -n 6
	stripe-write -q --run -i /dev/null "$D"/m{0..3}.img
	run --separate-stderr stripe-write -i "$D/data" "$D"/m{0..3}.img
	assert_success
	cmp "$D/data" <(stripe-read -q --length 100000 "$D"/m{0..3}.img)
}

@test "stripe-check --repair refuses roles not given without --run; the check alone reads them degraded" {
	make_array -l 6 -n 6
	local before=$(members_sha)
	run --separate-stderr stripe-check --progress none --repair "$D"/m{0..4}.img
	assert_failure 2
	[[ $stderr == "stripe-check: role 5 is in sync in the superblocks but was not given; give it, or --run"* ]] ||
		fail "stderr: $stderr"
	run stripe-check -q --progress none "$D"/m{0..4}.img
	[ "$status" -ne 2 ] || fail "the check alone was refused: $output"
	[ "$(members_sha)" = "$before" ] || fail "a member changed"
}

@test "stripe-check --repair --run repairs with roles left out" {
	make_array -l 6 -n 6
	run --separate-stderr stripe-check --progress none --repair --run "$D"/m{0..4}.img
	assert_success
	assert_output --partial ": checked 256 units of 4 KiB: 0 inconsistent"
}

@test "stripe-bench --array refuses roles not given without --run and writes nothing" {
	make_array -l 6 -n 6
	local before=$(members_sha)
	run --separate-stderr stripe-bench -q --array -s 1M "$D"/m{0..4}.img
	assert_failure 2
	[[ $stderr == *"stripe-bench: role 5 is in sync in the superblocks but was not given; give it, or --run to write degraded"* ]] ||
		fail "stderr: $stderr"
	[ "$(members_sha)" = "$before" ] || fail "a member changed"
}

@test "stripe-bench --array --run benchmarks an array with roles left out" {
	make_array -l 6 -n 6
	run --separate-stderr stripe-bench -q --run --array -s 1M --seeks 0 --char-size 0 "$D"/m{0..4}.img
	assert_success
	[ "$(stripe-examine --json "$D/m0.img" | jq -r '.members[0].array_state')" = "AAAAA." ]
}

# bench_unserved ARGS...: stripe-bench --array --run on a raid5 with role 5
# left out, where m0 fails to read page 0 of row 1 (array bytes 327680 on);
# DOFF: m0's data offset in bytes.
bench_unserved() {
	make_array -l 5 -n 6
	DOFF=$(($(stripe-examine --json "$D/m0.img" | jq -r '.members[0].data_offset_sectors') * 512))
	STRIPE_FAULT_READ="m0.img:$((DOFF + 65536)):4096" run --separate-stderr \
		stripe-bench -q --run --array -s 1M --seeks 0 --char-size 0 "$@" "$D"/m{0..4}.img
}

@test "stripe-bench --array exits 1 on a range too little redundancy is left to serve, naming it and the roles it lacks" {
	bench_unserved
	assert_failure 1
	[ "$stderr" = "stripe-bench: array bytes 327680-655359 (327680 bytes): too little redundancy left in their stripe to serve them (role 0 unreadable: $D/m0.img, read error at byte $((DOFF + 65536)); role 5 missing); the tests stopped there" ] ||
		fail "stderr: $stderr"
}

@test "stripe-bench --array --json gives a range it could not serve the verdict unserved, with the message" {
	bench_unserved --json
	assert_failure 1
	[ "$(jq -r .verdict <<<"$output")" = unserved ] || fail "$output"
	[[ $(jq -r .error <<<"$output") == "array bytes 327680-655359 (327680 bytes): too little redundancy left"* ]] || fail "$output"
}

@test "stripe-bench --array says the array it reads is degraded" {
	make_array -l 6 -n 6
	run --separate-stderr stripe-bench --hdparm --seconds 0.15 --array "$D"/m{0..3}.img
	assert_success
	[[ $stderr == *"stripe-bench: degraded: 4 drives (out of 6) in sync; roles 4 and 5 served from parity"* ]] ||
		fail "stderr: $stderr"
}

@test "stripe-bench --array --json names the roles it served from parity" {
	make_array -l 6 -n 6
	run --separate-stderr stripe-bench --hdparm --seconds 0.15 --json --array "$D"/m{0..3}.img
	assert_success
	[ "$(jq -c .parameters.array.degraded_roles <<<"$output")" = "[4,5]" ] || fail "$output"
}

@test "stripe-map read-write refuses roles not given without --run, before mapping anything" {
	make_array -l 6 -n 6
	mkdir "$D/mnt"
	local before=$(members_sha)
	run --separate-stderr stripe-map --foreground "$D"/m{0..4}.img "$D/mnt"
	assert_failure 2
	[[ $stderr == "stripe-map: role 5 is in sync in the superblocks but was not given; give it, or --run"* ]] ||
		fail "stderr: $stderr"
	[ "$(members_sha)" = "$before" ] || fail "a member changed"
}

@test "stripe-rebuild refuses to leave a role in sync that was not given without --run, dry run too" {
	make_array -l 6 -n 6
	rm "$D/m1.img" "$D/m3.img"
	M=("$D"/m{0,2,4,5}.img)
	local before=$(members_sha)
	run --separate-stderr stripe-rebuild --dry-run --replace 1="$D/new1.img" "${M[@]}"
	assert_failure 2
	[[ $stderr == *"stripe-rebuild: role 3 is in sync in the superblocks but was not given; give it, or --run"* ]] ||
		fail "stderr: $stderr"
	run --separate-stderr stripe-rebuild --progress none --replace 1="$D/new1.img" "${M[@]}"
	assert_failure 2
	[ ! -e "$D/new1.img" ] || fail "the replacement made for the refused run is left behind"
	[ "$(members_sha)" = "$before" ] || fail "a member changed"
}

@test "stripe-rebuild --run rebuilds what it is given and records the role left out as gone" {
	make_array -l 6 -n 6
	stripe-write -q -i "$D/data" "${M[@]}"
	rm "$D/m1.img" "$D/m3.img"
	stripe-rebuild -q --run --progress none --replace 1="$D/new1.img" "$D"/m{0,2,4,5}.img
	cmp "$D/data" <(stripe-read -q --length 100000 "$D"/m{0,2,4,5}.img "$D/new1.img")
	[ "$(stripe-examine --json "$D/m0.img" | jq -r '.members[0].array_state')" = "AAA.AA" ]
}

@test "a role rebuilt onto a replacement needs no --run" {
	make_array -l 5 -n 6
	rm "$D/m2.img"
	run --separate-stderr stripe-rebuild -q --progress none --replace 2="$D/new2.img" "$D"/m{0,1,3,4,5}.img
	assert_success
}

@test "stripe-recover passes --run to the rebuild" {
	plain_suite_only
	make_array -l 6 -n 6
	rm "$D/m1.img" "$D/m3.img"
	run --separate-stderr stripe-recover -q --spare "$D/new1.img" "$D"/m{0,2,4,5}.img
	assert_failure 2
	[[ $stderr == *"no replacement for role(s) 3: give a spare with --spare PATH, or --run to rebuild without them"* ]] ||
		fail "stderr: $stderr"
	run stripe-recover -q --run --spare "$D/new1.img" "$D"/m{0,2,4,5}.img
	assert_failure 1
	assert_output "verdict: still_degraded"
	[ "$(stripe-examine --json "$D/m0.img" | jq -r '.members[0].array_state')" = "AAA.AA" ]
}

@test "stripe-read of a degraded array says in one line which roles it serves from parity" {
	make_array -l 6 -n 6
	run --separate-stderr stripe-read --length 4096 "$D"/m{0..3}.img
	assert_success
	[ "$stderr" = "stripe-read: degraded: 4 drives (out of 6) in sync; roles 4 and 5 served from parity" ] ||
		fail "stderr: $stderr"
}

@test "a degraded raid1 is read from copies, and says so" {
	stripe-create -q -l 1 -n 3 --image-size 2M "$D"/m{0..2}.img
	run --separate-stderr stripe-read --length 4096 "$D/m0.img" "$D/m2.img"
	assert_success
	[ "$stderr" = "stripe-read: degraded: 2 drives (out of 3) in sync; role 1 served from copies" ] ||
		fail "stderr: $stderr"
}

@test "-q silences the degraded notice" {
	make_array -l 6 -n 6
	run --separate-stderr stripe-read -q --length 4096 "$D"/m{0..3}.img
	assert_success
	[ -z "$stderr" ] || fail "stderr: $stderr"
}

@test "a whole array is read without a notice" {
	make_array -l 6 -n 6
	run --separate-stderr stripe-read --length 4096 "${M[@]}"
	assert_success
	[ -z "$stderr" ] || fail "stderr: $stderr"
}

@test "stripe-map says the array it maps is degraded" {
	map_setup
	make_array -l 6 -n 6
	map_start -r "$D"/m{0..4}.img
	map_stop
	grep -qx "stripe-map: degraded: 5 drives (out of 6) in sync; role 5 served from parity" "$D/map.err" ||
		fail "map.err: $(cat "$D/map.err")"
}
