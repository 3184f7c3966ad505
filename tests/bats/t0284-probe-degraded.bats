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

@test "probe finds a RAID6 of four missing two members where the anchors decide no role, every chunk and layout they leave tied read through" {
	local a=$BATS_TEST_TMPDIR/a
	# parity-last: data on roles 0 and 1, P and Q on 2 and 3; with roles 1
	# and 3 gone P equals data chunk 0 wherever chunk 1 is empty, so every
	# anchor has two holders and the anchors fit every layout alike.
	# parity-first with P on m2 lays every block where this does (Q and
	# data chunk 1 both gone): either name is the array
	degraded_array "$a" 16M -l 6 -n 4 -c 8K -p parity-last
	run --separate-stderr stripe-probe --json missing "$a/m2.img" missing "$a/m0.img"
	assert_success
	assert_regex "$(answer)" ' level=6,chunk=8K,layout=parity-(last|first),data-offset=2048s,'
	assert_equal "$(answer_sha)" "$(cat "$a/array.sha256")"
}

@test "probe finds a RAID6 whose ext4 superblocks all lie on its two missing members, by a backup's copy in Q times its syndrome coefficient" {
	local a=$BATS_TEST_TMPDIR/a
	# right-symmetric-6 of 7 with 256K chunks and 1K blocks: the primary and
	# every backup (groups 1, 3, 5, 7, 9) fall on roles 1 and 3; group 9's
	# row is otherwise empty, so Q (role 6) holds its copy times g^1
	degraded_array "$a" 16M -l 6 -n 7 -c 256K -p right-symmetric-6
	run --separate-stderr stripe-probe --json "$a/m6.img" missing "$a/m4.img" "$a/m0.img" missing "$a/m2.img" "$a/m5.img"
	assert_success
	same_shape "$a"
	assert_equal "$(answer_roles)" m0.img:missing:m2.img:missing:m4.img:m5.img:m6.img
	assert_equal "$(answer_sha)" "$(cat "$a/array.sha256")"
}
