/* test_pool: every item of a job runs exactly once, whether there are as
 * many workers as items, fewer, or one, and job after job. */
#include <pthread.h>
#include <stdatomic.h>

#include "io/pool.h"
#include "tap.h"

#define ITEMS 7
#define JOBS 500

struct item {
	atomic_int runs;
	pthread_t by;
};

static void run_item(void *p)
{
	struct item *it = p;

	atomic_fetch_add(&it->runs, 1);
	it->by = pthread_self();
}

/* Runs JOBS jobs of n items on the pool; true when each item of each job
 * ran once and had run when pool_wait returned. */
static bool jobs_run_once(struct pool *pl, int n)
{
	struct item items[ITEMS];
	int j, i;

	for (j = 0; j < JOBS; j++) {
		for (i = 0; i < n; i++)
			atomic_init(&items[i].runs, 0);
		pool_submit(pl, run_item, items, sizeof(items[0]));
		pool_wait(pl);
		for (i = 0; i < n; i++)
			if (atomic_load(&items[i].runs) != 1)
				return false;
	}
	return true;
}

/* How many threads ran the items of one job; *first: the one that ran
 * item 0. */
static int threads_used(struct pool *pl, int n, pthread_t *first)
{
	struct item items[ITEMS];
	pthread_t seen[ITEMS];
	int i, k, nseen = 0;

	for (i = 0; i < n; i++)
		atomic_init(&items[i].runs, 0);
	pool_submit(pl, run_item, items, sizeof(items[0]));
	pool_wait(pl);
	for (i = 0; i < n; i++) {
		for (k = 0; k < nseen && !pthread_equal(seen[k], items[i].by); k++)
			;
		if (k == nseen)
			seen[nseen++] = items[i].by;
	}
	*first = items[0].by;
	return nseen;
}

int main(void)
{
	static const int workers[] = { ITEMS, 3, 1 };
	struct pool pl;
	pthread_t by;
	size_t w;

	for (w = 0; w < sizeof(workers) / sizeof(workers[0]); w++) {
		pool_start(&pl, ITEMS, workers[w]);
		ok(jobs_run_once(&pl, ITEMS), "%d items, worker threads %d: each item runs once per job, %d jobs",
		   ITEMS, workers[w], JOBS);
		pool_stop(&pl);
	}
	pool_start(&pl, ITEMS, 1);
	ok(threads_used(&pl, ITEMS, &by) == 1 && !pthread_equal(by, pthread_self()),
	   "one worker runs every item of a job, and not in the caller");
	pool_stop(&pl);
	pool_start(&pl, ITEMS, 2 * ITEMS);
	ok(pl.nw == ITEMS, "more workers than items are cut to one per item");
	ok(jobs_run_once(&pl, ITEMS), "and each item still runs once");
	pool_stop(&pl);
	pool_start(&pl, ITEMS, ITEMS);
	{
		struct item items[ITEMS];
		int i, here = 0;

		for (i = 0; i < ITEMS; i++)
			atomic_init(&items[i].runs, 0);
		pool_run_here(&pl, run_item, items, sizeof(items[0]));
		for (i = 0; i < ITEMS; i++)
			here += atomic_load(&items[i].runs) == 1 && pthread_equal(items[i].by, pthread_self());
		ok(here == ITEMS, "a job run here runs every item once, in the caller, with workers at hand");
		ok(pl.busy, "and waits to be collected, as a job submitted does (a write's errors are read then)");
		pool_wait(&pl);
		ok(!pl.busy, "pool_wait collects it without waiting for the workers");
		ok(jobs_run_once(&pl, ITEMS), "and the workers take the next job as before");
	}
	pool_stop(&pl);
	pool_start(&pl, 1, 4);
	ok(!pl.threaded, "a job of one item runs in the caller");
	ok(jobs_run_once(&pl, 1) && threads_used(&pl, 1, &by) == 1 && pthread_equal(by, pthread_self()),
	   "once, in the calling thread");
	pool_stop(&pl);
	return tap_done();
}
