#!/usr/bin/env bats
# The real md driver and stripe-read agree on the bytes of arrays that md
# assembles only degraded: the same members, two readers, one sha256.
#
# md looks at the fixture sets in one VM boot (batch.bash); its log is in
# build/test-logs-md/t9000-md-reads-what-stripe-reads/.

bats_require_minimum_version 1.5.0
load batch

ZONES=r0-3d-64k-zones-alt-1.2

setup_file() {
	local m
	fixtures_ready
	md_there || return 0
	rm -rf "$ARRAYS"
	mkdir -p "$ARRAYS"
	batch_start
	as_is_array degraded "$FIX"/r5-4d-degraded/member{0,1,3}.img
	as_is_array r6-two-missing "$FIX"/r6-5d-64k-la-1.2/member{0,2,4}.img
	batch_add degraded r6-two-missing
	if [ -d "$FIX/$ZONES" ]; then
		mapfile -t m < <(members $ZONES)
		as_is_array zones "${m[@]}"
		batch_add zones
	fi
	batch_end
}

setup() {
	md_ready
}

@test "md and stripe read the same bytes from the degraded set without its stale member" {
	md_got degraded
	[ "${V[degraded]}" = 1 ]
	aget degraded stripe.sha256
	[ "${V[sha256]}" = "$REPLY" ]
}

@test "md and stripe read the same bytes from a raid6 with two members missing" {
	md_got r6-two-missing
	aget r6-two-missing stripe.sha256
	[ "${V[sha256]}" = "$REPLY" ]
}

@test "md and stripe read the same bytes from a multi-zone raid0" {
	[ -d "$FIX/$ZONES" ] || skip "no $ZONES fixture"
	md_got zones
	aget zones stripe.sha256
	[ "${V[sha256]}" = "$REPLY" ]
}
