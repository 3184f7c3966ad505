#!/usr/bin/env bats
# The probe's filesystem evidence beyond a bare ext4 at the array's start
# (lib/probe/volume.c, xfs.c, xfs_score.c), through tests/tools/probe-content:
# an ext4 in a GPT partition or an LVM2 physical volume, a LUKS header, and
# an XFS, each made by tests/probe/make-ext4-array with its md superblocks
# zeroed; and stripe-probe itself on an ext4 in the LV of a real PV, whose
# label and metadata pvcreate, vgcreate and lvcreate wrote (tests/fixtures/lvm2).
# suite: plain

bats_require_minimum_version 1.5.0
load helpers
load probe-helpers

setup_file() {
	local mk=$TOP/tests/probe/make-ext4-array d=$BATS_FILE_TMPDIR
	export STRIPE_BIN=$BIN
	"$mk" -s "$TOP/lib" -P gpt "$d/gpt" 16M -l 5 -n 5 -c 64K -p left-symmetric -e 1.2 >/dev/null
	"$mk" --zero "$d/gpt"
	"$mk" -s "$TOP/lib" -P lvm "$d/lvm" 12M -l 0 -n 4 -c 32K -e 1.2 >/dev/null
	"$mk" --zero "$d/lvm"
	"$mk" -s "$TOP/lib" -P lvm -L "$TOP/tests/fixtures/lvm2/pv-first-mib.bin.xz" "$d/lvm-real" 12M \
		-l 5 -n 4 -c 64K -p left-symmetric -e 1.2 >/dev/null
	"$mk" --zero "$d/lvm-real"
	"$mk" -P luks "$d/luks" 8M -l 5 -n 3 -c 64K -e 1.2 >/dev/null
	"$mk" --zero "$d/luks"
	if command -v mkfs.xfs >/dev/null; then
		"$mk" -s "$TOP/lib" -t xfs "$d/xfs" 20M -l 5 -n 5 -c 64K -p left-symmetric -e 1.2 >/dev/null
		"$mk" --zero "$d/xfs"
	fi
}




need_xfs() {
	command -v mkfs.xfs >/dev/null || skip "mkfs.xfs (xfsprogs) is not installed"
}

@test "an ext4 in a GPT partition gives the array's exact geometry, the partition named" {
	run -0 probe gpt m0.img m1.img m2.img m3.img m4.img
	top
	assert_equal "$spec" "$(canon gpt)"
	assert_equal "$score" 1.000
	assert_output --partial '  GPT: partition 1 at sector 2048 holds the ext4'
}

@test "the GPT's backup header, found where the geometry puts the array's last LBA, gives its size and each member's" {
	run -0 probe gpt m0.img m1.img m2.img m3.img m4.img
	local member=$(grep -o 'size=[0-9]*s' "$BATS_FILE_TMPDIR/gpt/truth" | tr -dc 0-9)
	assert_output --partial "GPT: its backup header at LBA $((member * 4 - 1)), where this geometry puts it: the array holds $((member * 4)) sectors, $member a member"
}

@test "the GPT header pins the data offset: no candidate reads the partition's ext4 as the array's start" {
	run -0 probe gpt m3.img m0.img m4.img m2.img m1.img
	top
	assert_equal "$spec" "$(canon gpt | sed 's/order=.*/order=1:4:3:0:2/')"
	refute_output --regexp '^1\.000 [^ ]*data-offset=2560s'
}

@test "an ext4 in an LVM2 physical volume gives a RAID0's exact geometry" {
	run -0 probe lvm m0.img m1.img m2.img m3.img
	top
	assert_equal "$spec" "$(canon lvm)"
	assert_equal "$score" 1.000
	assert_output --partial '  LVM2: physical volume whose extents start at sector 2048 holds the ext4'
}

@test "stripe-probe finds a zeroed RAID5 whose ext4 is in the LV of a real LVM2 PV, and its --geometry reads the array" {
	local truth=$BATS_FILE_TMPDIR/lvm-real/truth geometry
	cd "$BATS_FILE_TMPDIR/lvm-real"
	run -0 stripe-probe m2.img m0.img m3.img m1.img
	assert_output --partial '  - LVM2: physical volume whose extents start at sector 2048 holds the ext4'
	geometry=$(sed -n 's/^  stripe-read --geometry \([^ ]*\) .*/\1/p' <<<"$output")
	# the size as the probe words it; stripe-read checks it below
	assert_equal "${geometry/size=*,order/order}" "$(sed 's/size=.*/order=1:3:0:2/' "$truth")"
	[ "$(stripe-read -q --geometry "$geometry" m2.img m0.img m3.img m1.img | sha)" = "$(cat "${truth%/*}/array.sha256")" ]
}

@test "a LUKS header names the data offset and its member, and says only parity can decide the rest" {
	run -0 probe luks m0.img m1.img m2.img
	refute_output --partial 'level='
	assert_output --partial 'undecided: LUKS1 header at sector 2048 of member 0: the array'"'"'s data offset, and data chunk 0 on that member; the rest is ciphertext, only parity can decide it'
}

@test "a LUKS header gives a parity candidate its data offset and its member the role of data chunk 0" {
	run -0 probe luks --given level=5,chunk=64K,layout=left-symmetric,data-offset=2048s,size=14336s,order=1:2:0 \
		--unknown role0,role1,data-offset m2.img m0.img m1.img
	assert_output --partial '1.000 level=5,chunk=64K,layout=left-symmetric,data-offset=2048s,size=7M,order=1:?:0'
	assert_output --partial '  LUKS1 header at sector 2048 of member 1: the data offset, and the member holding data chunk 0'
}

@test "an XFS gives its exact geometry from its allocation groups and inodes" {
	need_xfs
	run -0 probe xfs m0.img m1.img m2.img m3.img m4.img
	top
	assert_equal "$spec" "$(canon xfs)"
	assert_equal "$score" 1.000
	assert_output --regexp 'XFS: ([0-9]+)/\1 allocation group headers, inode btree roots and inodes verified'
}

@test "an XFS with a member given as missing is found, out of order, that role missing" {
	need_xfs
	run -0 probe xfs m3.img m0.img missing m2.img m1.img
	top
	assert_equal "$spec" "$(canon xfs | sed 's/order=.*/order=1:4:3:0:missing/')"
	assert_equal "$score" 1.000
}

@test "a wrong chunk reads the XFS's inodes from other places and scores lower" {
	need_xfs
	local wrong=$(sed 's/chunk=64K/chunk=32K/' "$BATS_FILE_TMPDIR/xfs/truth")
	run -0 probe xfs --given "$wrong" m0.img m1.img m2.img m3.img m4.img
	top
	assert_equal "$spec" "$(canon xfs)"
	assert_output --regexp '0\.[0-9]* level=5,chunk=32K,'
}
