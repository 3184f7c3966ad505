#!/usr/bin/env bats
# stripe-probe's continuity evidence (lib/probe/continuity.c): real files
# run across chunk boundaries, so the order whose chunks continue one into
# the next is the array's.  A RAID0 of real text and binaries (Python's
# library) whose superblocks are zeroed, where the ext4's metadata leaves
# two orders nearly tied; RAID10 near=2 on an odd member count, whose
# copies straddle rows; RAID10 far=2 on one, whose copies hide the chunk
# and where the order starts; and random data, where it says nothing.
# Under ASan and UBSan the same code runs in test_probe_continuity.
# suite: plain

bats_require_minimum_version 1.5.0
load helpers

setup_file() {
	local mk=$TOP/tests/probe/make-ext4-array d=$BATS_FILE_TMPDIR
	export STRIPE_BIN=$BIN
	"$mk" -s /usr/lib/python3.11 "$d/r0" 16M -l 0 -n 7 -c 1M -e 1.2 >/dev/null
	"$mk" --zero "$d/r0"
	"$mk" "$d/r10" 12M -l 10 -n 3 -c 32K -p n2 -e 1.2 >/dev/null
	"$mk" --zero "$d/r10"
	"$mk" "$d/f2" 12M -l 10 -n 3 -c 32K -p f2 -e 1.2 >/dev/null
	"$mk" --zero "$d/f2"
}

# probe_reads DIR MEMBER...: the probe run on DIR's members, exit 0, and
# its --geometry line reads the array's sha256.
probe_reads() {
	local dir=$BATS_FILE_TMPDIR/$1 line
	shift
	cd "$dir"
	run -0 stripe-probe --json=p.json "$@"
	line=$(jq -r '.candidates[.arrays[0].candidate - 1].geometry' p.json)
	run -0 bash -c "stripe-read -q $line | sha256sum"
	assert_output "$(cat array.sha256)  -"
}

@test "a zeroed RAID0 is ordered by its chunks' continuity where the ext4 left two orders nearly tied" {
	[ -d /usr/lib/python3.11 ] || skip "no /usr/lib/python3.11 to fill the array with"
	probe_reads r0 m0.img m1.img m2.img m3.img m4.img m5.img m6.img
	run -0 jq -r '.candidates[.arrays[0].candidate - 1].evidence[]' p.json
	assert_output --regexp 'continuity: ([0-9]+)/([0-9]+) chunk boundaries continue'
	run -0 jq -r '.candidates[1].evidence[]' p.json
	assert_output --partial 'fewer than a rival'"'"'s'
}

@test "a zeroed RAID10 near=2 of three members, its copies straddling rows, is found" {
	probe_reads r10 m0.img m1.img m2.img
	run -0 jq -r '.candidates[.arrays[0].candidate - 1].geometry' p.json
	assert_output --partial 'level=10,chunk=32K,layout=258,data-offset=2048s,'
	assert_output --partial 'order=0:1:2 '
}

@test "a zeroed RAID10 far=2 of three members is found: the starts copies leave open continue less" {
	probe_reads f2 m0.img m1.img m2.img
	run -0 jq -r '.candidates[.arrays[0].candidate - 1].geometry' p.json
	assert_output --partial 'level=10,chunk=32K,layout=513,data-offset=2048s,'
	assert_output --partial 'order=0:1:2 '
	# the other orders and starts, with or without a geometry of their own
	run -0 jq -r '.arrays[0].candidate as $c | .candidates | to_entries[] | select(.key != $c - 1) | .value.evidence[]' p.json
	assert_output --regexp 'continuity: (at best )?[0-9]+/[0-9]+ chunk boundaries continue.*fewer than a rival'
}

@test "on random data continuity says nothing, and a RAID6 its syndromes find keeps its confidence" {
	local d=$BATS_TEST_TMPDIR i
	for i in 0 1 2 3 4; do truncate -s 16M "$d/m$i.img"; done
	stripe-create -q --force -l 6 -n 5 -c 64K -e 1.2 "$d"/m*.img
	head -c 40M /dev/urandom | stripe-write -q "$d"/m*.img
	for i in 0 1 2 3 4; do dd if=/dev/zero of="$d/m$i.img" bs=512 count=2048 conv=notrunc status=none; done
	run -0 stripe-probe "$d"/m*.img
	assert_output --partial 'continuity: no candidate'"'"'s chunk boundaries continue more often than chance'
	assert_output --partial 'found: candidate 1, confidence 100%, 100% ahead of the next'
	refute_output --partial 'fewer than a rival'
}
