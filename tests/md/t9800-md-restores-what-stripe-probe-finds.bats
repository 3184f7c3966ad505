#!/usr/bin/env bats
# stripe-probe's answer, md as the judge: arrays holding a real ext4 full of
# real files lose their superblocks (or get them back wrong, from a
# re-create with another chunk and order); the mdadm --create line the
# probe prints for them, run in the VM, gives an array md starts whose
# bytes are the original's, whose filesystem e2fsck -fn passes and whose
# parity md's check finds consistent.  One VM boot (probe-restore.vm.sh),
# its output kept in build/test-logs-md/t9800-md-restores-what-stripe-probe-finds.txt.

bats_require_minimum_version 1.5.0
load helpers

VM_SCRIPT=$BATS_TEST_DIRNAME/probe-restore.vm.sh
CASES=(raid6 raid5 recreated)
MKARRAY=$TOP/tests/probe/make-ext4-array

# make_case NAME: the array NAME in $W/NAME, its superblocks gone or wrong.
make_case() {
	local d=$W/$1
	case $1 in
	raid6) "$MKARRAY" "$d" 12M -l 6 -n 6 -c 64K -p right-asymmetric
	       "$MKARRAY" --zero "$d" ;;
	raid5) "$MKARRAY" "$d" 12M -l 5 -n 5 -c 16K -p left-asymmetric
	       "$MKARRAY" --zero "$d" ;;
	recreated)
		"$MKARRAY" "$d" 12M -l 5 -n 4 -c 64K
		stripe-create -q --assume-clean -f -l 5 -c 128K "$d"/m{2,0,3,1}.img ;;
	esac
}

# probe_line NAME: the mdadm --create line stripe-probe prints for NAME (its
# first array found), with the member paths as given.
probe_line() {
	local d=$W/$1
	stripe-probe --json "$d"/m*.img > "$d/probe.json" 2> "$d/probe.err" || true
	jq -r '.candidates[(.arrays[0].candidate // 1) - 1].mdadm // empty' "$d/probe.json"
}

setup_file() {
	local name line disks=() args=() i=0 letters=abcdefghijklmnopqrstuvwxyz f
	md_there || return 0
	W=$BATS_FILE_TMPDIR
	export W
	mkdir -p "$MD_LOGS"
	for name in "${CASES[@]}"; do
		make_case "$name" > "$W/$name.make" 2>&1
		line=$(probe_line "$name")
		# each member path becomes the VM disk it is attached as
		for f in "$W/$name"/m*.img; do
			line=${line//"$f"/"/dev/vd${letters:$i:1}"}
			disks+=(--disk "$f")
			i=$((i + 1))
		done
		echo "$line" > "$W/$name.line"
		args+=("$name" "$line")
	done
	vm_run --mem 256 --timeout 300 "${disks[@]}" -- "$VM_SCRIPT" "${args[@]}" > "$W/vm.txt" 2>&1 || true
	for name in "${CASES[@]}"; do
		echo "== $name"
		cat "$W/$name.make" "$W/$name/probe.err" "$W/$name.line"
	done > "$MD_LOGS/t9800-md-restores-what-stripe-probe-finds.txt"
	cat "$W/vm.txt" >> "$MD_LOGS/t9800-md-restores-what-stripe-probe-finds.txt"
}

setup() {
	md_ready
	W=$BATS_FILE_TMPDIR
}

# restored NAME: asserts md ran the probe's line for NAME and gave the
# original's bytes, a filesystem e2fsck passes and consistent parity.
restored() {
	local want
	want=$(cat "$W/$1/array.sha256")
	grep -q '^mdadm --create ' "$W/$1.line"
	[ "$(vm_value "$W/vm.txt" "R: name=$1" create_rc)" = 0 ]
	[ "$(vm_value "$W/vm.txt" "R: name=$1" sha256)" = "$want" ]
	[ "$(vm_value "$W/vm.txt" "R: name=$1" fsck_rc)" = 0 ]
	[ "$(vm_value "$W/vm.txt" "R: name=$1" mismatch_cnt)" = 0 ]
}

@test "md restores a zeroed RAID6 from the mdadm line stripe-probe prints" {
	restored raid6
}

@test "md restores a zeroed RAID5 with a small chunk and an asymmetric layout from the probe's line" {
	restored raid5
}

@test "md restores a RAID5 re-created with another chunk and order from the probe's line for the original" {
	restored recreated
}
