/* search: the probe from the members given to its verdict: sample, evidence,
 * candidates made whole, members parted into arrays, superblocks weighed. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "md/layout.h"
#include "probe/evidence.h"
#include "probe/search.h"
#include "probe/shape.h"
#include "probe/verify.h"

static bool level_has_chunk(int level)
{
	return level != MD_LEVEL_RAID1;
}

static bool level_has_layout(int level)
{
	return level != MD_LEVEL_RAID0 && level != MD_LEVEL_RAID1;
}

bool probe_candidate_complete(const struct probe_candidate *c)
{
	const struct geometry_spec *s = &c->spec;

	if (s->raid_disks < 1 || s->data_offset == UINT64_MAX)
		return false;
	if (level_has_chunk(s->level) && s->chunk_sectors == 0)
		return false;
	if (level_has_layout(s->level) && s->layout < 0)
		return false;
	for (int r = 0; r < s->raid_disks; r++)
		if (s->order[r] == PROBE_UNKNOWN)
			return false;
	return true;
}

/* mdadm writes 1.2 where data starts after the superblock's 4 KiB and
 * 1.0 where it starts at 0; -e chooses among the versions that fit. */
static int metadata_for(uint64_t data_offset, int hint)
{
	if (data_offset == 0)
		return hint == 90 ? 90 : 100;
	return hint == 110 ? 110 : 120;
}

static uint64_t smallest_used(const struct probe_candidate *c, const struct probe_member *m)
{
	uint64_t least = UINT64_MAX;

	for (int r = 0; r < c->spec.raid_disks; r++) {
		int i = c->spec.order[r];
		if (i >= 0 && m[i].sectors < least)
			least = m[i].sectors;
	}
	return least == UINT64_MAX ? 0 : least;
}

void probe_candidate_finish(struct probe_candidate *c, const struct probe_member *m,
			    const struct probe_hints *h)
{
	struct geometry_spec *s = &c->spec;

	if (s->data_offset == UINT64_MAX)
		return;
	c->metadata = metadata_for(s->data_offset, h->metadata);
	/* md keeps whole chunks of each member; a mirror's size mdadm rounds to 64 KiB */
	uint32_t round = s->chunk_sectors ? s->chunk_sectors : 128;
	const struct super_ops *ops = super_ops_of(c->metadata == 90 ? 0 : 1);
	int minor = c->metadata == 90 ? 90 : c->metadata - 100;
	s->size = ops->data_room(minor, smallest_used(c, m), s->data_offset) / round * round;
}

/* A candidate the user's -l -n -c -p -e --data-offset rule out. */
static bool against_hints(const struct probe_candidate *c, const struct probe_hints *h)
{
	const struct geometry_spec *s = &c->spec;
	bool known_offset = s->data_offset != UINT64_MAX;

	return (h->level >= 0 && s->level != h->level) ||
	       (h->raid_disks && s->raid_disks != h->raid_disks) ||
	       (h->chunk_sectors && s->chunk_sectors && s->chunk_sectors != h->chunk_sectors) ||
	       (h->layout >= 0 && s->layout >= 0 && s->layout != h->layout) ||
	       (h->data_offset != UINT64_MAX && known_offset && s->data_offset != h->data_offset) ||
	       (h->metadata && known_offset && (s->data_offset == 0) != (h->metadata <= 100));
}

static void keep_hinted(struct probe_result *r, const struct probe_hints *h)
{
	int kept = 0;

	for (int i = 0; i < r->ncand; i++)
		if (!against_hints(&r->cand[i], h))
			r->cand[kept++] = r->cand[i];
	r->ncand = kept;
}

/* The members a candidate holds: those its order names, and those the
 * evidence says it holds in roles not decided yet. */
static bool uses(const struct probe_candidate *c, int member)
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
		n += uses(c, m);
	return n;
}

/* Whether c may hold member: a role not decided, and not accounted for by
 * the members the evidence names, may be any member's. */
static bool may_use(const struct probe_candidate *c, int member, int nmembers)
{
	int present = 0;

	for (int r = 0; r < c->spec.raid_disks; r++)
		present += c->spec.order[r] != SPEC_MISSING;
	return uses(c, member) || (undecided_roles(c) && members_held(c, nmembers) < present);
}

static bool overlap(const struct probe_candidate *a, const struct probe_candidate *b, int nmembers)
{
	for (int m = 0; m < nmembers; m++)
		if ((uses(a, m) && may_use(b, m, nmembers)) || (may_use(a, m, nmembers) && uses(b, m)))
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

	if (!probe_candidate_complete(a) || !probe_candidate_complete(b) || !layout_has_parity(a->spec.level) ||
	    !layout_has_parity(b->spec.level) || (a->spec.level == MD_LEVEL_RAID6) != (b->spec.level == MD_LEVEL_RAID6) ||
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
static void find_groups(struct probe_outcome *o)
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

static void note(struct probe_outcome *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(struct probe_outcome *o, const char *fmt, ...)
{
	va_list ap;

	if (o->nnotes == PROBE_MAX_EVIDENCE)
		return;
	va_start(ap, fmt);
	vsnprintf(o->notes[o->nnotes++], PROBE_LINE, fmt, ap);
	va_end(ap);
}

/* Members of unequal size: the size proposed is the smallest's, and a
 * member much larger (by more than the 1 % mdadm lets pass without
 * --force) may belong to another array, so no answer is sure. */
static void weigh_sizes(struct probe_outcome *o)
{
	const struct probe_member *small = NULL, *large = NULL;

	for (int i = 0; i < o->nmembers; i++) {
		const struct probe_member *m = &o->members[i];
		if (!m->path)
			continue;
		if (!small || m->sectors < small->sectors)
			small = m;
		if (!large || m->sectors > large->sectors)
			large = m;
	}
	if (!small || small->sectors == large->sectors)
		return;
	o->uneven = (large->sectors - small->sectors) * 100 > large->sectors;
	note(o, "members differ in size: %s has %llu bytes, %s %llu; sizes proposed fit the smallest",
	     large->path, (unsigned long long)large->dev.size, small->path, (unsigned long long)small->dev.size);
}

/* The geometry the superblocks of the array holding member first record,
 * with the roles of every member given that shares its uuid. */
static int super_geometry(const struct probe_outcome *o, int first, struct geometry_spec *s)
{
	const struct md_super *sb = &o->members[first].sb;
	int n = 0;

	*s = (struct geometry_spec){ .level = sb->level, .layout = sb->layout, .chunk_sectors = sb->chunk_sectors,
				     .data_offset = sb->data_offset, .size = sb->size,
				     .raid_disks = sb->raid_disks > ST_MAX_DISKS ? ST_MAX_DISKS : sb->raid_disks };
	for (int r = 0; r < s->raid_disks; r++)
		s->order[r] = SPEC_MISSING;
	for (int i = first; i < o->nmembers; i++) {
		const struct probe_member *m = &o->members[i];
		if (!m->has_super || memcmp(m->sb.uuid, sb->uuid, sizeof(sb->uuid)) != 0)
			continue;
		n++;
		if (m->sb.role >= 0 && m->sb.role < s->raid_disks)
			s->order[m->sb.role] = i;
	}
	return n;
}

/* The candidate the members of s were found in, else the best of all. */
static const struct probe_candidate *candidate_for(const struct probe_outcome *o, const struct geometry_spec *s)
{
	for (int g = 0; g < o->ngroups; g++) {
		const struct probe_candidate *c = &o->result.cand[o->group[g].cand];
		for (int r = 0; r < s->raid_disks; r++)
			if (s->order[r] >= 0 && uses(c, s->order[r]))
				return c;
	}
	return o->result.ncand ? &o->result.cand[0] : NULL;
}

static void weigh_one_super(struct probe_outcome *o, int first)
{
	struct geometry_spec said;
	char says[PROBE_LINE], supports[PROBE_LINE];
	int n = super_geometry(o, first, &said);
	const struct probe_candidate *c = candidate_for(o, &said);

	if (!c) {
		probe_shape_describe(&said, NULL, says, sizeof(says));
		note(o, "the superblocks on %d member%s say %s; the data bears out no geometry", n, n == 1 ? "" : "s",
		     says);
		return;
	}
	/* what the data leaves undecided does not disagree */
	struct geometry_spec weighed = said;
	if (!c->spec.chunk_sectors)
		weighed.chunk_sectors = 0;
	if (c->spec.layout < 0)
		weighed.layout = c->spec.layout;
	if (c->spec.data_offset == UINT64_MAX)
		weighed.data_offset = UINT64_MAX;
	for (int r = 0; r < c->spec.raid_disks && r < weighed.raid_disks; r++)
		if (c->spec.order[r] == PROBE_UNKNOWN)
			weighed.order[r] = PROBE_UNKNOWN;
	probe_shape_describe(&weighed, &c->spec, says, sizeof(says));
	probe_shape_describe(&c->spec, &weighed, supports, sizeof(supports));
	if (!says[0])
		note(o, "the superblocks on %d member%s agree with %s", n, n == 1 ? "" : "s",
		     probe_candidate_complete(c) ? "the data" : "what the data decides");
	else
		note(o, "the superblocks say %s; the data supports %s", says, supports);
}

/* Each array's superblocks left on the members, weighed against what the
 * data supports: a wrong re-create shows here. */
static void weigh_supers(struct probe_outcome *o)
{
	for (int i = 0; i < o->nmembers; i++) {
		const struct probe_member *m = &o->members[i];
		bool seen = false;
		if (!m->has_super)
			continue;
		for (int j = 0; j < i && !seen; j++)
			seen = o->members[j].has_super && memcmp(o->members[j].sb.uuid, m->sb.uuid, sizeof(m->sb.uuid)) == 0;
		if (!seen)
			weigh_one_super(o, i);
	}
}

static enum probe_verdict verdict_of(const struct probe_outcome *o)
{
	if (o->result.ncand == 0)
		return PROBE_NONE;
	if (o->ngroups == 1 && o->group[0].confident && o->nunused == 0 && !o->uneven)
		return PROBE_FOUND;
	return PROBE_AMBIGUOUS;
}

void probe_settle(struct probe_outcome *o)
{
	o->ngroups = o->nunused = o->nnotes = 0;
	o->uneven = false;
	weigh_sizes(o);
	find_groups(o);
	weigh_supers(o);
	o->verdict = verdict_of(o);
}

/* The members a complete candidate's order names are all it holds: said
 * so in its uses, two modules that found the same geometry (one naming
 * the members, one not) merge into one candidate with both evidences. */
static void merge_alike(struct probe_result *r)
{
	struct probe_result kept = { .nundecided = r->nundecided };

	memcpy(kept.undecided, r->undecided, sizeof(r->undecided));
	for (int i = 0; i < r->ncand; i++) {
		struct probe_candidate *c = &r->cand[i];
		if (probe_candidate_complete(c)) {
			memset(c->uses, 0, sizeof(c->uses));
			for (int k = 0; k < c->spec.raid_disks; k++)
				if (c->spec.order[k] >= 0)
					c->uses[c->spec.order[k]] = true;
		}
		probe_result_add(&kept, c);
	}
	*r = kept;
}

/* Rows enough for their parity to speak against a candidate. */
#define VERIFY_MIN_ROWS 8

/* Each complete RAID4/5/6 candidate's parity recomputed on the sampled
 * rows: content alone cannot tell layouts that place the data alike (md's
 * RAID6 layouts and DDF's), their parity can.  The share of rows that
 * bear a candidate out bounds its score. */
static int weigh_parity(struct probe_outcome *o, struct diag *d)
{
	for (int i = 0; i < o->result.ncand; i++) {
		struct probe_candidate *c = &o->result.cand[i];
		int checked, fitting;
		if (!probe_candidate_complete(c))
			continue;
		if (probe_verify_parity(&o->sample, c, &checked, &fitting, d) < 0)
			return -1;
		if (checked < VERIFY_MIN_ROWS)
			continue;
		double share = (double)fitting / checked;
		if (share < c->score)
			c->score = share;
		probe_candidate_evidence(c, "%s recomputed as this layout places the data: %d/%d rows sampled agree",
					 c->spec.level == MD_LEVEL_RAID6 ? "P and Q" : "P", fitting, checked);
	}
	return 0;
}

static int gather(struct probe_outcome *o, const struct probe_hints *h, struct diag *d)
{
	if (probe_parity(&o->sample, h, &o->result, d) < 0 || probe_mirror(&o->sample, h, &o->result, d) < 0 ||
	    probe_content(&o->sample, h, &o->result, d) < 0)
		return -1;
	keep_hinted(&o->result, h);
	for (int i = 0; i < o->result.ncand; i++)
		probe_candidate_finish(&o->result.cand[i], o->members, h);
	if (weigh_parity(o, d) < 0)
		return -1;
	merge_alike(&o->result);
	return 0;
}

int probe_run(char *const *paths, int n, const struct probe_hints *h, struct progress *p,
	      struct probe_outcome *o, struct diag *d)
{
	uint64_t budget = h->deep ? PROBE_DEEP_SAMPLE_BYTES : PROBE_SAMPLE_BYTES;
	memset(o, 0, sizeof(*o));
	if (n < 1 || n > ST_MAX_DISKS)
		return diag_fail(d, "%d members given; the probe takes 1 to %d", n, ST_MAX_DISKS);
	o->members = calloc((size_t)n, sizeof(*o->members));
	if (!o->members)
		return diag_fail(d, "out of memory for %d members", n);
	if (probe_members_open(paths, n, o->members, d) < 0) {
		free(o->members);
		o->members = NULL;
		return -1;
	}
	o->nmembers = n;
	if (p)
		progress_start(p, p->mode, p->tool, "sampling each member", budget);
	int rc = probe_sample_read_shown(&o->sample, o->members, n, budget, p, d);
	if (p)
		progress_finish(p);
	if (rc < 0 || gather(o, h, d) < 0) {
		probe_outcome_free(o);
		return -1;
	}
	probe_settle(o);
	return 0;
}

void probe_outcome_free(struct probe_outcome *o)
{
	probe_sample_free(&o->sample);
	if (o->members)
		probe_members_close(o->members, o->nmembers);
	free(o->members);
	o->members = NULL;
	o->nmembers = 0;
}
