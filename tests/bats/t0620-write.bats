#!/usr/bin/env bats
# stripe-write: bytes land where md would put them, parity and mirrors
# stay right, degraded arrays too, and the superblocks say dirty/clean as md's.

bats_require_minimum_version 1.5.0
load helpers

setup() {
	case_sample 2 2
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
	stripe-write -q --run --progress none --offset 12345 -i "$D/data" "$D"/m{0,1,3,4}.img
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
	stripe-write -q --run --progress none --offset 0 -i "$D/data" "${s[@]}"
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
	head -c 65536 /dev/urandom | stripe-write -q --run --progress none "$D"/m{0,1,2}.img
	run mdadm --examine "$D/m0.img"
	assert_output --partial "Array State : AAA. "
}

@test "a write killed half way leaves every role held and the array active, as md calls it, not failed" {
	make_array -l 5 -c 64K
	mkfifo "$D/fifo"
	stripe-write --progress none -i "$D/fifo" "${M[@]}" 3> /dev/null &
	local pid=$! i
	exec 5> "$D/fifo"
	head -c 200000 /dev/urandom >&5
	# the superblocks say dirty before the first data byte is written
	for ((i = 0; i < 100; i++)); do
		[ "$(stripe-examine --json "${M[@]}" | jq -r .array.needs_resync)" = true ] && break
		sleep 0.1
	done
	kill -9 "$pid"
	wait "$pid" || true
	exec 5>&-
	run stripe-examine --json "${M[@]}"
	assert_success
	[ "$(jq -c '.array | [.state, .md_state, .needs_resync, (.left_out | length)]' <<<"$output")" = '["active","active",true,0]' ] ||
		fail "$output"
	run stripe-examine -q "${M[@]}"
	assert_output --regexp $'\n +State : active\n'
}

# around SET OFFSET FAULTS MEMBER...: a copy of SET's members, in C, takes
# 8 KiB of random bytes at array byte OFFSET (--run: MEMBER... may leave roles
# out) with STRIPE_FAULT_READ=FAULTS
# (member byte offsets counted from each member's data area); the run's
# status and stderr in status and stderr, the whole array as it then reads
# in $D/after, the array it should be in $D/expect.
around() {
	local set=$1 off=$2 faults=$3 f spec="" name at len
	shift 3
	mkdir -p "$D/c"
	cp "$FIX/$set"/member*.img "$D/c/"
	C=()
	for f in "$@"; do C+=("$D/c/member$f.img"); done
	DATA=$(($(stripe-examine --json "$FIX/$set"/member*.img | jq -r '.members[0].data_offset_sectors') * 512))
	for f in ${faults//,/ }; do
		IFS=: read -r name at len <<<"$f"
		spec+="${spec:+,}$name:$((DATA + at)):$len"
	done
	stripe-read "$FIX/$set"/member*.img > "$D/before"
	head -c 8192 /dev/urandom > "$D/data"
	{ head -c "$off" "$D/before"; cat "$D/data"; tail -c +$((off + 8192 + 1)) "$D/before"; } > "$D/expect"
	STRIPE_FAULT_READ=$spec run --separate-stderr stripe-write --run --progress none --offset "$off" -i "$D/data" "${C[@]}"
	stripe-read -q "${C[@]}" > "$D/after" || true
}

@test "a raid5 partial-row write around a survivor's read error writes the row, exits 0 and names the page" {
	# row 0: data on members 0, 1, 2; the write covers member 0's pages
	# 1 and 2, member 1's page 2 is kept and fails to read
	around r5-4d-64k-ls-1.2 4096 member1.img:8192:4096 0 1 2 3
	assert_success
	[ "$(sha "$D/after")" = "$(sha "$D/expect")" ] || fail "the array does not read as written"
	[[ $stderr == *"member1.img: read error at bytes $((DATA + 8192))-$((DATA + 12287)) (4096 bytes); rebuilt from the other members"* ]] ||
		fail "stderr: $stderr"
	[ "$(grep -c . <<<"$stderr")" -eq 1 ] || fail "stderr: $stderr"
	run stripe-check --progress none "${C[@]}"
	assert_output --partial " 0 inconsistent"
}

@test "a raid5 write around a survivor's read error leaves the array clean" {
	around r5-4d-64k-ls-1.2 4096 member1.img:8192:4096 0 1 2 3
	assert_success
	[ "$(stripe-examine --json "${C[@]}" | jq -c '.array | [.state, .needs_resync]')" = '["clean",false]' ]
}

@test "a raid5 write around a page in a survivor's bad-block log reads back, and the page reads right" {
	local e=$(((2048 + 16) << 10 | 8)) i bytes=""
	mkdir -p "$D/c"
	cp "$FIX/r5-4d-64k-ls-1.2"/member*.img "$D/c/"
	# member 1 logs its data sectors 16 to 23 (page 2 of row 0) bad, and
	# holds garbage there
	for ((i = 0; i < 8; i++)); do bytes+=$(printf '\\x%02x' $(((e >> (8 * i)) & 255))); done
	printf "$bytes" | dd of="$D/c/member1.img" bs=1 seek=$((24 * 512)) conv=notrunc status=none
	"$TTOOLS/sb-patch" "$D/c/member1.img" 8 4 $(($(od -An -tu4 -j $((4096 + 8)) -N4 "$D/c/member1.img") | 8))
	head -c 4096 /dev/urandom | dd of="$D/c/member1.img" bs=512 seek=$((2048 + 16)) conv=notrunc status=none
	stripe-read "$FIX/r5-4d-64k-ls-1.2"/member*.img > "$D/before"
	head -c 8192 /dev/urandom > "$D/data"
	{ head -c 4096 "$D/before"; cat "$D/data"; tail -c +$((4096 + 8192 + 1)) "$D/before"; } > "$D/expect"
	run --separate-stderr stripe-write --progress none --offset 4096 -i "$D/data" "$D"/c/member{0,1,2,3}.img
	assert_success
	[[ $stderr == *"member1.img: read error at bytes $(((2048 + 16) * 512))-"*"; rebuilt from the other members"* ]] ||
		fail "stderr: $stderr"
	[ "$(stripe-read -q "$D"/c/member{0,1,2,3}.img | sha)" = "$(sha "$D/expect")" ] || fail "not the bytes written"
	# the logged page was written again from the rest of its row
	[ "$(stripe-read -q "$D"/c/member{0,2,3}.img | sha)" = "$(sha "$D/expect")" ] || fail "its row does not rebuild"
}

@test "a raid6 partial-row write around read errors on two survivors writes the row and exits 0" {
	around r6-5d-64k-ls-1.2 4096 member0.img:32768:4096,member2.img:32768:4096 0 1 2 3 4
	assert_success
	[ "$(sha "$D/after")" = "$(sha "$D/expect")" ] || fail "the array does not read as written"
	[[ $stderr == *"member0.img: read error at bytes $((DATA + 32768))-$((DATA + 36863)) (4096 bytes); rebuilt from the other members"* ]] ||
		fail "stderr: $stderr"
	[[ $stderr == *"member2.img: read error at bytes $((DATA + 32768))-"* ]] || fail "stderr: $stderr"
	run stripe-check --progress none "${C[@]}"
	assert_output --partial " 0 inconsistent"
}

@test "a write piped in that ends inside a row reads the rest of the row around a read error" {
	mkdir -p "$D/c"
	cp "$FIX/r5-4d-64k-ls-1.2"/member*.img "$D/c/"
	DATA=$(($(stripe-examine --json "$D"/c/member*.img | jq -r '.members[0].data_offset_sectors') * 512))
	stripe-read "$D"/c/member*.img > "$D/before"
	head -c 8192 /dev/urandom > "$D/data"
	{ cat "$D/data"; tail -c +$((8192 + 1)) "$D/before"; } > "$D/expect"
	# from a pipe the write cannot know the row is kept until the input
	# ends: the rest of row 0 is read then, member 2's last page failing
	STRIPE_FAULT_READ="member2.img:$((DATA + 65536 - 4096)):4096" \
		run --separate-stderr bash -c "cat '$D/data' | stripe-write --progress none $D/c/member{0,1,2,3}.img"
	assert_success
	[[ $stderr == *"member2.img: read error at bytes $((DATA + 65536 - 4096))-"* ]] || fail "stderr: $stderr"
	[ "$(stripe-read -q "$D"/c/member*.img | sha)" = "$(sha "$D/expect")" ] || fail "not the bytes written"
}

@test "a write that meets a range too little redundancy is left to serve exits 1, naming the range and the roles it lacks" {
	around r5-4d-64k-ls-1.2 4096 member0.img:32768:4096 0 1 3
	assert_failure 1
	[ "$stderr" = "stripe-write: array bytes 0-196607 (196608 bytes): too little redundancy left in their stripe to serve them (role 0 unreadable: $D/c/member0.img, read error at byte $((DATA + 32768)); role 2 missing); the write stopped there: nothing written" ] ||
		fail "stderr: $stderr"
	[ "$(sha "$D/after")" = "$(sha "$D/before")" ] || fail "the array changed"
}

@test "a write stopped at a range it cannot serve leaves the rows before it written and nothing after" {
	make_array -l 5 -c 64K
	local doff=$(($(stripe-examine --json "${M[@]}" | jq -r '.members[0].data_offset_sectors') * 512))
	# 16 rows of 256 KiB (a batch) and 8 KiB of row 16, which keeps the
	# rest of its first chunk (role 4's, not given); m0 fails page 5 of it
	head -c $((4194304 + 8192)) /dev/urandom > "$D/data"
	stripe-read -q "${M[@]}" > "$D/before"
	STRIPE_FAULT_READ="m0.img:$((doff + 16 * 65536 + 5 * 4096)):4096" \
		run --separate-stderr stripe-write --run --progress none -i "$D/data" "${M[@]:0:4}"
	assert_failure 1
	[[ $stderr == *"array bytes 4194304-4456447 (262144 bytes): too little redundancy left"*"; the write stopped there: array bytes 0-4194303 written, nothing after" ]] ||
		fail "stderr: $stderr"
	stripe-read -q "${M[@]:0:4}" > "$D/after"
	cmp -n 4194304 "$D/data" "$D/after" || fail "the rows before the range were not written"
	cmp -i 4194304 "$D/before" "$D/after" || fail "bytes from the range on changed"
}

@test "a piped write stopped at a range it cannot serve counts as written only the rows on the members" {
	make_array -l 5 -c 64K
	local doff=$(($(stripe-examine --json "${M[@]}" | jq -r '.members[0].data_offset_sectors') * 512))
	# from a pipe the rest of row 16 is read once the input ends in it,
	# while the batch of rows 0 to 15 is being written
	head -c $((4194304 + 8192)) /dev/urandom > "$D/data"
	STRIPE_FAULT_READ="m0.img:$((doff + 16 * 65536 + 5 * 4096)):4096" \
		run --separate-stderr bash -c "cat '$D/data' | stripe-write --run --progress none ${M[*]:0:4}"
	assert_failure 1
	[[ $stderr == *"; the write stopped there: array bytes 0-4194303 written, nothing after" ]] || fail "stderr: $stderr"
}

@test "a write stopped at a range it cannot serve leaves the array clean (degraded, no resync due), so md starts it" {
	around r5-4d-64k-ls-1.2 4096 member0.img:32768:4096 0 1 3
	assert_failure 1
	[ "$(stripe-examine --json "${C[@]}" | jq -c '.array | [.state, .needs_resync]')" = '["degraded",false]' ]
}
