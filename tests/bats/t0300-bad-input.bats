#!/usr/bin/env bats
# Bad input: every broken member or member list is refused with exit status 2,
# one line on stderr naming the path and the problem, and no member changed.

bats_require_minimum_version 1.5.0
load helpers

setup_file() {
	fixtures_ready
}

setup() {
	case_sample 2 2
	SET=$BATS_TEST_TMPDIR/set
	mkdir -p "$SET"
	cp "$FIX"/r5-4d-64k-ls-1.2/member*.img "$SET/"
	M=("$SET"/member0.img "$SET"/member1.img "$SET"/member2.img "$SET"/member3.img)
}

# sums FILE...: sha256 of those that are regular files, in one process.
sums() {
	local m files=()
	for m in "$@"; do
		if [ -f "$m" ]; then files+=("$m"); fi
	done
	[ ${#files[@]} -eq 0 ] || sha "${files[@]}"
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

@test "a length of 2^64-1 bytes is refused, not read as to the end" {
	run --separate-stderr stripe-read --offset 4096 --length 18446744073709551615 -o "$BATS_TEST_TMPDIR/out" "${M[@]}"
	assert_failure 2
	[[ $stderr == *"--length 18446744073709551615 from offset 4096 runs past the end of the array"* ]] ||
		fail "stderr: $stderr"
}

@test "members claiming 65535 raid devices, one of them role 60000, are refused" {
	local m k
	for m in "${M[@]}"; do "$TTOOLS/sb-patch" "$m" 92 4 65535; done
	# every dev_number's entry in member0's role table
	for k in 0 1 2 3; do "$TTOOLS/sb-patch" "${M[0]}" $((256 + 2 * k)) 2 60000; done
	refused "$SET/member" "65535 raid devices; stripe handles 1 to 256" "${M[@]}"
}

@test "a chunk of 2^31 sectors is refused, not read as an empty array" {
	local m
	for m in "${M[@]}"; do "$TTOOLS/sb-patch" "$m" 88 4 2147483648; done
	refused "$SET/member" "chunk of 2147483648 sectors: stripe handles chunks up to 2097152 sectors" "${M[@]}"
}

@test "a chunk larger than the members' component is refused" {
	local m
	for m in "${M[@]}"; do "$TTOOLS/sb-patch" "$m" 88 4 1048576; done
	refused "$SET/member" "component of [0-9]+ sectors holds no whole chunk of 1048576" "${M[@]}"
}

# examined PATTERN MEMBER...: stripe-examine shows the part it cannot read
# as unreadable, exits 1 (needs attention) with one stderr line matching
# PATTERN, and no member changed.
examined() {
	local pattern=$1 before lines
	shift
	before=$(sums "$@")
	run --separate-stderr stripe-examine "$@"
	[ "$status" -eq 1 ] || fail "stripe-examine exited $status, expected 1; stderr: $stderr"
	[[ $output == *": unreadable: "* ]] || fail "no part shown as unreadable: $output"
	lines=$(printf '%s\n' "$stderr" | grep -c .)
	[ "$lines" -eq 1 ] || fail "stripe-examine printed $lines lines on stderr: $stderr"
	[[ $stderr =~ $pattern ]] || fail "stderr does not match /$pattern/: $stderr"
	[ "$before" = "$(sums "$@")" ] || fail "a member changed"
}

# bitmap_set MEMBER BYTE WIDTH VALUE: one field of the member's write-intent
# bitmap header (1.2: at byte 8192), little-endian.
bitmap_set() {
	local m=$1 at=$((8192 + $2)) width=$3 value=$4 i bytes=""
	for ((i = 0; i < width; i++)); do
		bytes+=$(printf '\\x%02x' $(((value >> (8 * i)) & 255)))
	done
	printf "$bytes" | dd of="$m" bs=1 seek="$at" conv=notrunc status=none
}

# wrapping_bitmap N: the bitmap set copied (members in B), member N's
# bitmap covering 2^64-1 sectors in 512-byte chunks: a bit count that
# wraps when rounded up.
wrapping_bitmap() {
	B=("$BATS_TEST_TMPDIR"/b/member{0,1,2,3}.img)
	mkdir "$BATS_TEST_TMPDIR/b"
	cp "$FIX"/r5-4d-bitmap-1.2/member*.img "$BATS_TEST_TMPDIR/b/"
	bitmap_set "${B[$1]}" 40 8 -1
	bitmap_set "${B[$1]}" 52 4 512
}

@test "a bitmap covering 2^64-1 sectors is shown unreadable, not wrapped to one byte" {
	wrapping_bitmap 0
	examined "member0.img: bitmap covers 18446744073709551615 sectors, more than the device's [0-9]+" "${B[@]}"
}

@test "a rebuild from a member whose bitmap covers 2^64-1 sectors fails with status 2" {
	wrapping_bitmap 1
	run --separate-stderr stripe-rebuild -q --progress none --replace 0="$BATS_TEST_TMPDIR/new.img" "${B[@]:1}"
	assert_failure 2
	[[ $stderr == *"bitmap covers 18446744073709551615 sectors"* ]] || fail "stderr: $stderr"
}

@test "a bad-block log shift of 200 is shown unreadable" {
	"$TTOOLS/sb-patch" "${M[2]}" 185 1 200
	examined "member2.img: bad-block log shift 200, expected at most 10" "${M[@]}"
}

@test "a bad-block log placed before the start of the device is shown unreadable" {
	"$TTOOLS/sb-patch" "${M[1]}" 188 4 0xffff0000
	examined "member1.img: bad-block log offset -65536 sectors from the superblock at 8 is before the device" "${M[@]}"
}
