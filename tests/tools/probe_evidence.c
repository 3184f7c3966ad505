/* probe_evidence: test helper that runs the probe's redundancy evidence
 * (parity, then copies) on members and prints each candidate, best first,
 * as a --geometry SPEC line when it is whole, with '?' where it is not,
 * then its evidence and what stayed undecided.
 *   probe_evidence [-l LEVEL] [-n N] [-c SECTORS] [-p LAYOUT] [-o DATA_OFFSET] MEMBER|missing... */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "probe/evidence.h"

#define BUDGET (32ull << 20)

static bool whole(const struct probe_candidate *c)
{
	const struct geometry_spec *g = &c->spec;

	if (g->data_offset == UINT64_MAX)
		return false;
	if (g->level != MD_LEVEL_RAID1 && g->level != MD_LEVEL_RAID4 && (!g->chunk_sectors || g->layout < 0))
		return false;
	for (int r = 0; r < g->raid_disks; r++)
		if (g->order[r] == PROBE_UNKNOWN)
			return false;
	return true;
}

static void print_partial(const struct probe_candidate *c)
{
	const struct geometry_spec *g = &c->spec;

	printf("level=%d,chunk=", g->level);
	g->chunk_sectors ? printf("%us", g->chunk_sectors) : printf("?");
	g->layout >= 0 ? printf(",layout=%d", g->layout) : printf(",layout=?");
	g->data_offset != UINT64_MAX ? printf(",data-offset=%llus", (unsigned long long)g->data_offset)
				     : printf(",data-offset=?");
	printf(",order=");
	for (int r = 0; r < g->raid_disks; r++) {
		printf("%s", r ? ":" : "");
		if (g->order[r] == PROBE_UNKNOWN)
			printf("?");
		else if (g->order[r] == SPEC_MISSING)
			printf("missing");
		else
			printf("%d", g->order[r]);
	}
}

static void print_candidate(const struct probe_candidate *c, uint64_t member_sectors)
{
	struct geometry_spec g = c->spec;
	char line[4096];

	if (whole(c)) {
		/* the size search would set: what is left after the data offset, whole chunks */
		g.size = member_sectors - g.data_offset;
		if (g.chunk_sectors)
			g.size -= g.size % g.chunk_sectors;
		geometry_spec_print(&g, line, sizeof(line));
		printf("%s", line);
	} else {
		print_partial(c);
	}
	printf(" score=%.4f members=", c->score);
	for (int m = 0, first = 1; m < ST_MAX_DISKS; m++)
		if (c->uses[m]) {
			printf("%s%d", first ? "" : ",", m);
			first = 0;
		}
	printf("\n");
	for (int i = 0; i < c->nevidence; i++)
		printf("  %s\n", c->evidence[i]);
}

static int usage(void)
{
	fprintf(stderr, "usage: probe_evidence [-l LEVEL] [-n N] [-c SECTORS] [-p LAYOUT] [-o SECTORS] MEMBER...\n");
	return 2;
}

int main(int argc, char **argv)
{
	struct probe_hints h = { .level = -1, .layout = -1, .data_offset = UINT64_MAX };
	static struct probe_member m[ST_MAX_DISKS];
	static struct probe_result r;
	struct probe_sample s;
	struct diag d = { 0 };
	int opt;

	while ((opt = getopt(argc, argv, "l:n:c:p:o:")) != -1) {
		switch (opt) {
		case 'l': h.level = atoi(optarg); break;
		case 'n': h.raid_disks = atoi(optarg); break;
		case 'c': h.chunk_sectors = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'p': h.layout = atoi(optarg); break;
		case 'o': h.data_offset = strtoull(optarg, NULL, 0); break;
		default: return usage();
		}
	}
	int n = argc - optind;
	if (n < 1)
		return usage();
	if (probe_members_open(argv + optind, n, m, &d) < 0 || probe_sample_read(&s, m, n, BUDGET, &d) < 0 ||
	    probe_parity(&s, &h, &r, &d) < 0 || probe_mirror(&s, &h, &r, &d) < 0) {
		fprintf(stderr, "probe_evidence: %s\n", d.msg);
		return 2;
	}
	uint64_t least = UINT64_MAX;
	for (int i = 0; i < n; i++)
		if (m[i].path && m[i].sectors < least)
			least = m[i].sectors;
	for (int i = 0; i < r.ncand; i++)
		print_candidate(&r.cand[i], least);
	for (int i = 0; i < r.nundecided; i++)
		printf("undecided: %s\n", r.undecided[i]);
	probe_sample_free(&s);
	probe_members_close(m, n);
	return r.ncand ? 0 : 1;
}
