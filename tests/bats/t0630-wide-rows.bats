#!/usr/bin/env bats
# Arrays whose stripe row is larger than half the memory budget (40 members
# of 512K chunks: a row is 20 MiB): reads, writes and checks work in parts
# of a chunk, and still give md's bytes, degraded and around read errors.

bats_require_minimum_version 1.5.0
load helpers

setup() {
	case_sample 2 2
	D=$BATS_TEST_TMPDIR
	M=()
	local i
	for i in $(seq -w 0 39); do M+=("$D/m$i.img"); done
	stripe-create -q -l 6 -c 512K --image-size 4M "${M[@]}"
	# a slice of urandom across three rows, starting and ending inside one
	head -c $((45 << 20)) /dev/urandom > "$D/data"
	OFF=12345
}

# The members without roles $1 and $2.
without() {
	printf '%s\n' "${M[@]}" | grep -v -e "m$1.img" -e "m$2.img"
}

@test "a write across wide rows at an unaligned offset changes exactly those bytes" {
	local size
	size=$(stripe-examine --json "${M[@]}" | jq -r .array.size_bytes)
	stripe-write --progress none --offset $OFF -i "$D/data" "${M[@]}"
	stripe-read -o "$D/after" "${M[@]}"
	{ head -c $OFF /dev/zero; cat "$D/data"; head -c $((size - OFF - (45 << 20))) /dev/zero; } > "$D/expect"
	cmp "$D/expect" "$D/after"
}

@test "after a write across wide rows the parity is consistent" {
	stripe-write --progress none --offset $OFF -i "$D/data" "${M[@]}"
	run stripe-check --progress none "${M[@]}"
	assert_success
}

@test "a wide raid6 with two members missing gives the written bytes" {
	stripe-write --progress none --offset $OFF -i "$D/data" "${M[@]}"
	cmp "$D/data" <(stripe-read -q --offset $OFF --length $((45 << 20)) $(without 03 21))
}

@test "a write inside wide rows with two members missing keeps the rest of the rows and its own bytes" {
	# into row 1 (array bytes 19 MiB on), 500000 bytes into its first data
	# chunk, which is on m00, missing: the rest of that chunk is rebuilt
	local at=$((38 * 524288 + 500000))
	stripe-write --progress none -i "$D/data" "${M[@]}"
	head -c $((7 << 20)) /dev/urandom > "$D/data2"
	stripe-write -q --run --progress none --offset $at -i "$D/data2" $(without 00 39)
	{ head -c $at "$D/data"; cat "$D/data2"; tail -c +$((at + (7 << 20) + 1)) "$D/data"; } > "$D/expect"
	cmp "$D/expect" <(stripe-read -q --length $((45 << 20)) $(without 00 39))
}

@test "a read error on a member of a wide raid6 is read around and named" {
	local m5
	stripe-write --progress none --offset $OFF -i "$D/data" "${M[@]}"
	m5=$(($(stripe-examine --json "${M[@]}" | jq -r '.members[0].data_offset_sectors') * 512))
	STRIPE_FAULT_READ="m05.img:$((m5 + 3 * 4096)):8192" \
		run --separate-stderr stripe-read --offset $OFF --length $((45 << 20)) -o "$D/out" "${M[@]}"
	assert_success
	cmp "$D/data" "$D/out"
	[[ $stderr == *"m05.img: read error at bytes $((m5 + 3 * 4096))-$((m5 + 5 * 4096 - 1)) (8192 bytes); rebuilt from the other members"* ]] ||
		fail "stderr: $stderr"
}

@test "a read error where a wide raid6 has no redundancy left reads as zeroes there, named by its array bytes, with status 1" {
	local m5 at=$((4 << 19))
	m5=$(($(stripe-examine --json "${M[@]}" | jq -r '.members[0].data_offset_sectors') * 512))
	stripe-read -q -o "$D/want" $(without 00 39)
	dd if=/dev/zero of="$D/want" bs=4096 seek=$((at / 4096)) count=1 conv=notrunc status=none
	# row 0: P on m39 and Q on m00, both missing; m05 holds data chunk 4
	STRIPE_FAULT_READ="m05.img:$m5:4096" \
		run --separate-stderr stripe-read -q -o "$D/out" $(without 00 39)
	assert_failure 1
	[[ $stderr == *"array bytes $at-$((at + 4095)) (4096 bytes): unreadable, and no redundancy left to rebuild them; read as zeroes"* ]] ||
		fail "stderr: $stderr"
	cmp "$D/out" "$D/want"
}

@test "a piped write to a wide raid6 with two members missing, ending inside a row, keeps the rest of the row" {
	# row 2 (array bytes 38 MiB on) holds its first two data chunks on m39
	# and m00, both missing; the pipe's end is found only when it ends,
	# inside the first of them
	local at=$((2 * 38 * 524288))
	stripe-write --progress none -i "$D/data" "${M[@]}"
	head -c 100000 /dev/urandom > "$D/data2"
	stripe-write -q --run --progress none --offset $at $(without 00 39) < <(cat "$D/data2")
	{ head -c $at "$D/data"; cat "$D/data2"; tail -c +$((at + 100000 + 1)) "$D/data"; } > "$D/expect"
	cmp "$D/expect" <(stripe-read -q --length $((45 << 20)) $(without 00 39))
}
