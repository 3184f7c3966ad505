#!/usr/bin/env bats
# stripe-examine --export's STRIPE_MKFS_OPTS: the mke2fs stride and stripe
# width that md makes mke2fs pick by itself (from the minimum_io_size and
# optimal_io_size md's queue advertises).  The expected values are what
# mkfs.ext4 recorded on md arrays of these geometries in the mdvm VM
# (kernel 6.1, e2fsprogs 1.47): see the commit that added this file.

bats_require_minimum_version 1.5.0
load helpers

setup_file() {
	fixtures_ready
}

# mkfs_opts SET: STRIPE_MKFS_OPTS of a fixture set.
mkfs_opts() {
	local STRIPE_MKFS_OPTS
	eval "$(stripe-examine --export $(members "$1"))"
	printf '%s\n' "$STRIPE_MKFS_OPTS"
}

@test "a 4-disk raid5 with 64K chunks gets stride 16 and stripe width 48, as md gives mke2fs" {
	[ "$(mkfs_opts r5-4d-64k-ls-1.2)" = "-b 4096 -E stride=16,stripe_width=48" ]
}

@test "stride is the chunk and stripe width the chunk times the data members at every parity level" {
	[ "$(mkfs_opts r6-5d-64k-ls-1.2)" = "-b 4096 -E stride=16,stripe_width=48" ]
	[ "$(mkfs_opts r4-4d-64k-1.2)" = "-b 4096 -E stride=16,stripe_width=48" ]
	[ "$(mkfs_opts r5-3d-512k-ls-0.90)" = "-b 4096 -E stride=128,stripe_width=256" ]
}

@test "raid0 counts every member, raid10 the members over the near copies when they divide them" {
	[ "$(mkfs_opts r0-3d-64k-1.2)" = "-b 4096 -E stride=16,stripe_width=48" ]
	[ "$(mkfs_opts r10-4d-n2-1.2)" = "-b 4096 -E stride=16,stripe_width=32" ]
	[ "$(mkfs_opts r10-4d-f2-1.2)" = "-b 4096 -E stride=16,stripe_width=64" ]
	[ "$(mkfs_opts r10-4d-o2-1.2)" = "-b 4096 -E stride=16,stripe_width=64" ]
	[ "$(mkfs_opts r10-3d-n2-1.2)" = "-b 4096 -E stride=16,stripe_width=48" ]
}

@test "raid1 gets no mke2fs options, as md advertises no stripe" {
	run stripe-examine --export $(members r1-2d-1.2)
	assert_success
	assert_line "STRIPE_MKFS_OPTS=''"
}

@test "4K chunks give a stripe width alone: mke2fs ignores a stride of one block" {
	stripe-create -q -l 5 -c 4K --image-size 4M "$BATS_TEST_TMPDIR"/m{0,1,2,3}.img
	local STRIPE_MKFS_OPTS
	eval "$(stripe-examine --export "$BATS_TEST_TMPDIR"/m{0,1,2,3}.img)"
	[ "$STRIPE_MKFS_OPTS" = "-b 4096 -E stripe_width=3" ]
}

@test "mke2fs given STRIPE_MKFS_OPTS records that stride and stripe width" {
	local STRIPE_MKFS_OPTS
	eval "$(stripe-examine --export $(members r5-4d-64k-ls-1.2))"
	truncate -s 64M "$BATS_TEST_TMPDIR/fs.img"
	# shellcheck disable=SC2086 # options, split on purpose
	mkfs.ext4 -q -F $STRIPE_MKFS_OPTS "$BATS_TEST_TMPDIR/fs.img"
	run dumpe2fs -h "$BATS_TEST_TMPDIR/fs.img"
	assert_line --regexp '^RAID stride: +16$'
	assert_line --regexp '^RAID stripe width: +48$'
	assert_line --regexp '^Block size: +4096$'
}
