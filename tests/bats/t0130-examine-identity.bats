#!/usr/bin/env bats
# Which disk to pull: stripe-examine, stripe-verify and stripe-recover name
# each member's disk (model, serial, WWN, /dev/disk/by-id name, partition)
# from sysfs and udev's data, or say it is a file or a loop device over one.
# The fake trees of tests/fixtures/identity stand in for /sys, /run/udev and
# /dev; STRIPE_TEST_DEVNO makes the image members look like their devices.

bats_require_minimum_version 1.5.0
load helpers

# the six members of r6-6d-128k-ls-1.2 as: a SATA disk (sata: udev and
# sysfs), partition 1 of another (partition: sysfs and dev/disk/by-id, no
# udev record), an NVMe namespace, a virtio disk, a loop device, a file
DEVNOS=member0.img=8:0,member1.img=8:17,member2.img=259:0,member3.img=254:0,member4.img=7:0

# the fake trees merged into one root, and the three outputs of one array
setup_file() {
	fixtures_ready
	local t=$BATS_FILE_TMPDIR
	mkdir "$t/root"
	cp -a "$TOP"/tests/fixtures/identity/*/. "$t/root/"
	export STRIPE_SYSFS_ROOT=$t/root/sys STRIPE_UDEV_ROOT=$t/root/run/udev STRIPE_DEV_ROOT=$t/root/dev
	STRIPE_TEST_DEVNO=$DEVNOS stripe-examine "$FIX"/r6-6d-128k-ls-1.2/member*.img > "$t/text"
	STRIPE_TEST_DEVNO=$DEVNOS stripe-examine --json "$FIX"/r6-6d-128k-ls-1.2/member*.img > "$t/json"
	STRIPE_TEST_DEVNO=$DEVNOS stripe-examine --export "$FIX"/r6-6d-128k-ls-1.2/member*.img > "$t/export"
}

setup() {
	D=$BATS_TEST_TMPDIR
	T=$BATS_FILE_TMPDIR
	BYID=$STRIPE_DEV_ROOT/disk/by-id
}

# record N: the identity lines of member N's text record (between its
# path line and the superblock's first field)
record() {
	awk -v m="member$1.img:" 'index($0, m) && $0 ~ m "$" { on = 1; next } on && / Magic :/ { exit } on' "$T/text"
}

# identity N: member N's identity object from --json, one line
identity() {
	jq -c ".members[$1].identity" "$T/json"
}

@test "a SATA disk shows udev's whole model (not SCSI's 16 bytes), its serial, WWN and by-id name" {
	run record 0
	assert_output "         Member : disk sda
         Vendor : ATA
          Model : ST4000DM004-2CV104
         Serial : ZFN0ABCD
            WWN : 0x5000c500b1234567
          By-id : $BYID/ata-ST4000DM004-2CV104_ZFN0ABCD"
	run identity 0
	assert_output '{"kind":"disk","description":"disk sda: vendor ATA, model ST4000DM004-2CV104, serial ZFN0ABCD, WWN 0x5000c500b1234567, '"$BYID"'/ata-ST4000DM004-2CV104_ZFN0ABCD","major":8,"minor":0,"partition":null,"kernel_name":"sda","parent":null,"vendor":"ATA","model":"ST4000DM004-2CV104","serial":"ZFN0ABCD","wwn":"0x5000c500b1234567","by_id":"'"$BYID"'/ata-ST4000DM004-2CV104_ZFN0ABCD","backing_file":null}'
}

@test "a partition without a udev record shows its number and disk, sysfs's fields (the serial from VPD page 0x80) and its /dev/disk/by-id link" {
	run record 1
	assert_output "         Member : partition 1 of disk sdb
         Vendor : ATA
          Model : WDC WD40EFRX-68N
         Serial : WD-WCC7K1234567
            WWN : naa.50014ee2b1234567
          By-id : $BYID/ata-WDC_WD40EFRX-68N32N0_WD-WCC7K1234567-part1"
	run identity 1
	assert_output '{"kind":"partition","description":"partition 1 of disk sdb: vendor ATA, model WDC WD40EFRX-68N, serial WD-WCC7K1234567, WWN naa.50014ee2b1234567, '"$BYID"'/ata-WDC_WD40EFRX-68N32N0_WD-WCC7K1234567-part1","major":8,"minor":17,"partition":1,"kernel_name":"sdb1","parent":"sdb","vendor":"ATA","model":"WDC WD40EFRX-68N","serial":"WD-WCC7K1234567","wwn":"naa.50014ee2b1234567","by_id":"'"$BYID"'/ata-WDC_WD40EFRX-68N32N0_WD-WCC7K1234567-part1","backing_file":null}'
}

@test "an NVMe namespace shows its model and serial, its EUI as WWN, and the model-and-serial by-id name rather than the EUI's" {
	run record 2
	assert_output "         Member : disk nvme0n1
          Model : Samsung SSD 970 EVO Plus 1TB
         Serial : S4EWNX0R123456A
            WWN : eui.0025388b91b8a2c1
          By-id : $BYID/nvme-Samsung_SSD_970_EVO_Plus_1TB_S4EWNX0R123456A"
	run identity 2
	assert_output '{"kind":"disk","description":"disk nvme0n1: model Samsung SSD 970 EVO Plus 1TB, serial S4EWNX0R123456A, WWN eui.0025388b91b8a2c1, '"$BYID"'/nvme-Samsung_SSD_970_EVO_Plus_1TB_S4EWNX0R123456A","major":259,"minor":0,"partition":null,"kernel_name":"nvme0n1","parent":null,"vendor":null,"model":"Samsung SSD 970 EVO Plus 1TB","serial":"S4EWNX0R123456A","wwn":"eui.0025388b91b8a2c1","by_id":"'"$BYID"'/nvme-Samsung_SSD_970_EVO_Plus_1TB_S4EWNX0R123456A","backing_file":null}'
}

@test "a virtio disk shows the serial its host gave and its by-id name, and no model or WWN" {
	run record 3
	assert_output "         Member : disk vda
         Serial : VDSK0123456789
          By-id : $BYID/virtio-VDSK0123456789"
	run identity 3
	assert_output '{"kind":"disk","description":"disk vda: serial VDSK0123456789, '"$BYID"'/virtio-VDSK0123456789","major":254,"minor":0,"partition":null,"kernel_name":"vda","parent":null,"vendor":null,"model":null,"serial":"VDSK0123456789","wwn":null,"by_id":"'"$BYID"'/virtio-VDSK0123456789","backing_file":null}'
}

@test "a loop device says which file it is over" {
	run record 4
	assert_output "         Member : loop device loop0 over /srv/images/disk4.img"
	run identity 4
	assert_output '{"kind":"loop","description":"loop device loop0 over /srv/images/disk4.img","major":7,"minor":0,"partition":null,"kernel_name":"loop0","parent":null,"vendor":null,"model":null,"serial":null,"wwn":null,"by_id":null,"backing_file":"/srv/images/disk4.img"}'
}

@test "an image file says it is a file, with every other field null" {
	run record 5
	assert_output "         Member : file"
	run identity 5
	assert_output '{"kind":"file","description":"file","major":null,"minor":null,"partition":null,"kernel_name":null,"parent":null,"vendor":null,"model":null,"serial":null,"wwn":null,"by_id":null,"backing_file":null}'
}

@test "--export gives each member's path, role and identity as shell-quoted lines an eval reads back" {
	eval "$(cat "$T/export")"
	[ "$STRIPE_MEMBERS" = 6 ]
	[ "$STRIPE_MEMBER_0_SERIAL" = ZFN0ABCD ] && [ "$STRIPE_MEMBER_0_ROLE" = 0 ] && [ "$STRIPE_MEMBER_0_KIND" = disk ]
	[ "$STRIPE_MEMBER_0_WWN" = 0x5000c500b1234567 ] && [ "$STRIPE_MEMBER_0_BY_ID" = "$BYID/ata-ST4000DM004-2CV104_ZFN0ABCD" ]
	[ "$STRIPE_MEMBER_1_PARTITION" = 1 ] && [ "$STRIPE_MEMBER_1_PARENT" = sdb ] && [ "$STRIPE_MEMBER_1_KIND" = partition ]
	[ "$STRIPE_MEMBER_2_MODEL" = "Samsung SSD 970 EVO Plus 1TB" ] && [ "$STRIPE_MEMBER_2_SERIAL" = S4EWNX0R123456A ]
	[ "$STRIPE_MEMBER_3_SERIAL" = VDSK0123456789 ] && [ -z "$STRIPE_MEMBER_3_MODEL" ] && [ -z "$STRIPE_MEMBER_3_WWN" ]
	[ "$STRIPE_MEMBER_4_KIND" = loop ] && [ "$STRIPE_MEMBER_4_BACKING_FILE" = /srv/images/disk4.img ]
	[ "$STRIPE_MEMBER_5_KIND" = file ] && [ "$STRIPE_MEMBER_5_PATH" = "$FIX/r6-6d-128k-ls-1.2/member5.img" ]
	[ "$STRIPE_MEMBER_5_DESCRIPTION" = file ] && [ "$STRIPE_MEMBER_5_STATE" = active ] && [ "$STRIPE_LEVEL" = raid6 ]
}

@test "hostile trees: control bytes, overlong values and lines, FIFOs, a link loop and a by-id name with a slash are bounded and cleaned" {
	local r=$D/r s
	s=$r/sys/devices/x/block/sdz
	mkdir -p "$s/sdz1" "$s/dev0" "$r/sys/dev/block" "$r/run/udev/data" "$r/dev"
	ln -s ../../devices/x/block/sdz/sdz1 "$r/sys/dev/block/8:1"
	ln -s 9:9 "$r/sys/dev/block/9:9"
	ln -s ../dev0 "$s/sdz1/device"
	printf 'bad\n' > "$s/sdz1/partition"
	printf 'A\001B\tC%0300d\n' 0 > "$s/dev0/model"
	mkfifo "$s/dev0/serial"
	# udev: a 5000-byte line (skipped whole, its tail too), then a valid key and a link outside by-id
	awk 'BEGIN { printf "E:ID_SERIAL_SHORT="; for (i = 0; i < 5000; i++) printf "x"
		print "E:ID_WWN=tail-of-the-long-line"; print "E:ID_WWN=0x1\\x07"
		print "S:disk/by-id/../../etc/passwd"; print "E:ID_PART_ENTRY_NUMBER=99999999" }' > "$r/run/udev/data/b8:1"
	STRIPE_SYSFS_ROOT=$r/sys STRIPE_UDEV_ROOT=$r/run/udev STRIPE_DEV_ROOT=$r/dev \
		STRIPE_TEST_DEVNO=member0.img=8:1,member1.img=9:9 run -0 timeout 10 stripe-examine --json \
		"$FIX"/r6-6d-128k-ls-1.2/member*.img
	run jq -c '.members[0].identity | [.kind, .partition, .model, .serial, .wwn, .by_id]' <<<"$output"
	model=$(printf 'A?B?C%0122d' 0)
	assert_output '["disk",null,"'"$model"'",null,"0x1\\x07",null]'
	STRIPE_SYSFS_ROOT=$r/sys STRIPE_UDEV_ROOT=$r/run/udev STRIPE_DEV_ROOT=$r/dev \
		STRIPE_TEST_DEVNO=member0.img=8:1,member1.img=9:9 run -0 timeout 10 stripe-examine \
		"$FIX"/r6-6d-128k-ls-1.2/member*.img
	assert_line "         Member : block device 9:9"
	# udev's record a FIFO: not waited on
	mkfifo "$r/run/udev/data/b9:9"
	STRIPE_SYSFS_ROOT=$r/sys STRIPE_UDEV_ROOT=$r/run/udev STRIPE_DEV_ROOT=$r/dev \
		STRIPE_TEST_DEVNO=member1.img=9:9 run -0 timeout 10 stripe-examine "$FIX"/r6-6d-128k-ls-1.2/member*.img
	assert_line "         Member : block device 9:9"
}

@test "a real loop device over an image names its file, from the machine's own /sys" {
	[ "$(id -u)" = 0 ] || skip "losetup needs root"
	local loop m=("$FIX"/r6-6d-128k-ls-1.2/member*.img)
	cp "${m[2]}" "$D/disk2.img"
	loop=$(losetup -f --show -r "$D/disk2.img") || skip "no loop device available"
	run env -u STRIPE_SYSFS_ROOT -u STRIPE_UDEV_ROOT -u STRIPE_DEV_ROOT stripe-examine --json \
		"${m[0]}" "${m[1]}" "$loop" "${m[3]}" "${m[4]}" "${m[5]}"
	losetup -d "$loop"
	assert_success
	run jq -c '.members[2].identity | [.kind, .kernel_name, .backing_file, .description]' <<<"$output"
	assert_output '["loop","'"${loop#/dev/}"'","'"$D/disk2.img"'","loop device '"${loop#/dev/} over $D/disk2.img"'"]'
}

@test "stripe-verify names the disk of each role and of the member left out, in its text and its JSON" {
	plain_suite_only
	STRIPE_TEST_DEVNO=member0.img=8:0,member1.img=8:17,member2.img=259:0,member3.img=7:0 run -1 \
		stripe-verify --json="$D/r.json" --no-files "$FIX"/r5-4d-degraded/member*.img
	assert_line "  role 1: $FIX/r5-4d-degraded/member1.img (partition 1 of disk sdb: vendor ATA, model WDC WD40EFRX-68N, serial WD-WCC7K1234567, WWN naa.50014ee2b1234567, $BYID/ata-WDC_WD40EFRX-68N32N0_WD-WCC7K1234567-part1)"
	assert_line "  role 3: $FIX/r5-4d-degraded/member3.img (loop device loop0 over /srv/images/disk4.img)"
	assert_line --regexp "^  left out: $FIX/r5-4d-degraded/member2.img \(disk nvme0n1: model Samsung SSD 970 EVO Plus 1TB, serial S4EWNX0R123456A, WWN eui.0025388b91b8a2c1, .*\): stale: events 21"
	run jq -c '[.members[0].identity.serial, .members[2].identity, .left_out[0].identity.serial]' "$D/r.json"
	assert_output '["ZFN0ABCD",null,"S4EWNX0R123456A"]'
}

@test "stripe-recover names the disk of the role it would rebuild, and its report lists it" {
	plain_suite_only
	STRIPE_TEST_DEVNO=member2.img=8:17 run -0 stripe-recover --dry-run --json="$D/r.json" "$FIX"/r5-4d-degraded/member*.img
	assert_line "  role 2: $FIX/r5-4d-degraded/member2.img (partition 1 of disk sdb: vendor ATA, model WDC WD40EFRX-68N, serial WD-WCC7K1234567, WWN naa.50014ee2b1234567, $BYID/ata-WDC_WD40EFRX-68N32N0_WD-WCC7K1234567-part1): stale: events 21, the array is at 28 (role 2 was given up while it was away)"
	run jq -c '.left_out[] | [.path, .role, .identity.kind, .identity.partition, .identity.parent, .identity.serial]' "$D/r.json"
	assert_output '["'"$FIX"'/r5-4d-degraded/member2.img",2,"partition",1,"sdb","WD-WCC7K1234567"]'
}
