/* xfs: what the probe reads of an XFS straight from member bytes: the
 * superblock and, in every allocation group, the AGF and AGI headers that
 * carry their group's number, the btree root blocks after them and the
 * root directory's inode chunk, whose blocks and inodes carry their own
 * address (each, on a v5 filesystem, with a CRC32C and the filesystem's
 * UUID), so each names its own place. */
#ifndef STRIPE_PROBE_XFS_H
#define STRIPE_PROBE_XFS_H

#include <stdbool.h>
#include <stdint.h>

#define XFS_SECTOR_MAX 4096u          /* bytes a header is read in, at most */
#define XFS_BLOCK_MAX 65536u
#define XFS_CHUNK_INODES 64u          /* inodes allocated together */
#define XFS_BTREE_ROOTS 5u            /* AG blocks after the headers that may hold a btree root */

enum xfs_header { XFS_SB, XFS_AGF, XFS_AGI };

struct xfs_sb {
	uint32_t block_size;
	uint32_t sector_size;
	uint64_t blocks;
	uint32_t ag_blocks;
	uint32_t ag_count;
	uint32_t inode_size;
	uint8_t inodes_per_block_log;
	uint8_t ag_blocks_log;
	uint64_t root_inode;
	uint8_t uuid[16];            /* the one the AG headers carry (meta_uuid when set) */
	bool v5;                     /* CRCs and UUIDs in every header */
};

/* Reads raw (XFS_SECTOR_MAX bytes, or at least the sector size it names)
 * as a superblock: the magic, sane sizes and, on v5, its CRC.  A copy
 * in any allocation group reads the same. */
bool xfs_sb_parse(const uint8_t *raw, struct xfs_sb *sb);

bool xfs_same_fs(const struct xfs_sb *a, const struct xfs_sb *b);

/* Filesystem byte where header h of allocation group g lies. */
uint64_t xfs_header_offset(const struct xfs_sb *sb, uint32_t g, enum xfs_header h);

/* Is raw (a sector) header h of group g of this filesystem: its magic, its
 * group number and, on v5, UUID and CRC?  A superblock copy carries no
 * number: it is this filesystem's. */
bool xfs_header_check(const struct xfs_sb *sb, enum xfs_header h, uint32_t g, const uint8_t *raw);

/* Filesystem byte of inode ino. */
uint64_t xfs_inode_offset(const struct xfs_sb *sb, uint64_t ino);

/* Is raw (inode_size bytes) v5 inode ino of this filesystem: its magic,
 * number, UUID and CRC? */
bool xfs_inode_check(const struct xfs_sb *sb, uint64_t ino, const uint8_t *raw);

/* Is raw (block_size bytes) a v5 short-form btree block (free space,
 * inode, reverse-map or refcount btree) of this filesystem at filesystem
 * byte off? */
bool xfs_btree_check(const struct xfs_sb *sb, uint64_t off, const uint8_t *raw);

/* The inode chunks a leaf inode btree block (raw, block_size bytes, that
 * xfs_btree_check passed) of allocation group ag records: their first
 * inodes into first, up to max; how many. */
int xfs_inobt_chunks(const struct xfs_sb *sb, uint32_t ag, const uint8_t *raw, uint64_t *first, int max);

/* The AG block of the inode btree's root an AGI (checked) names. */
uint32_t xfs_agi_root(const uint8_t *raw);

#endif
