#!/usr/bin/env bats
# Proof by the kernel for stripe-rebuild --replace: a raid5 (metadata 1.2,
# made by md) whose role 2 stripe replaced while in sync is assembled by md
# as at boot, whole, with no resync, and reads and checks as before; with
# read errors injected on the old member during the replace the new member
# is still exact; a replace stripe was stopped in is resumed by md; and
# md's own mdadm --replace on another copy leaves the role tables, feature
# maps and device numbers stripe leaves.  One VM boot (replace.vm.sh), its
# output kept in build/test-logs-md/t9750-md-takes-the-replacement-stripe-made.txt.

bats_require_minimum_version 1.5.0
load helpers

VM_SCRIPT=$BATS_TEST_DIRNAME/replace.vm.sh
SET=r5-4d-64k-ls-1.2

# copy_to DIR: the fixture's members as DIR/m0.img ... m3.img.
copy_to() {
	local i
	mkdir -p "$1"
	for i in 0 1 2 3; do cp "$FIX/$SET/member$i.img" "$1/m$i.img"; done
}

# data_area FILE: a 1.2 member's data area (2048 sectors in).
data_area() {
	tail -c +$((2048 * 512 + 1)) "$1"
}

# roles FILE: the first six entries of FILE's role table, in hex.
roles() {
	od -An -tx2 -j $((4096 + 256)) -N12 "$1" | tr -s ' ' | sed 's/^ //'
}

# field FILE OFFSET [BYTES]: the superblock's integer of BYTES (4 unless
# told) at OFFSET.
field() {
	od -An -tu"${3:-4}" -j $((4096 + $2)) -N"${3:-4}" "$1" | tr -d ' '
}

setup_file() {
	local disks=() d
	md_there || return 0
	W=$BATS_FILE_TMPDIR
	export W
	mkdir -p "$MD_LOGS"
	fixtures_ready
	# 0: stripe's replace; 1: the same with read errors on the old member;
	# 2: stripe's replace stopped at 4 MiB of the new member's file;
	# 3: md's own replace
	for d in 0 1 2 3; do copy_to "$W/$d"; done
	stripe-rebuild -q --progress none --replace 2="$W/0/new.img" "$W"/0/m{0..3}.img > "$W/0/out" 2>&1
	STRIPE_FAULT_READ="m2.img:$((1024 * 1024 + 8192)):4096,m2.img:$((3 * 1024 * 1024)):65536" \
		stripe-rebuild -q --progress none --replace 2="$W/1/new.img" "$W"/1/m{0..3}.img > "$W/1/out" 2>&1
	truncate -s 8M "$W/2/new.img" "$W/3/new.img"
	(ulimit -f 4096; exec stripe-rebuild -q --progress none --jobs 1 --checkpoint 0.001 \
		--replace 2="$W/2/new.img" "$W"/2/m{0..3}.img) > "$W/2/out" 2>&1 || true
	field "$W/2/new.img" 152 8 > "$W/2/recovery_offset"
	# stripe's superblocks as it left them, before md takes the members
	mkdir -p "$W/stripe"
	for d in m0 m1 m2 m3 new; do head -c 8192 "$W/0/$d.img" > "$W/stripe/$d.img"; done
	events_of "$FIX/$SET/member0.img" > "$W/fixture_events"
	disks=($(printf -- '--disk %s ' "$W"/0/m{0..3}.img "$W/0/new.img" "$W"/1/m{0,1}.img "$W/1/new.img" \
		"$W/1/m3.img" "$W"/2/m{0..3}.img "$W/2/new.img" "$W"/3/m{0..3}.img "$W/3/new.img"))
	vm_run --mem 192 --timeout 300 "${disks[@]}" -- "$VM_SCRIPT" judge:5 judge:4 resume:5 replace:5 \
		> "$W/vm.txt" 2>&1 || true
	{
		cat "$W"/*/out "$W/vm.txt"
		for d in stripe 3; do
			echo "superblocks after the replace by $d (events before: $(cat "$W/fixture_events")):"
			for f in "$W/$d"/m{0..3}.img "$W/$d/new.img"; do
				echo "  ${f##*/}: device $(field "$f" 160) features $(field "$f" 8) events $(field "$f" 200 8) roles $(roles "$f")"
			done
		done
	} > "$MD_LOGS/t9750-md-takes-the-replacement-stripe-made.txt"
}

setup() {
	md_ready
	W=$BATS_FILE_TMPDIR
}

# whole CASE: md started case CASE as at boot, whole, read the array md
# wrote and found no mismatch.
whole() {
	[ "$(vm_value "$W/vm.txt" "J: case=$1" started)" = 1 ] || fail "case $1: $(cat "$W/vm.txt")"
	[ "$(vm_value "$W/vm.txt" "J: case=$1" degraded)" = 0 ] || fail "case $1: $(cat "$W/vm.txt")"
	[ "$(vm_value "$W/vm.txt" "J: case=$1" sha256)" = "$(manifest "$SET" array_sha256)" ] ||
		fail "case $1: md reads other bytes"
	[ "$(vm_value "$W/vm.txt" "J: case=$1" mismatch_cnt)" = 0 ] || fail "case $1: $(cat "$W/vm.txt")"
}

@test "md assembles the set stripe replaced a member of, the old member among them, whole and with no resync" {
	whole 0
	[ "$(vm_value "$W/vm.txt" "J: case=0" sync)" = idle ] || fail "$(cat "$W/vm.txt")"
}

@test "with read errors injected on the old member, the new member is exact and md assembles the new set whole" {
	[ "$(data_area "$W/1/new.img" | sha)" = "$(data_area "$FIX/$SET/member2.img" | sha)" ] ||
		fail "the new member differs: $(cat "$W/1/out")"
	whole 1
	[ "$(vm_value "$W/vm.txt" "J: case=1" sync)" = idle ] || fail "$(cat "$W/vm.txt")"
}

@test "md resumes a replace stripe was stopped in, and leaves the new member in the role and the old one faulty" {
	local rec
	rec=$(cat "$W/2/recovery_offset")
	((rec > 0 && rec < 14336)) || fail "the stopped replace recorded recovery offset $rec"
	[ "$(vm_value "$W/vm.txt" "J: case=2" sync)" = recover ] || fail "$(cat "$W/vm.txt")"
	whole 2
	# md's tables: the old device (2) faulty, the new one (5) in its role
	[ "$(roles "$W/2/m0.img")" = "0000 0001 fffe ffff 0003 0002" ] || fail "roles $(roles "$W/2/m0.img")"
	[ "$(roles "$W/2/new.img")" = "0000 0001 fffe ffff 0003 0002" ] || fail "roles $(roles "$W/2/new.img")"
}

@test "md's own replace leaves the role tables, feature maps and device numbers stripe's leaves" {
	local f
	[ "$(vm_value "$W/vm.txt" "M: case=3" replaced)" = 1 ] || fail "md did not replace: $(cat "$W/vm.txt")"
	for f in m0.img m1.img m2.img m3.img new.img; do
		[ "$(roles "$W/stripe/$f")" = "$(roles "$W/3/$f")" ] ||
			fail "$f: stripe's roles $(roles "$W/stripe/$f"), md's $(roles "$W/3/$f")"
		[ "$(field "$W/stripe/$f" 8)" = "$(field "$W/3/$f" 8)" ] || fail "$f: feature maps differ"
		[ "$(field "$W/stripe/$f" 160)" = "$(field "$W/3/$f" 160)" ] || fail "$f: device numbers differ"
	done
	# events: both leave the old member behind the others (by how many
	# differs: md also counts the spare's addition and its checkpoints)
	(($(field "$W/stripe/m2.img" 200 8) < $(field "$W/stripe/m0.img" 200 8))) &&
		(($(field "$W/3/m2.img" 200 8) < $(field "$W/3/m0.img" 200 8)))
}
