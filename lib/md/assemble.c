/* assemble: from member paths in any order, the array md would start:
 * group by UUID, take the freshest superblock, place members by role,
 * classify the rest (md.c analyze_sbs, super_1_validate). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "md/array.h"
#include "md/badblocks.h"
#include "md/intent.h"

const char *member_state_name(enum member_state s)
{
	static const char *const names[] = {
		[MEMBER_ACTIVE] = "active", [MEMBER_REBUILDING] = "rebuilding",
		[MEMBER_SPARE] = "spare", [MEMBER_FAULTY] = "faulty", [MEMBER_STALE] = "stale",
		[MEMBER_DUPLICATE] = "duplicate", [MEMBER_FOREIGN] = "foreign",
		[MEMBER_INVALID] = "invalid",
	};
	return names[s];
}

const char *array_state_word(const struct array *a)
{
	if (a->state != ARRAY_CLEAN)
		return a->state == ARRAY_DEGRADED ? "degraded" : "failed";
	return a->dirty ? "active" : "clean";
}

void array_md_state(const struct array *a, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s", a->dirty ? "active" : "clean",
		 a->state == ARRAY_FAILED ? ", FAILED" : a->state == ARRAY_DEGRADED ? ", degraded" : "");
}

/* md never reads what a member's bad-block log names: it serves those
 * sectors from redundancy.  The ranges in the data area become the
 * device's unreadable ones, for every reader.  A log that cannot be read
 * leaves nothing unreadable here; stripe-examine says why. */
static void never_read_logged(struct member *m)
{
	uint64_t lo = m->sb.data_offset, hi = m->sb.data_offset + m->sb.data_size;
	struct dev_range *r;
	struct badblocks bb;
	struct diag d;
	int i, n = 0;

	if (badblocks_read(&m->dev, &m->sb, &bb, &d) != 0)
		return;
	r = calloc((size_t)(bb.count ? bb.count : 1), sizeof(*r));
	for (i = 0; r && i < bb.count; i++) {
		uint64_t s = bb.ranges[i].start, e = s + bb.ranges[i].len;

		if (e < s)
			e = hi;
		if (s < lo)
			s = lo;
		if (e > hi)
			e = hi;
		if (s < e)
			r[n++] = (struct dev_range){ s * 512, (e - s) * 512 };
	}
	if (r && n)
		(void)dev_set_logged(&m->dev, r, n, &d);
	free(r);
	badblocks_free(&bb);
}

static void load_member(struct member *m, const char *path, enum dev_mode mode)
{
	struct diag d;

	m->path = strdup(path);
	m->dev.fd = -1;
	if (!m->path || dev_open(&m->dev, path, mode, &d) < 0 ||
	    super_load(&m->dev, &m->sb, &d) < 0) {
		m->state = MEMBER_INVALID;
		snprintf(m->reason, sizeof(m->reason), "%s", m->path ? d.msg : "out of memory");
		return;
	}
	m->has_sb = true;
	never_read_logged(m);
}

/* Picks the UUID most members share; a tie between arrays is refused
 * rather than guessed.  Returns the index of a member of that array. */
static int pick_array(struct array *a, struct diag *d)
{
	int best = -1, best_n = 0, tie = -1, i, j;

	for (i = 0; i < a->nmembers; i++) {
		int n = 0;

		if (!a->members[i].has_sb)
			continue;
		for (j = 0; j < a->nmembers; j++)
			n += a->members[j].has_sb && super_same_array(&a->members[i].sb, &a->members[j].sb);
		if (n > best_n) {
			best = i;
			best_n = n;
			tie = -1;
		} else if (n == best_n && !super_same_array(&a->members[i].sb, &a->members[best].sb)) {
			tie = i;
		}
	}
	if (best < 0)
		return diag_fail(d, "%s: no member has a usable md superblock", a->members[0].path);
	if (tie >= 0) {
		char u1[36], u2[36];

		super_uuid_str(a->members[best].sb.uuid, u1);
		super_uuid_str(a->members[tie].sb.uuid, u2);
		return diag_fail(d, "%s and %s: members of different arrays (UUID %s and %s) in equal numbers; name the members of one array",
				 a->members[best].path, a->members[tie].path, u1, u2);
	}
	return best;
}

static int freshest(const struct array *a, int any)
{
	int best = any, i;

	for (i = 0; i < a->nmembers; i++) {
		const struct member *m = &a->members[i];

		if (m->has_sb && m->state != MEMBER_FOREIGN && m->sb.events > a->members[best].sb.events)
			best = i;
	}
	return best;
}

/* md adds one to events at every change of the array's state; 2^64-1
 * is never reached by counting, only by a damaged or hostile superblock. */
#define EVENTS_LIMIT UINT64_MAX

/* Decides one member's state against the array's freshest member (whose
 * events are at least the member's: no sum that could wrap). */
static void classify(struct member *m, const struct member *fresh)
{
	const struct md_super *ref = &fresh->sb;
	int own = m->sb.role, seen = super_role_of(ref, m->sb.dev_number);

	if (ref->events - m->sb.events > 1 && own >= 0 && ref->events == EVENTS_LIMIT) {
		/* behind a count md never reaches: the freshest may be the damaged one */
		m->state = MEMBER_STALE;
		snprintf(m->reason, sizeof(m->reason),
			 "stale: events %llu, behind %s, whose events are at their limit (2^64-1), a count md never reaches; if its superblock is damaged, name the members without it",
			 (unsigned long long)m->sb.events, fresh->path);
	} else if (ref->events - m->sb.events > 1 && own >= 0) {
		m->state = MEMBER_STALE;
		snprintf(m->reason, sizeof(m->reason),
			 "stale: events %llu, the array is at %llu (role %d was given up while it was away)",
			 (unsigned long long)m->sb.events, (unsigned long long)ref->events, own);
	} else if (own == ROLE_FAULTY || (own >= 0 && seen == ROLE_FAULTY)) {
		m->state = MEMBER_FAULTY;
		snprintf(m->reason, sizeof(m->reason), "faulty: the array marked device %d failed",
			 m->sb.dev_number);
	} else if (own < 0 || own >= ref->raid_disks) {
		m->state = MEMBER_SPARE;
		snprintf(m->reason, sizeof(m->reason), "spare: holds no role");
	} else if (m->sb.major == 1 && (m->sb.feature_map & SB1_FEAT_RECOVERY_OFFSET)) {
		m->state = MEMBER_REBUILDING;
		snprintf(m->reason, sizeof(m->reason), "rebuilding: role %d recovered up to sector %llu only",
			 own, (unsigned long long)m->sb.recovery_offset);
	} else {
		m->state = MEMBER_ACTIVE;
	}
}

bool member_reshaping(const struct md_super *s)
{
	return s->major == 1 ? (s->feature_map & SB1_FEAT_RESHAPE_ACTIVE) != 0 : s->minor == 91;
}

/* What stripe does not implement is refused by every tool, not guessed
 * at.  Data in a reshape lies partly in the old geometry and partly in
 * the new one, so no single geometry reads it; the last writes may be in
 * a write journal only; md replays a partial parity log into a dirty
 * array's parity before anything reads it; a cluster's other nodes write
 * while stripe reads, and must see every write. */
static const struct unimplemented {
	uint32_t bit;                /* 1.x feature bit; 0: a reshape in either version */
	const char *name;            /* md's word for it */
	const char *refusal;
} unimplemented[] = {
	{ 0, "reshape", "a reshape is in progress; stripe does not implement reshape" },
	{ SB1_FEAT_JOURNAL, "journal", "the array keeps a write journal; stripe does not implement journals" },
	{ SB1_FEAT_PPL, "ppl", "the array keeps a partial parity log; stripe does not implement partial parity logs" },
	{ SB1_FEAT_CLUSTERED, "clustered", "the array is clustered; stripe does not implement clustered arrays" },
};

#define NUNIMPLEMENTED (sizeof(unimplemented) / sizeof(unimplemented[0]))

static bool has_unimplemented(const struct md_super *s, const struct unimplemented *u)
{
	if (!u->bit)
		return member_reshaping(s);
	return s->major == 1 && (s->feature_map & u->bit);
}

int member_unimplemented(const struct md_super *s, const char **names, int max)
{
	size_t k;
	int n = 0;

	for (k = 0; k < NUNIMPLEMENTED; k++)
		if (has_unimplemented(s, &unimplemented[k]) && n < max)
			names[n++] = unimplemented[k].name;
	return n;
}

static int refuse_unimplemented(const struct array *a, struct diag *d)
{
	size_t k;
	int i;

	for (k = 0; k < NUNIMPLEMENTED; k++) {
		for (i = 0; i < a->nmembers; i++) {
			const struct member *m = &a->members[i];

			if (m->has_sb && m->state != MEMBER_FOREIGN && has_unimplemented(&m->sb, &unimplemented[k]))
				return diag_fail(d, "%s: %s", m->path, unimplemented[k].refusal);
		}
	}
	return 0;
}

/* The sectors a member can give a role: 1.x its data area; 0.90 all
 * below its superblock, as md's super_90_load counts them. */
static uint64_t room_of(const struct md_super *s)
{
	return s->major == 1 ? s->data_size : s->sb_sector;
}

/* md keeps a 1.x member's write-intent bitmap beside its data, where the
 * superblock places it, and will not write one that overlaps the data it
 * uses: those sectors cannot be both, and a repair would write data over
 * the bitmap.  (A bad-block log there is no log: it is shown unreadable
 * and never read, see badblocks.c.) */
static int clear_of_bitmap(const struct member *m, uint64_t used, struct diag *d)
{
	const struct md_super *s = &m->sb;
	uint64_t lo = s->data_offset, hi = s->data_offset + used;
	int64_t bitmap = (int64_t)s->sb_sector + s->bitmap_offset;

	if (s->major == 1 && (s->feature_map & SB1_FEAT_BITMAP_OFFSET) && bitmap >= (int64_t)lo &&
	    bitmap < (int64_t)hi)
		return diag_fail(d, "%s: its write-intent bitmap at sector %lld lies in the data the array uses (sectors %llu to %llu)",
				 m->path, (long long)bitmap, (unsigned long long)lo, (unsigned long long)hi);
	return 0;
}

/* Every member that holds a role must hold the component size the array
 * records: a larger size would read its superblock, or past its end, as
 * data.  (RAID0 uses each member's whole data area.) */
static int check_room(const struct array *a, struct diag *d)
{
	int i;

	for (i = 0; i < a->nmembers; i++) {
		const struct member *m = &a->members[i];
		uint64_t used = a->ref->level == 0 ? m->sb.data_size : a->ref->size;

		if (m->state != MEMBER_ACTIVE && m->state != MEMBER_REBUILDING)
			continue;
		if (a->ref->level != 0 && room_of(&m->sb) < a->ref->size)
			return diag_fail(d, "%s: room for %llu data sectors, less than the component size of %llu the array records",
					 m->path, (unsigned long long)room_of(&m->sb),
					 (unsigned long long)a->ref->size);
		if (clear_of_bitmap(m, used, d) < 0)
			return -1;
	}
	return 0;
}

/* Roles index the array's table: the count is bounded before any member
 * takes its place. */
/* md binds one device to a device number: two holders of roles that claim
 * one number cannot both be the array's. */
static int one_number_each(const struct array *a, struct diag *d)
{
	int i, k;

	for (i = 0; i < a->ref->raid_disks; i++)
		for (k = i + 1; a->role[i] && k < a->ref->raid_disks; k++)
			if (a->role[k] && a->role[k]->sb.dev_number == a->role[i]->sb.dev_number)
				return diag_fail(d, "%s and %s: both claim device number %d", a->role[i]->path,
						 a->role[k]->path, a->role[i]->sb.dev_number);
	return 0;
}

static int place_roles(struct array *a, const char *path, struct diag *d)
{
	int i;

	if (a->ref->raid_disks < 1 || a->ref->raid_disks > ST_MAX_DISKS)
		return diag_fail(d, "%s: %d raid devices; stripe handles 1 to %d", path, a->ref->raid_disks,
				 ST_MAX_DISKS);
	for (i = 0; i < a->nmembers; i++) {
		struct member *m = &a->members[i], *other;
		int r = m->sb.role;

		if (m->state != MEMBER_ACTIVE)
			continue;
		other = a->role[r];
		if (other && other->sb.events == m->sb.events)
			return diag_fail(d, "%s and %s: both claim role %d with events %llu",
					 other->path, m->path, r, (unsigned long long)m->sb.events);
		if (other && other->sb.events > m->sb.events) {
			m->state = MEMBER_DUPLICATE;
			snprintf(m->reason, sizeof(m->reason), "role %d is held by the fresher %s", r, other->path);
			continue;
		}
		if (other) {
			other->state = MEMBER_DUPLICATE;
			snprintf(other->reason, sizeof(other->reason), "role %d is held by the fresher %s", r, m->path);
		}
		a->role[r] = m;
	}
	return one_number_each(a, d);
}

static int setup_geometry(struct array *a, const struct array_options *opt, const char *path, struct diag *d)
{
	const struct md_super *s = a->ref;
	uint64_t sizes[ST_MAX_DISKS];
	int layout = s->layout, i;

	for (i = 0; i < s->raid_disks; i++)
		sizes[i] = a->role[i] ? a->role[i]->sb.data_size : s->data_size;
	if (s->level == 0 && (s->major == 0 || !(s->feature_map & SB1_FEAT_RAID0_LAYOUT)))
		layout = opt && opt->raid0_layout ? opt->raid0_layout : RAID0_LAYOUT_UNSPECIFIED;
	if (geometry_init(&a->geo, s->level, layout, s->raid_disks, s->chunk_sectors, s->size, sizes, d) < 0)
		return diag_prefix(d, "%s", path);
	return 0;
}

int array_open(struct array *a, char *const *paths, int n, const struct array_options *opt, struct diag *d)
{
	enum dev_mode mode = opt ? opt->mode : DEV_READ;
	int i, any, ref;

	memset(a, 0, sizeof(*a));
	if (n < 1)
		return diag_fail(d, "no members given");
	a->members = calloc((size_t)n, sizeof(*a->members));
	if (!a->members)
		return diag_fail(d, "out of memory");
	a->nmembers = n;
	for (i = 0; i < n; i++)
		load_member(&a->members[i], paths[i], mode);
	any = pick_array(a, d);
	if (any < 0)
		return -1;
	for (i = 0; i < n; i++) {
		struct member *m = &a->members[i];

		if (m->has_sb && !super_same_array(&m->sb, &a->members[any].sb)) {
			char u[36];

			super_uuid_str(m->sb.uuid, u);
			m->state = MEMBER_FOREIGN;
			snprintf(m->reason, sizeof(m->reason), "member of another array (UUID %s)", u);
		}
	}
	ref = freshest(a, any);
	a->ref = &a->members[ref].sb;
	a->events = a->ref->events;
	for (i = 0; i < n; i++)
		if (a->members[i].has_sb && a->members[i].state != MEMBER_FOREIGN)
			classify(&a->members[i], &a->members[ref]);
	if (refuse_unimplemented(a, d) < 0 || check_room(a, d) < 0 ||
	    place_roles(a, a->members[ref].path, d) < 0 || setup_geometry(a, opt, a->members[ref].path, d) < 0)
		return -1;
	for (i = 0; i < a->ref->raid_disks; i++)
		a->missing += !a->role[i];
	a->dirty = a->ref->resync_offset != MD_MAX_SECTOR && a->ref->level != 0;
	a->state = a->missing == 0 ? ARRAY_CLEAN
		 : array_check_readable(a, NULL) == 0 ? ARRAY_DEGRADED : ARRAY_FAILED;
	return 0;
}

void array_close(struct array *a)
{
	int i;

	intent_close(a);
	for (i = 0; i < a->nmembers; i++) {
		dev_close(&a->members[i].dev);
		free(a->members[i].path);
	}
	free(a->members);
	memset(a, 0, sizeof(*a));
}

int array_redundancy(const struct geometry *g)
{
	switch (g->level) {
	case 1: return g->raid_disks - 1;
	case 4:
	case 5: return 1;
	case 6: return 2;
	case 10: return g->copies - 1;
	default: return 0;
	}
}

/* raid10: readable when every chunk keeps a copy; the placement repeats
 * within raid_disks * copies chunks, so those are enough to look at. */
static int raid10_lost_chunk(const struct array *a, uint64_t *lost)
{
	struct copy c[ST_MAX_DISKS];
	uint64_t chunk, run, span = (uint64_t)a->geo.raid_disks * (uint64_t)a->geo.copies;
	int i, n;

	for (chunk = 0; chunk < span && chunk * a->geo.chunk_sectors < a->geo.array_sectors; chunk++) {
		bool held = false;

		n = layout_locate(&a->geo, chunk * a->geo.chunk_sectors, c, &run);
		for (i = 0; i < n; i++)
			held |= a->role[c[i].role] != NULL;
		if (!held) {
			*lost = chunk;
			return 1;
		}
	}
	return 0;
}

static const struct member *fresh_member(const struct array *a)
{
	int i;

	for (i = 0; i < a->nmembers; i++)
		if (&a->members[i].sb == a->ref)
			return &a->members[i];
	return &a->members[0];
}

static bool stale_members(const struct array *a)
{
	int i;

	for (i = 0; i < a->nmembers; i++)
		if (a->members[i].state == MEMBER_STALE)
			return true;
	return false;
}

int array_check_readable(const struct array *a, struct diag *d)
{
	char roles[256] = "";
	uint64_t lost;
	size_t len = 0;
	int i, r = a->ref->raid_disks;
	bool ok;

	if (a->missing == 0)
		return 0;
	for (i = 0; i < r && len + 8 < sizeof(roles); i++)
		if (!a->role[i])
			len += (size_t)snprintf(roles + len, sizeof(roles) - len, "%s%d", len ? ", " : "", i);
	if (a->geo.level == 10)
		ok = !raid10_lost_chunk(a, &lost);
	else
		ok = a->missing <= array_redundancy(&a->geo);
	if (ok)
		return 0;
	if (a->ref->events == EVENTS_LIMIT && stale_members(a))
		return diag_fail(d, "%s: events at their limit (2^64-1), a count md never reaches, so role%s %s of the %s array %s left out as stale; %d present, cannot read it; if its superblock is damaged, name the members without it",
				 fresh_member(a)->path, a->missing > 1 ? "s" : "", roles, level_name(a->geo.level),
				 a->missing > 1 ? "are" : "is", r - a->missing);
	return diag_fail(d, "%s: %s array of %d devices is missing role%s %s; %d present, cannot read it",
			 a->members[0].path, level_name(a->geo.level), r, a->missing > 1 ? "s" : "",
			 roles, r - a->missing);
}
