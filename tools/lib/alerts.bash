# alerts.bash: stripe-verify's alerts on a change of the array's state, as
# mdadm --monitor raises them: the same event names, PROGRAM's arguments
# (event, array, member) and MAILADDR's choice of events to mail.  The last
# state is kept beside the --json=FILE report, so a run that finds what the
# last one found is quiet.  Sourced, not run: the script sets TOOL, json_out,
# mail_to, program and test_alert.

# the state file beside the report, and what sends mail
alerts_state_file='' alerts_mailer=''

# alerts_ready: refuses what cannot alert before anything is done: a
# program that is not one, an address that is not one, mail with neither
# sendmail nor mail on the machine
alerts_ready() {
	[ -n "$mail_to$program" ] || return 0
	alerts_state_file=$json_out.state
	if [ -n "$program" ]; then
		# run as mdadm runs it (execl): the path given, no PATH search
		case $program in */*) ;; *) program=./$program ;; esac
		if [ ! -f "$program" ] || [ ! -x "$program" ]; then die "--program $program: not an executable file"; fi
	fi
	if [ -n "$mail_to" ]; then
		case $mail_to in -* | *[[:space:]]*) usage_error "--mail $mail_to: not a mail address" ;; esac
		alerts_mailer=$(PATH=$PATH:/usr/sbin:/usr/lib command -v sendmail) ||
			alerts_mailer=$(command -v mail) ||
			die "--mail $mail_to: neither sendmail nor mail is installed to send it"
	fi
}

# alerts_plan REPORT: what the run has to alert, from the state the last
# run kept (none where the file is missing or not one) and the run's JSON
# REPORT ('' for a run that read no array), as NUL-ended fields: the state
# to keep (nothing where there is none), then three for each event: its
# name, the array's UUID, the member ('' for none).  mdadm's events: Fail
# (a role held is held no more; the member that held it), SpareActive (a
# role is held again; the member now holding it), DegradedArray (an array
# first seen with roles missing), DeviceDisappeared (no array is read
# where one was), NewArray (one is again), TestMessage (--test).  One jq
# for all of it: a run is a few processes.
alerts_plan() {
	local old='' n=()
	[ ! -f "$alerts_state_file" ] || old=$(< "$alerts_state_file")
	[ -n "$1" ] || n=(-n)
	jq -j "${n[@]}" --arg old "$old" --arg tool "$TOOL" --argjson test "$test_alert" '
		(try ($old | fromjson) catch null |
			if type == "object" and .format == 1 and (.uuid | type) == "string" and
				(.roles | type) == "array" then . else null end) as $o |
		(if . == null then
			if $o == null then null
			else { format: 1, tool: $tool, uuid: $o.uuid, name: $o.name, state: "gone", roles: $o.roles } end
		 else
			{ format: 1, tool: $tool, uuid: .array.uuid, name: .array.name,
			  state: (if .array.state == "failed" or .array.state == "degraded" then .array.state
				  else "healthy" end),
			  roles: [ .members[] | { role, path } ] }
		 end) as $n |
		if $n == null then empty else
		($n | tojson) + "\u0000",
		((if $test == 1 and $n.state != "gone" then [ "TestMessage", $n.uuid ] else empty end),
		 (if $n.state == "gone" then
			if $o != null and $o.state != "gone" then [ "DeviceDisappeared", $o.uuid ] else empty end
		  elif $o == null or $o.uuid != $n.uuid or $o.state == "gone" then
			(if $o != null and $o.uuid == $n.uuid then [ "NewArray", $n.uuid ] else empty end),
			(if $n.state != "healthy" then [ "DegradedArray", $n.uuid ] else empty end)
		  else
			range(0; [ ($o.roles | length), ($n.roles | length) ] | max) as $i |
			($o.roles[$i].path? // null) as $was | ($n.roles[$i].path? // null) as $now |
			if $was != null and $now == null then [ "Fail", $n.uuid, $was ]
			elif $was == null and $now != null then [ "SpareActive", $n.uuid, $now ]
			else empty end
		  end) |
		 (.[0], .[1], (.[2] // "")) | tostring + "\u0000")
		end' ${1:+"$1"}
}

# alerts_mail EVENT ARRAY MEMBER BODY: the alert mailed, with the run's
# human report BODY (mdadm sends /proc/mdstat)
alerts_mail() {
	local subject="$1 event on $2:${HOSTNAME:-localhost}"
	{
		[ "${alerts_mailer##*/}" = mail ] ||
			printf 'From: %s monitoring <root>\nTo: %s\nSubject: %s\n\n' "$TOOL" "$mail_to" "$subject"
		printf 'This mail was sent by %s on %s.\n\n' "$TOOL" "${HOSTNAME:-localhost}"
		printf 'A %s event was detected on the md array %s.\n\n' "$1" "$2"
		[ -z "$3" ] || printf 'It concerns the member %s.\n\n' "$3"
		printf "The run's report:\n\n"
		cat "$4"
	} | if [ "${alerts_mailer##*/}" = mail ]; then
		"$alerts_mailer" -s "$subject" "$mail_to"
	else
		"$alerts_mailer" -t
	fi
}

# alerts_fire EVENT ARRAY MEMBER BODY: the program run (its output on
# stderr, not in a report on stdout) and, for the events mdadm mails
# (Fail..., Degrade..., Spares..., Test...), the mail; false when either
# failed
alerts_fire() {
	local ok=0
	if [ -n "$program" ]; then
		"$program" "$1" "$2" ${3:+"$3"} < /dev/null >&2 ||
			{ echo "$TOOL: --program $program $1 $2${3:+ $3}: exit status $?" >&2; ok=1; }
	fi
	case $1 in
	Fail* | Degrade* | Spares* | Test*)
		if [ -n "$mail_to" ] && ! alerts_mail "$@"; then
			echo "$TOOL: --mail $mail_to: $alerts_mailer could not send the $1 alert" >&2
			ok=1
		fi ;;
	esac
	return $ok
}

# alerts_raise REPORT BODY: every event alerts_plan finds fired, BODY
# the text a mail holds; the new state kept in its place once all were
# delivered; false (and the state kept as it was, so that the next run
# tries again) when one was not
alerts_raise() {
	local new ev dev comp failed=0
	{
		IFS= read -r -d '' new || return 0
		while IFS= read -r -d '' ev && IFS= read -r -d '' dev && IFS= read -r -d '' comp; do
			alerts_fire "$ev" "$dev" "$comp" "$2" || failed=1
		done
	} < <(alerts_plan "$1")
	[ "$failed" = 0 ] || return 1
	put_file <(printf '%s\n' "$new") "$alerts_state_file" state
}

# alerts_run REPORT BODY: the alerts of a run that read the array, from
# its JSON report
alerts_run() {
	[ -n "$alerts_state_file" ] || return 0
	alerts_raise "$1" "$2" || die "not every alert was delivered; the last state is kept, so the next run tries again"
}

# alerts_gone BODY: the alerts of a run that read no array (BODY says
# why): the array the last state names has disappeared (its roles kept, to
# compare with when it is back)
alerts_gone() {
	[ -n "$alerts_state_file" ] || return 0
	alerts_raise '' "$1" || echo "$TOOL: not every alert was delivered" >&2
}
