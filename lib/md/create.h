/* create: plan and write a new md array the way mdadm 4.x would make it:
 * data offsets, sizes, superblocks, bad-block log room, and a data area
 * that is consistent from the start. */
#ifndef STRIPE_CREATE_H
#define STRIPE_CREATE_H

#include <stdbool.h>
#include <stdint.h>

#include "io/dev.h"
#include "util/diag.h"
#include "md/bitmap.h"
#include "md/layout.h"
#include "md/super.h"

#define CREATE_DEFAULT UINT64_MAX

/* mdadm's --bitmap: by default an internal bitmap on arrays whose
 * members each give more than 100 GiB, none on smaller ones. */
enum create_bitmap {
	CREATE_BITMAP_DEFAULT,
	CREATE_BITMAP_NONE,
	CREATE_BITMAP_INTERNAL,
};

struct create_spec {
	int level;
	int layout;                  /* -1: the level's default */
	int raid_disks;
	int spares;                  /* the last `spares` members given */
	uint32_t chunk_sectors;      /* 0: default 512 KiB (none for raid1) */
	int major, minor;            /* 0.90, or 1.0 / 1.1 / 1.2 */
	const char *name;            /* NULL: "0" */
	const char *homehost;        /* NULL: none */
	bool have_uuid;
	uint8_t uuid[16];
	uint64_t data_offset;        /* sectors, CREATE_DEFAULT: mdadm's rule */
	uint64_t size;               /* per-member sectors used, 0: largest that fits */
	enum create_bitmap bitmap;
	uint32_t bitmap_chunk;       /* bytes, 0: mdadm's default */
	bool assume_clean;           /* write superblocks only */
	bool force;                  /* accept members of mixed sizes */
	uint64_t now;                /* creation time, seconds */
};

struct create_member {
	const char *path;            /* NULL for "missing" */
	struct dev dev;
	int number;                  /* md's device number: position in the list */
	int role;                    /* slot, or ROLE_SPARE */
	uint64_t avail;              /* sectors this member could give */
	struct md_super sb;
};

struct create_plan {
	struct create_spec spec;
	int n;
	struct create_member *m;
	uint64_t size;               /* component sectors, as the superblocks say */
	uint64_t data_offset;        /* sectors (1.1/1.2 common offset; 0 for 1.0/0.90) */
	struct geometry geo;
	bool has_bitmap;
	struct md_bitmap bitmap;     /* with has_bitmap: every member's, bits clear */
	uint64_t bitmap_bytes;       /* what of each member's bitmap room is written */
	/* told the bytes zeroed so far, of create_zero_bytes(), while
	 * create_write zeroes (a device's can take as long as writing it) */
	void (*zeroed)(void *ctx, uint64_t bytes);
	void *zeroed_ctx;
};

/* The level's mdadm defaults: layout, chunk. */
int create_default_layout(int level);

/* Opens every member for writing (paths[i] == "missing" for an absent one),
 * works out sizes and offsets, and builds each member's superblock.  Writes
 * nothing.  Fails naming the member and the numbers when one is too small,
 * sizes differ by more than 1% (unless force), the shape is invalid, or
 * the bitmap asked for cannot be made. */
int create_plan(struct create_plan *p, const struct create_spec *s,
		char *const *paths, int n, struct diag *d);

/* With assume_clean, refuses when the superblock, bitmap or bad-block
 * log the plan lays down on a member would cover bytes that are not zero
 * and that no md superblock on the member accounts for: data the create
 * is told to keep.  A superblock's own place is refused even with force;
 * the message names the member, the sectors, what blkid finds there (or
 * that the bytes are not zero) and what to give instead.  Writes nothing. */
int create_guard_data(const struct create_plan *p, struct diag *d);

/* Makes the array: clears stale md superblocks of other versions, zeroes the
 * data areas (unless assume_clean), writes the bitmaps, then the
 * superblocks. */
int create_write(struct create_plan *p, struct diag *d);

/* The bytes create_write zeroes: every data area, none with assume_clean. */
uint64_t create_zero_bytes(const struct create_plan *p);

void create_free(struct create_plan *p);

#endif
