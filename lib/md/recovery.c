/* recovery: superblocks through a rebuild, the way md's recovery leaves
 * them: a replacement joins with its own device number and UUID and
 * feature RECOVERY_OFFSET, checkpoints move recovery_offset, and the end
 * clears it and brings every member to the same events. */
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "md/bitmap.h"
#include "util/endian.h"
#include "md/recovery.h"

#define BBLOG_MAX_LEN 512            /* sectors per entry, as the kernel writes them */
#define BBLOG_DEFAULT_SECTORS 8

static bool role_holder(const struct array *a, const struct member *m)
{
	return m->state == MEMBER_ACTIVE && a->role[m->sb.role] == m;
}

static bool is_target(const struct rebuild_target *t, int n, const struct member *m)
{
	int i;

	for (i = 0; i < n; i++)
		if (t[i].m == m)
			return true;
	return false;
}

/* A device number no member of the array uses, nor another target: md
 * tells members apart by it. */
static int free_dev_number(const struct array *a, const struct rebuild_target *t, int n,
			   const struct rebuild_target *self)
{
	const struct sb1 *ref = &a->ref->raw.v1;
	uint32_t k;
	int i;
	bool used;

	for (k = 0; k < ref->max_dev; k++) {
		used = ref->dev_roles[k] < SB1_ROLE_MAX;
		for (i = 0; !used && i < a->nmembers; i++) {
			const struct member *m = &a->members[i];

			used = m->has_sb && m->state != MEMBER_FOREIGN && m->sb.dev_number == (int)k &&
			       !is_target(t, n, m);
		}
		for (i = 0; !used && i < n; i++)
			used = &t[i] != self && t[i].m->sb.dev_number == (int)k &&
			       (t[i].readd || &t[i] < self);
		if (!used)
			return (int)k;
	}
	return -1;
}

/* Where a 1.0 superblock goes on this device, and the data it leaves room
 * for (mdadm: the bad-block log and bitmap room sit just below it). */
static uint64_t sb10_offset(uint64_t dev_sectors)
{
	return (dev_sectors - 16) & ~(uint64_t)7;
}

/* Sectors a replacement of dev_sectors offers for data under this array's
 * metadata, as the target's superblock will describe it. */
static uint64_t target_data_sectors(const struct array *a, uint64_t dev_sectors)
{
	const struct md_super *ref = a->ref;

	if (ref->major == 0)
		return dev_sectors < 256 ? 0 : sb0_location(dev_sectors);
	if (ref->minor == 0) {
		uint64_t off = dev_sectors >= 16 ? sb10_offset(dev_sectors) : 0;

		return off > BBLOG_DEFAULT_SECTORS ? off - BBLOG_DEFAULT_SECTORS : 0;
	}
	return dev_sectors > ref->data_offset ? dev_sectors - ref->data_offset : 0;
}

uint64_t rebuild_min_size(const struct array *a)
{
	const struct md_super *ref = a->ref;
	uint64_t need = a->geo.level == MD_LEVEL_RAID10 ? a->geo.dev_sectors : ref->size;

	if (ref->major == 0)
		return (need + 128 + 127) / 128 * 128 * 512;
	if (ref->minor == 0)
		return ((need + BBLOG_DEFAULT_SECTORS + 16 + 7) & ~(uint64_t)7) * 512;
	return (ref->data_offset + need) * 512;
}

static int check_fits(const struct array *a, const struct rebuild_target *t, struct diag *d)
{
	uint64_t have = t->m->dev.size;

	if (have / 512 >= rebuild_min_size(a) / 512 &&
	    target_data_sectors(a, have / 512) >= a->ref->size)
		return 0;
	return diag_fail(d, "%s: %llu bytes, too small for role %d: it needs %llu bytes",
			 t->m->path, (unsigned long long)have, t->role,
			 (unsigned long long)rebuild_min_size(a));
}

/* The 1.x superblock of a target: the array's (freshest) superblock with
 * this device's identity and placement. */
static int build_sb1(const struct array *a, struct rebuild_target *all, int n,
		     struct rebuild_target *t, struct diag *d)
{
	struct md_super *sb = &t->m->sb;
	struct sb1 own = sb->raw.v1, *r = &sb->raw.v1;
	uint64_t dev = t->m->dev.size / 512;
	int number;

	*r = a->ref->raw.v1;
	r->feature_map &= ~(uint32_t)(SB1_FEAT_BAD_BLOCKS | SB1_FEAT_REPLACEMENT);
	r->feature_map |= SB1_FEAT_RECOVERY_OFFSET;
	r->recovery_offset = t->resume;
	r->cnt_corrected_read = 0;
	r->devflags = 0;
	if (t->readd) {
		r->dev_number = own.dev_number;
		memcpy(r->device_uuid, own.device_uuid, 16);
		r->super_offset = own.super_offset;
		r->data_offset = own.data_offset;
		r->data_size = own.data_size;
		r->bblog_shift = own.bblog_shift;
		r->bblog_size = own.bblog_size;
		r->bblog_offset = own.bblog_offset;
	} else {
		number = free_dev_number(a, all, n, t);
		if (number < 0)
			return diag_fail(d, "%s: every one of the array's %u device numbers is taken",
					 t->m->path, r->max_dev);
		r->dev_number = (uint32_t)number;
		if (getrandom(r->device_uuid, 16, 0) != 16)
			return diag_fail(d, "%s: no random numbers for a device UUID", t->m->path);
		if (a->ref->minor == 0) {
			/* the same room between data and superblock as the
			 * array's own members (bitmap and bad-block log) */
			uint64_t gap = a->ref->raw.v1.super_offset - a->ref->raw.v1.data_size;

			r->super_offset = sb10_offset(dev);
			r->data_offset = 0;
			r->data_size = r->super_offset > gap ? r->super_offset - gap : 0;
			r->bblog_shift = 0;
			r->bblog_size = BBLOG_DEFAULT_SECTORS;
			r->bblog_offset = (uint32_t)-BBLOG_DEFAULT_SECTORS;
		} else {
			r->super_offset = a->ref->raw.v1.super_offset;
			r->data_size = dev - r->data_offset;
		}
	}
	if (r->data_size < r->size)
		return diag_fail(d, "%s: data area of %llu sectors, the array needs %llu",
				 t->m->path, (unsigned long long)r->data_size, (unsigned long long)r->size);
	sb->major = 1;
	sb->minor = a->ref->minor;
	sb->sb_sector = r->super_offset;
	sb->dev_sectors = dev;
	super_refresh(sb);
	return 0;
}

/* 0.90 has no recovery offset: the target is written as a spare of the
 * array, which md (and stripe) rebuild from scratch, until the end. */
static int build_sb0(const struct array *a, struct rebuild_target *t, bool in_sync)
{
	struct md_super *sb = &t->m->sb;
	struct sb0 *r = &sb->raw.v0;
	int k, slot = -1;
	uint32_t *e;

	*r = a->ref->raw.v0;
	/* the role's own descriptor: mdadm numbers a 0.90 array's disks by role */
	for (k = 0; k < SB0_DISKS && slot < 0; k++)
		if ((int)r->w[SB0_DISKS_BASE + 32 * k + SB0_D_RAID_DISK] == t->role)
			slot = k;
	if (slot < 0)
		slot = t->role;
	t->m->sb.dev_number = slot;
	e = &r->w[SB0_DISKS_BASE + 32 * slot];
	e[SB0_D_NUMBER] = (uint32_t)slot;
	e[SB0_D_MAJOR] = e[SB0_D_MINOR] = 0;
	e[SB0_D_RAID_DISK] = (uint32_t)t->role;
	e[SB0_D_STATE] = in_sync ? (1u << SB0_DS_ACTIVE | 1u << SB0_DS_SYNC) : 0;
	memcpy(&r->w[SB0_THIS_DISK], e, 32 * sizeof(uint32_t));
	sb->major = 0;
	sb->minor = 90;
	sb->dev_sectors = t->m->dev.size / 512;
	sb->sb_sector = sb0_location(sb->dev_sectors);
	super_refresh(sb);
	return 0;
}

/* Copies the array's write-intent bitmap onto a target, so md finds one
 * where the superblock says. */
static int copy_bitmap(const struct array *a, struct rebuild_target *t, struct diag *d)
{
	const struct member *src = NULL;
	struct md_bitmap bm;
	uint64_t bytes;
	uint8_t *buf;
	int i, rc;

	for (i = 0; i < a->ref->raid_disks && !src; i++)
		src = a->role[i];
	if (!src || !(a->ref->feature_map & SB1_FEAT_BITMAP_OFFSET) || t->readd)
		return 0;
	rc = bitmap_read((struct dev *)&src->dev, &src->sb, &bm, d);
	if (rc)
		return rc < 0 ? -1 : 0;
	bytes = (256 + (bm.bits + 7) / 8 + 511) / 512 * 512;
	buf = dev_alloc(bytes);
	rc = dev_read((struct dev *)&src->dev, buf, bytes, bm.sector * 512, d);
	if (rc == 0)
		rc = dev_write(&t->m->dev, buf, bytes,
			       (t->m->sb.sb_sector + (uint64_t)(int64_t)t->m->sb.bitmap_offset) * 512, d);
	free(buf);
	return rc;
}

/* The survivors' (and targets') 1.x role table: each target's number holds
 * its role; a number that held the role before and left is free again. */
static void set_roles(struct sb1 *r, const struct rebuild_target *t, int n)
{
	uint32_t k;
	int i;

	for (i = 0; i < n; i++) {
		for (k = 0; k < r->max_dev; k++)
			if (r->dev_roles[k] == t[i].role && k != t[i].m->sb.raw.v1.dev_number)
				r->dev_roles[k] = SB1_ROLE_SPARE;
		r->dev_roles[t[i].m->sb.raw.v1.dev_number] = (uint16_t)t[i].role;
	}
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

static int write_member(struct member *m, uint64_t events, bool clean, uint64_t now, struct diag *d)
{
	super_set_state(&m->sb, events, clean, now);
	return super_write(&m->dev, &m->sb, d);
}

/* Gives every survivor the role table of the targets and the new events. */
static int update_survivors(struct array *a, struct rebuild_target *t, int n, uint64_t events,
			    struct diag *d)
{
	uint64_t now = (uint64_t)time(NULL);
	int i;

	for (i = 0; i < a->nmembers; i++) {
		struct member *m = &a->members[i];

		if (!role_holder(a, m))
			continue;
		if (!m->dev.writable)
			return diag_fail(d, "%s: opened read-only, cannot record the rebuild", m->path);
		if (m->sb.major == 1)
			set_roles(&m->sb.raw.v1, t, n);
		if (write_member(m, events, !a->dirty, now, d) < 0)
			return -1;
	}
	return 0;
}

int recovery_begin(struct array *a, struct rebuild_target *t, int n, struct diag *d)
{
	uint64_t events = a->events + 1, now = (uint64_t)time(NULL);
	int i;

	for (i = 0; i < n; i++) {
		if (check_fits(a, &t[i], d) < 0)
			return -1;
		if (a->ref->major == 1 ? build_sb1(a, t, n, &t[i], d) < 0 : build_sb0(a, &t[i], false) < 0)
			return -1;
	}
	/* md writes every superblock as its recovery starts: 0.90 tables
	 * then list the targets as spares only, 1.x keeps their roles */
	if (a->ref->major == 0 || roles_left_missing(a, t, n))
		record_gone(a, t, n, a->ref->major == 1);
	for (i = 0; i < n; i++) {
		if (a->ref->major == 1)
			set_roles(&t[i].m->sb.raw.v1, t, n);
		if (copy_bitmap(a, &t[i], d) < 0 || write_member(t[i].m, events, !a->dirty, now, d) < 0)
			return -1;
	}
	if (update_survivors(a, t, n, events, d) < 0)
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
		if (t[i].m->sb.major != 1)
			continue;
		t[i].m->sb.raw.v1.recovery_offset = done;
		super_seal(&t[i].m->sb);
		if (super_write(&t[i].m->dev, &t[i].m->sb, d) < 0)
			return -1;
	}
	return 0;
}

/* md's on-disk bad-block list: (sector << 10 | length) little-endian,
 * lengths of at most 512 sectors, then all-ones filler. */
static int write_bblog(struct rebuild_target *t, struct diag *d)
{
	struct sb1 *r = &t->m->sb.raw.v1;
	size_t bytes = (size_t)r->bblog_size * 512, cap = bytes / 8, k = 0;
	uint64_t at = (t->m->sb.sb_sector + (uint64_t)(int64_t)(int32_t)r->bblog_offset) * 512;
	uint8_t *buf;
	int i, rc;

	if (!t->nbad)
		return 0;
	if (!r->bblog_size || !r->bblog_offset)
		return diag_fail(d, "%s: %d unrecoverable ranges, and the superblock has no bad-block log to record them",
				 t->m->path, t->nbad);
	buf = dev_alloc(bytes);
	memset(buf, 0xff, bytes);
	for (i = 0; i < t->nbad; i++) {
		uint64_t s = t->bad[i].start, left = t->bad[i].len;

		while (left && k < cap) {
			uint64_t len = left < BBLOG_MAX_LEN ? left : BBLOG_MAX_LEN;

			put_le64(buf + 8 * k++, s << 10 | len);
			s += len;
			left -= len;
		}
		if (left) {
			free(buf);
			return diag_fail(d, "%s: the bad-block log holds %zu entries, too few for the unrecoverable ranges",
					 t->m->path, cap);
		}
	}
	rc = dev_write(&t->m->dev, buf, bytes, at, d);
	free(buf);
	r->feature_map |= SB1_FEAT_BAD_BLOCKS;
	return rc;
}

int recovery_finish(struct array *a, struct rebuild_target *t, int n, struct diag *d)
{
	uint64_t events = a->events + 1, now = (uint64_t)time(NULL);
	int i;

	for (i = 0; i < n; i++) {
		struct md_super *sb = &t[i].m->sb;

		if (dev_sync(&t[i].m->dev, d) < 0)
			return -1;
		if (sb->major == 1) {
			sb->raw.v1.feature_map &= ~(uint32_t)SB1_FEAT_RECOVERY_OFFSET;
			sb->raw.v1.recovery_offset = 0;
			if (write_bblog(&t[i], d) < 0)
				return -1;
		} else {
			build_sb0(a, &t[i], true);
		}
	}
	/* 0.90 keeps every member's view of every disk: mark the targets in
	 * sync in everyone's table. */
	for (i = 0; a->ref->major == 0 && i < a->nmembers; i++) {
		struct member *m = &a->members[i];
		int j;

		if (!role_holder(a, m) && !is_target(t, n, m))
			continue;
		for (j = 0; j < n; j++)
			memcpy(&m->sb.raw.v0.w[SB0_DISKS_BASE + 32 * t[j].m->sb.dev_number],
			       &t[j].m->sb.raw.v0.w[SB0_THIS_DISK], 32 * sizeof(uint32_t));
	}
	/* a role still missing is recorded gone, as md's recovery leaves it;
	 * 0.90's counters are recounted from the tables */
	if (a->ref->major == 0 || roles_left_missing(a, t, n))
		record_gone(a, t, n, true);
	for (i = 0; i < n; i++)
		if (write_member(t[i].m, events, !a->dirty, now, d) < 0)
			return -1;
	if (update_survivors(a, t, n, events, d) < 0)
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
