#!/usr/bin/env bats
# stripe-examine --scan --brief, md as the judge: the ARRAY lines it prints
# for three arrays (metadata 1.2, 1.0 and 0.90, each holding written data)
# go into the VM's mdadm.conf, and mdadm --assemble --scan starts each of
# them from those lines alone, whole, reading back what was written.  One
# VM boot (scan-assemble.vm.sh), its output kept in
# build/test-logs-md/t9050-md-assembles-from-stripe-scan-lines.txt.

bats_require_minimum_version 1.5.0
load helpers

VM_SCRIPT=$BATS_TEST_DIRNAME/scan-assemble.vm.sh
ARRAYS=(alpha beta gamma)

# make_array NAME: the array NAME in $W/NAME, filled with random data
# ($W/NAME/data); a raid5 named alpha (1.2), a raid1 named beta (1.0), a
# raid6 on 0.90 (no name: /dev/md0).
make_array() {
	local d=$W/$1
	mkdir -p "$d"
	case $1 in
	alpha) stripe-create -q -l 5 -n 4 -c 64K -N alpha --image-size 4M "$d"/m{0..3}.img ;;
	beta) stripe-create -q -l 1 -n 2 -e 1.0 -N beta --image-size 4M "$d"/m{0..1}.img ;;
	gamma) stripe-create -q -l 6 -n 4 -c 64K -e 0.90 --image-size 4M "$d"/m{0..3}.img ;;
	esac
	head -c "$(stripe-examine --json "$d"/m*.img | jq -r .array.size_bytes)" /dev/urandom > "$d/data"
	stripe-write -q --progress none -i "$d/data" "$d"/m*.img
}

setup_file() {
	local name disks=() lines=()
	md_there || return 0
	W=$BATS_FILE_TMPDIR
	export W
	mkdir -p "$MD_LOGS"
	for name in "${ARRAYS[@]}"; do
		make_array "$name"
		disks+=($(printf -- '--disk %s ' "$W/$name"/m*.img))
	done
	stripe-examine --scan --brief "$W"/*/m*.img > "$W/conf" 2> "$W/scan.err"
	mapfile -t lines < "$W/conf"
	vm_run --mem 192 --timeout 300 "${disks[@]}" -- "$VM_SCRIPT" "${lines[@]}" > "$W/vm.txt" 2>&1 || true
	cat "$W/conf" "$W/scan.err" "$W/vm.txt" > "$MD_LOGS/t9050-md-assembles-from-stripe-scan-lines.txt"
}

setup() {
	md_ready
	W=$BATS_FILE_TMPDIR
}

# uuid NAME: the UUID of array NAME, as stripe-examine reads it.
uuid() {
	stripe-examine --json "$W/$1"/m*.img | jq -r .array.uuid
}

@test "stripe-examine --scan --brief gives a line for each array, mdadm -Eb's own" {
	[ "$(wc -l < "$W/conf")" -eq 3 ] || fail "$(cat "$W/conf" "$W/scan.err")"
	[ "$(cat "$W/conf")" = "$(mdadm --examine --brief "$W"/*/m*.img)" ] || fail "$(cat "$W/conf")"
}

@test "mdadm --assemble --scan starts every array from those lines alone, whole" {
	local name u
	for name in "${ARRAYS[@]}"; do
		u=$(uuid "$name")
		[ "$(vm_value "$W/vm.txt" "A: uuid=$u" degraded)" = 0 ] || fail "$name ($u): $(cat "$W/vm.txt")"
	done
}

@test "each array md assembles from the lines reads back the data written (sha256)" {
	local name u
	for name in "${ARRAYS[@]}"; do
		u=$(uuid "$name")
		[ "$(vm_value "$W/vm.txt" "A: uuid=$u" sha256)" = "$(sha "$W/$name/data")" ] ||
			fail "$name: $(grep "^A: uuid=$u" "$W/vm.txt")"
	done
}

@test "the named arrays get the device names of their lines" {
	[ "$(vm_value "$W/vm.txt" "A: uuid=$(uuid alpha)" dev)" = /dev/md/alpha ] || fail "$(grep '^A:' "$W/vm.txt")"
	[ "$(vm_value "$W/vm.txt" "A: uuid=$(uuid beta)" dev)" = /dev/md/beta ] || fail "$(grep '^A:' "$W/vm.txt")"
	[ "$(vm_value "$W/vm.txt" "A: uuid=$(uuid gamma)" dev)" = /dev/md0 ] || fail "$(grep '^A:' "$W/vm.txt")"
}
