/* xfs_score: an XFS judged through a geometry by its allocation group
 * headers, each group's inode btree root and the inodes of the chunks it
 * records.  Each carries its own number (v5: a CRC and the UUID too), so
 * one a wrong geometry reads from another place fails.  Up to MAX_AGS
 * groups, CHUNKS inode chunks each: a few hundred KiB in all. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe/fs_score.h"
#include "probe/xfs_score.h"
#include "raid/stripe.h"

#define MAX_AGS 64
#define CHUNKS 8

struct fill {
	uint8_t *p;
};

static int fill_sink(void *ctx, const void *buf, size_t len, struct diag *d)
{
	struct fill *f = ctx;

	memcpy(f->p, buf, len);
	f->p += len;
	return 0;
}

struct reading {
	struct array *a;
	const struct xfs_sb *sb;
	uint64_t fs_offset;
	struct xfs_tally *t;
	uint8_t *buf;                /* XFS_BLOCK_MAX */
};

/* Filesystem bytes [off, off + len) into r->buf. */
static bool read_fs(struct reading *r, uint64_t off, size_t len)
{
	struct fill f = { r->buf };
	struct diag d;
	uint64_t at = r->fs_offset + off;

	if (len > XFS_BLOCK_MAX || at + len > r->a->geo.array_sectors * 512 ||
	    stripe_read(r->a, at, len, fill_sink, &f, &d) < 0)
		return false;
	r->t->bytes_read += len;
	return true;
}

/* The inodes of one chunk, each naming its number. */
static void count_chunk(struct reading *r, uint64_t first)
{
	const struct xfs_sb *sb = r->sb;

	r->t->expected += XFS_CHUNK_INODES;
	if (!read_fs(r, xfs_inode_offset(sb, first), (size_t)XFS_CHUNK_INODES * sb->inode_size))
		return;
	for (uint32_t k = 0; k < XFS_CHUNK_INODES; k++)
		r->t->verified += xfs_inode_check(sb, first + k, r->buf + (size_t)k * sb->inode_size);
}

/* The three headers at a group's start, then its inode btree's root and,
 * when that is a leaf, the chunks it records. */
static void count_group(struct reading *r, uint32_t g)
{
	static const enum xfs_header kinds[] = { XFS_SB, XFS_AGF, XFS_AGI };
	const struct xfs_sb *sb = r->sb;
	uint64_t first[CHUNKS];

	r->t->expected += 3;
	if (!read_fs(r, xfs_header_offset(sb, g, XFS_SB), 3u * sb->sector_size))
		return;
	for (int k = 0; k < 3; k++)
		r->t->verified += xfs_header_check(sb, kinds[k], g, r->buf + (size_t)k * sb->sector_size);
	if (!sb->v5 || !xfs_header_check(sb, XFS_AGI, g, r->buf + 2u * sb->sector_size))
		return;
	uint64_t root = ((uint64_t)g * sb->ag_blocks + xfs_agi_root(r->buf + 2u * sb->sector_size)) * sb->block_size;
	r->t->expected++;
	if (!read_fs(r, root, sb->block_size) || !xfs_btree_check(sb, root, r->buf))
		return;
	r->t->verified++;
	int n = xfs_inobt_chunks(sb, g, r->buf, first, CHUNKS);
	for (int k = 0; k < n; k++)
		count_chunk(r, first[k]);
}

int xfs_score(struct probe_sample *s, const struct geometry_spec *spec, uint64_t fs_offset,
	      const struct xfs_sb *sb, struct xfs_tally *t, struct diag *d)
{
	struct array a;

	memset(t, 0, sizeof(*t));
	int n = probe_array_open(s, spec, &a, d);
	if (n < 0)
		return -1;
	struct reading r = { &a, sb, fs_offset, t, malloc(XFS_BLOCK_MAX) };
	for (uint32_t g = 0; r.buf && g < sb->ag_count && g < MAX_AGS; g++) {
		unsigned before = t->verified;
		count_group(&r, g);
		if (g == 0)
			t->opened = t->verified - before >= 3;
	}
	free(r.buf);
	s->bytes_read += t->bytes_read / (uint64_t)(n ? n : 1);
	array_close(&a);
	if (!r.buf)
		return diag_fail(d, "out of memory");
	return 0;
}

double xfs_tally_score(const struct xfs_tally *t)
{
	return t->opened && t->expected ? (double)t->verified / t->expected : 0;
}

void xfs_tally_line(const struct xfs_tally *t, char *buf, size_t len)
{
	if (!t->opened)
		snprintf(buf, len, "XFS: no allocation group 0 where this geometry puts the filesystem's start");
	else
		snprintf(buf, len, "XFS: %u/%u allocation group headers, inode btree roots and inodes verified where this geometry puts them",
			 t->verified, t->expected);
}
