/* fuzz_assemble: structure-aware libFuzzer target for whole member sets.  The
 * input picks a set made by stripe's create, edits fields of its members'
 * superblocks, bitmaps and bad-block logs (memberset.h), leaves a member out
 * or blanks one, and then assembles it and reads, checks, repairs, writes,
 * rebuilds or examines it as the tools do. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "memberset.h"
#include "md/array.h"
#include "md/badblocks.h"
#include "md/bitmap.h"
#include "md/recovery.h"
#include "raid/check.h"
#include "raid/rebuild.h"
#include "raid/stripe.h"

/* The input's first three bytes; the edits follow. */
struct plan {
	int set;
	unsigned action;             /* low 3 bits: what to do; the rest: where */
	int left_out, blanked;       /* member indexes, or past the set: none */
	bool reversed;
};

enum action { READ_ALL, READ_RANGE, CHECK, REPAIR, WRITE, REBUILD, EXAMINE, READ_TAIL };

static int discard(void *ctx, const void *buf, size_t len, struct diag *d)
{
	(void)ctx; (void)buf; (void)len; (void)d;
	return 0;
}

static long long pattern(void *ctx, void *buf, size_t len, struct diag *d)
{
	(void)d;
	memset(buf, *(const uint8_t *)ctx, len);
	return (long long)len;
}

static int ignore_unit(void *ctx, const struct check_unit *u)
{
	(void)ctx; (void)u;
	return 0;
}

/* What stripe-examine reads of each member beyond its superblock. */
static void examine(struct array *a)
{
	struct md_bitmap bm;
	struct badblocks bb;
	struct diag d;
	int i;

	for (i = 0; i < a->nmembers; i++) {
		struct member *m = &a->members[i];

		if (!m->has_sb || m->dev.fd < 0)
			continue;
		(void)bitmap_read(&m->dev, &m->sb, &bm, &d);
		if (badblocks_read(&m->dev, &m->sb, &bb, &d) == 0)
			badblocks_free(&bb);
		(void)super_role_of(&m->sb, m->sb.dev_number);
	}
}

/* Each role without an in-sync holder goes to a member that is not one,
 * as stripe-rebuild's --spare does. */
static void rebuild(struct array *a)
{
	static struct rebuild_target t[ST_MAX_DISKS];
	struct rebuild_options o = { .jobs = 1 };
	struct rebuild_result r;
	bool used[SET_MAX_MEMBERS] = { false };
	struct diag d;
	int role, i, n = 0;

	for (role = 0; role < a->geo.raid_disks && role < ST_MAX_DISKS; role++) {
		if (a->role[role])
			continue;
		for (i = 0; i < a->nmembers && i < SET_MAX_MEMBERS; i++) {
			struct member *m = &a->members[i];

			if (used[i] || m->dev.fd < 0 || m->state == MEMBER_ACTIVE)
				continue;
			used[i] = true;
			t[n] = (struct rebuild_target){ .role = role, .m = m };
			t[n].readd = m->has_sb && m->state != MEMBER_FOREIGN && m->state != MEMBER_INVALID &&
				     m->state != MEMBER_SPARE && m->sb.role == role;
			n++;
			break;
		}
	}
	if (n == 0)
		return;
	(void)rebuild_array(a, t, n, &o, &r, &d);
	for (i = 0; i < n; i++)
		rebuild_target_free(&t[i]);
}

static void act(struct array *a, unsigned action)
{
	uint64_t bytes = a->geo.array_sectors * 512, where = (action >> 3) * 3584;
	struct check_options co = { .prefer_role = -1, .report = ignore_unit };
	struct check_result cr;
	struct diag d;
	uint64_t written;
	uint8_t fillbyte = (uint8_t)action;

	examine(a);
	if (bytes > 64u << 20 || array_check_readable(a, &d) < 0)
		return;
	switch (action & 7) {
	case READ_ALL:
		(void)stripe_read(a, 0, bytes, discard, NULL, &d);
		break;
	case READ_RANGE:
		if (where < bytes)
			(void)stripe_read(a, where, bytes - where < 20000 ? bytes - where : 20000, discard, NULL, &d);
		break;
	case READ_TAIL:
		if (bytes > 5000)
			(void)stripe_read(a, bytes - 5000, 5000, discard, NULL, &d);
		break;
	case REPAIR:
		co.repair = true;
		/* fall through */
	case CHECK:
		(void)check_array(a, &co, &cr, &d);
		break;
	case WRITE:
		/* marked around as stripe-write marks it, so the bitmap is kept */
		if (where < bytes && array_mark(a, false, &d) == 0 &&
		    stripe_write(a, where, bytes - where < 12288 ? bytes - where : 12288, pattern,
				 &fillbyte, &written, &d) == 0)
			(void)array_mark(a, true, &d);
		break;
	case REBUILD:
		rebuild(a);
		break;
	default:
		break;
	}
}

static void read_plan(const uint8_t *data, struct plan *p)
{
	p->set = data[0] % memberset_count();
	p->action = data[1];
	p->left_out = data[2] & 7;
	p->blanked = data[2] >> 3 & 7;
	p->reversed = data[2] & 0x40;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t **img = memberset_scratch();
	char paths[SET_MAX_MEMBERS][64], *given[SET_MAX_MEMBERS];
	struct array_options opt = { .mode = DEV_READ };
	const struct member_set *s;
	struct plan p;
	struct array a;
	struct diag d;
	int i, n = 0;

	if (size < 3)
		return 0;
	read_plan(data, &p);
	s = memberset_get(p.set);
	memberset_edit(s, img, data + 3, size - 3);
	if (p.blanked < s->n)
		memset(img[p.blanked], 0, SET_MEMBER_BYTES);
	if (memberset_store("asm", img, s->n, paths) < 0)
		return 0;
	for (i = 0; i < s->n; i++) {
		int k = p.reversed ? s->n - 1 - i : i;

		if (k != p.left_out)
			given[n++] = paths[k];
	}
	if ((p.action & 7) == REPAIR || (p.action & 7) == WRITE || (p.action & 7) == REBUILD)
		opt.mode = DEV_WRITE;
	if (array_open(&a, given, n, &opt, &d) == 0)
		act(&a, p.action);
	array_close(&a);
	return 0;
}
