/* stripe-rebuild: rebuild failed, missing or stale members of an md array
 * onto replacements (or in place), or replace members in sync, offline,
 * resumable after a crash. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/dev.h"
#include "md/array.h"
#include "cli/cli.h"
#include "cli/degraded.h"
#include "cli/open_array.h"
#include "raid/fsmap.h"
#include "cli/json_out.h"
#include "util/json.h"
#include "util/progress.h"
#include "raid/readd.h"
#include "raid/rebuild.h"
#include "raid/replace.h"

#define TOOL "stripe-rebuild"
#define MAX_PATHS 512

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: " TOOL " [options] MEMBER...\n"
		"\n"
		"Rebuild the roles of an md array that no in-sync member holds (missing,\n"
		"faulty, or stale members) from the redundancy left, in one pass, the way md's\n"
		"recovery does: RAID1/10 from copies, RAID4/5 one member, RAID6 any two.\n"
		"Progress is recorded in the new members' superblocks (recovery_offset) every\n"
		"second; running the same command again after an interruption continues\n"
		"from there. Survivors' data areas are only read, but for what their\n"
		"bad-block logs name: that is had from redundancy where there is some,\n"
		"rewritten on the survivor and cleared from its log, as md does.\n"
		"\n"
		"The array's own hot spares among MEMBER... take the roles no replacement\n"
		"below is given for, as md's do.\n"
		"\n"
		"Replacements:\n"
		"      --replace ROLE=PATH  rebuild ROLE onto PATH (a device or image file; a\n"
		"                           missing file is created at the members' size);\n"
		"                           when a member in sync holds ROLE, copy it onto\n"
		"                           PATH (what it cannot read, from redundancy) and\n"
		"                           record it faulty, as mdadm --replace does\n"
		"      --spare PATH         a replacement for the next role that needs one\n"
		"      --readd PATH         rebuild a stale or faulty member in place: with\n"
		"                           the array's write-intent bitmap, only the chunks\n"
		"                           its bits mark changed, as md's re-add (whole when\n"
		"                           its events are older than events_cleared)\n"
		"\n"
		"Options:\n"
		"  -R, --run                rebuild although roles in sync were not given\n"
		"                           (they are recorded gone)\n"
		"      --restart            start over instead of resuming a recorded rebuild\n"
		"  -f, --force              overwrite a replacement that carries a signature\n"
		"      --dry-run            say what would be rebuilt onto what (from the bitmap\n"
		"                           or whole, how many bytes), change nothing\n"
		"      --files              name the files (ext2/3/4) that unrecoverable ranges hurt\n"
		"      --checkpoint SECONDS how often progress is recorded (default 1)\n"
		"      --jobs N             RAID4/5/6: rebuild N batches side by side (1 to 8;\n"
		"                           default one per CPU)\n"
		"      --json[=FILE]        print the result as JSON, on standard output, or\n"
		"                           replacing FILE whole beside the text\n"
		"      --progress MODE      auto, bar, log or none (default auto)\n"
		"  -q, --quiet              print only problems\n"
		"  -v, --verbose            say more about members and checkpoints\n"
		"  -h, --help               show this help and exit\n"
		"  -V, --version            show the version and exit\n"
		"\n"
		"Exit status: 0 rebuilt (or nothing to rebuild), 1 rebuilt with unrecoverable\n"
		"ranges or with RAID6 survivors that disagree with P/Q, 2 error.\n");
}

enum req_kind { REQ_REPLACE, REQ_SPARE, REQ_READD };

struct request {
	enum req_kind kind;
	int role;                    /* REQ_REPLACE */
	const char *path;
};

struct opts {
	struct request req[MAX_PATHS];
	int nreq;
	bool restart, run, force, dry_run, files, json, human, quiet, verbose;
	struct json_out out;         /* --json: where, and the run's verdict */
	unsigned checkpoint_ms;
	int jobs;
	enum progress_mode pmode;
};

/* What a run collects for the report. */
struct lost {
	uint64_t offset;             /* array bytes */
	uint64_t length;
};

struct run {
	struct opts *o;
	struct progress prog;
	struct json *j;              /* --json: &o->out.j */
	struct lost *lost;
	size_t nlost, caplost;
	bool oom;
	int events_printed;
	bool was_spare[ST_MAX_DISKS];   /* by target: hot_spare before the rebuild gave it the role */
};

static int parse_replace(const char *arg, struct request *r)
{
	char *end;
	long role;

	errno = 0;
	role = strtol(arg, &end, 10);
	if (end == arg || *end != '=' || !end[1] || errno || role < 0 || role >= ST_MAX_DISKS) {
		fprintf(stderr, TOOL ": --replace: '%s' is not ROLE=PATH\n", arg);
		return -1;
	}
	*r = (struct request){ REQ_REPLACE, (int)role, end + 1 };
	return 0;
}

static int parse_args(int argc, char **argv, struct opts *o)
{
	static const struct option lopts[] = {
		{ "replace", required_argument, NULL, 'e' },
		{ "run", no_argument, NULL, 'R' },
		{ "spare", required_argument, NULL, 's' },
		{ "readd", required_argument, NULL, 'a' },
		{ "restart", no_argument, NULL, 'r' },
		{ "force", no_argument, NULL, 'f' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "files", no_argument, NULL, 'F' },
		{ "checkpoint", required_argument, NULL, 'C' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "json", optional_argument, NULL, 'O' },
		{ "progress", required_argument, NULL, 'P' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	char *end;
	double secs;
	long jobs;
	int c;

	cli_getopt_name(argv, TOOL);
	while ((c = getopt_long(argc, argv, "fRqvhV", lopts, NULL)) != -1) {
		if ((c == 'e' || c == 's' || c == 'a') && o->nreq == MAX_PATHS) {
			fprintf(stderr, TOOL ": too many replacements\n");
			return -1;
		}
		switch (c) {
		case 'e':
			if (parse_replace(optarg, &o->req[o->nreq++]) < 0)
				return -1;
			break;
		case 's': o->req[o->nreq++] = (struct request){ REQ_SPARE, -1, optarg }; break;
		case 'a': o->req[o->nreq++] = (struct request){ REQ_READD, -1, optarg }; break;
		case 'r': o->restart = true; break;
		case 'R': o->run = true; break;
		case 'f': o->force = true; break;
		case 'n': o->dry_run = true; break;
		case 'F': o->files = true; break;
		case 'C':
			secs = strtod(optarg, &end);
			if (end == optarg || *end || !(secs > 0 && secs <= 3600)) {
				fprintf(stderr, TOOL ": --checkpoint: '%s' is not a number of seconds (0 to 3600)\n", optarg);
				return -1;
			}
			o->checkpoint_ms = (unsigned)(secs * 1000) ? (unsigned)(secs * 1000) : 1;
			break;
		case 'j':
			errno = 0;
			jobs = strtol(optarg, &end, 10);
			if (end == optarg || *end || errno || jobs < 1 || jobs > REBUILD_JOBS_MAX) {
				fprintf(stderr, TOOL ": --jobs: '%s' is not a number from 1 to %d\n", optarg,
					REBUILD_JOBS_MAX);
				return -1;
			}
			o->jobs = (int)jobs;
			break;
		case 'O':
			o->json = true;
			if (json_out_option(&o->out, TOOL, optarg) < 0)
				return -1;
			break;
		case 'P':
			if (progress_option(TOOL, optarg, &o->pmode) < 0)
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

/* The path among the first n that names p's file or device, whatever the
 * spelling (./p, a symlink, a hard link); -1 when none does. */
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

/* A replacement that does not exist yet becomes an image file as large as
 * the first member, so "rebuild onto a new file" needs no truncate first. */
static int create_image(const char *path, const char *like, bool verbose)
{
	struct stat st;
	int fd;

	if (stat(like, &st) < 0 || !S_ISREG(st.st_mode))
		return 0;
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0) {
		fprintf(stderr, TOOL ": %s: cannot create: %s\n", path, strerror(errno));
		return -1;
	}
	if (ftruncate(fd, st.st_size) < 0) {
		fprintf(stderr, TOOL ": %s: cannot size to %lld bytes: %s\n", path,
			(long long)st.st_size, strerror(errno));
		close(fd);
		unlink(path);
		return -1;
	}
	close(fd);
	if (verbose)
		fprintf(stderr, TOOL ": %s: created, %lld bytes like %s\n", path, (long long)st.st_size, like);
	return 0;
}

/* Files this run made, removed again when it is refused: a refusal
 * leaves nothing behind. */
struct made {
	const char *path[MAX_PATHS];
	int n;
};

static void remove_made(const struct made *made)
{
	int i;

	for (i = 0; i < made->n; i++)
		unlink(made->path[i]);
}

/* Members first, each as given (one given twice is refused when opened),
 * then replacements not among them; a replacement that names a member is
 * known by the member's path from here on. */
static int gather_paths(int argc, char **argv, struct opts *o, char **paths, bool *is_repl,
			struct made *made)
{
	int n = 0, i, at;

	for (i = optind; i < argc && n < MAX_PATHS; i++)
		paths[n++] = argv[i];
	for (i = 0; i < o->nreq && n < MAX_PATHS; i++) {
		struct request *q = &o->req[i];

		at = index_of(paths, n, q->path);
		if (at < 0) {
			if (q->kind != REQ_READD && access(q->path, F_OK) < 0 && errno == ENOENT && !o->dry_run) {
				if (create_image(q->path, paths[0], o->verbose) < 0)
					return -1;
				made->path[made->n++] = q->path;
			}
			at = n;
			paths[n++] = (char *)q->path;
		}
		q->path = paths[at];
		is_repl[at] |= q->kind != REQ_READD;
	}
	return n;
}

static struct member *find_member(struct array *a, const char *path)
{
	int i;

	for (i = 0; i < a->nmembers; i++)
		if (!strcmp(a->members[i].path, path))
			return &a->members[i];
	return NULL;
}

static bool of_array(const struct member *m)
{
	return m->has_sb && m->state != MEMBER_FOREIGN && m->state != MEMBER_INVALID;
}

static bool taken(const struct rebuild_target *t, int n, int role, const struct member *m)
{
	int i;

	for (i = 0; i < n; i++)
		if (t[i].role == role || t[i].m == m)
			return true;
	return false;
}

/* A target for role onto m: resumed when m holds this array's recorded
 * rebuild of that role, in place when it is the role's own stale member. */
static int add_target(struct array *a, struct rebuild_target *t, int *n, int role, struct member *m,
		      const struct opts *o)
{
	if (m->state == MEMBER_ACTIVE) {
		fprintf(stderr, TOOL ": %s: an in-sync member of the array (role %d), not a replacement\n",
			m->path, m->sb.role);
		return -1;
	}
	if (m->dev.fd < 0 && !(o->dry_run && access(m->path, F_OK) < 0)) {
		fprintf(stderr, TOOL ": %s\n", m->reason);
		return -1;
	}
	if (m->state == MEMBER_FOREIGN && !o->force) {
		fprintf(stderr, TOOL ": %s: %s; use --force to overwrite it\n", m->path, m->reason);
		return -1;
	}
	if (taken(t, *n, role, m)) {
		fprintf(stderr, TOOL ": %s: role %d is given more than one replacement\n", m->path, role);
		return -1;
	}
	t[*n] = (struct rebuild_target){ .role = role, .m = m };
	/* md keeps the device number and UUID of a member of the array that
	 * takes a role: its own role again, or any role for a hot spare */
	if (of_array(m) && (m->sb.role == role || m->state == MEMBER_SPARE)) {
		t[*n].readd = true;
		if (m->state == MEMBER_REBUILDING && !o->restart)
			t[*n].resume = m->sb.recovery_offset;
	}
	(*n)++;
	return 0;
}

static bool needs(const struct array *a, int role)
{
	return role >= 0 && role < a->ref->raid_disks && !a->role[role];
}

/* A replace: role's member in sync is copied onto m, which then holds the
 * role, and recorded faulty. */
static int add_replace(struct array *a, struct rebuild_target *t, int *n, int role, struct member *m,
		       const struct opts *o)
{
	struct diag d;

	if (replace_refuse(a, role, m, &d) < 0) {
		fprintf(stderr, TOOL ": %s\n", d.msg);
		return -1;
	}
	if (add_target(a, t, n, role, m, o) < 0)
		return -1;
	t[*n - 1].replaces = a->role[role];
	return 0;
}

/* A member of this array that can hold role again: stale, faulty or
 * half-rebuilt in it. */
static bool readd_role(const struct member *m, int *role)
{
	if (!of_array(m) || m->sb.role < 0)
		return false;
	*role = m->sb.role;
	return m->state == MEMBER_STALE || m->state == MEMBER_FAULTY || m->state == MEMBER_REBUILDING ||
	       m->state == MEMBER_DUPLICATE;
}

static int next_needed(const struct array *a, const struct rebuild_target *t, int n)
{
	int r;

	for (r = 0; r < a->ref->raid_disks; r++)
		if (needs(a, r) && !taken(t, n, r, NULL))
			return r;
	return -1;
}

/* A request whose member already holds the role in sync (the same command
 * run again after it finished) has nothing left to do. */
static bool already_holds(const struct array *a, const struct member *m, const struct request *q,
			  const struct opts *o)
{
	if (m->state != MEMBER_ACTIVE || a->role[m->sb.role] != m ||
	    (q->kind == REQ_REPLACE && q->role != m->sb.role))
		return false;
	if (!o->quiet)
		fprintf(stderr, TOOL ": %s: holds role %d in sync already\n", m->path, m->sb.role);
	return true;
}

/* The array's own hot spares take the roles still without a target, in
 * the order given, as md's recovery takes them. */
static int take_own_spares(struct array *a, const struct opts *o, struct rebuild_target *t, int n)
{
	int i, role;

	for (i = 0; i < a->nmembers; i++) {
		struct member *m = &a->members[i];

		if (!of_array(m) || m->state != MEMBER_SPARE || taken(t, n, -1, m))
			continue;
		role = next_needed(a, t, n);
		if (role < 0)
			break;
		if (add_target(a, t, &n, role, m, o) < 0)
			return -1;
	}
	return n;
}

/* Turns the requests into targets: explicit roles (a replace where a
 * member in sync holds the role), re-adds, then members that hold a
 * recorded rebuild or replacement, then spares in order, then the
 * array's own spares. */
static int choose_targets(struct array *a, const struct opts *o, struct rebuild_target *t)
{
	int n = 0, i, role = -1;

	for (i = 0; i < o->nreq; i++) {
		const struct request *q = &o->req[i];
		struct member *m = find_member(a, q->path);

		if (q->kind == REQ_SPARE || already_holds(a, m, q, o))
			continue;
		if (q->kind == REQ_READD && !readd_role(m, &role)) {
			fprintf(stderr, TOOL ": %s: --readd takes a stale or faulty member of this array; this one is %s\n",
				m->path, m->state == MEMBER_ACTIVE ? "in sync" : m->reason);
			return -1;
		}
		if (q->kind == REQ_REPLACE)
			role = q->role;
		if (q->kind == REQ_REPLACE && role < a->ref->raid_disks && a->role[role]) {
			if (add_replace(a, t, &n, role, m, o) < 0)
				return -1;
			continue;
		}
		if (!needs(a, role)) {
			fprintf(stderr, TOOL ": %s: role %d %s\n", m->path, role,
				role >= a->ref->raid_disks ? "is not a role of this array"
							   : "is held by an in-sync member; nothing to rebuild");
			return -1;
		}
		if (add_target(a, t, &n, role, m, o) < 0)
			return -1;
	}
	for (i = 0; i < a->nmembers; i++) {
		struct member *m = &a->members[i];

		if (m->state == MEMBER_REBUILDING && needs(a, m->sb.role) && !taken(t, n, m->sb.role, m) &&
		    add_target(a, t, &n, m->sb.role, m, o) < 0)
			return -1;
		if (replace_recorded(a, m) && !taken(t, n, m->sb.role, m) && add_replace(a, t, &n, m->sb.role, m, o) < 0)
			return -1;
	}
	for (i = 0; i < o->nreq; i++) {
		struct member *m = find_member(a, o->req[i].path);

		if (o->req[i].kind != REQ_SPARE || taken(t, n, -1, m))
			continue;
		/* In sync already is the same run again after it finished only
		 * when no role is left to rebuild; else it is no spare at all,
		 * refused (by add_target) before anything is written. */
		if (!a->missing && already_holds(a, m, &o->req[i], o))
			continue;
		role = next_needed(a, t, n);
		if (role < 0) {
			if (!o->quiet)
				fprintf(stderr, TOOL ": %s: not needed, every role has a replacement\n", m->path);
			continue;
		}
		if (add_target(a, t, &n, role, m, o) < 0)
			return -1;
	}
	return take_own_spares(a, o, t, n);
}

static void say_needs(const struct array *a)
{
	int r, i;

	for (r = 0; r < a->ref->raid_disks; r++) {
		const char *why = "missing";
		const struct member *who = NULL;

		if (!needs(a, r))
			continue;
		for (i = 0; i < a->nmembers; i++)
			if (of_array(&a->members[i]) && a->members[i].sb.role == r &&
			    a->members[i].state != MEMBER_DUPLICATE)
				who = &a->members[i];
		if (who)
			why = who->reason;
		fprintf(stderr, TOOL ": role %d needs rebuilding: %s%s%s\n", r, who ? who->path : "", who ? ": " : "", why);
	}
}

static void on_progress(void *ctx, uint64_t done, uint64_t total)
{
	struct run *r = ctx;

	r->prog.total = total;       /* what is left when resuming */
	progress_update(&r->prog, done);
}

static void keep_lost(struct run *r, uint64_t off, uint64_t len)
{
	struct lost *p;

	if (r->oom)
		return;
	if (r->nlost && r->lost[r->nlost - 1].offset == off)
		return;
	if (r->nlost == r->caplost) {
		size_t cap = r->caplost ? 2 * r->caplost : 64;

		p = realloc(r->lost, cap * sizeof(*p));
		if (!p) {
			r->oom = true;
			return;
		}
		r->lost = p;
		r->caplost = cap;
	}
	r->lost[r->nlost++] = (struct lost){ off, len };
}

static const char *event_name(enum rebuild_event_kind k)
{
	return k == REBUILD_UNRECOVERABLE ? "unrecoverable" : k == REBUILD_DISAGREE ? "disagree" : "read_error";
}

static int on_event(void *ctx, const struct rebuild_event *e)
{
	struct run *r = ctx;
	int i;

	progress_finish(&r->prog);
	if (e->kind != REBUILD_READ_ERROR)
		for (i = 0; i < e->nlost; i++)
			keep_lost(r, e->lost_offset[i], e->lost_length[i]);
	if (r->o->json) {
		json_object(r->j, NULL);
		json_str(r->j, "kind", event_name(e->kind));
		json_int(r->j, "role", e->role);
		if (e->member)
			json_str(r->j, "member", e->member->path);
		else
			json_null(r->j, "member");
		json_uint(r->j, "member_offset_bytes", e->member_offset);
		json_uint(r->j, "length_bytes", e->length);
		json_array(r->j, "array_offsets_bytes");
		for (i = 0; i < e->nlost; i++)
			json_uint(r->j, NULL, e->lost_offset[i]);
		json_close(r->j);
		json_close(r->j);
	}
	if (!r->o->human || (r->o->quiet && e->kind == REBUILD_READ_ERROR))
		return 0;
	printf("%s: role %d, %s, member byte %llu, %llu bytes", event_name(e->kind), e->role,
	       e->member ? e->member->path : "missing", (unsigned long long)e->member_offset,
	       (unsigned long long)e->length);
	for (i = 0; i < e->nlost; i++)
		printf("%s%llu", i ? ", " : "; array bytes ", (unsigned long long)e->lost_offset[i]);
	printf("\n");
	return 0;
}

/* A target that was the array's spare: it keeps its identity, but is no
 * member rebuilt in place. */
static bool hot_spare(const struct rebuild_target *t)
{
	return t->readd && t->m->state == MEMBER_SPARE;
}

/* How a member rebuilt in place is recovered: from the bitmap, so many
 * bytes of so many, or whole and why. */
static void print_recovery(const struct rebuild_target *t, const struct readd_plan *plan)
{
	if (plan->bitmap)
		printf(", from the write-intent bitmap: %llu of %llu bytes; %llu of %llu bits set, %u KiB a bit",
		       (unsigned long long)readd_copy_sectors(plan) * 512,
		       (unsigned long long)(plan->end - plan->from) * 512, (unsigned long long)plan->dirty_bits,
		       (unsigned long long)plan->bits, plan->chunk_bytes / 1024);
	else if (t->readd && !hot_spare(t) && plan->why[0])
		printf(", whole: %s", plan->why);
}

static void print_plan(const struct rebuild_target *t, int n, bool dry, const struct readd_plan *plan)
{
	int i;

	for (i = 0; i < n; i++) {
		const char *onto = hot_spare(&t[i]) ? "the array's spare" : t[i].readd ? "in place" : "new member";

		if (t[i].replaces) {
			printf("%s role %d, %s, onto %s (%s%s)\n", dry ? "would replace" : "replacing", t[i].role,
			       t[i].replaces->path, t[i].m->path, hot_spare(&t[i]) ? onto : "replacement",
			       t[i].resume ? ", resuming" : "");
			continue;
		}
		printf("%s role %d onto %s (%s%s", dry ? "would rebuild" : "rebuilding", t[i].role,
		       t[i].m->path, onto, t[i].resume ? ", resuming" : "");
		print_recovery(&t[i], plan);
		printf(")\n");
	}
}

/* --json of --dry-run: each target, how it would be recovered and the
 * bytes it would take. */
static int json_plan(struct opts *o, const struct rebuild_target *t, int n, const struct readd_plan *plan)
{
	uint64_t copy = readd_copy_sectors(plan) * 512, span = (plan->end - plan->from) * 512;
	struct json *j = &o->out.j;
	int i;

	if (json_out_begin(&o->out, 1) < 0)
		return -1;
	json_array(j, "targets");
	for (i = 0; i < n; i++) {
		json_object(j, NULL);
		json_int(j, "role", t[i].role);
		json_str(j, "member", t[i].m->path);
		json_bool(j, "in_place", t[i].readd && !hot_spare(&t[i]));
		json_str(j, "recovery", plan->bitmap ? "bitmap" : "whole");
		if (plan->why[0])
			json_str(j, "whole_because", plan->why);
		json_uint(j, "rebuild_bytes", copy);
		json_uint(j, "skip_bytes", span - copy);
		json_close(j);
	}
	json_close(j);
	return 0;
}

/* With --files: what each lost array range held. */
static int report_files(struct run *r, struct array *a)
{
	struct fsmap *m = NULL;
	uint64_t *offs;
	char **descs;
	struct diag d;
	size_t i;

	if (!r->nlost) {
		if (r->o->human && !r->o->quiet)
			printf("files hurt: none\n");
		return 0;
	}
	offs = calloc(r->nlost, sizeof(*offs));
	descs = calloc(r->nlost, sizeof(*descs));
	if (!offs || !descs || r->oom) {
		free(offs);
		free(descs);
		fprintf(stderr, TOOL ": out of memory for --files\n");
		return -1;
	}
	for (i = 0; i < r->nlost; i++)
		offs[i] = r->lost[i].offset;
	if (fsmap_open(a, &m, &d) < 0 || fsmap_describe(m, offs, r->nlost, 4096, descs, &d) < 0) {
		fprintf(stderr, TOOL ": --files: %s\n", d.msg);
		if (m)
			fsmap_close(m);
		free(offs);
		free(descs);
		return -1;
	}
	fsmap_close(m);
	if (r->o->json)
		json_array(r->j, "files");
	if (r->o->human)
		printf("files hurt:\n");
	for (i = 0; i < r->nlost; i++) {
		if (r->o->json) {
			json_object(r->j, NULL);
			json_uint(r->j, "array_offset_bytes", offs[i]);
			json_str(r->j, "description", descs[i]);
			json_close(r->j);
		}
		if (r->o->human)
			printf("  array byte %llu: %s\n", (unsigned long long)offs[i], descs[i]);
		free(descs[i]);
	}
	if (r->o->json)
		json_close(r->j);
	free(offs);
	free(descs);
	return 0;
}

static void print_summary(struct run *r, const struct rebuild_target *t, int n, const struct readd_plan *plan,
			  const struct rebuild_result *res, int rc)
{
	/* a whole rebuild counts its whole span, as it always has */
	uint64_t span = (res->end - res->start) * 512, copied = plan->bitmap ? res->copied * 512 : span;
	int i;

	if (r->o->json) {
		json_close(r->j);
		json_array(r->j, "targets");
		for (i = 0; i < n; i++) {
			json_object(r->j, NULL);
			json_int(r->j, "role", t[i].role);
			json_str(r->j, "member", t[i].m->path);
			json_bool(r->j, "in_place", t[i].readd && !r->was_spare[i] && !t[i].replaces);
			if (t[i].replaces)
				json_str(r->j, "replaces", t[i].replaces->path);
			else
				json_null(r->j, "replaces");
			json_uint(r->j, "bad_ranges", (unsigned long long)t[i].nbad);
			json_str(r->j, "recovery", plan->bitmap ? "bitmap" : "whole");
			json_uint(r->j, "rebuilt_bytes", copied);
			json_uint(r->j, "skipped_bytes", span - copied);
			json_close(r->j);
		}
		json_close(r->j);
		json_object(r->j, "summary");
		json_bool(r->j, "complete", rc == 0);
		json_uint(r->j, "start_sectors", res->start);
		json_uint(r->j, "end_sectors", res->end);
		json_uint(r->j, "rebuilt_bytes", copied * (uint64_t)n);
		json_uint(r->j, "skipped_bytes", (span - copied) * (uint64_t)n);
		json_uint(r->j, "unrecoverable_bytes", res->unrecoverable);
		json_uint(r->j, "disagree_units", res->disagree);
		json_uint(r->j, "read_errors", res->read_errors);
		json_uint(r->j, "rewritten_bytes", res->rewritten);
		json_uint(r->j, "log_entries_cleared", res->log_cleared);
		json_uint(r->j, "checkpoints", (unsigned)res->checkpoints);
		json_close(r->j);
	}
	if (rc < 0 || !r->o->human || r->o->quiet)
		return;
	for (i = 0; i < n; i++) {
		if (plan->bitmap)
			printf("rebuilt role %d onto %s from the write-intent bitmap: %llu bytes, %llu bytes skipped as in sync%s\n",
			       t[i].role, t[i].m->path, (unsigned long long)copied, (unsigned long long)(span - copied),
			       t[i].nbad ? ", with bad blocks logged" : "");
		else
			printf("rebuilt role %d onto %s: %llu bytes from member byte %llu%s\n", t[i].role, t[i].m->path,
			       (unsigned long long)span, (unsigned long long)(t[i].m->sb.data_offset + res->start) * 512,
			       t[i].nbad ? ", with bad blocks logged" : "");
	}
	for (i = 0; i < n; i++)
		if (t[i].replaces && rc == 0)
			printf("%s: replaced by %s, recorded faulty\n", t[i].replaces->path, t[i].m->path);
	printf("unrecoverable: %llu bytes; survivors disagreeing with P/Q: %llu units; read errors: %llu\n",
	       (unsigned long long)res->unrecoverable, (unsigned long long)res->disagree,
	       (unsigned long long)res->read_errors);
	if (res->rewritten)
		printf("survivors' bad-block logs: %llu bytes rewritten from redundancy, %llu entries cleared\n",
		       (unsigned long long)res->rewritten, (unsigned long long)res->log_cleared);
}

static int rebuild(struct array *a, struct opts *o, struct rebuild_target *t, int n, const struct readd_plan *plan)
{
	struct rebuild_result res = { 0 };
	struct run r = { .o = o };
	struct rebuild_options ro = { .restart = o->restart, .checkpoint_ms = o->checkpoint_ms, .jobs = o->jobs,
				      .only = plan->bitmap ? plan->range : NULL, .nonly = plan->n,
				      .report = on_event, .progress = on_progress, .ctx = &r };
	struct diag d;
	int rc, i;

	for (i = 0; i < n; i++)
		r.was_spare[i] = hot_spare(&t[i]);
	if (o->json) {
		if (json_out_begin(&o->out, 1) < 0)
			return EXIT_ERROR;
		r.j = &o->out.j;
		json_array(r.j, "events");
	}
	if (o->human && !o->quiet)
		print_plan(t, n, false, plan);
	progress_start(&r.prog, progress_quiet(o->pmode, o->quiet || !o->human), TOOL, "rebuilding",
		       (plan->bitmap ? readd_copy_sectors(plan) : plan->end) * 512);
	rc = rebuild_array(a, t, n, &ro, &res, &d);
	progress_finish(&r.prog);
	print_summary(&r, t, n, plan, &res, rc);
	if (rc == 0 && o->files && report_files(&r, a) < 0)
		rc = 1;
	if (rc < 0)
		fprintf(stderr, TOOL ": %s\n", d.msg);
	if (o->json && json_out_end(&o->out, 1, rc < 0 ? "error" : rc > 0 || res.unrecoverable || res.disagree
				    ? "needs_attention" : "rebuilt", rc < 0 ? d.msg : NULL) < 0 && rc == 0)
		rc = -1;
	for (i = 0; i < n; i++)
		rebuild_target_free(&t[i]);
	free(r.lost);
	if (rc < 0)
		return EXIT_ERROR;
	return rc > 0 || res.unrecoverable || res.disagree ? EXIT_PROBLEM : EXIT_OK;
}

/* Everything after the replacements are made: the exit status, and in
 * *refused whether the run stopped before writing anything (then the
 * replacements it made can go). */
static int run(struct opts *o, char **paths, int n, bool *is_repl, bool *refused)
{
	static struct rebuild_target t[ST_MAX_DISKS];
	struct cli_members given = { .tool = TOOL, .newcomers = is_repl, .roles_later = true };
	bool covered[ST_MAX_DISKS] = { false };
	struct readd_plan plan;
	struct array a;
	struct diag d;
	int nt, rc, i;

	*refused = true;
	given.paths = paths;
	given.n = n;
	given.aopt.mode = o->dry_run ? DEV_READ : DEV_WRITE;
	given.dry_run = o->dry_run;
	given.force = o->force;
	if (cli_open_array(&a, &given) < 0)
		return EXIT_ERROR;
	nt = choose_targets(&a, o, t);
	if (nt < 0) {
		array_close(&a);
		return EXIT_ERROR;
	}
	if (a.missing == 0 && nt == 0) {
		if (!o->quiet && o->human)
			printf("%s: every role is held by an in-sync member; nothing to rebuild\n", a.members[0].path);
		array_close(&a);
		return EXIT_OK;
	}
	if (nt == 0) {
		say_needs(&a);
		fprintf(stderr, TOOL ": no replacement given: name one with --replace ROLE=PATH, --spare PATH or --readd PATH\n");
		array_close(&a);
		return EXIT_ERROR;
	}
	for (i = 0; i < nt; i++)
		covered[t[i].role] = true;
	if (!o->run && cli_refuse_left_out(TOOL, &a, covered) < 0) {
		array_close(&a);
		return EXIT_ERROR;
	}
	if (o->verbose || o->dry_run)
		say_needs(&a);
	/* md's choice for members that come back: the bitmap's ranges or
	 * the whole; what would stop the rebuild before its first write
	 * stops it here, while the replacements it made can still go */
	if (readd_plan(&a, t, nt, o->restart, &plan, &d) < 0 ||
	    (o->dry_run ? array_check_readable(&a, &d) : recovery_check(&a, t, nt, &d)) < 0) {
		fprintf(stderr, TOOL ": %s\n", d.msg);
		readd_plan_free(&plan);
		array_close(&a);
		return EXIT_ERROR;
	}
	if (o->dry_run) {
		if (o->human)
			print_plan(t, nt, true, &plan);
		rc = o->json && json_plan(o, t, nt, &plan) < 0 ? EXIT_ERROR : EXIT_OK;
	} else {
		*refused = false;
		rc = rebuild(&a, o, t, nt, &plan);
	}
	readd_plan_free(&plan);
	array_close(&a);
	return rc;
}

int main(int argc, char **argv)
{
	static struct opts o = { .pmode = PROGRESS_AUTO };
	static struct made made;
	char *paths[MAX_PATHS];
	bool is_repl[MAX_PATHS] = { false };
	bool refused;
	int n, rc;

	atexit(cli_close_stdout);
	if (parse_args(argc, argv, &o) < 0)
		return EXIT_ERROR;
	o.human = json_out_human(&o.out);
	/* the replacements join the members given, made first when new */
	if (cli_need_members(TOOL, argc - optind) < 0)
		return EXIT_ERROR;
	/* the report must not land on a member: no document is written there */
	if (o.out.path && cli_refuse_output(TOOL, o.out.path, argv + optind, argc - optind) < 0)
		return EXIT_ERROR;
	n = gather_paths(argc, argv, &o, paths, is_repl, &made);
	if (n < 0) {
		remove_made(&made);
		json_out_end(&o.out, 1, "error", NULL);
		return EXIT_ERROR;
	}
	rc = run(&o, paths, n, is_repl, &refused);
	if (refused)
		remove_made(&made);
	/* --json of a run that wrote nothing: planned, nothing to do, or why not */
	json_out_end(&o.out, 1, rc == EXIT_ERROR ? "error" : o.dry_run ? "planned" : "whole", NULL);
	return rc;
}
