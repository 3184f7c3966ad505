#!/usr/bin/env bash
# bench_stripe_io: stripe-read and stripe-write against plain cat on the same
# tmpfs, in one run, interleaved, medians of BENCH_REPS (default 5) samples,
# because this machine drifts 30-50 % from one run to the next: only the
# ratios measured side by side mean anything.
#
# usage: bench_stripe_io        (run by tests/bench/run after "make bench")
# env:   STRIPE_BIN   directory of the stripe-* programs (default TOP/bin)
#        BENCH_REPS   samples per figure (default 5, at least 3)
#        BENCH_MIB    member size in MiB (default 256)
#
# Array: 6 members of BENCH_MIB MiB, RAID6, 64K and 512K (default) chunks.
#   write    stripe-write of the whole array from a file in the tmpfs, against
#            6 parallel "cat FILE 1<> member-sized file" (the same 6 x member
#            bytes stripe-write puts on the members, written in place like it)
#   read     stripe-read of the whole array to /dev/null, against 6 parallel
#            "cat member > /dev/null"
#   read-2   stripe-read with two member paths left out (rebuilt from P+Q)
# ratio = cat time / stripe time for the same members: 1.0 means as fast as
# cat moving every member byte; GB/s are array bytes for stripe (10^9 units)
# and member bytes for cat.  Peak RSS (KiB) comes from /usr/bin/time -f %M
# (VmHWM polled from /proc when that is missing) at 64 MiB and at BENCH_MIB
# MiB members: it must not grow with the member size.
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
bin=${STRIPE_BIN:-$top/bin}
reps=${BENCH_REPS:-5}
mib=${BENCH_MIB:-256}
members=6
((reps >= 3)) || reps=3
for t in stripe-create stripe-examine stripe-write stripe-read; do
	[[ -x $bin/$t ]] || { echo "bench_stripe_io: $bin/$t missing (run make)" >&2; exit 1; }
done

# --- a tmpfs with room for two member sets, the cat targets and the input
need_mib=$((mib * members * 3 + mib * 4 + 256))
dir=
# shellcheck source=tests/bench/common.sh
. "$top/tests/bench/common.sh"
trap bench_tmpfs_cleanup EXIT
trap 'exit 130' INT TERM
bench_tmpfs bench_stripe_io "$need_mib"

# make_array PREFIX LEVEL CHUNK MIB: members PREFIX0..5, filled from $dir/in
make_array() {
	local p=$1 level=$2 chunk=$3 size=$4 i paths=()
	for ((i = 0; i < members; i++)); do
		rm -f "$p$i"
		truncate -s "${size}M" "$p$i"
		paths+=("$p$i")
	done
	"$bin/stripe-create" -q -f -l "$level" ${chunk:+-c "$chunk"} "${paths[@]}"
	# real data, not holes, so reads copy pages like cat does
	head -c "$(array_bytes "$p"0)" "$dir/in" >"$dir/win"
	"$bin/stripe-write" -q --progress none -i "$dir/win" "${paths[@]}"
}
paths() { local i; for ((i = 0; i < members; i++)); do echo "$1$i"; done; }
# array_bytes MEMBER: the array's size from its superblock
array_bytes() {
	# (examine of one member of an incomplete set exits non-zero)
	{ "$bin/stripe-examine" "$1" || true; } | awk '/Array Size :/ && !n++ { print $4 * 1024 }'
}

cat_write() {
	local i
	for ((i = 0; i < members; i++)); do cat "$dir/src" 1<>"$dir/c$i" & done
	wait
}

echo "members: $members x $mib MiB on $(stat -f -c %T "$dir") $dir; $(nproc) CPUs; medians of $reps"
head -c "${mib}M" /dev/urandom >"$dir/src"
# input for the array: the member-sized block repeated (array = 4 data members)
for ((i = 0; i < members; i++)); do cat "$dir/src"; done | head -c $((mib * members))M >"$dir/in"
for ((i = 0; i < members; i++)); do cp "$dir/src" "$dir/c$i"; done
member_bytes=$((mib * members * 1024 * 1024))

rows=()
row() { rows+=("$(printf '%-22s %9s %9s %8s %7s  %s' "$@")"); }
goal() { goals+=("$(printf '%-34s ratio %5s  goal >= %-4s %s' "$1" "$2" "$3" "$(goal_met "$2" "$3")")"); }
goals=()

for chunk in 64K 512K; do
	make_array "$dir/m" 6 "$chunk" "$mib"
	mapfile -t all < <(paths "$dir/m")
	degraded=("${all[@]:0:1}" "${all[@]:2:2}" "${all[@]:5:1}")  # m1 and m4 left out
	abytes=$(array_bytes "${all[0]}")
	ws=() wc=() rs=() rc=() ds=()
	for ((r = 0; r < reps; r++)); do
		ws+=("$(time_ns "$bin/stripe-write" -q --progress none -i "$dir/win" "${all[@]}")")
		wc+=("$(time_ns cat_write)")
		rs+=("$(time_ns "$bin/stripe-read" -q "${all[@]}")")
		rc+=("$(time_ns cat_all "${all[@]}")")
		ds+=("$(time_ns "$bin/stripe-read" -q "${degraded[@]}")")
	done
	w=$(median_of "${ws[@]}") wcat=$(median_of "${wc[@]}") rd=$(median_of "${rs[@]}")
	rcat=$(median_of "${rc[@]}") dg=$(median_of "${ds[@]}")
	row "raid6 $chunk write" "$(gbs_ns "$abytes" "$w")" "$(gbs_ns "$member_bytes" "$wcat")" \
		"$(ratio_of "$wcat" "$w")" ">= 0.5" "$(goal_met "$(ratio_of "$wcat" "$w")" 0.5)"
	row "raid6 $chunk read" "$(gbs_ns "$abytes" "$rd")" "$(gbs_ns "$member_bytes" "$rcat")" \
		"$(ratio_of "$rcat" "$rd")" ">= 0.8" "$(goal_met "$(ratio_of "$rcat" "$rd")" 0.8)"
	row "raid6 $chunk read -2" "$(gbs_ns "$abytes" "$dg")" "$(gbs_ns "$member_bytes" "$rcat")" \
		"$(ratio_of "$rcat" "$dg")" ">= 0.5" "$(goal_met "$(ratio_of "$rcat" "$dg")" 0.5)"
	goal "raid6 $chunk write vs 6 cats" "$(ratio_of "$wcat" "$w")" 0.5
	goal "raid6 $chunk read vs 6 cats" "$(ratio_of "$rcat" "$rd")" 0.8
	goal "raid6 $chunk read, 2 missing vs 6 cats" "$(ratio_of "$rcat" "$dg")" 0.5
done

# RAID5 and RAID10 reads, default chunk, same members and baseline
for level in 5 10; do
	make_array "$dir/m" "$level" "" "$mib"
	mapfile -t all < <(paths "$dir/m")
	abytes=$(array_bytes "${all[0]}")
	rs=() rc=()
	for ((r = 0; r < reps; r++)); do
		rs+=("$(time_ns "$bin/stripe-read" -q "${all[@]}")")
		rc+=("$(time_ns cat_all "${all[@]}")")
	done
	rd=$(median_of "${rs[@]}") rcat=$(median_of "${rc[@]}")
	row "raid$level 512K read" "$(gbs_ns "$abytes" "$rd")" "$(gbs_ns "$member_bytes" "$rcat")" \
		"$(ratio_of "$rcat" "$rd")" "-" ""
done

# Peak RSS at two member sizes: memory must follow the stripe, not the array.
rss=()
for size in 64 "$mib"; do
	make_array "$dir/m" 6 "" "$size"
	mapfile -t all < <(paths "$dir/m")
	rw=$(maxrss_kib "$bin/stripe-write" -q --progress none -i "$dir/win" "${all[@]}")
	rr=$(maxrss_kib "$bin/stripe-read" -q "${all[@]}")
	rss+=("$rw" "$rr")
	printf -v line '%-22s write %6s KiB   read %6s KiB' "raid6 512K ${size} MiB" "$rw" "$rr"
	rows+=("$line")
done
grow=$(awk -v w0="${rss[0]}" -v r0="${rss[1]}" -v w1="${rss[2]}" -v r1="${rss[3]}" \
	'BEGIN { print (w1 > w0 * 1.1 + 1024 || r1 > r0 * 1.1 + 1024) ? "GREW" : "did not grow" }')

echo
printf '%-22s %9s %9s %8s %7s  %s\n' "case" "GB/s" "cat GB/s" "ratio" "goal" ""
printf '%s\n' "${rows[@]}"
echo "peak RSS from 64 MiB to $mib MiB members: $grow"
echo
echo "goals:"
printf '  %s\n' "${goals[@]}"
echo "  peak RSS independent of member size    $( [[ $grow == "did not grow" ]] && echo met || echo "NOT met")"
