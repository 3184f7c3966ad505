#!/usr/bin/env bats
# Proof by the kernel: arrays whose lost members stripe-rebuild put back are
# assembled by the real md driver whole (every member in sync, nothing
# degraded), md reads the bytes that were written and its check finds no
# mismatch; a member whose rebuild was killed half way is taken by md as a
# member recovering from the offset stripe recorded.
#
# Logs of the VM runs: build/test-logs/t9300-md-accepts-what-stripe-rebuilds/.

bats_require_minimum_version 1.5.0
load batch

# lose_and_rebuild NAME ROLE...: deletes those members of an array mk_array
# made, rebuilds them onto new files and records the new member list
# (--run: one_of_two leaves a role out on purpose).
lose_and_rebuild() {
	local name=$1 d=$ARRAYS/$1 r args=()
	shift
	for r in "$@"; do
		rm "$d/m$r.img"
		args+=(--replace "$r=$d/new$r.img")
	done
	if ! stripe-rebuild -q --run --progress none "${args[@]}" "$d"/m*.img > "$d/rebuild.out" 2>&1; then
		echo "stripe-rebuild failed: $(cat "$d/rebuild.out")" > "$d/error"
		return 0
	fi
	ls "$d"/*.img > "$d/members"
	stripe-read -q "$d"/*.img | sha > "$d/stripe.sha256"
}

# one_of_two NAME: deletes members 1 and 3 of an array mk_array made and
# rebuilds role 1 only: the array stays degraded by role 3.
one_of_two() {
	rm "$ARRAYS/$1/m3.img"
	echo 1 > "$ARRAYS/$1/missing"
	lose_and_rebuild "$1" 1
}

# from_fixture NAME SET: a copy of a real-md fixture set as an array of the batch.
from_fixture() {
	local d=$ARRAYS/$1
	mkdir -p "$d"
	cp "$FIX/$2"/member*.img "$d/"
	manifest "$2" array_sha256 > "$d/pattern.sha256"
	manifest "$2" array_size_bytes > "$d/size"
	manifest "$2" raid_devices > "$d/raid_disks"
	echo 0 > "$d/missing"
}

# rebuild_fixture NAME OPTION...: stripe-rebuild with those options on the
# copy's members, recording the new member list.
rebuild_fixture() {
	local d=$ARRAYS/$1
	shift
	stripe-rebuild -q --progress none "$@" "$d"/member*.img > "$d/rebuild.out" 2>&1 ||
		echo "stripe-rebuild failed: $(cat "$d/rebuild.out")" > "$d/error"
	ls "$d"/*.img > "$d/members"
	stripe-read -q "$d"/*.img | sha > "$d/stripe.sha256"
}

# kill_when NAME PROBE -- ARGS...: stripe-rebuild ARGS on the members of
# array NAME, run a millisecond at a time (SIGCONT, SIGSTOP) and SIGKILLed
# at the first stop where the command PROBE succeeds; an error is recorded
# when the rebuild ended otherwise.  Stopped while PROBE looks, the rebuild
# runs no further between two looks than a millisecond takes it, so small
# members do.  The millisecond is waited for on a FIFO no one writes to
# (read -t, no process: a sleep's fork took longer than a rebuild's end).
kill_when() {
	local d=$ARRAYS/$1 probe=$2 pid i st=0 tick
	shift 3
	mkfifo "$d/tick"
	exec {tick}<> "$d/tick"
	stripe-rebuild -q --progress none --checkpoint 0.001 "$@" "$d"/m*.img > "$d/rebuild.out" 2>&1 &
	pid=$!
	for i in $(seq 5000); do
		kill -STOP $pid 2>/dev/null || break
		$probe && break
		kill -CONT $pid 2>/dev/null || break
		read -r -t 0.001 -u $tick || :
	done
	kill -9 $pid 2>/dev/null || true
	exec {tick}>&-
	rm -f "$d/tick"
	wait $pid || st=$?
	if [ $st != 137 ] || ! $probe; then
		echo "the rebuild ended (status $st) before it could be killed half way: $(cat "$d/rebuild.out")" > "$d/error"
	fi
	ls "$d"/*.img > "$d/members"
	stripe-read -q "$d"/*.img | sha > "$d/stripe.sha256"
}

# has_offset FILE: mdadm --examine shows a 1.x recovery offset on FILE.
has_offset() {
	mdadm --examine "$1" 2>/dev/null | grep -qE 'Recovery Offset : [1-9]'
}

# moved EVENTS FILE...: no FILE's events count is EVENTS any more: a
# rebuild has recorded its start on every one of them.
moved() {
	local ev=$1 f
	shift
	for f in "$@"; do
		[ "$(events_of "$f")" != "$ev" ] || return 1
	done
}

# half_way FUNC NAME ARGS...: FUNC NAME ARGS, an array whose rebuild is
# killed half way, made again from nothing when the rebuild ended before
# the kill, three times at most.
half_way() {
	local f=$1 name=$2 try
	for try in 1 2 3; do
		rm -rf "${ARRAYS:?}/$name"
		sed -i "/^$name\$/d" "$ARRAYS/list" 2>/dev/null || :
		"$f" "${@:2}"
		grep -qs "before it could be killed" "$ARRAYS/$name/error" || return 0
	done
}

# half_built NAME: a raid6 of 6 whose members 1 and 4 are being rebuilt,
# the rebuild killed once it recorded a recovery offset.
half_built() {
	local d=$ARRAYS/$1
	MEMBER_SIZE=8M mk_array "$1" 6 - -l 6 -c 64K
	rm "$d/m1.img" "$d/m4.img"
	kill_when "$1" "has_offset $d/new4.img" -- --replace 1="$d/new1.img" --replace 4="$d/new4.img"
	[ -e "$d/error" ] || mdadm --examine "$d/new4.img" 2>/dev/null |
		grep -E 'Recovery Offset : [1-9]' > "$d/recovery_offset"
}

# half_one NAME META SIZE: a raid6 of 5 (metadata META, members of SIZE)
# that lost members 1 and 3, whose rebuild of role 1 alone was killed half
# way: once it recorded a recovery offset (1.x), or once it recorded its
# start on the survivors (0.90 records no offset: md starts over).
half_one() {
	local d=$ARRAYS/$1 probe
	MEMBER_SIZE=$3 mk_array "$1" 5 - -l 6 -c 64K -e "$2"
	rm "$d/m1.img" "$d/m3.img"
	echo 1 > "$d/missing"
	if [ "$2" = 0.90 ]; then
		probe="moved $(events_of "$d/m0.img") $d/m0.img $d/m2.img $d/m4.img"
	else
		probe="has_offset $d/new1.img"
	fi
	kill_when "$1" "$probe" -- --run --replace 1="$d/new1.img"
}

# half_zero NAME: a raid5 of 4 (0.90) that lost member 0, whose rebuild
# was killed once it recorded its start on the survivors: the new member
# must be one md takes as a spare and rebuilds (md reads a 0.90 member's
# state from its own table, where slot 0 must not read as faulty).
half_zero() {
	local d=$ARRAYS/$1
	MEMBER_SIZE=8M mk_array "$1" 4 - -l 5 -c 64K -e 0.90
	rm "$d/m0.img"
	kill_when "$1" "moved $(events_of "$d/m1.img") $d/m1.img $d/m2.img $d/m3.img" -- --replace 0="$d/new0.img"
}

setup_file() {
	fixtures_ready
	md_there || return 0
	batch_start
	mk_array rb-r1-1.0 3 - -l 1 -e 1.0 && lose_and_rebuild rb-r1-1.0 1
	mk_array rb-r10-n2 4 - -l 10 -p n2 -c 32K && lose_and_rebuild rb-r10-n2 0
	mk_array rb-r10-f2 4 - -l 10 -p f2 -c 32K && lose_and_rebuild rb-r10-f2 3
	mk_array rb-r4 4 - -l 4 -c 32K && lose_and_rebuild rb-r4 3
	mk_array rb-r5-0.90 4 - -l 5 -c 32K -e 0.90 && lose_and_rebuild rb-r5-0.90 2
	mk_array rb-r6-two 5 - -l 6 -c 32K && lose_and_rebuild rb-r6-two 1 3
	mk_array rb-r6-one 5 - -l 6 -c 32K && one_of_two rb-r6-one
	mk_array rb-r6-one-0.90 5 - -l 6 -c 32K -e 0.90 && one_of_two rb-r6-one-0.90
	batch_add rb-r1-1.0 rb-r10-n2 rb-r10-f2 rb-r4 rb-r5-0.90 rb-r6-two rb-r6-one rb-r6-one-0.90

	from_fixture fx-degraded-inplace r5-4d-degraded
	rebuild_fixture fx-degraded-inplace --readd "$ARRAYS/fx-degraded-inplace/member2.img"
	from_fixture fx-degraded-new r5-4d-degraded
	rm "$ARRAYS/fx-degraded-new/member2.img"
	rebuild_fixture fx-degraded-new --replace 2="$ARRAYS/fx-degraded-new/new2.img"
	from_fixture fx-recover r5-4d-degraded
	stripe-recover -q --spare "$ARRAYS/fx-recover/spare.img" "$ARRAYS"/fx-recover/member*.img \
		> "$ARRAYS/fx-recover/recover.out" 2>&1 ||
		echo "stripe-recover failed: $(cat "$ARRAYS/fx-recover/recover.out")" > "$ARRAYS/fx-recover/error"
	# md is given the array stripe-recover made: the spare in role 2, not the stale member
	ls "$ARRAYS"/fx-recover/member{0,1,3}.img "$ARRAYS/fx-recover/spare.img" > "$ARRAYS/fx-recover/members"
	stripe-read -q "$ARRAYS"/fx-recover/member{0,1,3}.img "$ARRAYS/fx-recover/spare.img" |
		sha > "$ARRAYS/fx-recover/stripe.sha256"

	half_way half_built rb-half
	half_way half_one rb-half-one 1.2 8M
	half_way half_one rb-half-one-0.90 0.90 8M
	half_way half_zero rb-half-zero-0.90
	batch_add fx-degraded-inplace fx-degraded-new fx-recover rb-half rb-half-one rb-half-one-0.90 rb-half-zero-0.90
	batch_end
}

setup() {
	md_ready
}

@test "md assembles r5-4d-degraded whole after its stale member is rebuilt in place" {
	md_check fx-degraded-inplace
	md_check_members fx-degraded-inplace
}

@test "md assembles r5-4d-degraded whole after the stale role is rebuilt onto a new file" {
	md_check fx-degraded-new
	md_check_members fx-degraded-new
}

@test "md assembles r5-4d-degraded whole after stripe-recover put a spare in its lost role" {
	md_check fx-recover
	md_check_members fx-recover
}

@test "md assembles raid1, raid10, raid4, raid5 (0.90) and raid6 whole after members are rebuilt onto new files" {
	md_check rb-r1-1.0 rb-r10-n2 rb-r10-f2 rb-r4 rb-r5-0.90 rb-r6-two
	md_check_members rb-r1-1.0 rb-r10-n2 rb-r10-f2 rb-r4 rb-r5-0.90 rb-r6-two
}

@test "md takes a member whose rebuild was killed half way and finishes it without a mismatch" {
	[ ! -e "$ARRAYS/rb-half/error" ] || fail "$(cat "$ARRAYS/rb-half/error")"
	md_check rb-half
	# mdadm --examine of the members md was given reads the recovery offset stripe recorded
	grep -qE 'Recovery Offset : [1-9]' "$ARRAYS/rb-half/md-examine.txt" ||
		fail "mdadm --examine shows no recovery offset"
}

@test "md starts a raid6 with one of its two lost members rebuilt without --run, degraded by the other" {
	md_check rb-r6-one rb-r6-one-0.90
	md_check_members rb-r6-one rb-r6-one-0.90
}

@test "md starts a raid6 whose rebuild of one of two lost members was killed half way without --run, and finishes it" {
	local name
	for name in rb-half-one rb-half-one-0.90; do
		[ ! -e "$ARRAYS/$name/error" ] || fail "$name: $(cat "$ARRAYS/$name/error")"
	done
	md_check rb-half-one rb-half-one-0.90
	md_check_members rb-half-one rb-half-one-0.90
}

@test "md takes the new member of a 0.90 rebuild of role 0 killed half way as a spare, rebuilds it, and starts without --run" {
	[ ! -e "$ARRAYS/rb-half-zero-0.90/error" ] || fail "$(cat "$ARRAYS/rb-half-zero-0.90/error")"
	md_check rb-half-zero-0.90
	md_check_members rb-half-zero-0.90
}
