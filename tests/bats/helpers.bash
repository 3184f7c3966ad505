# helpers.bash: shared setup for the bats suite: where the binaries and the
# unpacked fixtures are, and small helpers to read MANIFESTs and hash files.

bats_load_library bats-support
bats_load_library bats-assert

TOP=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
BIN=${STRIPE_BIN:-$TOP/bin}
FIX=${STRIPE_FIXTURES:-$TOP/build/fixtures}
TTOOLS=$(cd "$BIN/.." && pwd)/tests/tools
PATH=$BIN:$TOP/tools:$PATH

# in_plain_suite: true except in the ASan+UBSan run of make check.
# plain_suite_only: skips a test there.  For specs of the shell scripts, and
# sweeps over every fixture, whose C paths the sanitized run already covers
# through other specs: worth their minutes once.  (A setup_file cannot
# skip: it returns early with "in_plain_suite || return 0", and each test's
# setup skips.)
in_plain_suite() {
	[ "${STRIPE_SUITE:-plain}" = plain ]
}

plain_suite_only() {
	in_plain_suite || skip "runs in the plain suite only"
}

fixtures_ready() {
	[ -d "$FIX" ] || "$TOP/tests/unpack-fixtures" "$FIX"
}

# manifest SET KEY: a MANIFEST value.
manifest() {
	sed -n "s/^$2=//p" "$FIX/$1/MANIFEST" | head -n 1
}

# members SET: the set's member images, in role order.
members() {
	ls "$FIX/$1"/member*.img | sort -V
}

# all_sets: every fixture set with members.
all_sets() {
	local d
	for d in "$FIX"/*/; do
		ls "$d"member0.img >/dev/null 2>&1 && basename "$d"
	done
}

sha() {
	sha256sum "$@" | cut -d' ' -f1
}

# events_of MEMBER: the events count mdadm --examine reads on MEMBER
events_of() {
	mdadm --examine "$1" 2>/dev/null | sed -n 's/^ *Events : //p'
}

# copy_set SET: a writable copy of a set's members in $BATS_TEST_TMPDIR/SET.
copy_set() {
	mkdir -p "$BATS_TEST_TMPDIR/$1"
	cp "$FIX/$1"/member*.img "$BATS_TEST_TMPDIR/$1/"
	ls "$BATS_TEST_TMPDIR/$1"/member*.img | sort -V
}
