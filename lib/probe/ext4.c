/* ext4: superblocks, group descriptors and inodes read from raw bytes and
 * verified with the checksums metadata_csum gives them; every checksum
 * covers the uuid (or its seed) and the object's number, so a block that
 * verifies is where the filesystem put it. */
#include <ext2fs/ext2fs.h>
#include <stddef.h>
#include <string.h>

#include "probe/ext4.h"
#include "raid/parity.h"
#include "util/endian.h"

#define SB(field) offsetof(struct ext2_super_block, field)
#define GD(field) offsetof(struct ext4_group_desc, field)
#define IN(field) offsetof(struct ext2_inode_large, field)

static uint32_t crc32c(uint32_t crc, const void *p, size_t len)
{
	return ext2fs_crc32c_le(crc, p, len);
}

static bool sizes_sane(const struct ext4_sb *sb, uint32_t log_block)
{
	return log_block <= 6 && sb->blocks && sb->blocks_per_group && sb->blocks_per_group <= 8 * sb->block_size &&
	       sb->inodes_per_group && sb->inode_size >= EXT2_GOOD_OLD_INODE_SIZE &&
	       sb->inode_size <= sb->block_size && (sb->inode_size & (sb->inode_size - 1)) == 0 &&
	       sb->desc_size >= EXT2_MIN_DESC_SIZE && sb->desc_size <= sb->block_size &&
	       (sb->desc_size & (sb->desc_size - 1)) == 0 && sb->first_data_block < sb->blocks;
}

static void read_features(const uint8_t *raw, struct ext4_sb *sb)
{
	uint32_t compat = get_le32(raw + SB(s_feature_compat));
	uint32_t incompat = get_le32(raw + SB(s_feature_incompat));
	uint32_t ro = get_le32(raw + SB(s_feature_ro_compat));

	sb->sparse_super = ro & EXT2_FEATURE_RO_COMPAT_SPARSE_SUPER;
	sb->sparse_super2 = compat & EXT4_FEATURE_COMPAT_SPARSE_SUPER2;
	sb->backup_groups[0] = get_le32(raw + SB(s_backup_bgs));
	sb->backup_groups[1] = get_le32(raw + SB(s_backup_bgs) + 4);
	sb->csum = ro & EXT4_FEATURE_RO_COMPAT_METADATA_CSUM;
	if (incompat & EXT4_FEATURE_INCOMPAT_64BIT) {
		sb->blocks |= (uint64_t)get_le32(raw + SB(s_blocks_count_hi)) << 32;
		sb->desc_size = get_le16(raw + SB(s_desc_size));
	} else {
		sb->desc_size = EXT2_MIN_DESC_SIZE;
	}
	sb->csum_seed = incompat & EXT4_FEATURE_INCOMPAT_CSUM_SEED ? get_le32(raw + SB(s_checksum_seed))
								    : crc32c(~0u, sb->uuid, sizeof(sb->uuid));
}

/* With meta_bg only the first s_first_meta_bg descriptor blocks follow
 * each superblock copy; the rest lie in their own groups. */
static void count_gdt_blocks(const uint8_t *raw, struct ext4_sb *sb)
{
	uint32_t per_block = sb->block_size / sb->desc_size;
	uint32_t meta_bg_first = get_le32(raw + SB(s_first_meta_bg));

	sb->gdt_blocks = (sb->groups + per_block - 1) / per_block;
	if ((get_le32(raw + SB(s_feature_incompat)) & EXT2_FEATURE_INCOMPAT_META_BG) &&
	    meta_bg_first < sb->gdt_blocks)
		sb->gdt_blocks = meta_bg_first;
}

bool ext4_sb_parse(const uint8_t *raw, struct ext4_sb *sb)
{
	memset(sb, 0, sizeof(*sb));
	if (get_le16(raw + SB(s_magic)) != EXT2_SUPER_MAGIC)
		return false;
	uint32_t log_block = get_le32(raw + SB(s_log_block_size));
	if (log_block > 6)
		return false;
	sb->block_size = 1024u << log_block;
	sb->blocks = get_le32(raw + SB(s_blocks_count));
	sb->first_data_block = get_le32(raw + SB(s_first_data_block));
	sb->blocks_per_group = get_le32(raw + SB(s_blocks_per_group));
	sb->inodes_per_group = get_le32(raw + SB(s_inodes_per_group));
	sb->inode_size = get_le32(raw + SB(s_rev_level)) ? get_le16(raw + SB(s_inode_size))
							   : EXT2_GOOD_OLD_INODE_SIZE;
	sb->group = get_le16(raw + SB(s_block_group_nr));
	memcpy(sb->uuid, raw + SB(s_uuid), sizeof(sb->uuid));
	read_features(raw, sb);
	if (!sizes_sane(sb, log_block))
		return false;
	sb->groups = (uint32_t)((sb->blocks - sb->first_data_block + sb->blocks_per_group - 1) /
				sb->blocks_per_group);
	count_gdt_blocks(raw, sb);
	if (sb->csum && crc32c(~0u, raw, SB(s_checksum)) != get_le32(raw + SB(s_checksum)))
		return false;
	return true;
}

bool ext4_sb_parse_scaled(const uint8_t *raw, int power, struct ext4_sb *sb)
{
	uint8_t plain[EXT4_SB_BYTES];
	int log = md_gf_log(raw[SB(s_magic)]);

	if (log < 0)
		return false;
	int found = (log - md_gf_log(EXT2_SUPER_MAGIC & 0xff) + 255) % 255;
	if ((power >= 0 && found != power % 255) ||
	    raw[SB(s_magic) + 1] != md_gf_mul(md_gf_exp(found), EXT2_SUPER_MAGIC >> 8))
		return false;
	uint8_t undo = md_gf_exp(255 - found);
	for (size_t k = 0; k < sizeof(plain); k++)
		plain[k] = md_gf_mul(raw[k], undo);
	return ext4_sb_parse(plain, sb);
}

bool ext4_same_fs(const struct ext4_sb *a, const struct ext4_sb *b)
{
	return memcmp(a->uuid, b->uuid, sizeof(a->uuid)) == 0 && a->blocks == b->blocks &&
	       a->block_size == b->block_size;
}

static bool power_of(uint32_t g, uint32_t base)
{
	while (g > 1 && g % base == 0)
		g /= base;
	return g == 1;
}

bool ext4_group_has_super(const struct ext4_sb *sb, uint32_t g)
{
	if (g == 0)
		return true;
	if (g >= sb->groups)
		return false;
	if (sb->sparse_super2)
		return g == sb->backup_groups[0] || g == sb->backup_groups[1];
	if (!sb->sparse_super)
		return true;
	return power_of(g, 3) || power_of(g, 5) || power_of(g, 7);
}

uint64_t ext4_super_offset(const struct ext4_sb *sb, uint32_t g)
{
	if (g == 0)
		return EXT4_SB_OFFSET;
	return ((uint64_t)sb->first_data_block + (uint64_t)g * sb->blocks_per_group) * sb->block_size;
}

uint64_t ext4_gdt_offset(const struct ext4_sb *sb, uint32_t g)
{
	return ((uint64_t)sb->first_data_block + (uint64_t)g * sb->blocks_per_group + 1) * sb->block_size;
}

/* metadata_csum's descriptor checksum: the low 16 bits of crc32c over the
 * seed, the group number and the descriptor with its checksum as zero. */
static bool desc_verifies(const struct ext4_sb *sb, uint32_t group, const uint8_t *desc)
{
	static const uint8_t zero[2];
	size_t after = GD(bg_checksum) + sizeof(zero);
	uint8_t le_group[4];
	uint32_t crc;

	put_le32(le_group, group);
	crc = crc32c(sb->csum_seed, le_group, sizeof(le_group));
	crc = crc32c(crc, desc, GD(bg_checksum));
	crc = crc32c(crc, zero, sizeof(zero));
	crc = crc32c(crc, desc + after, sb->desc_size - after);
	return (crc & 0xffff) == get_le16(desc + GD(bg_checksum));
}

void ext4_gdt_block_check(const struct ext4_sb *sb, uint32_t index, const uint8_t *block,
			  unsigned *ok, unsigned *bad)
{
	uint32_t per_block = sb->block_size / sb->desc_size;

	*ok = *bad = 0;
	if (!sb->csum)
		return;
	for (uint32_t k = 0; k < per_block; k++) {
		uint64_t group = (uint64_t)index * per_block + k;
		if (group >= sb->groups)
			break;
		if (desc_verifies(sb, (uint32_t)group, block + k * sb->desc_size))
			(*ok)++;
		else
			(*bad)++;
	}
}

bool ext4_desc_read(const struct ext4_sb *sb, uint32_t index, uint32_t k, const uint8_t *block,
		    struct ext4_desc *out)
{
	uint32_t per_block = sb->block_size / sb->desc_size;
	uint64_t group = (uint64_t)index * per_block + k;
	const uint8_t *desc = block + k * sb->desc_size;

	if (k >= per_block || group >= sb->groups || !sb->csum || !desc_verifies(sb, (uint32_t)group, desc))
		return false;
	uint64_t unused = get_le16(desc + GD(bg_itable_unused));
	out->inode_table = get_le32(desc + GD(bg_inode_table));
	if (sb->desc_size > GD(bg_itable_unused_hi)) {
		out->inode_table |= (uint64_t)get_le32(desc + GD(bg_inode_table_hi)) << 32;
		unused |= (uint64_t)get_le16(desc + GD(bg_itable_unused_hi)) << 16;
	}
	out->used_inodes = unused < sb->inodes_per_group ? sb->inodes_per_group - (uint32_t)unused : 0;
	return true;
}

static bool all_zero(const uint8_t *p, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (p[i])
			return false;
	return true;
}

/* The inode checksum: crc32c over the seed, the inode number, its
 * generation and the inode with both checksum halves taken as zero; the
 * high half only when the inode's extra space reaches it. */
static bool inode_verifies(const struct ext4_sb *sb, uint32_t ino, const uint8_t *raw)
{
	static const uint8_t zero[2];
	size_t size = sb->inode_size, lo = IN(osd2.linux2.l_i_checksum_lo), hi = IN(i_checksum_hi);
	bool has_hi = size > EXT2_GOOD_OLD_INODE_SIZE &&
		      get_le16(raw + IN(i_extra_isize)) >= EXT4_INODE_CSUM_HI_EXTRA_END;
	uint32_t stored = get_le16(raw + lo);
	uint8_t le_ino[4];
	uint32_t crc;

	put_le32(le_ino, ino);
	crc = crc32c(sb->csum_seed, le_ino, sizeof(le_ino));
	crc = crc32c(crc, raw + IN(i_generation), 4);
	crc = crc32c(crc, raw, lo);
	crc = crc32c(crc, zero, sizeof(zero));
	if (has_hi) {
		stored |= (uint32_t)get_le16(raw + hi) << 16;
		crc = crc32c(crc, raw + lo + 2, hi - (lo + 2));
		crc = crc32c(crc, zero, sizeof(zero));
		crc = crc32c(crc, raw + hi + 2, size - (hi + 2));
	} else {
		crc = crc32c(crc, raw + lo + 2, size - (lo + 2));
		crc &= 0xffff;
	}
	return crc == stored;
}

void ext4_inode_block_check(const struct ext4_sb *sb, uint32_t first, const uint8_t *block,
			    unsigned *ok, unsigned *bad)
{
	*ok = *bad = 0;
	if (!sb->csum)
		return;
	for (uint32_t i = 0; i < sb->block_size / sb->inode_size; i++) {
		const uint8_t *raw = block + (size_t)i * sb->inode_size;
		if (all_zero(raw, sb->inode_size))
			continue;
		if (inode_verifies(sb, first + i, raw))
			(*ok)++;
		else
			(*bad)++;
	}
}
