#!/usr/bin/env bats
# stripe-manage, md as the judge: a raid5 of three (metadata 1.2, and 0.90)
# with a spare stripe added, a member stripe failed, and a member stripe
# failed, removed and zeroed, each assembled by md as at boot (no --run):
# the spare listed as a spare, the failed member left out of a degraded
# array, the zeroed one refused in an assembly as mdadm refuses a device
# it zeroed itself; the rest assembled degraded; the data whole and
# consistent in every case.  One VM boot (manage-verbs.vm.sh), its output
# kept in build/test-logs-md/t9850-md-assembles-what-stripe-manage-leaves.txt.

bats_require_minimum_version 1.5.0
load helpers

VM_SCRIPT=$BATS_TEST_DIRNAME/manage-verbs.vm.sh
METAS=(1.2 0.90)

# changed META: in $W/META, a written raid5 of three (the data in data),
# and copies A (a spare added), F (m1 failed) and Z (m1 failed, removed
# and zeroed), each change made by stripe-manage.
changed() {
	local d=$W/$1
	mkdir -p "$d/A" "$d/F" "$d/Z"
	stripe-create -q -e "$1" -l 5 -n 3 -c 64K --image-size 4M "$d"/m{0,1,2}.img
	head -c "$(stripe-examine --json "$d"/m*.img | jq -r .array.size_bytes)" /dev/urandom > "$d/data"
	stripe-write -q --progress none -i "$d/data" "$d"/m*.img
	cp "$d"/m{0,1,2}.img "$d/A/"
	cp "$d"/m{0,1,2}.img "$d/F/"
	truncate -s 4M "$d/A/m3.img"
	{
		stripe-manage --add "$d/A/m3.img" "$d"/A/m{0,1,2}.img
		stripe-manage --fail "$d/F/m1.img" "$d"/F/m{0,1,2}.img
		cp "$d"/F/m{0,1,2}.img "$d/Z/"
		stripe-manage --remove "$d/Z/m1.img" "$d"/Z/m{0,1,2}.img
		stripe-manage --zero-superblock "$d/Z/m1.img"
	} > "$d/manage.out" 2>&1 || echo "exit $?" >> "$d/manage.out"
}

setup_file() {
	local meta disks=() sets=()
	md_there || return 0
	W=$BATS_FILE_TMPDIR
	export W
	mkdir -p "$MD_LOGS"
	for meta in "${METAS[@]}"; do
		changed "$meta"
		disks+=($(printf -- '--disk %s ' "$W/$meta"/A/m{0,1,2,3}.img "$W/$meta"/F/m{0,1,2}.img "$W/$meta"/Z/m{0,1,2}.img))
		sets+=("$meta:A:4" "$meta:F:3" "$meta:Z:3")
	done
	vm_run --mem 192 --timeout 300 "${disks[@]}" -- "$VM_SCRIPT" "${sets[@]}" > "$W/vm.txt" 2>&1 || true
	cat "$W"/*/manage.out "$W/vm.txt" > "$MD_LOGS/t9850-md-assembles-what-stripe-manage-leaves.txt"
}

setup() {
	md_ready
	W=$BATS_FILE_TMPDIR
}

# whole KIND META: md started the set whole as asked, read the data
# written and found no mismatch.
whole() {
	[ "$(vm_value "$W/vm.txt" "$1: meta=$2" started)" = 1 ] || fail "$2: $(cat "$W/vm.txt")"
	[ "$(vm_value "$W/vm.txt" "$1: meta=$2" sha256)" = "$(sha "$W/$2/data")" ] || fail "$2: md reads other bytes"
	[ "$(vm_value "$W/vm.txt" "$1: meta=$2" mismatch_cnt)" = 0 ] || fail "$2: $(cat "$W/vm.txt")"
}

@test "stripe-manage did each change" {
	local meta
	for meta in "${METAS[@]}"; do
		! grep -q '^exit' "$W/$meta/manage.out" || fail "$meta: $(cat "$W/$meta/manage.out")"
	done
}

@test "md assembles the array stripe added a spare to, whole, the spare listed as a spare" {
	local meta
	for meta in "${METAS[@]}"; do
		whole A "$meta"
		[ "$(vm_value "$W/vm.txt" "A: meta=$meta" degraded)" = 0 ] || fail "$meta: $(cat "$W/vm.txt")"
		[ "$(vm_value "$W/vm.txt" "A: meta=$meta" spares)" = 1 ] || fail "$meta: $(cat "$W/vm.txt")"
	done
}

@test "md assembles the array stripe failed a member of degraded, without --run, leaving the faulty member out" {
	local meta
	for meta in "${METAS[@]}"; do
		whole F "$meta"
		[ "$(vm_value "$W/vm.txt" "F: meta=$meta" degraded)" = 1 ] || fail "$meta: $(cat "$W/vm.txt")"
		[ "$(vm_value "$W/vm.txt" "F: meta=$meta" failed_in)" = 0 ] || fail "$meta: $(cat "$W/vm.txt")"
	done
}

@test "after stripe removed and zeroed a member mdadm finds no superblock on it, refuses it in an assembly, and assembles the rest degraded" {
	local meta
	for meta in "${METAS[@]}"; do
		[ "$(vm_value "$W/vm.txt" "Z: meta=$meta" examine_rc)" != 0 ] || fail "$meta: $(cat "$W/vm.txt")"
		[ "$(vm_value "$W/vm.txt" "Z: meta=$meta" all_started)" = 0 ] || fail "$meta: $(cat "$W/vm.txt")"
		whole Z "$meta"
		[ "$(vm_value "$W/vm.txt" "Z: meta=$meta" degraded)" = 1 ] || fail "$meta: $(cat "$W/vm.txt")"
	done
}
