#!/usr/bin/env bats
# Proof by the kernel for stripe-map: an ext4 made and filled through the
# mapped file (loop-mounted) is one md assembles, finds clean and without
# mismatches, mounts, and reads the same files from: a whole RAID5 and a
# RAID6 mapped with a member missing.  One VM boot for both
# (map-mount.vm.sh); its output is kept in build/test-logs-md/t9400-md-mounts-what-stripe-map-made.txt.

bats_require_minimum_version 1.5.0
load helpers

VM_SCRIPT=$BATS_TEST_DIRNAME/map-mount.vm.sh

# fill NAME MEMBER...: maps the members, makes an ext4 with stripe-examine's
# STRIPE_MKFS_OPTS, writes files through a loop mount, unmaps; the files'
# sums in $W/NAME.sums.
fill() {
	local name=$1 pid STRIPE_MKFS_OPTS
	shift
	mkdir -p "$W/$name.map" "$W/$name.fs"
	eval "$(stripe-examine --export "$@")"
	# --run: the degraded set is written without its lost member on purpose
	stripe-map --foreground --run -q "$@" "$W/$name.map" 2> "$W/$name.err" &
	pid=$!
	for _ in $(seq 100); do [ -e "$W/$name.map/array" ] && break; sleep 0.1; done
	# shellcheck disable=SC2086 # options, split on purpose
	mkfs.ext4 -q -F $STRIPE_MKFS_OPTS "$W/$name.map/array"
	mount -o loop "$W/$name.map/array" "$W/$name.fs"
	mkdir "$W/$name.fs/dir"
	head -c 3000001 /dev/urandom > "$W/$name.fs/dir/random.bin"
	seq 1 200000 > "$W/$name.fs/numbers.txt"
	(cd "$W/$name.fs" && sha256sum dir/random.bin numbers.txt) > "$W/$name.sums"
	umount "$W/$name.fs"
	fusermount3 -u "$W/$name.map"
	wait "$pid"
}

setup_file() {
	[ "$(id -u)" -eq 0 ] || return 0
	[ -c /dev/fuse ] || return 0
	W=$BATS_FILE_TMPDIR
	export W
	stripe-create -q -l 5 -c 64K --image-size 8M "$W"/w{0,1,2,3}.img
	fill whole "$W"/w{0,1,2,3}.img
	stripe-create -q -l 6 -c 64K --image-size 8M "$W"/d{0,1,2,3,4}.img
	rm "$W/d3.img"
	fill degraded "$W"/d{0,1,2,4}.img
	md_there || return 0
	vm_run --mem 256 --timeout 300 $(printf -- '--disk-snap %s ' "$W"/w{0,1,2,3}.img "$W"/d{0,1,2,4}.img) \
		-- "$VM_SCRIPT" 4 > "$W/vm.txt" 2>&1 || true
	mkdir -p "$MD_LOGS"
	cp "$W/vm.txt" "$MD_LOGS/t9400-md-mounts-what-stripe-map-made.txt"
}

setup() {
	[ "$(id -u)" -eq 0 ] || skip "needs root (FUSE mounts, loop devices)"
	[ -c /dev/fuse ] || skip "no /dev/fuse"
	md_ready
	W=$BATS_FILE_TMPDIR
}

# m NAME KEY: a value from the VM's "M: NAME KEY=value" lines.
m() {
	sed -n "s/^M: $1 .*\b$2=\([^ ]*\).*/\1/p" "$W/vm.txt" | head -n 1
}

# file_sum NAME PATH: the sha256 md read for PATH in array NAME.
file_sum() {
	awk -v want="file=$2" -v name="$1" '$1 == "M:" && $2 == name && $3 == want { sub(/^sha256=/, "", $4); print $4 }' "$W/vm.txt"
}

@test "md assembles the raid5 stripe-map wrote, clean, and its check finds no mismatch" {
	[ "$(m whole assemble_rc)" = 0 ] || fail "$(cat "$W/vm.txt")"
	[ "$(m whole resync_start)" = none ]
	[ "$(m whole mismatch_cnt)" = 0 ]
}

@test "the ext4 made through stripe-map is clean to e2fsck under md, with md's stride and stripe width" {
	[ "$(m whole e2fsck_rc)" = 0 ] || fail "$(grep '^D: whole' "$W/vm.txt")"
	[ "$(m whole stride)" = 16 ]
	[ "$(m whole stripe_width)" = 48 ]
}

@test "md mounts the ext4 and reads each file with the sha256 written through stripe-map" {
	[ "$(m whole mount_rc)" = 0 ]
	local sum path
	while read -r sum path; do
		[ "$(file_sum whole "$path")" = "$sum" ] ||
			fail "$path: md reads sha256 '$(file_sum whole "$path")', written $sum"
	done < "$W/whole.sums"
}

@test "md assembles the raid6 mapped with a member missing, degraded, and reads the same files" {
	[ "$(m degraded assemble_rc)" = 0 ] || fail "$(cat "$W/vm.txt")"
	[ "$(m degraded degraded)" = 1 ]
	[ "$(m degraded resync_start)" = none ]
	[ "$(m degraded e2fsck_rc)" = 0 ] || fail "$(grep '^D: degraded' "$W/vm.txt")"
	local sum path
	while read -r sum path; do
		[ "$(file_sum degraded "$path")" = "$sum" ] ||
			fail "$path: md reads sha256 '$(file_sum degraded "$path")', written $sum"
	done < "$W/degraded.sums"
}
