# prom-lint.awk: Prometheus's text exposition format (0.0.4), the grammar
# node_exporter's textfile collector parses, as a checker for the specs
# where promtool is not installed: prints one line a fault ("LINE: what"),
# nothing for a file that parses.  Checks the metric and label names, the
# label syntax and escapes, the values and timestamps, one HELP and one
# TYPE per family before its first sample, a family's samples in one
# group, no series twice, and the naming rule that only a counter's name
# ends in _total.

function fault(what) {
	printf "%d: %s\n", NR, what
	faults++
}

function metric_name(s) {
	return s ~ /^[a-zA-Z_:][a-zA-Z0-9_:]*$/
}

# a sample's value: a float as Go's ParseFloat reads it, or NaN, +Inf, -Inf
function value_ok(v) {
	return v ~ /^[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$/ || v ~ /^(NaN|[-+]?Inf)$/
}

# the family a sample belongs to: its name, or for a histogram's or a
# summary's _bucket, _sum and _count lines the name they extend
function family_of(name,   base) {
	base = name
	sub(/_(bucket|sum|count)$/, "", base)
	if (base != name && (type[base] == "histogram" || type[base] == "summary"))
		return base
	return name
}

# parse_labels(s): the label set in s, which starts after "{"; sets
# rest to what follows the "}" and labelset to a canonical form (sorted
# is not needed: the same writer writes the same order); 0 on a fault
function parse_labels(s,   i, c, name, val, n, seen) {
	labelset = ""
	i = 1
	n = length(s)
	split("", seen)
	while (1) {
		while (substr(s, i, 1) == " ") i++
		if (substr(s, i, 1) == "}") { rest = substr(s, i + 1); return 1 }
		name = ""
		while (i <= n && substr(s, i, 1) ~ /[a-zA-Z0-9_]/) { name = name substr(s, i, 1); i++ }
		if (name !~ /^[a-zA-Z_][a-zA-Z0-9_]*$/) { fault("bad label name at \"" substr(s, i, 20) "\""); return 0 }
		if (name ~ /^__/) { fault("label name " name " is reserved"); return 0 }
		if (name in seen) { fault("label " name " twice"); return 0 }
		seen[name] = 1
		while (substr(s, i, 1) == " ") i++
		if (substr(s, i, 1) != "=") { fault("no = after label " name); return 0 }
		i++
		while (substr(s, i, 1) == " ") i++
		if (substr(s, i, 1) != "\"") { fault("label " name ": value not quoted"); return 0 }
		i++
		val = ""
		while (1) {
			if (i > n) { fault("label " name ": value not closed"); return 0 }
			c = substr(s, i, 1)
			if (c == "\"") break
			if (c == "\\") {
				c = substr(s, i + 1, 1)
				if (c != "\\" && c != "\"" && c != "n") { fault("label " name ": bad escape \\" c); return 0 }
				val = val "\\" c
				i += 2
				continue
			}
			val = val c
			i++
		}
		i++
		labelset = labelset name "=" val "\001"
		while (substr(s, i, 1) == " ") i++
		c = substr(s, i, 1)
		if (c == ",") { i++; continue }
		if (c == "}") { rest = substr(s, i + 1); return 1 }
		fault("label " name ": neither , nor } after its value")
		return 0
	}
}

/^[ \t]*$/ { next }

/^#/ {
	n = split($0, w, /[ \t]+/)
	if (w[2] != "HELP" && w[2] != "TYPE")
		next
	if (n < 3 || !metric_name(w[3])) { fault(w[2] " names no valid metric"); next }
	if (w[2] == "HELP") {
		if (w[3] in help) fault("a second HELP for " w[3])
		else if (w[3] in sampled) fault("HELP for " w[3] " after its samples")
		help[w[3]] = 1
		h = $0
		gsub(/\\\\|\\n/, "", h)
		if (h ~ /\\/) fault("HELP of " w[3] ": bad escape")
	} else {
		if (w[3] in type) fault("a second TYPE for " w[3])
		else if (w[3] in sampled) fault("TYPE for " w[3] " after its samples")
		if (n != 4 || w[4] !~ /^(counter|gauge|histogram|summary|untyped)$/) fault("TYPE of " w[3] ": no valid type")
		type[w[3]] = w[4]
		if ((w[4] == "counter") != (w[3] ~ /_total$/))
			fault(w[3] ": only a counter's name ends in _total")
	}
	next
}

{
	line = $0
	match(line, /^[a-zA-Z_:][a-zA-Z0-9_:]*/)
	if (RSTART != 1) { fault("no metric name at the start"); next }
	name = substr(line, 1, RLENGTH)
	line = substr(line, RLENGTH + 1)
	labelset = ""
	if (substr(line, 1, 1) == "{") {
		if (!parse_labels(substr(line, 2))) next
		line = rest
	}
	if (line !~ /^[ \t]+/) { fault(name ": no space before the value"); next }
	sub(/^[ \t]+/, "", line)
	sub(/[ \t]+$/, "", line)
	n = split(line, v, /[ \t]+/)
	if (n < 1 || n > 2 || !value_ok(v[1])) { fault(name ": bad value \"" line "\""); next }
	if (n == 2 && v[2] !~ /^-?[0-9]+$/) { fault(name ": bad timestamp \"" v[2] "\""); next }
	fam = family_of(name)
	if (!(fam in type)) fault(name ": a sample before its family's TYPE")
	if (!(fam in help)) fault(name ": no HELP for its family")
	if (fam != current && (fam in sampled)) fault(name ": its family's samples are not in one group")
	current = fam
	sampled[fam] = 1
	if ((name SUBSEP labelset) in series) fault(name ": the same series twice")
	series[name SUBSEP labelset] = 1
}

END {
	if (NR == 0) fault("empty")
	exit faults > 0
}
