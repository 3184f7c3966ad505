#!/usr/bin/env bats
# Machine output the same in every tool: --json writes stdout, --json=FILE
# replaces FILE whole, a failed run says "verdict": "error" with its message
# there, and every document parses whatever bytes a member's name holds.

bats_require_minimum_version 1.5.0
load helpers

setup() {
	D=$BATS_TEST_TMPDIR
	mkdir "$D/out"
	stripe-create -q -l 5 -c 64K --image-size 2M "$D"/m{0,1,2}.img
	M=("$D"/m{0,1,2}.img)
}

# only_file NAME: the report directory holds NAME and nothing else (no
# temporary file left beside it).
only_file() {
	[ "$(ls -A "$D/out")" = "$1" ] || fail "in $D/out: $(ls -A "$D/out")"
}

@test "--json=FILE replaces FILE with the run's document beside the text, leaving nothing else" {
	local tool
	for tool in stripe-examine "stripe-check --progress none"; do
		echo 'last night' > "$D/out/r.json"
		run --separate-stderr $tool --json="$D/out/r.json" "${M[@]}"
		assert_success
		[ "$output" = "$($tool "${M[@]}")" ] || fail "$tool: not its text: $output"
		jq -e '.format >= 1 and .tool != null and .version != null and (.verdict == "healthy" or .verdict == "consistent")' \
			"$D/out/r.json" > /dev/null || fail "$tool: $(cat "$D/out/r.json")"
		only_file r.json
	done
}

@test "a failed run leaves a document with verdict error and its message in FILE, not the last report" {
	local tool
	for tool in stripe-examine "stripe-check --progress none"; do
		$tool --json="$D/out/r.json" "${M[@]}"
		run --separate-stderr $tool --json="$D/out/r.json" "$D/nonexistent"
		assert_failure 2
		jq -e '.verdict == "error" and (.error | contains("nonexistent: No such file or directory") or contains("no member has a usable md superblock"))' \
			"$D/out/r.json" > /dev/null || fail "$tool: $(cat "$D/out/r.json")"
		only_file r.json
	done
}

@test "a failed run's document goes to stdout with --json" {
	run --separate-stderr stripe-check --json "$D/nonexistent"
	assert_failure 2
	jq -e '.tool == "stripe-check" and .verdict == "error" and (.error | endswith("nonexistent: No such file or directory"))' <<<"$output"
	[[ $stderr == *"nonexistent: No such file or directory"* ]] || fail "$stderr"
}

@test "--json never takes the next word as its file: it is a member then" {
	run --separate-stderr stripe-examine --json "$D/out/r.json" "${M[@]}"
	assert_failure 2
	[ ! -e "$D/out/r.json" ] || fail "r.json was written"
	jq -e '.verdict == "error"' <<<"$output"
	[[ $stderr == *"$D/out/r.json: No such file or directory"* ]] || fail "$stderr"
}

@test "a --json=FILE that is a member is refused and nothing is written to it" {
	local before
	before=$(sha "${M[@]}")
	run --separate-stderr stripe-check --json="${M[1]}" "${M[@]}"
	assert_failure 2
	[[ $stderr == *"${M[1]}: the output is the member ${M[1]}; refusing to overwrite it"* ]] || fail "$stderr"
	[ "$(sha "${M[@]}")" = "$before" ] || fail "a member changed"
}

@test "stripe-create, stripe-rebuild and stripe-bench write --json=FILE with their verdict" {
	stripe-create -q -l 1 --json="$D/out/c.json" --image-size 2M "$D"/n{0,1}.img
	[ "$(jq -r '[.tool, .verdict] | join(" ")' "$D/out/c.json")" = "stripe-create created" ]
	stripe-rebuild -q --json="$D/out/r.json" --progress none "${M[@]}"
	[ "$(jq -r '[.tool, .verdict] | join(" ")' "$D/out/r.json")" = "stripe-rebuild whole" ]
	mkdir "$D/bench"
	stripe-bench -q -s 4M --char-size 32K --seeks 100 --json="$D/out/b.json" "$D/bench"
	[ "$(jq -r '[.tool, .verdict] | join(" ")' "$D/out/b.json")" = "stripe-bench done" ]
	run --separate-stderr stripe-create -l 1 --json="$D/out/c.json" "$D/nope/a.img" "$D/nope/b.img"
	assert_failure 2
	[ "$(jq -r .verdict "$D/out/c.json")" = error ]
}

@test "a member path that is not valid UTF-8 gives a document jq and python3 read" {
	local odd=$D/$'d\xe9j\xe0'.img
	cp "${M[2]}" "$odd"
	run --separate-stderr stripe-examine --json "${M[0]}" "${M[1]}" "$odd"
	assert_success
	[ "$(jq -r '.members[2].path | endswith("d\u00e9j\u00e0.img")' <<<"$output")" = true ] || fail "$output"
	python3 -c 'import json, sys; json.load(sys.stdin)' <<<"$output"
}
