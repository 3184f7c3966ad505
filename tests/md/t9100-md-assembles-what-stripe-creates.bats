#!/usr/bin/env bats
# Proof by the kernel: arrays that stripe-create made and stripe-write filled
# are assembled by the real md driver, which reads the bytes stripe-read reads
# (the pattern written), finds no mismatch in a "check", and shows through
# mdadm --detail the geometry they were created with.  Every level with every
# metadata version, every RAID5/RAID6 layout, the RAID10 layouts, multi-zone
# RAID0, arrays created degraded and arrays written after losing a member.
#
# All arrays are built in setup_file and md looks at them in a few VM boots
# (batch.bash, batch-assemble.vm.sh); each test checks its arrays' results.
# make check-md makes every other array of each kind (MD_SAMPLE; which
# half changes from commit to commit), make check-md-full all of them.
# Logs of the VM runs: build/test-logs/t9100-md-assembles-what-stripe-creates/.

bats_require_minimum_version 1.5.0
load batch
MD_SAMPLE=2

make_arrays() {
	local l m c n
	# every level with every metadata version; 0.90 records no raid0
	# layout, so its raid0 has members of one size (one zone).  Level by
	# level, so that a sample of every other array keeps each level.
	for l in 0:3 1:2 4:3 5:3 6:4 10:4; do
		n=${l#*:} l=${l%:*}
		for m in 0.90 1.0 1.1 1.2; do
			case $m in 0.90) c=(-c 32K) ;; 1.0) c=(-c 64K) ;; 1.1) c=(-c 128K) ;; 1.2) c=() ;; esac
			[ "$l" = 1 ] && c=()
			mk lm-r$l-$m "$n" - -l "$l" -e $m "${c[@]}"
		done
	done
	# every RAID5 layout (metadata versions varied along)
	mk r5-la 4 - -l 5 -p la -c 32K -e 0.90
	mk r5-ra 4 - -l 5 -p ra -c 32K -e 1.0
	mk r5-ls 4 - -l 5 -p ls -c 32K -e 1.1
	mk r5-rs 4 - -l 5 -p rs -c 32K -e 1.2
	mk r5-parity-first 4 - -l 5 -p parity-first -c 32K -e 1.0
	mk r5-parity-last 4 - -l 5 -p parity-last -c 32K -e 0.90
	# every RAID6 layout
	for l in left-asymmetric right-asymmetric left-symmetric right-symmetric \
		parity-first parity-last ddf-zero-restart ddf-N-restart ddf-N-continue \
		left-asymmetric-6 right-asymmetric-6 left-symmetric-6 right-symmetric-6 parity-first-6; do
		mk r6-$l 5 - -l 6 -p $l -c 32K
	done
	# RAID10: near, far, offset copies, also on odd member counts
	mk r10-n2 4 - -l 10 -p n2 -c 32K
	mk r10-n3 4 - -l 10 -p n3 -c 32K -e 1.0
	mk r10-f2 4 - -l 10 -p f2 -c 32K
	mk r10-o2 4 - -l 10 -p o2 -c 32K -e 1.1
	mk r10-f2-odd 3 - -l 10 -p f2 -c 32K
	mk r10-n2-odd 3 - -l 10 -p n2 -c 32K -e 0.90
	mk r10-o2-odd 3 - -l 10 -p o2 -c 32K
	# multi-zone RAID0: members of different sizes, both layouts
	mk r0z-original 4M,6M,8M - -l 0 -p original -c 64K
	mk r0z-alternate 4M,6M,8M - -l 0 -p alternate -c 64K
	mk r0z-alternate-1.0 8M,4M,6M - -l 0 -p alternate -c 32K -e 1.0
	mk r0z-default-1.1 6M,4M,4M,8M - -l 0 -c 64K -e 1.1
	# created degraded ("missing" members), then written through stripe-write
	mk dc-r5 4M,missing,4M,4M - -l 5 -c 32K
	mk dc-r6 missing,4M,4M,missing,4M - -l 6 -c 32K
	mk dc-r6-one 4M,4M,4M,4M,missing - -l 6 -p ddf-N-continue -c 32K -e 1.0
	mk dc-r1 missing,4M - -l 1 -e 0.90
	mk dc-r4 4M,4M,missing - -l 4 -c 32K
	mk dc-r10 4M,4M,4M,missing - -l 10 -c 32K -e 1.1
	# created whole, a member's file lost, then written degraded
	mk lost-r5 4 2 -l 5 -c 32K
	mk lost-r5-first 4 0 -l 5 -p ra -c 32K -e 0.90
	mk lost-r6 5 1 -l 6 -c 32K
	mk lost-r6-two 5 0,3 -l 6 -p left-symmetric-6 -c 32K -e 1.0
	mk lost-r1 3 0 -l 1
	mk lost-r4-data 3 0 -l 4 -c 32K
	mk lost-r4-parity 3 2 -l 4 -c 32K -e 1.1
	mk lost-r10 4 1 -l 10 -c 32K
	mk lost-r10-f2 4 3 -l 10 -p f2 -c 32K -e 0.90
	mk lost-r10-o2-odd 3 1 -l 10 -p o2 -c 32K
	# with a write-intent bitmap: as stripe-create left them, and written
	# (one --bitmap-chunk small enough for hundreds of bits in each)
	MK_UNWRITTEN=1 mk bmc-r5-1.2 4 - -l 5 -c 32K --bitmap=internal
	MK_UNWRITTEN=1 mk bmc-r5-1.2-clean 4 - -l 5 -c 32K --bitmap=internal --assume-clean
	MK_UNWRITTEN=1 mk bmc-r10-1.0 4 - -l 10 -c 32K -e 1.0 --bitmap=internal --bitmap-chunk 4
	MK_UNWRITTEN=1 mk bmc-r6-1.1 4 - -l 6 -c 32K -e 1.1 --bitmap=internal
	MK_UNWRITTEN=1 mk bmc-r1-0.90 2 - -l 1 -e 0.90 --bitmap=internal
	mk bm-r5-1.2 4 - -l 5 -c 32K --bitmap=internal
	mk bm-r1-1.0 2 - -l 1 -e 1.0 --bitmap=internal
	mk bm-r10-1.2 4 - -l 10 -c 32K --bitmap=internal --bitmap-chunk 4
	mk bm-r6-1.1 4 - -l 6 -c 32K -e 1.1 --bitmap=internal
	mk bm-r5-0.90 3 - -l 5 -c 32K -e 0.90 --bitmap=internal
}

# md_check_bitmap NAME...: md took each array's write-intent bitmap as its
# own (mdadm -X found one after md stopped the array) and, finding it up
# to date with no bit set, started no resync once read-write.
md_check_bitmap() {
	local name bad=()
	md_results
	for name in "$@"; do
		md_view "$name" || { bad+=("$name: $(why "$name")"); continue; }
		[ "${V[bm_events]}" != - ] || bad+=("$name: md found no bitmap")
		[ "${V[rw_sync]}" = idle ] || bad+=("$name: md's sync action was ${V[rw_sync]} once read-write")
		[ "${V[bm_dirty]}" = 0 ] || bad+=("$name: ${V[bm_dirty]} bits dirty after md stopped it")
	done
	[ ${#bad[@]} -eq 0 ] || fail "$(printf '%s\n' "${bad[@]}")"
}

setup_file() {
	md_there || return 0
	# MD_BATCH_REUSE=1 with ARRAYS=DIR: check the arrays and results a
	# previous run left in DIR again, without making or booting anything
	if [ "${MD_BATCH_REUSE:-}" = 1 ] && [ -s "$ARRAYS/results.txt" ]; then
		return 0
	fi
	rm -rf "$ARRAYS"
	mkdir -p "$ARRAYS"
	batch_start
	make_arrays
	batch_end
}

setup() {
	md_ready
}

@test "md reads what stripe wrote to raid0 arrays with metadata 0.90, 1.0, 1.1 and 1.2" {
	md_check $(names lm-r0-)
}

@test "md reads what stripe wrote to raid1 arrays with metadata 0.90, 1.0, 1.1 and 1.2, with no mismatches" {
	md_check $(names lm-r1-)
}

@test "md reads what stripe wrote to raid4 arrays with metadata 0.90, 1.0, 1.1 and 1.2, with no mismatches" {
	md_check $(names lm-r4-)
}

@test "md reads what stripe wrote to raid5 arrays with metadata 0.90, 1.0, 1.1 and 1.2, with no mismatches" {
	md_check $(names lm-r5-)
}

@test "md reads what stripe wrote to raid6 arrays with metadata 0.90, 1.0, 1.1 and 1.2, with no mismatches" {
	md_check $(names lm-r6-)
}

@test "md reads what stripe wrote to raid10 arrays with metadata 0.90, 1.0, 1.1 and 1.2, with no mismatches" {
	md_check $(names lm-r10-)
}

@test "md reads what stripe wrote to raid5 arrays in every layout, with no mismatches" {
	md_check $(names r5-)
}

@test "md reads what stripe wrote to raid6 arrays in every layout, with no mismatches" {
	md_check $(names r6-)
}

@test "md reads what stripe wrote to raid10 arrays with near, far and offset copies, with no mismatches" {
	md_check $(names r10-)
}

@test "md reads what stripe wrote to multi-zone raid0 arrays in the original and alternate layouts" {
	md_check $(names r0z-)
}

@test "md assembles arrays stripe created with members missing and reads what stripe-write wrote to them" {
	md_check $(names dc-)
}

@test "md reads what stripe-write wrote to arrays after a member was lost" {
	md_check $(names lost-)
}

@test "md finds the bitmap of arrays stripe-create made with --bitmap=internal up to date and starts no resync" {
	md_check $(names bmc-)
	md_check_bitmap $(names bmc-)
}

@test "md reads what stripe wrote to arrays with a write-intent bitmap, finds the bitmap up to date and starts no resync" {
	md_check $(names bm-)
	md_check_bitmap $(names bm-)
}

@test "mdadm --detail shows every array with the level, devices, chunk, layout and metadata it was created with" {
	md_check_detail $(cat "$ARRAYS/list")
}

@test "md starts every array without --run, has every present member in sync and counts the absent ones as degraded" {
	md_check_members $(cat "$ARRAYS/list")
}

@test "stripe-examine prints every member's superblock as mdadm --examine does" {
	md_check_examine $(cat "$ARRAYS/list")
}
