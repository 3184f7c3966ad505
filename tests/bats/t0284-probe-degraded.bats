#!/usr/bin/env bats
# stripe-probe on degraded arrays whose missing member held the start of
# the filesystem: the superblock is then found on the member holding row
# 0's P (or Q), a copy that says nothing of which member holds data, or
# not at all, when its backups stand for it.  Arrays holding a real ext4
# (tests/probe/make-ext4-array), their superblocks zeroed.
# suite: plain

bats_require_minimum_version 1.5.0
load helpers

# degraded_array DIR MEMBER_SIZE OPTION...: a zeroed ext4 array in DIR.
degraded_array() {
	local dir=$1 size=$2
	shift 2
	"$TOP/tests/probe/make-ext4-array" "$dir" "$size" "$@" >/dev/null
	"$TOP/tests/probe/make-ext4-array" --zero "$dir"
}

# answer: the top array's --geometry line, from the JSON in $output.
answer() {
	jq -r '.candidates[.arrays[0].candidate - 1].geometry' <<<"$output"
}

# answer_roles: the answer's order as the members it names, by file name
# ("m0.img:missing:m2.img:m3.img").
answer_roles() {
	local -a words order
	local r
	read -ra words <<<"$(answer)"
	IFS=: read -ra order <<<"${words[1]##*order=}"
	for r in "${order[@]}"; do
		if [ "$r" = missing ]; then echo missing; else basename "${words[r + 2]}"; fi
	done | paste -sd:
}

# answer_sha: the sha256 of what the answer's --geometry line reads.
answer_sha() {
	eval "stripe-read -q $(answer)" | sha256sum | cut -d' ' -f1
}

# same_shape DIR: the answer's level, chunk, layout and data offset are DIR/truth's.
same_shape() {
	local truth got
	truth=$(cat "$1/truth")
	got=$(answer | cut -d' ' -f2)
	assert_equal "${got%%,size=*}" "${truth%%,size=*}"
}

@test "probe finds a RAID5 whose missing member held the ext4's start (exit 0), and its answer reads the array" {
	local a=$BATS_TEST_TMPDIR/a
	# right-asymmetric: row 0's P on role 0, data chunk 0 on role 1
	degraded_array "$a" 16M -l 5 -n 4 -c 128K -p right-asymmetric
	run --separate-stderr stripe-probe --json "$a/m3.img" "$a/m0.img" missing "$a/m2.img"
	assert_success
	same_shape "$a"
	assert_equal "$(answer_roles)" m0.img:missing:m2.img:m3.img
	assert_equal "$(answer_sha)" "$(cat "$a/array.sha256")"
}

@test "probe finds a RAID6 missing two members, the ext4's start among them (exit 0), and its answer reads the array" {
	local a=$BATS_TEST_TMPDIR/a
	# left-symmetric: row 0's Q on role 0, data chunk 0 on role 1, P on role 4
	degraded_array "$a" 16M -l 6 -n 5 -c 64K -p left-symmetric
	run --separate-stderr stripe-probe --json missing "$a/m4.img" "$a/m0.img" missing "$a/m2.img"
	assert_success
	same_shape "$a"
	assert_equal "$(answer_roles)" m0.img:missing:m2.img:missing:m4.img
	assert_equal "$(answer_sha)" "$(cat "$a/array.sha256")"
}

@test "probe finds a RAID6 of four with two members left, the layout and chunk their anchors leave open tried until the ext4 reads whole" {
	local a=$BATS_TEST_TMPDIR/a
	# parity-first: P and Q on roles 0 and 1, the data on 2 and 3; with
	# roles 1 and 3 gone each row shows one data chunk and its P
	degraded_array "$a" 16M -l 6 -n 4 -c 128K -p parity-first
	run --separate-stderr stripe-probe --json "$a/m2.img" missing "$a/m0.img" missing
	assert_success
	same_shape "$a"
	assert_equal "$(answer_roles)" m0.img:missing:m2.img:missing
	assert_equal "$(answer_sha)" "$(cat "$a/array.sha256")"
}
