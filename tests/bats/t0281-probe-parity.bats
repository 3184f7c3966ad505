#!/usr/bin/env bats
# The probe's redundancy evidence (parity, syndromes, copies) on real-md
# sets whose superblock areas were zeroed, and on an ext4 array of real
# files: the geometry it gives first reads md's bytes back.  Run through
# tests/tools/probe_evidence, which prints the candidates as SPEC lines.
# The plain suite runs it; under ASan and UBSan the same code runs in the unit
# tests (test_geometry_spec, test_spec_array, test_probe_*) and fuzz_probe.
# suite: plain

bats_require_minimum_version 1.5.0
load helpers

setup_file() {
	fixtures_ready
}


# first_spec SIZE MEMBER...: the probe's first candidate as a SPEC, with the
# component size the search would set (the evidence leaves it to search).
first_spec() {
	local size=$1
	shift
	"$TTOOLS/probe_evidence" "$@" | sed -n "1{s/ .*//;s/size=[^,]*/size=$size/;p;q}"
}

# reads_back SET: the first candidate of SET zeroed reads md's bytes.
reads_back() {
	local set=$1 spec
	local -a m
	mapfile -t m < <(zeroed_set "$set")
	spec=$(first_spec "$(manifest "$set" component_size_kib)K" "${m[@]}")
	[[ $spec == level=* ]]
	[ "$(stripe-read --geometry "$spec" "${m[@]}" | sha)" = "$(manifest "$set" array_sha256)" ]
}

@test "a zeroed 1.2 raid6's geometry is found from its syndromes, and reads md's bytes" {
	reads_back r6-6d-128k-ls-1.2
}

@test "a 0.90 raid6 with the area after its data zeroed: data offset 0 is found, and md's bytes read back" {
	reads_back r6-4d-64k-0.90
}

@test "a raid6 of a DDF layout is found from the syndrome's member order, and reads md's bytes" {
	reads_back r6-5d-64k-ddfnc-1.2
}

@test "a raid6 whose Q stays on the last member (-6 layout) is found, and reads md's bytes" {
	reads_back r6-5d-64k-rs6-1.2
}

@test "a zeroed raid1 is found from its copies, and reads md's bytes" {
	reads_back r1-3d-0.90
}

@test "raid6 members given out of order: the order found names them where given" {
	local -a m
	mapfile -t m < <(zeroed_set r6-5d-64k-rs-1.2)
	local given=("${m[3]}" "${m[0]}" "${m[4]}" "${m[2]}" "${m[1]}")
	run first_spec 3072K "${given[@]}"
	assert_output --partial "order=1:4:3:0:2"
	[ "$(stripe-read --geometry "$output" "${given[@]}" | sha)" = "$(manifest r6-5d-64k-rs-1.2 array_sha256)" ]
}

@test "left-asymmetric raid6 reads as left-symmetric in parity: both proposed, and it says so" {
	local -a m
	mapfile -t m < <(zeroed_set r6-5d-64k-la-1.2)
	run "$TTOOLS/probe_evidence" "${m[@]}"
	assert_line --partial "layout=left-asymmetric,data-offset=2048s"
	assert_line --partial "undecided: raid6: symmetric and asymmetric layouts"
}

@test "the probe writes nothing on the members it reads" {
	local -a m
	mapfile -t m < <(zeroed_set r6-5d-64k-rs-1.2)
	local before after
	before=$(sha "${m[@]}")
	"$TTOOLS/probe_evidence" "${m[@]}" > /dev/null
	after=$(sha "${m[@]}")
	[ "$before" = "$after" ]
}

# (the plain suite's alone: making the ext4 costs seconds, and the
# sanitized run covers the same C through the fixtures' tests)
@test "a raid6 holding a real ext4 of real files, zeroed, is found exactly and reads its bytes back" {
	plain_suite_only
	local d=$BATS_TEST_TMPDIR/e6 spec
	"$TOP/tests/probe/make-ext4-array" -S 8 "$d" 4M -l 6 -n 5 -c 32K -p right-symmetric > /dev/null
	"$TOP/tests/probe/make-ext4-array" --zero "$d"
	spec=$(first_spec 6144s "$d"/m*.img)
	[ "$spec" = "$(cat "$d/truth")" ]
	[ "$(stripe-read --geometry "$spec" "$d"/m*.img | sha)" = "$(cut -d' ' -f1 "$d/array.sha256")" ]
}

@test "a zeroed raid5 holding an ext4 (made by md): P placed where file tails leave zero sectors, md's bytes read back" {
	reads_back r5-4d-ext4
}

@test "a raid10 reading the same ext4 as a re-created raid6 of 4 with P and Q fixed is refuted by its copies" {
	plain_suite_only
	local d=$BATS_TEST_TMPDIR/r6pl
	"$TOP/tests/probe/make-ext4-array" "$d" 32M -l 6 -n 4 -c 1M -p parity-last > /dev/null
	stripe-create -q --force --assume-clean -l 6 -n 4 -c 64K -p parity-last "$d"/m1.img "$d"/m2.img "$d"/m3.img "$d"/m0.img 2> /dev/null
	run -0 stripe-probe -q --json="$d/p.json" "$d"/m*.img
	# the data members read as a raid10 near=2's first copies: content proposes it
	run jq '[.candidates[] | select(.level == 10)] | length' "$d/p.json"
	[ "$output" -gt 0 ]
	run jq '[.candidates[] | select(.level == 10) | select(.confidence_percent > 50 or
		(any(.evidence[]; startswith("copies compared")) | not))] | length' "$d/p.json"
	[ "$output" -eq 0 ]
}
