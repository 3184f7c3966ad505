# metrics.bash: stripe-verify's run as Prometheus metrics, in the text
# format node_exporter's textfile collector reads, rendered from the run's
# own JSON report.  Sourced, not run: the script sets TOOL, prom_out ('' none,
# - standard output, else the file), prom_written and run_start (the run's
# start, in microseconds since the epoch).

# prom_clock: the run's start (epoch seconds) and duration (seconds) as
# the two words "START DURATION", in microseconds' precision; bash's clock,
# no process (and a dot whatever the locale's decimal separator)
prom_clock() {
	local now=${EPOCHREALTIME/[.,]/} start dur
	printf -v start '%d.%06d' $((run_start / 1000000)) $((run_start % 1000000))
	printf -v dur '%d.%06d' $(((now - run_start) / 1000000)) $(((now - run_start) % 1000000))
	echo "$start $dur"
}

# The jq definitions both renderings share: a label value escaped as the
# format wants it (\\, \" and \n), a label set, a family's HELP and TYPE
# lines (one family's lines before its samples, each name once a file)
readonly PROM_JQ_DEFS='
	def esc: tostring | gsub("\\\\"; "\\\\") | gsub("\""; "\\\"") | gsub("\n"; "\\n");
	def labels($l): "{" + ([ $l | to_entries[] | "\(.key)=\"\(.value | esc)\"" ] | join(",")) + "}";
	def family($name; $type; $help): "# HELP \($name) \($help)", "# TYPE \($name) \($type)";
	# the run itself, $ls its labels written out
	def run_families($ls; $ok):
		family("stripe_array_verify_success"; "gauge";
			"Whether the last stripe-verify run reached a verdict (1) or failed (0)"),
		"stripe_array_verify_success\($ls) \($ok)",
		family("stripe_array_last_verify_timestamp_seconds"; "gauge";
			"When the last stripe-verify run started, in seconds since the epoch"),
		"stripe_array_last_verify_timestamp_seconds\($ls) \($start)",
		family("stripe_array_last_verify_duration_seconds"; "gauge";
			"How long the last stripe-verify run took"),
		"stripe_array_last_verify_duration_seconds\($ls) \($duration)";
'

# prom_text REPORT: the metrics of the run whose JSON report is REPORT
prom_text() {
	local clock
	clock=$(prom_clock)
	jq -r --arg start "${clock% *}" --arg duration "${clock#* }" "$PROM_JQ_DEFS"'
		# one sample a value of an enum, 1 for the one the array or member is in
		def onehot($name; $l; $key; $values; $value):
			$values[] as $v | "\($name)\(labels($l + { ($key): $v })) \(if $v == $value then 1 else 0 end)";
		.array as $a | { uuid: $a.uuid, name: $a.name } as $l |
		# every member once (a path given twice is one series): those that
		# hold a role, then the hot spares, then those left out
		([ (.members[] | select(.path != null) | { path, role, state: "active", read_errors }),
		   (.spares[] | { path, role: -1, state: "spare", read_errors: 0 }),
		   (.left_out[] | { path, role: -1, state, read_errors: 0 }) ] |
			reduce .[] as $m ([]; if any(.[]; .path == $m.path) then . else . + [$m] end)) as $members |
		[ "active", "rebuilding", "spare", "faulty", "stale", "duplicate", "foreign", "invalid" ] as $known |
		run_families(labels($l); 1),
		family("stripe_array_info"; "gauge"; "The array stripe-verify verified, with its level (always 1)"),
		"stripe_array_info\(labels($l + { level: $a.level })) 1",
		family("stripe_array_size_bytes"; "gauge"; "The array'"'"'s size"),
		"stripe_array_size_bytes\(labels($l)) \($a.size_bytes)",
		family("stripe_array_roles"; "gauge"; "The roles (raid devices) the array has"),
		"stripe_array_roles\(labels($l)) \($a.raid_devices)",
		family("stripe_array_degraded_roles"; "gauge"; "The roles no member holds"),
		"stripe_array_degraded_roles\(labels($l)) \($a.degraded_roles)",
		family("stripe_array_state"; "gauge"; "The array'"'"'s state: 1 for the one it is in"),
		onehot("stripe_array_state"; $l; "state"; [ "healthy", "degraded", "failed" ];
			if $a.state == "failed" or $a.state == "degraded" then $a.state else "healthy" end),
		family("stripe_array_verdict"; "gauge"; "The last stripe-verify run'"'"'s verdict: 1 for its own"),
		onehot("stripe_array_verdict"; $l; "verdict"; [ "healthy", "repaired", "degraded", "unverifiable",
			"members_left_out", "mismatches", "unreadable", "failed" ]; .verdict),
		family("stripe_array_mismatches"; "gauge";
			"The inconsistent 4 KiB units the last check found (md'"'"'s mismatch_cnt counts 8 sectors a unit)"),
		"stripe_array_mismatches\(labels($l)) \(.check.inconsistent // 0)",
		family("stripe_array_unrecoverable_bytes"; "gauge";
			"The array bytes the last check could neither read nor rebuild from redundancy"),
		"stripe_array_unrecoverable_bytes\(labels($l)) \(.unrecoverable_bytes)",
		family("stripe_array_member_role"; "gauge"; "The role a member holds; -1 for a hot spare or a member left out"),
		($members[] | "stripe_array_member_role\(labels($l + { member: .path })) \(.role)"),
		family("stripe_array_member_state"; "gauge"; "A member'"'"'s state: 1 for the one it is in"),
		($members[] | . as $m |
			onehot("stripe_array_member_state"; $l + { member: $m.path }; "state";
				$known + (if any($known[]; . == $m.state) then [] else [ $m.state ] end); $m.state)),
		family("stripe_array_member_read_errors"; "gauge"; "The 4 KiB blocks of a member the last check could not read"),
		($members[] | "stripe_array_member_read_errors\(labels($l + { member: .path })) \(.read_errors)")
	' "$1"
}

# prom_put FILE: the metrics in FILE on standard output (--prom), or in
# place of --prom=FILE whole
prom_put() {
	if [ "$prom_out" = - ]; then
		cat "$1"
	else
		put_file "$1" "$prom_out" metrics
	fi
	prom_written=1
}

# prom_error MESSAGE: a failed run's metrics: stripe_array_verify_success
# 0, with the array's labels taken from the metrics the file holds (the
# last run's), so the series an alert watches goes on; uuid and name empty
# where there are none.  The message itself is on stderr and in the report.
prom_error() {
	local clock l='{uuid="",name=""}' f
	[ -n "${prom_out:-}" ] && [ "${prom_written:-0}" = 0 ] && command -v jq > /dev/null || return 0
	prom_written=1
	if [ "$prom_out" != - ] && [ -f "$prom_out" ]; then
		l=$(sed -n 's/^stripe_array_verify_success\({.*}\) [01]$/\1/p' "$prom_out" | head -n 1)
		[ -n "$l" ] || l='{uuid="",name=""}'
	fi
	clock=$(prom_clock)
	f=$(mktemp "${TMPDIR:-/tmp}/$TOOL.XXXXXX") || return 0
	jq -nr --arg start "${clock% *}" --arg duration "${clock#* }" --arg ls "$l" "$PROM_JQ_DEFS"'
		run_families($ls; 0)' > "$f" && prom_put "$f"
	rm -f -- "$f"
}
