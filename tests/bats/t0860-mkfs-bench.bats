#!/usr/bin/env bats
# stripe-mkfs-bench: the whole pipeline (create, map, mkfs, mount, bench,
# unmount, check) on four image files, for RAID0, 5 and 6; afterwards the
# array is consistent and its ext4 clean.  Needs root (FUSE, loop mounts).
# suite: plain

bats_require_minimum_version 1.5.0
load helpers

setup() {
	plain_suite_only
	[ "$(id -u)" -eq 0 ] || skip "needs root for the FUSE map and the loop mount"
	command -v fusermount3 >/dev/null || skip "fusermount3 is not installed (fuse3)"
	[ -e /dev/fuse ] || skip "no /dev/fuse"
	D=$BATS_TEST_TMPDIR
}

@test "an installed stripe-mkfs-bench finds the report functions installed for it" {
	local d=$BATS_TEST_TMPDIR/root
	make -s -C "$TOP" -o all install DESTDIR="$d" PREFIX=/usr > /dev/null
	run --separate-stderr env -u STRIPE_BIN PATH="$d/usr/bin:/usr/bin:/bin" "$d/usr/bin/stripe-mkfs-bench" "$D/d0.img"
	assert_failure 2
	[ "$stderr" = "stripe-mkfs-bench: no level given (-l)
Try 'stripe-mkfs-bench --help'." ] || fail "stderr: $stderr"
}

# pipeline LEVEL: runs it on four 32 MiB image files and checks the outcome.
pipeline() {
	run stripe-mkfs-bench -l "$1" -c 64K --image-size 32M --bench-size 4M --char-size 64K \
		--json="$D/report.json" "$D"/d{0,1,2,3}.img
	assert_success
	assert_output --partial "mkfs.ext4 -b 4096 -E stride=16,stripe_width=$2"
	assert_output --regexp "raid$1-4d-64K +4 "
	assert_line "e2fsck -fn: clean"
	assert_line "verdict: consistent"
	# the same facts, from outside the pipeline
	[ "$1" = 0 ] || stripe-check -q --progress none "$D"/d*.img
	stripe-read -q "$D"/d*.img > "$D/array.img"
	e2fsck -fn "$D/array.img"
	[ "$(jq -r .verdict "$D/report.json")" = consistent ]
	# the benchmark as numbers, with the format that says so
	jq -e '.format == 2 and .bench.parameters.size_bytes == 4194304 and .bench.results.block_write.rate_bytes_per_s > 0' \
		"$D/report.json" > /dev/null || fail "$(cat "$D/report.json")"
	[ "$(stripe-examine --json "$D"/d*.img | jq -r .array.needs_resync)" = false ]
}

@test "stripe-mkfs-bench on raid0 runs to its report, the array consistent and its ext4 clean" {
	pipeline 0 64
}

@test "stripe-mkfs-bench on raid5 runs to its report, the array consistent and its ext4 clean" {
	pipeline 5 48
}

@test "stripe-mkfs-bench on raid6 runs to its report, the array consistent and its ext4 clean" {
	pipeline 6 32
}

@test "stripe-mkfs-bench without a level is a usage error" {
	run stripe-mkfs-bench "$D"/d0.img
	assert_failure 2
	assert_output --partial "no level given"
}
