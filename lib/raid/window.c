/* window: where a range of array bytes lies on the members, read or
 * written a role at a time, and what the reads did not give, mended. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/memberio.h"
#include "raid/stripe.h"
#include "raid/window.h"

#define COPY_BYTES (1u << 20)        /* a mirror's turn: the run read from one copy */

/* Picks the copy to read: the present copies take turns, so a mirror's
 * members share the work of a long read. */
static const struct copy *pick_copy(struct array *a, const struct copy *c, int n, uint64_t turn)
{
	const struct copy *present[ST_MAX_DISKS];
	int k = 0, i;

	for (i = 0; i < n; i++)
		if (a->role[c[i].role])
			present[k++] = &c[i];
	return k ? present[turn % (uint64_t)k] : NULL;
}

static int add_segment(struct member_segments *ms, uint64_t area_off, size_t buf_off, size_t len)
{
	struct segment *s;

	if (ms->n && ms->seg[ms->n - 1].area_off + ms->seg[ms->n - 1].len == area_off &&
	    ms->seg[ms->n - 1].buf_off + ms->seg[ms->n - 1].len == buf_off) {
		ms->seg[ms->n - 1].len += len;
		return 0;
	}
	if (ms->n == ms->cap) {
		int cap = ms->cap ? 2 * ms->cap : 16;

		s = realloc(ms->seg, (size_t)cap * sizeof(*s));
		if (!s)
			return -1;
		ms->seg = s;
		ms->cap = cap;
	}
	ms->seg[ms->n++] = (struct segment){ .area_off = area_off, .buf_off = buf_off, .len = len };
	return 0;
}

/* One piece of the array's bytes: where it lies in each of its copies, up
 * to the end of a chunk (or zone), of the range, or of a COPY_BYTES turn. */
struct piece {
	struct copy c[ST_MAX_DISKS];
	int n;
	const struct copy *pick;     /* the copy to read, NULL when none is present */
	size_t len;
};

static void piece_at(struct array *a, uint64_t at, size_t left, struct piece *p)
{
	uint64_t run, len;

	p->n = layout_locate(&a->geo, at / 512, p->c, &run);
	p->pick = pick_copy(a, p->c, p->n, at / COPY_BYTES);
	len = run * 512 - at % 512;
	if (len > left)
		len = left;
	if (len > COPY_BYTES - at % COPY_BYTES)
		len = COPY_BYTES - at % COPY_BYTES;
	p->len = (size_t)len;
}

/* Bytes from the start of the member where a copy of array byte at lies. */
static uint64_t member_pos(const struct member *m, const struct copy *c, uint64_t at)
{
	return (m->sb.data_offset + c->sector) * 512 + at % 512;
}

int window_plan(struct array *a, uint64_t off, size_t len, struct member_segments *ms,
		       bool every_copy, struct diag *d)
{
	bool parity = layout_has_parity(a->geo.level);
	struct piece p;
	size_t done;
	int i;

	for (done = 0; done < len; done += p.len) {
		uint64_t at = off + done;

		piece_at(a, at, len - done, &p);
		if (!p.pick && !parity)
			return diag_fail(d, "no member holds array sector %llu", (unsigned long long)(at / 512));
		for (i = 0; i < p.n; i++) {
			if (p.pick ? (!a->role[p.c[i].role] || (!every_copy && &p.c[i] != p.pick)) : every_copy)
				continue;
			if (add_segment(&ms[p.c[i].role], p.c[i].sector * 512 + at % 512, done, p.len) < 0)
				return diag_fail(d, "%s: out of memory for a window's segments", a->members[0].path);
		}
	}
	return 0;
}

int stripe_member_runs(struct array *a, uint64_t off, size_t len, struct member_run *r, int max)
{
	struct piece p;
	size_t done;
	int n = 0;

	for (done = 0; done < len; done += p.len) {
		uint64_t at = off + done, pos;
		const struct member *m;

		piece_at(a, at, len - done, &p);
		if (!p.pick)
			return -1;
		m = a->role[p.pick->role];
		pos = member_pos(m, p.pick, at);
		if (n && r[n - 1].member == m && r[n - 1].pos + r[n - 1].len == pos) {
			r[n - 1].len += p.len;
			continue;
		}
		if (n == max)
			return -1;
		r[n++] = (struct member_run){ m, pos, p.len };
	}
	return n;
}

void window_member_run(void *p)
{
	struct member_segments *ms = p;
	int i;

	for (i = 0; ms->dev && i < ms->n && ms->rc == 0; i++) {
		struct member_io io = { .dev = ms->dev, .buf = ms->buf + ms->seg[i].buf_off, .len = ms->seg[i].len,
					.off = ms->base + ms->seg[i].area_off, .write = ms->write,
					.bad = ms->write ? NULL : ms->bad };

		member_io_run(&io);
		ms->seg[i].lost = io.bad_pages > 0;
		if ((ms->rc = io.rc) < 0)
			ms->d = io.d;
	}
}

/* Array bytes [at, at + len) into buf from a copy other than role's, a
 * run of sectors at a time; fails when no other copy reads. */
static int read_other_copy(struct array *a, int role, uint64_t at, uint8_t *buf, size_t len,
			   const struct dev *failed, uint64_t failed_off, struct diag *d)
{
	struct copy c[ST_MAX_DISKS];

	while (len > 0) {
		uint64_t run;
		int n = layout_locate(&a->geo, at / 512, c, &run), i;
		size_t piece = run * 512 - at % 512 < len ? (size_t)(run * 512 - at % 512) : len;

		for (i = 0; i < n; i++) {
			struct member *m = a->role[c[i].role];

			if (m && c[i].role != role &&
			    member_read(&m->dev, buf, piece, (m->sb.data_offset + c[i].sector) * 512 + at % 512, NULL) == 0)
				break;
		}
		if (i == n)
			return diag_unserved(d, "%s: read error at byte %llu, and no other copy of array byte %llu reads",
					     failed->path, (unsigned long long)failed_off, (unsigned long long)at);
		at += piece;
		buf += piece;
		len -= piece;
	}
	return 0;
}

/* Array bytes no member could give, where the reader takes them as lost:
 * zeroes, and the array's read_lost hook told. */
static void give_zeroes(const struct array *a, uint8_t *buf, uint64_t at, size_t len)
{
	memset(buf, 0, len);
	a->read_lost(a->read_lost_ctx, at, len);
}

/* RAID0/1/10: a role's window segments that failed, read again a page at
 * a time, each page that fails read from another copy, as md's raid1 and
 * raid10 do; where no copy reads, zeroes for a reader that takes them. */
static int mend_copies(struct array *a, int role, const struct member_segments *ms, uint64_t off,
		       struct diag *d)
{
	int s;

	for (s = 0; s < ms->n; s++) {
		const struct segment *sg = &ms->seg[s];
		size_t x, piece;

		if (!sg->lost)
			continue;
		for (x = 0; x < sg->len; x += piece) {
			uint64_t moff = ms->base + sg->area_off + x;
			uint8_t *at = ms->buf + sg->buf_off + x;

			piece = ROWS_PAGE - moff % ROWS_PAGE < sg->len - x ? ROWS_PAGE - moff % ROWS_PAGE : sg->len - x;
			if (member_read(ms->dev, at, piece, moff, NULL) == 0)
				continue;
			if (read_other_copy(a, role, off + sg->buf_off + x, at, piece, ms->dev, moff,
					    a->read_lost ? NULL : d) < 0) {
				if (!a->read_lost)
					return -1;
				give_zeroes(a, at, off + sg->buf_off + x, piece);
				continue;
			}
			if (a->read_mended)
				a->read_mended(a->read_mended_ctx, a->role[role], moff, piece);
		}
	}
	return 0;
}

/* What a row engine walk rebuilds for one segment of a window: the
 * role's data area bytes [lo, hi), into dst. */
struct segment_mend {
	struct array *a;
	int role;
	uint64_t lo, hi;
	uint8_t *dst;
	uint64_t at;                 /* a read: the array byte dst stands for; UINT64_MAX: none */
};

/* The roles a row lacks at page pg, for a message: "role 3 missing; role
 * 0 unreadable: m0.img, read error at byte N". */
static void lacking_roles(const struct array *a, const struct rows_piece *p, size_t pg, uint64_t chunk,
			  char *out, size_t size)
{
	size_t len = 0;
	int i;

	out[0] = 0;
	for (i = 0; i < a->geo.raid_disks && len < size; i++) {
		const struct member *m = a->role[i];

		if (!p->lost[i][pg])
			continue;
		if (!m)
			len += (size_t)snprintf(out + len, size - len, "%srole %d missing", len ? "; " : "", i);
		else
			len += (size_t)snprintf(out + len, size - len, "%srole %d unreadable: %s, read error at byte %llu",
						len ? "; " : "", i, m->dev.path,
						(unsigned long long)(m->sb.data_offset * 512 + p->row * chunk + p->at +
								     pg * ROWS_PAGE));
	}
}

/* Fails as unserved, naming the row's array bytes and the roles it lacks
 * at the page: more than the level rebuilds. */
int window_beyond(const struct array *a, const struct rows_piece *p, size_t pg, struct diag *d)
{
	uint64_t chunk = (uint64_t)a->geo.chunk_sectors * 512, row_bytes = chunk * (uint64_t)p->map->data_disks;
	char roles[320];

	lacking_roles(a, p, pg, chunk, roles, sizeof(roles));
	return diag_unserved(d, "array bytes %llu-%llu (%llu bytes): too little redundancy left in their stripe "
			     "to serve them (%s)", (unsigned long long)(p->row * row_bytes),
			     (unsigned long long)((p->row + 1) * row_bytes - 1), (unsigned long long)row_bytes, roles);
}

/* The piece's bytes of role within data area bytes [lo, hi) into sm's
 * dst, which stands for byte lo; where a page of them was lost beyond
 * mending, a read takes zeroes, anything else fails. */
static int take_role(const struct segment_mend *sm, const struct rows_piece *p, struct diag *d)
{
	const struct array *a = sm->a;
	uint64_t ps = p->row * ((uint64_t)a->geo.chunk_sectors * 512) + p->at, pe = ps + p->len;
	uint64_t from = ps > sm->lo ? ps : sm->lo, to = pe < sm->hi ? pe : sm->hi, pg;

	if (from >= to)
		return 0;
	memcpy(sm->dst + (from - sm->lo), p->block[sm->role] + (from - ps), (size_t)(to - from));
	for (pg = (from - ps) / ROWS_PAGE; p->nbeyond && pg * ROWS_PAGE < to - ps; pg++) {
		uint64_t s = ps + pg * ROWS_PAGE > from ? ps + pg * ROWS_PAGE : from;
		uint64_t e = ps + (pg + 1) * ROWS_PAGE < to ? ps + (pg + 1) * ROWS_PAGE : to;

		if (!p->beyond[pg] || !p->lost[sm->role][pg])
			continue;
		if (sm->at == UINT64_MAX || !a->read_lost)
			return window_beyond(a, p, (size_t)pg, d);
		give_zeroes(a, sm->dst + (s - sm->lo), sm->at + (s - sm->lo), (size_t)(e - s));
	}
	return 0;
}

/* The row engine's visit: the mended piece's bytes of the segment. */
static int take_mended(void *ctx, struct rows_piece *p, struct diag *d)
{
	return take_role(ctx, p, d);
}

/* A role's segments rebuilt by the row engine; off: the array byte the
 * window starts at, for a read that takes what is beyond mending as
 * zeroes, or UINT64_MAX. */
static int mend_parity(struct array *a, struct rows_engine *re, int role, const struct member_segments *ms,
		       uint64_t off, struct diag *d)
{
	size_t chunk = (size_t)a->geo.chunk_sectors * 512;
	int s, rc = 0;

	for (s = 0; rc == 0 && s < ms->n; s++) {
		const struct segment *sg = &ms->seg[s];
		struct segment_mend sm = { .a = a, .role = role, .lo = sg->area_off,
					   .hi = sg->area_off + sg->len, .dst = ms->buf + sg->buf_off,
					   .at = off == UINT64_MAX ? off : off + sg->buf_off };
		/* without an engine, small batches: the caller's is mid-walk
		 * and holds the budget */
		struct rows_walk w = { .a = a, .from = sm.lo / ROWS_PAGE * ROWS_PAGE,
				       .to = (sm.hi + ROWS_PAGE - 1) / ROWS_PAGE * ROWS_PAGE,
				       .mend = true, .visit = take_mended, .ctx = &sm,
				       .member_bytes = re ? 0 : rows_batch_bytes(a->geo.raid_disks, chunk,
										ROWS_BUDGET / 8) };

		if (!ms->dev || sg->lost)
			rc = re ? rows_engine_walk(re, &w, d) : rows_walk(&w, d);
	}
	return rc;
}

/* RAID4/5/6: a role's window segments that were not read (its member
 * missing, or a read that failed), rebuilt by the row engine from the
 * rest of their rows: it reads every member's pages of the segment, finds
 * which are unreadable and mends them from P/Q. */
int window_mend_parity(struct array *a, struct rows_engine *re, int role, const struct member_segments *ms,
		       struct diag *d)
{
	return mend_parity(a, re, role, ms, UINT64_MAX, d);
}

/* Reads that did not give a window's bytes, given them another way: from
 * the other copies, or rebuilt from parity; zeroes where neither can, for
 * a reader that takes them (the array's read_lost). */
int window_mend(struct rows_engine *re, struct member_segments *ms, uint64_t off, struct diag *d)
{
	struct array *a = re->a;
	int i, rc = 0;

	for (i = 0; rc == 0 && i < a->geo.raid_disks; i++) {
		if (ms[i].n)
			rc = layout_has_parity(a->geo.level) ? mend_parity(a, re, i, &ms[i], off, d)
							     : mend_copies(a, i, &ms[i], off, d);
	}
	return rc;
}
