/* anchor: the ext4 blocks that name their own place, used to decide a
 * geometry's order without trying orders.  The list starts with what the
 * primary superblock predicts (its descriptor blocks, the backups and
 * theirs); each descriptor block found adds the inode-table blocks of its
 * groups.  Each anchor is looked for where the geometry puts it: on the
 * role's member when the role is decided, else on every free member. */
#include <stdlib.h>
#include <string.h>

#include "probe/anchor.h"

#define MAX_ANCHORS 1024
#define MAX_GDT 16                   /* descriptor blocks of group 0 looked at */
#define MAX_BACKUPS 24
#define ITABLE_RUN 16                /* inode-table blocks from each table's start */
#define ITABLE_SPREAD 8              /* and about as many over the rest */
#define REFUTED_AFTER 4              /* misses before a geometry can be refuted */

enum anchor_kind { ANCHOR_SUPER, ANCHOR_GDT, ANCHOR_ITABLE };

struct anchor {
	enum anchor_kind kind;
	uint64_t off;                /* filesystem byte */
	uint32_t number;             /* group, descriptor block, or first inode */
};

struct pinning {
	struct probe_sample *s;
	const struct ext4_sb *sb;
	struct geometry_spec *spec;
	struct geometry g;
	bool taken[ST_MAX_DISKS];    /* members holding a role */
	struct anchor list[MAX_ANCHORS];
	int n;
	uint8_t *block;
	struct pin_tally *t;
};

static void add(struct pinning *p, enum anchor_kind kind, uint64_t off, uint32_t number)
{
	if (p->n < MAX_ANCHORS && off + p->sb->block_size <= p->sb->blocks * p->sb->block_size)
		p->list[p->n++] = (struct anchor){ kind, off, number };
}

static uint32_t anchor_len(const struct pinning *p, const struct anchor *a)
{
	return a->kind == ANCHOR_SUPER ? EXT4_SB_BYTES : p->sb->block_size;
}

/* What member bytes say of an anchor: an inode-table block of unused
 * (zeroed) inodes says nothing either way. */
enum verdict { HELD, SILENT, NOT_HELD };

static enum verdict holds(const struct pinning *p, const struct anchor *a, const uint8_t *buf)
{
	struct ext4_sb sb;
	unsigned ok, bad;

	switch (a->kind) {
	case ANCHOR_SUPER:
		return ext4_sb_parse(buf, &sb) && ext4_same_fs(&sb, p->sb) && sb.group == a->number ? HELD
														  : NOT_HELD;
	case ANCHOR_GDT:
		ext4_gdt_block_check(p->sb, a->number, buf, &ok, &bad);
		return ok && !bad ? HELD : NOT_HELD;
	case ANCHOR_ITABLE:
		ext4_inode_block_check(p->sb, a->number, buf, &ok, &bad);
		return ok && !bad ? HELD : !ok && !bad ? SILENT : NOT_HELD;
	}
	return NOT_HELD;
}

/* What member i's bytes at member byte at say of anchor a. */
static enum verdict member_holds(struct pinning *p, int i, uint64_t at, const struct anchor *a)
{
	struct diag d;

	if (probe_read(p->s, i, p->block, anchor_len(p, a), at, &d) < 0)
		return NOT_HELD;
	return holds(p, a, p->block);
}

/* The inode-table blocks of the groups a descriptor block describes: a
 * run at the start of each table, whose blocks fall in consecutive chunks
 * and so on every role, and a few amid its inodes in use. */
static void add_inode_tables(struct pinning *p, const struct anchor *gdt, int member, uint64_t at)
{
	const struct ext4_sb *sb = p->sb;
	uint32_t per_block = sb->block_size / sb->desc_size, per_itable = sb->block_size / sb->inode_size;
	struct ext4_desc desc;
	struct diag d;

	if (probe_read(p->s, member, p->block, sb->block_size, at, &d) < 0)
		return;
	for (uint32_t k = 0; k < per_block; k++) {
		if (!ext4_desc_read(sb, gdt->number, k, p->block, &desc) || !desc.used_inodes)
			continue;
		uint32_t group = gdt->number * per_block + k, first = group * sb->inodes_per_group + 1;
		uint32_t used = (desc.used_inodes + per_itable - 1) / per_itable;
		for (uint32_t b = 0; b < used; b = b < ITABLE_RUN ? b + 1 : b + used / ITABLE_SPREAD + 1)
			add(p, ANCHOR_ITABLE, (desc.inode_table + b) * sb->block_size, first + b * per_itable);
	}
}

/* Group 0's descriptor blocks, whose inode tables join the list (a
 * backup's would add the same ones again). */
static bool primary_gdt(const struct pinning *p, const struct anchor *a)
{
	return a->kind == ANCHOR_GDT &&
	       a->off == ext4_gdt_offset(p->sb, 0) + (uint64_t)a->number * p->sb->block_size;
}

/* Looks for one copy of anchor a at member byte at in role: checks the
 * role's member, or gives the role the one free member that holds it
 * (copies > 1 free members may hold it when they mirror each other). */
static void place(struct pinning *p, const struct anchor *a, int role, uint64_t at, int copies)
{
	int *order = p->spec->order, found = -1, nfound = 0;

	if (order[role] == SPEC_MISSING)
		return;
	if (order[role] >= 0) {
		enum verdict v = member_holds(p, order[role], at, a);
		if (v == HELD) {
			p->t->hits++;
			if (primary_gdt(p, a))
				add_inode_tables(p, a, order[role], at);
		} else if (v == NOT_HELD) {
			p->t->misses++;
		}
		return;
	}
	for (int i = 0; i < p->s->nmembers; i++)
		if (!p->taken[i] && p->s->members[i].path && member_holds(p, i, at, a) == HELD) {
			nfound++;
			if (found < 0)
				found = i;
		}
	if (!nfound || nfound > copies) {
		p->t->unresolved++;
		return;
	}
	order[role] = found;
	p->taken[found] = true;
	p->t->hits++;
	if (primary_gdt(p, a))
		add_inode_tables(p, a, found, at);
}

static void resolve(struct pinning *p, const struct anchor *a)
{
	struct copy c[ST_MAX_DISKS];
	uint64_t run;
	int n = layout_locate(&p->g, a->off / 512, c, &run);

	if (run * 512 < anchor_len(p, a))
		return;              /* split over chunks: it names no one place */
	for (int k = 0; k < n; k++) {
		int undecided = 0;
		for (int j = k; j < n; j++)
			undecided += c[j].sector == c[k].sector && p->spec->order[c[j].role] == PROBE_UNKNOWN;
		place(p, a, c[k].role, (p->spec->data_offset + c[k].sector) * 512 + a->off % 512,
		      undecided ? undecided : 1);
	}
}

static void plan(struct pinning *p)
{
	const struct ext4_sb *sb = p->sb;

	add(p, ANCHOR_SUPER, EXT4_SB_OFFSET, 0);
	for (uint32_t j = 0; j < sb->gdt_blocks && j < MAX_GDT; j++)
		add(p, ANCHOR_GDT, ext4_gdt_offset(sb, 0) + (uint64_t)j * sb->block_size, j);
	for (uint32_t g = 1, found = 0; g < sb->groups && found < MAX_BACKUPS; g++) {
		if (!ext4_group_has_super(sb, g))
			continue;
		found++;
		add(p, ANCHOR_SUPER, ext4_super_offset(sb, g), g);
		if (sb->gdt_blocks)
			add(p, ANCHOR_GDT, ext4_gdt_offset(sb, g), 0);
	}
}

static bool refuted(const struct pin_tally *t)
{
	return t->misses >= REFUTED_AFTER && t->misses > t->hits;
}

bool anchor_pin(struct probe_sample *s, const struct ext4_primary *pr, struct geometry_spec *spec,
		struct pin_tally *t)
{
	struct pinning *p = calloc(1, sizeof(*p));
	uint64_t sizes[ST_MAX_DISKS];
	bool ok = false;

	memset(t, 0, sizeof(*t));
	if (!p || !(p->block = malloc(pr->sb.block_size)))
		goto out;
	p->s = s;
	p->sb = &pr->sb;
	p->spec = spec;
	p->t = t;
	for (int r = 0; r < spec->raid_disks; r++) {
		sizes[r] = spec->size;
		if (spec->order[r] >= 0)
			p->taken[spec->order[r]] = true;
	}
	if (geometry_init(&p->g, spec->level, spec->layout, spec->raid_disks, spec->chunk_sectors, spec->size,
			  sizes, NULL) < 0)
		goto out;
	plan(p);
	for (int i = 0; i < p->n && !refuted(t); i++)
		resolve(p, &p->list[i]);
	ok = !refuted(t) && t->hits > 0;
out:
	if (p)
		free(p->block);
	free(p);
	return ok;
}

/* The sample's windows looked over at every sector for a primary
 * superblock; the filesystem starts 1024 bytes before it. */
static int find_in_window(const struct probe_sample *s, const struct probe_window *w, int member,
			  const struct probe_hints *h, struct ext4_primary *p, int np, int max)
{
	struct ext4_sb sb;

	for (size_t at = 0; at + EXT4_SB_BYTES <= w->len && np < max; at += 512) {
		uint64_t off = w->offset + at;
		if (off < EXT4_SB_OFFSET || !ext4_sb_parse(w->buf[member] + at, &sb) || sb.group != 0)
			continue;
		uint64_t start = (off - EXT4_SB_OFFSET) / 512;
		if (h->data_offset != UINT64_MAX && h->data_offset != start)
			continue;
		bool known = false;
		for (int k = 0; k < np && !known; k++)
			known = p[k].data_offset == start && ext4_same_fs(&p[k].sb, &sb);
		if (!known)
			p[np++] = (struct ext4_primary){ member, off, start, sb };
	}
	return np;
}

int anchor_find_primaries(const struct probe_sample *s, const struct probe_hints *h,
			  struct ext4_primary *p, int max)
{
	int np = 0;

	for (int w = 0; w < s->nwindows; w++)
		for (int i = 0; i < s->nmembers; i++)
			if (s->windows[w].buf[i])
				np = find_in_window(s, &s->windows[w], i, h, p, np, max);
	return np;
}
