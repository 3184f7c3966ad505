/* stripe-write: write standard input or a file into an md array at an
 * offset, keeping mirrors and parity right, degraded arrays too. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "md/array.h"
#include "cli/cli.h"
#include "cli/mended.h"
#include "cli/open_array.h"
#include "util/progress.h"
#include "raid/stripe.h"

#define TOOL "stripe-write"

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: " TOOL " [options] MEMBER...\n"
		"\n"
		"Write standard input (or --input FILE) into the md array made of MEMBER...\n"
		"at byte --offset, keeping mirrors and parity right: whole stripes are written\n"
		"directly, partial ones read, merged and written back. On a degraded array what\n"
		"a missing member would hold is kept in parity. Like md, the array is marked\n"
		"dirty in every superblock before the first write and clean after the last,\n"
		"so an interrupted write shows as \"active\" (a resync is due).\n"
		"\n"
		"Options:\n"
		"      --offset N          array byte to start at (K, M, G, T suffixes)\n"
		"  -i, --input FILE        read FILE instead of standard input\n"
		"  -R, --run               write although roles in sync were not given\n"
		"      --progress MODE     auto, bar, log or none (default auto)\n"
		"  -q, --quiet             no warnings about left-out members, no progress\n"
		"  -v, --verbose           say which members are used\n"
		"  -h, --help              show this help and exit\n"
		"  -V, --version           show the version and exit\n"
		"\n"
		"Exit status: 0 every byte written (also where a member failed to read part\n"
		"of a row the write kept: rebuilt from the other members, named on\n"
		"stderr), 1 a range that could not be written (a row whose kept bytes too\n"
		"little redundancy is left to rebuild: named with the roles it lacks; the\n"
		"write stops there, the rows before it written), 2 error. A write past the\n"
		"end of the array is refused before anything is written when the input's\n"
		"size is known (a file); from a pipe, what fits is written and the run fails.\n");
}

struct input {
	int fd;
	const char *name;
	struct progress *prog;
	uint64_t done;
};

static long long read_input(void *ctx, void *buf, size_t len, struct diag *d)
{
	struct input *in = ctx;
	ssize_t n;

	do
		n = read(in->fd, buf, len);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return diag_fail(d, "%s: read error: %s", in->name, strerror(errno));
	in->done += (uint64_t)n;
	progress_update(in->prog, in->done);
	return n;
}

static int open_input(const char *path, struct input *in, uint64_t *size)
{
	struct stat st;

	in->fd = STDIN_FILENO;
	in->name = "standard input";
	if (path) {
		in->fd = open(path, O_RDONLY | O_CLOEXEC);
		in->name = path;
		if (in->fd < 0) {
			fprintf(stderr, TOOL ": %s: %s\n", path, strerror(errno));
			return -1;
		}
	}
	*size = UINT64_MAX;
	if (fstat(in->fd, &st) == 0 && S_ISREG(st.st_mode)) {
		off_t pos = lseek(in->fd, 0, SEEK_CUR);

		*size = (uint64_t)st.st_size - (uint64_t)(pos > 0 ? pos : 0);
	}
	return 0;
}

/* One byte more than fits tells a pipe that ran past the end. */
static int input_has_more(struct input *in)
{
	char c;
	ssize_t n;

	do
		n = read(in->fd, &c, 1);
	while (n < 0 && errno == EINTR);
	return n > 0;
}

/* A range the write could not serve: what it lacked, and how far the
 * write got before it stopped there. */
static void say_unserved(const struct diag *d, uint64_t off, uint64_t written)
{
	if (written)
		fprintf(stderr, TOOL ": %s; the write stopped there: array bytes %llu-%llu written, nothing after\n",
			d->msg, (unsigned long long)off, (unsigned long long)(off + written - 1));
	else
		fprintf(stderr, TOOL ": %s; the write stopped there: nothing written\n", d->msg);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "offset", required_argument, NULL, 'S' },
		{ "input", required_argument, NULL, 'i' },
		{ "run", no_argument, NULL, 'R' },
		{ "progress", required_argument, NULL, 'P' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct cli_members given = { .tool = TOOL, .aopt.mode = DEV_WRITE, .readable = true };
	enum progress_mode pmode = PROGRESS_AUTO;
	uint64_t off = 0, size, in_size, len, written = 0;
	const char *input = NULL;
	struct input in = { 0 };
	struct cli_mended errs = { .tool = TOOL };
	struct progress prog;
	int c, quiet = 0, verbose = 0, rc = 0;
	bool was_clean, unserved;
	struct array a;
	struct diag d;

	atexit(cli_close_stdout);
	cli_getopt_name(argv, TOOL);
	while ((c = getopt_long(argc, argv, "i:RqvhV", opts, NULL)) != -1) {
		switch (c) {
		case 'S':
			if (cli_parse_size(optarg, &off) < 0) {
				fprintf(stderr, TOOL ": --offset: '%s' is not a size\n", optarg);
				return EXIT_ERROR;
			}
			break;
		case 'i': input = optarg; break;
		case 'R': given.run = true; break;
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
	given.say = quiet && !verbose ? CLI_SAY_NOTHING : CLI_SAY_LEFT_OUT;
	if (cli_open_array(&a, &given) < 0)
		return EXIT_ERROR;
	if (open_input(input, &in, &in_size) < 0) {
		array_close(&a);
		return EXIT_ERROR;
	}
	size = a.geo.array_sectors * 512;
	if (off > size || (in_size != UINT64_MAX && in_size > size - off)) {
		fprintf(stderr, TOOL ": %s: writing %llu bytes at offset %llu runs past the end of the array (%llu bytes); nothing written\n",
			a.members[0].path, (unsigned long long)(in_size == UINT64_MAX ? 0 : in_size),
			(unsigned long long)off, (unsigned long long)size);
		array_close(&a);
		return EXIT_ERROR;
	}
	len = in_size != UINT64_MAX ? in_size : size - off;
	/* a pipe's length is unknown: its bytes and rate are shown, not a
	 * share of the array it may never fill */
	progress_start(&prog, progress_quiet(pmode, quiet && !verbose), TOOL, "writing",
		       in_size != UINT64_MAX ? len : 0);
	in.prog = &prog;
	errs.quiet = quiet && !verbose;
	/* a partial row's page a member fails to read (or its bad-block log
	 * names) is rebuilt from the rest of the row, which is then written
	 * whole, as md writes around it: said as stripe-read says it */
	a.read_mended = cli_mended_note;
	a.read_mended_ctx = &errs;
	was_clean = !a.dirty;
	if (array_mark(&a, false, &d) < 0 ||
	    stripe_write(&a, off, len, read_input, &in, &written, &d) < 0)
		rc = -1;
	progress_finish(&prog);
	cli_mended_flush(&errs);
	if (rc == 0 && in_size == UINT64_MAX && written == size - off && input_has_more(&in)) {
		rc = diag_fail(&d, "%s: the input runs past the end of the array (%llu bytes); %llu bytes were written",
			       a.members[0].path, (unsigned long long)size, (unsigned long long)written);
	}
	unserved = rc < 0 && d.kind == DIAG_UNSERVED;
	if (unserved)
		say_unserved(&d, off, written);
	/* An array that needed a resync before still needs one; a failed
	 * write leaves it dirty so md and stripe-check look at it.  A write
	 * stopped at a range it could not serve wrote whole rows before it,
	 * each with its parity: clean, so md still starts it degraded. */
	if ((rc == 0 || unserved) && was_clean && array_mark(&a, true, &d) < 0) {
		rc = -1;
		unserved = false;
	}
	if (rc < 0 && !unserved)
		fprintf(stderr, TOOL ": %s\n", d.msg);
	else if (rc == 0 && verbose)
		fprintf(stderr, TOOL ": wrote %llu bytes at offset %llu\n", (unsigned long long)written,
			(unsigned long long)off);
	if (input)
		close(in.fd);
	array_close(&a);
	/* a row written around a read error is written whole: said on stderr */
	return rc == 0 ? EXIT_OK : unserved ? EXIT_PROBLEM : EXIT_ERROR;
}
