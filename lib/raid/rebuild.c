/* rebuild: walks the targets' data areas from start to end, as md's
 * recovery does, filling them from the survivors: RAID4/5/6 on the row
 * engine, in lanes that walk segments side by side and commit them in
 * order; RAID1/10 by copying each run from a copy that is present. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "md/badblocks.h"
#include "md/layout.h"
#include "raid/parity.h"
#include "io/memberio.h"
#include "raid/rebuild.h"
#include "raid/rows.h"
#include "md/recovery.h"

#define LANES_MAX REBUILD_JOBS_MAX

struct lane;

struct rebuild_run {
	struct array *a;
	struct rebuild_target *t;
	int n;
	const struct rebuild_options *o;
	struct rebuild_result *r;
	struct rebuild_target *target_of[ST_MAX_DISKS];
	uint64_t start, end;         /* member sectors */
	/* the range being walked (the whole [start, end), or one of the
	 * bitmap's), the sectors walked before it, and all to walk */
	uint64_t lo, hi, copied, total;
	double last_checkpoint;
	/* RAID4/5/6: lanes, each walking every nlanes-th segment of the
	 * member range with the row engine, batch bytes of each member at a
	 * time */
	struct lane *lane;
	int nlanes;
	size_t batch;
	uint64_t segment;            /* member bytes, whole batches and whole rows */
	/* lanes commit batches in order under lock: a batch is committed (its
	 * events told, checkpointed) only after the one below */
	pthread_mutex_t lock;
	pthread_cond_t turn;
	uint64_t committed;          /* member bytes, every batch below on the targets */
	bool failed;                 /* a lane stopped: the others stop too */
	int first_failed;            /* the lane that stopped first */
	/* per role: a survivor's sectors its bad-block log names that were
	 * rewritten from redundancy, in any order (under lock while lanes
	 * run), to be taken out of the log at the end */
	struct rewritten {
		struct bad_range *r;
		int n, cap;
	} rewritten[ST_MAX_DISKS];
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* items (n of them, room for *cap) with room for one more: the same array
 * or a larger copy; NULL when out of memory, items untouched. */
static void *room_for_one(void *items, int n, int *cap, size_t size)
{
	int c = *cap ? 2 * *cap : 16;
	void *p;

	if (n < *cap)
		return items;
	if ((p = realloc(items, (size_t)c * size)))
		*cap = c;
	return p;
}

/* Records a bad range of a target (device sectors), joining it to the last
 * one when they touch, as the bad-block log keeps them. */
static int add_bad(struct rebuild_target *t, uint64_t start, uint64_t len, struct diag *d)
{
	struct bad_range *last = t->nbad ? &t->bad[t->nbad - 1] : NULL, *b;

	if (last && last->start + last->len == start) {
		last->len += len;
		return 0;
	}
	if (!(b = room_for_one(t->bad, t->nbad, &t->capbad, sizeof(*b))))
		return diag_fail(d, "out of memory");
	t->bad = b;
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
		run->o->progress(run->o->ctx, (run->copied + done - run->lo) * 512, run->total * 512);
	if (!force && (t - run->last_checkpoint) * 1000 < ms)
		return 0;
	run->last_checkpoint = t;
	run->r->checkpoints++;
	return recovery_checkpoint(run->a, run->t, run->n, done, d);
}

/* Counts an event, logs a target's lost range as bad, and passes the
 * event on to the caller. */
static int tell(struct rebuild_run *run, const struct rebuild_event *e, struct diag *d)
{
	switch (e->kind) {
	case REBUILD_UNRECOVERABLE:          /* e->role: a target's, as lose_page made it */
		run->r->unrecoverable += e->length;
		if (add_bad(run->target_of[e->role], e->member_offset / 512, e->length / 512, d) < 0)
			return -1;
		break;
	case REBUILD_READ_ERROR:
		run->r->read_errors++;
		break;
	case REBUILD_DISAGREE:
		run->r->disagree++;
		break;
	}
	return report(run, e) < 0 ? diag_fail(d, "stopped by the caller") : 0;
}

/* A target page no redundancy can fill: zeroed, and an event naming it and
 * the array data it takes with it (e's lost ranges) made for the caller. */
static void lose_page(struct rebuild_target *t, uint8_t *page, uint64_t member_sector,
		      struct rebuild_event *e)
{
	memset(page, 0, ROWS_PAGE);
	e->kind = REBUILD_UNRECOVERABLE;
	e->member = t->m;
	e->role = t->role;
	e->member_offset = (t->m->sb.data_offset + member_sector) * 512;
	e->length = ROWS_PAGE;
}

/* ---- a survivor's bad-block log ---- */

/* A survivor's page that its bad-block log names, had from redundancy:
 * written back to it, as md's recovery rewrites what it reads around, and
 * kept to be cleared from the log at the end. */
static int rewrite_survivor(struct rebuild_run *run, int role, const uint8_t *page, uint64_t off,
			    size_t len, struct diag *d)
{
	struct member *m = run->a->role[role];
	struct rewritten *w = &run->rewritten[role];
	struct bad_range *grown;
	int rc = 0;

	/* a member being replaced is retired, not mended */
	if (run->target_of[role] || !dev_logged(&m->dev, off, len))
		return 0;
	if (dev_write(&m->dev, page, len, off, d) < 0)
		return -1;
	/* the lock is the lanes'; a RAID1/10 rebuild runs in one thread */
	if (run->lane)
		pthread_mutex_lock(&run->lock);
	if (!(grown = room_for_one(w->r, w->n, &w->cap, sizeof(*w->r))))
		rc = diag_fail(d, "%s: out of memory for its rewritten bad blocks", m->path);
	else
		(w->r = grown)[w->n++] = (struct bad_range){ off / 512, len / 512 };
	if (run->lane)
		pthread_mutex_unlock(&run->lock);
	return rc;
}

static int by_start(const void *x, const void *y)
{
	const struct bad_range *a = x, *b = y;

	return a->start < b->start ? -1 : a->start > b->start;
}

/* The ranges in order, overlapping and touching ones joined; how many. */
static int join_ranges(struct bad_range *r, int n)
{
	int i, k = 0;

	qsort(r, (size_t)n, sizeof(*r), by_start);
	for (i = 0; i < n; i++) {
		if (k && r[k - 1].start + r[k - 1].len >= r[i].start) {
			uint64_t end = r[i].start + r[i].len;

			if (end > r[k - 1].start + r[k - 1].len)
				r[k - 1].len = end - r[k - 1].start;
			continue;
		}
		r[k++] = r[i];
	}
	return k;
}

/* Once the rebuild is through: what was rewritten on each survivor is on
 * it, and out of its bad-block log. */
static int clear_survivor_logs(struct rebuild_run *run, struct diag *d)
{
	int role, i, n, cleared;

	for (role = 0; role < run->a->geo.raid_disks; role++) {
		struct rewritten *w = &run->rewritten[role];
		struct member *m = run->a->role[role];

		if (!w->n || !m)
			continue;
		n = join_ranges(w->r, w->n);
		for (i = 0; i < n; i++)
			run->r->rewritten += w->r[i].len * 512;
		if (dev_sync(&m->dev, d) < 0 || badblocks_clear(&m->dev, &m->sb, w->r, n, &cleared, d) < 0 ||
		    dev_sync(&m->dev, d) < 0)
			return -1;
		run->r->log_cleared += (uint64_t)cleared;
		for (i = 0; i < n; i++)
			if (dev_unlog(&m->dev, w->r[i].start * 512, w->r[i].len * 512, d) < 0)
				return -1;
	}
	return 0;
}

/* ---- RAID4/5/6 ---- */

/* A lane walks every lanes-th segment of the member range with its own
 * row engine, which mends the targets' blocks (missing in the array while
 * they are rebuilt) and any unreadable page of a survivor from P/Q.  A
 * segment is this many of the engine's batches: each walk starts with a
 * read nothing overlaps, so it is long beside that, and short beside the
 * range, so the lanes share the work. */
#define SEGMENT_SIZE 32

/* An event kept until its batch is committed, so that the caller hears of
 * them in the order of the array, whichever lane met them first. */
struct held_event {
	uint64_t batch;              /* member bytes where its batch starts */
	unsigned seq;                /* the order the lane met it in */
	struct rebuild_event e;
};

/* A target's rebuilt bytes of the batch being visited, not yet written:
 * the pieces of a batch lie one after the other in the engine's buffers,
 * so a batch goes out in one write per target. */
struct target_out {
	const uint8_t *buf;
	uint64_t pos;                /* member bytes */
	size_t len;
};

struct lane {
	struct rebuild_run *run;
	int index;
	size_t chunk;
	size_t batch;                /* member bytes the engine reads of each member at a time */
	int nmissing;                /* roles the array lacks: the targets and any others */
	struct rows_engine engine;   /* kept from one segment to the next */
	/* under run->lock: the segment walked, [seg_from, done) on the targets */
	uint64_t seg_from, seg_to, done;
	struct target_out out[ST_MAX_DISKS];    /* per target, as run->t */
	uint8_t *zero, *pq[2];       /* a batch each: zeroes; scratch P and Q for verifying */
	/* under run->lock: events of batches not yet committed */
	struct held_event *held;
	int nheld, capheld;
	unsigned seq;
	struct diag d;
	pthread_t th;
};

/* Keeps an event of the batch at member bytes batch for its commit. */
static int hold(struct lane *l, uint64_t batch, const struct rebuild_event *e, struct diag *d)
{
	struct rebuild_run *run = l->run;
	struct held_event *h;
	int rc = 0;

	pthread_mutex_lock(&run->lock);
	if ((h = room_for_one(l->held, l->nheld, &l->capheld, sizeof(*h)))) {
		l->held = h;
		l->held[l->nheld++] = (struct held_event){ batch, l->seq++, *e };
	} else {
		rc = diag_fail(d, "out of memory");
	}
	pthread_mutex_unlock(&run->lock);
	return rc;
}

/* A batch's events in the order they have always been told in: its
 * survivors' read errors first, a member at a time, then what its pieces
 * met, in the order met. */
static int held_order(const void *x, const void *y)
{
	const struct held_event *a = x, *b = y;
	int ca = a->e.kind != REBUILD_READ_ERROR, cb = b->e.kind != REBUILD_READ_ERROR;

	if (a->batch != b->batch)
		return a->batch < b->batch ? -1 : 1;
	if (ca != cb)
		return ca - cb;
	if (!ca && a->e.role != b->e.role)
		return a->e.role - b->e.role;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* Tells, in order, the lane's events of batches below upto, and forgets
 * them.  Called under run->lock. */
static int tell_held(struct lane *l, uint64_t upto, struct diag *d)
{
	int i, k = 0, rc = 0;

	if (!l->nheld)
		return 0;
	qsort(l->held, (size_t)l->nheld, sizeof(*l->held), held_order);
	for (i = 0; i < l->nheld; i++) {
		if (l->held[i].batch >= upto)
			l->held[k++] = l->held[i];
		else if (rc == 0)
			rc = tell(l->run, &l->held[i].e, d);
	}
	l->nheld = k;
	return rc;
}

/* The lane walking the segment that holds member byte pos, if any. */
static struct lane *owner(struct rebuild_run *run, uint64_t pos)
{
	int k;

	for (k = 0; k < run->nlanes; k++)
		if (run->lane[k].seg_from <= pos && pos < run->lane[k].seg_to)
			return &run->lane[k];
	return NULL;
}

/* Moves committed up over every batch now on the targets, telling their
 * events and checkpointing.  Called under run->lock. */
static int advance(struct rebuild_run *run, struct diag *d)
{
	struct lane *l;

	while ((l = owner(run, run->committed)) && l->done > run->committed) {
		if (tell_held(l, l->done, d) < 0)
			return -1;
		run->committed = l->done;
		if (checkpoint(run, run->committed / 512, false, d) < 0)
			return -1;
	}
	return 0;
}

/* The lane's batches below done are on its targets. */
static int commit(struct lane *l, uint64_t done, struct diag *d)
{
	struct rebuild_run *run = l->run;
	int rc;

	pthread_mutex_lock(&run->lock);
	l->done = done;
	rc = run->failed ? diag_fail(d, "stopped: another lane failed") : advance(run, d);
	pthread_cond_broadcast(&run->turn);
	pthread_mutex_unlock(&run->lock);
	return rc;
}

/* Waits until everything below to is committed: only then may the lane
 * take another segment. */
static int wait_committed(struct lane *l, uint64_t to, struct diag *d)
{
	struct rebuild_run *run = l->run;
	int rc = 0;

	pthread_mutex_lock(&run->lock);
	while (run->committed < to && !run->failed)
		pthread_cond_wait(&run->turn, &run->lock);
	if (run->committed < to)
		rc = diag_fail(d, "stopped: another lane failed");
	pthread_mutex_unlock(&run->lock);
	return rc;
}

/* Stops every lane; the first to fail is the one whose message counts. */
static void lane_fail(struct lane *l)
{
	pthread_mutex_lock(&l->run->lock);
	if (!l->run->failed)
		l->run->first_failed = l->index;
	l->run->failed = true;
	pthread_cond_broadcast(&l->run->turn);
	pthread_mutex_unlock(&l->run->lock);
}

/* Array bytes of the data block of role at byte off of a piece, if the
 * role holds data in that row. */
static void note_lost_data(const struct rows_piece *p, size_t chunk, size_t off, int role,
			   struct rebuild_event *e)
{
	const struct stripe_map *m = p->map;
	int i;

	for (i = 0; i < m->data_disks; i++) {
		if (m->data[i] != role)
			continue;
		e->lost_offset[e->nlost] = (p->row * (uint64_t)m->data_disks + (uint64_t)i) * chunk + p->at + off;
		e->lost_length[e->nlost++] = ROWS_PAGE;
	}
}

/* The pages of the piece a survivor could not read: one event each. */
static int note_read_errors(struct lane *l, const struct rows_piece *p, uint64_t pos, uint64_t batch,
			    struct diag *d)
{
	struct array *a = l->run->a;
	size_t pg, pages = p->len / ROWS_PAGE;
	int i;

	for (i = 0; i < a->geo.raid_disks; i++) {
		struct rebuild_event e = { .kind = REBUILD_READ_ERROR, .member = a->role[i], .role = i,
					   .length = ROWS_PAGE };

		for (pg = 0; a->role[i] && pg < pages; pg++) {
			if (!p->lost[i][pg])
				continue;
			e.member_offset = a->role[i]->sb.data_offset * 512 + pos + pg * ROWS_PAGE;
			if (hold(l, batch, &e, d) < 0)
				return -1;
		}
	}
	return 0;
}

/* The piece's pages of survivors that their logs name, mended from the
 * rest of the row where it had enough: rewritten on them. */
static int rewrite_logged(struct lane *l, const struct rows_piece *p, uint64_t pos, struct diag *d)
{
	struct array *a = l->run->a;
	size_t pg, pages = p->len / ROWS_PAGE;
	int i;

	for (i = 0; i < a->geo.raid_disks; i++) {
		const struct member *m = a->role[i];

		for (pg = 0; m && m->dev.nlogged && pg < pages; pg++) {
			if (!p->lost[i][pg] || (p->nbeyond && p->beyond[pg]))
				continue;
			if (rewrite_survivor(l->run, i, p->block[i] + pg * ROWS_PAGE,
					     m->sb.data_offset * 512 + pos + pg * ROWS_PAGE, ROWS_PAGE, d) < 0)
				return -1;
		}
	}
	return 0;
}

static bool piece_has_read_errors(const struct lane *l, const struct rows_piece *p)
{
	struct array *a = l->run->a;
	size_t pg, pages = p->len / ROWS_PAGE;
	int i;

	for (i = 0; i < a->geo.raid_disks; i++)
		for (pg = 0; a->role[i] && pg < pages; pg++)
			if (p->lost[i][pg])
				return true;
	return false;
}

/* The pages of the piece more was lost in than the level rebuilds: zeroed
 * on the targets and logged as bad there, with the array data lost. */
static int lose_beyond(struct lane *l, const struct rows_piece *p, uint64_t pos, uint64_t batch,
		       struct diag *d)
{
	struct rebuild_run *run = l->run;
	size_t pg, pages = p->len / ROWS_PAGE;
	int i;

	for (pg = 0; pg < pages; pg++) {
		struct rebuild_event e = { 0 };

		if (!p->beyond[pg])
			continue;
		for (i = 0; i < run->a->geo.raid_disks; i++)
			if (p->lost[i][pg])
				note_lost_data(p, l->chunk, pg * ROWS_PAGE, i, &e);
		for (i = 0; i < run->a->geo.raid_disks; i++) {
			struct rebuild_target *t = run->target_of[i];

			if (!t || !p->lost[i][pg])
				continue;
			lose_page(t, p->block[i] + pg * ROWS_PAGE, (pos + pg * ROWS_PAGE) / 512, &e);
			if (hold(l, batch, &e, d) < 0)
				return -1;
		}
	}
	return 0;
}

/* RAID6 with one block rebuilt still has Q (or P) to spare: recompute both
 * and report each page where the survivors disagree with them. */
static int verify_piece(struct lane *l, const struct rows_piece *p, uint64_t pos, uint64_t batch,
			struct diag *d)
{
	void *blocks[ST_MAX_DISKS + 2];
	int nd = layout_row_blocks(p->map, p->block, 0, l->zero, blocks), i;
	const uint8_t *pp = blocks[nd], *qq = blocks[nd + 1];
	const struct member *pm = l->run->a->role[p->map->pd];
	size_t off;

	blocks[nd] = l->pq[0];
	blocks[nd + 1] = l->pq[1];
	parity_gen_pq(nd, p->len, blocks);
	for (off = 0; off < p->len; off += ROWS_PAGE) {
		struct rebuild_event e = { .kind = REBUILD_DISAGREE, .role = p->map->pd, .member = pm,
					   .length = ROWS_PAGE };

		if (!memcmp(l->pq[0] + off, pp + off, ROWS_PAGE) && !memcmp(l->pq[1] + off, qq + off, ROWS_PAGE))
			continue;
		e.member_offset = (pm ? pm->sb.data_offset * 512 : 0) + pos + off;
		for (i = 0; i < p->map->data_disks; i++)
			note_lost_data(p, l->chunk, off, p->map->data[i], &e);
		if (hold(l, batch, &e, d) < 0)
			return -1;
	}
	return 0;
}

static int write_out(struct lane *l, int i, struct diag *d)
{
	struct target_out *o = &l->out[i];
	struct member *m = l->run->t[i].m;
	int rc = o->len ? dev_write(&m->dev, o->buf, o->len, m->sb.data_offset * 512 + o->pos, d) : 0;

	o->len = 0;
	return rc;
}

/* Whether bytes at buf for member byte pos carry on where o ends. */
static bool follows(const struct target_out *o, const uint8_t *buf, uint64_t pos)
{
	return o->buf + o->len == buf && o->pos + o->len == pos;
}

/* Adds the piece's rebuilt blocks to what each target is to be written. */
static int queue_out(struct lane *l, const struct rows_piece *p, uint64_t pos, struct diag *d)
{
	int i;

	for (i = 0; i < l->run->n; i++) {
		struct target_out *o = &l->out[i];
		const uint8_t *buf = p->block[l->run->t[i].role];

		if (o->len && !follows(o, buf, pos) && write_out(l, i, d) < 0)
			return -1;
		if (!o->len) {
			o->buf = buf;
			o->pos = pos;
		}
		o->len += p->len;
	}
	return 0;
}

/* The row engine's visit: the piece's target blocks are rebuilt; what it
 * met is held for the caller, and at the end of a batch the targets are
 * written and the batch committed, before the engine reads into its
 * buffers again. */
static int rebuild_piece(void *ctx, struct rows_piece *p, struct diag *d)
{
	struct lane *l = ctx;
	uint64_t pos = p->row * l->chunk + p->at, batch = p->batch;
	int i;

	if (note_read_errors(l, p, pos, batch, d) < 0)
		return -1;
	if (p->nbeyond && lose_beyond(l, p, pos, batch, d) < 0)
		return -1;
	if (p->map->qd >= 0 && l->nmissing == 1 && !piece_has_read_errors(l, p) &&
	    verify_piece(l, p, pos, batch, d) < 0)
		return -1;
	if (rewrite_logged(l, p, pos, d) < 0 || queue_out(l, p, pos, d) < 0)
		return -1;
	if (!p->last)
		return 0;
	for (i = 0; i < l->run->n; i++)
		if (write_out(l, i, d) < 0)
			return -1;
	return commit(l, pos + p->len, d);
}

/* Walks the lane's segments: every lanes-th, from its own index on. */
static void *lane_run(void *arg)
{
	struct lane *l = arg;
	struct rebuild_run *run = l->run;
	uint64_t last = run->hi * 512, step = (uint64_t)run->nlanes * run->segment, from;
	int rc = 0;

	for (from = run->lo * 512 + (uint64_t)l->index * run->segment; rc == 0 && from < last; from += step) {
		struct rows_walk w = { .a = run->a, .from = from,
				       .to = last - from < run->segment ? last : from + run->segment,
				       .mend = true, .visit = rebuild_piece, .ctx = l };

		pthread_mutex_lock(&run->lock);
		l->seg_from = l->done = w.from;
		l->seg_to = w.to;
		pthread_mutex_unlock(&run->lock);
		rc = rows_engine_walk(&l->engine, &w, &l->d);
		if (rc == 0)
			rc = wait_committed(l, w.to, &l->d);
	}
	if (rc < 0)
		lane_fail(l);
	return NULL;
}

static int missing_roles(const struct array *a)
{
	int i, n = 0;

	for (i = 0; i < a->geo.raid_disks; i++)
		n += !a->role[i];
	return n;
}

/* -1 when its buffers could not be made; its engine is started either
 * way, so that lane_free can stop it. */
static int lane_init(struct lane *l, struct rebuild_run *run, int index, int workers)
{
	l->run = run;
	l->index = index;
	l->chunk = (size_t)run->a->geo.chunk_sectors * 512;
	l->batch = run->batch;
	l->nmissing = missing_roles(run->a);
	rows_engine_start(&l->engine, run->a, l->batch, workers);
	l->zero = dev_alloc(l->batch);
	l->pq[0] = dev_alloc(l->batch);
	l->pq[1] = dev_alloc(l->batch);
	if (!l->zero || !l->pq[0] || !l->pq[1])
		return -1;
	memset(l->zero, 0, l->batch);
	return 0;
}

static void lane_free(struct lane *l)
{
	rows_engine_stop(&l->engine);
	free(l->zero);
	free(l->pq[0]);
	free(l->pq[1]);
	free(l->held);
}

/* Lanes keep every CPU busy: one lane's engine reads while another's does
 * the math.  As many as the caller asks for or there are CPUs, their
 * batches sized from their shares of the one memory budget; then no more
 * lanes than segments. */
static void plan_lanes(struct rebuild_run *run)
{
	size_t chunk = (size_t)run->a->geo.chunk_sectors * 512;
	uint64_t range = (run->hi - run->lo) * 512, segments;
	int n = run->o->jobs > 0 ? run->o->jobs : pool_cpus();

	if (n > LANES_MAX)
		n = LANES_MAX;
	run->batch = rows_batch_bytes(run->a->geo.raid_disks, chunk, ROWS_BUDGET / (unsigned)n);
	/* members shorter than a batch need no more, in whole chunks */
	if (run->batch >= chunk && range < run->batch)
		run->batch = (size_t)((range + chunk - 1) / chunk * chunk);
	run->segment = (uint64_t)SEGMENT_SIZE * (run->batch > chunk ? run->batch : chunk);
	segments = (range + run->segment - 1) / run->segment;
	run->nlanes = (uint64_t)n > segments ? (segments ? (int)segments : 1) : n;
}

/* Runs lanes lanes, the caller's thread the first; *no_threads when the
 * others could not be started (then nothing is committed: the first
 * segment is the caller's). */
static int run_lanes(struct rebuild_run *run, int lanes, bool *no_threads, struct diag *d)
{
	struct lane *l = calloc((size_t)lanes, sizeof(*l));
	int started, k, rc = 0, err, cpus = pool_cpus();

	if (!l)
		return diag_fail(d, "out of memory");
	run->nlanes = lanes;
	run->lane = l;
	run->committed = run->lo * 512;
	run->failed = false;
	for (k = 0; k < lanes; k++)
		if (lane_init(&l[k], run, k, rows_io_workers(run->a, (cpus + lanes - 1) / lanes)) < 0 && rc == 0)
			rc = diag_fail(d, "out of memory (%zu bytes) for the buffers of rebuild lane %d",
				       3 * run->batch, k + 1);
	pthread_mutex_init(&run->lock, NULL);
	pthread_cond_init(&run->turn, NULL);
	for (started = 1; rc == 0 && started < lanes; started++) {
		err = pthread_create(&l[started].th, NULL, lane_run, &l[started]);
		if (err) {
			rc = diag_fail(d, "cannot start the rebuild's threads: %s", strerror(err));
			*no_threads = true;
			lane_fail(&l[0]);
			break;
		}
	}
	if (rc == 0)
		lane_run(&l[0]);
	for (k = 1; k < started; k++)
		pthread_join(l[k].th, NULL);
	if (rc == 0 && run->failed) {
		*d = l[run->first_failed].d;
		rc = -1;
	}
	for (k = 0; k < lanes; k++)
		lane_free(&l[k]);
	free(l);
	run->lane = NULL;
	pthread_cond_destroy(&run->turn);
	pthread_mutex_destroy(&run->lock);
	return rc;
}

static int rebuild_parity(struct rebuild_run *run, struct diag *d)
{
	bool no_threads = false;
	int rc;

	plan_lanes(run);
	rc = run_lanes(run, run->nlanes, &no_threads, d);
	if (rc < 0 && no_threads)
		rc = run_lanes(run, 1, &no_threads, d);
	return rc;
}

/* ---- RAID1/10 ---- */

/* Reads len bytes of array sector s from the first present copy that
 * reads; returns the copy used, or -1 when none could be read.  The
 * copies before it that their logs name get its bytes. */
static int read_copy(struct rebuild_run *run, uint64_t s, uint8_t *buf, size_t len, struct diag *d)
{
	struct copy c[ST_MAX_DISKS];
	int nc = layout_locate(&run->a->geo, s, c, NULL), i, k;

	for (i = 0; i < nc; i++) {
		struct member *m = run->a->role[c[i].role];

		if (m && member_read(&m->dev, buf, len, (m->sb.data_offset + c[i].sector) * 512, NULL) == 0)
			break;
	}
	for (k = 0; i < nc && k < i; k++) {
		struct member *m = run->a->role[c[k].role];
		size_t off;

		for (off = 0; m && off < len; off += ROWS_PAGE)
			if (rewrite_survivor(run, c[k].role, buf + off, (m->sb.data_offset + c[k].sector) * 512 + off,
					     len - off < ROWS_PAGE ? len - off : ROWS_PAGE, d) < 0)
				return -2;
	}
	return i < nc ? i : -1;
}

/* Fills len bytes of target t at member sector ms from the copies of the
 * array sectors it mirrors; pages no copy can give are logged as bad. */
static int fill_run(struct rebuild_run *run, struct rebuild_target *t, uint64_t ms, uint8_t *buf,
		    size_t len, struct diag *d)
{
	uint64_t s = layout_array_sector(&run->a->geo, t->role, ms);
	size_t off;
	int used;

	if (s == UINT64_MAX) {
		memset(buf, 0, len);         /* beyond what the copies fill: unused */
		return 0;
	}
	if ((used = read_copy(run, s, buf, len, d)) >= 0)
		return 0;
	for (off = 0; used == -1 && off < len; off += ROWS_PAGE) {
		struct rebuild_event e = { .nlost = 1, .lost_offset = { (s * 512) + off },
					   .lost_length = { ROWS_PAGE } };

		if ((used = read_copy(run, s + off / 512, buf + off, ROWS_PAGE, d)) >= 0) {
			used = -1;
			continue;
		}
		if (used < -1)
			break;
		run->r->read_errors++;
		lose_page(t, buf + off, ms + off / 512, &e);
		if (tell(run, &e, d) < 0)
			return -1;
	}
	return used < -1 ? -1 : 0;
}

static int rebuild_copies(struct rebuild_run *run, struct diag *d)
{
	uint64_t win = ROWS_MEMBER_MAX / 512, chunk = run->a->geo.chunk_sectors, at, ms, len, end;
	uint8_t *buf;
	int i, rc = 0;

	if (run->hi - run->lo < win)
		win = run->hi - run->lo;
	if (!(buf = dev_alloc(win * 512)))
		return diag_fail(d, "out of memory (%llu bytes) for the rebuild's copy buffer",
				 (unsigned long long)win * 512);
	for (at = run->lo; rc == 0 && at < run->hi; at += win) {
		end = at + win < run->hi ? at + win : run->hi;
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

uint64_t rebuild_ranges_within(const struct rebuild_range *r, int n, uint64_t from, uint64_t to)
{
	uint64_t sum = 0, lo, hi;
	int i;

	for (i = 0; i < n; i++) {
		lo = r[i].start > from ? r[i].start : from;
		hi = r[i].end < to ? r[i].end : to;
		sum += hi > lo ? hi - lo : 0;
	}
	return sum;
}

/* Walks each range to rebuild, in order: the whole [start, end), or what
 * of the caller's ranges lies in it.  A range skipped is in sync on the
 * targets already, so the checkpoints after it may record past it. */
static int walk_ranges(struct rebuild_run *run, struct diag *d)
{
	const struct rebuild_range whole = { run->start, run->end };
	const struct rebuild_range *r = run->o->only ? run->o->only : &whole;
	int n = run->o->only ? run->o->nonly : 1, i, rc = 0;
	bool copies = run->a->geo.level == MD_LEVEL_RAID1 || run->a->geo.level == MD_LEVEL_RAID10;

	run->total = rebuild_ranges_within(r, n, run->start, run->end);
	for (i = 0; rc == 0 && i < n; i++) {
		run->lo = r[i].start > run->start ? r[i].start : run->start;
		run->hi = r[i].end < run->end ? r[i].end : run->end;
		if (run->lo >= run->hi)
			continue;
		rc = copies ? rebuild_copies(run, d) : rebuild_parity(run, d);
		run->copied += run->hi - run->lo;
	}
	run->r->copied = run->copied;
	return rc;
}

static int plan_run(struct rebuild_run *run, struct diag *d)
{
	const struct geometry *g = &run->a->geo;
	uint64_t align = g->chunk_sectors ? g->chunk_sectors : 8;
	int i;

	run->end = g->level == MD_LEVEL_RAID1 ? g->array_sectors : g->dev_sectors;
	run->start = run->end;
	for (i = 0; i < run->n; i++) {
		struct rebuild_target *t = &run->t[i];

		if (t->role < 0 || t->role >= g->raid_disks || run->target_of[t->role] ||
		    run->a->role[t->role] != t->replaces)
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

/* The targets are in sync now: the array reads from them like any member,
 * and no longer from a member one replaced. */
static void hold_roles(struct array *a, struct rebuild_target *t, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		t[i].m->state = MEMBER_ACTIVE;
		t[i].m->reason[0] = 0;
		a->role[t[i].role] = t[i].m;
		if (t[i].replaces) {
			t[i].replaces->state = MEMBER_FAULTY;
			snprintf(t[i].replaces->reason, sizeof(t[i].replaces->reason),
				 "faulty: replaced by %s", t[i].m->path);
		} else {
			a->missing--;
		}
	}
	a->state = a->missing ? ARRAY_DEGRADED : ARRAY_CLEAN;
}

int rebuild_array(struct array *a, struct rebuild_target *t, int n,
		  const struct rebuild_options *o, struct rebuild_result *r, struct diag *d)
{
	struct rebuild_run run = { .a = a, .t = t, .n = n, .o = o, .r = r };
	const struct geometry *g = &a->geo;
	int rc, i;

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
	rc = walk_ranges(&run, d);
	if (rc == 0) {
		run.lo = run.hi = run.end;
		rc = checkpoint(&run, run.end, true, d);
	}
	if (rc == 0)
		rc = clear_survivor_logs(&run, d);
	for (i = 0; i < ST_MAX_DISKS; i++)
		free(run.rewritten[i].r);
	if (rc == 0)
		rc = recovery_finish(a, t, n, d);
	if (rc == 0)
		hold_roles(a, t, n);
	return rc;
}
