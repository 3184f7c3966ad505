/* layout: md's address mapping.  Geometry set-up and validation, where a RAID4/5/6
 * row keeps its data, P and Q, every copy of an array sector, and layout names. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "md/layout.h"

/* raid5/6 algorithm numbers, as in the superblock's layout field. */
enum {
	ALG_LEFT_ASYMMETRIC = 0,
	ALG_RIGHT_ASYMMETRIC = 1,
	ALG_LEFT_SYMMETRIC = 2,
	ALG_RIGHT_SYMMETRIC = 3,
	ALG_PARITY_0 = 4,
	ALG_PARITY_N = 5,
	ALG_ROTATING_ZERO_RESTART = 8,
	ALG_ROTATING_N_RESTART = 9,
	ALG_ROTATING_N_CONTINUE = 10,
	ALG_LEFT_ASYMMETRIC_6 = 16,
	ALG_RIGHT_ASYMMETRIC_6 = 17,
	ALG_LEFT_SYMMETRIC_6 = 18,
	ALG_RIGHT_SYMMETRIC_6 = 19,
	ALG_PARITY_0_6 = 20,
};

/* md refuses raid4/5/6/10 chunks smaller than a page; 4 KiB pages assumed. */
#define MIN_STRIPED_CHUNK 8
/* Chunks stripe works in (a batch holds a row's chunk, or a part of it
 * that divides it): 1 GiB, beyond any mdadm has made. */
#define MAX_CHUNK_SECTORS (1u << 21)

#define R10_OFFSET_BIT 0x10000

static int raid5_algorithm_known(int alg)
{
	return alg >= 0 && alg <= 5;
}

static int raid6_algorithm_known(int alg)
{
	return (alg >= 0 && alg <= 5) || (alg >= 8 && alg <= 10) ||
	       (alg >= 16 && alg <= 20);
}

/* The DDF layouts feed every member into Q in member order, P and Q as zeroes. */
static int raid6_ddf_order(int alg)
{
	return alg >= ALG_ROTATING_ZERO_RESTART && alg <= ALG_ROTATING_N_CONTINUE;
}

bool layout_has_parity(int level)
{
	return level == MD_LEVEL_RAID4 || level == MD_LEVEL_RAID5 ||
	       level == MD_LEVEL_RAID6;
}

static int check_chunk(const struct geometry *g, uint32_t min_sectors, struct diag *d)
{
	uint32_t c = g->chunk_sectors;

	if (c < min_sectors || (c & (c - 1)))
		return diag_fail(d, "raid%d chunk of %u sectors: md wants a power of two of at least %u",
				 g->level, c, min_sectors);
	if (c > MAX_CHUNK_SECTORS)
		return diag_fail(d, "raid%d chunk of %u sectors: stripe handles chunks up to %u sectors (1 GiB)",
				 g->level, c, MAX_CHUNK_SECTORS);
	return 0;
}

static int size_overflow(struct diag *d, int level)
{
	return diag_fail(d, "raid%d array size does not fit in 64 bits of sectors", level);
}

static int init_raid1(struct geometry *g, struct diag *d)
{
	/* mirrors have no stripes; whatever chunk the superblock carries means nothing */
	g->chunk_sectors = 0;
	g->array_sectors = g->dev_sectors;
	return 0;
}

static int init_parity(struct geometry *g, struct diag *d)
{
	int n = g->raid_disks;
	int fewest = g->level == MD_LEVEL_RAID6 ? 4 : 2;

	if (n < fewest)
		return diag_fail(d, "raid%d needs at least %d members, not %d",
				 g->level, fewest, n);
	if (g->level == MD_LEVEL_RAID5 && !raid5_algorithm_known(g->layout))
		return diag_fail(d, "raid5 layout %d is not one md knows (0-5)", g->layout);
	if (g->level == MD_LEVEL_RAID6 && !raid6_algorithm_known(g->layout))
		return diag_fail(d, "raid6 layout %d is not one md knows (0-5, 8-10, 16-20)",
				 g->layout);
	if (check_chunk(g, MIN_STRIPED_CHUNK, d))
		return -1;
	g->data_disks = n - (g->level == MD_LEVEL_RAID6 ? 2 : 1);
	/* md only stripes over whole chunks; a partial last chunk is left unused */
	if (g->dev_sectors < g->chunk_sectors)
		return diag_fail(d, "raid%d component of %llu sectors holds no whole chunk of %u",
				 g->level, (unsigned long long)g->dev_sectors, g->chunk_sectors);
	g->dev_sectors -= g->dev_sectors % g->chunk_sectors;
	if (__builtin_mul_overflow(g->dev_sectors, (uint64_t)g->data_disks, &g->array_sectors))
		return size_overflow(d, g->level);
	return 0;
}

static int raid10_far_set_size(const struct geometry *g, struct diag *d)
{
	switch (g->layout >> 17) {
	case 0:
		return g->raid_disks;
	case 1:
		/* the kernel keeps this buggy variant only for arrays that exist */
		return g->raid_disks / g->far;
	case 2:
		return g->far * g->near;
	}
	return diag_fail(d, "raid10 layout 0x%x: far-set scheme %d unknown",
			 (unsigned)g->layout, g->layout >> 17);
}

static int init_raid10(struct geometry *g, struct diag *d)
{
	int n = g->raid_disks;
	uint64_t chunk = g->chunk_sectors, chunks, used;

	if (g->layout < 0 || g->layout >> 19)
		return diag_fail(d, "raid10 layout 0x%x has bits md does not know",
				 (unsigned)g->layout);
	g->near = g->layout & 0xff;
	g->far = (g->layout >> 8) & 0xff;
	g->far_offset = !!(g->layout & R10_OFFSET_BIT);
	g->copies = g->near * g->far;
	if (g->copies < 2 || g->copies > n)
		return diag_fail(d, "raid10 layout 0x%x gives %d copies; md wants 2..%d (the member count)",
				 (unsigned)g->layout, g->copies, n);
	g->far_set_size = raid10_far_set_size(g, d);
	if (g->far_set_size < 1)
		return g->far_set_size < 0 ? -1 :
		       diag_fail(d, "raid10 layout 0x%x leaves far sets empty", (unsigned)g->layout);
	if (check_chunk(g, MIN_STRIPED_CHUNK, d))
		return -1;

	/* Like the kernel's raid10_size: whole chunks, split over the far copies,
	 * spread over the members, shared by the near copies. */
	chunks = g->dev_sectors / chunk / g->far;
	if (__builtin_mul_overflow(chunks, (uint64_t)n, &chunks))
		return size_overflow(d, g->level);
	chunks /= g->near;
	if (__builtin_mul_overflow(chunks, chunk, &g->array_sectors))
		return size_overflow(d, g->level);

	/* What each member really carries (calc_sectors): every copy of every
	 * array chunk, rounded up, which may be less than the component size. */
	if (__builtin_mul_overflow(chunks, (uint64_t)g->copies, &used))
		return size_overflow(d, g->level);
	used = used / n + (used % n != 0);
	g->dev_sectors = used * chunk;
	g->far_stride = g->far_offset ? chunk : used / g->far * chunk;
	return 0;
}

/* Zones as create_strip_zones builds them: one per distinct member size, each
 * spanning the members that still have room above the previous size. */
static void raid0_build_zones(struct geometry *g)
{
	uint64_t below = 0, end = 0;

	for (;;) {
		uint64_t next = UINT64_MAX;
		int r, nb = 0;
		struct raid0_zone *z;

		for (r = 0; r < g->raid_disks; r++) {
			if (g->member_sectors[r] <= below)
				continue;
			nb++;
			if (g->member_sectors[r] < next)
				next = g->member_sectors[r];
		}
		if (!nb)
			return;
		end += (next - below) * nb;
		z = &g->zones[g->nzones++];
		z->dev_start = below;
		z->nb_dev = nb;
		z->end = end;
		below = next;
	}
}

/* The kernel ignores the layout, and uses the pre-3.14 mapping, whenever both
 * mappings agree: a single zone, or zones past the first holding one member. */
static int raid0_layout_matters(const struct geometry *g)
{
	return g->nzones > 1 && g->zones[1].nb_dev > 1;
}

static int init_raid0(struct geometry *g, const uint64_t *member_sectors, struct diag *d)
{
	uint64_t chunk = g->chunk_sectors, total = 0;
	int r;

	if (!member_sectors)
		return diag_fail(d, "raid0 needs each member's size");
	if (check_chunk(g, 1, d))
		return -1;
	for (r = 0; r < g->raid_disks; r++) {
		uint64_t size = member_sectors[r] - member_sectors[r] % chunk;

		if (!size)
			return diag_fail(d, "raid0 member %d holds %llu sectors, less than one chunk of %llu",
					 r, (unsigned long long)member_sectors[r],
					 (unsigned long long)chunk);
		if (__builtin_add_overflow(total, size, &total))
			return size_overflow(d, g->level);
		g->member_sectors[r] = size;
	}
	raid0_build_zones(g);
	if (raid0_layout_matters(g) && g->layout != RAID0_ORIG_LAYOUT &&
	    g->layout != RAID0_ALT_MULTIZONE_LAYOUT)
		return diag_fail(d, "raid0 with members of different sizes needs layout 1 (original) or 2 (alternate), not %d: the two place data differently",
				 g->layout);
	g->array_sectors = total;
	return 0;
}

int geometry_init(struct geometry *g, int level, int layout, int raid_disks,
		  uint32_t chunk_sectors, uint64_t dev_sectors,
		  const uint64_t *member_sectors, struct diag *d)
{
	int rc;

	memset(g, 0, sizeof(*g));
	g->level = level;
	g->layout = layout;
	g->raid_disks = raid_disks;
	g->chunk_sectors = chunk_sectors;
	g->dev_sectors = dev_sectors;
	if (raid_disks < 1 || raid_disks > ST_MAX_DISKS)
		rc = diag_fail(d, "%d members: stripe handles 1..%d", raid_disks, ST_MAX_DISKS);
	else if (level == MD_LEVEL_RAID0)
		rc = init_raid0(g, member_sectors, d);
	else if (level == MD_LEVEL_RAID1)
		rc = init_raid1(g, d);
	else if (layout_has_parity(level))
		rc = init_parity(g, d);
	else if (level == MD_LEVEL_RAID10)
		rc = init_raid10(g, d);
	else
		rc = diag_fail(d, "raid level %d is not supported", level);
	if (rc < 0)
		/* a rejected geometry maps nothing, should anyone still use it */
		memset(g, 0, sizeof(*g));
	return rc < 0 ? -1 : 0;
}

/* Rotating parity walks down from the last member (left-*) or up from the
 * first (right-*); the -6 variants rotate over all but the last member. */
static int rotate_down(uint64_t row, int width)
{
	return width - 1 - (int)(row % (uint64_t)width);
}

static int rotate_up(uint64_t row, int width)
{
	return (int)(row % (uint64_t)width);
}

static int raid5_parity_member(const struct geometry *g, uint64_t row)
{
	int n = g->raid_disks;

	if (g->level == MD_LEVEL_RAID4)
		return n - 1;
	switch (g->layout) {
	case ALG_LEFT_ASYMMETRIC:
	case ALG_LEFT_SYMMETRIC:
		return rotate_down(row, n);
	case ALG_RIGHT_ASYMMETRIC:
	case ALG_RIGHT_SYMMETRIC:
		return rotate_up(row, n);
	case ALG_PARITY_0:
		return 0;
	}
	return n - 1;
}

static void raid6_parity_members(const struct geometry *g, uint64_t row, int *pd, int *qd)
{
	int n = g->raid_disks;

	switch (g->layout) {
	case ALG_LEFT_ASYMMETRIC:
	case ALG_LEFT_SYMMETRIC:
		*pd = rotate_down(row, n);
		*qd = (*pd + 1) % n;
		return;
	case ALG_RIGHT_ASYMMETRIC:
	case ALG_RIGHT_SYMMETRIC:
	case ALG_ROTATING_ZERO_RESTART:
		*pd = rotate_up(row, n);
		*qd = (*pd + 1) % n;
		return;
	case ALG_ROTATING_N_RESTART:
		/* left-asymmetric shifted one row, so row 0 reads D..D P Q */
		*pd = n - 1 - (rotate_up(row, n) + 1) % n;
		*qd = (*pd + 1) % n;
		return;
	case ALG_ROTATING_N_CONTINUE:
		*pd = rotate_down(row, n);
		*qd = (*pd + n - 1) % n;
		return;
	case ALG_PARITY_0:
		*pd = 0;
		*qd = 1;
		return;
	case ALG_LEFT_ASYMMETRIC_6:
	case ALG_LEFT_SYMMETRIC_6:
		*pd = rotate_down(row, n - 1);
		*qd = n - 1;
		return;
	case ALG_RIGHT_ASYMMETRIC_6:
	case ALG_RIGHT_SYMMETRIC_6:
		*pd = rotate_up(row, n - 1);
		*qd = n - 1;
		return;
	case ALG_PARITY_0_6:
		*pd = 0;
		*qd = n - 1;
		return;
	}
	*pd = n - 2;
	*qd = n - 1;
}

static void parity_members(const struct geometry *g, uint64_t row, int *pd, int *qd)
{
	if (g->level == MD_LEVEL_RAID6) {
		raid6_parity_members(g, row, pd, qd);
		return;
	}
	*pd = raid5_parity_member(g, row);
	*qd = -1;
}

/* Asymmetric layouts fill members in order around P (and Q); symmetric ones
 * start just past the parity and wrap, so data keeps rotating with it. */
static int raid5_data_member(const struct geometry *g, int pd, int dd)
{
	if (g->level == MD_LEVEL_RAID4)
		return dd;
	switch (g->layout) {
	case ALG_LEFT_ASYMMETRIC:
	case ALG_RIGHT_ASYMMETRIC:
		return dd + (dd >= pd);
	case ALG_LEFT_SYMMETRIC:
	case ALG_RIGHT_SYMMETRIC:
		return (pd + 1 + dd) % g->raid_disks;
	case ALG_PARITY_0:
		return dd + 1;
	}
	return dd;
}

static int raid6_data_member(const struct geometry *g, int pd, int dd)
{
	int n = g->raid_disks;

	switch (g->layout) {
	case ALG_LEFT_ASYMMETRIC:
	case ALG_RIGHT_ASYMMETRIC:
	case ALG_ROTATING_ZERO_RESTART:
	case ALG_ROTATING_N_RESTART:
		if (pd == n - 1)
			return dd + 1;  /* Q wrapped round to member 0 */
		return dd < pd ? dd : dd + 2;
	case ALG_LEFT_SYMMETRIC:
	case ALG_RIGHT_SYMMETRIC:
		return (pd + 2 + dd) % n;
	case ALG_ROTATING_N_CONTINUE:
		return (pd + 1 + dd) % n;  /* Q sits before P, out of the way */
	case ALG_PARITY_0:
		return dd + 2;
	case ALG_LEFT_ASYMMETRIC_6:
	case ALG_RIGHT_ASYMMETRIC_6:
		return dd + (dd >= pd);
	case ALG_LEFT_SYMMETRIC_6:
	case ALG_RIGHT_SYMMETRIC_6:
		return (pd + 1 + dd) % (n - 1);
	case ALG_PARITY_0_6:
		return dd + 1;
	}
	return dd;
}

static int data_member(const struct geometry *g, int pd, int dd)
{
	if (g->level == MD_LEVEL_RAID6)
		return raid6_data_member(g, pd, dd);
	return raid5_data_member(g, pd, dd);
}

/* Q weights each block by g^slot, and md's slots follow the members round
 * from the one after Q (raid6_d0), not the logical data order. */
static void fill_syndrome_slots(const struct geometry *g, struct stripe_map *m)
{
	int n = g->raid_disks, i, k = 0;

	if (g->level != MD_LEVEL_RAID6) {
		m->syndrome_disks = m->data_disks;
		memcpy(m->slot, m->data, sizeof(m->data[0]) * m->data_disks);
		return;
	}
	if (raid6_ddf_order(g->layout)) {
		m->syndrome_disks = n;
		for (i = 0; i < n; i++)
			m->slot[i] = (i == m->pd || i == m->qd) ? -1 : i;
		return;
	}
	m->syndrome_disks = n - 2;
	for (i = 1; i <= n; i++) {
		int r = (m->qd + i) % n;

		if (r != m->pd && r != m->qd)
			m->slot[k++] = r;
	}
}

void layout_stripe(const struct geometry *g, uint64_t row, struct stripe_map *m)
{
	int dd;

	m->data_disks = 0;
	m->syndrome_disks = 0;
	m->pd = m->qd = -1;
	if (!layout_has_parity(g->level) || g->data_disks < 1)
		return;
	m->data_disks = g->data_disks;
	parity_members(g, row, &m->pd, &m->qd);
	for (dd = 0; dd < g->data_disks; dd++)
		m->data[dd] = data_member(g, m->pd, dd);
	fill_syndrome_slots(g, m);
}

static int locate_parity(const struct geometry *g, uint64_t s, struct copy *c)
{
	uint64_t chunk = g->chunk_sectors;
	uint64_t chunk_nr = s / chunk;
	uint64_t row = chunk_nr / (uint64_t)g->data_disks;
	int pd, qd;

	parity_members(g, row, &pd, &qd);
	c->role = data_member(g, pd, (int)(chunk_nr % (uint64_t)g->data_disks));
	c->sector = row * chunk + s % chunk;
	return 1;
}

/* The k-th member, in role order, that still has room at this zone's depth. */
static int raid0_zone_member(const struct geometry *g, const struct raid0_zone *z, int k)
{
	int r;

	if (z->nb_dev == g->raid_disks)
		return k;
	for (r = 0; r < g->raid_disks; r++)
		if (g->member_sectors[r] > z->dev_start && k-- == 0)
			return r;
	return -1;
}

static int locate_raid0(const struct geometry *g, uint64_t s, struct copy *c)
{
	const struct raid0_zone *z = g->zones;
	uint64_t chunk = g->chunk_sectors, zone_start = 0, off, pick;

	while (s >= z->end) {
		zone_start = z->end;
		z++;
	}
	off = s - zone_start;
	/* Layout 1 (every kernel before 3.14) picks the member from the chunk
	 * number in the whole array, layout 2 (3.14-5.3) from the one in the zone. */
	pick = (raid0_layout_matters(g) && g->layout == RAID0_ALT_MULTIZONE_LAYOUT) ? off : s;
	c->role = raid0_zone_member(g, z, (int)(pick / chunk % (uint64_t)z->nb_dev));
	c->sector = z->dev_start + off / (chunk * (uint64_t)z->nb_dev) * chunk + s % chunk;
	return 1;
}

/* The member after d in its far set, wrapping inside the set; with uneven sets
 * the last one also takes the leftover members (__raid10_find_phys). */
static int raid10_far_next(const struct geometry *g, int d)
{
	int n = g->raid_disks, fss = g->far_set_size;
	int last_set_start = (n / fss - 1) * fss;
	int last_set_size = fss + n % fss;
	int set = d / fss;

	d += g->near;
	if (n % fss && d > last_set_start)
		return (d - last_set_start) % last_set_size + last_set_start;
	return d % fss + fss * set;
}

static int locate_raid10(const struct geometry *g, uint64_t s, struct copy *c)
{
	uint64_t chunk = g->chunk_sectors;
	/* the chunk's first near copy, counted over the member chunks of all rows */
	uint64_t first = s / chunk * (uint64_t)g->near;
	uint64_t row = first / (uint64_t)g->raid_disks;
	uint64_t sector;
	int dev = (int)(first % (uint64_t)g->raid_disks);
	int j, f, k = 0;

	if (g->far_offset)
		row *= (uint64_t)g->far;  /* each row is followed by its far copies */
	sector = row * chunk + s % chunk;
	for (j = 0; j < g->near; j++) {
		int d = dev;
		uint64_t at = sector;

		c[k].role = d;
		c[k++].sector = at;
		for (f = 1; f < g->far; f++) {
			d = raid10_far_next(g, d);
			at += g->far_stride;
			c[k].role = d;
			c[k++].sector = at;
		}
		if (++dev >= g->raid_disks) {
			dev = 0;
			sector += chunk;
		}
	}
	return k;
}

int layout_locate(const struct geometry *g, uint64_t s, struct copy *c, uint64_t *run)
{
	uint64_t left, len;
	int r, k = 0;

	if (s >= g->array_sectors) {
		if (run)
			*run = 0;
		return 0;
	}
	left = g->array_sectors - s;
	switch (g->level) {
	case MD_LEVEL_RAID1:
		for (r = 0; r < g->raid_disks; r++) {
			c[r].role = r;
			c[r].sector = s;
		}
		k = g->raid_disks;
		break;
	case MD_LEVEL_RAID0:
		k = locate_raid0(g, s, c);
		break;
	case MD_LEVEL_RAID10:
		k = locate_raid10(g, s, c);
		break;
	default:
		k = locate_parity(g, s, c);
		break;
	}
	/* zone and array ends fall on chunk boundaries, but cap anyway */
	len = g->chunk_sectors ? g->chunk_sectors - s % g->chunk_sectors : left;
	if (run)
		*run = len < left ? len : left;
	return k;
}

/* The inverse of locate_raid10 for one member (the kernel's raid10_find_virt):
 * recovery walks a member from start to end and needs the array sector each
 * of its chunks copies. */
static uint64_t virt_raid10(const struct geometry *g, int dev, uint64_t sector)
{
	uint64_t chunk_sectors = g->chunk_sectors, offset = sector % chunk_sectors, chunk;
	int n = g->raid_disks, fss = g->far_set_size, set_start = dev / fss * fss;
	int last_start;

	if (n % fss) {
		last_start = (n / fss - 1) * fss;
		if (dev >= last_start) {
			fss += n % g->far_set_size;
			set_start = last_start;
		}
	}
	if (g->far_offset) {
		chunk = sector / chunk_sectors;
		dev -= (int)(chunk % (uint64_t)g->far) * g->near;
		chunk /= (uint64_t)g->far;
		if (dev < set_start)
			dev += fss;
	} else {
		while (sector >= g->far_stride) {
			sector -= g->far_stride;
			if (dev < g->near + set_start)
				dev += fss - g->near;
			else
				dev -= g->near;
		}
		chunk = sector / chunk_sectors;
	}
	return (chunk * (uint64_t)n + (uint64_t)dev) / (uint64_t)g->near * chunk_sectors + offset;
}

uint64_t layout_array_sector(const struct geometry *g, int role, uint64_t sector)
{
	uint64_t s;

	switch (g->level) {
	case MD_LEVEL_RAID1:
		s = sector;
		break;
	case MD_LEVEL_RAID10:
		if (sector >= g->dev_sectors)
			return UINT64_MAX;
		s = virt_raid10(g, role, sector);
		break;
	default:
		return UINT64_MAX;
	}
	return s < g->array_sectors ? s : UINT64_MAX;
}

int layout_row_blocks(const struct stripe_map *m, uint8_t *const *role_buf, size_t at, void *zero,
		      void **blocks)
{
	int q = m->qd >= 0, nd = q ? m->syndrome_disks : m->data_disks, i;

	for (i = 0; i < nd; i++) {
		int r = q ? m->slot[i] : m->data[i];

		blocks[i] = r < 0 ? zero : role_buf[r] + at;
	}
	blocks[nd] = role_buf[m->pd] + at;
	if (q)
		blocks[nd + 1] = role_buf[m->qd] + at;
	return nd;
}

int layout_block_index(const struct stripe_map *m, int role, int q)
{
	int i, nd = q ? m->syndrome_disks : m->data_disks;

	if (role == m->pd)
		return nd;
	if (role == m->qd)
		return nd + 1;
	for (i = 0; i < nd; i++)
		if ((q ? m->slot[i] : m->data[i]) == role)
			return i;
	return -1;
}

/* Names mdadm gives raid0/5/6 layout numbers.  The first entry for a number
 * is the one mdadm prints; the rest are spellings its --layout accepts. */
#define AT_R0 (1u << 0)
#define AT_R5 (1u << 5)
#define AT_R6 (1u << 6)
#define AT_R1 (1u << 1)
#define AT_R4 (1u << 4)

struct layout_word {
	int num;
	unsigned levels;
	const char *name;
};

static const struct layout_word layout_words[] = {
	{ 0, AT_R5 | AT_R6, "left-asymmetric" },
	{ 1, AT_R5 | AT_R6, "right-asymmetric" },
	{ 2, AT_R5 | AT_R6, "left-symmetric" },
	{ 3, AT_R5 | AT_R6, "right-symmetric" },
	{ 4, AT_R5 | AT_R6, "parity-first" },
	{ 5, AT_R5 | AT_R6, "parity-last" },
	{ 8, AT_R6, "ddf-zero-restart" },
	{ 9, AT_R6, "ddf-N-restart" },
	{ 10, AT_R6, "ddf-N-continue" },
	{ 16, AT_R6, "left-asymmetric-6" },
	{ 17, AT_R6, "right-asymmetric-6" },
	{ 18, AT_R6, "left-symmetric-6" },
	{ 19, AT_R6, "right-symmetric-6" },
	{ 20, AT_R6, "parity-first-6" },
	{ RAID0_ORIG_LAYOUT, AT_R0, "original" },
	{ RAID0_ALT_MULTIZONE_LAYOUT, AT_R0, "alternate" },
	{ 0, AT_R0, "dangerous" },  /* mdadm: record no layout at all */
	/* accepted, never printed */
	{ 2, AT_R5 | AT_R6, "default" },
	{ 0, AT_R5 | AT_R6, "la" },
	{ 1, AT_R5 | AT_R6, "ra" },
	{ 2, AT_R5 | AT_R6, "ls" },
	{ 3, AT_R5 | AT_R6, "rs" },
	/* raid5 has no DDF syndrome order, so mdadm maps these to the plain rotations */
	{ 1, AT_R5, "ddf-zero-restart" },
	{ 0, AT_R5, "ddf-N-restart" },
	{ 2, AT_R5, "ddf-N-continue" },
	{ RAID0_ORIG_LAYOUT, AT_R0, "default" },
	{ 0, AT_R1 | AT_R4, "default" },
};

#define NWORDS (sizeof(layout_words) / sizeof(layout_words[0]))

static unsigned level_bit(int level)
{
	return level >= 0 && level < 31 ? 1u << level : 0;
}

static const char *raid10_name(int layout, char *buf, int len)
{
	int near = layout & 0xff, far = (layout >> 8) & 0xff, used;
	const char *sep = "";

	if (layout < 0 || layout >> 17 || !near || !far || !buf || len < 1)
		return NULL;
	buf[0] = 0;
	used = 0;
	/* the same words and order as mdadm --detail */
	if (near != 1) {
		used += snprintf(buf + used, len - used, "near=%d", near);
		sep = ", ";
	}
	if (far != 1 && used < len)
		used += snprintf(buf + used, len - used, "%s%s=%d", sep,
				 (layout & R10_OFFSET_BIT) ? "offset" : "far", far);
	if (near * far == 1 && used < len)
		used += snprintf(buf + used, len - used, "NO REDUNDANCY");
	return used < len ? buf : NULL;
}

const char *layout_name(int level, int layout, char *buf, int len)
{
	size_t i;

	if (level == MD_LEVEL_RAID10)
		return raid10_name(layout, buf, len);
	if (level != MD_LEVEL_RAID0 && level != MD_LEVEL_RAID5 && level != MD_LEVEL_RAID6)
		return NULL;
	for (i = 0; i < NWORDS; i++)
		if (layout_words[i].num == layout && (layout_words[i].levels & level_bit(level)))
			return layout_words[i].name;
	return NULL;
}

/* A whole string of decimal digits, or 0x and hex digits, within int range. */
static int parse_number(const char *s, long *out)
{
	int hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
	const char *digits = hex ? s + 2 : s;
	char *end;

	if (!(hex ? isxdigit((unsigned char)*digits) : isdigit((unsigned char)*digits)))
		return -1;
	*out = strtol(digits, &end, hex ? 16 : 10);
	if (*end || *out < 0 || *out > 0x7fffffffL)
		return -1;
	return 0;
}

static int number_allowed(int level, long num)
{
	switch (level) {
	case MD_LEVEL_RAID0:
		return num <= 2;
	case MD_LEVEL_RAID1:
	case MD_LEVEL_RAID4:
		return num == 0;
	case MD_LEVEL_RAID5:
		return raid5_algorithm_known((int)num);
	case MD_LEVEL_RAID6:
		return raid6_algorithm_known((int)num);
	}
	return 0;
}

static int unknown_word(int level, const char *name, struct diag *d)
{
	char known[400];
	size_t i, used = 0;

	known[0] = 0;
	for (i = 0; i < NWORDS && used < sizeof(known); i++)
		if (layout_words[i].levels & level_bit(level))
			used += snprintf(known + used, sizeof(known) - used, "%s%s",
					 used ? ", " : "", layout_words[i].name);
	return diag_fail(d, "unknown raid%d layout '%s' (known: %s, or a number)",
			 level, name, known);
}

/* One "n2" / "near=2" style word of a raid10 layout; returns its letter. */
static int raid10_term(const char *t, int *copies)
{
	static const char *const long_forms[] = { "near=", "far=", "offset=" };
	const char *num = NULL;
	char *end;
	long v;
	int i, letter = 0;

	for (i = 0; i < 3; i++)
		if (!strncasecmp(t, long_forms[i], strlen(long_forms[i]))) {
			letter = long_forms[i][0];
			num = t + strlen(long_forms[i]);
		}
	if (!num && t[0] && strchr("nfoNFO", t[0])) {
		letter = t[0] | 0x20;
		num = t + 1;
	}
	if (!num || *num < '0' || *num > '9')
		return 0;
	v = strtol(num, &end, 10);
	if (*end || v < 1 || v > 255)
		return 0;
	*copies = (int)v;
	return letter;
}

static int raid10_number_sane(long num)
{
	int near = num & 0xff, far = (num >> 8) & 0xff;

	return !(num >> 19) && (num >> 17) != 3 && near * far >= 2;
}

static int parse_raid10(const char *name, struct diag *d)
{
	int near = 0, far = 0, offset = 0;
	char words[128], *t, *save = NULL;
	long num;

	if (!strcasecmp(name, "default"))
		return 0x102;  /* mdadm's n2 */
	if (!parse_number(name, &num)) {
		if (!raid10_number_sane(num))
			return diag_fail(d, "raid10 layout %s is not one md accepts", name);
		return (int)num;
	}
	if (strlen(name) >= sizeof(words))
		return diag_fail(d, "raid10 layout '%.40s...' is too long", name);
	strcpy(words, name);
	for (t = strtok_r(words, ", ", &save); t; t = strtok_r(NULL, ", ", &save)) {
		int copies = 0, letter = raid10_term(t, &copies);

		if (letter == 'n' && !near)
			near = copies;
		else if ((letter == 'f' || letter == 'o') && !far) {
			far = copies;
			offset = letter == 'o';
		} else
			return diag_fail(d, "unknown raid10 layout '%s' (use n2, f2, o2 and the like, or near=2, far=2)",
					 name);
	}
	near = near ? near : 1;
	far = far ? far : 1;
	if (near * far < 2)
		return diag_fail(d, "raid10 layout '%s' keeps one copy; md needs at least 2", name);
	return near | far << 8 | (offset ? R10_OFFSET_BIT : 0);
}

int layout_parse(int level, const char *name, struct diag *d)
{
	size_t i;
	long num;

	if (!name || !*name)
		return diag_fail(d, "empty layout name");
	if (level == MD_LEVEL_RAID10)
		return parse_raid10(name, d);
	if (!level_bit(level) || !(level_bit(level) & (AT_R0 | AT_R1 | AT_R4 | AT_R5 | AT_R6)))
		return diag_fail(d, "raid level %d has no layouts", level);
	for (i = 0; i < NWORDS; i++)
		if ((layout_words[i].levels & level_bit(level)) &&
		    !strcasecmp(layout_words[i].name, name))
			return layout_words[i].num;
	if (!parse_number(name, &num)) {
		if (!number_allowed(level, num))
			return diag_fail(d, "raid%d layout %s is not one md knows", level, name);
		return (int)num;
	}
	return unknown_word(level, name, d);
}

const char *level_name(int level)
{
	switch (level) {
	case -1: return "linear";
	case MD_LEVEL_RAID0: return "raid0";
	case MD_LEVEL_RAID1: return "raid1";
	case MD_LEVEL_RAID4: return "raid4";
	case MD_LEVEL_RAID5: return "raid5";
	case MD_LEVEL_RAID6: return "raid6";
	case MD_LEVEL_RAID10: return "raid10";
	default: return "unknown";
	}
}

int level_parse(const char *s, struct diag *d)
{
	static const struct { const char *name; int level; } names[] = {
		{ "0", 0 }, { "raid0", 0 }, { "stripe", 0 }, { "1", 1 }, { "raid1", 1 },
		{ "mirror", 1 }, { "4", 4 }, { "raid4", 4 }, { "5", 5 }, { "raid5", 5 },
		{ "6", 6 }, { "raid6", 6 }, { "10", 10 }, { "raid10", 10 },
	};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcasecmp(s, names[i].name) == 0)
			return names[i].level;
	diag_fail(d, "unknown level '%s' (0, 1, 4, 5, 6, 10 or raid0 ... raid10)", s);
	return -100;
}

void geometry_io_hints(const struct geometry *g, uint64_t *min_io, uint64_t *opt_io)
{
	uint64_t chunk = (uint64_t)g->chunk_sectors * 512;
	int disks = g->raid_disks;

	*min_io = *opt_io = 0;
	switch (g->level) {
	case MD_LEVEL_RAID0:
		break;
	case MD_LEVEL_RAID4:
	case MD_LEVEL_RAID5:
	case MD_LEVEL_RAID6:
		disks = g->data_disks;
		break;
	case MD_LEVEL_RAID10:
		if (g->near > 0 && disks % g->near == 0)
			disks /= g->near;
		break;
	default:
		return;
	}
	*min_io = chunk;
	*opt_io = chunk * (uint64_t)disks;
}
