/* rows: for RAID4/5/6 member byte o of every member's data area is byte
 * o % chunk of row o / chunk, so a batch is one range of member bytes, the
 * same on every member, sized from a memory budget, and a row is handed
 * out in pieces when a batch covers less than a chunk.  A write's walk
 * (fill) hands out whole rows to be filled and writes them back. */
#include <stdlib.h>
#include <string.h>

#include "raid/rows.h"
#include "raid/parity.h"
#include "io/pool.h"

/* One of the two buffer sets: the pool's workers fill (or write) one
 * while the caller's visit works on the other. */
struct rows_batch {
	uint64_t pos;                    /* member bytes [pos, pos + len) */
	size_t len;
	bool read;                       /* its bytes came from the members (lost flags, mending) */
	uint8_t *buf;                    /* per role: the walk's stride */
	uint8_t *bad;                    /* per role and page: lost */
	struct member_io *io;            /* per role */
};

size_t rows_batch_bytes(int n, size_t chunk, size_t budget)
{
	size_t b = budget / (2 * (size_t)(n > 0 ? n : 1)), part = chunk;

	if (b > ROWS_MEMBER_MAX)
		b = ROWS_MEMBER_MAX;
	if (b >= chunk)
		return b / chunk * chunk;
	while (part > b && part > ROWS_PAGE)
		part /= 2;
	return part;
}

static uint8_t *role_buf(const struct rows_engine *e, const struct rows_batch *b, int role)
{
	return b->buf + (size_t)role * e->stride;
}

static uint8_t *role_bad(const struct rows_engine *e, const struct rows_batch *b, int role)
{
	return b->bad + (size_t)role * (e->stride / ROWS_PAGE);
}

/* Starts the read of [pos, pos + len) of every present member into b.  A
 * missing role reads as zeroes, every page of it lost. */
static void batch_submit(struct rows_engine *e, struct rows_batch *b, uint64_t pos)
{
	int i;

	b->pos = pos;
	b->len = e->w->to - pos < e->stride ? (size_t)(e->w->to - pos) : e->stride;
	b->read = true;
	for (i = 0; i < e->n; i++) {
		struct member *m = e->a->role[i];

		b->io[i] = (struct member_io){
			.dev = m ? &m->dev : NULL, .buf = role_buf(e, b, i), .len = b->len,
			.off = m ? m->sb.data_offset * 512 + pos : 0, .bad = role_bad(e, b, i) };
		if (!m) {
			memset(role_buf(e, b, i), 0, b->len);
			memset(role_bad(e, b, i), 1, b->len / ROWS_PAGE);
		}
	}
	rows_engine_submit(e, member_io_run, b->io, sizeof(*b->io), b->len * (size_t)e->n);
}

/* Waits for b's reads.  Read errors are counted here, not by the workers,
 * so a walk that stops early counts none from a batch read ahead that it
 * never got to. */
static void batch_collect(struct rows_engine *e, struct rows_batch *b)
{
	int i;

	pool_wait(&e->pool);
	for (i = 0; i < e->n; i++)
		e->w->read_errors += b->io[i].dev ? b->io[i].bad_pages : 0;
}

/* The row's blocks lost at page pg, as parity_recover indices; returns
 * how many. */
static int lost_at(const struct rows_piece *p, int n, size_t pg, int *missing)
{
	int q = p->map->qd >= 0, i, nmiss = 0;

	for (i = 0; i < n; i++)
		if (p->lost[i][pg] && nmiss < ST_MAX_DISKS)
			missing[nmiss++] = layout_block_index(p->map, i, q);
	return nmiss;
}

static void tell_mended(const struct rows_engine *e, const struct rows_piece *p, size_t pg, size_t npg)
{
	struct array *a = e->a;
	size_t k;
	int i;

	for (i = 0; a->read_mended && i < e->n; i++)
		for (k = pg; a->role[i] && k < pg + npg; k++)
			if (p->lost[i][k])
				a->read_mended(a->read_mended_ctx, a->role[i],
					       a->role[i]->sb.data_offset * 512 + p->row * e->chunk + p->at +
					       k * ROWS_PAGE, ROWS_PAGE);
}

/* Rebuilds the piece's lost pages from the rest of its row, a run of
 * pages with the same blocks lost at a time; pages with more lost than
 * the level rebuilds are left and flagged beyond. */
static void mend_piece(struct rows_engine *e, struct rows_piece *p)
{
	int q = p->map->qd >= 0, missing[ST_MAX_DISKS], other[ST_MAX_DISKS], nmiss, nd;
	size_t pg = 0, npg, pages = p->len / ROWS_PAGE;
	void *blocks[ST_MAX_DISKS + 2];

	memset(e->beyond, 0, pages);
	p->beyond = e->beyond;
	p->nbeyond = 0;
	for (pg = 0; pg < pages; pg += npg) {
		nmiss = lost_at(p, e->n, pg, missing);
		for (npg = 1; pg + npg < pages; npg++)
			if (lost_at(p, e->n, pg + npg, other) != nmiss ||
			    memcmp(other, missing, (size_t)nmiss * sizeof(*other)) != 0)
				break;
		if (!nmiss)
			continue;
		nd = layout_row_blocks(p->map, p->block, pg * ROWS_PAGE, e->zero, blocks);
		if (nmiss > (q ? 2 : 1) || parity_recover(nd, q, npg * ROWS_PAGE, blocks, missing, nmiss) < 0) {
			memset(e->beyond + pg, 1, npg);
			p->nbeyond += (int)npg;
			continue;
		}
		tell_mended(e, p, pg, npg);
	}
}

/* Hands the batch out a piece at a time: a whole chunk of a row, or the
 * batch's part of one. */
static int batch_visit(struct rows_engine *e, struct rows_batch *b, struct diag *d)
{
	uint64_t s = b->pos, end = b->pos + b->len;
	int rc = 0, i;

	while (rc == 0 && s < end && s < e->w->to) {
		struct stripe_map map;
		struct rows_piece p = { .row = s / e->chunk, .at = (size_t)(s % e->chunk), .map = &map,
					.zero = e->zero, .batch = b->pos };
		size_t off = (size_t)(s - b->pos);

		p.len = e->chunk - p.at < end - s ? e->chunk - p.at : (size_t)(end - s);
		p.last = s + p.len >= end || s + p.len >= e->w->to;
		layout_stripe(&e->a->geo, p.row, &map);
		for (i = 0; i < e->n; i++) {
			p.block[i] = role_buf(e, b, i) + off;
			p.lost[i] = role_bad(e, b, i) + off / ROWS_PAGE;
		}
		if (e->w->mend && b->read)
			mend_piece(e, &p);
		rc = e->w->visit(e->w->ctx, &p, d);
		s += p.len;
	}
	return rc;
}

/* Image files' I/O is a copy to or from the page cache: for a job of a
 * few hundred KiB (a served request's row) waking the workers and waiting
 * for them cost more than the copy, and the caller does it at once.  Block
 * devices' I/O waits on the disks, which work at once only when asked at
 * once, so it always goes to the workers. */
static size_t rows_here_bytes(const struct array *a)
{
	int i;

	for (i = 0; i < a->nmembers; i++)
		if (a->members[i].dev.is_blockdev)
			return 0;
	return ROWS_HERE_BYTES;
}

void rows_engine_start(struct rows_engine *e, struct array *a, size_t member_bytes, int workers)
{
	memset(e, 0, sizeof(*e));
	e->a = a;
	e->n = a->geo.raid_disks;
	e->chunk = (size_t)a->geo.chunk_sectors * 512;
	/* a RAID0/1/10 engine only lends its pool */
	e->bytes = member_bytes ? member_bytes : e->chunk ? rows_batch_bytes(e->n, e->chunk, ROWS_BUDGET) : ROWS_PAGE;
	if (workers <= 0)
		workers = rows_io_workers(a, pool_cpus());
	pool_start(&e->pool, e->n, workers < e->n ? workers : e->n);
	e->here_bytes = rows_here_bytes(a);
}

void rows_engine_submit(struct rows_engine *e, void (*run)(void *item), void *items, size_t size, size_t bytes)
{
	if (bytes <= e->here_bytes)
		pool_run_here(&e->pool, run, items, size);
	else
		pool_submit(&e->pool, run, items, size);
}

int rows_io_workers(const struct array *a, int cpus)
{
	int i;

	for (i = 0; i < a->nmembers; i++)
		if (a->members[i].dev.is_blockdev)
			return a->geo.raid_disks;
	return cpus > 1 ? cpus : 1;
}

static void buffers_free(struct rows_engine *e)
{
	if (e->batch) {
		free(e->batch[0].io);
		free(e->batch[1].io);
	}
	free(e->batch);
	free(e->arena);
	free(e->bad);
	free(e->beyond);
	free(e->zero);
	e->batch = NULL;
	e->arena = e->bad = e->beyond = e->zero = NULL;
	e->room = e->piece_room = 0;
}

/* Room for nb batches of stride bytes of every member, made at the first
 * walk (an engine that only lends its pool never makes it) and made anew
 * only when a walk needs more: a reading walk needs the budget's, a write
 * a row at least. */
static int engine_room(struct rows_engine *e, size_t stride, int nb, bool short_walk)
{
	size_t need = (size_t)nb * (size_t)e->n * stride, piece = stride < e->chunk ? stride : e->chunk;
	size_t least = short_walk ? need : 2 * (size_t)e->n * e->bytes;
	int i;

	if (!e->batch || need > e->room || piece > e->piece_room) {
		buffers_free(e);
		e->room = need > least ? need : least;
		e->piece_room = piece > e->bytes ? piece : short_walk ? stride : e->bytes;
		e->batch = calloc(2, sizeof(*e->batch));
		/* a short walk's room, under a huge page, gains nothing from one */
		e->arena = e->room < (2u << 20) ? dev_alloc(e->room) : dev_alloc_huge(e->room);
		e->bad = calloc(e->room / ROWS_PAGE, 1);
		e->beyond = calloc(e->piece_room / ROWS_PAGE, 1);
		e->zero = dev_alloc(e->piece_room);
		if (!e->batch || !e->arena || !e->bad || !e->beyond || !e->zero)
			return -1;
		memset(e->zero, 0, e->piece_room);
		for (i = 0; i < 2; i++)
			if (!(e->batch[i].io = calloc((size_t)e->n, sizeof(*e->batch[i].io))))
				return -1;
	}
	e->stride = stride;
	e->nbatches = nb;
	for (i = 0; i < nb; i++) {
		e->batch[i].buf = e->arena + (size_t)i * (size_t)e->n * stride;
		e->batch[i].bad = e->bad + (size_t)i * (size_t)e->n * (stride / ROWS_PAGE);
	}
	return 0;
}

void rows_engine_stop(struct rows_engine *e)
{
	pool_stop(&e->pool);
	buffers_free(e);
}

/* Double buffered: the workers read the next batch while this thread
 * visits the last one.  A caller that writes back (check's repair) writes
 * behind the batch being read, so the two never touch the same bytes. */
static int read_walk(struct rows_engine *e, struct rows_walk *w, struct diag *d)
{
	uint64_t pos = w->from;
	int rc = 0, cur = 0;

	if (pos < w->to)
		batch_submit(e, &e->batch[0], pos);
	for (; rc == 0 && pos < w->to; cur = !cur) {
		struct rows_batch *b = &e->batch[cur];

		batch_collect(e, b);
		pos = b->pos + b->len;
		if (pos < w->to)
			batch_submit(e, &e->batch[!cur], pos);
		rc = batch_visit(e, b, d);
	}
	/* a visit that stopped the walk leaves the read ahead in flight */
	pool_wait(&e->pool);
	return rc;
}

/* A write's batches: whole rows, two batches where two fit the room a
 * reading walk has, else one row alone (more than the budget where one
 * row is). */
static void fill_layout(const struct rows_engine *e, size_t *stride, int *nb)
{
	size_t room = 2 * (size_t)e->n * e->bytes, row = (size_t)e->n * e->chunk;

	*nb = room >= 2 * row ? 2 : 1;
	*stride = room >= 2 * row ? room / (2 * row) * e->chunk : e->chunk;
}

/* Starts the write of batch b, as far as the walk goes, to every present
 * member. */
static void batch_write(struct rows_engine *e, struct rows_batch *b)
{
	size_t len = e->w->to - b->pos < b->len ? (size_t)(e->w->to - b->pos) : b->len;
	int i;

	for (i = 0; i < e->n; i++) {
		struct member *m = e->a->role[i];

		b->io[i] = (struct member_io){ .dev = m ? &m->dev : NULL, .buf = role_buf(e, b, i), .len = len,
					       .write = true, .off = m ? m->sb.data_offset * 512 + b->pos : 0 };
	}
	b->len = len;
	rows_engine_submit(e, member_io_run, b->io, sizeof(*b->io), len * (size_t)e->n);
}

/* Waits for the write in flight, if any, and moves written on past it. */
static int write_collect(struct rows_engine *e, struct rows_batch *b, struct diag *d)
{
	if (!e->pool.busy)
		return 0;
	if (member_io_wait(&e->pool, b->io, e->n, d) < 0)
		return -1;
	e->w->written = b->pos + b->len;
	return 0;
}

/* A write: each batch read first where the walk keeps some of its bytes
 * (the pool does one job at a time, so the write in flight goes first),
 * handed to the visit to fill, then written while the next is filled. */
static int fill_walk(struct rows_engine *e, struct rows_walk *w, struct diag *d)
{
	struct rows_batch *flying = NULL;    /* the batch last sent to be written */
	uint64_t pos = w->from;
	int rc = 0, cur = 0, nb = e->nbatches;
	struct diag wd;

	w->written = w->from;
	while (rc == 0 && pos < w->to) {
		struct rows_batch *b = &e->batch[cur], *prev = &e->batch[(cur + 1) % nb];
		size_t len = w->to - pos < e->stride ? (size_t)(w->to - pos) : e->stride;
		bool keep = w->keep && w->keep(w->ctx, pos, len);

		if ((nb == 1 || keep) && write_collect(e, prev, d) < 0)
			return -1;
		if (keep) {
			batch_submit(e, b, pos);
			batch_collect(e, b);
		} else {
			*b = (struct rows_batch){ .pos = pos, .len = len, .buf = b->buf, .bad = b->bad, .io = b->io };
			memset(b->bad, 0, (size_t)e->n * (len / ROWS_PAGE));
		}
		rc = batch_visit(e, b, d);
		if (rc == 0)
			rc = write_collect(e, prev, d);
		if (rc == 0 && pos < w->to) {
			batch_write(e, b);
			flying = b;
		}
		pos += len;
		cur = (cur + 1) % nb;
	}
	/* d may already hold the visit's failure, which comes first; a visit
	 * that failed leaves the batch before it in flight, not its own */
	if (flying && write_collect(e, flying, &wd) < 0 && rc == 0) {
		*d = wd;
		rc = -1;
	}
	return rc;
}

/* A walk shorter than a batch gets buffers for what it covers, not the
 * budget's: under a small array or a 4 KiB read through stripe-map, making
 * and touching the budget's room cost more than the I/O.  A fill walk
 * starts on a row and keeps whole rows, so its stride stays whole chunks. */
static size_t walk_stride(const struct rows_engine *e, const struct rows_walk *w, size_t stride)
{
	size_t unit = w->fill && e->chunk ? e->chunk : ROWS_PAGE;
	uint64_t span;

	if (w->to <= w->from)
		return stride;
	span = w->to - w->from / unit * unit;
	span = (span + unit - 1) / unit * unit;
	return span < stride ? (size_t)span : stride;
}

int rows_engine_walk(struct rows_engine *e, struct rows_walk *w, struct diag *d)
{
	size_t stride = e->bytes, full;
	int nb = 2, rc;

	if (w->fill)
		fill_layout(e, &stride, &nb);
	full = stride;
	stride = walk_stride(e, w, stride);
	if (engine_room(e, stride, nb, stride < full) < 0)
		return diag_fail(d, "%s: out of memory (%zu bytes) for %d members' batches", e->a->members[0].path,
				 (size_t)nb * (size_t)e->n * stride, e->n);
	e->w = w;
	rc = w->fill ? fill_walk(e, w, d) : read_walk(e, w, d);
	e->w = NULL;
	return rc;
}

int rows_walk(struct rows_walk *w, struct diag *d)
{
	struct rows_engine e;
	int rc;

	rows_engine_start(&e, w->a, w->member_bytes, w->workers);
	rc = rows_engine_walk(&e, w, d);
	rows_engine_stop(&e);
	return rc;
}
