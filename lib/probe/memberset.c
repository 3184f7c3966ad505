/* memberset: the member subsets whose blocks XOR to zero, found on block
 * fingerprints (linear, so a subset's XOR is the XOR of its prints): every
 * subset of up to 16 members costs a few operations per sampled row. */
#include <stdlib.h>
#include <string.h>

#include "probe/blocks.h"
#include "probe/memberset.h"

#define SEARCH_ROWS 256
#define SUBSET_SEARCH_MAX 16          /* members: beyond, only all of them together are tried */
#define FIT 0.95                      /* share of rows a set must hold in: a few may be damaged */
#define MIN_ROWS 4

struct prints {
	int np, nrows;
	int present[ST_MAX_DISKS];        /* print column -> member index */
	uint64_t *fp;                     /* nrows x np */
};

static uint64_t print_at(const struct prints *p, int row, int k)
{
	return p->fp[(size_t)row * (size_t)p->np + (size_t)k];
}

static int nonzero_prints(const uint64_t *fp, int np)
{
	int c = 0;

	for (int k = 0; k < np; k++)
		c += fp[k] != 0;
	return c;
}

/* Rows spread over the sample that hold data on two members or more. */
static int prints_take(const struct probe_sample *s, struct prints *p)
{
	const uint8_t *blk[ST_MAX_DISKS];
	int total = sample_rows(s), stride;

	p->np = p->nrows = 0;
	for (int m = 0; m < s->nmembers; m++)
		if (s->members[m].path)
			p->present[p->np++] = m;
	p->fp = malloc(sizeof(*p->fp) * SEARCH_ROWS * (size_t)(p->np ? p->np : 1));
	if (!p->fp)
		return -1;
	stride = total / (4 * SEARCH_ROWS) + 1;
	for (int i = 0; i < total && p->nrows < SEARCH_ROWS; i += stride) {
		uint64_t *row = p->fp + (size_t)p->nrows * (size_t)p->np;
		sample_row(s, i, blk);
		for (int k = 0; k < p->np; k++)
			row[k] = block_print(blk[p->present[k]]);
		if (nonzero_prints(row, p->np) >= 2)
			p->nrows++;
	}
	return 0;
}

/* Does the row fit the mask as RAID4/5 (XOR zero) or as RAID6 (XOR equal to
 * one member's block, Q's)?  *support: some member of the mask holds data;
 * *named: the XOR is nonzero, so the row names a Q. */
static bool row_fits(const struct prints *p, int row, uint64_t mask, bool raid6, bool *support, bool *named)
{
	uint64_t x = 0, any = 0;

	for (int k = 0; k < p->np; k++)
		if (mask >> k & 1) {
			x ^= print_at(p, row, k);
			any |= print_at(p, row, k);
		}
	*support = any != 0;
	*named = x != 0;
	if (!raid6)
		return x == 0;
	for (int k = 0; k < p->np; k++)
		if (mask >> k & 1 && print_at(p, row, k) == x)
			return true;
	return false;
}

static bool mask_fits(const struct prints *p, uint64_t mask, bool raid6, int *rows, int *fitting)
{
	int misses = 0, named = 0, allowed = (int)(p->nrows * (1 - FIT)) + 1;

	*rows = *fitting = 0;
	for (int i = 0; i < p->nrows && misses <= allowed; i++) {
		bool support, nz;
		bool fits = row_fits(p, i, mask, raid6, &support, &nz);
		if (!support)
			continue;
		++*rows;
		named += nz;
		if (fits)
			++*fitting;
		else
			misses++;
	}
	if (*rows < MIN_ROWS || *fitting < FIT * *rows)
		return false;
	return !raid6 || 2 * named >= *rows;
}

/* Two members equal wherever either holds data are copies: mirror's
 * evidence, and a RAID5 of them would fit any XOR test. */
static bool holds_copies(const struct prints *p, uint64_t mask)
{
	for (int a = 0; a < p->np; a++)
		for (int b = a + 1; b < p->np; b++) {
			if (!(mask >> a & 1) || !(mask >> b & 1))
				continue;
			int rows = 0, equal = 0;
			for (int i = 0; i < p->nrows; i++) {
				uint64_t fa = print_at(p, i, a), fb = print_at(p, i, b);
				if (fa | fb) {
					rows++;
					equal += fa == fb;
				}
			}
			if (rows && equal >= FIT * rows)
				return true;
		}
	return false;
}

static void set_from(const struct prints *p, uint64_t mask, bool raid6, int rows, int fitting,
		     struct parity_set *out)
{
	out->n = 0;
	for (int k = 0; k < p->np; k++)
		if (mask >> k & 1)
			out->member[out->n++] = p->present[k];
	out->raid6 = raid6;
	out->rows = rows;
	out->fitting = fitting;
}

static bool holds_one_of(uint64_t mask, const uint64_t *found, int nfound)
{
	for (int i = 0; i < nfound; i++)
		if ((mask & found[i]) == found[i])
			return true;
	return false;
}

/* Tries mask as RAID4/5 then RAID6; returns whether a set was added. */
static bool try_mask(const struct prints *p, uint64_t mask, struct parity_set *out)
{
	int size = __builtin_popcountll(mask), rows, fitting;

	if (size >= 3 && mask_fits(p, mask, false, &rows, &fitting) && !holds_copies(p, mask)) {
		set_from(p, mask, false, rows, fitting, out);
		return true;
	}
	if (size >= 4 && mask_fits(p, mask, true, &rows, &fitting) && !holds_copies(p, mask)) {
		set_from(p, mask, true, rows, fitting, out);
		return true;
	}
	return false;
}

static int search_subsets(const struct prints *p, struct parity_set *out, int max)
{
	uint64_t found[MAX_PARITY_SETS];
	int nfound = 0;

	for (int size = 3; size <= p->np && nfound < max && nfound < MAX_PARITY_SETS; size++)
		for (uint64_t mask = 0; mask < (1ull << p->np) && nfound < max; mask++) {
			if (__builtin_popcountll(mask) != size || holds_one_of(mask, found, nfound))
				continue;
			if (try_mask(p, mask, &out[nfound]))
				found[nfound++] = mask;
		}
	return nfound;
}

/* A RAID6 whose Q stays on one member (the -6 layouts) shows as a RAID5 of
 * the others, Q beside it: any member beside a zero-XOR set passes the
 * prints' test, so Q's is told by solving rows of the set with it. */
#define Q_TRIAL_ROWS 16

static bool solves_as_q(const struct probe_sample *s, const struct parity_set *set, int x,
			struct syndrome_scratch *sc)
{
	const uint8_t *all[ST_MAX_DISKS], *blk[PSET_MAX];
	int16_t tag[PSET_MAX];
	int tried = 0, decided = 0, rows = sample_rows(s);

	for (int i = 0; i < rows && tried < Q_TRIAL_ROWS; i++) {
		sample_row(s, i, all);
		for (int k = 0; k < set->n; k++)
			blk[k] = all[set->member[k]];
		blk[set->n] = all[x];
		if (block_zero(blk[set->n]))
			continue;
		int v = syndrome_run(blk, 1, set->n + 1, tag, sc);
		if (v == ROW_UNDECIDED)
			continue;
		tried++;
		decided += v == ROW_DECIDED || v == ROW_SHORT;
	}
	return tried >= MIN_ROWS && 4 * decided >= 3 * tried;
}

static bool in_a_set(const struct parity_set *sets, int n, int member)
{
	for (int i = 0; i < n; i++)
		for (int k = 0; k < sets[i].n; k++)
			if (sets[i].member[k] == member)
				return true;
	return false;
}

static void find_fixed_q(const struct probe_sample *s, struct parity_set *sets, int n)
{
	struct syndrome_scratch sc;

	if (syndrome_scratch_init(&sc) < 0)
		return;
	for (int i = 0; i < n; i++) {
		if (sets[i].raid6 || sets[i].n + 1 > PSET_MAX)
			continue;
		for (int x = 0; x < s->nmembers; x++) {
			if (!s->members[x].path || in_a_set(sets, n, x) || !solves_as_q(s, &sets[i], x, &sc))
				continue;
			sets[i].member[sets[i].n++] = x;
			sets[i].raid6 = true;
			break;
		}
	}
	syndrome_scratch_free(&sc);
}

int parity_sets_find(const struct probe_sample *s, struct parity_set *out, int max)
{
	struct prints p;
	int n = 0;

	if (max < 1 || prints_take(s, &p) < 0)
		return 0;
	/* two arrays' sets XOR to zero together as well: smallest sets first */
	if (p.np >= 3 && p.np <= SUBSET_SEARCH_MAX)
		n = search_subsets(&p, out, max);
	else if (p.np >= 3 && p.np <= PSET_MAX)
		n = try_mask(&p, (1ull << p.np) - 1, &out[0]);
	free(p.fp);
	find_fixed_q(s, out, n);
	return n;
}
