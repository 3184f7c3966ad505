#!/usr/bin/env bats
# stripe-map: the array as MOUNTPOINT/array through FUSE: an ext4 made on it
# mounts and holds files, the array stays consistent, dirty while mapped and
# clean after, read-only maps refuse writes, degraded arrays read right, a
# SIGTERM unmaps, and what cannot be mapped is refused with status 2.

bats_require_minimum_version 1.5.0
load helpers
load map-helpers

setup() {
	case_sample 2 2
	map_setup
}

teardown() {
	map_teardown
}

# make_array CREATE-OPTION...: five 24 MiB members, M holds their paths.
make_array() {
	stripe-create -q "$@" --image-size 24M "$D"/m{0,1,2,3,4}.img
	M=("$D"/m{0,1,2,3,4}.img)
}

resync() {
	stripe-examine --json "$@" | jq -r .array.needs_resync
}

# fill_fs: mkfs.ext4 on the mapped file, mounted through a loop device,
# three files written (their sums in $D/sums), unmounted.
fill_fs() {
	mkfs.ext4 -q -F "$MNT/array"
	mount -o loop "$MNT/array" "$FS"
	head -c 3000001 /dev/urandom > "$FS/one"
	mkdir "$FS/dir"
	head -c 700000 /dev/urandom > "$FS/dir/two"
	seq 1 100000 > "$FS/dir/three"
	(cd "$FS" && sha256sum one dir/two dir/three) > "$D/sums"
	umount "$FS"
}

@test "files written to an ext4 made on the mapped file read back the same once mapped again" {
	make_array -l 5 -c 64K
	map_start "${M[@]}"
	fill_fs
	map_stop
	[ "$MAP_RC" -eq 0 ] || fail "stripe-map exited $MAP_RC: $(cat "$D/map.err")"
	map_start --read-only "${M[@]}"
	mount -o loop,ro "$MNT/array" "$FS"
	(cd "$FS" && sha256sum -c --quiet "$D/sums")
}

@test "after the ext4 is unmounted and the array unmapped, stripe-check finds 0 and e2fsck is clean" {
	make_array -l 6 -c 64K
	map_start "${M[@]}"
	fill_fs
	map_stop
	run stripe-check --progress none "${M[@]}"
	assert_success
	assert_output --partial " 0 inconsistent"
	stripe-read "${M[@]}" > "$D/fs.img"
	run e2fsck -fn "$D/fs.img"
	assert_success
}

@test "the superblocks say dirty while mapped and clean after the unmap" {
	make_array -l 5 -c 64K
	[ "$(resync "${M[@]}")" = false ]
	map_start "${M[@]}"
	[ "$(resync "${M[@]}")" = true ]
	run mdadm --examine "${M[0]}"
	assert_output --partial "State : active"
	map_stop
	[ "$(resync "${M[@]}")" = false ]
	run mdadm --examine "${M[0]}"
	assert_output --partial "State : clean"
}

@test "a read-only map refuses writes and changes no member" {
	make_array -l 5 -c 64K
	local before
	before=$(sha256sum "${M[@]}")
	map_start --read-only "${M[@]}"
	[ "$(resync "${M[@]}")" = false ]
	run -1 dd if=/dev/zero of="$MNT/array" bs=4k count=1 conv=notrunc status=none
	[[ $output == *"Read-only file system"* || $output == *"Permission denied"* ]] || fail "$output"
	head -c 4096 "$MNT/array" > /dev/null
	map_stop
	[ "$MAP_RC" -eq 0 ]
	[ "$before" = "$(sha256sum "${M[@]}")" ]
}

@test "a degraded raid5 maps and reads the bytes stripe-read and the writer put there" {
	make_array -l 5 -c 64K
	head -c 5000000 /dev/urandom > "$D/data"
	stripe-write -q --progress none --offset 12345 -i "$D/data" "${M[@]}"
	rm "$D/m2.img"
	map_start -q --read-only "$D"/m{0,1,3,4}.img
	cmp "$MNT/array" <(stripe-read -q "$D"/m{0,1,3,4}.img)
	cmp "$D/data" <(tail -c +12346 "$MNT/array" | head -c 5000000)
}

# same_reads FILE REF: reads of FILE at odd offsets and sizes, and whole
# O_DIRECT megabytes, give what REF holds there.
same_reads() {
	cmp "$2" <(dd if="$1" bs=1M iflag=direct status=none)
	python3 - "$1" "$2" <<'PY'
import os, random, sys
f, ref = (open(p, "rb", buffering=0) for p in sys.argv[1:])
size = os.fstat(ref.fileno()).st_size
rnd = random.Random(7)
for _ in range(300):
    off = rnd.randrange(size)
    n = rnd.choice([1, 511, 512, 4096, 65536 + 17, 300000, 1 << 20])
    a, b = os.pread(f.fileno(), n, off), os.pread(ref.fileno(), n, off)
    assert a == b, "differs at %d (+%d)" % (off, n)
PY
}

@test "reads at any offset and size, and O_DIRECT reads, give the array's bytes at every level" {
	local spec i=0
	# make check takes every other level, the parity and far-copy ones first
	for spec in "-l 6 -c 128K" "-l 0 -c 64K" "-l 10 -p f2 -c 32K" "-l 1"; do
		in_sample $((i++)) 2 || continue
		read -ra opts <<<"$spec"
		rm -f "$D"/m*.img
		make_array -f "${opts[@]}"
		head -c "$(stripe-examine --json "${M[@]}" | jq -r .array.size_bytes)" /dev/urandom > "$D/data"
		stripe-write -q --progress none -i "$D/data" "${M[@]}"
		map_start -q --read-only "${M[@]}"
		same_reads "$MNT/array" "$D/data" || fail "$spec"
		map_stop
		[ "$MAP_RC" -eq 0 ]
	done
	swept
}

@test "writes at any offset and size land where stripe-read finds them, parity kept, at every level" {
	local spec i=0
	# make check takes every other level: RAID6, RAID10 and RAID5
	for spec in "-l 6 -c 128K" "-l 0 -c 64K" "-l 10 -p n2 -c 32K" "-l 1" "-l 5 -c 64K"; do
		in_sample $((i++)) 2 || continue
		read -ra opts <<<"$spec"
		rm -f "$D"/m*.img
		make_array -f "${opts[@]}"
		stripe-read -q -o "$D/want" "${M[@]}"
		map_start -q "${M[@]}"
		python3 - "$MNT/array" "$D/want" <<'PY'
import os, random, sys
f = os.open(sys.argv[1], os.O_WRONLY)
w = os.open(sys.argv[2], os.O_WRONLY)
size = os.fstat(w).st_size
rnd = random.Random(11)
for _ in range(200):
    n = rnd.choice([1, 512, 4096, 65536 + 17, 300000, 1 << 20])
    off = rnd.randrange(size - n)
    b = rnd.randbytes(n)
    assert os.pwrite(f, b, off) == n
    os.pwrite(w, b, off)
os.close(f)
PY
		map_stop
		[ "$MAP_RC" -eq 0 ] || fail "$spec: stripe-map exited $MAP_RC"
		cmp "$D/want" <(stripe-read -q "${M[@]}") || fail "$spec: the array differs"
		[[ $spec == "-l 0 "* ]] && continue     # nothing to check on raid0
		run stripe-check -q --progress none "${M[@]}"
		assert_success
	done
	swept
}

@test "queued writes that meet, overlap and arrive out of order keep the later bytes" {
	# rows of 192 KiB: most writes start or end inside one, and the writer
	# joins them with their neighbours, in whatever order they were queued,
	# but never ahead of an earlier write they overlap
	stripe-create -q -l 5 -c 64K --image-size 24M "$D"/m{0,1,2,3}.img
	M=("$D"/m{0,1,2,3}.img)
	stripe-read -q -o "$D/want" "${M[@]}"
	map_start -q "${M[@]}"
	python3 - "$MNT/array" "$D/want" <<'PY'
import mmap, os, random, sys, threading
rnd = random.Random(7)
want = os.open(sys.argv[2], os.O_WRONLY)
region = 8 << 20
def writer(base, seed):
    r = random.Random(seed)
    f = os.open(sys.argv[1], os.O_WRONLY | os.O_DIRECT)
    buf = mmap.mmap(-1, 1 << 20)
    for _ in range(300):
        n = r.choice([64, 128, 256, 512, 1024]) << 10
        off = base + r.randrange(0, region - n, 64 << 10)
        data = r.randbytes(n)
        buf[:n] = data
        assert os.pwritev(f, [memoryview(buf)[:n]], off) == n
        os.pwrite(want, data, off)
    os.close(f)
# two writers on separate regions, so that requests are taken in side by side
t = [threading.Thread(target=writer, args=(i * region, i + 1)) for i in range(2)]
for x in t: x.start()
for x in t: x.join()
PY
	map_stop
	[ "$MAP_RC" -eq 0 ] || fail "stripe-map exited $MAP_RC"
	cmp "$D/want" <(stripe-read -q "${M[@]}")
	run stripe-check -q --progress none "${M[@]}"
	assert_success
}

@test "a member that fails a read: the reader gets the bytes rebuilt from the others, the member is named, the unmap exits 0" {
	make_array -l 5 -c 64K
	head -c "$(stripe-examine --json "${M[@]}" | jq -r .array.size_bytes)" /dev/urandom > "$D/data"
	stripe-write -q --progress none -i "$D/data" "${M[@]}"
	local doff
	doff=$(stripe-examine --json "${M[@]}" | jq -r '.members[] | select(.path | endswith("m0.img")) | .data_offset_sectors')
	STRIPE_FAULT_READ="m0.img:$((doff * 512)):262144" map_start -q --read-only "${M[@]}"
	cmp "$D/data" <(dd if="$MNT/array" bs=1M iflag=direct status=none)
	map_stop
	[ "$MAP_RC" -eq 0 ] || fail "stripe-map exited $MAP_RC"
	grep -q "m0.img: read error at bytes $((doff * 512))-.*; rebuilt from the other members" "$D/map.err" ||
		fail "$(cat "$D/map.err")"
}

@test "a page two raid5 members fail to read gives the reader EIO, named, and the unmap exits 1" {
	make_array -l 5 -c 64K
	local d0 d1
	d0=$(stripe-examine --json "${M[@]}" | jq -r '.members[] | select(.path | endswith("m0.img")) | .data_offset_sectors')
	d1=$(stripe-examine --json "${M[@]}" | jq -r '.members[] | select(.path | endswith("m1.img")) | .data_offset_sectors')
	STRIPE_FAULT_READ="m0.img:$((d0 * 512)):4096,m1.img:$((d1 * 512)):4096" map_start -q --read-only "${M[@]}"
	run dd if="$MNT/array" of=/dev/null bs=1M iflag=direct status=none
	assert_failure
	assert_output --partial "Input/output error"
	map_stop
	[ "$MAP_RC" -eq 1 ] || fail "stripe-map exited $MAP_RC"
	grep -q "too little redundancy left" "$D/map.err" || fail "$(cat "$D/map.err")"
}

@test "a write a degraded raid5 has too little redundancy left to serve fails at fsync, named, and the unmap exits 1" {
	make_array -l 5 -c 64K
	local doff
	doff=$(stripe-examine --json "${M[@]}" | jq -r '.members[] | select(.path | endswith("m0.img")) | .data_offset_sectors')
	# 8 KiB at the start of row 16 keep the rest of its first chunk, role
	# 4's, not given; m0 fails page 5 of the row
	head -c 8192 /dev/urandom > "$D/data"
	STRIPE_FAULT_READ="m0.img:$((doff * 512 + 16 * 65536 + 5 * 4096)):4096" map_start -q --run "${M[@]:0:4}"
	run dd if="$D/data" of="$MNT/array" bs=8192 seek=512 conv=notrunc,fsync status=none
	assert_failure
	map_stop
	[ "$MAP_RC" -eq 1 ] || fail "stripe-map exited $MAP_RC: $(cat "$D/map.err")"
	grep -q "writing 8192 bytes at offset 4194304: array bytes 4194304-4456447 (262144 bytes): too little redundancy left" "$D/map.err" ||
		fail "$(cat "$D/map.err")"
}

@test "a write to a raid6 with two members missing is kept in parity for them" {
	make_array -l 6 -c 64K
	rm "$D/m1.img" "$D/m3.img"
	head -c 3000000 /dev/urandom > "$D/data"
	map_start -q --run "$D"/m{0,2,4}.img
	dd if="$D/data" of="$MNT/array" bs=1M seek=1 conv=notrunc status=none
	cmp "$D/data" <(tail -c +$((1048576 + 1)) "$MNT/array" | head -c 3000000)
	map_stop
	[ "$MAP_RC" -eq 0 ]
	cmp "$D/data" <(stripe-read -q --offset 1M --length 3000000 "$D"/m{0,2,4}.img)
	run stripe-check -q --progress none "$D"/m{0,2,4}.img
	assert_output --partial " 0 inconsistent"
}

@test "SIGTERM unmaps and marks the array clean" {
	make_array -l 5 -c 64K
	map_start "${M[@]}"
	head -c 1000000 /dev/urandom > "$D/data"
	dd if="$D/data" of="$MNT/array" conv=notrunc status=none
	kill -TERM "$MAP_PID"
	MAP_RC=0
	wait "$MAP_PID" || MAP_RC=$?
	MAP_PID=
	[ "$MAP_RC" -eq 0 ] || fail "stripe-map exited $MAP_RC: $(cat "$D/map.err")"
	! mountpoint -q "$MNT"
	[ "$(resync "${M[@]}")" = false ]
	cmp "$D/data" <(stripe-read --length 1000000 "${M[@]}")
}

@test "SIGTERM while a loop device holds the file unmounts, and serves it until it is let go" {
	make_array -l 5 -c 64K
	map_start "${M[@]}"
	mkfs.ext4 -q -F "$MNT/array"
	mount -o loop "$MNT/array" "$FS"
	kill -TERM "$MAP_PID"
	local i
	for ((i = 0; i < 100; i++)); do
		grep -q "still open" "$D/map.err" && break
		sleep 0.1
	done
	grep -q "still open" "$D/map.err" || fail "no word of the open file: $(cat "$D/map.err")"
	! mountpoint -q "$MNT"
	kill -0 "$MAP_PID" || fail "stripe-map ended with the file still in use"
	echo still > "$FS/after-signal"
	sync
	umount "$FS"
	MAP_RC=0
	wait "$MAP_PID" || MAP_RC=$?
	MAP_PID=
	[ "$MAP_RC" -eq 0 ]
	[ "$(resync "${M[@]}")" = false ]
	stripe-read "${M[@]}" > "$D/fs.img"
	e2fsck -fn "$D/fs.img"
	[ "$(debugfs -R 'cat /after-signal' "$D/fs.img" 2>/dev/null)" = still ]
}

@test "without -f stripe-map returns once the file is there and lets go of the members after the unmap" {
	make_array -l 10 -c 64K
	stripe-map "${M[@]}" "$MNT"
	[ -e "$MNT/array" ]
	[ "$(stat -c %s "$MNT/array")" = "$(stripe-examine --json "${M[@]}" | jq -r .array.size_bytes)" ]
	fusermount3 -u "$MNT"
	# stripe-map holds an flock on image members until it has marked them clean
	flock -w 10 "${M[0]}" true
	[ "$(resync "${M[@]}")" = false ]
}

@test "a mountpoint that does not exist is refused with status 2" {
	make_array -l 5 -c 64K
	run --separate-stderr stripe-map "${M[@]}" "$D/nowhere"
	assert_failure 2
	[[ $stderr == *"$D/nowhere: mountpoint: No such file or directory"* ]] || fail "$stderr"
	[ "$(resync "${M[@]}")" = false ]
}

@test "members another stripe-map holds are refused with status 2" {
	make_array -l 5 -c 64K
	map_start "${M[@]}"
	mkdir "$D/mnt2"
	run --separate-stderr stripe-map "${M[@]}" "$D/mnt2"
	assert_failure 2
	[[ $stderr == *"m0.img"*"in use"* ]] || fail "$stderr"
	! mountpoint -q "$D/mnt2"
}
