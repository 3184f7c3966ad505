/* rangelock: byte-range holds by group: a list of the holds in force under
 * one mutex, and a condition that wakes waiters when one ends. */
#include <stddef.h>

#include "io/rangelock.h"

void rangelock_init(struct rangelock *l)
{
	pthread_mutex_init(&l->mu, NULL);
	pthread_cond_init(&l->freed, NULL);
	l->held = NULL;
}

void rangelock_destroy(struct rangelock *l)
{
	pthread_cond_destroy(&l->freed);
	pthread_mutex_destroy(&l->mu);
}

static bool conflicts(const struct rangelock *l, uint64_t lo, uint64_t hi, int group)
{
	const struct range_hold *h;

	for (h = l->held; h; h = h->next)
		if (h->lo < hi && lo < h->hi && (h->group != group || group == RANGE_ALONE))
			return true;
	return false;
}

void rangelock_take(struct rangelock *l, struct range_hold *h, uint64_t lo, uint64_t hi, int group)
{
	*h = (struct range_hold){ .lo = lo, .hi = hi, .group = group };
	pthread_mutex_lock(&l->mu);
	while (conflicts(l, lo, hi, group))
		pthread_cond_wait(&l->freed, &l->mu);
	h->next = l->held;
	l->held = h;
	pthread_mutex_unlock(&l->mu);
}

void rangelock_drop(struct rangelock *l, struct range_hold *h)
{
	struct range_hold **p;

	pthread_mutex_lock(&l->mu);
	for (p = &l->held; *p; p = &(*p)->next) {
		if (*p == h) {
			*p = h->next;
			break;
		}
	}
	pthread_cond_broadcast(&l->freed);
	pthread_mutex_unlock(&l->mu);
}

bool rangelock_busy(struct rangelock *l, uint64_t lo, uint64_t hi, int group)
{
	bool busy;

	pthread_mutex_lock(&l->mu);
	busy = conflicts(l, lo, hi, group);
	pthread_mutex_unlock(&l->mu);
	return busy;
}
