#!/usr/bin/env bats
# Spares as md has them, md as the judge: a raid5 that lost a member is
# recovered by md onto its own hot spare in one copy, and by stripe-rebuild
# in another, given only the members (the spare among them).  The spare
# keeps the same identity in both, and md starts stripe's result as at boot,
# whole, and finds it consistent.  One VM boot (spare-recovery.vm.sh), its
# output kept in build/test-logs-md/t9700-md-rebuilds-onto-spares-as-stripe-does.txt.

bats_require_minimum_version 1.5.0
load helpers

VM_SCRIPT=$BATS_TEST_DIRNAME/spare-recovery.vm.sh

setup_file() {
	md_there || return 0
	W=$BATS_FILE_TMPDIR
	export W
	mkdir -p "$W/md" "$W/stripe" "$MD_LOGS"
	stripe-create -q -l 5 -n 4 -x 1 -c 64K --image-size 8M "$W"/m{0..4}.img
	head -c "$(stripe-examine --json "$W"/m*.img | jq -r .array.size_bytes)" /dev/urandom > "$W/data"
	stripe-write -q --progress none -i "$W/data" "$W"/m*.img
	rm "$W/m2.img"
	cp "$W"/m{0,1,3,4}.img "$W/md/"
	cp "$W"/m{0,1,3,4}.img "$W/stripe/"
	stripe-rebuild --progress none "$W"/stripe/m*.img > "$W/rebuild.out" 2>&1 || echo "exit $?" >> "$W/rebuild.out"
	vm_slot "$MDVM" run --mem 192 --timeout 300 \
		$(printf -- '--disk %s ' "$W"/md/m{0,1,3,4}.img "$W"/stripe/m{0,1,3,4}.img) \
		-- "$VM_SCRIPT" > "$W/vm.txt" 2>&1 || true
	cat "$W/rebuild.out" "$W/vm.txt" > "$MD_LOGS/t9700-md-rebuilds-onto-spares-as-stripe-does.txt"
}

setup() {
	md_ready
	W=$BATS_FILE_TMPDIR
}

# s KEY: a value from the VM's "S:" line (md on stripe's rebuild).
s() {
	sed -n "s/^S: .*\b$1=\([^ ]*\).*/\1/p" "$W/vm.txt" | head -n 1
}

# sb SET KEY: KEY of the spare's superblock in SET (md or stripe) after
# the recovery, as stripe-examine --json has it.
sb() {
	stripe-examine --json "$W/$1/m4.img" | jq -r ".members[0].$2"
}

@test "md recovers its own copy onto the spare" {
	grep -q "^M: recovered degraded=0" "$W/vm.txt" || fail "$(cat "$W/vm.txt")"
}

@test "stripe-rebuild takes the spare among the members for the lost role, as md does" {
	grep -q "onto $W/stripe/m4.img (the array's spare)" "$W/rebuild.out" || fail "$(cat "$W/rebuild.out")"
	[ "$(sb stripe role)" = 2 ]
	[ "$(sb md role)" = 2 ]
}

@test "the spare keeps the device UUID and number md keeps when it takes the role" {
	[ "$(sb stripe device_uuid)" = "$(sb md device_uuid)" ] ||
		fail "stripe: $(sb stripe device_uuid), md: $(sb md device_uuid)"
	[ "$(sb stripe dev_number)" = "$(sb md dev_number)" ] ||
		fail "stripe: device $(sb stripe dev_number), md: $(sb md dev_number)"
}

@test "md starts stripe's rebuild without --run, whole, reads the data written and finds no mismatch" {
	[ "$(s started)" = 1 ] || fail "$(cat "$W/vm.txt")"
	[ "$(s degraded)" = 0 ]
	[ "$(s sha256)" = "$(sha "$W/data")" ]
	[ "$(s mismatch_cnt)" = 0 ]
}
