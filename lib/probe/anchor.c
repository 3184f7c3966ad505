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
#define MAX_AGS 64                   /* XFS allocation groups whose headers are looked for */
#define XFS_CHUNKS 8                 /* inode chunks of each group's inode btree root looked at */
#define MAX_DEFERRED 256

enum anchor_kind { ANCHOR_SUPER, ANCHOR_GDT, ANCHOR_ITABLE, ANCHOR_HEADER, ANCHOR_XFS_SB, ANCHOR_XFS_AGF,
		   ANCHOR_XFS_AGI, ANCHOR_XFS_BTREE, ANCHOR_XFS_INODE };

struct anchor {
	enum anchor_kind kind;
	uint64_t off;                /* array byte */
	uint64_t number;             /* group, descriptor block, first inode, or inode */
};

struct pinning {
	struct probe_sample *s;
	const struct fs_primary *pr;
	const struct ext4_sb *sb;
	struct geometry_spec *spec;
	struct geometry g;
	bool taken[ST_MAX_DISKS];    /* members holding a role */
	bool grown[MAX_GDT];         /* descriptor blocks whose inode tables are listed */
	struct anchor list[MAX_ANCHORS];
	int n;
	struct anchor deferred[MAX_DEFERRED];   /* held by more free members than copies */
	int ndeferred;
	bool second_pass;
	int absent;                  /* roles no given member can hold ("missing", or too few given) */
	int held_by;                 /* the last anchor place() left undecided: a member holding it */
	uint64_t held_at;            /* and where */
	uint8_t *block;
	uint8_t *sum;                /* the XOR of the present members, as block */
	struct pin_tally *t;
};

const char *fs_primary_name(const struct fs_primary *p)
{
	return p->kind == FS_XFS ? "XFS" : "ext4";
}

uint64_t fs_primary_bytes(const struct fs_primary *p)
{
	return p->kind == FS_XFS ? p->xfs.blocks * p->xfs.block_size : p->sb.blocks * p->sb.block_size;
}

bool fs_primary_same_fs(const struct fs_primary *a, const struct fs_primary *b)
{
	if (a->kind != b->kind)
		return false;
	return a->kind == FS_XFS ? xfs_same_fs(&a->xfs, &b->xfs) : ext4_same_fs(&a->sb, &b->sb);
}

static uint32_t anchor_len(const struct pinning *p, const struct anchor *a)
{
	switch (a->kind) {
	case ANCHOR_SUPER: return EXT4_SB_BYTES;
	case ANCHOR_HEADER: return VOLUME_SECTOR;
	case ANCHOR_XFS_SB:
	case ANCHOR_XFS_AGF:
	case ANCHOR_XFS_AGI: return p->pr->xfs.sector_size;
	case ANCHOR_XFS_BTREE: return p->pr->xfs.block_size;
	case ANCHOR_XFS_INODE: return p->pr->xfs.inode_size;
	default: return p->sb->block_size;
	}
}

/* An anchor at filesystem byte off, when it lies wholly inside the
 * filesystem. */
static void add(struct pinning *p, enum anchor_kind kind, uint64_t off, uint64_t number)
{
	struct anchor a = { kind, p->pr->fs_offset + off, number };

	if (p->n < MAX_ANCHORS && off + anchor_len(p, &a) <= fs_primary_bytes(p->pr))
		p->list[p->n++] = a;
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
	case ANCHOR_HEADER:
		return memcmp(buf, p->pr->volume->header, VOLUME_SECTOR) == 0 ? HELD : NOT_HELD;
	case ANCHOR_XFS_SB:
		return xfs_header_check(&p->pr->xfs, XFS_SB, a->number, buf) ? HELD : NOT_HELD;
	case ANCHOR_XFS_AGF:
		return xfs_header_check(&p->pr->xfs, XFS_AGF, a->number, buf) ? HELD : NOT_HELD;
	case ANCHOR_XFS_AGI:
		return xfs_header_check(&p->pr->xfs, XFS_AGI, a->number, buf) ? HELD : NOT_HELD;
	case ANCHOR_XFS_BTREE:
		/* not every root block is in use: only a btree block found says something */
		return xfs_btree_check(&p->pr->xfs, a->off - p->pr->fs_offset, buf) ? HELD : SILENT;
	case ANCHOR_XFS_INODE:
		return xfs_inode_check(&p->pr->xfs, a->number, buf) ? HELD : NOT_HELD;
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

/* The first copy found of each descriptor block, whose inode tables join
 * the list: group 0's, or a backup's where group 0's member is absent
 * (another copy would add the same ones again). */
static bool first_gdt(struct pinning *p, const struct anchor *a)
{
	if (a->kind != ANCHOR_GDT || a->number >= MAX_GDT || p->grown[a->number])
		return false;
	p->grown[a->number] = true;
	return true;
}

/* The inode chunks an XFS inode btree root found records, each inode an
 * anchor: as ext4's inode tables, they spread over the groups. */
static void add_xfs_inodes(struct pinning *p, const struct anchor *a, int member, uint64_t at)
{
	const struct xfs_sb *sb = &p->pr->xfs;
	uint64_t first[XFS_CHUNKS];
	struct diag d;

	if (probe_read(p->s, member, p->block, sb->block_size, at, &d) < 0)
		return;
	int n = xfs_inobt_chunks(sb, (uint32_t)a->number, p->block, first, XFS_CHUNKS);
	for (int k = 0; k < n; k++)
		for (uint64_t ino = first[k]; ino < first[k] + XFS_CHUNK_INODES; ino++)
			if (ino / XFS_CHUNK_INODES != sb->root_inode / XFS_CHUNK_INODES)   /* listed already */
				add(p, ANCHOR_XFS_INODE, xfs_inode_offset(sb, ino), ino);
}

/* What an anchor found leads to: more anchors. */
static void grow(struct pinning *p, const struct anchor *a, int member, uint64_t at)
{
	if (first_gdt(p, a))
		add_inode_tables(p, a, member, at);
	else if (a->kind == ANCHOR_XFS_BTREE)
		add_xfs_inodes(p, a, member, at);
}

/* Are member i's len bytes at member byte at all zero (unread: no)? */
static bool member_zero(struct pinning *p, int i, uint64_t at, uint32_t len)
{
	struct diag d;

	if (probe_read(p->s, i, p->block, len, at, &d) < 0)
		return false;
	for (uint32_t k = 0; k < len; k++)
		if (p->block[k])
			return false;
	return true;
}

/* The roles of array sector s's row that equal its chunk where the rest of
 * the row is zero: P, and RAID6's Q where the chunk is syndrome slot 0
 * (whose coefficient is 1). */
static int parity_twins(const struct pinning *p, uint64_t s, int role, int *twins)
{
	struct stripe_map m;
	int n = 0;

	if (!layout_has_parity(p->g.level))
		return 0;
	layout_stripe(&p->g, s / p->g.chunk_sectors / (uint64_t)p->g.data_disks, &m);
	if (m.pd >= 0)
		twins[n++] = m.pd;
	if (m.qd >= 0 && m.slot[0] == role)
		twins[n++] = m.qd;
	return n;
}

/* Would the row's data chunk read as the anchor too, were the holder
 * RAID4/5's P and the data member the one absent?  That chunk is the XOR
 * of every present member there.  It does when the rest of the row is
 * zero, and also when the rest holds blocks of the same kind whose numbers
 * cancel: ext4's inode checksum is a CRC, linear in the inode's bytes and
 * number, so the XOR of inode-table blocks whose inode numbers XOR to the
 * first's verifies as the first's (consecutive tables across a row do). */
static bool parity_reads_it(struct pinning *p, const struct anchor *a, uint64_t at)
{
	uint32_t len = anchor_len(p, a);
	struct diag d;

	if (p->g.level != MD_LEVEL_RAID4 && p->g.level != MD_LEVEL_RAID5)
		return false;        /* RAID6's Q is no XOR: the zero rule stands alone */
	memset(p->sum, 0, len);
	for (int i = 0; i < p->s->nmembers; i++) {
		if (!p->s->members[i].path)
			continue;
		if (probe_read(p->s, i, p->block, len, at, &d) < 0)
			return false;
		for (uint32_t k = 0; k < len; k++)
			p->sum[k] ^= p->block[k];
	}
	return holds(p, a, p->sum) == HELD;
}

/* Could the one free member that holds anchor a (for role, at member byte
 * at) hold it as the row's P or Q, the data member being absent?  Then it
 * is no evidence for the data role.  It could when a parity role of the
 * row is undecided and the rest of the row is zero there (every other
 * present member but RAID6's other syndrome), or when parity over the
 * rest of the row reads as the anchor too.  An inode-table block need
 * not be alone: inode tables fill whole rows, and crc32c is linear, so the
 * XOR of an odd number of inode blocks verifies as the block of the XOR of
 * their inode numbers, which may be the anchor's own. */
static bool may_be_parity_copy(struct pinning *p, const struct anchor *a, int role, uint64_t at, int holder)
{
	int twins[2], n = parity_twins(p, a->off / 512, role, twins);
	bool open = false;
	unsigned nonzero = 0, room = p->g.level == MD_LEVEL_RAID6;

	if (!p->absent)
		return false;        /* a present data member would hold it too */
	for (int k = 0; k < n; k++)
		open |= p->spec->order[twins[k]] == PROBE_UNKNOWN;
	if (!open)
		return false;
	if (a->kind == ANCHOR_ITABLE)
		return true;
	for (int i = 0; i < p->s->nmembers && nonzero <= room; i++)
		if (i != holder && p->s->members[i].path && !member_zero(p, i, at, anchor_len(p, a)))
			nonzero++;
	return nonzero <= room || parity_reads_it(p, a, at);
}

/* Does member i hold superblock anchor a at member byte at times g^slot? */
static bool scaled_held(struct pinning *p, int i, uint64_t at, const struct anchor *a, int slot)
{
	struct ext4_sb sb;
	struct diag d;

	return probe_read(p->s, i, p->block, EXT4_SB_BYTES, at, &d) == 0 &&
	       ext4_sb_parse_scaled(p->block, slot, &sb) && ext4_same_fs(&sb, p->sb) && sb.group == a->number;
}

/* An anchor whose data member is absent (given as missing, or no free
 * member holds it) still shows where the rest of its row is empty: in P
 * as it is, and in a RAID6's Q times g^slot, the role's place in the
 * syndrome (a superblock's magic finds the power; slot 0 leaves a plain
 * copy).  true when the row's P or Q member, decided, holds it so (what a
 * copy in P leads to counts); else an undecided Q role goes to the one
 * free member that holds a superblock so scaled (a plain copy tells P from
 * data no more than place() can). */
static bool parity_holds(struct pinning *p, const struct anchor *a, int role, uint64_t at)
{
	struct stripe_map m;
	int slot = -1, found = -1, nfound = 0;

	if (!layout_has_parity(p->g.level))
		return false;
	layout_stripe(&p->g, a->off / 512 / p->g.chunk_sectors / (uint64_t)p->g.data_disks, &m);
	int pm = m.pd >= 0 ? p->spec->order[m.pd] : SPEC_MISSING;
	if (pm >= 0 && member_holds(p, pm, at, a) == HELD) {
		grow(p, a, pm, at);
		return true;
	}
	if (m.qd < 0)
		return false;
	for (int j = 0; j < m.syndrome_disks; j++)
		if (m.slot[j] == role)
			slot = j;
	int q = p->spec->order[m.qd];
	if (q >= 0 && slot == 0)
		return member_holds(p, q, at, a) == HELD;
	if (a->kind != ANCHOR_SUPER || slot <= 0)
		return false;
	if (q != PROBE_UNKNOWN)
		return q >= 0 && scaled_held(p, q, at, a, slot);
	for (int i = 0; i < p->s->nmembers; i++)
		if (!p->taken[i] && p->s->members[i].path && scaled_held(p, i, at, a, slot)) {
			nfound++;
			found = i;
		}
	if (nfound != 1)
		return false;
	p->spec->order[m.qd] = found;
	p->taken[found] = true;
	return true;
}

/* Looks for one copy of anchor a at member byte at in role: checks the
 * role's member, or gives the role the one free member that holds it
 * (copies > 1 free members may hold it when they mirror each other).
 * false when more free members hold it than that, or when the one that
 * holds it may be the row's parity with the data member absent: parity
 * equals a chunk whose row is otherwise zero. */
static bool place(struct pinning *p, const struct anchor *a, int role, uint64_t at, int copies)
{
	int *order = p->spec->order, found = -1, nfound = 0;

	if (order[role] == SPEC_MISSING) {
		p->t->hits += parity_holds(p, a, role, at);
		return true;
	}
	if (order[role] >= 0) {
		enum verdict v = member_holds(p, order[role], at, a);
		if (v == HELD) {
			p->t->hits++;
			grow(p, a, order[role], at);
		} else if (v == NOT_HELD) {
			p->t->misses++;
		}
		return true;
	}
	for (int i = 0; i < p->s->nmembers; i++)
		if (!p->taken[i] && p->s->members[i].path && member_holds(p, i, at, a) == HELD) {
			nfound++;
			if (found < 0)
				found = i;
		}
	if (nfound > copies || (nfound == 1 && copies == 1 && may_be_parity_copy(p, a, role, at, found))) {
		p->held_by = found;
		p->held_at = at;
		return false;
	}
	if (!nfound) {
		if (parity_holds(p, a, role, at))
			p->t->hits++;
		else
			p->t->unresolved++;
		return true;
	}
	order[role] = found;
	p->taken[found] = true;
	p->t->hits++;
	grow(p, a, found, at);
	return true;
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
		if (place(p, a, c[k].role, (p->spec->data_offset + c[k].sector) * 512 + a->off % 512,
			  undecided ? undecided : 1))
			continue;
		/* one copy held by several, or by one that may be parity: once
		 * other anchors have given those members their roles, the one
		 * left is this role's */
		if (n == 1 && !p->second_pass && p->ndeferred < MAX_DEFERRED)
			p->deferred[p->ndeferred++] = *a;
		else if (!p->absent)
			p->t->unresolved++;
		else {
			/* where this geometry puts its data or its row's parity:
			 * it fits, deciding no role, and what it leads to counts */
			p->t->hits++;
			grow(p, a, p->held_by, p->held_at);
		}
	}
}

/* Every allocation group's superblock copy, AGF, AGI and btree roots,
 * and the inodes of the root directory's chunk: a run of small anchors
 * over consecutive chunks at the filesystem's start. */
static void plan_xfs(struct pinning *p)
{
	const struct xfs_sb *sb = &p->pr->xfs;
	uint64_t first = sb->root_inode & ~(uint64_t)(XFS_CHUNK_INODES - 1);

	for (uint64_t ino = first; ino < first + XFS_CHUNK_INODES; ino++)
		add(p, ANCHOR_XFS_INODE, xfs_inode_offset(sb, ino), ino);
	for (uint32_t g = 0; g < sb->ag_count && g < MAX_AGS; g++) {
		add(p, ANCHOR_XFS_SB, xfs_header_offset(sb, g, XFS_SB), g);
		add(p, ANCHOR_XFS_AGF, xfs_header_offset(sb, g, XFS_AGF), g);
		add(p, ANCHOR_XFS_AGI, xfs_header_offset(sb, g, XFS_AGI), g);
		for (uint32_t b = 1; b <= XFS_BTREE_ROOTS; b++)
			add(p, ANCHOR_XFS_BTREE, xfs_header_offset(sb, g, XFS_SB) + (uint64_t)b * sb->block_size, g);
	}
}

static void plan(struct pinning *p)
{
	const struct ext4_sb *sb = p->sb;

	if (p->pr->volume && p->n < MAX_ANCHORS)
		p->list[p->n++] = (struct anchor){ ANCHOR_HEADER, p->pr->volume->header_at, 0 };
	if (p->pr->kind == FS_XFS) {
		plan_xfs(p);
		return;
	}
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

bool anchor_refuted(const struct pin_tally *t)
{
	return t->misses >= REFUTED_AFTER && t->misses > t->hits;
}

bool anchor_pin(struct probe_sample *s, const struct fs_primary *pr, struct geometry_spec *spec,
		struct pin_tally *t)
{
	struct pinning *p = calloc(1, sizeof(*p));
	uint64_t sizes[ST_MAX_DISKS];
	bool ok = false;

	memset(t, 0, sizeof(*t));
	size_t block = pr->kind == FS_XFS ? XFS_BLOCK_MAX : pr->sb.block_size;
	if (!p || !(p->block = malloc(block)) || !(p->sum = malloc(block)))
		goto out;
	p->s = s;
	p->pr = pr;
	p->sb = &pr->sb;
	p->spec = spec;
	p->t = t;
	p->absent = probe_absent(s, spec->raid_disks);
	for (int r = 0; r < spec->raid_disks; r++) {
		sizes[r] = spec->size;
		if (spec->order[r] >= 0)
			p->taken[spec->order[r]] = true;
	}
	if (geometry_init(&p->g, spec->level, spec->layout, spec->raid_disks, spec->chunk_sectors, spec->size,
			  sizes, NULL) < 0)
		goto out;
	plan(p);
	int i = 0;
	for (; i < p->n && !anchor_refuted(t); i++)
		resolve(p, &p->list[i]);
	p->second_pass = true;
	for (int k = 0; k < p->ndeferred && !anchor_refuted(t); k++)
		resolve(p, &p->deferred[k]);
	for (; i < p->n && !anchor_refuted(t); i++)     /* what the deferred ones led to */
		resolve(p, &p->list[i]);
	ok = !anchor_refuted(t) && t->hits > 0;
out:
	if (p) {
		free(p->block);
		free(p->sum);
	}
	free(p);
	return ok;
}

/* An ext4 primary superblock at raw (member byte off): the filesystem
 * starts 1024 bytes before it. */
static bool ext4_primary_at(const uint8_t *raw, uint64_t off, struct fs_primary *one)
{
	if (off < EXT4_SB_OFFSET || !ext4_sb_parse(raw, &one->sb) || one->sb.group != 0)
		return false;
	one->kind = FS_EXT4;
	one->data_offset = (off - EXT4_SB_OFFSET) / 512;
	return true;
}

/* An XFS superblock with AG 0's AGF after it: the filesystem starts there
 * (a copy in another group is followed by that group's AGF). */
static bool xfs_primary_at(const uint8_t *raw, size_t room, uint64_t off, struct fs_primary *one)
{
	if (room < XFS_SECTOR_MAX || !xfs_sb_parse(raw, &one->xfs) ||
	    !xfs_header_check(&one->xfs, XFS_AGF, 0, raw + one->xfs.sector_size))
		return false;
	one->kind = FS_XFS;
	one->data_offset = off / 512;
	return true;
}

/* The sample's windows looked over at every sector for a primary
 * superblock. */
static int find_in_window(const struct probe_sample *s, const struct probe_window *w, int member,
			  const struct probe_hints *h, struct fs_primary *p, int np, int max)
{
	for (size_t at = 0; at + EXT4_SB_BYTES <= w->len && np < max; at += 512) {
		uint64_t off = w->offset + at;
		const uint8_t *raw = w->buf[member] + at;
		struct fs_primary one = { .member = member, .offset = off };
		if (!ext4_primary_at(raw, off, &one) && !xfs_primary_at(raw, w->len - at, off, &one))
			continue;
		if (h->data_offset != UINT64_MAX && h->data_offset != one.data_offset)
			continue;
		bool known = false;
		for (int k = 0; k < np && !known; k++)
			known = p[k].data_offset == one.data_offset && fs_primary_same_fs(&p[k], &one);
		if (!known)
			p[np++] = one;
	}
	return np;
}

int anchor_find_primaries(const struct probe_sample *s, const struct probe_hints *h,
			  struct fs_primary *p, int max)
{
	int np = 0;

	for (int w = 0; w < s->nwindows; w++)
		for (int i = 0; i < s->nmembers; i++)
			if (s->windows[w].buf[i])
				np = find_in_window(s, &s->windows[w], i, h, p, np, max);
	return np;
}

/* Any primary superblock in the sample, whichever member and place:
 * inside a volume it lies wherever the geometry puts the volume's start. */
int anchor_in_volume(const struct probe_sample *s, const struct volume *v, struct fs_primary *p, int max)
{
	const struct probe_hints anywhere = { .level = -1, .layout = -1, .data_offset = UINT64_MAX };
	struct fs_primary found[8];
	int nfound = anchor_find_primaries(s, &anywhere, found, 8), n = 0;

	for (int k = 0; k < nfound && n < max; k++) {
		bool known = false;
		for (int j = 0; j < n && !known; j++)
			known = fs_primary_same_fs(&p[j], &found[k]);
		if (!known) {
			p[n] = found[k];
			p[n].member = v->member;
			p[n].offset = v->data_offset * 512 + v->header_at;
			p[n].data_offset = v->data_offset;
			p[n].fs_offset = v->fs_offset;
			p[n++].volume = v;
		}
	}
	return n;
}
