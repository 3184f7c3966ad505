# runs inside the mdvm VM (busybox sh).  Two uses, one a boot:
#   mkfs STRIDE WIDTH: the first disk is the stripe plugin's NBD export
#     (mdvm run --disk-nbd SOCKET): mkfs.ext4 with md's stride and stripe
#     width on it, mounted, files written, unmounted, e2fsck -fn;
#   assemble: the disks are the array's members: md assembles them, checks
#     parity (mismatch_cnt), e2fsck -fn, mounts read-only.
# Both print "M: KEY=value" lines and "M: file=PATH sha256=..." for every
# file, so that the host compares what the kernel wrote through the export
# with what md reads from the members.  The host's side (tried by hand):
#   nbdkit -U SOCK stripe M0 M1 M2 M3; mdvm run --disk-nbd SOCK -- this mkfs 16 48;
#   kill nbdkit; stripe-check M... finds 0 and the array clean;
#   mdvm run --disk-snap M0 ... -- this assemble: the same file lines.
mode=$1
sums() {
	(cd "$1" && find . -type f | sort | while read -r f; do
		echo "M: file=${f#./} sha256=$(sha256sum "$f" | cut -d' ' -f1)"
	done)
}
fsck_rc() {
	e2fsck -fn "$1" > /tmp/fsck.txt 2>&1
	echo "M: e2fsck_rc=$?"
	sed 's/^/D: /' /tmp/fsck.txt
}
mkdir -p /mnt/fs
case $mode in
mkfs)
	dev=${MDVM_DISKS%% *}
	mkfs.ext4 -q -F -E stride="$2",stripe_width="$3" "$dev"
	echo "M: mkfs_rc=$?"
	mount -t ext4 "$dev" /mnt/fs
	echo "M: mount_rc=$?"
	mkdir /mnt/fs/dir
	dd if=/dev/urandom of=/mnt/fs/dir/random.bin bs=4096 count=733 2>/dev/null
	seq 1 200000 > /mnt/fs/numbers.txt
	i=0
	while [ $i -lt 50 ]; do
		echo "small file $i" > /mnt/fs/dir/small.$i
		i=$((i + 1))
	done
	sums /mnt/fs
	umount /mnt/fs
	echo "M: umount_rc=$?"
	fsck_rc "$dev"
	echo "M: stride=$(dumpe2fs -h "$dev" 2>/dev/null | sed -n 's/^RAID stride: *//p') stripe_width=$(dumpe2fs -h "$dev" 2>/dev/null | sed -n 's/^RAID stripe width: *//p')"
	;;
assemble)
	# shellcheck disable=SC2086
	mdadm --assemble --run /dev/md0 $MDVM_DISKS 2>&1
	echo "M: assemble_rc=$?"
	sys=/sys/block/md0/md
	[ -e $sys/level ] || exit 0
	echo "M: resync_start=$(cat $sys/resync_start)"
	echo check > $sys/sync_action
	sleep 0.2
	mdadm --wait /dev/md0 >/dev/null 2>&1
	while [ "$(cat $sys/sync_action)" != idle ]; do sleep 0.2; done
	echo "M: mismatch_cnt=$(cat $sys/mismatch_cnt)"
	fsck_rc /dev/md0
	mount -t ext4 -o ro /dev/md0 /mnt/fs
	echo "M: mount_rc=$?"
	sums /mnt/fs
	umount /mnt/fs
	mdadm --stop /dev/md0 >/dev/null 2>&1
	;;
esac
exit 0
