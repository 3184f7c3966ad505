#!/usr/bin/env bats
# After stripe-check --repair, md's own check finds nothing, and where the
# damage was in parity or named by the RAID6 syndrome md reads the clean array.

bats_require_minimum_version 1.5.0
load helpers

setup_file() {
	fixtures_ready
}

setup() {
	md_ready
}

@test "md finds no mismatch after stripe repairs the raid6 that md saw 24 sectors wrong in" {
	local m=$(copy_set r6-5d-badblocks-1.2)
	stripe-check -q --repair --progress none $m || true
	md_assemble $m
	[ "$(ac result)" = assembled ] || fail "md did not assemble: $output"
	[ "$(ac mismatch_cnt)" = 0 ]
	[ "$(ac array_sha256)" = "$(manifest r6-5d-badblocks-1.2 clean_array_sha256)" ]
}

@test "md finds no mismatch after stripe repairs the raid5 with bad parity" {
	local m=$(copy_set r5-4d-badparity)
	stripe-check -q --repair --progress none $m || true
	md_assemble $m
	[ "$(ac result)" = assembled ] || fail "md did not assemble: $output"
	[ "$(ac mismatch_cnt)" = 0 ]
	[ "$(ac array_sha256)" = "$(stripe-read $m | sha)" ]
}
