/* check: recompute P (and Q) of every 4 KiB unit of the pieces the row
 * engine hands out, or compare copies, locate RAID6 errors from the
 * syndrome (as mdadm's raid6check), and repair only when asked. */
#include <stdlib.h>
#include <string.h>

#include "raid/check.h"
#include "raid/parity.h"
#include "raid/rows.h"
#include "io/memberio.h"
#include "md/badblocks.h"

#define MD_RESYNC_SECTORS 128        /* raid1/10 count mismatches per 64 KiB resync block */

const char *block_kind_name(enum block_kind k)
{
	static const char *const names[] = { "data", "P", "Q", "copy" };

	return names[k];
}

struct checker {
	struct array *a;
	const struct check_options *o;
	struct check_result *r;
	uint64_t off, end;           /* the array bytes asked for */
	size_t chunk;                /* bytes */
	unsigned pages;              /* 4 KiB units per chunk */
	struct rows_piece *piece;    /* raid4/5/6: the piece being checked */
	uint8_t **copy;              /* raid1/10: per copy, one run of up to a chunk */
	uint8_t *copy_lost;          /* raid1/10: per copy and unit of the run: unreadable */
	uint8_t *zero, *sp, *sq;     /* a zero unit, computed P, computed Q */
	bool marked;                 /* array marked dirty for repair writes */
	bool was_clean;
	uint64_t unsettled;          /* units neither verified nor rebuilt: no redundancy left */
	/* per role: device sectors rewritten that its bad-block log names, in
	 * order, to be taken out of the log once the walk is over (the
	 * readers of the walk consult the log meanwhile) */
	struct rewritten {
		struct bad_range *r;
		int n, cap;
	} unlog[ST_MAX_DISKS];
};

/* page counts units from the start of the chunk; the piece may start
 * further in.  A missing role's units are lost too. */
static bool unit_lost(const struct checker *c, int role, unsigned page)
{
	return c->piece->lost[role][page - c->piece->at / CHECK_UNIT];
}

static uint8_t *unit_at(const struct checker *c, int role, unsigned page)
{
	return c->piece->block[role] + (size_t)page * CHECK_UNIT - c->piece->at;
}

/* The blocks of one unit of a parity row, for the report. */
static void describe_row_unit(const struct checker *c, const struct stripe_map *m, uint64_t row,
			      unsigned page, struct check_unit *u)
{
	const struct geometry *g = &c->a->geo;
	uint64_t in_member = row * c->chunk + (uint64_t)page * CHECK_UNIT;
	uint64_t row_base = row * c->chunk * (uint64_t)g->data_disks;
	int dd;

	memset(u, 0, sizeof(*u));
	u->row = row;
	u->page = page;
	u->culprit = -1;
	for (dd = 0; dd < m->data_disks; dd++)
		u->blocks[u->nblocks++] = (struct unit_block){
			.role = m->data[dd], .kind = BLOCK_DATA,
			.array_offset = row_base + (uint64_t)dd * c->chunk + (uint64_t)page * CHECK_UNIT };
	u->blocks[u->nblocks++] = (struct unit_block){ .role = m->pd, .kind = BLOCK_P };
	if (m->qd >= 0)
		u->blocks[u->nblocks++] = (struct unit_block){ .role = m->qd, .kind = BLOCK_Q };
	for (dd = 0; dd < u->nblocks; dd++) {
		struct unit_block *b = &u->blocks[dd];

		b->member = c->a->role[b->role];
		b->member_offset = (b->member ? b->member->sb.data_offset * 512 : 0) + in_member;
		b->unreadable = b->member && unit_lost(c, b->role, page);
	}
}

static int block_of_role(const struct check_unit *u, int role)
{
	int i;

	for (i = 0; i < u->nblocks; i++)
		if (u->blocks[i].role == role)
			return i;
	return -1;
}

/* RAID6: which syndrome slot explains the difference (Qx = g^z * Px for
 * every byte), P alone, Q alone, or none of them (-1).  Returns the role. */
static int raid6_culprit(const struct stripe_map *m, const uint8_t *p, const uint8_t *q,
			 const uint8_t *pc, const uint8_t *qc)
{
	int z = -2, i;
	bool pbad = false, qbad = false;

	for (i = 0; i < CHECK_UNIT; i++) {
		uint8_t px = p[i] ^ pc[i], qx = q[i] ^ qc[i];
		int zi;

		pbad |= px != 0;
		qbad |= qx != 0;
		if (!px && !qx)
			continue;
		if (!px || !qx)
			zi = -1;
		else
			zi = ((md_gf_log(qx) - md_gf_log(px)) % 255 + 255) % 255;
		if (z == -2)
			z = zi;
		else if (z != zi)
			z = -1;
	}
	if (pbad && !qbad)
		return m->pd;
	if (qbad && !pbad)
		return m->qd;
	if (z < 0 || z >= m->syndrome_disks)
		return -1;
	return m->slot[z];
}

static int write_unit(struct checker *c, int role, uint64_t row, unsigned page, const uint8_t *src,
		      struct diag *d)
{
	struct member *m = c->a->role[role];

	if (!c->marked) {
		c->was_clean = !c->a->dirty;
		if (array_mark(c->a, false, d) < 0)
			return -1;
		c->marked = true;
	}
	return dev_write(&m->dev, src, CHECK_UNIT,
			 m->sb.data_offset * 512 + row * c->chunk + (uint64_t)page * CHECK_UNIT, d);
}

/* Keeps a rewritten block of role for the end of the walk, where its
 * bad-block log names it. */
static int note_rewritten(struct checker *c, int role, uint64_t member_offset, struct diag *d)
{
	struct rewritten *w = &c->unlog[role];
	uint64_t start = member_offset / 512, len = CHECK_UNIT / 512;
	struct bad_range *grown;

	c->r->rewritten++;
	if (!dev_logged(&c->a->role[role]->dev, member_offset, CHECK_UNIT))
		return 0;
	if (w->n && w->r[w->n - 1].start + w->r[w->n - 1].len == start) {
		w->r[w->n - 1].len += len;
		return 0;
	}
	if (w->n == w->cap) {
		int cap = w->cap ? 2 * w->cap : 16;

		if (!(grown = realloc(w->r, (size_t)cap * sizeof(*grown))))
			return diag_fail(d, "%s: out of memory for the rewritten blocks of its bad-block log",
					 c->a->role[role]->path);
		w->r = grown;
		w->cap = cap;
	}
	w->r[w->n++] = (struct bad_range){ start, len };
	return 0;
}

/* Repair of a parity unit with blocks that failed to read (in the
 * bad-block log, or a read error): each is rebuilt from the rest of its
 * row and written back, as md's "read error corrected" does.  Nothing is
 * written where the row has lost more than the level rebuilds. */
static int rewrite_lost(struct checker *c, const struct stripe_map *m, struct check_unit *u, struct diag *d)
{
	int q = m->qd >= 0, missing[ST_MAX_DISKS], nmiss = 0, nd, i, idx;
	size_t at = (size_t)u->page * CHECK_UNIT - c->piece->at;
	void *blocks[ST_MAX_DISKS + 2];

	for (i = 0; i < c->a->geo.raid_disks; i++)
		if (unit_lost(c, i, u->page) && (idx = layout_block_index(m, i, q)) >= 0 && nmiss < ST_MAX_DISKS)
			missing[nmiss++] = idx;
	if (nmiss > (q ? 2 : 1))
		return 0;
	nd = layout_row_blocks(m, c->piece->block, at, c->zero, blocks);
	if (parity_recover(nd, q, CHECK_UNIT, blocks, missing, nmiss) < 0)
		return 0;
	for (i = 0; i < u->nblocks; i++) {
		const struct unit_block *b = &u->blocks[i];

		if (!b->unreadable)
			continue;
		if (write_unit(c, b->role, u->row, u->page, unit_at(c, b->role, u->page), d) < 0 ||
		    note_rewritten(c, b->role, b->member_offset, d) < 0)
			return -1;
	}
	u->repaired = true;
	return 0;
}

/* Mends a unit the way md's repair does: RAID5 rewrites P; RAID6 fixes
 * the block the syndrome names, or regenerates P and Q. */
static int repair_parity_unit(struct checker *c, const struct stripe_map *m, uint64_t row,
			      unsigned page, int culprit_role, struct diag *d)
{
	uint8_t *p = unit_at(c, m->pd, page);
	int i;

	if (m->qd < 0 || culprit_role == m->pd || culprit_role < 0) {
		memcpy(p, c->sp, CHECK_UNIT);
		if (write_unit(c, m->pd, row, page, p, d) < 0)
			return -1;
	}
	if (m->qd >= 0 && (culprit_role == m->qd || culprit_role < 0)) {
		uint8_t *q = unit_at(c, m->qd, page);

		memcpy(q, c->sq, CHECK_UNIT);
		if (write_unit(c, m->qd, row, page, q, d) < 0)
			return -1;
	}
	if (m->qd >= 0 && culprit_role >= 0 && culprit_role != m->pd && culprit_role != m->qd) {
		uint8_t *data = unit_at(c, culprit_role, page);

		for (i = 0; i < CHECK_UNIT; i++)
			data[i] ^= p[i] ^ c->sp[i];
		if (write_unit(c, culprit_role, row, page, data, d) < 0)
			return -1;
	}
	return 0;
}

/* Computes P (and Q) of one unit into sp/sq; returns how many of its
 * blocks are lost (missing member or read error), and the lost one. */
static int compute_unit(struct checker *c, const struct stripe_map *m, unsigned page, int *lost_role)
{
	void *blocks[ST_MAX_DISKS + 2];
	int nd = m->qd >= 0 ? m->syndrome_disks : m->data_disks, lost = 0, i, miss[2];

	*lost_role = -1;
	for (i = 0; i < nd; i++) {
		int r = m->qd >= 0 ? m->slot[i] : m->data[i];

		blocks[i] = r < 0 ? c->zero : unit_at(c, r, page);
		if (r >= 0 && unit_lost(c, r, page)) {
			*lost_role = r;
			if (lost < 2)
				miss[lost] = i;
			lost++;
		}
	}
	if (unit_lost(c, m->pd, page))
		*lost_role = m->pd, lost++;
	if (m->qd >= 0 && unit_lost(c, m->qd, page))
		*lost_role = m->qd, lost++;
	if (lost > 1 || (lost == 1 && m->qd < 0))
		return lost;
	blocks[nd] = c->sp;
	if (m->qd < 0) {
		parity_xor(c->sp, blocks, nd, CHECK_UNIT);
		return 0;
	}
	blocks[nd + 1] = c->sq;
	if (lost == 1 && *lost_role != m->pd && *lost_role != m->qd) {
		/* A lost data block comes back from P; Q then checks the rest. */
		int want[2] = { miss[0], nd + 1 };
		uint8_t save[CHECK_UNIT];

		memcpy(save, blocks[miss[0]], CHECK_UNIT);
		memcpy(c->sp, unit_at(c, m->pd, page), CHECK_UNIT);
		parity_recover(nd, 1, CHECK_UNIT, blocks, want, 2);
		memcpy(blocks[miss[0]], save, CHECK_UNIT);
		return 1;
	}
	parity_gen_pq(nd, CHECK_UNIT, blocks);
	return lost;
}

static int check_parity_unit(struct checker *c, const struct stripe_map *m, uint64_t row,
			     unsigned page, struct diag *d)
{
	uint8_t *p = unit_at(c, m->pd, page), *q = m->qd >= 0 ? unit_at(c, m->qd, page) : NULL;
	int lost_role, lost = compute_unit(c, m, page, &lost_role), culprit = -1;
	bool pbad, qbad;
	struct check_unit u;

	c->r->units++;
	if (lost > (m->qd >= 0 ? 1 : 0) || (lost && m->qd < 0)) {
		c->r->unverified++;
		describe_row_unit(c, m, row, page, &u);
		for (int i = 0; i < u.nblocks; i++)
			if (u.blocks[i].unreadable) {
				u.verdict = UNIT_UNREADABLE;
				if (c->o->repair && rewrite_lost(c, m, &u, d) < 0)
					return -1;
				c->unsettled += !u.repaired;
				return c->o->report ? c->o->report(c->o->ctx, &u) : 0;
			}
		c->unsettled++;
		return 0;
	}
	pbad = lost_role != m->pd && memcmp(p, c->sp, CHECK_UNIT) != 0;
	qbad = q && lost_role != m->qd && memcmp(q, c->sq, CHECK_UNIT) != 0;
	if (!pbad && !qbad) {
		/* A read error is news even where what is left agrees. */
		if (lost_role < 0 || !c->a->role[lost_role])
			return 0;
		describe_row_unit(c, m, row, page, &u);
		u.verdict = UNIT_READ_ERROR;
		if (c->o->repair && rewrite_lost(c, m, &u, d) < 0)
			return -1;
		return c->o->report ? c->o->report(c->o->ctx, &u) : 0;
	}
	if (q && lost == 0)
		culprit = raid6_culprit(m, p, q, c->sp, c->sq);
	describe_row_unit(c, m, row, page, &u);
	u.verdict = culprit >= 0 ? UNIT_CULPRIT : UNIT_MISMATCH;
	u.culprit = culprit >= 0 ? block_of_role(&u, culprit) : -1;
	c->r->inconsistent++;
	c->r->mismatch_sectors += CHECK_UNIT / 512;
	if (c->o->repair && lost == 0) {
		if (repair_parity_unit(c, m, row, page, culprit, d) < 0)
			return -1;
		u.repaired = true;
		c->r->repaired++;
	}
	return c->o->report ? c->o->report(c->o->ctx, &u) : 0;
}

/* The row engine's visit: checks the piece's units that hold data in
 * the range asked for, and tells progress at the end of each row. */
static int check_piece(void *ctx, struct rows_piece *p, struct diag *d)
{
	struct checker *c = ctx;
	uint64_t row_bytes = c->chunk * (uint64_t)c->a->geo.data_disks;
	unsigned page, last = (unsigned)((p->at + p->len) / CHECK_UNIT);
	int rc = 0;

	c->piece = p;
	for (page = (unsigned)(p->at / CHECK_UNIT); rc == 0 && page < last; page++) {
		uint64_t at = p->row * row_bytes + (uint64_t)page * CHECK_UNIT;

		/* a unit belongs to the range if any of its data does */
		if (at + row_bytes - c->chunk + CHECK_UNIT <= c->off || at >= c->end)
			continue;
		rc = check_parity_unit(c, p->map, p->row, page, d);
	}
	if (rc == 0 && c->o->progress && p->at + p->len == c->chunk)
		c->o->progress(c->o->ctx, (p->row + 1) * row_bytes - c->off);
	return rc;
}

/* Every row that holds data of the range, read and handed out by the row
 * engine.  Repair writes go to the piece being checked, behind the batch
 * being read, so the two never touch the same bytes. */
static int check_parity_levels(struct checker *c, struct diag *d)
{
	uint64_t row_bytes = c->chunk * (uint64_t)c->a->geo.data_disks;
	struct rows_walk w = { .a = c->a, .from = c->off / row_bytes * c->chunk,
			       .to = (c->end + row_bytes - 1) / row_bytes * c->chunk,
			       .visit = check_piece, .ctx = c };
	int rc = rows_walk(&w, d);

	c->r->read_errors += w.read_errors;
	return rc;
}

/* raid1/10: copy i of unit u of the run could not be read. */
static bool copy_bad(const struct checker *c, int i, uint64_t u)
{
	return c->copy_lost[(size_t)i * c->pages + u];
}

/* raid1/10: every copy of one run of the array, compared unit by unit.
 * The copies are read one after the other in this thread: a run is one
 * chunk at most, too little to be worth handing to the pool. */
static int check_copies_run(struct checker *c, uint64_t at, uint64_t len, uint64_t *last_window,
			    struct diag *d)
{
	struct copy cp[ST_MAX_DISKS];
	uint64_t run, u;
	int n = layout_locate(&c->a->geo, at / 512, cp, &run), i, rc = 0;
	uint8_t **buf = c->copy;

	for (i = 0; i < n; i++) {
		struct member *m = c->a->role[cp[i].role];
		struct member_io io = { .dev = m ? &m->dev : NULL, .buf = buf[i], .len = (size_t)len,
					.off = m ? m->sb.data_offset * 512 + cp[i].sector * 512 : 0,
					.bad = c->copy_lost + (size_t)i * c->pages };

		member_io_run(&io);
		c->r->read_errors += io.dev ? io.bad_pages : 0;
	}
	for (u = 0; rc == 0 && u < len / CHECK_UNIT; u++) {
		int first = -1, src, good = 0, unread = 0;
		bool differ = false;
		struct check_unit cu;

		c->r->units++;
		for (i = 0; i < n; i++) {
			if (!c->a->role[cp[i].role])
				continue;
			if (copy_bad(c, i, u)) {
				unread++;
				continue;
			}
			good++;
			if (first < 0)
				first = i;
			else if (memcmp(buf[i] + u * CHECK_UNIT, buf[first] + u * CHECK_UNIT, CHECK_UNIT))
				differ = true;
		}
		if (good < 2)
			c->r->unverified++;
		/* a repair makes one good copy two or more */
		if (good < 2 && !(c->o->repair && good && unread))
			c->unsettled++;
		/* a read error is news even where the copies left agree */
		if (!differ && good && !unread)
			continue;
		memset(&cu, 0, sizeof(cu));
		cu.row = at / (c->chunk ? c->chunk : 1);
		cu.page = (unsigned)u;
		cu.culprit = -1;
		cu.verdict = !good ? UNIT_UNREADABLE : differ ? UNIT_MISMATCH : UNIT_READ_ERROR;
		for (i = 0; i < n; i++) {
			struct member *m = c->a->role[cp[i].role];

			cu.blocks[cu.nblocks++] = (struct unit_block){
				.role = cp[i].role, .member = m, .kind = BLOCK_COPY,
				.member_offset = (m ? m->sb.data_offset * 512 : 0) + cp[i].sector * 512 + u * CHECK_UNIT,
				.array_offset = at + u * CHECK_UNIT,
				.unreadable = m && copy_bad(c, i, u) };
		}
		if (differ) {
			uint64_t window = (cp[0].sector * 512 + u * CHECK_UNIT) / (MD_RESYNC_SECTORS * 512);

			c->r->inconsistent++;
			if (window != *last_window)
				c->r->mismatch_sectors += MD_RESYNC_SECTORS;
			*last_window = window;
		}
		src = first;
		for (i = 0; differ && i < n; i++)
			if (cp[i].role == c->o->prefer_role && c->a->role[cp[i].role] && !copy_bad(c, i, u))
				src = i;
		/* repair: every other present copy from src, where they differ;
		 * an unreadable one is rewritten as md's "read error corrected" */
		for (i = 0; c->o->repair && good && rc == 0 && i < n; i++) {
			struct member *m = c->a->role[cp[i].role];

			if (i == src || !m || (!differ && !copy_bad(c, i, u)))
				continue;
			if (!c->marked) {
				c->was_clean = !c->a->dirty;
				rc = array_mark(c->a, false, d);
				c->marked = true;
			}
			if (rc == 0)
				rc = dev_write(&m->dev, buf[src] + u * CHECK_UNIT, CHECK_UNIT,
					       cu.blocks[i].member_offset, d);
			if (rc == 0 && copy_bad(c, i, u))
				rc = note_rewritten(c, cp[i].role, cu.blocks[i].member_offset, d);
		}
		if (c->o->repair && good && rc == 0) {
			cu.repaired = true;
			c->r->repaired += differ;
		}
		if (rc == 0 && c->o->report)
			rc = c->o->report(c->o->ctx, &cu);
	}
	return rc;
}

static int check_copy_levels(struct checker *c, struct diag *d)
{
	uint64_t off = c->off, end = c->end, at = off / CHECK_UNIT * CHECK_UNIT, last_window = UINT64_MAX;
	uint64_t step = c->chunk;
	int rc = 0;

	while (rc == 0 && at < end) {
		struct copy cp[ST_MAX_DISKS];
		uint64_t run, len;

		layout_locate(&c->a->geo, at / 512, cp, &run);
		len = run * 512 < step ? run * 512 : step;
		if (len > end - at)
			len = (end - at + CHECK_UNIT - 1) / CHECK_UNIT * CHECK_UNIT;
		rc = check_copies_run(c, at, len, &last_window, d);
		at += len;
		if (c->o->progress)
			c->o->progress(c->o->ctx, at - off);
	}
	return rc;
}

/* The rewritten blocks taken out of each member's bad-block log, once
 * their bytes are on the member, as md clears an entry once its rewrite
 * succeeded; the log a member is read with from now on loses them too. */
static int clear_logs(struct checker *c, struct diag *d)
{
	int role, i, cleared;

	for (role = 0; role < c->a->geo.raid_disks; role++) {
		const struct rewritten *w = &c->unlog[role];
		struct member *m = c->a->role[role];

		if (!w->n || !m)
			continue;
		if (dev_sync(&m->dev, d) < 0 || badblocks_clear(&m->dev, &m->sb, w->r, w->n, &cleared, d) < 0 ||
		    dev_sync(&m->dev, d) < 0)
			return -1;
		c->r->log_cleared += (uint64_t)cleared;
		for (i = 0; i < w->n; i++)
			if (dev_unlog(&m->dev, w->r[i].start * 512, w->r[i].len * 512, d) < 0)
				return -1;
	}
	return 0;
}

/* raid1/10 read one run of every copy at a time, in this thread;
 * raid4/5/6 leave their buffers to the row engine. */
static int checker_init(struct checker *c, struct array *a, const struct check_options *o,
			struct check_result *r, uint64_t off, uint64_t end)
{
	int n = a->geo.raid_disks, i;
	bool copies = a->geo.level == MD_LEVEL_RAID1 || a->geo.level == MD_LEVEL_RAID10;

	memset(c, 0, sizeof(*c));
	c->a = a;
	c->o = o;
	c->r = r;
	c->off = off;
	c->end = end;
	c->chunk = a->geo.chunk_sectors ? (size_t)a->geo.chunk_sectors * 512 : 64 * 1024;
	c->pages = (unsigned)(c->chunk / CHECK_UNIT);
	c->zero = dev_alloc(CHECK_UNIT);
	c->sp = dev_alloc(CHECK_UNIT);
	c->sq = dev_alloc(CHECK_UNIT);
	if (!c->zero || !c->sp || !c->sq)
		return -1;
	memset(c->zero, 0, CHECK_UNIT);
	if (!copies)
		return 0;
	c->copy = calloc((size_t)n, sizeof(*c->copy));
	c->copy_lost = calloc((size_t)n * c->pages, 1);
	if (!c->copy || !c->copy_lost)
		return -1;
	for (i = 0; i < n; i++)
		if (!(c->copy[i] = dev_alloc(c->chunk)))
			return -1;
	return 0;
}

static void checker_free(struct checker *c)
{
	for (int i = 0; i < ST_MAX_DISKS; i++)
		free(c->unlog[i].r);
	for (int i = 0; c->copy && i < c->a->geo.raid_disks; i++)
		free(c->copy[i]);
	free(c->copy);
	free(c->copy_lost);
	free(c->zero);
	free(c->sp);
	free(c->sq);
}

int check_array(struct array *a, const struct check_options *o, struct check_result *r,
		struct diag *d)
{
	uint64_t size = a->geo.array_sectors * 512, off = o->offset, len = o->length ? o->length : size - off;
	struct checker c;
	int rc;

	memset(r, 0, sizeof(*r));
	if (off > size || len > size - off)
		return diag_fail(d, "range %llu+%llu is outside the array (%llu bytes)",
				 (unsigned long long)off, (unsigned long long)len, (unsigned long long)size);
	if (a->geo.level == MD_LEVEL_RAID0)
		return diag_fail(d, "raid0 has no redundancy to check");
	if (checker_init(&c, a, o, r, off, off + len) < 0) {
		checker_free(&c);
		return diag_fail(d, "out of memory for the check's buffers (%d members, chunks of %u KiB)",
				 a->geo.raid_disks, a->geo.chunk_sectors / 2);
	}
	if (a->geo.level == MD_LEVEL_RAID1 || a->geo.level == MD_LEVEL_RAID10)
		rc = check_copy_levels(&c, d);
	else
		rc = check_parity_levels(&c, d);
	if (clear_logs(&c, rc == 0 ? d : &(struct diag){ 0 }) < 0)
		rc = -1;
	/* a repair of the whole array leaves it consistent, as md's resync
	 * does: clean, also where it needed a resync before, unless units
	 * were left with no redundancy to make them so (a degraded array);
	 * a repair of a part leaves the state as it found it */
	if (rc == 0 && c.marked && c.was_clean)
		rc = array_mark(a, true, d);
	else if (rc == 0 && o->repair && off == 0 && len == size && !c.unsettled && (c.marked || a->dirty))
		rc = array_mark(a, true, d);
	r->unsettled = c.unsettled;
	checker_free(&c);
	return rc;
}
