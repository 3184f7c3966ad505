/* search: the probe from the members given to its verdict: sample, evidence,
 * candidates made whole, members parted into arrays, superblocks weighed. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "md/layout.h"
#include "probe/copies.h"
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

void probe_outcome_note(struct probe_outcome *o, const char *fmt, ...)
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
	probe_outcome_note(o, "members differ in size: %s has %llu bytes, %s %llu; sizes proposed fit the smallest",
	     large->path, (unsigned long long)large->dev.size, small->path, (unsigned long long)small->dev.size);
}

static enum probe_verdict verdict_of(const struct probe_outcome *o)
{
	if (o->result.ncand == 0)
		return PROBE_NONE;
	if (o->ngroups == 1 && o->group[0].confident && o->nunused == 0 && !o->uneven)
		return PROBE_FOUND;
	return PROBE_AMBIGUOUS;
}

/* The level an undecided line is about ("raid6: ...", "raid5 of 4
 * members: ..."), or -1 for a line about no one level. */
static int line_level(const char *line)
{
	int level;

	return sscanf(line, "raid%d", &level) == 1 ? level : -1;
}

/* A confident answer of one level: what another level's evidence left
 * undecided is no question the answer leaves open. */
static void drop_other_levels(struct probe_outcome *o)
{
	struct probe_result *r = &o->result;
	int level, kept = 0;

	if (o->verdict != PROBE_FOUND)
		return;
	level = r->cand[o->group[0].cand].spec.level;
	for (int k = 0; k < r->nundecided; k++) {
		int about = line_level(r->undecided[k]);
		if (about >= 0 && about != level)
			continue;
		if (kept != k)
			memcpy(r->undecided[kept], r->undecided[k], sizeof(r->undecided[k]));
		kept++;
	}
	r->nundecided = kept;
}

void probe_settle(struct probe_outcome *o)
{
	o->ngroups = o->nunused = o->nnotes = 0;
	o->uneven = false;
	weigh_sizes(o);
	probe_find_arrays(o);
	probe_weigh_supers(o);
	o->verdict = verdict_of(o);
	drop_other_levels(o);
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

/* Each complete RAID6 candidate's P and Q recomputed on the sampled rows:
 * content alone cannot tell layouts that place the data alike (md's RAID6
 * layouts and DDF's), Q's order can.  The share of rows that bear a
 * candidate out bounds its score.  A RAID4/5's members XOR to zero
 * wherever P may sit, so its P tells nothing more here. */
static int weigh_parity(struct probe_outcome *o, struct diag *d)
{
	for (int i = 0; i < o->result.ncand; i++) {
		struct probe_candidate *c = &o->result.cand[i];
		int checked, fitting;
		if (c->spec.level != MD_LEVEL_RAID6 || !probe_candidate_complete(c))
			continue;
		if (probe_verify_parity(&o->sample, c, &checked, &fitting, d) < 0)
			return -1;
		if (checked < VERIFY_MIN_ROWS)
			continue;
		double share = (double)fitting / checked;
		if (share < c->score)
			c->score = share;
		probe_candidate_evidence(c, "P and Q recomputed as this layout places the data: %d/%d rows sampled agree",
					 fitting, checked);
	}
	return 0;
}

/* Each complete RAID10 candidate's copies compared on the sampled blocks:
 * the filesystem reads alike through a RAID10 near=2 whose first copies
 * are a RAID6's data members with P and Q fixed (parity-last, parity-first
 * and their -6 twins on 4 members) or whose rows mostly leave one data
 * chunk empty, so content alone cannot refute it; its copies can.  The
 * share of blocks whose copy is equal bounds its score, halved when more
 * than 1 % differ: md keeps copies equal, and the mirror evidence proposes
 * no layout whose copies differ so (the check stops once they do). */
static int weigh_copies(struct probe_outcome *o, struct diag *d)
{
	for (int i = 0; i < o->result.ncand; i++) {
		struct probe_candidate *c = &o->result.cand[i];
		struct geometry g;
		struct copy_check cc;
		if (c->spec.level != MD_LEVEL_RAID10 || !probe_candidate_complete(c) || !c->spec.size ||
		    geometry_init(&g, c->spec.level, c->spec.layout, c->spec.raid_disks, c->spec.chunk_sectors,
				  c->spec.size, NULL, NULL) < 0)
			continue;
		if (copies_check_layout(&o->sample, &g, c->spec.order, c->spec.data_offset, &cc, d) < 0)
			return -1;
		if (cc.rows == 0)
			continue;    /* a few blocks all equal bound nothing; one differing copy speaks */
		double share = (double)cc.matched / cc.rows;
		bool fits = cc.matched >= COPIES_FIT * cc.rows;
		if (!fits)
			share /= 2;
		if (share < c->score)
			c->score = share;
		probe_candidate_evidence(c, "copies compared where this layout keeps them: %d/%d blocks sampled equal%s",
					 cc.matched, cc.rows, fits ? "" : ", too few for copies md keeps");
	}
	return 0;
}

/* The chunk sizes tried when no candidate stands out: md's 4 KiB to 1 MiB;
 * and the layout numbers, each tried where md takes it for the level. */
#define RETRY_CHUNK_FIRST 8u
#define RETRY_CHUNK_LAST 2048u
#define RETRY_LAYOUT_LAST 20

/* The content evidence run as if hc were the user's hints, its confident
 * candidates added to r. */
static int content_hinted(struct probe_sample *s, const struct probe_hints *hc, struct probe_result *r,
			  struct probe_result *more, struct diag *d)
{
	memset(more, 0, sizeof(*more));
	if (probe_content(s, hc, more, d) < 0)
		return -1;
	for (int i = 0; i < more->ncand; i++)
		if (more->cand[i].score >= PROBE_CONFIDENT_SCORE)
			probe_result_add(r, &more->cand[i]);
	return 0;
}

static bool layout_valid(int level, int layout, int raid_disks)
{
	struct geometry g;
	struct diag quiet = { 0 };

	return geometry_init(&g, level, layout, raid_disks, RETRY_CHUNK_FIRST, RETRY_CHUNK_FIRST * 64, NULL,
			     &quiet) == 0;
}

/* Where no candidate stands out, the filesystem may have been read under a
 * chunk or layout the evidence could not pin down: two members left of a
 * RAID6 show few anchors to measure by, and half the true chunk, or
 * another layout placing those two alike, fits them as well.  Each chunk
 * size, then each layout of the best candidate's level with its chunk, is
 * given to the content evidence as if hinted, and the filesystem's
 * checksums rank what comes of it beside the rest. */
static int retry_hinted(struct probe_outcome *o, const struct probe_hints *h, struct diag *d)
{
	struct probe_result *r = &o->result;

	if (r->ncand == 0 || r->cand[0].score >= PROBE_CONFIDENT_SCORE)
		return 0;
	struct probe_candidate best = r->cand[0];
	struct probe_result *more = malloc(sizeof(*more));
	if (!more)
		return diag_fail(d, "out of memory");
	int rc = 0;
	for (uint32_t chunk = RETRY_CHUNK_FIRST; !h->chunk_sectors && chunk <= RETRY_CHUNK_LAST && rc == 0;
	     chunk <<= 1) {
		struct probe_hints hc = *h;
		hc.chunk_sectors = chunk;
		rc = content_hinted(&o->sample, &hc, r, more, d);
	}
	for (int layout = 0; h->layout < 0 && level_has_layout(best.spec.level) && best.spec.chunk_sectors &&
			     layout <= RETRY_LAYOUT_LAST && rc == 0; layout++) {
		struct probe_hints hc = *h;
		if (!layout_valid(best.spec.level, layout, best.spec.raid_disks))
			continue;
		hc.level = best.spec.level;
		hc.raid_disks = best.spec.raid_disks;
		hc.chunk_sectors = best.spec.chunk_sectors;
		hc.layout = layout;
		rc = content_hinted(&o->sample, &hc, r, more, d);
	}
	free(more);
	return rc;
}

static int gather(struct probe_outcome *o, const struct probe_hints *h, struct diag *d)
{
	if (probe_parity(&o->sample, h, &o->result, d) < 0 || probe_mirror(&o->sample, h, &o->result, d) < 0 ||
	    probe_content(&o->sample, h, &o->result, d) < 0 || retry_hinted(o, h, d) < 0)
		return -1;
	if (o->result.ncand == 0 && probe_chain(&o->sample, h, &o->result, d) < 0)
		return -1;
	keep_hinted(&o->result, h);
	for (int i = 0; i < o->result.ncand; i++)
		probe_candidate_finish(&o->result.cand[i], o->members, h);
	if (probe_continuity(&o->sample, h, &o->result, d) < 0 || weigh_parity(o, d) < 0 ||
	    weigh_copies(o, d) < 0)
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
