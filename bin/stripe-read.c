/* stripe-read: write an md array's logical content to stdout or a file,
 * reconstructing what missing or stale members held. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "md/array.h"
#include "cli/cli.h"
#include "cli/mended.h"
#include "cli/open_array.h"
#include "raid/stripe.h"
#include "util/progress.h"

#define TOOL "stripe-read"

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: " TOOL " [options] MEMBER...\n"
		"\n"
		"Write the logical content of the md array made of MEMBER... (block devices\n"
		"or image files, in any order) to standard output. Missing, stale or faulty\n"
		"members are left out and what they held is rebuilt from the redundancy\n"
		"left (RAID1/10 from a copy, RAID4/5 one member, RAID6 two). Members are\n"
		"opened read-only.\n"
		"\n"
		"Options:\n"
		"      --offset N          start at array byte N (K, M, G, T suffixes)\n"
		"      --length N          read N bytes (default: to the end of the array)\n"
		"  -o, --output FILE       write to FILE instead of standard output\n"
		"      --raid0-layout L    layout for a multi-zone RAID0 that records none\n"
		"                          (original or alternate)\n"
		"      --geometry SPEC     read the members as SPEC describes, not as their\n"
		"                          superblocks do (see stripe-read(1))\n"
		"      --progress MODE     auto, bar, log or none (default auto)\n"
		"  -q, --quiet             print no warnings about left-out members, no progress\n"
		"  -v, --verbose           say which members are used\n"
		"  -h, --help              show this help and exit\n"
		"  -V, --version           show the version and exit\n"
		"\n"
		"A range a member's bad-block log names is read as a read error. Where no\n"
		"redundancy is left to rebuild a range that failed to read, it is written as\n"
		"zeroes and named by its array bytes on standard error, and the read goes on.\n"
		"\n"
		"Exit status: 0 every byte served (read errors rebuilt from the other\n"
		"members are named on stderr), 1 ranges no member could serve, read as\n"
		"zeroes (each named by its array bytes), 2 error (nothing is written when\n"
		"the array cannot be read). See stripe-read(1).\n");
}

struct out {
	int fd;
	const char *name;
	struct progress prog;
	uint64_t done;
};

static int write_out(void *ctx, const void *buf, size_t len, struct diag *d)
{
	struct out *o = ctx;
	size_t done = 0;

	while (done < len) {
		ssize_t n = write(o->fd, (const char *)buf + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return diag_fail(d, "%s: write error: %s", o->name, strerror(errno));
		done += (size_t)n;
	}
	o->done += len;
	progress_update(&o->prog, o->done);
	return 0;
}

/* Array bytes no member could give, read as zeroes: a line per run of
 * them. */
struct lost {
	uint64_t start, len;         /* the run not yet said */
	uint64_t bytes;              /* in all */
};

static void say_lost(struct lost *l)
{
	if (l->len)
		fprintf(stderr, TOOL ": array bytes %llu-%llu (%llu bytes): unreadable, and no redundancy left to "
			"rebuild them; read as zeroes\n", (unsigned long long)l->start,
			(unsigned long long)(l->start + l->len - 1), (unsigned long long)l->len);
	l->len = 0;
}

static void note_lost(void *ctx, uint64_t offset, size_t len)
{
	struct lost *l = ctx;

	if (l->len && offset != l->start + l->len)
		say_lost(l);
	if (!l->len)
		l->start = offset;
	l->len += len;
	l->bytes += len;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "offset", required_argument, NULL, 'S' },
		{ "length", required_argument, NULL, 'L' },
		{ "output", required_argument, NULL, 'o' },
		{ "raid0-layout", required_argument, NULL, 'R' },
		{ "geometry", required_argument, NULL, 'G' },
		{ "progress", required_argument, NULL, 'P' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct cli_members given = { .tool = TOOL, .aopt.mode = DEV_READ, .readable = true };
	uint64_t off = 0, len = 0, size;
	bool len_given = false;
	struct out o = { .fd = STDOUT_FILENO, .name = "standard output" };
	const char *output = NULL;
	struct cli_mended mended = { .tool = TOOL };
	struct lost lost = { 0 };
	enum progress_mode pmode = PROGRESS_AUTO;
	int c, quiet = 0, verbose = 0, rc;
	struct array a;
	struct geometry_spec spec;
	struct diag d;

	cli_getopt_name(argv, TOOL);
	while ((c = getopt_long(argc, argv, "o:qvhV", opts, NULL)) != -1) {
		switch (c) {
		case 'S':
		case 'L':
			if (cli_parse_size(optarg, c == 'S' ? &off : &len) < 0) {
				fprintf(stderr, TOOL ": --%s: '%s' is not a size\n", c == 'S' ? "offset" : "length", optarg);
				return EXIT_ERROR;
			}
			len_given |= c == 'L';
			break;
		case 'o': output = optarg; break;
		case 'R':
			if ((given.aopt.raid0_layout = cli_raid0_layout(optarg)) < 0) {
				fprintf(stderr, TOOL ": --raid0-layout: '%s' is neither original nor alternate\n", optarg);
				return EXIT_ERROR;
			}
			break;
		case 'G':
			if (geometry_spec_parse(optarg, &spec, &d) < 0) {
				fprintf(stderr, TOOL ": %s\n", d.msg);
				return EXIT_ERROR;
			}
			given.geometry = &spec;
			break;
		case 'P':
			if (progress_option(TOOL, optarg, &pmode) < 0)
				return EXIT_ERROR;
			break;
		case 'q': quiet = 1; break;
		case 'v': verbose = 1; break;
		case 'h': usage(stdout); return EXIT_OK;
		case 'V': cli_version(TOOL); return EXIT_OK;
		default: return cli_usage_error(TOOL, NULL);
		}
	}
	given.paths = argv + optind;
	given.n = argc - optind;
	given.say = verbose ? CLI_SAY_ROLES : quiet ? CLI_SAY_NOTHING : CLI_SAY_LEFT_OUT;
	given.say_degraded = true;
	if ((output && cli_refuse_output(TOOL, output, given.paths, given.n) < 0) ||
	    cli_open_array(&a, &given) < 0)
		return EXIT_ERROR;
	size = a.geo.array_sectors * 512;
	if (off > size) {
		fprintf(stderr, TOOL ": --offset %llu is past the end of the array (%llu bytes)\n",
			(unsigned long long)off, (unsigned long long)size);
		array_close(&a);
		return EXIT_ERROR;
	}
	if (!len_given)
		len = size - off;
	if (len > size - off) {
		fprintf(stderr, TOOL ": %s: --length %llu from offset %llu runs past the end of the array (%llu bytes)\n",
			a.members[0].path, (unsigned long long)len, (unsigned long long)off, (unsigned long long)size);
		array_close(&a);
		return EXIT_ERROR;
	}
	if (output) {
		o.name = output;
		o.fd = open(output, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (o.fd < 0) {
			fprintf(stderr, TOOL ": %s: %s\n", output, strerror(errno));
			array_close(&a);
			return EXIT_ERROR;
		}
	}
	mended.quiet = quiet && !verbose;
	a.read_mended = cli_mended_note;
	a.read_mended_ctx = &mended;
	a.read_lost = note_lost;
	a.read_lost_ctx = &lost;
	progress_start(&o.prog, progress_quiet(pmode, quiet && !verbose), TOOL, "reading", len);
	rc = stripe_read(&a, off, len, write_out, &o, &d);
	progress_finish(&o.prog);
	cli_mended_flush(&mended);
	say_lost(&lost);
	if (rc < 0)
		fprintf(stderr, TOOL ": %s\n", d.msg);
	if (output && close(o.fd) < 0 && rc == 0) {
		fprintf(stderr, TOOL ": %s: %s\n", output, strerror(errno));
		rc = -1;
	}
	array_close(&a);
	/* bytes read around are served: the lines on stderr say so */
	return rc < 0 ? EXIT_ERROR : lost.bytes ? EXIT_PROBLEM : EXIT_OK;
}
