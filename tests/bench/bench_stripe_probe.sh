#!/usr/bin/env bash
# bench_stripe_probe: stripe-probe's time to an answer on zeroed arrays
# holding a real ext4 (a 6-member RAID6 and an 8-member RAID5, 64K chunk,
# BENCH_MIB members, default 1 GiB), against stripe-read of the same array
# through the geometry found, in one run, interleaved, medians of
# BENCH_REPS samples, and the bytes the probe read of each member.  The
# members are page-cached, where stripe-read moves GB/s: the figure that
# carries to disks is the probe's bytes, a sample and not the disks.  Then
# the same members grown to 16 GiB (sparse) give the probe's time and bytes
# again: flat in member size.
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
bin=${STRIPE_BIN:-$top/bin}
reps=${BENCH_REPS:-3}
mib=${BENCH_MIB:-1024}
big=${BENCH_BIG:-16G}

# shellcheck source=tests/bench/common.sh
. "$top/tests/bench/common.sh"
bench_tmpfs bench_stripe_probe $((8 * mib + 512))
trap bench_tmpfs_cleanup EXIT
trap 'exit 130' INT TERM

# answer DIR: the probe's first array found, as "level chunk layout offset
# roles" (its size aside, which follows the members), or "none".
answer() {
	"$bin/stripe-probe" --json "$1"/m*.img 2>/dev/null |
		jq -r '(.arrays[0].candidate // 0) as $k | if $k == 0 then "none" else
			.candidates[$k - 1] | "\(.level) \(.chunk_bytes) \(.layout) \(.data_offset_sectors) \(.roles | map(split("/")[-1]) | join(":"))" end' ||
		echo none
}

# truth DIR: the same words for the geometry the array was made with.
truth() {
	jq -r '.members[0] as $m | "\($m.level | ltrimstr("raid")) \($m.chunk_size_bytes) \($m.layout_name) \($m.data_offset_sectors) \([range(0; $m.raid_devices) | "m\(.).img"] | join(":"))"' "$1/examine.json"
}

probe_once() { "$bin/stripe-probe" -q "$1"/m*.img; }
# sampled DIR: MiB the probe read of each member.
sampled() { "$bin/stripe-probe" --json "$1"/m*.img 2>/dev/null | jq '.sampled_bytes_per_member / 1048576 | floor'; }
read_once() { "$bin/stripe-read" --geometry "$(cat "$1/truth")" "$1"/m*.img > /dev/null; }

# bench_case NAME CREATE-OPTION...
bench_case() {
	local name=$1 d=$dir/$1 p=() r=() q=() want got
	shift
	"$top/tests/probe/make-ext4-array" -s /usr/share "$d" "${mib}M" "$@" > /dev/null
	"$top/tests/probe/make-ext4-array" --zero "$d"
	want=$(truth "$d")
	got=$(answer "$d")
	local read_small read_big
	read_small=$(sampled "$d")
	for ((i = 0; i < reps; i++)); do
		p+=("$(time_ns probe_once "$d" || true)")
		r+=("$(time_ns read_once "$d")")
	done
	for f in "$d"/m*.img; do truncate -s "$big" "$f"; done
	local got_big
	got_big=$(answer "$d")
	read_big=$(sampled "$d")
	for ((i = 0; i < reps; i++)); do
		q+=("$(time_ns probe_once "$d" || true)")
	done
	local tp tr tq
	tp=$(median_of "${p[@]}") tr=$(median_of "${r[@]}") tq=$(median_of "${q[@]}")
	printf '%s, %s MiB members, ext4 of /usr/share, superblocks zeroed (median of %d)\n' "$name" "$mib" "$reps"
	printf '  %-34s %8.2f s  %s\n' "stripe-probe" "$(awk -v n="$tp" 'BEGIN { print n / 1e9 }')" \
		"$([ "$got" = "$want" ] && echo "right answer" || echo "WRONG: $got, made as $want")"
	printf '  %-34s %8.2f s\n' "stripe-read --geometry, whole" "$(awk -v n="$tr" 'BEGIN { print n / 1e9 }')"
	printf '  ratio read/probe %s (page-cached members: reading the whole array costs little here)\n' "$(ratio_of "$tr" "$tp")"
	printf '  the probe read %s MiB of each %s MiB member (a sample: the same at any member size)\n' "$read_small" "$mib"
	printf '  %-34s %8.2f s  %s\n' "stripe-probe, members grown to $big" "$(awk -v n="$tq" 'BEGIN { print n / 1e9 }')" \
		"$([ "$got_big" = "$want" ] && echo "right answer" || echo "WRONG: $got_big")"
	printf '  ratio probe %s/probe %s MiB %s (flat: goal <= 1.5); it read %s MiB of each member\n' "$big" "$mib" \
		"$(ratio_of "$tq" "$tp")" "$read_big"
	rm -rf "$d"
}

bench_case "RAID6 6 members" -l 6 -n 6 -c 64K
bench_case "RAID5 8 members" -l 5 -n 8 -c 64K
