#!/usr/bin/env bats
# After stripe-check --repair, md's own check finds nothing, and where the
# damage was in parity or named by the RAID6 syndrome md reads the clean array.
#
# md looks at the repaired copies in one VM boot (batch.bash); its log is
# in build/test-logs-md/t9200-md-accepts-what-stripe-repairs/.

bats_require_minimum_version 1.5.0
load batch

# repaired NAME SET: a copy of fixture SET that stripe-check --repair
# mended, as an array of the batch.
repaired() {
	local d=$ARRAYS/$1 m
	mkdir -p "$d"
	cp "$FIX/$2"/member*.img "$d/"
	mapfile -t m < <(in_role_order "$d"/member*.img)
	stripe-check -q --repair --progress none "${m[@]}" > "$d/repair.out" 2>&1 || true
	as_is_array "$1" "${m[@]}"
}

setup_file() {
	fixtures_ready
	md_there || return 0
	rm -rf "$ARRAYS"
	mkdir -p "$ARRAYS"
	batch_start
	repaired badblocks r6-5d-badblocks-1.2
	repaired badparity r5-4d-badparity
	batch_add badblocks badparity
	batch_end
}

setup() {
	md_ready
}

@test "md finds no mismatch after stripe repairs the raid6 that md saw 24 sectors wrong in" {
	md_got badblocks
	[ "${V[mismatch_cnt]}" = 0 ]
	[ "${V[sha256]}" = "$(manifest r6-5d-badblocks-1.2 clean_array_sha256)" ]
}

@test "md finds no mismatch after stripe repairs the raid5 with bad parity" {
	md_got badparity
	[ "${V[mismatch_cnt]}" = 0 ]
	aget badparity stripe.sha256
	[ "${V[sha256]}" = "$REPLY" ]
}
