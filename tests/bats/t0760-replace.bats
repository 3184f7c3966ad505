#!/usr/bin/env bats
# stripe-rebuild --replace ROLE=NEW of a role a member holds in sync: the
# member is copied onto NEW (what it cannot read, from redundancy), NEW
# takes the role and the member is recorded faulty, as mdadm --replace
# leaves them; an interrupted replace resumes.

bats_require_minimum_version 1.5.0
load helpers
load badblocks-helpers

SET=r5-4d-64k-ls-1.2

setup_file() {
	fixtures_ready
}

setup() {
	case_sample 2 2
	D=$BATS_TEST_TMPDIR
}

# data_area FILE: the member's data area (1.1/1.2 with the offset examine reports).
data_area() {
	local off
	off=$(stripe-examine --json "$1" | jq -r '.members[0].data_offset_sectors')
	tail -c +$((off * 512 + 1)) "$1"
}

# roles FILE: the first six entries of FILE's 1.x role table, in hex.
roles() {
	od -An -tx2 -j $((4096 + 256)) -N12 "$1" | tr -s ' ' | sed 's/^ //'
}

# feature_map FILE: FILE's 1.x feature map.
feature_map() {
	od -An -tu4 -j $((4096 + 8)) -N4 "$1" | tr -d ' '
}

# replaced_exactly: role 2 of the copy in M is on $D/new.img, byte for byte
# what the fixture's member 2 holds, and the array reads as md wrote it.
replaced_exactly() {
	[ "$(data_area "$D/new.img" | sha)" = "$(data_area "$FIX/$SET/member2.img" | sha)" ] ||
		fail "the new member's data area differs from the one it replaced"
	[ "$(stripe-read -q "${M[0]}" "${M[1]}" "$D/new.img" "${M[3]}" | sha)" = "$(manifest "$SET" array_sha256)" ] ||
		fail "the array reads other bytes after the replace"
}

@test "a member in sync is copied onto a new file, which holds the role and reads as the array md wrote" {
	M=($(copy_set $SET))
	run stripe-rebuild --progress none --replace 2="$D/new.img" "${M[@]}"
	assert_success
	assert_output --partial "replacing role 2, ${M[2]}, onto $D/new.img"
	assert_output --partial "${M[2]}: replaced by $D/new.img, recorded faulty"
	replaced_exactly
	stripe-check -q --progress none "${M[0]}" "${M[1]}" "$D/new.img" "${M[3]}"
}

@test "the replaced member is recorded faulty as md records it, and its own superblock is not written again" {
	local before
	M=($(copy_set $SET))
	before=$(events_of "${M[2]}")
	stripe-rebuild -q --progress none --replace 2="$D/new.img" "${M[@]}"
	run stripe-examine --json "${M[@]}" "$D/new.img"
	[ "$(jq -r '[.members[] | .state] | join(",")' <<<"$output")" = active,active,faulty,active,active ]
	[ "$(jq -r .array.state <<<"$output")" = clean ]
	# md: the new device numbered from raid_disks on (4 is member 3's), the
	# others list the old device faulty (fffe) and the new one in its role;
	# the old one keeps the table of the replace's start, the new one
	# beside it, one event behind; no replacement or recovery bit left
	[ "$(roles "${M[0]}")" = "0000 0001 fffe ffff 0003 0002" ]
	[ "$(roles "$D/new.img")" = "0000 0001 fffe ffff 0003 0002" ]
	[ "$(roles "${M[2]}")" = "0000 0001 0002 ffff 0003 0002" ]
	[ "$(events_of "${M[2]}")" = $((before + 1)) ]
	[ "$(events_of "$D/new.img")" = $((before + 2)) ]
	[ "$(feature_map "$D/new.img")" = 0 ]
}

@test "a replace killed half way leaves md's record of a replacement and resumes from it without --replace" {
	local rec
	M=($(copy_set $SET))
	truncate -s 8M "$D/new.img"
	# writes past 4 MiB of a file end the process (SIGXFSZ): the new member
	# takes three of its seven 1 MiB batches, as a crash there leaves it
	run bash -c 'ulimit -f 4096; exec stripe-rebuild -q --progress none --jobs 1 --checkpoint 0.001 --replace 2="$0" "${@}"' \
		"$D/new.img" "${M[@]}"
	[ "$status" -gt 128 ] || fail "the rebuild was not stopped: exit $status: $output"
	rec=$(stripe-examine --json "$D/new.img" | jq -r '.members[0].recovery_offset_sectors')
	((rec > 0 && rec < 14336)) || fail "recovery offset $rec"
	# REPLACEMENT and RECOVERY_OFFSET; every table lists both in role 2
	[ "$(feature_map "$D/new.img")" = 18 ]
	[ "$(roles "${M[0]}")" = "0000 0001 0002 ffff 0003 0002" ]
	# as mdadm --examine words a replace under way
	run stripe-examine "$D/new.img"
	assert_output --partial "Device Role : Replacement device 2"
	assert_output --partial "Array State : AARA ('A' == active"
	run stripe-rebuild --progress none "${M[@]}" "$D/new.img"
	assert_success
	assert_output --partial "replacing role 2, ${M[2]}, onto $D/new.img (replacement, resuming)"
	assert_output --partial "$((14336 * 512 - rec * 512)) bytes from member byte $(((2048 + rec) * 512))"
	replaced_exactly
}

@test "--restart starts a stopped replace over from the start of the data area" {
	M=($(copy_set $SET))
	truncate -s 8M "$D/new.img"
	run bash -c 'ulimit -f 4096; exec stripe-rebuild -q --progress none --jobs 1 --checkpoint 0.001 --replace 2="$0" "${@}"' \
		"$D/new.img" "${M[@]}"
	[ "$(stripe-examine --json "$D/new.img" | jq -r '.members[0].recovery_offset_sectors')" -gt 0 ]
	run stripe-rebuild --progress none --restart --replace 2="$D/new.img" "${M[@]}"
	assert_success
	assert_line "replacing role 2, ${M[2]}, onto $D/new.img (replacement)"
	assert_output --partial "$((14336 * 512)) bytes from member byte $((2048 * 512))"
	replaced_exactly
}

@test "pages the old member cannot read are had from redundancy, and the new member is exact" {
	local mb=$((1024 * 1024))
	M=($(copy_set $SET))
	STRIPE_FAULT_READ="member2.img:$((mb + 8192)):4096,member2.img:$((3 * mb)):65536" \
		run stripe-rebuild --progress none --replace 2="$D/new.img" "${M[@]}"
	assert_success
	assert_output --partial "read_error: role 2, ${M[2]}, member byte $((mb + 8192)), 4096 bytes"
	assert_output --partial "read errors: 17"
	replaced_exactly
}

@test "ranges the old member's bad-block log names are had from redundancy, not read, and the old member is not mended" {
	local garbage
	M=($(copy_set $SET))
	log_entry "${M[2]}" 0 $((2048 + 64))
	garbage=$(data_area "${M[2]}" | sha)
	run stripe-rebuild --progress none --replace 2="$D/new.img" "${M[@]}"
	assert_success
	replaced_exactly
	[ "$(data_area "${M[2]}" | sha)" = "$garbage" ] || fail "the replaced member was written"
	[ "$(log_of "${M[2]}")" = "2112+8" ]
	[ -z "$(log_of "$D/new.img")" ]
}

@test "a range neither the old member nor redundancy gives is unrecoverable, named in array bytes and logged bad on the new member" {
	local mb=$((1024 * 1024))
	M=($(copy_set $SET))
	STRIPE_FAULT_READ="member2.img:$((mb + 8192)):4096,member1.img:$((mb + 8192)):4096" \
		run stripe-rebuild --progress none --replace 2="$D/new.img" "${M[@]}"
	[ "$status" -eq 1 ]
	assert_output --partial "unrecoverable: role 2, $D/new.img, member byte $((mb + 8192)), 4096 bytes; array bytes"
	[ "$(log_of "$D/new.img")" = "2064+8" ]
}

@test "--dry-run says which member would be replaced onto what and changes nothing" {
	local before
	M=($(copy_set $SET))
	before=$(cat "${M[@]}" | sha)
	run stripe-rebuild --dry-run --progress none --replace 2="$D/new.img" "${M[@]}"
	assert_success
	assert_output --partial "would replace role 2, ${M[2]}, onto $D/new.img (replacement)"
	[ ! -e "$D/new.img" ]
	[ "$(cat "${M[@]}" | sha)" = "$before" ]
}

@test "--json names the member each target replaces" {
	M=($(copy_set $SET))
	run stripe-rebuild --json --progress none --replace 2="$D/new.img" "${M[@]}"
	assert_success
	[ "$(jq -r '.targets[0].replaces' <<<"$output")" = "${M[2]}" ]
	[ "$(jq -r '.targets[0].in_place' <<<"$output")" = false ]
	[ "$(jq -r .verdict <<<"$output")" = rebuilt ]
}

@test "the same replace run again after it finished has nothing to do" {
	local before
	M=($(copy_set $SET))
	stripe-rebuild -q --progress none --replace 2="$D/new.img" "${M[@]}"
	before=$(cat "${M[@]}" "$D/new.img" | sha)
	run stripe-rebuild --progress none --replace 2="$D/new.img" "${M[@]}"
	assert_success
	assert_output --partial "$D/new.img: holds role 2 in sync already"
	[ "$(cat "${M[@]}" "$D/new.img" | sha)" = "$before" ]
}

@test "what md refuses to replace is refused in one line, leaving nothing behind" {
	M=($(copy_set r0-3d-64k-1.2))
	run stripe-rebuild --progress none --replace 1="$D/new.img" "${M[@]}"
	[ "$status" -eq 2 ]
	assert_output "stripe-rebuild: ${M[0]}: raid0 has no redundancy: md replaces members of raid1, 4, 5, 6 and 10 only"
	[ ! -e "$D/new.img" ]
	M=($(copy_set $SET))
	truncate -s 4M "$D/small.img"
	run stripe-rebuild --progress none --replace 2="$D/small.img" "${M[@]}"
	[ "$status" -eq 2 ]
	assert_output --partial "small.img: 4194304 bytes, too small for role 2"
	run stripe-rebuild --progress none --replace 2="${M[3]}" "${M[@]}"
	[ "$status" -eq 2 ]
	assert_output "stripe-rebuild: ${M[3]}: an in-sync member of the array (role 3), not a replacement"
	M=($(copy_set r5-3d-512k-ls-0.90))
	run stripe-rebuild --progress none --replace 1="$D/z.img" "${M[@]}"
	[ "$status" -eq 2 ]
	assert_output --partial "0.90 superblocks cannot record a replacement"
	[ ! -e "$D/z.img" ]
}

@test "a member in sync of a raid1, a raid10 and a raid6 set is replaced by an exact copy" {
	local s
	for s in r1-2d-1.2 r10-4d-n2-1.2 r6-5d-64k-ls-1.2; do
		M=($(copy_set $s))
		stripe-rebuild -q --progress none --replace 1="$D/$s.img" "${M[@]}" || fail "$s: exit $?"
		[ "$(data_area "$D/$s.img" | sha)" = "$(data_area "$FIX/$s/member1.img" | sha)" ] ||
			fail "$s: the new member differs from the one it replaced"
		M[1]=$D/$s.img
		[ "$(stripe-read -q "${M[@]}" | sha)" = "$(manifest $s array_sha256)" ] || fail "$s: the array reads other bytes"
	done
}
