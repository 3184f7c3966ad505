#!/usr/bin/env bats
# Documentation: the man pages render cleanly, every tool has its page and
# its bash completion, and both list exactly the options the tool's --help
# lists, so that the docs cannot drift from the code.

bats_require_minimum_version 1.5.0
load helpers

MAN=$TOP/man
COMPLETION=$TOP/completion/stripe

# tools: every tool with a source file in bin/, by name.
tools() {
	local src
	for src in "$TOP"/bin/stripe-*.c; do
		basename "$src" .c
	done
}

# help_options TOOL: the long options its --help lists, one a line: those
# that start a line of its option list ("  -o, --output FILE  ..." or
# "      --json  ..."), not the ones its prose mentions (mdadm --examine).
help_options() {
	"$1" --help | sed -nE 's/^ +(-[A-Za-z0-9], )?(--[a-z0-9][a-z0-9-]*).*/\2/p' | sort -u
}

# man_section PAGE NAME: the roff source of one .SH section, with \- as -,
# font escapes and comment lines taken out.
man_section() {
	sed -e '/^\.\\"/d' -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' "$1" |
		awk -v name="$2" '/^\.SH / { on = ($0 == ".SH " name || $0 == ".SH \"" name "\"") ; next } on'
}

# man_option_tags PAGE: the long options that head an entry (.TP) of the
# page's OPTIONS section, one a line.
man_option_tags() {
	man_section "$1" OPTIONS | awk 'tag { print; tag = 0 } /^\.TP/ { tag = 1 }' |
		grep -oE -- '--[a-z0-9][a-z0-9-]*' | sort -u
}

# complete_line WORD...: runs the completion function of WORD (a tool) as
# bash would for the command line WORD..., the last word being the one
# completed; leaves the offers in COMPREPLY.
complete_line() {
	# shellcheck source=../../completion/stripe
	source "$COMPLETION"
	COMP_WORDS=("$@")
	COMP_CWORD=$(($# - 1))
	COMP_LINE="$*"
	COMP_POINT=${#COMP_LINE}
	COMPREPLY=()
	"_${1//-/_}"
}

# offered WORD: WORD is among the offers.
offered() {
	local w
	for w in "${COMPREPLY[@]}"; do
		[ "$w" = "$1" ] && return 0
	done
	return 1
}

@test "the tool list is not empty and each tool is built" {
	[ -n "$(tools)" ]
	for t in $(tools); do
		[ -x "$BIN/$t" ] || fail "$BIN/$t is not built"
	done
}

@test "every man page renders without a warning from groff" {
	local page n=0
	for page in "$MAN"/*.[1-8]; do
		run groff -man -ww -z "$page"
		assert_success
		[ -z "$output" ] || fail "$page: $output"
		n=$((n + 1))
	done
	[ $n -ge 3 ]
}

@test "every man page passes mandoc's lint without a message" {
	command -v mandoc >/dev/null || skip "mandoc is not installed"
	local page
	for page in "$MAN"/*.[1-8]; do
		run mandoc -T lint "$page"
		[ -z "$output" ] || fail "$page: $output"
	done
}

@test "the overview page stripe(7) names every tool" {
	[ -f "$MAN/stripe.7" ]
	for t in $(tools); do
		grep -q "^\.BR ${t//-/\\\\-} (1)" "$MAN/stripe.7" || fail "stripe.7 does not name $t(1)"
	done
}

@test "every tool has a man page in section 1 with its name in .TH and NAME" {
	local page
	for t in $(tools); do
		page=$MAN/$t.1
		[ -f "$page" ] || fail "$t has no man page $page"
		sed -n 's/\\-/-/g; 1,5p' "$page" | grep -q "^\.TH ${t^^} 1 " || fail "$page: .TH is not $t's"
		man_section "$page" NAME | grep -q "^$t - " || fail "$page: NAME does not start with $t"
	done
}

@test "every man page has the sections a reader looks for" {
	local page s
	for t in $(tools); do
		page=$MAN/$t.1
		for s in NAME SYNOPSIS DESCRIPTION OPTIONS "EXIT STATUS" EXAMPLES "SEE ALSO"; do
			grep -qE "^\.SH \"?$s\"?$" "$page" || fail "$page has no $s section"
		done
	done
}

@test "every long option in a tool's --help heads an entry of its man page's OPTIONS" {
	local opt missing=""
	for t in $(tools); do
		for opt in $(help_options "$t"); do
			man_option_tags "$MAN/$t.1" | grep -qx -- "$opt" || missing+=" $t:$opt"
		done
	done
	[ -z "$missing" ] || fail "not in the man page:$missing"
}

@test "every option a man page's OPTIONS documents is one its tool's --help knows" {
	local opt extra=""
	for t in $(tools); do
		for opt in $(man_option_tags "$MAN/$t.1"); do
			help_options "$t" | grep -qx -- "$opt" || extra+=" $t:$opt"
		done
	done
	[ -z "$extra" ] || fail "documented but not in --help:$extra"
}

@test "every man page's EXIT STATUS lists the statuses its tool's --help names" {
	local want have
	for t in $(tools); do
		want=$("$t" --help | tr '\n' ' ' | sed -n 's/.*Exit status: //p' |
			grep -oE '(^|[:,] )[0-9] ' | grep -oE '[0-9]' | sort -u | tr '\n' ' ')
		have=$(man_section "$MAN/$t.1" "EXIT STATUS" |
			awk 'tag { print; tag = 0 } /^\.TP/ { tag = 1 }' | sed -n 's/^\.B \([0-9]\)$/\1/p' |
			sort -u | tr '\n' ' ')
		[ -n "$want" ] || fail "$t --help names no exit status"
		[ "$want" = "$have" ] || fail "$t: --help names [$want], the man page [$have]"
	done
}

@test "every tool has a completion function registered for its name" {
	# shellcheck source=../../completion/stripe
	source "$COMPLETION"
	for t in $(tools); do
		declare -F "_${t//-/_}" >/dev/null || fail "no function _${t//-/_} for $t"
		[ "$(complete -p "$t")" = "complete -F _${t//-/_} $t" ] || fail "$t: $(complete -p "$t" 2>&1)"
	done
}

@test "the completion file sources cleanly under set -u" {
	run bash -uc "source '$COMPLETION'"
	assert_success
	assert_output ""
}

@test "every long option in a tool's --help is offered by its completion" {
	local opt missing=""
	for t in $(tools); do
		complete_line "$t" --
		for opt in $(help_options "$t"); do
			offered "$opt" || missing+=" $t:$opt"
		done
	done
	[ -z "$missing" ] || fail "not offered:$missing"
}

@test "the completion offers no long option its tool's --help does not know" {
	local opt extra=""
	for t in $(tools); do
		complete_line "$t" --
		for opt in "${COMPREPLY[@]}"; do
			help_options "$t" | grep -qx -- "$opt" || extra+=" $t:$opt"
		done
	done
	[ -z "$extra" ] || fail "offered but not in --help:$extra"
}

@test "completing stripe-examine --j offers --json alone" {
	complete_line stripe-examine --j
	[ "${COMPREPLY[*]}" = "--json" ]
}

@test "completing after --raid0-layout offers original and alternate" {
	local t
	for t in stripe-examine stripe-read; do
		complete_line $t --raid0-layout ""
		[ "${#COMPREPLY[@]}" -eq 2 ] || fail "$t: ${COMPREPLY[*]}"
		offered original
		offered alternate
		complete_line $t --raid0-layout al
		[ "${COMPREPLY[*]}" = alternate ]
	done
}

@test "completing after stripe-read -o offers the files there" {
	cd "$BATS_TEST_TMPDIR"
	touch out.img other.bin
	mkdir subdir
	complete_line stripe-read -o ""
	offered out.img
	offered other.bin
	offered subdir
	complete_line stripe-read --output ou
	[ "${COMPREPLY[*]}" = out.img ]
}

@test "completing --output=F completes the file after the =" {
	cd "$BATS_TEST_TMPDIR"
	touch out.img
	complete_line stripe-read --output = o
	[ "${COMPREPLY[*]}" = out.img ]
	complete_line stripe-read --output =
	offered out.img
}

@test "completing after --offset or --length offers nothing" {
	cd "$BATS_TEST_TMPDIR"
	touch some.img
	complete_line stripe-read --offset ""
	[ "${#COMPREPLY[@]}" -eq 0 ]
	complete_line stripe-read --length ""
	[ "${#COMPREPLY[@]}" -eq 0 ]
}

@test "completing a member offers an image file, even one with a space in its name" {
	cd "$BATS_TEST_TMPDIR"
	touch disk0.img "disk 1.img" notes.txt
	for t in $(tools); do
		complete_line "$t" --quiet dis
		offered disk0.img || fail "$t: ${COMPREPLY[*]}"
		offered "disk 1.img" || fail "$t: ${COMPREPLY[*]}"
		! offered notes.txt
	done
}

@test "completing a member offers block devices with an md signature first" {
	mkdir "$BATS_TEST_TMPDIR/fakebin" "$BATS_TEST_TMPDIR/work"
	printf '#!/bin/sh\necho /dev/fake-md-member\n' > "$BATS_TEST_TMPDIR/fakebin/blkid"
	chmod +x "$BATS_TEST_TMPDIR/fakebin/blkid"
	cd "$BATS_TEST_TMPDIR/work"
	touch disk0.img
	PATH=$BATS_TEST_TMPDIR/fakebin:$PATH complete_line stripe-read ""
	[ "${COMPREPLY[0]}" = /dev/fake-md-member ] || fail "offers: ${COMPREPLY[*]}"
	offered disk0.img
	PATH=$BATS_TEST_TMPDIR/fakebin:$PATH complete_line stripe-read /dev/fake
	[ "${COMPREPLY[*]}" = /dev/fake-md-member ]
}

@test "completing after -- offers members, not options" {
	cd "$BATS_TEST_TMPDIR"
	touch ./--odd.img
	complete_line stripe-read -- --o
	[ "${COMPREPLY[*]}" = --odd.img ]
}
