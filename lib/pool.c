/* pool: persistent worker threads, one per member.  A thread created per
 * batch cost more than the batch's I/O on a page-cached array (clone, stack
 * munmap and the TLB shootdowns it sends to every CPU).  Each worker waits
 * on its own semaphore, so a job wakes each once instead of every worker
 * fighting for one lock after a broadcast. */
#include <stdlib.h>

#include "pool.h"

static void *pool_worker_run(void *p)
{
	struct pool_worker *w = p;
	struct pool *pl = w->pool;

	for (;;) {
		while (sem_wait(&w->go) != 0)
			;
		if (pl->stop)
			break;
		pl->run(pl->items + (size_t)w->i * pl->size);
		if (atomic_fetch_sub(&pl->pending, 1) == 1)
			sem_post(&pl->done);
	}
	return NULL;
}

/* Ends the workers; later jobs run in the caller. */
static void pool_join(struct pool *pl)
{
	int i;

	pl->stop = true;
	for (i = 0; pl->w && i < pl->n; i++) {
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

void pool_start(struct pool *pl, int n)
{
	int i;

	*pl = (struct pool){ .n = n };
	sem_init(&pl->done, 0, 0);
	pl->w = n > 1 ? calloc((size_t)n, sizeof(*pl->w)) : NULL;
	pl->threaded = pl->w != NULL;
	for (i = 0; pl->threaded && i < n; i++) {
		pl->w[i] = (struct pool_worker){ .pool = pl, .i = i };
		sem_init(&pl->w[i].go, 0, 0);
	}
	for (i = 0; pl->threaded && i < n; i++) {
		pl->w[i].started = pthread_create(&pl->w[i].th, NULL, pool_worker_run, &pl->w[i]) == 0;
		if (!pl->w[i].started)
			pool_join(pl);
	}
}

void pool_submit(struct pool *pl, void (*run)(void *item), void *items, size_t size)
{
	int i;

	pl->busy = true;
	if (!pl->threaded) {
		for (i = 0; i < pl->n; i++)
			run((char *)items + (size_t)i * size);
		return;
	}
	pl->run = run;
	pl->items = items;
	pl->size = size;
	atomic_store(&pl->pending, pl->n);
	for (i = 0; i < pl->n; i++)
		sem_post(&pl->w[i].go);
}

void pool_wait(struct pool *pl)
{
	if (pl->threaded && pl->busy)
		while (sem_wait(&pl->done) != 0)
			;
	pl->busy = false;
}
