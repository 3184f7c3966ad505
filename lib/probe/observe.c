/* observe: the rows of a parity set read one by one: XOR and zero blocks
 * for RAID4/5, the syndrome solved for RAID6. */
#include <string.h>

#include "probe/blocks.h"
#include "probe/observe.h"
#include "probe/syndrome.h"

static void set_blocks(const struct parity_set *set, const uint8_t *const *all, const uint8_t **blk)
{
	for (int k = 0; k < set->n; k++)
		blk[k] = all[set->member[k]];
}

static bool any_data(const uint8_t *const *blk, int n)
{
	for (int k = 0; k < n; k++)
		if (blk[k] && !block_zero(blk[k]))
			return true;
	return false;
}

/* Rows short of rank wait here, while they name the same Q at consecutive
 * offsets (one chunk, as far as anyone can tell), to be solved together. */
#define RUN_MAX 32

struct pending {
	int nrows, q;
	uint64_t off[RUN_MAX];
	const uint8_t *blk[RUN_MAX * PSET_MAX];
};

static int q_tagged(const int16_t *tag, int n)
{
	for (int k = 0; k < n; k++)
		if (tag[k] == TAG_Q)
			return k;
	return -1;
}

static int record(struct set_rows *sr, uint64_t off, const int16_t *tag, int v, struct diag *d)
{
	struct row_obs r;

	sr->with_data++;
	sr->inconsistent += v == ROW_INCONSISTENT;
	if (v != ROW_DECIDED)
		return 0;
	memset(&r, 0, sizeof(r));
	r.off = off;
	memcpy(r.tag, tag, sizeof(r.tag));
	if (sr->obs.n == 0 || off < sr->first)
		sr->first = off;
	if (obs_add(&sr->obs, &r) < 0)
		return diag_fail(d, "out of memory for the syndrome rows");
	return 0;
}

static int flush(struct set_rows *sr, struct pending *p, struct syndrome_scratch *sc, struct diag *d)
{
	int16_t tag[PSET_MAX];
	int n = sr->set->n, v;

	if (!p->nrows)
		return 0;
	v = syndrome_run(p->blk, p->nrows, n, tag, sc);
	if (v == ROW_SHORT) {
		/* Q is known still: a row of evidence for where it lies */
		sr->q_only += p->nrows;
		v = ROW_DECIDED;
	}
	for (int i = 0; i < p->nrows; i++)
		if (record(sr, p->off[i], tag, v, d) < 0)
			return -1;
	p->nrows = 0;
	return 0;
}

static int observe_raid6(const struct probe_sample *s, struct set_rows *sr, struct diag *d)
{
	const uint8_t *all[ST_MAX_DISKS], *blk[PSET_MAX];
	struct pending p;
	struct syndrome_scratch sc;
	int16_t tag[PSET_MAX];
	int rows = sample_rows(s), n = sr->set->n, rc = 0;

	if (syndrome_scratch_init(&sc) < 0)
		return diag_fail(d, "out of memory for the syndrome rows");
	p.nrows = 0;
	for (int i = 0; i < rows && rc == 0; i++) {
		uint64_t off = sample_row(s, i, all);
		set_blocks(sr->set, all, blk);
		int v = syndrome_run(blk, 1, n, tag, &sc);
		if (v != ROW_SHORT) {
			rc = flush(sr, &p, &sc, d);
			if (rc == 0 && (v != ROW_UNDECIDED || any_data(blk, n)))
				rc = record(sr, off, tag, v, d);
			continue;
		}
		int q = q_tagged(tag, n);
		if (p.nrows && (q != p.q || off != p.off[p.nrows - 1] + PROBE_BLOCK || p.nrows == RUN_MAX))
			rc = flush(sr, &p, &sc, d);
		p.q = q;
		p.off[p.nrows] = off;
		memcpy(p.blk + (size_t)p.nrows * (size_t)n, blk, sizeof(blk[0]) * (size_t)n);
		p.nrows++;
	}
	if (rc == 0)
		rc = flush(sr, &p, &sc, d);
	syndrome_scratch_free(&sc);
	return rc;
}

/* P is read at the sector: a file's last block is zero past its end, and a
 * sector of zeros beside data shows that member is no P at that offset. */
#define SECTOR 512u

static bool span_zero(const uint8_t *p, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (p[i])
			return false;
	return true;
}

/* Nonzero spans that pair off equal XOR to zero as data would with P zero:
 * duplicated files do that.  Such a span cannot say P holds data. */
static bool in_pairs(const uint8_t *const *blk, int n, size_t at, uint32_t nonzero)
{
	uint32_t left = nonzero;

	if (__builtin_popcount(nonzero) % 2)
		return false;
	while (left) {
		int a = __builtin_ctz(left), b;
		left &= left - 1;
		for (b = a + 1; b < n; b++)
			if (left >> b & 1 && memcmp(blk[a] + at, blk[b] + at, SECTOR) == 0)
				break;
		if (b == n)
			return false;
		left &= ~(1u << b);
	}
	return true;
}

/* The members that hold data in every sector of the row that has any:
 * P is among them.  Sectors whose data pairs off say so in *pair only: a
 * lone pair is most often P and its one data sector, but may be a sector
 * and its copy with P zero. */
static uint32_t may_be_p(const uint8_t *const *blk, int n, uint32_t *pair)
{
	uint32_t may = (uint32_t)((1ull << n) - 1);

	*pair = may;
	for (size_t at = 0; at < PROBE_BLOCK; at += SECTOR) {
		uint32_t nonzero = 0;
		for (int k = 0; k < n; k++)
			if (!span_zero(blk[k] + at, SECTOR))
				nonzero |= 1u << k;
		if (!nonzero)
			continue;
		if (!in_pairs(blk, n, at, nonzero))
			may &= nonzero;
		else if (__builtin_popcount(nonzero) == 2)
			*pair &= nonzero;
	}
	return may;
}

static int observe_raid5(const struct probe_sample *s, struct set_rows *sr, struct diag *d)
{
	const uint8_t *all[ST_MAX_DISKS], *blk[PSET_MAX];
	uint8_t x[PROBE_BLOCK];
	struct row_obs r;
	int rows = sample_rows(s), n = sr->set->n;

	for (int i = 0; i < rows; i++) {
		bool data = false;
		memset(&r, 0, sizeof(r));
		r.off = sample_row(s, i, all);
		set_blocks(sr->set, all, blk);
		memset(x, 0, sizeof(x));
		for (int k = 0; k < n; k++)
			if (!block_zero(blk[k])) {
				data = true;
				block_xor(x, blk[k]);
			}
		if (!data)
			continue;
		sr->with_data++;
		if (!block_zero(x)) {
			sr->inconsistent++;
			continue;
		}
		r.pmask = may_be_p(blk, n, &r.pair_mask);
		if (sr->obs.n == 0)
			sr->first = r.off;
		if (obs_add(&sr->obs, &r) < 0)
			return diag_fail(d, "out of memory for the parity rows");
	}
	return 0;
}

int observe_set(const struct probe_sample *s, struct set_rows *sr, struct diag *d)
{
	return sr->set->raid6 ? observe_raid6(s, sr, d) : observe_raid5(s, sr, d);
}
