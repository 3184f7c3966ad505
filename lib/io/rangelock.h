/* rangelock: holds on byte ranges of an array by group: holds of one group
 * share a range, holds of different groups exclude each other.  stripe-map
 * holds the stripe rows of a read in one group and of a queued write in
 * the other, so that no read rebuilds or returns a row a write is
 * changing, while writes, applied in order by one thread, share. */
#ifndef STRIPE_RANGELOCK_H
#define STRIPE_RANGELOCK_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

/* One hold, owned by the caller (on its stack or in its request) while it
 * is held. */
struct range_hold {
	uint64_t lo, hi;             /* [lo, hi) */
	int group;
	struct range_hold *next;
};

struct rangelock {
	pthread_mutex_t mu;
	pthread_cond_t freed;
	struct range_hold *held;
};

void rangelock_init(struct rangelock *l);
void rangelock_destroy(struct rangelock *l);

/* The group of a hold that shares its range with no other hold, even of
 * its own group. */
#define RANGE_ALONE (-1)

/* Waits until [lo, hi) overlaps no hold of another group (no hold at all
 * for RANGE_ALONE), then records h as held. */
void rangelock_take(struct rangelock *l, struct range_hold *h, uint64_t lo, uint64_t hi, int group);
void rangelock_drop(struct rangelock *l, struct range_hold *h);

/* Whether a hold of [lo, hi) in group would wait now (for tests). */
bool rangelock_busy(struct rangelock *l, uint64_t lo, uint64_t hi, int group);

#endif
