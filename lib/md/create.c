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
/* mdadm adds a bitmap unasked once each member gives more than 100 GiB */
#define BITMAP_DEFAULT_ABOVE_SECTORS (100ULL << 21)

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

static uint64_t member_avail(const struct create_plan *p, const struct create_member *m)
{
	return super_ops_of(p->spec.major)->data_room(p->spec.minor, m->dev.size / 512, p->data_offset);
}

static int validate_spec(const struct create_spec *s, int n, struct diag *d)
{
	int max = super_ops_of(s->major)->max_devices;

	if (max > ST_MAX_DISKS)
		max = ST_MAX_DISKS;
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
	if (s->level == MD_LEVEL_RAID0 && s->bitmap == CREATE_BITMAP_INTERNAL)
		return diag_fail(d, "--bitmap=internal: a write-intent bitmap is not meaningful with raid0, which has nothing to resync");
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
	/* md rounds the size down to whole chunks: less than one is no array */
	if (p->spec.size && p->spec.size < round)
		return diag_fail(d, "--size %llu KiB is less than a chunk (%u KiB): the array would hold nothing",
				 (unsigned long long)p->spec.size / 2, round / 2);
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

/* The members as the superblocks list them, by device number. */
static void describe_members(const struct create_plan *p, struct super_slot *slot)
{
	struct stat st;
	int i;

	for (i = 0; i < p->n; i++) {
		const struct create_member *m = &p->m[i];

		memset(&slot[i], 0, sizeof(slot[i]));
		slot[i].present = m->path != NULL;
		slot[i].role = m->role;
		if (m->path && m->dev.is_blockdev && fstat(m->dev.fd, &st) == 0) {
			slot[i].rdev_major = major(st.st_rdev);
			slot[i].rdev_minor = minor(st.st_rdev);
		}
	}
}

static bool wants_bitmap(const struct create_plan *p)
{
	if (p->spec.level == MD_LEVEL_RAID0 || p->spec.bitmap == CREATE_BITMAP_NONE)
		return false;
	return p->spec.bitmap == CREATE_BITMAP_INTERNAL || p->size > BITMAP_DEFAULT_ABOVE_SECTORS;
}

/* The sectors md's bitmap covers: a member's, but raid10's resync runs in
 * array sectors, which mdadm counts in whole KiB per copy. */
static uint64_t bitmap_span(const struct create_plan *p)
{
	uint64_t copies = (uint64_t)(p->geo.layout & 0xff) * (uint64_t)((p->geo.layout >> 8) & 0xff);

	if (p->spec.level != MD_LEVEL_RAID10 || !copies)
		return p->size;
	return p->size / 2 * (uint64_t)p->spec.raid_disks / copies * 2;
}

/* 1.1 and 1.2 keep the bitmap and then the bad-block log between the
 * superblock and the data, which a --data-offset of its own may leave too
 * little room for (mdadm would put the log over the end of the bitmap). */
static int bitmap_fits(const struct create_plan *p, struct diag *d)
{
	const struct super_ops *o = super_ops_of(p->spec.major);
	uint64_t end;

	if (p->spec.major != 1 || p->spec.minor == 0)
		return 0;
	end = o->location(p->spec.minor, 0) + (uint64_t)o->bitmap_offset(p->spec.minor, &p->bitmap)
	    + p->bitmap_bytes / 512 + MD_BBLOG_SECTORS;
	if (p->data_offset < end)
		return diag_fail(d, "data offset %llu sectors leaves no room for the bitmap and the bad-block log after it: data must start at sector %llu or later",
				 (unsigned long long)p->data_offset, (unsigned long long)end);
	return 0;
}

static int plan_bitmap(struct create_plan *p, const uint8_t uuid[16], struct diag *d)
{
	const struct super_ops *o = super_ops_of(p->spec.major);
	uint8_t id[16];
	int i;

	if (!wants_bitmap(p)) {
		if (!p->spec.bitmap_chunk)
			return 0;
		return diag_fail(d, "--bitmap-chunk needs an internal bitmap, and %s",
				 p->spec.level == MD_LEVEL_RAID0 ? "raid0 has none"
				 : p->spec.bitmap == CREATE_BITMAP_NONE ? "--bitmap=none asks for none"
				 : "members of 100 GiB or less get none unless --bitmap=internal asks for one");
	}
	/* mdadm copies 0.90's UUID words into the bitmap in its CPU's
	 * (little-endian) byte order; 1.x's UUID is bytes already */
	for (i = 0; i < 16; i++)
		id[i] = p->spec.major == 0 ? uuid[i / 4 * 4 + 3 - i % 4] : uuid[i];
	/* events in step with the new superblocks' (mdadm's start at 0, so
	 * its bitmaps do; stripe's start at 1), or md takes it as stale */
	if (bitmap_new(&p->bitmap, id, bitmap_span(p), p->spec.bitmap_chunk,
		       o->bitmap_room(p->spec.minor, p->size), 1, d) < 0)
		return -1;
	p->has_bitmap = true;
	/* 1.x: its superblock and bits in 4 KiB blocks; 0.90: all its room */
	p->bitmap_bytes = p->spec.major ? bitmap_bytes(&p->bitmap, 4096)
			: o->bitmap_room(p->spec.minor, p->size) * 512;
	return bitmap_fits(p, d);
}

static void build_supers(struct create_plan *p, const uint8_t uuid[16])
{
	const struct super_ops *o = super_ops_of(p->spec.major);
	struct super_slot slot[p->n];
	struct super_array arr = {
		.uuid = uuid, .name = p->spec.name, .homehost = p->spec.homehost, .now = p->spec.now,
		.level = p->spec.level, .layout = p->geo.layout, .raid_disks = p->spec.raid_disks,
		.spares = p->spec.spares, .chunk_sectors = p->spec.chunk_sectors, .size = p->size,
		.minor = p->spec.minor, .data_offset = p->data_offset, .n = p->n, .slot = slot,
		.bitmap = p->has_bitmap ? &p->bitmap : NULL,
	};
	int i;

	describe_members(p, slot);
	for (i = 0; i < p->n; i++) {
		struct create_member *m = &p->m[i];

		if (!m->path)
			continue;
		o->new_member(&m->sb, &arr, i, m->dev.size / 512);
		super_seal(&m->sb);
	}
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
	const struct super_ops *o = super_ops_of(s->major);
	uint8_t uuid[16];

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
		uint64_t first = p->m[first_present(p)].dev.size / 512;

		p->data_offset = s->data_offset != CREATE_DEFAULT ? s->data_offset
			       : o->default_data_offset(s->minor, first, p->spec.chunk_sectors);
		if (p->data_offset < o->location(s->minor, first) + 8)
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
	if (plan_bitmap(p, uuid, d) < 0)
		return -1;
	build_supers(p, uuid);
	return 0;
}

/* Zeroes the 4 KiB at sector if an md superblock of any version is there
 * and it lies outside what the new array keeps. */
static int erase_stale_super(struct create_member *m, uint64_t sector, uint64_t keep_lo,
			     uint64_t keep_hi, struct diag *d)
{
	uint8_t buf[4096];

	if ((sector + 8) * 512 > m->dev.size || sector == m->sb.sb_sector ||
	    (sector + 8 > keep_lo && sector < keep_hi))
		return 0;
	if (dev_read(&m->dev, buf, sizeof(buf), sector * 512, d) < 0)
		return -1;
	if (!super_is_md(buf))
		return 0;
	memset(buf, 0, sizeof(buf));
	return dev_write(&m->dev, buf, sizeof(buf), sector * 512, d);
}

/* Zeroing goes in slices so that progress can be told between them. */
#define ZERO_SLICE (256ULL << 20)

static int zero_data(struct create_plan *p, struct create_member *m, uint64_t *zeroed, struct diag *d)
{
	uint64_t off = m->sb.data_offset * 512, end = off + m->sb.data_size * 512;

	while (off < end) {
		uint64_t len = end - off < ZERO_SLICE ? end - off : ZERO_SLICE;

		if (dev_zero(&m->dev, off, len, d) < 0)
			return -1;
		off += len;
		*zeroed += len;
		if (p->zeroed)
			p->zeroed(p->zeroed_ctx, *zeroed);
	}
	return 0;
}

uint64_t create_zero_bytes(const struct create_plan *p)
{
	uint64_t bytes = 0;
	int i;

	for (i = 0; !p->spec.assume_clean && i < p->n; i++)
		if (p->m[i].path)
			bytes += p->m[i].sb.data_size * 512;
	return bytes;
}

static int prepare_member(struct create_plan *p, struct create_member *m, uint64_t *zeroed,
			  struct diag *d)
{
	uint64_t lo = m->sb.data_offset, hi = lo + m->sb.data_size, where[SUPER_PLACES];
	size_t i;

	/* Data that --assume-clean keeps is never touched; otherwise the data
	 * area is zeroed below and only metadata areas need looking at. */
	super_places(m->dev.size / 512, where);
	for (i = 0; i < SUPER_PLACES; i++)
		if (erase_stale_super(m, where[i], lo, hi, d) < 0)
			return -1;
	if (p->spec.major == 1 && p->spec.minor == 2 && dev_zero(&m->dev, 0, 4096, d) < 0)
		return -1;
	if (!p->spec.assume_clean && zero_data(p, m, zeroed, d) < 0)
		return -1;
	if (p->has_bitmap) {
		int32_t at = super_ops_of(p->spec.major)->bitmap_offset(p->spec.minor, &p->bitmap);

		return bitmap_write_new(&m->dev, m->sb.sb_sector + (uint64_t)(int64_t)at, &p->bitmap,
					p->bitmap_bytes, d);
	}
	return 0;
}

int create_write(struct create_plan *p, struct diag *d)
{
	uint64_t zeroed = 0;
	int i;

	/* Superblocks last: an interrupted create leaves no array behind. */
	for (i = 0; i < p->n; i++)
		if (p->m[i].path && prepare_member(p, &p->m[i], &zeroed, d) < 0)
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
