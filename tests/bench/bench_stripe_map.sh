#!/usr/bin/env bash
# bench_stripe_map: sequential reads and writes through stripe-map's file
# (dd, 1 MiB requests, O_DIRECT) against stripe-read and stripe-write on the
# same array in a tmpfs, as ratios (goal >= 0.7), medians of BENCH_REPS
# (default 5) interleaved samples, because this machine drifts 30-50 % from
# one run to the next: only ratios measured side by side mean anything.
#
# usage: bench_stripe_map       (run by tests/bench/run after "make bench"; root)
# env:   STRIPE_BIN   directory of the stripe-* programs (default TOP/bin)
#        BENCH_REPS   samples per figure (default 5, at least 3)
#        BENCH_MIB    member size in MiB (default 256)
#
# Arrays: RAID5 of 5 members with 64K chunks and RAID6 of 6 members with 64K
# chunks (stripe rows of 256 KiB: a 1 MiB request is 4 whole rows), and
# RAID5 of 4 members with 64K chunks (rows of 192 KiB: every request has
# partial rows at its ends, which are read back to merge parity).
#   write   dd if=FILE of=MNT/array bs=1M oflag=direct conv=notrunc, against
#           stripe-write -i FILE of the same bytes
#   read    dd if=MNT/array of=/dev/null bs=1M iflag=direct, against
#           stripe-read to /dev/null
# ratio = stripe-* time / dd-through-the-map time: 1.0 is as fast as the
# tools.  The map is set up before and taken down after each timed dd (it
# holds the members, which stripe-write then could not take).  O_DIRECT
# keeps the kernel's page cache of the mapped file out of the figures.
#
# FUSE ceiling: the same dd reads the array's bytes, kept in one file,
# through fuse_ceiling, a FUSE server that does nothing but have libfuse
# splice each reply straight from that file, with stripe-map's settings.
# No server reads faster through this kernel's FUSE; its ratio to
# stripe-read (ceiling/tool, in rates as every ratio here) is the most a
# map read can reach on this machine, and map/ceiling is the share of it
# stripe-map reaches (the rest is the array's geometry, a splice per
# chunk, and stripe-map's own work; goal >= 0.9, #25).  Each ceiling sample
# is taken right beside the map's read, first every other time: this
# machine drifts within a run, and samples minutes apart measure that.
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
bin=${STRIPE_BIN:-$top/bin}
reps=${BENCH_REPS:-5}
mib=${BENCH_MIB:-256}
((reps >= 3)) || reps=3
for t in stripe-create stripe-examine stripe-write stripe-read stripe-map; do
	[[ -x $bin/$t ]] || { echo "bench_stripe_map: $bin/$t missing (run make)" >&2; exit 1; }
done
if [[ $(id -u) -ne 0 || ! -c /dev/fuse ]] || ! command -v fusermount3 >/dev/null; then
	echo "bench_stripe_map: skipped: needs root, /dev/fuse and fusermount3 (fuse3)"
	exit 0
fi

need_mib=$((mib * 6 + mib * 5 + 256))
dir='' map_pid='' ceil_pid=''
ceiling=$top/tests/bench/fuse_ceiling
[[ -x $ceiling ]] || ceiling=
# shellcheck source=tests/bench/common.sh
. "$top/tests/bench/common.sh"
# shellcheck disable=SC2317 # called by the trap
cleanup() {
	if [[ -n $map_pid ]]; then
		fusermount3 -u "$dir/mnt" 2>/dev/null || true
		wait "$map_pid" 2>/dev/null || true
	fi
	if [[ -n $ceil_pid ]]; then
		fusermount3 -u "$dir/cmnt" 2>/dev/null || true
		wait "$ceil_pid" 2>/dev/null || true
	fi
	bench_tmpfs_cleanup
}
trap cleanup EXIT
trap 'exit 130' INT TERM
bench_tmpfs bench_stripe_map "$need_mib"
mkdir "$dir/mnt" "$dir/cmnt"

# appears FILE WHO [LOG]: waits (5 s at most) for a FUSE server's FILE to
# show; says what the server logged when it does not
appears() {
	local i
	for ((i = 0; i < 100; i++)); do
		[[ -e $1 ]] && return 0
		sleep 0.05
	done
	echo "bench_stripe_map: $2 did not mount${3:+: $(cat "$3")}" >&2
	exit 1
}
map_up() {
	"$bin/stripe-map" --foreground -q "$@" "$dir/mnt" &
	map_pid=$!
	appears "$dir/mnt/array" stripe-map
}
map_down() {
	fusermount3 -u "$dir/mnt"
	wait "$map_pid"
	map_pid=
}

# ceiling_up FILE / ceiling_down: fuse_ceiling serving FILE at $dir/cmnt/file
ceiling_up() {
	"$ceiling" "$1" "$dir/cmnt" 2>"$dir/ceiling.err" &
	ceil_pid=$!
	appears "$dir/cmnt/file" fuse_ceiling "$dir/ceiling.err"
}
ceiling_down() {
	fusermount3 -u "$dir/cmnt"
	wait "$ceil_pid"
	ceil_pid=
}


dd_write() { dd if="$dir/in" of="$dir/mnt/array" bs=1M oflag=direct conv=notrunc status=none; }
dd_read() { dd if="$dir/mnt/array" of=/dev/null bs=1M iflag=direct status=none; }
dd_ceiling() { dd if="$dir/cmnt/file" of=/dev/null bs=1M iflag=direct status=none; }

echo "members of $mib MiB on $(stat -f -c %T "$dir") $dir; $(nproc) CPUs; medians of $reps"
rows=() goals=() samples=() ceilings=()
for spec in "5 5 aligned" "6 6 aligned" "5 4 partial"; do
	read -r level n kind <<<"$spec"
	bench_make_array "$level" "$n"
	mw=() mr=() sw=() sr=() cr=()
	[[ -z $ceiling ]] || ceiling_up "$dir/in"
	# the timed runs' stderr is dropped to keep the table readable; the cmp
	# below catches a run that failed
	for ((r = 0; r < reps; r++)); do
		map_up "${members[@]}"
		mw+=("$(time_ns dd_write 2>/dev/null)")
		# the ceiling's sample right beside the map's, first every other time
		[[ -z $ceiling || $((r % 2)) -eq 0 ]] || cr+=("$(time_ns dd_ceiling 2>/dev/null)")
		mr+=("$(time_ns dd_read 2>/dev/null)")
		[[ -z $ceiling || $((r % 2)) -eq 1 ]] || cr+=("$(time_ns dd_ceiling 2>/dev/null)")
		map_down
		sw+=("$(time_ns "$bin/stripe-write" -q --progress none -i "$dir/in" "${members[@]}" 2>/dev/null)")
		sr+=("$(time_ns "$bin/stripe-read" -q "${members[@]}" 2>/dev/null)")
	done
	if [[ -n $ceiling ]]; then
		cmp -s "$dir/in" "$dir/cmnt/file" || { echo "bench_stripe_map: fuse_ceiling serves other bytes" >&2; exit 1; }
		ceiling_down
	fi
	# the array must hold what was written, whichever way
	cmp -s "$dir/in" <("$bin/stripe-read" -q "${members[@]}") || { echo "bench_stripe_map: raid$level: data differs" >&2; exit 1; }
	w=$(median_of "${mw[@]}") rd=$(median_of "${mr[@]}") ws=$(median_of "${sw[@]}") rs=$(median_of "${sr[@]}")
	name="raid$level ${n}x64K ($kind)"
	rows+=("$(printf '%-26s %-6s %8s %8s %7s' "$name" write "$(gbs_ns "$abytes" "$w")" "$(gbs_ns "$abytes" "$ws")" "$(ratio_of "$ws" "$w")")")
	rows+=("$(printf '%-26s %-6s %8s %8s %7s' "$name" read "$(gbs_ns "$abytes" "$rd")" "$(gbs_ns "$abytes" "$rs")" "$(ratio_of "$rs" "$rd")")")
	samples+=("$name write: map $(ms_list "${mw[@]}"); tool $(ms_list "${sw[@]}")"
		"$name read:  map $(ms_list "${mr[@]}"); tool $(ms_list "${sr[@]}")")
	if [[ -n $ceiling ]]; then
		c=$(median_of "${cr[@]}")
		samples+=("$name read:  FUSE ceiling $(ms_list "${cr[@]}")")
		ceilings+=("$(printf '%-26s %8s %12s %12s' "$name" "$(gbs_ns "$abytes" "$c")" \
			"$(ratio_of "$rs" "$c")" "$(ratio_of "$c" "$rd")")")
	fi
	goals+=("$(printf '%-34s ratio %5s  goal >= 0.7  %s' "$name write" "$(ratio_of "$ws" "$w")" "$(goal_met "$(ratio_of "$ws" "$w")" 0.7)")")
	goals+=("$(printf '%-34s ratio %5s  goal >= 0.7  %s' "$name read" "$(ratio_of "$rs" "$rd")" "$(goal_met "$(ratio_of "$rs" "$rd")" 0.7)")")
	[[ -z $ceiling ]] || goals+=("$(printf '%-34s ratio %5s  goal >= 0.9  %s' "$name read/ceiling" "$(ratio_of "$c" "$rd")" \
		"$(goal_met "$(ratio_of "$c" "$rd")" 0.9)")")
done

echo
printf '%-26s %-6s %8s %8s %7s\n' "array" "" "map GB/s" "tool GB/s" "ratio"
printf '%s\n' "${rows[@]}"
if [[ -n $ceiling ]]; then
	echo
	echo "reads through fuse_ceiling (the array's bytes in one file, spliced by libfuse, nothing else):"
	printf '%-26s %8s %12s %12s\n' "array" "GB/s" "ceiling/tool" "map/ceiling"
	printf '%s\n' "${ceilings[@]}"
	echo "(ceiling/tool is the most a FUSE read can reach here: the read goal is out of reach where it is below 0.7)"
else
	echo
	echo "(no FUSE ceiling: tests/bench/fuse_ceiling is not built; make bench builds it)"
fi
echo
echo "samples in ms, in the order taken (this machine drifts; only side-by-side ratios count):"
printf '  %s\n' "${samples[@]}"
echo
echo "goals:"
printf '  %s\n' "${goals[@]}"
