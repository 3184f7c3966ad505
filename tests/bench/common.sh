# shellcheck shell=bash
# common.sh: helpers the benchmark scripts share (sourced, not run):
# timings, medians of samples, rates, ratios against goals, a process's
# peak resident set and the tmpfs the benchmarks measure in.
#
# One timing convention for every script: a sample is the wall time of one
# command in nanoseconds (time_ns), a group of commands run at once being
# one function (cat_all); a figure is the median of its samples
# (median_of), a rate is bytes over that median (gbs_ns), and a ratio is
# the baseline's median time over the tool's (ratio_of, so that, as with
# rates, above 1 means faster), or the median of paired ratios where the
# tool reports its own rates (paired_ratio).  Integer nanoseconds keep the
# arithmetic in the shell and awk, with no bc.

# time_ns CMD...: CMD's wall time in nanoseconds.  CMD's stdout is dropped
# so that only the time is printed; its stderr is left to the caller.
time_ns() {
	local s e
	s=$(date +%s%N)
	"$@" >/dev/null
	e=$(date +%s%N)
	echo $((e - s))
}

# cat_all FILE...: every FILE read at once, each by its own cat: the
# baseline that moves member bytes and nothing else.
cat_all() {
	local f
	for f in "$@"; do cat "$f" >/dev/null & done
	wait
}

# median: the median of the numbers on stdin, one a line.
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# median_of N...: the median of its arguments, for samples kept in arrays.
median_of() { printf '%s\n' "$@" | median; }

# paired_ratio "A1 A2 ..." "B1 B2 ...": the median of the ratios Ai / Bi,
# two decimals (a zero Bi gives 0).  Each pair was taken one right after
# the other, so a machine that drifts between pairs moves both of a pair
# and not their ratio, where a ratio of two medians would mix samples taken
# minutes apart.
paired_ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN {
		n = split(a, x, " "); split(b, y, " ")
		for (i = 1; i <= n; i++) print (y[i] ? x[i] / y[i] : 0)
	}' | median | awk '{ printf "%.2f", $1 }'
}

# ms_list NS...: the samples in milliseconds, in the order taken
ms_list() { printf '%s\n' "$@" | awk '{ printf "%s%.0f", (NR > 1 ? " " : ""), $1 / 1e6 }'; }

# gbs_ns BYTES NS: the rate in GB/s (10^9 bytes), two decimals.
gbs_ns() { awk -v b="$1" -v ns="$2" 'BEGIN { printf "%.2f", b / ns }'; }

# ratio_of A B: A / B, two decimals (0 when B is 0: a tool that gave no figure).
ratio_of() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b ? a / b : 0 }'; }

# goal_met RATIO GOAL: "met" when RATIO >= GOAL, else "NOT met".
goal_met() { awk -v r="$1" -v g="$2" 'BEGIN { print (r >= g ? "met" : "NOT met") }'; }

# peak_rss_kib CMD...: the command's peak resident set, polled from /proc.
peak_rss_kib() {
	"$@" > /dev/null 2>&1 &
	local pid=$! peak=0 v
	while kill -0 "$pid" 2>/dev/null; do
		v=$(awk '/^VmHWM/ { print $2 }' "/proc/$pid/status" 2>/dev/null || true)
		[[ -n $v && $v -gt $peak ]] && peak=$v
		sleep 0.02
	done
	wait "$pid" || true
	echo "$peak"
}

# maxrss_kib CMD...: the command's peak resident set as the kernel counts it
# (ru_maxrss through /usr/bin/time), which polling can miss the last of;
# polled with peak_rss_kib where /usr/bin/time is missing.  CMD's stdout is
# dropped, its stderr is left to the caller.
maxrss_kib() {
	if [[ ! -x /usr/bin/time ]]; then
		peak_rss_kib "$@"
		return
	fi
	local out
	out=$(mktemp)
	# a failing CMD adds a "Command exited" line before the figure
	/usr/bin/time -f %M -o "$out" "$@" >/dev/null || true
	tail -n 1 "$out"
	rm -f "$out"
}

# bench_tmpfs NAME NEED_MIB: sets dir to a new directory in a tmpfs with
# NEED_MIB free: in /dev/shm when it has room, else in a tmpfs mounted for
# the run (root), whose mountpoint is left in bench_mnt for
# bench_tmpfs_cleanup.  Benchmarks measure page-cached I/O, never a disk.
bench_tmpfs() {
	local free
	bench_mnt=
	free=$(df -Pm /dev/shm 2>/dev/null | awk 'NR == 2 { print $4 }')
	if [[ $(stat -f -c %T /dev/shm 2>/dev/null) == tmpfs && ${free:-0} -gt $2 ]]; then
		dir=$(mktemp -d "/dev/shm/$1.XXXXXX")
		return 0
	fi
	bench_mnt=$(mktemp -d "/tmp/$1.XXXXXX")
	if ! mount -t tmpfs -o size=$(($2 + 64))m tmpfs "$bench_mnt"; then
		echo "$1: /dev/shm is too small and mounting a tmpfs failed (root needed)" >&2
		rmdir "$bench_mnt"
		bench_mnt=
		exit 1
	fi
	dir=$bench_mnt/w
	mkdir "$dir"
}

# bench_tmpfs_cleanup: removes what bench_tmpfs made.
bench_tmpfs_cleanup() {
	[[ -n ${dir:-} ]] && rm -rf "$dir"
	if [[ -n ${bench_mnt:-} ]]; then
		umount "$bench_mnt" 2>/dev/null || true
		rmdir "$bench_mnt" 2>/dev/null || true
	fi
	return 0
}

# bench_make_array LEVEL N: an array of N members $dir/m0.. of $mib MiB
# each, 64K chunks (their paths in members), filled with random bytes,
# which $dir/in keeps (abytes of them).  Uses bin, dir and mib.
# shellcheck disable=SC2154 # bin and mib are the sourcing script's
bench_make_array() {
	local level=$1 n=$2 i
	rm -f "$dir"/m[0-9]*
	members=()
	for ((i = 0; i < n; i++)); do members+=("$dir/m$i"); done
	"$bin/stripe-create" -q -f -l "$level" -c 64K --image-size "${mib}M" "${members[@]}"
	abytes=$("$bin/stripe-examine" --json "${members[@]}" | jq -r .array.size_bytes)
	head -c "$abytes" /dev/urandom > "$dir/in"
	"$bin/stripe-write" -q --progress none -i "$dir/in" "${members[@]}"
}
