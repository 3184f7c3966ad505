/* create: sizes, offsets and superblocks of a new array, chosen as mdadm 4.x
 * chooses them (super1.c validate_geometry1/write_init_super1, super0.c
 * init_super0), then written after the data areas are made consistent. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "md/create.h"

#define DEFAULT_CHUNK_SECTORS 1024   /* 512 KiB */
#define SB1_ROLES_MAX_DEV 128        /* mdadm's max_dev for up to 128 devices */

int create_default_layout(int level)
{
	switch (level) {
	case MD_LEVEL_RAID0: return RAID0_ORIG_LAYOUT;
	case MD_LEVEL_RAID5:
	case MD_LEVEL_RAID6: return 2;          /* left-symmetric */
	case MD_LEVEL_RAID10: return 0x102;     /* near=2 */
	default: return 0;
	}
}

static int min_disks(int level, bool force)
{
	switch (level) {
	case MD_LEVEL_RAID0:
	case MD_LEVEL_RAID1: return force ? 1 : 2;
	case MD_LEVEL_RAID6: return 4;
	default: return 2;
	}
}

/* Space mdadm leaves for a bitmap, by device size (choose_bm_space). */
static uint64_t bm_space(uint64_t sectors)
{
	if (sectors < 128)
		return 0;
	if (sectors - 128 >= 200ULL * 1024 * 1024 * 2)
		return 256;
	if (sectors - 8 > 8ULL * 1024 * 1024 * 2)
		return 128;
	return 8;
}

/* mdadm's default data offset for 1.1/1.2: room for the superblock, bitmap
 * and reshape headroom (about 0.1% of the device, at most 128 MiB, never
 * less than two chunks' worth), rounded up to 1 MiB. */
static uint64_t default_data_offset(uint64_t dev_sectors, uint32_t chunk_sectors)
{
	uint64_t headroom = 128 * 1024 * 2, off;

	while ((headroom << 10) > dev_sectors &&
	       (chunk_sectors == 0 || headroom / 2 >= (uint64_t)chunk_sectors * 2))
		headroom >>= 1;
	off = 24 + bm_space(dev_sectors) + headroom;
	return (off + 2047) / 2048 * 2048;
}

static uint64_t member_avail(const struct create_plan *p, const struct create_member *m)
{
	uint64_t dev = m->dev.size / 512, over;

	if (p->spec.major == 0)
		return dev < 256 ? 0 : sb0_location(dev);
	if (p->spec.minor == 0) {
		over = 16 + 8 + bm_space(dev);
		return (dev & ~(uint64_t)7) > over ? (dev & ~(uint64_t)7) - over : 0;
	}
	return dev > p->data_offset ? dev - p->data_offset : 0;
}

static int validate_spec(const struct create_spec *s, int n, struct diag *d)
{
	int max = s->major == 0 ? SB0_DISKS : ST_MAX_DISKS;

	if (s->raid_disks < min_disks(s->level, s->force))
		return diag_fail(d, "%s needs at least %d devices, %d given%s", level_name(s->level),
				 min_disks(s->level, s->force), s->raid_disks,
				 s->level <= 1 ? " (--force allows 1)" : "");
	if (s->raid_disks + s->spares != n)
		return diag_fail(d, "%d members given for %d raid devices and %d spares",
				 n, s->raid_disks, s->spares);
	if (n > max)
		return diag_fail(d, "%d devices: %s metadata holds at most %d", n,
				 s->major == 0 ? "0.90" : "stripe's", max);
	if (s->major == 1 && (s->minor < 0 || s->minor > 2))
		return diag_fail(d, "metadata 1.%d does not exist (1.0, 1.1, 1.2)", s->minor);
	return 0;
}

static int open_members(struct create_plan *p, char *const *paths, int n, struct diag *d)
{
	int i, missing = 0;

	p->m = calloc((size_t)n, sizeof(*p->m));
	if (!p->m)
		return diag_fail(d, "out of memory");
	p->n = n;
	for (i = 0; i < n; i++) {
		struct create_member *m = &p->m[i];

		m->dev.fd = -1;
		m->number = i;
		m->role = i < p->spec.raid_disks ? i : ROLE_SPARE;
		if (strcmp(paths[i], "missing") == 0) {
			if (m->role < 0)
				return diag_fail(d, "a spare cannot be \"missing\"");
			missing++;
			continue;
		}
		m->path = paths[i];
		if (dev_open(&m->dev, paths[i], DEV_WRITE, d) < 0)
			return -1;
	}
	if (missing == p->spec.raid_disks)
		return diag_fail(d, "every member is \"missing\"");
	return 0;
}

/* Are enough members present for the data to be whole? */
static int check_missing(struct create_plan *p, struct diag *d)
{
	struct copy c[ST_MAX_DISKS];
	uint64_t chunk, run;
	int i, k, missing = 0, n = p->spec.raid_disks;

	for (i = 0; i < n; i++)
		missing += !p->m[i].path;
	if (!missing)
		return 0;
	if (p->spec.level == MD_LEVEL_RAID10) {
		for (chunk = 0; chunk < (uint64_t)n * (uint64_t)p->geo.copies; chunk++) {
			bool held = false;

			k = layout_locate(&p->geo, chunk * p->geo.chunk_sectors, c, &run);
			for (i = 0; i < k; i++)
				held |= p->m[c[i].role].path != NULL;
			if (!held && k)
				return diag_fail(d, "raid10 with these members missing loses data: no copy of chunk %llu is present",
						 (unsigned long long)chunk);
		}
		return 0;
	}
	if (p->spec.level == MD_LEVEL_RAID0 ||
	    missing > (p->spec.level == MD_LEVEL_RAID1 ? n - 1 : p->spec.level == MD_LEVEL_RAID6 ? 2 : 1))
		return diag_fail(d, "%s of %d devices cannot start with %d missing", level_name(p->spec.level),
				 n, missing);
	return 0;
}

static int choose_size(struct create_plan *p, struct diag *d)
{
	const struct create_member *small = NULL, *large = NULL;
	uint32_t round = p->spec.chunk_sectors ? p->spec.chunk_sectors : 128;
	int i;

	for (i = 0; i < p->n; i++) {
		struct create_member *m = &p->m[i];

		if (!m->path)
			continue;
		m->avail = member_avail(p, m);
		if (!small || m->avail < small->avail)
			small = m;
		if (!large || m->avail > large->avail)
			large = m;
	}
	if (small->avail < round || (p->spec.size && p->spec.size > small->avail))
		return diag_fail(d, "%s: too small: %llu bytes leave %llu KiB for data after md's metadata; %s %llu KiB",
				 small->path, (unsigned long long)small->dev.size,
				 (unsigned long long)small->avail / 2,
				 p->spec.size ? "--size asks for" : "a chunk needs",
				 (unsigned long long)(p->spec.size ? p->spec.size : round) / 2);
	if (p->spec.level == MD_LEVEL_RAID0) {
		p->size = 0;
		return 0;
	}
	p->size = (p->spec.size ? p->spec.size : small->avail) / round * round;
	/* Rounding to a chunk is not a size difference between members. */
	if (!p->spec.size && !p->spec.force && (large->avail - small->avail) * 100 > large->avail)
		return diag_fail(d, "%s: %llu KiB usable but %s only %llu KiB: members differ by more than 1%%; use --size or --force",
				 large->path, (unsigned long long)large->avail / 2, small->path,
				 (unsigned long long)small->avail / 2);
	if (p->spec.major == 0 && p->size / 2 > UINT32_MAX)
		return diag_fail(d, "0.90 metadata records at most 4 TiB per member; %llu KiB asked for",
				 (unsigned long long)p->size / 2);
	return 0;
}

static int setup_geometry(struct create_plan *p, struct diag *d)
{
	uint64_t sizes[ST_MAX_DISKS];
	int i;

	for (i = 0; i < p->spec.raid_disks; i++)
		sizes[i] = p->m[i].path ? member_avail(p, &p->m[i]) : 0;
	for (i = 0; p->spec.level == MD_LEVEL_RAID0 && i < p->spec.raid_disks; i++)
		if (!p->m[i].path)
			return diag_fail(d, "raid0 has no redundancy: no member can be \"missing\"");
	return geometry_init(&p->geo, p->spec.level, p->spec.layout, p->spec.raid_disks,
			     p->spec.chunk_sectors, p->size, sizes, d);
}

static void set_name(struct sb1 *r, const struct create_spec *s)
{
	const char *name = s->name && *s->name ? s->name : "0";

	size_t h = s->homehost ? strlen(s->homehost) : 0, n = strlen(name);

	/* mdadm's convention: "homehost:name" when it fits in 32 bytes */
	memset(r->set_name, 0, sizeof(r->set_name));
	if (h && !strchr(name, ':') && h + 1 + n < sizeof(r->set_name)) {
		memcpy(r->set_name, s->homehost, h);
		r->set_name[h] = ':';
		memcpy(r->set_name + h + 1, name, n);
	} else {
		memcpy(r->set_name, name, n < sizeof(r->set_name) - 1 ? n : sizeof(r->set_name) - 1);
	}
}

/* Where the bad-block log goes, and how much data a 1.x member holds. */
static void place_sb1(const struct create_plan *p, const struct create_member *m, struct sb1 *r)
{
	uint64_t dev = m->dev.size / 512, bm = bm_space(r->size), off;

	if (p->spec.minor == 0) {
		off = (dev - 16) & ~(uint64_t)7;
		bm += 8;                     /* the bad-block log sits before the superblock */
		if (off < r->size + bm)
			bm = off - r->size;
		r->super_offset = off;
		r->data_offset = 0;
		r->data_size = off - bm;
		if (bm >= 8) {
			r->bblog_size = 8;
			r->bblog_offset = (uint32_t)-8;
		}
		return;
	}
	off = p->spec.minor == 2 ? 8 : 0;
	r->super_offset = off;
	r->data_offset = p->data_offset;
	r->data_size = dev - p->data_offset;
	if (p->data_offset >= off + 8 + bm + 8) {
		r->bblog_size = 8;
		r->bblog_offset = (uint32_t)(8 + bm);
	} else if (p->data_offset >= off + 16) {
		r->bblog_size = 8;
		r->bblog_offset = (uint32_t)(p->data_offset - 8 - off);
	}
}

static void build_sb1(const struct create_plan *p, struct create_member *m, const uint8_t uuid[16])
{
	const struct create_spec *s = &p->spec;
	struct sb1 *r = &m->sb.raw.v1;
	int i;

	memset(r, 0, sizeof(*r));
	r->magic = 0xa92b4efc;
	r->major_version = 1;
	r->feature_map = s->level == MD_LEVEL_RAID0 ? SB1_FEAT_RAID0_LAYOUT : 0;
	memcpy(r->set_uuid, uuid, 16);
	set_name(r, s);
	r->ctime = r->utime = s->now;
	r->level = (uint32_t)s->level;
	r->layout = (uint32_t)p->geo.layout;
	r->size = p->size;
	r->chunksize = s->level == MD_LEVEL_RAID1 ? 0 : s->chunk_sectors;
	r->raid_disks = (uint32_t)s->raid_disks;
	place_sb1(p, m, r);
	r->dev_number = (uint32_t)m->number;
	if (getrandom(r->device_uuid, sizeof(r->device_uuid), 0) != sizeof(r->device_uuid))
		memset(r->device_uuid, m->number + 1, sizeof(r->device_uuid));
	r->events = 1;
	r->resync_offset = MD_MAX_SECTOR;
	r->max_dev = p->n <= SB1_ROLES_MAX_DEV ? SB1_ROLES_MAX_DEV : (uint32_t)(p->n + 255) / 256 * 256;
	for (i = 0; i < SB1_MAX_DEV; i++)
		r->dev_roles[i] = SB1_ROLE_SPARE;
	for (i = 0; i < p->n; i++)
		if (p->m[i].path && p->m[i].role >= 0)
			r->dev_roles[i] = (uint16_t)p->m[i].role;
	m->sb.major = 1;
	m->sb.minor = s->minor;
	m->sb.sb_sector = r->super_offset;
	m->sb.dev_sectors = m->dev.size / 512;
}

static void sb0_set_disk(struct sb0 *r, int base, const struct create_plan *p, int k)
{
	const struct create_member *m = &p->m[k];
	uint32_t state;
	struct stat st;

	if (!m->path)
		state = 1u << SB0_DS_FAULTY | 1u << SB0_DS_REMOVED;
	else if (m->role >= 0)
		state = 1u << SB0_DS_ACTIVE | 1u << SB0_DS_SYNC;
	else
		state = 0;
	r->w[base + SB0_D_NUMBER] = (uint32_t)k;
	r->w[base + SB0_D_RAID_DISK] = (uint32_t)k;
	r->w[base + SB0_D_STATE] = state;
	if (m->path && m->dev.is_blockdev && fstat(m->dev.fd, &st) == 0) {
		r->w[base + SB0_D_MAJOR] = major(st.st_rdev);
		r->w[base + SB0_D_MINOR] = minor(st.st_rdev);
	}
}

static void build_sb0(const struct create_plan *p, struct create_member *m, const uint8_t uuid[16])
{
	const struct create_spec *s = &p->spec;
	struct sb0 *r = &m->sb.raw.v0;
	uint32_t *w = r->w;
	int i, present = 0, active = 0;

	memset(r, 0, sizeof(*r));
	for (i = 0; i < p->n; i++) {
		present += p->m[i].path != NULL;
		active += p->m[i].path && p->m[i].role >= 0;
	}
	w[SB0_MAGIC] = 0xa92b4efc;
	w[SB0_MINOR] = 90;
	for (i = 0; i < 4; i++)
		w[i == 0 ? SB0_UUID0 : SB0_UUID1 + i - 1] =
			(uint32_t)uuid[4 * i] << 24 | (uint32_t)uuid[4 * i + 1] << 16 |
			(uint32_t)uuid[4 * i + 2] << 8 | uuid[4 * i + 3];
	w[SB0_CTIME] = w[SB0_UTIME] = (uint32_t)s->now;
	w[SB0_LEVEL] = (uint32_t)s->level;
	w[SB0_SIZE] = (uint32_t)(p->size / 2);
	w[SB0_NR_DISKS] = (uint32_t)p->n;
	w[SB0_RAID_DISKS] = (uint32_t)s->raid_disks;
	w[SB0_STATE] = 1u << SB0_ST_CLEAN;
	w[SB0_ACTIVE] = (uint32_t)active;
	w[SB0_WORKING] = (uint32_t)present;
	w[SB0_FAILED] = (uint32_t)(p->n - present);
	w[SB0_SPARE] = (uint32_t)s->spares;
	w[SB0_EVENTS_A] = 1;
	w[SB0_RECOVERY_CP] = 0xffffffffu;
	w[SB0_LAYOUT] = s->level == MD_LEVEL_RAID0 ? 0 : (uint32_t)p->geo.layout;
	w[SB0_CHUNK] = s->level == MD_LEVEL_RAID1 ? 0 : s->chunk_sectors * 512;
	for (i = 0; i < p->n; i++)
		sb0_set_disk(r, SB0_DISKS_BASE + 32 * i, p, i);
	memcpy(&w[SB0_THIS_DISK], &w[SB0_DISKS_BASE + 32 * m->number], 32 * sizeof(uint32_t));
	m->sb.major = 0;
	m->sb.minor = 90;
	m->sb.sb_sector = sb0_location(m->dev.size / 512);
	m->sb.dev_sectors = m->dev.size / 512;
}

static int first_present(const struct create_plan *p)
{
	int i;

	for (i = 0; i < p->n; i++)
		if (p->m[i].path)
			return i;
	return 0;
}

int create_plan(struct create_plan *p, const struct create_spec *s,
		char *const *paths, int n, struct diag *d)
{
	uint8_t uuid[16];
	int i;

	memset(p, 0, sizeof(*p));
	p->spec = *s;
	if (p->spec.layout < 0)
		p->spec.layout = create_default_layout(s->level);
	if (s->level == MD_LEVEL_RAID1)
		p->spec.chunk_sectors = 0;
	else if (!p->spec.chunk_sectors)
		p->spec.chunk_sectors = DEFAULT_CHUNK_SECTORS;
	if (s->major == 0 && s->level == MD_LEVEL_RAID0 && s->layout == RAID0_ALT_MULTIZONE_LAYOUT)
		return diag_fail(d, "0.90 metadata cannot record a raid0 layout; use 1.x metadata");
	if (validate_spec(&p->spec, n, d) < 0 || open_members(p, paths, n, d) < 0)
		return -1;
	if (s->major == 1 && s->minor > 0) {
		const struct create_member *f = &p->m[first_present(p)];

		p->data_offset = s->data_offset != CREATE_DEFAULT ? s->data_offset
			       : default_data_offset(f->dev.size / 512, p->spec.chunk_sectors);
		if (p->data_offset < (s->minor == 2 ? 8u : 0u) + 8)
			return diag_fail(d, "data offset %llu sectors overlaps the superblock",
					 (unsigned long long)p->data_offset);
	} else if (s->data_offset != CREATE_DEFAULT && s->data_offset != 0) {
		return diag_fail(d, "metadata %d.%d keeps data at the start: --data-offset must be 0",
				 s->major, s->major ? s->minor : 90);
	}
	if (choose_size(p, d) < 0 || setup_geometry(p, d) < 0 || check_missing(p, d) < 0)
		return -1;
	if (s->major == 0 && s->level == MD_LEVEL_RAID0 && p->geo.nzones > 1)
		return diag_fail(d, "members of different sizes make a multi-zone raid0, whose layout 0.90 metadata cannot record; use 1.x metadata");
	if (s->have_uuid)
		memcpy(uuid, s->uuid, 16);
	else if (getrandom(uuid, sizeof(uuid), 0) != sizeof(uuid))
		return diag_fail(d, "no random numbers for the array UUID");
	for (i = 0; i < n; i++) {
		struct create_member *m = &p->m[i];

		if (!m->path)
			continue;
		if (s->major == 1)
			build_sb1(p, m, uuid);
		else
			build_sb0(p, m, uuid);
		super_seal(&m->sb);
	}
	return 0;
}

/* Zeroes the 4 KiB at sector if an md superblock of any version is there
 * and it lies outside what the new array keeps. */
static int erase_stale_super(struct create_member *m, uint64_t sector, uint64_t keep_lo,
			     uint64_t keep_hi, struct diag *d)
{
	uint8_t buf[4096];
	uint32_t magic;

	if ((sector + 8) * 512 > m->dev.size || sector == m->sb.sb_sector ||
	    (sector + 8 > keep_lo && sector < keep_hi))
		return 0;
	if (dev_read(&m->dev, buf, sizeof(buf), sector * 512, d) < 0)
		return -1;
	magic = (uint32_t)buf[0] | (uint32_t)buf[1] << 8 | (uint32_t)buf[2] << 16 | (uint32_t)buf[3] << 24;
	if (magic != 0xa92b4efc && __builtin_bswap32(magic) != 0xa92b4efc)
		return 0;
	memset(buf, 0, sizeof(buf));
	return dev_write(&m->dev, buf, sizeof(buf), sector * 512, d);
}

static int prepare_member(struct create_plan *p, struct create_member *m, struct diag *d)
{
	uint64_t dev = m->dev.size / 512, lo = m->sb.data_offset, hi = lo + m->sb.data_size;
	const uint64_t where[] = { 0, 8, sb1_location(0, dev), sb0_location(dev) };
	size_t i;

	/* Data that --assume-clean keeps is never touched; otherwise the data
	 * area is zeroed below and only metadata areas need looking at. */
	for (i = 0; i < sizeof(where) / sizeof(where[0]); i++)
		if (erase_stale_super(m, where[i], lo, hi, d) < 0)
			return -1;
	if (p->spec.major == 1 && p->spec.minor == 2 && dev_zero(&m->dev, 0, 4096, d) < 0)
		return -1;
	if (!p->spec.assume_clean && dev_zero(&m->dev, lo * 512, m->sb.data_size * 512, d) < 0)
		return -1;
	return 0;
}

int create_write(struct create_plan *p, struct diag *d)
{
	int i;

	/* Superblocks last: an interrupted create leaves no array behind. */
	for (i = 0; i < p->n; i++)
		if (p->m[i].path && prepare_member(p, &p->m[i], d) < 0)
			return -1;
	for (i = 0; i < p->n; i++)
		if (p->m[i].path && (dev_sync(&p->m[i].dev, d) < 0 ||
				     super_write(&p->m[i].dev, &p->m[i].sb, d) < 0))
			return -1;
	return 0;
}

void create_free(struct create_plan *p)
{
	int i;

	for (i = 0; p->m && i < p->n; i++)
		dev_close(&p->m[i].dev);
	free(p->m);
	memset(p, 0, sizeof(*p));
}
