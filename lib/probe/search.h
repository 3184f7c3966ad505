/* search: the probe from members to verdict: the sample read, the evidence
 * modules run, each candidate made whole (size, metadata), the members
 * parted into arrays, and the superblocks left weighed against the data. */
#ifndef STRIPE_PROBE_SEARCH_H
#define STRIPE_PROBE_SEARCH_H

#include <stdbool.h>

#include "probe/probe.h"
#include "util/progress.h"

/* A top candidate is an answer when it fits this much of the evidence... */
#define PROBE_CONFIDENT_SCORE 0.9
/* ...and leads the next candidate over the same members by this much. */
#define PROBE_CONFIDENT_LEAD 0.1

/* Sampled per member: a few tens of MiB, and with --deep more. */
#define PROBE_SAMPLE_BYTES (32ull << 20)
#define PROBE_DEEP_SAMPLE_BYTES (256ull << 20)

/* One array found among the members: its best candidate and how far that
 * leads the next candidate using any of the same members. */
struct probe_group {
	int cand;                    /* index in result.cand */
	double lead;                 /* score above the runner-up; the score itself when alone */
	bool confident;              /* complete, and both thresholds above met */
	int alike;                   /* candidates that lay every block on the same members:
	                              * the same array, named otherwise; no rivals */
};

enum probe_verdict {
	PROBE_FOUND,                 /* one confident answer using every member given, of even sizes */
	PROBE_AMBIGUOUS,             /* candidates, but not one confident answer for all */
	PROBE_NONE,                  /* no candidate at all */
};

struct probe_outcome {
	int nmembers;
	struct probe_member *members;        /* as given, "missing" included */
	struct probe_sample sample;
	struct probe_result result;
	int ngroups;
	struct probe_group group[PROBE_MAX_CANDIDATES];
	int nunused;
	int unused[ST_MAX_DISKS];            /* members no group uses */
	bool uneven;                         /* members differ in size by more than 1 % */
	int nnotes;
	char notes[PROBE_MAX_EVIDENCE][PROBE_LINE];   /* superblocks weighed, sizes unequal */
	enum probe_verdict verdict;
};

/* Opens paths (n of them, "missing" for an absent one) read-only, reads
 * the sample (shown on p, when not NULL, with its mode and tool as the
 * caller set them), runs the evidence modules with the hints h, finishes
 * each candidate, checks a RAID6's P and Q (verify.h), and fills o.
 * -1 with a message naming the member for what stops the probe (a member
 * given twice, unreadable, too many). */
int probe_run(char *const *paths, int n, const struct probe_hints *h, struct progress *p,
	      struct probe_outcome *o, struct diag *d);

/* From o's members and ranked candidates: the arrays among the members,
 * the members in none, the notes (sizes, superblocks weighed against the
 * data) and the verdict.  probe_run ends with it. */
void probe_settle(struct probe_outcome *o);

void probe_outcome_free(struct probe_outcome *o);

/* The steps of probe_settle, each in a file of its own. */

/* Whether c holds member: its order names it, or the evidence says so. */
bool probe_candidate_uses(const struct probe_candidate *c, int member);

/* The members parted into arrays (o->group), each with its best
 * candidate, lead and alike geometries; the members in none (o->unused). */
void probe_find_arrays(struct probe_outcome *o);

/* A note on each array's superblocks left on the members, against the
 * candidate found for those members. */
void probe_weigh_supers(struct probe_outcome *o);

/* Adds one line to o's notes (dropped past PROBE_MAX_EVIDENCE). */
void probe_outcome_note(struct probe_outcome *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Whether c leaves nothing undecided: every role, and chunk, layout and
 * data offset where its level has them. */
bool probe_candidate_complete(const struct probe_candidate *c);

/* Sets c's proposed metadata and spec.size as mdadm would choose them
 * over its members (the smallest used decides), with h's -e when it fits
 * the data offset. */
void probe_candidate_finish(struct probe_candidate *c, const struct probe_member *m,
			    const struct probe_hints *h);

#endif
