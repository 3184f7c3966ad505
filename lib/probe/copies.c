/* copies: equal blocks between members, found on block fingerprints and
 * confirmed byte for byte; at the same offset, one chunk on, or half a
 * member on. */
#include <stdlib.h>
#include <string.h>

#include "probe/blocks.h"
#include "probe/copies.h"

#define MIN_ROWS 4
#define MAX_OFFSET_CHUNK (512u << 10)
#define FAR_SPAN (2304u << 10)        /* how far before the middle a far copy may start */
#define FAR_PROBES 16                 /* head rows looked for near the middle */
#define FAR_CHECKS 64                 /* rows a far shift is then checked on */
#define LAYOUT_CHECKS 512             /* blocks a complete layout is checked on */

static int present_columns(const struct probe_sample *s, int *member)
{
	int np = 0;

	for (int m = 0; m < s->nmembers && np < COPIES_MAX; m++)
		if (s->members[m].path)
			member[np++] = m;
	return np;
}

void copies_same_offset(const struct probe_sample *s, struct copy_map *cm)
{
	const uint8_t *blk[ST_MAX_DISKS];
	uint64_t pr[COPIES_MAX];
	bool data[COPIES_MAX];
	int rows = sample_rows(s);

	memset(cm, 0, sizeof(*cm));
	cm->np = present_columns(s, cm->member);
	for (int i = 0; i < rows; i++) {
		uint64_t off = sample_row(s, i, blk);
		bool any = false;
		for (int a = 0; a < cm->np; a++) {
			const uint8_t *b = blk[cm->member[a]];
			data[a] = !block_zero(b);
			pr[a] = data[a] ? block_print(b) : 0;
			any |= data[a];
		}
		if (!any)
			continue;
		if (cm->rows++ == 0)
			cm->first = off;
		for (int a = 0; a < cm->np; a++)
			for (int b = a + 1; b < cm->np; b++) {
				if (!data[a] && !data[b])
					continue;
				cm->same[a][b].rows++;
				cm->same[a][b].equal += pr[a] == pr[b] &&
							block_equal(blk[cm->member[a]], blk[cm->member[b]]);
			}
	}
	for (int a = 0; a < cm->np; a++)
		for (int b = 0; b < a; b++)
			cm->same[a][b] = cm->same[b][a];
}

bool copies_equal(const struct copy_map *cm, int a, int b)
{
	const struct pair_count *p = &cm->same[a][b];

	return a != b && p->rows >= MIN_ROWS && p->equal >= COPIES_FIT * p->rows;
}

/* The sample's rows, with each present member's print, for the shifted
 * comparisons. */
struct print_rows {
	int nrows, np;
	uint64_t *off;
	int *window;
	uint64_t *pr;                     /* nrows x np; 0 for an all-zero block */
};

static uint64_t print_of(const struct print_rows *t, int row, int col)
{
	return t->pr[(size_t)row * (size_t)t->np + (size_t)col];
}

static int print_rows_take(const struct probe_sample *s, const struct copy_map *cm, struct print_rows *t)
{
	const uint8_t *blk[ST_MAX_DISKS];

	t->nrows = sample_rows(s);
	t->np = cm->np;
	t->off = malloc(sizeof(*t->off) * (size_t)(t->nrows + 1));
	t->window = malloc(sizeof(*t->window) * (size_t)(t->nrows + 1));
	t->pr = malloc(sizeof(*t->pr) * (size_t)(t->nrows + 1) * (size_t)(t->np + 1));
	if (!t->off || !t->window || !t->pr)
		return -1;
	for (int i = 0, w = 0, in_w = 0; i < t->nrows; i++) {
		if (in_w == (int)(s->windows[w].len / PROBE_BLOCK)) {
			w++;
			in_w = 0;
		}
		in_w++;
		t->window[i] = w;
		t->off[i] = sample_row(s, i, blk);
		for (int c = 0; c < t->np; c++) {
			const uint8_t *b = blk[cm->member[c]];
			t->pr[(size_t)i * (size_t)t->np + (size_t)c] = block_zero(b) ? 0 : block_print(b);
		}
	}
	return 0;
}

static void print_rows_free(struct print_rows *t)
{
	free(t->off);
	free(t->window);
	free(t->pr);
}

/* The member each member's copies go to, by majority; false unless every
 * member sends to one other and no two to the same (a permutation). */
static bool next_from_votes(int np, int votes[COPIES_MAX][COPIES_MAX], int *next)
{
	bool hit[COPIES_MAX] = { false };

	for (int a = 0; a < np; a++) {
		next[a] = -1;
		for (int b = 0, best = 0; b < np; b++)
			if (votes[a][b] > best) {
				best = votes[a][b];
				next[a] = b;
			}
		if (next[a] < 0 || hit[next[a]])
			return false;
		hit[next[a]] = true;
	}
	return true;
}

static void try_offset_shift(const struct probe_sample *s, const struct copy_map *cm, const struct print_rows *t,
			     int step, struct copy_shift *cs)
{
	const uint8_t *here[ST_MAX_DISKS], *there[ST_MAX_DISKS];
	int (*votes)[COPIES_MAX] = calloc(COPIES_MAX, sizeof(*votes));

	memset(cs, 0, sizeof(*cs));
	cs->shift = (uint64_t)step * PROBE_BLOCK;
	if (!votes)
		return;
	for (int i = 0; i + step < t->nrows; i++) {
		if (t->window[i] != t->window[i + step])
			continue;
		bool fetched = false;
		for (int a = 0; a < t->np; a++) {
			if (!print_of(t, i, a))
				continue;
			cs->rows++;
			for (int b = 0; b < t->np; b++) {
				if (b == a || print_of(t, i + step, b) != print_of(t, i, a))
					continue;
				if (!fetched) {
					sample_row(s, i, here);
					sample_row(s, i + step, there);
					fetched = true;
				}
				if (block_equal(here[cm->member[a]], there[cm->member[b]])) {
					cs->matched++;
					votes[a][b]++;
					break;
				}
			}
		}
	}
	if (!next_from_votes(t->np, votes, cs->next))
		cs->next[0] = -1;
	free(votes);
}

/* With c copies, every chunk row but each c'th holds a block again one
 * chunk on: (c - 1) / c of the rows.  Other shares are chance (blocks that
 * repeat, as parity of alike data does). */
#define SHARE_SLACK 0.05

static bool offset_copies(struct copy_shift *cs)
{
	double share = (double)cs->matched / cs->rows;

	for (int c = 2; c <= COPIES_MAX; c++) {
		double want = (double)(c - 1) / c;
		if (share > want - SHARE_SLACK && share < want + SHARE_SLACK) {
			cs->copies = c;
			return true;
		}
	}
	return false;
}

int copies_offset_shift(const struct probe_sample *s, const struct copy_map *cm, struct copy_shift *best)
{
	struct print_rows t;
	struct copy_shift cs;
	int found = 0;

	if (cm->np < 2)
		return 0;
	if (print_rows_take(s, cm, &t) < 0) {
		print_rows_free(&t);
		return 0;
	}
	for (uint32_t chunk = PROBE_BLOCK; chunk <= MAX_OFFSET_CHUNK; chunk *= 2) {
		try_offset_shift(s, cm, &t, (int)(chunk / PROBE_BLOCK), &cs);
		if (cs.next[0] < 0 || cs.matched < MIN_ROWS || !offset_copies(&cs))
			continue;
		if (!found || cs.matched * (uint64_t)best->rows > best->matched * (uint64_t)cs.rows) {
			*best = cs;
			found = 1;
		}
	}
	print_rows_free(&t);
	return found;
}

/* Prints of every block of each member over [from, from + span). */
static int read_prints(struct probe_sample *s, const struct copy_map *cm, uint64_t from, size_t span,
		       uint64_t *pr, struct diag *d)
{
	uint8_t *buf = malloc(span);
	size_t nb = span / PROBE_BLOCK;

	if (!buf)
		return diag_fail(d, "out of memory for the far copies");
	for (int c = 0; c < cm->np; c++) {
		if (probe_read(s, cm->member[c], buf, span, from, d) < 0) {
			free(buf);
			return -1;
		}
		for (size_t i = 0; i < nb; i++)
			pr[(size_t)c * nb + i] = block_zero(buf + i * PROBE_BLOCK) ? 0 : block_print(buf + i * PROBE_BLOCK);
	}
	free(buf);
	return 0;
}

/* Checks a far shift on the head rows: member a's block at o is member
 * next[a]'s at o + shift. */
static int check_far(struct probe_sample *s, const struct copy_map *cm, uint64_t start, struct copy_shift *cs,
		     struct diag *d)
{
	uint8_t here[PROBE_BLOCK], there[PROBE_BLOCK];
	const struct probe_window *head = &s->windows[0];

	cs->rows = cs->matched = 0;
	for (uint64_t o = start; o + PROBE_BLOCK <= head->offset + head->len && cs->rows < FAR_CHECKS * cm->np;
	     o += PROBE_BLOCK)
		for (int a = 0; a < cm->np; a++) {
			if (probe_read(s, cm->member[a], here, PROBE_BLOCK, o, d) < 0)
				return -1;
			if (block_zero(here))
				continue;
			if (probe_read(s, cm->member[cs->next[a]], there, PROBE_BLOCK, o + cs->shift, d) < 0)
				return -1;
			cs->rows++;
			cs->matched += block_equal(here, there);
		}
	return 0;
}

int copies_far_shift(struct probe_sample *s, const struct copy_map *cm, uint64_t doff, struct copy_shift *best,
		     struct diag *d)
{
	uint64_t start = doff * 512, size = probe_smallest_member(s);
	int (*votes)[COPIES_MAX];
	int rc = 0;

	if (cm->np < 2 || s->nwindows < 1 || size == UINT64_MAX || size < start + 4 * PROBE_BLOCK)
		return 0;
	uint64_t half = start + ((size - start) / 2) / PROBE_BLOCK * PROBE_BLOCK;
	/* the middle itself is where a far copy lies at most; small members
	 * are searched from just past their first block */
	size_t span = half - start < FAR_SPAN ? (size_t)(half - start) : FAR_SPAN;
	uint64_t from = half + PROBE_BLOCK - span;
	size_t nb = span / PROBE_BLOCK;
	uint64_t *pr = malloc(sizeof(*pr) * nb * (size_t)cm->np);
	votes = calloc(COPIES_MAX, sizeof(*votes));
	if (!pr || !votes || read_prints(s, cm, from, span, pr, d) < 0) {
		rc = pr && votes ? -1 : diag_fail(d, "out of memory for the far copies");
		goto out;
	}

	/* the shift the first rows with data vote for */
	uint8_t blk[PROBE_BLOCK];
	uint64_t shift_votes_at = 0;
	int probes = 0, shift_count = 0;
	const struct probe_window *head = &s->windows[0];
	for (uint64_t o = start; o + PROBE_BLOCK <= head->offset + head->len && probes < FAR_PROBES; o += PROBE_BLOCK)
		for (int a = 0; a < cm->np && probes < FAR_PROBES; a++) {
			if (probe_read(s, cm->member[a], blk, PROBE_BLOCK, o, d) < 0) {
				rc = -1;
				goto out;
			}
			if (block_zero(blk))
				continue;
			probes++;
			uint64_t p = block_print(blk);
			for (int b = 0; b < cm->np; b++)
				for (size_t i = 0; i < nb; i++)
					if (b != a && pr[(size_t)b * nb + i] == p && from + i * PROBE_BLOCK > o) {
						uint64_t shift = from + i * PROBE_BLOCK - o;
						if (!shift_count || shift == shift_votes_at) {
							shift_votes_at = shift;
							shift_count++;
							votes[a][b]++;
						}
					}
		}
	if (shift_count < 2 || !next_from_votes(cm->np, votes, best->next))
		goto out;
	best->shift = shift_votes_at;
	if (check_far(s, cm, start, best, d) < 0) {
		rc = -1;
		goto out;
	}
	rc = best->rows >= MIN_ROWS && best->matched >= COPIES_FIT * best->rows;
out:
	free(pr);
	free(votes);
	return rc;
}

/* The other copy of the block role keeps at member sector x, under g. */
static bool other_copy(const struct geometry *g, int role, uint64_t x, struct copy *out)
{
	struct copy cp[ST_MAX_DISKS];
	uint64_t run, a = layout_array_sector(g, role, x);

	if (a == UINT64_MAX)
		return false;
	int n = layout_locate(g, a, cp, &run);
	for (int k = 0; k < n; k++)
		if (cp[k].role != role || cp[k].sector != x) {
			*out = cp[k];
			return true;
		}
	return false;
}

int copies_check_layout(struct probe_sample *s, const struct geometry *g, const int *member_of_role,
			uint64_t doff, struct copy_check *cc, struct diag *d)
{
	const uint8_t *blk[ST_MAX_DISKS];
	uint8_t there[PROBE_BLOCK];
	int rows = sample_rows(s);

	cc->rows = cc->matched = 0;
	for (int i = 0; i < rows && cc->rows < LAYOUT_CHECKS; i++) {
		uint64_t off = sample_row(s, i, blk);
		if (off < doff * 512 || off / 512 - doff + PROBE_BLOCK / 512 > g->dev_sectors)
			continue;
		uint64_t x = off / 512 - doff;
		for (int role = 0; role < g->raid_disks; role++) {
			int m = member_of_role[role];
			struct copy other;
			if (m < 0 || !blk[m] || block_zero(blk[m]) || !other_copy(g, role, x, &other) ||
			    member_of_role[other.role] < 0)
				continue;
			if (probe_read(s, member_of_role[other.role], there, PROBE_BLOCK, (doff + other.sector) * 512, d) < 0)
				return -1;
			cc->rows++;
			cc->matched += block_equal(blk[m], there);
		}
		if (cc->rows - cc->matched > (1 - COPIES_FIT) * cc->rows + MIN_ROWS)
			break;           /* this layout does not fit: no need to look on */
	}
	return 0;
}
