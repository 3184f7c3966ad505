# md-badblocks.vm.sh: runs inside the mdvm VM (busybox sh).  md's own
# bad-block log, made and judged by md, for t9500-md-badblocks.bats.
#
#   log SECTOR COUNT: the four disks are an array; md logs COUNT sectors
#	from SECTOR of its second member as bad through sysfs and records
#	the log in the superblocks as it stops.
#   judge: the disks are two arrays of four.  Of each, mdadm
#	--examine-badblocks of its second member as "B: set=N |..." lines
#	(before md's check, which rewrites and clears what it finds logged),
#	then one line "J: set=N sha256=HEX mismatch_cnt=N" after md read it
#	whole and checked it.

# members N: the N-th four of the attached disks.
members() {
	echo "$MDVM_DISKS" | tr ' ' '\n' | sed -n "$(($1 * 4 + 1)),$(($1 * 4 + 4))p" | tr '\n' ' '
}

second() {
	members "$1" | cut -d' ' -f2
}

log_bad() {
	mdadm --assemble --run /dev/md0 $(members 0) || exit 1
	b=$(second 0)
	echo "$1 $2" > /sys/block/md0/md/dev-${b#/dev/}/bad_blocks || exit 1
	sed 's/^/L: /' /sys/block/md0/md/dev-${b#/dev/}/bad_blocks
	# md writes the log with the superblock, which a write marks dirty:
	# the first page of the array written back as it is
	dd if=/dev/md0 of=/tmp/page bs=4096 count=1 2> /dev/null
	dd if=/tmp/page of=/dev/md0 bs=4096 count=1 conv=notrunc,fsync 2> /dev/null
	mdadm --stop /dev/md0 || exit 1
	mdadm --examine-badblocks "$b" | sed 's/^/B: set=0 |/'
}

judge() {
	for n in 0 1; do
		md=/dev/md$n
		mdadm --examine-badblocks "$(second $n)" | sed "s/^/B: set=$n |/"
		mdadm --assemble --run "$md" $(members $n) > /dev/null 2>&1 || { echo "J: set=$n assembled=0"; continue; }
		sha=$(sha256sum "$md" | cut -d' ' -f1)
		echo check > /sys/block/md$n/md/sync_action
		mdadm --wait "$md" > /dev/null 2>&1
		read -r mm < /sys/block/md$n/md/mismatch_cnt
		mdadm --stop "$md" > /dev/null 2>&1
		echo "J: set=$n sha256=$sha mismatch_cnt=$mm"
	done
}

case $1 in
log) log_bad "$2" "$3" ;;
judge) judge ;;
esac
