/* readd: md's bitmap-based recovery of a member that comes back: whether
 * md would recover it from the write-intent bitmap, and which of its
 * ranges the bits the survivors kept while it was away mark changed. */
#ifndef STRIPE_READD_H
#define STRIPE_READD_H

#include <stdbool.h>
#include <stdint.h>

#include "md/array.h"
#include "md/recovery.h"
#include "raid/rebuild.h"
#include "util/diag.h"

/* How the targets of one rebuild are recovered.  md keeps one flag for all
 * of them (conf->fullsync): the bitmap serves only when every target is a
 * member re-added in its own role that md would accept for it. */
struct readd_plan {
	bool bitmap;                 /* only range[] is rebuilt */
	char why[512];               /* recovered whole although re-added: why (else empty) */
	struct rebuild_range *range; /* member sectors whose bits are set, in order, apart */
	int n, cap;
	uint64_t from, end;          /* member sectors the rebuild spans: resumed from, to */
	uint32_t chunk_bytes;        /* the bitmap's chunk: a bit's worth of each member */
	uint64_t bits, dirty_bits;   /* the bitmap's, and of those set */
};

/* Decides, as md's super_1_validate and the personalities' add_disk do,
 * whether targets t[0..n-1] are recovered from a's bitmap, and if so
 * which ranges (loading the bitmap into a->intent) and marks them
 * t[i].bitmap.  The rule: every target re-added in its own role, the
 * array keeping a bitmap that is not stale, and each member's events at
 * least the bitmap's events_cleared (a recovery resumed: recorded as one
 * from the bitmap).  restart: the targets' recorded progress is ignored.
 * Fails only when the bitmap cannot be read. */
int readd_plan(struct array *a, struct rebuild_target *t, int n, bool restart, struct readd_plan *p,
	       struct diag *d);

/* Member sectors of each target the plan rebuilds (all from p->from on
 * when not from the bitmap). */
uint64_t readd_copy_sectors(const struct readd_plan *p);

void readd_plan_free(struct readd_plan *p);

#endif
