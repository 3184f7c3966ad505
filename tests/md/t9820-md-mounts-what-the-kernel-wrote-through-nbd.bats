#!/usr/bin/env bats
# The real kernel on stripe's NBD export (#25): in one VM boot the export of
# a RAID5 (nbdkit-stripe-plugin) is the VM's disk, and there mkfs.ext4 with
# md's stride and stripe width, a mount, files written, an unmount and
# e2fsck -fn; back on the host stripe-check finds the array consistent and
# clean; in a second boot md assembles the same members with no resync and
# no mismatch, e2fsck finds the ext4 clean, and every file reads back with
# the bytes the kernel wrote through the export (nbd-mkfs.vm.sh).  Output
# kept in build/test-logs-md/t9820-md-mounts-what-the-kernel-wrote-through-nbd.txt.

bats_require_minimum_version 1.5.0
load helpers

VM_SCRIPT=$BATS_TEST_DIRNAME/nbd-mkfs.vm.sh

setup_file() {
	local pid rc
	md_there || return 0
	command -v nbdkit > /dev/null || return 0
	W=$BATS_FILE_TMPDIR
	export W
	mkdir -p "$MD_LOGS"
	stripe-create -q -l 5 -n 4 -c 64K --image-size 8M "$W"/m{0,1,2,3}.img
	nbdkit -f -U "$W/sock" -P "$W/pid" "${BIN%/bin}/plugin/nbdkit-stripe-plugin.so" "$W"/m{0,1,2,3}.img \
		2> "$W/nbdkit.err" &
	pid=$!
	appears "$W/pid" "$pid" || true
	# 64K chunks of 4K blocks, three data members: stride 16, width 48
	vm_run --mem 256 --timeout 300 --disk-nbd "$W/sock" -- "$VM_SCRIPT" mkfs 16 48 > "$W/served.txt" 2>&1 || true
	kill "$pid"
	rc=0
	wait "$pid" || rc=$?
	echo "$rc" > "$W/nbdkit.rc"
	rc=0
	stripe-check --progress none "$W"/m{0,1,2,3}.img > "$W/check.out" 2>&1 || rc=$?
	echo "$rc" > "$W/check.rc"
	stripe-examine --json "$W"/m{0,1,2,3}.img > "$W/examine.json" 2> /dev/null || true
	vm_run --mem 256 --timeout 300 $(printf -- '--disk-snap %s ' "$W"/m{0,1,2,3}.img) -- "$VM_SCRIPT" assemble \
		> "$W/md.txt" 2>&1 || true
	cat "$W/nbdkit.err" "$W/served.txt" "$W/check.out" "$W/md.txt" \
		> "$MD_LOGS/t9820-md-mounts-what-the-kernel-wrote-through-nbd.txt"
}

setup() {
	md_ready
	command -v nbdkit > /dev/null || skip "nbdkit is not installed (tools/stripe-deps)"
	W=$BATS_FILE_TMPDIR
}

# m FILE KEY: the value of KEY=value on the first "M:" line of a VM's report
# FILE that has it.
m() {
	sed -n "s/^M:\(.* \)\{0,1\}$2=\([^ ]*\).*/\2/p" "$W/$1" | head -n 1
}

# files FILE: the "M: file=... sha256=..." lines of a VM's report, sorted.
files() {
	grep '^M: file=' "$W/$1" | sort
}

@test "the kernel makes an ext4 on the export with md's stride and width, writes files and e2fsck finds it clean" {
	[ "$(m served.txt mkfs_rc)" = 0 ] || fail "$(cat "$W/served.txt")"
	[ "$(m served.txt mount_rc)" = 0 ] && [ "$(m served.txt umount_rc)" = 0 ] || fail "$(cat "$W/served.txt")"
	[ "$(m served.txt e2fsck_rc)" = 0 ] || fail "$(grep '^D:' "$W/served.txt")"
	[ "$(m served.txt stride)" = 16 ] && [ "$(m served.txt stripe_width)" = 48 ] || fail "$(grep stride "$W/served.txt")"
	[ "$(cat "$W/nbdkit.rc")" = 0 ] || fail "nbdkit exited $(cat "$W/nbdkit.rc"): $(cat "$W/nbdkit.err")"
}

@test "stripe-check finds the array written through the export consistent, and it is clean once served" {
	[ "$(cat "$W/check.rc")" = 0 ] || fail "$(cat "$W/check.out")"
	jq -e '.array.md_state == "clean" and .array.needs_resync == false' "$W/examine.json" > /dev/null ||
		fail "$(jq -c '.array | {md_state, needs_resync}' "$W/examine.json")"
}

@test "md assembles the members with no resync, finds no mismatch and e2fsck finds the ext4 clean" {
	[ "$(m md.txt assemble_rc)" = 0 ] || fail "$(cat "$W/md.txt")"
	[ "$(m md.txt resync_start)" = none ] || fail "md wants a resync from $(m md.txt resync_start)"
	[ "$(m md.txt mismatch_cnt)" = 0 ] || fail "mismatch_cnt $(m md.txt mismatch_cnt)"
	[ "$(m md.txt e2fsck_rc)" = 0 ] || fail "$(grep '^D:' "$W/md.txt")"
}

@test "md reads every file with the bytes the kernel wrote through the export" {
	[ "$(files served.txt | wc -l)" -ge 52 ] || fail "$(cat "$W/served.txt")"
	diff <(files served.txt) <(files md.txt) || fail "the files differ (through the export <, md >)"
}
