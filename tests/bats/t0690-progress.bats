#!/usr/bin/env bats
# Feedback on long work: a bar with percentage, rate and ETA on a terminal,
# a timestamped line in logs, nothing with -q, bytes and rate alone from a
# pipe. STRIPE_PROGRESS_INTERVAL=0 reports at every step, so that a run of
# a fraction of a second shows what a long one shows every 10 s.
# suite: plain

bats_require_minimum_version 1.5.0
load helpers

# One small RAID5 and 4 MiB of data for the file, copied for each test.
# The plain suite alone: progress.c's arithmetic runs sanitized in
# tests/unit/test_progress.
setup_file() {
	in_plain_suite || return 0
	stripe-create -q -l 5 -c 64K --image-size 4M "$BATS_FILE_TMPDIR"/d{0,1,2}.img
	head -c 4M /dev/urandom > "$BATS_FILE_TMPDIR/data"
}

setup() {
	plain_suite_only
	D=$BATS_TEST_TMPDIR
	cp "$BATS_FILE_TMPDIR"/d{0,1,2}.img "$BATS_FILE_TMPDIR/data" "$D"/
	export STRIPE_PROGRESS_INTERVAL=0
}

# on_tty CMD: runs CMD (a shell line) with a pseudo-terminal for its
# stdin, stdout and stderr, as a person at a terminal runs it
on_tty() {
	run script -qec "$1" /dev/null
}

@test "on a terminal stripe-write draws a bar with percentage, rate and ETA" {
	on_tty "stripe-write -i '$D/data' '$D'/d*.img"
	assert_success
	assert_output --regexp $'\rstripe-write: writing \[#*\.+\] +[0-9.]+%, [0-9.]+ [KMG]iB/s, eta 0:00:0[01]'
	assert_output --regexp $'\rstripe-write: writing \[#+\] 100\.0%, '
}

@test "on an 80-column terminal the bar line never wraps, and a narrow one gets no bar" {
	local seg
	on_tty "stty cols 80; stripe-write -i '$D/data' '$D'/d*.img"
	assert_success
	while IFS= read -r -d $'\r' seg; do
		seg=${seg//$'\e[K'/}
		[ "${#seg}" -lt 80 ] || fail "${#seg} columns: $seg"
	done <<<"$output"
	on_tty "stty cols 50; stripe-write -i '$D/data' '$D'/d*.img"
	assert_success
	assert_output --partial $'\rstripe-write: writing 100.0%, '
}

@test "--progress bar draws the bar even into a log" {
	run --separate-stderr stripe-write --progress bar -i "$D/data" "$D"/d*.img
	assert_success
	[[ $stderr == *$'\rstripe-write: writing ['* ]] || fail "no bar: $stderr"
	[[ $stderr == *$'\r\e[K' ]] || fail "the bar is not cleared at the end: $stderr"
}

@test "with no terminal stripe-write logs timestamped lines with percentage, rate and ETA" {
	run --separate-stderr stripe-write -i "$D/data" "$D"/d*.img
	assert_success
	[[ $stderr =~ ^[0-9]{4}-[0-9]{2}-[0-9]{2}\ [0-9]{2}:[0-9]{2}:[0-9]{2}\ stripe-write:\ writing\ +[0-9.]+%\ \(.*\ of\ 4\.0\ MiB\)\ [0-9.]+\ [KMG]iB/s,\ eta\ [0-9]:[0-9]{2}:[0-9]{2}$'\n' ]] ||
		fail "not a log line: $stderr"
	[ "$(grep -c . <<<"$stderr")" -ge 2 ] || fail "one line only: $stderr"
	[[ $stderr != *$'\r'* ]] || fail "a bar in a log: $stderr"
}

@test "-q silences the progress of stripe-write, stripe-read, stripe-check and stripe-create" {
	run --separate-stderr stripe-write -q -i "$D/data" "$D"/d*.img
	assert_success
	assert_equal "$stderr" ""
	run --separate-stderr stripe-read -q -o "$D/out" "$D"/d*.img
	assert_success
	assert_equal "$stderr" ""
	run --separate-stderr stripe-check -q "$D"/d*.img
	assert_success
	assert_equal "$stderr" ""
	run --separate-stderr stripe-create -q -l 1 --image-size 4M "$D"/m0.img "$D"/m1.img
	assert_success
	assert_equal "$stderr" ""
}

@test "from a pipe of unknown length stripe-write shows bytes and rate, no percentage" {
	run --separate-stderr bash -c "cat '$D/data' | stripe-write '$D'/d0.img '$D'/d1.img '$D'/d2.img"
	assert_success
	[[ $stderr == *"stripe-write: writing 4.0 MiB, "*"iB/s"* ]] || fail "no bytes and rate: $stderr"
	[[ $stderr != *%* && $stderr != *eta* ]] || fail "a share of the array for a pipe: $stderr"
}

@test "stripe-read shows its progress, and reads the same bytes" {
	stripe-write -q -i "$D/data" "$D"/d*.img
	run --separate-stderr stripe-read --length 4M -o "$D/out" "$D"/d*.img
	assert_success
	[[ $stderr == *"stripe-read: reading 100.0% (4.0 MiB of 4.0 MiB)"* ]] || fail "no progress: $stderr"
	cmp "$D/data" "$D/out"
}

@test "stripe-create shows its progress while it zeroes the members" {
	run --separate-stderr stripe-create -l 5 --image-size 4M "$D"/n0.img "$D"/n1.img "$D"/n2.img
	assert_success
	[[ $stderr =~ "stripe-create: zeroing 100.0% ("([0-9.]+ MiB)" of "([0-9.]+ MiB)")" && ${BASH_REMATCH[1]} = "${BASH_REMATCH[2]}" ]] || fail "no progress: $stderr"
}

@test "--progress none prints nothing, and a mode that is none of the four is refused" {
	run --separate-stderr stripe-read --progress none -o "$D/out" "$D"/d*.img
	assert_success
	assert_equal "$stderr" ""
	run stripe-read --progress loud "$D"/d*.img
	assert_failure 2
	assert_output --partial "stripe-read: --progress: 'loud' is not auto, bar, log or none"
}

@test "on a terminal stripe-verify shows stripe-check's bar and still reports" {
	on_tty "stripe-verify '$D'/d*.img"
	assert_success
	assert_output --partial $'\rstripe-check: checking ['
	assert_line --partial "verdict: healthy"
}

@test "stripe-verify -q on a terminal shows no bar" {
	on_tty "stripe-verify -q '$D'/d*.img"
	assert_success
	refute_output --partial "stripe-check: checking"
}

@test "on a terminal stripe-recover shows the rebuild's bar and still reports" {
	stripe-write -q -i "$D/data" "$D"/d*.img
	on_tty "stripe-recover --spare '$D/s.img' '$D'/d0.img '$D'/d2.img"
	assert_success
	assert_output --partial $'\rstripe-rebuild: rebuilding ['
	assert_line --partial "verdict: recovered"
	[ "$(stripe-read -q --length 4M "$D"/d0.img "$D/s.img" "$D"/d2.img | sha)" = "$(sha < "$D/data")" ]
}

@test "with no terminal a run shorter than 10 s logs no progress line" {
	unset STRIPE_PROGRESS_INTERVAL
	run --separate-stderr stripe-write -i "$D/data" "$D"/d*.img
	assert_success
	assert_equal "$stderr" ""
}
