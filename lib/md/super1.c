/* super1: the v1.x md superblock: its codec, checksum and checks (as the
 * kernel's super_1_load makes them), where 1.0, 1.1 and 1.2 put it and the
 * data, and the operations table create and recovery record members by. */
#include <stddef.h>
#include <string.h>
#include <sys/random.h>

#include "util/endian.h"
#include "md/bitmap.h"
#include "md/layout.h"
#include "md/super.h"

/* The on-disk layout of struct mdp_superblock_1, one row per field: the
 * codec walks this table both ways, so decoding and encoding cannot drift. */
struct sb1_field {
	uint16_t disk;       /* byte offset in the superblock */
	uint8_t width;       /* 1, 2, 4, 8: little-endian integer; 0: raw bytes */
	uint8_t bytes;       /* length of a raw byte field */
	uint16_t mem;        /* offsetof in struct sb1 */
};

#define INT(off, w, m) { off, w, 0, offsetof(struct sb1, m) }
#define RAW(off, n, m) { off, 0, n, offsetof(struct sb1, m) }

static const struct sb1_field sb1_fields[] = {
	INT(0, 4, magic), INT(4, 4, major_version), INT(8, 4, feature_map), INT(12, 4, pad0),
	RAW(16, 16, set_uuid), RAW(32, 32, set_name), INT(64, 8, ctime),
	INT(72, 4, level), INT(76, 4, layout), INT(80, 8, size), INT(88, 4, chunksize),
	INT(92, 4, raid_disks), INT(96, 4, bitmap_offset), INT(100, 4, new_level),
	INT(104, 8, reshape_position), INT(112, 4, delta_disks), INT(116, 4, new_layout),
	INT(120, 4, new_chunk), INT(124, 4, new_offset), INT(128, 8, data_offset),
	INT(136, 8, data_size), INT(144, 8, super_offset), INT(152, 8, recovery_offset),
	INT(160, 4, dev_number), INT(164, 4, cnt_corrected_read), RAW(168, 16, device_uuid),
	INT(184, 1, devflags), INT(185, 1, bblog_shift), INT(186, 2, bblog_size),
	INT(188, 4, bblog_offset), INT(192, 8, utime), INT(200, 8, events),
	INT(208, 8, resync_offset), INT(216, 4, sb_csum), INT(220, 4, max_dev),
	RAW(224, 32, pad3),
};

#define SB1_HEADER 256

static void field_load(const struct sb1_field *f, const uint8_t *buf, struct sb1 *sb)
{
	uint8_t *m = (uint8_t *)sb + f->mem;
	const uint8_t *p = buf + f->disk;

	switch (f->width) {
	case 0: memcpy(m, p, f->bytes); break;
	case 1: *m = *p; break;
	case 2: { uint16_t v = get_le16(p); memcpy(m, &v, 2); break; }
	case 4: { uint32_t v = get_le32(p); memcpy(m, &v, 4); break; }
	case 8: { uint64_t v = get_le64(p); memcpy(m, &v, 8); break; }
	}
}

static void field_store(const struct sb1_field *f, const struct sb1 *sb, uint8_t *buf)
{
	const uint8_t *m = (const uint8_t *)sb + f->mem;
	uint8_t *p = buf + f->disk;

	switch (f->width) {
	case 0: memcpy(p, m, f->bytes); break;
	case 1: *p = *m; break;
	case 2: { uint16_t v; memcpy(&v, m, 2); put_le16(p, v); break; }
	case 4: { uint32_t v; memcpy(&v, m, 4); put_le32(p, v); break; }
	case 8: { uint64_t v; memcpy(&v, m, 8); put_le64(p, v); break; }
	}
}

size_t sb1_bytes(const struct sb1 *sb)
{
	return SB1_HEADER + 2 * (size_t)sb->max_dev;
}

int sb1_decode(const uint8_t *buf, struct sb1 *sb, struct diag *d)
{
	size_t i;

	memset(sb, 0, sizeof(*sb));
	if (get_le32(buf) != MD_SB_MAGIC)
		return diag_fail(d, "bad magic 0x%08x, expected 0x%08x", get_le32(buf), MD_SB_MAGIC);
	for (i = 0; i < sizeof(sb1_fields) / sizeof(sb1_fields[0]); i++)
		field_load(&sb1_fields[i], buf, sb);
	if (sb->major_version != 1)
		return diag_fail(d, "major version %u, expected 1", sb->major_version);
	if (sb->max_dev > SB1_MAX_DEV)
		return diag_fail(d, "max_dev %u exceeds %d", sb->max_dev, SB1_MAX_DEV);
	for (i = 0; i < sb->max_dev; i++)
		sb->dev_roles[i] = get_le16(buf + SB1_HEADER + 2 * i);
	return 0;
}

void sb1_encode(const struct sb1 *sb, uint8_t *buf)
{
	size_t i;

	memset(buf, 0, 4096);
	for (i = 0; i < sizeof(sb1_fields) / sizeof(sb1_fields[0]); i++)
		field_store(&sb1_fields[i], sb, buf);
	for (i = 0; i < sb->max_dev && i < SB1_MAX_DEV; i++)
		put_le16(buf + SB1_HEADER + 2 * i, sb->dev_roles[i]);
}

uint32_t sb1_csum(const struct sb1 *sb)
{
	uint8_t buf[4096];
	size_t size = sb1_bytes(sb), i;
	uint64_t sum = 0;

	sb1_encode(sb, buf);
	put_le32(buf + 216, 0);
	for (i = 0; i + 4 <= size; i += 4)
		sum += get_le32(buf + i);
	if (size - i == 2)
		sum += get_le16(buf + i);
	return (uint32_t)((sum & 0xffffffffu) + (sum >> 32));
}

uint64_t sb1_location(int minor, uint64_t dev_sectors)
{
	switch (minor) {
	case 0:
		return dev_sectors < 16 ? 0 : (dev_sectors - 16) & ~(uint64_t)7;
	case 1:
		return 0;
	default:
		return 8;
	}
}

static int all_zero(const uint8_t *p, size_t n)
{
	while (n--)
		if (*p++)
			return 0;
	return 1;
}

static int sb1_validate_layout(const struct sb1 *sb, const char *path, uint64_t dev_sectors,
			       uint64_t sb_sector, struct diag *d)
{
	uint64_t sb_end = sb_sector + (sb1_bytes(sb) + 511) / 512;

	if (sb->super_offset != sb_sector)
		return diag_fail(d, "%s: super_offset %llu, but the superblock is at sector %llu",
				 path, (unsigned long long)sb->super_offset,
				 (unsigned long long)sb_sector);
	if (sb->data_size < 10)
		return diag_fail(d, "%s: data_size %llu sectors, expected at least 10", path,
				 (unsigned long long)sb->data_size);
	if (sb->data_offset > dev_sectors || sb->data_size > dev_sectors - sb->data_offset)
		return diag_fail(d, "%s: data area %llu+%llu sectors runs past the end of the device (%llu sectors)",
				 path, (unsigned long long)sb->data_offset,
				 (unsigned long long)sb->data_size, (unsigned long long)dev_sectors);
	if (sb_sector == 0 || sb_sector == 8) {
		if (sb->data_offset < sb_end)
			return diag_fail(d, "%s: data_offset %llu overlaps the superblock (ends at sector %llu)",
					 path, (unsigned long long)sb->data_offset,
					 (unsigned long long)sb_end);
	} else if (sb->data_offset + sb->data_size > sb_sector) {
		return diag_fail(d, "%s: data area %llu+%llu sectors overlaps the superblock at sector %llu",
				 path, (unsigned long long)sb->data_offset,
				 (unsigned long long)sb->data_size, (unsigned long long)sb_sector);
	}
	return 0;
}

int sb1_validate(const struct sb1 *sb, const char *path, uint64_t dev_sectors,
		 uint64_t sb_sector, struct diag *d)
{
	uint32_t csum = sb1_csum(sb);

	if (sb->sb_csum != csum)
		return diag_fail(d, "%s: superblock checksum 0x%08x, computed 0x%08x (sector %llu)",
				 path, sb->sb_csum, csum, (unsigned long long)sb_sector);
	if (sb->feature_map & ~SB1_FEAT_ALL)
		return diag_fail(d, "%s: unknown feature bits 0x%x in feature map 0x%x", path,
				 sb->feature_map & ~SB1_FEAT_ALL, sb->feature_map);
	if ((sb->feature_map & SB1_FEAT_PPL) &&
	    (sb->feature_map & (SB1_FEAT_BITMAP_OFFSET | SB1_FEAT_JOURNAL | SB1_FEAT_MULTIPLE_PPLS)))
		return diag_fail(d, "%s: feature map 0x%x combines PPL with a bitmap or journal",
				 path, sb->feature_map);
	if ((sb->feature_map & SB1_FEAT_RAID0_LAYOUT) && sb->level != 0)
		return diag_fail(d, "%s: RAID0 layout feature on a level %d array", path, (int)sb->level);
	if (sb->pad0 != 0 || !all_zero(sb->pad3, sizeof(sb->pad3)))
		return diag_fail(d, "%s: reserved superblock padding is not zero", path);
	return sb1_validate_layout(sb, path, dev_sectors, sb_sector, d);
}

static int role_of1(const struct md_super *sb, int dev_number)
{
	uint16_t role;

	if (dev_number < 0 || (uint32_t)dev_number >= sb->raw.v1.max_dev)
		return ROLE_SPARE;
	role = sb->raw.v1.dev_roles[dev_number];
	switch (role) {
	case SB1_ROLE_FAULTY: return ROLE_FAULTY;
	case SB1_ROLE_JOURNAL: return ROLE_JOURNAL;
	default: return role >= SB1_ROLE_MAX ? ROLE_SPARE : role;
	}
}

static void summarise1(struct md_super *s)
{
	const struct sb1 *r = &s->raw.v1;

	s->major = 1;
	s->feature_map = r->feature_map;
	memcpy(s->uuid, r->set_uuid, 16);
	memcpy(s->name, r->set_name, 32);
	s->name[32] = 0;
	s->ctime = r->ctime & 0xffffffffffULL;
	s->utime = r->utime & 0xffffffffffULL;
	s->level = (int32_t)r->level;
	s->layout = (int32_t)r->layout;
	s->size = r->size;
	s->chunk_sectors = r->chunksize;
	s->raid_disks = (int)r->raid_disks;
	s->data_offset = r->data_offset;
	s->data_size = r->data_size;
	s->recovery_offset = r->recovery_offset;
	s->resync_offset = r->resync_offset;
	s->dev_number = (int)r->dev_number;
	s->role = role_of1(s, s->dev_number);
	memcpy(s->device_uuid, r->device_uuid, 16);
	s->events = r->events;
	s->csum_stored = r->sb_csum;
	s->csum_computed = sb1_csum(r);
	s->bitmap_offset = (int32_t)r->bitmap_offset;
	s->bblog_offset = (int32_t)r->bblog_offset;
	s->bblog_sectors = r->bblog_size;
	s->dev_slots = (int)r->max_dev;
}

static int decode1(const uint8_t *buf, struct md_super *sb, struct diag *d)
{
	return sb1_decode(buf, &sb->raw.v1, d);
}

static int validate1(const struct md_super *sb, const char *path, struct diag *d)
{
	return sb1_validate(&sb->raw.v1, path, sb->dev_sectors, sb->sb_sector, d);
}

static void encode1(const struct md_super *sb, uint8_t buf[4096], size_t *len)
{
	sb1_encode(&sb->raw.v1, buf);
	*len = sb1_bytes(&sb->raw.v1);
}

static void seal1(struct md_super *sb)
{
	sb->raw.v1.sb_csum = sb1_csum(&sb->raw.v1);
}

/* Space mdadm leaves for a bitmap, by device size (choose_bm_space). */
static uint64_t bm_space(uint64_t sectors)
{
	if (sectors < 128)
		return 0;
	if (sectors - 128 >= 200ULL * 1024 * 1024 * 2)
		return 256;
	if (sectors - 8 > 8ULL * 1024 * 1024 * 2)
		return 128;
	return 8;
}

/* mdadm's default data offset for 1.1/1.2: room for the superblock, bitmap
 * and reshape headroom (about 0.1% of the device, at most 128 MiB, never
 * less than two chunks' worth), rounded up to 1 MiB.  1.0 keeps data at 0. */
static uint64_t default_data_offset1(int minor, uint64_t dev_sectors, uint32_t chunk_sectors)
{
	uint64_t headroom = 128 * 1024 * 2, off;

	if (minor == 0)
		return 0;
	while ((headroom << 10) > dev_sectors &&
	       (chunk_sectors == 0 || headroom / 2 >= (uint64_t)chunk_sectors * 2))
		headroom >>= 1;
	off = 24 + bm_space(dev_sectors) + headroom;
	return (off + 2047) / 2048 * 2048;
}

/* 1.0: below the superblock, the bad-block log and the bitmap's room;
 * 1.1 and 1.2: everything from the data offset. */
static uint64_t data_room1(int minor, uint64_t dev_sectors, uint64_t data_offset)
{
	uint64_t over;

	if (minor == 0) {
		over = MD_BBLOG_SECTORS + bm_space(dev_sectors);
		return sb1_location(0, dev_sectors) > over ? sb1_location(0, dev_sectors) - over : 0;
	}
	return dev_sectors > data_offset ? dev_sectors - data_offset : 0;
}

static uint64_t joiner_room1(const struct md_super *ref, uint64_t dev_sectors)
{
	uint64_t off;

	if (ref->minor == 0) {
		off = sb1_location(0, dev_sectors);
		return off > MD_BBLOG_SECTORS ? off - MD_BBLOG_SECTORS : 0;
	}
	return dev_sectors > ref->data_offset ? dev_sectors - ref->data_offset : 0;
}

/* joiner_room's inverse: 1.0 needs the log, the superblock's 8 KiB and
 * its 4 KiB alignment beyond the data. */
static uint64_t joiner_min_sectors1(const struct md_super *ref, uint64_t need)
{
	if (ref->minor == 0)
		return (need + MD_BBLOG_SECTORS + 16 + 7) & ~(uint64_t)7;
	return ref->data_offset + need;
}

/* The room a new array's bitmap may take: what mdadm leaves for one. */
static uint64_t bitmap_room1(int minor, uint64_t size)
{
	return bm_space(size);
}

/* 1.1 and 1.2 keep the bitmap 4 KiB after the superblock; 1.0 keeps it
 * below the bad-block log under the superblock, in whole 4 KiB blocks
 * counted (as mdadm counts them) for one bit more than the bitmap has. */
static int32_t bitmap_offset1(int minor, const struct md_bitmap *bm)
{
	uint64_t bits = bm->sync_size * 512 / bm->chunksize + 1;

	if (minor)
		return 8;
	return -(int32_t)(((bits + 7) / 8 + BITMAP_HEADER_BYTES + 4095) / 4096 * 8 + MD_BBLOG_SECTORS);
}

/* Where a new member's superblock, data and bad-block log go: 1.0 puts
 * the log and the bitmap's room just below the superblock at the end,
 * 1.1 and 1.2 after the superblock and the bitmap's room when the data
 * offset leaves space, else just before the data.  The bitmap's room is
 * the bitmap itself when there is one (mdadm's write_init_super1). */
static void place_new1(struct sb1 *r, int minor, uint64_t dev_sectors, uint64_t data_offset,
		       const struct md_bitmap *bitmap)
{
	uint64_t bm = bitmap ? bitmap_bytes(bitmap, 4096) / 512 : bm_space(r->size);
	uint64_t off = sb1_location(minor, dev_sectors);

	r->super_offset = off;
	if (minor == 0) {
		bm += MD_BBLOG_SECTORS;
		if (off < r->size + bm)
			bm = off - r->size;
		r->data_offset = 0;
		r->data_size = off - bm;
		if (bm >= MD_BBLOG_SECTORS) {
			r->bblog_size = MD_BBLOG_SECTORS;
			r->bblog_offset = (uint32_t)-MD_BBLOG_SECTORS;
		}
		return;
	}
	r->data_offset = data_offset;
	r->data_size = dev_sectors - data_offset;
	if (data_offset >= off + 8 + bm + MD_BBLOG_SECTORS) {
		r->bblog_size = MD_BBLOG_SECTORS;
		r->bblog_offset = (uint32_t)(8 + bm);
	} else if (data_offset >= off + 8 + MD_BBLOG_SECTORS) {
		r->bblog_size = MD_BBLOG_SECTORS;
		r->bblog_offset = (uint32_t)(data_offset - MD_BBLOG_SECTORS - off);
	}
}

/* A 1.0 replacement keeps the room between data and superblock that the
 * array's own members have (bitmap and bad-block log); 1.1 and 1.2 keep
 * the array's superblock and data offsets. */
static void place_joiner1(struct sb1 *r, const struct md_super *ref, uint64_t dev_sectors)
{
	if (ref->minor == 0) {
		uint64_t gap = ref->raw.v1.super_offset - ref->raw.v1.data_size;

		r->super_offset = sb1_location(0, dev_sectors);
		r->data_offset = 0;
		r->data_size = r->super_offset > gap ? r->super_offset - gap : 0;
		r->bblog_shift = 0;
		r->bblog_size = MD_BBLOG_SECTORS;
		r->bblog_offset = (uint32_t)-MD_BBLOG_SECTORS;
	} else {
		r->super_offset = ref->raw.v1.super_offset;
		r->data_size = dev_sectors - r->data_offset;
	}
}

static void set_name1(struct sb1 *r, const struct super_array *a)
{
	const char *name = a->name && *a->name ? a->name : "0";
	size_t h = a->homehost ? strlen(a->homehost) : 0, n = strlen(name);

	/* mdadm's convention: "homehost:name" when it fits in 32 bytes */
	memset(r->set_name, 0, sizeof(r->set_name));
	if (h && !strchr(name, ':') && h + 1 + n < sizeof(r->set_name)) {
		memcpy(r->set_name, a->homehost, h);
		r->set_name[h] = ':';
		memcpy(r->set_name + h + 1, name, n);
	} else {
		memcpy(r->set_name, name, n < sizeof(r->set_name) - 1 ? n : sizeof(r->set_name) - 1);
	}
}

#define SB1_ROLES_MAX_DEV 128        /* mdadm's max_dev for up to 128 devices */

/* mdadm's write_init_super1. */
static void new_member1(struct md_super *sb, const struct super_array *a, int number,
			uint64_t dev_sectors)
{
	struct sb1 *r = &sb->raw.v1;
	int i;

	memset(r, 0, sizeof(*r));
	r->magic = MD_SB_MAGIC;
	r->major_version = 1;
	r->feature_map = a->level == MD_LEVEL_RAID0 ? SB1_FEAT_RAID0_LAYOUT : 0;
	if (a->bitmap) {
		r->feature_map |= SB1_FEAT_BITMAP_OFFSET;
		r->bitmap_offset = (uint32_t)bitmap_offset1(a->minor, a->bitmap);
	}
	memcpy(r->set_uuid, a->uuid, 16);
	set_name1(r, a);
	r->ctime = r->utime = a->now;
	r->level = (uint32_t)a->level;
	r->layout = (uint32_t)a->layout;
	r->size = a->size;
	r->chunksize = a->level == MD_LEVEL_RAID1 ? 0 : a->chunk_sectors;
	r->raid_disks = (uint32_t)a->raid_disks;
	place_new1(r, a->minor, dev_sectors, a->data_offset, a->bitmap);
	r->dev_number = (uint32_t)number;
	if (getrandom(r->device_uuid, sizeof(r->device_uuid), 0) != sizeof(r->device_uuid))
		memset(r->device_uuid, number + 1, sizeof(r->device_uuid));
	r->events = 1;
	r->resync_offset = MD_MAX_SECTOR;
	r->max_dev = a->n <= SB1_ROLES_MAX_DEV ? SB1_ROLES_MAX_DEV : (uint32_t)(a->n + 255) / 256 * 256;
	for (i = 0; i < SB1_MAX_DEV; i++)
		r->dev_roles[i] = SB1_ROLE_SPARE;
	for (i = 0; i < a->n; i++)
		if (a->slot[i].present && a->slot[i].role >= 0)
			r->dev_roles[i] = (uint16_t)a->slot[i].role;
	sb->major = 1;
	sb->minor = a->minor;
	sb->sb_sector = r->super_offset;
	sb->dev_sectors = dev_sectors;
}

static bool taken(const struct super_joiner *j, uint32_t number)
{
	int i;

	for (i = 0; i < j->ntaken; i++)
		if (j->taken[i] == (int)number)
			return true;
	return false;
}

/* A device number from first on that holds no role in ref and no other
 * member holds: md tells members apart by it. */
static int free_dev_number(const struct sb1 *ref, const struct super_joiner *j, uint32_t first)
{
	uint32_t k;

	for (k = first; k < ref->max_dev; k++)
		if (ref->dev_roles[k] >= SB1_ROLE_MAX && !taken(j, k))
			return (int)k;
	return first ? free_dev_number(ref, j, 0) : -1;
}

/* A replacement is a device added to the running array: md numbers it
 * from raid_disks on (bind_rdev_to_array). */
static uint32_t first_number(const struct sb1 *ref, const struct super_joiner *j)
{
	return j->replaces ? ref->raid_disks : 0;
}

/* A device new to the array: the number md gives it (negative: none
 * left), a UUID of its own and its place on the device. */
static int name_new_device1(struct sb1 *r, const struct md_super *ref, const struct super_joiner *j, int number,
			    struct diag *d)
{
	if (number < 0)
		return diag_fail(d, "%s: every one of the array's %u device numbers is taken", j->path,
				 ref->raw.v1.max_dev);
	r->dev_number = (uint32_t)number;
	if (getrandom(r->device_uuid, 16, 0) != 16)
		return diag_fail(d, "%s: no random numbers for a device UUID", j->path);
	place_joiner1(r, ref, j->dev_sectors);
	return 0;
}

/* A joining device's superblock made whole, once its data area is known
 * to hold the array's share. */
static int seal_joiner1(struct md_super *sb, const struct md_super *ref, const struct super_joiner *j,
			struct diag *d)
{
	const struct sb1 *r = &sb->raw.v1;

	if (r->data_size < r->size)
		return diag_fail(d, "%s: data area of %llu sectors, the array needs %llu",
				 j->path, (unsigned long long)r->data_size, (unsigned long long)r->size);
	sb->major = 1;
	sb->minor = ref->minor;
	sb->sb_sector = r->super_offset;
	sb->dev_sectors = j->dev_sectors;
	summarise1(sb);
	return 0;
}

static int replacement1(struct md_super *sb, const struct md_super *ref,
			const struct super_joiner *j, struct diag *d)
{
	struct sb1 own = sb->raw.v1, *r = &sb->raw.v1;
	int number;

	*r = ref->raw.v1;
	r->feature_map &= ~(uint32_t)(SB1_FEAT_BAD_BLOCKS | SB1_FEAT_REPLACEMENT | SB1_FEAT_RECOVERY_BITMAP);
	r->feature_map |= SB1_FEAT_RECOVERY_OFFSET;
	if (j->replaces)
		r->feature_map |= SB1_FEAT_REPLACEMENT;
	/* md's super_1_sync: a member recovered from the bitmap says so, so
	 * that a recovery resumed after a restart still trusts the bitmap */
	if (j->bitmap)
		r->feature_map |= SB1_FEAT_RECOVERY_BITMAP;
	r->recovery_offset = j->resume;
	r->cnt_corrected_read = 0;
	r->devflags = 0;
	if (j->readd) {
		r->dev_number = own.dev_number;
		memcpy(r->device_uuid, own.device_uuid, 16);
		r->super_offset = own.super_offset;
		r->data_offset = own.data_offset;
		r->data_size = own.data_size;
		r->bblog_shift = own.bblog_shift;
		r->bblog_size = own.bblog_size;
		r->bblog_offset = own.bblog_offset;
	} else {
		number = free_dev_number(&ref->raw.v1, j, first_number(&ref->raw.v1, j));
		if (name_new_device1(r, ref, j, number, d) < 0)
			return -1;
	}
	return seal_joiner1(sb, ref, j, d);
}

/* A replacement in sync is a member like any other: md clears its
 * REPLACEMENT bit once the member it replaced is gone. */
static void recovered1(struct md_super *sb, const struct md_super *ref, int role)
{
	sb->raw.v1.feature_map &= ~(uint32_t)(SB1_FEAT_RECOVERY_OFFSET | SB1_FEAT_REPLACEMENT | SB1_FEAT_RECOVERY_BITMAP);
	sb->raw.v1.recovery_offset = 0;
}

/* member's number holds role; a number that held the role before and left
 * is free again. */
static void record_role1(struct md_super *sb, const struct md_super *member, int role)
{
	struct sb1 *r = &sb->raw.v1;
	uint32_t k, number = member->raw.v1.dev_number;

	for (k = 0; k < r->max_dev; k++)
		if (r->dev_roles[k] == role && k != number)
			r->dev_roles[k] = SB1_ROLE_SPARE;
	r->dev_roles[number] = (uint16_t)role;
}

/* md lists a replacement in the role it is copied into, beside the
 * member it replaces, which keeps the role until the copy is done. */
/* Sets the role sb's table gives member's device number; a number past
 * the table (a member's own hostile field) changes nothing. */
static void set_role_of1(struct md_super *sb, const struct md_super *member, uint16_t role)
{
	uint32_t number = member->raw.v1.dev_number;

	if (number < sb->raw.v1.max_dev && number < SB1_MAX_DEV)
		sb->raw.v1.dev_roles[number] = role;
}

static void record_replacement1(struct md_super *sb, const struct md_super *member, int role)
{
	set_role_of1(sb, member, (uint16_t)role);
}

static void record_faulty1(struct md_super *sb, const struct md_super *member)
{
	set_role_of1(sb, member, SB1_ROLE_FAULTY);
}

static void keep_devices1(struct md_super *sb, const int *present, int n)
{
	uint32_t k;
	int i;

	/* md 6.x writes spare for a number no device holds */
	for (k = 0; k < sb->raw.v1.max_dev && k < SB1_MAX_DEV; k++) {
		for (i = 0; i < n && present[i] != (int)k; i++)
			;
		if (i == n)
			sb->raw.v1.dev_roles[k] = SB1_ROLE_SPARE;
	}
}

static void set_state1(struct md_super *sb, uint64_t events, bool clean, uint64_t now)
{
	struct sb1 *r = &sb->raw.v1;

	r->events = events;
	r->resync_offset = clean ? MD_MAX_SECTOR : 0;
	r->utime = now & 0xffffffffffULL;
}

static bool checkpoint1(struct md_super *sb, uint64_t done)
{
	sb->raw.v1.recovery_offset = done;
	return true;
}

/* md (bind_rdev_to_array) numbers a device added to a running array from
 * raid_disks up, past the numbers its members hold (a number listed
 * faulty still belongs to a member until it is removed). */
static int spare_number1(const struct sb1 *ref, const struct super_joiner *j)
{
	uint32_t k;

	for (k = ref->raid_disks; k < ref->max_dev && k < SB1_MAX_DEV; k++)
		if (ref->dev_roles[k] == SB1_ROLE_SPARE && !taken(j, k))
			return (int)k;
	return -1;
}

/* The array's superblock with the new device's number, UUID and place,
 * and none of a member's own state (bad blocks, a recovery, a
 * replacement): 1.x lists a spare as it lists no device at all. */
static int spare1(struct md_super *sb, const struct md_super *ref, const struct super_joiner *j,
		  struct diag *d)
{
	struct sb1 *r = &sb->raw.v1;

	*r = ref->raw.v1;
	r->feature_map &= ~(uint32_t)(SB1_FEAT_BAD_BLOCKS | SB1_FEAT_REPLACEMENT | SB1_FEAT_RECOVERY_OFFSET);
	r->recovery_offset = 0;
	r->cnt_corrected_read = 0;
	r->devflags = 0;
	if (name_new_device1(r, ref, j, spare_number1(&ref->raw.v1, j), d) < 0)
		return -1;
	return seal_joiner1(sb, ref, j, d);
}

static void record_spare1(struct md_super *sb, const struct md_super *spare)
{
	set_role_of1(sb, spare, SB1_ROLE_SPARE);
}

/* md takes a removed device out of the table by calling its number a
 * spare's again */
static void record_removed1(struct md_super *sb, const struct md_super *member)
{
	set_role_of1(sb, member, SB1_ROLE_SPARE);
}

static int remove_faulty1(struct md_super *sb)
{
	uint32_t k;
	int n = 0;

	for (k = 0; k < sb->raw.v1.max_dev && k < SB1_MAX_DEV; k++) {
		if (sb->raw.v1.dev_roles[k] == SB1_ROLE_FAULTY) {
			sb->raw.v1.dev_roles[k] = SB1_ROLE_SPARE;
			n++;
		}
	}
	return n;
}

/* mdadm's store_super1 of an empty superblock: 256 bytes and no roles,
 * rounded up to the device's sector. */
static size_t zeroed_bytes1(unsigned sector_size)
{
	return sector_size > 512 ? sector_size : 512;
}

static uint64_t location1(int minor, uint64_t dev_sectors)
{
	return sb1_location(minor, dev_sectors);
}

const struct super_ops super1_ops = {
	.major = 1,
	.label = "v1",
	.max_devices = SB1_MAX_DEV,
	.min_dev_sectors = 0,
	.tracks_recovery = true,
	.location = location1,
	.default_data_offset = default_data_offset1,
	.data_room = data_room1,
	.bitmap_room = bitmap_room1,
	.bitmap_offset = bitmap_offset1,
	.joiner_room = joiner_room1,
	.joiner_min_sectors = joiner_min_sectors1,
	.decode = decode1,
	.validate = validate1,
	.encode = encode1,
	.summarise = summarise1,
	.seal = seal1,
	.role_of = role_of1,
	.new_member = new_member1,
	.replacement = replacement1,
	.recovered = recovered1,
	.record_role = record_role1,
	.record_replacement = record_replacement1,
	.record_faulty = record_faulty1,
	.keep_devices = keep_devices1,
	.set_state = set_state1,
	.checkpoint = checkpoint1,
	.spare = spare1,
	.record_spare = record_spare1,
	.record_removed = record_removed1,
	.remove_faulty = remove_faulty1,
	.zeroed_bytes = zeroed_bytes1,
};
