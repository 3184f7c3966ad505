/* check: walk the array a batch of rows at a time, recompute P (and Q) or
 * compare copies for every 4 KiB unit, locate RAID6 errors from the
 * syndrome (as mdadm's raid6check), and repair only when asked. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "parity.h"

#define BATCH_BYTES (4u << 20)       /* per member and batch: fewer thread starts */
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
	size_t chunk;                /* bytes */
	unsigned pages;              /* 4 KiB units per chunk */
	uint64_t rows;               /* rows per batch */
	uint8_t **buf;               /* per role: rows * chunk */
	uint8_t *bad;                /* per role and page of the batch: unreadable */
	uint8_t *zero, *sp, *sq;     /* a zero unit, computed P, computed Q */
	bool marked;                 /* array marked dirty for repair writes */
	bool was_clean;
};

/* Reads len bytes of a member; where the whole read fails, page by page,
 * zero-filling and flagging the pages that cannot be read. */
static void read_tolerant(struct checker *c, struct member *m, uint8_t *buf, size_t len,
			  uint64_t off, uint8_t *bad)
{
	size_t i;

	if (dev_read(&m->dev, buf, len, off, NULL) == 0)
		return;
	for (i = 0; i < len / CHECK_UNIT; i++) {
		if (dev_read(&m->dev, buf + i * CHECK_UNIT, CHECK_UNIT, off + i * CHECK_UNIT, NULL) == 0)
			continue;
		memset(buf + i * CHECK_UNIT, 0, CHECK_UNIT);
		bad[i] = 1;
		__atomic_add_fetch(&c->r->read_errors, 1, __ATOMIC_RELAXED);
	}
}

struct batch_read {
	struct checker *c;
	int role;
	uint64_t row, nrows;
};

static void *batch_read_run(void *p)
{
	struct batch_read *br = p;
	struct checker *c = br->c;
	struct member *m = c->a->role[br->role];

	read_tolerant(c, m, c->buf[br->role], br->nrows * c->chunk,
		      m->sb.data_offset * 512 + br->row * c->chunk,
		      c->bad + (size_t)br->role * c->rows * c->pages);
	return NULL;
}

/* Every present member's rows, one thread each. */
static void read_batch(struct checker *c, uint64_t row, uint64_t nrows)
{
	int n = c->a->geo.raid_disks, i;
	struct batch_read br[ST_MAX_DISKS];
	pthread_t th[ST_MAX_DISKS];
	bool started[ST_MAX_DISKS];

	memset(c->bad, 0, (size_t)n * c->rows * c->pages);
	for (i = 0; i < n; i++) {
		started[i] = false;
		if (!c->a->role[i])
			continue;
		br[i] = (struct batch_read){ c, i, row, nrows };
		started[i] = pthread_create(&th[i], NULL, batch_read_run, &br[i]) == 0;
		if (!started[i])
			batch_read_run(&br[i]);
	}
	for (i = 0; i < n; i++)
		if (started[i])
			pthread_join(th[i], NULL);
}

static bool unit_lost(const struct checker *c, int role, uint64_t k, unsigned page)
{
	return !c->a->role[role] || c->bad[((size_t)role * c->rows + k) * c->pages + page];
}

static uint8_t *unit_at(const struct checker *c, int role, uint64_t k, unsigned page)
{
	return c->buf[role] + k * c->chunk + (size_t)page * CHECK_UNIT;
}

/* The blocks of one unit of a parity row, for the report. */
static void describe_row_unit(const struct checker *c, const struct stripe_map *m, uint64_t row,
			      uint64_t k, unsigned page, struct check_unit *u)
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
		b->unreadable = b->member && unit_lost(c, b->role, k, page);
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

/* Mends a unit the way md's repair does: RAID5 rewrites P; RAID6 fixes
 * the block the syndrome names, or regenerates P and Q. */
static int repair_parity_unit(struct checker *c, const struct stripe_map *m, uint64_t row,
			      uint64_t k, unsigned page, int culprit_role, struct diag *d)
{
	uint8_t *p = unit_at(c, m->pd, k, page);
	int i;

	if (m->qd < 0 || culprit_role == m->pd || culprit_role < 0) {
		memcpy(p, c->sp, CHECK_UNIT);
		if (write_unit(c, m->pd, row, page, p, d) < 0)
			return -1;
	}
	if (m->qd >= 0 && (culprit_role == m->qd || culprit_role < 0)) {
		uint8_t *q = unit_at(c, m->qd, k, page);

		memcpy(q, c->sq, CHECK_UNIT);
		if (write_unit(c, m->qd, row, page, q, d) < 0)
			return -1;
	}
	if (m->qd >= 0 && culprit_role >= 0 && culprit_role != m->pd && culprit_role != m->qd) {
		uint8_t *data = unit_at(c, culprit_role, k, page);

		for (i = 0; i < CHECK_UNIT; i++)
			data[i] ^= p[i] ^ c->sp[i];
		if (write_unit(c, culprit_role, row, page, data, d) < 0)
			return -1;
	}
	return 0;
}

/* Computes P (and Q) of one unit into sp/sq; returns how many of its
 * blocks are lost (missing member or read error), and the lost one. */
static int compute_unit(struct checker *c, const struct stripe_map *m, uint64_t k, unsigned page,
			int *lost_role)
{
	void *blocks[ST_MAX_DISKS + 2];
	int nd = m->qd >= 0 ? m->syndrome_disks : m->data_disks, lost = 0, i, miss[2];

	*lost_role = -1;
	for (i = 0; i < nd; i++) {
		int r = m->qd >= 0 ? m->slot[i] : m->data[i];

		blocks[i] = r < 0 ? c->zero : unit_at(c, r, k, page);
		if (r >= 0 && unit_lost(c, r, k, page)) {
			*lost_role = r;
			if (lost < 2)
				miss[lost] = i;
			lost++;
		}
	}
	if (unit_lost(c, m->pd, k, page))
		*lost_role = m->pd, lost++;
	if (m->qd >= 0 && unit_lost(c, m->qd, k, page))
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
		memcpy(c->sp, unit_at(c, m->pd, k, page), CHECK_UNIT);
		parity_recover(nd, 1, CHECK_UNIT, blocks, want, 2);
		memcpy(blocks[miss[0]], save, CHECK_UNIT);
		return 1;
	}
	parity_gen_pq(nd, CHECK_UNIT, blocks);
	return lost;
}

static int check_parity_unit(struct checker *c, const struct stripe_map *m, uint64_t row,
			     uint64_t k, unsigned page, struct diag *d)
{
	uint8_t *p = unit_at(c, m->pd, k, page), *q = m->qd >= 0 ? unit_at(c, m->qd, k, page) : NULL;
	int lost_role, lost = compute_unit(c, m, k, page, &lost_role), culprit = -1;
	bool pbad, qbad;
	struct check_unit u;

	c->r->units++;
	if (lost > (m->qd >= 0 ? 1 : 0) || (lost && m->qd < 0)) {
		c->r->unverified++;
		describe_row_unit(c, m, row, k, page, &u);
		for (int i = 0; i < u.nblocks; i++)
			if (u.blocks[i].unreadable) {
				u.verdict = UNIT_UNREADABLE;
				return c->o->report ? c->o->report(c->o->ctx, &u) : 0;
			}
		return 0;
	}
	pbad = lost_role != m->pd && memcmp(p, c->sp, CHECK_UNIT) != 0;
	qbad = q && lost_role != m->qd && memcmp(q, c->sq, CHECK_UNIT) != 0;
	if (!pbad && !qbad) {
		/* A read error is news even where what is left agrees. */
		if (lost_role < 0 || !c->a->role[lost_role] || !c->o->report)
			return 0;
		describe_row_unit(c, m, row, k, page, &u);
		u.verdict = UNIT_READ_ERROR;
		return c->o->report(c->o->ctx, &u);
	}
	if (q && lost == 0)
		culprit = raid6_culprit(m, p, q, c->sp, c->sq);
	describe_row_unit(c, m, row, k, page, &u);
	u.verdict = culprit >= 0 ? UNIT_CULPRIT : UNIT_MISMATCH;
	u.culprit = culprit >= 0 ? block_of_role(&u, culprit) : -1;
	c->r->inconsistent++;
	c->r->mismatch_sectors += CHECK_UNIT / 512;
	if (c->o->repair && lost == 0) {
		if (repair_parity_unit(c, m, row, k, page, culprit, d) < 0)
			return -1;
		u.repaired = true;
		c->r->repaired++;
	}
	return c->o->report ? c->o->report(c->o->ctx, &u) : 0;
}

static int check_parity_levels(struct checker *c, uint64_t off, uint64_t end, struct diag *d)
{
	const struct geometry *g = &c->a->geo;
	uint64_t row_bytes = c->chunk * (uint64_t)g->data_disks, row, last = (end + row_bytes - 1) / row_bytes;
	int rc = 0;

	for (row = off / row_bytes; rc == 0 && row < last; row += c->rows) {
		uint64_t nrows = last - row < c->rows ? last - row : c->rows, k;

		read_batch(c, row, nrows);
		for (k = 0; rc == 0 && k < nrows; k++) {
			struct stripe_map map;
			unsigned page;

			layout_stripe(g, row + k, &map);
			for (page = 0; rc == 0 && page < c->pages; page++) {
				uint64_t at = (row + k) * row_bytes + (uint64_t)page * CHECK_UNIT;

				/* a unit belongs to the range if any of its data does */
				if (at + row_bytes - c->chunk + CHECK_UNIT <= off || at >= end)
					continue;
				rc = check_parity_unit(c, &map, row + k, k, page, d);
			}
		}
		if (c->o->progress)
			c->o->progress(c->o->ctx, (row + nrows) * row_bytes - off);
	}
	return rc;
}

/* raid1/10: every copy of one run of the array, compared unit by unit. */
static int check_copies_run(struct checker *c, uint64_t at, uint64_t len, uint64_t *last_window,
			    struct diag *d)
{
	struct copy cp[ST_MAX_DISKS];
	uint64_t run, u;
	int n = layout_locate(&c->a->geo, at / 512, cp, &run), i, rc = 0;

	for (i = 0; i < n; i++) {
		struct member *m = c->a->role[cp[i].role];

		memset(c->bad + (size_t)i * c->pages, 0, c->pages);
		if (m)
			read_tolerant(c, m, c->buf[i], (size_t)len, m->sb.data_offset * 512 + cp[i].sector * 512,
				      c->bad + (size_t)i * c->pages);
	}
	for (u = 0; rc == 0 && u < len / CHECK_UNIT; u++) {
		int first = -1, src, good = 0;
		bool differ = false;
		struct check_unit cu;

		c->r->units++;
		for (i = 0; i < n; i++) {
			if (!c->a->role[cp[i].role] || c->bad[(size_t)i * c->pages + u])
				continue;
			good++;
			if (first < 0)
				first = i;
			else if (memcmp(c->buf[i] + u * CHECK_UNIT, c->buf[first] + u * CHECK_UNIT, CHECK_UNIT))
				differ = true;
		}
		if (good < 2)
			c->r->unverified++;
		if (!differ && good)
			continue;
		memset(&cu, 0, sizeof(cu));
		cu.row = at / (c->chunk ? c->chunk : 1);
		cu.page = (unsigned)u;
		cu.culprit = -1;
		cu.verdict = good ? UNIT_MISMATCH : UNIT_UNREADABLE;
		for (i = 0; i < n; i++) {
			struct member *m = c->a->role[cp[i].role];

			cu.blocks[cu.nblocks++] = (struct unit_block){
				.role = cp[i].role, .member = m, .kind = BLOCK_COPY,
				.member_offset = (m ? m->sb.data_offset * 512 : 0) + cp[i].sector * 512 + u * CHECK_UNIT,
				.array_offset = at + u * CHECK_UNIT,
				.unreadable = m && c->bad[(size_t)i * c->pages + u] };
		}
		if (differ) {
			uint64_t window = (cp[0].sector * 512 + u * CHECK_UNIT) / (MD_RESYNC_SECTORS * 512);

			c->r->inconsistent++;
			if (window != *last_window)
				c->r->mismatch_sectors += MD_RESYNC_SECTORS;
			*last_window = window;
			src = first;
			for (i = 0; i < n; i++)
				if (cp[i].role == c->o->prefer_role && c->a->role[cp[i].role] &&
				    !c->bad[(size_t)i * c->pages + u])
					src = i;
			for (i = 0; c->o->repair && rc == 0 && i < n; i++) {
				struct member *m = c->a->role[cp[i].role];

				if (i == src || !m)
					continue;
				if (!c->marked) {
					c->was_clean = !c->a->dirty;
					rc = array_mark(c->a, false, d);
					c->marked = true;
				}
				if (rc == 0)
					rc = dev_write(&m->dev, c->buf[src] + u * CHECK_UNIT, CHECK_UNIT,
						       cu.blocks[i].member_offset, d);
			}
			if (c->o->repair && rc == 0) {
				cu.repaired = true;
				cu.culprit = -1;
				c->r->repaired++;
			}
		}
		if (rc == 0 && c->o->report)
			rc = c->o->report(c->o->ctx, &cu);
	}
	return rc;
}

static int check_copy_levels(struct checker *c, uint64_t off, uint64_t end, struct diag *d)
{
	uint64_t at = off / CHECK_UNIT * CHECK_UNIT, last_window = UINT64_MAX, step = c->chunk;
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

static int checker_init(struct checker *c, struct array *a, const struct check_options *o,
			struct check_result *r)
{
	int n = a->geo.raid_disks, i;

	memset(c, 0, sizeof(*c));
	c->a = a;
	c->o = o;
	c->r = r;
	c->chunk = a->geo.chunk_sectors ? (size_t)a->geo.chunk_sectors * 512 : 64 * 1024;
	c->pages = (unsigned)(c->chunk / CHECK_UNIT);
	c->rows = BATCH_BYTES / c->chunk ? BATCH_BYTES / c->chunk : 1;
	c->buf = calloc((size_t)n, sizeof(*c->buf));
	c->bad = calloc((size_t)n * c->rows * c->pages, 1);
	if (!c->buf || !c->bad)
		return -1;
	for (i = 0; i < n; i++)
		c->buf[i] = dev_alloc(c->rows * c->chunk);
	c->zero = dev_alloc(CHECK_UNIT);
	c->sp = dev_alloc(CHECK_UNIT);
	c->sq = dev_alloc(CHECK_UNIT);
	memset(c->zero, 0, CHECK_UNIT);
	return 0;
}

static void checker_free(struct checker *c)
{
	int i;

	for (i = 0; c->buf && i < c->a->geo.raid_disks; i++)
		free(c->buf[i]);
	free(c->buf);
	free(c->bad);
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
	if (checker_init(&c, a, o, r) < 0) {
		checker_free(&c);
		return diag_fail(d, "out of memory");
	}
	if (a->geo.level == MD_LEVEL_RAID1 || a->geo.level == MD_LEVEL_RAID10)
		rc = check_copy_levels(&c, off, off + len, d);
	else
		rc = check_parity_levels(&c, off, off + len, d);
	if (rc == 0 && c.marked && c.was_clean)
		rc = array_mark(a, true, d);
	checker_free(&c);
	return rc;
}
