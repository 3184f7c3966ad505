/* test_rangelock: holds of one group share a range, holds of another
 * group wait for overlapping ones only, a hold alone shares with none,
 * and a waiter goes on once the conflicting hold is dropped. */
#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

#include "io/rangelock.h"
#include "tap.h"

enum { READS, WRITES };

struct waiter {
	struct rangelock *l;
	atomic_int got;
};

static void *take_write(void *p)
{
	struct waiter *w = p;
	struct range_hold h;

	rangelock_take(w->l, &h, 100, 200, WRITES);
	atomic_store(&w->got, 1);
	rangelock_drop(w->l, &h);
	return NULL;
}

int main(void)
{
	struct rangelock l;
	struct range_hold a, b, c;
	struct waiter w;
	pthread_t th;
	int i;

	rangelock_init(&l);
	rangelock_take(&l, &a, 0, 150, READS);
	ok(!rangelock_busy(&l, 100, 200, READS), "a hold lets another of its group overlap");
	ok(rangelock_busy(&l, 100, 200, WRITES), "a hold keeps an overlapping one of another group waiting");
	ok(!rangelock_busy(&l, 150, 300, WRITES), "ranges are half-open: [0,150) and [150,300) do not overlap");
	rangelock_take(&l, &b, 150, 300, WRITES);
	rangelock_take(&l, &c, 200, 400, WRITES);
	ok(rangelock_busy(&l, 299, 300, READS), "overlapping holds of one group both keep the other group out");
	ok(!rangelock_busy(&l, 400, 500, READS), "holds leave other ranges free");
	rangelock_drop(&l, &b);
	ok(rangelock_busy(&l, 299, 300, READS), "a range stays held while one hold on it remains");
	rangelock_drop(&l, &c);
	ok(!rangelock_busy(&l, 150, 300, READS), "dropped holds free their range");

	w.l = &l;
	atomic_init(&w.got, 0);
	pthread_create(&th, NULL, take_write, &w);
	for (i = 0; i < 20; i++)
		usleep(1000);
	ok(atomic_load(&w.got) == 0, "a taker waits while an overlapping hold of the other group is in force");
	rangelock_drop(&l, &a);
	pthread_join(th, NULL);
	ok(atomic_load(&w.got) == 1, "the waiter goes on once the hold is dropped");
	rangelock_take(&l, &a, 1000, 2000, RANGE_ALONE);
	ok(rangelock_busy(&l, 1500, 1600, RANGE_ALONE), "a hold alone keeps another hold alone on its range waiting");
	ok(rangelock_busy(&l, 1999, 2000, READS) && rangelock_busy(&l, 1000, 1001, WRITES),
	   "and a hold of any group");
	ok(!rangelock_busy(&l, 2000, 3000, RANGE_ALONE), "and leaves the ranges beside it free");
	rangelock_drop(&l, &a);
	rangelock_take(&l, &a, 1000, 2000, WRITES);
	ok(rangelock_busy(&l, 1500, 1600, RANGE_ALONE), "a hold of a group keeps a hold alone waiting");
	rangelock_drop(&l, &a);
	ok(!rangelock_busy(&l, 0, UINT64_MAX, READS) && !rangelock_busy(&l, 0, UINT64_MAX, WRITES) &&
	   !rangelock_busy(&l, 0, UINT64_MAX, RANGE_ALONE),
	   "nothing is held at the end");
	rangelock_destroy(&l);
	return tap_done();
}
