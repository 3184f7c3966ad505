/* test_manage_ops: the superblock operations behind stripe-manage on
 * superblocks made in memory: the device number and table entry md gives
 * a hot spare, a member recorded faulty and then removed (0.90's table of
 * disks recounted as super_90_sync counts it), and the bytes mdadm
 * --zero-superblock writes. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "md/super.h"
#include "tap.h"

#define DEV_SECTORS 40960            /* a 20 MiB member */

static const uint8_t uuid[16] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };

/* Member number of a clean four-member raid5, disk N at 254:16N. */
static void new_member(struct md_super *sb, int major, int minor, int number)
{
	const struct super_ops *o = super_ops_of(major);
	struct super_slot slot[4];
	struct super_array a = {
		.uuid = uuid, .name = "t", .now = 1700000000, .level = 5, .layout = 2,
		.raid_disks = 4, .chunk_sectors = 128, .minor = minor, .n = 4, .slot = slot,
	};
	int i;

	for (i = 0; i < 4; i++)
		slot[i] = (struct super_slot){ .present = true, .role = i, .rdev_major = 254,
					       .rdev_minor = 16 * (uint32_t)i };
	a.data_offset = o->default_data_offset(minor, DEV_SECTORS, a.chunk_sectors);
	a.size = o->data_room(minor, DEV_SECTORS, a.data_offset) / 128 * 128;
	memset(sb, 0, sizeof(*sb));
	o->new_member(sb, &a, number, DEV_SECTORS);
	o->summarise(sb);
}

static int spare_of(struct md_super *spare, const struct md_super *ref, const int *taken, int ntaken)
{
	struct super_joiner j = { .path = "spare.img", .role = ROLE_SPARE, .dev_sectors = DEV_SECTORS,
				  .taken = taken, .ntaken = ntaken, .rdev_major = 254, .rdev_minor = 64 };
	struct diag d;

	memset(spare, 0, sizeof(*spare));
	return super_ops_of(ref->major)->spare(spare, ref, &j, &d);
}

static void test_spare_number_1x(void)
{
	struct md_super ref, spare;
	int taken[] = { 0, 1, 2, 3 };

	new_member(&ref, 1, 2, 0);
	ok(spare_of(&spare, &ref, taken, 4) == 0 && spare.dev_number == 4 && spare.role == ROLE_SPARE,
	   "1.x: a spare takes the first free device number from raid_disks up (%d)", spare.dev_number);
	taken[0] = 4;
	ok(spare_of(&spare, &ref, taken, 4) == 0 && spare.dev_number == 5,
	   "1.x: past a number a member given holds (%d), as md's bind_rdev_to_array", spare.dev_number);
	ok(!(spare.feature_map & SB1_FEAT_RECOVERY_OFFSET) && spare.data_offset == ref.data_offset &&
	   memcmp(spare.device_uuid, ref.device_uuid, 16) != 0,
	   "1.x: the spare records no recovery, keeps the members' data offset and has its own UUID");
}

static void test_spare_090(void)
{
	struct md_super ref, spare;
	struct sb0_view v;

	new_member(&ref, 0, 90, 0);
	ok(spare_of(&spare, &ref, NULL, 0) == 0, "0.90: a spare's superblock is made");
	super0_view(&spare, &v);
	ok(v.this_disk.number == 4 && v.this_disk.raid_disk == 4 && v.this_disk.state == 0 &&
	   v.this_disk.major == 254 && v.this_disk.minor == 64,
	   "0.90: the spare is disk 4 past the roles, raid_disk 4, no state bits, its major:minor");
	ok(v.nr_disks == 5 && v.active == 4 && v.working == 5 && v.failed == 0 && v.spare == 1,
	   "0.90: the table counts 5 disks, 4 active, 5 working, 1 spare");
	super_ops_of(0)->record_spare(&ref, &spare);
	super0_view(&ref, &v);
	ok(v.disk[4].number == 4 && v.disk[4].minor == 64 && v.spare == 1 && v.this_disk.number == 0,
	   "0.90: a member records the spare in its table, its own disk unchanged");
}

static void test_fail_remove_090(void)
{
	const struct super_ops *o = super_ops_of(0);
	struct md_super sb, failed;
	struct sb0_view v;

	new_member(&sb, 0, 90, 0);
	new_member(&failed, 0, 90, 1);
	o->record_faulty(&sb, &failed);
	super0_view(&sb, &v);
	ok(v.disk[1].state == (1u << SB0_DS_FAULTY | 1u << SB0_DS_REMOVED) && v.disk[1].major == 0,
	   "0.90: the failed role's slot is faulty removed, no major:minor");
	ok(v.disk[4].state == 1u << SB0_DS_FAULTY && v.disk[4].number == 4 && v.disk[4].minor == 16,
	   "0.90: the failed device is listed faulty past the roles with its major:minor");
	ok(v.nr_disks == 4 && v.active == 3 && v.working == 3 && v.failed == 1 && v.spare == 0,
	   "0.90: 4 disks, 3 active, 3 working, 1 failed, as md counts them");
	ok(o->role_of(&sb, 1) == ROLE_FAULTY, "0.90: the failed member's number reads faulty");
	o->record_removed(&sb, &failed);
	super0_view(&sb, &v);
	ok(v.disk[4].state == 0 && v.disk[4].minor == 0 && v.nr_disks == 3 && v.failed == 1,
	   "0.90: removed, its entry is cleared and the disks recounted; the slot stays failed");
}

static void test_fail_remove_1x(void)
{
	const struct super_ops *o = super_ops_of(1);
	struct md_super sb, failed;

	new_member(&sb, 1, 2, 0);
	new_member(&failed, 1, 2, 2);
	o->record_faulty(&sb, &failed);
	ok(sb.raw.v1.dev_roles[2] == SB1_ROLE_FAULTY, "1.x: a failed member's role is 0xfffe");
	o->record_removed(&sb, &failed);
	ok(sb.raw.v1.dev_roles[2] == SB1_ROLE_SPARE, "1.x: removed, its number is 0xffff, as no device");
}

static void test_remove_faulty(int major, int minor)
{
	const struct super_ops *o = super_ops_of(major);
	struct md_super sb, failed;

	new_member(&sb, major, minor, 0);
	new_member(&failed, major, minor, 3);
	ok(o->remove_faulty(&sb) == 0, "%d.%d: no faulty device, none removed", major, minor);
	o->record_faulty(&sb, &failed);
	ok(o->remove_faulty(&sb) == 1 && o->remove_faulty(&sb) == 0,
	   "%d.%d: the one faulty device is removed once", major, minor);
}

static void test_zeroed_bytes(void)
{
	ok(super_ops_of(1)->zeroed_bytes(512) == 512 && super_ops_of(1)->zeroed_bytes(4096) == 4096,
	   "1.x: mdadm zeroes 512 bytes, or one 4 KiB logical sector");
	ok(super_ops_of(0)->zeroed_bytes(512) == 4096, "0.90: mdadm zeroes the 4 KiB superblock");
}

int main(void)
{
	test_spare_number_1x();
	test_spare_090();
	test_fail_remove_090();
	test_fail_remove_1x();
	test_remove_faulty(1, 2);
	test_remove_faulty(0, 90);
	test_zeroed_bytes();
	return tap_done();
}
