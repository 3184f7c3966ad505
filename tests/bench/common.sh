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
