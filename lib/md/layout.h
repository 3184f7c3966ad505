/* layout: md's geometry.  Where each array sector lives on the members, and
 * for RAID4/5/6 where each stripe row keeps its data, P and Q (kernel raid0.c,
 * raid5_compute_sector, raid10's __raid10_find_phys). */
#ifndef STRIPE_LAYOUT_H
#define STRIPE_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/diag.h"

#define ST_MAX_DISKS 256

/* md personality numbers, as in the superblock's level field. */
enum md_level {
	MD_LEVEL_RAID0 = 0,
	MD_LEVEL_RAID1 = 1,
	MD_LEVEL_RAID4 = 4,
	MD_LEVEL_RAID5 = 5,
	MD_LEVEL_RAID6 = 6,
	MD_LEVEL_RAID10 = 10,
};

/* RAID0 layouts (superblock layout field with feature RAID0_LAYOUT). */
#define RAID0_LAYOUT_UNSPECIFIED (-1)
#define RAID0_ORIG_LAYOUT 1
#define RAID0_ALT_MULTIZONE_LAYOUT 2

struct raid0_zone {
	uint64_t end;          /* array sector where the zone ends (exclusive) */
	uint64_t dev_start;    /* member sector (after data_offset) where it starts */
	int nb_dev;            /* members taking part: the first nb_dev roles whose size exceeds dev_start */
};

struct geometry {
	int level;
	int layout;                  /* raid5/6 algorithm, raid10 word, raid0 1/2/-1 */
	int raid_disks;
	uint32_t chunk_sectors;      /* 0 for raid1 */
	uint64_t dev_sectors;        /* sectors used on each member (raid1/4/5/6/10): the component
	                              * size cut to whole chunks; raid10: what its copies fill */
	uint64_t array_sectors;

	/* raid4/5/6 */
	int data_disks;

	/* raid10 */
	int near, far, far_offset, far_set_size, copies;
	uint64_t far_stride;         /* sectors between far copies */

	/* raid0 */
	uint64_t member_sectors[ST_MAX_DISKS]; /* per role, rounded down to a chunk */
	int nzones;
	struct raid0_zone zones[ST_MAX_DISKS];
};

/* Sets up g from superblock facts.  dev_sectors is the per-member component
 * size (superblock "size") for raid1/4/5/6/10; member_sectors[role] is each
 * member's usable size for raid0 (ignored otherwise, may be NULL).  Validates
 * like the kernel: level, layout number, chunk a power of two, enough disks.
 * For a multi-zone raid0 the layout must be 1 or 2. */
int geometry_init(struct geometry *g, int level, int layout, int raid_disks,
		  uint32_t chunk_sectors, uint64_t dev_sectors,
		  const uint64_t *member_sectors, struct diag *d);

/* The I/O sizes md's queue advertises for the array, in bytes, 0 where it
 * sets none (queue/minimum_io_size and optimal_io_size, which libblkid
 * reports and mke2fs turns into stride and stripe width): raid0 the chunk
 * and chunk * members; raid4/5/6 the chunk and chunk * data members;
 * raid10 the chunk and chunk * members / near copies (all members when the
 * near copies do not divide them); raid1 none. */
void geometry_io_hints(const struct geometry *g, uint64_t *min_io, uint64_t *opt_io);

/* Placement of one RAID4/5/6 stripe row. */
struct stripe_map {
	int data_disks;
	int pd;                      /* role holding P */
	int qd;                      /* role holding Q, -1 for raid4/5 */
	int data[ST_MAX_DISKS];      /* logical data index -> role */
	int syndrome_disks;          /* raid6: n-2, or n for the DDF layouts 8-10 */
	int slot[ST_MAX_DISKS];      /* syndrome slot -> role, -1 for an all-zero slot (DDF) */
};

/* Row is the stripe number (array chunk number / data_disks). */
void layout_stripe(const struct geometry *g, uint64_t row, struct stripe_map *m);

/* One place where an array sector is stored. */
struct copy {
	int role;
	uint64_t sector;             /* member sector, counted from the data offset */
};

/* Fills c (room for ST_MAX_DISKS entries) with every place that holds array
 * sector s (one for raid0/4/5/6, raid_disks for raid1, copies for raid10, in
 * the kernel's slot order) and returns how many.  *run is how many sectors
 * from s stay contiguous in all of them (up to the end of the chunk or zone). */
int layout_locate(const struct geometry *g, uint64_t s, struct copy *c, uint64_t *run);

/* RAID1/10: the array sector whose copy the member in role keeps at member
 * sector (the inverse of layout_locate), or UINT64_MAX where that member
 * sector holds no copy (the tail beyond what the copies fill). */
uint64_t layout_array_sector(const struct geometry *g, int role, uint64_t sector);

/* Is the level one with parity (RAID4, RAID5, RAID6)? */
bool layout_has_parity(int level);

/* The blocks of a row as parity_gen_pq and parity_recover take them, at
 * byte at of per-role buffers: data (RAID6: syndrome slots, zero for a DDF
 * slot no member fills), then P, then Q for RAID6.  Returns how many come
 * before P. */
int layout_row_blocks(const struct stripe_map *m, uint8_t *const *role_buf, size_t at, void *zero,
		      void **blocks);

/* Index of role among a row's blocks as parity_gen_pq and parity_recover
 * take them: data (RAID6: syndrome slots), then P, then Q; -1 if the row
 * does not use the role. */
int layout_block_index(const struct stripe_map *m, int role, int q);

/* Names of the layout numbers, as mdadm prints them ("left-symmetric",
 * "near=2", "original"); NULL if the number has no name at this level. */
const char *layout_name(int level, int layout, char *buf, int len);

/* The layout number for a name given on a command line: mdadm's long and
 * short names ("left-symmetric", "ls", "n2", "o2", "original", "default"),
 * layout_name's raid10 form ("near=2, far=2") or a plain number (decimal or
 * 0x hex).  Returns -1 with a message for a name md does not know here. */
int layout_parse(int level, const char *name, struct diag *d);

/* "raid5" for 5; "unknown" for numbers md has no level for. */
const char *level_name(int level);

/* Accepts md's names and mdadm's synonyms: 0..10, raid0..raid10, stripe,
 * mirror.  Returns the level, or -100 with a message. */
int level_parse(const char *s, struct diag *d);

#endif
