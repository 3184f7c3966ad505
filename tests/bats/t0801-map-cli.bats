#!/usr/bin/env bats
# stripe-map's command line, without root: usage errors, and the
# completion of its options, members and mountpoint.

bats_require_minimum_version 1.5.0
load helpers

complete_line() {
	# shellcheck source=../../completion/stripe
	source "$TOP/completion/stripe"
	COMP_WORDS=("$@")
	COMP_CWORD=$(($# - 1))
	COMP_LINE="$*"
	COMP_POINT=${#COMP_LINE}
	COMPREPLY=()
	_stripe_map
}

offered() {
	local w
	for w in "${COMPREPLY[@]}"; do
		[ "$w" = "$1" ] && return 0
	done
	return 1
}

@test "a command line without members or mountpoint is refused with status 2" {
	run --separate-stderr stripe-map
	assert_failure 2
	[[ $stderr == *"no members given, and no mountpoint"* ]] || fail "$stderr"
	truncate -s 1M "$BATS_TEST_TMPDIR/x.img"
	run --separate-stderr stripe-map "$BATS_TEST_TMPDIR/x.img"
	assert_failure 2
	[[ $stderr == *"no mountpoint given after the members"* ]] || fail "$stderr"
}

@test "a mountpoint that is a file is refused with status 2, naming it" {
	stripe-create -q -l 1 --image-size 4M "$BATS_TEST_TMPDIR"/m{0,1}.img
	run --separate-stderr stripe-map "$BATS_TEST_TMPDIR"/m{0,1}.img "$BATS_TEST_TMPDIR/m0.img"
	assert_failure 2
	[[ $stderr == *"m0.img: mountpoint is not a directory"* ]] || fail "$stderr"
}

@test "an unknown option is refused with status 2, in one line and where the help is" {
	run --separate-stderr stripe-map --bogus a b
	assert_failure 2
	[ "$stderr" = "stripe-map: unrecognized option '--bogus'"$'\n'"Try 'stripe-map --help'." ] || fail "$stderr"
}

@test "completing stripe-map offers its options, then members and directories" {
	cd "$BATS_TEST_TMPDIR"
	touch disk0.img
	mkdir mnt
	complete_line stripe-map --re
	[ "${COMPREPLY[*]}" = --read-only ]
	complete_line stripe-map -r disk0.img ""
	offered disk0.img || fail "offers: ${COMPREPLY[*]}"
	offered mnt || fail "offers: ${COMPREPLY[*]}"
	complete_line stripe-map disk0.img m
	[ "${COMPREPLY[*]}" = mnt ]
}
