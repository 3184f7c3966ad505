/* recovery: superblocks through a rebuild, the way md's recovery leaves
 * them: a replacement joins with its own device number and UUID and
 * feature RECOVERY_OFFSET, checkpoints move recovery_offset, and the end
 * clears it and brings every member to the same events. */
#include <stdlib.h>
#include <time.h>

#include "md/bitmap.h"
#include "md/intent.h"
#include "md/recovery.h"

static const struct super_ops *ops(const struct array *a)
{
	return super_ops_of(a->ref->major);
}

/* Whether m holds a role in sync, as assembly placed it: its superblock's
 * role may have changed since (0.90 reads it from its table of disks,
 * which a rebuild rewrites). */
static bool role_holder(const struct array *a, const struct member *m)
{
	int r;

	for (r = 0; m->state == MEMBER_ACTIVE && r < a->geo.raid_disks; r++)
		if (a->role[r] == m)
			return true;
	return false;
}

static bool is_target(const struct rebuild_target *t, int n, const struct member *m)
{
	int i;

	for (i = 0; i < n; i++)
		if (t[i].m == m)
			return true;
	return false;
}

/* Device numbers a new target must not take (md tells members apart by
 * them): the array's members', and those of the targets that keep theirs
 * or chose before self.  Returns how many, in taken. */
static int taken_numbers(const struct array *a, const struct rebuild_target *t, int n,
			 const struct rebuild_target *self, int *taken)
{
	int i, k = 0;

	for (i = 0; i < a->nmembers; i++) {
		const struct member *m = &a->members[i];

		if (m->has_sb && m->state != MEMBER_FOREIGN && !is_target(t, n, m))
			taken[k++] = m->sb.dev_number;
	}
	for (i = 0; i < n; i++)
		if (&t[i] != self && (t[i].readd || &t[i] < self))
			taken[k++] = t[i].m->sb.dev_number;
	return k;
}

uint64_t rebuild_min_size(const struct array *a)
{
	uint64_t need = a->geo.level == MD_LEVEL_RAID10 ? a->geo.dev_sectors : a->ref->size;

	return ops(a)->joiner_min_sectors(a->ref, need) * 512;
}

static int check_fits(const struct array *a, const struct rebuild_target *t, struct diag *d)
{
	uint64_t have = t->m->dev.size;

	if (have / 512 >= rebuild_min_size(a) / 512 &&
	    ops(a)->joiner_room(a->ref, have / 512) >= a->ref->size)
		return 0;
	return diag_fail(d, "%s: %llu bytes, too small for role %d: it needs %llu bytes",
			 t->m->path, (unsigned long long)have, t->role,
			 (unsigned long long)rebuild_min_size(a));
}

/* A target's superblock: the array's (freshest) one with this device's
 * identity and placement, as its version records a member being rebuilt. */
static int build_target(const struct array *a, struct rebuild_target *all, int n,
			struct rebuild_target *t, struct diag *d)
{
	int taken[a->nmembers + n + 1];
	struct super_joiner j = {
		.path = t->m->path, .role = t->role, .readd = t->readd, .replaces = t->replaces != NULL,
		.resume = t->resume, .bitmap = t->bitmap,
		.dev_sectors = t->m->dev.size / 512, .taken = taken,
	};

	j.ntaken = taken_numbers(a, all, n, t, taken);
	return ops(a)->replacement(&t->m->sb, a->ref, &j, d);
}

/* The member whose write-intent bitmap a new member gets: the first in
 * sync; NULL when the array keeps none. */
static const struct member *bitmap_source(const struct array *a)
{
	const struct member *src = NULL;
	int i;

	for (i = 0; i < a->ref->raid_disks && !src; i++)
		src = a->role[i];
	return a->ref->feature_map & SB1_FEAT_BITMAP_OFFSET ? src : NULL;
}

/* A re-added member keeps its device number, so no other member of the
 * array may claim it: the tables would list two devices as one. */
static int check_number(const struct array *a, const struct rebuild_target *t, struct diag *d)
{
	int i;

	if (!t->readd)
		return 0;
	for (i = 0; i < a->nmembers; i++) {
		const struct member *m = &a->members[i];

		if (m != t->m && m->has_sb && m->state != MEMBER_FOREIGN && m->state != MEMBER_INVALID &&
		    m->sb.dev_number == t->m->sb.dev_number)
			return diag_fail(d, "%s: its device number %d is %s's too; it cannot be re-added as itself",
					 t->m->path, t->m->sb.dev_number, m->path);
	}
	return 0;
}

/* md records a replacement beside the member it replaces only in 1.x
 * superblocks. */
static int check_recordable(const struct array *a, const struct rebuild_target *t, struct diag *d)
{
	if (!t->replaces || ops(a)->record_replacement)
		return 0;
	return diag_fail(d, "%s: %s superblocks cannot record a replacement beside the member it replaces; rebuild role %d instead",
			 t->replaces->path, ops(a)->label, t->role);
}

int recovery_check(const struct array *a, const struct rebuild_target *t, int n, struct diag *d)
{
	const struct member *src = bitmap_source(a);
	struct md_bitmap bm;
	bool copies = false;
	int i;

	if (array_check_readable(a, d) < 0)
		return -1;
	for (i = 0; i < n; i++) {
		if (check_fits(a, &t[i], d) < 0 || check_number(a, &t[i], d) < 0 ||
		    check_recordable(a, &t[i], d) < 0)
			return -1;
		copies |= !t[i].readd;
	}
	if (src && copies && bitmap_read((struct dev *)&src->dev, &src->sb, &bm, d) < 0)
		return -1;
	return 0;
}

/* Records in sb that each target holds its role: a replacement, until
 * done, beside the member it replaces; done, in its place, that member
 * faulty. */
static void record_roles(const struct array *a, struct md_super *sb, const struct rebuild_target *t,
			 int n, bool done)
{
	int i;

	for (i = 0; i < n; i++) {
		if (!t[i].replaces) {
			ops(a)->record_role(sb, &t[i].m->sb, t[i].role);
		} else if (!done) {
			ops(a)->record_replacement(sb, &t[i].m->sb, t[i].role);
		} else {
			ops(a)->record_role(sb, &t[i].m->sb, t[i].role);
			ops(a)->record_faulty(sb, &t[i].replaces->sb);
		}
	}
}

static bool is_replaced(const struct rebuild_target *t, int n, const struct member *m)
{
	int i;

	for (i = 0; i < n; i++)
		if (t[i].replaces == m)
			return true;
	return false;
}

/* Roles that neither a member nor a target holds after the rebuild. */
static bool roles_left_missing(const struct array *a, const struct rebuild_target *t, int n)
{
	int r, i;

	for (r = 0; r < a->ref->raid_disks; r++) {
		for (i = 0; i < n && t[i].role != r; i++)
			;
		if (!a->role[r] && i == n)
			return true;
	}
	return false;
}

static bool target_number(const struct rebuild_target *t, int n, int number)
{
	int i;

	for (i = 0; i < n; i++)
		if (t[i].m->sb.dev_number == number)
			return true;
	return false;
}

/* Records in the survivors' and the targets' superblocks that the device
 * numbers md would not run with are gone (super_keep_devices): otherwise
 * mdadm counts a missing role as active and does not start the array
 * without --run.  Each target keeps its own number; the survivors keep
 * the targets' only once they count (1.x roles, or a finished rebuild). */
static void record_gone(struct array *a, struct rebuild_target *t, int n, bool survivors_list_targets)
{
	int found[a->nmembers + 1], present[a->nmembers + n + 1];
	int nfound = array_present_numbers(a, found), np = 0, i;

	/* a spare taken as a target is already among the present */
	for (i = 0; i < nfound; i++)
		if (!target_number(t, n, found[i]))
			present[np++] = found[i];
	for (i = 0; i < n; i++)
		present[np + i] = t[i].m->sb.dev_number;
	for (i = 0; i < a->nmembers; i++)
		if (role_holder(a, &a->members[i]))
			super_keep_devices(&a->members[i].sb, present, survivors_list_targets ? np + n : np);
	for (i = 0; i < n; i++) {
		if (survivors_list_targets) {
			super_keep_devices(&t[i].m->sb, present, np + n);
		} else {
			present[np] = t[i].m->sb.dev_number;
			super_keep_devices(&t[i].m->sb, present, np + 1);
		}
	}
}

/* With its bitmap first, as md writes them. */
static int write_member(struct array *a, struct member *m, uint64_t events, uint64_t now, struct diag *d)
{
	super_set_state(&m->sb, events, !a->dirty, now);
	if (intent_stamp(a, m, events, d) < 0)
		return -1;
	return super_write(&m->dev, &m->sb, d);
}

/* Gives every survivor the new events and, with record, the targets' roles
 * (done: the rebuild's end, when md no longer writes a member replaced). */
static int update_survivors(struct array *a, struct rebuild_target *t, int n, uint64_t events,
			    bool record, bool done, struct diag *d)
{
	uint64_t now = (uint64_t)time(NULL);
	int i;

	for (i = 0; i < a->nmembers; i++) {
		struct member *m = &a->members[i];

		if (!role_holder(a, m) || (done && is_replaced(t, n, m)))
			continue;
		if (!m->dev.writable)
			return diag_fail(d, "%s: opened read-only, cannot record the rebuild", m->path);
		if (record)
			record_roles(a, &m->sb, t, n, false);
		if (write_member(a, m, events, now, d) < 0)
			return -1;
	}
	return 0;
}

int recovery_begin(struct array *a, struct rebuild_target *t, int n, struct diag *d)
{
	uint64_t events = 0, now = (uint64_t)time(NULL);
	bool tracks = ops(a)->tracks_recovery;
	int i;

	if (recovery_check(a, t, n, d) < 0 || array_next_events(a, &events, d) < 0 || intent_open(a, d) < 0)
		return -1;
	for (i = 0; i < n; i++)
		if (build_target(a, t, n, &t[i], d) < 0)
			return -1;
	/* md writes every superblock as its recovery starts: a version that
	 * records a recovery lists the targets in their roles; 0.90 lists
	 * them as spares only, in tables recounted */
	if (!tracks || roles_left_missing(a, t, n))
		record_gone(a, t, n, tracks);
	for (i = 0; i < n; i++) {
		if (tracks)
			record_roles(a, &t[i].m->sb, t, n, false);
		if (write_member(a, t[i].m, events, now, d) < 0)
			return -1;
	}
	if (update_survivors(a, t, n, events, tracks, false, d) < 0)
		return -1;
	a->events = events;
	return 0;
}

int recovery_checkpoint(struct array *a, struct rebuild_target *t, int n, uint64_t done,
			struct diag *d)
{
	int i;

	for (i = 0; i < n; i++) {
		if (dev_sync(&t[i].m->dev, d) < 0)
			return -1;
		if (!ops(a)->checkpoint(&t[i].m->sb, done))
			continue;
		super_seal(&t[i].m->sb);
		if (super_write(&t[i].m->dev, &t[i].m->sb, d) < 0)
			return -1;
	}
	return 0;
}

int recovery_finish(struct array *a, struct rebuild_target *t, int n, struct diag *d)
{
	uint64_t events = 0, now = (uint64_t)time(NULL);
	int i;

	if (array_next_events(a, &events, d) < 0)
		return -1;

	for (i = 0; i < n; i++) {
		struct md_super *sb = &t[i].m->sb;

		if (dev_sync(&t[i].m->dev, d) < 0)
			return -1;
		ops(a)->recovered(sb, a->ref, t[i].role);
		if (badblocks_write(&t[i].m->dev, sb, t[i].bad, t[i].nbad, d) < 0)
			return -1;
	}
	/* every member's table shows the targets in sync */
	for (i = 0; i < a->nmembers; i++)
		if (role_holder(a, &a->members[i]) || is_target(t, n, &a->members[i]))
			record_roles(a, &a->members[i].sb, t, n, true);
	/* a role still missing is recorded gone, as md's recovery leaves it;
	 * 0.90's counters are recounted from the tables */
	if (!ops(a)->tracks_recovery || roles_left_missing(a, t, n))
		record_gone(a, t, n, true);
	/* whole again: md's recovery leaves no bit set behind it; one from
	 * the bitmap leaves events_cleared where the writes left it, as md's
	 * re-add does (tests/md/t9610) */
	if (!roles_left_missing(a, t, n) && !a->dirty) {
		if (t[0].bitmap)
			intent_clear_bits(a);
		else
			intent_clear(a, events);
	}
	for (i = 0; i < n; i++)
		if (write_member(a, t[i].m, events, now, d) < 0)
			return -1;
	if (update_survivors(a, t, n, events, false, true, d) < 0)
		return -1;
	a->events = events;
	return 0;
}

void rebuild_target_free(struct rebuild_target *t)
{
	free(t->bad);
	t->bad = NULL;
	t->nbad = t->capbad = 0;
}
