/* memberio: one member's share of a batch (a read or a write of a range of
 * its data area) as an item for the worker pool, and the page by page retry
 * that finds which pages of a failed read cannot be had. */
#ifndef STRIPE_MEMBERIO_H
#define STRIPE_MEMBERIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "io/dev.h"
#include "util/diag.h"
#include "io/pool.h"

/* What a read error takes out, as md counts it: reads that fail are
 * retried in pages of this size. */
#define MEMBER_PAGE 4096

struct member_io {
	struct dev *dev;
	void *buf;
	size_t len;
	uint64_t off;
	bool write;
	const bool *skip;            /* reads: chunks not wanted, or NULL for all */
	size_t chunk;                /* the size of one skip[] entry */
	uint8_t *bad;                /* reads: per page of buf, set where unreadable; NULL: a failure fails the item */
	uint64_t bad_pages;          /* reads with bad: how many pages could not be read */
	int rc;
	struct diag d;
};

/* Pool job function: does the item's I/O, leaving rc and d.  An item
 * without a device does nothing.  A read with bad is the one place where
 * unreadable pages are found: a run that fails is read again page by page,
 * the pages that still fail are zero-filled and flagged in bad, and the
 * item succeeds. */
void member_io_run(void *item);

/* One read of [off, off + len) of a member by memberio's rules, for a
 * reader outside a batch (a page read from another copy, a seek): fails
 * where any of it cannot be had. */
int member_read(struct dev *dev, void *buf, size_t len, uint64_t off, struct diag *d);

/* Waits for a job of n member_io items; returns the first failure. */
int member_io_wait(struct pool *pl, struct member_io *io, int n, struct diag *d);

#endif
