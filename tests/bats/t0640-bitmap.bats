#!/usr/bin/env bats
# The write-intent bitmap kept as md keeps it: a write's bits set before its
# data, the bitmap's events with the superblocks', bits cleared only while
# the array is whole (tests/md/t9600 has md's own word on it).

bats_require_minimum_version 1.5.0
load helpers

SET=r5-4d-bitmap-1.2

setup() {
	case_sample 2 2
	fixtures_ready
	mapfile -t M < <(copy_set $SET)
}

# seven_bits: the copy's bitmap counts 1 MiB a bit, so its 7 MiB members
# get seven bits, not the fixture's one.
seven_bits() {
	bitmap_chunk 1048576 "${M[@]}"
}

# bitmap MEMBER FIELD: a field of the member's bitmap, as stripe-examine
# --json gives it (events, events_cleared, dirty_bits).
bitmap() {
	stripe-examine --json "$1" | jq -r ".members[0].bitmap.$2"
}

# bits MEMBER: the first byte of the member's bits, in hex.
bits() {
	od -An -tx1 -j $((8192 + 256)) -N1 "$1" | tr -d ' '
}

@test "a write leaves every member's bitmap events equal to its superblock's" {
	local m
	head -c 1M /dev/urandom | stripe-write -q --offset 64K "${M[@]}"
	for m in "${M[@]}"; do
		[ "$(bitmap "$m" events)" = 23 ] || fail "$m: bitmap events $(bitmap "$m" events)"
		[ "$(events_of "$m")" = 23 ]
	done
}

@test "a write to a whole array leaves no bit set and events_cleared at the new events" {
	seven_bits
	head -c 3M /dev/urandom | stripe-write -q --offset 2M "${M[@]}"
	[ "$(bitmap "${M[0]}" dirty_bits)" = 0 ]
	[ "$(bitmap "${M[3]}" events_cleared)" = 23 ]
}

@test "a write with a member absent sets the bits of exactly the chunks it covers" {
	seven_bits
	# array bytes 2 MiB to 5 MiB are rows 10 to 26: member sectors 1280
	# to 3455, under bits 0 and 1 of 2048 sectors each
	head -c 3M /dev/urandom | stripe-write -q --run --offset 2M "${M[@]:0:3}"
	[ "$(bits "${M[0]}")" = 03 ]
	[ "$(bits "${M[2]}")" = 03 ]
}

@test "a write with a member absent keeps events_cleared where it was, for md's re-add" {
	seven_bits
	head -c 1M /dev/urandom | stripe-write -q --run --offset 64K "${M[@]:0:3}"
	[ "$(bitmap "${M[0]}" events_cleared)" = 19 ]
	[ "$(bitmap "${M[0]}" events)" = 23 ]
	# the member left out keeps its own bitmap as it was
	[ "$(bitmap "${M[3]}" events)" = 21 ]
}

@test "a write killed half way leaves the bits of the rows it took set" {
	seven_bits
	killed_write "$BATS_TEST_TMPDIR/fifo" 2M 3M "${M[@]}"
	[ "$(bits "${M[1]}")" = 03 ]
	[ "$(stripe-examine --json "${M[@]}" | jq .array.needs_resync)" = true ]
}

@test "stripe-check --repair leaves the bitmap's events equal to the superblocks'" {
	head -c 4096 /dev/urandom | dd of="${M[3]}" bs=512 seek=2048 conv=notrunc status=none
	run stripe-check -q --repair --progress none "${M[@]}"
	[ "$(bitmap "${M[0]}" events)" = "$(events_of "${M[0]}")" ]
	[ "$(bitmap "${M[3]}" events)" = "$(events_of "${M[3]}")" ]
}

@test "a rebuild gives the new member the array's bitmap, with the events all members have" {
	local m
	seven_bits
	head -c 1M /dev/urandom | stripe-write -q --run --offset 64K "${M[@]:0:3}"
	rm "${M[3]}"
	truncate -s 8M "${M[3]}"
	stripe-rebuild -q --progress none --replace 3="${M[3]}" "${M[@]:0:3}"
	for m in "${M[@]}"; do
		[ "$(bitmap "$m" events)" = "$(events_of "$m")" ] || fail "$m: bitmap events $(bitmap "$m" events)"
	done
	# whole again: the bits set while member 3 was gone are cleared
	[ "$(bitmap "${M[3]}" dirty_bits)" = 0 ]
	[ "$(bitmap "${M[0]}" events_cleared)" = "$(events_of "${M[0]}")" ]
}

@test "a write is refused, nothing written, when the events count is at its limit" {
	local m before
	for m in "${M[@]}"; do
		"$TTOOLS/sb-patch" "$m" 200 8 0xffffffffffffffff
	done
	before=$(sha "${M[@]}")
	run -2 stripe-write -q --offset 0 -i /dev/zero "${M[@]}"
	[[ $output == *"events count is at its limit (2^64-1)"*"nothing written"* ]]
	[ "${#lines[@]}" = 1 ]
	[ "$(sha "${M[@]}")" = "$before" ]
}
