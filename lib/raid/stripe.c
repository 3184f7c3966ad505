/* stripe: the engine behind stripe_read and stripe_write: reads a window
 * of array bytes at a time (or a degraded RAID4/5/6 row by row, from the
 * row engine), writes RAID4/5/6 in batches of whole rows with fresh
 * parity, and RAID0/1/10 to every present copy. */
#include <stdlib.h>
#include <string.h>

#include "raid/parity.h"
#include "io/memberio.h"
#include "md/intent.h"
#include "raid/stripe.h"
#include "raid/rows.h"
#include "raid/window.h"

/* What an engine works in, made at its first call and kept until it stops:
 * fresh memory for every call would cost a page fault per page each time,
 * and a map makes a call per request. */
struct stripe_buffers {
	struct window *win;     /* two: reads, and RAID0/1/10 writes (the first) */
	size_t window_bytes;
};

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

/* The bytes a window moves on the members: a mirror's are its bytes times
 * the copies. */
static size_t window_member_bytes(const struct array *a, const struct window *w)
{
	size_t bytes = 0;
	int i, k;

	for (i = 0; i < a->geo.raid_disks; i++)
		for (k = 0; k < w->ms[i].n; k++)
			bytes += w->ms[i].seg[k].len;
	return bytes;
}

/* Plans a window of array bytes and starts its member I/O on the pool. */
static int window_start(struct stripe_engine *e, struct window *w, uint64_t off, size_t len,
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
	rows_engine_submit(&e->rows, window_member_run, w->ms, sizeof(*w->ms), window_member_bytes(a, w));
	return 0;
}

/* Waits for a window's writes; the first failure. */
static int window_wait(struct stripe_engine *e, struct window *w, struct diag *d)
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

static bool window_lost(const struct array *a, const struct window *w)
{
	int i, k;

	for (i = 0; i < a->geo.raid_disks; i++)
		for (k = 0; k < w->ms[i].n; k++)
			if (!w->ms[i].dev || w->ms[i].seg[k].lost)
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

/* A page of a data chunk no redundancy could rebuild, at array byte at:
 * zeroes, and of it the part the read wants, [lo, hi), told as lost. */
static void lose_page(const struct row_reader *r, uint8_t *page, uint64_t at, uint64_t lo, uint64_t hi)
{
	uint64_t s = at > lo ? at : lo, e = at + ROWS_PAGE < hi ? at + ROWS_PAGE : hi;

	memset(page, 0, ROWS_PAGE);
	r->a->read_lost(r->a->read_lost_ctx, s, (size_t)(e - s));
}

/* The row engine's visit for a whole-row read: each data chunk of the
 * row, mended (zeroes where nothing could mend it, for a reader that
 * takes them), to the sink in array order. */
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
		for (pg = (lo - cb) / ROWS_PAGE; p->nbeyond && pg * ROWS_PAGE < hi - cb; pg++) {
			if (!p->beyond[pg] || !p->lost[role][pg])
				continue;
			if (!r->a->read_lost)
				return window_beyond(r->a, p, (size_t)pg, d);
			lose_page(r, p->block[role] + pg * ROWS_PAGE, cb + pg * ROWS_PAGE, lo, hi);
		}
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
	struct window *w = sb->win;
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
	struct window *w = &sb->win[0];
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
		/* raid1's member sectors are its array sectors, and raid10's
		 * bitmap counts array sectors */
		rc = intent_mark(e->a, off / 512, (off + len + 511) / 512 - off / 512, d);
		/* written from where the input lies, never into */
		if (rc == 0)
			rc = window_start(e, w, off, len, (uint8_t *)p, true, d);
		if (rc == 0)
			rc = window_wait(e, w, d);
		if (rc == 0)
			off += len;
		*done = off - start;
	}
	return rc < 0 ? -1 : 0;
}

/* A RAID4/5/6 write on the row engine: each row's data chunks filled
 * from the input in array order, and fresh parity. */
struct row_writer {
	struct array *a;
	struct write_input *in;
	uint64_t off, end;           /* array bytes to write */
	uint64_t taken;              /* the input gave [off, taken) */
	bool read;                   /* the batch being filled was read first */
	struct rows_walk *w;
};

static uint64_t row_bytes_of(const struct array *a)
{
	return (uint64_t)a->geo.chunk_sectors * 512 * (uint64_t)a->geo.data_disks;
}

/* The row engine asks before each batch: one whose rows the write covers
 * only in part is read first, and mended, so its kept bytes are there. */
static bool row_keeps(void *ctx, uint64_t pos, size_t len)
{
	struct row_writer *r = ctx;
	uint64_t chunk = (uint64_t)r->a->geo.chunk_sectors * 512, row_bytes = row_bytes_of(r->a);

	r->read = pos / chunk * row_bytes < r->off || (pos + len) / chunk * row_bytes > r->end;
	return r->read;
}

/* Fails where a page the write keeps, in a data chunk of the row, was
 * lost beyond mending: its parity could not be made. */
static int kept_beyond(const struct row_writer *r, const struct rows_piece *p, uint64_t lo, uint64_t hi,
		       struct diag *d)
{
	uint64_t chunk = (uint64_t)r->a->geo.chunk_sectors * 512, rb = p->row * row_bytes_of(r->a);
	size_t pg;
	int dd;

	for (pg = 0; p->nbeyond && pg < p->len / ROWS_PAGE; pg++) {
		for (dd = 0; p->beyond[pg] && dd < p->map->data_disks; dd++) {
			uint64_t at = rb + (uint64_t)dd * chunk + pg * ROWS_PAGE;

			if (p->lost[p->map->data[dd]][pg] && (at < lo || at + ROWS_PAGE > hi))
				return window_beyond(r->a, p, pg, d);
		}
	}
	return 0;
}

/* The input's array bytes [lo, hi) of the piece's row into its data
 * chunks; how many it gave, fewer only where the input ended, or -1. */
static long long take_row_input(struct row_writer *r, struct rows_piece *p, uint64_t lo, uint64_t hi,
				struct diag *d)
{
	uint64_t chunk = (uint64_t)r->a->geo.chunk_sectors * 512, rb = p->row * row_bytes_of(r->a);
	long long got = 0;
	int dd;

	for (dd = 0; dd < p->map->data_disks; dd++) {
		uint64_t cb = rb + (uint64_t)dd * chunk, from = cb > lo ? cb : lo, to = cb + chunk < hi ? cb + chunk : hi;
		uint8_t *dst = p->block[p->map->data[dd]] + (from - cb);
		long long n = (long long)(to - from);

		if (from >= to)
			continue;
		if (r->in->data)
			memcpy(dst, r->in->data + (from - r->in->at), (size_t)n);
		else if ((n = fill_from(r->in->source, r->in->ctx, dst, (size_t)(to - from), d)) < 0)
			return -1;
		got += n;
		if ((uint64_t)n < to - from)
			break;
	}
	return got;
}

/* Array bytes [from, to) of the piece's row as the array holds them, into
 * its data chunks: read from the member, or rebuilt from the rest of the
 * row where the member is missing or the read fails.  For a row the input
 * ended in, in a batch that was not read. */
static int read_kept(struct row_writer *r, struct rows_piece *p, uint64_t from, uint64_t to, struct diag *d)
{
	struct array *a = r->a;
	uint64_t chunk = (uint64_t)a->geo.chunk_sectors * 512, rb = p->row * row_bytes_of(a);
	int dd;

	for (dd = 0; dd < p->map->data_disks; dd++) {
		uint64_t cb = rb + (uint64_t)dd * chunk, lo = cb > from ? cb : from, hi = cb + chunk < to ? cb + chunk : to;
		int role = p->map->data[dd];
		struct member *m = a->role[role];
		struct segment seg = { .area_off = p->row * chunk + (lo - cb), .len = (size_t)(hi - lo) };
		struct member_segments ms = { .seg = &seg, .n = 1, .buf = p->block[role] + (lo - cb) };

		if (lo >= hi)
			continue;
		if (m && member_read(&m->dev, ms.buf, seg.len, m->sb.data_offset * 512 + seg.area_off, NULL) == 0)
			continue;
		if (window_mend_parity(a, NULL, role, &ms, d) < 0)
			return -1;
	}
	return 0;
}

/* The row engine's visit: one whole row (a batch holds whole rows and a
 * piece is a whole chunk of every role).  Where the input ends inside the
 * row, the rest is kept, and the walk ends with the row. */
static int fill_row(void *ctx, struct rows_piece *p, struct diag *d)
{
	struct row_writer *r = ctx;
	uint64_t chunk = (uint64_t)r->a->geo.chunk_sectors * 512, rb = p->row * row_bytes_of(r->a);
	uint64_t lo = r->off > rb ? r->off : rb, hi = rb + row_bytes_of(r->a) < r->end ? rb + row_bytes_of(r->a) : r->end;
	void *blocks[ST_MAX_DISKS + 2];
	long long got;
	int nd;

	if (kept_beyond(r, p, lo, hi, d) < 0 || (got = take_row_input(r, p, lo, hi, d)) < 0)
		return -1;
	r->taken = lo + (uint64_t)got;
	if (r->taken < hi && got == 0) {
		r->w->to = p->row * chunk;
		return 0;
	}
	/* the row is written once the batch is: its bit goes first */
	if (intent_mark(r->a, p->row * r->a->geo.chunk_sectors, r->a->geo.chunk_sectors, d) < 0)
		return -1;
	if (r->taken < hi) {
		if (!r->read && read_kept(r, p, r->taken, rb + row_bytes_of(r->a), d) < 0)
			return -1;
		r->w->to = (p->row + 1) * chunk;
	}
	nd = layout_row_blocks(p->map, p->block, 0, p->zero, blocks);
	if (p->map->qd < 0)
		parity_xor(blocks[nd], blocks, nd, chunk);
	else
		parity_gen_pq(nd, chunk, blocks);
	return 0;
}

/* RAID4/5/6 writes: a walk of the row engine that fills whole rows from
 * the input (reading first the batches whose rows it covers in part) and
 * writes them, double buffered where two batches fit the budget.
 * *written: the input's bytes in whole rows on every member. */
static int write_parity_levels(struct stripe_engine *e, uint64_t off, uint64_t end, struct write_input *in,
			       uint64_t *written, struct diag *d)
{
	uint64_t chunk = (uint64_t)e->a->geo.chunk_sectors * 512, row_bytes = row_bytes_of(e->a), done;
	struct row_writer r = { .a = e->a, .in = in, .off = off, .end = end, .taken = off };
	struct rows_walk w = { .a = e->a, .from = off / row_bytes * chunk,
			       .to = (end + row_bytes - 1) / row_bytes * chunk, .mend = true,
			       .fill = true, .keep = row_keeps, .visit = fill_row, .ctx = &r };
	int rc;

	r.w = &w;
	rc = rows_engine_walk(&e->rows, &w, d);
	done = w.written / chunk * row_bytes;
	if (done > r.taken)
		done = r.taken;
	*written = done > off ? done - off : 0;
	return rc;
}

static void windows_free(struct window *win, int n)
{
	int w, i;

	for (w = 0; win && w < 2; w++) {
		for (i = 0; win[w].ms && i < n; i++) {
			free(win[w].ms[i].seg);
			free(win[w].ms[i].bad);
		}
		free(win[w].ms);
		free(win[w].buf);
	}
	free(win);
}

static void buffers_free(struct stripe_buffers *sb, int n)
{
	if (!sb)
		return;
	windows_free(sb->win, n);
	free(sb);
}

/* Bytes of a window: a member's batch share per member, up to eight, so
 * that a window keeps several members busy and two of them stay half the
 * row engine's budget; never more than the whole array. */
static size_t window_bytes(const struct array *a)
{
	int n = a->geo.raid_disks;
	size_t most = (size_t)ROWS_MEMBER_MAX * (size_t)(n < 8 ? n : 8);
	uint64_t all = (a->geo.array_sectors * 512 + ROWS_PAGE - 1) / ROWS_PAGE * ROWS_PAGE;

	return all && all < most ? (size_t)all : most;
}

static int windows_alloc(struct stripe_buffers *sb, const struct array *a)
{
	int n = a->geo.raid_disks, w, i;

	sb->window_bytes = window_bytes(a);
	if (!(sb->win = calloc(2, sizeof(*sb->win))))
		return -1;
	for (w = 0; w < 2; w++) {
		sb->win[w].buf = dev_alloc(sb->window_bytes);
		sb->win[w].ms = calloc((size_t)n, sizeof(*sb->win[w].ms));
		if (!sb->win[w].buf || !sb->win[w].ms)
			return -1;
		for (i = 0; i < n; i++)
			if (!(sb->win[w].ms[i].bad = calloc(sb->window_bytes / ROWS_PAGE + 1, 1)))
				return -1;
	}
	return 0;
}

/* The engine's windows, made at its first call that needs them, kept
 * until it stops. */
static struct stripe_buffers *engine_buffers(struct stripe_engine *e, struct diag *d)
{
	struct array *a = e->a;
	struct stripe_buffers *sb = e->buf;

	if (!sb) {
		if (!(sb = calloc(1, sizeof(*sb))) || (e->buf = sb, windows_alloc(sb, a) < 0)) {
			diag_fail(d, "%s: out of memory (%zu bytes) for the read windows of %d members",
				  a->members[0].path, 2 * window_bytes(a), a->geo.raid_disks);
			return NULL;
		}
	}
	return sb;
}

void stripe_engine_start(struct stripe_engine *e, struct array *a)
{
	e->a = a;
	e->buf = NULL;
	rows_engine_start(&e->rows, a, 0, 0);
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

/* Before a call's work: the range checked and, for a call that works in
 * windows, the engine's windows made (sb NULL: one that does not); 1 to go
 * on, 0 for an empty range, -1 with d set. */
static int engine_begin(struct stripe_engine *e, uint64_t off, uint64_t len, struct stripe_buffers **sb,
			struct diag *d)
{
	if (check_range(e->a, off, len, d) < 0)
		return -1;
	if (len == 0)
		return 0;
	return !sb || (*sb = engine_buffers(e, d)) ? 1 : -1;
}

static int engine_write(struct stripe_engine *e, uint64_t off, uint64_t len, struct write_input *in,
			uint64_t *written, struct diag *d)
{
	bool parity = layout_has_parity(e->a->geo.level);
	struct stripe_buffers *sb = NULL;
	int rc;

	*written = 0;
	/* RAID4/5/6 writes work in the row engine's batches, not in windows */
	if ((rc = engine_begin(e, off, len, parity ? NULL : &sb, d)) <= 0)
		return rc;
	if (parity)
		return write_parity_levels(e, off, off + len, in, written, d);
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

	if ((rc = engine_begin(e, off, len, &sb, d)) <= 0)
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
