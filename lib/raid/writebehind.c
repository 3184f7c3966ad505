/* writebehind: the write queue's buffers, its writer thread, and how the
 * writer merges queued writes into runs of whole rows. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "raid/writebehind.h"

/* Writes [off, off + len) from data (or source, when data is NULL): the
 * whole stripe rows in the middle in one call, which computes their parity
 * without reading, and the partial rows at either end on their own, so
 * that only those are read back. */
static int write_rows(struct writebehind *wb, struct stripe_engine *e, uint64_t off, uint64_t len,
		      const uint8_t *data, stripe_source source, void *ctx, struct diag *d)
{
	uint64_t u = wb->es->row_bytes, end = off + len, lo = (off + u - 1) / u * u, hi = end / u * u;
	uint64_t cut[4] = { off, lo, hi, end }, written;
	int i;

	if (u == 1 || lo >= hi)
		cut[1] = cut[2] = end;
	for (i = 0; i < 3; i++) {
		uint64_t n = cut[i + 1] - cut[i];

		if (n && (data ? stripe_engine_write_from(e, cut[i], n, data + (cut[i] - off), &written, d)
			       : stripe_engine_write(e, cut[i], n, source, ctx, &written, d)) < 0)
			return -1;
	}
	return 0;
}

/* The bytes of a run of queued writes that follow each other, in order. */
static long long copy_in_run(void *ctx, void *buf, size_t len, struct diag *d)
{
	struct queued_write **run = ctx;
	size_t done = 0;

	while (done < len && *run) {
		struct queued_write *w = *run;
		size_t n = w->q.len - w->at < len - done ? w->q.len - w->at : len - done;

		memcpy((uint8_t *)buf + done, w->data + w->skip + w->at, n);
		w->at += n;
		done += n;
		if (w->at == w->q.len)
			*run = queued_write_of(w->q.next);
	}
	return (long long)done;
}

/* Of the write w, which the writer wrote up to array byte end: what is
 * left, its bytes from skip on (not moved: a rest is most of a row); 0
 * when all of it is written. */
static uint64_t left_after(struct queued_write *w, uint64_t end)
{
	uint64_t done;

	w->at = 0;
	if (w->q.off + w->q.len <= end)
		return 0;
	done = w->q.off < end ? end - w->q.off : 0;
	if (done) {
		w->skip += done;
		w->q.off += done;
		w->q.len -= done;
	}
	return w->q.len;
}

/* Writes the first cut bytes of a run of queued writes (linked by next,
 * ending with NULL, len bytes in all) as one, then lets go of the rows and
 * buffers of those wholly written.  Returns the rest, their bytes from the
 * cut on, linked in array order (NULL when none is left: all of the run
 * was written, or the write failed), and in *done how many were let go. */
static struct writeq_item *write_run(struct writebehind *wb, struct queued_write *first, uint64_t len,
				     uint64_t cut, int *done)
{
	struct stripe_engine *e = engineset_take(wb->es);
	struct queued_write *w = first, *next;
	struct writeq_item *left = NULL, **tail = &left, *gone = NULL;
	uint64_t end = first->q.off + cut;
	struct diag d;
	int rc;

	/* one write alone is written from its buffer; a run of them is
	 * gathered by copy_in_run */
	rc = write_rows(wb, e, first->q.off, cut, first->q.next ? NULL : first->data + first->skip, copy_in_run, &w, &d);
	engineset_give(wb->es, e);
	if (rc < 0) {
		atomic_store(&wb->failed, true);
		if (wb->cfg.failed)
			wb->cfg.failed(wb->cfg.ctx, first->q.off, len, &d);
		end = first->q.off + len;    /* what is left is dropped with the rest */
	}
	/* the writer owns the run's buffers until they go back to the spares */
	for (w = first; w; w = next) {
		next = queued_write_of(w->q.next);
		if (left_after(w, end)) {
			w->put_back = true;
			*tail = &w->q;
			tail = &w->q.next;
		} else {
			w->q.next = gone;
			gone = &w->q;
		}
	}
	*tail = NULL;
	*done = 0;
	pthread_mutex_lock(&wb->mu);
	for (w = queued_write_of(gone); w; w = next) {
		next = queued_write_of(w->q.next);
		engineset_drop(wb->es, &w->hold);
		spares_put(&wb->spares, w);
		(*done)++;
	}
	pthread_mutex_unlock(&wb->mu);
	return left;
}

/* How much of a run of len bytes at off to write now: all of it, but for
 * a run that ends inside a stripe row and holds a row's end before that,
 * only up to the last row end, while writes may still come (no one waits
 * for the queue to empty).  The rest waits behind the writes queued for
 * the write that ends its row, so that the row is written once, whole,
 * rather than read back for each of two runs: sequential writers whose
 * requests are not whole rows (nbdcopy's 256 KiB on rows of 192 KiB) send
 * the next piece while the queue is full.  The rest is under a row, so a
 * run of it alone is written whole: it never waits twice for nothing; nor
 * is a run that ends with a rest put back before (writes that keep ending
 * where it starts would put it back for ever, its row held from reads).
 * With mu. */
static uint64_t run_cut(const struct writebehind *wb, struct queued_write *run, uint64_t len)
{
	uint64_t u = wb->es->row_bytes, off = run->q.off, row_end = (off + len) / u * u;
	struct queued_write *w;

	if (u == 1 || row_end <= off || row_end == off + len || wb->flushing || wb->stopping)
		return len;
	for (w = run; w; w = queued_write_of(w->q.next))
		if (w->put_back && w->q.off + w->q.len == off + len)
			return len;
	return row_end - off;
}

/* Whether the writer should give a write being taken in a moment to
 * arrive: the run it would write starts or ends inside a stripe row,
 * which would be read back to merge, and a write on its way starts or
 * ends right there (the halves of a large request come at once); or the
 * queue holds only the rest of a run it put back.  Never while someone
 * waits for the queue to empty.  With mu. */
static bool worth_waiting(const struct writebehind *wb)
{
	uint64_t u = wb->es->row_bytes, lo, hi;
	int i;

	if (u == 1 || wb->flushing || wb->stopping || !writeq_peek_run(&wb->queue, wb->cfg.merge_max, &lo, &hi))
		return false;
	/* the rest of a run put back, alone: the writer has nothing else to
	 * do, and a sequential writer's next request is on its way */
	if (wb->rest && wb->queue.head == wb->rest && !wb->rest->next)
		return true;
	for (i = 0; i < wb->cfg.depth; i++) {
		const struct writeq_item *w = &wb->incoming[i];

		if (w->len && ((hi % u && w->off == hi) || (lo % u && w->off + w->len == lo)))
			return true;
	}
	return false;
}

/* Waits, at most cfg.merge_wait_ns, while waiting is worth it.  With mu. */
static void wait_for_neighbours(struct writebehind *wb)
{
	struct timespec until;

	clock_gettime(CLOCK_MONOTONIC, &until);
	until.tv_nsec += wb->cfg.merge_wait_ns;
	while (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	while (worth_waiting(wb))
		if (pthread_cond_timedwait(&wb->queued, &wb->mu, &until) == ETIMEDOUT)
			break;
}

/* Room for one more write taken in.  With mu. */
static bool has_room(const struct writebehind *wb)
{
	return wb->inflight < wb->cfg.depth && wb->spares.free;
}

/* A free buffer for the write of len bytes at off, listed as incoming
 * until its bytes are in or it is handed back, so that the writer may wait
 * for it to merge.  With mu, and room. */
static struct queued_write *take_buffer(struct writebehind *wb, uint64_t off, size_t len)
{
	struct queued_write *w = spares_pop(&wb->spares);
	int i;

	wb->inflight++;
	for (i = 0; wb->incoming[i].len; i++)
		;                    /* one free slot per buffer taken */
	wb->incoming[i] = (struct writeq_item){ .off = off, .len = len };
	*w = (struct queued_write){ .q = { .off = off, .len = len }, .slot = i };
	return w;
}

/* Writes are done and their buffers free: each goes to the caller that
 * has waited longest, woken alone.  In turn, because a buffer taken by
 * whichever waiter woke first went to requests that came later, and the
 * queue held writes far apart instead of runs (nbdcopy's requests into
 * rows they do not fill were then written one by one, each row read
 * back); alone, because nbdkit has dozens of threads waiting when the
 * queue is full, and a broadcast's context switches were half the
 * plugin's CPU.  Whoever waits for the queue to empty is woken once it
 * is.  With mu. */
static void made_room(struct writebehind *wb)
{
	while (wb->waiters && has_room(wb)) {
		struct buffer_waiter *bw = wb->waiters;

		wb->waiters = bw->next;
		if (!wb->waiters)
			wb->waiters_tail = &wb->waiters;
		bw->w = take_buffer(wb, bw->off, bw->len);
		pthread_cond_signal(&bw->turn);
	}
	if (!wb->inflight && wb->flushing)
		pthread_cond_broadcast(&wb->drained);
}

/* Takes the head of the queue and every queued write that extends it at
 * either end (two halves of one request come in either order), and writes
 * them as one (a partial row at its end perhaps put back for later), until
 * the queue is empty and the writer is told to stop. */
static void *writer_thread(void *arg)
{
	struct writebehind *wb = arg;
	struct queued_write *run;
	struct writeq_item *left;
	uint64_t len, cut;
	int n;

	pthread_mutex_lock(&wb->mu);
	for (;;) {
		while (!wb->queue.head && !wb->stopping)
			pthread_cond_wait(&wb->queued, &wb->mu);
		if (!wb->queue.head)
			break;
		wait_for_neighbours(wb);
		run = queued_write_of(writeq_take_run(&wb->queue, wb->cfg.merge_max, &n, &len));
		cut = run_cut(wb, run, len);
		wb->rest = NULL;
		pthread_mutex_unlock(&wb->mu);
		left = write_run(wb, run, len, cut, &n);
		pthread_mutex_lock(&wb->mu);
		writeq_put_back(&wb->queue, left);
		wb->rest = left;
		wb->inflight -= n;
		made_room(wb);
	}
	pthread_mutex_unlock(&wb->mu);
	return NULL;
}

int writebehind_start(struct writebehind *wb, struct engineset *es, const struct writebehind_config *cfg,
		      struct diag *d)
{
	pthread_condattr_t ca;
	int rc = 0;

	*wb = (struct writebehind){ .es = es, .cfg = *cfg };
	wb->incoming = calloc((size_t)cfg->depth, sizeof(*wb->incoming));
	if (!wb->incoming)
		return diag_fail(d, "cannot start the writer thread: out of memory");
	pthread_mutex_init(&wb->mu, NULL);
	/* the writer's timed wait: a clock that never steps */
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&wb->queued, &ca);
	pthread_condattr_destroy(&ca);
	pthread_cond_init(&wb->drained, NULL);
	wb->waiters_tail = &wb->waiters;
	atomic_init(&wb->failed, false);
	if (spares_make(&wb->spares, cfg->depth, cfg->write_max) < 0)
		rc = diag_fail(d, "cannot start the writer thread: out of memory for %d buffers of %zu bytes",
			       cfg->depth, cfg->write_max);
	else if (pthread_create(&wb->writer, NULL, writer_thread, wb) != 0)
		rc = diag_fail(d, "cannot start the writer thread");
	if (rc < 0) {
		spares_free(&wb->spares);
		pthread_cond_destroy(&wb->drained);
		pthread_cond_destroy(&wb->queued);
		pthread_mutex_destroy(&wb->mu);
		free(wb->incoming);
	}
	return rc;
}

void writebehind_stop(struct writebehind *wb)
{
	writebehind_drain(wb);
	pthread_mutex_lock(&wb->mu);
	wb->stopping = true;
	pthread_cond_broadcast(&wb->queued);
	pthread_mutex_unlock(&wb->mu);
	pthread_join(wb->writer, NULL);
	spares_free(&wb->spares);
	pthread_cond_destroy(&wb->drained);
	pthread_cond_destroy(&wb->queued);
	pthread_mutex_destroy(&wb->mu);
	free(wb->incoming);
}

struct queued_write *writebehind_buffer(struct writebehind *wb, uint64_t off, size_t len)
{
	struct buffer_waiter me = { .off = off, .len = len };

	if (len > wb->cfg.write_max)
		return NULL;         /* the spare buffers hold no more */
	pthread_mutex_lock(&wb->mu);
	if (!wb->waiters && has_room(wb)) {
		me.w = take_buffer(wb, off, len);
	} else {
		pthread_cond_init(&me.turn, NULL);
		*wb->waiters_tail = &me;
		wb->waiters_tail = &me.next;
		while (!me.w)
			pthread_cond_wait(&me.turn, &wb->mu);
		pthread_cond_destroy(&me.turn);
	}
	pthread_mutex_unlock(&wb->mu);
	return me.w;
}

/* The write's bytes are in its buffer, or will not come: no longer
 * incoming, which the writer, perhaps waiting for it, is told.  With mu. */
static void received(struct writebehind *wb, struct queued_write *w)
{
	wb->incoming[w->slot].len = 0;
	pthread_cond_signal(&wb->queued);
}

void writebehind_queue(struct writebehind *wb, struct queued_write *w)
{
	/* held first, outside mu (a read of the rows may hold them a while),
	 * so that one taking of mu and one wake-up of the writer do the rest */
	engineset_hold(wb->es, &w->hold, w->q.off, w->q.len, ROWS_WRITE);
	pthread_mutex_lock(&wb->mu);
	writeq_push(&wb->queue, &w->q);
	received(wb, w);
	pthread_mutex_unlock(&wb->mu);
}

void writebehind_cancel(struct writebehind *wb, struct queued_write *w)
{
	pthread_mutex_lock(&wb->mu);
	received(wb, w);
	spares_put(&wb->spares, w);
	wb->inflight--;
	made_room(wb);
	pthread_mutex_unlock(&wb->mu);
}

int writebehind_drain(struct writebehind *wb)
{
	pthread_mutex_lock(&wb->mu);
	wb->flushing++;
	pthread_cond_signal(&wb->queued);     /* the writer waits no more */
	while (wb->inflight > 0)
		pthread_cond_wait(&wb->drained, &wb->mu);
	wb->flushing--;
	pthread_mutex_unlock(&wb->mu);
	return atomic_load(&wb->failed) ? -1 : 0;
}
