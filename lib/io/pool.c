/* pool: persistent worker threads for a pass over an array.  A thread
 * created per batch cost more than the batch's I/O on a page-cached array
 * (clone, stack munmap and the TLB shootdowns it sends to every CPU).
 * Each worker waits on its own semaphore, so a job wakes each once instead
 * of every worker fighting for one lock after a broadcast. */
#include <sched.h>
#include <stdlib.h>

#include "io/pool.h"

/* Claims items until the job has none left; the last to finish posts done. */
static void pool_drain(struct pool *pl)
{
	int i;

	while ((i = atomic_fetch_add(&pl->next, 1)) < pl->n) {
		pl->run(pl->items + (size_t)i * pl->size);
		if (atomic_fetch_sub(&pl->pending, 1) == 1)
			sem_post(&pl->done);
	}
}

static void *pool_worker_run(void *p)
{
	struct pool_worker *w = p;
	struct pool *pl = w->pool;

	for (;;) {
		while (sem_wait(&w->go) != 0)
			;
		if (pl->stop)
			break;
		pool_drain(pl);
	}
	return NULL;
}

/* Ends the workers; later jobs run in the caller. */
static void pool_join(struct pool *pl)
{
	int i;

	pl->stop = true;
	for (i = 0; pl->w && i < pl->nw; i++) {
		if (pl->w[i].started) {
			sem_post(&pl->w[i].go);
			pthread_join(pl->w[i].th, NULL);
		}
		sem_destroy(&pl->w[i].go);
	}
	pl->threaded = false;
	pl->stop = false;
	free(pl->w);
	pl->w = NULL;
}

void pool_stop(struct pool *pl)
{
	pool_join(pl);
	sem_destroy(&pl->done);
}

void pool_start(struct pool *pl, int n, int workers)
{
	int i;

	*pl = (struct pool){ .n = n, .nw = workers < 1 ? 1 : workers > n ? n : workers };
	atomic_init(&pl->next, n);
	sem_init(&pl->done, 0, 0);
	pl->w = n > 1 ? calloc((size_t)pl->nw, sizeof(*pl->w)) : NULL;
	pl->threaded = pl->w != NULL;
	for (i = 0; pl->threaded && i < pl->nw; i++) {
		pl->w[i] = (struct pool_worker){ .pool = pl };
		sem_init(&pl->w[i].go, 0, 0);
	}
	for (i = 0; pl->threaded && i < pl->nw; i++) {
		pl->w[i].started = pthread_create(&pl->w[i].th, NULL, pool_worker_run, &pl->w[i]) == 0;
		if (!pl->w[i].started)
			pool_join(pl);
	}
}

void pool_run_here(struct pool *pl, void (*run)(void *item), void *items, size_t size)
{
	int i;

	pl->busy = true;
	for (i = 0; i < pl->n; i++)
		run((char *)items + (size_t)i * size);
}

void pool_submit(struct pool *pl, void (*run)(void *item), void *items, size_t size)
{
	int i;

	if (!pl->threaded) {
		pool_run_here(pl, run, items, size);
		return;
	}
	pl->busy = pl->on_workers = true;
	pl->run = run;
	pl->items = items;
	pl->size = size;
	atomic_store(&pl->pending, pl->n);
	atomic_store(&pl->next, 0);  /* publishes the job to workers that claim */
	for (i = 0; i < pl->nw; i++)
		sem_post(&pl->w[i].go);
}

void pool_wait(struct pool *pl)
{
	if (pl->on_workers)
		while (sem_wait(&pl->done) != 0)
			;
	pl->busy = pl->on_workers = false;
}

int pool_cpus(void)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0)
		return CPU_COUNT(&set);
	return 1;
}
