#!/usr/bin/env bash
# bench_stripe_rebuild: stripe-rebuild of two members of a page-cached
# 6-member RAID6 against copying the same bytes with cat (4 survivors read,
# 2 files written, all in parallel), in one run, interleaved, medians of
# BENCH_REPS samples (goal: ratio >= 0.7); then stripe-rebuild's peak RSS at
# 256 MiB and at 1 GiB sparse members (goal <= 64 MiB and flat).
# cat (coreutils >= 9) copies a file into a file with copy_file_range: one
# copy inside the kernel, where anything that computes on the bytes must
# read them out and write them back.  So the same copy is also timed with
# dd (read and write of 1 MiB, the way the rebuild moves its bytes).
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
bin=${STRIPE_BIN:-$top/bin}
reps=${BENCH_REPS:-5}
mib=${BENCH_MIB:-256}
dir=$(mktemp -d "${BENCH_DIR:-/dev/shm}/bench_stripe_rebuild.XXXXXX")
trap 'rm -rf "$dir"' EXIT
trap 'exit 130' INT TERM

# shellcheck source=tests/bench/common.sh
. "$top/tests/bench/common.sh"

# rebuild_two PREFIX: rebuilds roles 1 and 4 of the array PREFIX{0..5}.img
# onto fresh files PREFIX{1,4}.img.
rebuild_two() {
	rm -f "$1"1.img "$1"4.img
	"$bin/stripe-rebuild" -q --progress none --replace 1="$1"1.img --replace 4="$1"4.img \
		"$1"0.img "$1"2.img "$1"3.img "$1"5.img
}

# cat_copy / dd_copy: the rebuild's bytes moved without it, all at once:
# survivors 0 and 2 read, 3 and 5 copied into c1 and c4 (removed before,
# outside the clock)
cat_copy() {
	cat "$dir"/m0.img > /dev/null &
	cat "$dir"/m2.img > /dev/null &
	cat "$dir"/m3.img > "$dir"/c1.img &
	cat "$dir"/m5.img > "$dir"/c4.img &
	wait
}
dd_copy() {
	dd if="$dir"/m0.img of=/dev/null bs=1M status=none &
	dd if="$dir"/m2.img of=/dev/null bs=1M status=none &
	dd if="$dir"/m3.img of="$dir"/c1.img bs=1M status=none &
	dd if="$dir"/m5.img of="$dir"/c4.img bs=1M status=none &
	wait
}

m=("$dir"/m{0,1,2,3,4,5}.img)
"$bin/stripe-create" -q -l 6 -c 512K --image-size "${mib}M" "${m[@]}"
size=$("$bin/stripe-examine" --export "${m[@]}" | sed -n 's/^STRIPE_SIZE_BYTES=//p')
head -c "$size" /dev/urandom | "$bin/stripe-write" --progress none "${m[@]}"
want=$("$bin/stripe-read" "${m[@]}" | sha256sum)

rebuild_t=() cat_t=() dd_t=()
for ((i = 0; i < reps; i++)); do
	rm -f "$dir"/m1.img "$dir"/m4.img
	rebuild_t+=("$(time_ns rebuild_two "$dir"/m)")
	rm -f "$dir"/c1.img "$dir"/c4.img
	cat_t+=("$(time_ns cat_copy)")
	rm -f "$dir"/c1.img "$dir"/c4.img
	dd_t+=("$(time_ns dd_copy)")
done
rm -f "$dir"/c1.img "$dir"/c4.img
[ "$("$bin/stripe-read" "${m[@]}" | sha256sum)" = "$want" ] || { echo "bench_stripe_rebuild: the rebuilt array differs" >&2; exit 1; }
tr=$(median_of "${rebuild_t[@]}")
tk=$(median_of "${cat_t[@]}")
td=$(median_of "${dd_t[@]}")
bytes=$((6 * mib * 1048576))
ratio=$(ratio_of "$tk" "$tr")
printf 'stripe-rebuild, RAID6 6 x %d MiB, 512K chunk, 2 members rebuilt, page-cached (median of %d)\n' "$mib" "$reps"
printf '  %-36s %8s GB/s of member bytes (4 read, 2 written)\n' "stripe-rebuild" "$(gbs_ns "$bytes" "$tr")"
printf '  %-36s %8s GB/s\n' "cat: 4 read, 2 of them copied" "$(gbs_ns "$bytes" "$tk")"
printf '  %-36s %8s GB/s\n' "dd bs=1M (read + write): the same" "$(gbs_ns "$bytes" "$td")"
printf '  ratio rebuild/cat %s (goal >= 0.7: %s); rebuild/dd %s\n' "$ratio" "$(goal_met "$ratio" 0.7)" \
	"$(ratio_of "$td" "$tr")"

rm -f "${m[@]}"
# rss_at SIZE: peak RSS of rebuilding two members of a fresh sparse array
rss_at() {
	"$bin/stripe-create" -q -l 6 -c 512K --image-size "$1" "$dir"/a{0,1,2,3,4,5}.img
	rm "$dir"/a1.img "$dir"/a4.img
	peak_rss_kib "$bin/stripe-rebuild" -q --progress none --replace 1="$dir"/a1.img \
		--replace 4="$dir"/a4.img "$dir"/a0.img "$dir"/a2.img "$dir"/a3.img "$dir"/a5.img
	rm -f "$dir"/a*.img
}
r1=$(rss_at 256M)
r2=$(rss_at 1G)
printf 'peak RSS of stripe-rebuild: %d KiB at 256 MiB members, %d KiB at 1 GiB sparse members (goal <= 65536 and flat: %s)\n' \
	"$r1" "$r2" "$([[ $r1 -le 65536 && $r2 -le 65536 && $((r2 - r1)) -lt 4096 ]] && echo met || echo not met)"
