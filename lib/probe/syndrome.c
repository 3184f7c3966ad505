/* syndrome: a RAID6 row's P, Q and data slots found from the bytes, by
 * solving Q = sum c_k X_k over GF(256) rather than trying orders. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "probe/blocks.h"
#include "probe/syndrome.h"
#include "raid/parity.h"

/* Equations checked beyond full rank before a solution is trusted (the
 * whole block is checked after). */
#define SPARE_EQUATIONS 4
/* Byte positions a row is scanned at before its system is called short of
 * rank: a quarter of the block, spread over it; whatever is solved is
 * checked on the whole block after. */
#define MAX_POSITIONS 1024
#define STEP 61                       /* coprime with the block size: visits every byte */

int syndrome_scratch_init(struct syndrome_scratch *sc)
{
	void *p = NULL;

	if (posix_memalign(&p, PARITY_ALIGN, (size_t)(PSET_MAX + 3) * PROBE_BLOCK) != 0)
		return -1;
	sc->mem = p;
	return 0;
}

void syndrome_scratch_free(struct syndrome_scratch *sc)
{
	free(sc->mem);
	sc->mem = NULL;
}

static uint8_t *scratch_block(struct syndrome_scratch *sc, int i)
{
	return sc->mem + (size_t)i * PROBE_BLOCK;
}

/* Gauss-Jordan elimination fed one equation at a time: each pivot row keeps
 * a 1 in its own column and 0 in every other pivot's. */
struct gf_system {
	int unknowns, rank;
	int pivot_col[PSET_MAX];
	uint8_t row[PSET_MAX][PSET_MAX + 1];     /* coefficients, then the right side */
};

static void scale_row(uint8_t *row, int len, uint8_t by)
{
	for (int i = 0; i < len; i++)
		row[i] = md_gf_mul(row[i], by);
}

static void sub_row(uint8_t *row, const uint8_t *pivot, int len, uint8_t times)
{
	for (int i = 0; i < len; i++)
		row[i] ^= md_gf_mul(pivot[i], times);
}

/* Returns false when the equation contradicts the ones before it. */
static bool gf_add_equation(struct gf_system *g, uint8_t *e)
{
	int len = g->unknowns + 1, col = -1;

	for (int r = 0; r < g->rank; r++)
		if (e[g->pivot_col[r]])
			sub_row(e, g->row[r], len, e[g->pivot_col[r]]);
	for (int c = 0; c < g->unknowns && col < 0; c++)
		if (e[c])
			col = c;
	if (col < 0)
		return e[g->unknowns] == 0;
	scale_row(e, len, md_gf_inv(e[col]));
	for (int r = 0; r < g->rank; r++)
		if (g->row[r][col])
			sub_row(g->row[r], e, len, g->row[r][col]);
	memcpy(g->row[g->rank], e, (size_t)len);
	g->pivot_col[g->rank++] = col;
	return true;
}

/* Rows solved together: row r's block of member k is blk[r * n + k]. */
struct run {
	const uint8_t *const *blk;
	int nrows, n;
};

/* The blocks of one Q hypothesis: the unknowns' columns, and the right side. */
struct hypothesis {
	int q;                             /* member taken as Q */
	int missing;                       /* the member away, -1 for none */
	int nu;
	int member[PSET_MAX];              /* unknown -> member */
	uint8_t coef[PSET_MAX];
};

enum solved { SOLVED, CONTRADICTED, SHORT_OF_RANK };

/* A byte position where every unknown's byte is the same x says only
 * sum(c) = rhs / x: once one such has gone into the system, the others are
 * checked against its ratio alone.  Structured data (blocks alike but for a
 * few bytes) is mostly such positions, and would cost an elimination each. */
struct uniform {
	bool seen;
	uint8_t ratio;
};

static bool uniform_agrees(struct uniform *un, uint8_t x, uint8_t rhs, bool *feed)
{
	*feed = false;
	if (x == 0)
		return rhs == 0;
	uint8_t ratio = md_gf_mul(rhs, md_gf_inv(x));
	if (!un->seen) {
		un->seen = true;
		un->ratio = ratio;
		*feed = true;
		return true;
	}
	return ratio == un->ratio;
}

static bool all_same(const uint8_t *e, int nu)
{
	for (int u = 1; u < nu; u++)
		if (e[u] != e[0])
			return false;
	return true;
}

/* A coefficient is 0 (P) or g^slot, each at most once. */
static bool coefficients_valid(const uint8_t *coef, int nu)
{
	bool seen[256] = { false };

	for (int u = 0; u < nu; u++) {
		if (seen[coef[u]])
			return false;
		seen[coef[u]] = true;
	}
	return true;
}

/* Blocks alike but for a few bytes leave the system short of rank.  The
 * solutions are then an affine space, and only the points of it whose
 * coefficients are 0 or g^s for slots md can have name a row: the free
 * unknowns are tried over those values (a handful each), the pivots
 * follow.  One such point decides the row; several leave it open. */
#define MAX_POINTS 20000

static enum solved within_layouts(const struct gf_system *g, struct hypothesis *h, int n)
{
	int free_col[PSET_MAX], nfree = 0, nvalues = n + 1, points = 1, valid = 0, away = h->missing >= 0;
	bool pivot[PSET_MAX] = { false };
	uint8_t values[PSET_MAX + 1], coef[PSET_MAX], found[PSET_MAX];

	for (int r = 0; r < g->rank; r++)
		pivot[g->pivot_col[r]] = true;
	for (int c = 0; c < h->nu; c++)
		if (!pivot[c])
			free_col[nfree++] = c;
	values[0] = 0;
	for (int v = 1; v < nvalues; v++)
		values[v] = md_gf_exp(v - 1);          /* DDF's slots run to n - 1 */
	for (int f = 0; f < nfree + away; f++) {
		points *= nvalues;
		if (points > MAX_POINTS)
			return SHORT_OF_RANK;
	}
	for (int pt = 0; pt < points && valid < 2; pt++) {
		int rest = pt;
		for (int f = 0; f < nfree; f++, rest /= nvalues)
			coef[free_col[f]] = values[rest % nvalues];
		for (int r = 0; r < g->rank; r++) {
			uint8_t x = g->row[r][h->nu];
			for (int f = 0; f < nfree; f++)
				x ^= md_gf_mul(g->row[r][free_col[f]], coef[free_col[f]]);
			coef[g->pivot_col[r]] = x;
		}
		/* the missing block is the sum of the others: its coefficient c
		 * was added to each of theirs, and comes off again here */
		if (away) {
			coef[h->nu] = values[rest % nvalues];
			for (int c = 0; c < h->nu; c++)
				coef[c] ^= coef[h->nu];
		}
		if (!coefficients_valid(coef, h->nu + away))
			continue;
		bool in_range = true;
		for (int c = 0; c < h->nu + away && in_range; c++)
			in_range = coef[c] == 0 || md_gf_log(coef[c]) < n;
		if (!in_range)
			continue;
		if (valid++ == 0)
			memcpy(found, coef, (size_t)(h->nu + away));
	}
	if (valid != 1)
		return valid ? SHORT_OF_RANK : CONTRADICTED;
	if (away)
		h->member[h->nu++] = h->missing;
	memcpy(h->coef, found, (size_t)h->nu);
	return SOLVED;
}

/* Feeds the rows' byte positions, a row after another at each position,
 * until the system has full rank and a few more equations agree. */
static enum solved solve(const struct run *rn, struct hypothesis *h)
{
	struct gf_system g = { .unknowns = h->nu };
	struct uniform un = { false, 0 };
	uint8_t e[PSET_MAX + 1];
	int spare = 0;

	if (h->nu <= 0 || h->nu >= PSET_MAX)
		return SHORT_OF_RANK;
	for (int t = 0; t < MAX_POSITIONS && (g.rank < h->nu || spare < SPARE_EQUATIONS); t++) {
		size_t j = (size_t)(t * STEP) % PROBE_BLOCK;
		for (int r = 0; r < rn->nrows && (g.rank < h->nu || spare < SPARE_EQUATIONS); r++) {
			const uint8_t *const *blk = rn->blk + (size_t)r * (size_t)rn->n;
			bool feed = true;
			for (int u = 0; u < h->nu; u++)
				e[u] = blk[h->member[u]][j];
			e[h->nu] = blk[h->q][j];
			if (h->nu > 1 && all_same(e, h->nu) && !uniform_agrees(&un, e[0], e[h->nu], &feed))
				return CONTRADICTED;
			if (!feed)
				continue;
			int before = g.rank;
			if (!gf_add_equation(&g, e))
				return CONTRADICTED;
			if (g.rank == h->nu && before == h->nu)
				spare++;
		}
	}
	if (g.rank < h->nu || h->missing >= 0)
		return within_layouts(&g, h, rn->n);
	for (int r = 0; r < g.rank; r++)
		h->coef[g.pivot_col[r]] = g.row[r][h->nu];
	return SOLVED;
}

/* The XOR of a row's blocks but q's (q -1: of all), into out. */
static void xor_but(const uint8_t *const *blk, int n, int q, uint8_t *out)
{
	memset(out, 0, PROBE_BLOCK);
	for (int m = 0; m < n; m++)
		if (m != q && blk[m])
			block_xor(out, blk[m]);
}

/* The unknowns: every member but Q that holds data in some row of the run
 * (an all-zero block shows no coefficient).  A missing member's block is
 * the XOR of the others but Q (P's equation), so its coefficient cannot be
 * told from theirs by elimination: it is tried over the values md allows
 * once the rest is solved. */
static void set_up(const struct run *rn, int q, const bool *silent, struct hypothesis *h)
{
	h->q = q;
	h->missing = -1;
	h->nu = 0;
	for (int k = 0; k < rn->n; k++)
		if (!rn->blk[k])
			h->missing = k;
		else if (k != q && !silent[k])
			h->member[h->nu++] = k;
}

/* Tags from the coefficients; false when they name no RAID6 row (two P's,
 * two members in one slot). */
static bool tags_from(const struct hypothesis *h, int n, int16_t *tag)
{
	bool slot_used[256] = { false };
	bool have_p = false;

	for (int k = 0; k < n; k++)
		tag[k] = TAG_UNKNOWN;
	tag[h->q] = TAG_Q;
	for (int u = 0; u < h->nu; u++) {
		int k = h->member[u];
		if (h->coef[u] == 0) {
			if (have_p)
				return false;
			have_p = true;
			tag[k] = TAG_P;
			continue;
		}
		int s = md_gf_log(h->coef[u]);
		if (slot_used[s])
			return false;
		slot_used[s] = true;
		tag[k] = (int16_t)s;
	}
	return true;
}

/* The whole block checked through the library's own syndrome code: the
 * data in their slots, zero where no member stands, must give Q. */
static bool q_holds(const uint8_t *const *blk, int n, const int16_t *tag, int q, struct syndrome_scratch *sc)
{
	void *b[PSET_MAX + 2];
	int nd = 0;
	uint8_t *zero = scratch_block(sc, PSET_MAX + 2);

	for (int k = 0; k < n; k++)
		if (tag[k] >= nd)
			nd = tag[k] + 1;
	if (nd > PSET_MAX)
		return false;
	memset(zero, 0, PROBE_BLOCK);
	for (int i = 0; i < nd; i++)
		b[i] = zero;
	for (int k = 0; k < n; k++) {
		if (tag[k] < 0)
			continue;
		uint8_t *copy = scratch_block(sc, tag[k]);
		if (blk[k]) {
			memcpy(copy, blk[k], PROBE_BLOCK);
		} else {
			memset(copy, 0, PROBE_BLOCK);
			for (int m = 0; m < n; m++)
				if (m != q && blk[m])
					block_xor(copy, blk[m]);
		}
		b[tag[k]] = copy;
	}
	b[nd] = scratch_block(sc, PSET_MAX);
	b[nd + 1] = scratch_block(sc, PSET_MAX + 1);
	parity_gen_pq(nd, PROBE_BLOCK, b);
	return block_equal(b[nd + 1], blk[q]);
}

static int missing_member(const uint8_t *const *blk, int n)
{
	for (int k = 0; k < n; k++)
		if (!blk[k])
			return k;
	return -1;
}

static const uint8_t *const *row_of(const struct run *rn, int r)
{
	return rn->blk + (size_t)r * (size_t)rn->n;
}

/* Q, with every member there, is the one block equal to the XOR of all
 * (P cancels the data): the members that are so in every row of the run.
 * With a member missing no XOR closes, and every present one is tried. */
static void q_choices(const struct run *rn, bool *may, struct syndrome_scratch *sc)
{
	uint8_t *all = scratch_block(sc, PSET_MAX + 2);

	for (int k = 0; k < rn->n; k++)
		may[k] = true;
	for (int r = 0; r < rn->nrows; r++) {
		const uint8_t *const *blk = row_of(rn, r);
		bool closes = missing_member(blk, rn->n) < 0;
		if (closes)
			xor_but(blk, rn->n, -1, all);
		bool zero_all = closes && block_zero(all);
		for (int k = 0; k < rn->n; k++)
			may[k] = may[k] && blk[k] && (!closes || (!zero_all && block_equal(blk[k], all)));
	}
}

/* Members whose block is zero in every row of the run (a missing one is
 * not); false when every present block is. */
static bool silent_members(const struct run *rn, bool *silent)
{
	bool any = false;

	for (int k = 0; k < rn->n; k++) {
		silent[k] = true;
		for (int r = 0; r < rn->nrows && silent[k]; r++) {
			const uint8_t *b = row_of(rn, r)[k];
			silent[k] = b && block_zero(b);
		}
		any |= !silent[k] && row_of(rn, 0)[k];
	}
	return any;
}

/* With one member missing, rows where the others XOR to zero had Q there. */
static bool q_is_missing(const struct run *rn, int x, struct syndrome_scratch *sc)
{
	uint8_t *rest = scratch_block(sc, PSET_MAX + 2);

	if (x < 0)
		return false;
	for (int r = 0; r < rn->nrows; r++) {
		xor_but(row_of(rn, r), rn->n, -1, rest);
		if (!block_zero(rest))
			return false;
	}
	return true;
}

static void clear_tags(int16_t *tag, int n)
{
	for (int k = 0; k < n; k++)
		tag[k] = TAG_UNKNOWN;
}

int syndrome_run(const uint8_t *const *blk, int nrows, int n, int16_t *tag, struct syndrome_scratch *sc)
{
	struct run rn = { blk, nrows, n };
	int x = missing_member(blk, n);

	bool silent[PSET_MAX], may[PSET_MAX];

	clear_tags(tag, n);
	if (n > PSET_MAX || !silent_members(&rn, silent))
		return ROW_UNDECIDED;
	if (q_is_missing(&rn, x, sc)) {
		tag[x] = TAG_Q;
		return ROW_DECIDED;
	}

	struct hypothesis h, found = { .q = -1 };
	int solved = 0, short_q = -1;
	q_choices(&rn, may, sc);
	for (int q = 0; q < n; q++) {
		if (!may[q])
			continue;
		set_up(&rn, q, silent, &h);
		enum solved v = solve(&rn, &h);
		if (v == SOLVED) {
			found = h;
			solved++;
		}
		if (v == SHORT_OF_RANK)
			short_q = short_q == -1 ? q : -2;
	}
	if (solved > 1)
		return ROW_UNDECIDED;
	if (solved == 0 && short_q >= 0) {
		tag[short_q] = TAG_Q;       /* where rows to come may finish the system */
		return ROW_SHORT;
	}
	if (solved == 0)
		return short_q == -2 ? ROW_UNDECIDED : ROW_INCONSISTENT;
	bool holds = tags_from(&found, n, tag);
	for (int r = 0; r < nrows && holds; r++)
		holds = q_holds(row_of(&rn, r), n, tag, found.q, sc);
	if (!holds) {
		clear_tags(tag, n);
		return ROW_INCONSISTENT;
	}
	return ROW_DECIDED;
}
