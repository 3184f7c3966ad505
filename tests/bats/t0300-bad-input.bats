#!/usr/bin/env bats
# Bad input: every broken member or member list is refused with exit status 2,
# one line on stderr naming the path and the problem, and no member changed.

bats_require_minimum_version 1.5.0
load helpers

setup_file() {
	fixtures_ready
}

setup() {
	SET=$BATS_TEST_TMPDIR/set
	mkdir -p "$SET"
	cp "$FIX"/r5-4d-64k-ls-1.2/member*.img "$SET/"
	M=("$SET"/member0.img "$SET"/member1.img "$SET"/member2.img "$SET"/member3.img)
}

# sums FILE...: sha256 of those that are regular files.
sums() {
	local m
	for m in "$@"; do
		if [ -f "$m" ]; then sha256sum "$m"; fi
	done
}

# refused WHAT PATTERN MEMBER...: both tools exit 2 with one stderr line
# that names WHAT and matches PATTERN, and every member is unchanged.
refused() {
	local what=$1 pattern=$2 tool lines
	shift 2
	local before
	before=$(sums "$@")
	for tool in stripe-read stripe-examine; do
		run --separate-stderr "$tool" "$@"
		[ "$status" -eq 2 ] || fail "$tool exited $status, expected 2; stderr: $stderr"
		lines=$(printf '%s\n' "$stderr" | grep -c .)
		[ "$lines" -eq 1 ] || fail "$tool printed $lines lines on stderr: $stderr"
		[[ $stderr == *"$what"* ]] || fail "$tool: stderr does not name $what: $stderr"
		[[ $stderr =~ $pattern ]] || fail "$tool: stderr does not match /$pattern/: $stderr"
	done
	[ "$before" = "$(sums "$@")" ] || fail "a member changed"
}

@test "a member whose checksum byte is flipped is refused" {
	local b
	b=$(od -An -tu1 -j $((4096 + 216)) -N1 "${M[1]}")
	"$TTOOLS/sb-patch" "${M[1]}" 216 1 $((b ^ 1)) keep-csum
	refused "${M[1]}" "superblock checksum 0x[0-9a-f]+, computed 0x[0-9a-f]+" "${M[@]}"
}

@test "a member with a wrong magic number is refused as having no superblock" {
	"$TTOOLS/sb-patch" "${M[2]}" 0 4 0x12345678
	refused "${M[2]}" "no md superblock found" "${M[@]}"
}

@test "a superblock with an unknown feature bit is refused" {
	"$TTOOLS/sb-patch" "${M[0]}" 8 4 0x8000
	refused "${M[0]}" "unknown feature bits 0x8000" "${M[@]}"
}

@test "a superblock with max_dev over 1920 is refused" {
	"$TTOOLS/sb-patch" "${M[3]}" 220 4 1921
	refused "${M[3]}" "max_dev 1921 exceeds 1920" "${M[@]}"
}

@test "a superblock whose data offset lies past the end of the device is refused" {
	"$TTOOLS/sb-patch" "${M[1]}" 128 8 99999999
	refused "${M[1]}" "runs past the end of the device" "${M[@]}"
}

@test "a truncated member is refused" {
	truncate -s 4M "${M[2]}"
	refused "${M[2]}" "data area 2048\+14336 sectors runs past the end of the device \(8192 sectors\)" "${M[@]}"
}

@test "an empty file is refused" {
	: > "$SET/empty.img"
	refused "$SET/empty.img" "too small to be an md member" "${M[@]:0:3}" "$SET/empty.img"
}

@test "a directory is refused" {
	refused "$SET" "is a directory" "${M[@]:0:3}" "$SET"
}

@test "a path that does not exist is refused" {
	refused "$SET/nope.img" "No such file or directory" "${M[@]:0:3}" "$SET/nope.img"
}

@test "a file that is not an md member is refused" {
	head -c 8M /dev/urandom > "$SET/random.img"
	refused "$SET/random.img" "no md superblock found" "${M[@]:0:3}" "$SET/random.img"
}

@test "members of two different arrays in equal numbers are refused" {
	cp "$FIX"/r5-4d-64k-la-1.2/member0.img "$SET/other0.img"
	cp "$FIX"/r5-4d-64k-la-1.2/member1.img "$SET/other1.img"
	refused "other" "members of different arrays \(UUID [0-9a-f:]+ and [0-9a-f:]+\)" "${M[0]}" "${M[1]}" "$SET/other0.img" "$SET/other1.img"
}

@test "two members claiming one role are refused" {
	cp "${M[1]}" "$SET/member1-copy.img"
	refused "member1" "both claim role 1 with events" "${M[@]}" "$SET/member1-copy.img"
}

@test "a chunk size that is not a power of two is refused" {
	local m
	for m in "${M[@]}"; do "$TTOOLS/sb-patch" "$m" 88 4 100; done
	refused "$SET/member" "chunk of 100 sectors: md wants a power of two" "${M[@]}"
}

@test "a superblock of major version 2 is refused" {
	"$TTOOLS/sb-patch" "${M[0]}" 4 4 2
	refused "${M[0]}" "major version 2, expected 1" "${M[@]}"
}

@test "a 0.90 member whose checksum is wrong is refused" {
	cp "$FIX"/r1-3d-0.90/member*.img "$SET/"
	"$TTOOLS/sb-patch" "$SET/member1.img" 24 4 12345 keep-csum
	refused "$SET/member1.img" "superblock checksum" "$SET/member0.img" "$SET/member1.img" "$SET/member2.img"
}

@test "a raid6 with three members missing cannot be read" {
	cp "$FIX"/r6-5d-64k-ls-1.2/member{0,1}.img "$SET/"
	run --separate-stderr stripe-read "$SET/member0.img" "$SET/member1.img"
	assert_failure 2
	[[ $stderr == *"member0.img: raid6 array of 5 devices is missing roles 2, 3, 4"* ]]
	[ -z "$output" ]
}

@test "a raid5 with two members missing cannot be read" {
	run --separate-stderr stripe-read "${M[0]}" "${M[3]}"
	assert_failure 2
	[[ $stderr == *"member0.img: raid5 array of 4 devices is missing roles 1, 2"* ]]
	[ -z "$output" ]
}

@test "a raid0 with one member missing cannot be read" {
	run --separate-stderr stripe-read "$FIX"/r0-3d-64k-1.2/member{0,2}.img
	assert_failure 2
	[[ $stderr == *"missing role 1"* ]]
}

@test "an offset past the end of the array is refused" {
	run --separate-stderr stripe-read --offset 1G "${M[@]}"
	assert_failure 2
	[[ $stderr == *"past the end of the array"* ]]
}

@test "a length that runs past the end of the array is refused" {
	run --separate-stderr stripe-read --offset 4096 --length $(manifest r5-4d-64k-ls-1.2 array_size_bytes) "${M[@]}"
	assert_failure 2
	[[ $stderr == *"runs past the end of the array"* ]]
}
