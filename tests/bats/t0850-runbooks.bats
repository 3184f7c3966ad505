#!/usr/bin/env bats
# The runbooks: stripe-verify tells a healthy array from a sick one in one
# report and an exit status a cron job can act on; stripe-recover brings a
# degraded array back whole.
# suite: plain

bats_require_minimum_version 1.5.0
load helpers

setup_file() {
	in_plain_suite || return 0
	fixtures_ready
}

setup() {
	plain_suite_only
	D=$BATS_TEST_TMPDIR
}

@test "stripe-verify calls a clean array healthy and exits 0" {
	run stripe-verify "$FIX"/r6-5d-64k-ls-1.2/member*.img
	assert_success
	assert_output --partial "raid6, 5 members"
	assert_output --partial "0 inconsistent (mismatch_cnt 0)"
	assert_line "verdict: healthy"
}

@test "stripe-verify calls r5-4d-degraded degraded, names the stale member, and exits 1" {
	run stripe-verify "$FIX"/r5-4d-degraded/member*.img
	assert_failure 1
	assert_output --partial "role 2: MISSING"
	assert_output --partial "left out: $FIX/r5-4d-degraded/member2.img: stale: events 21"
	assert_line "verdict: degraded"
}

@test "stripe-verify reports md's mismatch count on r5-4d-badparity and exits 1" {
	run stripe-verify "$FIX"/r5-4d-badparity/member*.img
	assert_failure 1
	assert_output --partial "mismatch_cnt $(manifest r5-4d-badparity mismatch_cnt_after_corruption)"
	assert_line "verdict: mismatches"
}

@test "stripe-verify --repair mends the mismatches, and the next run is healthy" {
	M=($(copy_set r5-4d-badparity))
	run stripe-verify --repair "${M[@]}"
	assert_success
	assert_line "verdict: repaired"
	run stripe-verify -q "${M[@]}"
	assert_success
	assert_output "verdict: healthy"
}

@test "stripe-verify names the file a bad block of an ext4 array hurts" {
	local blk doff chunk c row dd pd role off
	M=($(copy_set r5-4d-ext4))
	stripe-read "${M[@]}" > "$D/array.img"
	blk=$(debugfs -R "blocks /dir/pattern-1m.bin" "$D/array.img" 2>/dev/null | tr ' ' '\n' | sed -n 2p)
	chunk=$(manifest r5-4d-ext4 chunk_bytes) doff=$(($(manifest r5-4d-ext4 member0.data_offset_sectors) * 512))
	c=$((blk * 4096 / chunk)) row=$((c / 3)) dd=$((c % 3)) pd=$((3 - row % 4))
	role=$(((pd + 1 + dd) % 4)) off=$((doff + row * chunk + blk * 4096 % chunk))
	printf 'CORRUPTED-BLOCK!' | dd of="${M[$role]}" bs=1 seek=$((off + 100)) conv=notrunc status=none
	run stripe-verify "${M[@]}"
	assert_failure 1
	assert_output --partial "array byte $((blk * 4096)): file /dir/pattern-1m.bin"
}

@test "stripe-verify --json gives one document on stdout with the verdict and the check's summary" {
	run stripe-verify --json "$FIX"/r5-4d-degraded/member*.img
	assert_failure 1
	jq -e '.format == 2 and .tool == "stripe-verify" and .verdict == "degraded"' <<<"$output"
	jq -e '.check.units == 1792 and (.left_out | length) == 1 and .array.level == "raid5"' <<<"$output"
}

@test "stripe-verify --json=FILE writes the report beside the human one" {
	run stripe-verify --json="$D/r.json" "$FIX"/r6-5d-64k-ls-1.2/member*.img
	assert_success
	assert_line "verdict: healthy"
	[ "$(jq -r .verdict "$D/r.json")" = healthy ]
}

@test "stripe-verify lists an array's hot spare as a spare, not a member left out, and exits 0" {
	stripe-create -q -l 5 -n 3 -x 1 --image-size 4M "$D"/d{0,1,2,3}.img
	run --separate-stderr stripe-verify "$D"/d{0,1,2,3}.img
	assert_success
	assert_line "  spare: $D/d3.img"
	refute_output --partial "left out"
	assert_line "verdict: healthy"
}

@test "stripe-verify of a raid0 says there is nothing to verify and exits 0" {
	run --separate-stderr stripe-verify "$FIX"/r0-3d-64k-1.2/member*.img
	assert_success
	assert_line "check: raid0 keeps no redundancy: nothing to verify"
	assert_line "verdict: healthy"
}

@test "a failed stripe-verify --json=FILE replaces last run's report with the error" {
	mkdir "$D/r"
	echo '{"verdict": "healthy"}' > "$D/r/v.json"
	run --separate-stderr stripe-verify -q --json="$D/r/v.json" /nonexistent
	assert_failure 2
	jq -e '.format == 2 and .tool == "stripe-verify" and .verdict == "error" and (.error | contains("/nonexistent: No such file or directory"))' "$D/r/v.json"
	[ "$(ls -A "$D/r")" = v.json ] || fail "left behind: $(ls -A "$D/r")"
}

@test "a failed stripe-verify --json puts the error document on stdout" {
	run --separate-stderr stripe-verify --json /nonexistent
	assert_failure 2
	jq -e '.verdict == "error"' <<<"$output"
}

@test "stripe-verify --json FILE takes FILE as a member, not as its report" {
	run --separate-stderr stripe-verify --json "$D/r.json" "$FIX"/r6-5d-64k-ls-1.2/member*.img
	assert_failure 2
	[ ! -e "$D/r.json" ] || fail "r.json was written"
	[[ $stderr == *"r.json"* ]] || fail "$stderr"
	jq -e '.verdict == "error"' <<<"$output"
}

@test "the runbooks parse with getopt: -qv and --opt=value work, an unknown option is one line and a hint" {
	run --separate-stderr stripe-verify -qv "$FIX"/r6-5d-64k-ls-1.2/member*.img
	assert_success
	assert_output "verdict: healthy"
	[[ $stderr == "stripe-verify: running stripe-examine "* ]] || fail "$stderr"
	run --separate-stderr stripe-verify --x "$FIX"/r6-5d-64k-ls-1.2/member*.img
	assert_failure 2
	[ "$stderr" = "stripe-verify: unrecognized option '--x'"$'\n'"Try 'stripe-verify --help'." ] || fail "$stderr"
	run --separate-stderr stripe-recover --x
	assert_failure 2
	[ "$stderr" = "stripe-recover: unrecognized option '--x'"$'\n'"Try 'stripe-recover --help'." ] || fail "$stderr"
	M=($(copy_set r5-4d-degraded))
	run --separate-stderr stripe-recover -qf --dry-run --json="$D/r.json" "${M[@]}"
	assert_success
	assert_output "verdict: would_rebuild"
	[ "$(jq -r .verdict "$D/r.json")" = would_rebuild ]
}

@test "stripe-verify on files that are no array exits 2 naming the reason" {
	truncate -s 4M "$D/a.img" "$D/b.img"
	run stripe-verify "$D/a.img" "$D/b.img"
	assert_failure 2
	assert_output --partial "stripe-verify: no array to verify"
}

# dash_named SET: the set's members copied into $D as -member0.img ...,
# names a tool would take for options; the names, relative to $D, in N.
dash_named() {
	local m
	N=()
	for m in "$FIX/$1"/member*.img; do
		cp "$m" "$D/-${m##*/}"
		N+=("-${m##*/}")
	done
}

@test "stripe-verify takes members whose names begin with a dash after --" {
	dash_named r6-5d-64k-ls-1.2
	cd "$D"
	run stripe-verify -- "${N[@]}"
	assert_success
	assert_line "verdict: healthy"
}

@test "stripe-recover takes members whose names begin with a dash after --" {
	dash_named r5-4d-degraded
	cd "$D"
	run stripe-recover -- "${N[@]}"
	assert_success
	assert_line "verdict: recovered"
	[ "$(stripe-read -- "${N[@]}" | sha)" = "$(manifest r5-4d-degraded array_sha256)" ]
}

# report_refused TOOL ARGS...: exits 2 with one line saying the report
# would overwrite a member, and leaves every member as it was
report_refused() {
	local before
	before=$(sha256sum "${M[@]}")
	run --separate-stderr "$@"
	[ "$status" -eq 2 ] || fail "$1 exited $status: $stderr"
	[ "$(grep -c . <<<"$stderr")" -eq 1 ] || fail "$1 said more than one line: $stderr"
	[[ $stderr == *"the report would overwrite it"* ]] || fail "$1: $stderr"
	[ "$before" = "$(sha256sum "${M[@]}")" ] || fail "$1 changed a member"
}

@test "the runbooks refuse a --json file that is a member, by any name, and change nothing" {
	M=($(copy_set r5-4d-degraded))
	ln -s "${M[1]}" "$D/link"
	report_refused stripe-verify --json="${M[0]}" "${M[@]}"
	report_refused stripe-verify --json="$D/link" "${M[@]}"
	report_refused stripe-recover --json="${M[2]}" "${M[@]}"
}

@test "the runbooks refuse a --json file that is a loop device over a member, or behind one" {
	[ "$(id -u)" -eq 0 ] || skip "needs root (loop devices)"
	M=($(copy_set r5-4d-degraded))
	local l
	l=$(losetup -f --show "${M[3]}") || skip "no loop device available"
	report_refused stripe-verify --json="${M[3]}" "${M[0]}" "${M[1]}" "${M[2]}" "$l"
	report_refused stripe-recover --json="$l" "${M[@]}"
	losetup -d "$l"
}

@test "stripe-recover brings r5-4d-degraded back whole by rebuilding the stale member in place" {
	M=($(copy_set r5-4d-degraded))
	run stripe-recover "${M[@]}"
	assert_success
	assert_output --partial "role 2: ${M[2]}: stale: events 21"
	assert_output --partial "rebuild role 2 in place on ${M[2]}"
	assert_line "verdict: recovered"
	[ "$(stripe-read "${M[@]}" | sha)" = "$(manifest r5-4d-degraded array_sha256)" ]
	[ "$(stripe-examine --json "${M[@]}" | jq -r .array.state)" = clean ]
}

@test "stripe-recover puts a spare in the lost role and leaves the stale member alone" {
	local before
	M=($(copy_set r5-4d-degraded))
	before=$(sha < "${M[2]}")
	run stripe-recover --spare "$D/new.img" "${M[@]}"
	assert_success
	assert_output --partial "rebuild role 2 onto $D/new.img"
	[ "$(sha < "${M[2]}")" = "$before" ]
	[ "$(stripe-read -q "${M[0]}" "${M[1]}" "$D/new.img" "${M[3]}" | sha)" = "$(manifest r5-4d-degraded array_sha256)" ]
}

@test "stripe-recover rebuilds two lost raid6 members onto two spares" {
	M=($(copy_set r6-5d-64k-ls-1.2))
	rm "${M[0]}" "${M[3]}"
	run stripe-recover --json --spare "$D/s0.img" --spare "$D/s3.img" "${M[1]}" "${M[2]}" "${M[4]}"
	assert_success
	jq -e '.verdict == "recovered" and .lost == [0, 3] and .array.state_after == "clean"' <<<"$output"
	[ "$(stripe-read "$D/s0.img" "${M[1]}" "${M[2]}" "$D/s3.img" "${M[4]}" | sha)" = "$(manifest r6-5d-64k-ls-1.2 array_sha256)" ]
}

@test "stripe-recover --dry-run says what it would do and changes nothing" {
	local before
	M=($(copy_set r5-4d-degraded))
	before=$(cat "${M[@]}" | sha)
	run stripe-recover --dry-run "${M[@]}"
	assert_success
	assert_output --partial "would rebuild role 2 in place on ${M[2]}"
	assert_line "verdict: would_rebuild"
	[ "$(cat "${M[@]}" | sha)" = "$before" ]
}

@test "stripe-recover without a replacement for a lost role exits 2 and says so" {
	M=($(copy_set r5-4d-degraded))
	run stripe-recover --no-readd "${M[@]}"
	assert_failure 2
	assert_output --partial "no replacement for role(s) 2"
	assert_line "verdict: no_replacement"
}

@test "stripe-recover on a whole array has nothing to do" {
	run stripe-recover "$FIX"/r5-4d-64k-ls-1.2/member*.img
	assert_success
	assert_output --partial "nothing to rebuild"
	assert_line "verdict: whole"
}

@test "the runbooks leave no temporary files behind" {
	# a TMPDIR of their own: other runs share /tmp
	export TMPDIR=$D/tmp
	mkdir "$TMPDIR" "$D/out"
	M=($(copy_set r5-4d-degraded))
	stripe-verify -q --json="$D/out/v.json" "${M[@]}" || true
	stripe-verify -q --json="$D/out/e.json" "$D/nonexistent" || true
	stripe-recover -q --dry-run "${M[@]}"
	[ -z "$(ls -A "$TMPDIR")" ] || fail "left in TMPDIR: $(ls -A "$TMPDIR")"
	[ "$(ls -A "$D/out")" = "$(printf 'e.json\nv.json')" ] || fail "left beside the reports: $(ls -A "$D/out")"
}

@test "an installed stripe-verify finds the tools installed beside it" {
	local d=$BATS_TEST_TMPDIR/root
	make -s -C "$TOP" -o all install DESTDIR="$d" PREFIX=/usr > /dev/null
	run env -u STRIPE_BIN PATH="$d/usr/bin:/usr/bin:/bin" "$d/usr/bin/stripe-verify" -q "$FIX"/r6-5d-64k-ls-1.2/member*.img
	assert_success
	assert_output "verdict: healthy"
}

@test "an installed stripe-recover finds the report functions installed for it" {
	local d=$BATS_TEST_TMPDIR/root
	make -s -C "$TOP" -o all install DESTDIR="$d" PREFIX=/usr > /dev/null
	[ -f "$d/usr/lib/stripe/report.bash" ] || fail "report.bash was not installed"
	run env -u STRIPE_BIN PATH="$d/usr/bin:/usr/bin:/bin" "$d/usr/bin/stripe-recover" -q --dry-run "$FIX"/r6-5d-64k-ls-1.2/member*.img
	assert_success
	assert_output "verdict: whole"
}

@test "the demo, the README's first command, runs to its report" {
	run "$TOP/tools/stripe-demo"
	assert_success
	assert_output --partial "two members rebuilt onto new images: the array is whole, consistent and reads the data."
	assert_output --partial "md's RAID6 read whole and with two members missing: equal to md's sha256."
}
