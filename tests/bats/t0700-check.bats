#!/usr/bin/env bats
# stripe-check: finds what md's check finds, says where, names the RAID6
# culprit, repairs only when asked, and works around read errors.

bats_require_minimum_version 1.5.0
load helpers
load badblocks-helpers

setup_file() {
	fixtures_ready
}

setup() {
	case_sample 2 2
	D=$BATS_TEST_TMPDIR
}

# unit_has JSON MEMBER OFFSET KIND: some reported unit lists that block.
unit_has() {
	jq -e --arg m "$2" --argjson o "$3" --arg k "$4" \
		'[.units[].blocks[] | select((.member|tostring|endswith($m)) and .member_offset_bytes == $o and .kind == $k)] | length > 0' \
		<<<"$1" > /dev/null
}

@test "every clean fixture set with redundancy checks consistent with exit 0" {
	local set bad="" i=0
	for set in $(all_sets); do
		case $(manifest "$set" level) in raid0) continue ;; esac
		[ -z "$(manifest "$set" corrupt_count)" ] || continue
		[ "$set" = r5-4d-degraded ] && continue
		# the sanitized run checks a sample (the plain run every set)
		in_plain_suite || in_sample $((i++)) 2 || continue
		stripe-check -q --progress none $(members "$set") > /dev/null || bad+=" $set"
	done
	swept
	[ -z "$bad" ] || fail "not consistent:$bad"
}

@test "the bad-parity set gives md's mismatch count and exit 1" {
	run stripe-check --json --progress none $(members r5-4d-badparity)
	assert_failure 1
	[ "$(jq -r .summary.mismatch_sectors <<<"$output")" = "$(manifest r5-4d-badparity mismatch_cnt_after_corruption)" ]
}

@test "each corrupted block of the bad-parity set is reported with its member, offset and kind" {
	local j n kind member off
	j=$(stripe-check --json --progress none $(members r5-4d-badparity)) || true
	for n in $(seq 0 $(($(manifest r5-4d-badparity corrupt_count) - 1))); do
		kind=$(manifest r5-4d-badparity corrupt$n.kind)
		member=member$(manifest r5-4d-badparity corrupt_member).img
		off=$(manifest r5-4d-badparity corrupt$n.member_byte_offset)
		unit_has "$j" "$member" "$off" "$kind" || fail "corrupt$n ($kind on $member at $off) not reported"
	done
}

@test "the text report names the member and byte of each inconsistent unit" {
	run stripe-check --progress none $(members r5-4d-badparity)
	assert_failure 1
	assert_output --partial "stripe row 2, unit 2: parity mismatch, member at fault unknown; P on $FIX/r5-4d-badparity/member1.img at byte 1187840"
	assert_output --partial "md's mismatch_cnt would be 16"
}

@test "the man page's stripe-check --repair d*.img && stripe-check d*.img re-checks after a full repair" {
	M=($(copy_set r5-4d-badparity))
	run bash -c 'stripe-check -q --repair --progress none "$@" && stripe-check --progress none "$@"' _ "${M[@]}"
	assert_success
	assert_line --partial "checked 1792 units of 4 KiB: 0 inconsistent"
}

@test "check without --repair changes no member" {
	local before
	before=$(sha $(members r5-4d-badparity))
	stripe-check -q --progress none $(members r5-4d-badparity) || true
	[ "$before" = "$(sha $(members r5-4d-badparity))" ]
}

@test "repair of the bad-parity set mends all with exit 0 and leaves an array that checks clean" {
	local m=$(copy_set r5-4d-badparity)
	run stripe-check --repair --progress none $m
	assert_success
	assert_output --partial "2 repaired"
	run stripe-check --progress none $m
	assert_success
	assert_output --partial "0 inconsistent"
}

# A RAID6 of 6 on image files with random data, left-asymmetric so that the
# syndrome order differs from the data order.
make_raid6() {
	stripe-create -q -l 6 -p la -c 64K --image-size 5M "$D"/d{0,1,2,3,4,5}.img
	M=("$D"/d{0,1,2,3,4,5}.img)
	head -c "$(stripe-examine --json "${M[@]}" | jq -r .array.size_bytes)" /dev/urandom > "$D/data"
	stripe-write --progress none -i "$D/data" "${M[@]}"
}

# corrupt FILE OFFSET: overwrite 16 bytes.
corrupt() {
	printf 'CORRUPTED-BLOCK!' | dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}

@test "raid6: a corrupted data block is named with its member and array offset" {
	make_raid6
	# row 4 of left-asymmetric n=6: P on role 1, Q on role 2, role 0 holds data
	corrupt "$D/d0.img" $((1048576 + 65536 * 4 + 4096 + 100))
	run stripe-check --progress none "${M[@]}"
	assert_failure 1
	assert_output --regexp "stripe row 4, unit 1: data on $D/d0.img at byte 1314816 \(array byte [0-9]+\) is wrong"
}

@test "raid6: corrupted P and Q blocks are named as P and Q" {
	make_raid6
	corrupt "$D/d1.img" $((1048576 + 65536 * 4 + 8192))
	corrupt "$D/d2.img" $((1048576 + 65536 * 4 + 12288))
	run stripe-check --progress none "${M[@]}"
	assert_failure 1
	assert_output --partial "stripe row 4, unit 2: P on $D/d1.img at byte 1318912 is wrong"
	assert_output --partial "stripe row 4, unit 3: Q on $D/d2.img at byte 1323008 is wrong"
}

@test "raid6: repair mends named blocks so the data reads back as written" {
	make_raid6
	corrupt "$D/d0.img" $((1048576 + 65536 * 4 + 100))
	corrupt "$D/d1.img" $((1048576 + 65536 * 4 + 8192))
	corrupt "$D/d5.img" $((1048576 + 65536 * 9 + 4096 * 7))
	run stripe-check --repair --progress none "${M[@]}"
	assert_success
	assert_output --partial "3 repaired"
	stripe-check -q --progress none "${M[@]}"
	cmp "$D/data" <(stripe-read "${M[@]}")
}

@test "raid6 missing one member still finds an inconsistent unit" {
	make_raid6
	corrupt "$D/d0.img" $((1048576 + 65536 * 4 + 100))
	rm "$D/d3.img"
	run stripe-check -q --progress none "$D"/d{0,1,2,4,5}.img
	assert_failure 1
	assert_output --partial "1 inconsistent"
}

@test "a degraded raid5 says that nothing could be verified, with exit 1" {
	run stripe-check -q --progress none "$FIX"/r5-4d-degraded/member{0,1,3}.img
	assert_failure 1
	assert_output --partial "1792 units could not be verified: members are missing"
}

@test "raid1: copies that differ are reported and repaired from the preferred role" {
	stripe-create -q -l 1 --image-size 5M "$D"/a.img "$D"/b.img
	head -c 3M /dev/urandom | stripe-write --progress none "$D"/a.img "$D"/b.img
	corrupt "$D/b.img" $((1048576 + 8192 * 3))
	run stripe-check --json --progress none "$D"/a.img "$D"/b.img
	assert_failure 1
	[ "$(jq -r '.units[0].blocks[1].member_offset_bytes' <<<"$output")" = $((1048576 + 8192 * 3)) ]
	[ "$(jq -r .summary.mismatch_sectors <<<"$output")" = 128 ]
	stripe-check -q --repair --prefer 0 --progress none "$D"/a.img "$D"/b.img || true
	cmp <(tail -c +1048577 "$D/a.img") <(tail -c +1048577 "$D/b.img")
}

@test "a read error is reported with member and offset, and the stripe is still verified" {
	make_raid6
	STRIPE_FAULT_READ="d1.img:$((1048576 + 65536 * 2)):4096" run stripe-check --progress none "${M[@]}"
	assert_failure 1
	assert_output --partial "verified from the redundancy left, unreadable: data on $D/d1.img at byte $((1048576 + 65536 * 2))"
	assert_output --partial "1 blocks of 4 KiB could not be read"
	assert_output --partial "0 inconsistent"
}

@test "a corruption next to a read error is still found on raid6" {
	make_raid6
	corrupt "$D/d0.img" $((1048576 + 65536 * 4 + 100))
	STRIPE_FAULT_READ="d3.img:$((1048576 + 65536 * 4)):4096" run stripe-check -q --progress none "${M[@]}"
	assert_failure 1
	assert_output --partial "1 inconsistent"
}

@test "raid0 has nothing to check, says so, and exits 0" {
	run --separate-stderr stripe-check $(members r0-3d-64k-1.2)
	assert_success
	[[ $output == *"raid0 has no redundancy to check: nothing to verify" ]]
}

@test "raid0 --json says nothing_to_verify with exit 0" {
	run --separate-stderr stripe-check --json $(members r0-3d-64k-1.2)
	assert_success
	[ "$(jq -c '[.verdict, .summary.units, .units]' <<<"$output")" = '["nothing_to_verify",0,[]]' ] || fail "$output"
}

@test "a raid6 missing two members, with nothing left to verify, exits 1 and says so" {
	run --separate-stderr stripe-check --progress none "$FIX"/r6-6d-128k-ls-1.2/member{0,1,2,3}.img
	assert_failure 1
	assert_output --partial "1792 units could not be verified: members are missing"
}

# culprits_named SET: every corruption of a real-md RAID6 set is named as the
# wrong block, with its member and offset, and md's mismatch count is met.
culprits_named() {
	local set=$1 j n kind member off
	j=$(stripe-check --json --progress none $(members "$set")) || true
	[ "$(jq -r .summary.mismatch_sectors <<<"$j")" = "$(manifest "$set" mismatch_cnt_after_corruption)" ] ||
		fail "$set: mismatch count $(jq -r .summary.mismatch_sectors <<<"$j")"
	for n in $(seq 0 $(($(manifest "$set" corrupt_count) - 1))); do
		kind=$(manifest "$set" corrupt$n.kind)
		member=member$(manifest "$set" corrupt$n.member).img
		off=$(manifest "$set" corrupt$n.member_byte_offset)
		jq -e --arg m "$member" --argjson o "$off" --arg k "$kind" \
			'[.units[] | select(.verdict == "culprit") | .culprit as $c | .blocks[] | select(.role == $c.role) |
			  select((.member|endswith($m)) and ($c.member|endswith($m)) and .member_offset_bytes == $o and .kind == $k)] | length == 1' \
			<<<"$j" > /dev/null || fail "$set: corrupt$n ($kind on $member at $off) not named"
	done
}

@test "raid6 made by md with a bad data, P and Q block: each is named, and md's count is met" {
	culprits_named r6-5d-badblocks-1.2
}

@test "raid6 left-asymmetric made by md: the bad data block is named through the syndrome order" {
	culprits_named r6-6d-badq-1.2
}

@test "raid6 made by md: repair gives back md's clean array" {
	local m=$(copy_set r6-5d-badblocks-1.2)
	stripe-check -q --repair --progress none $m || true
	stripe-check -q --progress none $m
	[ "$(stripe-read $m | sha)" = "$(manifest r6-5d-badblocks-1.2 clean_array_sha256)" ]
}

@test "raid1 and raid10 made by md with a bad copy: md's count of 128 and both copies reported" {
	local set j
	for set in r1-2d-badcopy-1.2 r10-4d-badcopy-1.2; do
		j=$(stripe-check --json --progress none $(members "$set")) || true
		[ "$(jq -r .summary.mismatch_sectors <<<"$j")" = "$(manifest "$set" mismatch_cnt_after_corruption)" ] ||
			fail "$set: count"
		unit_has "$j" "member$(manifest "$set" corrupt_member).img" "$(manifest "$set" corrupt0.member_byte_offset)" copy ||
			fail "$set: bad copy not reported"
	done
}

# sectors FILE SECTOR COUNT: the sha256 of COUNT sectors of FILE from SECTOR.
sectors() {
	dd if="$1" bs=512 skip="$2" count="$3" status=none | sha256sum | cut -d' ' -f1
}

@test "repair rewrites a raid5 range in a member's bad-block log from the others and clears its entry" {
	logged r5-4d-64k-ls-1.2 1 2176
	run stripe-check --repair --progress none "${M[@]}"
	assert_success
	assert_output --partial "not verified, unreadable: data on ${M[1]} at byte $((2176 * 512)) (array byte 327680) [read error] [repaired]"
	assert_output --partial "1 unreadable blocks of 4 KiB rewritten from redundancy, 1 bad-block log entries cleared"
	[ "$(sectors "${M[1]}" 2176 8)" = "$(sectors $FIX/r5-4d-64k-ls-1.2/member1.img 2176 8)" ] || fail "not md's bytes"
	[ -z "$(log_of "${M[1]}")" ] || fail "log: $(log_of "${M[1]}")"
	run stripe-check --progress none "${M[@]}"
	assert_success
}

@test "repair clears only the rewritten part of a log entry that runs past the range repaired" {
	M=($(copy_set r5-4d-64k-ls-1.2))
	log_entry "${M[1]}" 0 2176 16
	# row 1 is array bytes 196608 to 393216: the range takes its first unit only
	run stripe-check --repair --progress none --offset 0 --length 200704 "${M[@]}"
	assert_success
	[ "$(log_of "${M[1]}")" = "2184+8" ] || fail "log: $(log_of "${M[1]}")"
	[ "$(sectors "${M[1]}" 2176 8)" = "$(sectors $FIX/r5-4d-64k-ls-1.2/member1.img 2176 8)" ] || fail "not rewritten"
	[ "$(sectors "${M[1]}" 2184 8)" != "$(sectors $FIX/r5-4d-64k-ls-1.2/member1.img 2184 8)" ] || fail "rewritten past the range"
}

@test "repair of part of the array that clears a log's last entry marks the log no longer in use, as md's next superblock write does" {
	command -v mdadm >/dev/null || skip "mdadm is not installed"
	logged r5-4d-64k-ls-1.2 1 2176
	# array bytes 327680 on: the unit with the logged sector, and no whole-array repair to mark the array clean after it
	run stripe-check --repair --progress none --offset 327680 --length 65536 "${M[@]}"
	assert_success
	run mdadm --examine-badblocks "${M[1]}"
	assert_success
	assert_output "Bad-blocks list is empty in ${M[1]}"
}

@test "repair of raid6 rewrites ranges in two members' bad-block logs in one unit" {
	logged r6-5d-64k-ls-1.2 1 2176
	log_entry "${M[3]}" 0 2176
	run stripe-check --repair --progress none "${M[@]}"
	assert_success
	assert_output --partial "2 unreadable blocks of 4 KiB rewritten from redundancy, 2 bad-block log entries cleared"
	for i in 1 3; do
		[ "$(sectors "${M[$i]}" 2176 8)" = "$(sectors $FIX/r6-5d-64k-ls-1.2/member$i.img 2176 8)" ] || fail "member $i"
		[ -z "$(log_of "${M[$i]}")" ] || fail "log $i: $(log_of "${M[$i]}")"
	done
}

@test "repair rewrites a raid1 copy in a bad-block log from the other copy and clears its entry" {
	logged r1-2d-1.2 0 2176
	run stripe-check --repair --progress none "${M[@]}"
	assert_success
	assert_output --partial "array byte 65536: verified from the redundancy left, unreadable: copy on ${M[0]} at byte $((2176 * 512)) (array byte 65536) [read error] [repaired]"
	[ "$(sectors "${M[0]}" 2176 8)" = "$(sectors "${M[1]}" 2176 8)" ] || fail "copies differ"
	[ -z "$(log_of "${M[0]}")" ] || fail "log: $(log_of "${M[0]}")"
}

@test "repair rewrites a block that fails to read from redundancy, as md's read error corrected, and exits 0" {
	M=($(copy_set r5-4d-64k-ls-1.2))
	head -c 4096 /dev/urandom | dd of="${M[1]}" bs=512 seek=2176 conv=notrunc status=none
	STRIPE_FAULT_READ="$(basename "${M[1]}"):$((2176 * 512)):4096" \
		run stripe-check --repair --progress none "${M[@]}"
	assert_success
	assert_output --partial "data on ${M[1]} at byte $((2176 * 512)) (array byte 327680) [read error] [repaired]"
	assert_output --partial "1 unreadable blocks of 4 KiB rewritten from redundancy, 0 bad-block log entries cleared"
	[ "$(sectors "${M[1]}" 2176 8)" = "$(sectors $FIX/r5-4d-64k-ls-1.2/member1.img 2176 8)" ] || fail "not md's bytes"
}

@test "repair where no redundancy is left writes nothing, keeps the log entry, and says so" {
	logged r5-4d-64k-ls-1.2 1 2176
	before=$(sha "${M[0]}" "${M[1]}" "${M[3]}")
	run stripe-check --repair --run --progress none "${M[0]}" "${M[1]}" "${M[3]}"
	assert_failure 1
	assert_output --partial "data on ${M[1]} at byte $((2176 * 512)) (array byte 327680) [read error] [unrepairable: no redundancy left]"
	[ "$(log_of "${M[1]}")" = "2176+8" ] || fail "log: $(log_of "${M[1]}")"
	[ "$(sha "${M[0]}" "${M[1]}" "${M[3]}")" = "$before" ] || fail "a member changed"
}

@test "repair --json reports the rewritten unit as repaired and counts it in the summary" {
	logged r5-4d-64k-ls-1.2 1 2176
	run stripe-check --repair --json --progress none "${M[@]}"
	assert_success
	[ "$(jq -c '[.units[] | {verdict, repaired}]' <<<"$output")" = '[{"verdict":"unreadable","repaired":true}]' ] ||
		fail "$output"
	[ "$(jq -c '.summary | [.rewritten, .log_entries_cleared, .read_errors]' <<<"$output")" = '[1,1,1]' ] || fail "$output"
}

# dirty: every member of M says the array needs a resync (resync_offset 0).
dirty() {
	local m
	for m in "${M[@]}"; do "$TTOOLS/sb-patch" "$m" 208 8 0; done
}

@test "a full repair leaves an array that needed a resync clean" {
	M=($(copy_set r5-4d-64k-ls-1.2))
	dirty
	run stripe-check --repair --progress none "${M[@]}"
	assert_success
	run stripe-examine --json "${M[@]}"
	[ "$(jq -r .array.needs_resync <<<"$output")" = false ] || fail "$output"
}

@test "a partial repair leaves an array that needed a resync as it was" {
	M=($(copy_set r5-4d-64k-ls-1.2))
	dirty
	run stripe-check --repair --progress none --length 1M "${M[@]}"
	assert_success
	run stripe-examine --json "${M[@]}"
	[ "$(jq -r .array.needs_resync <<<"$output")" = true ] || fail "$output"
}

@test "a full repair of a degraded raid5 that needed a resync leaves it needing one, with exit 1" {
	M=($(copy_set r5-4d-64k-ls-1.2))
	dirty
	run stripe-check --repair --run --progress none "${M[0]}" "${M[1]}" "${M[3]}"
	assert_failure 1
	run stripe-examine --json "${M[0]}" "${M[1]}" "${M[3]}"
	[ "$(jq -r .array.needs_resync <<<"$output")" = true ] || fail "$output"
}

@test "a full repair of a clean array that finds nothing writes nothing" {
	M=($(copy_set r5-4d-64k-ls-1.2))
	before=$(sha "${M[@]}")
	run stripe-check --repair --progress none "${M[@]}"
	assert_success
	[ "$(sha "${M[@]}")" = "$before" ]
}
