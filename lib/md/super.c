/* super: locate, validate and summarise a member's superblock, for 0.90 and 1.x alike. */
#include <stdio.h>
#include <string.h>

#include "md/super.h"

static void from_sb1(struct md_super *s, const struct sb1 *r)
{
	s->major = 1;
	s->feature_map = r->feature_map;
	memcpy(s->uuid, r->set_uuid, 16);
	memcpy(s->name, r->set_name, 32);
	s->name[32] = 0;
	s->ctime = r->ctime & 0xffffffffffULL;
	s->utime = r->utime & 0xffffffffffULL;
	s->level = (int32_t)r->level;
	s->layout = (int32_t)r->layout;
	s->size = r->size;
	s->chunk_sectors = r->chunksize;
	s->raid_disks = (int)r->raid_disks;
	s->data_offset = r->data_offset;
	s->data_size = r->data_size;
	s->recovery_offset = r->recovery_offset;
	s->resync_offset = r->resync_offset;
	s->dev_number = (int)r->dev_number;
	s->role = super_role_of(s, s->dev_number);
	memcpy(s->device_uuid, r->device_uuid, 16);
	s->events = r->events;
	s->csum_stored = r->sb_csum;
	s->csum_computed = sb1_csum(r);
	s->bitmap_offset = (int32_t)r->bitmap_offset;
}

static void uuid_word(uint8_t *p, uint32_t w)
{
	/* mdadm prints 0.90 UUID words as host-order numbers; keep them in
	 * that order big-endian so printing bytes in sequence matches. */
	p[0] = (uint8_t)(w >> 24);
	p[1] = (uint8_t)(w >> 16);
	p[2] = (uint8_t)(w >> 8);
	p[3] = (uint8_t)w;
}

static int sb0_role(const struct sb0 *r, int n)
{
	uint32_t state = sb0_disk(r, n, SB0_D_STATE);

	if (state & (1u << SB0_DS_FAULTY))
		return ROLE_FAULTY;
	if (!(state & (1u << SB0_DS_SYNC)) || (state & (1u << SB0_DS_REMOVED)))
		return ROLE_SPARE;
	return (int)sb0_disk(r, n, SB0_D_RAID_DISK);
}

static void from_sb0(struct md_super *s, const struct sb0 *r)
{
	const uint32_t *w = r->w;

	s->major = 0;
	s->feature_map = (w[SB0_STATE] & (1u << SB0_ST_BITMAP)) ? SB1_FEAT_BITMAP_OFFSET : 0;
	uuid_word(s->uuid, w[SB0_UUID0]);
	uuid_word(s->uuid + 4, w[SB0_UUID1]);
	uuid_word(s->uuid + 8, w[SB0_UUID2]);
	uuid_word(s->uuid + 12, w[SB0_UUID3]);
	s->ctime = w[SB0_CTIME];
	s->utime = w[SB0_UTIME];
	s->level = (int32_t)w[SB0_LEVEL];
	s->layout = (int32_t)w[SB0_LAYOUT];
	s->size = (uint64_t)w[SB0_SIZE] * 2;
	s->chunk_sectors = w[SB0_CHUNK] / 512;
	s->raid_disks = (int)w[SB0_RAID_DISKS];
	s->data_offset = 0;
	/* raid0 uses everything up to the superblock; others their component size */
	s->data_size = s->level == 0 ? s->sb_sector : s->size;
	s->recovery_offset = 0;
	s->resync_offset = (w[SB0_STATE] & (1u << SB0_ST_CLEAN)) ? MD_MAX_SECTOR : w[SB0_RECOVERY_CP];
	s->dev_number = (int)sb0_disk(r, -1, SB0_D_NUMBER);
	s->role = sb0_role(r, -1);
	s->events = sb0_events(r);
	s->csum_stored = w[SB0_CSUM];
	s->csum_computed = sb0_csum(r);
	s->bitmap_offset = s->feature_map ? 8 : 0;
}

int super_role_of(const struct md_super *sb, int dev_number)
{
	if (sb->major == 0)
		return dev_number >= 0 && dev_number < SB0_DISKS ? sb0_role(&sb->raw.v0, dev_number) : ROLE_SPARE;
	if (dev_number < 0 || (uint32_t)dev_number >= sb->raw.v1.max_dev)
		return ROLE_SPARE;
	switch (sb->raw.v1.dev_roles[dev_number]) {
	case SB1_ROLE_FAULTY: return ROLE_FAULTY;
	case SB1_ROLE_JOURNAL: return ROLE_JOURNAL;
	default:
		if (sb->raw.v1.dev_roles[dev_number] >= SB1_ROLE_MAX)
			return ROLE_SPARE;
		return sb->raw.v1.dev_roles[dev_number];
	}
}

static int read_block(struct dev *dv, uint64_t sector, uint8_t *buf, struct diag *d)
{
	if ((sector + 8) * 512 > dv->size)
		return diag_fail(d, "%s: too small for a superblock at sector %llu (%llu bytes)",
				 dv->path, (unsigned long long)sector, (unsigned long long)dv->size);
	return dev_read(dv, buf, 4096, sector * 512, d);
}

/* Tries v1.minor; returns 1 if no v1 superblock is there, 0 if one was
 * loaded, -1 if one is there but broken. */
static int try_v1(struct dev *dv, int minor, struct md_super *sb, struct diag *d)
{
	uint64_t nsect = dv->size / 512, at = sb1_location(minor, nsect);
	uint8_t buf[4096];
	struct diag why;

	if ((at + 8) * 512 > dv->size)
		return 1;
	if (read_block(dv, at, buf, d) < 0)
		return -1;
	if (sb1_decode(buf, &sb->raw.v1, &why) < 0) {
		if (strstr(why.msg, "magic"))
			return 1;
		return diag_fail(d, "%s: v1 superblock at sector %llu: %s", dv->path,
				 (unsigned long long)at, why.msg);
	}
	sb->minor = minor;
	sb->sb_sector = at;
	sb->dev_sectors = nsect;
	if (sb1_validate(&sb->raw.v1, dv->path, nsect, at, d) < 0)
		return -1;
	from_sb1(sb, &sb->raw.v1);
	return 0;
}

static int try_v0(struct dev *dv, struct md_super *sb, struct diag *d)
{
	uint64_t nsect = dv->size / 512, at = sb0_location(nsect);
	uint8_t buf[4096];
	struct diag why;

	if (nsect < 256)
		return 1;
	if (read_block(dv, at, buf, d) < 0)
		return -1;
	if (sb0_decode(buf, &sb->raw.v0, &why) < 0) {
		if (strstr(why.msg, "magic"))
			return 1;
		return diag_fail(d, "%s: 0.90 superblock at sector %llu: %s", dv->path,
				 (unsigned long long)at, why.msg);
	}
	sb->minor = (int)sb->raw.v0.w[SB0_MINOR];
	sb->sb_sector = at;
	sb->dev_sectors = nsect;
	if (sb0_validate(&sb->raw.v0, dv->path, nsect, at, d) < 0)
		return -1;
	from_sb0(sb, &sb->raw.v0);
	return 0;
}

int super_load(struct dev *dv, struct md_super *sb, struct diag *d)
{
	static const int minors[] = { 2, 1, 0 };
	size_t i;
	int rc;

	memset(sb, 0, sizeof(*sb));
	if (dv->size < 4096)
		return diag_fail(d, "%s: %llu bytes, too small to be an md member", dv->path,
				 (unsigned long long)dv->size);
	for (i = 0; i < sizeof(minors) / sizeof(minors[0]); i++) {
		rc = try_v1(dv, minors[i], sb, d);
		if (rc <= 0)
			return rc;
	}
	rc = try_v0(dv, sb, d);
	if (rc <= 0)
		return rc;
	return diag_fail(d, "%s: no md superblock found (looked for 1.2 at sector 8, 1.1 at 0, 1.0 at %llu, 0.90 at %llu)",
			 dv->path, (unsigned long long)sb1_location(0, dv->size / 512),
			 (unsigned long long)sb0_location(dv->size / 512));
}

void super_encode(const struct md_super *sb, uint8_t buf[4096], size_t *len)
{
	memset(buf, 0, 4096);
	if (sb->major == 1) {
		sb1_encode(&sb->raw.v1, buf);
		*len = sb1_bytes(&sb->raw.v1);
	} else {
		sb0_encode(&sb->raw.v0, buf);
		*len = SB0_BYTES;
	}
}

const char *super_version(const struct md_super *sb, char *buf, int len)
{
	if (sb->major == 0)
		snprintf(buf, (size_t)len, "0.%02d", sb->minor);
	else
		snprintf(buf, (size_t)len, "1.%d", sb->minor);
	return buf;
}

void super_uuid_str(const uint8_t u[16], char out[36])
{
	snprintf(out, 36, "%02x%02x%02x%02x:%02x%02x%02x%02x:%02x%02x%02x%02x:%02x%02x%02x%02x",
		 u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7],
		 u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
}

bool super_same_array(const struct md_super *a, const struct md_super *b)
{
	return memcmp(a->uuid, b->uuid, 16) == 0;
}

void super_refresh(struct md_super *sb)
{
	if (sb->major == 1)
		from_sb1(sb, &sb->raw.v1);
	else
		from_sb0(sb, &sb->raw.v0);
}

void super_seal(struct md_super *sb)
{
	if (sb->major == 1)
		sb->raw.v1.sb_csum = sb1_csum(&sb->raw.v1);
	else
		sb->raw.v0.w[SB0_CSUM] = sb0_csum(&sb->raw.v0);
	super_refresh(sb);
}

/* A 64-bit counter kept in words a and a + 1, low word first on the host
 * that wrote the superblock. */
static void sb0_set_u64(struct sb0 *r, int a, uint64_t v)
{
	uint32_t lo = (uint32_t)v, hi = (uint32_t)(v >> 32);

	r->w[a] = r->swapped ? hi : lo;
	r->w[a + 1] = r->swapped ? lo : hi;
}

void super_set_state(struct md_super *sb, uint64_t events, bool clean, uint64_t now)
{
	if (sb->major == 1) {
		struct sb1 *r = &sb->raw.v1;

		r->events = events;
		r->resync_offset = clean ? MD_MAX_SECTOR : 0;
		r->utime = now & 0xffffffffffULL;
	} else {
		struct sb0 *r = &sb->raw.v0;

		sb0_set_u64(r, SB0_EVENTS_A, events);
		if (clean)
			r->w[SB0_STATE] |= 1u << SB0_ST_CLEAN;
		else
			r->w[SB0_STATE] &= ~(1u << SB0_ST_CLEAN);
		/* md keeps recovery_cp at the end and cp_events at the events
		 * count while clean, both 0 while dirty */
		r->w[SB0_RECOVERY_CP] = clean ? 0xffffffffu : 0;
		sb0_set_u64(r, SB0_CP_EVENTS_A, clean ? events : 0);
		r->w[SB0_UTIME] = (uint32_t)now;
	}
	super_seal(sb);
}

static bool listed(const int *present, int n, int number)
{
	int i;

	for (i = 0; i < n; i++)
		if (present[i] == number)
			return true;
	return false;
}

/* md's super_90_sync: the disk table holds the devices it runs with, each
 * keeping its entry (a spare in slot 0 too: stripe's rebuild target of
 * role 0); a slot below raid_disks left empty is "faulty removed" and
 * counts as failed, but for slot 0, which md marks "removed" before it
 * fills the table (all zeroes there would read as a device numbered 0). */
static void sb0_keep_devices(struct sb0 *r, const int *present, int n)
{
	uint32_t active = 0, working = 0, failed = 0, spare = 0, nr = 0;
	uint32_t k, slots = r->w[SB0_RAID_DISKS] < SB0_DISKS ? r->w[SB0_RAID_DISKS] : SB0_DISKS;

	for (k = 0; k < SB0_DISKS; k++) {
		uint32_t *e = &r->w[SB0_DISKS_BASE + 32 * k], st = e[SB0_D_STATE];

		if (!listed(present, n, (int)k)) {
			memset(e, 0, 32 * sizeof(*e));
			if (k == 0) {
				e[SB0_D_STATE] = 1u << SB0_DS_REMOVED;
			} else if (k < slots) {
				e[SB0_D_NUMBER] = e[SB0_D_RAID_DISK] = k;
				e[SB0_D_STATE] = 1u << SB0_DS_FAULTY | 1u << SB0_DS_REMOVED;
				failed++;
			}
			continue;
		}
		nr++;
		if (st & 1u << SB0_DS_FAULTY) {
			failed++;
		} else if ((st & (1u << SB0_DS_ACTIVE | 1u << SB0_DS_SYNC)) ==
			   (1u << SB0_DS_ACTIVE | 1u << SB0_DS_SYNC)) {
			active++;
			working++;
		} else {
			spare++;
			working++;
		}
	}
	r->w[SB0_NR_DISKS] = nr;
	r->w[SB0_ACTIVE] = active;
	r->w[SB0_WORKING] = working;
	r->w[SB0_FAILED] = failed;
	r->w[SB0_SPARE] = spare;
}

void super_keep_devices(struct md_super *sb, const int *present, int n)
{
	uint32_t k;

	if (sb->major == 0) {
		sb0_keep_devices(&sb->raw.v0, present, n);
	} else {
		/* md 6.x writes spare for a number no device holds */
		for (k = 0; k < sb->raw.v1.max_dev && k < SB1_MAX_DEV; k++)
			if (!listed(present, n, (int)k))
				sb->raw.v1.dev_roles[k] = SB1_ROLE_SPARE;
	}
	super_seal(sb);
}

int super_write(struct dev *dv, const struct md_super *sb, struct diag *d)
{
	uint8_t block[4096], enc[4096];
	uint64_t at = sb->sb_sector * 512;
	size_t len;

	super_encode(sb, enc, &len);
	if (dev_read(dv, block, sizeof(block), at, d) < 0)
		return -1;
	memcpy(block, enc, sb->major == 1 ? (len + 511) / 512 * 512 : len);
	if (dev_write(dv, block, sizeof(block), at, d) < 0)
		return -1;
	return dev_sync(dv, d);
}
