#!/usr/bin/env bats
# md takes back a member stripe-rebuild --readd recovered from the bitmap:
# after a write with member 3 away, stripe copies only the chunks whose bits
# are set, and md assembles the four with no resync, reads what stripe
# reads and finds no mismatch; garbage under a clear bit stays, as md's own
# re-add leaves it; md's own re-add of the same situation leaves the
# bitmap as stripe leaves it.
#
# All in one VM boot (batch.bash); the log is in
# build/test-logs-md/t9610-md-takes-back-what-stripe-readds/.

bats_require_minimum_version 1.5.0
load batch

SET=r5-4d-bitmap-1.2

# away NAME: a copy of the fixture whose bitmap counts 1 MiB a bit (seven
# bits over its 7 MiB members), 1 MiB written at 64K with member 3 away:
# bit 0 set.  The member paths in M.
away() {
	bitmap_copy "$1" 1048576
	stripe-write -q --run -i "$ARRAYS/input" --offset 64K "${M[@]:0:3}"
}

# readd NAME: stripe-rebuild --readd of member 3, its --json kept, and
# stripe-examine --json of member 0 before and of member 3 after.
readd() {
	stripe-examine --json "${M[0]}" > "$ARRAYS/$1/before.json" 2> /dev/null || true
	stripe-rebuild --json --progress none --readd "${M[3]}" "${M[@]}" > "$ARRAYS/$1/readd.json" 2>&1 || true
	stripe-examine --json "${M[3]}" > "$ARRAYS/$1/examine.json" 2> /dev/null || true
	mdadm --examine "${M[3]}" > "$ARRAYS/$1/examine-back.txt" 2>&1 || true
}

# sb_fields FILE: mdadm --examine's lines but the device's path, those
# that count time and events (md's assembly and stop move them), the
# checksum, and the name (mdadm adds whether the host running it is the
# array's).
sb_fields() {
	grep -vE '^(/| *(Name|Update Time|Events|Checksum) :)' "$1"
}

setup_file() {
	fixtures_ready
	md_there || return 0
	rm -rf "$ARRAYS"
	mkdir -p "$ARRAYS"
	head -c 1M /dev/urandom > "$ARRAYS/input"

	away readd
	readd readd
	as_is_array readd "${M[@]}"

	# garbage on member 3 under bit 5, which the write left clear
	away readd-probe
	head -c 4096 /dev/urandom | dd of="${M[3]}" bs=512 seek=$((2048 + 10240)) conv=notrunc status=none
	readd readd-probe
	as_is_array readd-probe "${M[@]}"

	# the same situation given to md's own re-add
	away md-readd
	stripe-examine --json "${M[0]}" > "$ARRAYS/md-readd/before.json" 2> /dev/null || true
	as_is_array md-readd "${M[@]:0:3}"
	printf '%s\n' "${M[@]}" > "$ARRAYS/md-readd/members"

	batch_start
	batch_readd md-readd
	batch_add readd readd-probe md-readd
	batch_end
}

setup() {
	md_ready
}

@test "stripe re-adds the member from the bitmap: one 1 MiB chunk of its 7 MiB" {
	jq -e '.targets[0].recovery == "bitmap" and .summary.rebuilt_bytes == 1048576 and .summary.skipped_bytes == 6291456' \
		"$ARRAYS/readd/readd.json" || fail "$(cat "$ARRAYS/readd/readd.json")"
}

@test "md assembles the set stripe re-added with no resync, reads what stripe reads and finds no mismatch" {
	md_got readd
	[ "${V[norun]}" = 1 ] || fail "md did not start it without --run"
	[ "${V[degraded]}" = 0 ] || fail "md runs it degraded"
	[ "${V[bitmap_stale]}" = 0 ] || fail "md found the bitmap out of date"
	[ "${V[resync_start]}" = none ] || fail "md wants a resync from sector ${V[resync_start]}"
	[[ ${V[md_syncs]} != *resync* && ${V[md_syncs]} != *recovery* ]] || fail "md ran ${V[md_syncs]}"
	[ "${V[mismatch_cnt]}" = 0 ] || fail "md's check found mismatch_cnt=${V[mismatch_cnt]}"
	aget readd stripe.sha256
	[ "${V[sha256]}" = "$REPLY" ] || fail "md reads ${V[sha256]}, stripe-read $REPLY"
}

@test "garbage under a clear bit is left by stripe's re-add, as md's own leaves it" {
	md_got readd-probe
	# md's check finds it, where a whole rebuild would have rewritten it
	[ "${V[mismatch_cnt]}" -gt 0 ] || fail "mismatch_cnt=${V[mismatch_cnt]}: the whole member was rebuilt"
}

@test "md's own re-add of the same situation clears the bits and keeps events_cleared, as stripe's does" {
	local cleared
	md_got md-readd
	[ "${V[readd]}" = 0 ] || fail "mdadm --re-add refused: $(why md-readd)"
	[ "${V[mismatch_cnt]}" = 0 ]
	[ "${V[bm_dirty]}" = 0 ] || fail "md left ${V[bm_dirty]} bits set"
	cleared=$(jq .members[0].bitmap.events_cleared "$ARRAYS/md-readd/before.json")
	[ "${V[bm_cleared]}" = "$cleared" ] || fail "md moved events_cleared from $cleared to ${V[bm_cleared]}"
	jq -e ".members[0].bitmap.dirty_bits == 0 and .members[0].bitmap.events_cleared == $cleared" \
		"$ARRAYS/readd/examine.json" || fail "stripe left $(jq -c .members[0].bitmap "$ARRAYS/readd/examine.json")"
	md_got readd
	[ "${V[bm_dirty]}" = 0 ] && [ "${V[bm_cleared]}" = "$cleared" ]
}

@test "md's own re-add leaves the member's superblock as stripe's re-add writes it, but for time and events" {
	local md
	md_got md-readd
	md=$(ls "$ARRAYS"/vm/out-*/md-readd/examine-back.txt 2> /dev/null | head -n 1)
	[ -n "$md" ] || fail "no mdadm --examine of md's re-added member (see $BATCH_LOGS)"
	diff <(sb_fields "$ARRAYS/readd/examine-back.txt") <(sb_fields "$md") ||
		fail "the superblocks differ (stripe's left, md's right)"
}
