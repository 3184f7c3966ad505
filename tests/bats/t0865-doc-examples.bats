#!/usr/bin/env bats
# The examples of the README's tour and of stripe(7)'s RUNBOOKS and EXAMPLE
# run as the docs write them: each is read from the doc here (so a doc change
# that breaks one fails its spec), run in a directory where image files
# stand for the devices (dev/sdb1 for /dev/sdb1), directories for the mount
# points and logs, and a mail that keeps what it is sent; the exit status of
# every command is checked.
# suite: plain

bats_require_minimum_version 1.5.0
load helpers

setup_file() {
	in_plain_suite || return 0
	fixtures_ready
}

setup() {
	plain_suite_only
	D=$BATS_TEST_TMPDIR/ex
	mkdir -p "$D"/dev "$D"/mnt "$D"/var/log "$D"/srv "$D"/stubs
	# mail -s SUBJECT TO keeps the message in mail.SUBJECT; sudo just runs
	printf '#!/bin/sh\ncat > "%s/mail.$2"\n' "$D" > "$D/stubs/mail"
	printf '#!/bin/sh\nexec "$@"\n' > "$D/stubs/sudo"
	chmod +x "$D/stubs/mail" "$D/stubs/sudo"
	cd "$D"
}

# tour COMMENT: the command lines under "# COMMENT" in the README's tour,
# as written there; fails unless the tour has that comment once
tour() {
	awk -v want="# $1" '
	/^## / { on = ($0 == "## A five-minute tour"); next }
	!on || !/^    / { next }
	{ line = substr($0, 5) }
	line ~ /^# / { mine = (line == want); found += mine; next }
	mine { print line }
	END { exit found == 1 ? 0 : 1 }' "$TOP/README.md"
}

# man_block SECTION SUBSECTION N: stripe(7)'s Nth example block (.EX to .EE)
# in SECTION (and SUBSECTION, "" for any), as the page shows it
man_block() {
	awk -v sh="$1" -v ss="$2" -v n="$3" '
	/^\.SH / { insh = (substr($0, 5) == sh); inss = (ss == ""); next }
	/^\.SS / { inss = (ss == "" || substr($0, 5) == ss); next }
	/^\.EX/ { if (insh && inss) { k++; ex = (k == n) } next }
	/^\.EE/ { ex = 0; next }
	ex { print; found = 1 }
	END { exit found ? 0 : 1 }' "$TOP/man/stripe.7" |
		sed -e 's/\\-/-/g' -e "s/\\\\(aq/'/g" -e 's/\\e/\\/g' -e 's/\\&//g'
}

# prompted BLOCK: the commands of a block that shows "$ " prompts, without
# the prompts and without "echo $?" (whose shown output is_status checks)
prompted() {
	sed -n -e '/^\$ echo \$?$/d' -e 's/^\$ //p' <<<"$1"
}

# shown BLOCK COMMAND: the output a block shows for "$ COMMAND", with the
# paths as they are here (dev/sdb1), less the lines elided as "..."
shown() {
	awk -v cmd="\$ $2" '$0 == cmd { on = 1; next } /^\$ / { on = 0 } on && $0 !~ /^ *\.\.\.$/' <<<"$1" | here_paths
}

# here_paths: /dev/x, /mnt/x, /var/log/x and /srv as they are in this
# directory, and the source tree's tools/
here_paths() {
	sed -E -e 's#(^|[ =<>])/(dev|mnt|var/log|srv)([/ ]|$)#\1\2\3#g' -e "s#(^|[ ])tools/#\\1$TOP/tools/#g"
}

# statements: a script's top-level statements, each followed by a line that
# records its exit status in .status: lines ending in && || | or \ go on,
# and "; " separates two (except in for, while and if)
statements() {
	awk '
	{ buf = buf (buf == "" ? "" : "\n") $0 }
	/(&&|\|\||\||\\)[ \t]*$/ { next }
	{
		n = split(buf, part, /; /)
		if (buf ~ /^[ \t]*(for|while|if) /) { n = 1; part[1] = buf }
		for (i = 1; i <= n; i++) printf "%s\necho $? >> .status\n", part[i]
		buf = ""
	}' <<<"$1"
}

# example LINES: runs the docs' LINES here as a shell runs them; $output
# and $stderr as bats' run gives them, every statement's exit status in
# STATUS ("1 0": the first exited 1, the second 0)
example() {
	local script
	[ -n "$1" ] || fail "the docs have no such example (a comment or a block changed?)"
	script=$(here_paths <<<"$1")
	rm -f .status
	run --separate-stderr env PATH="$D/stubs:$PATH" bash -c "$(statements "$script")"
	STATUS=$(paste -sd' ' .status)
}

# is_status WANT: the statuses example recorded are WANT
is_status() {
	[ "$STATUS" = "$1" ] || fail "exit statuses $STATUS, the docs want $1; stderr: $stderr"
}

# as_members SET NAME...: SET's members copied to NAME... in role order
as_members() {
	local set=$1 m i=0
	shift
	for m in $(in_role_order "$FIX/$set"/member*.img); do
		cp "$m" "$1"
		shift
		i=$((i + 1))
	done
}

# needs_root_fuse: the examples that map and mount
needs_root_fuse() {
	[ "$(id -u)" -eq 0 ] || skip "needs root for the FUSE map and the loop mount"
	command -v fusermount3 >/dev/null && [ -e /dev/fuse ] || skip "no FUSE here"
}

@test "every comment of the README's tour heads an example a spec here runs" {
	local c missing=""
	while read -r c; do
		grep -qF "tour \"${c#\# }\"" "$BATS_TEST_FILENAME" || missing+=" [$c]"
	done < <(awk '/^## / { on = ($0 == "## A five-minute tour"); next } on && /^    # / { print substr($0, 5) }' "$TOP/README.md")
	[ -z "$missing" ] || fail "no spec runs:$missing"
}

@test "every example block of stripe(7)'s RUNBOOKS and EXAMPLE is run by a spec here" {
	local sh n=0 ran
	for sh in RUNBOOKS EXAMPLE; do
		n=$((n + $(awk -v sh="$sh" '/^\.SH / { on = (substr($0, 5) == sh) } on && /^\.EX/' "$TOP/man/stripe.7" | wc -l)))
	done
	ran=$(grep -c 'man_block \(RUNBOOKS\|EXAMPLE\) ' "$BATS_TEST_FILENAME")
	[ "$ran" -ge "$n" ] || fail "$n blocks in stripe(7), $ran run here"
}

# --- the README's tour ---

@test "tour: stripe-examine on four members of a clean array exits 0" {
	as_members r5-4d-64k-ls-1.2 dev/sdb1 dev/sdc1 dev/sdd1 dev/sde1
	example "$(tour "what is on these disks, and would md assemble them?")"
	is_status 0
	assert_output --partial "State : clean"
}

@test "tour: stripe-examine --scan --brief gives mdadm -Eb's line for each of two arrays, exit 0" {
	as_members r5-4d-64k-ls-1.2 dev/sdb1 dev/sdc1 dev/sdd1 dev/sde1
	as_members r1-2d-1.2 dev/sdf1 dev/sdg1
	example "$(tour "which arrays do these disks hold? their mdadm.conf lines (no disk named: every disk libblkid sees)")"
	is_status 0
	[ "${#lines[@]}" -eq 2 ]
	assert_output "$(mdadm --examine --brief dev/sd[b-g]1)"
}

@test "tour: stripe-read with a member left out reads the array md wrote, exit 0" {
	as_members r5-4d-64k-ls-1.2 dev/sdb1 dev/sdc1 dev/sdd1 dev/sde1
	example "$(tour "the array as one image, with a failed member left out")"
	is_status 0
	[ "$(sha < array.img)" = "$(manifest r5-4d-64k-ls-1.2 array_sha256)" ]
}

@test "tour: stripe-probe finds a RAID6 holding ext4 with two disks and its superblocks gone, exit 0" {
	grep -q 'Not written yet' "$TOP/lib/probe/parity.c" && skip "the probe's parity evidence is not written yet"
	"$TOP/tests/probe/make-ext4-array" a 8M -l 6 -n 6 -c 16K -p right-asymmetric >/dev/null
	"$TOP/tests/probe/make-ext4-array" --zero a
	cp a/m0.img dev/sdb1; cp a/m2.img dev/sdd1; cp a/m3.img dev/sde1; cp a/m5.img dev/sdg1
	example "$(tour "a RAID6 lost two disks and its superblocks: the geometry found from the data, and the mdadm line")"
	is_status 0
	assert_output --partial "mdadm --create /dev/md/restored --run --assume-clean --level 6 --chunk 16K --layout right-asymmetric"
	assert_output --partial " --raid-devices 6 dev/sdb1 missing dev/sdd1 dev/sde1 missing dev/sdg1"
}

@test "tour: stripe-create then stripe-write of a file system image, exit 0" {
	truncate -s 8M dev/sdb dev/sdc dev/sdd
	head -c 1M /dev/urandom > fs.img
	example "$(tour "a new RAID5 on three disks, then a filesystem image written into it")"
	is_status 0
	cmp fs.img <(stripe-read -q --length 1M dev/sdb dev/sdc dev/sdd)
}

# Depends on issue #21's exit rule: a repair that fixed everything exits 0.
@test "tour: stripe-check --files finds the mismatches (exit 1), --repair mends them (exit 0)" {
	as_members r5-4d-ext4 disk0.img disk1.img disk2.img disk3.img
	# a unit of role 1's first chunk no longer agrees with its parity
	printf 'CORRUPTED-BLOCK!' | dd of=disk1.img bs=1 conv=notrunc status=none \
		seek=$(($(manifest r5-4d-ext4 member1.data_offset_sectors) * 512 + 100))
	example "$(tour "which disk, which file? then mend it the way md's repair would")"
	is_status "1 0"
	assert_output --partial "inconsistent"
	stripe-check -q --progress none disk*.img
}

@test "tour: stripe-rebuild onto a new disk, then stripe-check, exit 0" {
	as_members r5-4d-64k-ls-1.2 dev/sdb1 dev/sdc1 dev/sdd1 dev/sde1
	rm dev/sdd1
	example "$(tour "a disk died: rebuild its role onto a new one (run the same line again if interrupted)")"
	is_status 0
	[ "$(stripe-read dev/sdb1 dev/sdc1 dev/sdf1 dev/sde1 | sha)" = "$(manifest r5-4d-64k-ls-1.2 array_sha256)" ]
}

@test "tour: stripe-manage adds a spare, then fails, removes and wipes a member, exit 0" {
	as_members r5-3d-512k-ls-0.90 dev/sdb1 dev/sdc1 dev/sde1
	truncate -s "$(stat -c %s dev/sdb1)" dev/sdf1
	example "$(tour "a hot spare ready for the next failure; a retired disk failed, removed and wiped, as mdadm's manage mode does")"
	is_status "0 0"
	[ "$(stripe-examine --json dev/sdb1 dev/sde1 dev/sdf1 | jq -r '[.members[].state] | join(" ")')" = "active active spare" ] ||
		fail "$(stripe-examine dev/sdb1 dev/sde1 dev/sdf1)"
	run stripe-examine dev/sdc1
	[[ $output == *"no md superblock found"* ]] || fail "$output"
}

@test "tour: stripe-recover --dry-run, then the rebuild onto the spare, exit 0" {
	as_members r5-4d-degraded disk0.img disk1.img disk2.img disk3.img
	example "$(tour "or let the runbook decide: stale members in place, lost ones onto the spares given")"
	is_status 0
	assert_line "verdict: would_rebuild"
	assert_line "verdict: recovered"
	[ "$(stripe-read -q disk0.img disk1.img new.img disk3.img | sha)" = "$(manifest r5-4d-degraded array_sha256)" ]
}

# Depends on issue #21's options: --json=FILE (--json FILE takes no file).
@test "tour: the nightly stripe-verify sends no mail for a healthy array" {
	as_members r5-4d-64k-ls-1.2 dev/sdb1 dev/sdc1 dev/sdd1 dev/sde1
	example "$(tour "nightly, for cron: exit 0 healthy, 1 needs attention, 2 error")"
	is_status 0
	[ ! -e mail.md0 ] || fail "mail sent: $(cat mail.md0)"
	[ "$(jq -r .verdict var/log/md0.json)" = healthy ]
}

@test "tour: the nightly stripe-verify mails the JSON report of a degraded array" {
	as_members r5-4d-degraded dev/sdb1 dev/sdc1 dev/sdd1 dev/sde1
	example "$(tour "nightly, for cron: exit 0 healthy, 1 needs attention, 2 error")"
	is_status 0
	[ "$(jq -r .verdict mail.md0)" = degraded ]
}

@test "tour: stripe-map, mkfs.ext4 and a loop mount of the array, exit 0" {
	needs_root_fuse
	as_members r5-4d-64k-ls-1.2 disk0.img disk1.img disk2.img disk3.img
	mkdir -p mnt/map mnt/data
	example "$(tour "the array as a file: a file system made and mounted on it, md-compatible")"
	umount mnt/data 2>/dev/null || true
	fusermount3 -u mnt/map 2>/dev/null || true
	is_status 0
	stripe-check -q --progress none disk*.img
}

@test "tour: stripe-nbd serves the array to nbdcopy, qemu-img and qemu-io, and is stopped clean, exit 0" {
	local pid i
	command -v nbdkit >/dev/null && command -v nbdcopy >/dev/null && command -v qemu-io >/dev/null ||
		skip "nbdkit, libnbd-bin or qemu-utils is not installed"
	as_members r5-4d-64k-ls-1.2 disk0.img disk1.img disk2.img disk3.img
	example "$(tour "the array over NBD, no kernel md: copied out, converted and written to by qemu's tools, then stopped (clean)")"
	is_status "0 0 0 0"
	# nbdkit went to the background: its end is waited for here
	pid=$(cat md0.pid)
	for ((i = 0; i < 100; i++)); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	[ "$(sha md0.img)" = "$(manifest r5-4d-64k-ls-1.2 array_sha256)" ]
	[ "$(stripe-examine --json disk*.img | jq -r .array.needs_resync)" = false ]
	[ "$(stripe-read disk*.img | head -c 1M | tr -d '\125' | wc -c)" -eq 0 ]
	stripe-check -q --progress none disk*.img
}

@test "tour: stripe-examine --export gives the level and size to eval, exit 0 twice" {
	as_members r5-4d-64k-ls-1.2 disk0.img disk1.img disk2.img disk3.img
	example "$(tour "machine-readable facts for scripts")"
	is_status "0 0"
	assert_output "raid5 $(manifest r5-4d-64k-ls-1.2 array_size_bytes)"
}

@test "tour: the seeds' pipeline: create, map and mkfs.ext4 with md's stride, exit 0" {
	needs_root_fuse
	truncate -s 16M d0.img d1.img d2.img d3.img d4.img d5.img
	mkdir -p mnt/map
	example "$(tour "the seeds' pipeline in one line: which layout does ext4 like best?")"
	fusermount3 -u mnt/map 2>/dev/null || true
	is_status 0
	stripe-read -q -o array.img d*.img
	e2fsck -fn array.img
	dumpe2fs -h array.img 2>/dev/null | grep -q '^RAID stripe width: *64$'
}

# Depends on issue #21's options: --csv=FILE appends (--csv FILE takes no file).
@test "tour: stripe-mkfs-bench on RAID5 and RAID6 appends two CSV lines, exit 0" {
	needs_root_fuse
	[ -n "${STRIPE_FULL:-}" ] || skip "two mkfs-bench pipelines on 1 GiB images: make check-full"
	example "$(tour "or all of it, mounted and benchmarked: RAID5 against RAID6 on new 1 GiB images")"
	is_status 0
	[ "$(grep -c '^1\.98,' runs.csv)" -eq 2 ]
}

@test "tour: Bonnie on a directory and a sweep of RAID5 against RAID6, exit 0" {
	[ -n "${STRIPE_FULL:-}" ] || skip "a sweep of 16 arrays: make check-full"
	for d in b c d e f g; do truncate -s 64M dev/sd$d; done
	example "$(tour "Bonnie on a filesystem; RAID5 against RAID6 on 3 to 6 disks, as a table and plots" |
		sed -E -e 's#stripe-bench -m srv /srv#stripe-bench -s 64M -m srv /srv#' -e 's#(-s|--bench-size) 4G#\1 8M#')"
	is_status "0 0"
	[ -s sweep/table.txt ]
}

# --- stripe(7): RUNBOOKS ---

# Depends on issue #21's options: --json=FILE.
@test "runbook: stripe-verify reports the mismatches and exits 1, as the page shows" {
	local b
	b=$(man_block RUNBOOKS "Verify an array (nightly, or when md reports mismatch_cnt)" 1)
	as_members r5-4d-badparity dev/sdb1 dev/sdc1 dev/sdd1 dev/sde1
	example "$(prompted "$b")"
	is_status "$(shown "$b" 'echo $?')"
	assert_line "$(shown "$b" "$(prompted "$b")" | grep '^verdict:')"
	[ "$(jq -r .verdict var/log/md0-verify.json)" = mismatches ]
}

@test "runbook: stripe-verify --repair then stripe-verify -q says healthy, exit 0" {
	local b
	b=$(man_block RUNBOOKS "Verify an array (nightly, or when md reports mismatch_cnt)" 2)
	as_members r5-4d-badparity dev/sdb1 dev/sdc1 dev/sdd1 dev/sde1
	example "$(prompted "$b")"
	is_status 0
	assert_line "$(shown "$b" "$(prompted "$b")")"
}

@test "runbook: stripe-recover --dry-run says what the page says, then recovers, exit 0" {
	local b line
	b=$(man_block RUNBOOKS "Recover a degraded array" 1)
	as_members r5-4d-degraded dev/sdb1 dev/sdc1 dev/sdd1 dev/sde1
	example "$(prompted "$b")"
	is_status "0 0"
	while IFS= read -r line; do
		assert_line "$line"
	done < <(shown "$b" "$(prompted "$b" | head -1)")
	assert_line "verdict: recovered"
}

@test "runbook: stripe-rebuild of two raid6 roles onto new images, then stripe-check, exit 0" {
	local b
	b=$(man_block RUNBOOKS "Recover a degraded array" 2)
	as_members r6-6d-128k-ls-1.2 d0.img d1.img d2.img d3.img d4.img d5.img
	rm d1.img d4.img
	example "$(prompted "$b")"
	is_status "0 0"
	[ "$(stripe-read d0.img new1.img d2.img d3.img new4.img d5.img | sha)" = "$(manifest r6-6d-128k-ls-1.2 array_sha256)" ]
}

@test "runbook: stripe-rebuild --replace copies the dying member onto a new disk as the page shows, then stripe-check, exit 0" {
	local b line
	b=$(man_block RUNBOOKS "Replace a disk that is about to fail" 1)
	as_members r5-4d-64k-ls-1.2 dev/sdb1 dev/sdc1 dev/sdd1 dev/sde1
	example "$(prompted "$b")"
	is_status "0 0"
	while IFS= read -r line; do
		assert_line "$line"
	done < <(shown "$b" "$(prompted "$b" | head -1)")
	[ "$(stripe-read dev/sd[bcef]1 | sha)" = "$(manifest r5-4d-64k-ls-1.2 array_sha256)" ]
}

@test "runbook: a member back after a write without it is re-added from the bitmap, as the page shows, exit 0" {
	local b line m
	b=$(man_block RUNBOOKS "Take back a member that was away" 1)
	for m in b c d e; do truncate -s 256M dev/sd${m}1; done
	stripe-create -q -l 5 -n 4 -c 512K --bitmap internal --bitmap-chunk 1M --assume-clean dev/sd[b-e]1 2> /dev/null
	head -c 1M /dev/urandom | stripe-write -q --run --offset 100M dev/sd[b-d]1
	example "$(prompted "$b")"
	is_status "0 0"
	while IFS= read -r line; do
		assert_line "$line"
	done < <(shown "$b" "$(prompted "$b" | head -1)")
	run -0 stripe-check -q --progress none dev/sd[b-e]1
}

@test "runbook: stripe-examine, stripe-read and e2fsck of an array read from images, exit 0" {
	local b
	b=$(man_block RUNBOOKS "Read an array md will not assemble" 1)
	as_members r5-4d-ext4 disk0.img disk1.img disk2.img disk3.img
	example "$(prompted "$b")"
	is_status "0 0"
	[ "$(sha < array.img)" = "$(manifest r5-4d-ext4 array_sha256)" ]
}

# --- stripe(7): EXAMPLE ---

@test "example: stripe-examine -q shows what the page shows, and exits 1 for the degraded array" {
	local b line
	b=$(man_block EXAMPLE "" 1)
	as_members r5-4d-degraded disk0.img disk1.img disk2.img disk3.img
	example "$(prompted "$b")"
	is_status 1
	while IFS= read -r line; do
		[ -z "$line" ] || assert_line "$line"
	done < <(shown "$b" "$(prompted "$b")")
}

# The page's array holds an ext4, as the fixture does not: one is written
# into it first (degraded, as md would), which moves its events on.
@test "example: stripe-read names the stale member and e2fsck finds the file system clean" {
	local b cmds line
	b=$(man_block EXAMPLE "" 2)
	as_members r5-4d-degraded disk0.img disk1.img disk2.img disk3.img
	truncate -s "$(manifest r5-4d-degraded array_size_bytes)" fs.img
	mkfs.ext4 -q -F fs.img
	stripe-write -q --progress none -i fs.img disk0.img disk1.img disk3.img
	cmds=$(prompted "$b")
	[ "$(id -u)" -eq 0 ] || cmds=$(grep -v mount <<<"$cmds")
	example "$cmds"
	umount mnt 2>/dev/null || true
	is_status "$(sed 's/.*/0/' <<<"$cmds" | paste -sd' ')"
	# each line the page shows, the events the write moved on aside
	while IFS= read -r line; do
		grep -qxF -- "$line" <(sed -E 's/at [0-9]+ /at N /' <<<"$stderr") || fail "not said: $line; stderr: $stderr"
	done < <(shown "$b" "$(head -1 <<<"$cmds")" | sed -E 's/at [0-9]+ /at N /')
	cmp fs.img array.img
}

@test "example: the same facts for a script, each command exiting 0" {
	as_members r5-4d-degraded disk0.img disk1.img disk2.img disk3.img
	example "$(man_block EXAMPLE "" 3)"
	is_status "0 0 0"
	assert_line "raid5, degraded, $(manifest r5-4d-degraded array_size_bytes) bytes"
	assert_line --partial "stale: events 21"
}
