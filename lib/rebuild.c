/* rebuild: walks the targets' data areas from start to end, as md's
 * recovery does, filling them from the survivors: RAID4/5/6 a batch of
 * stripe rows at a time with every member's I/O in parallel, RAID1/10 by
 * copying each run from a copy that is present. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "layout.h"
#include "memberio.h"
#include "parity.h"
#include "pool.h"
#include "rebuild.h"
#include "recovery.h"

#define BATCH_BYTES (1u << 20)       /* per member and batch */
#define PAGE 4096u

struct rebuild_run {
	struct array *a;
	struct rebuild_target *t;
	int n;
	const struct rebuild_options *o;
	struct rebuild_result *r;
	struct rebuild_target *target_of[ST_MAX_DISKS];
	uint64_t start, end;         /* member sectors */
	double last_checkpoint;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Records a bad range of a target (device sectors), joining it to the last
 * one when they touch, as the bad-block log keeps them. */
static int add_bad(struct rebuild_target *t, uint64_t start, uint64_t len, struct diag *d)
{
	struct bad_range *last = t->nbad ? &t->bad[t->nbad - 1] : NULL;

	if (last && last->start + last->len == start) {
		last->len += len;
		return 0;
	}
	if (t->nbad == t->capbad) {
		int cap = t->capbad ? 2 * t->capbad : 16;
		struct bad_range *b = realloc(t->bad, (size_t)cap * sizeof(*b));

		if (!b)
			return diag_fail(d, "out of memory");
		t->bad = b;
		t->capbad = cap;
	}
	t->bad[t->nbad++] = (struct bad_range){ start, len };
	return 0;
}

static int report(struct rebuild_run *run, const struct rebuild_event *e)
{
	return run->o->report ? run->o->report(run->o->ctx, e) : 0;
}

/* Checkpoints when the interval has passed (or force): everything below
 * done is on the targets. */
static int checkpoint(struct rebuild_run *run, uint64_t done, bool force, struct diag *d)
{
	unsigned ms = run->o->checkpoint_ms ? run->o->checkpoint_ms : 1000;
	double t = now_s();

	if (run->o->progress)
		run->o->progress(run->o->ctx, (done - run->start) * 512, (run->end - run->start) * 512);
	if (!force && (t - run->last_checkpoint) * 1000 < ms)
		return 0;
	run->last_checkpoint = t;
	run->r->checkpoints++;
	return recovery_checkpoint(run->a, run->t, run->n, done, d);
}

/* A target page no redundancy can fill: zeroed, logged as bad, reported
 * with the array data it takes with it. */
static int lose_page(struct rebuild_run *run, struct rebuild_target *t, uint8_t *page,
		     uint64_t member_sector, struct rebuild_event *e, struct diag *d)
{
	memset(page, 0, PAGE);
	run->r->unrecoverable += PAGE;
	if (add_bad(t, t->m->sb.data_offset + member_sector, PAGE / 512, d) < 0)
		return -1;
	e->kind = REBUILD_UNRECOVERABLE;
	e->member = t->m;
	e->role = t->role;
	e->member_offset = (t->m->sb.data_offset + member_sector) * 512;
	e->length = PAGE;
	return report(run, e) < 0 ? diag_fail(d, "stopped by the caller") : 0;
}

/* ---- RAID4/5/6 ---- */

/* One of the two buffer sets: the workers fill (survivors) or drain
 * (targets) one while the caller rebuilds rows in the other. */
struct row_set {
	uint8_t **buf;               /* per role: rows * chunk bytes */
	bool *bad;                   /* per role: a flag per page, unreadable */
	bool any_bad;
	struct member_io *io;        /* per role */
};

struct parity_walk {
	struct rebuild_run *run;
	size_t chunk;
	uint64_t rows;               /* per batch */
	size_t pages;                /* per role and batch */
	int ndisks;
	uint8_t *zero, *pq[2];       /* a zero chunk; scratch P and Q for verifying */
	struct row_set set[2];
	struct pool pool;
};

static void walk_free(struct parity_walk *w)
{
	int s, i;

	for (s = 0; s < 2; s++) {
		for (i = 0; w->set[s].buf && i < w->ndisks; i++)
			free(w->set[s].buf[i]);
		free(w->set[s].buf);
		free(w->set[s].bad);
		free(w->set[s].io);
	}
	free(w->zero);
	free(w->pq[0]);
	free(w->pq[1]);
}

static int walk_alloc(struct parity_walk *w, struct rebuild_run *run, struct diag *d)
{
	int s, i;

	memset(w, 0, sizeof(*w));
	w->run = run;
	w->ndisks = run->a->geo.raid_disks;
	w->chunk = (size_t)run->a->geo.chunk_sectors * 512;
	w->rows = BATCH_BYTES / w->chunk ? BATCH_BYTES / w->chunk : 1;
	w->pages = w->rows * w->chunk / PAGE;
	for (s = 0; s < 2; s++) {
		struct row_set *rs = &w->set[s];

		rs->buf = calloc((size_t)w->ndisks, sizeof(*rs->buf));
		rs->bad = calloc((size_t)w->ndisks * w->pages, sizeof(*rs->bad));
		rs->io = calloc((size_t)w->ndisks, sizeof(*rs->io));
		if (!rs->buf || !rs->bad || !rs->io)
			return diag_fail(d, "out of memory");
		for (i = 0; i < w->ndisks; i++)
			rs->buf[i] = dev_alloc(w->rows * w->chunk);
	}
	w->zero = dev_alloc(w->chunk);
	memset(w->zero, 0, w->chunk);
	w->pq[0] = dev_alloc(w->chunk);
	w->pq[1] = dev_alloc(w->chunk);
	return 0;
}

/* Sets up a job on set rs: survivors read rows [rrow, rrow + rn), targets
 * write rows [wrow, wrow + wn); either count may be 0. */
static void set_job(struct parity_walk *w, struct row_set *rs, uint64_t rrow, uint64_t rn,
		    uint64_t wrow, uint64_t wn)
{
	struct array *a = w->run->a;
	int i;

	for (i = 0; i < w->ndisks; i++) {
		struct member *sv = a->role[i], *tg = w->run->target_of[i] ? w->run->target_of[i]->m : NULL;
		struct member *m = sv && rn ? sv : tg && wn ? tg : NULL;
		uint64_t row = sv ? rrow : wrow, nrows = sv ? rn : wn;

		rs->io[i] = (struct member_io){ .dev = m ? &m->dev : NULL, .buf = rs->buf[i],
						.len = nrows * w->chunk, .write = m == tg && m,
						.off = m ? m->sb.data_offset * 512 + row * w->chunk : 0 };
	}
	if (rn) {
		memset(rs->bad, 0, (size_t)w->ndisks * w->pages);
		rs->any_bad = false;
	}
}

/* A survivor's batch read failed: read it again a page at a time and mark
 * the pages that fail, so the rest can still be used. */
static int read_pages(struct parity_walk *w, struct row_set *rs, int role, struct diag *d)
{
	struct member_io *io = &rs->io[role];
	size_t p, np = io->len / PAGE;
	struct rebuild_event e = { .kind = REBUILD_READ_ERROR, .member = w->run->a->role[role],
				   .role = role };
	struct diag why;

	for (p = 0; p < np; p++) {
		if (dev_read(io->dev, (uint8_t *)io->buf + p * PAGE, PAGE, io->off + p * PAGE, &why) == 0)
			continue;
		rs->bad[(size_t)role * w->pages + p] = true;
		rs->any_bad = true;
		w->run->r->read_errors++;
		e.member_offset = io->off + p * PAGE;
		e.length = PAGE;
		if (report(w->run, &e) < 0)
			return diag_fail(d, "stopped by the caller");
	}
	return 0;
}

static int collect(struct parity_walk *w, struct row_set *rs, struct diag *d)
{
	int i;

	pool_wait(&w->pool);
	for (i = 0; i < w->ndisks; i++) {
		struct member_io *io = &rs->io[i];

		if (!io->dev || io->rc == 0)
			continue;
		if (io->write) {
			*d = io->d;
			return -1;
		}
		if (read_pages(w, rs, i, d) < 0)
			return -1;
	}
	return 0;
}

/* The blocks of row k of a set in parity_recover's order. */
static int row_blocks(struct parity_walk *w, struct row_set *rs, const struct stripe_map *m,
		      uint64_t k, size_t off, void **blocks)
{
	int q = m->qd >= 0, nd = q ? m->syndrome_disks : m->data_disks, i;
	size_t at = k * w->chunk + off;

	for (i = 0; i < nd; i++) {
		int r = q ? m->slot[i] : m->data[i];

		blocks[i] = r < 0 ? w->zero : rs->buf[r] + at;
	}
	blocks[nd] = rs->buf[m->pd] + at;
	if (q)
		blocks[nd + 1] = rs->buf[m->qd] + at;
	return nd;
}

/* RAID6 with one block rebuilt still has Q (or P) to spare: recompute both
 * and report each page where the survivors disagree with them. */
static int verify_row(struct parity_walk *w, struct row_set *rs, const struct stripe_map *m,
		      uint64_t row, uint64_t k, struct diag *d)
{
	void *blocks[ST_MAX_DISKS + 2];
	int nd = row_blocks(w, rs, m, k, 0, blocks), i;
	uint8_t *p = blocks[nd], *q = blocks[nd + 1];
	size_t pg;

	blocks[nd] = w->pq[0];
	blocks[nd + 1] = w->pq[1];
	parity_gen_pq(nd, w->chunk, blocks);
	for (pg = 0; pg < w->chunk; pg += PAGE) {
		struct rebuild_event e = { .kind = REBUILD_DISAGREE, .role = m->pd,
					   .member = w->run->a->role[m->pd], .length = PAGE };

		if (!memcmp(w->pq[0] + pg, p + pg, PAGE) && !memcmp(w->pq[1] + pg, q + pg, PAGE))
			continue;
		w->run->r->disagree++;
		e.member_offset = (e.member ? e.member->sb.data_offset * 512 : 0) + row * w->chunk + pg;
		for (i = 0; i < m->data_disks; i++) {
			e.lost_offset[e.nlost] = (row * (uint64_t)m->data_disks + (uint64_t)i) * w->chunk + pg;
			e.lost_length[e.nlost++] = PAGE;
		}
		if (report(w->run, &e) < 0)
			return diag_fail(d, "stopped by the caller");
	}
	return 0;
}

/* Roles whose blocks must be computed in a row: the targets and roles with
 * neither a survivor nor a target; plus, for one page, unreadable ones. */
static int lost_blocks(struct parity_walk *w, struct row_set *rs, const struct stripe_map *m,
		       size_t page, int *missing, int *roles)
{
	struct array *a = w->run->a;
	int q = m->qd >= 0, n = 0, i;

	for (i = 0; i < w->ndisks; i++) {
		bool lost = !a->role[i] || (page != (size_t)-1 && rs->bad[(size_t)i * w->pages + page]);

		if (lost && layout_block_index(m, i, q) >= 0) {
			roles[n] = i;
			missing[n++] = layout_block_index(m, i, q);
		}
	}
	return n;
}

/* Array bytes of the data a lost page of role held in this row, if any. */
static void note_lost_data(const struct stripe_map *m, uint64_t row, size_t chunk, size_t off,
			   int role, struct rebuild_event *e)
{
	int i;

	for (i = 0; i < m->data_disks; i++) {
		if (m->data[i] != role)
			continue;
		e->lost_offset[e->nlost] = (row * (uint64_t)m->data_disks + (uint64_t)i) * chunk + off;
		e->lost_length[e->nlost++] = PAGE;
	}
}

/* Slow path for a row with unreadable pages: page by page, rebuild what
 * redundancy allows and log the rest as bad on the targets. */
static int rebuild_row_pages(struct parity_walk *w, struct row_set *rs, const struct stripe_map *m,
			     uint64_t row, uint64_t k, struct diag *d)
{
	int q = m->qd >= 0, missing[ST_MAX_DISKS], roles[ST_MAX_DISKS], nmiss, i;
	void *blocks[ST_MAX_DISKS + 2];
	size_t off;

	for (off = 0; off < w->chunk; off += PAGE) {
		size_t page = (k * w->chunk + off) / PAGE;
		struct rebuild_event e = { 0 };

		nmiss = lost_blocks(w, rs, m, page, missing, roles);
		row_blocks(w, rs, m, k, off, blocks);
		if (nmiss <= (q ? 2 : 1)) {
			if (nmiss && parity_recover(q ? m->syndrome_disks : m->data_disks, q, PAGE, blocks,
						    missing, nmiss) < 0)
				return diag_fail(d, "cannot rebuild row %llu", (unsigned long long)row);
			continue;
		}
		for (i = 0; i < nmiss; i++)
			note_lost_data(m, row, w->chunk, off, roles[i], &e);
		for (i = 0; i < nmiss; i++) {
			struct rebuild_target *t = w->run->target_of[roles[i]];

			if (t && lose_page(w->run, t, rs->buf[roles[i]] + k * w->chunk + off,
					   row * w->chunk / 512 + off / 512, &e, d) < 0)
				return -1;
		}
	}
	return 0;
}

static bool row_has_bad(struct parity_walk *w, struct row_set *rs, uint64_t k)
{
	size_t per_row = w->chunk / PAGE, p;
	int i;

	for (i = 0; rs->any_bad && i < w->ndisks; i++)
		for (p = k * per_row; p < (k + 1) * per_row; p++)
			if (rs->bad[(size_t)i * w->pages + p])
				return true;
	return false;
}

static int rebuild_rows(struct parity_walk *w, struct row_set *rs, uint64_t row, uint64_t nrows,
			struct diag *d)
{
	int missing[ST_MAX_DISKS], roles[ST_MAX_DISKS], nmiss;
	void *blocks[ST_MAX_DISKS + 2];
	struct stripe_map m;
	uint64_t k;

	for (k = 0; k < nrows; k++) {
		layout_stripe(&w->run->a->geo, row + k, &m);
		if (row_has_bad(w, rs, k)) {
			if (rebuild_row_pages(w, rs, &m, row + k, k, d) < 0)
				return -1;
			continue;
		}
		nmiss = lost_blocks(w, rs, &m, (size_t)-1, missing, roles);
		row_blocks(w, rs, &m, k, 0, blocks);
		if (nmiss > (m.qd >= 0 ? 2 : 1) ||
		    parity_recover(m.qd >= 0 ? m.syndrome_disks : m.data_disks, m.qd >= 0, w->chunk,
				   blocks, missing, nmiss) < 0)
			return diag_fail(d, "row %llu: %d blocks lost, more than the array can rebuild",
					 (unsigned long long)(row + k), nmiss);
		if (m.qd >= 0 && nmiss == 1 && verify_row(w, rs, &m, row + k, k, d) < 0)
			return -1;
	}
	return 0;
}

/* Pipeline: while the caller rebuilds batch j in one set, the workers read
 * batch j + 1 into the other and write batch j - 1 out of it. */
static int rebuild_parity(struct rebuild_run *run, struct diag *d)
{
	struct parity_walk w;
	uint64_t chunk_s = run->a->geo.chunk_sectors, first = run->start / chunk_s;
	uint64_t last = run->end / chunk_s, row, nrows, prev = 0, prev_n = 0;
	int cur = 0, rc = 0;

	if (walk_alloc(&w, run, d) < 0) {
		walk_free(&w);
		return -1;
	}
	pool_start(&w.pool, w.ndisks);
	nrows = last - first < w.rows ? last - first : w.rows;
	set_job(&w, &w.set[0], first, nrows, 0, 0);
	pool_submit(&w.pool, member_io_run, w.set[0].io, sizeof(*w.set[0].io));
	rc = collect(&w, &w.set[0], d);
	for (row = first; rc == 0 && row < last; row += nrows) {
		uint64_t next = row + nrows, next_n;

		nrows = last - row < w.rows ? last - row : w.rows;
		next = row + nrows;
		next_n = last - next < w.rows ? last - next : w.rows;
		set_job(&w, &w.set[!cur], next, next_n, prev, prev_n);
		pool_submit(&w.pool, member_io_run, w.set[!cur].io, sizeof(*w.set[!cur].io));
		rc = rebuild_rows(&w, &w.set[cur], row, nrows, d);
		if (collect(&w, &w.set[!cur], rc < 0 ? &(struct diag){ "" } : d) < 0 && rc == 0)
			rc = -1;
		if (rc == 0 && prev_n)
			rc = checkpoint(run, (prev + prev_n) * chunk_s, false, d);
		prev = row;
		prev_n = nrows;
		cur = !cur;
	}
	if (rc == 0 && prev_n) {
		set_job(&w, &w.set[!cur], 0, 0, prev, prev_n);
		pool_submit(&w.pool, member_io_run, w.set[!cur].io, sizeof(*w.set[!cur].io));
		rc = collect(&w, &w.set[!cur], d);
	}
	pool_wait(&w.pool);
	pool_stop(&w.pool);
	walk_free(&w);
	return rc;
}

/* ---- RAID1/10 ---- */

/* Reads len bytes of array sector s from the first present copy that
 * reads; returns the copy used, or -1 when none could be read. */
static int read_copy(struct rebuild_run *run, uint64_t s, uint8_t *buf, size_t len)
{
	struct copy c[ST_MAX_DISKS];
	int nc = layout_locate(&run->a->geo, s, c, NULL), i;
	struct diag why;

	for (i = 0; i < nc; i++) {
		struct member *m = run->a->role[c[i].role];

		if (m && dev_read(&m->dev, buf, len, (m->sb.data_offset + c[i].sector) * 512, &why) == 0)
			return i;
	}
	return -1;
}

/* Fills len bytes of target t at member sector ms from the copies of the
 * array sectors it mirrors; pages no copy can give are logged as bad. */
static int fill_run(struct rebuild_run *run, struct rebuild_target *t, uint64_t ms, uint8_t *buf,
		    size_t len, struct diag *d)
{
	uint64_t s = layout_array_sector(&run->a->geo, t->role, ms);
	size_t off;

	if (s == UINT64_MAX) {
		memset(buf, 0, len);         /* beyond what the copies fill: unused */
		return 0;
	}
	if (read_copy(run, s, buf, len) >= 0)
		return 0;
	for (off = 0; off < len; off += PAGE) {
		struct rebuild_event e = { .nlost = 1, .lost_offset = { (s * 512) + off },
					   .lost_length = { PAGE } };

		if (read_copy(run, s + off / 512, buf + off, PAGE) >= 0)
			continue;
		run->r->read_errors++;
		if (lose_page(run, t, buf + off, ms + off / 512, &e, d) < 0)
			return -1;
	}
	return 0;
}

static int rebuild_copies(struct rebuild_run *run, struct diag *d)
{
	uint64_t win = BATCH_BYTES / 512, chunk = run->a->geo.chunk_sectors, at, ms, len, end;
	uint8_t *buf = dev_alloc(BATCH_BYTES);
	int i, rc = 0;

	for (at = run->start; rc == 0 && at < run->end; at += win) {
		end = at + win < run->end ? at + win : run->end;
		for (i = 0; rc == 0 && i < run->n; i++) {
			struct rebuild_target *t = &run->t[i];

			/* runs never cross a chunk: a raid10 chunk's neighbour
			 * on the member mirrors another part of the array */
			for (ms = at; rc == 0 && ms < end; ms += len) {
				len = chunk ? chunk - ms % chunk : end - ms;
				if (len > end - ms)
					len = end - ms;
				rc = fill_run(run, t, ms, buf + (ms - at) * 512, (size_t)len * 512, d);
			}
			if (rc == 0)
				rc = dev_write(&t->m->dev, buf, (size_t)(end - at) * 512,
					       (t->m->sb.data_offset + at) * 512, d);
		}
		if (rc == 0)
			rc = checkpoint(run, end, false, d);
	}
	free(buf);
	return rc;
}

/* ---- the whole run ---- */

static int plan_run(struct rebuild_run *run, struct diag *d)
{
	const struct geometry *g = &run->a->geo;
	uint64_t align = g->chunk_sectors ? g->chunk_sectors : 8;
	int i;

	run->end = g->level == MD_LEVEL_RAID1 ? g->array_sectors : g->dev_sectors;
	run->start = run->end;
	for (i = 0; i < run->n; i++) {
		struct rebuild_target *t = &run->t[i];

		if (t->role < 0 || t->role >= g->raid_disks || run->target_of[t->role] || run->a->role[t->role])
			return diag_fail(d, "%s: role %d is not one this array can rebuild", t->m->path, t->role);
		run->target_of[t->role] = t;
		if (run->o->restart || t->resume > run->end)
			t->resume = 0;
		t->resume -= t->resume % align;
		if (t->resume < run->start)
			run->start = t->resume;
	}
	for (i = 0; i < run->n; i++)
		run->t[i].resume = run->start;
	return 0;
}

/* The targets are in sync now: the array reads from them like any member. */
static void hold_roles(struct array *a, struct rebuild_target *t, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		t[i].m->state = MEMBER_ACTIVE;
		t[i].m->reason[0] = 0;
		a->role[t[i].role] = t[i].m;
		a->missing--;
	}
	a->state = a->missing ? ARRAY_DEGRADED : ARRAY_CLEAN;
}

int rebuild_array(struct array *a, struct rebuild_target *t, int n,
		  const struct rebuild_options *o, struct rebuild_result *r, struct diag *d)
{
	struct rebuild_run run = { .a = a, .t = t, .n = n, .o = o, .r = r };
	const struct geometry *g = &a->geo;
	int rc;

	memset(r, 0, sizeof(*r));
	if (g->level == MD_LEVEL_RAID0)
		return diag_fail(d, "%s: raid0 has no redundancy to rebuild from", a->members[0].path);
	if (n < 1)
		return diag_fail(d, "nothing to rebuild");
	if (plan_run(&run, d) < 0 || array_check_readable(a, d) < 0)
		return -1;
	r->start = run.start;
	r->end = run.end;
	if (recovery_begin(a, t, n, d) < 0)
		return -1;
	run.last_checkpoint = now_s();
	if (g->level == MD_LEVEL_RAID1 || g->level == MD_LEVEL_RAID10)
		rc = rebuild_copies(&run, d);
	else
		rc = rebuild_parity(&run, d);
	if (rc == 0)
		rc = checkpoint(&run, run.end, true, d);
	if (rc == 0)
		rc = recovery_finish(a, t, n, d);
	if (rc == 0)
		hold_roles(a, t, n);
	return rc;
}

void rebuild_target_free(struct rebuild_target *t)
{
	free(t->bad);
	t->bad = NULL;
	t->nbad = t->capbad = 0;
}
