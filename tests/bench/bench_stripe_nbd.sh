#!/usr/bin/env bash
# bench_stripe_nbd: nbdcopy from and into the stripe plugin's NBD export
# against nbdcopy from and into nbdkit's own file plugin serving one file
# that holds the same bytes, on the same kind of socket (Unix), as ratios:
# the file plugin is the ceiling of NBD copies on this machine, as
# fuse_ceiling is FUSE's.  Goals: reads >= 0.9, writes >= 0.8 (parity is
# extra work).  Beside them the absolute figures of stripe-read and
# stripe-write on the same array (bench_stripe_map gives stripe-map's).
# Medians of BENCH_REPS (default 5) interleaved samples.
#
# usage: bench_stripe_nbd       (run by tests/bench/run after "make bench")
# env:   STRIPE_BIN   directory of the stripe-* programs (default TOP/bin)
#        BENCH_REPS   samples per figure (default 5, at least 3)
#        BENCH_MIB    member size in MiB (default 256)
#
# Arrays: RAID5 of 5 members and RAID6 of 6, 64K chunks (rows of 256 KiB,
# nbdcopy's request size: whole rows), and RAID5 of 4 (rows of 192 KiB:
# every request has partial rows, merged by the write-behind queue).
#   read    nbdcopy EXPORT null:     (4 connections, 64 requests in flight)
#   write   nbdcopy FILE EXPORT
# ratio = the file plugin's time / the stripe plugin's: 1.0 is as fast as
# NBD serves a plain file here.  Both servers run at once, each on its own
# socket, so that each stripe copy is timed right beside the same copy
# from the file plugin (which goes first alternates from one sample to the
# next): this machine drifts by tens of percent within a run, and samples
# taken far apart measured that drift (a read ratio of 0.76 one run, 1.3
# the next).  They are started before and stopped after the timed copies
# of a sample (the stripe plugin holds the members, which stripe-write then
# could not take).
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
bin=${STRIPE_BIN:-$top/bin}
plugin=${bin%/bin}/plugin/nbdkit-stripe-plugin.so
reps=${BENCH_REPS:-5}
mib=${BENCH_MIB:-256}
((reps >= 3)) || reps=3
for t in stripe-create stripe-examine stripe-write stripe-read; do
	[[ -x $bin/$t ]] || { echo "bench_stripe_nbd: $bin/$t missing (run make)" >&2; exit 1; }
done
[[ -f $plugin ]] || { echo "bench_stripe_nbd: $plugin missing (run make)" >&2; exit 1; }
if ! command -v nbdkit >/dev/null || ! command -v nbdcopy >/dev/null; then
	echo "bench_stripe_nbd: skipped: needs nbdkit and nbdcopy (tools/stripe-deps)"
	exit 0
fi

# six members, and two copies of the array bytes (four members of data)
need_mib=$((mib * 6 + mib * 4 * 2 + 256))
dir='' srv_pid=''
# shellcheck source=tests/bench/common.sh
. "$top/tests/bench/common.sh"
# shellcheck disable=SC2317 # called by the trap
cleanup() {
	local p
	for p in $srv_pid; do
		kill "$p" 2>/dev/null
		wait "$p" 2>/dev/null || true
	done
	bench_tmpfs_cleanup
}
trap cleanup EXIT
trap 'exit 130' INT TERM
bench_tmpfs bench_stripe_nbd "$need_mib"
# the stripe plugin on one socket, the file plugin on the other
sock=$dir/nbd.sock fsock=$dir/file.sock
uri="nbd+unix:///?socket=$sock" furi="nbd+unix:///?socket=$fsock"

# up SOCKET PLUGIN ARG... / down: nbdkit in the foreground, in the
# background of this script, until it listens
up() {
	local s=$1 i
	shift
	rm -f "$s" "$s.pid"
	nbdkit -f -U "$s" -P "$s.pid" "$@" 2>"$s.err" &
	srv_pid+=" $!"
	for ((i = 0; i < 200; i++)); do
		[[ -s $s.pid ]] && return 0
		sleep 0.05
	done
	echo "bench_stripe_nbd: nbdkit $1 did not start: $(cat "$s.err")" >&2
	exit 1
}
down() {
	local p
	# shellcheck disable=SC2086 # the list of pids
	kill $srv_pid
	for p in $srv_pid; do
		wait "$p" || { echo "bench_stripe_nbd: nbdkit exited $?: $(cat "$dir"/*.sock.err)" >&2; exit 1; }
	done
	srv_pid=
}

copy_out() { nbdcopy "$1" null:; }
copy_in() { nbdcopy "$dir/in" "$1"; }

echo "members of $mib MiB on $(stat -f -c %T "$dir") $dir; $(nproc) CPUs; medians of $reps"
rows=() goals=() tools=() samples=()
for spec in "5 5 aligned" "6 6 aligned" "5 4 partial"; do
	read -r level n kind <<<"$spec"
	bench_make_array "$level" "$n"
	cp "$dir/in" "$dir/ref"
	nr=() nw=() fr=() fw=() sr=() sw=()
	for ((r = 0; r < reps; r++)); do
		up "$sock" "$plugin" quiet=true "${members[@]}"
		up "$fsock" file "$dir/ref"
		if ((r % 2 == 0)); then
			nr+=("$(time_ns copy_out "$uri")") fr+=("$(time_ns copy_out "$furi")")
			nw+=("$(time_ns copy_in "$uri")") fw+=("$(time_ns copy_in "$furi")")
		else
			fr+=("$(time_ns copy_out "$furi")") nr+=("$(time_ns copy_out "$uri")")
			fw+=("$(time_ns copy_in "$furi")") nw+=("$(time_ns copy_in "$uri")")
		fi
		down
		sw+=("$(time_ns "$bin/stripe-write" -q --progress none -i "$dir/in" "${members[@]}" 2>/dev/null)")
		sr+=("$(time_ns "$bin/stripe-read" -q "${members[@]}" 2>/dev/null)")
	done
	# the array must hold what was written through the export
	cmp -s "$dir/in" <("$bin/stripe-read" -q "${members[@]}") || { echo "bench_stripe_nbd: raid$level: data differs" >&2; exit 1; }
	"$bin/stripe-check" -q --progress none "${members[@]}" >/dev/null || { echo "bench_stripe_nbd: raid$level: parity wrong" >&2; exit 1; }
	r_n=$(median_of "${nr[@]}") w_n=$(median_of "${nw[@]}") r_f=$(median_of "${fr[@]}") w_f=$(median_of "${fw[@]}")
	name="raid$level ${n}x64K ($kind)"
	rows+=("$(printf '%-26s %-6s %9s %9s %7s' "$name" read "$(gbs_ns "$abytes" "$r_n")" "$(gbs_ns "$abytes" "$r_f")" "$(ratio_of "$r_f" "$r_n")")")
	rows+=("$(printf '%-26s %-6s %9s %9s %7s' "$name" write "$(gbs_ns "$abytes" "$w_n")" "$(gbs_ns "$abytes" "$w_f")" "$(ratio_of "$w_f" "$w_n")")")
	tools+=("$(printf '%-26s %12s %13s' "$name" "$(gbs_ns "$abytes" "$(median_of "${sr[@]}")")" "$(gbs_ns "$abytes" "$(median_of "${sw[@]}")")")")
	samples+=("$name read:  stripe $(ms_list "${nr[@]}"); file $(ms_list "${fr[@]}")"
		"$name write: stripe $(ms_list "${nw[@]}"); file $(ms_list "${fw[@]}")")
	goals+=("$(printf '%-34s ratio %5s  goal >= 0.9  %s' "$name read" "$(ratio_of "$r_f" "$r_n")" "$(goal_met "$(ratio_of "$r_f" "$r_n")" 0.9)")")
	goals+=("$(printf '%-34s ratio %5s  goal >= 0.8  %s' "$name write" "$(ratio_of "$w_f" "$w_n")" "$(goal_met "$(ratio_of "$w_f" "$w_n")" 0.8)")")
done

echo
printf '%-26s %-6s %9s %9s %7s\n' "array" "" "stripe" "file" "ratio"
printf '%-26s %-6s %9s %9s %7s\n' "" "" "GB/s" "GB/s" ""
printf '%s\n' "${rows[@]}"
echo
echo "the same arrays through the tools (no NBD):"
printf '%-26s %12s %13s\n' "array" "stripe-read" "stripe-write"
printf '%s\n' "${tools[@]}"
echo
echo "samples in ms, in the order taken within each pair (this machine drifts; only side-by-side ratios count):"
printf '  %s\n' "${samples[@]}"
echo
echo "goals:"
printf '  %s\n' "${goals[@]}"
