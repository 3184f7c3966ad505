/* stripe-probe: find a lost md array's geometry from what its members hold,
 * and print the lines that give it back to md.  Never writes a member. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/json_out.h"
#include "cli/open_array.h"
#include "md/layout.h"
#include "probe/report.h"
#include "probe/search.h"
#include "util/progress.h"

#define TOOL "stripe-probe"

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: " TOOL " [options] MEMBER...\n"
		"\n"
		"Find the geometry of the md array made of MEMBER... (block devices or image\n"
		"files, in any order; \"missing\" for one known to be absent) from the data\n"
		"they hold, when the superblocks are gone or wrong: level, devices, chunk,\n"
		"layout, member order, data offset and size. It reads a sample of each\n"
		"member, ranks the geometries that fit, and prints the mdadm --create line,\n"
		"the stripe-create line and the --geometry SPEC of the best. Members are\n"
		"opened read-only: nothing is written.\n"
		"\n"
		"Options (hints that narrow the search):\n"
		"  -l, --level LEVEL          0, 1, 4, 5, 6, 10 (or raid0 ... raid10)\n"
		"  -n, --raid-devices N       devices in the array\n"
		"  -c, --chunk SIZE           chunk size, a power of two >= 4K\n"
		"  -p, --layout LAYOUT        left-symmetric, ls, ra, n2, f2, o2, ... (with -l)\n"
		"  -e, --metadata VERSION     0.90, 1.0, 1.1 or 1.2 the array had\n"
		"      --data-offset SIZE     where data starts on each member\n"
		"      --deep                 read a larger sample\n"
		"Output:\n"
		"      --json[=FILE]          print the findings as JSON, on standard output,\n"
		"                             or replacing FILE whole beside the text\n"
		"      --progress MODE        auto, bar, log or none (default auto)\n"
		"  -q, --quiet                print the verdict and the lines to restore only\n"
		"  -v, --verbose              print every candidate\n"
		"  -h, --help                 show this help and exit\n"
		"  -V, --version              show the version and exit\n"
		"\n"
		"Sizes take K, M, G, T (powers of 1024); a bare number is KiB, as in mdadm.\n"
		"\n"
		"Exit status: 0 one confident answer using every member given, 1 ambiguous\n"
		"or none (what could not be decided is said), 2 usage or runtime error.\n"
		"See stripe-probe(1).\n");
}

struct options {
	struct probe_hints hints;
	const char *layout;          /* -p, read once -l is known */
	enum progress_mode progress;
	struct json_out jo;
	bool quiet, verbose;
};

/* A usage error said (one line and where the help is): -1 to the caller. */
#define USAGE_ERROR(...) (cli_usage_error(TOOL, __VA_ARGS__), -1)

static int parse_pow2(const char *opt, const char *arg, uint64_t *bytes)
{
	if (cli_parse_kib(arg, bytes) < 0)
		return USAGE_ERROR("%s: '%s' is not a size", opt, arg);
	if (*bytes < 4096 || (*bytes & (*bytes - 1)) || *bytes > (1ULL << 30))
		return USAGE_ERROR("%s %s: %llu bytes is not a power of two from 4K to 1G", opt, arg,
				       (unsigned long long)*bytes);
	return 0;
}

static int parse_metadata(const char *arg, int *metadata)
{
	static const struct { const char *name; int v; } names[] = {
		{ "0.90", 90 }, { "0.9", 90 }, { "0", 90 }, { "1.0", 100 }, { "1.1", 110 }, { "1.2", 120 },
		{ "1", 120 },
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(arg, names[i].name) == 0) {
			*metadata = names[i].v;
			return 0;
		}
	return USAGE_ERROR("--metadata: '%s' is not 0.90, 1.0, 1.1 or 1.2", arg);
}

static int parse_option(int c, const char *arg, struct options *o)
{
	struct probe_hints *h = &o->hints;
	uint64_t bytes;
	struct diag d;
	char *end;

	switch (c) {
	case 'l':
		h->level = level_parse(arg, &d);
		return h->level == -100 ? USAGE_ERROR("%s", d.msg) : 0;
	case 'n': {
		long v = strtol(arg, &end, 10);
		if (!*arg || *end || v < 1 || v > ST_MAX_DISKS)
			return USAGE_ERROR("--raid-devices: '%s' is not a number from 1 to %d", arg,
					       ST_MAX_DISKS);
		h->raid_disks = (int)v;
		return 0;
	}
	case 'c':
		if (parse_pow2("--chunk", arg, &bytes) < 0)
			return -1;
		h->chunk_sectors = (uint32_t)(bytes / 512);
		return 0;
	case 'p': o->layout = arg; return 0;
	case 'e': return parse_metadata(arg, &h->metadata);
	case 'D':
		if (cli_parse_kib(arg, &bytes) < 0 || bytes % 512)
			return USAGE_ERROR("--data-offset: '%s' is not a size in whole sectors", arg);
		h->data_offset = bytes / 512;
		return 0;
	case 'd': h->deep = true; return 0;
	case 'j':
		if (json_out_option(&o->jo, TOOL, arg) < 0)
			return -1;
		return 0;
	case 'P': return progress_option(TOOL, arg, &o->progress);
	case 'q': o->quiet = true; return 0;
	case 'v': o->verbose = true; return 0;
	default: return USAGE_ERROR(NULL);
	}
}

/* -p names a layout of the level -l gives: raid10's numbers are not raid5's. */
static int parse_layout(struct options *o)
{
	struct diag d;

	if (!o->layout)
		return 0;
	if (o->hints.level < 0)
		return USAGE_ERROR("--layout %s: give the level too (-l)", o->layout);
	o->hints.layout = layout_parse(o->hints.level, o->layout, &d);
	return o->hints.layout < 0 ? USAGE_ERROR("--layout: %s", d.msg) : 0;
}

static int exit_status(enum probe_verdict v)
{
	return v == PROBE_FOUND ? EXIT_OK : EXIT_PROBLEM;
}

static void print_text(const struct probe_outcome *out, const struct options *o)
{
	if (!json_out_human(&o->jo))
		return;
	probe_report_text(stdout, out, o->verbose ? PROBE_ALL : o->quiet ? PROBE_BRIEF : PROBE_USUAL);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "level", required_argument, NULL, 'l' },
		{ "raid-devices", required_argument, NULL, 'n' },
		{ "chunk", required_argument, NULL, 'c' },
		{ "layout", required_argument, NULL, 'p' },
		{ "metadata", required_argument, NULL, 'e' },
		{ "data-offset", required_argument, NULL, 'D' },
		{ "deep", no_argument, NULL, 'd' },
		{ "json", optional_argument, NULL, 'j' },
		{ "progress", required_argument, NULL, 'P' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct options o = { .hints = { .level = -1, .layout = -1, .data_offset = UINT64_MAX } };
	struct probe_outcome out;
	struct progress prog = { .tool = TOOL };
	struct diag d;
	int c, st;

	atexit(cli_close_stdout);
	cli_getopt_name(argv, TOOL);
	while ((c = getopt_long(argc, argv, "l:n:c:p:e:qvhV", opts, NULL)) != -1) {
		if (c == 'h') {
			usage(stdout);
			return EXIT_OK;
		}
		if (c == 'V') {
			cli_version(TOOL);
			return EXIT_OK;
		}
		if (parse_option(c, optarg, &o) < 0)
			return EXIT_ERROR;
	}
	if (parse_layout(&o) < 0 || cli_need_members(TOOL, argc - optind) < 0)
		return EXIT_ERROR;
	/* the report must not land on a member */
	if (o.jo.path && cli_refuse_output(TOOL, o.jo.path, argv + optind, argc - optind) < 0)
		return EXIT_ERROR;
	prog.mode = progress_quiet(o.progress, o.quiet && !o.verbose);
	if (probe_run(argv + optind, argc - optind, &o.hints, &prog, &out, &d) < 0) {
		fprintf(stderr, TOOL ": %s\n", d.msg);
		json_out_end(&o.jo, 1, "error", d.msg);
		return EXIT_ERROR;
	}
	st = exit_status(out.verdict);
	if (o.jo.on && json_out_begin(&o.jo, 1) < 0) {
		st = EXIT_ERROR;
	} else if (o.jo.on) {
		probe_report_json(&o.jo.j, &out);
		if (json_out_end(&o.jo, 1, probe_verdict_name(out.verdict), NULL) < 0)
			st = EXIT_ERROR;
	}
	print_text(&out, &o);
	probe_outcome_free(&out);
	return st;
}
