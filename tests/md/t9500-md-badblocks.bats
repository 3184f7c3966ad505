#!/usr/bin/env bats
# md's own bad-block log, md as the judge: md logs a sector of a RAID5
# member through sysfs, garbage lands there, and stripe reads what md
# reads; after stripe-check --repair the entry is gone and md finds the
# array consistent.  Two VM boots (md-badblocks.vm.sh): one in which md
# makes the log, one in which it judges; their output is kept in
# build/test-logs-md/t9500-md-badblocks.txt.

bats_require_minimum_version 1.5.0
load helpers

VM_SCRIPT=$BATS_TEST_DIRNAME/md-badblocks.vm.sh
SET=r5-4d-64k-ls-1.2
# sector 2176 of member 1: data sector 128, in stripe row 1
SECTOR=2176

setup_file() {
	local rc
	fixtures_ready
	md_there || return 0
	W=$BATS_FILE_TMPDIR
	export W
	mkdir -p "$W/logged" "$W/repaired" "$MD_LOGS"
	cp "$FIX/$SET"/member*.img "$W/logged/"
	vm_run --mem 192 --timeout 300 $(printf -- '--disk %s ' "$W"/logged/member{0,1,2,3}.img) \
		-- "$VM_SCRIPT" log "$SECTOR" 8 > "$W/log.txt" 2>&1 || true
	head -c 4096 /dev/urandom | dd of="$W/logged/member1.img" bs=512 seek="$SECTOR" conv=notrunc status=none
	rc=0
	stripe-read -q -o "$W/read.out" "$W"/logged/member*.img 2> /dev/null || rc=$?
	echo $rc > "$W/read.rc"
	cp "$W"/logged/member*.img "$W/repaired/"
	rc=0
	stripe-check --repair --progress none "$W"/repaired/member*.img > "$W/repair.out" 2>&1 || rc=$?
	echo $rc > "$W/repair.rc"
	vm_run --mem 192 --timeout 300 \
		$(printf -- '--disk-snap %s ' "$W"/logged/member{0,1,2,3}.img "$W"/repaired/member{0,1,2,3}.img) \
		-- "$VM_SCRIPT" judge > "$W/judge.txt" 2>&1 || true
	cat "$W/log.txt" "$W/repair.out" "$W/judge.txt" > "$MD_LOGS/t9500-md-badblocks.txt"
}

setup() {
	md_ready
	W=$BATS_FILE_TMPDIR
}

# logged_in FILE SET: the judge's mdadm --examine-badblocks of SET's member 1
# names the sector.
logged_in() {
	grep -q "^B: set=$2 | *$SECTOR for 8 sectors" "$1"
}

@test "md logs the sector in the member's bad-block log through sysfs" {
	grep -q "^B: set=0 | *$SECTOR for 8 sectors" "$W/log.txt" || fail "$(cat "$W/log.txt")"
	[ "$(stripe-examine --json "$W/logged/member1.img" | jq -c '.members[0].bad_block_log.ranges')" = \
		"[{\"start_sectors\":$SECTOR,\"length_sectors\":8}]" ]
}

@test "md reads the logged array as the MANIFEST says, garbage in the logged sectors or not" {
	logged_in "$W/judge.txt" 0 || fail "$(cat "$W/judge.txt")"
	[ "$(vm_value "$W/judge.txt" "J: set=0" sha256)" = "$(manifest $SET array_sha256)" ] || fail "$(cat "$W/judge.txt")"
}

@test "stripe-read of the logged array gives md's bytes, every byte served: exit 0" {
	[ "$(cat "$W/read.rc")" = 0 ]
	[ "$(sha "$W/read.out")" = "$(manifest $SET array_sha256)" ]
}

@test "after stripe-check --repair, which mended all (exit 0), the entry is gone from mdadm --examine-badblocks" {
	[ "$(cat "$W/repair.rc")" = 0 ] || fail "$(cat "$W/repair.out")"
	grep -q "^B: set=1 |" "$W/judge.txt" || fail "$(cat "$W/judge.txt")"
	! logged_in "$W/judge.txt" 1 || fail "$(grep '^B: set=1' "$W/judge.txt")"
}

@test "after stripe-check --repair md reads md's bytes and its check finds no mismatch" {
	[ "$(vm_value "$W/judge.txt" "J: set=1" sha256)" = "$(manifest $SET array_sha256)" ] || fail "$(cat "$W/judge.txt")"
	[ "$(vm_value "$W/judge.txt" "J: set=1" mismatch_cnt)" = 0 ]
}
