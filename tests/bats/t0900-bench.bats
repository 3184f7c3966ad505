#!/usr/bin/env bats
# stripe-bench: every mode runs at small sizes and its output parses: the
# Bonnie table, a bonnie++ 1.98 CSV line that bon_csv2txt takes and whose
# numbers are the table's, JSON with units and parameters, tiotest's and
# hdparm's reports; temporary files go away, also on SIGINT.

bats_require_minimum_version 1.5.0
load helpers

# The Bonnie tests at sizes that take a second or two here.
SMALL=(-q -s 4M --char-size 32K --seeks 100)

setup() {
	case_sample 2 2
	D=$BATS_TEST_TMPDIR/dir
	mkdir -p "$D"
}

teardown() {
	# an immutable directory left by a failed test would stop bats' cleanup
	chattr -i "$BATS_TEST_TMPDIR/ro" "$BATS_TEST_TMPDIR/ro.img" 2>/dev/null || :
	chmod 755 "$BATS_TEST_TMPDIR/ro" 2>/dev/null || :
}

# table_row TEXT: the data row of the Bonnie table (the line after "Machine").
table_row() {
	awk 'seen { print; exit } /^Machine +MB/ { seen = 1 }' <<<"$1"
}

# json_check JSON PYTHON: runs PYTHON (assertions on d, the document).
json_check() {
	python3 -c "import json, sys
d = json.loads(sys.stdin.read())
$2" <<<"$1"
}

# make_raid5: a RAID5 of four 16 MiB image files in $BATS_TEST_TMPDIR.
make_raid5() {
	M=("$BATS_TEST_TMPDIR"/m{0,1,2,3}.img)
	stripe-create -q -l 5 -c 64K --image-size 16M "${M[@]}"
}

@test "the Bonnie table of a small run has a row of positive figures for every test" {
	run stripe-bench "${SMALL[@]}" -m box "$D"
	assert_success
	assert_line --index 0 --partial -- "-------Sequential Output--------"
	assert_line --index 2 "Machine    MB K/sec %CPU K/sec %CPU K/sec %CPU K/sec %CPU K/sec %CPU  /sec %CPU"
	read -r -a f <<<"$(table_row "$output")"
	[ "${#f[@]}" -eq 14 ] || fail "row: ${f[*]}"
	[ "${f[0]}" = box ]
	[ "${f[1]}" = 4 ]
	for i in 2 4 6 8 10 12; do
		awk -v v="${f[i]}" 'BEGIN { exit !(v > 0) }' || fail "column $i is not positive: ${f[*]}"
	done
	assert_line --regexp '^Latency +[0-9]+(us|ms|s) '
}

@test "the CSV line has bonnie++ 1.98's 50 fields" {
	run stripe-bench "${SMALL[@]}" --csv -m box "$D"
	assert_success
	[ "${#lines[@]}" -eq 1 ]
	[ "$(awk -F, '{ print NF }' <<<"$output")" -eq 50 ]
	IFS=, read -r -a c <<<"$output"
	[ "${c[0]}" = 1.98 ]
	[ "${c[2]}" = box ]
	[ "${c[5]}" = 4M ]
	[ "${c[6]}" = 8k ]
	[ "${c[7]}" = 100 ]
	[ "${c[8]}" = 5 ]
	awk -v v="${c[11]}" 'BEGIN { exit !(v > 0) }'
}

@test "bon_csv2txt takes the CSV line without a complaint" {
	command -v bon_csv2txt >/dev/null || skip "bon_csv2txt (bonnie++) is not installed"
	stripe-bench "${SMALL[@]}" --csv -m box "$D" >"$BATS_TEST_TMPDIR/run.csv"
	run --separate-stderr bon_csv2txt <"$BATS_TEST_TMPDIR/run.csv"
	assert_success
	[ -z "$stderr" ] || fail "bon_csv2txt: $stderr"
	assert_line --regexp '^box +4M:8k:100:5 '
}

@test "the CSV's numbers, and bon_csv2txt's, are the table's" {
	command -v bon_csv2txt >/dev/null || skip "bon_csv2txt (bonnie++) is not installed"
	run --separate-stderr stripe-bench "${SMALL[@]}" -n 1 -m box --csv="$BATS_TEST_TMPDIR/run.csv" "$D"
	assert_success
	bon_csv2txt <"$BATS_TEST_TMPDIR/run.csv" >"$BATS_TEST_TMPDIR/run.txt"
	printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/table.txt"
	python3 - "$BATS_TEST_TMPDIR"/{table.txt,run.csv,run.txt} <<'EOF'
import sys
table, csv, txt = (open(p).read().splitlines() for p in sys.argv[1:])
assert len(csv) == 2 and csv[0].startswith("format_version,bonnie_version,name,"), csv[0]
c = csv[1].split(",")
assert len(c) == 50, len(c)
io = table[table.index(next(l for l in table if l.startswith("Machine    MB"))) + 1].split()
files = table[table.index(next(l for l in table if l.startswith("Machine files"))) + 1].split()
assert io[0] == c[2] == "box" and io[1] + "M" == c[5], (io, c[:6])
for k in range(6):                      # K/sec (seeks/sec) and %CPU of the I/O tests
    assert io[2 + 2 * k] == c[9 + 2 * k], ("io rate", k, io, c)
    assert io[3 + 2 * k].split(".")[0] == c[10 + 2 * k], ("io cpu", k, io, c)
assert files[1] == c[21] == "1"
for k in range(6):                      # files/sec and %CPU of the file tests
    assert files[2 + 2 * k] == c[26 + 2 * k], ("file rate", k, files, c)
    assert files[3 + 2 * k].split(".")[0] == c[27 + 2 * k], ("file cpu", k, files, c)

def conv(kps):                          # bon_csv2txt's convSpd
    v = int(kps)
    if v < 10000:
        return "%dk" % v
    if v / 1024 < 1000:
        m = v / 1024
        return "%.1fm" % m if m < 100 else "%dm" % int(m + 0.5)
    return "%.1fg" % (v / 1024 / 1024)

row = next(l for l in txt if l.startswith("box ")).split()
for k in range(5):
    assert row[2 + 2 * k] == conv(io[2 + 2 * k]), ("bon_csv2txt rate", k, row, io)
    assert row[3 + 2 * k] == c[10 + 2 * k], ("bon_csv2txt cpu", k, row, c)
assert row[12] == io[12] and row[13] == c[20], ("bon_csv2txt seeks", row, io)
frow = next(l for l in txt if l.split()[:2] == ["box", "1"]).split()
for k in range(6):
    assert frow[2 + 2 * k] == files[2 + 2 * k], ("bon_csv2txt files", k, frow, files)
EOF
}

@test "JSON carries the parameters and every figure with its unit" {
	run --separate-stderr stripe-bench "${SMALL[@]}" --json -m box "$D"
	assert_success
	json_check "$output" '
assert d["format"] == 1 and d["tool"] == "stripe-bench" and d["version"]
p = d["parameters"]
assert p["mode"] == "bonnie" and p["target_kind"] == "directory" and p["label"] == "box", p
assert p["size_bytes"] == 4 << 20 and p["chunk_bytes"] == 8192 and p["char_size_bytes"] == 32 << 10, p
assert p["seeks"] == 100 and p["seekers"] == 5 and p["direct"] is False and p["page_cache_included"] is True, p
r = d["results"]
for k in ("per_char_write", "block_write", "rewrite", "per_char_read", "block_read"):
    assert r[k]["rate_bytes_per_s"] > 0 and r[k]["rate_kib_per_s"] > 0, (k, r[k])
    assert r[k]["elapsed_ns"] > 0 and r[k]["latency_ns"] > 0 and "cpu_percent" in r[k], (k, r[k])
assert r["block_write"]["bytes"] == 4 << 20
assert r["random_seeks"]["rate_per_s"] > 0 and r["random_seeks"]["operations"] == 100, r["random_seeks"]
'
}

@test "a size below twice the RAM warns that the page cache is in the figures" {
	run --separate-stderr stripe-bench -s 4M --char-size 16K --seeks 50 "$D"
	assert_success
	[[ $stderr == *"less than twice the RAM"*"page cache"* ]] || fail "stderr: $stderr"
}

@test "--direct leaves out the per-character tests and the page cache warning" {
	run --separate-stderr stripe-bench -s 4M --chunk 64K --seeks 50 --direct --json "$D"
	assert_success
	[[ $stderr != *"page cache"* ]] || fail "stderr: $stderr"
	json_check "$output" '
r = d["results"]
assert d["parameters"]["direct"] is True and d["parameters"]["page_cache_included"] is False
assert "per_char_write" not in r and "per_char_read" not in r, r.keys()
assert r["block_read"]["rate_bytes_per_s"] > 0 and r["block_write"]["rate_bytes_per_s"] > 0
'
}

@test "--stdio runs the per-character tests through putc and getc" {
	run --separate-stderr stripe-bench "${SMALL[@]}" --stdio --seeks 0 --json "$D"
	assert_success
	json_check "$output" '
r = d["results"]
assert d["parameters"]["stdio"] is True
assert r["per_char_write"]["bytes"] == 32 << 10 and r["per_char_write"]["rate_bytes_per_s"] > 0
assert r["per_char_read"]["rate_bytes_per_s"] > 0 and "random_seeks" not in r
'
}

# dontneeds TRACE: how many POSIX_FADV_DONTNEED calls an strace log holds.
dontneeds() {
	grep -c 'fadvise64(.*POSIX_FADV_DONTNEED' "$1" || :
}

# traced CALL CMD...: CMD under strace, its CALL calls logged in
# $BATS_TEST_TMPDIR/trace.  seccomp-bpf stops the program at those calls
# alone: under plain ptrace each one-byte read and write of the per-char
# tests stopped it too, four and a half minutes for a 4 MiB run.
# LeakSanitizer cannot work under ptrace: off there.
traced() {
	local call=$1
	shift
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		strace --seccomp-bpf -f -qq -e trace="$call" -o "$BATS_TEST_TMPDIR/trace" "$@"
}

# fadvised CMD...: CMD's fadvise64 calls in $BATS_TEST_TMPDIR/trace.
fadvised() {
	traced fadvise64 "$@"
}

@test "--drop-cache drops the test file's pages before each of the four reading tests" {
	command -v strace >/dev/null || skip "strace is not installed (tools/stripe-deps)"
	run --separate-stderr fadvised stripe-bench -s 4M --char-size 32K --seeks 100 --drop-cache --json "$D"
	assert_success
	[[ $stderr != *"page cache"* ]] || fail "stderr: $stderr"
	[ "$(dontneeds "$BATS_TEST_TMPDIR/trace")" -eq 4 ] || fail "$(cat "$BATS_TEST_TMPDIR/trace")"
	json_check "$output" '
p = d["parameters"]
assert p["drop_cache"] is True and p["page_cache_included"] is False
'
}

@test "without --drop-cache the page cache is left alone" {
	command -v strace >/dev/null || skip "strace is not installed (tools/stripe-deps)"
	run --separate-stderr fadvised stripe-bench "${SMALL[@]}" --json "$D"
	assert_success
	[ "$(dontneeds "$BATS_TEST_TMPDIR/trace")" -eq 0 ] || fail "$(cat "$BATS_TEST_TMPDIR/trace")"
	json_check "$output" 'assert d["parameters"]["drop_cache"] is False'
}

@test "--drop-cache with --array drops every member's pages before rewrite, read and seeks" {
	command -v strace >/dev/null || skip "strace is not installed (tools/stripe-deps)"
	make_raid5
	run --separate-stderr fadvised stripe-bench -q -s 4M --seeks 100 --drop-cache --json --array "${M[@]}"
	assert_success
	[ "$(dontneeds "$BATS_TEST_TMPDIR/trace")" -eq 12 ] || fail "$(cat "$BATS_TEST_TMPDIR/trace")"
	stripe-check --progress none "${M[@]}" >/dev/null
}

@test "--drop-cache is refused with --threads and --hdparm" {
	run --separate-stderr stripe-bench --drop-cache --threads 2 "$D"
	assert_failure 2
	[[ $stderr == *"--drop-cache is for the Bonnie tests"* ]] || fail "stderr: $stderr"
	run --separate-stderr stripe-bench --drop-cache --hdparm "$D"
	assert_failure 2
	[[ $stderr == *"--drop-cache is for the Bonnie tests"* ]] || fail "stderr: $stderr"
}

# huge_asks TRACE: the lengths of the madvise(MADV_HUGEPAGE) calls in an
# strace log, one a line.
huge_asks() {
	sed -n 's/.*madvise(0x[0-9a-f]*, \([0-9]*\), MADV_HUGEPAGE) = 0.*/\1/p' "$1"
}

# madvised CMD...: CMD's madvise calls in $BATS_TEST_TMPDIR/trace.
madvised() {
	traced madvise "$@"
}

@test "--direct moves each transfer through a buffer offered huge pages" {
	command -v strace >/dev/null || skip "strace is not installed (tools/stripe-deps)"
	run --separate-stderr madvised stripe-bench -q -s 4M --chunk 1M --seeks 0 --direct --json "$D"
	assert_success
	[ "$(huge_asks "$BATS_TEST_TMPDIR/trace")" = 2097152 ] || fail "$(cat "$BATS_TEST_TMPDIR/trace")"
}

@test "--threads and --hdparm with --direct offer their buffers huge pages too" {
	command -v strace >/dev/null || skip "strace is not installed (tools/stripe-deps)"
	run --separate-stderr madvised stripe-bench -q -s 4M --chunk 64K --threads 2 --seeks 10 --direct "$D"
	assert_success
	[ "$(huge_asks "$BATS_TEST_TMPDIR/trace" | grep -c '^2097152$')" -eq 2 ] || fail "$(cat "$BATS_TEST_TMPDIR/trace")"
	head -c 8M /dev/urandom >"$BATS_TEST_TMPDIR/disk.img"
	run --separate-stderr madvised stripe-bench --hdparm --direct --seconds 0.15 "$BATS_TEST_TMPDIR/disk.img"
	assert_success
	[ "$(huge_asks "$BATS_TEST_TMPDIR/trace")" = 2097152 ] || fail "$(cat "$BATS_TEST_TMPDIR/trace")"
}

@test "without --direct the buffers stay in the page size (a copy gains nothing from huge pages)" {
	command -v strace >/dev/null || skip "strace is not installed (tools/stripe-deps)"
	run --separate-stderr madvised stripe-bench -q -s 4M --chunk 1M --char-size 64K --seeks 0 --json "$D"
	assert_success
	[ -z "$(huge_asks "$BATS_TEST_TMPDIR/trace")" ] || fail "$(cat "$BATS_TEST_TMPDIR/trace")"
}

@test "-n runs the file tests, reports files per second, and leaves no file" {
	run --separate-stderr stripe-bench "${SMALL[@]}" -n 1:4K:1K:2 --seeks 0 --char-size 0 --json "$D"
	assert_success
	json_check "$output" '
p, r = d["parameters"], d["results"]
assert p["files"] == 1024 and p["file_max_size_bytes"] == 4096 and p["file_min_size_bytes"] == 1024
assert p["file_directories"] == 2
for k in ("sequential_create", "sequential_stat", "sequential_delete", "random_create", "random_stat", "random_delete"):
    assert r[k]["operations"] == 1024 and r[k]["rate_per_s"] > 0, (k, r[k])
'
	[ -z "$(ls -A "$D")" ] || fail "left behind: $(ls -AR "$D")"
}

@test "a run leaves the target directory as it found it" {
	touch "$D/mine"
	stripe-bench "${SMALL[@]}" "$D" >/dev/null
	[ "$(ls -A "$D")" = mine ]
}

# interrupt_when GLOB ARGS...: starts stripe-bench ARGS in the background,
# sends SIGINT once GLOB exists; sets status and err.
interrupt_when() {
	local glob=$1 pid i
	shift
	stripe-bench "$@" 2>"$BATS_TEST_TMPDIR/err" >/dev/null &
	pid=$!
	for ((i = 0; i < 200; i++)); do
		compgen -G "$glob" >/dev/null && break
		sleep 0.05
	done
	compgen -G "$glob" >/dev/null || { kill "$pid"; fail "$glob never appeared"; }
	sleep 0.2
	kill -INT "$pid"
	status=0
	wait "$pid" || status=$?
	err=$(cat "$BATS_TEST_TMPDIR/err")
}

@test "SIGINT during the block tests leaves no temporary file" {
	interrupt_when "$D/stripe-bench.*/Bonnie.*" -q -s 4G --char-size 0 --seeks 0 "$D"
	[ "$status" -eq 2 ] || fail "status $status: $err"
	[[ $err == *interrupted* ]] || fail "stderr: $err"
	[ -z "$(ls -A "$D")" ] || fail "left behind: $(ls -AR "$D")"
}

@test "SIGINT during the file tests leaves no temporary file" {
	interrupt_when "$D/stripe-bench.*/files" -q -s 1M --char-size 0 --seeks 0 -n 200 "$D"
	[ "$status" -eq 2 ] || fail "status $status: $err"
	[ -z "$(ls -A "$D")" ] || fail "left behind: $(ls -A "$D" | head)"
}

@test "a directory that cannot be written is refused with a clear message" {
	mkdir "$BATS_TEST_TMPDIR/ro"
	chmod 555 "$BATS_TEST_TMPDIR/ro"
	if [ "$(id -u)" -eq 0 ]; then
		chattr +i "$BATS_TEST_TMPDIR/ro" 2>/dev/null || skip "root, and chattr +i does not work here"
	fi
	run stripe-bench "${SMALL[@]}" "$BATS_TEST_TMPDIR/ro"
	assert_failure 2
	assert_output --partial "$BATS_TEST_TMPDIR/ro: not writable"
}

@test "a run that would not fit in the free space is refused before it writes" {
	run stripe-bench -q -s 1000T "$D"
	assert_failure 2
	assert_output --regexp "$D: [0-9]+ bytes free, the tests need [0-9]+"
	[ -z "$(ls -A "$D")" ]
}

@test "a regular file target is written in place and stays" {
	truncate -s 1M "$BATS_TEST_TMPDIR/target.img"
	run --separate-stderr stripe-bench "${SMALL[@]}" --json "$BATS_TEST_TMPDIR/target.img"
	assert_success
	json_check "$output" 'assert d["parameters"]["target_kind"] == "file" and d["results"]["block_read"]["bytes"] == 4 << 20'
	[ "$(stat -c %s "$BATS_TEST_TMPDIR/target.img")" -eq $((4 << 20)) ]
}

# distinct_sectors FILE: fails unless every 512-byte sector of FILE differs
# from every other (what the write tests leave when each sector is stamped).
distinct_sectors() {
	python3 -c "import sys
b = open(sys.argv[1], 'rb').read()
s = [b[i:i + 512] for i in range(0, len(b), 512)]
dups = len(s) - len(set(s))
sys.exit('%d of %d sectors repeat another' % (dups, len(s)) if dups else 0)" "$1"
}

@test "no two sectors the block tests write are alike, so deduplicating storage cannot skip them" {
	truncate -s 4M "$BATS_TEST_TMPDIR/target.img"
	run stripe-bench -q -s 4M --char-size 0 --seeks 0 "$BATS_TEST_TMPDIR/target.img"
	assert_success
	distinct_sectors "$BATS_TEST_TMPDIR/target.img"
}

@test "no two sectors --array and --threads write are alike" {
	make_raid5
	run stripe-bench -q -s 8M --seeks 0 --array "${M[@]}"
	assert_success
	stripe-read -q --length 8M -o "$BATS_TEST_TMPDIR/array" "${M[@]}"
	distinct_sectors "$BATS_TEST_TMPDIR/array"
	run stripe-bench -q --threads 2 -s 8M --seeks 0 --array "${M[@]}"
	assert_success
	stripe-read -q --length 8M -o "$BATS_TEST_TMPDIR/array" "${M[@]}"
	distinct_sectors "$BATS_TEST_TMPDIR/array"
}

@test "--hdparm reads a file it may not write; the Bonnie tests refuse it" {
	head -c 4M /dev/urandom >"$BATS_TEST_TMPDIR/ro.img"
	chmod 444 "$BATS_TEST_TMPDIR/ro.img"
	if [ "$(id -u)" -eq 0 ]; then
		chattr +i "$BATS_TEST_TMPDIR/ro.img" 2>/dev/null || skip "root, and chattr +i does not work here"
	fi
	run stripe-bench --hdparm --seconds 0.1 "$BATS_TEST_TMPDIR/ro.img"
	assert_success
	assert_line --regexp '^ Timing buffered disk reads: +4 MB in '
	run stripe-bench "${SMALL[@]}" "$BATS_TEST_TMPDIR/ro.img"
	assert_failure 2
	assert_output --partial "$BATS_TEST_TMPDIR/ro.img: not writable"
}

@test "a file target with a filesystem is refused unless --force" {
	command -v mke2fs >/dev/null || skip "mke2fs is not installed"
	truncate -s 8M "$BATS_TEST_TMPDIR/fs.img"
	mke2fs -q -F -t ext4 "$BATS_TEST_TMPDIR/fs.img"
	run stripe-bench "${SMALL[@]}" "$BATS_TEST_TMPDIR/fs.img"
	assert_failure 2
	assert_output --partial "fs.img"
	assert_output --partial "ext4"
	run stripe-bench "${SMALL[@]}" --force "$BATS_TEST_TMPDIR/fs.img"
	assert_success
}

@test "a block device target is timed in place" {
	[ "$(id -u)" -eq 0 ] || skip "needs root for a loop device"
	truncate -s 16M "$BATS_TEST_TMPDIR/loop.img"
	dev=$(losetup -f --show "$BATS_TEST_TMPDIR/loop.img" 2>/dev/null) || skip "no loop device here"
	run --separate-stderr stripe-bench "${SMALL[@]}" --json "$dev"
	losetup -d "$dev"
	assert_success
	json_check "$output" 'assert d["parameters"]["target_kind"] == "device" and d["results"]["block_write"]["rate_bytes_per_s"] > 0'
}

@test "--threads reports tiotest's tables with totals and per-thread rows" {
	run stripe-bench -q --threads 2 -s 8M --seeks 200 "$D"
	assert_success
	assert_line "Tiotest results for 2 concurrent io threads:"
	assert_line --regexp '^\| Write +8 MBs \| +[0-9.]+ s \| +[0-9.]+ MB/s \|'
	assert_line --regexp '^\| Random Read +[0-9]+ MBs \|'
	assert_line --regexp '^\| Total +\| +[0-9.]+ ms \| +[0-9.]+ ms \|'
	assert_line --regexp '^\| +2 \| Read +4 MBs \|'
	[ -z "$(ls -A "$D")" ]
}

@test "--threads in JSON has the totals and each thread's figures" {
	run --separate-stderr stripe-bench -q --threads 3 -s 6M --seeks 300 --json "$D"
	assert_success
	json_check "$output" '
assert d["parameters"]["mode"] == "threads" and d["parameters"]["threads"] == 3
t = d["results"]["total"]
for k in ("write", "random_write", "read", "random_read"):
    assert t[k]["rate_bytes_per_s"] > 0 and t[k]["latency_avg_ns"] > 0, (k, t[k])
assert t["write"]["bytes"] == 6 << 20 and t["random_read"]["operations"] == 300
per = d["results"]["per_thread"]
assert [x["thread"] for x in per] == [1, 2, 3]
assert all(x["read"]["bytes"] == 2 << 20 for x in per)
'
}

@test "--hdparm prints hdparm's two lines for a file" {
	head -c 8M /dev/urandom >"$BATS_TEST_TMPDIR/disk.img"
	run stripe-bench --hdparm --seconds 0.15 "$BATS_TEST_TMPDIR/disk.img"
	assert_success
	assert_line "$BATS_TEST_TMPDIR/disk.img:"
	assert_line --regexp '^ Timing cached reads: +[0-9]+ MB in +[0-9.]+ seconds = +[0-9.]+ [kM]B/sec$'
	assert_line --regexp '^ Timing buffered disk reads: +8 MB in +[0-9.]+ seconds = +[0-9.]+ [kM]B/sec$'
}

@test "--hdparm --direct says O_DIRECT and gives its rates in JSON" {
	head -c 8M /dev/urandom >"$BATS_TEST_TMPDIR/disk.img"
	run stripe-bench --hdparm --direct --seconds 0.15 "$BATS_TEST_TMPDIR/disk.img"
	assert_success
	assert_line --regexp '^ Timing O_DIRECT cached reads: '
	assert_line --regexp '^ Timing O_DIRECT disk reads: '
	run --separate-stderr stripe-bench --hdparm --seconds 0.15 --json "$BATS_TEST_TMPDIR/disk.img"
	assert_success
	json_check "$output" '
r = d["results"]
assert d["parameters"]["mode"] == "hdparm" and d["parameters"]["hdparm_time_ms"] == 150
assert r["cached_reads"]["rate_bytes_per_s"] > 0 and r["cached_reads"]["bytes"] % (2 << 20) == 0
assert r["disk_reads"]["bytes"] == 8 << 20 and r["disk_reads"]["elapsed_ns"] > 0
'
}

@test "--array runs the block tests and seeks on a RAID5 and leaves its parity right" {
	make_raid5
	run --separate-stderr stripe-bench -q -s 8M --seeks 300 --json --array "${M[@]}"
	assert_success
	json_check "$output" '
p, r = d["parameters"], d["results"]
assert p["target_kind"] == "array" and p["array"]["level"] == "raid5" and p["array"]["raid_devices"] == 4
assert p["array"]["chunk_bytes"] == 65536
for k in ("block_write", "rewrite", "block_read"):
    assert r[k]["bytes"] == 8 << 20 and r[k]["rate_bytes_per_s"] > 0, (k, r[k])
assert r["random_seeks"]["operations"] == 300 and r["random_seeks"]["rate_per_s"] > 0
assert "per_char_write" not in r
'
	run stripe-check --progress none "${M[@]}"
	assert_success
}

@test "--array with --hdparm and with --threads reads and writes the array" {
	make_raid5
	run stripe-bench --hdparm --seconds 0.15 --array "${M[@]}"
	assert_success
	assert_line --regexp '^ Timing buffered disk reads: +[0-9]+ MB in '
	run --separate-stderr stripe-bench -q --threads 2 -s 8M --seeks 100 --json --array "${M[@]}"
	assert_success
	json_check "$output" 'assert d["results"]["total"]["write"]["rate_bytes_per_s"] > 0'
	stripe-check --progress none "${M[@]}" >/dev/null
}

@test "--array --direct goes past the page cache and leaves the array clean" {
	make_raid5
	run --separate-stderr stripe-bench -q -s 4M --seeks 100 --direct --json --array "${M[@]}"
	assert_success
	json_check "$output" 'assert d["parameters"]["direct"] is True and d["results"]["block_read"]["rate_bytes_per_s"] > 0'
	run stripe-bench --hdparm --direct --seconds 0.15 --array "${M[@]}"
	assert_success
	assert_line --regexp '^ Timing O_DIRECT disk reads: '
	[ "$(stripe-examine --json "${M[@]}" | jq -r .array.needs_resync)" = false ]
}

@test "--csv=FILE appends a CSV line, after bonnie++'s header only in a new file, and bon_csv2txt reads every line" {
	local f=$BATS_TEST_TMPDIR/runs.csv
	stripe-bench -q -s 1M -f --seeks 10 -m one --csv="$f" "$D" >/dev/null
	stripe-bench -q -s 1M -f --seeks 10 -m two --csv="$f" "$D" >/dev/null
	run cut -d, -f1-3 "$f"
	assert_output "format_version,bonnie_version,name"$'\n'"1.98,stripe-$(stripe-bench -V | cut -d' ' -f3),one"$'\n'"1.98,stripe-$(stripe-bench -V | cut -d' ' -f3),two"
	command -v bon_csv2txt >/dev/null || skip "bon_csv2txt (bonnie++) is not installed"
	run --separate-stderr bon_csv2txt <"$f"
	assert_line --regexp '^one +1M:8k:10:5 '
	assert_line --regexp '^two +1M:8k:10:5 '
}

@test "stripe-bench --csv big.csv leaves big.csv alone: --csv takes no file, and a file holding data is no target without --force" {
	seq 1 20000 >"$BATS_TEST_TMPDIR/big.csv"
	before=$(sha "$BATS_TEST_TMPDIR/big.csv")
	run --separate-stderr stripe-bench --csv "$BATS_TEST_TMPDIR/big.csv"
	assert_failure 2
	[ "$stderr" = "stripe-bench: $BATS_TEST_TMPDIR/big.csv: holds data (byte 0 is not zero), which the tests would overwrite; give a directory, or --force" ] ||
		fail "$stderr"
	[ "$(sha "$BATS_TEST_TMPDIR/big.csv")" = "$before" ]
}

@test "a block device holding data is no target without --force" {
	[ "$(id -u)" -eq 0 ] || skip "needs root for a loop device"
	truncate -s 4M "$BATS_TEST_TMPDIR/loop.img"
	printf 'keep me' | dd of="$BATS_TEST_TMPDIR/loop.img" bs=1 seek=$((3 << 20)) conv=notrunc status=none
	dev=$(losetup -f --show "$BATS_TEST_TMPDIR/loop.img" 2>/dev/null) || skip "no loop device here"
	run --separate-stderr stripe-bench -q -s 1M -f --seeks 0 "$dev"
	losetup -d "$dev"
	assert_failure 2
	[ "$stderr" = "stripe-bench: $dev: holds data (byte $((3 << 20)) is not zero), which the tests would overwrite; give a directory, or --force" ] ||
		fail "$stderr"
	[ "$(dd if="$BATS_TEST_TMPDIR/loop.img" bs=1 skip=$((3 << 20)) count=7 status=none)" = "keep me" ]
}

@test "a size without its unit is refused with a hint, since bonnie++ reads MiB and fio bytes" {
	run --separate-stderr stripe-bench -s 2048 "$D"
	assert_failure 2
	[ "$stderr" = "stripe-bench: --size: '2048' has no unit: write 2048K, 2048M, 2048G or 2048T (bonnie++ and fio read a bare number differently)" ] ||
		fail "$stderr"
	[ -z "$(ls -A "$D")" ]
}

@test "bonnie++'s letters: -d directory, -f fast (no per-character tests), -b fsync, -D direct, -z seed, -r RAM" {
	run --separate-stderr stripe-bench -q -d "$D" -s 1M -r 64M -f -b -D -z 42 --seeks 10 --chunk 4K --json
	assert_success
	json_check "$output" 'p = d["parameters"]
assert p["target"].endswith("/dir") and p["char_size_bytes"] == 0 and p["fsync"] and p["direct"], p
assert p["seed"] == 42, p'
}

@test "usage errors exit 2 with a message" {
	run stripe-bench --csv --json "$D"
	assert_failure 2
	assert_output --partial "--csv and --json"
	run stripe-bench
	assert_failure 2
	assert_output --partial "no target given"
	run stripe-bench "$D" "$D"
	assert_failure 2
	run stripe-bench -s lots "$D"
	assert_failure 2
	assert_output --partial "'lots' is not a size"
	run stripe-bench --hdparm "$D"
	assert_failure 2
	assert_output --partial "not a directory"
	truncate -s 1M "$BATS_TEST_TMPDIR/f.img"
	run stripe-bench -n 1 "$BATS_TEST_TMPDIR/f.img"
	assert_failure 2
	assert_output --partial "--files needs a directory"
	run stripe-bench --label a,b "$D"
	assert_failure 2
}
