/* rowfit: what the rows of a parity set say, and the geometries that say
 * the same: md's layouts (layout_stripe) tried over chunk sizes and data
 * offsets, the member order voted for row by row. */
#ifndef STRIPE_PROBE_ROWFIT_H
#define STRIPE_PROBE_ROWFIT_H

#include <stdint.h>

#include "probe/probe.h"
#include "probe/syndrome.h"

/* One decided row of a set. */
struct row_obs {
	uint64_t off;                 /* member offset, bytes */
	int16_t tag[PSET_MAX];        /* RAID6: per set member, syndrome.h's tags */
	uint32_t pmask;               /* RAID4/5: the set members that may be P (those with data) */
	uint32_t pair_mask;           /* and that may be by sectors of one data beside P alone */
};

struct obs_list {
	int n, cap;
	struct row_obs *row;
};

int obs_add(struct obs_list *o, const struct row_obs *r);
void obs_free(struct obs_list *o);

/* One geometry tried against the rows. */
struct fit {
	int layout;
	uint32_t chunk_sectors;       /* 0: the rows cannot tell */
	uint64_t data_offset;
	int order[PSET_MAX];          /* role -> set index, or PROBE_UNKNOWN */
	int fitting, rows;
	int decided;                  /* roles the rows name a member for */
};

/* The best fits of a RAID6 set of n members over the data offsets offs[]
 * (largest first), each a different layout, best first; layouts the
 * rows cannot tell apart come out with equal counts.  Returns how many. */
int fit_raid6(const struct obs_list *o, int n, const struct probe_hints *h, const uint64_t *offs, int noffs,
	      struct fit *out, int max);

/* RAID4/5 likewise, from where P may be: level 4 when P never moves (its
 * fit's layout is then 5, parity-last, for RAID5 read the same way).  A
 * fit with chunk 0 means the rows decided neither chunk nor order. */
int fit_raid5(const struct obs_list *o, int n, const struct probe_hints *h, const uint64_t *offs, int noffs,
	      struct fit *out, int max, int *level);

#endif
