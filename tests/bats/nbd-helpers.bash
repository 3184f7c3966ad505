# nbd-helpers.bash: what the nbdkit plugin's specs share: their skips where
# nbdkit or its clients are missing, the plugin of the build under test, and
# nbdkit run with it in the test's background on a Unix socket.  Loaded
# after helpers (for fail).  Not a spec: bats runs *.bats only.

# nbd_setup: skips without nbdkit, libnbd's or qemu's tools; else D is the
# test's directory, SOCK the socket, URI the export's NBD URI, PLUGIN the
# build's plugin, and NBDKIT the command line that runs nbdkit (with the
# sanitizers' runtime first in the sanitized run: the plugin carries
# ASan's hooks, nbdkit does not).
nbd_setup() {
	local t
	for t in nbdkit nbdinfo nbdcopy qemu-img qemu-io; do
		command -v "$t" >/dev/null || skip "$t is not installed (tools/stripe-deps)"
	done
	D=$BATS_TEST_TMPDIR
	SOCK=$D/nbd.sock
	# shellcheck disable=SC2034 # URI is for the specs
	URI="nbd+unix:///?socket=$SOCK"
	PLUGIN=${BIN%/bin}/plugin/nbdkit-stripe-plugin.so
	[ -f "$PLUGIN" ] || fail "$PLUGIN is not built"
	NBDKIT=(nbdkit)
	in_plain_suite ||
		NBDKIT=(env LD_PRELOAD="$(gcc -print-file-name=libasan.so)" ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 nbdkit)
	NBD_PID=
}

# nbd_teardown: a server a failed test left running goes.
nbd_teardown() {
	if [ -n "${NBD_PID:-}" ] && kill -0 "$NBD_PID" 2>/dev/null; then
		kill -KILL "$NBD_PID"
		wait "$NBD_PID" || true
	fi
	return 0
}

# nbd_start [NBDKIT-OPTION...] PARAM...: nbdkit with the plugin in the
# foreground, in the background of the test, until it listens on SOCK.
nbd_start() {
	local opts=()
	while [[ ${1:-} == -* ]]; do
		opts+=("$1")
		shift
	done
	# nbdkit leaves its socket behind when it stops
	rm -f "$D/nbd.pid" "$SOCK"
	"${NBDKIT[@]}" -f -U "$SOCK" -P "$D/nbd.pid" "${opts[@]}" "$PLUGIN" "$@" 2>"$D/nbd.err" &
	NBD_PID=$!
	appears "$D/nbd.pid" "$NBD_PID" || fail "nbdkit did not start: $(cat "$D/nbd.err")"
}

# nbd_stop: SIGTERM, then nbdkit's exit status in NBD_RC.
# shellcheck disable=SC2034 # NBD_RC is for the specs to judge
nbd_stop() {
	kill "$NBD_PID"
	NBD_RC=0
	wait "$NBD_PID" || NBD_RC=$?
	NBD_PID=
}
