# batch-assemble.vm.sh: runs inside the mdvm VM (busybox sh).  Assembles
# many arrays in one boot, one after the other.
#
# Arguments: [--dump=DEV] NAME:COUNT[:readd] ...  The members are the partitions of the attached
# disks ($MDVM_DISKS, in order; partitions by number), in argument order:
# the first COUNT partitions belong to the first NAME, and so on (the host
# packs several members into one disk, batch.bash: a VM takes 25 disks).
#
# For each array (mdadm --examine of its members is the host's, batch.bash:
# the same mdadm, a hundredth of the time): mdadm --assemble
# without --run (norun=1 when that starts it, as at boot; else stopped and
# mdadm --assemble --run), both --readonly, the sha256 of the whole array,
# mdadm --readwrite, a "check" through sync_action (not for raid0), mdadm
# --detail (lines "D: NAME |..."), mdadm --stop, and one machine-readable
# line:
#
#   R: name=NAME assembled=1 level=raid5 raid_disks=4 layout=2 chunk=65536
#      metadata=1.2 degraded=0 array_state=clean resync_start=none
#      array_size=BYTES sha256=HEX mismatch_cnt=0 norun=1 members=in_sync,...
#      (with --dump: "sha256=- dump=MIB", the array's bytes at MIB MiB of DEV)
#      d_level=raid5 d_raid_devices=4 d_chunk=64K d_layout=left-symmetric
#      d_state=clean d_version=1.2 d_members=active_sync,active_sync,...
#      rw_sync=idle bitmap_stale=0 readd=- md_syncs=data-check bm_events=E
#      bm_cleared=C bm_dirty=N secs=S
#
# (on one line; "d_" are mdadm --detail's words, spaces as "_", ", " as
# ","; "-" where --detail prints no such field; rw_sync: what md's
# sync_action was once read-write, before the check; md_syncs: md's sync
# passes (resync, recovery, data-check) as its log names them;
# bitmap_stale: md found the bitmap out of date; bm_*: mdadm -X of the
# first member after the stop, "-" without a bitmap).
#
# With ":readd" the array's last member is left out of the assembly, and
# once the array runs read-write it is given back with mdadm --re-add and
# md's recovery waited for (readd=0; 1 when mdadm refused), before the
# sha256 and the check; after the stop, mdadm --examine of it into
# $MDVM_OUT/NAME/examine-back.txt.  An array that does not
# assemble gives "R: name=NAME assembled=0 rc=N" and its messages as
# "D: NAME |..." lines.
#
# A process costs about 10 ms in the emulated VM, mdadm about 80 ms: sysfs
# is read with the shell's own "read", and mdadm --detail parsed in one awk.
# busybox ash has bash's ${v//x/y}:
# shellcheck disable=SC3060

k=0

# --dump=DEV first: each array's bytes are copied (O_DIRECT, no page cache)
# onto DEV, a MiB-aligned slot each, and the host hashes them (dump=MIB on
# the R line): sha256sum in the emulated CPU cost more than the rest of an
# array's turn.  Without it, sha256=HEX.
dump=
case ${1:-} in
--dump=*) dump=${1#--dump=}; shift ;;
esac
dpos=0

# partitions: the partitions of the attached disks, in order.
partitions() {
	for d in $MDVM_DISKS; do
		b=${d#/dev/}
		for p in /sys/block/"$b"/"$b"[0-9]*; do
			[ -e "$p" ] && echo "/dev/${p##*/}"
		done
	done
}

# the kernel reads the partition tables as it finds the disks: wait (at
# most ten seconds) until every member is there
want=0
for spec in "$@"; do
	want=$((want + ${spec##*:}))
done
t=0
while [ "$(partitions | wc -l)" -lt $want ] && [ $t -lt 100 ]; do
	sleep 0.1
	t=$((t + 1))
done
disks=$(partitions | tr '\n' ' ')

# get FILE: the first line of a sysfs FILE in v, spaces as "_" ("-" if none).
get() {
	v=-
	read -r v 2> /dev/null < "$1"
	v=${v// /_}
}

# now: the seconds since boot, in v.
now() {
	read -r v _ < /proc/uptime
	v=${v%.*}
}

# idle: waits for the array's sync_action to be idle (a minute at most
# once mdadm --wait returned).
idle() {
	get $sys/sync_action
	[ "$v" = idle ] && return
	mdadm --wait $md > /dev/null 2>&1
	t=0
	get $sys/sync_action
	while [ "$v" != idle ] && [ $t -lt 600 ]; do
		sleep 0.1
		t=$((t + 1))
		get $sys/sync_action
	done
}

# check: md's "check" of the array, waited for; its mismatch_cnt in mm, or
# "refused".  A recovery that md starts once read-write (a member that is
# a spare) comes first and may start only after the check was asked for,
# and then takes its place: so the check is asked again until md's last
# sync action was one.
check() {
	mm=refused
	tries=0
	while [ $tries -lt 5 ]; do
		idle
		if echo check > $sys/sync_action 2> /dev/null; then
			sleep 0.1
			idle
			get $sys/last_sync_action
			if [ "$v" = check ]; then
				get $sys/mismatch_cnt
				mm=$v
				return
			fi
		fi
		tries=$((tries + 1))
		sleep 0.2
	done
}

# detail_words: the d_ words of the R line from mdadm --detail's output in
# /tmp/detail: its fields, and the states of the device table's lines
# ("Number Major Minor RaidDevice State... /dev/vdX").
detail_words() {
	awk '
	function d(k) { return (k in f) && f[k] != "" ? f[k] : "-" }
	function word(s) {
		sub(/ +$/, "", s)
		gsub(/, /, ",", s)
		gsub(/ /, "_", s)
		return s
	}
	/ : / {
		k = $0
		sub(/ : .*/, "", k)
		sub(/^ +/, "", k)
		v = $0
		sub(/^[^:]* : /, "", v)
		if (!(k in f))
			f[k] = word(v)
	}
	/^ *[0-9-]+ +[0-9]+ +[0-9]+ +[0-9-]+ +.*[^ ] +\/dev\// {
		s = $5
		for (i = 6; i < NF; i++)
			s = s "_" $i
		m = m (m == "" ? "" : ",") s
	}
	END {
		printf "d_level=%s d_raid_devices=%s d_chunk=%s d_layout=%s d_state=%s d_version=%s d_members=%s\n",
			d("Raid Level"), d("Raid Devices"), d("Chunk Size"), d("Layout"), d("State"), d("Version"),
			m == "" ? "-" : m
	}' /tmp/detail
}

# bitmap_words DEV: bm_events=E bm_cleared=C bm_dirty=N from mdadm -X of
# DEV ("-" each when it has no bitmap).
bitmap_words() {
	mdadm -X "$1" 2> /dev/null | awk '
	BEGIN { e = c = n = "-" }
	$1 == "Events" && $2 == ":" { e = $3 }
	$1 == "Events" && $2 == "Cleared" { c = $4 }
	/ dirty / { n = $0; sub(/ dirty.*/, "", n); sub(/.*, /, "", n) }
	$1 == "Magic" && $3 != "6d746962" { e = c = n = "-"; exit }
	END { printf "bm_events=%s bm_cleared=%s bm_dirty=%s\n", e, c, n }'
}

for spec in "$@"; do
	name=${spec%%:*}
	n=${spec#*:}
	mode=${n#*:}
	n=${n%%:*}
	[ "$mode" = "$n" ] && mode=
	devs=""
	i=0
	while [ $i -lt "$n" ]; do
		d=${disks%% *}
		disks=${disks#"$d"}
		disks=${disks# }
		devs="$devs $d"
		i=$((i + 1))
	done
	devs=${devs# }
	# readd: the last member is left out of the assembly and given back
	# with mdadm --re-add once the array runs
	back=
	if [ "$mode" = readd ]; then
		back=${devs##* }
		devs=${devs% *}
	fi
	md=/dev/md$k
	sys=/sys/block/md$k/md
	k=$((k + 1))
	now
	start=$v
	echo "B: name=$name devices=${devs// /,}"
	[ -n "$MDVM_OUT" ] && mkdir -p "$MDVM_OUT/$name"
	# md's kernel lines from here on are this array's (bitmap_stale below)
	dmesg -c > /dev/null 2>&1
	# as at boot, without --run: mdadm starts an array only when no member
	# the superblocks count as active is missing.  Read-only: md starts no
	# resync and writes nothing until --readwrite below, so resync_start
	# shows what the superblocks say
	# shellcheck disable=SC2086
	mdadm --assemble --readonly $md $devs > /tmp/assemble 2>&1
	rc=$?
	norun=0
	get $sys/array_state
	[ "$v" != - ] && [ "$v" != inactive ] && norun=1
	if [ $norun = 0 ]; then
		sed "s/^/D: $name |without --run: /" /tmp/assemble
		mdadm --stop $md > /dev/null 2>&1
		# shellcheck disable=SC2086
		mdadm --assemble --run --readonly $md $devs > /tmp/assemble 2>&1
		rc=$?
	fi
	get $sys/array_state
	if [ $rc != 0 ] || [ ! -e $sys/level ] || [ "$v" = inactive ]; then
		{ cat /tmp/assemble; cat /proc/mdstat; } | sed "s/^/D: $name |/"
		for d in $devs; do
			mdadm --examine "$d" 2>&1 | sed "s/^/D: $name |/"
		done
		mdadm --stop $md > /dev/null 2>&1
		echo "R: name=$name assembled=0 rc=$rc"
		continue
	fi
	readd=-
	if [ -n "$back" ]; then
		mdadm --readwrite $md > /dev/null 2>&1
		readd=0
		mdadm --re-add $md "$back" > /tmp/readd 2>&1 || { readd=1; sed "s/^/D: $name |re-add: /" /tmp/readd; }
		sleep 0.1
		idle
	fi
	# "none" unless the superblocks asked md to resync (a dirty array),
	# which would rewrite parity before the check could see it
	get $sys/resync_start
	resync=$v
	get $sys/level
	level=$v
	size=$(blockdev --getsize64 $md)
	if [ -n "$dump" ]; then
		sum="- dump=$dpos"
		dd if=$md of="$dump" bs=1M seek=$dpos iflag=direct oflag=direct 2> /tmp/dd ||
			{ sed "s/^/D: $name |dump: /" /tmp/dd; sum=-; }
		dpos=$((dpos + (size + 1048575) / 1048576))
	else
		sum=$(sha256sum $md)
		sum=${sum%% *}
	fi
	mdadm --readwrite $md > /tmp/rw 2>&1 || sed "s/^/D: $name |readwrite: /" /tmp/rw
	rwsync=-
	case $level in
	raid0 | linear) mm=n/a ;;
	*)
		# a resync or recovery md started once read-write would
		# make "check" fail: say so (check waits for it)
		get $sys/sync_action
		rwsync=$v
		[ "$v" = idle ] || echo "D: $name |sync_action once read-write: $v"
		# a dirty array is resynced once read-write, but md's thread
		# may start it only after a check was asked for, which would
		# then run first: wait for the resync to be done
		t=0
		get $sys/resync_start
		while [ "$resync" != none ] && [ "$v" != none ] && [ $t -lt 600 ]; do
			sleep 0.1
			t=$((t + 1))
			get $sys/resync_start
		done
		check
		;;
	esac
	# md and mdadm's view once the array is read-write and checked
	members=""
	for dev in "$sys"/dev-*; do
		[ -d "$dev" ] || continue
		get "$dev/state"
		members="$members,$v"
	done
	mdadm --detail $md > /tmp/detail 2>&1
	sed "s/^/D: $name |/" /tmp/detail
	[ -n "$MDVM_OUT" ] && cp /tmp/detail "$MDVM_OUT/$name/detail.txt"
	line="R: name=$name assembled=1 level=$level"
	for kv in raid_disks:raid_disks layout:layout chunk:chunk_size \
		metadata:metadata_version degraded:degraded array_state:array_state; do
		get "$sys/${kv#*:}"
		line="$line ${kv%%:*}=$v"
	done
	line="$line resync_start=$resync array_size=$size sha256=$sum mismatch_cnt=$mm norun=$norun"
	line="$line members=${members#,} $(detail_words)"
	# the write-intent bitmap: did md find it out of date, and what it
	# holds once md is done with it
	stale=0
	dmesg | grep -q "bitmap file is out of date" && stale=1
	# md's own sync passes over the array, in order ("-" for none)
	syncs=$(dmesg | sed -n 's/.*md: \([a-z-]*\) of RAID array.*/\1/p' | tr '\n' ',')
	syncs=${syncs%,}
	line="$line rw_sync=$rwsync bitmap_stale=$stale readd=$readd md_syncs=${syncs:--}"
	# mdadm -X only where md has a bitmap: an mdadm costs ~0.1 s here
	get $sys/bitmap/location
	bmloc=$v
	mdadm --stop $md > /tmp/stop 2>&1 || sed "s/^/D: $name |stop: /" /tmp/stop
	case $bmloc in
	none | -) line="$line bm_events=- bm_cleared=- bm_dirty=-" ;;
	*) line="$line $(bitmap_words "${devs%% *}")" ;;
	esac
	# the member md took back, as md left its superblock
	[ -n "$MDVM_OUT" ] && [ -n "$back" ] && mdadm --examine "$back" > "$MDVM_OUT/$name/examine-back.txt" 2>&1
	now
	echo "$line secs=$((v - start))"
done
exit 0
