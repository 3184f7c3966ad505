#!/usr/bin/env bats
# The command-line contract every tool keeps (../shared/CONVENTIONS.md).

bats_require_minimum_version 1.5.0
load helpers

TOOLS="stripe-examine stripe-read"

@test "every tool prints usage on --help to stdout and exits 0" {
	for t in $TOOLS; do
		run --separate-stderr $t --help
		assert_success
		[[ $output == "Usage: $t "* ]] || fail "$t --help: $output"
		[ -z "$stderr" ]
	done
}

@test "every tool prints its version on --version and exits 0" {
	for t in $TOOLS; do
		run $t --version
		assert_success
		assert_output --regexp "^$t \(stripe\) [0-9]+\.[0-9]+"
	done
}

@test "every tool exits 2 on an unknown option" {
	for t in $TOOLS; do
		run $t --no-such-option
		assert_failure 2
	done
}

@test "every tool exits 2 when no member is given" {
	for t in $TOOLS; do
		run --separate-stderr $t
		assert_failure 2
		[[ $stderr == *"no members given"* ]]
	done
}

@test "stripe-read rejects a size argument that is not a size" {
	run --separate-stderr stripe-read --offset 12Q x.img
	assert_failure 2
	[[ $stderr == *"--offset: '12Q' is not a size"* ]]
}
