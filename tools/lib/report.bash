# report.bash: what the runbook scripts share to report and fail: the --json
# report put in place whole, a failed run's report, and the one-line errors.
# Sourced, not run.  The script sets TOOL and FORMAT (its report's format),
# json_out ('' none, - standard output, else the file) and json_written (1
# once its report is out, so a failure after it does not replace it).

# put_report FILE: the report in FILE on standard output (--json), or in
# place of --json=FILE whole: written beside it, then renamed over it, so
# a reader sees the last report or this one, never a mix
put_report() {
	local tmp
	if [ "$json_out" = - ]; then
		cat "$1"
		return 0
	fi
	tmp=$(mktemp "$(dirname -- "$json_out")/.$(basename -- "$json_out").XXXXXX") ||
		{ echo "$TOOL: $json_out: cannot write the report beside it" >&2; exit 2; }
	if ! { cat "$1" > "$tmp" && chmod "$(printf %o $((0666 & ~$(umask))))" "$tmp" && sync -- "$tmp" &&
		mv -f -- "$tmp" "$json_out"; }; then
		rm -f -- "$tmp"
		echo "$TOOL: $json_out: the report was not written" >&2
		exit 2
	fi
}

# error_report MESSAGE: a failed run's report, so that --json=FILE holds
# this run's word, not the last run's verdict
error_report() {
	local f
	[ -n "${json_out:-}" ] && [ "${json_written:-0}" = 0 ] && command -v jq > /dev/null || return 0
	json_written=1
	f=$(mktemp "${TMPDIR:-/tmp}/$TOOL.XXXXXX") || return 0
	jq -n --arg tool "$TOOL" --argjson format "$FORMAT" --arg e "$1" \
		'{format: $format, tool: $tool, verdict: "error", error: $e}' > "$f" &&
		put_report "$f"
	rm -f -- "$f"
}

# die MESSAGE: said on standard error and in the report; exit status 2
die() {
	echo "$TOOL: $*" >&2
	error_report "$*"
	exit 2
}

# usage_error WHY: a wrong command line, said in one line as the binaries
# say it (nothing when getopt said it already), and where to read more
usage_error() {
	[ -z "$*" ] || echo "$TOOL: $*" >&2
	echo "Try '$TOOL --help'." >&2
	exit 2
}

# loop_backing PATH: the file behind a loop device (nothing for others)
loop_backing() {
	if [ -b "$1" ]; then
		cat "/sys/class/block/$(basename "$(readlink -f "$1")")/loop/backing_file" 2>/dev/null || true
	fi
}

# report_target FILE MEMBER...: refuses a report that would land on a
# member: the same file (device and inode), or a loop device over it or
# behind it; or on any other block device (a report is a file).  Nothing
# is written there, not even the refusal.
report_target() {
	local out=$1 m back outback
	shift
	[ -n "$out" ] && [ "$out" != - ] || return 0
	outback=$(loop_backing "$out")
	for m in "$@"; do
		back=$(loop_backing "$m")
		if [ "$out" -ef "$m" ] || { [ -n "$back" ] && [ "$out" -ef "$back" ]; } ||
			{ [ -n "$outback" ] && [ "$outback" -ef "$m" ]; }; then
			json_out=''
			die "$out: is the member $m; the report would overwrite it"
		fi
	done
	if [ -b "$out" ]; then json_out=''; die "$out: a block device; --json writes a report file"; fi
}
