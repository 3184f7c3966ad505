#!/usr/bin/env bats
# The member list every array tool takes (cli_open_array): the same
# refusals, in the same words, before any member is written, and the same
# warnings about the members left out.

bats_require_minimum_version 1.5.0
load helpers

setup() {
	case_sample 2 2
	D=$BATS_TEST_TMPDIR
	stripe-create -q -l 5 -c 64K --image-size 5M "$D"/m{0,1,2,3,4}.img
	M=("$D"/m{0,1,2,3,4}.img)
	mkdir "$D/mnt"
}

# Each tool that writes to the members, as a command line ending where the
# members go (stripe-map's mountpoint follows them, see run_tool).
WRITERS=(
	"stripe-write --progress none -i /dev/null"
	"stripe-check --progress none --repair"
	"stripe-rebuild --progress none"
	"stripe-bench -q -s 1M --seeks 0 --array"
	"stripe-map"
)

# run_tool "TOOL ARGS" MEMBER...: runs it with bats' run, stdin empty,
# stripe-map given its mountpoint after the members.
run_tool() {
	local cmd=$1
	shift
	if [[ $cmd == *stripe-map* ]]; then
		run --separate-stderr $cmd "$@" "$D/mnt" < /dev/null
	else
		run --separate-stderr $cmd "$@" < /dev/null
	fi
}

# make_stale N: member N falls behind: a write made without it.
make_stale() {
	cp "${M[$1]}" "$D/away.img"
	echo x | stripe-write --progress none "${M[@]}"
	cp "$D/away.img" "${M[$1]}"
}

@test "every tool that writes refuses a member another writer holds, in stripe-write's words, and writes nothing" {
	local cmd tool want before
	before=$(sha "${M[@]}")
	run --separate-stderr flock "${M[2]}" stripe-write --progress none -i /dev/null "${M[@]}"
	assert_failure 2
	want=${stderr#stripe-write: }
	[[ $want == "${M[2]}: in use (locked by another writer)"* ]] || fail "stripe-write: $stderr"
	for cmd in "${WRITERS[@]}"; do
		tool=${cmd%% *}
		run_tool "flock ${M[2]} $cmd" "${M[@]}"
		[ "$status" -eq 2 ] || fail "$tool exited $status: $stderr"
		[ "$stderr" = "$tool: $want" ] || fail "$tool: $stderr"
	done
	[ "$before" = "$(sha "${M[@]}")" ] || fail "a member changed"
	! mountpoint -q "$D/mnt"
}

@test "the tools that only read open a member another writer holds" {
	run flock "${M[2]}" stripe-read -q --length 4096 "${M[@]}"
	assert_success
	run flock "${M[2]}" stripe-check --progress none "${M[@]}"
	assert_success
	run flock "${M[2]}" stripe-bench --hdparm --seconds 0.15 --array "${M[@]}"
	assert_success
}

@test "every tool that opens an array names each member of another array and each file of none, exits 2, and writes nothing" {
	local cmd tool want before
	stripe-create -q -l 1 --image-size 5M "$D"/other{0,1}.img
	head -c 5M /dev/zero > "$D/zero.img"
	before=$(sha "${M[@]}" "$D/other0.img" "$D/zero.img")
	for cmd in "stripe-read" "${WRITERS[@]}"; do
		tool=${cmd%% *}
		run_tool "$cmd" "${M[@]:0:4}" "$D/other0.img" "$D/zero.img"
		[ "$status" -eq 2 ] || fail "$tool exited $status: $stderr"
		want="$tool: $D/other0.img: member of another array (UUID "*")
$tool: $D/zero.img: no md superblock found "*
		[[ $stderr == $want ]] || fail "$tool: $stderr"
	done
	[ "$before" = "$(sha "${M[@]}" "$D/other0.img" "$D/zero.img")" ] || fail "a file changed"
}

@test "every tool that opens an array names a stale member it leaves out, and -q silences it" {
	local cmd tool want
	make_stale 3
	for cmd in "stripe-read" "stripe-write --progress none -i /dev/null" "stripe-check --progress none" \
		   "stripe-bench -s 1M --seeks 0 --array"; do
		tool=${cmd%% *}
		# the data tools served every byte; the health tool says the
		# array, degraded, needs attention
		want=0
		[ "$tool" != stripe-check ] || want=1
		run_tool "$cmd" "${M[@]}"
		[ "$status" -eq "$want" ] || fail "$tool exited $status: $stderr"
		[[ $stderr == "$tool: ${M[3]}: left out: stale: events "* ]] || fail "$tool: $stderr"
		run_tool "$cmd -q" "${M[@]}"
		[ "$status" -eq "$want" ] || fail "$tool -q exited $status: $stderr"
		[[ $stderr != *"left out"* ]] || fail "$tool -q: $stderr"
	done
}

@test "stripe-read -v names the role each member holds and the one left out" {
	make_stale 1
	run --separate-stderr stripe-read -v --length 4096 "${M[@]}"
	assert_success
	[[ $stderr == "stripe-read: ${M[0]}: role 0
stripe-read: ${M[1]}: left out: stale: events "*"
stripe-read: ${M[2]}: role 2
stripe-read: ${M[3]}: role 3
stripe-read: ${M[4]}: role 4
stripe-read: degraded: 4 drives (out of 5) in sync; role 1 served from parity" ]] || fail "$stderr"
}

@test "every tool says no members given in one line, exits 2 and says where the help is" {
	local tool
	for tool in stripe-read stripe-write stripe-check stripe-rebuild stripe-examine "stripe-bench --array" \
		"stripe-create -l 5"; do
		run --separate-stderr $tool
		[ "$status" -eq 2 ] || fail "$tool exited $status"
		[ "$stderr" = "${tool%% *}: no members given"$'\n'"Try '${tool%% *} --help'." ] || fail "$tool: $stderr"
	done
}
