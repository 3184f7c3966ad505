/* parity: RAID4/5/6 found from parity and syndromes.  The members that XOR
 * to zero together form a set; each row of a set says where P (and for
 * RAID6 Q and every data slot) lies; md's layouts laid over the rows give
 * chunk, layout, order and data offset, or say what stays undecided. */
#include <stdio.h>
#include <string.h>

#include "md/layout.h"
#include "probe/evidence.h"
#include "probe/memberset.h"
#include "probe/observe.h"
#include "probe/offsets.h"

#define MIN_SHARE 0.5                 /* of the decided rows a candidate must fit */
#define CLOSE 0.02                    /* fits this far behind the best are kept beside it */
#define NOT_DEFAULT 0.98              /* a layout parity reads the same as mdadm's default */
#define MAX_FITS 16
#define MAX_OFFSETS_TRIED 8

static void candidate_base(struct probe_candidate *c, const struct probe_sample *s, const struct parity_set *set,
			   int level, const struct fit *f)
{
	memset(c, 0, sizeof(*c));
	c->spec.level = level;
	c->spec.layout = f->layout;
	c->spec.chunk_sectors = f->chunk_sectors;
	c->spec.data_offset = f->data_offset;
	c->spec.raid_disks = set->n;
	for (int role = 0; role < set->n; role++) {
		int k = f->order[role];
		c->spec.order[role] = k == PROBE_UNKNOWN ? PROBE_UNKNOWN
				    : s->members[set->member[k]].path ? set->member[k] : SPEC_MISSING;
	}
	for (int k = 0; k < set->n; k++)
		c->uses[set->member[k]] = true;
	/* the superblock a restore would write: 1.0 at the end when data starts at 0 */
	c->metadata = f->data_offset == 0 ? 100 : 120;
	c->score = f->rows ? (double)f->fitting / f->rows : 0;
}

static const char *layout_word(int level, int layout, char *buf, int len)
{
	if (level == MD_LEVEL_RAID4)
		return "parity-last";     /* raid4 has no other */
	const char *name = layout >= 0 ? layout_name(level, layout, buf, len) : NULL;

	return name ? name : "undecided";
}

/* mdadm's default among layouts the rows read alike stays ahead; the rest
 * wait for content to tell them apart. */
static bool default_variant(int layout)
{
	return layout == 2 || layout == 3 || layout == 18 || layout == 19 || layout < 0;
}

static int unknown_roles(const struct probe_candidate *c)
{
	int u = 0;

	for (int role = 0; role < c->spec.raid_disks; role++)
		u += c->spec.order[role] == PROBE_UNKNOWN;
	return u;
}

static void add_fits(const struct probe_sample *s, const struct set_rows *sr, int level, const struct fit *fits,
		     int nfits, struct probe_result *r)
{
	char name[64];
	double best = nfits && fits[0].rows ? (double)fits[0].fitting / fits[0].rows : 0;

	for (int i = 0; i < nfits; i++) {
		struct probe_candidate c;
		candidate_base(&c, s, sr->set, level, &fits[i]);
		if (c.score < MIN_SHARE || c.score < best - CLOSE)
			continue;
		if (level == MD_LEVEL_RAID6)
			probe_candidate_evidence(&c, "P and Q solved in %d/%d rows with data sampled, %d rows "
						 "no parity fits", sr->obs.n, sr->with_data, sr->inconsistent);
		else
			probe_candidate_evidence(&c, "P consistent in %d/%d rows with data sampled", sr->obs.n,
						 sr->with_data);
		if (sr->q_only)
			probe_candidate_evidence(&c, "Q alone placed in %d of them (blocks too alike to "
						 "solve for every data slot)", sr->q_only);
		char chunk[32] = "undecided";
		if (c.spec.chunk_sectors)
			snprintf(chunk, sizeof(chunk), "%u sectors", c.spec.chunk_sectors);
		probe_candidate_evidence(&c, "raid%d layout %s, chunk %s, data offset %llu sectors fits %d/%d of them",
					 level, layout_word(level, c.spec.layout, name, sizeof(name)), chunk,
					 (unsigned long long)c.spec.data_offset, fits[i].fitting, fits[i].rows);
		if (nfits > 1 && !default_variant(c.spec.layout)) {
			c.score *= NOT_DEFAULT;
			probe_candidate_evidence(&c, "parity reads this layout as it reads another; "
						 "mdadm's default is put ahead until content tells");
		}
		/* the rows decided part of it: the rest is left for content */
		if (unknown_roles(&c))
			c.score *= (double)(c.spec.raid_disks - unknown_roles(&c) + 1) / (c.spec.raid_disks + 1);
		/* rows with data that speak against it: no parity fits them, or
		 * they name roles this geometry puts elsewhere; rows too alike to
		 * decide speak for nothing */
		int against = sr->inconsistent + fits[i].rows - fits[i].fitting;
		c.score *= sr->with_data ? 1 - (double)against / sr->with_data : 0;
		probe_result_add(r, &c);
	}
}

static void say_undecided(const struct set_rows *sr, int level, const struct fit *fits, int nfits,
			  struct probe_result *r)
{
	if (!nfits)
		return;
	if (level == MD_LEVEL_RAID5 && fits[0].layout < 0)
		probe_result_undecided(r, "raid5 of %d members: parity holds, but too few rows tell P from "
				       "data (a block of zeros beside data) to place P: chunk, layout and "
				       "order are left to content, and raid4 from raid5", sr->set->n);
	else if (level == MD_LEVEL_RAID5)
		probe_result_undecided(r, "raid5: parity cannot tell left from right nor symmetric from "
				       "asymmetric; content decides");
	if (level == MD_LEVEL_RAID4)
		probe_result_undecided(r, "raid4: P never moves, so neither chunk nor data order shows in parity");
	if (level == MD_LEVEL_RAID6 && fits[0].chunk_sectors == 0)
		probe_result_undecided(r, "raid6: P and Q never move (parity-last, or parity-first as the same "
				       "bytes), so the chunk does not show in parity; content decides");
	else if (level == MD_LEVEL_RAID6 && nfits > 1)
		probe_result_undecided(r, "raid6: symmetric and asymmetric layouts place P, Q and the syndrome "
				       "alike; only content tells them apart");
}

static bool set_allowed(const struct parity_set *set, const struct probe_hints *h)
{
	if (h->raid_disks && h->raid_disks != set->n)
		return false;
	if (h->level < 0)
		return true;
	return set->raid6 ? h->level == MD_LEVEL_RAID6 : h->level == MD_LEVEL_RAID4 || h->level == MD_LEVEL_RAID5;
}

static int probe_set(const struct probe_sample *s, const struct parity_set *set, const struct probe_hints *h,
		     struct probe_result *r, struct diag *d)
{
	struct set_rows sr = { .set = set };
	struct fit fits[MAX_FITS];
	uint64_t offs[PROBE_MAX_OFFSETS];
	int level = set->raid6 ? MD_LEVEL_RAID6 : MD_LEVEL_RAID5, nfits = 0;

	if (observe_set(s, &sr, d) < 0) {
		obs_free(&sr.obs);
		return -1;
	}
	int noffs = probe_offsets(h, probe_smallest_member(s), sr.first, offs);
	/* with --deep every MiB below the first data is an offset; the data
	 * begins at or just past its offset (a filesystem's head is written),
	 * so the nearest few are tried, each a whole search of the layouts */
	if (noffs > MAX_OFFSETS_TRIED)
		noffs = MAX_OFFSETS_TRIED;
	if (sr.obs.n && noffs) {
		if (set->raid6)
			nfits = fit_raid6(&sr.obs, set->n, h, offs, noffs, fits, MAX_FITS);
		else
			nfits = fit_raid5(&sr.obs, set->n, h, offs, noffs, fits, MAX_FITS, &level);
	}
	add_fits(s, &sr, level, fits, nfits, r);
	say_undecided(&sr, level, fits, nfits, r);
	obs_free(&sr.obs);
	return 0;
}

static int count_missing(const struct probe_sample *s)
{
	int k = 0;

	for (int m = 0; m < s->nmembers; m++)
		k += !s->members[m].path;
	return k;
}

/* With one member missing no XOR closes, but a RAID6 row still solves when
 * the missing block is rebuilt from P's equation: every given member is
 * taken as one set. */
static int probe_one_missing(const struct probe_sample *s, const struct probe_hints *h, struct probe_result *r,
			     struct diag *d)
{
	struct parity_set all = { .n = s->nmembers, .raid6 = true };

	if (s->nmembers < 4 || s->nmembers > PSET_MAX)
		return 0;
	for (int m = 0; m < s->nmembers; m++)
		all.member[m] = m;
	if (!set_allowed(&all, h))
		return 0;
	return probe_set(s, &all, h, r, d);
}

int probe_parity(struct probe_sample *s, const struct probe_hints *h, struct probe_result *r,
		 struct diag *d)
{
	struct parity_set sets[MAX_PARITY_SETS];
	int missing = count_missing(s), before = r->ncand;

	if (h->level >= 0 && !layout_has_parity(h->level))
		return 0;
	int nsets = parity_sets_find(s, sets, MAX_PARITY_SETS);
	for (int i = 0; i < nsets; i++) {
		if (set_allowed(&sets[i], h) && probe_set(s, &sets[i], h, r, d) < 0)
			return -1;
		if (!sets[i].raid6 && missing == 1)
			probe_result_undecided(r, "the raid5 of %d members may be a raid6 of %d whose Q stayed on the "
					       "member given as missing (parity-last, a -6 layout): parity cannot tell",
					       sets[i].n, sets[i].n + 1);
	}
	if (nsets == 0 && missing == 1 && probe_one_missing(s, h, r, d) < 0)
		return -1;
	if (r->ncand == before && missing == 1)
		probe_result_undecided(r, "one member missing: a raid5's parity no longer closes, and no raid6 "
				       "row solved; only content can place the rest");
	else if (r->ncand == before && missing >= 2)
		probe_result_undecided(r, "%d members missing: parity decides nothing (a raid6 loses both P and "
				       "Q's check); only content can", missing);
	return 0;
}
