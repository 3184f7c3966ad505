/* super1: the v1.0/1.1/1.2 superblock (struct mdp_superblock_1, little-endian,
 * 256 bytes plus 2 bytes of role per device), field for field. */
#ifndef STRIPE_SUPER1_H
#define STRIPE_SUPER1_H

#include <stddef.h>
#include <stdint.h>

#include "util/diag.h"

#define SB1_MAX_DEV 1920             /* (4096 - 256) / 2 */
#define SB1_ROLE_SPARE 0xffff
#define SB1_ROLE_FAULTY 0xfffe
#define SB1_ROLE_JOURNAL 0xfffd
#define SB1_ROLE_MAX 0xff00

enum sb1_feature {
	SB1_FEAT_BITMAP_OFFSET = 1 << 0,
	SB1_FEAT_RECOVERY_OFFSET = 1 << 1,
	SB1_FEAT_RESHAPE_ACTIVE = 1 << 2,
	SB1_FEAT_BAD_BLOCKS = 1 << 3,
	SB1_FEAT_REPLACEMENT = 1 << 4,
	SB1_FEAT_RESHAPE_BACKWARDS = 1 << 5,
	SB1_FEAT_NEW_OFFSET = 1 << 6,
	SB1_FEAT_RECOVERY_BITMAP = 1 << 7,
	SB1_FEAT_CLUSTERED = 1 << 8,
	SB1_FEAT_JOURNAL = 1 << 9,
	SB1_FEAT_PPL = 1 << 10,
	SB1_FEAT_MULTIPLE_PPLS = 1 << 11,
	SB1_FEAT_RAID0_LAYOUT = 1 << 12,
};
#define SB1_FEAT_ALL 0x1fffu

struct sb1 {
	uint32_t magic, major_version, feature_map, pad0;
	uint8_t set_uuid[16];
	char set_name[32];
	uint64_t ctime;
	uint32_t level, layout;
	uint64_t size;
	uint32_t chunksize, raid_disks, bitmap_offset;
	uint32_t new_level;
	uint64_t reshape_position;
	uint32_t delta_disks, new_layout, new_chunk, new_offset;
	uint64_t data_offset, data_size, super_offset, recovery_offset;
	uint32_t dev_number, cnt_corrected_read;
	uint8_t device_uuid[16];
	uint8_t devflags, bblog_shift;
	uint16_t bblog_size;
	uint32_t bblog_offset;
	uint64_t utime, events, resync_offset;
	uint32_t sb_csum, max_dev;
	uint8_t pad3[32];
	uint16_t dev_roles[SB1_MAX_DEV];
};

/* Bytes covered by the checksum and written to disk (before rounding to a sector). */
size_t sb1_bytes(const struct sb1 *sb);

/* Decodes 4096 bytes.  Fails only when the block is not a v1 superblock at
 * all (magic, major version) or max_dev is out of range; the remaining
 * checks are sb1_validate's. */
int sb1_decode(const uint8_t *buf, struct sb1 *sb, struct diag *d);

/* Writes sb1_bytes(sb) bytes, rounded up to 512 with zeroes, into buf
 * (4096 bytes, zero-filled first).  The stored sb_csum is written as it is. */
void sb1_encode(const struct sb1 *sb, uint8_t *buf);

/* The checksum md computes for sb (kernel calc_sb_1_csum). */
uint32_t sb1_csum(const struct sb1 *sb);

/* Validates as the kernel's super_1_load does.  dev_sectors is the member's
 * size; sb_sector where the superblock was read.  path names messages. */
int sb1_validate(const struct sb1 *sb, const char *path, uint64_t dev_sectors,
		 uint64_t sb_sector, struct diag *d);

/* Where version 1.minor keeps its superblock on a member of dev_sectors. */
uint64_t sb1_location(int minor, uint64_t dev_sectors);

#endif
