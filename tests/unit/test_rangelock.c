/* test_rangelock: shared holds share, exclusive ones exclude overlapping
 * holds only, and a waiter goes on once the conflicting hold is dropped. */
#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

#include "rangelock.h"
#include "tap.h"

struct waiter {
	struct rangelock *l;
	atomic_int got;
};

static void *take_excl(void *p)
{
	struct waiter *w = p;
	struct range_hold h;

	rangelock_take(w->l, &h, 100, 200, true);
	atomic_store(&w->got, 1);
	rangelock_drop(w->l, &h);
	return NULL;
}

int main(void)
{
	struct rangelock l;
	struct range_hold a, b;
	struct waiter w;
	pthread_t th;
	int i;

	rangelock_init(&l);
	rangelock_take(&l, &a, 0, 150, false);
	ok(!rangelock_busy(&l, 100, 200, false), "a shared hold lets another shared hold overlap");
	ok(rangelock_busy(&l, 100, 200, true), "a shared hold keeps an overlapping exclusive hold waiting");
	ok(!rangelock_busy(&l, 150, 300, true), "ranges are half-open: [0,150) and [150,300) do not overlap");
	rangelock_take(&l, &b, 150, 300, true);
	ok(rangelock_busy(&l, 299, 300, false), "an exclusive hold keeps overlapping shared holds waiting");
	ok(!rangelock_busy(&l, 300, 400, true), "an exclusive hold leaves other ranges free");
	rangelock_drop(&l, &b);
	ok(!rangelock_busy(&l, 150, 300, true), "a dropped hold frees its range");

	w.l = &l;
	atomic_init(&w.got, 0);
	pthread_create(&th, NULL, take_excl, &w);
	for (i = 0; i < 20; i++)
		usleep(1000);
	ok(atomic_load(&w.got) == 0, "an exclusive taker waits while an overlapping shared hold is in force");
	rangelock_drop(&l, &a);
	pthread_join(th, NULL);
	ok(atomic_load(&w.got) == 1, "the waiter goes on once the hold is dropped");
	ok(!rangelock_busy(&l, 0, UINT64_MAX, true), "nothing is held at the end");
	rangelock_destroy(&l);
	return tap_done();
}
