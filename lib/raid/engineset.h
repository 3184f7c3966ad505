/* engineset: stripe engines serving requests on one array side by side,
 * and the holds each request takes on the stripe rows it touches: a write
 * rewrites P and Q of whole rows and a degraded read rebuilds from them,
 * so a read never meets a row half written. */
#ifndef STRIPE_ENGINESET_H
#define STRIPE_ENGINESET_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "io/rangelock.h"
#include "raid/stripe.h"

/* The rangelock groups: reads share rows, as writes (applied in order by
 * one thread) do, but a read and a write exclude each other. */
enum { ROWS_READ, ROWS_WRITE };

struct engineset {
	struct array *a;
	uint64_t row_bytes;          /* what a hold is rounded to: a stripe row, 1 for copy levels */
	struct rangelock rows;
	int n;
	struct stripe_engine *engine;
	bool *busy;
	pthread_mutex_t mu;          /* guards busy */
	pthread_cond_t freed;
};

/* n engines, their member threads up from now until engineset_stop; -1
 * when memory runs out (nothing is left running then). */
int engineset_start(struct engineset *es, struct array *a, int n, struct diag *d);
void engineset_stop(struct engineset *es);

/* An idle engine, waiting for one while all n serve; given back after. */
struct stripe_engine *engineset_take(struct engineset *es);
void engineset_give(struct engineset *es, struct stripe_engine *e);

/* Holds the stripe rows [off, off + len) touches in group, waiting while
 * the other group holds one of them. */
void engineset_hold(struct engineset *es, struct range_hold *h, uint64_t off, uint64_t len, int group);
void engineset_drop(struct engineset *es, struct range_hold *h);

/* stripe_engine_read of [off, off + len) with its rows held: degraded rows
 * rebuilt, never while a queued write changes them. */
int engineset_read(struct engineset *es, uint64_t off, uint64_t len, stripe_sink sink, void *ctx,
		   struct diag *d);

#endif
