/* copies: which members hold the same bytes as which, at the same offset
 * (mirrors, RAID10's near copies) or shifted (RAID10's far and offset
 * copies), counted over the sample. */
#ifndef STRIPE_PROBE_COPIES_H
#define STRIPE_PROBE_COPIES_H

#include <stdbool.h>
#include <stdint.h>

#include "md/layout.h"
#include "probe/probe.h"

#define COPIES_MAX 32                 /* members compared pair by pair */
#define COPIES_FIT 0.99               /* share of blocks two copies must agree in */

/* Blocks of a and b at one offset, over the sample's rows with data. */
struct pair_count {
	int rows;                         /* rows where a or b holds data */
	int equal;                        /* and their blocks are equal */
};

struct copy_map {
	int np;
	int member[COPIES_MAX];           /* column -> member index (present members) */
	struct pair_count same[COPIES_MAX][COPIES_MAX];
	uint64_t first;                   /* member offset of the first row with data */
	int rows;                         /* rows with data on some member */
};

/* Counts equal blocks at the same offset for every pair of present members. */
void copies_same_offset(const struct probe_sample *s, struct copy_map *cm);

/* Are a and b (columns) copies wherever either holds data? */
bool copies_equal(const struct copy_map *cm, int a, int b);

/* A shift that copies move by: member a's block at offset o is member
 * next[a]'s block at o + shift, for every a (a cycle over the columns). */
struct copy_shift {
	uint64_t shift;                   /* bytes */
	int next[COPIES_MAX];             /* column -> column, -1 unknown */
	int rows, matched;                /* (row, member) tried, and those found copied */
	int copies;                       /* offset layout: how many, from the share copied */
};

/* RAID10 offset copies: each chunk row again in the next (copies - 1
 * times), one member on.  Tries chunks of 4 KiB to 512 KiB inside the
 * sample's windows; fills the best and returns 1, or 0 when no chunk shows
 * such copies. */
int copies_offset_shift(const struct probe_sample *s, const struct copy_map *cm, struct copy_shift *best);

/* RAID10 far copies: the first half of each member again, one member on,
 * some way past the middle.  Searches for the rows of the head window
 * near the middle of the members (the span half - span .. half after the
 * data offset doff, sectors); returns 1 with best filled, 0, or -1 on a
 * read error. */
int copies_far_shift(struct probe_sample *s, const struct copy_map *cm, uint64_t doff, struct copy_shift *best,
		     struct diag *d);

/* Blocks a complete geometry's copies were checked on. */
struct copy_check {
	int rows;                         /* blocks with data whose other copy the sample could give */
	int matched;                      /* and that copy was equal */
};

/* Checks g (a RAID10, its roles on the members member_of_role names, data
 * at doff sectors) on the sample: each block with data against the copy
 * the layout keeps elsewhere.  Stops early once too many differ to fit.
 * -1 on a read error. */
int copies_check_layout(struct probe_sample *s, const struct geometry *g, const int *member_of_role,
			uint64_t doff, struct copy_check *cc, struct diag *d);

#endif
