# runs inside the mdvm VM (busybox sh): $1 = how many of $MDVM_DISKS make
# the first array, the rest make the second; each is assembled, checked
# (mismatch_cnt), e2fsck'd and mounted, and the sha256 of every file in it
# printed as "M: ARRAY file=PATH sha256=..." lines.
n=$1
set -- $MDVM_DISKS
first="" second="" i=0
for d in $MDVM_DISKS; do
	if [ $i -lt $n ]; then first="$first $d"; else second="$second $d"; fi
	i=$((i + 1))
done
look() {
	name=$1 md=$2
	shift 2
	# shellcheck disable=SC2086
	mdadm --assemble --run $md "$@" 2>&1
	echo "M: $name assemble_rc=$?"
	sys=/sys/block/${md#/dev/}/md
	[ -e $sys/level ] || return
	echo "M: $name resync_start=$(cat $sys/resync_start) degraded=$(cat $sys/degraded)"
	echo check > $sys/sync_action
	sleep 0.2
	mdadm --wait $md >/dev/null 2>&1
	while [ "$(cat $sys/sync_action)" != idle ]; do sleep 0.2; done
	echo "M: $name mismatch_cnt=$(cat $sys/mismatch_cnt)"
	e2fsck -fn $md > /tmp/fsck.txt 2>&1
	echo "M: $name e2fsck_rc=$?"
	sed "s/^/D: $name | /" /tmp/fsck.txt
	echo "M: $name stride=$(dumpe2fs -h $md 2>/dev/null | sed -n 's/^RAID stride: *//p') stripe_width=$(dumpe2fs -h $md 2>/dev/null | sed -n 's/^RAID stripe width: *//p')"
	mkdir -p /mnt/$name
	mount -t ext4 -o ro $md /mnt/$name
	echo "M: $name mount_rc=$?"
	(cd /mnt/$name && find . -type f | sort | while read -r f; do
		echo "M: $name file=${f#./} sha256=$(sha256sum "$f" | cut -d' ' -f1)"
	done)
	umount /mnt/$name
	mdadm --stop $md >/dev/null 2>&1
}
# shellcheck disable=SC2086
look whole /dev/md0 $first
# shellcheck disable=SC2086
look degraded /dev/md1 $second
exit 0
