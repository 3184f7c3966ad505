# map-helpers.bash: what the stripe-map specs share: their skips where FUSE
# cannot mount, the mountpoints, and stripe-map run in the test's background.
# Loaded after helpers (for fail).  Not a spec: bats runs *.bats only.

# map_setup: skips without root, /dev/fuse or fusermount3; else D is the
# test's directory, MNT the map's mountpoint and FS one for what is on it.
map_setup() {
	[ "$(id -u)" -eq 0 ] || skip "needs root (FUSE mounts, loop devices)"
	[ -c /dev/fuse ] || skip "no /dev/fuse"
	command -v fusermount3 >/dev/null || skip "fusermount3 is not installed (fuse3)"
	D=$BATS_TEST_TMPDIR
	MNT=$D/mnt FS=$D/fs
	mkdir -p "$MNT" "$FS"
	MAP_PID=
}

# map_teardown: what a failed test left mounted or running goes, so the
# next test's members and mountpoints are free.  Nothing when setup skipped.
map_teardown() {
	[ -n "${D:-}" ] || return 0
	mountpoint -q "$FS" && umount "$FS"
	mountpoint -q "$MNT" && fusermount3 -u "$MNT"
	if [ -n "$MAP_PID" ] && kill -0 "$MAP_PID" 2>/dev/null; then
		kill -KILL "$MAP_PID"
		wait "$MAP_PID" || true
	fi
	return 0
}

# map_start OPTION-OR-MEMBER...: stripe-map in the foreground, in the
# background of the test, until MOUNTPOINT/array is there.
map_start() {
	stripe-map --foreground "$@" "$MNT" 2>"$D/map.err" &
	MAP_PID=$!
	appears "$MNT/array" "$MAP_PID" || fail "stripe-map did not map: $(cat "$D/map.err")"
}

# map_stop: fusermount3 -u, then stripe-map's exit status in MAP_RC.
# shellcheck disable=SC2034 # MAP_RC is for the specs to judge
map_stop() {
	local i
	# a loop device over the array lets go of it a moment after its umount
	for ((i = 0; i < 50; i++)); do
		fusermount3 -u "$MNT" 2>/dev/null && break
		sleep 0.1
	done
	((i < 50)) || fusermount3 -u "$MNT"
	MAP_RC=0
	wait "$MAP_PID" || MAP_RC=$?
	MAP_PID=
}
