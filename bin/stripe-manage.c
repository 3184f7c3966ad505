/* stripe-manage: mdadm's manage verbs done offline on an md array's
 * members: add a hot spare, mark a member faulty, remove it, and zero a
 * member's superblock as mdadm --zero-superblock does. */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/json_out.h"
#include "cli/open_array.h"
#include "io/dev.h"
#include "io/probe.h"
#include "md/array.h"
#include "md/manage.h"
#include "util/json.h"

#define TOOL "stripe-manage"
#define MAX_PATHS 512

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: " TOOL " [options] --add NEW MEMBER...\n"
		"       " TOOL " [options] --fail MEMBER MEMBER...\n"
		"       " TOOL " [options] --remove MEMBER MEMBER...\n"
		"       " TOOL " [options] --zero-superblock DEVICE...\n"
		"\n"
		"Do offline what mdadm's manage mode does to a running array, leaving the\n"
		"superblocks md leaves once the array is stopped after the same command.\n"
		"MEMBER... are the array's members: every one md would write is updated.\n"
		"\n"
		"Verbs (one per run):\n"
		"  -a, --add NEW            write a hot spare's superblock on NEW (a device or\n"
		"                           image file) and list it in the members'; on a\n"
		"                           degraded array stripe-rebuild then rebuilds onto it,\n"
		"                           as md's recovery would\n"
		"      --fail MEMBER        record MEMBER faulty (mdadm --fail)\n"
		"      --remove MEMBER      take a faulty member or a spare out of the array's\n"
		"                           tables (mdadm --remove); --remove failed: every\n"
		"                           device they record faulty, given or gone\n"
		"      --zero-superblock    zero the md superblock of each DEVICE, the bytes\n"
		"                           mdadm --zero-superblock zeroes\n"
		"\n"
		"Options:\n"
		"  -R, --run                change the array although roles in sync were not\n"
		"                           given (they are then recorded gone)\n"
		"  -f, --force              add over a signature or another array's superblock;\n"
		"                           fail the last redundancy; zero a superblock that\n"
		"                           records its array active; pass over a DEVICE that\n"
		"                           holds no superblock\n"
		"      --json[=FILE]        say what was done as JSON, on standard output, or\n"
		"                           replacing FILE whole beside the text\n"
		"  -q, --quiet              print only problems\n"
		"  -v, --verbose            say which superblocks were written\n"
		"  -h, --help               show this help and exit\n"
		"  -V, --version            show the version and exit\n"
		"\n"
		"Mounted or busy devices are refused always. --fail and --remove are long\n"
		"only: -f is --force and -r --read-only in stripe's array tools.\n"
		"\n"
		"Exit status: 0 done (or nothing to do, said so), 2 usage, refusal or error;\n"
		"a refusal writes nothing.\n");
}

enum verb { VERB_NONE, VERB_ADD, VERB_FAIL, VERB_REMOVE, VERB_ZERO };

static const char *const verb_names[] = {
	[VERB_ADD] = "add", [VERB_FAIL] = "fail", [VERB_REMOVE] = "remove", [VERB_ZERO] = "zero-superblock",
};

struct opts {
	enum verb verb;
	const char *target;          /* --add, --fail, --remove */
	bool run, force, quiet, verbose, json, human;
	struct json_out out;
};

static int set_verb(struct opts *o, enum verb v, const char *target)
{
	if (o->verb != VERB_NONE) {
		cli_usage_error(TOOL, "--%s and --%s: one verb per run", verb_names[o->verb], verb_names[v]);
		return -1;
	}
	o->verb = v;
	o->target = target;
	return 0;
}

static int parse_args(int argc, char **argv, struct opts *o)
{
	static const struct option lopts[] = {
		{ "add", required_argument, NULL, 'a' },
		{ "fail", required_argument, NULL, 'F' },
		{ "remove", required_argument, NULL, 'X' },
		{ "zero-superblock", no_argument, NULL, 'Z' },
		{ "run", no_argument, NULL, 'R' },
		{ "force", no_argument, NULL, 'f' },
		{ "json", optional_argument, NULL, 'O' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int c, rc = 0;

	cli_getopt_name(argv, TOOL);
	while (rc == 0 && (c = getopt_long(argc, argv, "a:RfqvhV", lopts, NULL)) != -1) {
		switch (c) {
		case 'a': rc = set_verb(o, VERB_ADD, optarg); break;
		case 'F': rc = set_verb(o, VERB_FAIL, optarg); break;
		case 'X': rc = set_verb(o, VERB_REMOVE, optarg); break;
		case 'Z': rc = set_verb(o, VERB_ZERO, NULL); break;
		case 'R': o->run = true; break;
		case 'f': o->force = true; break;
		case 'O':
			o->json = true;
			rc = json_out_option(&o->out, TOOL, optarg);
			break;
		case 'q': o->quiet = true; break;
		case 'v': o->verbose = true; break;
		case 'h': usage(stdout); exit(EXIT_OK);
		case 'V': cli_version(TOOL); exit(EXIT_OK);
		default: cli_usage_error(TOOL, NULL); return -1;
		}
	}
	if (rc == 0 && o->verb == VERB_NONE)
		return cli_usage_error(TOOL, "no verb given: --add, --fail, --remove or --zero-superblock"), -1;
	return rc;
}

/* The path among the first n that names p's file or device, whatever the
 * spelling; -1 when none does. */
static int index_of(char *const *paths, int n, const char *p)
{
	struct dev_id want, id;
	bool known = dev_identify(p, &want) == 0;
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(paths[i], p) || (known && dev_identify(paths[i], &id) == 0 && dev_id_same(&id, &want)))
			return i;
	return -1;
}

/* What a run did, for the human line and --json. */
struct done {
	const char *device;          /* the device the verb is about */
	int dev_number;
	uint64_t events;
	int nwritten;
	const char *written[MAX_PATHS];
	bool nothing;                /* nothing to do: said why */
	int removed;                 /* --remove failed: how many */
};

static void note_written(struct done *r, const struct array *a, const struct member *except)
{
	int i;

	for (i = 0; i < a->nmembers && r->nwritten < MAX_PATHS; i++)
		if (&a->members[i] != except && manage_writes(&a->members[i]))
			r->written[r->nwritten++] = a->members[i].path;
}

static void rdev_numbers(const struct member *m, uint32_t *major_, uint32_t *minor_)
{
	struct stat st;

	*major_ = *minor_ = 0;
	if (m->dev.is_blockdev && fstat(m->dev.fd, &st) == 0) {
		*major_ = major(st.st_rdev);
		*minor_ = minor(st.st_rdev);
	}
}

static int refuse(const struct member *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int refuse(const struct member *m, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, TOOL ": %s: ", m->path);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("; nothing written\n", stderr);
	return -1;
}

static int add(struct array *a, struct member *m, const struct opts *o, struct done *r, struct diag *d)
{
	uint32_t maj, min;

	if (m->state == MEMBER_FOREIGN && !o->force)
		return refuse(m, "%s; use --force to overwrite it", m->reason);
	if (m->state == MEMBER_SPARE)
		return refuse(m, "a spare of this array already");
	if (m->state == MEMBER_ACTIVE || m->state == MEMBER_REBUILDING)
		return refuse(m, "a member of this array, holding role %d", m->sb.role);
	if (m->has_sb && m->state != MEMBER_FOREIGN && m->state != MEMBER_INVALID)
		return refuse(m, "a member of this array (%s); stripe-rebuild --readd takes it back", m->reason);
	rdev_numbers(m, &maj, &min);
	if (manage_add_spare(a, m, maj, min, d) < 0)
		return -1;
	r->dev_number = m->sb.dev_number;
	note_written(r, a, NULL);
	return 0;
}

static int fail(struct array *a, struct member *m, const struct opts *o, struct done *r, struct diag *d)
{
	if (m->state != MEMBER_ACTIVE && m->state != MEMBER_SPARE)
		return refuse(m, "not in sync in the array (%s): nothing to fail", m->reason);
	if (m->state == MEMBER_ACTIVE && a->missing + 1 > array_redundancy(&a->geo) && !o->force) {
		fprintf(stderr, TOOL ": %s: failing role %d would leave the array unreadable (%d role%s missing already); use --force to fail it; nothing written\n",
			m->path, m->sb.role, a->missing, a->missing == 1 ? "" : "s");
		return -1;
	}
	r->dev_number = m->sb.dev_number;
	if (manage_fail(a, m, d) < 0)
		return -1;
	note_written(r, a, m);
	return 0;
}

static int remove_member(struct array *a, struct member *m, const struct opts *o, struct done *r,
			 struct diag *d)
{
	int recorded = super_role_of(a->ref, m->sb.dev_number);

	if (m->state == MEMBER_ACTIVE || m->state == MEMBER_REBUILDING)
		return refuse(m, "holds role %d in the array; --fail it first, as mdadm --remove refuses an active device",
			      m->sb.role);
	if (m->state != MEMBER_SPARE && recorded != ROLE_FAULTY) {
		if (!o->quiet)
			fprintf(stderr, TOOL ": %s: not in the array's tables (removed already, or %s); nothing to do\n",
				m->path, m->reason);
		r->nothing = true;
		return 0;
	}
	r->dev_number = m->sb.dev_number;
	if (manage_remove(a, m, d) < 0)
		return -1;
	note_written(r, a, m);
	return 0;
}

/* mdadm's keyword: the faulty devices, which need not be at hand. */
static bool remove_failed(const struct opts *o)
{
	return o->verb == VERB_REMOVE && !strcmp(o->target, "failed") && access(o->target, F_OK) < 0;
}

static int remove_all_failed(struct array *a, const struct opts *o, struct done *r, struct diag *d)
{
	if (manage_remove_failed(a, &r->removed, d) < 0)
		return -1;
	if (r->removed == 0) {
		if (!o->quiet)
			fprintf(stderr, TOOL ": %s: the array records no faulty device; nothing to do\n",
				a->members[0].path);
		r->nothing = true;
		return 0;
	}
	r->dev_number = -1;
	note_written(r, a, NULL);
	return 0;
}

static void report(struct opts *o, const struct array *a, const struct done *r)
{
	struct json *j = &o->out.j;
	char uuid[36];
	int i;

	if (o->human && !o->quiet && !r->nothing) {
		switch (o->verb) {
		case VERB_ADD:
			printf("%s: added as a spare (device %d), events %llu\n", r->device, r->dev_number,
			       (unsigned long long)r->events);
			if (a->missing > 0)
				printf("%s: the array is degraded: stripe-rebuild with it among the members rebuilds a missing role onto it, as md's recovery would\n",
				       r->device);
			break;
		case VERB_FAIL:
			printf("%s: marked faulty (device %d), events %llu\n", r->device, r->dev_number,
			       (unsigned long long)r->events);
			break;
		default:
			if (r->dev_number < 0)
				printf("%s: %d faulty device%s removed from the array, events %llu\n",
				       a->members[0].path, r->removed, r->removed == 1 ? "" : "s",
				       (unsigned long long)r->events);
			else
				printf("%s: removed from the array (device %d), events %llu\n", r->device,
				       r->dev_number, (unsigned long long)r->events);
			break;
		}
	}
	for (i = 0; o->verbose && o->human && i < r->nwritten; i++)
		fprintf(stderr, TOOL ": %s: superblock written\n", r->written[i]);
	if (!o->json)
		return;
	super_uuid_str(a->ref->uuid, uuid);
	json_str(j, "verb", verb_names[o->verb]);
	json_str(j, "device", r->device);
	json_str(j, "array_uuid", uuid);
	json_bool(j, "changed", !r->nothing);
	if (!r->nothing && r->dev_number >= 0)
		json_int(j, "dev_number", r->dev_number);
	if (o->verb == VERB_REMOVE && r->dev_number < 0)
		json_int(j, "removed", r->removed);
	if (!r->nothing)
		json_uint(j, "events", r->events);
	json_array(j, "written");
	for (i = 0; i < r->nwritten; i++)
		json_str(j, NULL, r->written[i]);
	json_close(j);
}

/* --add, --fail, --remove: the target joins the members given. */
static int manage(struct opts *o, int argc, char **argv)
{
	char *paths[MAX_PATHS];
	bool newcomer[MAX_PATHS] = { false };
	struct cli_members given = { .tool = TOOL, .aopt.mode = DEV_WRITE, .paths = paths };
	struct done r = { 0 };
	struct array a;
	struct diag d;
	struct member *m;
	int n = 0, at, rc, i;

	for (i = optind; i < argc && n < MAX_PATHS - 1; i++)
		paths[n++] = argv[i];
	if (cli_need_members(TOOL, n) < 0)
		return -1;
	at = remove_failed(o) ? 0 : index_of(paths, n, o->target);
	if (at < 0) {
		at = n;
		paths[n++] = (char *)o->target;
	}
	newcomer[at] = o->verb == VERB_ADD;
	given.n = n;
	given.newcomers = newcomer;
	given.force = o->force;
	given.run = o->run;
	/* the device a verb names is left out by nature (blank, or failed):
	 * the roles are said with -v only */
	given.say = o->verbose && o->verb != VERB_ADD ? CLI_SAY_ROLES : CLI_SAY_NOTHING;
	if (cli_open_array(&a, &given) < 0)
		return -1;
	m = &a.members[at];
	r.device = remove_failed(o) ? o->target : m->path;
	if (o->json && json_out_begin(&o->out, 1) < 0) {
		array_close(&a);
		return -1;
	}
	d.msg[0] = 0;
	rc = o->verb == VERB_ADD ? add(&a, m, o, &r, &d)
	   : o->verb == VERB_FAIL ? fail(&a, m, o, &r, &d)
	   : remove_failed(o) ? remove_all_failed(&a, o, &r, &d)
	   : remove_member(&a, m, o, &r, &d);
	if (rc < 0 && d.msg[0])
		fprintf(stderr, TOOL ": %s\n", d.msg);
	r.events = a.events;
	if (rc == 0)
		report(o, &a, &r);
	array_close(&a);
	return rc;
}

/* One device --zero-superblock looks at: refused, passed over, or to be
 * zeroed (its superblock kept in sb). */
struct zero_target {
	struct dev dev;
	struct md_super sb;
	bool has_sb;
};

/* What mdadm --zero-superblock refuses: a device in use (always), one
 * that holds no md superblock, and one whose superblock says its array
 * is active (running, or stopped in mid-write), unless --force. */
static int zero_check(const char *path, const struct opts *o, struct zero_target *z)
{
	struct diag d;

	if (probe_refuse(path, true, true, &d) < 0 || dev_open(&z->dev, path, DEV_WRITE, &d) < 0) {
		fprintf(stderr, TOOL ": %s\n", d.msg);
		return -1;
	}
	z->has_sb = super_load(&z->dev, &z->sb, &d) == 0;
	if (!z->has_sb) {
		if (o->force) {
			if (!o->quiet)
				fprintf(stderr, TOOL ": %s; nothing to zero\n", d.msg);
			return 0;
		}
		fprintf(stderr, TOOL ": %s: not an md member (%s); use --force to pass it over; nothing written\n",
			path, d.msg + strlen(path) + 2);
		return -1;
	}
	if (z->sb.resync_offset != MD_MAX_SECTOR && !o->force) {
		fprintf(stderr, TOOL ": %s: its superblock records the array active, not stopped cleanly: md may be running it; use --force to zero it; nothing written\n",
			path);
		return -1;
	}
	return 0;
}

static int zero(struct opts *o, int argc, char **argv)
{
	int n = argc - optind, i, rc = 0;
	struct zero_target *z;
	struct json *j = &o->out.j;
	struct diag d;
	char ver[16];

	if (cli_need_members(TOOL, n) < 0)
		return -1;
	z = calloc((size_t)n, sizeof(*z));
	if (!z) {
		fprintf(stderr, TOOL ": %s: out of memory for the device list\n", argv[optind]);
		return -1;
	}
	for (i = 0; i < n; i++)
		z[i].dev.fd = -1;
	for (i = 0; i < n && rc == 0; i++)
		rc = zero_check(argv[optind + i], o, &z[i]);
	if (rc == 0 && o->json && json_out_begin(&o->out, 1) < 0)
		rc = -1;
	if (rc == 0 && o->json) {
		json_str(j, "verb", verb_names[VERB_ZERO]);
		json_array(j, "devices");
	}
	for (i = 0; i < n && rc == 0; i++) {
		if (z[i].has_sb && manage_zero(&z[i].dev, &z[i].sb, &d) < 0) {
			fprintf(stderr, TOOL ": %s\n", d.msg);
			rc = -1;
			break;
		}
		super_version(&z[i].sb, ver, sizeof(ver));
		if (z[i].has_sb && o->human && !o->quiet)
			printf("%s: %s superblock zeroed (sector %llu)\n", argv[optind + i], ver,
			       (unsigned long long)z[i].sb.sb_sector);
		if (o->json) {
			json_object(j, NULL);
			json_str(j, "device", argv[optind + i]);
			json_bool(j, "zeroed", z[i].has_sb);
			if (z[i].has_sb) {
				json_str(j, "metadata", ver);
				json_uint(j, "offset_sectors", z[i].sb.sb_sector);
			}
			json_close(j);
		}
	}
	if (rc == 0 && o->json)
		json_close(j);
	for (i = 0; i < n; i++)
		if (z[i].dev.fd >= 0)
			dev_close(&z[i].dev);
	free(z);
	return rc;
}

int main(int argc, char **argv)
{
	static struct opts o;
	int rc;

	atexit(cli_close_stdout);
	if (parse_args(argc, argv, &o) < 0)
		return EXIT_ERROR;
	o.human = json_out_human(&o.out);
	if (o.out.path && cli_refuse_output(TOOL, o.out.path, argv + optind, argc - optind) < 0)
		return EXIT_ERROR;
	rc = o.verb == VERB_ZERO ? zero(&o, argc, argv) : manage(&o, argc, argv);
	json_out_end(&o.out, 1, rc < 0 ? "error" : "done", NULL);
	return rc < 0 ? EXIT_ERROR : EXIT_OK;
}
