# report.bash: what the runbook scripts share to report and fail: the --json
# report put in place whole, a failed run's report, and the one-line errors.
# Sourced, not run.  The script sets TOOL and FORMAT (its report's format),
# json_out ('' none, - standard output, else the file) and json_written (1
# once its report is out, so a failure after it does not replace it).

# put_report FILE: the report in FILE on standard output (--json), or in
# place of --json=FILE whole (put_file)
put_report() {
	if [ "$json_out" = - ]; then
		cat "$1"
		return 0
	fi
	put_file "$1" "$json_out" report
}

# put_file FILE DEST WHAT: FILE's content in place of DEST whole: written
# beside it, then renamed over it, so a reader (a monitoring agent too)
# sees the last one or this one, never a mix; WHAT names it in an error.
# The new file is made by the shell (noclobber: never one that exists),
# so it has the umask's mode, and costs no mktemp, chmod or dirname.
put_file() {
	local dir=. tmp
	[[ $2 != */* ]] || dir=${2%/*}
	tmp=${dir:-/}/.${2##*/}.$$.$RANDOM
	(set -C && : > "$tmp") 2> /dev/null || { echo "$TOOL: $2: cannot write the $3 beside it" >&2; exit 2; }
	if ! { cat "$1" > "$tmp" && sync -- "$tmp" && mv -f -- "$tmp" "$2"; }; then
		rm -f -- "$tmp"
		echo "$TOOL: $2: the $3 was not written" >&2
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

# die MESSAGE: said on standard error and in the report (and handed to the
# function on_die names, where the script has more to say it in); exit
# status 2
die() {
	echo "$TOOL: $*" >&2
	error_report "$*"
	[ -z "${on_die:-}" ] || "$on_die" "$*"
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

# report_target VAR MEMBER...: refuses a report (the file in the variable
# VAR names: json_out, or another the script writes) that would land on a
# member: the same file (device and inode), or a loop device over it or
# behind it; or on any other block device (a report is a file).  Nothing
# is written there, not even the refusal (VAR is emptied first).
report_target() {
	local var=$1 out=${!1} m back outback
	shift
	[ -n "$out" ] && [ "$out" != - ] || return 0
	outback=$(loop_backing "$out")
	for m in "$@"; do
		back=$(loop_backing "$m")
		if [ "$out" -ef "$m" ] || { [ -n "$back" ] && [ "$out" -ef "$back" ]; } ||
			{ [ -n "$outback" ] && [ "$outback" -ef "$m" ]; }; then
			printf -v "$var" ''
			die "$out: is the member $m; the report would overwrite it"
		fi
	done
	if [ -b "$out" ]; then
		printf -v "$var" ''
		die "$out: a block device; a report is written to a file"
	fi
}
