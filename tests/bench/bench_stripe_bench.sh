#!/usr/bin/env bash
# bench_stripe_bench: stripe-bench's block write and block read against fio
# (psync, the same file size, block size and buffered or O_DIRECT mode) as
# paired ratios with the goal 0.9-1.1, then beside bonnie++.  Why each case
# and each fio option is as it is: tests/bench/README.md.
#
# usage: bench_stripe_bench     (run by tests/bench/run after "make bench")
# env:   STRIPE_BIN   directory of the stripe-* programs (default TOP/bin)
#        BENCH_DIR    directory to measure in (default a new one in $TMPDIR
#                     or /tmp, on its disk)
#        BENCH_REPS   pairs of samples per figure (default 25, at least 3)
#        BENCH_MIB    file size in MiB for the fio cases (default 512)
#        BONNIE_MIB   file size in MiB for the bonnie++ case (default 1024)
#        BENCH_CASES  which cases, of: buffered direct cached tmpfs bonnie
#                     (default all of them)
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
bin=${STRIPE_BIN:-$top/bin}
reps=${BENCH_REPS:-25}
mib=${BENCH_MIB:-512}
bmib=${BONNIE_MIB:-1024}
cases=${BENCH_CASES:-buffered direct cached tmpfs bonnie}
((reps >= 3)) || reps=3
[[ -x $bin/stripe-bench ]] || { echo "bench_stripe_bench: $bin/stripe-bench missing (run make)" >&2; exit 1; }
for t in fio bonnie++ python3; do
	command -v "$t" >/dev/null || { echo "bench_stripe_bench: $t is not installed (make deps / tools/stripe-deps bench)" >&2; exit 1; }
done

dir='' shm=''
knobs=() knobs_were=()
bare=$top/tests/bench/pread_loop
[[ -x $bare ]] || bare=
cleanup() {
	[[ -n $dir ]] && rm -rf "$dir"
	[[ -n $shm ]] && rm -rf "$shm"
	local k
	for k in "${!knobs[@]}"; do echo "${knobs_were[k]}" >"${knobs[k]}"; done
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

wanted() { [[ " $cases " == *" $1 "* ]]; }

# knob_set FILE VALUE: a kernel setting changed for the run, where it may
# be (as root); cleanup sets it back
knob_set() {
	local was
	[[ -w $1 ]] && was=$(<"$1") || return 1
	echo "$2" >"$1" 2>/dev/null || return 1
	knobs+=("$1") knobs_were+=("$was")
}

# huge_pool: true when two huge pages are free in the hugetlb pool for
# fio's --mem=shmhuge, growing the pool by two where it may (cleanup
# shrinks it back)
huge_free() { awk '/^HugePages_Free:/ { n = $2 } END { print n + 0 }' /proc/meminfo; }
huge_pool() {
	local pool=/proc/sys/vm/nr_hugepages
	(($(huge_free) >= 2)) && return 0
	knob_set "$pool" $(($(<"$pool") + 2)) || return 1
	(($(huge_free) >= 2))
}
# hold_reporting: free page reporting held off for the run where the
# kernel does it and we may (cleanup sets it back), or a word on what that
# leaves in the figures
hold_reporting() {
	local order=/sys/module/page_reporting/parameters/page_reporting_order o
	[[ -e $order ]] || return 0
	for o in 11 10; do
		if knob_set "$order" "$o"; then
			echo "free page reporting held off for the run (page_reporting_order ${knobs_were[-1]} -> $o)"
			return 0
		fi
	done
	echo "free page reporting is on (held off as root): the buffered reads from the disk are the host's" \
		"to decide, see the bare read"
}
hold_reporting

fio_huge=()
if wanted direct; then
	if huge_pool; then
		fio_huge=(--mem=shmhuge)
	else
		echo "no huge pages for fio (the hugetlb pool is grown as root): its O_DIRECT buffer is in" \
			"4 KiB pages, stripe-bench's in huge pages, and the O_DIRECT case compares unlike buffers"
	fi
fi

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
# it is not built; from the disk (MODE device) FILE's pages are dropped
# right before
bare_rate() {
	local -a args
	[[ -n $bare ]] || { echo 0; return 0; }
	args=("$1" "$(numfmt --from=iec "$3")")
	[[ $2 != direct ]] || args+=(direct)
	[[ $2 != device ]] || dd if="$1" iflag=nocache count=0 status=none
	"$bare" "${args[@]}" || echo 0
}

# fio_job DIR ARG...: fio's JSON for one job, run in DIR (an
# --exec_prerun's output file lands there, and the line that names it on
# standard output is not JSON)
fio_job() {
	local where=$1
	shift
	(cd "$where" && fio "$@" 2>/dev/null) | sed -n '/^{/,$p'
}

# fio_rates DIR MODE BS: fio's (psync) write then read of one file, then
# the bare read of that file
fio_rates() {
	local where=$1 mode=$2 bs=$3 w r p common drop=()
	settle
	common=(--filename="$where/fio.data" --bs="$bs" --size="${mib}M" --ioengine=psync
		--direct="$([[ $mode == direct ]] && echo 1 || echo 0)" --invalidate=0
		--fallocate=none --gtod_reduce=1 --fadvise_hint=0 --output-format=json)
	[[ $mode != direct ]] || common+=("${fio_huge[@]}")
	[[ $mode != device ]] || drop=(--exec_prerun="dd if=fio.data iflag=nocache count=0 status=none")
	w=$(fio_job "$where" --name=write --rw=write --create_on_open=1 --end_fsync=1 "${common[@]}" |
		jget 'd["jobs"][0]["write"]["bw_bytes"]')
	fio_job "$where" --name=rewrite --rw=rw --rwmixread=50 --io_size="$((mib * 2))M" --end_fsync=1 \
		"${drop[@]}" "${common[@]}" >/dev/null
	r=$(fio_job "$where" --name=read --rw=read "${drop[@]}" "${common[@]}" |
		jget 'd["jobs"][0]["read"]["bw_bytes"]')
	p=$(bare_rate "$where/fio.data" "$mode" "$bs")
	rm -f "$where/fio.data" "$where"/*.prerun.txt
	printf '%s %s %s\n' "$w" "$r" "$p"
}

# one_case LABEL DIR MODE BS GOAL: reps pairs of samples, the order of the
# two tools swapped every other pair; the figures are medians and each
# ratio the median of the pairs' ratios.
one_case() {
	local label=$1 where=$2 mode=$3 bs=$4 goal=$5 i a b c t rt prm
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
	samples+=("$label write: stripe $(mbs_list "${sw[@]}"); fio $(mbs_list "${fw[@]}")"
		"$label read:  stripe $(mbs_list "${sr[@]}"); fio $(mbs_list "${fr[@]}")")
	prm=$(median_of "${pr[@]}")
	if [[ $prm != 0 ]]; then
		samples+=("$label read:  bare pread $(mbs_list "${pr[@]}")")
		bares+=("$(printf '%-30s %12s %12s %12s' "$label block read" "$(mbs "$prm")" \
			"$(paired_ratio "${sr[*]}" "${pr[*]}")" "$(paired_ratio "${fr[*]}" "${pr[*]}")")")
	fi
	for t in write read; do
		if [[ $t == write ]]; then a=${sw[*]} b=${fw[*]}; else a=${sr[*]} b=${fr[*]}; fi
		rt=$(paired_ratio "$a" "$b")
		# shellcheck disable=SC2086 # the samples, one argument each
		rows+=("$(printf '%-30s %12s %12s %7s  %s' "$label block $t" "$(mbs "$(median_of $a)")" \
			"$(mbs "$(median_of $b)")" "$rt" "$([[ $goal == 1 ]] && verdict "$rt" || echo "(no goal)")")")
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
echo "on $(stat -f -c %T "$dir") $dir; $(nproc) CPUs; ${mib} MiB files; $reps pairs of samples"
echo "(rates are medians; a ratio is the median of the pairs' ratios, stripe-bench / fio)"
rows=() goals=() samples=() bares=()
! wanted buffered || one_case "disk, buffered 8K" "$dir" device 8K 1
! wanted direct || one_case "disk, O_DIRECT 1M" "$dir" direct 1M 1
! wanted cached || one_case "disk, page-cached 8K" "$dir" cached 8K 0
[[ -z $shm ]] || ! wanted tmpfs || one_case "tmpfs, buffered 8K" "$shm" cached 8K 0

echo
printf '%-30s %12s %12s %7s\n' "case" "stripe MiB/s" "fio MiB/s" "ratio"
printf '%s\n' "${rows[@]}"
cat <<'NOTE'
(the buffered reads come from the disk, the file's pages dropped first, as
Bonnie's twice-the-RAM size has them; in a virtual machine whose free
memory goes back to the host, the host's faults set that rate unless the
reporting is held off: the bare read of fio's file says what the I/O
gives.  From the page cache a read is a memory copy and a system call,
and what shows is each tool's own cost per call, fio's the larger)
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
