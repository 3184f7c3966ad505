/* stripe-bench: Bonnie's benchmark with bonnie++'s semantics, tiotest's
 * threads and hdparm's timings, on a directory, a file, a block device or
 * an md array driven through the stripe engine without the kernel's md. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "md/array.h"
#include "bench/bench.h"
#include "bench/benchout.h"
#include "cli/cli.h"
#include "cli/open_array.h"
#include "cli/json_out.h"
#include "util/json.h"
#include "io/probe.h"

#define TOOL "stripe-bench"

/* Set by SIGINT, SIGTERM or SIGHUP: the tests stop and clean up. */
static volatile sig_atomic_t interrupted;

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: " TOOL " [options] TARGET\n"
		"       " TOOL " [options] -d DIR\n"
		"       " TOOL " [options] --array MEMBER...\n"
		"\n"
		"Benchmark storage as Bonnie and bonnie++ do: per-character and block\n"
		"writes, rewrite, per-character and block reads, random seeks (and with -n\n"
		"file creation, stat and deletion). TARGET is a directory (temporary files,\n"
		"removed afterwards), or a regular file or block device used in place (its\n"
		"content is overwritten; one that holds data only with --force). With\n"
		"--array the arguments are the members of an md array, benchmarked through\n"
		"its layout without the kernel's md driver (the array's content is\n"
		"overwritten).\n"
		"\n"
		"Options (bonnie++'s letters):\n"
		"  -d, --directory DIR     the TARGET directory, as bonnie++ -d names it\n"
		"  -s, --size SIZE         bytes for the block tests (default: twice the RAM,\n"
		"                          at most a file's, device's or array's size)\n"
		"  -r, --ram SIZE          the RAM that --size doubles (default: this host's)\n"
		"      --chunk SIZE        bytes per read and write (default 8K)\n"
		"      --char-size SIZE    bytes for the per-character tests (default 3M;\n"
		"                          0 skips them)\n"
		"  -f, --fast[=SIZE]       bonnie++'s fast mode: skip the per-character tests\n"
		"                          (with SIZE: --char-size SIZE)\n"
		"  -n, --files N[:MAX[:MIN[:DIRS]]]\n"
		"                          file tests with N*1024 files of MIN to MAX bytes\n"
		"                          in DIRS directories (a directory TARGET only)\n"
		"      --seeks N           random seeks (default 8192)\n"
		"      --seekers N         threads sharing the seeks (default 5)\n"
		"  -D, --direct            O_DIRECT, past the page cache\n"
		"      --drop-cache        drop the target's pages from the page cache before\n"
		"                          each reading test, so that reads come from the\n"
		"                          device even when --size is below twice the RAM\n"
		"  -b, --fsync             fsync after every write (bonnie++'s no buffering)\n"
		"      --stdio             per-character tests with putc and getc, as the\n"
		"                          original Bonnie (default: 1-byte write and read)\n"
		"      --threads N         tiotest: N threads writing and reading files of\n"
		"                          their own, sequentially and at random\n"
		"      --hdparm            hdparm's -T and -t timings (read only)\n"
		"      --seconds S         hdparm: time disk reads S seconds and cached\n"
		"                          reads two thirds of it (default 3)\n"
		"      --array             the arguments are members of an md array\n"
		"  -R, --run               --array: write although roles in sync were not given\n"
		"  -z, --seed N            seed for seek positions, names and data\n"
		"      --force             write to a file or device that holds data or\n"
		"                          carries a signature\n"
		"  -m, --label NAME        the Machine column (default: the host name)\n"
		"      --csv               a bonnie++ 1.98 CSV line instead of the table\n"
		"      --csv=FILE          the table, and the CSV line appended to FILE (with a\n"
		"                          header line when FILE is new)\n"
		"      --json[=FILE]       one JSON document with the parameters and figures,\n"
		"                          on standard output, or replacing FILE whole\n"
		"                          beside the text (or CSV)\n"
		"  -q, --quiet             no warnings\n"
		"  -v, --verbose           name each test as it starts\n"
		"  -h, --help              show this help and exit\n"
		"  -V, --version           show the version and exit\n"
		"\n"
		"Sizes take K, M, G or T (powers of 1024): a bare number is refused, as\n"
		"bonnie++ reads it as MiB and fio as bytes. K/sec in the table and the CSV\n"
		"are KiB per second, as Bonnie's. A file or device that holds data is not\n"
		"written without --force; only the files the run made are removed.\n"
		"\n"
		"Exit status: 0 the tests ran, 1 --array: a range the array could not serve\n"
		"(too little redundancy left; named, and the tests stopped there), 2 usage\n"
		"or runtime error (or interrupted; temporary files are removed either way).\n");
}

struct options {
	struct bench_params p;
	bool size_given, char_given, array, run, hdparm, csv, json, force, quiet, verbose;
	struct json_out out;         /* --json: where, and the run's verdict */
	const char *csv_file, *dir;
	char label[64];
};

static void on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

static void catch_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	/* no SA_RESTART: a blocked read or sleep returns, and the test looks */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

static void note(void *ctx, const char *what)
{
	(void)ctx;
	fprintf(stderr, TOOL ": %s\n", what);
}

static int parse_count(const char *opt, const char *s, unsigned min, unsigned max, unsigned *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || *s == '-' || v < min || v > max) {
		fprintf(stderr, TOOL ": %s: '%s' is not a number from %u to %u\n", opt, s, min, max);
		return -1;
	}
	*out = (unsigned)v;
	return 0;
}

/* A benchmark's sizes carry their unit (cli_parse_size_unit). */
static int parse_size_opt(const char *opt, const char *s, uint64_t *out)
{
	int rc = cli_parse_size_unit(s, out);

	return rc < 0 ? cli_size_error(TOOL, opt, s, rc) : 0;
}

/* -n N[:MAX[:MIN[:DIRS]]], sizes with suffixes */
static int parse_files(const char *s, struct bench_files *f)
{
	char buf[128], *parts[4] = { 0 }, *save = NULL, *tok;
	int n = 0;

	snprintf(buf, sizeof(buf), "%s", s);
	for (tok = strtok_r(buf, ":", &save); tok && n < 4; tok = strtok_r(NULL, ":", &save))
		parts[n++] = tok;
	if (!n || tok || parse_count("--files", parts[0], 1, 1000000, &f->count) < 0)
		goto bad;
	if (n > 1 && parse_size_opt("--files MAX", parts[1], &f->max_size) < 0)
		return -1;
	if (n > 2 && parse_size_opt("--files MIN", parts[2], &f->min_size) < 0)
		return -1;
	if (n > 3 && parse_count("--files", parts[3], 1, 99999, &f->dirs) < 0)
		goto bad;
	if (f->min_size > f->max_size) {
		fprintf(stderr, TOOL ": --files: MIN %llu is more than MAX %llu\n", (unsigned long long)f->min_size,
			(unsigned long long)f->max_size);
		return -1;
	}
	return 0;
bad:
	fprintf(stderr, TOOL ": --files: '%s' is not N[:MAX[:MIN[:DIRS]]]\n", s);
	return -1;
}

static int parse_seconds(const char *s, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v > 0) || v > 3600) {
		fprintf(stderr, TOOL ": --seconds: '%s' is not a number of seconds above 0 (at most 3600)\n", s);
		return -1;
	}
	*out = v;
	return 0;
}

static int parse_seed(const char *s, uint64_t *out)
{
	char *end;

	errno = 0;
	*out = strtoull(s, &end, 10);
	if (errno || end == s || *end || *s == '-') {
		fprintf(stderr, TOOL ": --seed: '%s' is not a number\n", s);
		return -1;
	}
	return 0;
}

static void default_label(char *buf, size_t len)
{
	char host[256];

	if (gethostname(host, sizeof(host)) < 0 || !host[0])
		snprintf(host, sizeof(host), "%s", "localhost");
	host[sizeof(host) - 1] = 0;
	host[strcspn(host, ".")] = 0;
	host[len - 1 < sizeof(host) ? len - 1 : sizeof(host) - 1] = 0;
	memcpy(buf, host, strlen(host) + 1);
}

enum {
	OPT_CHUNK = 256, OPT_CHAR, OPT_SEEKS, OPT_SEEKERS, OPT_STDIO, OPT_DROP_CACHE, OPT_THREADS,
	OPT_HDPARM, OPT_SECONDS, OPT_ARRAY, OPT_FORCE, OPT_CSV, OPT_JSON,
};

static int parse_options(int argc, char **argv, struct options *o)
{
	static const struct option opts[] = {
		{ "directory", required_argument, NULL, 'd' },
		{ "size", required_argument, NULL, 's' },
		{ "ram", required_argument, NULL, 'r' },
		{ "fast", optional_argument, NULL, 'f' },
		{ "chunk", required_argument, NULL, OPT_CHUNK },
		{ "char-size", required_argument, NULL, OPT_CHAR },
		{ "files", required_argument, NULL, 'n' },
		{ "seeks", required_argument, NULL, OPT_SEEKS },
		{ "seekers", required_argument, NULL, OPT_SEEKERS },
		{ "direct", no_argument, NULL, 'D' },
		{ "fsync", no_argument, NULL, 'b' },
		{ "stdio", no_argument, NULL, OPT_STDIO },
		{ "drop-cache", no_argument, NULL, OPT_DROP_CACHE },
		{ "threads", required_argument, NULL, OPT_THREADS },
		{ "hdparm", no_argument, NULL, OPT_HDPARM },
		{ "seconds", required_argument, NULL, OPT_SECONDS },
		{ "array", no_argument, NULL, OPT_ARRAY },
		{ "run", no_argument, NULL, 'R' },
		{ "seed", required_argument, NULL, 'z' },
		{ "force", no_argument, NULL, OPT_FORCE },
		{ "label", required_argument, NULL, 'm' },
		{ "csv", optional_argument, NULL, OPT_CSV },
		{ "json", optional_argument, NULL, OPT_JSON },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t v;
	int c;

	cli_getopt_name(argv, TOOL);
	while ((c = getopt_long(argc, argv, "d:s:r:f::n:bDz:m:RqvhV", opts, NULL)) != -1) {
		switch (c) {
		case 'd': o->dir = optarg; break;
		case 's':
			if (parse_size_opt("--size", optarg, &o->p.size) < 0)
				return -1;
			o->size_given = true;
			break;
		case 'r':
			if (parse_size_opt("--ram", optarg, &o->p.ram) < 0)
				return -1;
			break;
		case 'f':
			o->p.char_size = 0;
			if (optarg && parse_size_opt("--fast", optarg, &o->p.char_size) < 0)
				return -1;
			o->char_given = true;
			break;
		case OPT_CHUNK:
			if (parse_size_opt("--chunk", optarg, &v) < 0)
				return -1;
			if (v < 1 || v > (64u << 20)) {
				fprintf(stderr, TOOL ": --chunk: %s is not from 1 byte to 64M\n", optarg);
				return -1;
			}
			o->p.chunk = (uint32_t)v;
			break;
		case OPT_CHAR:
			if (parse_size_opt("--char-size", optarg, &o->p.char_size) < 0)
				return -1;
			o->char_given = true;
			break;
		case 'n':
			if (parse_files(optarg, &o->p.files) < 0)
				return -1;
			break;
		case OPT_SEEKS:
			if (parse_count("--seeks", optarg, 0, 100000000, &o->p.seeks) < 0)
				return -1;
			break;
		case OPT_SEEKERS:
			if (parse_count("--seekers", optarg, 1, 1024, &o->p.seekers) < 0)
				return -1;
			break;
		case 'D': o->p.direct = true; break;
		case 'b': o->p.fsync = true; break;
		case OPT_STDIO: o->p.stdio = true; break;
		case OPT_DROP_CACHE: o->p.drop_cache = true; break;
		case OPT_THREADS:
			if (parse_count("--threads", optarg, 1, 1024, &o->p.threads) < 0)
				return -1;
			break;
		case OPT_HDPARM: o->hdparm = true; break;
		case 'R': o->run = true; break;
		case OPT_SECONDS:
			if (parse_seconds(optarg, &o->p.seconds) < 0)
				return -1;
			break;
		case OPT_ARRAY: o->array = true; break;
		case 'z':
			if (parse_seed(optarg, &o->p.seed) < 0)
				return -1;
			break;
		case OPT_FORCE: o->force = true; break;
		case 'm':
			if (!optarg[0] || strchr(optarg, ',') || strlen(optarg) >= sizeof(o->label)) {
				fprintf(stderr, TOOL ": --label: '%s' must be 1 to %zu characters without a comma\n",
					optarg, sizeof(o->label) - 1);
				return -1;
			}
			snprintf(o->label, sizeof(o->label), "%s", optarg);
			break;
		case OPT_CSV:
			if (optarg && !optarg[0]) {
				fprintf(stderr, TOOL ": --csv=: no file name\n");
				return -1;
			}
			o->csv = !optarg;
			o->csv_file = optarg;
			break;
		case OPT_JSON:
			o->json = true;
			if (json_out_option(&o->out, TOOL, optarg) < 0)
				return -1;
			break;
		case 'q': o->quiet = true; break;
		case 'v': o->verbose = true; break;
		case 'h': usage(stdout); exit(EXIT_OK);
		case 'V': cli_version(TOOL); exit(EXIT_OK);
		default: cli_usage_error(TOOL, NULL); return -1;
		}
	}
	return 0;
}

/* Combinations that make no sense, refused before anything is touched. */
static int check_options(const struct options *o, int nargs)
{
	const char *why = NULL;

	if (o->dir && o->array)
		why = "-d names a directory; --array takes the members as arguments";
	else if (nargs < 1 && !o->array)
		why = "no target given";
	else if (nargs > 1 && !o->array)
		why = "one target only (or --array with the members)";
	else if (o->csv && !json_out_human(&o->out))
		why = "--csv and --json: choose one";
	else if (o->hdparm && o->p.threads)
		why = "--hdparm and --threads: choose one";
	else if (o->hdparm && (o->csv || o->csv_file))
		why = "--csv is bonnie++'s format; --hdparm has its own lines (or --json)";
	else if (o->p.files.count && (o->array || o->hdparm || o->p.threads))
		why = "--files needs a directory and the Bonnie tests (not --array, --hdparm or --threads)";
	else if (o->p.drop_cache && (o->hdparm || o->p.threads))
		why = "--drop-cache is for the Bonnie tests (hdparm -t drops the cache itself; not --threads)";
	else if (o->p.direct && o->p.chunk % 4096)
		why = "--direct needs a --chunk that is a multiple of 4K";
	if (why) {
		cli_usage_error(TOOL, "%s", why);
		return -1;
	}
	return 0;
}

static uint64_t ram_bytes(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);

	return pages > 0 && size > 0 ? (uint64_t)pages * (uint64_t)size : 0;
}

/* --array: the members put together as md would; busy ones refused when
 * the tests write. */
static int open_array(const struct options *o, char **paths, int n, struct array *a, struct bench_target *t)
{
	struct cli_members given = {
		.tool = TOOL, .paths = paths, .n = n, .readable = true,
		.aopt.mode = o->hdparm ? DEV_READ : DEV_WRITE, .run = o->run, .say_degraded = true,
		.say = o->quiet ? CLI_SAY_NOTHING : CLI_SAY_LEFT_OUT,
	};

	if (cli_open_array(a, &given) < 0)
		return -1;
	t->kind = BENCH_ARRAY;
	t->path = paths[0];
	t->array = a;
	return 0;
}

/* A file or device that holds data is someone's, unless --force says it
 * may go: a mistyped argument (an output file where the target goes) must
 * not be benchmarked over. */
static int refuse_data(const struct options *o, const struct bench_target *t, struct diag *d)
{
	uint64_t at;
	int rc;

	if (o->force)
		return 0;
	rc = bench_target_data_at(t, &at, d);
	if (rc <= 0)
		return rc;
	return diag_fail(d, "%s: holds data (byte %llu is not zero), which the tests would overwrite; "
			 "give a directory, or --force", t->path, (unsigned long long)at);
}

/* A file or device the tests write to is refused when mounted or busy, and
 * when it carries a signature or holds data unless --force; a device is then held with
 * O_EXCL for the whole run. */
static int hold_target(const struct options *o, const struct bench_target *t, int *hold)
{
	struct diag d;

	*hold = -1;
	if (t->kind == BENCH_DIR || t->kind == BENCH_ARRAY || o->hdparm)
		return 0;
	if (access(t->path, W_OK) < 0) {
		fprintf(stderr, TOOL ": %s: not writable: %s\n", t->path, strerror(errno));
		return -1;
	}
	if (probe_refuse(t->path, o->force, false, &d) < 0 || refuse_data(o, t, &d) < 0) {
		fprintf(stderr, TOOL ": %s\n", d.msg);
		return -1;
	}
	if (t->kind == BENCH_DEVICE) {
		*hold = open(t->path, O_RDONLY | O_EXCL | O_CLOEXEC);
		if (*hold < 0) {
			fprintf(stderr, TOOL ": %s: cannot hold the device for the run: %s\n", t->path,
				errno == EBUSY ? "device is in use" : strerror(errno));
			return -1;
		}
	}
	return 0;
}

static const char *human(uint64_t v, char *buf, size_t len)
{
	static const char units[] = "KMGTP";
	double x = (double)v;
	int i = -1;

	while (x >= 1024 && i < 4) {
		x /= 1024;
		i++;
	}
	if (i < 0)
		snprintf(buf, len, "%llu bytes", (unsigned long long)v);
	else
		snprintf(buf, len, "%.*f %ciB", x < 10 ? 1 : 0, x, units[i]);
	return buf;
}

/* --size: twice the RAM by default, cut to what the target holds; whole
 * chunks (and, with threads, whole chunks for every thread). */
static int settle_size(struct options *o, const struct bench_target *t)
{
	struct bench_params *p = &o->p;
	uint64_t cap = UINT64_MAX, unit = p->chunk;
	struct diag d;
	char a[32], b[32];

	if (t->kind == BENCH_ARRAY) {
		cap = t->array->geo.array_sectors * 512;
		if (p->threads) {
			/* each thread's region holds whole stripe rows */
			uint64_t row = (uint64_t)t->array->geo.chunk_sectors * 512 *
				       (uint64_t)(t->array->geo.data_disks ? t->array->geo.data_disks : 1);
			unit = row % p->chunk == 0 ? row : row * p->chunk;
		}
	} else if (t->kind != BENCH_DIR) {
		if (bench_target_size(t, &cap, &d) < 0) {
			fprintf(stderr, TOOL ": %s\n", d.msg);
			return -1;
		}
		if (t->kind == BENCH_FILE && o->hdparm && cap == 0) {
			fprintf(stderr, TOOL ": %s: empty file, nothing to read\n", t->path);
			return -1;
		}
		if (t->kind == BENCH_FILE && !o->hdparm && (o->size_given || cap == 0))
			cap = UINT64_MAX;    /* a file the tests write grows to --size */
	}
	if (!o->size_given) {
		if (t->kind == BENCH_FILE && cap == UINT64_MAX) {
			fprintf(stderr, TOOL ": %s: empty file; give --size to write that much into it\n", t->path);
			return -1;
		}
		p->size = 2 * p->ram < cap ? 2 * p->ram : cap;
	} else if (p->size > cap) {
		fprintf(stderr, TOOL ": %s: --size %s is more than the %s the %s holds\n", t->path,
			human(p->size, a, sizeof(a)), human(cap, b, sizeof(b)),
			t->kind == BENCH_ARRAY ? "array" : t->kind == BENCH_FILE ? "file" : "device");
		return -1;
	}
	if (p->threads)
		unit *= p->threads;
	p->size -= p->size % unit;
	if (!p->size) {
		fprintf(stderr, TOOL ": %s: --size must hold at least %llu bytes (a chunk%s)\n", t->path,
			(unsigned long long)unit, p->threads ? " per thread" : "");
		return -1;
	}
	if (p->char_size > p->size)
		p->char_size = p->size;
	if (t->kind == BENCH_ARRAY || p->threads || o->hdparm || p->direct)
		p->char_size = 0;    /* no per-character tests there */
	return 0;
}

/* Bytes the filesystem must have free for the run's files. */
static uint64_t space_needed(const struct options *o, const struct bench_target *t)
{
	const struct bench_params *p = &o->p;
	uint64_t need, have = 0;
	struct diag d;

	if (o->hdparm)
		return 0;
	need = p->size > p->char_size ? p->size : p->char_size;
	need += (uint64_t)p->files.count * 1024 * (p->files.max_size + 4096);
	if (t->kind == BENCH_FILE && bench_target_size(t, &have, &d) == 0)
		need = need > have ? need - have : 0;
	return need;
}

static void warn_page_cache(const struct options *o)
{
	char a[32], b[32];

	if (o->quiet || o->p.direct || o->p.drop_cache || o->hdparm || o->p.size >= 2 * o->p.ram)
		return;
	fprintf(stderr, TOOL ": warning: --size %s is less than twice the RAM (%s): the results include the page cache\n",
		human(o->p.size, a, sizeof(a)), human(2 * o->p.ram, b, sizeof(b)));
}

static int run_tests(struct options *o, struct bench_target *t, struct bench_results *r, struct diag *d)
{
	int rc;

	if (o->hdparm)
		return hdparm_run(&o->p, t, &r->hdparm, d);
	if (o->p.threads)
		return tiotest_run(&o->p, t, &r->tio, d);
	if (t->kind == BENCH_ARRAY)
		return bonnie_array_tests(&o->p, t, r, d);
	rc = bonnie_io_tests(&o->p, t, r, d);
	if (rc == 0 && o->p.files.count)
		rc = bonnie_file_tests(&o->p, t, r, d);
	return rc;
}

/* --csv=FILE: the CSV line appended, so that runs gather in one file as
 * bon_csv2html takes them; a file made now starts with bonnie++'s header. */
static int append_csv(const struct options *o, const struct bench_report *rep)
{
	bool made = true;
	FILE *f;
	int fd;

	if (!o->csv_file)
		return 0;
	fd = open(o->csv_file, O_WRONLY | O_APPEND | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0 && errno == EEXIST) {
		made = false;
		fd = open(o->csv_file, O_WRONLY | O_APPEND | O_CLOEXEC);
	}
	f = fd < 0 ? NULL : fdopen(fd, "a");
	if (!f) {
		fprintf(stderr, TOOL ": %s: cannot append the CSV line: %s\n", o->csv_file, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (made)
		bench_print_csv_header(f);
	bench_print_csv(f, rep);
	if (fclose(f) != 0) {
		fprintf(stderr, TOOL ": %s: write error: %s\n", o->csv_file, strerror(errno));
		return -1;
	}
	return 0;
}

static int report(struct options *o, const struct bench_target *t, const struct bench_results *r)
{
	struct bench_report rep = {
		.mode = o->hdparm ? BENCH_HDPARM : o->p.threads ? BENCH_THREADS : BENCH_BONNIE,
		.p = &o->p, .r = r, .t = t,
	};

	if (o->json) {
		if (json_out_begin(&o->out, 1) < 0)
			return -1;
		bench_json(&o->out.j, &rep);
		if (json_out_end(&o->out, 1, "done", NULL) < 0)
			return -1;
	}
	if (json_out_human(&o->out) && o->csv)
		bench_print_csv(stdout, &rep);
	else if (json_out_human(&o->out))
		bench_print_text(stdout, &rep);
	return append_csv(o, &rep);
}

/* An array is marked dirty while the tests write it, as md would. */
static int mark_array(const struct options *o, struct bench_target *t, bool clean, bool was_clean, struct diag *d)
{
	if (t->kind != BENCH_ARRAY || o->hdparm || (clean && !was_clean))
		return 0;
	return array_mark(t->array, clean, d);
}

static void free_results(struct bench_results *r)
{
	free(r->tio.per);
}

int main(int argc, char **argv)
{
	struct options o = { .p = { .chunk = 8192, .char_size = 3u << 20, .seeks = 8192, .seekers = 5,
				    .seconds = 3.0 } };
	struct bench_target t = { 0 };
	struct bench_results r;
	struct array a = { 0 };
	struct diag d = { 0 };
	bool was_clean = true, unserved = false;
	int rc = 0, hold = -1;

	atexit(cli_close_stdout);
	if (parse_options(argc, argv, &o) < 0)
		return EXIT_ERROR;
	if (o.dir)
		argv[--optind] = (char *)o.dir;    /* -d DIR is the TARGET argument */
	if (check_options(&o, argc - optind) < 0 ||
	    (o.csv_file && cli_refuse_output(TOOL, o.csv_file, argv + optind, argc - optind) < 0) ||
	    (o.out.path && cli_refuse_output(TOOL, o.out.path, argv + optind, argc - optind) < 0))
		return EXIT_ERROR;
	if (!o.label[0])
		default_label(o.label, sizeof(o.label));
	o.p.label = o.label;
	if (!o.p.ram)
		o.p.ram = ram_bytes();
	if (!o.p.seed)
		o.p.seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
	memset(&r, 0, sizeof(r));
	catch_signals();
	t.stop = &interrupted;
	if (o.verbose) {
		t.note = note;
	}
	if (o.array) {
		if (open_array(&o, argv + optind, argc - optind, &a, &t) < 0) {
			json_out_end(&o.out, 1, "error", NULL);
			return EXIT_ERROR;
		}
		was_clean = !a.dirty;
	} else if (bench_target_open(&t, argv[optind], &d) < 0 ||
		   (o.hdparm && t.kind == BENCH_DIR &&
		    diag_fail(&d, "%s: --hdparm times a file, a block device or an array, not a directory",
			      t.path) < 0) ||
		   (o.p.files.count && t.kind != BENCH_DIR &&
		    diag_fail(&d, "%s: --files needs a directory to make its files in", t.path) < 0)) {
		fprintf(stderr, TOOL ": %s\n", d.msg);
		bench_target_cleanup(&t);
		json_out_end(&o.out, 1, "error", d.msg);
		return EXIT_ERROR;
	}
	if (hold_target(&o, &t, &hold) < 0 || settle_size(&o, &t) < 0 ||
	    bench_target_check_space(&t, space_needed(&o, &t), &d) < 0) {
		if (d.msg[0])
			fprintf(stderr, TOOL ": %s\n", d.msg);
		rc = -1;
	}
	if (rc == 0) {
		warn_page_cache(&o);
		rc = mark_array(&o, &t, false, was_clean, &d);
		if (rc == 0)
			rc = run_tests(&o, &t, &r, &d);
		unserved = rc < 0 && d.kind == DIAG_UNSERVED;
		if (unserved)
			fprintf(stderr, TOOL ": %s; the tests stopped there\n", d.msg);
		/* a range the engine could not serve was left as it was, and
		 * every row written before it whole: the array is clean */
		if ((rc == 0 || unserved) && mark_array(&o, &t, true, was_clean, &d) < 0) {
			rc = -1;
			unserved = false;
		}
		if (rc < 0 && !unserved)
			fprintf(stderr, TOOL ": %s%s\n", d.msg,
				interrupted && t.kind == BENCH_DIR ? "; temporary files removed" : "");
	}
	bench_target_cleanup(&t);
	if (rc == 0)
		rc = report(&o, &t, &r);
	if (hold >= 0)
		close(hold);
	if (o.array)
		array_close(&a);
	free_results(&r);
	if (rc < 0)
		json_out_end(&o.out, 1, unserved ? "unserved" : "error", NULL);
	return rc == 0 ? EXIT_OK : unserved ? EXIT_PROBLEM : EXIT_ERROR;
}
