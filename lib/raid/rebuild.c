/* rebuild: walks the targets' data areas from start to end, as md's
 * recovery does, filling them from the survivors: RAID4/5/6 a batch of
 * stripe rows at a time, in lanes that take turns, each with its members'
 * I/O in parallel; RAID1/10 by copying each run from a copy that is present. */
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "md/layout.h"
#include "io/memberio.h"
#include "raid/parity.h"
#include "io/pool.h"
#include "raid/rebuild.h"
#include "raid/rows.h"
#include "md/recovery.h"

#define LANES_MAX REBUILD_JOBS_MAX
#define LANE_MEMORY (48u << 20)      /* what every lane's buffers may take together */

struct rebuild_run {
	struct array *a;
	struct rebuild_target *t;
	int n;
	const struct rebuild_options *o;
	struct rebuild_result *r;
	struct rebuild_target *target_of[ST_MAX_DISKS];
	uint64_t start, end;         /* member sectors */
	double last_checkpoint;
	/* RAID4/5/6 lanes hand over batches in order under lock: a batch is
	 * committed (its events told, checkpointed) only after the one below */
	pthread_mutex_t lock;
	pthread_cond_t turn;
	uint64_t committed;          /* member bytes, every batch below on the targets */
	bool failed;                 /* a lane stopped: the others stop too */
	int first_failed;            /* the lane that stopped first */
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
		run->o->progress(run->o->ctx, (done - run->start) * 512, (run->end - run->start) * 512);
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

/* ---- RAID4/5/6 ---- */

/* One of a lane's two buffer sets: its workers fill (survivors) or drain
 * (targets) one while the lane rebuilds the other.  A batch is a range
 * of member bytes, the same on every member: whole rows when chunks are
 * small, a slice of one row when they are large, so that the buffers stay
 * in the CPU's caches between the copy from the page cache and the math. */
struct slab_set {
	uint8_t **buf;               /* per role: batch bytes */
	bool *bad;                   /* per role: a flag per page, unreadable */
	bool any_bad;
	uint64_t rpos;               /* member bytes where the survivors' batch starts */
	struct member_io *io;        /* per role */
};

/* An event kept until its batch is committed, so that the caller hears of
 * them in the order of the array, whichever lane met them first. */
struct held_event {
	uint64_t batch;              /* member bytes where its batch starts */
	struct rebuild_event e;
};

/* One lane: it rebuilds every lanes-th batch, starting with its own
 * index, through its own buffers and workers. */
struct parity_walk {
	struct rebuild_run *run;
	int lane, lanes;
	int workers;                 /* per lane */
	size_t chunk;
	size_t batch;                /* member bytes per batch */
	size_t pages;                /* per role and batch */
	int ndisks;
	uint8_t *arena;              /* every buffer below */
	uint8_t *zero, *pq[2];       /* zeroes; scratch P and Q for verifying */
	struct slab_set set[2];
	struct pool pool;
	struct held_event *held;
	int nheld, capheld;
	struct diag d;
	pthread_t th;
};

/* Where a piece of a batch lies: its stripe row, its offset in the chunk,
 * and the row's placement. */
struct piece {
	uint64_t row;
	size_t in_chunk;             /* bytes from the start of the chunk */
	size_t at;                   /* bytes from the start of the batch */
	size_t len;
	struct stripe_map map;
};

static void walk_free(struct parity_walk *w)
{
	int s;

	for (s = 0; s < 2; s++) {
		free(w->set[s].buf);
		free(w->set[s].bad);
		free(w->set[s].io);
	}
	free(w->held);
	free(w->arena);
}

/* The row engine's batch: a part of a chunk where members are many, so a
 * lane's memory stays within the budget whatever the member count. */
static size_t walk_batch(const struct rebuild_run *run)
{
	return rows_batch_bytes(run->a->geo.raid_disks, (size_t)run->a->geo.chunk_sectors * 512, ROWS_BUDGET);
}

static size_t walk_arena_bytes(const struct rebuild_run *run)
{
	return (2 * (size_t)run->a->geo.raid_disks + 3) * walk_batch(run);
}

/* Every buffer is carved from one arena: two sets of a batch per role,
 * zeroes, and scratch P and Q. */
static int walk_alloc(struct parity_walk *w, struct rebuild_run *run, struct diag *d)
{
	uint8_t *at;
	int s, i;

	w->run = run;
	w->ndisks = run->a->geo.raid_disks;
	w->chunk = (size_t)run->a->geo.chunk_sectors * 512;
	w->batch = walk_batch(run);
	w->pages = w->batch / ROWS_PAGE;
	at = w->arena = dev_alloc_huge(walk_arena_bytes(run));
	for (s = 0; s < 2; s++) {
		struct slab_set *ss = &w->set[s];

		ss->buf = calloc((size_t)w->ndisks, sizeof(*ss->buf));
		ss->bad = calloc((size_t)w->ndisks * w->pages, sizeof(*ss->bad));
		ss->io = calloc((size_t)w->ndisks, sizeof(*ss->io));
		if (!ss->buf || !ss->bad || !ss->io)
			return diag_fail(d, "out of memory");
		for (i = 0; i < w->ndisks; i++, at += w->batch)
			ss->buf[i] = at;
	}
	w->zero = at;
	memset(w->zero, 0, w->batch);
	w->pq[0] = at + w->batch;
	w->pq[1] = at + 2 * w->batch;
	return 0;
}

/* Sets up a job on ss: survivors read member bytes [rpos, rpos + rlen),
 * targets write [wpos, wpos + wlen); either length may be 0. */
static void set_job(struct parity_walk *w, struct slab_set *ss, uint64_t rpos, size_t rlen,
		    uint64_t wpos, size_t wlen)
{
	struct array *a = w->run->a;
	int i;

	for (i = 0; i < w->ndisks; i++) {
		struct member *sv = a->role[i], *tg = w->run->target_of[i] ? w->run->target_of[i]->m : NULL;
		struct member *m = sv && rlen ? sv : tg && wlen ? tg : NULL;

		ss->io[i] = (struct member_io){ .dev = m ? &m->dev : NULL, .buf = ss->buf[i],
						.len = sv ? rlen : wlen, .write = m && m == tg,
						.off = m ? m->sb.data_offset * 512 + (sv ? rpos : wpos) : 0 };
	}
	if (rlen) {
		memset(ss->bad, 0, (size_t)w->ndisks * w->pages);
		ss->any_bad = false;
		ss->rpos = rpos;
	}
}

/* Keeps an event of the batch at member bytes batch for its commit. */
static int hold(struct parity_walk *w, uint64_t batch, const struct rebuild_event *e, struct diag *d)
{
	struct held_event *h = room_for_one(w->held, w->nheld, &w->capheld, sizeof(*h));

	if (!h)
		return diag_fail(d, "out of memory");
	w->held = h;
	w->held[w->nheld++] = (struct held_event){ batch, *e };
	return 0;
}

/* A survivor's batch read failed: read it again a page at a time and mark
 * the pages that fail, so the rest can still be used. */
static int read_pages(struct parity_walk *w, struct slab_set *ss, int role, struct diag *d)
{
	struct member_io *io = &ss->io[role];
	size_t p, np = io->len / ROWS_PAGE;
	struct rebuild_event e = { .kind = REBUILD_READ_ERROR, .member = w->run->a->role[role],
				   .role = role };
	struct diag why;

	for (p = 0; p < np; p++) {
		if (dev_read(io->dev, (uint8_t *)io->buf + p * ROWS_PAGE, ROWS_PAGE, io->off + p * ROWS_PAGE, &why) == 0)
			continue;
		ss->bad[(size_t)role * w->pages + p] = true;
		ss->any_bad = true;
		e.member_offset = io->off + p * ROWS_PAGE;
		e.length = ROWS_PAGE;
		if (hold(w, ss->rpos, &e, d) < 0)
			return -1;
	}
	return 0;
}

static int collect(struct parity_walk *w, struct slab_set *ss, struct diag *d)
{
	int i;

	pool_wait(&w->pool);
	for (i = 0; i < w->ndisks; i++) {
		struct member_io *io = &ss->io[i];

		if (!io->dev || io->rc == 0)
			continue;
		if (io->write) {
			*d = io->d;
			return -1;
		}
		if (read_pages(w, ss, i, d) < 0)
			return -1;
	}
	return 0;
}

/* The blocks of a piece, at byte off within it, in parity_recover's order. */
static int piece_blocks(struct parity_walk *w, struct slab_set *ss, const struct piece *pc,
			size_t off, void **blocks)
{
	return layout_row_blocks(&pc->map, ss->buf, pc->at + off, w->zero, blocks);
}

/* Array bytes of the data block of role at byte off of a piece, if the
 * role holds data in that row. */
static void note_lost_data(const struct piece *pc, size_t chunk, size_t off, int role,
			   struct rebuild_event *e)
{
	const struct stripe_map *m = &pc->map;
	int i;

	for (i = 0; i < m->data_disks; i++) {
		if (m->data[i] != role)
			continue;
		e->lost_offset[e->nlost] = (pc->row * (uint64_t)m->data_disks + (uint64_t)i) * chunk +
					   pc->in_chunk + off;
		e->lost_length[e->nlost++] = ROWS_PAGE;
	}
}

/* RAID6 with one block rebuilt still has Q (or P) to spare: recompute both
 * and report each page where the survivors disagree with them. */
static int verify_piece(struct parity_walk *w, struct slab_set *ss, const struct piece *pc,
			uint64_t pos, struct diag *d)
{
	void *blocks[ST_MAX_DISKS + 2];
	int nd = piece_blocks(w, ss, pc, 0, blocks), i;
	uint8_t *p = blocks[nd], *q = blocks[nd + 1];
	size_t off;

	blocks[nd] = w->pq[0];
	blocks[nd + 1] = w->pq[1];
	parity_gen_pq(nd, pc->len, blocks);
	for (off = 0; off < pc->len; off += ROWS_PAGE) {
		const struct member *pm = w->run->a->role[pc->map.pd];
		struct rebuild_event e = { .kind = REBUILD_DISAGREE, .role = pc->map.pd, .member = pm,
					   .length = ROWS_PAGE };

		if (!memcmp(w->pq[0] + off, p + off, ROWS_PAGE) && !memcmp(w->pq[1] + off, q + off, ROWS_PAGE))
			continue;
		e.member_offset = (pm ? pm->sb.data_offset * 512 : 0) + pos + pc->at + off;
		for (i = 0; i < pc->map.data_disks; i++)
			note_lost_data(pc, w->chunk, off, pc->map.data[i], &e);
		if (hold(w, pos, &e, d) < 0)
			return -1;
	}
	return 0;
}

/* Roles whose blocks must be computed in a piece: the targets and roles
 * with neither a survivor nor a target; plus, for one page (its index in
 * the batch, or -1 for none), the survivors that could not read it. */
static int lost_blocks(struct parity_walk *w, struct slab_set *ss, const struct stripe_map *m,
		       size_t page, int *missing, int *roles)
{
	struct array *a = w->run->a;
	int q = m->qd >= 0, n = 0, i, k;

	for (i = 0; i < w->ndisks; i++) {
		bool lost = !a->role[i] || (page != (size_t)-1 && ss->bad[(size_t)i * w->pages + page]);

		k = layout_block_index(m, i, q);
		if (lost && k >= 0) {
			roles[n] = i;
			missing[n++] = k;
		}
	}
	return n;
}

/* Slow path for a piece with unreadable pages: page by page, rebuild what
 * redundancy allows and log the rest as bad on the targets. */
static int rebuild_piece_pages(struct parity_walk *w, struct slab_set *ss, const struct piece *pc,
			       uint64_t pos, struct diag *d)
{
	int q = pc->map.qd >= 0, missing[ST_MAX_DISKS], roles[ST_MAX_DISKS], nmiss, i;
	void *blocks[ST_MAX_DISKS + 2];
	size_t off;

	for (off = 0; off < pc->len; off += ROWS_PAGE) {
		struct rebuild_event e = { 0 };

		nmiss = lost_blocks(w, ss, &pc->map, (pc->at + off) / ROWS_PAGE, missing, roles);
		piece_blocks(w, ss, pc, off, blocks);
		if (nmiss <= (q ? 2 : 1)) {
			if (nmiss && parity_recover(q ? pc->map.syndrome_disks : pc->map.data_disks, q, ROWS_PAGE,
						    blocks, missing, nmiss) < 0)
				return diag_fail(d, "cannot rebuild row %llu", (unsigned long long)pc->row);
			continue;
		}
		for (i = 0; i < nmiss; i++)
			note_lost_data(pc, w->chunk, off, roles[i], &e);
		for (i = 0; i < nmiss; i++) {
			struct rebuild_target *t = w->run->target_of[roles[i]];

			if (!t)
				continue;
			lose_page(t, ss->buf[roles[i]] + pc->at + off, (pos + pc->at + off) / 512, &e);
			if (hold(w, pos, &e, d) < 0)
				return -1;
		}
	}
	return 0;
}

static bool piece_has_bad(struct parity_walk *w, struct slab_set *ss, const struct piece *pc)
{
	size_t p;
	int i;

	for (i = 0; ss->any_bad && i < w->ndisks; i++)
		for (p = pc->at / ROWS_PAGE; p < (pc->at + pc->len) / ROWS_PAGE; p++)
			if (ss->bad[(size_t)i * w->pages + p])
				return true;
	return false;
}

static int rebuild_piece(struct parity_walk *w, struct slab_set *ss, const struct piece *pc,
			 uint64_t pos, struct diag *d)
{
	int missing[ST_MAX_DISKS], roles[ST_MAX_DISKS], nmiss, q = pc->map.qd >= 0;
	void *blocks[ST_MAX_DISKS + 2];

	if (piece_has_bad(w, ss, pc))
		return rebuild_piece_pages(w, ss, pc, pos, d);
	nmiss = lost_blocks(w, ss, &pc->map, (size_t)-1, missing, roles);
	piece_blocks(w, ss, pc, 0, blocks);
	if (nmiss > (q ? 2 : 1) ||
	    parity_recover(q ? pc->map.syndrome_disks : pc->map.data_disks, q, pc->len, blocks,
			   missing, nmiss) < 0)
		return diag_fail(d, "row %llu: %d blocks lost, more than the array can rebuild",
				 (unsigned long long)pc->row, nmiss);
	if (q && nmiss == 1)
		return verify_piece(w, ss, pc, pos, d);
	return 0;
}

/* Rebuilds member bytes [pos, pos + len) held in ss, a row piece at a time. */
static int rebuild_batch(struct parity_walk *w, struct slab_set *ss, uint64_t pos, size_t len,
			 struct diag *d)
{
	struct piece pc = { .row = UINT64_MAX };
	size_t at;

	for (at = 0; at < len; at += pc.len) {
		uint64_t row = (pos + at) / w->chunk;

		if (row != pc.row)
			layout_stripe(&w->run->a->geo, row, &pc.map);
		pc.row = row;
		pc.in_chunk = (size_t)((pos + at) % w->chunk);
		pc.at = at;
		pc.len = w->chunk - pc.in_chunk < len - at ? w->chunk - pc.in_chunk : len - at;
		if (rebuild_piece(w, ss, &pc, pos, d) < 0)
			return -1;
	}
	return 0;
}

/* Commits the batch at member bytes [pos, pos + len), on the targets now:
 * waits for the batch below it, tells its events and checkpoints. */
static int commit(struct parity_walk *w, uint64_t pos, size_t len, struct diag *d)
{
	struct rebuild_run *run = w->run;
	int i, k = 0, rc = 0;

	pthread_mutex_lock(&run->lock);
	while (run->committed != pos && !run->failed)
		pthread_cond_wait(&run->turn, &run->lock);
	if (run->failed)
		rc = diag_fail(d, "stopped: another lane failed");
	for (i = 0; i < w->nheld; i++) {
		if (rc == 0 && w->held[i].batch == pos)
			rc = tell(run, &w->held[i].e, d);
		else if (w->held[i].batch != pos)
			w->held[k++] = w->held[i];
	}
	w->nheld = k;
	if (rc == 0) {
		run->committed = pos + len;
		rc = checkpoint(run, run->committed / 512, false, d);
	}
	pthread_cond_broadcast(&run->turn);
	pthread_mutex_unlock(&run->lock);
	return rc;
}

static bool stopped(struct rebuild_run *run)
{
	bool failed;

	pthread_mutex_lock(&run->lock);
	failed = run->failed;
	pthread_mutex_unlock(&run->lock);
	return failed;
}

/* Stops every lane; the first to fail is the one whose message counts. */
static void lane_fail(struct parity_walk *w)
{
	pthread_mutex_lock(&w->run->lock);
	if (!w->run->failed)
		w->run->first_failed = w->lane;
	w->run->failed = true;
	pthread_cond_broadcast(&w->run->turn);
	pthread_mutex_unlock(&w->run->lock);
}

/* The length of the batch at pos, 0 past the end. */
static size_t batch_len(const struct parity_walk *w, uint64_t pos, uint64_t last)
{
	return pos >= last ? 0 : last - pos < w->batch ? (size_t)(last - pos) : w->batch;
}

/* A lane's pipeline: while it rebuilds batch j in one set, its workers
 * read batch j + 1 into the other and write batch j - 1 out of it. */
static void *lane_run(void *p)
{
	struct parity_walk *w = p;
	struct rebuild_run *run = w->run;
	struct diag *d = &w->d;
	uint64_t last = run->end * 512, step = (uint64_t)w->lanes * w->batch, prev = 0;
	uint64_t pos = run->start * 512 + (uint64_t)w->lane * w->batch;
	size_t len = batch_len(w, pos, last), prev_len = 0;
	int cur = 0, rc;

	pool_start(&w->pool, w->ndisks, w->workers);
	set_job(w, &w->set[0], pos, len, 0, 0);
	pool_submit(&w->pool, member_io_run, w->set[0].io, sizeof(*w->set[0].io));
	rc = collect(w, &w->set[0], d);
	for (; rc == 0 && len; pos += step, len = batch_len(w, pos, last)) {
		set_job(w, &w->set[!cur], pos + step, batch_len(w, pos + step, last), prev, prev_len);
		pool_submit(&w->pool, member_io_run, w->set[!cur].io, sizeof(*w->set[!cur].io));
		rc = rebuild_batch(w, &w->set[cur], pos, len, d);
		if (collect(w, &w->set[!cur], rc < 0 ? &(struct diag){ "" } : d) < 0 && rc == 0)
			rc = -1;
		if (rc == 0 && prev_len)
			rc = commit(w, prev, prev_len, d);
		if (rc == 0 && stopped(run))
			rc = diag_fail(d, "stopped: another lane failed");
		prev = pos;
		prev_len = len;
		cur = !cur;
	}
	if (rc == 0 && prev_len) {
		set_job(w, &w->set[!cur], 0, 0, prev, prev_len);
		pool_submit(&w->pool, member_io_run, w->set[!cur].io, sizeof(*w->set[!cur].io));
		rc = collect(w, &w->set[!cur], d);
		if (rc == 0)
			rc = commit(w, prev, prev_len, d);
	}
	pool_wait(&w->pool);
	pool_stop(&w->pool);
	if (rc < 0)
		lane_fail(w);
	return NULL;
}

/* How many pool workers a pass over a's members should have, given cpus
 * CPUs to spend: one per role when any member is a block device, a disk
 * that can work while the others do; one per CPU for image files, whose
 * I/O is a copy from the page cache that more threads than CPUs would only
 * take turns at. */
static int member_io_workers(const struct array *a, int cpus)
{
	int i;

	for (i = 0; i < a->nmembers; i++)
		if (a->members[i].dev.is_blockdev)
			return a->geo.raid_disks;
	return cpus > 1 ? cpus : 1;
}

static int cpus_online(void)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0)
		return CPU_COUNT(&set);
	return 1;
}

/* Lanes keep every CPU busy: one lane's workers copy while another does the
 * math.  As many as the caller asks for or there are CPUs, and batches,
 * within LANE_MEMORY. */
static int lane_count(const struct rebuild_run *run)
{
	uint64_t batches = ((run->end - run->start) * 512 + walk_batch(run) - 1) / walk_batch(run);
	size_t fit = LANE_MEMORY / walk_arena_bytes(run);
	int n = run->o->jobs > 0 ? run->o->jobs : cpus_online();

	if (n > LANES_MAX)
		n = LANES_MAX;
	if ((size_t)n > fit)
		n = fit ? (int)fit : 1;
	if ((uint64_t)n > batches)
		n = batches ? (int)batches : 1;
	return n;
}

/* Runs lanes lanes, the caller's thread the first; *no_threads when the
 * others could not be started (then none has committed anything: the
 * first batch is the caller's). */
static int run_lanes(struct rebuild_run *run, int lanes, bool *no_threads, struct diag *d)
{
	struct parity_walk w[LANES_MAX];
	int cpus = cpus_online(), started, k, rc = 0, err;
	int workers = member_io_workers(run->a, (cpus + lanes - 1) / lanes);

	memset(w, 0, sizeof(w));
	run->committed = run->start * 512;
	run->failed = false;
	for (k = 0; k < lanes && rc == 0; k++) {
		w[k].lane = k;
		w[k].lanes = lanes;
		w[k].workers = workers;
		rc = walk_alloc(&w[k], run, d);
	}
	pthread_mutex_init(&run->lock, NULL);
	pthread_cond_init(&run->turn, NULL);
	for (started = 1; rc == 0 && started < lanes; started++) {
		err = pthread_create(&w[started].th, NULL, lane_run, &w[started]);
		if (err) {
			rc = diag_fail(d, "cannot start the rebuild's threads: %s", strerror(err));
			*no_threads = true;
			lane_fail(&w[0]);
			break;
		}
	}
	if (rc == 0)
		lane_run(&w[0]);
	for (k = 1; k < started; k++)
		pthread_join(w[k].th, NULL);
	if (rc == 0 && run->failed) {
		*d = w[run->first_failed].d;
		rc = -1;
	}
	for (k = 0; k < LANES_MAX; k++)
		walk_free(&w[k]);
	pthread_cond_destroy(&run->turn);
	pthread_mutex_destroy(&run->lock);
	return rc;
}

static int rebuild_parity(struct rebuild_run *run, struct diag *d)
{
	bool no_threads = false;
	int rc = run_lanes(run, lane_count(run), &no_threads, d);

	if (rc < 0 && no_threads)
		rc = run_lanes(run, 1, &no_threads, d);
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
	for (off = 0; off < len; off += ROWS_PAGE) {
		struct rebuild_event e = { .nlost = 1, .lost_offset = { (s * 512) + off },
					   .lost_length = { ROWS_PAGE } };

		if (read_copy(run, s + off / 512, buf + off, ROWS_PAGE) >= 0)
			continue;
		run->r->read_errors++;
		lose_page(t, buf + off, ms + off / 512, &e);
		if (tell(run, &e, d) < 0)
			return -1;
	}
	return 0;
}

static int rebuild_copies(struct rebuild_run *run, struct diag *d)
{
	uint64_t win = ROWS_MEMBER_MAX / 512, chunk = run->a->geo.chunk_sectors, at, ms, len, end;
	uint8_t *buf = dev_alloc(ROWS_MEMBER_MAX);
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
