/* probe-content: test helper that runs the probe's filesystem evidence
 * alone on members and prints the ranked candidates, for the specs.
 *   probe-content [-l L] [-n N] [--given SPEC [--unknown FIELD,...]] MEMBER...
 *   probe-content --canon SPEC
 * --given starts the result with one candidate; --unknown forgets fields of
 * it (chunk, layout, data-offset, roleN) as parity leaves them undecided.
 * Prints "SCORE SPEC" a candidate a line (a role still undecided as "?"),
 * each evidence line under it indented, then "undecided: ..." lines,
 * "sample: BYTES" the sample read per member and "read: BYTES" what was
 * read in all, per member.  --canon prints SPEC as the candidates are
 * printed (size 0, the probe leaves it to the search), for comparing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe/evidence.h"

#define BUDGET (24ull << 20)

static int forget(struct geometry_spec *g, char *fields)
{
	for (char *save = NULL, *f = strtok_r(fields, ",", &save); f; f = strtok_r(NULL, ",", &save)) {
		int role;
		if (strcmp(f, "chunk") == 0)
			g->chunk_sectors = 0;
		else if (strcmp(f, "layout") == 0)
			g->layout = -1;
		else if (strcmp(f, "data-offset") == 0)
			g->data_offset = UINT64_MAX;
		else if (sscanf(f, "role%d", &role) == 1 && role >= 0 && role < g->raid_disks)
			g->order[role] = PROBE_UNKNOWN;
		else
			return -1;
	}
	return 0;
}

static void print_candidate(const struct probe_candidate *c)
{
	struct geometry_spec g = c->spec;
	char spec[512], order[ST_MAX_DISKS * 8] = "";
	bool open = false;

	for (int r = 0; r < g.raid_disks; r++) {
		char one[16];
		open |= g.order[r] == PROBE_UNKNOWN;
		snprintf(one, sizeof(one), "%s%s", r ? ":" : "", g.order[r] == PROBE_UNKNOWN ? "?" : "");
		if (g.order[r] != PROBE_UNKNOWN)
			snprintf(one, sizeof(one), "%s%d", r ? ":" : "", g.order[r]);
		strcat(order, one);
		if (g.order[r] == PROBE_UNKNOWN)
			g.order[r] = 0;
	}
	geometry_spec_print(&g, spec, sizeof(spec));
	if (open) {
		char *o = strstr(spec, "order=");
		if (o)
			snprintf(o, sizeof(spec) - (size_t)(o - spec), "order=%s", order);
	}
	printf("%.3f %s\n", c->score, spec);
	for (int e = 0; e < c->nevidence; e++)
		printf("  %s\n", c->evidence[e]);
}

int main(int argc, char **argv)
{
	struct probe_hints h = { .level = -1, .layout = -1, .data_offset = UINT64_MAX };
	struct probe_member m[ST_MAX_DISKS];
	static struct probe_result r;
	struct probe_sample s;
	struct diag d;
	int i = 1;

	if (argc == 3 && strcmp(argv[1], "--canon") == 0) {
		if (geometry_spec_parse(argv[2], &r.cand[0].spec, &d) < 0) {
			fprintf(stderr, "probe-content: %s\n", d.msg);
			return 2;
		}
		r.cand[0].spec.size = 0;
		print_candidate(&r.cand[0]);
		return 0;
	}

	for (; i < argc && argv[i][0] == '-'; i += 2) {
		if (i + 1 >= argc)
			break;
		if (strcmp(argv[i], "-l") == 0) {
			h.level = atoi(argv[i + 1]);
		} else if (strcmp(argv[i], "-n") == 0) {
			h.raid_disks = atoi(argv[i + 1]);
		} else if (strcmp(argv[i], "--given") == 0) {
			if (geometry_spec_parse(argv[i + 1], &r.cand[0].spec, &d) < 0) {
				fprintf(stderr, "probe-content: %s\n", d.msg);
				return 2;
			}
			r.cand[0].score = 1;
			r.ncand = 1;
		} else if (strcmp(argv[i], "--unknown") == 0 && r.ncand) {
			if (forget(&r.cand[0].spec, argv[i + 1]) < 0) {
				fprintf(stderr, "probe-content: --unknown %s: not chunk, layout, data-offset or roleN\n",
					argv[i + 1]);
				return 2;
			}
		} else {
			break;
		}
	}
	int n = argc - i;
	if (n < 1) {
		fprintf(stderr, "usage: probe-content [-l L] [-n N] [--given SPEC [--unknown FIELD,...]] MEMBER...\n");
		return 2;
	}
	if (probe_members_open(argv + i, n, m, &d) < 0 || probe_sample_read(&s, m, n, BUDGET, &d) < 0) {
		fprintf(stderr, "probe-content: %s\n", d.msg);
		return 2;
	}
	uint64_t sample = s.bytes_read;
	int rc = probe_content(&s, &h, &r, &d);
	for (int k = 0; k < r.ncand; k++)
		print_candidate(&r.cand[k]);
	for (int k = 0; k < r.nundecided; k++)
		printf("undecided: %s\n", r.undecided[k]);
	printf("sample: %llu\nread: %llu\n", (unsigned long long)sample, (unsigned long long)s.bytes_read);
	if (rc < 0)
		fprintf(stderr, "probe-content: %s\n", d.msg);
	probe_sample_free(&s);
	probe_members_close(m, n);
	return rc < 0 ? 2 : 0;
}
