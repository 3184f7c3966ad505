/* test_rebuild: RAID5/6 members rebuilt by rebuild_array on small image
 * arrays, in one lane and in several: the bytes put back, the events told
 * and their order, progress, the bad-block log and a caller's stop; and
 * given ranges alone, as a re-add from the bitmap asks. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "raid/rebuild.h"
#include "image_array.h"
#include "tap.h"

#define MAXN 16
#define MAXEV 64
#define PAGE 4096u                   /* what a read error takes out */

/* An array whose target roles were wiped, and what those roles held. */
struct rig {
	char dir[64];
	char *paths[MAXN];
	int n;
	struct array a;
	struct rebuild_target t[2];
	int nt;
	uint8_t *want[2];            /* per target: its data area as it was */
	uint64_t data_off, data_len; /* bytes */
};

/* What the rebuild told. */
struct told {
	struct rebuild_event e[MAXEV];
	int n;
	bool progress_in_order;
	uint64_t last_done, total;
	int stop_at;                 /* the report fails at this event; -1 never */
};

static void bail(const char *what)
{
	printf("Bail out! %s\n", what);
	exit(1);
}

static void blank(const char *path)
{
	if (truncate(path, 0) < 0 || truncate(path, IMAGE_BYTES) < 0)
		bail("cannot blank a member");
}

static uint8_t *read_at(const char *path, uint64_t off, uint64_t len)
{
	uint8_t *buf = malloc(len);
	int fd = open(path, O_RDONLY);

	if (!buf || fd < 0 || pread(fd, buf, len, (off_t)off) != (ssize_t)len)
		bail("cannot read a member");
	close(fd);
	return buf;
}

/* A RAID array of n images, filled; roles[0..nt-1] blanked and opened as
 * the targets.  fault: STRIPE_FAULT_READ for the survivors, or NULL. */
static void rig_make(struct rig *r, int level, int n, const int *roles, int nt, const char *fault)
{
	struct array_options opt = { .mode = DEV_WRITE };
	struct diag d;
	int k;

	memset(r, 0, sizeof(*r));
	strcpy(r->dir, "/tmp/test_rebuild.XXXXXX");
	if (!mkdtemp(r->dir) || make_image_array(r->dir, level, -1, n, r->paths) < 0)
		bail("cannot make the array");
	r->n = n;
	r->nt = nt;
	if (array_open(&r->a, r->paths, n, &opt, &d) < 0)
		bail(d.msg);
	r->data_off = r->a.members[0].sb.data_offset * 512;
	r->data_len = r->a.geo.dev_sectors * 512;
	array_close(&r->a);
	for (k = 0; k < nt; k++) {
		r->want[k] = read_at(r->paths[roles[k]], r->data_off, r->data_len);
		blank(r->paths[roles[k]]);
	}
	if (fault)
		setenv("STRIPE_FAULT_READ", fault, 1);
	if (array_open(&r->a, r->paths, n, &opt, &d) < 0)
		bail(d.msg);
	unsetenv("STRIPE_FAULT_READ");
	for (k = 0; k < nt; k++)
		r->t[k] = (struct rebuild_target){ .role = roles[k], .m = &r->a.members[roles[k]] };
}

static void rig_free(struct rig *r)
{
	int k;

	for (k = 0; k < r->nt; k++) {
		free(r->want[k]);
		rebuild_target_free(&r->t[k]);
	}
	array_close(&r->a);
	remove_image_array(r->paths, r->n);
	rmdir(r->dir);
}

/* Whether target k's data area holds what the role held, but for the
 * page at member byte zeroed (UINT64_MAX: none), which must be zeroes. */
static bool target_holds(const struct rig *r, int k, uint64_t zeroed)
{
	uint8_t *got = read_at(r->paths[r->t[k].role], r->data_off, r->data_len);
	bool same = true;
	uint64_t at;

	for (at = 0; same && at < r->data_len; at += PAGE) {
		static const uint8_t zero[PAGE];
		const uint8_t *want = at == zeroed ? zero : r->want[k] + at;

		same = memcmp(got + at, want, PAGE) == 0;
	}
	free(got);
	return same;
}

static int on_event(void *ctx, const struct rebuild_event *e)
{
	struct told *t = ctx;

	if (t->n < MAXEV)
		t->e[t->n] = *e;
	return ++t->n == t->stop_at ? -1 : 0;
}

static void on_progress(void *ctx, uint64_t done, uint64_t total)
{
	struct told *t = ctx;

	if (done < t->last_done || done > total)
		t->progress_in_order = false;
	t->last_done = done;
	t->total = total;
}

static int rebuild(struct rig *r, int jobs, struct told *t, struct rebuild_result *res, struct diag *d)
{
	struct rebuild_options o = { .jobs = jobs, .report = on_event, .progress = on_progress, .ctx = t };

	t->progress_in_order = true;
	return rebuild_array(&r->a, r->t, r->nt, &o, res, d);
}

static void raid6_one_member_in_many_lanes(void)
{
	/* 16 members, 8 jobs: batches of 128 KiB, segments of 4 MiB, two lanes */
	struct rig r;
	struct told t = { .stop_at = -1 };
	struct rebuild_result res;
	struct diag d = { 0 };
	int roles[] = { 3 };

	rig_make(&r, MD_LEVEL_RAID6, 16, roles, 1, NULL);
	ok(rebuild(&r, 8, &t, &res, &d) == 0 && t.n == 0 && res.unrecoverable == 0,
	   "a RAID6 member rebuilt by lanes that walk a segment each succeeds with nothing to tell (%s)", d.msg);
	ok(target_holds(&r, 0, UINT64_MAX), "the rebuilt member is byte for byte the one it replaces");
	ok(t.progress_in_order && t.last_done == t.total && t.total == r.data_len,
	   "progress is told in order up to the whole data area");
	rig_free(&r);
}

static void raid6_two_members(void)
{
	struct rig r;
	struct told t = { .stop_at = -1 };
	struct rebuild_result res;
	struct diag d = { 0 };
	int roles[] = { 0, 4 };

	rig_make(&r, MD_LEVEL_RAID6, 6, roles, 2, NULL);
	ok(rebuild(&r, 0, &t, &res, &d) == 0 && target_holds(&r, 0, UINT64_MAX) && target_holds(&r, 1, UINT64_MAX),
	   "two RAID6 members rebuilt at once are byte for byte the ones they replace (%s)", d.msg);
	rig_free(&r);
}

static void raid5_unreadable_page(void)
{
	struct rig r;
	struct told t = { .stop_at = -1 };
	struct rebuild_result res;
	struct diag d = { 0 };
	int roles[] = { 1 };
	uint64_t page = 261 * PAGE, dev_off;   /* row 16: P on role 3 */
	char fault[128];

	/* the data offset is the same on every member of a made array */
	rig_make(&r, MD_LEVEL_RAID5, 4, roles, 1, NULL);
	dev_off = r.data_off + page;
	rig_free(&r);
	snprintf(fault, sizeof(fault), "m2:%llu:%u", (unsigned long long)dev_off, PAGE);
	rig_make(&r, MD_LEVEL_RAID5, 4, roles, 1, fault);
	ok(rebuild(&r, 0, &t, &res, &d) == 0,
	   "a RAID5 rebuild with a survivor's page unreadable goes on to the end (%s)", d.msg);
	ok(t.n == 2 && t.e[0].kind == REBUILD_READ_ERROR && t.e[0].role == 2 && t.e[0].member_offset == dev_off,
	   "the survivor's page is told first, as a read error at its device byte");
	ok(t.n == 2 && t.e[1].kind == REBUILD_UNRECOVERABLE && t.e[1].role == 1 &&
	   t.e[1].member_offset == dev_off && t.e[1].length == PAGE && t.e[1].nlost == 2,
	   "then the target's page, unrecoverable, with the two array pages it took with it");
	ok(res.read_errors == 1 && res.unrecoverable == PAGE, "the result counts one of each");
	ok(r.t[0].nbad == 1 && r.t[0].bad[0].start == dev_off / 512 && r.t[0].bad[0].len == PAGE / 512,
	   "the lost page is kept for the target's bad-block log");
	ok(target_holds(&r, 0, page), "the target holds zeroes there and the role's bytes everywhere else");
	rig_free(&r);
}

static void events_in_member_order(void)
{
	/* 16 members, 8 jobs: two lanes, and a lost page in the first one's
	 * segment (below 4 MiB) and two in the second's */
	struct rig r;
	struct told t = { .stop_at = -1 };
	struct rebuild_result res;
	struct diag d = { 0 };
	int roles[] = { 0 }, i;
	uint64_t off;
	bool ascending = true;
	char fault[128];

	rig_make(&r, MD_LEVEL_RAID5, 16, roles, 1, NULL);
	off = r.data_off;
	rig_free(&r);
	snprintf(fault, sizeof(fault), "m5:%llu:4096,m7:%llu:4096,m9:%llu:4096",
		 (unsigned long long)(off + (3u << 20)), (unsigned long long)(off + (5u << 20)),
		 (unsigned long long)(off + (6u << 20)));
	rig_make(&r, MD_LEVEL_RAID5, 16, roles, 1, fault);
	rebuild(&r, 8, &t, &res, &d);
	for (i = 1; i < t.n && i < MAXEV; i++)
		ascending = ascending && t.e[i].member_offset >= t.e[i - 1].member_offset;
	ok(t.n == 6 && ascending, "events met by two lanes are told in the order of the member (%d told)", t.n);
	rig_free(&r);
}

static void caller_stops(void)
{
	struct rig r;
	struct told t = { .stop_at = 1 };
	struct rebuild_result res;
	struct diag d = { 0 };
	int roles[] = { 0 };
	uint64_t off;
	char fault[128];

	rig_make(&r, MD_LEVEL_RAID5, 16, roles, 1, NULL);
	off = r.data_off;
	rig_free(&r);
	snprintf(fault, sizeof(fault), "m5:%llu:4096", (unsigned long long)(off + (1u << 20)));
	rig_make(&r, MD_LEVEL_RAID5, 16, roles, 1, fault);
	ok(rebuild(&r, 8, &t, &res, &d) < 0 && strstr(d.msg, "stopped by the caller") && t.n == 1,
	   "a report that fails stops every lane, and the rebuild fails with its reason (%s)", d.msg);
	rig_free(&r);
}

/* Whether target k's data area holds what the role held inside the
 * ranges (member sectors) and zeroes, as blanked, outside them. */
static bool target_holds_only(const struct rig *r, int k, const struct rebuild_range *only, int n)
{
	static const uint8_t zero[PAGE];
	uint8_t *got = read_at(r->paths[r->t[k].role], r->data_off, r->data_len);
	bool same = true;
	uint64_t at;
	int i;

	for (at = 0; same && at < r->data_len; at += PAGE) {
		bool inside = false;

		for (i = 0; i < n; i++)
			inside |= at >= only[i].start * 512 && at < only[i].end * 512;
		same = memcmp(got + at, inside ? r->want[k] + at : zero, PAGE) == 0;
	}
	free(got);
	return same;
}

static void only_given_ranges(void)
{
	/* page-aligned ranges that start and end inside raid chunks, walked
	 * by several lanes; the second spans many batches */
	static const struct rebuild_range only[] = { { 8, 16 }, { 1032, 9000 } };
	struct rig r;
	struct told t = { .stop_at = -1 };
	struct rebuild_result res;
	struct rebuild_options o = { .jobs = 4, .only = only, .nonly = 2, .report = on_event,
				     .progress = on_progress, .ctx = &t };
	struct diag d = { 0 };
	int roles[] = { 2 };

	rig_make(&r, MD_LEVEL_RAID5, 4, roles, 1, NULL);
	t.progress_in_order = true;
	ok(rebuild_array(&r.a, r.t, 1, &o, &res, &d) == 0 && t.n == 0, "a rebuild of given ranges succeeds%s%s",
	   d.msg[0] ? ": " : "", d.msg);
	ok(target_holds_only(&r, 0, only, 2), "the target gets the role's bytes in the ranges and nothing else");
	ok(res.copied == 8 + 7968 && res.start == 0 && res.end == r.data_len / 512,
	   "the result counts the sectors copied (%llu) over the whole span", (unsigned long long)res.copied);
	ok(t.progress_in_order && t.total == res.copied * 512 && t.last_done == t.total,
	   "progress runs over the ranges' bytes alone");
	rig_free(&r);
}

int main(void)
{
	raid6_one_member_in_many_lanes();
	raid6_two_members();
	raid5_unreadable_page();
	events_in_member_order();
	caller_stops();
	only_given_ranges();
	return tap_done();
}
