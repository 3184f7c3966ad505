/* xfs: the superblock, AGF and AGI read from raw bytes.  Fields are
 * big-endian; a v5 header's CRC32C covers its sector with the CRC field
 * zeroed and is stored little-endian, inverted, as the kernel's
 * xfs_update_cksum leaves it. */
#include <ext2fs/ext2fs.h>
#include <string.h>

#include "probe/xfs.h"
#include "util/endian.h"

#define SB_CRC 224u
#define AGF_CRC 216u
#define AGI_CRC 312u
#define AGF_UUID 64u
#define AGI_UUID 296u
#define SEQNO 8u                     /* agf_seqno, agi_seqno */
#define VERSION_5 5u
#define INCOMPAT_META_UUID (1u << 2)
#define INODE_CRC 100u
#define INODE_NUMBER 152u
#define INODE_UUID 160u
#define BTREE_DADDR 16u              /* the block's own address in 512-byte units */
#define BTREE_UUID 32u
#define BTREE_CRC 52u
#define BTREE_LEVEL 4u
#define BTREE_RECORDS 6u
#define BTREE_HEADER 56u             /* a v5 short-form block's header */
#define INOBT_RECORD 16u
#define AGI_ROOT 20u

static bool crc_ok(const uint8_t *raw, uint32_t len, uint32_t at)
{
	static const uint8_t zero[4];
	uint32_t crc = ext2fs_crc32c_le(~0u, raw, at);

	crc = ext2fs_crc32c_le(crc, zero, sizeof(zero));
	crc = ext2fs_crc32c_le(crc, raw + at + 4, len - at - 4);
	return ~crc == get_le32(raw + at);
}

static bool power_of_two(uint32_t v, uint32_t lo, uint32_t hi)
{
	return v >= lo && v <= hi && !(v & (v - 1));
}

bool xfs_sb_parse(const uint8_t *raw, struct xfs_sb *sb)
{
	if (memcmp(raw, "XFSB", 4) != 0)
		return false;
	memset(sb, 0, sizeof(*sb));
	sb->block_size = get_be32(raw + 4);
	sb->blocks = get_be64(raw + 8);
	sb->ag_blocks = get_be32(raw + 84);
	sb->ag_count = get_be32(raw + 88);
	sb->sector_size = get_be16(raw + 102);
	sb->inode_size = get_be16(raw + 104);
	sb->inodes_per_block_log = raw[123];
	sb->ag_blocks_log = raw[124];
	sb->root_inode = get_be64(raw + 56);
	sb->v5 = (get_be16(raw + 100) & 0xf) == VERSION_5;
	if (!power_of_two(sb->block_size, 512, XFS_BLOCK_MAX) || !power_of_two(sb->inode_size, 256, 2048) ||
	    sb->inodes_per_block_log > 8 || sb->ag_blocks_log > 31 || !power_of_two(sb->sector_size, 512, XFS_SECTOR_MAX) ||
	    !sb->ag_blocks || !sb->ag_count || sb->blocks > (uint64_t)sb->ag_blocks * sb->ag_count ||
	    sb->blocks <= (uint64_t)sb->ag_blocks * (sb->ag_count - 1))
		return false;
	bool meta = sb->v5 && (get_be32(raw + 216) & INCOMPAT_META_UUID);
	memcpy(sb->uuid, raw + (meta ? 248 : 32), sizeof(sb->uuid));
	return !sb->v5 || crc_ok(raw, sb->sector_size, SB_CRC);
}

bool xfs_same_fs(const struct xfs_sb *a, const struct xfs_sb *b)
{
	return memcmp(a->uuid, b->uuid, sizeof(a->uuid)) == 0 && a->blocks == b->blocks &&
	       a->ag_blocks == b->ag_blocks && a->block_size == b->block_size;
}

uint64_t xfs_header_offset(const struct xfs_sb *sb, uint32_t g, enum xfs_header h)
{
	return (uint64_t)g * sb->ag_blocks * sb->block_size + (uint64_t)h * sb->sector_size;
}

bool xfs_header_check(const struct xfs_sb *sb, enum xfs_header h, uint32_t g, const uint8_t *raw)
{
	struct xfs_sb copy;

	switch (h) {
	case XFS_SB:
		return xfs_sb_parse(raw, &copy) && xfs_same_fs(&copy, sb);
	case XFS_AGF:
		return memcmp(raw, "XAGF", 4) == 0 && get_be32(raw + SEQNO) == g &&
		       (!sb->v5 || (memcmp(raw + AGF_UUID, sb->uuid, 16) == 0 && crc_ok(raw, sb->sector_size, AGF_CRC)));
	case XFS_AGI:
		return memcmp(raw, "XAGI", 4) == 0 && get_be32(raw + SEQNO) == g &&
		       (!sb->v5 || (memcmp(raw + AGI_UUID, sb->uuid, 16) == 0 && crc_ok(raw, sb->sector_size, AGI_CRC)));
	}
	return false;
}

uint64_t xfs_inode_offset(const struct xfs_sb *sb, uint64_t ino)
{
	uint32_t in_block = sb->inodes_per_block_log, in_ag = sb->ag_blocks_log + in_block;
	uint64_t ag = ino >> in_ag, block = (ino >> in_block) & ((1ull << sb->ag_blocks_log) - 1);

	return (ag * sb->ag_blocks + block) * sb->block_size + (ino & ((1ull << in_block) - 1)) * sb->inode_size;
}

bool xfs_inode_check(const struct xfs_sb *sb, uint64_t ino, const uint8_t *raw)
{
	return sb->v5 && memcmp(raw, "IN", 2) == 0 && raw[4] == 3 && get_be64(raw + INODE_NUMBER) == ino &&
	       memcmp(raw + INODE_UUID, sb->uuid, 16) == 0 && crc_ok(raw, sb->inode_size, INODE_CRC);
}

bool xfs_btree_check(const struct xfs_sb *sb, uint64_t off, const uint8_t *raw)
{
	static const char magics[][5] = { "AB3B", "AB3C", "IAB3", "FIB3", "RMB3", "R3FC" };
	bool known = false;

	for (size_t k = 0; k < sizeof(magics) / sizeof(magics[0]) && !known; k++)
		known = memcmp(raw, magics[k], 4) == 0;
	return known && sb->v5 && get_be64(raw + BTREE_DADDR) == off / 512 &&
	       memcmp(raw + BTREE_UUID, sb->uuid, 16) == 0 && crc_ok(raw, sb->block_size, BTREE_CRC);
}

int xfs_inobt_chunks(const struct xfs_sb *sb, uint32_t ag, const uint8_t *raw, uint64_t *first, int max)
{
	uint32_t records = get_be16(raw + BTREE_RECORDS), fit = (sb->block_size - BTREE_HEADER) / INOBT_RECORD;
	int n = 0;

	if (memcmp(raw, "IAB3", 4) != 0 || get_be16(raw + BTREE_LEVEL) != 0)
		return 0;
	for (uint32_t k = 0; k < records && k < fit && n < max; k++) {
		uint32_t agino = get_be32(raw + BTREE_HEADER + k * INOBT_RECORD);
		first[n++] = (uint64_t)ag << (sb->ag_blocks_log + sb->inodes_per_block_log) | agino;
	}
	return n;
}

uint32_t xfs_agi_root(const uint8_t *raw)
{
	return get_be32(raw + AGI_ROOT);
}
