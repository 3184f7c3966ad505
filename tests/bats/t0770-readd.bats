#!/usr/bin/env bats
# stripe-rebuild --readd as md's bitmap-based recovery: a member that comes
# back gets only the chunks the survivors' write-intent bitmap marked while
# it was away; one older than the bitmap's events_cleared, or an array
# without a bitmap, gets the whole (tests/md/t9610 has md's word on it).

bats_require_minimum_version 1.5.0
load helpers

MiB=1048576

setup() {
	case_sample 2 2
}

# bitmap_set SIZE: M[] a four-member raid5 of SIZE members, 512K chunks,
# a bitmap bit for each 1 MiB of a member; all zeroes, parity too.
bitmap_set() {
	local i
	for i in 0 1 2 3; do
		M[i]=$BATS_TEST_TMPDIR/m$i.img
		truncate -s "$1" "${M[i]}"
	done
	stripe-create -q --level 5 --raid-devices 4 --chunk 512K --bitmap internal --bitmap-chunk 1M \
		--assume-clean "${M[@]}" 2> /dev/null
}

# away_write [OFFSET]: 1 MiB written at array byte OFFSET (20M) while
# member 3 is away.
away_write() {
	head -c $MiB /dev/urandom | stripe-write -q --run --offset "${1:-20M}" "${M[@]:0:3}"
}

# survivors_sha: the array's sha256 as the survivors read it.
survivors_sha() {
	stripe-read -q "${M[@]:0:3}" | sha256sum
}

# span: bytes of a member's data area, what a whole rebuild writes.
span() {
	echo $(($(stripe-examine --json "${M[0]}" | jq .members[0].bitmap.sync_size_sectors) * 512))
}

@test "after a 1 MiB write with a member away, --readd rebuilds at most the dirty chunks plus one, and says what it skipped" {
	local out rebuilt skipped
	bitmap_set 256M
	away_write 100M
	out=$(stripe-rebuild --json --progress none --readd "${M[3]}" "${M[@]}")
	jq -e '.targets[0].recovery == "bitmap" and .targets[0].in_place' <<<"$out"
	rebuilt=$(jq .summary.rebuilt_bytes <<<"$out")
	skipped=$(jq .summary.skipped_bytes <<<"$out")
	# one bit is set: the write's rows lie under one chunk of 1 MiB
	[ "$rebuilt" -gt 0 ] && [ "$rebuilt" -le $((2 * MiB)) ] || fail "rebuilt $rebuilt bytes"
	[ $((rebuilt + skipped)) = "$(span)" ]
}

@test "the bytes --readd writes to the member are the dirty chunk and its metadata, by strace" {
	local written
	# LeakSanitizer cannot run under ptrace; the bytes are the plain run's
	plain_suite_only
	command -v strace > /dev/null || skip "no strace"
	bitmap_set 256M
	away_write 100M
	strace -f -y -e trace=pwrite64,pwritev,write -o "$BATS_TEST_TMPDIR/trace" \
		stripe-rebuild -q --progress none --readd "${M[3]}" "${M[@]}"
	written=$(grep -F "<${M[3]}>" "$BATS_TEST_TMPDIR/trace" | sed -n 's/.*= \([0-9]*\)$/\1/p' |
		awk '{ n += $1 } END { print n + 0 }')
	# 1 MiB of data; superblock and bitmap writes are a few KiB
	[ "$written" -ge $MiB ] && [ "$written" -le $((MiB + 64 * 1024)) ] || fail "wrote $written bytes"
}

@test "while --readd runs the member records RECOVERY_OFFSET and RECOVERY_BITMAP, as md's re-add, and neither at the end" {
	local features
	plain_suite_only
	command -v strace > /dev/null || skip "no strace"
	bitmap_set 16M
	away_write
	strace -y -s 12 -e trace=pwrite64 -o "$BATS_TEST_TMPDIR/trace" \
		stripe-rebuild -q --progress none --readd "${M[3]}" "${M[@]}"
	# the superblock writes (1.2: at byte 4096), magic and major version
	# then the feature map as strace shows their first 12 bytes: the
	# bitmap (1), recovering (2) from the bitmap (0x80, octal 203 in all)
	features=$(grep -F "<${M[3]}>" "$BATS_TEST_TMPDIR/trace" | grep ', 4096, 4096) = 4096$' |
		sed 's/^[^"]*"\\374N+\\251\\1\\0\\0\\0\\\([0-9]*\)\\0\\0\\0"\.\.\..*/\1/' | paste -sd' ')
	[[ $features =~ ^(203 )+1$ ]] || fail "feature maps written: $features"
}

@test "after --readd the array reads as written, from the re-added member too, and checks clean" {
	local want
	bitmap_set 16M
	away_write
	want=$(survivors_sha)
	stripe-rebuild -q --progress none --readd "${M[3]}" "${M[@]}"
	[ "$(stripe-read -q "${M[@]}" | sha256sum)" = "$want" ]
	# member 0 away: its chunks come from member 3's
	[ "$(stripe-read -q "${M[@]:1}" | sha256sum)" = "$want" ]
	run stripe-check -q --progress none "${M[@]}"
	assert_success
}

@test "after --readd every member is active with the same events, no bit set and no recovery recorded" {
	local m
	bitmap_set 16M
	away_write
	stripe-rebuild -q --progress none --readd "${M[3]}" "${M[@]}"
	[ "$(stripe-examine --json "${M[@]}" | jq -r '[.members[].state] | unique | join(",")')" = active ]
	[ "$(stripe-examine --json "${M[@]}" | jq -r '[.members[].events] | unique | length')" = 1 ]
	for m in "${M[@]}"; do
		[ "$(stripe-examine --json "$m" | jq .members[0].bitmap.dirty_bits)" = 0 ]
		run -0 mdadm --examine "$m"
		refute_output --partial "Recovery Offset"
	done
}

@test "a re-add from the bitmap clears the bits and leaves events_cleared where the writes left it, as md's does" {
	local cleared
	bitmap_set 16M
	away_write
	cleared=$(stripe-examine --json "${M[0]}" | jq .members[0].bitmap.events_cleared)
	stripe-rebuild -q --progress none --readd "${M[3]}" "${M[@]}"
	stripe-examine --json "${M[@]}" |
		jq -e "[.members[].bitmap | .events_cleared == $cleared and .dirty_bits == 0] | all"
}

@test "--dry-run says it would rebuild from the bitmap, and how many bytes, and changes nothing" {
	local before out
	bitmap_set 16M
	away_write
	before=$(cat "${M[@]}" | sha256sum)
	run -0 stripe-rebuild --dry-run --readd "${M[3]}" "${M[@]}"
	assert_output --partial "would rebuild role 3 onto ${M[3]} (in place, from the write-intent bitmap: $MiB of $(span) bytes; 1 of"
	out=$(stripe-rebuild --dry-run --json --readd "${M[3]}" "${M[@]}" 2> /dev/null)
	jq -e ".verdict == \"planned\" and .targets[0].recovery == \"bitmap\" and .targets[0].rebuild_bytes == $MiB" <<<"$out"
	[ "$(cat "${M[@]}" | sha256sum)" = "$before" ]
}

@test "a member older than the bitmap's events_cleared is rebuilt whole, as md takes it for a spare" {
	local out want
	bitmap_set 16M
	cp "${M[3]}" "$BATS_TEST_TMPDIR/old.img"
	# a write to the whole array clears the bits and moves events_cleared
	# past the copy's events
	head -c $MiB /dev/urandom | stripe-write -q --offset 1M "${M[@]}"
	away_write
	want=$(survivors_sha)
	run -0 stripe-rebuild --dry-run --readd "$BATS_TEST_TMPDIR/old.img" "${M[@]:0:3}"
	assert_output --regexp "\(in place, whole: .*old.img: its events [0-9]+ are older than the bitmap's events_cleared [0-9]+\)"
	out=$(stripe-rebuild --json --progress none --readd "$BATS_TEST_TMPDIR/old.img" "${M[@]:0:3}")
	jq -e ".targets[0].recovery == \"whole\" and .summary.rebuilt_bytes == $(span) and .summary.skipped_bytes == 0" <<<"$out"
	[ "$(stripe-read -q "${M[@]:1:2}" "$BATS_TEST_TMPDIR/old.img" | sha256sum)" = "$want" ]
}

@test "a member of an array without a bitmap is re-added whole, and --dry-run says why" {
	fixtures_ready
	M=($(copy_set r5-4d-degraded))
	run -0 stripe-rebuild --dry-run --readd "${M[2]}" "${M[@]}"
	assert_output --partial "(in place, whole: the array keeps no write-intent bitmap)"
}

@test "a recovery recorded as one from the bitmap resumes from the bitmap, one recorded whole resumes whole" {
	local ev
	bitmap_set 16M
	away_write
	ev=$(events_of "${M[0]}")
	# member 3 as md leaves it when a re-add is cut short: the array's
	# events, recovering from sector 0, with or without RECOVERY_BITMAP
	"$TTOOLS/sb-patch" "${M[3]}" 200 8 "$ev"
	"$TTOOLS/sb-patch" "${M[3]}" 8 4 0x83
	stripe-rebuild --dry-run --json --readd "${M[3]}" "${M[@]}" 2> /dev/null |
		jq -e '.targets[0].recovery == "bitmap"'
	"$TTOOLS/sb-patch" "${M[3]}" 8 4 0x03
	stripe-rebuild --dry-run --json --readd "${M[3]}" "${M[@]}" 2> /dev/null |
		jq -e '.targets[0].recovery == "whole" and (.targets[0].whole_because | test("recorded recovery is a whole one"))'
}

@test "raid1, raid6 and raid10 near, far and offset members re-added from the bitmap leave the array whole" {
	local spec level opts out i
	for spec in 1 6 10:n2 10:f2 10:o2; do
		level=${spec%:*} opts=()
		[ "$level" = 1 ] || opts+=(--chunk 64K)
		[ "$spec" = "$level" ] || opts+=(--layout "${spec#*:}")
		rm -f "$BATS_TEST_TMPDIR"/m*.img
		for i in 0 1 2 3; do
			M[i]=$BATS_TEST_TMPDIR/m$i.img
			truncate -s 8M "${M[i]}"
		done
		stripe-create -q --level "$level" "${opts[@]}" --raid-devices 4 --bitmap internal --bitmap-chunk 1M \
			--assume-clean "${M[@]}" 2> /dev/null
		head -c $MiB /dev/urandom | stripe-write -q --run --offset 1M "${M[@]:0:3}"
		out=$(stripe-rebuild --json --progress none --readd "${M[3]}" "${M[@]}")
		jq -e '.targets[0].recovery == "bitmap" and .summary.skipped_bytes > 0' <<<"$out" ||
			fail "$spec: $out"
		stripe-check -q --progress none "${M[@]}" > /dev/null || fail "$spec: stripe-check $?"
		# member 3's copies read back
		[ "$(stripe-read -q "${M[@]}" | sha256sum)" = "$(stripe-read -q "${M[@]:1}" | sha256sum)" ] ||
			fail "$spec: member 3 differs"
	done
}

@test "a raid6 re-add of one of two members away keeps the bits for the other, whose re-add then leaves the array whole" {
	local i out
	for i in 0 1 2 3; do
		M[i]=$BATS_TEST_TMPDIR/m$i.img
		truncate -s 8M "${M[i]}"
	done
	stripe-create -q --level 6 --chunk 64K --raid-devices 4 --bitmap internal --bitmap-chunk 1M \
		--assume-clean "${M[@]}" 2> /dev/null
	head -c $MiB /dev/urandom | stripe-write -q --run --offset 2M "${M[@]:0:2}"
	stripe-rebuild -q --progress none --run --readd "${M[3]}" "${M[0]}" "${M[1]}" "${M[3]}"
	# still degraded: md clears no bit
	[ "$(stripe-examine --json "${M[0]}" | jq .members[0].bitmap.dirty_bits)" = 1 ]
	out=$(stripe-rebuild --json --progress none --readd "${M[2]}" "${M[@]}")
	jq -e ".targets[0].recovery == \"bitmap\" and .summary.rebuilt_bytes == $MiB" <<<"$out"
	[ "$(stripe-examine --json "${M[0]}" | jq .members[0].bitmap.dirty_bits)" = 0 ]
	run -0 stripe-check -q --progress none "${M[@]}"
}
