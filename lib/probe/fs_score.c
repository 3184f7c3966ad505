/* fs_score: a geometry judged by the filesystem it reads.  The members are
 * formed into an array as the geometry says (array_open_spec, so a missing
 * role reads reconstructed bytes) and libext2fs opens the ext4 on it
 * through ext2io; then the group descriptors, the backup superblocks and a
 * bounded walk from the root directory (inodes, directory blocks, extent
 * blocks) are counted.  Every checksum covers the object's number, so
 * under a wrong geometry what lands in the wrong place fails. */
#include <ext2fs/ext2fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe/ext4.h"
#include "probe/fs_score.h"
#include "raid/ext2io.h"

#define OPEN_FLAGS (EXT2_FLAG_64BITS | EXT2_FLAG_IGNORE_CSUM_ERRORS | EXT2_FLAG_IGNORE_SB_ERRORS)
#define WALK_DIRS 32                 /* directories walked from the root */
#define WALK_INODES 400              /* inodes read */
#define WALK_BYTES (4u << 20)        /* array bytes the walk may read */
#define WINDOW (64u << 10)           /* scattered metadata: small reads */
#define EXTENT_BLOCKS 16             /* extent blocks read under one inode */

struct walk {
	ext2_filsys fs;
	struct ext2io *io;
	struct fs_tally *t;
	ext2_ino_t dirs[WALK_DIRS];
	int ndirs;
	unsigned inodes;
	uint64_t bytes_before;       /* what opening the filesystem read */
	uint8_t *inode;              /* one inode, the filesystem's inode size */
};

static void count(struct fs_tally *t, errcode_t err)
{
	if (err)
		t->walk_failed++;
	else
		t->walk_verified++;
}

static bool walk_spent(const struct walk *w)
{
	return w->inodes >= WALK_INODES || ext2io_bytes_read(w->io) - w->bytes_before > WALK_BYTES;
}

static void count_descriptors(ext2_filsys fs, struct fs_tally *t)
{
	if (!ext2fs_has_group_desc_csum(fs))
		return;
	for (dgrp_t g = 0; g < fs->group_desc_count; g++)
		if (ext2fs_group_desc_csum_verify(fs, g))
			t->desc_verified++;
		else
			t->desc_failed++;
}

/* Each backup superblock where the primary says it lies, naming its group
 * and the filesystem's uuid. */
static void count_backups(ext2_filsys fs, struct fs_tally *t)
{
	uint8_t raw[EXT4_SB_BYTES];
	struct ext4_sb sb;

	for (dgrp_t g = 1; g < fs->group_desc_count; g++) {
		if (!ext2fs_bg_has_super(fs, g))
			continue;
		blk64_t at = ext2fs_group_first_block2(fs, g);
		t->backups_expected++;
		if (io_channel_read_blk64(fs->io, at, -(int)sizeof(raw), raw) == 0 && ext4_sb_parse(raw, &sb) &&
		    sb.group == g && memcmp(sb.uuid, fs->super->s_uuid, sizeof(sb.uuid)) == 0)
			t->backups_found++;
	}
}

/* The extent blocks below an inode's root, each read verifying its
 * checksum: every index entry, on its first visit, leads to one. */
static void count_extents(struct walk *w, ext2_ino_t ino)
{
	ext2_extent_handle_t h;
	struct ext2_extent_info info;
	struct ext2fs_extent e;
	errcode_t err;
	int op = EXT2_EXTENT_ROOT;
	unsigned seen = 0;

	if (ext2fs_extent_open2(w->fs, ino, (struct ext2_inode *)w->inode, &h))
		return;
	if (ext2fs_extent_get_info(h, &info) == 0 && info.max_depth > 0) {
		while ((err = ext2fs_extent_get(h, op, &e)) == 0 && seen < EXTENT_BLOCKS && !walk_spent(w)) {
			op = EXT2_EXTENT_NEXT;
			if (!(e.e_flags & EXT2_EXTENT_FLAGS_LEAF) && !(e.e_flags & EXT2_EXTENT_FLAGS_SECOND_VISIT))
				seen++;
		}
		if (err && err != EXT2_ET_EXTENT_NO_NEXT)
			count(w->t, err);
		else
			w->t->walk_verified += seen;
	}
	ext2fs_extent_free(h);
}

static void read_inode(struct walk *w, ext2_ino_t ino)
{
	struct ext2_inode *in = (struct ext2_inode *)w->inode;
	errcode_t err = ext2fs_read_inode_full(w->fs, ino, in, EXT2_INODE_SIZE(w->fs->super));

	w->inodes++;
	/* libext2fs passes an all-zero inode as verified; one a directory
	 * names is in use, so under this geometry it was not found */
	if (!err && (!in->i_mode || !in->i_links_count))
		err = EXT2_ET_INODE_CSUM_INVALID;
	count(w->t, err);
	if (err)
		return;
	if (in->i_flags & EXT4_EXTENTS_FL)
		count_extents(w, ino);
	if (LINUX_S_ISDIR(in->i_mode) && w->ndirs < WALK_DIRS)
		w->dirs[w->ndirs++] = ino;
}

static int dir_entry(ext2_ino_t dir, int entry, struct ext2_dir_entry *dirent, int offset, int blocksize,
		     char *buf, void *priv)
{
	struct walk *w = priv;

	if (entry == DIRENT_DOT_FILE || entry == DIRENT_DOT_DOT_FILE || !dirent->inode)
		return 0;
	if (walk_spent(w))
		return DIRENT_ABORT;
	read_inode(w, dirent->inode);
	return 0;
}

/* Breadth first from the root: a directory's blocks verify as a whole
 * when ext2fs_dir_iterate2 reads them all. */
static void walk_tree(struct walk *w)
{
	read_inode(w, EXT2_ROOT_INO);
	for (int i = 0; i < w->ndirs && !walk_spent(w); i++) {
		errcode_t err = ext2fs_dir_iterate2(w->fs, w->dirs[i], 0, NULL, dir_entry, w);
		count(w->t, err);
	}
}

static void read_filesystem(struct ext2io *io, struct fs_tally *t)
{
	ext2_filsys fs;

	if (ext2fs_open2(ext2io_name(io), NULL, OPEN_FLAGS, 0, 0, ext2io_manager(), &fs))
		return;
	t->opened = true;
	count_descriptors(fs, t);
	count_backups(fs, t);
	/* from here a checksum that fails is an error to count */
	fs->flags &= ~EXT2_FLAG_IGNORE_CSUM_ERRORS;
	struct walk w = { .fs = fs, .io = io, .t = t, .bytes_before = ext2io_bytes_read(io) };
	w.inode = calloc(1, EXT2_INODE_SIZE(fs->super));
	if (w.inode)
		walk_tree(&w);
	free(w.inode);
	ext2fs_close_free(&fs);
}

/* The members the spec names, in the order array_open_spec takes them,
 * and the spec renumbered to that list. */
static int spec_members(const struct probe_sample *s, const struct geometry_spec *spec,
			struct geometry_spec *local, char **paths)
{
	int n = 0;

	*local = *spec;
	for (int r = 0; r < spec->raid_disks; r++) {
		int i = spec->order[r];
		if (i < 0 || !s->members[i].path) {
			local->order[r] = SPEC_MISSING;
			continue;
		}
		paths[n] = (char *)s->members[i].path;   /* array_open_spec only opens it */
		local->order[r] = n++;
	}
	return n;
}

int probe_array_open(const struct probe_sample *s, const struct geometry_spec *spec, struct array *a,
		     struct diag *d)
{
	struct geometry_spec local;
	char *paths[ST_MAX_DISKS];
	int n = spec_members(s, spec, &local, paths);

	if (array_open_spec(a, paths, n, &local, d) < 0) {
		array_close(a);
		return -1;
	}
	return n;
}

int fs_score(struct probe_sample *s, const struct geometry_spec *spec, uint64_t fs_offset, struct fs_tally *t,
	     struct diag *d)
{
	struct array a;

	memset(t, 0, sizeof(*t));
	int n = probe_array_open(s, spec, &a, d);
	if (n < 0)
		return -1;
	struct ext2io *io = ext2io_new(&a, WINDOW);
	if (!io) {
		array_close(&a);
		return diag_fail(d, "out of memory");
	}
	ext2io_set_start(io, fs_offset);
	initialize_ext2_error_table();
	read_filesystem(io, t);
	t->bytes_read = ext2io_bytes_read(io);
	s->bytes_read += t->bytes_read / (uint64_t)(n ? n : 1);
	ext2io_free(io);
	array_close(&a);
	return 0;
}

static double part(unsigned good, unsigned all)
{
	return all ? (double)good / all : 1;
}

/* A checksum that fails where a geometry puts its block is near proof
 * against it: a sound filesystem fails none under its own geometry.  A
 * wrong one can still verify most of what it reads, where the chunk it
 * takes for data is its row's parity and the row's other chunks are
 * unused (P is then a copy of the one in use): large chunks on a young
 * filesystem make most rows so.  Each failure halves the score. */
static double failures_weigh(unsigned failed)
{
	double w = 1;

	for (unsigned i = 0; i < failed && w > 0x1p-30; i++)
		w /= 2;
	return w;
}

/* The parts multiply: descriptors all lie in the first chunk and say
 * little of the rest, while one directory that fails under a geometry
 * stops the walk, whose few reads must then weigh as much as many. */
double fs_tally_score(const struct fs_tally *t)
{
	if (!t->opened)
		return 0;
	return part(t->desc_verified, t->desc_verified + t->desc_failed) *
	       part(t->backups_found, t->backups_expected) *
	       part(t->walk_verified, t->walk_verified + t->walk_failed) *
	       failures_weigh(t->desc_failed + t->walk_failed);
}

void fs_tally_line(const struct fs_tally *t, char *buf, size_t len)
{
	unsigned ok = t->desc_verified + t->walk_verified;

	if (!t->opened)
		snprintf(buf, len, "ext4: no superblock where this geometry puts the filesystem's start");
	else
		snprintf(buf, len, "ext4: %u/%u checksummed metadata blocks verified; backup superblocks at %u/%u predicted places",
			 ok, ok + t->desc_failed + t->walk_failed, t->backups_found, t->backups_expected);
}
