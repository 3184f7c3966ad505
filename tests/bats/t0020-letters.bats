#!/usr/bin/env bats
# One letter, one meaning within a family (stripe(7), CONVENTIONS, Options):
# the array tools and the scripts that drive them take mdadm's letters,
# stripe-bench bonnie++'s.  A spec per row of the two tables, read off each
# tool's --help (what the letters do is specified with each tool).
# suite: plain

bats_require_minimum_version 1.5.0
load helpers

ARRAY_TOOLS="stripe-create stripe-examine stripe-read stripe-write stripe-check stripe-rebuild stripe-manage stripe-map
	stripe-probe stripe-sweep stripe-mkfs-bench"

# Each tool's "-x, --long" pairs, read once: "TOOL -x --long" lines.  The
# letters are the same in both builds: read in the plain suite only.
setup_file() {
	local t
	in_plain_suite || return 0
	for t in $ARRAY_TOOLS stripe-bench stripe-demo; do
		"$t" --help | sed -nE "s/^ +(-[A-Za-z0-9]), (--[a-z0-9-]+).*/$t \\1 \\2/p"
	done >"$BATS_FILE_TMPDIR/letters"
}

setup() {
	plain_suite_only
}

# array_letter LETTER LONG-REGEX TOOL...: every array tool that has LETTER
# has it for LONG-REGEX (a whole long option), and each TOOL has it.
array_letter() {
	local letter=$1 long=$2 tool l opt want=" ${*:3} "
	while read -r tool l opt; do
		[ "$l" = "$letter" ] || continue
		if [[ " $ARRAY_TOOLS " == *[[:space:]]${tool}[[:space:]]* ]]; then
			[[ $opt =~ ^($long)$ ]] || fail "$tool: $letter is $opt, not $long"
		fi
		[[ $opt =~ ^($long)$ ]] && want=${want/ $tool / }
	done <"$BATS_FILE_TMPDIR/letters"
	[[ $want =~ ^\ *$ ]] || fail "no $letter for $long in:$want"
}

# bench_letter LETTER LONG: stripe-bench has LETTER for LONG.
bench_letter() {
	grep -qx -- "stripe-bench $1 $2" "$BATS_FILE_TMPDIR/letters" || fail "stripe-bench has no $1 for $2"
}

@test "-l is the level in the array tools; a list of levels in stripe-sweep" {
	array_letter -l '--levels?' stripe-create stripe-mkfs-bench stripe-sweep stripe-probe
}

@test "-n is mdadm's raid-devices: a count in stripe-create, a list of counts in stripe-sweep" {
	array_letter -n --raid-devices stripe-create stripe-sweep stripe-probe
}

@test "-x is the spare devices" {
	array_letter -x --spare-devices stripe-create
}

@test "-c is the chunk (a list of chunks in stripe-sweep)" {
	array_letter -c '--chunks?' stripe-create stripe-mkfs-bench stripe-sweep stripe-probe
}

@test "-p is the layout" {
	array_letter -p --layout stripe-create stripe-mkfs-bench stripe-probe
}

@test "-e is the metadata version" {
	array_letter -e --metadata stripe-create stripe-mkfs-bench stripe-probe
}

@test "-N is the array name" {
	array_letter -N --name stripe-create
}

@test "-u is the array UUID" {
	array_letter -u --uuid stripe-create
}

@test "-z is the size used on each member" {
	array_letter -z --size stripe-create
}

@test "-b is the write-intent bitmap" {
	array_letter -b --bitmap stripe-create
}

@test "-f is force, never foreground" {
	array_letter -f --force stripe-create stripe-rebuild stripe-manage stripe-sweep stripe-mkfs-bench
}

@test "-a is mdadm's --add; --fail and --remove have no letter, as -f and -r are taken" {
	array_letter -a --add stripe-manage
	! grep -qE -- ' --(fail|remove)$' "$BATS_FILE_TMPDIR/letters" || fail "$(grep -E -- ' --(fail|remove)$' "$BATS_FILE_TMPDIR/letters")"
}

@test "-R is --run, mdadm's word for starting degraded" {
	stripe-write --help | grep -q -- --run || skip "--run is not in this tree yet"
	array_letter -R --run stripe-write
}

@test "-o is the output" {
	array_letter -o --output stripe-read stripe-sweep
}

@test "-i is the input" {
	array_letter -i --input stripe-write
}

@test "-r is stripe-map's read-only" {
	array_letter -r --read-only stripe-map
}

@test "-s is mdadm's --scan" {
	array_letter -s --scan stripe-examine
}

@test "-q is quiet in every array tool and script" {
	# shellcheck disable=SC2086 # the list is words
	array_letter -q --quiet $ARRAY_TOOLS stripe-demo
}

@test "-v is verbose in every array tool and script" {
	# shellcheck disable=SC2086
	array_letter -v --verbose $ARRAY_TOOLS stripe-demo
}

@test "-h is the help in every array tool" {
	# shellcheck disable=SC2086
	array_letter -h --help $ARRAY_TOOLS
}

@test "-V is the version in every array tool" {
	# shellcheck disable=SC2086
	array_letter -V --version $ARRAY_TOOLS
}

@test "no array tool has a letter that stripe(7)'s table lacks" {
	local tool letter opt have
	have=" $(sed -nE '/^One letter has one meaning/,/^\.EE/s/^\\-([A-Za-z])  +\\-\\-.*/-\1/p' "$TOP/man/stripe.7" |
		tr '\n' ' ') "
	while read -r tool letter opt; do
		[[ $tool == stripe-bench || $have == *" $letter "* ]] || fail "$tool: $letter ($opt) is not in stripe(7)"
	done <"$BATS_FILE_TMPDIR/letters"
}

@test "stripe-bench -d is bonnie++'s directory" {
	bench_letter -d --directory
}

@test "stripe-bench -s is bonnie++'s size" {
	bench_letter -s --size
}

@test "stripe-bench -r is bonnie++'s RAM" {
	bench_letter -r --ram
}

@test "stripe-bench -f is bonnie++'s fast mode, and --force has no letter" {
	bench_letter -f --fast
	run ! grep -q -- '^stripe-bench .* --force$' "$BATS_FILE_TMPDIR/letters"
}

@test "stripe-bench -n is bonnie++'s file tests" {
	bench_letter -n --files
}

@test "stripe-bench -b is bonnie++'s fsync after every write" {
	bench_letter -b --fsync
}

@test "stripe-bench -D is bonnie++'s direct I/O" {
	bench_letter -D --direct
}

@test "stripe-bench -z is bonnie++'s seed" {
	bench_letter -z --seed
}

@test "stripe-bench -m is bonnie++'s machine label" {
	bench_letter -m --label
}

@test "stripe-bench -q, -v, -h and -V are quiet, verbose, help and version" {
	bench_letter -q --quiet
	bench_letter -v --verbose
	bench_letter -h --help
	bench_letter -V --version
}
