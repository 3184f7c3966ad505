/* stripe-check: verify an md array's parity or mirror copies offline, name
 * the member and offset of every inconsistent 4 KiB unit, repair on request. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "raid/check.h"
#include "cli/cli.h"
#include "cli/json_out.h"
#include "cli/open_array.h"
#include "raid/fsmap.h"
#include "util/json.h"
#include "util/progress.h"

#define TOOL "stripe-check"
/* 2: a unit's "culprit" is its role and member, not an index into "blocks" */
#define JSON_FORMAT 2

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: " TOOL " [options] MEMBER...\n"
		"\n"
		"Verify every stripe of the md array made of MEMBER...: RAID1/10 copies\n"
		"identical, RAID4/5 P, RAID6 P and Q (in md's syndrome order). Each\n"
		"inconsistent 4 KiB unit is reported with the member, the member offset and\n"
		"the kind of block; for RAID6 the member at fault is named from the syndrome.\n"
		"The summary gives the count md's \"check\" would leave in mismatch_cnt.\n"
		"Without --repair nothing is written.\n"
		"\n"
		"Options:\n"
		"      --offset N          check from array byte N (K, M, G, T suffixes)\n"
		"      --length N          check N bytes (default: to the end)\n"
		"      --repair            mend what is found, as md's repair does: parity,\n"
		"                          copies, and blocks that fail to read or that a\n"
		"                          member's bad-block log names, rewritten from\n"
		"                          redundancy (their log entries cleared); a repair\n"
		"                          of the whole array leaves it clean\n"
		"  -R, --run               repair although roles in sync were not given\n"
		"      --prefer ROLE       RAID1/10 repair: copy from this role's member\n"
		"      --json[=FILE]       one JSON document with a record per unit, on\n"
		"                          standard output, or replacing FILE whole\n"
		"                          beside the text report\n"
		"      --geometry SPEC     check the members as SPEC describes, not as their\n"
		"                          superblocks do (not with --repair; see stripe-read(1))\n"
		"      --files             on ext2/3/4: name the file, directory or metadata\n"
		"                          at each unit hurt (read through the members)\n"
		"      --progress MODE     auto, bar, log or none (default auto)\n"
		"  -q, --quiet             only the summary\n"
		"  -v, --verbose           also list every block of each unit\n"
		"  -h, --help              show this help and exit\n"
		"  -V, --version           show the version and exit\n"
		"\n"
		"Exit status: 0 consistent (or all that was found repaired, or a raid0 with\n"
		"nothing to verify), 1 inconsistencies or unreadable blocks left, or units\n"
		"that could not be verified (members missing), 2 usage or runtime error.\n");
}

/* A reported unit kept for --files: the array bytes it may have hurt. */
struct hit {
	uint64_t row;
	unsigned page;
	enum unit_verdict verdict;
	int culprit;
	bool repaired, copies;
	uint64_t at;                     /* RAID1/10: the unit's array byte */
	int nblocks;
	struct unit_block *blocks;       /* --json: its blocks, written out after the check */
	size_t first, n;                 /* its array offsets in run.offs */
	char what[96];                   /* "one of 3 data blocks, or P", or why none */
};

struct run {
	struct json_out out;
	struct json *j;                  /* &out.j */
	bool human;                      /* the text output: all but --json alone */
	bool json, quiet, verbose, files, repair;
	struct progress prog;
	struct hit *hits;
	size_t nhits, caphits;
	uint64_t left;                   /* units reported and not repaired */
	uint64_t *offs;
	size_t noffs, capoffs;
	bool oom;
};

static const char *path_of(const struct unit_block *b)
{
	return b->member ? b->member->path : "(missing)";
}

static void print_block(const struct unit_block *b)
{
	printf("%s on %s at byte %llu", block_kind_name(b->kind), path_of(b),
	       (unsigned long long)b->member_offset);
	if (b->kind == BLOCK_DATA || b->kind == BLOCK_COPY)
		printf(" (array byte %llu)", (unsigned long long)b->array_offset);
	if (b->unreadable)
		printf(" [read error]");
}

static void print_unit(const struct check_unit *u, bool verbose, bool repair)
{
	int i;

	if (u->blocks[0].kind == BLOCK_COPY)
		printf("array byte %llu: ", (unsigned long long)u->blocks[0].array_offset);
	else
		printf("stripe row %llu, unit %u: ", (unsigned long long)u->row, u->page);
	if (u->verdict == UNIT_UNREADABLE || u->verdict == UNIT_READ_ERROR) {
		printf(u->verdict == UNIT_READ_ERROR ? "verified from the redundancy left, unreadable:"
						      : "not verified, unreadable:");
		for (i = 0; i < u->nblocks; i++)
			if (u->blocks[i].unreadable) {
				printf(" ");
				print_block(&u->blocks[i]);
			}
	} else if (u->verdict == UNIT_CULPRIT) {
		print_block(&u->blocks[u->culprit]);
		printf(" is wrong");
	} else if (u->blocks[0].kind == BLOCK_COPY) {
		printf("copies differ:");
		for (i = 0; i < u->nblocks; i++) {
			printf("%s", i ? ";" : "");
			printf(" ");
			print_block(&u->blocks[i]);
		}
	} else {
		printf("parity mismatch, member at fault unknown; ");
		print_block(&u->blocks[u->nblocks - (u->blocks[u->nblocks - 1].kind == BLOCK_Q ? 2 : 1)]);
	}
	printf("%s\n", u->repaired ? " [repaired]"
		: repair && u->verdict == UNIT_UNREADABLE ? " [unrepairable: no redundancy left]" : "");
	for (i = 0; verbose && u->blocks[0].kind != BLOCK_COPY && i < u->nblocks; i++) {
		printf("    ");
		print_block(&u->blocks[i]);
		printf("\n");
	}
}

static void json_unit(struct json *j, const struct check_unit *u, const struct run *r,
		      const struct hit *h, char *const *descs)
{
	static const char *const verdicts[] = { "mismatch", "culprit", "unreadable", "read_error" };
	int i;

	json_object(j, NULL);
	json_uint(j, "row", u->row);
	json_uint(j, "unit", u->page);
	json_str(j, "verdict", verdicts[u->verdict]);
	json_bool(j, "repaired", u->repaired);
	json_uint(j, "mismatch_sectors", u->verdict >= UNIT_UNREADABLE ? 0 : CHECK_UNIT / 512);
	if (u->culprit >= 0) {
		const struct unit_block *c = &u->blocks[u->culprit];

		json_object(j, "culprit");
		json_int(j, "role", c->role);
		if (c->member)
			json_str(j, "member", c->member->path);
		else
			json_null(j, "member");
		json_close(j);
	} else {
		json_null(j, "culprit");
	}
	json_array(j, "blocks");
	for (i = 0; i < u->nblocks; i++) {
		const struct unit_block *b = &u->blocks[i];

		json_object(j, NULL);
		json_int(j, "role", b->role);
		if (b->member)
			json_str(j, "member", b->member->path);
		else
			json_null(j, "member");
		json_str(j, "kind", block_kind_name(b->kind));
		json_uint(j, "member_offset_bytes", b->member_offset);
		if (b->kind == BLOCK_DATA || b->kind == BLOCK_COPY)
			json_uint(j, "array_offset_bytes", b->array_offset);
		json_bool(j, "unreadable", b->unreadable);
		json_close(j);
	}
	json_close(j);
	if (h) {
		size_t k;

		json_array(j, "files");
		for (k = h->first; k < h->first + h->n; k++) {
			json_object(j, NULL);
			json_uint(j, "array_offset_bytes", r->offs[k]);
			if (descs)
				json_str(j, "description", descs[k]);
			else
				json_null(j, "description");
			json_close(j);
		}
		json_close(j);
	}
	json_close(j);
}

static void *grow(void *p, size_t *cap, size_t n, size_t size, bool *oom)
{
	size_t c = *cap ? *cap * 2 : 64;
	void *q;

	if (n < *cap)
		return p;
	q = realloc(p, c * size);
	if (!q) {
		*oom = true;
		return NULL;
	}
	*cap = c;
	return q;
}

static void add_offset(struct run *r, struct hit *h, uint64_t off)
{
	uint64_t *p;
	size_t k;

	for (k = h->first; k < h->first + h->n; k++)
		if (r->offs[k] == off)
			return;
	if (!(p = grow(r->offs, &r->capoffs, r->noffs, sizeof(*p), &r->oom)))
		return;
	r->offs = p;
	r->offs[r->noffs++] = off;
	h->n++;
}

/* Parity blocks of the unit, as "P", "P or Q", "P and Q"; only the
 * unreadable ones when unreadable. */
static void parity_names(const struct check_unit *u, bool unreadable, const char *join, char *out, size_t size)
{
	int i;

	out[0] = 0;
	for (i = 0; i < u->nblocks; i++) {
		const struct unit_block *b = &u->blocks[i];

		if ((b->kind == BLOCK_P || b->kind == BLOCK_Q) && b->member && (!unreadable || b->unreadable))
			snprintf(out + strlen(out), size - strlen(out), "%s%s", out[0] ? join : "",
				 block_kind_name(b->kind));
	}
}

/* Keeps the unit and the array offsets of the data it may have hurt: the
 * culprit, the unreadable data blocks, a RAID1/10 unit's array bytes, or
 * for an unknown culprit every data block of the unit.  False when it
 * could not be kept (out of memory). */
static bool collect(struct run *r, const struct check_unit *u)
{
	struct hit *hits, *h;
	char par[32];
	int i, ndata = 0;

	if (r->oom || !(hits = grow(r->hits, &r->caphits, r->nhits, sizeof(*hits), &r->oom)))
		return false;
	r->hits = hits;
	h = &r->hits[r->nhits];
	*h = (struct hit){ .row = u->row, .page = u->page, .verdict = u->verdict, .culprit = u->culprit,
			   .repaired = u->repaired, .copies = u->blocks[0].kind == BLOCK_COPY,
			   .at = u->blocks[0].array_offset, .nblocks = u->nblocks, .first = r->noffs };
	if (r->json) {
		h->blocks = malloc((size_t)u->nblocks * sizeof(*h->blocks));
		if (!h->blocks) {
			r->oom = true;
			return false;
		}
		memcpy(h->blocks, u->blocks, (size_t)u->nblocks * sizeof(*h->blocks));
	}
	r->nhits++;
	for (i = 0; i < u->nblocks; i++) {
		const struct unit_block *b = &u->blocks[i];

		if (b->kind != BLOCK_DATA && b->kind != BLOCK_COPY)
			continue;
		ndata++;
		if (u->verdict == UNIT_CULPRIT ? i == u->culprit
		    : u->verdict == UNIT_MISMATCH ? true : b->unreadable)
			add_offset(r, h, b->array_offset);
	}
	if (u->verdict == UNIT_CULPRIT && h->n == 0) {
		snprintf(h->what, sizeof(h->what), "no data hurt, the %s block is wrong",
			 block_kind_name(u->blocks[u->culprit].kind));
	} else if (u->verdict == UNIT_MISMATCH && !h->copies) {
		parity_names(u, false, " or ", par, sizeof(par));
		snprintf(h->what, sizeof(h->what), "one of %d data block%s%s%s", ndata, ndata == 1 ? "" : "s",
			 par[0] ? ", or " : "", par);
	} else if (h->n == 0) {
		parity_names(u, true, " and ", par, sizeof(par));
		snprintf(h->what, sizeof(h->what), "no data hurt, only %s unreadable", par[0] ? par : "parity");
	}
	return true;
}

static int on_unit(void *ctx, const struct check_unit *u)
{
	struct run *r = ctx;
	bool kept;

	progress_finish(&r->prog);
	r->left += !u->repaired;
	/* with --files, --json records wait for their files (unless out of memory) */
	kept = r->files && collect(r, u);
	if (r->json && !kept)
		json_unit(r->j, u, r, NULL, NULL);
	if (r->human && !r->quiet)
		print_unit(u, r->verbose, r->repair);
	return 0;
}

/* What the filesystem keeps at each collected offset; NULL (with a
 * warning) when that cannot be told. */
static char **describe_files(struct run *r, struct array *a, struct diag *d)
{
	struct fsmap *m = NULL;
	char **descs;

	if (r->oom) {
		diag_fail(d, "out of memory");
		return NULL;
	}
	if (!r->noffs)
		return NULL;
	descs = calloc(r->noffs, sizeof(*descs));
	if (!descs) {
		diag_fail(d, "out of memory");
		return NULL;
	}
	if (fsmap_open(a, &m, d) < 0 || fsmap_describe(m, r->offs, r->noffs, CHECK_UNIT, descs, d) < 0) {
		if (m)
			fsmap_close(m);
		free(descs);
		return NULL;
	}
	fsmap_close(m);
	return descs;
}

static void print_files(const struct run *r, char *const *descs)
{
	size_t i, k;

	printf("files hurt:%s\n", r->nhits ? "" : " none");
	for (i = 0; i < r->nhits; i++) {
		const struct hit *h = &r->hits[i];

		if (h->copies)
			printf("  array byte %llu", (unsigned long long)h->at);
		else
			printf("  stripe row %llu, unit %u", (unsigned long long)h->row, h->page);
		if (h->n == 1 && !h->what[0]) {
			if (!h->copies)
				printf(": array byte %llu", (unsigned long long)r->offs[h->first]);
			printf(": %s\n", descs ? descs[h->first] : "not known");
			continue;
		}
		printf(": %s%s\n", h->what[0] ? h->what : "unreadable", h->n ? ":" : "");
		for (k = h->first; k < h->first + h->n; k++)
			printf("    array byte %llu: %s\n", (unsigned long long)r->offs[k], descs ? descs[k] : "not known");
	}
}

/* --json --files: the units kept during the check, with their files. */
static void json_hits(struct run *r, char *const *descs)
{
	struct check_unit *u = malloc(sizeof(*u));
	size_t i;

	for (i = 0; u && i < r->nhits; i++) {
		const struct hit *h = &r->hits[i];

		if (!h->blocks)
			continue;
		*u = (struct check_unit){ .row = h->row, .page = h->page, .verdict = h->verdict,
					  .culprit = h->culprit, .nblocks = h->nblocks, .repaired = h->repaired };
		memcpy(u->blocks, h->blocks, (size_t)h->nblocks * sizeof(*h->blocks));
		json_unit(r->j, u, r, h, descs);
	}
	free(u);
}

static void free_files(struct run *r, char **descs)
{
	size_t i;

	for (i = 0; descs && i < r->noffs; i++)
		free(descs[i]);
	free(descs);
	for (i = 0; i < r->nhits; i++)
		free(r->hits[i].blocks);
	free(r->hits);
	free(r->offs);
}

static void on_progress(void *ctx, uint64_t done)
{
	progress_update(&((struct run *)ctx)->prog, done);
}

static void print_summary(const struct array *a, const struct check_result *res, const struct check_options *o)
{
	printf("%s: checked %llu units of 4 KiB: %llu inconsistent (md's mismatch_cnt would be %llu)",
	       a->members[0].path, (unsigned long long)res->units, (unsigned long long)res->inconsistent,
	       (unsigned long long)res->mismatch_sectors);
	if (o->repair)
		printf(", %llu repaired", (unsigned long long)res->repaired);
	printf("\n");
	if (res->rewritten)
		printf("%llu unreadable blocks of 4 KiB rewritten from redundancy, %llu bad-block log entries cleared\n",
		       (unsigned long long)res->rewritten, (unsigned long long)res->log_cleared);
	if (res->unverified)
		printf("%llu units could not be verified: %s\n", (unsigned long long)res->unverified,
		       a->missing ? "members are missing, no redundancy left to compare" : "read errors");
	if (res->read_errors)
		printf("%llu blocks of 4 KiB could not be read\n", (unsigned long long)res->read_errors);
}

/* What the run left outstanding: a unit reported and not repaired, or one
 * no redundancy was left to verify.  Mismatches all repaired leave nothing. */
static bool outstanding(const struct run *r, const struct check_result *res)
{
	return r->left || res->unsettled;
}

static const char *verdict(const struct run *r, const struct check_result *res)
{
	if (outstanding(r, res))
		return "needs_attention";
	return res->repaired || res->rewritten ? "repaired" : "consistent";
}

static void json_summary(struct json *j, const struct array *a, const struct check_result *res)
{
	json_object(j, "summary");
	json_str(j, "level", level_name(a->geo.level));
	json_uint(j, "units", res->units);
	json_uint(j, "inconsistent", res->inconsistent);
	json_uint(j, "mismatch_sectors", res->mismatch_sectors);
	json_uint(j, "repaired", res->repaired);
	json_uint(j, "unverified", res->unverified);
	json_uint(j, "read_errors", res->read_errors);
	json_uint(j, "rewritten", res->rewritten);
	json_uint(j, "log_entries_cleared", res->log_cleared);
	json_close(j);
}

/* A raid0 keeps no redundancy: there is nothing to verify, which is no
 * fault of the array (a nightly verify of every array must not fail it). */
static int nothing_to_verify(struct run *r, struct array *a)
{
	struct check_result none = { 0 };
	int rc = 0;

	if (r->json) {
		rc = json_out_begin(&r->out, JSON_FORMAT);
		if (rc == 0) {
			json_array(r->j, "units");
			json_close(r->j);
			json_summary(r->j, a, &none);
			rc = json_out_end(&r->out, JSON_FORMAT, "nothing_to_verify", NULL);
		}
	}
	if (r->human) {
		printf("%s: raid0 has no redundancy to check: nothing to verify\n", a->members[0].path);
	}
	array_close(a);
	return rc < 0 ? EXIT_ERROR : EXIT_OK;
}

/* A run that stops: its document (with --json) says so, with the message
 * the tool gave on stderr. */
static int failed(struct run *r, const char *msg)
{
	json_out_end(&r->out, JSON_FORMAT, "error", msg);
	return EXIT_ERROR;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "offset", required_argument, NULL, 'S' },
		{ "length", required_argument, NULL, 'L' },
		{ "repair", no_argument, NULL, 'r' },
		{ "run", no_argument, NULL, 'R' },
		{ "prefer", required_argument, NULL, 'p' },
		{ "json", optional_argument, NULL, 'j' },
		{ "files", no_argument, NULL, 'f' },
		{ "geometry", required_argument, NULL, 'G' },
		{ "progress", required_argument, NULL, 'P' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct check_options o = { .prefer_role = -1 };
	struct cli_members given = { .tool = TOOL, .aopt.mode = DEV_READ, .readable = true };
	enum progress_mode pmode = PROGRESS_AUTO;
	struct check_result res;
	struct run run = { 0 };
	struct array a;
	struct geometry_spec spec;
	struct diag d, fd = { 0 };
	char **descs = NULL;
	int c, rc;

	atexit(cli_close_stdout);
	run.j = &run.out.j;
	cli_getopt_name(argv, TOOL);
	while ((c = getopt_long(argc, argv, "RqvhV", opts, NULL)) != -1) {
		switch (c) {
		case 'S':
		case 'L':
			if (cli_parse_size(optarg, c == 'S' ? &o.offset : &o.length) < 0) {
				fprintf(stderr, TOOL ": --%s: '%s' is not a size\n", c == 'S' ? "offset" : "length", optarg);
				return failed(&run, NULL);
			}
			break;
		case 'r': o.repair = true; given.aopt.mode = DEV_WRITE; break;
		case 'R': given.run = true; break;
		case 'p':
			o.prefer_role = atoi(optarg);
			if (o.prefer_role < 0 || o.prefer_role >= ST_MAX_DISKS) {
				fprintf(stderr, TOOL ": --prefer: '%s' is not a role number\n", optarg);
				return failed(&run, NULL);
			}
			break;
		case 'j':
			run.json = true;
			if (json_out_option(&run.out, TOOL, optarg) < 0)
				return EXIT_ERROR;
			break;
		case 'f': run.files = true; break;
		case 'G':
			if (geometry_spec_parse(optarg, &spec, &d) < 0) {
				fprintf(stderr, TOOL ": %s\n", d.msg);
				return failed(&run, NULL);
			}
			given.geometry = &spec;
			break;
		case 'P':
			if (progress_option(TOOL, optarg, &pmode) < 0)
				return failed(&run, NULL);
			break;
		case 'q': run.quiet = true; break;
		case 'v': run.verbose = true; break;
		case 'h': usage(stdout); return EXIT_OK;
		case 'V': cli_version(TOOL); return EXIT_OK;
		default: return cli_usage_error(TOOL, NULL);
		}
	}
	/* a SPEC is a guess until the data bears it out: nothing is written on one */
	if (given.geometry && o.repair) {
		fprintf(stderr, TOOL ": --geometry: not with --repair; check with it, then write the superblocks "
			"(stripe-create --assume-clean) and repair on them\n");
		return failed(&run, NULL);
	}
	run.human = json_out_human(&run.out);
	given.paths = argv + optind;
	given.n = argc - optind;
	given.say = run.quiet ? CLI_SAY_NOTHING : CLI_SAY_LEFT_OUT;
	/* the report must not land on a member: no document is written there */
	if (run.out.path && cli_refuse_output(TOOL, run.out.path, given.paths, given.n) < 0)
		return EXIT_ERROR;
	if (cli_open_array(&a, &given) < 0)
		return failed(&run, NULL);
	if (a.geo.level == MD_LEVEL_RAID0)
		return nothing_to_verify(&run, &a);
	if (run.json && json_out_begin(&run.out, JSON_FORMAT) < 0) {
		array_close(&a);
		return EXIT_ERROR;
	}
	run.repair = o.repair;
	o.report = on_unit;
	o.progress = on_progress;
	o.ctx = &run;
	progress_start(&run.prog, progress_quiet(pmode, run.quiet), TOOL, o.repair ? "repairing" : "checking",
		       o.length ? o.length : a.geo.array_sectors * 512 - (o.offset < a.geo.array_sectors * 512 ? o.offset : 0));
	if (run.json)
		json_array(run.j, "units");
	rc = check_array(&a, &o, &res, &d);
	progress_finish(&run.prog);
	if (run.files) {
		descs = describe_files(&run, &a, &fd);
		if (fd.msg[0])
			fprintf(stderr, TOOL ": --files: %s\n", fd.msg);
		if (run.json)
			json_hits(&run, descs);
		if (run.human)
			print_files(&run, descs);
	}
	if (rc < 0)
		fprintf(stderr, TOOL ": %s\n", d.msg);
	if (run.json) {
		json_close(run.j);
		json_summary(run.j, &a, &res);
		if (fd.msg[0])
			json_str(run.j, "files_error", fd.msg);
		if (json_out_end(&run.out, JSON_FORMAT, rc < 0 ? "error" : verdict(&run, &res), rc < 0 ? d.msg : NULL) < 0)
			rc = -1;
	}
	if (run.human && rc == 0)
		print_summary(&a, &res, &o);
	free_files(&run, descs);
	array_close(&a);
	if (rc < 0)
		return EXIT_ERROR;
	return outstanding(&run, &res) ? EXIT_PROBLEM : EXIT_OK;
}
