/* test_super_ops: the superblock operations tables on superblocks made in
 * memory: where each version places superblock, data and bad-block log,
 * how a new member and a replacement are recorded, and the bad-block log's
 * bytes. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "md/badblocks.h"
#include "md/super.h"
#include "util/endian.h"
#include "tap.h"

#define DEV_SECTORS 40960            /* a 20 MiB member */

static const uint8_t uuid[16] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };

/* Member number of a four-member raid5 (role = number), role 1 missing
 * when degraded, built as create builds it. */
static void new_member(struct md_super *sb, int major, int minor, int number, bool degraded)
{
	const struct super_ops *o = super_ops_of(major);
	struct super_slot slot[4];
	struct super_array a = {
		.uuid = uuid, .name = "t", .now = 1700000000, .level = 5, .layout = 2,
		.raid_disks = 4, .chunk_sectors = 128, .minor = minor, .n = 4, .slot = slot,
	};
	int i;

	for (i = 0; i < 4; i++)
		slot[i] = (struct super_slot){ .present = !(degraded && i == 1), .role = i };
	a.data_offset = o->default_data_offset(minor, DEV_SECTORS, a.chunk_sectors);
	a.size = o->data_room(minor, DEV_SECTORS, a.data_offset) / 128 * 128;
	memset(sb, 0, sizeof(*sb));
	o->new_member(sb, &a, number, DEV_SECTORS);
	super_seal(sb);
}

static void test_placement_10(void)
{
	struct md_super sb;

	new_member(&sb, 1, 0, 0, false);
	ok(sb.sb_sector == ((DEV_SECTORS - 16) & ~7ULL) && sb.sb_sector == sb1_location(0, DEV_SECTORS),
	   "1.0 keeps its superblock 8 KiB from the end, 4 KiB aligned (sector %llu)",
	   (unsigned long long)sb.sb_sector);
	ok((int32_t)sb.raw.v1.bblog_offset == -MD_BBLOG_SECTORS && sb.raw.v1.bblog_size == MD_BBLOG_SECTORS,
	   "1.0 puts its bad-block log of %d sectors just below the superblock", MD_BBLOG_SECTORS);
	ok(sb.data_offset == 0 && sb.data_size + MD_BBLOG_SECTORS + 8 <= sb.sb_sector,
	   "1.0 data starts at 0 and ends below the bitmap's room and the log");
}

static void test_placement_12(void)
{
	struct md_super sb;

	new_member(&sb, 1, 2, 0, false);
	ok(sb.sb_sector == 8 && sb.data_offset == 2048,
	   "1.2 keeps its superblock at 4 KiB and data at mdadm's 1 MiB on a 20 MiB member");
	ok(sb.raw.v1.bblog_offset == 16 && sb.raw.v1.bblog_size == MD_BBLOG_SECTORS,
	   "1.2 puts its bad-block log after the superblock and the bitmap's room");
	ok(sb.data_size == DEV_SECTORS - 2048, "1.2 data runs to the end of the member");
}

static void test_places(void)
{
	uint64_t where[SUPER_PLACES];

	super_places(DEV_SECTORS, where);
	ok(where[0] == 8 && where[1] == 0 && where[2] == sb1_location(0, DEV_SECTORS) &&
	   where[3] == sb0_location(DEV_SECTORS),
	   "super_places lists 1.2, 1.1, 1.0 and 0.90's sectors");
}

/* Encodes sb, decodes the bytes with its version's table and compares. */
static void test_round_trip(int major, int minor)
{
	const struct super_ops *o = super_ops_of(major);
	struct md_super sb, back;
	uint8_t buf[4096];
	struct diag d;
	size_t len;

	new_member(&sb, major, minor, 2, true);
	super_encode(&sb, buf, &len);
	memset(&back, 0, sizeof(back));
	back.minor = minor;
	back.sb_sector = sb.sb_sector;
	back.dev_sectors = sb.dev_sectors;
	back.major = major;
	ok(o->decode(buf, &back, &d) == 0 && o->validate(&back, "m2", &d) == 0,
	   "a new %d.%d member decodes and validates", major, minor);
	o->summarise(&back);
	ok(back.role == 2 && back.dev_number == 2 && back.events == 1 &&
	   memcmp(back.uuid, uuid, 16) == 0 && back.csum_stored == back.csum_computed,
	   "a new %d.%d member reads back its role, number, events, UUID and checksum", major, minor);
	ok(super_role_of(&back, 1) != 1, "a missing member of %d.%d holds no role", major, minor);
}

static void test_replacement_1x(void)
{
	struct md_super ref, t;
	const int taken[] = { 0, 2, 3 };
	struct super_joiner j = {
		.path = "new", .role = 1, .resume = 4096, .dev_sectors = DEV_SECTORS,
		.taken = taken, .ntaken = 3,
	};
	struct diag d;

	new_member(&ref, 1, 2, 0, true);
	memset(&t, 0, sizeof(t));
	ok(super1_ops.replacement(&t, &ref, &j, &d) == 0, "a 1.2 replacement is built");
	ok(t.dev_number == 1, "a replacement takes the lowest number no member holds (%d)", t.dev_number);
	ok((t.feature_map & SB1_FEAT_RECOVERY_OFFSET) && t.recovery_offset == 4096,
	   "a replacement records its recovery from where it resumes");
	super1_ops.record_role(&ref, &t, 1);
	super_seal(&ref);
	ok(super_role_of(&ref, 1) == 1, "the survivors record the replacement in its role");
	super1_ops.recovered(&t, &ref, 1);
	ok(!(t.raw.v1.feature_map & SB1_FEAT_RECOVERY_OFFSET) && t.raw.v1.recovery_offset == 0,
	   "a recovered replacement records no recovery");
}

static void test_replacement_moves_role(void)
{
	struct md_super ref, t;
	const int taken[] = { 0, 1, 2, 3 };
	struct super_joiner j = {
		.path = "new", .role = 1, .dev_sectors = DEV_SECTORS, .taken = taken, .ntaken = 4,
	};
	struct diag d;

	new_member(&ref, 1, 2, 0, false);
	super1_ops.replacement(&t, &ref, &j, &d);
	super1_ops.record_role(&ref, &t, 1);
	super_seal(&ref);
	ok(t.dev_number == 4 && super_role_of(&ref, 4) == 1 && super_role_of(&ref, 1) == ROLE_SPARE,
	   "recording a role on a new number frees the number that held it");
}

/* md's replacement of a member in sync: numbered from raid_disks on,
 * listed beside the member it replaces, which ends faulty. */
static void test_replacement_of_member_in_sync(void)
{
	struct md_super ref, old, t;
	const int taken[] = { 0, 1, 2, 3 };
	struct super_joiner j = {
		.path = "new", .role = 1, .replaces = true, .dev_sectors = DEV_SECTORS,
		.taken = taken, .ntaken = 4,
	};
	struct diag d;

	new_member(&ref, 1, 2, 0, false);
	new_member(&old, 1, 2, 1, false);
	memset(&t, 0, sizeof(t));
	ok(super1_ops.replacement(&t, &ref, &j, &d) == 0, "a replacement of a member in sync is built");
	ok(t.dev_number == 4, "it is numbered from raid_disks on, as md numbers a device added (%d)", t.dev_number);
	ok((t.feature_map & (SB1_FEAT_REPLACEMENT | SB1_FEAT_RECOVERY_OFFSET)) ==
	   (SB1_FEAT_REPLACEMENT | SB1_FEAT_RECOVERY_OFFSET), "it carries md's REPLACEMENT and RECOVERY_OFFSET");
	super1_ops.record_replacement(&ref, &t, 1);
	super_seal(&ref);
	ok(super_role_of(&ref, 4) == 1 && super_role_of(&ref, 1) == 1,
	   "the table lists it in the role beside the member it replaces");
	super1_ops.recovered(&t, &ref, 1);
	ok(!(t.raw.v1.feature_map & (SB1_FEAT_REPLACEMENT | SB1_FEAT_RECOVERY_OFFSET)),
	   "in sync, it carries neither bit");
	super1_ops.record_role(&ref, &t, 1);
	super1_ops.record_faulty(&ref, &old);
	super_seal(&ref);
	ok(super_role_of(&ref, 4) == 1 && super_role_of(&ref, 1) == ROLE_FAULTY,
	   "at the end it holds the role and the member it replaced is faulty");
	ok(super0_ops.record_replacement == NULL, "0.90 cannot record a replacement");
}

static void test_replacement_090(void)
{
	struct md_super ref, t;
	struct super_joiner j = { .path = "new", .role = 1, .dev_sectors = DEV_SECTORS };
	struct diag d;

	new_member(&ref, 0, 90, 0, true);
	memset(&t, 0, sizeof(t));
	super0_ops.replacement(&t, &ref, &j, &d);
	ok(t.dev_number == 1 && t.role == ROLE_SPARE,
	   "a 0.90 replacement is a spare in its role's own descriptor while it is rebuilt");
	ok(!super0_ops.checkpoint(&t, 4096), "0.90 records no rebuild progress");
	super0_ops.recovered(&t, &ref, 1);
	ok(t.role == 1, "a recovered 0.90 replacement holds its role");
	super0_ops.record_role(&ref, &t, 1);
	super_seal(&ref);
	ok(super_role_of(&ref, 1) == 1, "the survivors' 0.90 tables show it in sync");
}

static void test_joiner_min(int major, int minor)
{
	const struct super_ops *o = super_ops_of(major);
	struct md_super ref;
	uint64_t need = 30000, min;

	new_member(&ref, major, minor, 0, false);
	min = o->joiner_min_sectors(&ref, need);
	ok(o->joiner_room(&ref, min) >= need && o->joiner_room(&ref, min - 1) < need,
	   "%d.%d: the smallest replacement for %llu sectors is %llu sectors", major, minor,
	   (unsigned long long)need, (unsigned long long)min);
}

static void test_badblocks_write(void)
{
	char path[] = "/tmp/test_super_ops.XXXXXX";
	const struct bad_range bad[] = { { 100, 700 }, { 2000, 8 } };
	struct md_super sb;
	uint8_t log[MD_BBLOG_SECTORS * 512];
	struct dev dv;
	struct diag d;
	int fd = mkstemp(path);

	new_member(&sb, 1, 2, 0, false);
	if (fd < 0 || ftruncate(fd, (off_t)DEV_SECTORS * 512) < 0 ||
	    dev_open(&dv, path, DEV_WRITE, &d) < 0) {
		ok(0, "a scratch member opens");
		return;
	}
	ok(badblocks_write(&dv, &sb, bad, 2, &d) == 0, "the bad-block log is written");
	ok(pread(fd, log, sizeof(log), (off_t)(8 + 16) * 512) == (ssize_t)sizeof(log) &&
	   get_le64(log) == (100ULL << 10 | 512) && get_le64(log + 8) == (612ULL << 10 | 188) &&
	   get_le64(log + 16) == (2000ULL << 10 | 8) && get_le64(log + 24) == UINT64_MAX,
	   "a range longer than 512 sectors becomes entries of at most 512, then all-ones filler");
	ok(sb.raw.v1.feature_map & SB1_FEAT_BAD_BLOCKS, "the superblock marks its log in use");
	dev_close(&dv);
	close(fd);
	unlink(path);
}

int main(void)
{
	test_placement_10();
	test_placement_12();
	test_places();
	test_round_trip(0, 90);
	test_round_trip(1, 0);
	test_round_trip(1, 1);
	test_round_trip(1, 2);
	test_replacement_1x();
	test_replacement_moves_role();
	test_replacement_of_member_in_sync();
	test_replacement_090();
	test_joiner_min(0, 90);
	test_joiner_min(1, 0);
	test_joiner_min(1, 2);
	test_badblocks_write();
	return tap_done();
}
