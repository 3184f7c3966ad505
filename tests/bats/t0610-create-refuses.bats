#!/usr/bin/env bats
# stripe-create refuses what mdadm would (or should) refuse: exit 2, a clear
# message, and no member changed.

bats_require_minimum_version 1.5.0
load helpers

setup() {
	case_sample 2 2
	D=$BATS_TEST_TMPDIR
	truncate -s 8M "$D"/a.img "$D"/b.img "$D"/c.img "$D"/d.img
}

# refused PATTERN ARGS...: stripe-create exits 2 with PATTERN on stderr and
# every existing image unchanged.
refused() {
	local pattern=$1 before
	shift
	before=$(sha256sum "$D"/*.img)
	run --separate-stderr stripe-create "$@"
	[ "$status" -eq 2 ] || fail "exit $status, expected 2; stderr: $stderr"
	[[ $stderr =~ $pattern ]] || fail "stderr does not match /$pattern/: $stderr"
	[ "$before" = "$(sha256sum "$D"/*.img)" ] || fail "a member changed"
}

@test "a member carrying an ext4 filesystem is refused without --force" {
	mkfs.ext4 -q -F "$D/b.img"
	refused "b.img: .*ext4" -l 5 "$D"/a.img "$D"/b.img "$D"/c.img
}

@test "a member carrying an ext4 filesystem is taken with --force" {
	mkfs.ext4 -q -F "$D/b.img"
	run stripe-create -q -f -l 5 "$D"/a.img "$D"/b.img "$D"/c.img
	assert_success
	[ -z "$(blkid -p -o value -s TYPE "$D/b.img" | grep -v linux_raid_member)" ]
}

@test "a member of an md array is refused without --force" {
	stripe-create -q -l 1 "$D"/a.img "$D"/b.img
	refused "a.img: .*md" -l 1 "$D"/a.img "$D"/c.img
}

@test "a member that is too small is refused with the sizes" {
	truncate -s 1M "$D/small.img"
	refused "small.img: too small: 1048576 bytes" -l 5 "$D"/a.img "$D"/b.img "$D"/small.img
}

@test "members of sizes more than 1% apart are refused without --size or --force" {
	truncate -s 12M "$D/big.img"
	refused "big.img: .*members differ by more than 1%" -l 5 "$D"/a.img "$D"/b.img "$D"/big.img
}

@test "a raid5 of one device is refused" {
	refused "raid5 needs at least 2 devices, 1 given" -l 5 "$D"/a.img
}

@test "a raid6 of three devices is refused" {
	refused "raid6 needs at least 4 devices, 3 given" -l 6 "$D"/a.img "$D"/b.img "$D"/c.img
}

@test "a chunk that is not a power of two is refused" {
	refused "--chunk 100K: 102400 bytes is not a power of two" -l 5 -c 100K "$D"/a.img "$D"/b.img "$D"/c.img
}

@test "a missing --level is a usage error: one line and where the help is" {
	refused "^stripe-create: --level is required \\(0, 1, 4, 5, 6, 10\\)"$'\n'"Try 'stripe-create --help'.$" "$D"/a.img "$D"/b.img
}

@test "a --size below one chunk, which would leave an empty array, is refused" {
	refused "--size 100 KiB is less than a chunk \\(512 KiB\\): the array would hold nothing" \
		-l 5 -z 100 "$D"/a.img "$D"/b.img "$D"/c.img
}

@test "a --size of mdadm's KiB more than the members hold is refused, not taken as bytes" {
	refused "--size asks for 102400 KiB" -l 5 -c 64K -z 102400 "$D"/a.img "$D"/b.img "$D"/c.img
}

@test "a layout that the level does not have is refused" {
	refused "--layout: .*n2" -l 5 -p n2 "$D"/a.img "$D"/b.img "$D"/c.img
}

@test "an unknown level is refused" {
	refused "unknown level 'raid7'" -l raid7 "$D"/a.img "$D"/b.img "$D"/c.img
}

@test "a raid5 with two members missing is refused" {
	refused "raid5 of 4 devices cannot start with 2 missing" -l 5 "$D"/a.img missing missing "$D"/d.img
}

@test "a member that does not exist is refused when no --image-size is given" {
	refused "nope.img: No such file or directory" -l 5 "$D"/a.img "$D"/b.img "$D"/nope.img
}

@test "a failed create removes the images --image-size made and nothing else" {
	truncate -s 1M "$D/small.img"
	run stripe-create -l 5 --image-size 8M "$D"/new1.img "$D"/new2.img "$D"/small.img
	assert_failure 2
	[ ! -e "$D/new1.img" ] && [ ! -e "$D/new2.img" ] && [ -e "$D/small.img" ]
}

@test "a mounted loop device is refused even with --force" {
	[ "$(id -u)" -eq 0 ] || skip "needs root (loop device, mount)"
	local loop mnt=$BATS_TEST_TMPDIR/mnt
	mkfs.ext4 -q -F "$D/d.img"
	loop=$(losetup -f --show "$D/d.img") || skip "no loop device available"
	mkdir -p "$mnt"
	if ! mount "$loop" "$mnt"; then
		losetup -d "$loop"
		skip "cannot mount a loop device here"
	fi
	run --separate-stderr stripe-create -f -l 5 "$D"/a.img "$D"/b.img "$loop"
	umount "$mnt"
	losetup -d "$loop"
	assert_failure 2
	[[ $stderr == *"$loop"*"mounted"* ]] || fail "stderr: $stderr"
}

@test "--bitmap=internal is refused with raid0, in one line, as mdadm refuses it" {
	refused "^stripe-create: --bitmap=internal: .*not meaningful with raid0[^"$'\n'"]*$" -l 0 -b internal "$D"/a.img "$D"/b.img
}

@test "--bitmap-chunk without an internal bitmap is refused: members of 100 GiB or less get none unasked" {
	refused "--bitmap-chunk needs an internal bitmap, and members of 100 GiB or less get none unless --bitmap=internal" \
		-l 1 --bitmap-chunk 4 "$D"/a.img "$D"/b.img
}

@test "--bitmap-chunk with --bitmap=none is refused" {
	refused "--bitmap-chunk needs an internal bitmap, and --bitmap=none asks for none" \
		-l 1 -b none --bitmap-chunk 4 "$D"/a.img "$D"/b.img
}

@test "a --bitmap-chunk too small for the bitmap's room is refused with the least that fits" {
	truncate -s 200M "$D"/a.img "$D"/b.img
	# 4 KiB of room hold 30720 bits: 199 MiB need 8K chunks
	refused "--bitmap-chunk 4K is too small: 4 KiB of bitmap room needs at least 8K" \
		-l 1 -b internal --bitmap-chunk 4 "$D"/a.img "$D"/b.img
}

@test "a --bitmap-chunk that is not a power of two from 4K is refused" {
	refused "--bitmap-chunk 6K: 6144 bytes is not a power of two from 4K to 1G" -l 1 -b internal --bitmap-chunk 6K "$D"/a.img "$D"/b.img
	refused "--bitmap-chunk 2: 2048 bytes is not a power of two from 4K to 1G" -l 1 -b internal --bitmap-chunk 2 "$D"/a.img "$D"/b.img
}

@test "--bitmap takes internal or none, not a bitmap file" {
	refused "--bitmap: '/tmp/bm' is not internal or none" -l 1 -b /tmp/bm "$D"/a.img "$D"/b.img
}

@test "a --data-offset that leaves no room for the bitmap and the bad-block log after it is refused" {
	refused "data offset 24 sectors leaves no room for the bitmap and the bad-block log after it: data must start at sector 32" \
		-l 1 -b internal --data-offset 12K "$D"/a.img "$D"/b.img
}
