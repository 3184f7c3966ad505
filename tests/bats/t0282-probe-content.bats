#!/usr/bin/env bats
# The probe's filesystem evidence (lib/probe/content.c) alone, through
# tests/tools/probe-content: arrays holding a real ext4 full of real files
# (tests/probe/make-ext4-array), their superblocks zeroed, give back their
# geometry from the filesystem's own checksummed metadata.
# The arrays take most of its time: the plain suite runs it, and
# tests/unit/test_probe_content the same code under ASan on one array.
# suite: plain

bats_require_minimum_version 1.5.0
load helpers
load probe-helpers

setup_file() {
	local mk=$TOP/tests/probe/make-ext4-array d=$BATS_FILE_TMPDIR
	export STRIPE_BIN=$BIN
	"$mk" "$d/r5" 16M -l 5 -n 5 -c 64K -p left-symmetric -e 1.2 >/dev/null
	"$mk" --zero "$d/r5"
	"$mk" "$d/r6" 12M -l 6 -n 6 -c 16K -p right-asymmetric -e 1.2 >/dev/null
	"$mk" --zero "$d/r6"
	"$mk" "$d/r0" 12M -l 0 -n 4 -c 4K -e 1.0 >/dev/null
	"$mk" --zero "$d/r0"
	"$mk" "$d/r10" 12M -l 10 -n 4 -c 32K -p n2 -e 1.2 >/dev/null
	"$mk" --zero "$d/r10"
}




@test "a zeroed RAID5's ext4 gives its exact geometry on top, from the filesystem alone" {
	run -0 probe r5 m0.img m1.img m2.img m3.img m4.img
	top
	assert_equal "$spec" "$(canon r5)"
	assert_equal "$score" 1.000
	assert_output --regexp 'ext4: [0-9]+/[0-9]+ checksummed metadata blocks verified; backup superblocks at ([0-9]+)/\1 predicted places'
}

@test "the top candidate read with stripe-read --geometry gives the array's sha256" {
	run -0 probe r5 m0.img m1.img m2.img m3.img m4.img
	top
	local size=$(grep -o 'size=[0-9]*s' "$BATS_FILE_TMPDIR/r5/truth")
	cd "$BATS_FILE_TMPDIR/r5"
	run -0 bash -c "stripe-read --geometry '${spec/size=0K/$size}' m*.img | sha256sum"
	assert_output "$(cat array.sha256)  -"
}

@test "members given out of order are found in their roles" {
	run -0 probe r5 m3.img m0.img m4.img m2.img m1.img
	top
	assert_equal "$spec" "$(canon r5 | sed 's/order=.*/order=1:4:3:0:2/')"
}

@test "a RAID5 with one member given as missing is found, that role missing, read through parity" {
	run -0 probe r5 m0.img m1.img missing m3.img m4.img
	top
	assert_equal "$spec" "$(canon r5 | sed 's/order=.*/order=0:1:missing:3:4/')"
	assert_equal "$score" 1.000
}

@test "a RAID6 with two members given as missing is found among the best" {
	run -0 probe r6 m0.img missing m2.img m3.img missing m5.img
	top
	local want=$(canon r6 | sed 's/order=.*/order=0:missing:2:3:missing:5/')
	assert_output --partial "$score $want"
}

@test "a RAID0 with data at 0 (1.0) is found with its 4K chunk" {
	run -0 probe r0 m0.img m1.img m2.img m3.img
	top
	assert_equal "$spec" "$(canon r0)"
	assert_equal "$score" 1.000
}

@test "a RAID10 (near=2) is found, each pair of copies in its roles" {
	run -0 probe r10 m0.img m1.img m2.img m3.img
	top
	assert_equal "$spec" "$(canon r10)"
	assert_equal "$score" 1.000
}

@test "a candidate whose chunk, layout and roles parity left undecided is completed to the exact geometry" {
	run -0 probe r5 --given "$(cat "$BATS_FILE_TMPDIR/r5/truth")" --unknown chunk,layout,role1,role2,role3,role4 \
		m0.img m1.img m2.img m3.img m4.img
	top
	assert_equal "${spec/,size=*,/,}" "$(canon r5 | sed 's/,size=[^,]*,/,/')"
	refute_output --partial '?'
}

@test "a wrong re-create's geometry (another order and chunk) reads no filesystem and the original comes out on top" {
	cp -r "$BATS_FILE_TMPDIR/r5" "$BATS_TEST_TMPDIR/wrong"
	cd "$BATS_TEST_TMPDIR/wrong"
	stripe-create -q --assume-clean --force -l 5 -n 5 -c 128K -e 1.2 m1.img m0.img m2.img m4.img m3.img 2>/dev/null
	local wrong=level=5,chunk=128K,layout=left-symmetric,data-offset=2048s,size=14336s,order=1:0:2:4:3
	run -0 "$TTOOLS/probe-content" --given "$wrong" m0.img m1.img m2.img m3.img m4.img
	top
	assert_equal "$spec" "$(canon r5)"
	assert_output --regexp '0\.000 level=5,chunk=128K,[^ ]*order=1:0:2:4:3'
}

@test "a checksum that fails under an order reading a row's parity as data outweighs the many that verify" {
	local mk=$TOP/tests/probe/make-ext4-array d=$BATS_TEST_TMPDIR/big wrong
	# 1M chunks on a young ext4: most rows hold one chunk in use, so
	# their parity is a copy of it and an order that takes m4 (P) for
	# data chunk 2 reads the same bytes there but in a few rows
	"$mk" "$d" 32M -l 5 -n 5 -c 1M -p parity-last -e 1.2 >/dev/null
	"$mk" --zero "$d"
	cd "$d"
	wrong=$(sed 's/order=.*/order=0:1:4:3:2/' truth)
	run -0 "$TTOOLS/probe-content" --given "$wrong" m0.img m1.img m2.img m3.img m4.img
	assert_output --regexp '(^|'$'\n'')1\.000 level=5,chunk=1M,layout=parity-last,[^ ]*order=0:1:2:3:4'
	assert_output --regexp '(^|'$'\n'')0\.([0-4][0-9]{2}|500) level=5,chunk=1M,layout=parity-last,[^ ]*order=0:1:4:3:2'
}

@test "the evidence reads a few MiB per member beyond the sample, not the members" {
	run -0 probe r6 m0.img m1.img m2.img m3.img m4.img m5.img
	local sample=$(sed -n 's/^sample: //p' <<<"$output") read=$(sed -n 's/^read: //p' <<<"$output")
	(( read > sample && read - sample < 8 * 1048576 ))
}

@test "members holding no ext4 give no candidate and say so" {
	cd "$BATS_TEST_TMPDIR"
	for i in 0 1 2 3; do head -c 4M /dev/urandom >r$i.img; done
	run -0 "$TTOOLS/probe-content" r0.img r1.img r2.img r3.img
	refute_output --partial 'level='
	assert_output --partial 'undecided: no ext4 superblock found in the sample'
}
