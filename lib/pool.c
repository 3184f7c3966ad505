/* pool: persistent worker threads, one per member.  A thread created per
 * batch cost more than the batch's I/O on a page-cached array (clone, stack
 * munmap and the TLB shootdowns it sends to every CPU). */
#include <stdlib.h>

#include "pool.h"

static void *pool_worker_run(void *p)
{
	struct pool_worker *w = p;
	struct pool *pl = w->pool;
	uint64_t seen = 0;

	pthread_mutex_lock(&pl->mu);
	for (;;) {
		while (!pl->stop && pl->job == seen)
			pthread_cond_wait(&pl->go, &pl->mu);
		if (pl->stop)
			break;
		seen = pl->job;
		pthread_mutex_unlock(&pl->mu);
		pl->run(pl->items + (size_t)w->i * pl->size);
		pthread_mutex_lock(&pl->mu);
		if (--pl->pending == 0)
			pthread_cond_signal(&pl->done);
	}
	pthread_mutex_unlock(&pl->mu);
	return NULL;
}

/* Ends the workers; later jobs run in the caller. */
static void pool_join(struct pool *pl)
{
	int i;

	if (pl->threaded) {
		pthread_mutex_lock(&pl->mu);
		pl->stop = true;
		pthread_cond_broadcast(&pl->go);
		pthread_mutex_unlock(&pl->mu);
		for (i = 0; i < pl->n; i++)
			if (pl->w[i].pool)
				pthread_join(pl->w[i].th, NULL);
	}
	pl->threaded = false;
	free(pl->w);
	pl->w = NULL;
}

void pool_stop(struct pool *pl)
{
	pool_join(pl);
	pthread_mutex_destroy(&pl->mu);
	pthread_cond_destroy(&pl->go);
	pthread_cond_destroy(&pl->done);
}

void pool_start(struct pool *pl, int n)
{
	int i;

	*pl = (struct pool){ .n = n };
	pthread_mutex_init(&pl->mu, NULL);
	pthread_cond_init(&pl->go, NULL);
	pthread_cond_init(&pl->done, NULL);
	pl->w = n > 1 ? calloc((size_t)n, sizeof(*pl->w)) : NULL;
	pl->threaded = pl->w != NULL;
	for (i = 0; pl->threaded && i < n; i++) {
		pl->w[i] = (struct pool_worker){ .pool = pl, .i = i };
		if (pthread_create(&pl->w[i].th, NULL, pool_worker_run, &pl->w[i]) != 0) {
			pl->w[i].pool = NULL;
			pool_join(pl);
		}
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
	pthread_mutex_lock(&pl->mu);
	pl->run = run;
	pl->items = items;
	pl->size = size;
	pl->pending = pl->n;
	pl->job++;
	pthread_cond_broadcast(&pl->go);
	pthread_mutex_unlock(&pl->mu);
}

void pool_wait(struct pool *pl)
{
	if (pl->threaded && pl->busy) {
		pthread_mutex_lock(&pl->mu);
		while (pl->pending)
			pthread_cond_wait(&pl->done, &pl->mu);
		pthread_mutex_unlock(&pl->mu);
	}
	pl->busy = false;
}
