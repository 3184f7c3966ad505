/* writebehind: writes answered once their bytes are queued, and a writer
 * thread that puts them on the members in order.  A queued write holds
 * its stripe rows until it is written, so later reads of them wait for
 * it; writes that meet end to end are written as one, so that the rows
 * they share are written whole, without reading them back, and the part
 * of a run in the row it ends in waits for the write that ends that row
 * while others are queued. */
#ifndef STRIPE_WRITEBEHIND_H
#define STRIPE_WRITEBEHIND_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "io/spares.h"
#include "io/writeq.h"
#include "raid/engineset.h"

/* Told of a write that failed, from the writer thread: the bytes, and why. */
typedef void (*writebehind_failed)(void *ctx, uint64_t off, uint64_t len, const struct diag *d);

struct writebehind_config {
	int depth;                   /* writes answered but not yet on the members */
	size_t write_max;            /* the largest write taken in */
	uint64_t merge_max;          /* most bytes a run of queued writes is written in */
	long merge_wait_ns;          /* how long a partial row waits for the write that ends it */
	writebehind_failed failed;
	void *ctx;
};

/* A caller waiting for a buffer, on its own stack, in the line of them. */
struct buffer_waiter {
	pthread_cond_t turn;         /* signalled once w is its */
	uint64_t off;
	size_t len;
	struct queued_write *w;
	struct buffer_waiter *next;
};

struct writebehind {
	struct engineset *es;
	struct writebehind_config cfg;
	pthread_mutex_t mu;          /* guards all below but failed */
	pthread_cond_t queued;       /* a write came, or someone waits for the queue to empty */
	pthread_cond_t drained;      /* the queue is empty, for those who wait for that */
	struct spares spares;
	struct writeq queue;         /* of struct queued_write */
	int inflight;                /* taken in, queued or being written */
	struct writeq_item *incoming; /* writes being taken in, cfg.depth slots; len 0: free */
	struct buffer_waiter *waiters, **waiters_tail; /* callers waiting for a buffer, first come first */
	int flushing;                /* callers waiting for the queue to empty */
	struct writeq_item *rest;    /* the rest of the last run, put back; NULL: none */
	bool stopping;
	pthread_t writer;
	atomic_bool failed;
};

/* Makes the buffers and starts the writer on the engines of es; -1 with d
 * set when the thread cannot start (nothing is left to stop then). */
int writebehind_start(struct writebehind *wb, struct engineset *es, const struct writebehind_config *cfg,
		      struct diag *d);
/* Puts every queued write on the members, ends the writer, frees the
 * buffers. */
void writebehind_stop(struct writebehind *wb);

/* A buffer for the write of len bytes at off, once fewer than cfg.depth
 * writes are in flight and every caller that asked before has had one (so
 * a sequential writer's requests queue as runs); NULL when len is more
 * than cfg.write_max.  The caller fills its data, then queues it, or hands
 * it back when the bytes did not come. */
struct queued_write *writebehind_buffer(struct writebehind *wb, uint64_t off, size_t len);
void writebehind_queue(struct writebehind *wb, struct queued_write *w);
void writebehind_cancel(struct writebehind *wb, struct queued_write *w);

/* Waits until every write queued is on the members (or failed); -1 when
 * a write failed since the start. */
int writebehind_drain(struct writebehind *wb);

#endif
