/* benchstripe: Bonnie's I/O tests on an md array through the stripe engine,
 * no kernel md: block write and read streamed through stripe_write and
 * stripe_read, rewrite a window of whole rows at a time, seeks read from
 * the member that holds each chunk and written back through stripe_write. */
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "bench/benchseek.h"
#include "io/memberio.h"
#include "raid/stripe.h"

#define REWRITE_WINDOW (4u << 20)    /* at least this much per rewrite step */

/* One streamed test: the engine asks for (or hands over) pieces; the time
 * between two pieces is the latency of one. */
struct stream {
	struct bench_target *t;
	struct bench_figure *f;
	const uint8_t *pattern;      /* one bench chunk of data */
	uint64_t seed;               /* stamped into what is written */
	uint32_t chunk;
	uint64_t last;               /* when the previous piece went */
	uint64_t pos;                /* bytes so far */
	uint8_t *window;             /* rewrite: the window read or written */
	unsigned touched;            /* read: a byte of every piece, so none goes unlooked at */
};

static int stream_step(struct stream *s, struct diag *d)
{
	uint64_t now = bench_now_ns();

	bench_op(s->f, now - s->last);
	s->f->ops++;
	s->last = now;
	return bench_stopped(s->t) ? diag_fail(d, "interrupted") : 0;
}

/* Hands the engine pattern bytes, as write() hands the kernel a buffer. */
static long long pattern_source(void *ctx, void *buf, size_t len, struct diag *d)
{
	struct stream *s = ctx;
	size_t done = 0;

	while (done < len) {
		size_t at = (size_t)((s->pos + done) % s->chunk), n = s->chunk - at;

		if (n > len - done)
			n = len - done;
		memcpy((uint8_t *)buf + done, s->pattern + at, n);
		done += n;
	}
	bench_stamp(buf, len, s->pos, s->seed);
	s->pos += len;
	return stream_step(s, d) < 0 ? -1 : (long long)len;
}

static int looking_sink(void *ctx, const void *buf, size_t len, struct diag *d)
{
	struct stream *s = ctx;

	s->touched += ((const uint8_t *)buf)[len - 1];
	s->pos += len;
	return stream_step(s, d);
}

/* rewrite: the window is read into s->window, then written from it */
static int window_sink(void *ctx, const void *buf, size_t len, struct diag *d)
{
	struct stream *s = ctx;

	memcpy(s->window + s->pos, buf, len);
	s->pos += len;
	return bench_stopped(s->t) ? diag_fail(d, "interrupted") : 0;
}

static long long window_source(void *ctx, void *buf, size_t len, struct diag *d)
{
	struct stream *s = ctx;

	memcpy(buf, s->window + s->pos, len);
	s->pos += len;
	return bench_stopped(s->t) ? diag_fail(d, "interrupted") : (long long)len;
}

int bench_array_sync(struct array *a, struct diag *d)
{
	int i;

	for (i = 0; i < a->geo.raid_disks; i++)
		if (a->role[i] && dev_sync(&a->role[i]->dev, d) < 0)
			return -1;
	return 0;
}

static void note(const struct bench_target *t, enum bench_test test)
{
	if (t->note)
		t->note(t->note_ctx, bench_test_names[test].what);
}

static int write_test(const struct bench_params *p, struct bench_target *t, const uint8_t *pattern,
		      struct bench_figure *f, struct diag *d)
{
	struct stream s = { .t = t, .f = f, .pattern = pattern, .seed = p->seed, .chunk = p->chunk };
	struct bench_clock c;
	uint64_t written = 0;
	int rc;

	note(t, BT_WRITE);
	bench_clock_start(&c);
	s.last = c.wall_ns;
	rc = stripe_write(t->array, 0, p->size, pattern_source, &s, &written, d);
	if (rc == 0)
		rc = bench_array_sync(t->array, d);
	bench_clock_stop(&c, f);
	f->bytes = written;
	return rc;
}

static int read_test(const struct bench_params *p, struct bench_target *t, struct bench_figure *f, struct diag *d)
{
	struct stream s = { .t = t, .f = f, .chunk = p->chunk };
	struct bench_clock c;
	int rc;

	note(t, BT_READ);
	bench_clock_start(&c);
	s.last = c.wall_ns;
	rc = stripe_read(t->array, 0, p->size, looking_sink, &s, d);
	bench_clock_stop(&c, f);
	f->bytes = s.pos;
	return rc;
}

/* A window of whole stripe rows (whole bench chunks too), at least
 * REWRITE_WINDOW, so the engine writes full rows as md's stripe cache
 * would gather them. */
static uint64_t rewrite_window(const struct bench_params *p, const struct geometry *g)
{
	uint64_t row = (uint64_t)g->chunk_sectors * 512 * (uint64_t)(g->data_disks ? g->data_disks : g->raid_disks);
	uint64_t w = row ? row : p->chunk;

	while (w % p->chunk)
		w += row ? row : p->chunk;
	while (w < REWRITE_WINDOW)
		w *= 2;
	return w;
}

/* Rewrite: each window read, one byte of every bench chunk dirtied, the
 * window written back. */
static int rewrite_test(const struct bench_params *p, struct bench_target *t, struct bench_figure *f,
			struct diag *d)
{
	uint64_t w = rewrite_window(p, &t->array->geo), off, k;
	struct stream s = { .t = t, .f = f, .chunk = p->chunk };
	struct bench_clock c;
	int rc = 0;

	note(t, BT_REWRITE);
	if (!(s.window = dev_alloc((size_t)w)))
		return diag_fail(d, "out of memory (%llu bytes) for the rewrite's window", (unsigned long long)w);
	bench_clock_start(&c);
	for (off = 0; rc == 0 && off < p->size; off += w) {
		uint64_t len = p->size - off < w ? p->size - off : w, written, st = bench_now_ns();

		s.pos = 0;
		rc = stripe_read(t->array, off, len, window_sink, &s, d);
		for (k = 0; rc == 0 && k < len; k += p->chunk)
			s.window[k + (off + k) / p->chunk % p->chunk]++;
		s.pos = 0;
		if (rc == 0)
			rc = stripe_write(t->array, off, len, window_source, &s, &written, d);
		if (rc == 0 && p->fsync)
			rc = bench_array_sync(t->array, d);
		bench_op(f, bench_now_ns() - st);
		f->ops++;
	}
	if (rc == 0)
		rc = bench_array_sync(t->array, d);
	bench_clock_stop(&c, f);
	f->bytes = p->size;
	free(s.window);
	return rc;
}

static int copy_sink(void *ctx, const void *buf, size_t len, struct diag *d)
{
	uint8_t **at = ctx;

	memcpy(*at, buf, len);
	*at += len;
	(void)d;
	return 0;
}

int bench_array_read(struct array *a, void *buf, uint64_t off, size_t len, struct diag *d)
{
	uint64_t done = 0;

	while (done < len) {
		struct copy c[ST_MAX_DISKS];
		uint64_t at = off + done, run, piece;
		int n = layout_locate(&a->geo, at / 512, c, &run), i, turn = (int)(at / len % ST_MAX_DISKS);
		const struct copy *pick = NULL;

		/* the copies of a mirror take turns, as md spreads reads */
		for (i = 0; i < n && !pick; i++)
			if (a->role[c[(i + turn) % n].role])
				pick = &c[(i + turn) % n];
		if (!pick) {
			uint8_t *p = buf;

			return stripe_read(a, off, len, copy_sink, &p, d);
		}
		piece = run * 512 - at % 512;
		if (piece > len - done)
			piece = len - done;
		/* a piece its member cannot give comes through the engine, mended */
		if (member_read(&a->role[pick->role]->dev, (uint8_t *)buf + done, (size_t)piece,
				(a->role[pick->role]->sb.data_offset + pick->sector) * 512 + at % 512, NULL) < 0) {
			uint8_t *p = (uint8_t *)buf + done;

			if (stripe_read(a, at, piece, copy_sink, &p, d) < 0)
				return -1;
		}
		done += piece;
	}
	return 0;
}

struct chunk_source {
	const void *buf;
	size_t len;
};

static long long chunk_source_fn(void *ctx, void *buf, size_t len, struct diag *d)
{
	struct chunk_source *cs = ctx;
	size_t n = len < cs->len ? len : cs->len;

	memcpy(buf, cs->buf, n);
	cs->buf = (const uint8_t *)cs->buf + n;
	cs->len -= n;
	(void)d;
	return (long long)n;
}

int bench_array_write(struct array *a, const void *buf, uint64_t off, size_t len, struct diag *d)
{
	struct chunk_source cs = { buf, len };
	uint64_t written;

	return stripe_write(a, off, len, chunk_source_fn, &cs, &written, d);
}

static int array_read_chunk(struct seeker *s, void *buf, uint64_t off, struct diag *d)
{
	return bench_array_read(s->t->array, buf, off, s->p->chunk, d);
}

/* A seek's write: parity (or the mirrors) kept through the engine, one at
 * a time, since two in one stripe row would each rewrite the row. */
static int array_write_chunk(struct seeker *s, const void *buf, uint64_t off, struct diag *d)
{
	int rc;

	pthread_mutex_lock(s->t->write_lock);
	rc = bench_array_write(s->t->array, buf, off, s->p->chunk, d);
	if (rc == 0 && s->p->fsync)
		rc = bench_array_sync(s->t->array, d);
	pthread_mutex_unlock(s->t->write_lock);
	return rc;
}

static int array_finish(struct seeker *s, struct diag *d)
{
	return bench_array_sync(s->t->array, d);
}

static int open_array_seeker(struct seeker *s, struct diag *d)
{
	(void)d;
	s->read_chunk = array_read_chunk;
	s->write_chunk = array_write_chunk;
	s->finish = array_finish;
	return 0;
}

int bench_array_direct(struct array *a, bool on, struct diag *d)
{
	int i;

	for (i = 0; i < a->geo.raid_disks; i++) {
		struct dev *dv = a->role[i] ? &a->role[i]->dev : NULL;
		int fl;

		if (!dv)
			continue;
		fl = fcntl(dv->fd, F_GETFL);
		if (fl < 0 || fcntl(dv->fd, F_SETFL, on ? fl | O_DIRECT : fl & ~O_DIRECT) < 0)
			return diag_fail(d, "%s: cannot %s direct I/O: %s", dv->path, on ? "use" : "leave",
					 strerror(errno));
	}
	return 0;
}

void bench_array_heap(void)
{
	/* The engine allocates its batch buffers on every call; kept in the
	 * heap instead of fresh mappings, they cost no page faults the second
	 * time, as a kernel's stripe cache would not. */
	mallopt(M_MMAP_THRESHOLD, 1 << 30);
	mallopt(M_TRIM_THRESHOLD, 1 << 30);
}

/* Before a reading test with --drop-cache: every member's pages. */
static int drop_member_caches(const struct bench_params *p, struct array *a, struct diag *d)
{
	int i;

	if (!p->drop_cache || p->direct)
		return 0;
	for (i = 0; i < a->geo.raid_disks; i++)
		if (a->role[i] && bench_drop_cache(a->role[i]->dev.fd, a->role[i]->dev.path, d) < 0)
			return -1;
	return 0;
}

int bonnie_array_tests(const struct bench_params *p, struct bench_target *t, struct bench_results *r,
		       struct diag *d)
{
	pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	uint8_t *pattern = dev_alloc(p->chunk);
	int rc = 0;

	if (!pattern)
		return diag_fail(d, "out of memory (%zu bytes) for the write pattern", (size_t)p->chunk);
	bench_fill(pattern, p->chunk, p->seed);
	bench_array_heap();
	t->write_lock = &lock;
	if (p->direct)
		rc = bench_array_direct(t->array, true, d);
	if (rc == 0)
		rc = write_test(p, t, pattern, &r->fig[BT_WRITE], d);
	if (rc == 0 && (rc = drop_member_caches(p, t->array, d)) == 0)
		rc = rewrite_test(p, t, &r->fig[BT_REWRITE], d);
	if (rc == 0 && (rc = drop_member_caches(p, t->array, d)) == 0)
		rc = read_test(p, t, &r->fig[BT_READ], d);
	if (rc == 0 && p->seeks && (rc = drop_member_caches(p, t->array, d)) == 0)
		rc = bench_seeks(p, t, &r->fig[BT_SEEKS], open_array_seeker, d);
	if (p->direct && bench_array_direct(t->array, false, rc ? NULL : d) < 0)
		rc = -1;
	t->write_lock = NULL;
	pthread_mutex_destroy(&lock);
	free(pattern);
	return rc;
}
