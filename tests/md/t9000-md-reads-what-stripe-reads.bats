#!/usr/bin/env bats
# The real md driver and stripe-read agree on the bytes of arrays that md
# assembles only degraded: the same members, two readers, one sha256.

bats_require_minimum_version 1.5.0
load helpers

setup_file() {
	fixtures_ready
}

setup() {
	md_ready
}

@test "md and stripe read the same bytes from the degraded set without its stale member" {
	md_assemble "$FIX"/r5-4d-degraded/member{0,1,3}.img
	[ "$(ac result)" = assembled ] || fail "md did not assemble: $output"
	[ "$(ac degraded)" = 1 ]
	[ "$(ac array_sha256)" = "$(stripe-read -q "$FIX"/r5-4d-degraded/member{0,1,3}.img | sha)" ]
}

@test "md and stripe read the same bytes from a raid6 with two members missing" {
	local set=r6-5d-64k-la-1.2
	md_assemble "$FIX"/$set/member{0,2,4}.img
	[ "$(ac result)" = assembled ] || fail "md did not assemble: $output"
	[ "$(ac array_sha256)" = "$(stripe-read -q "$FIX"/$set/member{0,2,4}.img | sha)" ]
}

@test "md and stripe read the same bytes from a multi-zone raid0" {
	local set=r0-3d-64k-zones-alt-1.2
	[ -d "$FIX/$set" ] || skip "no $set fixture"
	md_assemble $(members $set)
	[ "$(ac result)" = assembled ] || fail "md did not assemble: $output"
	[ "$(ac array_sha256)" = "$(stripe-read $(members $set) | sha)" ]
}
