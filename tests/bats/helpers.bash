# helpers.bash: shared setup for the bats suite: where the binaries and the
# unpacked fixtures are, and small helpers to read MANIFESTs and hash files.

# Bats loads this file again for every test, so it spawns no process: each
# costs milliseconds here, and the suite runs some six hundred tests twice.

# load_library NAME: bats-support or bats-assert, their src/ files sourced
# straight from bats' library path, as their load.bash does, but without
# its "$(dirname ...)" for each of them (fifteen processes a test).
load_library() {
	local dirs dir f
	IFS=: read -ra dirs <<<"${BATS_LIB_PATH:-/usr/lib/bats}"
	for dir in "${dirs[@]}"; do
		[ -d "$dir/$1/src" ] || continue
		for f in "$dir/$1"/src/*.bash; do
			source "$f"
		done
		return 0
	done
	bats_load_library "$1"
}
load_library bats-support
load_library bats-assert

# bats --timing (run-job's) reads the clock before and after each test
# with a "date" process each time; bash's EPOCHREALTIME gives the same
# milliseconds without them.  (bats-exec-test defines the function, then
# loads the spec file and this one, then calls it.)
if declare -F get_mills_since_epoch > /dev/null; then
	get_mills_since_epoch() {
		local us=${EPOCHREALTIME/[.,]/}
		echo $((us / 1000))
	}
fi

# the top of the tree from tests/bats or tests/md, where the specs are
if [[ $BATS_TEST_DIRNAME == /*/tests/* ]]; then
	TOP=${BATS_TEST_DIRNAME%/tests/*}
else
	TOP=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
fi
BIN=${STRIPE_BIN:-$TOP/bin}
FIX=${STRIPE_FIXTURES:-$TOP/build/fixtures}
if [[ $BIN == /*/bin ]]; then
	TTOOLS=${BIN%/bin}/tests/tools
else
	TTOOLS=$(cd "$BIN/.." && pwd)/tests/tools
fi
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

# in_sample I N: whether item I of an exhaustive sweep is visited.  make
# check-full (STRIPE_FULL set) visits every item; make check one in N, those
# with (I + STRIPE_SAMPLE_SEED) divisible by N, so that it stays fast and
# another seed visits others; its sanitized run one in 3N, as it looks for
# memory errors on paths the plain run's sample shows right.  A two-way
# sweep passes the difference of its two indexes (I = a - b + N * something)
# to visit a diagonal: every value of each index, in a different pairing for
# every seed (the plain run).  Each call counts the item, and each visit,
# for swept.
SWEPT_ITEMS=0 SWEPT_VISITS=0
in_sample() {
	local n=$2
	SWEPT_ITEMS=$((SWEPT_ITEMS + 1))
	in_plain_suite || n=$((n * 3))
	[ -n "${STRIPE_FULL:-}" ] || (((($1 + ${STRIPE_SAMPLE_SEED:-0}) % n + n) % n == 0)) || return 1
	SWEPT_VISITS=$((SWEPT_VISITS + 1))
}

# case_sample SAN_N [PLAIN_N]: called from setup, skips all but one case in
# SAN_N of the sanitized run and one in PLAIN_N (default: every one) of
# the plain run, the two runs taking different cases: with "2 2" every case
# runs once a make check, in one build or the other, for half the time.
# Another share with each STRIPE_SAMPLE_SEED, every case in both builds
# under make check-full.
case_sample() {
	local n=$((BATS_TEST_NUMBER + ${STRIPE_SAMPLE_SEED:-0})) every=${2:-1}
	[ -z "${STRIPE_FULL:-}" ] || return 0
	if in_plain_suite; then
		((n % every == 0)) || skip "plain run: one case in $every (make check-full runs all)"
	else
		(((n + 1) % $1 == 0)) || skip "sanitized run: one case in $1 (make check-full runs all)"
	fi
}

# swept: says in the TAP output how much of the test's sweep ran.
swept() {
	[ "$SWEPT_VISITS" -eq "$SWEPT_ITEMS" ] && return 0
	echo "# swept $SWEPT_VISITS of $SWEPT_ITEMS (make check-full sweeps all; STRIPE_SAMPLE_SEED picks others)" >&3
}

# appears FILE PID: waits (10 s at most) until FILE is there and not empty,
# as a server started in the background (PID) makes it once it serves;
# 1 when it is not, or PID ended first.
appears() {
	local i
	for ((i = 0; i < 200; i++)); do
		[ -s "$1" ] && return 0
		kill -0 "$2" 2>/dev/null || return 1
		sleep 0.05
	done
	return 1
}

fixtures_ready() {
	[ -d "$FIX" ] || "$TOP/tests/unpack-fixtures" "$FIX"
}

# The helpers below are called in loops over every fixture.  Inside bats a
# process costs about 5 ms and a shell command about 0.5 ms (bats' DEBUG
# trap runs on each), so each takes one process or a few commands, never a
# loop over a file's lines.

# manifest SET KEY: a MANIFEST value (its first KEY= line).
manifest() {
	sed -n "/^$2=/{s///p;q}" "$FIX/$1/MANIFEST"
}

# read_manifest SET: the whole MANIFEST in MF[KEY] (each key's first line),
# for a loop that asks many keys of one set: one awk and one assignment.
declare -gA MF
read_manifest() {
	eval "MF=($(awk -F= '/=/ && !($1 in seen) {
		seen[$1]; v = substr($0, length($1) + 2); gsub(/\x27/, "\x27\\\x27\x27", v)
		printf "[%s]=\x27%s\x27 ", $1, v }' "$FIX/$1/MANIFEST"))"
}

# in_role_order FILE...: the member images given, in role order (memberN:
# by N, where a glob would put member10 before member2).
in_role_order() {
	[ -e "$1" ] || return 1
	if [ $# -le 10 ]; then
		printf '%s\n' "$@"
	else
		printf '%s\n' "$@" | sort -V
	fi
}

# members SET: the set's member images, in role order.
members() {
	in_role_order "$FIX/$1"/member*.img
}

# all_sets: every fixture set with members.
all_sets() {
	local d
	for d in "$FIX"/*/; do
		d=${d%/}
		[ -e "$d/member0.img" ] && echo "${d##*/}"
	done
	return 0
}

# sha FILE...: the sha256 of each file (or of stdin), one a line.  Hashing
# is much of the suite's time: OpenSSL's SHA-256 (SHA-NI where the CPU has
# it) takes half the CPU of coreutils' sha256sum, which stays the fallback.
if command -v openssl > /dev/null; then
	sha() {
		local h rest
		openssl dgst -sha256 -r "$@" | while read -r h rest; do echo "$h"; done
	}
else
	sha() {
		local h rest
		sha256sum "$@" | while read -r h rest; do echo "$h"; done
	}
fi

# events_of MEMBER: the events count mdadm --examine reads on MEMBER
events_of() {
	mdadm --examine "$1" 2>/dev/null | sed -n 's/^ *Events : //p'
}

# copy_set SET: a writable copy of a set's members in $BATS_TEST_TMPDIR/SET.
copy_set() {
	mkdir -p "$BATS_TEST_TMPDIR/$1"
	cp "$FIX/$1"/member*.img "$BATS_TEST_TMPDIR/$1/"
	in_role_order "$BATS_TEST_TMPDIR/$1"/member*.img
}

# zeroed_set SET: a copy of a fixture set, members in role order, with what
# md keeps outside the data zeroed, as a lost array's members are: 1.1/1.2
# everything before the data offset, 0.90/1.0 everything after the data (the
# last 128 KiB the probe's issue names, cut where these small members keep
# data in it).
zeroed_set() {
	local set=$1 m off end
	off=$(manifest "$set" member0.data_offset_sectors)
	end=$(manifest "$set" component_size_kib)
	for m in $(copy_set "$set"); do
		if [ "$off" -gt 0 ]; then
			dd if=/dev/zero of="$m" bs=512 count="$off" conv=notrunc status=none
		else
			dd if=/dev/zero of="$m" bs=1024 seek="$end" count=$(($(stat -c %s "$m") / 1024 - end)) \
				conv=notrunc status=none
		fi
		echo "$m"
	done
}

# bitmap_chunk BYTES MEMBER...: each 1.2 member's bitmap made to count
# BYTES a bit, its first bits clear: more bits on small members than
# mdadm's 64 MiB chunk gives.  The bitmap is at sector 16 (8 after the
# superblock): its chunk size at byte 52, the bits from byte 256.
bitmap_chunk() {
	local b=$1 m bytes
	shift
	printf -v bytes '\\x%02x\\x%02x\\x%02x\\x%02x' $((b & 255)) $((b >> 8 & 255)) \
		$((b >> 16 & 255)) $((b >> 24 & 255))
	for m in "$@"; do
		printf "$bytes" | dd of="$m" bs=1 seek=$((8192 + 52)) conv=notrunc status=none
		dd if=/dev/zero of="$m" bs=1 count=1 seek=$((8192 + 256)) conv=notrunc status=none
	done
}

# killed_write FIFO OFFSET BYTES MEMBER...: stripe-write of BYTES random
# bytes at OFFSET through the fifo FIFO, killed (SIGKILL) while it waits
# for more input, as a crash in the middle of a write leaves an array.
# (fd 7: bats keeps its own output on 3.)
killed_write() {
	local fifo=$1 off=$2 n=$3 pid
	shift 3
	rm -f "$fifo"
	mkfifo "$fifo"
	stripe-write -q -i "$fifo" --offset "$off" "$@" &
	pid=$!
	exec 7> "$fifo"
	head -c "$n" /dev/urandom >&7
	sleep 1
	kill -9 $pid
	exec 7>&-
	wait $pid || true
}
