/* ext4: what the probe reads of an ext4 straight from member bytes, before
 * any geometry is known: superblocks, group descriptors and inodes, each
 * with the checksum that ties it to its place in the filesystem. */
#ifndef STRIPE_PROBE_EXT4_H
#define STRIPE_PROBE_EXT4_H

#include <stdbool.h>
#include <stdint.h>

#define EXT4_SB_OFFSET 1024u         /* the primary superblock, from the filesystem's start */
#define EXT4_SB_BYTES 1024u

/* A superblock's facts, as found in 1024 bytes of a member. */
struct ext4_sb {
	uint32_t block_size;
	uint64_t blocks;
	uint32_t first_data_block;
	uint32_t blocks_per_group;
	uint32_t inodes_per_group;
	uint32_t groups;
	uint32_t inode_size;
	uint32_t desc_size;
	uint32_t gdt_blocks;         /* descriptor blocks after each superblock copy */
	uint32_t group;              /* the group this copy sits in: 0 for the primary */
	uint8_t uuid[16];
	bool sparse_super;
	bool sparse_super2;
	uint32_t backup_groups[2];   /* sparse_super2's two backups */
	bool csum;                   /* metadata_csum: descriptors and inodes checksummed */
	uint32_t csum_seed;
};

/* One group's descriptor: where its inode table lies and how much is used. */
struct ext4_desc {
	uint64_t inode_table;        /* block */
	uint32_t used_inodes;        /* inodes from the table's start that may be in use */
};

/* Reads raw (EXT4_SB_BYTES) as a superblock: the magic, sane sizes and,
 * with metadata_csum, a checksum that verifies.  false when it is none. */
bool ext4_sb_parse(const uint8_t *raw, struct ext4_sb *sb);

/* The same for raw holding a superblock times g^power in md's GF(2^8), as
 * a RAID6's Q holds the one block in use of a row otherwise empty (power
 * its syndrome slot); with power < 0, whatever power the magic shows. */
bool ext4_sb_parse_scaled(const uint8_t *raw, int power, struct ext4_sb *sb);

bool ext4_same_fs(const struct ext4_sb *a, const struct ext4_sb *b);

/* Does group g keep a superblock copy (group 0 always; sparse_super groups
 * 1 and the powers of 3, 5 and 7)? */
bool ext4_group_has_super(const struct ext4_sb *sb, uint32_t g);

/* Filesystem bytes where group g's superblock copy lies, and where the
 * descriptor blocks that follow it begin. */
uint64_t ext4_super_offset(const struct ext4_sb *sb, uint32_t g);
uint64_t ext4_gdt_offset(const struct ext4_sb *sb, uint32_t g);

/* Descriptor block `index` (block_size bytes): how many descriptors it
 * holds that verify with their group numbers and how many fail.  Without
 * metadata_csum nothing is counted. */
void ext4_gdt_block_check(const struct ext4_sb *sb, uint32_t index, const uint8_t *block,
			  unsigned *ok, unsigned *bad);

/* Descriptor k of descriptor block `index`, when it verifies. */
bool ext4_desc_read(const struct ext4_sb *sb, uint32_t index, uint32_t k, const uint8_t *block,
		    struct ext4_desc *out);

/* The inodes in one inode-table block whose first inode is number first:
 * how many verify and how many fail (all-zero inodes tell nothing). */
void ext4_inode_block_check(const struct ext4_sb *sb, uint32_t first, const uint8_t *block,
			    unsigned *ok, unsigned *bad);

#endif
