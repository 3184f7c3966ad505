/* memberio: one member's share of a batch (a read or a write of a range of
 * its data area) as an item for the worker pool. */
#ifndef STRIPE_MEMBERIO_H
#define STRIPE_MEMBERIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "io/dev.h"
#include "util/diag.h"
#include "io/pool.h"

struct member_io {
	struct dev *dev;
	void *buf;
	size_t len;
	uint64_t off;
	bool write;
	const bool *skip;            /* reads: chunks not wanted, or NULL for all */
	size_t chunk;                /* the size of one skip[] entry */
	int rc;
	struct diag d;
};

/* Pool job function: does the item's I/O, leaving rc and d.  An item
 * without a device does nothing. */
void member_io_run(void *item);

/* Waits for a job of n member_io items; returns the first failure. */
int member_io_wait(struct pool *pl, struct member_io *io, int n, struct diag *d);

#endif
