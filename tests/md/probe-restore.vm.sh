# probe-restore.vm.sh: runs inside the mdvm VM (busybox sh), for
# t9800-md-restores-what-stripe-probe-finds.bats.  Its arguments are pairs
# NAME LINE: LINE is the mdadm --create line stripe-probe printed for the
# array NAME, its members already spelt as this VM's disks.  Each is run as
# printed (the md device it names is taken as given), then md reads the
# array whole, e2fsck looks at its filesystem without changing it, and md
# checks its parity:
#   "R: name=NAME create_rc=N sha256=HEX fsck_rc=N mismatch_cnt=N"

# sysfs MD FILE: md's FILE for MD, or - when there is none.
sysfs() {
	cat "/sys/block/$(basename "$(readlink -f "$1")")/md/$2" 2> /dev/null || echo -
}

restore() {
	local name=$1 line=$2 md rc sum fsck mism
	md=$(echo "$line" | sed -n 's/^mdadm --create \([^ ]*\) .*/\1/p')
	mkdir -p /dev/md
	eval "$line" > "/tmp/$name.create" 2>&1
	rc=$?
	sed "s/^/D: $name | /" "/tmp/$name.create"
	if [ "$rc" -ne 0 ] || [ ! -b "$md" ]; then
		echo "R: name=$name create_rc=$rc sha256=- fsck_rc=- mismatch_cnt=-"
		return
	fi
	sum=$(sha256sum < "$md" | cut -d' ' -f1)
	e2fsck -fn "$md" > "/tmp/$name.fsck" 2>&1
	fsck=$?
	sed "s/^/F: $name | /" "/tmp/$name.fsck" | tail -n 3
	echo check > "/sys/block/$(basename "$(readlink -f "$md")")/md/sync_action" 2> /dev/null
	sleep 1
	mdadm --wait "$md" > /dev/null 2>&1
	mism=$(sysfs "$md" mismatch_cnt)
	echo "R: name=$name create_rc=$rc sha256=$sum fsck_rc=$fsck mismatch_cnt=$mism"
	mdadm --stop "$md" > /dev/null 2>&1
}

while [ $# -ge 2 ]; do
	restore "$1" "$2"
	shift 2
done
