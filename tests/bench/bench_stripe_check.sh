#!/usr/bin/env bash
# bench_stripe_check: stripe-check of a page-cached 6-member RAID6 against
# reading all members in parallel with cat, in one run, interleaved, medians
# of BENCH_REPS samples (goal: ratio >= 0.8); then stripe-check's peak RSS
# on 256 MiB and on 4 GiB sparse members (goal <= 64 MiB and flat).
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
bin=${STRIPE_BIN:-$top/bin}
reps=${BENCH_REPS:-5}
mib=${BENCH_MIB:-256}
dir=$(mktemp -d "${BENCH_DIR:-/dev/shm}/bench_stripe_check.XXXXXX")
trap 'rm -rf "$dir"' EXIT
trap 'exit 130' INT TERM

# shellcheck source=tests/bench/common.sh
. "$top/tests/bench/common.sh"

m=("$dir"/m{0,1,2,3,4,5}.img)
"$bin/stripe-create" -q -l 6 -c 512K --image-size "${mib}M" "${m[@]}"
size=$("$bin/stripe-examine" --export "${m[@]}" | sed -n 's/^STRIPE_SIZE_BYTES=//p')
head -c "$size" /dev/urandom | "$bin/stripe-write" --progress none "${m[@]}"
cat "${m[@]}" > /dev/null

check_t=() cat_t=()
for ((i = 0; i < reps; i++)); do
	check_t+=("$(time_ns "$bin/stripe-check" -q --progress none "${m[@]}")")
	cat_t+=("$(time_ns cat_all "${m[@]}")")
done
tc=$(median_of "${check_t[@]}")
tk=$(median_of "${cat_t[@]}")
bytes=$((6 * mib * 1048576))
ratio=$(ratio_of "$tk" "$tc")
printf 'stripe-check, RAID6 6 x %d MiB, 512K chunk, page-cached (median of %d)\n' "$mib" "$reps"
printf '  %-28s %8s GB/s of member bytes\n' "stripe-check" "$(gbs_ns "$bytes" "$tc")"
printf '  %-28s %8s GB/s\n' "6 x cat in parallel" "$(gbs_ns "$bytes" "$tk")"
printf '  ratio check/cat %s (goal >= 0.8: %s)\n' "$ratio" "$(goal_met "$ratio" 0.8)"

rm -f "${m[@]}"
"$bin/stripe-create" -q -l 6 -c 512K --image-size 256M "$dir"/a{0,1,2,3,4,5}.img
r1=$(peak_rss_kib "$bin/stripe-check" -q --progress none "$dir"/a{0,1,2,3,4,5}.img)
rm -f "$dir"/a*.img
"$bin/stripe-create" -q -l 6 -c 512K --image-size 4G "$dir"/b{0,1,2,3,4,5}.img
r2=$(peak_rss_kib "$bin/stripe-check" -q --progress none "$dir"/b{0,1,2,3,4,5}.img)
printf 'peak RSS of stripe-check: %d KiB at 256 MiB members, %d KiB at 4 GiB sparse members (goal <= 65536 and flat: %s)\n' \
	"$r1" "$r2" "$([[ $r1 -le 65536 && $r2 -le 65536 && $((r2 - r1)) -lt 4096 ]] && echo met || echo not met)"
