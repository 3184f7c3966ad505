#!/usr/bin/env bats
# stripe-verify for monitoring: --prom's node_exporter textfile (Prometheus's
# text format, its values those of the run's own report), the --program and
# --mail alerts on a change of state as mdadm --monitor raises them, and the
# systemd service and timer that run it.
# suite: plain

bats_require_minimum_version 1.5.0
load helpers

LINT=$BATS_TEST_DIRNAME/prom-lint.awk

# The metrics of three runs, made once for the file's tests: md's
# degraded array (a member stale), one of whose members also fails a read
# where no redundancy is left to rebuild it; a healthy array; md's array
# with bad parity, its metrics on stdout.  Each with its --json report
# beside it, and the first
# two with the alerts of a --program (hook_script) that appends its
# arguments to NAME.log, the healthy one with --test; the degraded one's
# also mailed with mail(1) (a stub keeping it in mail.txt) where the
# machine has no sendmail, which stripe-verify would take first.

setup_file() {
	in_plain_suite || return 0
	fixtures_ready
	local d=$BATS_FILE_TMPDIR
	printf '#!/bin/sh\necho "$*" >> "%s/$STRIPE_HOOK_LOG"\n' "$d" > "$d/hook"
	mkdir "$d/bin"
	printf '#!/bin/sh\n{ echo "mail $*"; cat; } > "%s/mail.txt"\n' "$d" > "$d/bin/mail"
	chmod +x "$d/hook" "$d/bin/mail"
	local mail=()
	PATH=$PATH:/usr/sbin:/usr/lib command -v sendmail > /dev/null || mail=(--mail root)
	# member0's block of array byte 262144: row 1 of a 4-member
	# left-symmetric RAID5, whose parity is on the missing role 2
	STRIPE_FAULT_READ="member0.img:$((2048 * 512 + 65536)):4096" STRIPE_HOOK_LOG=degraded.log PATH=$d/bin:$PATH \
		stripe-verify -q --no-files --json="$d/degraded.json" --prom="$d/degraded.prom" --program "$d/hook" \
		"${mail[@]}" "$FIX"/r5-4d-degraded/member*.img > /dev/null || true
	STRIPE_HOOK_LOG=healthy.log stripe-verify -q --no-files --json="$d/healthy.json" --prom="$d/healthy.prom" \
		--program "$d/hook" --test "$FIX"/r6-5d-64k-ls-1.2/member*.img > /dev/null
	# --prom alone: the metrics on stdout
	stripe-verify -q --no-files --json="$d/badparity.json" --prom \
		"$FIX"/r5-4d-badparity/member*.img > "$d/badparity.prom" 2> "$d/badparity.err" || true
}

setup() {
	plain_suite_only
	D=$BATS_TEST_TMPDIR
	P=$BATS_FILE_TMPDIR
}

# labels SET: the label set of the array of a run's report (SET.json)
labels() {
	jq -r '"uuid=\"\(.array.uuid)\",name=\"\(.array.name)\""' "$P/$1.json"
}

# samples SET: every line of stdin, with {@ standing for "{" and the
# array's own labels (from the run's report), is a line of SET's metrics;
# fails naming those that are not
samples() {
	local l want line missing=''
	l=$(labels "$1")
	declare -A have
	while IFS= read -r line; do have[$line]=1; done < "$P/$1.prom"
	while IFS= read -r want; do
		want=${want//\{@/\{$l}
		[ -n "${have[$want]:-}" ] || missing+=$'\n'$want
	done
	[ -z "$missing" ] || fail "not in $1.prom:$missing"
}

@test "stripe-verify --prom=FILE writes a textfile that Prometheus's text format grammar accepts" {
	local f
	for f in degraded healthy badparity; do
		run awk -f "$LINT" "$P/$f.prom"
		assert_success
		assert_output ""
	done
}

@test "the grammar check finds each kind of fault in a textfile" {
	local bad=$D/bad.prom
	printf '# HELP a help\n# TYPE a gauge\na{x="1"} 1\na{x="1"} 2\nb 1\n# HELP c_total c\n# TYPE c_total gauge\nc_total 1\n' > "$bad"
	printf '# HELP a again\na{y="2",} 1 123\na{x="a\\q"} 1\na{__x="a"} 1\na{x=1} 1\na{x="a",x="b"} NaN\na{x="d"} 1,5\na 1 x\n' >> "$bad"
	run awk -f "$LINT" "$bad"
	assert_failure
	assert_output "4: a: the same series twice
5: b: a sample before its family's TYPE
5: b: no HELP for its family
7: c_total: only a counter's name ends in _total
9: a second HELP for a
10: a: its family's samples are not in one group
11: label x: bad escape \\q
12: label name __x is reserved
13: label x: value not quoted
14: label x twice
15: a: bad value \"1,5\"
16: a: bad timestamp \"x\""
}

@test "promtool check metrics accepts the textfile, where Prometheus is installed" {
	command -v promtool > /dev/null || skip "promtool is not installed (Debian's prometheus package); the grammar spec above stands in"
	local f
	for f in degraded healthy badparity; do
		run promtool check metrics < "$P/$f.prom"
		assert_success
	done
}

@test "the metrics of md's degraded array say degraded, one role missing, and the stale member left out" {
	local m=$FIX/r5-4d-degraded/member
	samples degraded <<-END
		stripe_array_verify_success{@} 1
		stripe_array_info{@,level="raid5"} 1
		stripe_array_state{@,state="degraded"} 1
		stripe_array_state{@,state="healthy"} 0
		stripe_array_roles{@} 4
		stripe_array_degraded_roles{@} 1
		stripe_array_size_bytes{@} $(manifest r5-4d-degraded array_size_bytes)
		stripe_array_member_role{@,member="${m}3.img"} 3
		stripe_array_member_role{@,member="${m}2.img"} -1
		stripe_array_member_state{@,member="${m}2.img",state="stale"} 1
		stripe_array_member_state{@,member="${m}2.img",state="active"} 0
		stripe_array_member_state{@,member="${m}0.img",state="active"} 1
		stripe_array_mismatches{@} 0
	END
	# each member's state once a state: eight states, four members
	[ "$(grep -c '^stripe_array_member_state{' "$P/degraded.prom")" -eq 32 ]
}

@test "the metrics of a healthy array say healthy, no role missing, no mismatch, no read error" {
	[ "$(jq -r .verdict "$P/healthy.json")" = healthy ]
	samples healthy <<-END
		stripe_array_state{@,state="healthy"} 1
		stripe_array_state{@,state="degraded"} 0
		stripe_array_verdict{@,verdict="healthy"} 1
		stripe_array_degraded_roles{@} 0
		stripe_array_mismatches{@} 0
		stripe_array_unrecoverable_bytes{@} 0
		stripe_array_member_role{@,member="$FIX/r6-5d-64k-ls-1.2/member4.img"} 4
		stripe_array_member_read_errors{@,member="$FIX/r6-5d-64k-ls-1.2/member4.img"} 0
	END
	[ "$(grep -c '^stripe_array_member_role{' "$P/healthy.prom")" -eq 5 ]
}

@test "a read error where no redundancy is left counts 4096 unrecoverable bytes and one read error on its member" {
	jq -e '.unrecoverable_bytes == 4096 and .members[0].read_errors == 1 and .check.read_errors == 1' "$P/degraded.json"
	samples degraded <<-END
		stripe_array_unrecoverable_bytes{@} 4096
		stripe_array_member_read_errors{@,member="$FIX/r5-4d-degraded/member0.img"} 1
		stripe_array_member_read_errors{@,member="$FIX/r5-4d-degraded/member1.img"} 0
		stripe_array_verdict{@,verdict="unreadable"} 1
	END
}

@test "the mismatches of md's array with bad parity are md's mismatch_cnt in 4 KiB units" {
	samples badparity <<-END
		stripe_array_mismatches{@} $(($(manifest r5-4d-badparity mismatch_cnt_after_corruption) / 8))
		stripe_array_verdict{@,verdict="mismatches"} 1
		stripe_array_state{@,state="healthy"} 1
	END
}

@test "the last run's time and duration are the run's own, in seconds" {
	local t d now=${EPOCHREALTIME%[.,]*}
	t=$(sed -n 's/^stripe_array_last_verify_timestamp_seconds{.*} //p' "$P/healthy.prom")
	d=$(sed -n 's/^stripe_array_last_verify_duration_seconds{.*} //p' "$P/healthy.prom")
	[[ $t =~ ^[0-9]+\.[0-9]{6}$ && $d =~ ^[0-9]+\.[0-9]{6}$ ]] || fail "time $t, duration $d"
	((${t%.*} <= now && ${t%.*} > now - 600)) || fail "started at $t, now is $now"
	((${d%.*} < 60)) && [ "$d" != 0.000000 ] || fail "took $d s"
}

@test "stripe-verify --prom prints the metrics alone on stdout; with --json on stdout too it is refused" {
	run cat "$P/badparity.prom"
	[ "${lines[0]}" = "# HELP stripe_array_verify_success Whether the last stripe-verify run reached a verdict (1) or failed (0)" ]
	refute_line "verdict: mismatches"
	[ ! -s "$P/badparity.err" ] || fail "$(cat "$P/badparity.err")"
	run --separate-stderr stripe-verify --prom --json "$FIX"/r6-5d-64k-ls-1.2/member*.img
	assert_failure 2
	[ "$stderr" = "stripe-verify: --json and --prom cannot both take standard output"$'\n'"Try 'stripe-verify --help'." ] ||
		fail "$stderr"
}

@test "a failed run replaces the textfile with verify_success 0 under the last run's labels, and leaves nothing beside it" {
	local l
	l=$(labels healthy)
	mkdir "$D/out"
	cp "$P/healthy.prom" "$D/out/md0.prom"
	run --separate-stderr stripe-verify -q --prom="$D/out/md0.prom" "$D/nonexistent"
	assert_failure 2
	run cat "$D/out/md0.prom"
	assert_line "stripe_array_verify_success{$l} 0"
	refute_output --partial "stripe_array_state"
	awk -f "$LINT" "$D/out/md0.prom"
	[ "$(ls -A "$D/out")" = md0.prom ] || fail "left beside it: $(ls -A "$D/out")"
}

@test "stripe-verify refuses a --prom file that is a member, and writes nothing" {
	M=($(copy_set r1-2d-1.2))
	run --separate-stderr stripe-verify --prom="${M[1]}" "${M[@]}"
	assert_failure 2
	[ "$stderr" = "stripe-verify: ${M[1]}: is the member ${M[1]}; the report would overwrite it" ] || fail "$stderr"
	cmp "${M[1]}" "$FIX/r1-2d-1.2/${M[1]##*/}"
}

# hook_script: $D/hook, a --program that appends its arguments to $D/hook.log
hook_script() {
	printf '#!/bin/sh\necho "$*" >> "%s/hook.log"\n' "$D" > "$D/hook"
	chmod +x "$D/hook"
}

@test "--program fires once healthy to degraded, not on a second degraded run, and once degraded to healthy" {
	local u
	u=$(jq -r .array.uuid "$P/healthy.json")
	hook_script
	# from the state the healthy run left (whose only alert was its
	# TestMessage: a first healthy run is quiet)
	cp "$P/healthy.json.state" "$D/r.json.state"
	[ "$(cat "$P/healthy.log")" = "TestMessage $u" ]
	# stripe-verify without --repair only reads: md's own members serve
	M=("$FIX"/r6-5d-64k-ls-1.2/member{0,1,2,3,4}.img)
	run stripe-verify -q --no-files --json="$D/r.json" --program "$D/hook" "${M[0]}" "${M[1]}" "${M[3]}" "${M[4]}"
	assert_failure 1
	run stripe-verify -q --no-files --json="$D/r.json" --program "$D/hook" "${M[0]}" "${M[1]}" "${M[3]}" "${M[4]}"
	assert_failure 1
	[ "$(cat "$D/hook.log")" = "Fail $u ${M[2]}" ] || fail "$(cat "$D/hook.log")"
	run stripe-verify -q --no-files --json="$D/r.json" --program "$D/hook" "${M[@]}"
	assert_success
	[ "$(cat "$D/hook.log")" = "Fail $u ${M[2]}"$'\n'"SpareActive $u ${M[2]}" ] || fail "$(cat "$D/hook.log")"
	[ "$(jq -r .state "$D/r.json.state")" = healthy ]
}

@test "--program hears DegradedArray, with no member, for an array first seen degraded" {
	[ "$(cat "$P/degraded.log")" = "DegradedArray $(jq -r .array.uuid "$P/degraded.json")" ] ||
		fail "$(cat "$P/degraded.log")"
}

@test "--program hears DeviceDisappeared when no array is read where one was, and NewArray when it is back" {
	local u
	[ -n "${STRIPE_FULL:-}" ] || skip "two more runs of the alerts: make check-full"
	hook_script
	u=$(jq -r .array.uuid "$P/healthy.json")
	# the state the healthy run left: the array was read
	cp "$P/healthy.json.state" "$D/r.json.state"
	run --separate-stderr stripe-verify -q --json="$D/r.json" --program "$D/hook" "$D/nonexistent"
	assert_failure 2
	run --separate-stderr stripe-verify -q --json="$D/r.json" --program "$D/hook" "$D/nonexistent"
	assert_failure 2
	stripe-verify -q --no-files --json="$D/r.json" --program "$D/hook" "$FIX"/r6-5d-64k-ls-1.2/member*.img
	[ "$(cat "$D/hook.log")" = "DeviceDisappeared $u"$'\n'"NewArray $u" ] || fail "$(cat "$D/hook.log")"
}

@test "a --program that fails makes the run exit 2 and keeps no new state, so the next run fires again" {
	[ -n "${STRIPE_FULL:-}" ] || skip "two more runs of the alerts: make check-full"
	printf '#!/bin/sh\necho "$1" >> "%s/hook.log"\nexit 3\n' "$D" > "$D/hook"
	chmod +x "$D/hook"
	run --separate-stderr stripe-verify -q --no-files --json="$D/r.json" --program "$D/hook" "$FIX"/r5-4d-degraded/member*.img
	assert_failure 2
	[ "$stderr" = "stripe-verify: --program $D/hook DegradedArray $(jq -r .array.uuid "$D/r.json"): exit status 3
stripe-verify: not every alert was delivered; the last state is kept, so the next run tries again" ] || fail "$stderr"
	[ "$(jq -r .verdict "$D/r.json")" = degraded ] || fail "the report is not this run's"
	[ ! -e "$D/r.json.state" ] || fail "state kept: $(cat "$D/r.json.state")"
	run --separate-stderr stripe-verify -q --no-files --json="$D/r.json" --program "$D/hook" "$FIX"/r5-4d-degraded/member*.img
	assert_failure 2
	[ "$(cat "$D/hook.log")" = $'DegradedArray\nDegradedArray' ] || fail "$(cat "$D/hook.log")"
}

@test "--mail sends DegradedArray through sendmail -t, with mdadm's To and Subject and the run's report" {
	mkdir "$D/bin"
	printf '#!/bin/sh\n[ "$1" = -t ] || exit 9\ncat >> "%s/mail.txt"\necho .. >> "%s/mail.txt"\n' "$D" "$D" > "$D/bin/sendmail"
	chmod +x "$D/bin/sendmail"
	PATH=$D/bin:$PATH run stripe-verify -q --no-files --json="$D/r.json" --mail=ops@example.org \
		"$FIX"/r5-4d-degraded/member*.img
	assert_failure 1
	run cat "$D/mail.txt"
	assert_line "To: ops@example.org"
	assert_line "Subject: DegradedArray event on $(jq -r .array.uuid "$D/r.json"):$(hostname)"
	assert_line "  role 2: MISSING"
	assert_line "verdict: degraded"
	[ "$(grep -c '^\.\.$' "$D/mail.txt")" -eq 1 ] || fail "not one mail: $(cat "$D/mail.txt")"
}

@test "--mail sends through mail -s where there is no sendmail" {
	[ -e "$P/mail.txt" ] || skip "this machine has a sendmail, which stripe-verify takes first"
	run cat "$P/mail.txt"
	assert_line "mail -s DegradedArray event on $(jq -r .array.uuid "$P/degraded.json"):$(hostname) root"
	assert_line "A DegradedArray event was detected on the md array $(jq -r .array.uuid "$P/degraded.json")."
	refute_line --partial "To: "
}

@test "--mail with neither sendmail nor mail on the machine is refused in one line before anything is done" {
	local p=/usr/local/bin:/usr/bin:/bin d
	for d in ${p//:/ } /usr/sbin /usr/lib; do
		[ ! -x "$d/sendmail" ] && [ ! -x "$d/mail" ] || skip "$d has sendmail or mail"
	done
	run --separate-stderr env PATH="$p" "$TOP/tools/stripe-verify" -q --json="$D/r.json" --mail root \
		"$FIX"/r6-5d-64k-ls-1.2/member*.img
	assert_failure 2
	[ "$stderr" = "stripe-verify: --mail root: neither sendmail nor mail is installed to send it" ] || fail "$stderr"
	[ ! -e "$D/r.json.state" ]
}

@test "--program and --mail without --json=FILE, or --test without either, are usage errors" {
	hook_script
	run --separate-stderr stripe-verify --program "$D/hook" "$FIX"/r6-5d-64k-ls-1.2/member*.img
	assert_failure 2
	[ "$stderr" = "stripe-verify: --mail and --program keep the last state beside the report: give --json=FILE"$'\n'"Try 'stripe-verify --help'." ] ||
		fail "$stderr"
	run --separate-stderr stripe-verify --test --json="$D/r.json" "$FIX"/r6-5d-64k-ls-1.2/member*.img
	assert_failure 2
	[[ $stderr == "stripe-verify: --test alerts through --mail or --program; give one"* ]] || fail "$stderr"
	run --separate-stderr stripe-verify --json="$D/r.json" --program "$D/nonexistent" "$FIX"/r6-5d-64k-ls-1.2/member*.img
	assert_failure 2
	[ "$stderr" = "stripe-verify: --program $D/nonexistent: not an executable file" ] || fail "$stderr"
	[ ! -e "$D/r.json.state" ]
}

@test "--test fires a TestMessage on a run that has no change to alert" {
	[ "$(cat "$P/healthy.log")" = "TestMessage $(jq -r .array.uuid "$P/healthy.json")" ] ||
		fail "$(cat "$P/healthy.log")"
}

# unit_files DIR: the service and timer as instance md0 in DIR, the tools'
# directory in place of @BINDIR@ (as make install puts its own)
unit_files() {
	mkdir -p "$1"
	sed "s|@BINDIR@|$TOP/tools|" "$TOP/systemd/stripe-verify@.service" > "$1/stripe-verify@md0.service"
	cp "$TOP/systemd/stripe-verify@.timer" "$1/stripe-verify@md0.timer"
}

@test "systemd-analyze verify accepts the service and the timer, which runs on Debian's mdcheck schedule" {
	grep -qx 'OnCalendar=Sun \*-\*-1\.\.7 1:00:00' "$TOP/systemd/stripe-verify@.timer"
	command -v systemd-analyze > /dev/null || skip "systemd-analyze is not installed"
	unit_files "$D/units"
	run systemd-analyze verify --man=no "$D/units/stripe-verify@md0.service" "$D/units/stripe-verify@md0.timer"
	assert_success
	assert_output ""
}

@test "the service's ExecStart line, run as systemd runs it, verifies the members its config file lists" {
	local line words
	M=("$FIX"/r5-4d-64k-ls-1.2/member{0,1,2,3}.img)
	grep -qx 'EnvironmentFile=/etc/stripe/%i.conf' "$TOP/systemd/stripe-verify@.service"
	mkdir "$D/etc" "$D/state"
	printf 'MEMBERS="%s"\nOPTIONS="--no-files --prom=%s"\n' "${M[*]}" "$D/md0.prom" > "$D/etc/md0.conf"
	line=$(sed -n 's/^ExecStart=//p' "$TOP/systemd/stripe-verify@.service")
	line=${line//%i/md0}
	line=${line//@BINDIR@/$TOP/tools}
	line=${line//\/var\/lib\/stripe/$D/state}
	# the config file's variables, and the line split as systemd splits it:
	# an unquoted $VAR at white space, as the shell does
	set -a
	. "$D/etc/md0.conf"
	set +a
	eval "words=($line)"
	run "${words[@]}"
	assert_success
	assert_output "verdict: healthy"
	[ "$(jq -r .verdict "$D/state/md0.json")" = healthy ]
	grep -q '^stripe_array_state{.*state="healthy"} 1$' "$D/md0.prom"
}

@test "make install puts the units where systemd finds them, with the installed stripe-verify, and the functions it sources" {
	local d=$D/root
	[ -n "${STRIPE_FULL:-}" ] || skip "an install and an uninstall (t0850 installs in make check): make check-full"
	make -s -C "$TOP" -o all install DESTDIR="$d" PREFIX=/usr > /dev/null
	grep -qx 'ExecStart=/usr/bin/stripe-verify -q --json=/var/lib/stripe/%i.json $OPTIONS -- $MEMBERS' \
		"$d/usr/lib/systemd/system/stripe-verify@.service"
	cmp "$TOP/systemd/stripe-verify@.timer" "$d/usr/lib/systemd/system/stripe-verify@.timer"
	[ -f "$d/usr/lib/stripe/metrics.bash" ] && [ -f "$d/usr/lib/stripe/alerts.bash" ]
	make -s -C "$TOP" -o all uninstall DESTDIR="$d" PREFIX=/usr > /dev/null
	[ -z "$(find "$d" -type f)" ] || fail "left installed: $(find "$d" -type f)"
}
