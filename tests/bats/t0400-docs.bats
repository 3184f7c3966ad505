#!/usr/bin/env bats
# Documentation: the man pages render cleanly, every tool has its page and
# its bash completion, and both list exactly the options the tool's --help
# lists, so that the docs cannot drift from the code.
# suite: plain

bats_require_minimum_version 1.5.0
load helpers

MAN=$TOP/man
COMPLETION=$TOP/completion/stripe

# The docs are the same whichever build prints --help: the sanitized run
# leaves them to the plain one (make check-full runs them in both).
setup() {
	[ -n "${STRIPE_FULL:-}" ] || plain_suite_only
}

# tools: every tool with a source file in bin/, and every script of tools/
# that make install installs, by name.
tools() {
	local src
	for src in "$TOP"/bin/stripe-*.c; do
		basename "$src" .c
	done
	for src in "$TOP"/tools/stripe-*; do
		case $src in */stripe-deps | */stripe-demo) continue ;; esac
		basename "$src"
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
		[ -x "$BIN/$t" ] || [ -x "$TOP/tools/$t" ] || fail "$t is not built"
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

@test "every man page stands in its section's folder too, where man -M man finds it" {
	local page
	for page in "$MAN"/*.[1-8]; do
		[ "$MAN/man${page##*.}/${page##*/}" -ef "$page" ] || fail "$page is not in $MAN/man${page##*.}/"
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
	local t missing=""
	for t in $(tools); do
		missing+=$(comm -23 <(help_options "$t") <(man_option_tags "$MAN/$t.1") | sed "s/^/ $t:/" | tr -d '\n')
	done
	[ -z "$missing" ] || fail "not in the man page:$missing"
}

@test "every option a man page's OPTIONS documents is one its tool's --help knows" {
	local t extra=""
	for t in $(tools); do
		extra+=$(comm -13 <(help_options "$t") <(man_option_tags "$MAN/$t.1") | sed "s/^/ $t:/" | tr -d '\n')
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
	local t extra=""
	for t in $(tools); do
		complete_line "$t" --
		extra+=$(comm -13 <(help_options "$t") <(printf '%s\n' "${COMPREPLY[@]}" | sort -u) | sed "s/^/ $t:/" | tr -d '\n')
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

@test "the overview page stripe(7) calls no tool that exists planned" {
	local planned
	planned=$(man_section "$MAN/stripe.7" TOOLS | tr '\n' ' ' | grep -oE '\([^)]*\) are planned' || :)
	for t in $(tools); do
		case $planned in
		*"$t,"* | *"$t)"*) fail "stripe.7 says $t is planned: $planned" ;;
		esac
	done
}

@test "the pages of the tools that write have a SAFETY section" {
	local t
	for t in stripe-create stripe-write stripe-rebuild; do
		grep -qx '\.SH SAFETY' "$MAN/$t.1" || fail "$t.1 has no SAFETY section"
	done
	for s in OUTPUT DEFAULTS "DIFFERENCES FROM MDADM"; do
		grep -qE "^\.SH \"?$s\"?$" "$MAN/stripe-create.1" || fail "stripe-create.1 has no $s section"
	done
}

@test "stripe-create(1) documents every key of stripe-create --json" {
	local key keys missing=""
	cd "$BATS_TEST_TMPDIR"
	truncate -s 16M m0.img m1.img m2.img
	run stripe-create --dry-run --json -l 5 -n 4 m0.img m1.img m2.img missing
	assert_success
	keys=$(printf '%s\n' "$output" | grep -oE '"[a-z_]+":' | tr -d '":' | sort -u)
	[ -n "$keys" ]
	for key in $keys; do
		man_section "$MAN/stripe-create.1" OUTPUT | grep -qE "^\.B[IR]? .*\<$key\>" ||
			missing+=" $key"
	done
	[ -z "$missing" ] || fail "not in stripe-create.1's OUTPUT:$missing"
}

@test "completing stripe-create -l offers the levels" {
	complete_line stripe-create -l ""
	offered 6
	offered raid10
	complete_line stripe-create --level rai
	offered raid5
	! offered 5
}

@test "completing stripe-create -l 6 -p offers the RAID6 layouts, not RAID10's" {
	complete_line stripe-create -l 6 -p ""
	offered left-symmetric-6 || fail "offers: ${COMPREPLY[*]}"
	offered left-symmetric
	offered ddf-N-continue
	! offered n2
	! offered original
	complete_line stripe-create -l6 --layout left-s
	offered left-symmetric
	offered left-symmetric-6
	[ "${#COMPREPLY[@]}" -eq 2 ] || fail "offers: ${COMPREPLY[*]}"
}

@test "completing a stripe-create layout follows the level however it is given" {
	# as bash splits --level=raid10 (at the =), and as one word
	complete_line stripe-create --level = raid10 --layout ""
	offered f2 || fail "offers: ${COMPREPLY[*]}"
	! offered left-symmetric
	complete_line stripe-create --level=raid10 --layout ""
	offered f2 || fail "offers: ${COMPREPLY[*]}"
	offered o3
	complete_line stripe-create --level raid5 --layout = ""
	offered ls || fail "offers: ${COMPREPLY[*]}"
	! offered left-symmetric-6
	complete_line stripe-create -q -l raid0 -p ""
	[ "${COMPREPLY[*]}" = "original alternate" ] || fail "offers: ${COMPREPLY[*]}"
	complete_line stripe-create -l 1 -p ""
	[ "${#COMPREPLY[@]}" -eq 0 ] || fail "offers: ${COMPREPLY[*]}"
	complete_line stripe-create -l 4 -p ""
	[ "${#COMPREPLY[@]}" -eq 0 ] || fail "offers: ${COMPREPLY[*]}"
}

@test "every layout stripe-create's completion offers is one stripe-create takes" {
	local level layout bad=""
	cd "$BATS_TEST_TMPDIR"
	truncate -s 16M m0.img m1.img m2.img m3.img
	for level in 0 5 6 10; do
		complete_line stripe-create -l "$level" -p ""
		[ "${#COMPREPLY[@]}" -gt 0 ] || fail "raid$level: no layouts offered"
		for layout in "${COMPREPLY[@]}"; do
			stripe-create --dry-run -q -l "$level" -p "$layout" m0.img m1.img m2.img m3.img ||
				bad+=" raid$level:$layout"
		done
	done
	[ -z "$bad" ] || fail "offered but refused:$bad"
}

@test "completing stripe-create -e offers the metadata versions" {
	complete_line stripe-create -e ""
	offered 1.2
	offered 0.90
	complete_line stripe-create --metadata 1.
	[ "${COMPREPLY[*]}" = "1.0 1.1 1.2" ]
}

@test "completing stripe-create --chunk offers sizes with a suffix" {
	local w
	complete_line stripe-create --chunk ""
	offered 64K
	offered 512K
	for w in "${COMPREPLY[@]}"; do
		[[ $w == *[KMG] ]] || fail "a chunk without a suffix: $w"
	done
	complete_line stripe-create -c 6
	[ "${COMPREPLY[*]}" = 64K ]
}

@test "completing a stripe-create member offers missing and files" {
	cd "$BATS_TEST_TMPDIR"
	touch disk0.img
	complete_line stripe-create -l 5 disk0.img ""
	offered missing || fail "offers: ${COMPREPLY[*]}"
	offered disk0.img
	complete_line stripe-create -l 5 disk0.img mi
	[ "${COMPREPLY[*]}" = missing ]
	complete_line stripe-create -l 5 -- mis
	[ "${COMPREPLY[*]}" = missing ]
}

@test "completing after a stripe-create count, name or size offers nothing" {
	cd "$BATS_TEST_TMPDIR"
	touch some.img
	local opt
	for opt in -n --raid-devices -x --spare-devices -N --name --homehost --uuid \
		--data-offset -z --size --image-size; do
		complete_line stripe-create "$opt" ""
		[ "${#COMPREPLY[@]}" -eq 0 ] || fail "$opt: ${COMPREPLY[*]}"
	done
}

@test "completing stripe-write --progress offers the modes" {
	complete_line stripe-write --progress ""
	offered log
	offered auto
	offered bar
	offered none
	[ "${#COMPREPLY[@]}" -eq 4 ]
	complete_line stripe-write --progress = l
	[ "${COMPREPLY[*]}" = log ]
}

@test "completing stripe-write -i offers files, --offset nothing" {
	cd "$BATS_TEST_TMPDIR"
	touch backup.tar
	complete_line stripe-write -i ""
	offered backup.tar
	complete_line stripe-write --input ba
	[ "${COMPREPLY[*]}" = backup.tar ]
	complete_line stripe-write --offset ""
	[ "${#COMPREPLY[@]}" -eq 0 ]
}

@test "completing stripe-manage --remove offers mdadm's keyword failed" {
	complete_line stripe-manage --remove fa
	offered failed || fail "offers: ${COMPREPLY[*]}"
}
