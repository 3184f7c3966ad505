#!/usr/bin/env bats
# stripe-probe on a RAID0 that holds no filesystem, only a stream written
# across its chunks (lib/probe/chain.c): a tar of real files, whose chunk
# ends continue into the next member's chunk start, decides the chunk, the
# order and the data offset from continuity alone; random data decides
# nothing, and says so.

bats_require_minimum_version 1.5.0
load helpers

# a RAID0 of 4 members of 8 MiB, 64K chunks, 1.2 (data at 1 MiB): 28 MiB
STREAM_BYTES=$((28 << 20))

# make_raid0 DIR SIZE: the array of 4 members of SIZE in DIR, filled from
# stdin, superblocks zeroed
make_raid0() {
	local d=$1 i
	mkdir -p "$d"
	for i in 0 1 2 3; do truncate -s "$2" "$d/m$i.img"; done
	stripe-create -q --force -l 0 -n 4 -c 64K -e 1.2 "$d"/m*.img
	stripe-write -q "$d"/m*.img
	for i in 0 1 2 3; do dd if=/dev/zero of="$d/m$i.img" bs=512 count=2048 conv=notrunc status=none; done
}

setup_file() {
	local d=$BATS_FILE_TMPDIR
	export STRIPE_BIN=$BIN
	tar -cf - -C /usr/share doc 2>/dev/null | head -c "$STREAM_BYTES" >"$d/stream" || true
	make_raid0 "$d/tar" 8M <"$d/stream"
	head -c 12M /dev/urandom | make_raid0 "$d/random" 4M
}

@test "a RAID0 holding a tar stream and no filesystem is found from continuity alone, and reads the stream back" {
	local d=$BATS_FILE_TMPDIR line
	[ "$(stat -c %s "$d/stream")" -eq "$STREAM_BYTES" ] || skip "/usr/share/doc holds less than 28 MiB to tar"
	cd "$d/tar"
	run -0 stripe-probe --json=p.json m2.img m0.img m3.img m1.img
	assert_output --partial 'continuity alone proposes raid0'
	assert_output --partial 'found: candidate 1, confidence 95%'
	line=$(jq -r '.candidates[.arrays[0].candidate - 1].geometry' p.json)
	[[ $line == *level=0,chunk=64K,data-offset=2048s,* ]]
	run -0 bash -c "stripe-read -q $line | head -c $STREAM_BYTES | cmp - ../stream"
}

@test "random data on a RAID0 decides no chunk or order: said, exit 1" {
	cd "$BATS_FILE_TMPDIR/random"
	run -1 stripe-probe m1.img m3.img m0.img m2.img
	assert_output --partial 'raid0: no chunk size links every member'"'"'s chunk ends to one next start beyond chance'
	assert_output --partial 'cannot decide'
}
