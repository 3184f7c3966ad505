#!/usr/bin/env bash
# bench_stripe_bench: stripe-bench's block write and block read against fio
# (psync engine, the same file size, block size and buffered or O_DIRECT
# mode) in one run, interleaved, medians of BENCH_REPS samples, as ratios
# with the goal 0.9-1.1: the benchmark must cost what the I/O costs, no
# more.  Then stripe-bench and bonnie++ on the same directory, side by side.
#
# usage: bench_stripe_bench     (run by tests/bench/run after "make bench")
# env:   STRIPE_BIN   directory of the stripe-* programs (default TOP/bin)
#        BENCH_DIR    directory to measure in (default a new one in $TMPDIR
#                     or /tmp, on its disk)
#        BENCH_REPS   samples per figure (default 5, at least 3)
#        BENCH_MIB    file size in MiB for the fio cases (default 512)
#        BONNIE_MIB   file size in MiB for the bonnie++ case (default 1024)
#        BENCH_CASES  which cases, of: cached direct dropped tmpfs bonnie
#                     (default all of them)
#
# fio takes the file through Bonnie's steps, as stripe-bench does: a new
# file written (--create_on_open=1: fio would otherwise lay the file out
# first and time an overwrite of blocks already allocated), a rewrite pass
# (--rw=rw, reads and writes half and half over the whole file), then the
# read.  The rewrite matters below a VM's disk: the same file reads some
# 20 % slower after it, whichever tool rewrote it.
# Cases:
#   disk, buffered 8K   Bonnie's chunk through the page cache; the write's
#                       time includes the fsync and close (fio
#                       --end_fsync=1), as Bonnie's does; the read finds
#                       the file in the page cache, as Bonnie's does when
#                       the file is smaller than the RAM (fio
#                       --invalidate=0: fio drops it otherwise)
#   disk, O_DIRECT 1M   past the page cache, 1 MiB transfers
#   disk, dropped 8K    the first case with the file's pages dropped before
#                       the read (fio --invalidate=1, its default;
#                       stripe-bench --drop-cache).  No goal: below a
#                       virtual machine's disk the host may keep what was
#                       read in its own cache, and whether a read finds it
#                       there is the host's affair
#   fio runs with --gtod_reduce=1 and --thread: its per-transfer clock
#   readings and its process set-up are its own cost, not the I/O's
#   (bandwidth is still measured).  What is left of fio's bookkeeping shows
#   in 8K reads from the page cache: a bare pread() loop moves some 25 %
#   more than fio there (4.4 against 3.5 GB/s on tmpfs, measured here).
#   tmpfs, buffered 8K  (when /dev/shm has room) memory copies and system
#                       calls only, where each tool's own cost per transfer
#                       shows; no goal
# The bare I/O: after fio's read, pread_loop (tests/bench/pread_loop.c)
# reads the same file the same way with nothing around the pread() calls.
# stripe/bare and fio/bare say how much of the I/O's own rate each tool
# keeps; where fio keeps less than stripe-bench, the ratio stripe/fio
# rises above 1 by fio's bookkeeping, not by anything stripe-bench skips.
# ratio = stripe-bench rate / fio rate, from their JSON (bytes per second).
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
bin=${STRIPE_BIN:-$top/bin}
reps=${BENCH_REPS:-5}
mib=${BENCH_MIB:-512}
bmib=${BONNIE_MIB:-1024}
cases=${BENCH_CASES:-cached direct dropped tmpfs bonnie}
((reps >= 3)) || reps=3
[[ -x $bin/stripe-bench ]] || { echo "bench_stripe_bench: $bin/stripe-bench missing (run make)" >&2; exit 1; }
for t in fio bonnie++ python3; do
	command -v "$t" >/dev/null || { echo "bench_stripe_bench: $t is not installed (make deps / tools/stripe-deps bench)" >&2; exit 1; }
done

dir='' shm=''
bare=$top/tests/bench/pread_loop
[[ -x $bare ]] || bare=
cleanup() {
	[[ -n $dir ]] && rm -rf "$dir"
	[[ -n $shm ]] && rm -rf "$shm"
	return 0
}
trap cleanup EXIT
trap 'exit 130' INT TERM
if [[ -n ${BENCH_DIR:-} ]]; then
	dir=$(mktemp -d "$BENCH_DIR/bench_stripe_bench.XXXXXX")
else
	dir=$(mktemp -d "${TMPDIR:-/tmp}/bench_stripe_bench.XXXXXX")
fi

# shellcheck source=tests/bench/common.sh
. "$top/tests/bench/common.sh"
mbs() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1048576 }'; }
mbs_list() { printf '%s\n' "$@" | awk '{ printf "%s%.0f", (NR > 1 ? " " : ""), $1 / 1048576 }'; }
verdict() { awk -v r="$1" 'BEGIN { print (r >= 0.9 && r <= 1.1) ? "met" : "NOT met" }'; }
jget() { python3 -c "import json, sys; d = json.load(sys.stdin); print(int($1))"; }
# Each sample starts from a quiet disk: the last one's file is gone and its
# blocks freed, nothing of it is still being written back (a buffered
# write's time hangs on its fsync, which would otherwise wait on both).
settle() { sync; sleep 1; }

# MODE: cached (reads from the page cache), device (reads from the disk,
# buffered) or direct (O_DIRECT).
sb_flags() { case $1 in device) echo --drop-cache ;; direct) echo --direct ;; esac; }

# sb_rates DIR MODE BS: stripe-bench's block write and read rates (bytes/s)
sb_rates() {
	local where=$1 mode=$2 bs=$3 j
	settle
	# shellcheck disable=SC2046 # no flag or one
	j=$("$bin/stripe-bench" -q --json -s "${mib}M" --chunk "$bs" --char-size 0 --seeks 0 \
		$(sb_flags "$mode") "$where")
	printf '%s %s\n' "$(jget 'd["results"]["block_write"]["rate_bytes_per_s"]' <<<"$j")" \
		"$(jget 'd["results"]["block_read"]["rate_bytes_per_s"]' <<<"$j")"
}

# bare_rate FILE MODE BS: pread_loop's read of FILE (bytes/s), or 0 where
# it is not built or the mode reads from the disk (fio just read the file)
bare_rate() {
	local -a args
	[[ -n $bare && $2 != device ]] || { echo 0; return 0; }
	args=("$1" "$(numfmt --from=iec "$3")")
	[[ $2 != direct ]] || args+=(direct)
	"$bare" "${args[@]}" || echo 0
}

# fio_rates DIR MODE BS: fio's (psync) write then read of one file, then
# the bare read of that file
fio_rates() {
	local where=$1 mode=$2 bs=$3 w r p common
	settle
	common=(--filename="$where/fio.data" --bs="$bs" --size="${mib}M" --ioengine=psync
		--direct="$([[ $mode == direct ]] && echo 1 || echo 0)"
		--invalidate="$([[ $mode == cached ]] && echo 0 || echo 1)"
		--fallocate=none --gtod_reduce=1 --thread --output-format=json)
	w=$(fio --name=write --rw=write --create_on_open=1 --end_fsync=1 "${common[@]}" 2>/dev/null |
		jget 'd["jobs"][0]["write"]["bw_bytes"]')
	fio --name=rewrite --rw=rw --rwmixread=50 --io_size="$((mib * 2))M" --end_fsync=1 \
		"${common[@]}" >/dev/null 2>&1
	r=$(fio --name=read --rw=read "${common[@]}" 2>/dev/null | jget 'd["jobs"][0]["read"]["bw_bytes"]')
	p=$(bare_rate "$where/fio.data" "$mode" "$bs")
	rm -f "$where/fio.data"
	printf '%s %s %s\n' "$w" "$r" "$p"
}

# one_case LABEL DIR MODE BS GOAL: medians of reps interleaved samples,
# the order of the two tools swapped every other time.
one_case() {
	local label=$1 where=$2 mode=$3 bs=$4 goal=$5 i a b c w r fwm frm prm t rt
	local -a sw=() sr=() fw=() fr=() pr=()
	for ((i = 0; i < reps; i++)); do
		if ((i % 2)); then
			read -r a b c < <(fio_rates "$where" "$mode" "$bs")
			fw+=("$a") fr+=("$b") pr+=("$c")
			read -r a b < <(sb_rates "$where" "$mode" "$bs")
			sw+=("$a") sr+=("$b")
		else
			read -r a b < <(sb_rates "$where" "$mode" "$bs")
			sw+=("$a") sr+=("$b")
			read -r a b c < <(fio_rates "$where" "$mode" "$bs")
			fw+=("$a") fr+=("$b") pr+=("$c")
		fi
	done
	w=$(median_of "${sw[@]}") r=$(median_of "${sr[@]}") fwm=$(median_of "${fw[@]}") frm=$(median_of "${fr[@]}")
	prm=$(median_of "${pr[@]}")
	samples+=("$label write: stripe $(mbs_list "${sw[@]}"); fio $(mbs_list "${fw[@]}")"
		"$label read:  stripe $(mbs_list "${sr[@]}"); fio $(mbs_list "${fr[@]}")")
	if [[ $prm != 0 ]]; then
		samples+=("$label read:  bare pread $(mbs_list "${pr[@]}")")
		bares+=("$(printf '%-30s %12s %12s %12s' "$label block read" "$(mbs "$prm")" \
			"$(ratio_of "$r" "$prm")" "$(ratio_of "$frm" "$prm")")")
	fi
	for t in write read; do
		if [[ $t == write ]]; then a=$w b=$fwm; else a=$r b=$frm; fi
		rt=$(ratio_of "$a" "$b")
		rows+=("$(printf '%-30s %12s %12s %7s  %s' "$label block $t" "$(mbs "$a")" "$(mbs "$b")" "$rt" \
			"$([[ $goal == 1 ]] && verdict "$rt" || echo "(no goal)")")")
		[[ $goal == 1 ]] &&
			goals+=("$(printf '%-40s ratio %5s  goal 0.9-1.1  %s' "$label block $t vs fio psync" "$rt" "$(verdict "$rt")")")
	done
	return 0
}

shm=
if [[ $(stat -f -c %T /dev/shm 2>/dev/null) == tmpfs ]] &&
	(($(df -Pm /dev/shm | awk 'NR == 2 { print $4 }') > mib * 2 + 64)); then
	shm=$(mktemp -d /dev/shm/bench_stripe_bench.XXXXXX)
fi
echo "on $(stat -f -c %T "$dir") $dir; $(nproc) CPUs; ${mib} MiB files; medians of $reps"
rows=() goals=() samples=() bares=()
wanted() { [[ " $cases " == *" $1 "* ]]; }
! wanted cached || one_case "disk, buffered 8K" "$dir" cached 8K 1
! wanted direct || one_case "disk, O_DIRECT 1M" "$dir" direct 1M 1
! wanted dropped || one_case "disk, dropped 8K" "$dir" device 8K 0
[[ -z $shm ]] || ! wanted tmpfs || one_case "tmpfs, buffered 8K" "$shm" cached 8K 0

echo
printf '%-30s %12s %12s %7s\n' "case" "stripe MiB/s" "fio MiB/s" "ratio"
printf '%s\n' "${rows[@]}"
cat <<'NOTE'
(from the page cache a transfer is a memory copy and a system call, and
fio's own bookkeeping per transfer shows in the buffered reads; the
dropped-cache reads may come from the host's cache below a VM's disk)
NOTE
if ((${#bares[@]})); then
	echo
	echo "the bare I/O: pread_loop reads fio's file the same way, nothing around the calls:"
	printf '%-30s %12s %12s %12s\n' "case" "bare MiB/s" "stripe/bare" "fio/bare"
	printf '%s\n' "${bares[@]}"
fi
echo "samples in MiB/s, in the order taken (they swing with the host's disk):"
printf '  %s\n' "${samples[@]}"

# Side by side with bonnie++: the same directory, size, chunk (8K), seeks
# and seekers, buffered; bonnie++'s -r says the size is twice the RAM, so it
# runs the size asked for.  "+++++" is bonnie++'s "under 0.5 s, no figure".
bonnie_side_by_side() {
	echo
	echo "stripe-bench and bonnie++ on $dir, ${bmib} MiB, 8K chunks, buffered:"
	"$bin/stripe-bench" -q -m stripe -s "${bmib}M" --csv "$dir" >"$dir/sb.csv"
	bonnie++ -q -d "$dir" -s "$bmib" -r $((bmib / 2)) -n 0 -m bonnie -u "$(id -u)" >"$dir/bb.csv" 2>/dev/null
	bon_csv2txt <"$dir/bb.csv" | sed -n '1,5p'
	python3 - "$dir/sb.csv" "$dir/bb.csv" <<'EOF'
import sys
sb, bb = (open(p).read().strip().split(",") for p in sys.argv[1:])
names = ["per-char write", "block write", "rewrite", "per-char read", "block read", "random seeks"]
print()
print("%-16s %14s %14s %7s" % ("test", "stripe-bench", "bonnie++", "ratio"))
for k, name in enumerate(names):
    a, b = sb[9 + 2 * k], bb[9 + 2 * k]
    unit = "/s" if k == 5 else " K/s"
    try:
        r = "%.2f" % (float(a) / float(b))
    except ValueError:
        r = "-"
    print("%-16s %14s %14s %7s" % (name, a + unit, b + (unit if b[:1].isdigit() else ""), r))
EOF
}
! wanted bonnie || bonnie_side_by_side

echo
echo "goals:"
printf '  %s\n' "${goals[@]}"
