#!/usr/bin/env bats
# stripe-examine --scan: md members found among files or block devices,
# grouped into arrays and printed as mdadm.conf ARRAY lines, with mdadm
# --examine --brief / --scan --verbose on the same members as the judge.

bats_require_minimum_version 1.5.0
load helpers

setup_file() {
	fixtures_ready
	# arrays md's fixtures lack, made once: two of one UUID that mdadm
	# keeps apart (another chunk), one with a spare, one named with a
	# blank and a quote
	local d=$BATS_FILE_TMPDIR u=11111111:22222222:33333333:44444444
	stripe-create -q -l 5 -u $u -c 64K --image-size 5M "$d"/e{0,1,2}.img
	stripe-create -q -l 5 -u $u -c 128K --image-size 5M "$d"/f{0,1,2}.img
	stripe-create -q -l 1 -n 2 -x 1 --image-size 5M "$d"/s{0,1,2}.img
	stripe-create -q -l 0 -e 1.1 -N "it's a b/c" --image-size 5M "$d"/n{0,1}.img
}

setup() {
	D=$BATS_FILE_TMPDIR
}

# judged ARGS...: stripe-examine --scan ARGS against mdadm --examine --scan
# --verbose on the same members (mdadm's --brief where ARGS start with it).
judged() {
	local want
	if [ "$1" = --brief ]; then
		want=$(mdadm --examine --brief "${@:2}")
	else
		want=$(mdadm --examine --scan --verbose "$@")
	fi
	run --separate-stderr stripe-examine --scan "$@"
	[ "$status" -eq 0 ] || fail "exit $status: $stderr"
	[ "$output" = "$want" ] || fail "stripe: $output"$'\n'"mdadm: $want"
}

@test "--scan --brief prints mdadm -Eb's ARRAY line for every fixture set, and util-linux's members" {
	plain_suite_only
	local set img
	mkdir -p "$BATS_TEST_TMPDIR"/{md,stripe}
	for set in $(all_sets); do
		mdadm --examine --brief "$FIX/$set"/member*.img > "$BATS_TEST_TMPDIR/md/$set"
		stripe-examine --scan --brief "$FIX/$set"/member*.img > "$BATS_TEST_TMPDIR/stripe/$set"
	done
	# blkid's test images: a 0.90 raid1 member of 2009, a 1.2 raid0 of one
	for img in "$FIX"/util-linux/*.img; do
		set=util-linux-$(basename "$img" .img)
		mdadm --examine --brief "$img" > "$BATS_TEST_TMPDIR/md/$set"
		stripe-examine --scan --brief "$img" > "$BATS_TEST_TMPDIR/stripe/$set"
	done
	# metadata=, UUID= and name= of each line, and the line whole, side by side
	run awk '
		function fields(line,   f, i, n, out) {
			n = split(line, f, / +/)
			for (i = 1; i <= n; i++)
				if (f[i] ~ /^(metadata|UUID|name)=/) out = out " " f[i]
			return out
		}
		{ set = FILENAME; sub(/.*\//, "", set); side = FILENAME ~ /\/md\// ? "md" : "stripe" }
		{ line[side, set, FNR] = $0; lines[side, set] = FNR; sets[set] }
		END {
			for (s in sets) {
				if (lines["md", s] == 0) print s ": mdadm printed nothing"
				if (lines["md", s] != lines["stripe", s]) print s ": " lines["stripe", s] " lines, mdadm " lines["md", s]
				for (i = 1; i <= lines["md", s]; i++) {
					if (fields(line["md", s, i]) != fields(line["stripe", s, i]))
						print s ":" fields(line["stripe", s, i]) " where mdadm has" fields(line["md", s, i])
					else if (line["md", s, i] != line["stripe", s, i])
						print s ": line " i " differs: " line["stripe", s, i]
				}
			}
		}' "$BATS_TEST_TMPDIR"/md/* "$BATS_TEST_TMPDIR"/stripe/*
	[ -z "$output" ] || fail "$output"
}

@test "--scan of every fixture member given at once groups and orders the arrays as mdadm -Esv does" {
	plain_suite_only
	judged "$FIX"/*/member*.img
}

@test "two arrays' members given mixed are told apart, each line naming its own members" {
	judged "$FIX"/r6-5d-64k-ls-1.2/member{0,1}.img "$FIX"/r1-3d-0.90/member0.img \
		"$FIX"/r6-5d-64k-ls-1.2/member2.img "$FIX"/r1-3d-0.90/member{1,2}.img
	[ "${#lines[@]}" -eq 4 ]
	[[ ${lines[1]} == *"devices=$FIX/r1-3d-0.90/member0.img,$FIX/r1-3d-0.90/member1.img,$FIX/r1-3d-0.90/member2.img" ]]
}

@test "a stale member stays in its array's line, as mdadm keeps it" {
	local stale
	stale=$(awk -F'[.=]' '/^member[0-9]+\.state=stale/ { print $1 }' "$FIX/r5-4d-degraded/MANIFEST")
	[ -n "$stale" ]
	judged "$FIX"/r5-4d-degraded/member*.img
	[ "${#lines[@]}" -eq 2 ]
	[[ ${lines[1]} == *"$FIX/r5-4d-degraded/$stale.img"* ]]
}

@test "arrays of one UUID that differ in chunk get a line each, as mdadm -Eb gives them" {
	judged --brief "$D"/e0.img "$D"/f0.img "$D"/e1.img "$D"/f1.img
	[ "${#lines[@]}" -eq 2 ]
	[ "${lines[0]}" = "${lines[1]}" ]
}

@test "a spare is counted in spares= on the line after the array's, as mdadm writes it" {
	judged "$D"/s{0,1,2}.img
	[ "${lines[1]}" = "   spares=1   devices=$D/s0.img,$D/s1.img,$D/s2.img" ]
	judged --brief "$D"/s{0,1,2}.img
	[ "${lines[1]}" = "   spares=1" ]
}

@test "a name with a blank, a quote and a slash is quoted in name= and made a device name, as mdadm does" {
	judged --brief "$D"/n{0,1}.img
	[[ $output == "ARRAY /dev/md/it's_a_b-c  metadata=1.1 UUID="*" name=\""*":it's a b/c\"" ]]
}

@test "a member holding superblocks of two versions counts the one created last, as mdadm does" {
	local d=$BATS_TEST_TMPDIR
	stripe-create -q -l 1 -e 1.0 --image-size 5M "$d"/x{0,1}.img
	stripe-create -q -l 1 -e 1.2 --image-size 5M "$d"/y{0,1}.img
	# y0's 1.2 superblock (sector 8) onto x0, made older than x0's own 1.0
	# (ctime at byte 64); stripe's other tools read the 1.2 one first
	dd if="$d/y0.img" of="$d/x0.img" bs=4096 skip=1 seek=1 count=1 conv=notrunc status=none
	"$TTOOLS/sb-patch" "$d/x0.img" 64 8 1
	judged --brief "$d/x0.img"
	[[ $output == *" metadata=1.0 UUID=$(stripe-examine --json "$d/x1.img" | jq -r .array.uuid) "* ]]
}

@test "--scan --json gives each array's line, identity and members, and the files that hold none" {
	truncate -s 1M "$BATS_TEST_TMPDIR/blank.img"
	run --separate-stderr stripe-examine --scan --json "$D"/s{0,1,2}.img "$BATS_TEST_TMPDIR/blank.img"
	[ "$status" -eq 1 ]
	[[ $stderr == *"blank.img: no md superblock found"* ]]
	run jq -r '.verdict, (.arrays | length), .arrays[0].metadata, .arrays[0].level, .arrays[0].spares,
		.arrays[0].device, (.arrays[0].uuid == (.arrays[0].conf | capture("UUID=(?<u>[0-9a-f:]+)").u)),
		([.arrays[0].members[] | "\(.role) \(.in_sync)"] | join(",")), (.not_members[0].path | test("blank.img$"))' \
		<<<"$output"
	[ "$output" = "needs_attention
1
1.2
raid1
1
/dev/md/0
true
0 true,1 true,spare false
true" ]
}

@test "--scan of a FILE that does not exist exits 2 naming it, the other arrays still printed" {
	run --separate-stderr stripe-examine --scan "$D"/s0.img "$D/nothing.img"
	[ "$status" -eq 2 ]
	[ "$stderr" = "stripe-examine: $D/nothing.img: No such file or directory" ]
	[[ $output == "ARRAY /dev/md/0 "* ]]
}

@test "--scan is refused with --export, whose record is one array's" {
	run --separate-stderr stripe-examine --scan --export "$D"/s0.img
	[ "$status" -eq 2 ]
	[[ $stderr == "stripe-examine: --scan: not with --export"* ]]
}

@test "--scan with no FILE finds md members on block devices through libblkid" {
	[ "$(id -u)" -eq 0 ] || skip "needs root (loop devices)"
	local m l loops=() u1 u6
	mkdir -p "$BATS_TEST_TMPDIR"/{r1,r6}
	cp "$FIX"/r1-2d-1.2/member*.img "$BATS_TEST_TMPDIR/r1/"
	cp "$FIX"/r6-4d-64k-1.0/member*.img "$BATS_TEST_TMPDIR/r6/"
	for m in "$BATS_TEST_TMPDIR"/r1/*.img "$BATS_TEST_TMPDIR"/r6/*.img; do
		l=$(losetup -f --show "$m") || { losetup -d "${loops[@]}"; skip "no loop device available"; }
		loops+=("$l")
	done
	run --separate-stderr stripe-examine --scan
	losetup -d "${loops[@]}"
	[ "$status" -eq 0 ] || fail "exit $status: $stderr"
	u1=$(stripe-examine --export "$FIX"/r1-2d-1.2/member0.img | sed -n "s/^STRIPE_UUID='\(.*\)'/\1/p")
	u6=$(stripe-examine --export "$FIX"/r6-4d-64k-1.0/member0.img | sed -n "s/^STRIPE_UUID='\(.*\)'/\1/p")
	# other runs may hold loop devices over copies of the same sets: each
	# of ours is in its array's devices= (their order is libblkid's)
	run awk -v u1="$u1" -v u6="$u6" -v r1="${loops[*]:0:2}" -v r6="${loops[*]:2}" '
		/^ARRAY/ { uuid = $0; sub(/.*UUID=/, "", uuid); sub(/ .*/, "", uuid); next }
		/devices=/ { d = $0; sub(/.*devices=/, "", d); devs[uuid] = devs[uuid] "," d "," }
		END {
			n = split(r1, a, " "); for (i = 1; i <= n; i++) if (index(devs[u1], "," a[i] ",") == 0) print a[i] " not in " u1
			n = split(r6, a, " "); for (i = 1; i <= n; i++) if (index(devs[u6], "," a[i] ",") == 0) print a[i] " not in " u6
		}' <<<"$output"
	[ -z "$output" ] || fail "$output"
}
