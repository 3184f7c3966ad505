#!/usr/bin/env bats
# stripe-write: bytes land where md would put them, parity and mirrors
# stay right, degraded arrays too, and the superblocks say dirty/clean as md's.

bats_require_minimum_version 1.5.0
load helpers

setup() {
	D=$BATS_TEST_TMPDIR
}

make_array() {
	stripe-create -q "$@" --image-size 5M "$D"/m{0,1,2,3,4}.img
	M=("$D"/m{0,1,2,3,4}.img)
	SIZE=$(stripe-examine --json "${M[@]}" | jq -r .array.size_bytes)
}

@test "a write at an unaligned offset changes exactly those bytes" {
	make_array -l 6 -c 64K
	head -c 300001 /dev/urandom > "$D/data"
	stripe-read "${M[@]}" > "$D/before"
	stripe-write --progress none --offset 77777 -i "$D/data" "${M[@]}"
	stripe-read "${M[@]}" > "$D/after"
	{ head -c 77777 "$D/before"; cat "$D/data"; tail -c +$((77777 + 300001 + 1)) "$D/before"; } > "$D/expect"
	cmp "$D/expect" "$D/after"
}

@test "after a partial write every member still rebuilds from the others" {
	local m
	make_array -l 6 -c 64K
	head -c 200000 /dev/urandom | stripe-write --progress none --offset 4096 "${M[@]}"
	stripe-read "${M[@]}" > "$D/whole"
	for m in 0 1 2 3 4; do
		cmp "$D/whole" <(stripe-read -q $(printf '%s\n' "${M[@]}" | grep -v "m$m.img")) ||
			fail "member $m does not rebuild"
	done
}

@test "a write to a degraded raid5 is kept in parity for the missing member" {
	make_array -l 5 -c 64K
	rm "$D/m2.img"
	head -c 1000000 /dev/urandom > "$D/data"
	stripe-write -q --progress none --offset 12345 -i "$D/data" "$D"/m{0,1,3,4}.img
	cmp "$D/data" <(stripe-read -q --offset 12345 --length 1000000 "$D"/m{0,1,3,4}.img)
}

@test "a write to a raid10 lands on both copies" {
	make_array -l 10 -p n2 -c 64K
	rm "$D/m4.img"
	stripe-create -q -l 10 -p n2 -c 64K --image-size 5M "$D"/r{0,1,2,3}.img
	head -c 500000 /dev/urandom > "$D/data"
	stripe-write --progress none -i "$D/data" "$D"/r{0,1,2,3}.img
	cmp "$D/data" <(stripe-read -q --length 500000 "$D"/r{0,2}.img)
	cmp "$D/data" <(stripe-read -q --length 500000 "$D"/r{1,3}.img)
}

@test "a write marks the array dirty then clean, two events later" {
	make_array -l 5 -c 64K
	local before
	before=$(stripe-examine --json "${M[@]}" | jq -r .array.events)
	echo hello | stripe-write --progress none "${M[@]}"
	run stripe-examine --json "${M[@]}"
	[ "$(jq -r .array.events <<<"$output")" = $((before + 2)) ]
	[ "$(jq -r .array.needs_resync <<<"$output")" = false ]
	run mdadm --examine "${M[0]}"
	assert_output --partial "State : clean"
}

@test "a write past the end of the array is refused and nothing is written" {
	make_array -l 5 -c 64K
	local before
	before=$(sha256sum "${M[@]}")
	head -c $((SIZE + 1)) /dev/zero > "$D/big"
	run --separate-stderr stripe-write -i "$D/big" "${M[@]}"
	assert_failure 2
	[[ $stderr == *"runs past the end of the array"*"nothing written"* ]] || fail "$stderr"
	[ "$before" = "$(sha256sum "${M[@]}")" ]
}

@test "a piped write that runs past the end fails after filling the array" {
	make_array -l 5 -c 64K
	run --separate-stderr bash -c "head -c $((SIZE + 4096)) /dev/zero | stripe-write --progress none --offset 0 ${M[*]}"
	assert_failure 2
	[[ $stderr == *"the input runs past the end of the array"* ]] || fail "$stderr"
}

@test "a write to an array with too many members missing is refused" {
	make_array -l 5 -c 64K
	run --separate-stderr bash -c "echo x | stripe-write ${M[0]} ${M[1]} ${M[2]}"
	assert_failure 2
	[[ $stderr == *"missing roles 3, 4"* ]] || fail "$stderr"
}

@test "a write interrupted by a read error leaves the array marked dirty" {
	make_array -l 5 -c 64K
	run --separate-stderr stripe-write --progress none -i "$D" "${M[@]}"
	assert_failure 2
	run stripe-examine --json "${M[@]}"
	[ "$(jq -r .array.needs_resync <<<"$output")" = true ]
}

# like_md SOURCE SET SB N...: stripe writes md's 1 MiB (at array offset 0)
# to copies of members N... of SOURCE (a directory of member images, plain
# or .xz); tests/fixtures/md-writes/SET holds those members as real md left
# them after the same write.  Fails naming every byte that differs but the
# superblock's (at byte SB) update time and checksum.
like_md() {
	local src=$1 set=$2 sb=$3 w=$TOP/tests/fixtures/md-writes i bad=""
	local -a s=()
	shift 3
	xz -dc "$w/data1M.bin.xz" > "$D/data"
	for i in "$@"; do
		if [ -e "$src/member$i.img" ]; then cp "$src/member$i.img" "$D/s$i.img"; else xz -dc "$src/member$i.img.xz" > "$D/s$i.img"; fi
		xz -dc "$w/$set/member$i.img.xz" > "$D/md$i.img"
		s+=("$D/s$i.img")
	done
	stripe-write -q --progress none --offset 0 -i "$D/data" "${s[@]}"
	for i in "$@"; do
		# cmp -l counts bytes from 1; 1.x: utime at 192, sb_csum at 216;
		# 0.90: utime at 128, sb_csum at 152
		bad+=$(cmp -l "$D/md$i.img" "$D/s$i.img" | awk -v sb="$sb" -v v="${set#*-ls-}" '
			{ o = $1 - 1 - sb; t = v ~ /^1/ ? (o >= 192 && o < 200) || (o >= 216 && o < 220) \
			                               : (o >= 128 && o < 132) || (o >= 152 && o < 156) }
			!t { printf " member'"$i"'@%d", $1 - 1 }')
	done
	[ -z "$bad" ] || fail "differs from what md wrote:$(cut -c1-300 <<<"$bad")"
}

@test "a write without a 1.2 member leaves the superblocks md leaves: the missing member's role slot spare" {
	like_md "$FIX/r5-4d-64k-ls-1.2" r5-4d-64k-ls-1.2-without3 4096 0 1 2
}

@test "a write without the second 1.2 member leaves the superblocks md leaves" {
	like_md "$FIX/r5-4d-64k-ls-1.2" r5-4d-64k-ls-1.2-without1 4096 0 2 3
}

@test "a write without a 0.90 member leaves the superblocks md leaves: its disk faulty removed, the counts recounted" {
	like_md "$TOP/tests/fixtures/md-writes/r5-4d-64k-ls-0.90" r5-4d-64k-ls-0.90-without3 8323072 0 1 2
}

@test "a write without the second 0.90 member leaves the superblocks md leaves" {
	like_md "$TOP/tests/fixtures/md-writes/r5-4d-64k-ls-0.90" r5-4d-64k-ls-0.90-without1 8323072 0 2 3
}

@test "a write without the first 0.90 member leaves the superblocks md leaves: its disk removed, not failed" {
	like_md "$TOP/tests/fixtures/md-writes/r5-4d-64k-ls-0.90" r5-4d-64k-ls-0.90-without0 8323072 1 2 3
}

@test "after a write without a member, mdadm --examine shows it gone from the array state" {
	command -v mdadm >/dev/null || skip "mdadm is not installed"
	local i
	for i in 0 1 2; do cp "$FIX/r5-4d-64k-ls-1.2/member$i.img" "$D/m$i.img"; done
	head -c 65536 /dev/urandom | stripe-write -q --progress none "$D"/m{0,1,2}.img
	run mdadm --examine "$D/m0.img"
	assert_output --partial "Array State : AAA. "
}
