#!/usr/bin/env bats
# stripe-rebuild: lost roles come back onto replacements or in place, the
# array reads as md wrote it, every member agrees, and an interrupted run
# resumes from the recovery offset it recorded.

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

# drop ROLE...: deletes those members of the copied set in M; LEFT is the rest.
drop() {
	local r
	LEFT=()
	for r in "$@"; do rm "${M[r]}"; done
	for r in "${!M[@]}"; do [ -e "${M[r]}" ] && LEFT+=("${M[r]}"); done
	return 0
}

# rebuild_ok SET ROLE...: deletes the roles' members from a copy of SET,
# rebuilds them onto new files, and checks md's sha256 and a clean check.
rebuild_ok() {
	local set=$1 r args=()
	shift
	mkdir -p "$D/$set"
	cp "$FIX/$set"/member*.img "$D/$set/"
	for r in "$@"; do
		rm "$D/$set/member$r.img"
		args+=(--replace "$r=$D/$set/new$r.img")
	done
	run stripe-rebuild -q --progress none "${args[@]}" "$D/$set"/member*.img
	[ "$status" -eq 0 ] || fail "$set roles $*: exit $status: $output"
	[ "$(stripe-read "$D/$set"/*.img | sha)" = "$(manifest "$set" array_sha256)" ] ||
		fail "$set roles $*: array differs after the rebuild"
	stripe-check -q --progress none "$D/$set"/*.img || fail "$set roles $*: check finds mismatches"
	rm -rf "${D:?}/$set"
}

# data_area FILE: the member's data area (1.1/1.2 with the offset examine reports).
data_area() {
	local off
	off=$(stripe-examine --json "$1" | jq -r '.members[0].data_offset_sectors')
	tail -c +$((off * 512 + 1)) "$1"
}

# mark_recovering FILE SECTOR: a 1.x member made to say it was rebuilt up to
# SECTOR only (feature RECOVERY_OFFSET, recovery_offset), as an interrupted
# rebuild leaves it.
mark_recovering() {
	"$TTOOLS/sb-patch" "$1" 8 4 2
	"$TTOOLS/sb-patch" "$1" 152 8 "$2"
}

# recovery_offset FILE: what mdadm --examine says, or "none".
recovery_offset() {
	mdadm --examine "$1" 2>/dev/null | sed -nE 's/^ *Recovery Offset : ([0-9]+) sectors.*/\1/p' | grep . || echo none
}

@test "the stale member of r5-4d-degraded is rebuilt in place and the array reads as md wrote it" {
	M=($(copy_set r5-4d-degraded))
	run stripe-rebuild --progress none --readd "${M[2]}" "${M[@]}"
	assert_success
	assert_output --partial "rebuilt role 2 onto ${M[2]}"
	[ "$(stripe-read "${M[@]}" | sha)" = "$(manifest r5-4d-degraded array_sha256)" ]
	run stripe-check --progress none "${M[@]}"
	assert_success
	assert_output --partial "0 inconsistent"
}

@test "after the rebuild every member is active with the same events" {
	M=($(copy_set r5-4d-degraded))
	stripe-rebuild -q --progress none --readd "${M[2]}" "${M[@]}"
	run stripe-examine --json "${M[@]}"
	[ "$(jq -r '[.members[].state] | unique | join(",")' <<<"$output")" = active ]
	[ "$(jq -r '[.members[].events] | unique | length' <<<"$output")" = 1 ]
	[ "$(jq -r .array.state <<<"$output")" = clean ]
}

@test "r5-4d-degraded's stale role is rebuilt onto a new file, leaving the survivors' data untouched" {
	local m before=()
	M=($(copy_set r5-4d-degraded))
	for m in 0 1 3; do before[m]=$(data_area "${M[m]}" | sha); done
	run stripe-rebuild --progress none --replace 2="$D/new2.img" "${M[0]}" "${M[1]}" "${M[3]}"
	assert_success
	[ -f "$D/new2.img" ] && [ "$(stat -c %s "$D/new2.img")" = "$(stat -c %s "${M[0]}")" ]
	[ "$(stripe-read "${M[0]}" "${M[1]}" "$D/new2.img" "${M[3]}" | sha)" = "$(manifest r5-4d-degraded array_sha256)" ]
	for m in 0 1 3; do
		[ "$(data_area "${M[m]}" | sha)" = "${before[m]}" ] || fail "member $m's data area changed"
	done
	stripe-check -q --progress none "${M[0]}" "${M[1]}" "$D/new2.img" "${M[3]}"
}

@test "the stale member given alongside a new file is left out and the new file takes its role" {
	M=($(copy_set r5-4d-degraded))
	run stripe-rebuild --progress none --spare "$D/new.img" "${M[@]}"
	assert_success
	assert_output --partial "role 2 onto $D/new.img (new member)"
	[ "$(stripe-read -q "${M[0]}" "${M[1]}" "$D/new.img" "${M[3]}" | sha)" = "$(manifest r5-4d-degraded array_sha256)" ]
}

@test "a deleted member of every raid1, 4, 5 and 10 set is rebuilt onto an empty file" {
	local s n k=0
	for s in $(all_sets); do
		case $s in r1-*|r4-*|r5-*|r10-*) ;; *) continue ;; esac
		case $s in *bad*|*degraded) continue ;; esac
		n=$(manifest "$s" raid_devices)
		# the first or the last role of two sets in three; the next two
		# seeds take the rest, make check-full both roles of every set
		k=$((k + 1))
		if in_sample "$k" 3; then rebuild_ok "$s" 0; fi
		if in_sample $((k + 1)) 3; then rebuild_ok "$s" $((n - 1)); fi
	done
	swept
}

@test "two deleted members of every raid6 set are rebuilt in one pass" {
	plain_suite_only
	local s n k=0
	for s in $(all_sets); do
		case $s in r6-*) ;; *) continue ;; esac
		case $s in *bad*) continue ;; esac
		n=$(manifest "$s" raid_devices)
		# one of the two pairs of two sets in three; the next two seeds
		# take the rest, make check-full both pairs of every set
		k=$((k + 1))
		if in_sample "$k" 3; then rebuild_ok "$s" 0 1; fi
		if in_sample $((k + 1)) 3; then rebuild_ok "$s" 1 $((n - 1)); fi
	done
	swept
}

@test "every pair of members of a five-member raid6 is rebuilt" {
	plain_suite_only
	local a b i=0
	for a in 0 1 2 3 4; do
		for ((b = a + 1; b <= 4; b++)); do
			in_sample $((i++)) 3 || continue
			rebuild_ok r6-5d-64k-ls-1.2 $a $b
		done
	done
	swept
}

@test "a rebuilt member's superblock is read by mdadm --examine as an active device in sync" {
	command -v mdadm >/dev/null || skip "mdadm is not installed"
	M=($(copy_set r6-5d-64k-ls-1.2))
	drop 3
	stripe-rebuild -q --progress none --replace 3="${M[3]}" "${LEFT[@]}"
	run mdadm --examine "${M[3]}"
	assert_success
	assert_output --partial "Device Role : Active device 3"
	assert_output --partial "Array State : AAAAA"
	assert_output --partial "Checksum : "
	refute_output --partial "Recovery Offset"
	[ "$(mdadm --examine "${M[3]}" | sed -n 's/ *Events : //p')" = \
	  "$(mdadm --examine "${M[0]}" | sed -n 's/ *Events : //p')" ]
}

@test "a rebuild killed at random points (three; two in the sanitized run) resumes each time and ends with the array whole" {
	command -v mdadm >/dev/null || skip "mdadm is not installed (the host's --examine reads the half-built member)"
	local kills=0 tries=0 ms pid st off prev=0 offs=() want t0 start full left sectors=$((96 * 2048)) points=3
	# the sanitized run resumes the same code under ASan: two points show
	# it; make check-full kills five times
	in_plain_suite || points=2
	[ -z "${STRIPE_FULL:-}" ] || points=5
	stripe-create -q -l 6 -n 6 -c 64K --image-size 96M "$D"/m{0..5}.img
	head -c 250M /dev/urandom | stripe-write -q --progress none "$D"/m{0..5}.img
	want=$(stripe-read "$D"/m{0..5}.img | sha)
	rm "$D/m1.img" "$D/m4.img"
	# how long the rebuild takes to start and to run here, so that the
	# kills fall inside it
	t0=$(date +%s%N)
	stripe-rebuild -q --dry-run --progress none --replace 1="$D/n1.img" --replace 4="$D/n4.img" \
		"$D"/m{0,2,3,5}.img >/dev/null 2>&1
	start=$((($(date +%s%N) - t0) / 1000000))
	t0=$(date +%s%N)
	stripe-rebuild -q --progress none --checkpoint 0.01 --replace 1="$D/n1.img" --replace 4="$D/n4.img" \
		"$D"/m{0,2,3,5}.img
	full=$((($(date +%s%N) - t0) / 1000000 - start))
	((full >= 50)) || full=50
	left=$full
	while ((kills < points && tries < 25)); do
		tries=$((tries + 1))
		if ((prev == 0)); then
			# a fresh start: the replacements are lost again
			rm -f "$D/n1.img" "$D/n4.img"
			left=$full
		fi
		ms=$((start + left / 10 + RANDOM % (left * 7 / 10 + 1)))
		stripe-rebuild -q --progress none --checkpoint 0.01 --replace 1="$D/n1.img" \
			--replace 4="$D/n4.img" "$D"/m{0,2,3,5}.img &
		pid=$!
		sleep "$((ms / 1000)).$(printf %03d $((ms % 1000)))"
		kill -9 $pid 2>/dev/null || true
		st=0
		wait $pid || st=$?
		# the rebuild resumes from the lower of the two (a kill can fall
		# between writing one superblock and the other)
		off=$(printf '%s\n' "$(recovery_offset "$D/n1.img")" "$(recovery_offset "$D/n4.img")" | sort -n | head -n 1)
		echo "# try $tries: kill after ${ms} ms of $((start + left)): exit $st, recovery offset $off" >&3
		if ((st == 0)); then
			# it finished first: this machine was quicker than measured
			full=$((full * 2 / 3 > 50 ? full * 2 / 3 : 50))
			prev=0
			continue
		fi
		kills=$((kills + 1))
		[ "$off" = none ] && continue
		offs+=("$off")
		((off >= prev)) || fail "the recovery offset went back from $prev to $off"
		prev=$off
		left=$((full * (sectors - off) / sectors))
	done
	((kills == points)) || fail "only $kills of $tries kills fell inside a rebuild"
	printf '%s\n' "${offs[@]}" | grep -qE '^[1-9][0-9]*$' ||
		fail "no kill left a recovery offset that mdadm --examine shows: ${offs[*]}"
	run stripe-rebuild --progress none --replace 1="$D/n1.img" --replace 4="$D/n4.img" "$D"/m{0,2,3,5}.img
	assert_success
	[ "$(stripe-read "$D"/m{0,2,3,5}.img "$D"/n{1,4}.img | sha)" = "$want" ]
	stripe-check -q --progress none "$D"/m{0,2,3,5}.img "$D"/n{1,4}.img
	[ "$(recovery_offset "$D/n1.img")" = none ] && [ "$(recovery_offset "$D/n4.img")" = none ]
}

@test "a rebuild resumes from the recorded offset, and --restart starts over" {
	M=($(copy_set r6-6d-128k-ls-1.2))
	drop 2
	stripe-rebuild -q --progress none --replace 2="${M[2]}" "${LEFT[@]}"
	# make it look interrupted half way: put the recovery mark back
	mark_recovering "${M[2]}" 4096
	run stripe-rebuild --json --progress none --replace 2="${M[2]}" "${M[@]}"
	assert_success
	[ "$(jq .summary.start_sectors <<<"$output")" = 4096 ]
	mark_recovering "${M[2]}" 4096
	run stripe-rebuild --json --restart --progress none --replace 2="${M[2]}" "${M[@]}"
	assert_success
	[ "$(jq .summary.start_sectors <<<"$output")" = 0 ]
	[ "$(stripe-read "${M[@]}" | sha)" = "$(manifest r6-6d-128k-ls-1.2 array_sha256)" ]
}

@test "survivor read errors during a raid6 one-member rebuild still give an exact member" {
	local mb=$((1024 * 1024))
	M=($(copy_set r6-5d-64k-ls-1.2))
	cp "${M[1]}" "$D/orig1"
	drop 1
	STRIPE_FAULT_READ="member0.img:$((mb + 8192)):4096,member3.img:$((3 * mb)):65536" \
		run stripe-rebuild --progress none --replace 1="${M[1]}" "${LEFT[@]}"
	assert_success
	assert_output --partial "read_error: role 0"
	assert_output --partial "read_error: role 3"
	assert_output --partial "unrecoverable: 0 bytes"
	cmp <(data_area "$D/orig1") <(data_area "${M[1]}")
}

@test "a survivor read error during a raid5 rebuild is reported with array offsets and logged as a bad block" {
	local mb=$((1024 * 1024)) doff
	M=($(copy_set r5-4d-64k-ls-1.2))
	drop 2
	doff=$(($(manifest r5-4d-64k-ls-1.2 member0.data_offset_sectors) * 512))
	STRIPE_FAULT_READ="member0.img:$((doff + 65536 + 4096)):4096" \
		run stripe-rebuild --progress none --replace 2="${M[2]}" "${LEFT[@]}"
	assert_failure 1
	assert_output --partial "unrecoverable: role 2, ${M[2]}, member byte $((doff + 65536 + 4096)), 4096 bytes; array bytes"
	assert_output --partial "unrecoverable: 4096 bytes"
	run stripe-examine "${M[2]}"
	assert_output --partial "Bad Block Log"
	if command -v mdadm >/dev/null; then
		run mdadm --examine-badblocks "${M[2]}"
		assert_output --partial "$(((doff + 65536 + 4096) / 512)) for 8 sectors"
	fi
}

@test "unrecoverable ranges in many batches are reported and logged in the order of the member" {
	local mb=$((1024 * 1024)) doff faults="" want="" i at
	M=($(copy_set r5-4d-64k-ls-1.2))
	drop 2
	doff=$(($(manifest r5-4d-64k-ls-1.2 member0.data_offset_sectors) * 512))
	# one bad page in each of six 1 MiB batches, which four jobs rebuild side by side
	for i in 5 1 4 0 3 2; do
		faults+="${faults:+,}member0.img:$((doff + i * mb + 8192)):4096"
	done
	for i in 0 1 2 3 4 5; do
		want+="$((doff + i * mb + 8192))"$'\n'
	done
	STRIPE_FAULT_READ=$faults run stripe-rebuild --jobs 4 --progress none --replace 2="${M[2]}" "${LEFT[@]}"
	assert_failure 1
	[ "$(sed -nE 's/^.*unrecoverable: role 2, [^,]*, member byte ([0-9]+),.*/\1/p' <<<"$output")"$'\n' = "$want" ]
	if command -v mdadm >/dev/null; then
		run mdadm --examine-badblocks "${M[2]}"
		[ "$(sed -nE 's/^ *([0-9]+) for 8 sectors.*/\1/p' <<<"$output" | while read -r at; do
			echo $((at * 512)); done)"$'\n' = "$want" ]
	fi
}

@test "any number of jobs rebuilds the same member" {
	local jobs
	M=($(copy_set r6-6d-128k-ls-1.2))
	cp "${M[1]}" "$D/orig1"
	cp "${M[4]}" "$D/orig4"
	for jobs in 1 3 8; do
		drop 1 4
		run stripe-rebuild --jobs "$jobs" --progress none --replace 1="${M[1]}" --replace 4="${M[4]}" "${LEFT[@]}"
		assert_success
		cmp <(data_area "$D/orig1") <(data_area "${M[1]}") || fail "--jobs $jobs: role 1 differs"
		cmp <(data_area "$D/orig4") <(data_area "${M[4]}") || fail "--jobs $jobs: role 4 differs"
	done
}

@test "two members of a raid6 on loop devices are rebuilt onto loop devices" {
	[ "$(id -u)" -eq 0 ] || skip "needs root (loop devices)"
	local loops=() loop i st out sum
	M=($(copy_set r6-6d-128k-ls-1.2))
	cp "${M[1]}" "$D/orig1"
	cp "${M[4]}" "$D/orig4"
	# the lost members' disks come back blank
	truncate -s 0 "${M[1]}" "${M[4]}"
	truncate -s "$(stat -c %s "$D/orig1")" "${M[1]}" "${M[4]}"
	for i in "${!M[@]}"; do
		if ! loop=$(losetup -f --show "${M[i]}"); then
			((${#loops[@]} == 0)) || losetup -d "${loops[@]}"
			skip "no loop device available"
		fi
		loops+=("$loop")
	done
	run stripe-rebuild --progress none --replace 1="${loops[1]}" --replace 4="${loops[4]}" \
		"${loops[0]}" "${loops[2]}" "${loops[3]}" "${loops[5]}"
	st=$status out=$output
	sum=$(stripe-read "${loops[@]}" | sha)
	losetup -d "${loops[@]}"
	[ "$st" -eq 0 ] || fail "stripe-rebuild exited $st: $out"
	[ "$sum" = "$(manifest r6-6d-128k-ls-1.2 array_sha256)" ]
	cmp <(data_area "$D/orig1") <(data_area "${M[1]}")
	cmp <(data_area "$D/orig4") <(data_area "${M[4]}")
}

@test "--jobs outside 1 to 8 is refused with status 2" {
	M=($(copy_set r6-6d-128k-ls-1.2))
	drop 1
	for bad in 0 9 two; do
		run stripe-rebuild --jobs "$bad" --progress none --replace 1="${M[1]}" "${LEFT[@]}"
		assert_failure 2
		assert_output --partial "--jobs: '$bad' is not a number from 1 to 8"
	done
	[ ! -e "${M[1]}" ]
}

@test "--files names the file an unrecoverable range hurts" {
	local set=r5-4d-ext4 blk role off
	M=($(copy_set $set))
	stripe-read "${M[@]}" > "$D/array.img"
	blk=$(debugfs -R "blocks /dir/pattern-1m.bin" "$D/array.img" 2>/dev/null | tr ' ' '\n' | sed -n 3p)
	# md's left-symmetric placement of that block
	local n=4 chunk=$(manifest $set chunk_bytes) doff=$(($(manifest $set member0.data_offset_sectors) * 512))
	local c=$((blk * 4096 / chunk)) row dd pd
	row=$((c / (n - 1))) dd=$((c % (n - 1))) pd=$((n - 1 - row % n))
	role=$(((pd + 1 + dd) % n)) off=$((doff + row * chunk + blk * 4096 % chunk))
	drop $(((role + 1) % n))
	STRIPE_FAULT_READ="member$role.img:$off:4096" \
		run stripe-rebuild --files --progress none --replace $(((role + 1) % n))="$D/new.img" "${LEFT[@]}"
	assert_failure 1
	assert_output --partial "files hurt:"
	assert_output --partial "array byte $((blk * 4096)): file /dir/pattern-1m.bin"
}

@test "raid6 survivors that disagree with Q are reported while one member is rebuilt" {
	M=($(copy_set r6-6d-badq-1.2))
	drop 0
	run stripe-rebuild --progress none --replace 0="${M[0]}" "${LEFT[@]}"
	assert_failure 1
	assert_output --partial "disagree: role"
	assert_output --regexp "survivors disagreeing with P/Q: [1-9]"
}

@test "without a replacement it says which roles need one and exits 2" {
	M=($(copy_set r5-4d-degraded))
	run stripe-rebuild --progress none "${M[@]}"
	assert_failure 2
	assert_output --partial "role 2 needs rebuilding: ${M[2]}: stale: events 21"
	assert_output --partial "--replace ROLE=PATH"
}

@test "a whole array has nothing to rebuild" {
	M=($(copy_set r5-4d-64k-ls-1.2))
	run stripe-rebuild --progress none "${M[@]}"
	assert_success
	assert_output --partial "nothing to rebuild"
}

@test "a replacement too small for the role is refused before anything is written" {
	local before
	M=($(copy_set r5-4d-64k-ls-1.2))
	drop 1
	truncate -s 2M "$D/small.img"
	before=$(cat "${LEFT[@]}" "$D/small.img" | sha)
	run stripe-rebuild --progress none --replace 1="$D/small.img" "${LEFT[@]}"
	assert_failure 2
	assert_output --regexp "small.img: 2097152 bytes, too small for role 1: it needs [0-9]+ bytes"
	[ "$(cat "${LEFT[@]}" "$D/small.img" | sha)" = "$before" ]
}

@test "a replacement carrying a filesystem is refused unless --force" {
	M=($(copy_set r5-4d-64k-ls-1.2))
	drop 1
	truncate -s "$(stat -c %s "${M[0]}")" "$D/fs.img"
	mkfs.ext4 -q -F "$D/fs.img"
	run stripe-rebuild --progress none --replace 1="$D/fs.img" "${LEFT[@]}"
	assert_failure 2
	assert_output --partial "ext4"
	run stripe-rebuild --progress none --force --replace 1="$D/fs.img" "${LEFT[@]}"
	assert_success
}

@test "an in-sync member is not taken as the replacement of another role" {
	M=($(copy_set r5-4d-64k-ls-1.2))
	drop 2
	run stripe-rebuild --progress none --replace 2="${M[1]}" "${LEFT[@]}"
	assert_failure 2
	assert_output --partial "${M[1]}: an in-sync member of the array (role 1), not a replacement"
}

@test "the same command run again after the rebuild finished has nothing to do" {
	local after
	M=($(copy_set r5-4d-degraded))
	stripe-rebuild -q --progress none --readd "${M[2]}" "${M[@]}"
	after=$(cat "${M[@]}" | sha)
	run stripe-rebuild --progress none --readd "${M[2]}" "${M[@]}"
	assert_success
	assert_output --partial "holds role 2 in sync already"
	assert_output --partial "nothing to rebuild"
	[ "$(cat "${M[@]}" | sha)" = "$after" ]
}

@test "--dry-run says what it would rebuild and changes nothing" {
	local before
	M=($(copy_set r5-4d-degraded))
	before=$(cat "${M[@]}" | sha)
	run stripe-rebuild --dry-run --spare "$D/new.img" "${M[@]}"
	assert_success
	assert_output --partial "would rebuild role 2 onto $D/new.img (new member)"
	[ ! -e "$D/new.img" ]
	[ "$(cat "${M[@]}" | sha)" = "$before" ]
}

@test "--json gives each event, the targets and a summary with units in the keys" {
	M=($(copy_set r5-4d-degraded))
	run stripe-rebuild --json --progress none --readd "${M[2]}" "${M[@]}"
	assert_success
	jq -e '.format == 1 and .tool == "stripe-rebuild" and (.events | length) == 0' <<<"$output"
	jq -e '.targets[0].role == 2 and .targets[0].in_place == true' <<<"$output"
	jq -e '.summary.complete and .summary.unrecoverable_bytes == 0 and .summary.rebuilt_bytes == 7340032' <<<"$output"
}

@test "spares fill the roles that need one, lowest role first" {
	M=($(copy_set r6-5d-64k-ls-1.2))
	drop 1 3
	run stripe-rebuild --progress none --spare "$D/s1.img" --spare "$D/s2.img" "${LEFT[@]}"
	assert_success
	assert_output --partial "role 1 onto $D/s1.img"
	assert_output --partial "role 3 onto $D/s2.img"
}

@test "raid0 has nothing to rebuild from" {
	M=($(copy_set r0-3d-64k-1.2))
	rm "${M[1]}"
	run stripe-rebuild --progress none --replace 1="$D/new.img" "${M[0]}" "${M[2]}"
	assert_failure 2
	assert_output --partial "raid0"
}

@test "a member the array marked faulty is rebuilt in place with --readd" {
	local m
	M=($(copy_set r5-4d-64k-ls-1.2))
	# the other members' role tables say device 2 failed (0xfffe), as md
	# writes them when it kicks a member out
	for m in 0 1 3; do "$TTOOLS/sb-patch" "${M[m]}" $((256 + 2 * 2)) 2 0xfffe; done
	run stripe-rebuild --dry-run "${M[@]}"
	assert_output --partial "role 2 needs rebuilding: ${M[2]}: faulty"
	run stripe-rebuild --progress none --readd "${M[2]}" "${M[@]}"
	assert_success
	[ "$(stripe-examine --json "${M[@]}" | jq -r '[.members[].state] | unique | join(",")')" = active ]
	[ "$(stripe-read "${M[@]}" | sha)" = "$(manifest r5-4d-64k-ls-1.2 array_sha256)" ]
}

@test "one of two missing raid6 roles rebuilt: the other is recorded gone, as md's recovery leaves it" {
	command -v mdadm >/dev/null || skip "mdadm is not installed"
	local set v
	for set in r6-5d-64k-ls-1.2 r6-4d-64k-0.90; do
		mkdir -p "$D/$set"
		cp "$FIX/$set"/member*.img "$D/$set/"
		rm "$D/$set/member1.img" "$D/$set/member3.img"
		stripe-rebuild -q --run --progress none --replace "1=$D/$set/new1.img" "$D/$set"/member*.img
		[ "$(stripe-read "$D/$set"/*.img | sha)" = "$(manifest "$set" array_sha256)" ]
		run mdadm --examine "$D/$set/member0.img"
		if [[ $set == *1.2 ]]; then
			assert_output --partial "Array State : AAA.A "
		else
			# 0.90: one disk failed, the rest active
			v=$(sed -n 's/^ *Failed Devices : //p' <<<"$output")
			[ "$v" = 1 ] || fail "$set: mdadm --examine counts $v failed devices"
			grep -qE '^ +3 +3 +0 +0 +3 +faulty removed' <<<"$output" || fail "$set: disk 3 is not faulty removed: $output"
		fi
	done
}

# kill_half_way TARGET SURVIVOR... -- REBUILD_ARGS...: stripe-rebuild with
# those arguments, SIGKILLed once it has recorded its start: TARGET and
# every survivor at the same new events (a first step that moves only the
# survivors' events, such as marking the array dirty, is not the start);
# tried again (TARGET removed) when the rebuild ended first, or was killed
# only as it ended, five times at most.  Fails when the rebuild exits with anything but the kill.  The
# watch costs no process until TARGET and every survivor were written
# after the start, and only then asks mdadm for the events: a watch that
# ran mdadm each round lost the race to the rebuild on a busy machine.
# still_rebuilding TARGET: TARGET's superblock says its rebuild is not
# over: 1.x records how far it got (Recovery Offset), 0.90 keeps it a spare
# in its own table until the end.
still_rebuilding() {
	local out
	out=$(mdadm --examine "$1" 2>/dev/null)
	[[ $out == *"Recovery Offset"* ]] || [[ $out =~ this\ +[0-9]+\ +[0-9]+\ +[0-9]+\ +[0-9]+\ +spare ]]
}

kill_half_way() {
	local target=$1 pid st tries i ev0 ev moved nap
	local -a surv=()
	shift
	while [ "$1" != -- ]; do surv+=("$1"); shift; done
	shift
	exec {nap}<> <(:)	# "read -t" on a pipe nobody writes: a sleep without a process
	for tries in 1 2 3 4 5; do
		rm -f "$target"
		ev0=$(events_of "${surv[0]}")
		touch "$D/half.start"
		stripe-rebuild -q --progress none --checkpoint 0.001 "$@" > "$D/half.out" 2>&1 &
		pid=$!
		while kill -0 $pid 2>/dev/null; do
			moved=1
			for i in "$target" "${surv[@]}"; do
				[ "$i" -nt "$D/half.start" ] || { moved=0; break; }
			done
			if [ $moved = 1 ]; then
				ev=$(events_of "$target")
				[ -n "$ev" ] && [ "$ev" != "$ev0" ] || moved=0
				for i in "${surv[@]}"; do
					[ $moved = 1 ] && [ "$(events_of "$i")" = "$ev" ] || { moved=0; break; }
				done
				[ $moved = 0 ] || break
			fi
			read -t 0.001 -u $nap || :
		done
		kill -9 $pid 2>/dev/null || true
		st=0
		wait $pid || st=$?
		# a kill that came as the rebuild was ending finds the target
		# done: that is the rebuild ending first, too
		if [ $st = 137 ] && still_rebuilding "$target"; then
			exec {nap}<&-
			return 0
		fi
		[ $st = 137 ] && continue
		[ $st = 0 ] || fail "stripe-rebuild exited $st: $(cat "$D/half.out")"
	done
	fail "the rebuild always ended before it could be killed"
}

@test "a rebuild killed half way has already recorded the role it leaves missing as gone" {
	command -v mdadm >/dev/null || skip "mdadm is not installed"
	local meta dir v i=0
	for meta in 1.2 0.90; do
		in_sample $((i++)) 1 || continue
		dir=$D/half-$meta
		mkdir -p "$dir"
		stripe-create -q -l 6 -n 5 -c 64K -e "$meta" --image-size 128M "$dir"/m{0..4}.img
		head -c 380M /dev/urandom | stripe-write -q --progress none "$dir"/m{0..4}.img
		rm "$dir/m1.img" "$dir/m3.img"
		kill_half_way "$dir/new1.img" "$dir"/m{0,2,4}.img -- \
			--run --replace 1="$dir/new1.img" "$dir"/m{0,2,4}.img
		run mdadm --examine "$dir/m0.img"
		assert_success
		if [ "$meta" = 1.2 ]; then
			assert_output --partial "Array State : AAA.A "
		else
			# 0.90 has no recovery offset: the new member is a spare
			# until the end, and both lost disks are gone
			v=$(sed -n 's/^ *Failed Devices : //p' <<<"$output")
			[ "$v" = 2 ] || fail "0.90: mdadm --examine counts $v failed devices: $output"
			grep -qE '^ +1 +1 +0 +0 +1 +faulty removed' <<<"$output" || fail "0.90: disk 1 is not faulty removed: $output"
			grep -qE '^ +3 +3 +0 +0 +3 +faulty removed' <<<"$output" || fail "0.90: disk 3 is not faulty removed: $output"
		fi
		# and the rebuild run again finishes it, the array whole but for role 3
		stripe-rebuild -q --progress none --replace 1="$dir/new1.img" "$dir"/m{0,2,4}.img
		run stripe-check -q "$dir"/m{0,2,4}.img "$dir/new1.img"
		assert_success
	done
	swept
}

@test "a 0.90 rebuild of role 0 killed half way leaves the new member a spare in its own table, not faulty" {
	command -v mdadm >/dev/null || skip "mdadm is not installed"
	stripe-create -q -l 5 -n 4 -c 64K -e 0.90 --image-size 128M "$D"/m{0..3}.img
	head -c 380M /dev/urandom | stripe-write -q --progress none "$D"/m{0..3}.img
	rm "$D/m0.img"
	kill_half_way "$D/new0.img" "$D"/m{1,2,3}.img -- --replace 0="$D/new0.img" "$D"/m{1,2,3}.img
	# md reads a 0.90 member's state from its own table: a faulty entry
	# there would keep md from rebuilding onto it
	run mdadm --examine "$D/new0.img"
	assert_success
	grep -qE '^ +0 +0 +0 +0 +0 +spare' <<<"$output" || fail "disk 0 is not a spare in its own table: $output"
	[ "$(sed -n 's/^ *Failed Devices : //p' <<<"$output")" = 0 ] || fail "the new member counts failed devices: $output"
	# the survivors list disk 0 as md does when it is missing: removed
	run mdadm --examine "$D/m1.img"
	grep -qE '^ +0 +0 +0 +0 +0 +removed' <<<"$output" || fail "disk 0 is not removed in a survivor's table: $output"
	stripe-rebuild -q --progress none --replace 0="$D/new0.img" "$D"/m{1,2,3}.img
	run stripe-check -q "$D/new0.img" "$D"/m{1,2,3}.img
	assert_success
}

# sectors FILE SECTOR COUNT: the sha256 of COUNT sectors of FILE from SECTOR.
sectors() {
	dd if="$1" bs=512 skip="$2" count="$3" status=none | sha256sum | cut -d' ' -f1
}

@test "a raid6 survivor's range in its bad-block log is rewritten from redundancy during a rebuild and its entry cleared" {
	logged r6-5d-64k-ls-1.2 0 2176
	cp "${M[1]}" "$D/orig1"
	drop 1
	run stripe-rebuild --progress none --replace 1="${M[1]}" "${LEFT[@]}"
	assert_success
	assert_output --partial "survivors' bad-block logs: 4096 bytes rewritten from redundancy, 1 entries cleared"
	[ "$(sectors "${M[0]}" 2176 8)" = "$(sectors $FIX/r6-5d-64k-ls-1.2/member0.img 2176 8)" ] || fail "not md's bytes"
	[ -z "$(log_of "${M[0]}")" ] || fail "log: $(log_of "${M[0]}")"
	cmp <(data_area "$D/orig1") <(data_area "${M[1]}")
}

@test "a raid10 survivor's range in its bad-block log is rewritten from another copy during a rebuild and its entry cleared" {
	logged r10-3d-n3-1.2 0 2176
	drop 2
	run stripe-rebuild --progress none --replace 2="${M[2]}" "${LEFT[@]}"
	assert_success
	assert_output --partial "survivors' bad-block logs: 4096 bytes rewritten from redundancy, 1 entries cleared"
	[ "$(sectors "${M[0]}" 2176 8)" = "$(sectors $FIX/r10-3d-n3-1.2/member0.img 2176 8)" ] || fail "not md's bytes"
	[ -z "$(log_of "${M[0]}")" ] || fail "log: $(log_of "${M[0]}")"
	[ "$(stripe-read "${M[@]}" | sha)" = "$(manifest r10-3d-n3-1.2 array_sha256)" ]
}

@test "a raid5 survivor's range in its bad-block log with no redundancy left stays logged and is lost on the target" {
	logged r5-4d-64k-ls-1.2 1 2176
	drop 2
	run stripe-rebuild --progress none --replace 2="${M[2]}" "${LEFT[@]}"
	assert_failure 1
	assert_output --partial "unrecoverable: 4096 bytes"
	[ "$(log_of "${M[1]}")" = "2176+8" ] || fail "survivor's log: $(log_of "${M[1]}")"
	[ "$(log_of "${M[2]}")" = "2176+8" ] || fail "target's log: $(log_of "${M[2]}")"
}

@test "a range the rebuild logged unrecoverable reads as zeroes afterwards, named by its array bytes, with status 1" {
	local doff array
	M=($(copy_set r5-4d-64k-ls-1.2))
	drop 2
	doff=$(($(manifest r5-4d-64k-ls-1.2 member0.data_offset_sectors) * 512))
	export STRIPE_FAULT_READ="member0.img:$((doff + 65536 + 4096)):4096"
	run stripe-rebuild -q --progress none --replace 2="${M[2]}" "${LEFT[@]}"
	assert_failure 1
	# row 1, page 1: role 0's data (array chunk 4) and P, on role 2, both lost
	run --separate-stderr stripe-read -o "$D/out" "${M[@]}"
	assert_failure 1
	[[ $stderr == *"array bytes $((4 * 65536 + 4096))-$((4 * 65536 + 8191)) (4096 bytes): unreadable, and no redundancy left"* ]] ||
		fail "stderr: $stderr"
	[ "$(dd if="$D/out" bs=4096 skip=$((4 * 16 + 1)) count=1 status=none | tr -d '\0' | wc -c)" -eq 0 ] ||
		fail "not zeroes"
	cmp <(head -c $((4 * 65536 + 4096)) "$D/out") <(stripe-read --length $((4 * 65536 + 4096)) $(members r5-4d-64k-ls-1.2))
}
