/* window: a range of array bytes as it lies on the members, for every
 * level: each role's segments of it, their member I/O, and the bytes the
 * reads did not give, got another way (another copy, or rebuilt by the
 * row engine from parity). */
#ifndef STRIPE_WINDOW_H
#define STRIPE_WINDOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "md/array.h"
#include "raid/rows.h"
#include "util/diag.h"

/* One contiguous piece of a window: array bytes that sit on one member. */
struct segment {
	uint64_t area_off;           /* bytes into the member's data area */
	size_t buf_off, len;         /* where in the window, how long */
	bool lost;                   /* a read: some page of it could not be had */
};

/* One role's segments of a window.  A RAID4/5/6 role whose member is
 * missing keeps its segments too (dev NULL): they are rebuilt, not read. */
struct member_segments {
	struct dev *dev;
	uint64_t base;               /* bytes before the data area */
	uint8_t *buf;                /* the window */
	struct segment *seg;
	int n, cap;
	bool write;
	uint8_t *bad;                /* reads: memberio's page flags, a window's worth */
	int rc;
	struct diag d;
};

/* A window of the array's bytes and where its pieces lie on the members. */
struct window {
	uint64_t off;
	size_t len;
	uint8_t *buf;
	struct member_segments *ms;  /* per role */
};

/* Splits array bytes [off, off + len) into the roles' segments (ms: one
 * per role, emptied first by the caller): one copy of each piece to read,
 * or every present copy to write.  A RAID4/5/6 piece on a missing member
 * goes to that member's segments, to be rebuilt from parity. */
int window_plan(struct array *a, uint64_t off, size_t len, struct member_segments *ms, bool every_copy,
		struct diag *d);

/* Pool job function: one role's segments read or written, in order.  A
 * write stops at the first failure (rc, d); a read is memberio's, page by
 * page where it fails, and a segment with a page it could not have is
 * marked lost.  A role without a member does nothing. */
void window_member_run(void *item);

/* Gives a window the bytes its reads did not: segments of a role whose
 * member is missing, or lost, from another copy (RAID1/10) or rebuilt by
 * a walk of the row engine (RAID4/5/6).  Where nothing is left to give
 * them from, zeroes, told to the array's read_lost; without that hook it
 * fails naming the member and bytes. */
int window_mend(struct rows_engine *re, struct member_segments *ms, uint64_t off, struct diag *d);

/* RAID4/5/6: one role's segments (all of them without a member, else
 * the lost ones) rebuilt by the row engine: it reads
 * every member's pages of them, finds the unreadable ones and mends them
 * from P/Q.  re NULL: an engine of its own for the walk, in small batches,
 * for a caller whose engine is mid-walk. */
int window_mend_parity(struct array *a, struct rows_engine *re, int role, const struct member_segments *ms,
		       struct diag *d);

/* The failure for page pg of a mended piece that more was lost from than
 * the level rebuilds: unserved (diag_unserved), naming the array bytes of
 * the row and the roles it lacks, missing or unreadable (the member and
 * its byte). */
int window_beyond(const struct array *a, const struct rows_piece *p, size_t pg, struct diag *d);

#endif
