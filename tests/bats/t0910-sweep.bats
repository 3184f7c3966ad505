#!/usr/bin/env bats
# stripe-sweep: a matrix of levels, member counts and chunk sizes on file
# members gives a CSV line per array that bon_csv2txt reads, a table with
# the CSV's numbers, and PNG and SVG plots that are real, non-blank images.
# suite: plain

bats_require_minimum_version 1.5.0
load helpers

SWEEP=$TOP/tools/stripe-sweep
export STRIPE_BIN=$BIN

# One sweep for the file: RAID0 and RAID5 on 2 to 6 members of 16 MiB,
# 64K and 256K chunks: 10 + 8 arrays.
setup_file() {
	in_plain_suite || return 0
	command -v gnuplot >/dev/null || skip "gnuplot is not installed"
	S=$BATS_FILE_TMPDIR/sweep
	mkdir -p "$S"
	"$SWEEP" --image-size 16M -l 0,5 -n 2-6 -c 64K,256K --bench-size 4M --seeks 50 -o "$S/out" --csv="$S/all.csv" \
		"$S"/d{0,1,2,3,4,5}.img >"$S/stdout" 2>"$S/stderr" || {
		cat "$S/stderr" >&2
		return 1
	}
}

setup() {
	plain_suite_only
	S=$BATS_FILE_TMPDIR/sweep
	O=$S/out
}

# png_facts FILE: "WIDTH HEIGHT COLOURS" of a PNG, read with zlib alone;
# COLOURS counts the rows down to the first that makes it more than one.
png_facts() {
	python3 - "$1" <<'EOF'
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG signature"
pos, idat, ihdr = 8, b"", None
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    assert zlib.crc32(kind + body) == struct.unpack(">I", data[pos + 8 + n:pos + 12 + n])[0], kind
    if kind == b"IHDR":
        ihdr = struct.unpack(">IIBBBBB", body)
    elif kind == b"IDAT":
        idat += body
    pos += 12 + n
w, h, depth, ctype, _, _, interlace = ihdr
assert depth == 8 and interlace == 0, ihdr
bpp = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}[ctype]
raw, stride = zlib.decompress(idat), w * bpp
prev, colours, i = bytearray(stride), set(), 0
for y in range(h):
    f, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
    i += 1 + stride
    for x in range(stride):
        a = line[x - bpp] if x >= bpp else 0
        b, c = prev[x], prev[x - bpp] if x >= bpp else 0
        if f == 1: line[x] = (line[x] + a) & 255
        elif f == 2: line[x] = (line[x] + b) & 255
        elif f == 3: line[x] = (line[x] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    for x in range(0, stride, bpp):
        colours.add(bytes(line[x:x + bpp]))
    prev = line
    if len(colours) > 1:
        break                           # not blank: enough said
print(w, h, len(colours))
EOF
}

@test "the sweep makes a bonnie++ CSV line for every level, count and chunk" {
	[ "$(wc -l <"$O/sweep.csv")" -eq 18 ]
	awk -F, 'NF != 50 || $1 != "1.98" { print "bad line " NR ": " $0; bad = 1 } END { exit bad }' "$O/sweep.csv"
	run cut -d, -f3 "$O/sweep.csv"
	assert_line r0-2d-64k
	assert_line r0-6d-256k
	assert_line r5-3d-64k
	assert_line r5-6d-256k
	refute_line --partial r5-2d
	awk -F, '!($12 > 0 && $18 > 0) { print "no rate: " $0; bad = 1 } END { exit bad }' "$O/sweep.csv"
}

@test "--csv=FILE appends every run's line to FILE, after bonnie++'s header as FILE was new" {
	run head -n 1 "$S/all.csv"
	assert_output --regexp '^format_version,bonnie_version,name,'
	diff <(tail -n +2 "$S/all.csv") "$O/sweep.csv"
}

@test "--csv alone prints the CSV lines in place of the table" {
	run --separate-stderr "$SWEEP" --csv --no-plots --image-size 8M -l 0 -n 2 -c 64K --bench-size 1M --seeks 10 \
		-o "$BATS_TEST_TMPDIR/o" "$BATS_TEST_TMPDIR"/c{0,1}.img
	assert_success
	[[ $output == "1.98,stripe-"*",r0-2d-64k,"* ]] || fail "$output"
	[ "${#lines[@]}" -eq 1 ]
}

@test "options parse as getopt(1) parses them: grouped letters and --option=value" {
	run --separate-stderr "$SWEEP" -qv --levels=3 --image-size=16M "$BATS_TEST_TMPDIR"/a.img "$BATS_TEST_TMPDIR"/b.img
	assert_failure 2
	[ "$stderr" = "stripe-sweep: --levels: '3' is not 0, 1, 4, 5, 6 or 10"$'\n'"Try 'stripe-sweep --help'." ] ||
		fail "$stderr"
	run --separate-stderr "$SWEEP" -l
	assert_failure 2
	[ "$stderr" = "stripe-sweep: option requires an argument -- 'l'"$'\n'"Try 'stripe-sweep --help'." ] ||
		fail "$stderr"
}

@test "a benchmark size without its unit is refused before anything is made" {
	run --separate-stderr "$SWEEP" --bench-size 4096 --image-size 16M "$BATS_TEST_TMPDIR"/a.img "$BATS_TEST_TMPDIR"/b.img
	assert_failure 2
	[[ $stderr == "stripe-sweep: --bench-size: '4096' has no unit: write 4096K, 4096M, 4096G or 4096T "* ]] || fail "$stderr"
	[ -z "$(ls "$BATS_TEST_TMPDIR"/*.img 2>/dev/null)" ]
}

@test "bon_csv2txt reads the sweep's CSV without a complaint" {
	command -v bon_csv2txt >/dev/null || skip "bon_csv2txt (bonnie++) is not installed"
	run --separate-stderr bon_csv2txt <"$O/sweep.csv"
	assert_success
	[ -z "$stderr" ] || fail "bon_csv2txt: $stderr"
	[ "$(grep -c '^r[05]-[2-6]d-' <<<"$output")" -eq 18 ]
}

@test "the table has a row per member count and chunk, a column per level" {
	run cat "$S/stdout"
	assert_line "Block write, MB/s"
	assert_line "Block read, MB/s"
	assert_line "Random seeks, /s"
	assert_line --regexp '^members +chunk +raid0 +raid5$'
	assert_line --regexp '^ +2 +64K +[0-9]+\.[0-9] +-$'
	assert_line --regexp '^ +6 +256K +[0-9]+\.[0-9] +[0-9]+\.[0-9]$'
	cmp "$S/stdout" "$O/table.txt"
}

@test "the table's MB/s are the CSV's K/sec over 1024" {
	local kps want
	kps=$(awk -F, '$3 == "r5-4d-64k" { print $12 }' "$O/sweep.csv")
	want=$(awk -v k="$kps" 'BEGIN { printf "%.1f", k / 1024 }')
	run awk '/^Block write/ { on = 1 } on && $1 == 4 && $2 == "64K" { print $4; exit }' "$O/table.txt"
	[ "$output" = "$want" ] || fail "table $output, CSV $kps K/sec ($want)"
	kps=$(awk -F, '$3 == "r0-5d-256k" { print $18 }' "$O/sweep.csv")
	want=$(awk -v k="$kps" 'BEGIN { printf "%.1f", k / 1024 }')
	run awk '/^Block read/ { on = 1 } on && $1 == 5 && $2 == "256K" { print $3; exit }' "$O/table.txt"
	[ "$output" = "$want" ] || fail "table $output, CSV $kps K/sec ($want)"
}

@test "the PNG plots are 1200x500 images with more than one colour" {
	local f facts
	for f in members chunks; do
		file "$O/$f.png" | grep -q 'PNG image data, 1200 x 500' || fail "$f.png: $(file "$O/$f.png")"
		facts=$(png_facts "$O/$f.png")
		read -r w h n <<<"$facts"
		[ "$w" -eq 1200 ] && [ "$h" -eq 500 ] || fail "$f.png: $facts"
		[ "$n" -gt 1 ] || fail "$f.png is blank: $facts"
	done
}

@test "the SVG plots are SVG documents with lines in them" {
	local f
	for f in members chunks; do
		python3 - "$O/$f.svg" <<'EOF'
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
assert root.tag.endswith("svg"), root.tag
assert root.get("viewBox") == "0 0 1200 500" or root.get("width", "").startswith("1200"), root.attrib
assert sum(1 for e in root.iter() if e.tag.endswith("path")) > 10
EOF
	done
}

@test "the plots say that the figures of runs smaller than twice the RAM include the page cache" {
	local f
	for f in members chunks; do
		grep -q "18 of 18 runs smaller than twice the RAM: the figures include the page cache" "$O/$f.svg" ||
			fail "$f.svg does not say so"
	done
}

@test "every data line of the plots is dark enough to read on white (contrast 3:1 or more)" {
	python3 - "$O/members.svg" "$O/chunks.svg" <<'EOF'
import re, sys
def lum(rgb):
    c = [v / 255 for v in rgb]
    c = [v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4 for v in c]
    return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2]
seen = 0
for f in sys.argv[1:]:
    for m in set(re.findall(r"stroke='rgb\(\s*(\d+),\s*(\d+),\s*(\d+)\)'", open(f).read())):
        rgb = tuple(int(v) for v in m)
        seen += 1
        contrast = 1.05 / (lum(rgb) + 0.05)
        assert contrast >= 3, f"{f}: a line in rgb{rgb} has contrast {contrast:.1f}:1 on white"
assert seen >= 4, f"{seen} line colours"
EOF
}

@test "the gnuplot script draws the plots again from any directory" {
	local d=$BATS_TEST_TMPDIR/copy
	cp -r "$O" "$d"
	rm "$d"/*.png "$d"/*.svg
	cd /
	run gnuplot "$d/sweep.gp"
	assert_success
	file "$d/members.png" | grep -q 'PNG image data, 1200 x 500' || fail "members.png not drawn again"
	rm "$d"/*.png "$d"/*.svg
	cd "$d/plots"
	run gnuplot ../sweep.gp
	assert_success
	[ -s "$d/chunks.svg" ] || fail "chunks.svg not drawn again from plots/"
	[ ! -e "$d/plots/members.png" ]
}

@test "the sweep keeps its gnuplot script, data and each run's report" {
	[ -s "$O/sweep.gp" ]
	[ -s "$O/plots/m-r5-64K.dat" ]
	[ "$(wc -l <"$O/plots/m-r0-256K.dat")" -eq 5 ]
	grep -q '^Machine    MB K/sec' "$O/logs/r5-6d-256k.txt"
	[ "$(wc -l <"$O/results.tsv")" -eq 19 ]
}

@test "member files made with --image-size are gone after the sweep" {
	[ -z "$(ls "$S"/d*.img 2>/dev/null)" ]
}

@test "--help, --version and usage errors" {
	run "$SWEEP" --help
	assert_success
	assert_line --index 0 "Usage: stripe-sweep [options] MEMBER..."
	run "$SWEEP" -V
	assert_success
	assert_output --regexp '^stripe-sweep \(stripe\) [0-9]'
	run "$SWEEP"
	assert_failure 2
	assert_output --partial "no members given"
	run "$SWEEP" -l 3 --image-size 16M "$BATS_TEST_TMPDIR"/a.img "$BATS_TEST_TMPDIR"/b.img
	assert_failure 2
	assert_output --partial "'3' is not 0, 1, 4, 5, 6 or 10"
	run "$SWEEP" -n 2-4 --image-size 16M "$BATS_TEST_TMPDIR"/a.img "$BATS_TEST_TMPDIR"/b.img
	assert_failure 2
	assert_output --partial "only 2 members"
	run "$SWEEP" -l 6 --image-size 16M -o "$BATS_TEST_TMPDIR/o" "$BATS_TEST_TMPDIR"/a.img "$BATS_TEST_TMPDIR"/b.img
	assert_failure 2
	assert_output --partial "no level has enough members"
	[ -z "$(ls "$BATS_TEST_TMPDIR"/*.img 2>/dev/null)" ]
}

@test "members with a filesystem are refused before anything is written" {
	command -v mke2fs >/dev/null || skip "mke2fs is not installed"
	truncate -s 16M "$BATS_TEST_TMPDIR/a.img" "$BATS_TEST_TMPDIR/b.img"
	mke2fs -q -F -t ext4 "$BATS_TEST_TMPDIR/b.img"
	before=$(sha "$BATS_TEST_TMPDIR/b.img")
	run "$SWEEP" -q -l 0 -o "$BATS_TEST_TMPDIR/o" "$BATS_TEST_TMPDIR/a.img" "$BATS_TEST_TMPDIR/b.img"
	assert_failure 2
	assert_output --partial "b.img"
	assert_output --partial "nothing was written"
	[ "$(sha "$BATS_TEST_TMPDIR/b.img")" = "$before" ]
}

@test "SIGINT stops a sweep with status 2 and removes the member files it made" {
	local pid status=0 i
	# (a background job of a script starts with SIGINT ignored: env gives it back)
	setsid env --default-signal=INT "$SWEEP" -q --no-plots --image-size 64M -l 0 -c 4K,8K,16K,32K,64K \
		--bench-size 32M --seeks 2000 \
		-o "$BATS_TEST_TMPDIR/o" "$BATS_TEST_TMPDIR"/s{0,1,2}.img 2>"$BATS_TEST_TMPDIR/err" &
	pid=$!
	for ((i = 0; i < 200; i++)); do
		[ -s "$BATS_TEST_TMPDIR/o/sweep.csv" ] && break
		sleep 0.05
	done
	kill -INT -- -"$pid"
	wait "$pid" || status=$?
	[ "$status" -eq 2 ] || fail "status $status: $(cat "$BATS_TEST_TMPDIR/err")"
	grep -q interrupted "$BATS_TEST_TMPDIR/err" || fail "no word of the interrupt: $(cat "$BATS_TEST_TMPDIR/err")"
	[ -z "$(ls "$BATS_TEST_TMPDIR"/s*.img 2>/dev/null)" ]
}

@test "the completion offers exactly the long options of stripe-sweep --help" {
	local want have
	want=$("$SWEEP" --help | sed -nE 's/^ +(-[A-Za-z0-9], )?(--[a-z0-9][a-z0-9-]*).*/\2/p' | sort -u)
	# shellcheck source=../../completion/stripe
	source "$TOP/completion/stripe"
	COMP_WORDS=(stripe-sweep --)
	COMP_CWORD=1
	_stripe_sweep
	have=$(printf '%s\n' "${COMPREPLY[@]}" | sort -u)
	[ "$want" = "$have" ] || fail "help: $want; completion: $have"
	[ "$(complete -p stripe-sweep)" = "complete -F _stripe_sweep stripe-sweep" ]
}

@test "stripe-sweep(1) documents every long option of its --help, and renders cleanly" {
	local opt missing=""
	for opt in $("$SWEEP" --help | sed -nE 's/^ +(-[A-Za-z0-9], )?(--[a-z0-9][a-z0-9-]*).*/\2/p'); do
		grep -q -- "^\.B.*${opt//-/\\\\-}" "$TOP/man/stripe-sweep.1" || missing+=" $opt"
	done
	[ -z "$missing" ] || fail "not in stripe-sweep.1:$missing"
	run groff -man -ww -z "$TOP/man/stripe-sweep.1"
	assert_success
	assert_output ""
}

@test "stripe-sweep passes shellcheck, the report.bash it sources with it" {
	command -v shellcheck >/dev/null || skip "shellcheck is not installed"
	# -x from the top: the script names report.bash as tools/lib/report.bash
	cd "$TOP" && shellcheck -x tools/stripe-sweep
}
