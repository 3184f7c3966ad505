/* manage: the superblock edits behind mdadm --add, --fail, --remove and
 * --zero-superblock, made offline as md leaves them once the array has
 * stopped (tests/fixtures/md-writes/r5-4d-64k-ls-*-manage hold md's). */
#include <string.h>
#include <time.h>

#include "md/intent.h"
#include "md/manage.h"
#include "md/recovery.h"

/* How far each verb moves the events count, as md 6.1 leaves it after
 * the command and --stop (measured in mdvm, the fixtures' MANIFESTs): a
 * spare added or a device removed is one superblock update, a fail two. */
enum {
	EVENTS_ADD = 1,
	EVENTS_FAIL = 2,
	EVENTS_REMOVE = 1,
};

static const struct super_ops *ops(const struct array *a)
{
	return super_ops_of(a->ref->major);
}

/* never a faulty or stale member: md runs without them */
bool manage_writes(const struct member *m)
{
	return m->state == MEMBER_ACTIVE || m->state == MEMBER_REBUILDING || m->state == MEMBER_SPARE;
}

static int events_after(const struct array *a, int steps, uint64_t *events, struct diag *d)
{
	if (a->events > UINT64_MAX - (uint64_t)steps)
		return diag_fail(d, "%s: the array's events count is at its limit (2^64-1): one more change would wrap it to 0 and leave every member stale; nothing written",
				 a->members[0].path);
	*events = a->events + (uint64_t)steps;
	return 0;
}

static int check_writable(const struct member *m, struct diag *d)
{
	if (!m->dev.writable)
		return diag_fail(d, "%s: opened read-only, cannot record the change", m->path);
	return 0;
}

/* With its bitmap first, as md writes them. */
static int write_member(struct array *a, struct member *m, uint64_t events, uint64_t now, struct diag *d)
{
	if (check_writable(m, d) < 0)
		return -1;
	super_set_state(&m->sb, events, !a->dirty, now);
	if (intent_stamp(a, m, events, d) < 0)
		return -1;
	return super_write(&m->dev, &m->sb, d);
}

/* A new spare's bitmap is mdadm's, from before md's update; md's own
 * bitmap writes pass a spare over. */
static int write_spare(struct array *a, struct member *s, uint64_t events, uint64_t now, struct diag *d)
{
	if (check_writable(s, d) < 0 || intent_seed_spare(a, s, d) < 0)
		return -1;
	super_set_state(&s->sb, events, !a->dirty, now);
	return super_write(&s->dev, &s->sb, d);
}

/* Device numbers the members given hold: a new spare takes none of them. */
static int numbers_taken(const struct array *a, const struct member *self, int *taken)
{
	int i, n = 0;

	for (i = 0; i < a->nmembers; i++) {
		const struct member *m = &a->members[i];

		if (m != self && m->has_sb && m->state != MEMBER_FOREIGN && m->state != MEMBER_INVALID)
			taken[n++] = m->sb.dev_number;
	}
	return n;
}

static int check_room(const struct array *a, const struct member *spare, struct diag *d)
{
	uint64_t need = rebuild_min_size(a), have = spare->dev.size;

	if (have / 512 >= need / 512 && ops(a)->joiner_room(a->ref, have / 512) >= a->ref->size)
		return 0;
	return diag_fail(d, "%s: %llu bytes, too small for a spare of this array: it needs %llu bytes",
			 spare->path, (unsigned long long)have, (unsigned long long)need);
}

int manage_add_spare(struct array *a, struct member *spare, uint32_t rdev_major, uint32_t rdev_minor,
		     struct diag *d)
{
	int taken[a->nmembers + 1];
	struct super_joiner j = {
		.path = spare->path, .role = ROLE_SPARE, .dev_sectors = spare->dev.size / 512,
		.taken = taken, .rdev_major = rdev_major, .rdev_minor = rdev_minor,
	};
	uint64_t events = 0, now = (uint64_t)time(NULL);
	struct md_super sb = { 0 };
	int i;

	j.ntaken = numbers_taken(a, spare, taken);
	if (check_room(a, spare, d) < 0 || events_after(a, EVENTS_ADD, &events, d) < 0 ||
	    intent_open(a, d) < 0 || ops(a)->spare(&sb, a->ref, &j, d) < 0)
		return -1;
	spare->sb = sb;
	spare->has_sb = true;
	spare->state = MEMBER_SPARE;
	spare->reason[0] = 0;
	/* the spare first: until the members list it, md passes it over */
	if (write_spare(a, spare, events, now, d) < 0)
		return -1;
	for (i = 0; i < a->nmembers; i++) {
		struct member *m = &a->members[i];

		if (m == spare || !manage_writes(m))
			continue;
		ops(a)->record_spare(&m->sb, &spare->sb);
		if (write_member(a, m, events, now, d) < 0)
			return -1;
	}
	a->events = events;
	return 0;
}

/* Records change (record_faulty or record_removed) of m on every member
 * md writes but m, events steps up. */
static int record_on_others(struct array *a, struct member *m, int steps,
			    void (*change)(struct md_super *sb, const struct md_super *member), struct diag *d)
{
	uint64_t events = 0, now = (uint64_t)time(NULL);
	int i;

	if (events_after(a, steps, &events, d) < 0 || intent_open(a, d) < 0)
		return -1;
	for (i = 0; i < a->nmembers; i++) {
		struct member *w = &a->members[i];

		if (w == m || !manage_writes(w))
			continue;
		change(&w->sb, &m->sb);
		if (write_member(a, w, events, now, d) < 0)
			return -1;
	}
	a->events = events;
	return 0;
}

int manage_fail(struct array *a, struct member *m, struct diag *d)
{
	return record_on_others(a, m, EVENTS_FAIL, ops(a)->record_faulty, d);
}

int manage_remove(struct array *a, struct member *m, struct diag *d)
{
	return record_on_others(a, m, EVENTS_REMOVE, ops(a)->record_removed, d);
}

int manage_remove_failed(struct array *a, int *n, struct diag *d)
{
	struct md_super view = *a->ref;
	uint64_t events = 0, now = (uint64_t)time(NULL);
	int i;

	*n = ops(a)->remove_faulty(&view);
	if (*n == 0)
		return 0;
	if (events_after(a, *n * EVENTS_REMOVE, &events, d) < 0 || intent_open(a, d) < 0)
		return -1;
	for (i = 0; i < a->nmembers; i++) {
		struct member *w = &a->members[i];

		if (!manage_writes(w))
			continue;
		ops(a)->remove_faulty(&w->sb);
		if (write_member(a, w, events, now, d) < 0)
			return -1;
	}
	a->events = events;
	return 0;
}

int manage_zero(struct dev *dv, const struct md_super *sb, struct diag *d)
{
	uint8_t block[4096];
	uint64_t at = sb->sb_sector * 512;
	size_t n = super_ops_of(sb->major)->zeroed_bytes(dev_sector_size(dv));

	if (n > sizeof(block))
		return diag_fail(d, "%s: logical sectors of %zu bytes; mdadm zeroes whole sectors and stripe at most 4096 bytes",
				 dv->path, n);
	if (dev_read(dv, block, sizeof(block), at, d) < 0)
		return -1;
	memset(block, 0, n);
	if (dev_write(dv, block, sizeof(block), at, d) < 0)
		return -1;
	return dev_sync(dv, d);
}
