#!/usr/bin/env bats
# The command-line contract every tool keeps (../shared/CONVENTIONS.md).

bats_require_minimum_version 1.5.0
load helpers

TOOLS="stripe-examine stripe-read stripe-map"

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

@test "make install puts tools, scripts, man pages and completion under DESTDIR, and make uninstall removes them" {
	local d=$BATS_TEST_TMPDIR/root
	make -s -C "$TOP" install DESTDIR="$d" PREFIX=/usr > /dev/null
	[ -x "$d/usr/bin/stripe-examine" ]
	[ -x "$d/usr/bin/stripe-read" ]
	[ -f "$d/usr/share/man/man1/stripe-read.1" ]
	[ -f "$d/usr/share/man/man7/stripe.7" ]
	[ -f "$d/usr/share/bash-completion/completions/stripe" ]
	[ -L "$d/usr/share/bash-completion/completions/stripe-read" ]
	[ -x "$d/usr/bin/stripe-rebuild" ] && [ -x "$d/usr/bin/stripe-verify" ] && [ -x "$d/usr/bin/stripe-recover" ]
	[ -f "$d/usr/share/man/man1/stripe-recover.1" ]
	[ -L "$d/usr/share/bash-completion/completions/stripe-verify" ]
	[ ! -e "$d/usr/bin/stripe-deps" ] && [ ! -e "$d/usr/bin/stripe-demo" ]
	make -s -C "$TOP" uninstall DESTDIR="$d" PREFIX=/usr > /dev/null
	[ -z "$(find "$d" -type f -o -type l)" ]
}
