#!/usr/bin/env bats
# The hostile-input catalogue (issue #19): member sets made by md, each with
# one superblock field, bitmap header field or bad-block log entry made
# hostile, handed to every tool.  A set md would not start is refused: exit
# 2, one line on stderr naming the member and the problem, no member byte
# changed and no file left behind.  A value md accepts too is read right:
# the bytes md read from the array (the MANIFEST's array_sha256).

bats_require_minimum_version 1.5.0
load helpers

setup_file() {
	fixtures_ready
}

setup() {
	# every other case in the plain run, one in six of the others in the
	# sanitized run: the fuzzers (tests/fuzz) run these paths under ASan
	# and UBSan with far more hostile inputs on every make check
	case_sample 6 2
	D=$BATS_TEST_TMPDIR
	OUT=$D/out.img NEW=$D/new.img MNT=$D/mnt SUMS=
	# each tool as the words before its members
	READERS=(stripe-examine "stripe-read -o $OUT" "stripe-check --progress none" map_read_only)
	WRITERS=("stripe-check --progress none --repair" "stripe-write --progress none -i /dev/null"
		"stripe-rebuild --progress none --spare $NEW"
		"stripe-bench -q -s 1M --seeks 0 --char-size 0 --array" map_read_write)
	SCRIPTS=("stripe-verify -q" "stripe-recover -q --spare $NEW")
}

teardown() {
	if [ -d "$MNT" ] && mountpoint -q "$MNT"; then fusermount3 -u "$MNT"; fi
}

# stripe-map takes its mountpoint after the members; refused, it mounts
# nothing, so it needs no FUSE.  Should it mount, teardown unmounts.  (The
# mountpoint is made here, as few cases ask stripe-map: two processes less
# a case.)
map_read_only() {
	mkdir -p "$MNT"
	stripe-map -r "$@" "$MNT"
}

map_read_write() {
	mkdir -p "$MNT"
	stripe-map "$@" "$MNT"
}

# hostile SET: a writable copy of SET's members, in M (role order).
hostile() {
	SET=$1
	mapfile -t M < <(copy_set "$1")
}

# field N BYTE WIDTH VALUE: one superblock field of member N (byte offset
# in the superblock), its checksum made right again.
field() {
	"$TTOOLS/sb-patch" "${M[$1]}" "$2" "$3" "$4"
}

# every_field BYTE WIDTH VALUE: that field in every member.
every_field() {
	local i
	for i in "${!M[@]}"; do field "$i" "$@"; done
}

# poke N AT WIDTH VALUE: little-endian bytes at byte AT of member N (a
# bitmap header or a bad-block log entry: no checksum covers them).
poke() {
	local at=$2 width=$3 value=$4 i byte bytes=""
	# printf -v: a command substitution would fork once a byte
	for ((i = 0; i < width; i++)); do
		printf -v byte '\\x%02x' $(((value >> (8 * i)) & 255))
		bytes+=$byte
	done
	printf "$bytes" | dd of="${M[$1]}" bs=1 seek="$at" conv=notrunc status=none
}

# every_poke AT WIDTH VALUE: those bytes in every member.
every_poke() {
	local i
	for i in "${!M[@]}"; do poke "$i" "$@"; done
}

# sums_taken / unchanged: the members' sha256 sums, taken once a test has
# made them hostile (at its first question to a tool), and a failure when
# they differ from that later.  Hashing is most of a case's time: each
# case hashes its members once, and once more after each question.
sums_taken() {
	[ -n "${SUMS:-}" ] || SUMS=$(sha "${M[@]}")
}

unchanged() {
	[ "$SUMS" = "$(sha "${M[@]}")" ] || fail "a member changed"
}

# quick_run WORD...: runs a tool as bats' run would, into status, output and
# stderr, without run's cost (some 80 ms a call here, hundreds of calls).
quick_run() {
	status=0
	"$@" < /dev/null > "$D/stdout" 2> "$D/stderr" || status=$?
	output=$(< "$D/stdout") stderr=$(< "$D/stderr")
}

# refused WHO PATTERN [TOOL...]: each TOOL (default: a reader and a
# writer) run on the members exits 2 with one line on stderr, which names
# the member WHO and matches PATTERN; no member changed, and neither the
# output nor the replacement file was made.  Of more than two tools, every
# other one is asked (in_sample; another half in the next case, all under
# make check-full): they refuse through one path, cli_open_array.
refused() {
	local who=$1 pattern=$2 tool words k=0
	shift 2
	[ $# -gt 0 ] || set -- "${READERS[1]}" "${WRITERS[1]}"
	sums_taken
	for tool in "$@"; do
		[ $# -le 2 ] || in_sample $((k++ + BATS_TEST_NUMBER)) 2 || continue
		read -ra words <<<"$tool"
		quick_run "${words[@]}" "${M[@]}"
		[ "$status" -eq 2 ] || fail "$tool exited $status, expected 2; stderr: $stderr"
		[ "$(grep -c . <<<"$stderr")" -eq 1 ] || fail "$tool said more or less than one line: $stderr"
		[[ $stderr == stripe-*": "*"$who"* ]] || fail "$tool: stderr does not name $who: $stderr"
		[[ $stderr =~ $pattern ]] || fail "$tool: stderr does not match /$pattern/: $stderr"
		[ ! -e "$OUT" ] && [ ! -e "$NEW" ] || fail "$tool left a file behind"
	done
	unchanged
	swept
}

# refused_everywhere WHO PATTERN: refused by every tool, reading or
# writing.  Every tool opens its members the same way (cli_open_array),
# so the cases that reach that path each in its own place ask them all.
refused_everywhere() {
	refused "$1" "$2" "${READERS[@]}" "${WRITERS[@]}"
}

# refused_by_writers WHO PATTERN: refused by every tool that writes.
refused_by_writers() {
	refused "$1" "$2" "${WRITERS[@]}"
}

# refused_by_scripts WHO PATTERN: the runbooks in tools/ refuse it too.
refused_by_scripts() {
	refused "$1" "$2" "${SCRIPTS[@]}"
}

# reads_right [PATTERN]: stripe-read of the members exits 0, gives the
# bytes md read from the array, and says on stderr what matches PATTERN
# (without one: nothing); no member changed.
reads_right() {
	local want=${1:-^$}
	sums_taken
	quick_run stripe-read -o "$OUT" "${M[@]}"
	[ "$status" -eq 0 ] || fail "stripe-read exited $status; stderr: $stderr"
	[[ $stderr =~ $want ]] || fail "stripe-read's stderr does not match /$want/: $stderr"
	[ "$(sha "$OUT")" = "$(manifest "$SET" array_sha256)" ] || fail "stripe-read gave other bytes than md"
	unchanged
	rm -f "$OUT"
}

# examined STATUS [PATTERN]: stripe-examine exits STATUS, and says on
# stderr one line matching PATTERN (without one: nothing); no member
# changed.
examined() {
	sums_taken
	quick_run stripe-examine -v "${M[@]}"
	[ "$status" -eq "$1" ] || fail "stripe-examine exited $status, expected $1; stderr: $stderr"
	if [ $# -gt 1 ]; then
		[ "$(grep -c . <<<"$stderr")" -eq 1 ] || fail "stripe-examine said more or less than one line: $stderr"
		[[ $stderr =~ $2 ]] || fail "stderr does not match /$2/: $stderr"
	else
		[ -z "$stderr" ] || fail "stripe-examine said: $stderr"
	fi
	unchanged
}

# v1.x superblock (offsets of struct mdp_superblock_1)

@test "1.2: raid level 7 is refused by every tool" {
	hostile r5-4d-64k-ls-1.2
	every_field 72 4 7
	refused_everywhere member0.img "raid level 7 is not supported"
}

@test "1.2: the multipath level (-4) is refused" {
	hostile r1-2d-1.2
	every_field 72 4 0xfffffffc
	refused member0.img "raid level -4 is not supported"
}

@test "1.2: a raid5 layout md does not know is refused" {
	hostile r5-4d-64k-ls-1.2
	every_field 76 4 99
	refused member0.img "raid5 layout 99 is not one md knows"
}

@test "1.2: a raid10 layout of more copies than members is refused" {
	hostile r10-4d-n2-1.2
	every_field 76 4 0x105
	refused member0.img "raid10 layout 0x105 gives 5 copies; md wants 2..4"
}

@test "1.2: raid_disks 0 is refused" {
	hostile r5-4d-64k-ls-1.2
	every_field 92 4 0
	refused member0.img "0 raid devices; stripe handles 1 to 256"
}

@test "1.2: raid_disks 257 is refused by every tool" {
	hostile r5-4d-64k-ls-1.2
	every_field 92 4 257
	refused_everywhere member0.img "257 raid devices; stripe handles 1 to 256"
}

@test "1.2: a raid6 of three raid devices is refused" {
	hostile r6-5d-64k-ls-1.2
	every_field 92 4 3
	refused member0.img "raid6"
}

@test "1.2: a raid5 chunk of 0 sectors is refused" {
	hostile r5-4d-64k-ls-1.2
	every_field 88 4 0
	refused member0.img "chunk of 0 sectors"
}

@test "1.2: a component size beyond the member's data area is refused, not read past it" {
	hostile r5-4d-64k-ls-1.2
	field 0 80 8 99999999
	refused_everywhere member0.img "room for 14336 data sectors, less than the component size of 99999999"
}

@test "1.2: a data area smaller than the component size is refused by every tool" {
	hostile r5-4d-64k-ls-1.2
	field 1 136 8 100
	refused_everywhere member1.img "room for 100 data sectors, less than the component size of 14336"
}

@test "1.2: a data_size below 10 sectors is refused" {
	hostile r5-4d-64k-ls-1.2
	field 2 136 8 5
	refused member2.img "data_size 5 sectors, expected at least 10"
}

@test "1.2: a data_offset of 0, under the superblock, is refused" {
	hostile r5-4d-64k-ls-1.2
	field 3 128 8 0
	refused member3.img "data_offset 0 overlaps the superblock"
}

@test "1.2: a data_offset that wraps with data_size is refused" {
	hostile r5-4d-64k-ls-1.2
	field 1 128 8 0xfffffffffffff000
	refused member1.img "runs past the end of the device"
}

@test "1.2: a super_offset other than where the superblock is is refused by every tool" {
	hostile r5-4d-64k-ls-1.2
	field 1 144 8 0
	refused_everywhere member1.img "super_offset 0, but the superblock is at sector 8"
}

@test "1.2: reserved padding that is not zero is refused" {
	hostile r5-4d-64k-ls-1.2
	field 2 12 4 1
	refused member2.img "reserved superblock padding is not zero"
}

@test "1.2: the raid0 layout feature on a raid5 is refused" {
	hostile r5-4d-64k-ls-1.2
	field 0 8 4 0x1000
	refused member0.img "RAID0 layout feature on a level 5 array"
}

@test "1.2: a reshape in progress is refused in one line by every tool" {
	hostile r5-4d-64k-ls-1.2
	every_field 104 8 4096
	every_field 8 4 4
	refused_everywhere member0.img "a reshape is in progress; stripe does not implement reshape"
}

@test "1.2: one member that says a reshape is in progress is named in the refusal" {
	hostile r5-4d-64k-ls-1.2
	field 2 8 4 4
	refused member2.img "a reshape is in progress"
}

@test "1.2: a reshape in progress is refused by the runbooks too" {
	hostile r5-4d-64k-ls-1.2
	every_field 8 4 4
	refused_by_scripts member0.img "a reshape is in progress"
}

@test "1.2: reshape fields without a reshape in progress are md's to ignore; the data reads right" {
	hostile r5-4d-64k-ls-1.2
	every_field 100 4 6
	every_field 104 8 0xffffffffffffffff
	every_field 112 4 0xffffffff
	every_field 120 4 0
	reads_right
	examined 0
}

@test "1.2: a reshape's hostile fields are shown as they are" {
	hostile r5-4d-64k-ls-1.2
	every_field 8 4 0x24
	every_field 104 8 0xffffffffffffffff
	every_field 112 4 0x80000000
	every_field 100 4 0x7fffffff
	every_field 116 4 0xffffffff
	every_field 120 4 0xffffffff
	refused member0.img "a reshape is in progress" stripe-examine
	quick_run stripe-examine "${M[0]}"
	assert_output --regexp $'Reshape pos\'n : 9223372036854775807\n'
	assert_output --partial "Delta Devices : -2147483648 (2147483652->4)"
	assert_output --partial "New Level : unknown"
	assert_output --partial "New Chunksize : 2147483647K"
	assert_output --partial "Direction : backwards"
}

@test "1.2: a write-intent bitmap placed in the data area is refused by every tool" {
	hostile r5-4d-bitmap-1.2
	every_field 96 4 2040
	refused member0.img "its write-intent bitmap at sector 2048 lies in the data the array uses \(sectors 2048 to 16384\)" \
		"${READERS[@]:1}" "${WRITERS[@]}"
}

@test "1.2: write-mostly and a count of corrected reads change nothing read" {
	hostile r5-4d-64k-ls-1.2
	field 1 184 1 1
	field 2 164 4 0xffffffff
	reads_right
	examined 0
}

@test "1.2: a write journal is refused in one line by every tool, reads included" {
	hostile r5-4d-64k-ls-1.2
	every_field 8 4 0x200
	refused_everywhere member0.img "the array keeps a write journal; stripe does not implement journals"
}

@test "1.2: a partial parity log is refused in one line by every tool, reads included" {
	hostile r5-4d-64k-ls-1.2
	every_field 8 4 0x400
	refused_everywhere member0.img "the array keeps a partial parity log; stripe does not implement partial parity logs"
}

@test "1.2: a clustered array is refused in one line by every tool, reads included" {
	hostile r5-4d-64k-ls-1.2
	every_field 8 4 0x100
	refused_everywhere member0.img "the array is clustered; stripe does not implement clustered arrays"
}

@test "1.2: one member that keeps a write journal is named in the runbooks' refusal" {
	hostile r5-4d-64k-ls-1.2
	field 3 8 4 0x200
	refused_by_scripts member3.img "keeps a write journal"
}

@test "1.2: stripe-examine shows each state it refuses under md's names" {
	hostile r5-4d-64k-ls-1.2
	field 0 8 4 0x200
	field 1 8 4 0x500
	refused member0.img "write journal" stripe-examine "stripe-examine --json"
	quick_run stripe-examine "${M[@]}"
	[[ $output == *"member0.img:"*"Unsupported : journal"*"member1.img:"*"Unsupported : clustered, ppl"* ]] ||
		[[ $output == *"member0.img:"*"Unsupported : journal"*"member1.img:"*"Unsupported : ppl, clustered"* ]] ||
		fail "$output"
	quick_run stripe-examine --json "${M[@]}"
	[ "$(jq -c '[.members[].unsupported]' <<<"$output")" = '[["journal"],["ppl","clustered"],null,null]' ] ||
		fail "$output"
	[ "$(jq -r .array <<<"$output")" = null ] || fail "an array was shown: $output"
}

@test "1.2: stripe-examine shows a reshape's fields as mdadm --examine names them" {
	hostile r5-4d-64k-ls-1.2
	# 4 -> 5 devices, to raid6 left-symmetric with 128K chunks, the data
	# moving 1024 sectors back; 4096 sectors reshaped
	every_field 8 4 0x44
	every_field 104 8 4096
	every_field 112 4 1
	every_field 100 4 6
	every_field 116 4 2
	every_field 120 4 256
	every_field 124 4 0xfffffc00
	refused member0.img "a reshape is in progress" stripe-examine
	quick_run stripe-examine "${M[0]}"
	assert_output --partial "Unsupported : reshape"
	assert_output --partial "Reshape pos'n : 2048"
	assert_output --partial "Delta Devices : 1 (3->4)"
	assert_output --partial "New Level : raid6"
	assert_output --partial "New Layout : left-symmetric"
	assert_output --partial "New Chunksize : 128K"
	assert_output --partial "New Offset : 1024 sectors"
	quick_run stripe-examine --json "${M[0]}"
	[ "$(jq -c .members[0].reshape <<<"$output")" = \
		'{"position_sectors":4096,"delta_disks":1,"new_level":"raid6","new_layout":2,"new_layout_name":"left-symmetric","new_chunk_bytes":131072,"new_offset_sectors":-1024,"backwards":false}' ] ||
		fail "$output"
}

@test "1.2: events of 2^64-1 on one member are named as at their limit, refused in one line" {
	hostile r5-4d-64k-ls-1.2
	field 0 200 8 0xffffffffffffffff
	# stripe-examine shows such an array as failed: exit 1, not a refusal
	refused member0.img "events at their limit \(2\^64-1\), a count md never reaches, so roles 1, 2, 3 of the raid5 array are left out as stale; 1 present, cannot read it; if its superblock is damaged, name the members without it" \
		"${READERS[@]:1}" "${WRITERS[@]}"
	examined 1
	quick_run stripe-examine "${M[@]}"
	assert_output --partial "Left out : ${M[1]}: stale: events 37, behind ${M[0]}, whose events are at their limit (2^64-1)"
	assert_output --partial "State : clean, FAILED"
}

@test "1.2: without the member whose events are at their limit the array reads degraded" {
	hostile r5-4d-64k-ls-1.2
	field 0 200 8 0xffffffffffffffff
	M=("${M[@]:1}")
	reads_right "^stripe-read: degraded: 3 drives \\(out of 4\\) in sync; role 0 served from parity$"
}

@test "1.2: events of 2^64-1 on every member make no member stale; the data reads right" {
	hostile r5-4d-64k-ls-1.2
	every_field 200 8 0xffffffffffffffff
	reads_right
	examined 0
}

@test "1.2: events of 0 make a stale member, left out; the data reads right" {
	hostile r5-4d-64k-ls-1.2
	field 3 200 8 0
	reads_right "^stripe-read: .*member3.img: left out: stale: events 0, the array is at 37"
	examined 1
}

@test "1.2: events one ahead on one member are md's tolerance; no member is left out" {
	hostile r5-4d-64k-ls-1.2
	field 0 200 8 38
	reads_right
	examined 0
}

@test "1.2: a resync_offset inside the array marks it dirty; the data reads right" {
	hostile r5-4d-64k-ls-1.2
	every_field 208 8 1000
	reads_right
}

@test "1.2: a recovery_offset of 2^64-1 on a member being rebuilt leaves it out; the data reads right" {
	hostile r5-4d-64k-ls-1.2
	field 2 152 8 0xffffffffffffffff
	field 2 8 4 2
	reads_right "member2.img: left out: rebuilding: role 2 recovered up to sector 18446744073709551615 only"
}

@test "1.2: a dev_number past max_dev makes a spare; the data reads right" {
	hostile r5-4d-64k-ls-1.2
	field 1 160 4 500
	reads_right "member1.img: left out: spare: holds no role"
}

@test "1.2: a role of 60000 within 4 raid devices makes a spare; the data reads right" {
	hostile r5-4d-64k-ls-1.2
	# member2's own entry in its table (dev_number 2)
	field 2 260 2 60000
	reads_right "member2.img: left out: spare: holds no role"
}

@test "1.2: a role table marking a member faulty leaves it out; the data reads right" {
	hostile r5-4d-64k-ls-1.2
	field 0 258 2 0xfffe
	field 0 200 8 38
	reads_right "member1.img: left out: faulty: the array marked device 1 failed"
}

@test "1.2: max_dev 0 leaves no role table: that member is a spare; the data reads right" {
	hostile r5-4d-64k-ls-1.2
	field 3 220 4 0
	reads_right "member3.img: left out: spare: holds no role"
}

@test "1.2: an array name of quotes, control and non-UTF-8 bytes is shown escaped, on one line and in valid JSON" {
	hostile r5-4d-64k-ls-1.2
	# the name's first 8 bytes: " \ newline 0x01 0x7f 0xff $ (
	every_field 32 8 0x2824ff7f010a5c22
	examined 0
	[[ $output == *$'\n           Name : "\\x5c\\x0a\\x01\\x7f\\xff$(\n'* ]] || fail "$output"
	quick_run stripe-examine --json "${M[@]}"
	[ "$status" -eq 0 ] || fail "stripe-examine --json exited $status: $stderr"
	! LC_ALL=C grep -q $'[\x80-\xff]' "$D/stdout" || fail "the JSON holds bytes that are not UTF-8"
	[ "$(jq -r '.members[3].name' "$D/stdout")" = '"\x5c\x0a\x01\x7f\xff$(' ] || fail "$(< "$D/stdout")"
}

# v1.0 superblock: at the end of the member

@test "1.0: a data area reaching into the superblock is refused by every tool" {
	hostile r5-4d-64k-rs-1.0
	field 1 136 8 16369
	refused_everywhere member1.img "overlaps the superblock at sector 16368"
}

@test "1.0: a component size past every member's data area is refused by every tool" {
	hostile r5-4d-64k-rs-1.0
	every_field 80 8 16360
	refused_everywhere member0.img "room for 16352 data sectors, less than the component size of 16360"
}

@test "1.0: a data area reaching the bad-block log, the component clear of it, reads right; the log is shown unreadable" {
	hostile r5-4d-64k-rs-1.0
	field 2 136 8 16368
	reads_right
	examined 1 "member2.img: bad-block log at sector 16360 \(8 sectors\) lies in the data area"
}

@test "1.0: a super_offset other than where the superblock is is refused" {
	hostile r6-4d-64k-1.0
	field 3 144 8 16360
	refused member3.img "super_offset 16360, but the superblock is at sector 16368"
}

@test "1.0: a reshape in progress on a raid6 is refused" {
	hostile r6-4d-64k-1.0
	every_field 8 4 4
	refused member0.img "a reshape is in progress"
}

@test "1.0: a bad-block log past the end of the device is shown unreadable; the data reads right" {
	hostile r5-4d-64k-rs-1.0
	field 0 188 4 16
	examined 1 "member0.img: bad-block log at sector 16384 \(8 sectors\) runs past the end of the device"
	reads_right
}

# v0.90 superblock (32-bit words; byte offsets here)

@test "0.90: minor version 91, a reshape in progress, is refused by every tool" {
	hostile r5-3d-512k-ls-0.90
	every_field 8 4 91
	refused_everywhere member0.img "a reshape is in progress; stripe does not implement reshape"
}

@test "0.90: stripe-examine shows a 0.91 reshape's fields" {
	hostile r5-3d-512k-ls-0.90
	# 2 -> 3 devices, to raid6 left-symmetric with 128K chunks; 4096
	# sectors reshaped
	every_field 8 4 91
	every_field 176 8 4096
	every_field 184 4 6
	every_field 188 4 1
	every_field 192 4 2
	every_field 196 4 131072
	refused member0.img "a reshape is in progress" stripe-examine
	quick_run stripe-examine "${M[0]}"
	assert_output --partial "Unsupported : reshape"
	assert_output --partial "Reshape pos'n : 2048"
	assert_output --partial "Delta Devices : 1 (2->3)"
	assert_output --partial "New Level : raid6"
	assert_output --partial "New Layout : left-symmetric"
	assert_output --partial "New Chunksize : 128K"
	refute_output --partial "New Offset"
}

@test "0.90: minor version 89 is refused" {
	hostile r1-3d-0.90
	field 1 8 4 89
	refused member1.img "version 0.89, expected 0.90 or 0.91"
}

@test "0.90: 28 raid disks, more than its table holds, are refused" {
	hostile r1-3d-0.90
	field 2 40 4 28
	refused member2.img "28 raid disks, 0.90 metadata holds at most 27"
}

@test "0.90: a this_disk number past the table is refused by every tool" {
	hostile r5-3d-512k-ls-0.90
	field 1 3968 4 30
	refused_everywhere member1.img "this disk's number 30 is out of range"
}

@test "0.90: a component size past the superblock is refused" {
	hostile r5-3d-512k-ls-0.90
	field 2 32 4 8192
	refused member2.img "component size 8192 KiB runs past the superblock"
}

@test "0.90: a component size of 0 is refused" {
	hostile r5-3d-512k-ls-0.90
	every_field 32 4 0
	refused member0.img "component of 0 sectors holds no whole chunk"
}

@test "0.90: a chunk of 1000 bytes is refused" {
	hostile r5-3d-512k-ls-0.90
	every_field 260 4 1000
	refused member0.img "chunk of 1 sectors: md wants a power of two"
}

@test "0.90: a raid5 layout md does not know is refused" {
	hostile r5-3d-512k-ls-0.90
	every_field 256 4 7
	refused member0.img "raid5 layout 7 is not one md knows"
}

@test "0.90: raid level 3 is refused" {
	hostile r1-3d-0.90
	every_field 28 4 3
	refused member0.img "raid level 3 is not supported"
}

@test "0.90: disk counts md does not check (nr, active, working, failed) change nothing read" {
	hostile r5-3d-512k-ls-0.90
	field 1 36 4 99
	field 1 136 4 7
	field 1 140 4 9
	field 1 144 4 5
	reads_right
	examined 0
}

@test "0.90: a disk table entry marked faulty leaves that member out; the data reads right" {
	hostile r1-3d-0.90
	# disk 0's state word (disks[0] at word 128, state its fifth) in
	# every member, one event on
	every_field 528 4 1
	every_field 156 4 25
	reads_right "member0.img: left out: faulty: the array marked device 0 failed"
}

@test "0.90: roles come from each member's own table of disks, as md takes them, not from this_disk" {
	hostile r5-3d-512k-ls-0.90
	# this_disk's raid_disk word (this_disk at word 992, raid_disk its
	# fourth) swapped between members 1 and 2
	field 1 3980 4 2
	field 2 3980 4 1
	reads_right
	examined 0
}

@test "0.90: two members in sync that claim one device number are refused by every tool" {
	hostile r1-3d-0.90
	# member2 says it is device 1 (this_disk's number) and that device 1
	# holds role 2 (its own disks[1], raid_disk word): md binds one device
	# to a number
	field 2 3968 4 1
	field 2 652 4 2
	refused_everywhere member2.img "member1.img and .*member2.img: both claim device number 1"
}

@test "0.90: a role past the table of disks makes a spare; the data reads right" {
	hostile r5-3d-512k-ls-0.90
	# member1's own entry (disks[1] at word 160), its raid_disk word
	field 1 652 4 0xfffffffd
	reads_right "member1.img: left out: spare: holds no role"
}

@test "0.90: events of 0 make a stale member; the data reads right" {
	hostile r1-3d-0.90
	field 2 156 4 0
	reads_right "member2.img: left out: stale: events 0"
}

# the write-intent bitmap header (1.2: byte 8192 of each member)

# bitmap_unreadable PATTERN: stripe-examine shows every member's bitmap
# unreadable (exit 1), the data still reads right (reads need no bitmap),
# and a rebuild, which would copy the bitmap, is refused before it writes.
bitmap_unreadable() {
	sums_taken
	quick_run stripe-examine "${M[@]}"
	[ "$status" -eq 1 ] || fail "stripe-examine exited $status; stderr: $stderr"
	[ "$(grep -c "$1" <<<"$stderr")" -eq 4 ] || fail "stripe-examine: $stderr"
	reads_right
	quick_run stripe-rebuild --progress none -q --replace 0="$NEW" "${M[@]:1}"
	[ "$status" -eq 2 ] || fail "stripe-rebuild exited $status; stderr: $stderr"
	[ "$(grep -c . <<<"$stderr")" -eq 1 ] || fail "stripe-rebuild said: $stderr"
	[[ $stderr == "stripe-rebuild: ${M[1]}: "*"$1"* ]] || fail "stripe-rebuild: $stderr"
	[ ! -e "$NEW" ] || fail "stripe-rebuild left $NEW behind"
	unchanged
}

@test "bitmap: a bad magic is shown unreadable and a rebuild is refused with no file left" {
	hostile r5-4d-bitmap-1.2
	every_poke 8192 4 0
	bitmap_unreadable "bitmap magic 0x00000000 at sector 16"
}

@test "bitmap: version 9 is shown unreadable" {
	hostile r5-4d-bitmap-1.2
	every_poke 8196 4 9
	bitmap_unreadable "bitmap version 9 at sector 16, md knows 3 to 5"
}

@test "bitmap: a chunk size of 0 is shown unreadable" {
	hostile r5-4d-bitmap-1.2
	every_poke 8244 4 0
	bitmap_unreadable "bitmap chunk size 0 bytes is not a power of two"
}

@test "bitmap: a chunk size that is not a power of two is shown unreadable" {
	hostile r5-4d-bitmap-1.2
	every_poke 8244 4 1000
	bitmap_unreadable "bitmap chunk size 1000 bytes is not a power of two"
}

@test "bitmap: a daemon sleep of 0 is shown unreadable" {
	hostile r5-4d-bitmap-1.2
	every_poke 8248 4 0
	bitmap_unreadable "bitmap daemon sleep of 0 seconds, md wants at least 1"
}

@test "bitmap: a write-behind limit over 16383 is shown unreadable" {
	hostile r5-4d-bitmap-1.2
	every_poke 8252 4 16384
	bitmap_unreadable "bitmap write-behind limit 16384, md allows 0 to 16383"
}

@test "bitmap: a sync_size past the device is shown unreadable" {
	hostile r5-4d-bitmap-1.2
	every_poke 8232 8 16385
	bitmap_unreadable "bitmap covers 16385 sectors, more than the device's 16384"
}

@test "bitmap: an offset that puts it past the end of the device is shown unreadable" {
	hostile r5-4d-bitmap-1.2
	every_field 96 4 0x7fffffff
	bitmap_unreadable "runs past the end of the device"
}

@test "bitmap: an offset that puts it before the start of the device is shown unreadable" {
	hostile r5-4d-bitmap-1.2
	every_field 96 4 -100
	bitmap_unreadable "bitmap offset -100 sectors from the superblock at 8 is before the device"
}

@test "bitmap: a chunk of 2 GiB is md's to accept: examined whole, read right" {
	hostile r5-4d-bitmap-1.2
	every_poke 8244 4 0x80000000
	examined 0
	reads_right
}

@test "bitmap: events 0 (a bitmap md would resync in full) is examined whole and read right" {
	hostile r5-4d-bitmap-1.2
	every_poke 8216 8 0
	examined 0
	reads_right
}

# the bad-block log (1.2: 8 sectors at sector 24, byte 12288)

@test "bad blocks: a log shift of 11 is shown unreadable; the data reads right" {
	hostile r5-4d-64k-ls-1.2
	field 1 185 1 11
	examined 1 "member1.img: bad-block log shift 11, expected at most 10"
	reads_right
}

@test "bad blocks: a log shift of 10 is md's to accept" {
	hostile r5-4d-64k-ls-1.2
	field 1 185 1 10
	examined 0
}

@test "bad blocks: a log past the end of the device is shown unreadable" {
	hostile r5-4d-64k-ls-1.2
	field 2 188 4 0x7fffffff
	examined 1 "member2.img: bad-block log at sector [0-9]+ \(8 sectors\) runs past the end of the device"
	reads_right
}

@test "bad blocks: a log placed in the data area is shown unreadable; the data reads right" {
	hostile r5-4d-64k-ls-1.2
	field 1 188 4 2056
	examined 1 "member1.img: bad-block log at sector 2064 \(8 sectors\) lies in the data area \(sectors 2048 to [0-9]+\)"
	reads_right
}

@test "bad blocks: a log of 65535 sectors, larger than the device, is shown unreadable" {
	hostile r5-4d-64k-ls-1.2
	field 0 186 2 65535
	examined 1 "member0.img: bad-block log at sector 24 \(65535 sectors\) runs past the end of the device"
}

@test "bad blocks: a log of size 0 is no log" {
	hostile r5-4d-64k-ls-1.2
	field 3 186 2 0
	field 3 8 4 8
	examined 0
	[[ $output != *"Bad Blocks"* ]] || fail "a log of size 0 listed entries: $output"
}

# bad_entries N ENTRY...: member N's log in use, holding the entries
# (each start << 10 | length), the rest filler.
bad_entries() {
	local n=$1 at=12288 e
	shift
	field "$n" 8 4 8
	head -c 4096 /dev/zero | tr '\0' '\377' | dd of="${M[$n]}" bs=4096 seek=3 conv=notrunc status=none
	for e in "$@"; do
		poke "$n" $at 8 "$e"
		at=$((at + 8))
	done
}

@test "bad blocks: overlapping entries are listed as md keeps them; the data reads right" {
	hostile r5-4d-64k-ls-1.2
	bad_entries 1 $(((100 << 10) | 16)) $(((108 << 10) | 16))
	examined 0
	[[ $output == *"100 for 16 sectors"* && $output == *"108 for 16 sectors"* ]] || fail "$output"
	reads_right
}

@test "bad blocks: an entry past the end of the device is listed; the data reads right" {
	hostile r5-4d-64k-ls-1.2
	bad_entries 2 $(((99999999 << 10) | 8))
	examined 0
	[[ $output == *"99999999 for 8 sectors"* ]] || fail "$output"
	reads_right
}

@test "bad blocks: an entry of length 0 is listed, not read as a range" {
	hostile r5-4d-64k-ls-1.2
	bad_entries 3 $((200 << 10))
	examined 0
	reads_right
}

@test "bad blocks: a log in use with no entries lists none" {
	hostile r5-4d-64k-ls-1.2
	bad_entries 0
	examined 0
	[[ $output != *"for "*" sectors"* ]] || fail "an empty log listed entries: $output"
}
