# batch-assemble.vm.sh: runs inside the mdvm VM (busybox sh).  Assembles
# many arrays in one boot, one after the other.
#
# Arguments: NAME:COUNT ...  The attached disks ($MDVM_DISKS, in order) are
# the members of the arrays in argument order: the first COUNT disks belong
# to the first NAME, and so on.
#
# For each array: mdadm --examine of each member (into $MDVM_OUT/NAME/ when
# there is an out dir), mdadm --assemble without --run (norun=1 when that
# starts it, as at boot) and stopped again, mdadm --assemble --run --readonly, mdadm --detail
# (lines "D: NAME |..."), the sha256 of the whole array, mdadm --readwrite,
# a "check" through sync_action (not for raid0), mdadm --stop, and one
# machine-readable line:
#
#   R: name=NAME assembled=1 level=raid5 raid_disks=4 layout=2 chunk=65536
#      metadata=1.2 degraded=0 array_state=clean resync_start=none
#      array_size=BYTES sha256=HEX mismatch_cnt=0 norun=1 members=in_sync,...
#      d_level=raid5 d_raid_devices=4 d_chunk=64K d_layout=left-symmetric
#      d_state=clean d_version=1.2 d_members=active_sync,active_sync,... secs=S
#
# (on one line; "d_" are mdadm --detail's words, spaces as "_", ", " as
# ","; "-" where --detail prints no such field).  An array that does not
# assemble gives "R: name=NAME assembled=0 rc=N" and its messages as
# "D: NAME |..." lines.

disks=$MDVM_DISKS
k=0

# dv KEY: a field of the saved mdadm --detail output, one word.
dv() {
	v=$(sed -n "s/^ *$1 : //p" /tmp/detail | head -n 1 | sed 's/ *$//; s/, /,/g; s/ /_/g')
	echo "${v:--}"
}

# idle: waits (at most a minute) for the array's sync_action to be idle.
idle() {
	mdadm --wait $md > /dev/null 2>&1
	t=0
	while [ "$(cat $sys/sync_action)" != idle ] && [ $t -lt 600 ]; do
		sleep 0.1
		t=$((t + 1))
	done
}

for spec in "$@"; do
	name=${spec%%:*}
	n=${spec##*:}
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
	md=/dev/md$k
	sys=/sys/block/md$k/md
	k=$((k + 1))
	start=$(date +%s)
	echo "B: name=$name devices=$(echo "$devs" | tr ' ' ,)"
	if [ -n "$MDVM_OUT" ]; then
		mkdir -p "$MDVM_OUT/$name"
		i=0
		for d in $devs; do
			mdadm --examine "$d" > "$MDVM_OUT/$name/examine-$i.txt" 2>&1
			i=$((i + 1))
		done
	fi
	# as at boot, without --run: mdadm starts an array only when no member
	# the superblocks count as active is missing
	# shellcheck disable=SC2086
	mdadm --assemble --readonly $md $devs > /tmp/assemble 2>&1
	norun=0
	[ -e $sys/array_state ] && [ "$(cat $sys/array_state)" != inactive ] && norun=1
	[ $norun = 1 ] || sed "s/^/D: $name |without --run: /" /tmp/assemble
	mdadm --stop $md > /dev/null 2>&1
	# read-only first: md starts no resync and writes nothing until
	# --readwrite below, so resync_start shows what the superblocks say
	# shellcheck disable=SC2086
	mdadm --assemble --run --readonly $md $devs > /tmp/assemble 2>&1
	rc=$?
	if [ $rc != 0 ] || [ ! -e $sys/level ] || [ "$(cat $sys/array_state)" = inactive ]; then
		{ cat /tmp/assemble; cat /proc/mdstat; } | sed "s/^/D: $name |/"
		for d in $devs; do
			mdadm --examine "$d" 2>&1 | sed "s/^/D: $name |/"
		done
		mdadm --stop $md > /dev/null 2>&1
		echo "R: name=$name assembled=0 rc=$rc"
		continue
	fi
	# "none" unless the superblocks asked md to resync (a dirty array),
	# which would rewrite parity before the check could see it
	resync=$(cat $sys/resync_start 2> /dev/null)
	level=$(cat $sys/level)
	size=$(blockdev --getsize64 $md)
	sum=$(sha256sum $md | cut -d' ' -f1)
	mdadm --readwrite $md > /tmp/rw 2>&1 || sed "s/^/D: $name |readwrite: /" /tmp/rw
	case $level in
	raid0 | linear) mm=n/a ;;
	*)
		# a resync or recovery md started once read-write would
		# make "check" fail: say so, and let it finish first
		sa=$(cat $sys/sync_action)
		if [ "$sa" != idle ]; then
			echo "D: $name |sync_action once read-write: $sa"
			idle
		fi
		if echo check > $sys/sync_action 2> /dev/null; then
			sleep 0.1
			idle
			mm=$(cat $sys/mismatch_cnt)
		else
			mm=refused
		fi
		;;
	esac
	# md and mdadm's view once the array is read-write and checked
	members=""
	for dev in "$sys"/dev-*; do
		[ -d "$dev" ] || continue
		members="$members,$(cat "$dev/state")"
	done
	mdadm --detail $md > /tmp/detail 2>&1
	sed "s/^/D: $name |/" /tmp/detail
	[ -n "$MDVM_OUT" ] && cp /tmp/detail "$MDVM_OUT/$name/detail.txt"
	# the device table: "Number Major Minor RaidDevice State... /dev/vdX"
	dmembers=$(sed -n 's/^ *[0-9-]\{1,\} \{1,\}[0-9]\{1,\} \{1,\}[0-9]\{1,\} \{1,\}[0-9-]\{1,\} \{1,\}\(.*[^ ]\) \{1,\}\/dev\/.*/\1/p' /tmp/detail \
		| sed 's/  */_/g' | tr '\n' , | sed 's/,$//')
	line="R: name=$name assembled=1 level=$level"
	for kv in raid_disks:raid_disks layout:layout chunk:chunk_size \
		metadata:metadata_version degraded:degraded array_state:array_state; do
		v=$(tr ' ' _ 2> /dev/null < "$sys/${kv#*:}")
		line="$line ${kv%%:*}=${v:--}"
	done
	line="$line resync_start=${resync:--} array_size=$size sha256=$sum mismatch_cnt=$mm norun=$norun"
	line="$line members=${members#,}"
	line="$line d_level=$(dv 'Raid Level') d_raid_devices=$(dv 'Raid Devices')"
	line="$line d_chunk=$(dv 'Chunk Size') d_layout=$(dv Layout) d_state=$(dv State)"
	line="$line d_version=$(dv Version) d_members=${dmembers:--}"
	mdadm --stop $md > /tmp/stop 2>&1 || sed "s/^/D: $name |stop: /" /tmp/stop
	echo "$line secs=$(($(date +%s) - start))"
done
exit 0
