/* super1: decode, encode, checksum and validate v1.x md superblocks as the
 * kernel's super_1_load does. */
#include <stddef.h>
#include <string.h>

#include "util/endian.h"
#include "md/super1.h"

#define MD_SB_MAGIC 0xa92b4efcu

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
