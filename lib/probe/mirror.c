/* mirror: RAID1/10 found from copies.  Members equal wherever they hold
 * data are mirrors (or RAID10 near pairs); copies one chunk on, on the next
 * member, are RAID10's offset layout, and copies half a member on its far
 * layout.  Copies fix which members pair up; where in the order a pair or
 * a cycle of far copies starts, and a far or near layout's chunk, they
 * leave to content. */
#include <stdio.h>
#include <string.h>

#include "md/layout.h"
#include "probe/copies.h"
#include "probe/evidence.h"
#include "probe/offsets.h"

#define R10_NEAR2 0x102
#define R10_FAR2 0x201
#define R10_OFFSET_BIT 0x10000
#define MAX_PAIRS_ORDERED 3           /* pairs whose every order is proposed */
#define MAX_ODD_ORDERS 8              /* chains of neighbours tried on an odd count */
#define MIN_CHUNK 8u                  /* sectors: 4 KiB */
#define MAX_CHUNK 2048u               /* 1 MiB */
#define MIN_CHECKED 8

static void candidate_start(struct probe_candidate *c, int level, int layout, uint32_t chunk, uint64_t doff, int n)
{
	memset(c, 0, sizeof(*c));
	c->spec.level = level;
	c->spec.layout = layout;
	c->spec.chunk_sectors = chunk;
	c->spec.data_offset = doff;
	c->spec.raid_disks = n;
	c->metadata = doff == 0 ? 100 : 120;
}

static void uses_order(struct probe_candidate *c)
{
	for (int r = 0; r < c->spec.raid_disks; r++)
		if (c->spec.order[r] >= 0)
			c->uses[c->spec.order[r]] = true;
}

/* Groups of members that are all copies of each other. */
static int mirror_groups(const struct copy_map *cm, int group[][COPIES_MAX], int *size)
{
	bool placed[COPIES_MAX] = { false };
	int ng = 0;

	for (int a = 0; a < cm->np; a++) {
		if (placed[a])
			continue;
		size[ng] = 0;
		group[ng][size[ng]++] = a;
		for (int b = a + 1; b < cm->np; b++) {
			bool all = !placed[b];
			for (int i = 0; i < size[ng] && all; i++)
				all = copies_equal(cm, group[ng][i], b);
			if (all) {
				group[ng][size[ng]++] = b;
				placed[b] = true;
			}
		}
		if (size[ng] >= 2)
			ng++;
	}
	return ng;
}

static double group_share(const struct copy_map *cm, const int *g, int n, int *rows, int *equal)
{
	double least = 1;

	*rows = *equal = 0;
	for (int i = 0; i < n; i++)
		for (int j = i + 1; j < n; j++) {
			const struct pair_count *p = &cm->same[g[i]][g[j]];
			double share = p->rows ? (double)p->equal / p->rows : 0;
			if (share <= least) {
				least = share;
				*rows = p->rows;
				*equal = p->equal;
			}
		}
	return least;
}

static void add_raid1(const struct copy_map *cm, const int *g, int n, uint64_t doff, const bool *placed,
		      struct probe_result *r)
{
	struct probe_candidate c;
	int rows, equal;

	candidate_start(&c, MD_LEVEL_RAID1, 0, 0, doff, n);
	for (int i = 0; i < n; i++)
		c.spec.order[i] = cm->member[g[i]];
	uses_order(&c);
	/* members given beside the group that no other evidence placed stay
	 * unexplained: a mirror of some of them is less likely than an array
	 * of all */
	int explained = n;
	for (int k = 0; k < cm->np; k++)
		explained += placed[cm->member[k]] && !c.uses[cm->member[k]];
	c.score = group_share(cm, g, n, &rows, &equal) * (0.5 + 0.5 * explained / cm->np);
	probe_candidate_evidence(&c, "members equal in %d/%d rows with data sampled", equal, rows);
	probe_candidate_evidence(&c, "data seen from member offset %llu: data offset %llu sectors",
				 (unsigned long long)cm->first, (unsigned long long)doff);
	probe_result_add(r, &c);
}

/* Near copies over pairs: the pairs in every order (within a pair the
 * members hold the same bytes, so their order does not matter). */
static void add_near_pairs(const struct copy_map *cm, int pairs[][COPIES_MAX], int np, uint64_t doff,
			   const struct probe_hints *h, struct probe_result *r)
{
	int perm[MAX_PAIRS_ORDERED] = { 0, 1, 2 }, count = 1;

	if (np < 2 || np > MAX_PAIRS_ORDERED || (h->layout >= 0 && h->layout != R10_NEAR2) ||
	    (h->raid_disks && h->raid_disks != 2 * np))
		return;
	for (int i = 2; i <= np; i++)
		count *= i;
	for (int k = 0; k < count; k++) {
		struct probe_candidate c;
		int rows = 0, equal = 0, rest = k, used[MAX_PAIRS_ORDERED] = { 0 };
		double least = 1;
		/* the k'th permutation of the pairs */
		for (int i = 0; i < np; i++) {
			int pick = rest % (np - i), seen = -1;
			rest /= np - i;
			for (int j = 0; j < np; j++)
				if (!used[j] && ++seen == pick) {
					perm[i] = j;
					used[j] = 1;
					break;
				}
		}
		candidate_start(&c, MD_LEVEL_RAID10, R10_NEAR2, h->chunk_sectors, doff, 2 * np);
		for (int i = 0; i < np; i++) {
			int pr, pe;
			double share = group_share(cm, pairs[perm[i]], 2, &pr, &pe);
			c.spec.order[2 * i] = cm->member[pairs[perm[i]][0]];
			c.spec.order[2 * i + 1] = cm->member[pairs[perm[i]][1]];
			if (share <= least) {
				least = share;
				rows = pr;
				equal = pe;
			}
		}
		uses_order(&c);
		c.score = least;
		probe_candidate_evidence(&c, "%d pairs of members equal (the least in %d/%d rows with data sampled)",
					 np, equal, rows);
		probe_result_add(r, &c);
	}
	probe_result_undecided(r, "%d pairs of equal members: one raid10 near=2 or %d raid1 arrays, and the "
			       "raid10's chunk and pair order; content decides", np, np);
}

/* A cycle of copies (a member's copies go to the next): the order up to
 * where it starts; each start is proposed. */
static void add_cycle(const struct copy_map *cm, const struct copy_shift *cs, int layout, uint32_t chunk,
		      uint64_t doff, const char *what, double expected, struct probe_result *r)
{
	int n = cm->np;

	for (int start = 0; start < n; start++) {
		struct probe_candidate c;
		int at = start, role = 0;
		candidate_start(&c, MD_LEVEL_RAID10, layout, chunk, doff, n);
		for (; role < n; role++, at = cs->next[at]) {
			if (role && at == start)
				break;
			c.spec.order[role] = cm->member[at];
		}
		if (role != n)
			return;              /* not one cycle over every member */
		uses_order(&c);
		c.score = cs->rows ? (double)cs->matched / cs->rows / expected : 0;
		if (c.score > 1)
			c.score = 1;
		probe_candidate_evidence(&c, "%s: each member's blocks again on the next, %llu bytes on "
					 "(%d/%d blocks checked)", what, (unsigned long long)cs->shift, cs->matched,
					 cs->rows);
		probe_result_add(r, &c);
	}
	probe_result_undecided(r, "raid10 %s: copies fix the order up to the member it starts on; content "
			       "decides", what);
}

static bool level_allowed(const struct probe_hints *h, int level, int layout)
{
	return (h->level < 0 || h->level == level) && (h->layout < 0 || level != MD_LEVEL_RAID10 ||
						       h->layout == layout);
}

/* Sectors every present member gives after doff. */
static uint64_t room_after(const struct probe_sample *s, uint64_t doff)
{
	uint64_t least = UINT64_MAX;

	for (int i = 0; i < s->nmembers; i++)
		if (s->members[i].path && s->members[i].sectors < least)
			least = s->members[i].sectors;
	return least == UINT64_MAX || least <= doff ? 0 : least - doff;
}

/* Orders whose neighbouring roles share some blocks at the same offset:
 * near=2 on an odd count pairs roles r and r+1 in every other row. */
static int neighbour_chains(const struct copy_map *cm, int *order, int depth, bool *taken, int chains[][COPIES_MAX],
			    int nchains)
{
	if (depth == cm->np) {
		memcpy(chains[nchains], order, sizeof(chains[0]));
		return nchains + 1;
	}
	for (int c = 0; c < cm->np && nchains < MAX_ODD_ORDERS; c++) {
		if (taken[c] || (depth && cm->same[order[depth - 1]][c].equal < 2))
			continue;
		taken[c] = true;
		order[depth] = c;
		nchains = neighbour_chains(cm, order, depth + 1, taken, chains, nchains);
		taken[c] = false;
	}
	return nchains;
}

/* RAID10 near=2 on an odd member count: a chunk's two copies lie on
 * neighbouring roles, the last role's second copy at the start of the next
 * row, so no two members are equal throughout.  Each chain of neighbours,
 * chunk and data offset is checked against every sampled block's copy. */
static int add_near_odd(struct probe_sample *s, const struct copy_map *cm, const uint64_t *offs, int noffs,
			const struct probe_hints *h, struct probe_result *r, struct diag *d)
{
	int chains[MAX_ODD_ORDERS][COPIES_MAX], order[COPIES_MAX];
	bool taken[COPIES_MAX] = { false };

	if (cm->np < 3 || cm->np % 2 == 0 || cm->np != s->nmembers || !level_allowed(h, MD_LEVEL_RAID10, R10_NEAR2) ||
	    (h->raid_disks && h->raid_disks != cm->np))
		return 0;
	int nchains = neighbour_chains(cm, order, 0, taken, chains, 0);
	for (int k = 0; k < nchains; k++)
		for (int o = 0; o < noffs; o++)
			for (uint32_t chunk = MIN_CHUNK; chunk <= MAX_CHUNK; chunk *= 2) {
				uint64_t size = room_after(s, offs[o]) / chunk * chunk;
				struct geometry g;
				struct copy_check cc;
				struct probe_candidate c;
				if ((h->chunk_sectors && chunk != h->chunk_sectors) ||
				    geometry_init(&g, MD_LEVEL_RAID10, R10_NEAR2, cm->np, chunk, size, NULL, NULL) < 0)
					continue;
				candidate_start(&c, MD_LEVEL_RAID10, R10_NEAR2, chunk, offs[o], cm->np);
				for (int role = 0; role < cm->np; role++)
					c.spec.order[role] = cm->member[chains[k][role]];
				if (copies_check_layout(s, &g, c.spec.order, offs[o], &cc, d) < 0)
					return -1;
				if (cc.rows < MIN_CHECKED || cc.matched < COPIES_FIT * cc.rows)
					continue;
				uses_order(&c);
				c.score = (double)cc.matched / cc.rows;
				probe_candidate_evidence(&c, "near=2 on %d members: each block's copy where this chunk and order "
							     "put it, the last member's in the next row (%d/%d blocks checked)",
							 cm->np, cc.matched, cc.rows);
				probe_result_add(r, &c);
			}
	return 0;
}


int probe_mirror(struct probe_sample *s, const struct probe_hints *h, struct probe_result *r,
		 struct diag *d)
{
	struct copy_map cm;
	int group[COPIES_MAX][COPIES_MAX], size[COPIES_MAX], pairs[COPIES_MAX][COPIES_MAX], npairs = 0;
	uint64_t offs[PROBE_MAX_OFFSETS];
	struct copy_shift cs;

	if (h->level >= 0 && h->level != MD_LEVEL_RAID1 && h->level != MD_LEVEL_RAID10)
		return 0;
	copies_same_offset(s, &cm);
	if (!cm.rows || !probe_offsets(h, probe_smallest_member(s), cm.first, offs))
		return 0;
	uint64_t doff = offs[0];
	int ng = mirror_groups(&cm, group, size);
	bool placed[ST_MAX_DISKS] = { false };          /* by the candidates other evidence made */
	for (int i = 0; i < r->ncand; i++)
		for (int m = 0; m < s->nmembers; m++)
			placed[m] |= r->cand[i].uses[m];
	for (int g = 0; g < ng; g++) {
		if (level_allowed(h, MD_LEVEL_RAID1, 0) && (!h->raid_disks || h->raid_disks == size[g]))
			add_raid1(&cm, group[g], size[g], doff, placed, r);
		if (size[g] == 2)
			memcpy(pairs[npairs++], group[g], sizeof(group[g]));
	}
	if (level_allowed(h, MD_LEVEL_RAID10, R10_NEAR2) && npairs == ng && 2 * npairs == cm.np)
		add_near_pairs(&cm, pairs, npairs, doff, h, r);
	if (ng || cm.np < 2 || (h->raid_disks && h->raid_disks != cm.np))
		return 0;
	if (add_near_odd(s, &cm, offs, probe_offsets(h, probe_smallest_member(s), cm.first, offs), h, r, d) < 0)
		return -1;
	if (copies_offset_shift(s, &cm, &cs)) {
		int layout = R10_OFFSET_BIT | cs.copies << 8 | 1;
		char what[32];
		snprintf(what, sizeof(what), "offset=%d", cs.copies);
		if (level_allowed(h, MD_LEVEL_RAID10, layout))
			add_cycle(&cm, &cs, layout, (uint32_t)(cs.shift / 512), doff, what,
				  (double)(cs.copies - 1) / cs.copies, r);
	}
	if (!level_allowed(h, MD_LEVEL_RAID10, R10_FAR2))
		return 0;
	for (int i = 0; i < probe_offsets(h, probe_smallest_member(s), cm.first, offs); i++) {
		int found = copies_far_shift(s, &cm, offs[i], &cs, d);
		if (found < 0)
			return -1;
		if (found) {
			add_cycle(&cm, &cs, R10_FAR2, h->chunk_sectors, offs[i], "far=2", 1, r);
			probe_result_undecided(r, "raid10 far=2: far copies lie a chunk-rounded half member on, "
					       "which hides the chunk; content decides");
			break;
		}
	}
	return 0;
}
