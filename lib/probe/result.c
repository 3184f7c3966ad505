/* result: the ranked list of candidate geometries and the lines of evidence
 * and doubt that travel with them to the report. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "probe/probe.h"

static bool same_geometry(const struct geometry_spec *a, const struct geometry_spec *b)
{
	if (a->level != b->level || a->layout != b->layout || a->chunk_sectors != b->chunk_sectors ||
	    a->data_offset != b->data_offset || a->raid_disks != b->raid_disks)
		return false;
	return memcmp(a->order, b->order, sizeof(a->order[0]) * (size_t)a->raid_disks) == 0;
}

/* Orders still unknown say nothing of which members a candidate holds. */
static bool same_candidate(const struct probe_candidate *a, const struct probe_candidate *b)
{
	return same_geometry(&a->spec, &b->spec) && memcmp(a->uses, b->uses, sizeof(a->uses)) == 0;
}

static void join_evidence(struct probe_candidate *into, const struct probe_candidate *from)
{
	for (int i = 0; i < from->nevidence && into->nevidence < PROBE_MAX_EVIDENCE; i++) {
		bool known = false;
		for (int j = 0; j < into->nevidence && !known; j++)
			known = strcmp(into->evidence[j], from->evidence[i]) == 0;
		if (!known)
			memcpy(into->evidence[into->nevidence++], from->evidence[i], PROBE_LINE);
	}
}

/* Keeps cand[] sorted by falling score, so the last slot is the one to lose. */
static void settle(struct probe_result *r, int i)
{
	while (i > 0 && r->cand[i - 1].score < r->cand[i].score) {
		struct probe_candidate t = r->cand[i - 1];
		r->cand[i - 1] = r->cand[i];
		r->cand[i] = t;
		i--;
	}
}

void probe_result_add(struct probe_result *r, const struct probe_candidate *c)
{
	for (int i = 0; i < r->ncand; i++) {
		struct probe_candidate *have = &r->cand[i];
		if (!same_candidate(have, c))
			continue;
		if (c->score > have->score) {
			struct probe_candidate old = *have;
			*have = *c;
			join_evidence(have, &old);
		} else {
			join_evidence(have, c);
		}
		settle(r, i);
		return;
	}
	if (r->ncand == PROBE_MAX_CANDIDATES) {
		if (r->cand[r->ncand - 1].score >= c->score)
			return;
		r->ncand--;
	}
	r->cand[r->ncand] = *c;
	settle(r, r->ncand++);
}

static void vline(char *line, const char *fmt, va_list ap)
{
	vsnprintf(line, PROBE_LINE, fmt, ap);
}

void probe_result_undecided(struct probe_result *r, const char *fmt, ...)
{
	va_list ap;

	if (r->nundecided == PROBE_MAX_EVIDENCE)
		return;
	va_start(ap, fmt);
	vline(r->undecided[r->nundecided++], fmt, ap);
	va_end(ap);
}

void probe_candidate_evidence(struct probe_candidate *c, const char *fmt, ...)
{
	va_list ap;

	if (c->nevidence == PROBE_MAX_EVIDENCE)
		return;
	va_start(ap, fmt);
	vline(c->evidence[c->nevidence++], fmt, ap);
	va_end(ap);
}
