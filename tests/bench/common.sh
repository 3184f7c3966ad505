# shellcheck shell=bash
# common.sh: helpers the benchmark scripts share (sourced, not run):
# timestamps, medians of samples and a process's peak resident set.

now() { date +%s.%N; }

# median: the median of the numbers on stdin, one a line.
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

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
