#!/usr/bin/env bats
# stripe-manage: mdadm's --add, --fail, --remove and --zero-superblock done
# offline leave the superblocks real md leaves after the same command and
# --stop (tests/fixtures/md-writes/r5-4d-64k-ls-{1.2,0.90,1.0,1.1}-manage,
# r5-4d-64k-ls-1.2-bitmap-manage and zero-1.0-1.1, made in ../shared/mdvm),
# but for the update time, the
# checksum, a new spare's device UUID (1.x) and its major:minor (0.90,
# where md records the VM's 254:64 and stripe an image file's 0:0).
# Refusals are one line and write nothing.

bats_require_minimum_version 1.5.0
load helpers

MW=$TOP/tests/fixtures/md-writes

# md's members, unpacked once for the file: each test copies those it needs.
setup_file() {
	local f u
	for f in "$MW"/r5-4d-64k-ls-{1.2,0.90,1.0,1.1,1.2-bitmap}-manage/*.img.xz "$MW"/r5-4d-64k-ls-0.90/member*.img.xz \
		"$MW"/zero-1.0-1.1/*.img.xz; do
		u=$BATS_FILE_TMPDIR/${f#"$MW"/}
		mkdir -p "${u%/*}"
		xz -dc "$f" >"${u%.xz}"
	done
}

setup() {
	case_sample 2 2
	D=$BATS_TEST_TMPDIR
	M=("$D"/m{0,1,2,3}.img)
	U=$BATS_FILE_TMPDIR
}

# md_member META STEP N: the file holding member N (4: the added device)
# as md left it after STEP (base: before the first), or "blank". META is
# a metadata version, or 1.2-bitmap for the array with an internal bitmap.
md_member() {
	local w=$U/r5-4d-64k-ls-$1-manage
	case $2:$3 in
	base:4) echo blank ;;
	base:*) case $1 in
		1.2) echo "$FIX/r5-4d-64k-ls-1.2/member$3.img" ;;
		0.90) echo "$U/r5-4d-64k-ls-0.90/member$3.img" ;;
		*) echo "$w/base-member$3.img" ;;
		esac ;;
	remove-spare:4 | fail:4 | fail-remove:4) echo "$w/add-member4.img" ;;
	fail:1 | fail-remove:1) echo "$w/remove-spare-member1.img" ;;
	*) echo "$w/$2-member$3.img" ;;
	esac
}

# unpack FILE DEST
unpack() {
	case $1 in
	blank) truncate -s 8M "$2" ;;
	*) cp "$1" "$2" ;;
	esac
}

# stage META STEP: $D/m0..m4.img as md left them after STEP.
stage() {
	local i
	for i in 0 1 2 3 4; do unpack "$(md_member "$1" "$2" "$i")" "$D/m$i.img"; done
}

# like_md META STEP N...: members N... are byte for byte md's after STEP
# but for the superblock fields named at the top; fails naming each byte.
like_md() {
	local meta=$1 step=$2 i sb bad=""
	shift 2
	case $meta in
	0.90) sb=8323072 ;;
	1.0) sb=8380416 ;;
	1.1) sb=0 ;;
	*) sb=4096 ;;
	esac
	for i in "$@"; do
		unpack "$(md_member "$meta" "$step" "$i")" "$D/md$i.img"
		# cmp -l counts from 1; 1.x: device_uuid 168, utime 192, sb_csum 216;
		# 0.90: utime 128, sb_csum 152, disk 4's and this_disk's major:minor
		bad+=$(cmp -l "$D/md$i.img" "$D/m$i.img" | awk -v sb=$sb -v v="$meta" -v n="$i" -v step="$step" '
			{ o = $1 - 1 - sb
			  if (v ~ /^1\./) t = (o >= 192 && o < 200) || (o >= 216 && o < 220) || (n == 4 && o >= 168 && o < 184)
			  else t = (o >= 128 && o < 132) || (o >= 152 && o < 156) ||
				   (step == "add" && ((o >= 1028 && o < 1036) || (o >= 3972 && o < 3980))) }
			!t { printf " member%d@%d", n, $1 - 1 }')
	done
	[ -z "$bad" ] || fail "differs from what md wrote:$(cut -c1-300 <<<"$bad")"
}

@test "--add writes a 1.2 spare's superblock and lists it in the members' as md does" {
	stage 1.2 base
	stripe-manage -q --add "$D/m4.img" "${M[@]}"
	like_md 1.2 add 0 1 2 3 4
}

@test "--add writes a 0.90 spare's superblock and its entry in every table of disks as md does" {
	stage 0.90 base
	stripe-manage -q -a "$D/m4.img" "${M[@]}"
	like_md 0.90 add 0 1 2 3 4
}

@test "--remove of a 1.2 spare leaves the superblocks md leaves" {
	stage 1.2 add
	stripe-manage -q --remove "$D/m4.img" "${M[@]}"
	like_md 1.2 remove-spare 0 1 2 3 4
}

@test "--remove of a 0.90 spare clears its entry and recounts the disks as md does" {
	stage 0.90 add
	stripe-manage -q --remove "$D/m4.img" "${M[@]}"
	like_md 0.90 remove-spare 0 1 2 3 4
}

@test "--fail records a 1.2 member faulty in the others' roles, its own superblock untouched, as md does" {
	stage 1.2 remove-spare
	stripe-manage -q --fail "$D/m1.img" "${M[@]}"
	like_md 1.2 fail 0 1 2 3
}

@test "--fail of a 0.90 member leaves its slot faulty removed and lists it faulty past the roles, as md does" {
	stage 0.90 remove-spare
	stripe-manage -q --fail "$D/m1.img" "${M[@]}"
	like_md 0.90 fail 0 1 2 3
}

@test "--remove of a failed 1.2 member leaves the superblocks md leaves" {
	stage 1.2 fail
	stripe-manage -q --remove "$D/m1.img" "${M[@]}"
	like_md 1.2 fail-remove 0 1 2 3
}

@test "--remove of a failed 0.90 member drops its faulty entry as md does" {
	stage 0.90 fail
	stripe-manage -q --remove "$D/m1.img" "${M[@]}"
	like_md 0.90 fail-remove 0 1 2 3
}

# verbs_like_md META: --add, --remove of the spare, --fail and --remove of
# role 1, in turn on one array, each leaving what md left after it.
verbs_like_md() {
	stage "$1" base
	stripe-manage -q --add "$D/m4.img" "${M[@]}"
	like_md "$1" add 0 1 2 3 4
	stripe-manage -q --remove "$D/m4.img" "${M[@]}"
	like_md "$1" remove-spare 0 1 2 3 4
	stripe-manage -q --fail "$D/m1.img" "${M[@]}"
	like_md "$1" fail 0 1 2 3
	stripe-manage -q --remove "$D/m1.img" "${M[@]}"
	like_md "$1" fail-remove 0 2 3
}

@test "--add, --remove and --fail leave on a 1.0 array, superblocks at the end, what md leaves" {
	verbs_like_md 1.0
}

@test "--add, --remove and --fail leave on a 1.1 array, superblocks at the start, what md leaves" {
	verbs_like_md 1.1
}

@test "--add to a 1.2 array with an internal bitmap writes the spare and the bitmaps as md does" {
	stage 1.2-bitmap base
	stripe-manage -q --add "$D/m4.img" "${M[@]}"
	like_md 1.2-bitmap add 0 1 2 3 4
}

@test "--remove failed takes a failed member that is gone out of the tables, as md's --remove of it" {
	local meta
	for meta in 1.2 0.90; do
		stage "$meta" fail
		rm "$D/m1.img"
		run --separate-stderr stripe-manage --remove failed "$D"/m{0,2,3}.img
		assert_success
		[ "$output" = "$D/m0.img: 1 faulty device removed from the array, events $([ "$meta" = 1.2 ] && echo 42 || echo 43)" ] ||
			fail "$meta: $output"
		like_md "$meta" fail-remove 0 2 3
	done
}

@test "--remove failed on an array that records no faulty device says so and writes nothing" {
	stage 1.2 fail-remove
	sums >"$D/before"
	run --separate-stderr stripe-manage --remove failed "$D"/m{0,2,3}.img
	assert_success
	[ "$stderr" = "stripe-manage: $D/m0.img: the array records no faulty device; nothing to do" ] || fail "$stderr"
	sums | cmp - "$D/before"
}

@test "--zero-superblock zeroes the bytes mdadm zeroes: 512 at a 1.2 superblock, the 4 KiB of a 0.90 one" {
	local meta
	for meta in 1.2 0.90; do
		stage "$meta" fail-remove
		stripe-manage -q --zero-superblock "$D/m1.img" "$D/m4.img"
		unpack "$(md_member "$meta" zero 1)" "$D/md1.img"
		unpack "$(md_member "$meta" zero 4)" "$D/md4.img"
		cmp "$D/md1.img" "$D/m1.img" && cmp "$D/md4.img" "$D/m4.img" || fail "$meta differs"
	done
}

@test "--zero-superblock zeroes the bytes mdadm zeroes at a 1.0 and a 1.1 superblock" {
	local set
	for set in r1-2d-1.0 r1-2d-1.1 r5-4d-64k-rs-1.0; do
		cp "$FIX/$set/member0.img" "$D/z.img"
		stripe-manage -q --zero-superblock "$D/z.img"
		cmp "$U/zero-1.0-1.1/$set-member0.img" "$D/z.img" || fail "$set differs"
	done
}

@test "after --fail stripe-examine finds the array degraded, the member recorded faulty in the others' roles" {
	stage 1.2 remove-spare
	stripe-manage -q --fail "$D/m1.img" "${M[@]}"
	run stripe-examine --json "${M[@]}"
	[ "$(jq -r '[.array.state, .members[0].array_state] | join(" ")' <<<"$output")" = "degraded A.AA" ] || fail "$output"
}

@test "--add on a degraded array says stripe-rebuild takes the spare, which then rebuilds onto it" {
	stage 1.2 fail-remove
	truncate -s 0 "$D/m4.img" && truncate -s 8M "$D/m4.img"
	run --separate-stderr stripe-manage -a "$D/m4.img" "$D"/m{0,2,3}.img
	assert_success
	[[ $output == *"degraded: stripe-rebuild with it among the members rebuilds a missing role onto it"* ]] || fail "$output"
	stripe-rebuild -q --progress none "$D"/m{0,2,3,4}.img
	stripe-check -q --progress none "$D"/m{0,2,3,4}.img
}

@test "--json says what was done" {
	stage 1.2 base
	run --separate-stderr stripe-manage --json --add "$D/m4.img" "${M[@]}"
	assert_success
	[ "$(jq -r '[.tool, .verb, .dev_number, .events, (.written | length), .verdict] | join(" ")' <<<"$output")" = \
		"stripe-manage add 5 38 5 done" ] || fail "$output"
}

# untouched: every member's sha256 is what it was.
sums() {
	sha256sum "$D"/m*.img
}

@test "--remove of an in-sync member is refused in one line, nothing written" {
	stage 1.2 base
	sums >"$D/before"
	run --separate-stderr stripe-manage --remove "$D/m1.img" "${M[@]}"
	assert_failure 2
	[ "$stderr" = "stripe-manage: $D/m1.img: holds role 1 in the array; --fail it first, as mdadm --remove refuses an active device; nothing written" ] || fail "$stderr"
	sums | cmp - "$D/before"
}

@test "--add of a member of the array is refused in one line, nothing written" {
	stage 1.2 base
	sums >"$D/before"
	run --separate-stderr stripe-manage --add "$D/m2.img" "${M[@]}"
	assert_failure 2
	[ "$stderr" = "stripe-manage: $D/m2.img: a member of this array, holding role 2; nothing written" ] || fail "$stderr"
	sums | cmp - "$D/before"
}

@test "--fail of the last redundancy is refused without --force, nothing written" {
	stage 1.2 fail-remove
	sums >"$D/before"
	run --separate-stderr stripe-manage --fail "$D/m2.img" "$D"/m{0,2,3}.img
	assert_failure 2
	[ "$stderr" = "stripe-manage: $D/m2.img: failing role 2 would leave the array unreadable (1 role missing already); use --force to fail it; nothing written" ] || fail "$stderr"
	[ "$(wc -l <<<"$stderr")" = 1 ]
	sums | cmp - "$D/before"
}

@test "--zero-superblock refuses a device that is no md member, unless --force, and writes nothing" {
	head -c 1M /dev/urandom >"$D/m0.img"
	sums >"$D/before"
	run --separate-stderr stripe-manage --zero-superblock "$D/m0.img"
	assert_failure 2
	[[ $stderr == "stripe-manage: $D/m0.img: not an md member (no md superblock found"*"); use --force to pass it over; nothing written" ]] || fail "$stderr"
	run --separate-stderr stripe-manage --force --zero-superblock "$D/m0.img"
	assert_success
	sums | cmp - "$D/before"
}

@test "--zero-superblock refuses a member whose array is recorded active, every device given, unless --force" {
	stage 1.2 base
	# a write stopped by a read error leaves the array active (needing a resync)
	run stripe-write --progress none -i "$D" "${M[@]}"
	sums >"$D/before"
	run --separate-stderr stripe-manage --zero-superblock "$D/m0.img" "$D/m1.img"
	assert_failure 2
	[ "$stderr" = "stripe-manage: $D/m0.img: its superblock records the array active, not stopped cleanly: md may be running it; use --force to zero it; nothing written" ] || fail "$stderr"
	sums | cmp - "$D/before"
	stripe-manage -q --force --zero-superblock "$D/m0.img"
	run stripe-examine "$D/m0.img"
	assert_failure
}

@test "one verb per run" {
	run --separate-stderr stripe-manage --fail x --remove y a b
	assert_failure 2
	[ "$stderr" = "stripe-manage: --fail and --remove: one verb per run"$'\n'"Try 'stripe-manage --help'." ] || fail "$stderr"
}
