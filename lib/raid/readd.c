/* readd: which members md recovers from the write-intent bitmap, and the
 * member ranges a bitmap-based recovery copies: those under a set bit, in
 * page-aligned runs; the rest of the member is in sync already. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "md/intent.h"
#include "md/layout.h"
#include "raid/readd.h"
#include "raid/rows.h"

/* The sectors a run is rounded out to: the engine moves whole pages. */
#define PAGE_SECTORS (ROWS_PAGE / 512)

/* A target md puts back where it was: its own member in its own role, not
 * a spare and not a new device (md's saved_raid_disk). */
static bool own_role(const struct rebuild_target *t)
{
	return t->readd && t->m->state != MEMBER_SPARE && t->m->sb.role == t->role;
}

static int own_roles(const struct rebuild_target *t, int n)
{
	int i, own = 0;

	for (i = 0; i < n; i++)
		own += own_role(&t[i]);
	return own;
}

/* Why md would recover t whole although it comes back in its own role;
 * NULL when the bitmap serves.  super_1_validate: a member older than the
 * bitmap's events_cleared is taken as a spare; one whose recorded
 * recovery is no bitmap one resumes whole. */
static const char *whole_because(const struct rebuild_target *t, const struct md_bitmap *bm, char *buf,
				 size_t len)
{
	const struct md_super *sb = &t->m->sb;

	if (sb->major == 1 && (sb->feature_map & SB1_FEAT_RECOVERY_OFFSET) &&
	    !(sb->feature_map & SB1_FEAT_RECOVERY_BITMAP))
		return "its recorded recovery is a whole one";
	if (sb->events < bm->events_cleared) {
		snprintf(buf, len, "its events %llu are older than the bitmap's events_cleared %llu",
			 (unsigned long long)sb->events, (unsigned long long)bm->events_cleared);
		return buf;
	}
	return NULL;
}

/* Why no target of the run is recovered from the bitmap, into p->why
 * (empty when none is re-added at all); false when the bitmap serves. */
static bool whole(const struct array *a, const struct rebuild_target *t, int n, struct readd_plan *p)
{
	const struct md_bitmap *bm;
	const char *why = NULL;
	char buf[160];
	int i, own = own_roles(t, n);

	if (own == 0)
		return true;
	if (own < n)
		why = "a new member joins it, and md then recovers every member whole";
	else if (!a->intent)
		why = "the array keeps no write-intent bitmap";
	if (why) {
		snprintf(p->why, sizeof(p->why), "%s", why);
		return true;
	}
	bm = &a->intent->bm;
	/* md_bitmap_read_sb: a bitmap behind the superblocks is stale,
	 * every bit taken as set */
	if ((bm->state & BITMAP_STALE) || bm->events < a->ref->events) {
		snprintf(p->why, sizeof(p->why), "the bitmap is stale (its events %llu, the array's %llu)",
			 (unsigned long long)bm->events, (unsigned long long)a->ref->events);
		return true;
	}
	for (i = 0; i < n; i++)
		if ((why = whole_because(&t[i], bm, buf, sizeof(buf)))) {
			snprintf(p->why, sizeof(p->why), "%s: %s", t[i].m->path, why);
			return true;
		}
	return false;
}

static bool bit_set(const struct intent *x, uint64_t b)
{
	return b < x->bm.bits && (x->bits[b / 8] >> (b % 8)) & 1;
}

/* Whether any bit over array-space sectors [s, s + len) is set. */
static bool any_set(const struct intent *x, uint64_t s, uint64_t len)
{
	uint64_t b;

	for (b = s / x->sectors_per_bit; b <= (s + len - 1) / x->sectors_per_bit; b++)
		if (bit_set(x, b))
			return true;
	return false;
}

/* Whether member sectors [ms, ms + len) of role changed while it was away.
 * md's bits count member sectors, raid10's array sectors: a raid10
 * member's run maps to the array sectors it keeps a copy of (one run
 * within one raid chunk maps to one run). */
static bool changed(const struct array *a, int role, uint64_t ms, uint64_t len)
{
	uint64_t s = ms;

	if (a->geo.level == MD_LEVEL_RAID10 && (s = layout_array_sector(&a->geo, role, ms)) == UINT64_MAX)
		return false;        /* beyond the copies: md recovers nothing there */
	return any_set(a->intent, s, len);
}

/* Adds [start, end), joined to the last range when they touch. */
static int add_range(struct readd_plan *p, uint64_t start, uint64_t end, struct diag *d)
{
	struct rebuild_range *r;

	if (p->n && p->range[p->n - 1].end >= start) {
		p->range[p->n - 1].end = end;
		return 0;
	}
	if (p->n == p->cap) {
		int cap = p->cap ? 2 * p->cap : 16;

		if (!(r = realloc(p->range, (size_t)cap * sizeof(*r))))
			return diag_fail(d, "out of memory for the bitmap's ranges");
		p->range = r;
		p->cap = cap;
	}
	p->range[p->n++] = (struct rebuild_range){ start, end };
	return 0;
}

/* The step the member is looked at in: a bit's worth (raid10: no more
 * than a raid chunk, whose run maps to one array run), whole pages. */
static uint64_t unit_of(const struct array *a)
{
	uint64_t unit = a->intent->sectors_per_bit;

	if (a->geo.level == MD_LEVEL_RAID10 && a->geo.chunk_sectors && a->geo.chunk_sectors < unit)
		unit = a->geo.chunk_sectors;
	return unit < PAGE_SECTORS ? PAGE_SECTORS : unit;
}

static int find_ranges(const struct array *a, const struct rebuild_target *t, int n, struct readd_plan *p,
		       struct diag *d)
{
	uint64_t unit = unit_of(a), ms, len;
	int i;

	for (ms = 0; ms < p->end; ms += unit) {
		len = p->end - ms < unit ? p->end - ms : unit;
		for (i = 0; i < n && !changed(a, t[i].role, ms, len); i++)
			;
		if (i < n && add_range(p, ms, ms + len, d) < 0)
			return -1;
	}
	return 0;
}

static uint64_t count_set(const struct intent *x)
{
	uint64_t b, k = 0;

	for (b = 0; b < x->bm.bits; b++)
		k += bit_set(x, b);
	return k;
}

/* Where the rebuild starts, as it will: the least recorded progress of
 * the targets, down to a raid chunk (a page for raid1). */
static uint64_t resumed_from(const struct array *a, const struct rebuild_target *t, int n, bool restart,
			     uint64_t end)
{
	uint64_t align = a->geo.chunk_sectors ? a->geo.chunk_sectors : PAGE_SECTORS, from = end, r;
	int i;

	for (i = 0; i < n; i++) {
		r = restart || t[i].resume > end ? 0 : t[i].resume;
		r -= r % align;
		if (r < from)
			from = r;
	}
	return from;
}

int readd_plan(struct array *a, struct rebuild_target *t, int n, bool restart, struct readd_plan *p,
	       struct diag *d)
{
	int i;

	memset(p, 0, sizeof(*p));
	p->end = a->geo.level == MD_LEVEL_RAID1 ? a->geo.array_sectors : a->geo.dev_sectors;
	p->from = resumed_from(a, t, n, restart, p->end);
	/* no member comes back: nothing to read the bitmap for */
	if (own_roles(t, n) == 0)
		return 0;
	if (intent_open(a, d) < 0)
		return -1;
	if (whole(a, t, n, p))
		return 0;
	p->chunk_bytes = a->intent->bm.chunksize;
	p->bits = a->intent->bm.bits;
	p->dirty_bits = count_set(a->intent);
	if (find_ranges(a, t, n, p, d) < 0) {
		readd_plan_free(p);
		return -1;
	}
	p->bitmap = true;
	for (i = 0; i < n; i++)
		t[i].bitmap = true;
	return 0;
}

uint64_t readd_copy_sectors(const struct readd_plan *p)
{
	if (!p->bitmap)
		return p->end - p->from;
	return rebuild_ranges_within(p->range, p->n, p->from, p->end);
}

void readd_plan_free(struct readd_plan *p)
{
	free(p->range);
	p->range = NULL;
	p->n = p->cap = 0;
}
