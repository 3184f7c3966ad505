/* stripe-create: make an md array on block devices or image files, with
 * mdadm's options and defaults, that Linux md assembles as its own. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/open_array.h"
#include "md/create.h"
#include "cli/json_out.h"
#include "util/json.h"
#include "util/progress.h"
#include "io/probe.h"

#define TOOL "stripe-create"

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: " TOOL " [options] MEMBER...\n"
		"\n"
		"Create an md array on MEMBER... (block devices or image files; \"missing\"\n"
		"for an absent member), laid out exactly as mdadm --create would, so Linux\n"
		"md assembles it. The data areas are zeroed so the array is consistent at\n"
		"once (no resync); --assume-clean writes superblocks only and keeps data.\n"
		"\n"
		"Options:\n"
		"  -l, --level LEVEL          0, 1, 4, 5, 6, 10 (or raid0 ... raid10)\n"
		"  -n, --raid-devices N       active devices (default: members minus spares)\n"
		"  -x, --spare-devices N      the last N members become spares\n"
		"  -c, --chunk SIZE           chunk size, a power of two >= 4K (default 512K)\n"
		"  -p, --layout LAYOUT        left-symmetric, ls, ra, n2, f2, o2, original, ...\n"
		"  -e, --metadata VERSION     0.90, 1.0, 1.1 or 1.2 (default 1.2)\n"
		"  -N, --name NAME            array name (default \"0\"), stored as HOMEHOST:NAME\n"
		"      --homehost HOST        (default: this host's name; \"\" for none)\n"
		"  -u, --uuid UUID            array UUID (default: random)\n"
		"      --data-offset SIZE     where data starts on each member (1.1, 1.2)\n"
		"  -z, --size SIZE            space used on each member (default: all that fits)\n"
		"      --image-size SIZE      create absent member files as sparse files of SIZE\n"
		"      --assume-clean         write superblocks only; data and parity untouched\n"
		"  -b, --bitmap internal|none write-intent bitmap (default: internal when each\n"
		"                             member gives more than 100 GiB; never raid0)\n"
		"      --bitmap-chunk SIZE    bytes each bitmap bit covers, a power of two >= 4K\n"
		"                             (default: 64M, or more when the bits need it)\n"
		"  -f, --force                accept members with signatures or of mixed sizes\n"
		"      --dry-run              check and print the plan; write nothing\n"
		"      --json[=FILE]          print the result as JSON, on standard output, or\n"
		"                             replacing FILE whole beside the text\n"
		"      --progress MODE        zeroing shown: auto, bar, log or none (default auto)\n"
		"  -q, --quiet                print nothing on success\n"
		"  -v, --verbose              print each member's placement\n"
		"  -h, --help                 show this help and exit\n"
		"  -V, --version              show the version and exit\n"
		"\n"
		"Sizes take K, M, G, T (powers of 1024); a bare number is KiB, as in mdadm:\n"
		"-c 64 is -c 64K. --image-size alone reads a bare number as bytes.\n"
		"Mounted or busy members are refused even with --force, and so, with\n"
		"--assume-clean, is a superblock over data found on a member.\n"
		"\n"
		"Exit status: 0 created, 2 usage or runtime error (nothing written unless\n"
		"every member passed the checks).\n");
}

struct options {
	struct create_spec spec;
	bool dry_run, json, quiet, verbose, raid_set;
	enum progress_mode pmode;
	struct json_out out;         /* --json: where, and the run's verdict */
	uint64_t image_size;
	const char *layout_name;
};

static int fail(const char *fmt, const char *arg)
{
	fprintf(stderr, TOOL ": ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n");
	return EXIT_ERROR;
}

static int parse_metadata(const char *s, struct create_spec *sp)
{
	if (!strcmp(s, "0.90") || !strcmp(s, "0.9") || !strcmp(s, "0")) {
		sp->major = 0;
		sp->minor = 90;
	} else if (!strcmp(s, "1") || !strcmp(s, "1.0")) {
		sp->major = 1;
		sp->minor = 0;
	} else if (!strcmp(s, "1.1") || !strcmp(s, "1.2") || !strcmp(s, "default")) {
		sp->major = 1;
		sp->minor = strcmp(s, "1.1") == 0 ? 1 : 2;
	} else {
		return -1;
	}
	return 0;
}

/* 32 hex digits; mdadm's colons (or dashes, dots, spaces) anywhere between. */
static int parse_uuid(const char *s, uint8_t out[16])
{
	int n = 0;

	for (; *s; s++) {
		int v;

		if (strchr(":-. ", *s))
			continue;
		if (!isxdigit((unsigned char)*s) || n == 32)
			return -1;
		v = isdigit((unsigned char)*s) ? *s - '0' : (tolower((unsigned char)*s) - 'a' + 10);
		out[n / 2] = (uint8_t)(n % 2 ? out[n / 2] | v : v << 4);
		n++;
	}
	return n == 32 ? 0 : -1;
}

static int parse_size_arg(const char *opt, const char *arg, uint64_t *bytes)
{
	if (cli_parse_size(arg, bytes) < 0) {
		fprintf(stderr, TOOL ": %s: '%s' is not a size (bytes, or with K, M, G, T)\n", opt, arg);
		return -1;
	}
	return 0;
}

/* The options mdadm has read a bare number as KiB, so that an mdadm
 * --create line means the same here. */
static int parse_kib_arg(const char *opt, const char *arg, uint64_t *bytes)
{
	if (cli_parse_kib(arg, bytes) < 0) {
		fprintf(stderr, TOOL ": %s: '%s' is not a size (KiB as in mdadm, or with K, M, G, T)\n", opt,
			arg);
		return -1;
	}
	return 0;
}

/* A power of two from 4K to 1G, as md's chunks and bitmap chunks are. */
static int parse_pow2_kib(const char *opt, const char *arg, uint64_t *bytes)
{
	uint64_t b;

	if (parse_kib_arg(opt, arg, &b) < 0)
		return -1;
	if (b < 4096 || (b & (b - 1)) || b > (1ULL << 30)) {
		fprintf(stderr, TOOL ": %s %s: %llu bytes is not a power of two from 4K to 1G\n", opt, arg,
			(unsigned long long)b);
		return -1;
	}
	*bytes = b;
	return 0;
}

static int parse_chunk(const char *arg, uint32_t *sectors)
{
	uint64_t b;

	if (parse_pow2_kib("--chunk", arg, &b) < 0)
		return -1;
	*sectors = (uint32_t)(b / 512);
	return 0;
}

static int parse_bitmap(const char *arg, enum create_bitmap *b)
{
	if (!strcmp(arg, "internal"))
		*b = CREATE_BITMAP_INTERNAL;
	else if (!strcmp(arg, "none"))
		*b = CREATE_BITMAP_NONE;
	else
		return fail("--bitmap: '%s' is not internal or none (stripe makes no bitmap files)", arg);
	return EXIT_OK;
}

static int parse_bitmap_chunk(const char *arg, uint32_t *bytes)
{
	uint64_t b;

	if (parse_pow2_kib("--bitmap-chunk", arg, &b) < 0)
		return -1;
	*bytes = (uint32_t)b;
	return 0;
}

/* --size and --data-offset: KiB as mdadm takes them, kept in sectors. */
static int parse_sectors(const char *opt, const char *arg, uint64_t *sectors)
{
	uint64_t b;

	if (parse_kib_arg(opt, arg, &b) < 0)
		return -1;
	if (b % 512) {
		fprintf(stderr, TOOL ": %s %s: not a multiple of 512 bytes\n", opt, arg);
		return -1;
	}
	*sectors = b / 512;
	return 0;
}

static int parse_int(const char *opt, const char *arg, int *out)
{
	char *end;
	long v = strtol(arg, &end, 10);

	if (*arg == 0 || *end || v < 0 || v > 100000) {
		fprintf(stderr, TOOL ": %s: '%s' is not a count\n", opt, arg);
		return -1;
	}
	*out = (int)v;
	return 0;
}

static int parse_args(int argc, char **argv, struct options *o)
{
	static const struct option opts[] = {
		{ "level", required_argument, NULL, 'l' },
		{ "raid-devices", required_argument, NULL, 'n' },
		{ "spare-devices", required_argument, NULL, 'x' },
		{ "chunk", required_argument, NULL, 'c' },
		{ "layout", required_argument, NULL, 'p' },
		{ "metadata", required_argument, NULL, 'e' },
		{ "name", required_argument, NULL, 'N' },
		{ "homehost", required_argument, NULL, 'H' },
		{ "uuid", required_argument, NULL, 'u' },
		{ "data-offset", required_argument, NULL, 'D' },
		{ "size", required_argument, NULL, 'z' },
		{ "image-size", required_argument, NULL, 'I' },
		{ "assume-clean", no_argument, NULL, 'A' },
		{ "bitmap", required_argument, NULL, 'b' },
		{ "bitmap-chunk", required_argument, NULL, 'B' },
		{ "force", no_argument, NULL, 'f' },
		{ "dry-run", no_argument, NULL, 'y' },
		{ "json", optional_argument, NULL, 'j' },
		{ "progress", required_argument, NULL, 'P' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct diag d;
	int c;

	cli_getopt_name(argv, TOOL);
	while ((c = getopt_long(argc, argv, "l:n:x:c:p:e:N:u:z:b:fqvhV", opts, NULL)) != -1) {
		switch (c) {
		case 'l':
			o->spec.level = level_parse(optarg, &d);
			if (o->spec.level == -100)
				return fail("%s", d.msg);
			break;
		case 'n':
			if (parse_int("--raid-devices", optarg, &o->spec.raid_disks) < 0)
				return EXIT_ERROR;
			o->raid_set = true;
			break;
		case 'x':
			if (parse_int("--spare-devices", optarg, &o->spec.spares) < 0)
				return EXIT_ERROR;
			break;
		case 'c':
			if (parse_chunk(optarg, &o->spec.chunk_sectors) < 0)
				return EXIT_ERROR;
			break;
		case 'p': o->layout_name = optarg; break;
		case 'e':
			if (parse_metadata(optarg, &o->spec) < 0)
				return fail("--metadata: '%s' is not 0.90, 1.0, 1.1 or 1.2", optarg);
			break;
		case 'N': o->spec.name = optarg; break;
		case 'H': o->spec.homehost = optarg; break;
		case 'u':
			if (parse_uuid(optarg, o->spec.uuid) < 0)
				return fail("--uuid: '%s' is not 32 hex digits", optarg);
			o->spec.have_uuid = true;
			break;
		case 'D':
			if (parse_sectors("--data-offset", optarg, &o->spec.data_offset) < 0)
				return EXIT_ERROR;
			break;
		case 'z':
			if (parse_sectors("--size", optarg, &o->spec.size) < 0)
				return EXIT_ERROR;
			break;
		case 'I':
			if (parse_size_arg("--image-size", optarg, &o->image_size) < 0)
				return EXIT_ERROR;
			break;
		case 'A': o->spec.assume_clean = true; break;
		case 'b':
			if (parse_bitmap(optarg, &o->spec.bitmap) != EXIT_OK)
				return EXIT_ERROR;
			break;
		case 'B':
			if (parse_bitmap_chunk(optarg, &o->spec.bitmap_chunk) < 0)
				return EXIT_ERROR;
			break;
		case 'f': o->spec.force = true; break;
		case 'y': o->dry_run = true; break;
		case 'j':
			o->json = true;
			if (json_out_option(&o->out, TOOL, optarg) < 0)
				return EXIT_ERROR;
			break;
		case 'P':
			if (progress_option(TOOL, optarg, &o->pmode) < 0)
				return EXIT_ERROR;
			break;
		case 'q': o->quiet = true; break;
		case 'v': o->verbose = true; break;
		case 'h': usage(stdout); exit(EXIT_OK);
		case 'V': cli_version(TOOL); exit(EXIT_OK);
		default: return cli_usage_error(TOOL, NULL);
		}
	}
	return EXIT_OK;
}

/* Creates the image files --image-size asks for; remembers which, so a
 * failed create removes only what it made. */
static int make_images(char **paths, int n, uint64_t size, bool *made)
{
	int i;

	for (i = 0; i < n; i++) {
		int fd;

		if (!size || !strcmp(paths[i], "missing") || access(paths[i], F_OK) == 0)
			continue;
		fd = open(paths[i], O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		made[i] = fd >= 0;       /* made, even if it cannot take the size */
		if (fd < 0 || ftruncate(fd, (off_t)size) < 0) {
			fprintf(stderr, TOOL ": %s: cannot create a %llu-byte image: %s\n", paths[i],
				(unsigned long long)size, strerror(errno));
			if (fd >= 0)
				close(fd);
			return -1;
		}
		close(fd);
	}
	return 0;
}

static void remove_images(char **paths, int n, const bool *made)
{
	int i;

	for (i = 0; i < n; i++)
		if (made[i])
			unlink(paths[i]);
}

static int check_members(char **paths, int n, bool force)
{
	struct diag d;
	int i, bad = 0;

	for (i = 0; i < n; i++) {
		if (!strcmp(paths[i], "missing"))
			continue;
		if (probe_refuse(paths[i], force, false, &d) < 0) {
			fprintf(stderr, TOOL ": %s\n", d.msg);
			bad = 1;
		}
	}
	return bad ? -1 : 0;
}

static void print_text(const struct create_plan *p, const struct options *o)
{
	char u[36], lb[64];
	const char *ln = layout_name(p->spec.level, p->geo.layout, lb, sizeof(lb));
	const struct create_member *f = NULL;
	int i;

	for (i = 0; i < p->n && !f; i++)
		if (p->m[i].path)
			f = &p->m[i];
	super_uuid_str(f->sb.uuid, u);
	printf("%s %s array %s: %d devices%s%s, metadata %d.%d\n", o->dry_run ? "would create" : "created",
	       level_name(p->spec.level), u, p->spec.raid_disks, ln ? ", " : "", ln ? ln : "",
	       p->spec.major, p->spec.major ? p->spec.minor : 90);
	if (p->spec.chunk_sectors && p->spec.level != MD_LEVEL_RAID1)
		printf("  chunk %uK, ", p->spec.chunk_sectors / 2);
	else
		printf("  ");
	printf("array size %llu bytes, %llu sectors used per member\n",
	       (unsigned long long)p->geo.array_sectors * 512,
	       (unsigned long long)(p->size ? p->size : f->sb.data_size));
	if (p->has_bitmap)
		printf("  internal bitmap: %u%c chunks, %llu bits\n",
		       p->bitmap.chunksize >> (p->bitmap.chunksize >= 1u << 20 ? 20 : 10),
		       p->bitmap.chunksize >= 1u << 20 ? 'M' : 'K', (unsigned long long)p->bitmap.bits);
	for (i = 0; o->verbose && i < p->n; i++) {
		const struct create_member *m = &p->m[i];

		if (!m->path)
			printf("  role %d: missing\n", m->role);
		else
			printf("  %s %d: %s (data at sector %llu, %llu sectors; superblock at %llu)\n",
			       m->role >= 0 ? "role" : "spare", m->role >= 0 ? m->role : m->number, m->path,
			       (unsigned long long)m->sb.data_offset, (unsigned long long)m->sb.data_size,
			       (unsigned long long)m->sb.sb_sector);
	}
}

static int print_json(const struct create_plan *p, struct options *o)
{
	char u[36], lb[64];
	const char *ln = layout_name(p->spec.level, p->geo.layout, lb, sizeof(lb));
	struct json *j = &o->out.j;
	int i;

	if (json_out_begin(&o->out, 1) < 0)
		return -1;
	json_bool(j, "dry_run", o->dry_run);
	for (i = 0; i < p->n; i++)
		if (p->m[i].path)
			break;
	super_uuid_str(p->m[i].sb.uuid, u);
	json_str(j, "uuid", u);
	json_str(j, "level", level_name(p->spec.level));
	json_int(j, "layout", p->geo.layout);
	json_str(j, "layout_name", ln ? ln : "");
	json_uint(j, "chunk_size_bytes", (unsigned long long)p->spec.chunk_sectors * 512);
	json_int(j, "raid_devices", p->spec.raid_disks);
	json_int(j, "spare_devices", p->spec.spares);
	json_str(j, "metadata", p->spec.major ? (p->spec.minor == 0 ? "1.0" : p->spec.minor == 1 ? "1.1" : "1.2") : "0.90");
	json_uint(j, "size_bytes", p->geo.array_sectors * 512);
	json_uint(j, "component_size_sectors", p->size);
	json_bool(j, "assume_clean", p->spec.assume_clean);
	if (p->has_bitmap) {
		json_object(j, "bitmap");
		json_uint(j, "chunk_bytes", p->bitmap.chunksize);
		json_uint(j, "bits", p->bitmap.bits);
		json_uint(j, "sync_size_sectors", p->bitmap.sync_size);
		json_int(j, "offset_sectors",
			 super_ops_of(p->spec.major)->bitmap_offset(p->spec.minor, &p->bitmap));
		json_close(j);
	} else {
		json_null(j, "bitmap");
	}
	json_array(j, "members");
	for (i = 0; i < p->n; i++) {
		const struct create_member *m = &p->m[i];

		json_object(j, NULL);
		if (m->path)
			json_str(j, "path", m->path);
		else
			json_null(j, "path");
		if (m->role >= 0)
			json_int(j, "role", m->role);
		else
			json_str(j, "role", "spare");
		if (m->path) {
			json_uint(j, "data_offset_sectors", m->sb.data_offset);
			json_uint(j, "data_size_sectors", m->sb.data_size);
			json_uint(j, "super_offset_sectors", m->sb.sb_sector);
		}
		json_close(j);
	}
	json_close(j);
	return json_out_end(&o->out, 1, o->dry_run ? "planned" : "created", NULL);
}

static void on_zeroed(void *ctx, uint64_t bytes)
{
	progress_update(ctx, bytes);
}

/* Zeroing a device's data area can take as long as writing it: shown. */
static int write_array(struct create_plan *p, const struct options *o, struct diag *d)
{
	struct progress prog;
	int rc;

	progress_start(&prog, progress_quiet(o->pmode, o->quiet && !o->verbose), TOOL, "zeroing",
		       create_zero_bytes(p));
	p->zeroed = on_zeroed;
	p->zeroed_ctx = &prog;
	rc = create_write(p, d);
	progress_finish(&prog);
	return rc;
}

static int create(struct options *op, char **paths, int n)
{
	struct options o = *op;
	char host[256] = "";
	struct create_plan p;
	struct diag d;
	bool *made;
	int rc;

	if (o.spec.level == -100)
		return cli_usage_error(TOOL, "--level is required (0, 1, 4, 5, 6, 10)");
	if (cli_need_members(TOOL, n) < 0)
		return EXIT_ERROR;
	if (!o.raid_set)
		o.spec.raid_disks = n - o.spec.spares;
	if (o.layout_name) {
		o.spec.layout = layout_parse(o.spec.level, o.layout_name, &d);
		if (o.spec.layout < 0)
			return fail("--layout: %s", d.msg);
	}
	if (!o.spec.homehost && gethostname(host, sizeof(host) - 1) == 0)
		o.spec.homehost = host;
	o.spec.now = (uint64_t)time(NULL);
	made = calloc((size_t)n, sizeof(*made));
	if (!made)
		return fail("%s", "out of memory");
	/* a dry run plans against images of the size asked for too: made
	 * (sparse) for the plan and removed again below */
	if (make_images(paths, n, o.image_size, made) < 0 || check_members(paths, n, o.spec.force) < 0) {
		remove_images(paths, n, made);
		free(made);
		return EXIT_ERROR;
	}
	rc = create_plan(&p, &o.spec, paths, n, &d);
	if (rc == 0)
		rc = create_guard_data(&p, &d);
	if (rc == 0 && !o.dry_run)
		rc = write_array(&p, &o, &d);
	if (rc < 0) {
		fprintf(stderr, TOOL ": %s\n", d.msg);
		create_free(&p);
		remove_images(paths, n, made);
		free(made);
		return EXIT_ERROR;
	}
	if (o.spec.assume_clean && !o.dry_run && o.spec.level >= 4 && o.spec.level <= 6)
		fprintf(stderr, TOOL ": warning: --assume-clean: parity was not written; "
			"run stripe-check --repair before relying on redundancy\n");
	rc = EXIT_OK;
	if (o.json && print_json(&p, &o) < 0)
		rc = EXIT_ERROR;
	if (rc == EXIT_OK && json_out_human(&o.out) && !o.quiet)
		print_text(&p, &o);
	*op = o;                     /* main writes an error document only if this one did not end */
	create_free(&p);
	if (o.dry_run)
		remove_images(paths, n, made);
	free(made);
	return rc;
}

int main(int argc, char **argv)
{
	struct options o = { .spec = { .level = -100, .layout = -1, .major = 1, .minor = 2,
				       .data_offset = CREATE_DEFAULT } };
	int rc;

	atexit(cli_close_stdout);
	rc = parse_args(argc, argv, &o);
	/* the report must not land on a member: no document is written there */
	if (rc == EXIT_OK && o.out.path && cli_refuse_output(TOOL, o.out.path, argv + optind, argc - optind) < 0)
		return EXIT_ERROR;
	if (rc == EXIT_OK)
		rc = create(&o, argv + optind, argc - optind);
	/* a failed run's document names its error (said on stderr) */
	if (rc == EXIT_ERROR && o.out.on)
		json_out_end(&o.out, 1, "error", NULL);
	return rc;
}
