/* rowfit: md's RAID4/5/6 layouts laid over the rows a parity set showed.
 * Every (data offset, chunk, layout) is tried; the rows vote for the member
 * in each role, and the fit is the share of rows that agree with the vote. */
#include <stdlib.h>
#include <string.h>

#include "md/layout.h"
#include "probe/rowfit.h"

#define MIN_CHUNK_SECTORS 8u          /* 4 KiB: md's smallest */
#define MAX_CHUNK_SECTORS 8192u       /* 4 MiB: beyond, a sample window holds no chunk boundary */
#define BIG_COMPONENT (1ull << 40)    /* sectors: any row the sample holds lies inside */

static const int raid6_layouts[] = { 2, 0, 3, 1, 18, 16, 19, 17, 8, 9, 10, 4, 5, 20 };
static const int raid5_rotations[] = { 2, 0, 3, 1 };

int obs_add(struct obs_list *o, const struct row_obs *r)
{
	if (o->n == o->cap) {
		int cap = o->cap ? 2 * o->cap : 256;
		struct row_obs *grown = realloc(o->row, sizeof(*grown) * (size_t)cap);
		if (!grown)
			return -1;
		o->row = grown;
		o->cap = cap;
	}
	o->row[o->n++] = *r;
	return 0;
}

void obs_free(struct obs_list *o)
{
	free(o->row);
	memset(o, 0, sizeof(*o));
}

static int chunk_choices(const struct probe_hints *h, uint32_t *out)
{
	int k = 0;

	if (h->chunk_sectors) {
		out[0] = h->chunk_sectors;
		return 1;
	}
	for (uint32_t c = MIN_CHUNK_SECTORS; c <= MAX_CHUNK_SECTORS; c *= 2)
		out[k++] = c;
	return k;
}

/* The stripe row a member offset lies in, -1 before the data. */
static int64_t stripe_row(uint64_t off, uint64_t doff, uint32_t chunk)
{
	if (off < doff * 512)
		return -1;
	return (int64_t)((off - doff * 512) / ((uint64_t)chunk * 512));
}

/* The role a RAID6 tag stands in under map m; -1 where the layout has none. */
static int role_of_tag(const struct stripe_map *m, int tag)
{
	if (tag == TAG_P)
		return m->pd;
	if (tag == TAG_Q)
		return m->qd;
	if (tag >= 0 && tag < m->syndrome_disks)
		return m->slot[tag];
	return -1;
}

struct votes {
	int n;
	int count[PSET_MAX][PSET_MAX];    /* role, set member */
};

static void order_from_votes(const struct votes *v, int *order, int *decided)
{
	bool taken[PSET_MAX] = { false };

	*decided = 0;
	for (int role = 0; role < v->n; role++)
		order[role] = PROBE_UNKNOWN;
	/* strongest votes first, so a stray row cannot take a member from its role */
	for (;;) {
		int best = 0, br = -1, bk = -1;
		for (int role = 0; role < v->n; role++)
			for (int k = 0; k < v->n; k++)
				if (order[role] == PROBE_UNKNOWN && !taken[k] && v->count[role][k] > best) {
					best = v->count[role][k];
					br = role;
					bk = k;
				}
		if (br < 0)
			break;
		order[br] = bk;
		taken[bk] = true;
		++*decided;
	}
}

/* Tries one RAID6 geometry: the rows vote, then count how many agree. */
static void try_raid6(const struct obs_list *o, int n, int layout, uint32_t chunk, uint64_t doff, struct fit *f)
{
	struct geometry g;
	struct stripe_map m;
	struct votes v = { .n = n };
	int64_t last = -1;

	memset(f, 0, sizeof(*f));
	f->layout = layout;
	f->chunk_sectors = chunk;
	f->data_offset = doff;
	if (geometry_init(&g, MD_LEVEL_RAID6, layout, n, chunk, BIG_COMPONENT, NULL, NULL) < 0)
		return;
	for (int pass = 0; pass < 2; pass++) {
		last = -1;
		for (int i = 0; i < o->n; i++) {
			const struct row_obs *r = &o->row[i];
			int64_t row = stripe_row(r->off, doff, chunk);
			bool agrees = row >= 0;
			if (pass)
				f->rows++;
			if (row < 0)
				continue;
			if (row != last)
				layout_stripe(&g, (uint64_t)row, &m);
			last = row;
			for (int k = 0; k < n; k++) {
				if (r->tag[k] == TAG_UNKNOWN)
					continue;
				int role = role_of_tag(&m, r->tag[k]);
				if (role < 0)
					agrees = false;
				else if (!pass)
					v.count[role][k]++;
				else if (f->order[role] != k)
					agrees = false;
			}
			f->fitting += pass && agrees;
		}
		if (!pass)
			order_from_votes(&v, f->order, &f->decided);
	}
}

static bool better(const struct fit *a, const struct fit *b)
{
	/* the share of rows first; then, the rows agreeing, the larger data
	 * offset (where the data was seen to begin), then the larger chunk
	 * (a half chunk splits rows the data keeps together) */
	uint64_t lhs = (uint64_t)a->fitting * (uint64_t)(b->rows ? b->rows : 1);
	uint64_t rhs = (uint64_t)b->fitting * (uint64_t)(a->rows ? a->rows : 1);

	if (lhs != rhs)
		return lhs > rhs;
	if (a->data_offset != b->data_offset)
		return a->data_offset > b->data_offset;
	return a->chunk_sectors > b->chunk_sectors;
}

/* P and Q on the same members in every row: parity-last, read the same as
 * parity-first and parity-first-6, with a chunk no row shows. */
static bool parity_never_moves(const struct obs_list *o, int n, int tag)
{
	int at = -1;

	for (int i = 0; i < o->n; i++)
		for (int k = 0; k < n; k++)
			if (o->row[i].tag[k] == tag) {
				if (at >= 0 && at != k)
					return false;
				at = k;
			}
	return at >= 0;
}

static bool layout_allowed(const struct probe_hints *h, int layout)
{
	return h->layout < 0 || h->layout == layout;
}

static int fixed_raid6(const struct obs_list *o, int n, const struct probe_hints *h, uint64_t doff, struct fit *f)
{
	/* parity-last unless a hint names parity-first or parity-first-6 */
	int layout = h->layout < 0 ? 5 : h->layout;

	if (layout != 4 && layout != 5 && layout != 20)
		return 0;
	try_raid6(o, n, layout, h->chunk_sectors ? h->chunk_sectors : MAX_CHUNK_SECTORS, doff, f);
	f->chunk_sectors = h->chunk_sectors;
	return f->fitting > 0;
}

int fit_raid6(const struct obs_list *o, int n, const struct probe_hints *h, const uint64_t *offs, int noffs,
	      struct fit *out, int max)
{
	uint32_t chunks[16];
	int nchunks = chunk_choices(h, chunks), nout = 0;

	if (n > PSET_MAX || noffs < 1 || max < 1)
		return 0;
	if (parity_never_moves(o, n, TAG_P) && parity_never_moves(o, n, TAG_Q))
		return fixed_raid6(o, n, h, offs[0], out);
	for (unsigned l = 0; l < sizeof(raid6_layouts) / sizeof(raid6_layouts[0]) && nout < max; l++) {
		if (!layout_allowed(h, raid6_layouts[l]))
			continue;
		struct fit best = { 0 }, f;
		for (int d = 0; d < noffs; d++)
			for (int c = 0; c < nchunks; c++) {
				try_raid6(o, n, raid6_layouts[l], chunks[c], offs[d], &f);
				/* offsets that fit alike: the largest, where the data was seen to begin */
				if (f.fitting && better(&f, &best))
					best = f;
			}
		if (best.fitting)
			out[nout++] = best;
	}
	/* best first; equal ones keep the table's order, mdadm's default first */
	for (int i = 1; i < nout; i++)
		for (int j = i; j > 0 && better(&out[j], &out[j - 1]); j--) {
			struct fit t = out[j - 1];
			out[j - 1] = out[j];
			out[j] = t;
		}
	return nout;
}

/* RAID4/5: a row shows only which members hold data, and P is among them
 * (P is zero only when its row's data XORs to zero, and rows where that may
 * be so tell nothing).  For each role P takes, P's member is one that holds
 * data in every row of the role; it is named when the others each have
 * rows where they hold none. */
struct p_fit {
	int zeros[PSET_MAX][PSET_MAX];    /* role, set member: rows of the role where it is zero */
	int pair_zeros[PSET_MAX][PSET_MAX];  /* and where a lone pair of sectors left it out */
	int role_rows[PSET_MAX];
	int order[PSET_MAX];              /* role -> set member, PROBE_UNKNOWN */
	int rows, decided;
	bool broken;                      /* a role where every member was zero in some row */
};

/* Rows of a role where a lone pair of sectors may leave P out: a sector and
 * its copy a chunk apart, with P zero, look like P and its one data sector.
 * Allowed in roles of many rows only, where one such row cannot decide. */
#define P_SLIPS 64

static bool never_zero(const struct p_fit *pf, int role, int k)
{
	return pf->zeros[role][k] == 0 && pf->pair_zeros[role][k] <= pf->role_rows[role] / P_SLIPS;
}

/* Names the roles with one member never zero, then again as members are
 * taken, so that a role left with one such member gets it. */
static void name_p(struct p_fit *pf, int n)
{
	bool taken[PSET_MAX] = { false }, named = true;

	for (int role = 0; role < n; role++) {
		pf->order[role] = PROBE_UNKNOWN;
		int choices = 0;
		for (int k = 0; k < n; k++)
			choices += never_zero(pf, role, k);
		pf->broken |= pf->role_rows[role] && !choices;
	}
	while (named) {
		named = false;
		for (int role = 0; role < n; role++) {
			if (pf->order[role] != PROBE_UNKNOWN || !pf->role_rows[role])
				continue;
			int choices = 0, only = -1;
			for (int k = 0; k < n; k++)
				if (!taken[k] && never_zero(pf, role, k)) {
					choices++;
					only = k;
				}
			pf->broken |= choices == 0;
			if (choices != 1)
				continue;
			pf->order[role] = only;
			taken[only] = true;
			pf->decided++;
			named = true;
		}
	}
}

static void try_p(const struct obs_list *o, int n, int level, int layout, uint32_t chunk, uint64_t doff,
		  struct p_fit *pf)
{
	struct geometry g;
	struct stripe_map m;

	memset(pf, 0, sizeof(*pf));
	if (geometry_init(&g, level, layout, n, chunk, BIG_COMPONENT, NULL, NULL) < 0)
		return;
	for (int pass = 0; pass < 2; pass++) {
		int64_t last = -1;
		for (int i = 0; i < o->n; i++) {
			int64_t row = stripe_row(o->row[i].off, doff, chunk);
			uint32_t mask = o->row[i].pmask;
			if (row < 0) {
				pf->rows += pass;
				continue;
			}
			if (row != last)
				layout_stripe(&g, (uint64_t)row, &m);
			last = row;
			if (!pass) {
				pf->role_rows[m.pd]++;
				for (int k = 0; k < n; k++) {
					pf->zeros[m.pd][k] += !(mask >> k & 1);
					pf->pair_zeros[m.pd][k] += !(o->row[i].pair_mask >> k & 1);
				}
				continue;
			}
			pf->rows++;
		}
		if (!pass)
			name_p(pf, n);
	}
}

/* A fit no row breaks first, then the one naming more roles. */
static int cmp_p(const struct p_fit *a, const struct p_fit *b)
{
	if (a->broken != b->broken)
		return a->broken ? -1 : 1;
	return (a->decided > b->decided) - (a->decided < b->decided);
}

static void fit_from_p(const struct p_fit *pf, int n, int layout, uint32_t chunk, uint64_t doff, struct fit *f)
{
	memset(f, 0, sizeof(*f));
	f->layout = layout;
	f->chunk_sectors = chunk;
	f->data_offset = doff;
	f->fitting = pf->broken ? 0 : pf->rows;
	f->rows = pf->rows;
	f->decided = pf->decided;
	memcpy(f->order, pf->order, sizeof(f->order[0]) * (size_t)n);
}

/* right-* walks P up the roles where left-* walks it down: the same rows
 * read with the order reversed, so parity cannot tell the two apart. */
static void reflect(struct fit *f, int n, int layout)
{
	int order[PSET_MAX];

	for (int role = 0; role < n; role++)
		order[role] = f->order[n - 1 - role];
	memcpy(f->order, order, sizeof(order[0]) * (size_t)n);
	f->layout = layout;
}

/* A fit with chunk 0 and every role unknown: what parity alone says of a
 * RAID5 whose rows never tell P from data. */
static int level_only(const struct p_fit *pf, int n, const struct probe_hints *h, uint64_t doff,
		      struct fit *out)
{
	fit_from_p(pf, n, -1, h->chunk_sectors, doff, out);
	for (int role = 0; role < n; role++)
		out->order[role] = PROBE_UNKNOWN;
	out->decided = 0;
	out->fitting = out->rows;
	return 1;
}

int fit_raid5(const struct obs_list *o, int n, const struct probe_hints *h, const uint64_t *offs, int noffs,
	      struct fit *out, int max, int *level)
{
	uint32_t chunks[16];
	int nchunks = chunk_choices(h, chunks), nout = 0, ties = 0;
	struct p_fit best, fixed, pf;
	uint32_t best_chunk = 0;
	uint64_t best_doff = offs[0];
	bool have = false;

	if (n > PSET_MAX || noffs < 1 || max < 4 || o->n == 0)
		return 0;
	for (int d = 0; d < noffs; d++)
		for (int c = 0; c < nchunks; c++) {
			try_p(o, n, MD_LEVEL_RAID5, 2, chunks[c], offs[d], &pf);
			int cmp = have ? cmp_p(&pf, &best) : 1;
			if (cmp > 0) {
				best = pf;
				best_chunk = chunks[c];
				best_doff = offs[d];
				ties = 0;
				have = true;
			} else if (cmp == 0 && chunks[c] != best_chunk) {
				ties++;
			}
		}
	try_p(o, n, MD_LEVEL_RAID4, 0, MAX_CHUNK_SECTORS, offs[0], &fixed);
	*level = MD_LEVEL_RAID5;
	/* P on one member in every row, while no rotation holds or names more
	 * (a chunk so large that every row sampled is one stripe row reads as
	 * raid4 too) */
	if (!fixed.broken && fixed.order[n - 1] != PROBE_UNKNOWN && (best.broken || best.decided <= fixed.decided) &&
	    (h->level < 0 || h->level == MD_LEVEL_RAID4)) {
		*level = MD_LEVEL_RAID4;
		fit_from_p(&fixed, n, 0, h->chunk_sectors, offs[0], &out[0]);
		return 1;
	}
	if (best.broken || ties || !best.decided)
		return level_only(&best, n, h, offs[0], &out[0]);
	for (unsigned l = 0; l < sizeof(raid5_rotations) / sizeof(raid5_rotations[0]); l++) {
		int layout = raid5_rotations[l];
		if (!layout_allowed(h, layout))
			continue;
		fit_from_p(&best, n, layout, best_chunk, best_doff, &out[nout]);
		if (layout == 3 || layout == 1)
			reflect(&out[nout], n, layout);
		nout++;
	}
	return nout;
}
