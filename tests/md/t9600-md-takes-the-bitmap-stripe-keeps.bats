#!/usr/bin/env bats
# md takes the write-intent bitmap stripe kept as its own: after stripe
# writes, repairs or rebuilds, md starts with no resync; a member left out
# of a write comes back by md's re-add from the bitmap alone; after a
# write killed half way md resyncs only the chunks whose bits are set.
#
# All in one VM boot (batch.bash); the log is in
# build/test-logs-md/t9600-md-takes-the-bitmap-stripe-keeps/.

bats_require_minimum_version 1.5.0
load batch

SET=r5-4d-bitmap-1.2


# garbage MEMBER SECTOR: 4 KiB of garbage at data sector SECTOR of a member.
garbage() {
	head -c 4096 /dev/urandom | dd of="$1" bs=512 seek=$((2048 + $2)) conv=notrunc status=none
}

# killed NAME: stripe-write of 3 MiB at 2 MiB killed while it waits for
# more input, on a seven-bit copy: the superblocks say "needs resync" and
# bits 0 and 1 (member sectors 0 to 4095) are set.  Row 16's parity
# (member 3, data sector 2048, under bit 1) is then torn, as a write cut
# off between data and parity leaves it.
killed() {
	bitmap_copy "$1" 1048576
	killed_write "$ARRAYS/$1/fifo" 2M 3M "${M[@]}"
	stripe-examine "${M[0]}" > "$ARRAYS/$1/examine.txt" || true
	garbage "${M[3]}" 2048
}

setup_file() {
	fixtures_ready
	md_there || return 0
	rm -rf "$ARRAYS"
	mkdir -p "$ARRAYS"
	head -c 1M /dev/urandom > "$ARRAYS/input"

	bitmap_copy written
	stripe-write -q -i "$ARRAYS/input" --offset 64K "${M[@]}"
	as_is_array written "${M[@]}"

	bitmap_copy repaired
	garbage "${M[3]}" 0
	stripe-check -q --repair --progress none "${M[@]}" > /dev/null || true
	as_is_array repaired "${M[@]}"

	bitmap_copy rebuilt
	rm "${M[2]}"
	truncate -s 8M "${M[2]}"
	stripe-rebuild -q --progress none --replace 2="${M[2]}" "${M[0]}" "${M[1]}" "${M[3]}" \
		> "$ARRAYS/rebuilt/rebuild.out" 2>&1 || true
	as_is_array rebuilt "${M[@]}"

	# member 3 left out of a write, then given back to md
	bitmap_copy readd 1048576
	stripe-write -q --run -i "$ARRAYS/input" --offset 64K "${M[@]:0:3}"
	stripe-examine "${M[0]}" > "$ARRAYS/readd/examine.txt" || true
	as_is_array readd "${M[@]:0:3}"
	printf '%s\n' "${M[@]}" > "$ARRAYS/readd/members"
	# the same, with garbage on member 3 under bit 5, which the write
	# left clear: a recovery guided by the bitmap leaves it there
	bitmap_copy readd-probe 1048576
	stripe-write -q --run -i "$ARRAYS/input" --offset 64K "${M[@]:0:3}"
	garbage "${M[3]}" 10240
	as_is_array readd-probe "${M[@]}"

	killed killed
	as_is_array killed "${M[@]}"
	# the same, with parity also torn under bit 5, which is clear
	killed killed-probe
	garbage "${M[3]}" 10240
	as_is_array killed-probe "${M[@]}"

	batch_start
	batch_readd readd
	batch_readd readd-probe
	batch_add written repaired rebuilt readd readd-probe killed killed-probe
	batch_end
}

setup() {
	md_ready
}

# md_clean_start NAME: md found the bitmap current and nothing to resync,
# read what stripe-read reads, and its check found no mismatch.
md_clean_start() {
	md_got "$1"
	[ "${V[bitmap_stale]}" = 0 ] || fail "$1: md found the bitmap out of date"
	[ "${V[resync_start]}" = none ] || fail "$1: md wants a resync from sector ${V[resync_start]}"
	[[ ${V[md_syncs]} != *resync* ]] || fail "$1: md ran ${V[md_syncs]}"
	[ "${V[mismatch_cnt]}" = 0 ] || fail "$1: md's check found mismatch_cnt=${V[mismatch_cnt]}"
	aget "$1" stripe.sha256
	[ "${V[sha256]}" = "$REPLY" ] || fail "$1: md reads ${V[sha256]}, stripe-read $REPLY"
}

@test "md starts an array stripe wrote to with its bitmap current and no resync" {
	md_clean_start written
}

@test "md starts an array stripe repaired with its bitmap current and no resync" {
	md_clean_start repaired
}

@test "md starts an array stripe rebuilt a member of with its bitmap current and no resync" {
	md_clean_start rebuilt
}

@test "a member left out of a stripe write is re-added by md and recovered to the array stripe wrote" {
	grep -q "7 bits (chunks), 1 dirty" "$ARRAYS/readd/examine.txt"
	md_got readd
	[ "${V[readd]}" = 0 ] || fail "mdadm --re-add refused: $(why readd)"
	[ "${V[bitmap_stale]}" = 0 ]
	[ "${V[mismatch_cnt]}" = 0 ] || fail "md's check found mismatch_cnt=${V[mismatch_cnt]}"
	aget readd stripe.sha256
	[ "${V[sha256]}" = "$REPLY" ]
}

@test "md's re-add of a member left out copies only the chunks whose bits stripe set" {
	md_got readd-probe
	[ "${V[readd]}" = 0 ] || fail "mdadm --re-add refused: $(why readd-probe)"
	# the garbage under the clear bit was not copied over: md's check
	# finds it, where a full recovery would have rewritten it
	[ "${V[mismatch_cnt]}" -gt 0 ] || fail "mismatch_cnt=${V[mismatch_cnt]}: md recovered the whole member"
}

@test "after a stripe write killed half way md resyncs from its bitmap and ends consistent" {
	grep -q "7 bits (chunks), 2 dirty" "$ARRAYS/killed/examine.txt"
	md_got killed
	[ "${V[bitmap_stale]}" = 0 ] || fail "md found the bitmap out of date"
	[ "${V[resync_start]}" = 0 ] || fail "resync_start=${V[resync_start]}: not left needing a resync"
	[[ ${V[md_syncs]} == resync,* ]] || fail "md ran ${V[md_syncs]}, not a resync first"
	[ "${V[mismatch_cnt]}" = 0 ] || fail "md's check found mismatch_cnt=${V[mismatch_cnt]}"
	aget killed stripe.sha256
	[ "${V[sha256]}" = "$REPLY" ]
}

@test "after a stripe write killed half way md resyncs only the chunks whose bits are set" {
	md_got killed-probe
	[ "${V[bitmap_stale]}" = 0 ]
	# the torn parity under the clear bit was left for the check to find
	[ "${V[mismatch_cnt]}" -gt 0 ] || fail "mismatch_cnt=${V[mismatch_cnt]}: md resynced the whole array"
}
