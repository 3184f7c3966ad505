/* engineset: a fixed set of stripe engines lent to requests, and the row
 * holds that keep reads and writes of one row apart. */
#include <stdlib.h>

#include "md/layout.h"
#include "raid/engineset.h"

int engineset_start(struct engineset *es, struct array *a, int n, struct diag *d)
{
	const struct geometry *g = &a->geo;
	int i;

	es->a = a;
	es->row_bytes = 1;
	if (layout_has_parity(g->level))
		es->row_bytes = (uint64_t)g->chunk_sectors * 512 * (uint64_t)g->data_disks;
	rangelock_init(&es->rows);
	pthread_mutex_init(&es->mu, NULL);
	pthread_cond_init(&es->freed, NULL);
	es->engine = calloc((size_t)n, sizeof(*es->engine));
	es->busy = calloc((size_t)n, sizeof(*es->busy));
	if (!es->engine || !es->busy) {
		es->n = 0;
		engineset_stop(es);
		return diag_fail(d, "out of memory for %d stripe engines", n);
	}
	es->n = n;
	for (i = 0; i < n; i++)
		stripe_engine_start(&es->engine[i], a);
	return 0;
}

void engineset_stop(struct engineset *es)
{
	int i;

	for (i = 0; i < es->n; i++)
		stripe_engine_stop(&es->engine[i]);
	free(es->engine);
	free(es->busy);
	pthread_cond_destroy(&es->freed);
	pthread_mutex_destroy(&es->mu);
	rangelock_destroy(&es->rows);
}

struct stripe_engine *engineset_take(struct engineset *es)
{
	int i;

	pthread_mutex_lock(&es->mu);
	for (;;) {
		for (i = 0; i < es->n && es->busy[i]; i++)
			;
		if (i < es->n)
			break;
		pthread_cond_wait(&es->freed, &es->mu);
	}
	es->busy[i] = true;
	pthread_mutex_unlock(&es->mu);
	return &es->engine[i];
}

void engineset_give(struct engineset *es, struct stripe_engine *e)
{
	pthread_mutex_lock(&es->mu);
	es->busy[e - es->engine] = false;
	pthread_cond_signal(&es->freed);
	pthread_mutex_unlock(&es->mu);
}

void engineset_hold(struct engineset *es, struct range_hold *h, uint64_t off, uint64_t len, int group)
{
	uint64_t u = es->row_bytes;

	rangelock_take(&es->rows, h, off / u * u, (off + len + u - 1) / u * u, group);
}

void engineset_drop(struct engineset *es, struct range_hold *h)
{
	rangelock_drop(&es->rows, h);
}

int engineset_read(struct engineset *es, uint64_t off, uint64_t len, stripe_sink sink, void *ctx,
		   struct diag *d)
{
	struct range_hold h;
	struct stripe_engine *e;
	int rc;

	engineset_hold(es, &h, off, len, ROWS_READ);
	e = engineset_take(es);
	rc = stripe_engine_read(e, off, len, sink, ctx, d);
	engineset_give(es, e);
	engineset_drop(es, &h);
	return rc;
}
