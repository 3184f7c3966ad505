/* arrays: the members parted into the arrays the ranked candidates
 * describe, each with its best candidate and that one's lead over its
 * rivals; geometries that lay every block alike are one array. */
#include <string.h>

#include "md/layout.h"
#include "probe/search.h"

/* The members a candidate holds: those its order names, and those the
 * evidence says it holds in roles not decided yet. */
bool probe_candidate_uses(const struct probe_candidate *c, int member)
{
	if (member >= 0 && member < ST_MAX_DISKS && c->uses[member])
		return true;
	for (int r = 0; r < c->spec.raid_disks; r++)
		if (c->spec.order[r] == member)
			return true;
	return false;
}

static int undecided_roles(const struct probe_candidate *c)
{
	int n = 0;

	for (int r = 0; r < c->spec.raid_disks; r++)
		n += c->spec.order[r] == PROBE_UNKNOWN;
	return n;
}

static int members_held(const struct probe_candidate *c, int nmembers)
{
	int n = 0;

	for (int m = 0; m < nmembers; m++)
		n += probe_candidate_uses(c, m);
	return n;
}

/* Whether c may hold member: a role not decided, and not accounted for by
 * the members the evidence names, may be any member's. */
static bool may_use(const struct probe_candidate *c, int member, int nmembers)
{
	int present = 0;

	for (int r = 0; r < c->spec.raid_disks; r++)
		present += c->spec.order[r] != SPEC_MISSING;
	return probe_candidate_uses(c, member) || (undecided_roles(c) && members_held(c, nmembers) < present);
}

static bool overlap(const struct probe_candidate *a, const struct probe_candidate *b, int nmembers)
{
	for (int m = 0; m < nmembers; m++)
		if ((probe_candidate_uses(a, m) && may_use(b, m, nmembers)) ||
		    (may_use(a, m, nmembers) && probe_candidate_uses(b, m)))
			return true;
	/* two whose members are all unnamed cannot be told apart */
	return !members_held(a, nmembers) && !members_held(b, nmembers);
}

/* Rows enough to cover every rotation md's layouts make. */
#define ALIKE_ROWS(n) (2 * (n) * (n))
/* A DDF syndrome slot no member fills, apart from every member index. */
#define EMPTY_SLOT (-3)

/* The member holding each block of row as c lays it out: data in order,
 * then P, then Q (RAID6 by syndrome slot, Q's coefficients following the
 * slots). */
static void row_members(const struct probe_candidate *c, const struct geometry *g, uint64_t row, int *out, int *nout)
{
	struct stripe_map m;
	int k = 0;

	layout_stripe(g, row, &m);
	if (m.qd >= 0) {
		for (int i = 0; i < m.syndrome_disks; i++)
			out[k++] = m.slot[i] < 0 ? EMPTY_SLOT : c->spec.order[m.slot[i]];
	} else {
		for (int i = 0; i < m.data_disks; i++)
			out[k++] = c->spec.order[m.data[i]];
	}
	out[k++] = c->spec.order[m.pd];
	if (m.qd >= 0)
		out[k++] = c->spec.order[m.qd];
	*nout = k;
}

/* Two complete RAID4/5/6 candidates that put every data block, P and Q on
 * the same members (RAID5 parity-last and parity-first rotated, RAID4 and
 * either): the same array to md's bytes, whichever the superblocks name. */
static bool alike(const struct probe_candidate *a, const struct probe_candidate *b)
{
	struct geometry ga, gb;
	int ma[ST_MAX_DISKS + 2], mb[ST_MAX_DISKS + 2], na, nb;
	bool six = a->spec.level == MD_LEVEL_RAID6;

	if (!probe_candidate_complete(a) || !probe_candidate_complete(b) || !layout_has_parity(a->spec.level) ||
	    !layout_has_parity(b->spec.level) || six != (b->spec.level == MD_LEVEL_RAID6) ||
	    a->spec.raid_disks != b->spec.raid_disks || a->spec.chunk_sectors != b->spec.chunk_sectors ||
	    a->spec.data_offset != b->spec.data_offset || a->spec.size != b->spec.size || !a->spec.size)
		return false;
	if (geometry_init(&ga, a->spec.level, a->spec.layout, a->spec.raid_disks, a->spec.chunk_sectors, a->spec.size,
			  NULL, NULL) < 0 ||
	    geometry_init(&gb, b->spec.level, b->spec.layout, b->spec.raid_disks, b->spec.chunk_sectors, b->spec.size,
			  NULL, NULL) < 0)
		return false;
	for (uint64_t row = 0; row < (uint64_t)ALIKE_ROWS(a->spec.raid_disks); row++) {
		row_members(a, &ga, row, ma, &na);
		row_members(b, &gb, row, mb, &nb);
		if (na != nb || memcmp(ma, mb, sizeof(ma[0]) * (size_t)na) != 0)
			return false;
	}
	return true;
}

/* The best candidate over each set of members no better one touches:
 * several arrays' members given together part into their arrays. */
void probe_find_arrays(struct probe_outcome *o)
{
	const struct probe_result *r = &o->result;

	for (int i = 0; i < r->ncand; i++) {
		bool taken = false;
		for (int g = 0; g < o->ngroups && !taken; g++)
			taken = overlap(&r->cand[i], &r->cand[o->group[g].cand], o->nmembers);
		if (taken)
			continue;
		struct probe_group *g = &o->group[o->ngroups++];
		double next = 0;

		g->alike = 0;
		for (int j = i + 1; j < r->ncand; j++) {
			const struct probe_candidate *c = &r->cand[j];
			if (!overlap(&r->cand[i], c, o->nmembers))
				continue;
			/* the same array under another name is no rival */
			if (alike(&r->cand[i], c))
				g->alike++;
			else if (c->score > next)
				next = c->score;
		}
		g->cand = i;
		g->lead = r->cand[i].score - next;
		g->confident = probe_candidate_complete(&r->cand[i]) && r->cand[i].score >= PROBE_CONFIDENT_SCORE &&
			       g->lead >= PROBE_CONFIDENT_LEAD;
	}
	for (int m = 0; m < o->nmembers; m++) {
		bool used = false;
		for (int g = 0; g < o->ngroups && !used; g++)
			used = may_use(&r->cand[o->group[g].cand], m, o->nmembers);
		if (o->members[m].path && !used)
			o->unused[o->nunused++] = m;
	}
}
