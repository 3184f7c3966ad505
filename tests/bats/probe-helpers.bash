# probe-helpers.bash: what the specs of the probe's filesystem evidence
# share (t0282, t0283): the evidence run alone through tests/tools/probe-content
# on an array made in $BATS_FILE_TMPDIR, and its answer read.

# probe DIR [ARGS...] -- MEMBER...: the candidates, run in DIR.
probe() {
	local dir=$1
	shift
	cd "$BATS_FILE_TMPDIR/$dir" && "$TTOOLS/probe-content" "$@"
}

# canon DIR: DIR/truth as the probe prints a candidate (size left to the
# search; a raid0's truth says 0).
canon() {
	local truth
	truth=$(sed 's/size=0s/size=1024K/' "$BATS_FILE_TMPDIR/$1/truth")
	"$TTOOLS/probe-content" --canon "$truth" | cut -d' ' -f2
}

# top: the best candidate's SPEC in $spec and its score in $score.
top() {
	local line
	line=$(grep -m1 '^[01]\.[0-9]* level=' <<<"$output")
	score=${line%% *}
	spec=${line#* }
}
