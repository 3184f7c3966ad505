/* stripe: the engine behind stripe_read and stripe_write: reads a window
 * of array bytes at a time (or a degraded RAID4/5/6 row by row, from the
 * row engine), writes RAID4/5/6 in batches of whole rows with fresh
 * parity, and RAID0/1/10 to every present copy. */
#include <stdlib.h>
#include <string.h>

#include "raid/parity.h"
#include "io/memberio.h"
#include "raid/stripe.h"
#include "raid/rows.h"
#include "raid/window.h"

/* A RAID4/5/6 write's batch of whole rows: each role's chunks of the
 * rows, filled with the input and fresh parity, then written. */
struct parity_batch {
	struct array *a;
	size_t chunk;                /* bytes */
	uint64_t rows;               /* rows per batch */
	uint8_t **buf;               /* per role: rows * chunk bytes */
	uint8_t *zero;               /* one zero chunk, for DDF's empty slots */
	struct member_io *io;        /* per role */
};

static int batch_alloc(struct parity_batch *b, struct array *a, uint64_t rows, uint8_t *zero,
		       struct diag *d)
{
	int n = a->geo.raid_disks, i;

	*b = (struct parity_batch){ .a = a, .chunk = (size_t)a->geo.chunk_sectors * 512, .rows = rows,
				    .zero = zero };
	b->buf = calloc((size_t)n, sizeof(*b->buf));
	b->io = calloc((size_t)n, sizeof(*b->io));
	if (!b->buf || !b->io)
		return diag_fail(d, "out of memory");
	for (i = 0; i < n; i++)
		if (!(b->buf[i] = dev_alloc(rows * b->chunk)))
			return diag_fail(d, "out of memory");
	return 0;
}

/* What an engine works in, made at its first call and kept until it stops:
 * fresh memory for every call would cost a page fault per page each time,
 * and a map makes a call per request. */
struct stripe_buffers {
	struct parity_batch b[2];    /* RAID4/5/6 writes */
	int nbatches;                /* 1 where two batches of a row would pass the budget */
	uint8_t *zero;               /* RAID4/5/6 writes: one zero chunk */
	struct read_window *win;     /* two: reads, and RAID0/1/10 writes (the first) */
	size_t window_bytes;
};

static void batch_free(struct parity_batch *b)
{
	int i;

	for (i = 0; b->buf && i < b->a->geo.raid_disks; i++)
		free(b->buf[i]);
	free(b->buf);
	free(b->io);
}

/* Sets up the member writes of rows [row, row + nrows). */
static void batch_write(struct parity_batch *b, uint64_t row, uint64_t nrows)
{
	int i;

	for (i = 0; i < b->a->geo.raid_disks; i++) {
		struct member *m = b->a->role[i];

		b->io[i] = (struct member_io){ .dev = m ? &m->dev : NULL, .buf = b->buf[i],
					       .len = nrows * b->chunk, .write = true,
					       .off = m ? m->sb.data_offset * 512 + row * b->chunk : 0 };
	}
}

/* Fills buf from source until len bytes or the end of the input. */
static long long fill_from(stripe_source source, void *ctx, uint8_t *buf, size_t len, struct diag *d)
{
	size_t got = 0;

	while (got < len) {
		long long n = source(ctx, buf + got, len - got, d);

		if (n < 0)
			return -1;
		if (n == 0)
			break;
		got += (size_t)n;
	}
	return (long long)got;
}

/* Where a write's bytes come from: a source that copies them into the
 * engine's buffer, or array bytes already in memory from offset at on,
 * written from where they lie. */
struct write_input {
	stripe_source source;
	void *ctx;
	const uint8_t *data;
	uint64_t at;
};

/* Up to len bytes of the input for array byte off, in buf (from the
 * source) or where they lie (*p either way); how many, or -1. */
static long long take_input(struct write_input *in, uint8_t *buf, uint64_t off, size_t len,
			    const uint8_t **p, struct diag *d)
{
	if (in->data) {
		*p = in->data + (off - in->at);
		return (long long)len;
	}
	*p = buf;
	return fill_from(in->source, in->ctx, buf, len, d);
}

/* Plans a window of array bytes and starts its member I/O on the pool. */
static int window_start(struct stripe_engine *e, struct read_window *w, uint64_t off, size_t len,
			uint8_t *buf, bool write, struct diag *d)
{
	struct array *a = e->a;
	int i;

	w->off = off;
	w->len = len;
	for (i = 0; i < a->geo.raid_disks; i++) {
		struct member_segments *ms = &w->ms[i];

		ms->dev = a->role[i] ? &a->role[i]->dev : NULL;
		ms->base = a->role[i] ? a->role[i]->sb.data_offset * 512 : 0;
		ms->buf = buf;
		ms->n = 0;
		ms->rc = 0;
		ms->write = write;
	}
	if (window_plan(a, off, len, w->ms, write, d) < 0)
		return -1;
	pool_submit(&e->rows.pool, window_member_run, w->ms, sizeof(*w->ms));
	return 0;
}

/* Waits for a window's writes; the first failure. */
static int window_wait(struct stripe_engine *e, struct read_window *w, struct diag *d)
{
	int i;

	pool_wait(&e->rows.pool);
	for (i = 0; i < e->a->geo.raid_disks; i++) {
		if (w->ms[i].n && w->ms[i].dev && w->ms[i].rc < 0) {
			*d = w->ms[i].d;
			return -1;
		}
	}
	return 0;
}

static bool window_lost(const struct array *a, const struct read_window *w)
{
	int i;

	for (i = 0; i < a->geo.raid_disks; i++)
		if (w->ms[i].n && (!w->ms[i].dev || w->ms[i].rc < 0))
			return true;
	return false;
}

/* Where a degraded RAID4/5/6's read goes, row by row. */
struct row_reader {
	const struct array *a;
	uint64_t off, end;           /* array bytes wanted */
	stripe_sink sink;
	void *ctx;
};

/* The row engine's visit for a whole-row read: each data chunk of the
 * row, mended, to the sink in array order. */
static int emit_row(void *ctx, struct rows_piece *p, struct diag *d)
{
	struct row_reader *r = ctx;
	uint64_t chunk = (uint64_t)r->a->geo.chunk_sectors * 512, row_bytes = chunk * (uint64_t)p->map->data_disks;
	int dd, role;
	uint64_t pg;

	for (dd = 0; dd < p->map->data_disks; dd++) {
		uint64_t cb = p->row * row_bytes + (uint64_t)dd * chunk;
		uint64_t lo = cb > r->off ? cb : r->off, hi = cb + chunk < r->end ? cb + chunk : r->end;

		if (lo >= hi)
			continue;
		role = p->map->data[dd];
		for (pg = (lo - cb) / ROWS_PAGE; p->nbeyond && pg * ROWS_PAGE < hi - cb; pg++)
			if (p->beyond[pg] && p->lost[role][pg])
				return window_beyond(r->a, p, (size_t)pg, d);
		if (r->sink(r->ctx, p->block[role] + (lo - cb), (size_t)(hi - lo), d) < 0)
			return -1;
	}
	return 0;
}

/* A RAID4/5/6 with a member missing, where a batch holds whole rows: the
 * row engine reads every member once and mends each row, and the rows go
 * out from its buffers, rather than each missing chunk costing a second
 * read of its row. */
static bool reads_whole_rows(const struct stripe_engine *e)
{
	const struct array *a = e->a;

	return layout_has_parity(a->geo.level) && a->missing && e->rows.bytes >= e->rows.chunk;
}

static int read_rows(struct stripe_engine *e, uint64_t off, uint64_t end, stripe_sink sink, void *ctx,
		     struct diag *d)
{
	uint64_t chunk = e->rows.chunk, row_bytes = chunk * (uint64_t)e->a->geo.data_disks;
	struct row_reader r = { .a = e->a, .off = off, .end = end, .sink = sink, .ctx = ctx };
	struct rows_walk w = { .a = e->a, .from = off / row_bytes * chunk,
			       .to = (end + row_bytes - 1) / row_bytes * chunk,
			       .mend = true, .visit = emit_row, .ctx = &r };

	return rows_engine_walk(&e->rows, &w, d);
}

/* Every level's read: a window of array bytes at a time, each piece read
 * from the one member that holds it (a copy in turn for mirrors; RAID4/5/6
 * read no parity), so the bytes land in array order.  Double buffered:
 * the workers read the next window while this thread hands on the last.
 * What was not read is mended first, with the pool idle (the row engine
 * works on it). */
static int read_windows(struct stripe_engine *e, struct stripe_buffers *sb, uint64_t off, uint64_t end,
			stripe_sink sink, void *ctx, struct diag *d)
{
	struct read_window *w = sb->win;
	size_t size = sb->window_bytes;
	int cur = 0, rc;

	rc = window_start(e, &w[0], off, end - off < size ? (size_t)(end - off) : size, w[0].buf, false, d);
	while (rc == 0) {
		uint64_t next = w[cur].off + w[cur].len;

		pool_wait(&e->rows.pool);
		if (window_lost(e->a, &w[cur]))
			rc = window_mend(&e->rows, w[cur].ms, w[cur].off, d);
		if (rc == 0 && next < end)
			rc = window_start(e, &w[!cur], next, end - next < size ? (size_t)(end - next) : size,
					  w[!cur].buf, false, d);
		if (rc == 0)
			rc = sink(ctx, w[cur].buf, w[cur].len, d);
		if (next >= end)
			break;
		cur = !cur;
	}
	/* a sink that stopped the read leaves the next window in flight */
	pool_wait(&e->rows.pool);
	return rc < 0 ? -1 : 0;
}

/* RAID0/1/10 writes: a window of the array at a time, to every present
 * copy, written from where the input lies. */
static int write_copies(struct stripe_engine *e, struct stripe_buffers *sb, uint64_t off, uint64_t end,
			struct write_input *in, uint64_t *done, struct diag *d)
{
	struct read_window *w = &sb->win[0];
	uint64_t start = off;
	int rc = 0;

	while (rc == 0 && off < end) {
		size_t len = end - off < sb->window_bytes ? (size_t)(end - off) : sb->window_bytes;
		const uint8_t *p;
		long long got = take_input(in, w->buf, off, len, &p, d);

		if (got <= 0) {
			rc = (int)got;
			break;
		}
		len = (size_t)got;
		/* written from where the input lies, never into */
		rc = window_start(e, w, off, len, (uint8_t *)p, true, d);
		if (rc == 0)
			rc = window_wait(e, w, d);
		if (rc == 0)
			off += len;
		*done = off - start;
	}
	return rc < 0 ? -1 : 0;
}

/* Fresh P (and Q) for one row from its data chunks in the batch. */
static void gen_parity_row(struct parity_batch *b, const struct stripe_map *m, uint64_t k)
{
	void *blocks[ST_MAX_DISKS + 2];
	int nd = layout_row_blocks(m, b->buf, k * b->chunk, b->zero, blocks);

	if (m->qd < 0)
		parity_xor(blocks[nd], blocks, nd, b->chunk);
	else
		parity_gen_pq(nd, b->chunk, blocks);
}

/* The input's array bytes [lo, hi) straight into the data chunks of the
 * batch's rows (from row0 on), in array order; how many bytes it gave,
 * fewer only where the input ended, or -1. */
static long long fill_rows(struct parity_batch *b, uint64_t row0, struct write_input *in, uint64_t lo,
			   uint64_t hi, struct diag *d)
{
	uint64_t row_bytes = b->chunk * (uint64_t)b->a->geo.data_disks, k;
	long long got = 0;

	for (k = 0; row0 * row_bytes + k * row_bytes < hi; k++) {
		struct stripe_map map;
		int dd;

		layout_stripe(&b->a->geo, row0 + k, &map);
		for (dd = 0; dd < map.data_disks; dd++) {
			uint64_t cb = (row0 + k) * row_bytes + (uint64_t)dd * b->chunk, ce = cb + b->chunk;
			uint64_t from = cb > lo ? cb : lo, to = ce < hi ? ce : hi;
			uint8_t *dst = b->buf[map.data[dd]] + k * b->chunk + (from - cb);
			long long n = (long long)(to - from);

			if (from >= to)
				continue;
			if (in->data)
				memcpy(dst, in->data + (from - in->at), (size_t)n);
			else if ((n = fill_from(in->source, in->ctx, dst, (size_t)(to - from), d)) < 0)
				return -1;
			got += n;
			if ((uint64_t)n < to - from)
				return got;
		}
	}
	return got;
}

/* Array bytes [from, to) of the batch's rows (from row0 on) as the array
 * holds them now, into their data chunks: read from the member that holds
 * each piece, or rebuilt from the rest of its row by the row engine where
 * the member is missing or the read fails.  For the parts of a row a
 * write leaves as they are, so that its parity can be made afresh. */
static int read_unchanged(struct stripe_engine *e, struct parity_batch *b, uint64_t row0, uint64_t from,
			  uint64_t to, struct diag *d)
{
	struct array *a = e->a;

	while (from < to) {
		struct copy c;
		uint64_t run;
		size_t len;
		struct member *m;
		struct segment seg;
		struct member_segments ms = { .seg = &seg, .n = 1 };
		struct diag why;

		layout_locate(&a->geo, from / 512, &c, &run);
		len = run * 512 - from % 512 < to - from ? (size_t)(run * 512 - from % 512) : (size_t)(to - from);
		m = a->role[c.role];
		seg = (struct segment){ .area_off = c.sector * 512 + from % 512, .len = len };
		ms.buf = b->buf[c.role] + (seg.area_off - row0 * b->chunk);
		if (!m || dev_read(&m->dev, ms.buf, len, m->sb.data_offset * 512 + seg.area_off, &why) < 0)
			if (window_mend_parity(&e->rows, c.role, &ms, d) < 0)
				return -1;
		from += len;
	}
	return 0;
}

/* Collects the write in flight, if any: *written moves on to done only
 * once every member has taken its part. */
static int write_collect(struct pool *pl, struct parity_batch *b, uint64_t done, uint64_t *written,
			 struct diag *d)
{
	if (!pl->busy)
		return 0;
	if (member_io_wait(pl, b->io, b->a->geo.raid_disks, d) < 0)
		return -1;
	*written = done;
	return 0;
}

/* RAID4/5/6 writes, a batch of whole rows at a time, the input straight
 * into the rows' data chunks.  Rows the input covers whole are computed
 * without reading; in a row it covers in part the rest is read as the
 * array holds it (read_unchanged).  Double buffered where two batches fit
 * the budget: the workers write one batch while this thread takes the
 * input and makes parity for the next.  A row larger than half the
 * budget has one batch, its write collected before the next fill. */
static int write_parity_levels(struct stripe_engine *e, struct stripe_buffers *sb, uint64_t off,
			       uint64_t end, struct write_input *in, uint64_t *written, struct diag *d)
{
	struct array *a = e->a;
	struct pool *pool = &e->rows.pool;
	int cur = 0, rc = 0, nb = sb->nbatches;
	size_t chunk = (size_t)a->geo.chunk_sectors * 512;
	uint64_t row_bytes = chunk * (uint64_t)a->geo.data_disks, row = off / row_bytes, pending = 0, k;
	struct diag wd;

	while (rc == 0 && row * row_bytes < end) {
		struct parity_batch *b = &sb->b[cur], *prev = &sb->b[(cur + 1) % nb];
		uint64_t base = row * row_bytes, lo = off > base ? off : base;
		uint64_t hi = base + b->rows * row_bytes < end ? base + b->rows * row_bytes : end, nrows;
		long long got;

		if (nb == 1 && write_collect(pool, prev, pending - off, written, d) < 0) {
			rc = -1;
			break;
		}
		if ((got = fill_rows(b, row, in, lo, hi, d)) <= 0) {
			rc = got < 0 ? -1 : 0;
			break;
		}
		hi = lo + (uint64_t)got;
		nrows = (hi - base + row_bytes - 1) / row_bytes;
		/* the pool does one job at a time: a read of what the rows keep
		 * waits for the write in flight */
		if (lo > base || hi < base + nrows * row_bytes)
			rc = write_collect(pool, prev, pending - off, written, d) < 0 ||
			     read_unchanged(e, b, row, base, lo, d) < 0 ||
			     read_unchanged(e, b, row, hi, base + nrows * row_bytes, d) < 0 ? -1 : 0;
		for (k = 0; rc == 0 && k < nrows; k++) {
			struct stripe_map map;

			layout_stripe(&a->geo, row + k, &map);
			gen_parity_row(b, &map, k);
		}
		if (rc == 0)
			rc = write_collect(pool, prev, pending - off, written, d);
		if (rc == 0) {
			batch_write(b, row, nrows);
			pool_submit(pool, member_io_run, b->io, sizeof(*b->io));
			pending = hi;
			cur = (cur + 1) % nb;
		}
		row += nrows;
	}
	/* d may already hold the input's failure, which comes first */
	if (write_collect(pool, &sb->b[(cur + 1) % nb], pending - off, written, &wd) < 0 && rc == 0) {
		*d = wd;
		rc = -1;
	}
	return rc;
}

static void windows_free(struct read_window *win, int n)
{
	int w, i;

	for (w = 0; win && w < 2; w++) {
		for (i = 0; win[w].ms && i < n; i++)
			free(win[w].ms[i].seg);
		free(win[w].ms);
		free(win[w].buf);
	}
	free(win);
}

static void buffers_free(struct stripe_buffers *sb, int n)
{
	if (!sb)
		return;
	batch_free(&sb->b[0]);
	batch_free(&sb->b[1]);
	windows_free(sb->win, n);
	free(sb->zero);
	free(sb);
}

/* Bytes of a window: a member's batch share per member, up to eight, so
 * that a window keeps several members busy and two of them stay half the
 * row engine's budget. */
static size_t window_bytes(int n)
{
	return (size_t)ROWS_MEMBER_MAX * (size_t)(n < 8 ? n : 8);
}

static int windows_alloc(struct stripe_buffers *sb, int n)
{
	int w;

	sb->window_bytes = window_bytes(n);
	if (!(sb->win = calloc(2, sizeof(*sb->win))))
		return -1;
	for (w = 0; w < 2; w++) {
		sb->win[w].buf = dev_alloc(sb->window_bytes);
		sb->win[w].ms = calloc((size_t)n, sizeof(*sb->win[w].ms));
		if (!sb->win[w].buf || !sb->win[w].ms)
			return -1;
	}
	return 0;
}

/* RAID4/5/6 writes' batches and the zero chunk, at the first write. */
static int write_batches_alloc(struct stripe_buffers *sb, struct array *a, struct diag *d)
{
	size_t chunk = (size_t)a->geo.chunk_sectors * 512, per;
	int n = a->geo.raid_disks, i;

	if (sb->zero)
		return 0;
	if (!(sb->zero = dev_alloc(chunk)))
		return diag_fail(d, "out of memory");
	memset(sb->zero, 0, chunk);
	/* whole rows: the row engine's batch, or one row where that is less,
	 * and then only one batch, a row being over half the budget */
	per = rows_batch_bytes(n, chunk, ROWS_BUDGET);
	sb->nbatches = per >= chunk ? 2 : 1;
	for (i = 0; i < sb->nbatches; i++)
		if (batch_alloc(&sb->b[i], a, per >= chunk ? per / chunk : 1, sb->zero, d) < 0)
			return -1;
	return 0;
}

/* The engine's buffers, made at its first call (and a RAID4/5/6's write
 * batches at its first write), kept until it stops. */
static struct stripe_buffers *engine_buffers(struct stripe_engine *e, bool write, struct diag *d)
{
	struct array *a = e->a;
	struct stripe_buffers *sb = e->buf;

	if (!sb) {
		if (!(sb = calloc(1, sizeof(*sb)))) {
			diag_fail(d, "out of memory");
			return NULL;
		}
		sb->b[0].a = sb->b[1].a = a;
		e->buf = sb;
		if (windows_alloc(sb, a->geo.raid_disks) < 0) {
			diag_fail(d, "out of memory");
			return NULL;
		}
	}
	if (write && layout_has_parity(a->geo.level) && write_batches_alloc(sb, a, d) < 0)
		return NULL;
	return sb;
}

void stripe_engine_start(struct stripe_engine *e, struct array *a)
{
	e->a = a;
	e->buf = NULL;
	rows_engine_start(&e->rows, a, 0);
}

void stripe_engine_stop(struct stripe_engine *e)
{
	rows_engine_stop(&e->rows);
	buffers_free(e->buf, e->a->geo.raid_disks);
	e->buf = NULL;
}

static int check_range(struct array *a, uint64_t off, uint64_t len, struct diag *d)
{
	uint64_t size = a->geo.array_sectors * 512;

	if (off > size || len > size - off)
		return diag_fail(d, "range %llu+%llu is outside the array (%llu bytes)",
				 (unsigned long long)off, (unsigned long long)len,
				 (unsigned long long)size);
	return array_check_readable(a, d);
}

/* Before a call's work: the range checked and the engine's buffers made;
 * 1 to go on, 0 for an empty range, -1 with d set. */
static int engine_begin(struct stripe_engine *e, uint64_t off, uint64_t len, bool write,
			struct stripe_buffers **sb, struct diag *d)
{
	if (check_range(e->a, off, len, d) < 0)
		return -1;
	if (len == 0)
		return 0;
	return (*sb = engine_buffers(e, write, d)) ? 1 : -1;
}

static int engine_write(struct stripe_engine *e, uint64_t off, uint64_t len, struct write_input *in,
			uint64_t *written, struct diag *d)
{
	struct array *a = e->a;
	struct stripe_buffers *sb;
	int rc;

	*written = 0;
	if ((rc = engine_begin(e, off, len, true, &sb, d)) <= 0)
		return rc;
	if (layout_has_parity(a->geo.level))
		return write_parity_levels(e, sb, off, off + len, in, written, d);
	return write_copies(e, sb, off, off + len, in, written, d);
}

int stripe_engine_write(struct stripe_engine *e, uint64_t off, uint64_t len, stripe_source source,
			void *ctx, uint64_t *written, struct diag *d)
{
	struct write_input in = { .source = source, .ctx = ctx };

	return engine_write(e, off, len, &in, written, d);
}

int stripe_engine_write_from(struct stripe_engine *e, uint64_t off, uint64_t len, const void *data,
			     uint64_t *written, struct diag *d)
{
	struct write_input in = { .data = data, .at = off };

	return engine_write(e, off, len, &in, written, d);
}

int stripe_engine_read(struct stripe_engine *e, uint64_t off, uint64_t len,
		       stripe_sink sink, void *ctx, struct diag *d)
{
	struct stripe_buffers *sb;
	int rc;

	if ((rc = engine_begin(e, off, len, false, &sb, d)) <= 0)
		return rc;
	if (reads_whole_rows(e))
		return read_rows(e, off, off + len, sink, ctx, d);
	return read_windows(e, sb, off, off + len, sink, ctx, d);
}

int stripe_write(struct array *a, uint64_t off, uint64_t len, stripe_source source,
		 void *ctx, uint64_t *written, struct diag *d)
{
	struct stripe_engine e;
	int rc;

	*written = 0;
	if (check_range(a, off, len, d) < 0)
		return -1;
	stripe_engine_start(&e, a);
	rc = stripe_engine_write(&e, off, len, source, ctx, written, d);
	stripe_engine_stop(&e);
	return rc;
}

int stripe_read(struct array *a, uint64_t off, uint64_t len,
		stripe_sink sink, void *ctx, struct diag *d)
{
	struct stripe_engine e;
	int rc;

	if (check_range(a, off, len, d) < 0)
		return -1;
	stripe_engine_start(&e, a);
	rc = stripe_engine_read(&e, off, len, sink, ctx, d);
	stripe_engine_stop(&e);
	return rc;
}
