/* super0: the v0.90 superblock (mdp_super_t: 1024 host-endian words at the
 * end of the member), in either byte order. */
#ifndef STRIPE_SUPER0_H
#define STRIPE_SUPER0_H

#include <stdbool.h>
#include <stdint.h>

#include "util/diag.h"

#define SB0_BYTES 4096
#define SB0_DISKS 27

/* Word indices of mdp_super_t. */
enum sb0_word {
	SB0_MAGIC = 0, SB0_MAJOR = 1, SB0_MINOR = 2, SB0_PATCH = 3, SB0_UUID0 = 5,
	SB0_CTIME = 6, SB0_LEVEL = 7, SB0_SIZE = 8, SB0_NR_DISKS = 9, SB0_RAID_DISKS = 10,
	SB0_MD_MINOR = 11, SB0_UUID1 = 13, SB0_UUID2 = 14, SB0_UUID3 = 15,
	SB0_UTIME = 32, SB0_STATE = 33, SB0_ACTIVE = 34, SB0_WORKING = 35, SB0_FAILED = 36,
	SB0_SPARE = 37, SB0_CSUM = 38, SB0_EVENTS_A = 39, SB0_EVENTS_B = 40,
	SB0_CP_EVENTS_A = 41, SB0_CP_EVENTS_B = 42, SB0_RECOVERY_CP = 43,
	SB0_RESHAPE_POS = 44, SB0_NEW_LEVEL = 46, SB0_DELTA_DISKS = 47, SB0_NEW_LAYOUT = 48,
	SB0_NEW_CHUNK = 49, SB0_LAYOUT = 64, SB0_CHUNK = 65,
	SB0_DISKS_BASE = 128, SB0_THIS_DISK = 992,
};

/* mdp_disk_t: 32 words from SB0_DISKS_BASE + 32*i, or SB0_THIS_DISK. */
enum sb0_disk_word { SB0_D_NUMBER = 0, SB0_D_MAJOR = 1, SB0_D_MINOR = 2, SB0_D_RAID_DISK = 3, SB0_D_STATE = 4 };

enum sb0_disk_state { SB0_DS_FAULTY = 0, SB0_DS_ACTIVE = 1, SB0_DS_SYNC = 2, SB0_DS_REMOVED = 3 };
enum sb0_state { SB0_ST_CLEAN = 0, SB0_ST_ERRORS = 1, SB0_ST_BITMAP = 8 };

struct sb0 {
	uint32_t w[SB0_BYTES / 4];   /* host-order values */
	bool swapped;                /* written by a host of the other byte order */
};

int sb0_decode(const uint8_t *buf, struct sb0 *sb, struct diag *d);
void sb0_encode(const struct sb0 *sb, uint8_t *buf);
uint32_t sb0_csum(const struct sb0 *sb);
uint64_t sb0_events(const struct sb0 *sb);
/* Word i of disk descriptor n (n == -1: this_disk). */
uint32_t sb0_disk(const struct sb0 *sb, int n, enum sb0_disk_word i);
int sb0_validate(const struct sb0 *sb, const char *path, uint64_t dev_sectors,
		 uint64_t sb_sector, struct diag *d);
/* Sector where 0.90 keeps its superblock on a member of dev_sectors. */
uint64_t sb0_location(uint64_t dev_sectors);

#endif
