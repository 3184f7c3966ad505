#!/usr/bin/env bats
# Nothing lost, nothing left behind: a member is one member however it is
# named (path, ./path, symlink, hard link, a loop device over the file), an
# output file that is a member is refused, and a refusal exits 2 with one
# line naming the member, leaves every member's bytes as they were and no
# file the run made.

bats_require_minimum_version 1.5.0
load helpers

setup() {
	case_sample 2 2
	D=$BATS_TEST_TMPDIR
	cd "$D" || return 1
	LOOPS=()
}

teardown() {
	local l
	for l in "${LOOPS[@]}"; do losetup -d "$l"; done
}

# raid LEVEL N: an array of N 5 MiB image files m0.img... in $D, named in M.
raid() {
	local i
	M=()
	for ((i = 0; i < $2; i++)); do M+=("$D/m$i.img"); done
	stripe-create -q -l "$1" -c 64K --image-size 5M "${M[@]}"
}

# loops: a loop device over each member, named in L; skipped without root.
loops() {
	local m l
	[ "$(id -u)" -eq 0 ] || skip "needs root (loop devices)"
	L=()
	for m in "${M[@]}"; do
		l=$(losetup -f --show "$m") || skip "no loop device available"
		LOOPS+=("$l")
		L+=("$l")
	done
}

# refused TOOL-ARGS... : run it; it exits 2 with exactly one line on stderr.
refused() {
	run --separate-stderr "$@" < /dev/null
	[ "$status" -eq 2 ] || fail "$1 exited $status, expected 2; stderr: $stderr"
	[ "$(grep -c . <<<"$stderr")" -eq 1 ] || fail "$1 said more than one line: $stderr"
}

# hold_while CMD...: runs a stripe-write on the members in CMD with its
# input held open, so that it keeps its hold on them until release (the
# holder's own writes come after that: sums are taken before).
hold_while() {
	mkfifo "$D/in"
	"$@" --progress none -i "$D/in" &
	HOLDER=$!
	exec 7> "$D/in"
	# the holder has opened its members once it has opened its input
	while ! [ -e "/proc/$HOLDER/fd" ] || ! ls -l "/proc/$HOLDER/fd" | grep -q "$D/in"; do sleep 0.05; done
	sleep 0.3
}

release() {
	exec 7>&-
	wait "$HOLDER"
}

# output_refused OUTPUT MEMBER: stripe-read -o OUTPUT is refused in one
# line naming OUTPUT and the member it is, and no member changes.
output_refused() {
	local before
	before=$(sha "${M[@]}")
	refused stripe-read -o "$1" "${M[@]}"
	[ "$stderr" = "stripe-read: $1: the output is the member $2; refusing to overwrite it" ] ||
		fail "stderr: $stderr"
	[ "$before" = "$(sha "${M[@]}")" ] || fail "a member changed"
}

@test "stripe-read refuses an output file that is a member, naming both, and changes no member" {
	raid 5 4
	output_refused "$D/m0.img" "$D/m0.img"
}

@test "stripe-read refuses an output that is a hard link or a symlink to a member" {
	raid 5 4
	ln "$D/m1.img" "$D/hard.img"
	ln -s m2.img "$D/soft.img"
	output_refused "$D/hard.img" "$D/m1.img"
	output_refused soft.img "$D/m2.img"
}

@test "stripe-read refuses an output that is a loop device over a member" {
	raid 5 4
	loops
	output_refused "${L[3]}" "$D/m3.img"
}

@test "stripe-bench refuses a --csv=FILE that is a member or the device it times" {
	local before
	raid 5 4
	before=$(sha "${M[@]}")
	refused stripe-bench -q -s 1M --seeks 0 --csv="$D/m1.img" --array "${M[@]}"
	[ "$stderr" = "stripe-bench: $D/m1.img: the output is the member $D/m1.img; refusing to overwrite it" ] ||
		fail "stderr: $stderr"
	refused stripe-bench -q -s 1M --seeks 0 --csv="$D/./m2.img" "$D/m2.img"
	[[ $stderr == "stripe-bench: $D/./m2.img: the output is the member $D/m2.img;"* ]] || fail "stderr: $stderr"
	[ "$before" = "$(sha "${M[@]}")" ] || fail "a member changed"
}

@test "stripe-read writes an output file that is no member" {
	raid 5 4
	run stripe-read -q -o "$D/out.img" "${M[@]}"
	assert_success
	[ -s "$D/out.img" ]
}

# write_refused_while HELD TRIED: over a raid5 of files (M) and loop
# devices over them (L), stripe-write on the names in array TRIED is
# refused while another stripe-write holds those in array HELD, and no
# member changes; $stderr holds the refusal.
write_refused_while() {
	local -n held=$1 tried=$2
	local before after
	raid 5 4
	loops
	hold_while stripe-write "${held[@]}"
	before=$(sha "${M[@]}")
	refused stripe-write --progress none -i /dev/null "${tried[@]}"
	after=$(sha "${M[@]}")
	release
	[ "$before" = "$after" ] || fail "a member changed"
}

@test "stripe-write on loop devices is refused while another writer holds the files behind them" {
	write_refused_while M L
	[[ $stderr == "stripe-write: ${L[0]}: in use (locked by another writer)"* ]] || fail "stderr: $stderr"
}

@test "stripe-write on files is refused while another writer holds loop devices over them" {
	write_refused_while L M
	[[ $stderr == "stripe-write: $D/m0.img: in use ("*"${L[0]}"* ]] || fail "stderr: $stderr"
}

@test "a writer on loop devices holds the lock of the files behind them" {
	raid 5 4
	loops
	hold_while stripe-write "${L[@]}"
	run flock -n "$D/m2.img" true
	release
	assert_failure 1
}

@test "a member given twice is refused by every tool that opens an array, in one message" {
	local tool before
	raid 5 4
	before=$(sha "${M[@]}")
	for tool in "stripe-read" "stripe-check --progress none" "stripe-write --progress none -i /dev/null" \
		"stripe-check --progress none --repair"; do
		refused $tool "${M[@]}" "$D/./m1.img"
		[ "$stderr" = "${tool%% *}: $D/m1.img and $D/./m1.img: the same member given twice" ] ||
			fail "$tool: $stderr"
	done
	[ "$before" = "$(sha "${M[@]}")" ] || fail "a member changed"
}

@test "stripe-rebuild refuses the same member given twice, by the same path, ./, a symlink or a hard link, and writes nothing" {
	local twice before
	raid 5 4
	rm "$D/m3.img"
	ln -s m0.img "$D/soft.img"
	ln "$D/m0.img" "$D/hard.img"
	before=$(sha "${M[@]:0:3}")
	for twice in m0.img ./m0.img soft.img hard.img; do
		refused stripe-rebuild --progress none --replace 3=new.img m0.img "$twice" m1.img m2.img
		[ "$stderr" = "stripe-rebuild: m0.img and $twice: the same member given twice" ] ||
			fail "$twice: $stderr"
		[ ! -e "$D/new.img" ] || fail "$twice: new.img was left behind"
	done
	[ "$before" = "$(sha "${M[@]:0:3}")" ] || fail "a member changed"
}

@test "stripe-rebuild still takes a replacement that is also named among the members" {
	raid 5 4
	rm "$D/m3.img"
	run stripe-rebuild --progress none -q --replace 3=./new.img m0.img m1.img m2.img
	assert_success
	run stripe-rebuild --progress none -q --readd ./new.img m0.img m1.img m2.img new.img
	assert_success
}

# replace_refused ROLE FILE MESSAGE: on a raid5 missing role 3, stripe-
# rebuild --replace ROLE=FILE is refused with "stripe-rebuild: FILE:
# MESSAGE", leaves no FILE and changes no member.
replace_refused() {
	local before
	raid 5 4
	rm "$D/m3.img"
	before=$(sha "${M[@]:0:3}")
	refused stripe-rebuild --progress none --replace "$1=$2" "${M[@]:0:3}"
	[ "$stderr" = "stripe-rebuild: $2: $3" ] || fail "stderr: $stderr"
	[ ! -e "$D/$2" ] || fail "$2 was left behind"
	[ "$before" = "$(sha "${M[@]:0:3}")" ] || fail "a member changed"
}

@test "stripe-rebuild --replace onto a role the array does not have leaves no file behind" {
	replace_refused 99 new.img "role 99 is not a role of this array"
}

@test "stripe-rebuild --replace of a member in sync, on an array missing another role, is refused without --run and leaves no file behind" {
	local before
	raid 5 4
	rm "$D/m3.img"
	before=$(sha "${M[@]:0:3}")
	refused stripe-rebuild --progress none --replace "2=x.img" "${M[@]:0:3}"
	[ "$stderr" = "stripe-rebuild: role 3 is in sync in the superblocks but was not given; give it, or --run to write degraded" ] ||
		fail "stderr: $stderr"
	[ ! -e "$D/x.img" ] || fail "x.img was left behind"
	[ "$before" = "$(sha "${M[@]:0:3}")" ] || fail "a member changed"
}

@test "stripe-rebuild refuses a spare that is an in-sync member with exit 2 before any write" {
	local before
	raid 6 5
	rm "$D/m3.img" "$D/m4.img"
	before=$(sha "${M[@]:0:3}")
	refused stripe-rebuild --progress none --spare m0.img --spare new.img "${M[@]:0:3}"
	[ "$stderr" = "stripe-rebuild: $D/m0.img: an in-sync member of the array (role 0), not a replacement" ] ||
		fail "stderr: $stderr"
	[ ! -e "$D/new.img" ] || fail "new.img was left behind"
	[ "$before" = "$(sha "${M[@]:0:3}")" ] || fail "a member changed"
}

@test "stripe-rebuild run again with the same spares after it finished has nothing to do" {
	raid 6 5
	rm "$D/m3.img" "$D/m4.img"
	run stripe-rebuild --progress none -q --spare x.img --spare y.img "${M[@]:0:3}"
	assert_success
	run stripe-rebuild --progress none -q --spare x.img --spare y.img "${M[@]:0:3}"
	assert_success
}

@test "stripe-create refuses an image size no file can have and leaves no file behind" {
	refused stripe-create -l 5 --image-size 16777215T n0.img n1.img n2.img
	[[ $stderr == "stripe-create: n0.img: cannot create a 18446742974197923840-byte image: "* ]] ||
		fail "stderr: $stderr"
	[ ! -e n0.img ] && [ ! -e n1.img ] && [ ! -e n2.img ] || fail "a file was left behind: $(ls)"
}

# starved TOOL ARGS...: runs it with 14 MB of address space, too little for
# its buffers (the tools start in 8; a read of four members wants 30): it
# exits 2 with one line that names the tool, the first member and the
# bytes it wanted.
starved() {
	refused bash -c 'ulimit -v 14000 && exec "$@"' starved "$@"
	[[ $stderr =~ ^$1:\ $D/m0.img:\ out\ of\ memory\ \([0-9]+\ bytes\) ]] ||
		fail "$1 does not name itself, the member and the size: $stderr"
}

# ASan reserves terabytes of address space: no limit lets it start, so these
# run in the plain suite only
@test "a reader that runs out of memory says so in one line naming itself, the array and the size, exits 2 and changes no member" {
	plain_suite_only
	raid 5 4
	local before
	before=$(sha256sum "${M[@]}")
	starved stripe-read -o "$D/out" "${M[@]}"
	starved stripe-check "${M[@]}"
	[ "$before" = "$(sha256sum "${M[@]}")" ] || fail "a member changed"
}

@test "a write that runs out of memory says so in one line and exits 2, leaving the array consistent" {
	plain_suite_only
	raid 5 4
	head -c 1M /dev/urandom > "$D/in"
	starved stripe-write -i "$D/in" "${M[@]}"
	run stripe-check -q "${M[@]}"
	[ "$status" -eq 0 ] || fail "stripe-check after the failed write: $output"
}
