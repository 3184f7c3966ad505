#!/usr/bin/env bats
# Spares as md has them, md as the judge: a raid5 (metadata 1.2, and 0.90)
# that lost a member is recovered by md onto its own hot spare in one copy,
# and by stripe-rebuild in another, given only the members (the spare among
# them).  The spare comes out with the same identity from both, and md
# starts stripe's result as at boot, whole, and finds it consistent.  One VM
# boot (spare-recovery.vm.sh), its output kept in
# build/test-logs-md/t9700-md-rebuilds-onto-spares-as-stripe-does.txt.

bats_require_minimum_version 1.5.0
load helpers

VM_SCRIPT=$BATS_TEST_DIRNAME/spare-recovery.vm.sh
METAS=(1.2 0.90)

# lose_role_2 META: in $W/META, a raid5 of four and a spare, written, that
# lost its role 2; one copy for md in md/, one stripe-rebuild rebuilt in
# stripe/, and the data written.
lose_role_2() {
	local d=$W/$1
	mkdir -p "$d/md" "$d/stripe"
	stripe-create -q -e "$1" -l 5 -n 4 -x 1 -c 64K --image-size 8M "$d"/m{0..4}.img
	head -c "$(stripe-examine --json "$d"/m*.img | jq -r .array.size_bytes)" /dev/urandom > "$d/data"
	stripe-write -q --progress none -i "$d/data" "$d"/m*.img
	rm "$d/m2.img"
	cp "$d"/m{0,1,3,4}.img "$d/md/"
	mv "$d"/m{0,1,3,4}.img "$d/stripe/"
	stripe-rebuild --progress none "$d"/stripe/m*.img > "$d/rebuild.out" 2>&1 || echo "exit $?" >> "$d/rebuild.out"
}

setup_file() {
	local meta disks=()
	md_there || return 0
	W=$BATS_FILE_TMPDIR
	export W
	mkdir -p "$MD_LOGS"
	for meta in "${METAS[@]}"; do
		lose_role_2 "$meta"
		disks+=($(printf -- '--disk %s ' "$W/$meta"/md/m{0,1,3,4}.img "$W/$meta"/stripe/m{0,1,3,4}.img))
	done
	vm_run --mem 192 --timeout 300 "${disks[@]}" -- "$VM_SCRIPT" > "$W/vm.txt" 2>&1 || true
	cat "$W"/*/rebuild.out "$W/vm.txt" > "$MD_LOGS/t9700-md-rebuilds-onto-spares-as-stripe-does.txt"
}

setup() {
	md_ready
	W=$BATS_FILE_TMPDIR
}

# The VM says a line for each pair: "M: pair=I" of md's recovery, "S:
# pair=I" of md on stripe's rebuild.

# sb META COPY KEY: KEY of the spare's superblock in COPY (md or stripe)
# after the recovery, as stripe-examine --json has it.
sb() {
	stripe-examine --json "$W/$1/$2/m4.img" | jq -r ".members[0].$3"
}

@test "md recovers its own copy onto the spare" {
	local i
	for i in "${!METAS[@]}"; do
		[ "$(vm_value "$W/vm.txt" "M: pair=$i" degraded)" = 0 ] || fail "${METAS[i]}: $(cat "$W/vm.txt")"
	done
}

@test "stripe-rebuild takes the spare among the members for the lost role, as md does" {
	local meta
	for meta in "${METAS[@]}"; do
		grep -q "onto $W/$meta/stripe/m4.img (the array's spare)" "$W/$meta/rebuild.out" ||
			fail "$meta: $(cat "$W/$meta/rebuild.out")"
		[ "$(sb "$meta" stripe role)" = 2 ] || fail "$meta: stripe's spare is in role $(sb "$meta" stripe role)"
		[ "$(sb "$meta" md role)" = 2 ] || fail "$meta: md's spare is in role $(sb "$meta" md role)"
	done
}

@test "the spare comes out with the device number and UUID md gives it" {
	local meta
	for meta in "${METAS[@]}"; do
		[ "$(sb "$meta" stripe device_uuid)" = "$(sb "$meta" md device_uuid)" ] ||
			fail "$meta: stripe: $(sb "$meta" stripe device_uuid), md: $(sb "$meta" md device_uuid)"
		[ "$(sb "$meta" stripe dev_number)" = "$(sb "$meta" md dev_number)" ] ||
			fail "$meta: stripe: device $(sb "$meta" stripe dev_number), md: $(sb "$meta" md dev_number)"
	done
}

@test "md starts stripe's rebuild without --run, whole, reads the data written and finds no mismatch" {
	local i
	for i in "${!METAS[@]}"; do
		[ "$(vm_value "$W/vm.txt" "S: pair=$i" started)" = 1 ] || fail "${METAS[i]}: $(cat "$W/vm.txt")"
		[ "$(vm_value "$W/vm.txt" "S: pair=$i" degraded)" = 0 ] || fail "${METAS[i]}: $(cat "$W/vm.txt")"
		[ "$(vm_value "$W/vm.txt" "S: pair=$i" sha256)" = "$(sha "$W/${METAS[i]}/data")" ] || fail "${METAS[i]}: md reads other bytes"
		[ "$(vm_value "$W/vm.txt" "S: pair=$i" mismatch_cnt)" = 0 ] || fail "${METAS[i]}: $(cat "$W/vm.txt")"
	done
}
