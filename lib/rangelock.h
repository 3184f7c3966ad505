/* rangelock: shared and exclusive holds on byte ranges of an array, so that
 * requests served at once (stripe-map's threads) never rebuild or rewrite a
 * stripe row another request is changing. */
#ifndef STRIPE_RANGELOCK_H
#define STRIPE_RANGELOCK_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

/* One hold, owned by the caller (on its stack) while it is held. */
struct range_hold {
	uint64_t lo, hi;             /* [lo, hi) */
	bool excl;
	struct range_hold *next;
};

struct rangelock {
	pthread_mutex_t mu;
	pthread_cond_t freed;
	struct range_hold *held;
};

void rangelock_init(struct rangelock *l);
void rangelock_destroy(struct rangelock *l);

/* Waits until [lo, hi) overlaps no hold that conflicts (an exclusive one,
 * or any when excl), then records h as held. */
void rangelock_take(struct rangelock *l, struct range_hold *h, uint64_t lo, uint64_t hi, bool excl);
void rangelock_drop(struct rangelock *l, struct range_hold *h);

/* Whether a hold of [lo, hi) would wait now (for tests). */
bool rangelock_busy(struct rangelock *l, uint64_t lo, uint64_t hi, bool excl);

#endif
