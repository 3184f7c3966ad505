#!/usr/bin/env bats
# stripe-examine: superblock fields and the assembled view, checked against
# what mdadm --examine and the MANIFEST of each real-md fixture say.

bats_require_minimum_version 1.5.0
load helpers

setup() {
	case_sample 2 2
}

setup_file() {
	fixtures_ready
	# the facts of every set, gathered once for the specs that compare them
	local set
	mkdir -p "$BATS_FILE_TMPDIR/facts"
	for set in $(all_sets); do
		facts "$set" > "$BATS_FILE_TMPDIR/facts/$set"
	done
}

# facts SET: one line of the assembled view, then one line per member, from
# a single stripe-examine --json (one jq call per set keeps the suite fast).
# The parentheses matter: "A | @tsv, B" would apply B to A's array, jq
# would fail there, and the member lines would silently be missing.
facts() {
	stripe-examine --json $(members "$1") | jq -r '
		([.array.level, .array.raid_devices, .array.size_bytes, .array.chunk_size_bytes,
		  .array.layout, .array.uuid] | @tsv),
		(.members[] | [.role, .data_offset_sectors, .events, .super_offset_sectors] | @tsv)'
}

@test "examine of every fixture set agrees with its MANIFEST (level, layout, chunk, devices, size, uuid)" {
	local set bad="" level devs size chunk layout uuid want_uuid f
	for set in $(all_sets); do
		read_manifest "$set"
		mapfile -t f < "$BATS_FILE_TMPDIR/facts/$set"
		IFS=$'\t' read -r level devs size chunk layout uuid <<<"${f[0]}"
		[ "$level" = "${MF[level]}" ] || bad+=" $set:level"
		[ "$devs" = "${MF[raid_devices]}" ] || bad+=" $set:devices"
		[ "$size" = "${MF[array_size_bytes]}" ] || bad+=" $set:size"
		if [ "$level" != raid1 ]; then
			[ "$chunk" = "${MF[chunk_bytes]}" ] || bad+=" $set:chunk"
		fi
		case $level in
		raid5|raid6|raid10) [ "$layout" = "${MF[layout_num]}" ] || bad+=" $set:layout" ;;
		esac
		# the first "Array UUID :" (1.x) or "UUID :" (0.90) line of md's examine
		want_uuid=$(sed -nE '/^ *(Array )?UUID : /{s/^ *(Array )?UUID : ([0-9a-f:]*).*/\2/p;q}' \
			"$TOP/tests/fixtures/$set/examine-0.txt")
		[ "$uuid" = "$want_uuid" ] || bad+=" $set:uuid"
	done
	[ -z "$bad" ] || fail "disagreements:$bad"
}

# member_facts_against AWK FILE...: each member's facts line (set/n, then
# role, data offset, events, super offset) against what AWK takes from the
# FILEs (want[set "/" n, field]); prints " set/n:field" for each that
# differs, and for a member one side has and the other lacks.  One awk for
# every set: a process a member would cost seconds.
member_facts_against() {
	awk -F'\t' "$1"'
		FILENAME ~ /\/facts\// {
			if (FNR == 1) { set = FILENAME; sub(/.*\//, "", set); n = 0; seen[set] }
			else { k = set "/" n++; got[k, "role"] = $1; got[k, "offset"] = $2
			       got[k, "events"] = $3; got[k, "super"] = $4; members[k] }
			next
		}
		END {
			for (kf in want) {
				split(kf, p, SUBSEP); s = p[1]; sub(/\/.*/, "", s)
				if (!(s in seen)) continue
				if (!(p[1] in members)) printf " %s:not-examined", p[1]
				else if (got[kf] != want[kf]) printf " %s:%s", p[1], p[2]
			}
		}' "${@:2}" "$BATS_FILE_TMPDIR"/facts/*
}

@test "examine of every member agrees with the MANIFEST on role, data offset, events" {
	local bad
	bad=$(member_facts_against '
		FILENAME ~ /MANIFEST$/ && match($0, /^member[0-9]+\.(role|data_offset_sectors|events)=/) {
			if (FNR == 1 || !(FILENAME in named)) { set = FILENAME; sub(/\/MANIFEST$/, "", set); sub(/.*\//, "", set); named[FILENAME] }
			n = $0; sub(/^member/, "", n); sub(/\..*/, "", n)
			f = $0; sub(/^[^.]*\./, "", f); sub(/=.*/, "", f); v = substr($0, index($0, "=") + 1)
			f = f == "data_offset_sectors" ? "offset" : f
			if (!((set "/" n, f) in want)) want[set "/" n, f] = v
			next
		}' "$FIX"/*/MANIFEST)
	[ -n "$(ls "$BATS_FILE_TMPDIR"/facts)" ] || fail "no facts gathered"
	[ -z "$bad" ] || fail "disagreements:$bad"
}

@test "examine's super offset matches mdadm --examine's for every 1.x member" {
	local bad
	# 0.90's examine has no Super Offset line: those members are not asked
	bad=$(member_facts_against '
		FILENAME ~ /examine-[0-9]+\.txt$/ && /^ *Super Offset : [0-9]+ sectors/ {
			set = FILENAME; sub(/\/examine-[0-9]+\.txt$/, "", set); sub(/.*\//, "", set)
			n = FILENAME; sub(/.*examine-/, "", n); sub(/\.txt$/, "", n)
			v = $0; sub(/^ *Super Offset : /, "", v); sub(/ .*/, "", v)
			want[set "/" n, "super"] = v
			next
		}' "$TOP"/tests/fixtures/*/examine-*.txt)
	[ -z "$bad" ] || fail "super offsets differ:$bad"
}

@test "examine prints mdadm's field names and a correct checksum" {
	run stripe-examine $(members r5-4d-64k-ls-1.2)
	assert_success
	for f in Magic Version "Feature Map" "Array UUID" Name "Creation Time" "Raid Level" \
		"Raid Devices" "Avail Dev Size" "Array Size" "Data Offset" "Super Offset" State \
		"Device UUID" "Update Time" "Bad Block Log" Checksum Events Layout "Chunk Size" \
		"Device Role" "Array State"; do
		assert_output --partial "$f : "
	done
	assert_output --partial "- correct"
	assert_output --partial "Layout : left-symmetric"
	assert_output --partial "Array State : AAAA"
}

@test "examine shows the same checksum as mdadm --examine" {
	local want
	want=$(sed -n 's/^ *Checksum : \([0-9a-f]*\) - correct/\1/p' "$TOP/tests/fixtures/r6-5d-64k-ls-1.2/examine-2.txt")
	run stripe-examine "$FIX/r6-5d-64k-ls-1.2/member2.img"
	assert_output --partial "Checksum : $want - correct"
}

@test "examine of the degraded set names the stale member and exits 1" {
	run stripe-examine $(members r5-4d-degraded)
	assert_failure 1
	assert_output --regexp "Left out : .*member2.img: stale: events 21, the array is at 28"
	assert_output --partial "State : clean, degraded"
}

@test "examine's array state is the one mdadm --detail gave every fixture set" {
	local set bad="" want got i=0
	for set in $(all_sets); do
		[ -f "$TOP/tests/fixtures/$set/detail.txt" ] || continue
		in_plain_suite || in_sample $((i++)) 2 || continue
		want=$(sed -n 's/^ *State : \(.*[^ ]\) *$/\1/p' "$TOP/tests/fixtures/$set/detail.txt")
		got=$(stripe-examine -q $(members "$set") | sed -n 's/^ *State : //p')
		[ "$got" = "$want" ] || bad+=" $set($got, md: $want)"
	done
	swept
	[ -z "$bad" ] || fail "differs for:$bad"
}

# dirty DIR SET: a copy of SET in DIR whose superblocks say a resync is
# needed from sector 1000, as after a write that was killed; members in M.
dirty() {
	local i
	mkdir -p "$1"
	cp "$FIX/$2"/member*.img "$1/"
	M=($(in_role_order "$1"/member*.img))
	for i in "${!M[@]}"; do "$TTOOLS/sb-patch" "${M[$i]}" 208 8 1000; done
}

@test "examine calls a whole array that needs a resync active, as md does, not failed" {
	dirty "$BATS_TEST_TMPDIR/a" r5-4d-64k-ls-1.2
	run stripe-examine -q "${M[@]}"
	assert_success
	assert_output --regexp $'\n +State : active\n'
}

@test "examine --json and --export word a whole array that needs a resync as md does" {
	dirty "$BATS_TEST_TMPDIR/a" r5-4d-64k-ls-1.2
	run stripe-examine --json "${M[@]}"
	assert_success
	[ "$(jq -c '.array | [.state, .md_state, .needs_resync]' <<<"$output")" = '["active","active",true]' ] ||
		fail "$output"
	run stripe-examine --export "${M[@]}"
	eval "$output"
	[ "$STRIPE_STATE" = active ] && [ "$STRIPE_MD_STATE" = active ] && [ "$STRIPE_NEEDS_RESYNC" = 1 ] ||
		fail "$output"
}

@test "examine calls a degraded array that needs a resync active, degraded" {
	dirty "$BATS_TEST_TMPDIR/a" r5-4d-64k-ls-1.2
	run stripe-examine --json "${M[0]}" "${M[1]}" "${M[3]}"
	assert_failure 1
	[ "$(jq -c '.array | [.state, .md_state, .needs_resync]' <<<"$output")" = '["degraded","active, degraded",true]' ] ||
		fail "$output"
	run stripe-examine -q "${M[0]}" "${M[1]}" "${M[3]}"
	assert_output --partial "State : active, degraded"
}

@test "examine --export of a clean array says it needs no resync" {
	run stripe-examine --export $(members r5-4d-64k-ls-1.2)
	assert_success
	eval "$output"
	[ "$STRIPE_STATE" = clean ] && [ "$STRIPE_MD_STATE" = clean ] && [ "$STRIPE_NEEDS_RESYNC" = 0 ] ||
		fail "$output"
}

@test "examine --json of the degraded set lists the stale member with its reason" {
	run stripe-examine --json $(members r5-4d-degraded)
	assert_failure 1
	[ "$(jq -r .array.state <<<"$output")" = degraded ]
	[ "$(jq -r '.array.roles[2].path' <<<"$output")" = null ]
	[ "$(jq -r '.array.left_out[0].state' <<<"$output")" = stale ]
	[ "$(jq -r .format <<<"$output")" = 1 ]
	[ "$(jq -r .tool <<<"$output")" = stripe-examine ]
}

@test "examine --export gives shell assignments that eval cleanly" {
	run stripe-examine --export $(members r6-5d-64k-ls-1.2)
	assert_success
	eval "$output"
	[ "$STRIPE_LEVEL" = raid6 ]
	[ "$STRIPE_RAID_DEVICES" = 5 ]
	[ "$STRIPE_CHUNK_BYTES" = 65536 ]
	[ "$STRIPE_SIZE_BYTES" = "$(manifest r6-5d-64k-ls-1.2 array_size_bytes)" ]
	[ "$STRIPE_ROLE_0" = "$FIX/r6-5d-64k-ls-1.2/member0.img" ]
}

@test "examine shows the internal bitmap of the bitmap set" {
	run stripe-examine $(members r5-4d-bitmap-1.2)
	assert_success
	assert_output --partial "Internal Bitmap : 8 sectors from superblock"
	assert_output --regexp "Bitmap : [0-9]+ bits \(chunks\), 0 dirty"
}

@test "examine reads a 0.90 superblock and lists the array's roles" {
	run stripe-examine $(members r1-3d-0.90)
	assert_success
	assert_output --partial "Version : 0.90.00"
	assert_output --partial "Raid Level : raid1"
	assert_output --regexp "this +1 +254 +16 +1 +active sync +$FIX/r1-3d-0.90/member1.img"
	assert_output --partial "Role 2 : $FIX/r1-3d-0.90/member2.img"
}

@test "examine reads util-linux's md test images (0.90 raid1 member, 1.2 raid0 of one)" {
	local d=$BATS_TEST_TMPDIR
	xz -dc "$TOP/tests/fixtures/util-linux/mdraid.img.xz" > "$d/mdraid.img"
	xz -dc "$TOP/tests/fixtures/util-linux/mdraid-1.img.xz" > "$d/mdraid-1.img"
	run stripe-examine --json "$d/mdraid.img"
	[ "$(jq -r '.members[0].metadata' <<<"$output")" = 0.90 ]
	[ "$(jq -r '.members[0].level' <<<"$output")" = raid1 ]
	[ "$(jq -r '.members[0].used_dev_size_sectors' <<<"$output")" = 20352 ]
	run stripe-examine --json "$d/mdraid-1.img"
	assert_success
	[ "$(jq -r '.members[0].metadata' <<<"$output")" = 1.2 ]
	[ "$(jq -r '.members[0].data_offset_sectors' <<<"$output")" = 4096 ]
	[ "$(jq -r '.array.chunk_size_bytes' <<<"$output")" = 524288 ]
}

@test "examine prints the same field lines as mdadm --examine for every fixture member, Unused Space included" {
	local F='^ *(Magic|Version|Feature Map|Array UUID|Raid Level|Raid Devices|Avail Dev Size|Array Size|Used Dev Size|Data Offset|Super Offset|Unused Space|State|Device UUID|Checksum|Events|Layout|Chunk Size|Device Role|Array State|Bad Block Log|Recovery Offset|Resync Offset|Total Devices|Active Devices|Working Devices|Failed Devices|Spare Devices) :'
	local d set f files imgs bad=""
	local i=0
	for d in "$TOP"/tests/fixtures/*/; do
		# the sanitized run compares a sample (the plain run every set)
		in_plain_suite || in_sample $((i++)) 2 || continue
		set=${d%/} set=${set##*/}
		files=() imgs=()
		for f in "$d"examine-*.txt; do
			[ -f "$f" ] || continue
			files+=("$f")
			f=${f##*-}
			imgs+=("$FIX/$set/member${f%.txt}.img")
		done
		[ ${#files[@]} -gt 0 ] || continue
		# one stripe-examine a set: each member's section (from its
		# "PATH:" line to the next) against the field lines of md's
		# --examine of it, as many as md printed
		bad+=$(stripe-examine "${imgs[@]}" 2>&1 | awk -v F="$F" -v set="$set" '
			FNR == 1 { n = FILENAME; sub(/.*-/, "", n); sub(/\.txt$/, "", n) }
			FILENAME != "-" && FNR > 1 && $0 ~ F { want[n, ++nwant[n]] = $0 }
			FILENAME != "-" { next }
			/^[^ ].*:$/ { m = ""; if (match($0, /member[0-9]+\.img:$/)) m = substr($0, RSTART + 6, RLENGTH - 11); next }
			m != "" && $0 ~ F && ngot[m] < nwant[m] { got[m, ++ngot[m]] = $0 }
			END {
				for (k in nwant) {
					same = ngot[k] == nwant[k]
					for (i = 1; same && i <= nwant[k]; i++) same = want[k, i] == got[k, i]
					if (!same) printf " %s/%s", set, k
				}
			}' "${files[@]}" -)
	done
	swept
	[ -z "$bad" ] || fail "differs from mdadm --examine:$bad"
}
