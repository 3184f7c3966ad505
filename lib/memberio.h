/* memberio: one member's share of a batch (a read or a write of a range of
 * its data area) as an item for the worker pool. */
#ifndef STRIPE_MEMBERIO_H
#define STRIPE_MEMBERIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "array.h"
#include "dev.h"
#include "diag.h"
#include "pool.h"

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

/* How many pool workers a pass over a's members should have, given cpus
 * CPUs to spend: one per role when any member is a block device, a disk
 * that can work while the others do; one per CPU for image files, whose
 * I/O is a copy from the page cache that more threads than CPUs would only
 * take turns at. */
int member_io_workers(const struct array *a, int cpus);

/* Waits for a job of n member_io items; returns the first failure. */
int member_io_wait(struct pool *pl, struct member_io *io, int n, struct diag *d);

#endif
