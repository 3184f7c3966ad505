#!/usr/bin/env bats
# stripe-read: the array's bytes, whole or degraded, equal what md read.

bats_require_minimum_version 1.5.0
load helpers
load badblocks-helpers

setup() {
	case_sample 2 2
}

setup_file() {
	fixtures_ready
}

@test "read of every fixture set has the MANIFEST's array sha256" {
	local set bad="" got i=0
	for set in $(all_sets); do
		# the sanitized run reads a sample (the plain run every set)
		in_plain_suite || in_sample $((i++)) 2 || continue
		got=$(stripe-read $(members "$set") | sha)
		# a mirror with one bad copy reads either copy, as md's read balancing does
		[ "$got" = "$(manifest "$set" array_sha256)" ] ||
			[ "$got" = "$(manifest "$set" array_sha256_good_copy)" ] ||
			[ "$got" = "$(manifest "$set" array_sha256_bad_copy)" ] || bad+=" $set"
	done
	swept
	[ -z "$bad" ] || fail "sha256 differs for:$bad"
}

@test "read of the degraded set rebuilds the stale member's role" {
	run bash -c "stripe-read $FIX/r5-4d-degraded/member{0,1,3}.img | sha256sum"
	assert_success
	assert_output --partial "$(manifest r5-4d-degraded array_sha256)"
}

@test "read warns on stderr about the stale member it leaves out" {
	run --separate-stderr stripe-read --length 4096 $(members r5-4d-degraded)
	assert_success
	[[ $stderr == *"member2.img: left out: stale: events 21"* ]]
}

@test "read of a raid6 with any two members missing gives the same bytes" {
	local set=r6-5d-64k-ls-1.2 want a b m use i=0
	want=$(manifest $set array_sha256)
	for a in 0 1 2 3 4; do
		for ((b = a + 1; b <= 4; b++)); do
			in_sample $((i++)) 3 || continue
			use=()
			for m in 0 1 2 3 4; do
				[ $m = $a ] || [ $m = $b ] || use+=("$FIX/$set/member$m.img")
			done
			[ "$(stripe-read -q "${use[@]}" | sha)" = "$want" ] ||
				fail "roles $a and $b missing: wrong bytes"
		done
	done
	swept
}

@test "read of every raid4/5/6 set with each member missing gives the same bytes" {
	local set n m use want k=0
	for set in $(all_sets); do
		case $(manifest "$set" level) in raid4|raid5|raid6) ;; *) continue ;; esac
		[ "$(manifest "$set" content)" = pattern ] || continue
		[ -z "$(manifest "$set" corrupt_count)" ] || continue
		want=$(manifest "$set" array_sha256)
		n=$(members "$set" | wc -l)
		k=$((k + 1))
		for ((m = 0; m < n; m++)); do
			if [ "$set" = r5-4d-degraded ]; then
				# its member 2 is stale: only that role can be the one missing
				[ $m = 2 ] || continue
			else
				# every set, a different member of each in each seed
				in_sample $((m + k)) "$n" || continue
			fi
			use=$(members "$set" | grep -v "member$m.img")
			[ "$(stripe-read -q $use | sha)" = "$want" ] || fail "$set without member$m"
		done
	done
	swept
}

@test "read of raid1 and raid10 sets with one member missing gives the same bytes" {
	local set m all use i k=0
	for set in r1-2d-1.2 r1-3d-0.90 r10-4d-n2-1.2 r10-4d-f2-1.2; do
		k=$((k + 1)) i=0
		all=($(members "$set"))
		for m in "${all[@]}"; do
			# one member of each set, another one in each seed
			in_sample $((i++ + k)) ${#all[@]} || continue
			use=$(members "$set" | grep -vx "$m")
			[ "$(stripe-read -q $use | sha)" = "$(manifest "$set" array_sha256)" ] ||
				fail "$set without $(basename "$m")"
		done
	done
	swept
}

@test "read of the degraded set without a second member fails before writing" {
	run --separate-stderr stripe-read -o "$BATS_TEST_TMPDIR/out" $FIX/r5-4d-degraded/member{0,1}.img
	assert_failure 2
	[[ $stderr == *"missing roles 2, 3"* ]]
	[ ! -s "$BATS_TEST_TMPDIR/out" ] || [ ! -e "$BATS_TEST_TMPDIR/out" ]
}

# data_byte SET MEMBER: the byte offset of MEMBER's data area in SET.
data_byte() {
	echo $(($(stripe-examine --json $(members "$1") |
		jq -r ".members[] | select(.path | endswith(\"$2\")) | .data_offset_sectors") * 512))
}

@test "read around a raid5 member's read errors gives md's bytes, names each run, and exits 0" {
	local m1 m3
	m1=$(data_byte r5-4d-64k-ls-1.2 member1.img) m3=$(data_byte r5-4d-64k-ls-1.2 member3.img)
	STRIPE_FAULT_READ="member1.img:$((m1 + 3 * 65536 + 8192)):8192,member3.img:$((m3 + 9 * 65536)):4096" \
		run --separate-stderr stripe-read -o "$BATS_TEST_TMPDIR/out" $(members r5-4d-64k-ls-1.2)
	assert_success
	[ "$(sha "$BATS_TEST_TMPDIR/out")" = "$(manifest r5-4d-64k-ls-1.2 array_sha256)" ]
	[[ $stderr == *"member1.img: read error at bytes $((m1 + 3 * 65536 + 8192))-$((m1 + 3 * 65536 + 16383)) (8192 bytes); rebuilt from the other members"* ]] ||
		fail "stderr: $stderr"
	[[ $stderr == *"member3.img: read error at bytes $((m3 + 9 * 65536))-"* ]] || fail "stderr: $stderr"
}

@test "read around raid6 read errors on two members in one page gives md's bytes" {
	local m0 m2
	m0=$(data_byte r6-5d-64k-ls-1.2 member0.img) m2=$(data_byte r6-5d-64k-ls-1.2 member2.img)
	STRIPE_FAULT_READ="member0.img:$m0:65536,member2.img:$m2:65536" \
		run --separate-stderr stripe-read -o "$BATS_TEST_TMPDIR/out" $(members r6-5d-64k-ls-1.2)
	assert_success
	[ "$(sha "$BATS_TEST_TMPDIR/out")" = "$(manifest r6-5d-64k-ls-1.2 array_sha256)" ]
}

@test "read around a raid1 or raid10 member whose data area fails every read takes the other copies" {
	local set
	for set in r1-2d-1.2 r10-4d-n2-1.2 r10-4d-f2-1.2 r10-4d-o2-1.2; do
		STRIPE_FAULT_READ="member0.img:$(data_byte "$set" member0.img):1099511627776" \
			run --separate-stderr stripe-read -o "$BATS_TEST_TMPDIR/out" $(members "$set")
		assert_success
		[ "$(sha "$BATS_TEST_TMPDIR/out")" = "$(manifest "$set" array_sha256)" ] || fail "$set differs"
		[[ $stderr == *"member0.img: read error at bytes "* ]] || fail "$set: $stderr"
	done
}

# zeroed_like FILE SET OFF LEN [OFF LEN...]: FILE is SET's array with bytes
# [OFF, OFF+LEN) zeroes and every other byte as md read it.
zeroed_like() {
	local file=$1 want=$BATS_TEST_TMPDIR/want
	stripe-read -q -o "$want" $(members "$2")
	shift 2
	while (($#)); do
		dd if=/dev/zero of="$want" bs=1 seek="$1" count="$2" conv=notrunc status=none
		shift 2
	done
	cmp "$file" "$want"
}

@test "a raid1 page no copy can read reads as zeroes, named by its array bytes, and the read goes on with status 1" {
	local m0
	m0=$(data_byte r1-2d-1.2 member0.img)
	STRIPE_FAULT_READ="member0.img:$m0:4096,member1.img:$m0:4096" \
		run --separate-stderr stripe-read -q -o "$BATS_TEST_TMPDIR/out" $(members r1-2d-1.2)
	assert_failure 1
	[[ $stderr == *"array bytes 0-4095 (4096 bytes): unreadable, and no redundancy left to rebuild them; read as zeroes"* ]] ||
		fail "stderr: $stderr"
	zeroed_like "$BATS_TEST_TMPDIR/out" r1-2d-1.2 0 4096
}

@test "a read error where a raid5 has no redundancy left reads as zeroes, named by its array bytes, with status 1" {
	local m0
	m0=$(data_byte r5-4d-degraded member0.img)
	STRIPE_FAULT_READ="member0.img:$m0:4096" \
		run --separate-stderr stripe-read -q -o "$BATS_TEST_TMPDIR/out" $FIX/r5-4d-degraded/member{0,1,3}.img
	assert_failure 1
	# the page of role 0 and, rebuilt from it, the page of the missing role 2
	[[ $stderr == *"stripe-read: array bytes 0-4095 (4096 bytes): unreadable, and no redundancy left to rebuild them; read as zeroes"* ]] ||
		fail "stderr: $stderr"
	[[ $stderr == *"stripe-read: array bytes 131072-135167 (4096 bytes): unreadable"* ]] || fail "stderr: $stderr"
	zeroed_like "$BATS_TEST_TMPDIR/out" r5-4d-degraded 0 4096 131072 4096
}

@test "read --offset and --length give the matching slice of the array" {
	local set=r5-4d-64k-la-1.2 off=$((65536 * 3 - 4096)) len=$((65536 * 5 + 512))
	stripe-read $(members $set) > "$BATS_TEST_TMPDIR/all"
	stripe-read --offset $off --length $len $(members $set) > "$BATS_TEST_TMPDIR/part"
	cmp "$BATS_TEST_TMPDIR/part" <(tail -c +$((off + 1)) "$BATS_TEST_TMPDIR/all" | head -c $len)
}

@test "read of a block holds the fixture pattern for that block" {
	run stripe-read --offset 8K --length 4096 $(members r6-6d-128k-ls-1.2)
	assert_success
	assert_output --partial "blk=0000000000000002 set=r6-6d-128k-ls-1.2"
}

@test "read --output writes the array to a file" {
	stripe-read --output "$BATS_TEST_TMPDIR/a" $(members r0-3d-64k-1.2)
	[ "$(sha "$BATS_TEST_TMPDIR/a")" = "$(manifest r0-3d-64k-1.2 array_sha256)" ]
}

@test "read of the ext4 set reads the filesystem md wrote" {
	stripe-read $(members r5-4d-ext4) > "$BATS_TEST_TMPDIR/fs"
	run debugfs -R "cat /dir/sub/small.txt" "$BATS_TEST_TMPDIR/fs"
	assert_output --partial "small file"
}

@test "read does not change any member" {
	local before after
	before=$(sha $(members r6-5d-64k-ls-1.2))
	stripe-read $(members r6-5d-64k-ls-1.2) > /dev/null
	after=$(sha $(members r6-5d-64k-ls-1.2))
	[ "$before" = "$after" ]
}

@test "read serves a range in a member's bad-block log from the other members, as md does, and names it" {
	# sector 2176 of member 1: data sector 128, in stripe row 1
	logged r5-4d-64k-ls-1.2 1 2176
	run --separate-stderr stripe-read -o "$BATS_TEST_TMPDIR/out" "${M[@]}"
	assert_success
	[ "$(sha "$BATS_TEST_TMPDIR/out")" = "$(manifest r5-4d-64k-ls-1.2 array_sha256)" ] || fail "not md's bytes"
	[[ $stderr == *"member1.img: read error at bytes $((2176 * 512))-$((2184 * 512 - 1)) (4096 bytes); rebuilt from the other members"* ]] ||
		fail "stderr: $stderr"
}

@test "check counts a range in a member's bad-block log as unreadable, not as a parity mismatch" {
	logged r5-4d-64k-ls-1.2 1 2176
	run stripe-check "${M[@]}"
	assert_failure 1
	assert_output --partial "not verified, unreadable: data on ${M[1]} at byte $((2176 * 512))"
	assert_output --partial "0 inconsistent (md's mismatch_cnt would be 0)"
}

@test "read of a raid0 range in a member's bad-block log gives zeroes there, names its array bytes, and exits 1" {
	# sector 2176 of role 1: data sector 128, its chunk 1, array chunk 1 * 3 + 1
	logged r0-3d-64k-1.2 1 2176
	run --separate-stderr stripe-read -o "$BATS_TEST_TMPDIR/out" "${M[@]}"
	assert_failure 1
	[[ $stderr == *"array bytes $((4 * 65536))-$((4 * 65536 + 4095)) (4096 bytes): unreadable, and no redundancy left"* ]] ||
		fail "stderr: $stderr"
	zeroed_like "$BATS_TEST_TMPDIR/out" r0-3d-64k-1.2 $((4 * 65536)) 4096
}

@test "read of a degraded raid5 range in a survivor's bad-block log gives zeroes there and the rest as md read it" {
	logged r5-4d-64k-ls-1.2 1 2176
	run --separate-stderr stripe-read -o "$BATS_TEST_TMPDIR/out" "${M[0]}" "${M[1]}" "${M[3]}"
	assert_failure 1
	[[ $stderr == *"array bytes 327680-331775 (4096 bytes): unreadable, and no redundancy left"* ]] ||
		fail "stderr: $stderr"
	zeroed_like "$BATS_TEST_TMPDIR/out" r5-4d-64k-ls-1.2 327680 4096
}

@test "read of a raid1 range every copy of which is in a bad-block log gives zeroes there and exits 1" {
	logged r1-2d-1.2 0 2176
	log_entry "${M[1]}" 0 2176
	run --separate-stderr stripe-read -o "$BATS_TEST_TMPDIR/out" "${M[@]}"
	assert_failure 1
	[[ $stderr == *"array bytes 65536-69631 (4096 bytes): unreadable, and no redundancy left"* ]] || fail "stderr: $stderr"
	zeroed_like "$BATS_TEST_TMPDIR/out" r1-2d-1.2 65536 4096
}

@test "read of a raid1 range in one copy's bad-block log takes it from the other copy" {
	logged r1-2d-1.2 0 2176
	run --separate-stderr stripe-read -o "$BATS_TEST_TMPDIR/out" "${M[@]}"
	[ "$(sha "$BATS_TEST_TMPDIR/out")" = "$(manifest r1-2d-1.2 array_sha256)" ] || fail "not md's bytes"
	[[ $stderr != *"no redundancy left"* ]] || fail "stderr: $stderr"
}
