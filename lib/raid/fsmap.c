/* fsmap: name what an ext2/3/4 filesystem keeps at array bytes.  libext2fs
 * reads the filesystem through ext2io's read-only io_manager over the
 * array.  One pass marks
 * the wanted blocks: group metadata first, then every inode in use (extent
 * trees walked extent by extent, indirect maps block by block), then the
 * block bitmap for what no inode owns; only the inodes hit get a path. */
#include <errno.h>
#include <et/com_err.h>
#include <ext2fs/ext2fs.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "raid/ext2io.h"
#include "raid/fsmap.h"

#define OPEN_FLAGS (EXT2_FLAG_64BITS | EXT2_FLAG_IGNORE_CSUM_ERRORS | EXT2_FLAG_IGNORE_SB_ERRORS)

struct fsmap {
	struct ext2io *src;
	ext2_filsys fs;
};

static int open_failed(struct fsmap *m, errcode_t err, struct diag *d)
{
	struct diag why;

	if (err == EXT2_ET_BAD_MAGIC && !ext2io_failed(m->src, NULL))
		return diag_fail(d, "no ext2/3/4 filesystem on the array");
	if (ext2io_failed(m->src, &why))
		return diag_fail(d, "the filesystem on the array cannot be read: %s", why.msg);
	return diag_fail(d, "the ext2/3/4 filesystem on the array cannot be opened: %s", error_message(err));
}

/* libext2fs reports some damage itself, through com_err on stderr and
 * without the tool's name (a bitmap asked about a block it does not cover,
 * say).  While a filesystem is open its reports come here instead: the
 * first is said in one line under the tool's name, the rest, which repeat
 * it block by block, are dropped.  A com_err hook takes no context, hence
 * the one flag. */
static atomic_bool ext2fs_spoke;

static void ext2fs_report(const char *whoami, errcode_t code, const char *fmt, va_list ap)
{
	char msg[512];

	if (atomic_exchange(&ext2fs_spoke, true))
		return;
	vsnprintf(msg, sizeof(msg), fmt ? fmt : "", ap);
	fprintf(stderr, "%s: --files: libext2fs%s%s: %s%s%s\n", program_invocation_short_name,
		whoami ? ", " : "", whoami ? whoami : "", code ? error_message(code) : "",
		code && msg[0] ? " " : "", msg);
}

int fsmap_open(struct array *a, struct fsmap **out, struct diag *d)
{
	struct fsmap *m;
	errcode_t err, e;
	unsigned bs;

	*out = NULL;
	m = calloc(1, sizeof(*m));
	if (!m)
		return diag_fail(d, "out of memory");
	m->src = ext2io_new(a, 1u << 20);
	if (!m->src) {
		free(m);
		return diag_fail(d, "out of memory");
	}
	initialize_ext2_error_table();
	atomic_store(&ext2fs_spoke, false);
	set_com_err_hook(ext2fs_report);
	err = ext2fs_open2(ext2io_name(m->src), NULL, OPEN_FLAGS, 0, 0, ext2io_manager(), &m->fs);
	/* the primary superblock may be what is damaged: try the first backup
	 * for each block size, as e2fsck does */
	for (bs = 1024; err && bs <= 65536; bs *= 2) {
		unsigned sb = bs == 1024 ? 8193 : bs * 8;

		if ((uint64_t)sb * bs + 1024 > a->geo.array_sectors * 512)
			break;
		e = ext2fs_open2(ext2io_name(m->src), NULL, OPEN_FLAGS, (int)sb, bs, ext2io_manager(), &m->fs);
		if (!e)
			err = 0;
	}
	if (err) {
		open_failed(m, err, d);
		fsmap_close(m);
		return -1;
	}
	*out = m;
	return 0;
}

void fsmap_close(struct fsmap *m)
{
	if (!m)
		return;
	if (m->fs)
		ext2fs_close_free(&m->fs);
	reset_com_err_hook();
	ext2io_free(m->src);
	free(m);
}

/* ---- describing blocks ---- */

enum own_kind {
	OWN_NONE,
	OWN_BEYOND,
	OWN_BOOT,
	OWN_SUPER,
	OWN_GDT,
	OWN_RGDT,
	OWN_BBITMAP,
	OWN_IBITMAP,
	OWN_ITABLE,
	OWN_MMP,
	OWN_DATA,                    /* an inode's data; base is the logical block */
	OWN_MAP,                     /* an inode's extent tree or indirect block */
	OWN_EA,                      /* an inode's extended attribute block */
	OWN_FREE,
	OWN_USED,                    /* in use by the bitmap, owned by no inode found */
	OWN_UNKNOWN,                 /* owned by no inode, and no bitmap to tell */
};

/* What a wanted filesystem block holds; sorted by blk. */
struct owner {
	blk64_t blk;
	enum own_kind kind;
	ext2_ino_t ino;
	dgrp_t group;
	blk64_t base;                /* DATA: logical block; ITABLE: first block of the table */
	bool unwritten;
};

/* An inode that owns a wanted block. */
struct named {
	ext2_ino_t ino;
	uint16_t mode;
	bool extents;
	const char *special;         /* "journal", ... for the filesystem's own inodes */
	ext2_ino_t parent;           /* a directory with an entry for it, 0 if none found */
	char *path;                  /* ext2fs memory, NULL if none */
};

struct scan {
	ext2_filsys fs;
	struct ext2io *src;
	struct owner *own;
	size_t nown, unowned;
	ext2_ino_t ino;              /* the inode being walked */
	struct ext2_inode *inode;
	ext2_ino_t *dirs;            /* directories in use, for naming files */
	size_t ndirs, capdirs;
	struct named *names;
	size_t nnames, unnamed;
};

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

/* First owner with blk >= b. */
static size_t lower(const struct scan *s, blk64_t b)
{
	size_t lo = 0, hi = s->nown;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->own[mid].blk < b)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Gives blocks [blk, blk + n) that have no owner yet to kind; for data,
 * base is the logical block of blk. */
static void mark(struct scan *s, blk64_t blk, blk64_t n, enum own_kind kind, dgrp_t group, blk64_t base)
{
	size_t i;

	if (!n || !s->unowned)
		return;
	for (i = lower(s, blk); i < s->nown && s->own[i].blk - blk < n; i++) {
		struct owner *o = &s->own[i];

		if (o->kind != OWN_NONE)
			continue;
		o->kind = kind;
		o->group = group;
		o->ino = kind == OWN_DATA || kind == OWN_MAP || kind == OWN_EA ? s->ino : 0;
		o->base = kind == OWN_DATA ? base + (o->blk - blk) : base;
		s->unowned--;
	}
}

static void mark_groups(struct scan *s)
{
	ext2_filsys fs = s->fs;
	struct ext2_super_block *sb = fs->super;
	blk64_t super, old_desc, new_desc, end = ext2fs_blocks_count(sb), old_blocks;
	size_t i;
	dgrp_t g;

	for (i = 0; i < s->nown; i++) {
		if (s->own[i].blk >= end)
			s->own[i].kind = OWN_BEYOND;
		else if (s->own[i].blk < sb->s_first_data_block)
			s->own[i].kind = OWN_BOOT;
		else
			continue;
		s->unowned--;
	}
	old_blocks = ext2fs_has_feature_meta_bg(sb) ? sb->s_first_meta_bg : fs->desc_blocks;
	for (g = 0; g < fs->group_desc_count && s->unowned; g++) {
		if (ext2fs_super_and_bgd_loc2(fs, g, &super, &old_desc, &new_desc, NULL) == 0) {
			if (super || g == 0)
				mark(s, super, 1, OWN_SUPER, g, 0);
			if (old_desc) {
				mark(s, old_desc, old_blocks, OWN_GDT, g, 0);
				if (!ext2fs_has_feature_meta_bg(sb))
					mark(s, old_desc + old_blocks, sb->s_reserved_gdt_blocks, OWN_RGDT, g, 0);
			}
			if (new_desc)
				mark(s, new_desc, 1, OWN_GDT, g, 0);
		}
		if (ext2fs_block_bitmap_loc(fs, g))
			mark(s, ext2fs_block_bitmap_loc(fs, g), 1, OWN_BBITMAP, g, 0);
		if (ext2fs_inode_bitmap_loc(fs, g))
			mark(s, ext2fs_inode_bitmap_loc(fs, g), 1, OWN_IBITMAP, g, 0);
		if (ext2fs_inode_table_loc(fs, g))
			mark(s, ext2fs_inode_table_loc(fs, g), fs->inode_blocks_per_group, OWN_ITABLE, g,
			     ext2fs_inode_table_loc(fs, g));
	}
	if (ext2fs_has_feature_mmp(sb) && sb->s_mmp_block)
		mark(s, sb->s_mmp_block, 1, OWN_MMP, 0, 0);
}

static int iterate_block(ext2_filsys fs, blk64_t *blocknr, e2_blkcnt_t blockcnt, blk64_t ref_blk,
			 int ref_offset, void *priv)
{
	struct scan *s = priv;

	if (blockcnt >= 0)
		mark(s, *blocknr, 1, OWN_DATA, 0, (blk64_t)blockcnt);
	else
		mark(s, *blocknr, 1, OWN_MAP, 0, 0);
	return s->unowned ? 0 : BLOCK_ABORT;
}

/* Marks an extent-mapped inode's blocks, an extent at a time. */
static void walk_extents(struct scan *s)
{
	ext2_extent_handle_t h;
	struct ext2fs_extent e;
	int op = EXT2_EXTENT_ROOT;
	size_t i;

	if (ext2fs_extent_open2(s->fs, s->ino, s->inode, &h))
		return;
	while (s->unowned && ext2fs_extent_get(h, op, &e) == 0) {
		op = EXT2_EXTENT_NEXT;
		if (e.e_flags & EXT2_EXTENT_FLAGS_SECOND_VISIT)
			continue;
		if (!(e.e_flags & EXT2_EXTENT_FLAGS_LEAF)) {
			mark(s, e.e_pblk, 1, OWN_MAP, 0, 0);
			continue;
		}
		i = lower(s, e.e_pblk);
		mark(s, e.e_pblk, e.e_len, OWN_DATA, 0, e.e_lblk);
		for (; (e.e_flags & EXT2_EXTENT_FLAGS_UNINIT) && i < s->nown && s->own[i].blk - e.e_pblk < e.e_len; i++)
			if (s->own[i].kind == OWN_DATA && s->own[i].ino == s->ino)
				s->own[i].unwritten = true;
	}
	ext2fs_extent_free(h);
}

static int add_dir(struct scan *s, ext2_ino_t ino)
{
	if (s->ndirs == s->capdirs) {
		size_t cap = s->capdirs ? s->capdirs * 2 : 256;
		ext2_ino_t *p = realloc(s->dirs, cap * sizeof(*p));

		if (!p)
			return -1;
		s->dirs = p;
		s->capdirs = cap;
	}
	s->dirs[s->ndirs++] = ino;
	return 0;
}

/* One pass over the inode tables: every inode in use marks its blocks and
 * every directory is noted. */
static int scan_inodes(struct scan *s, bool have_bitmaps, struct diag *d)
{
	ext2_filsys fs = s->fs;
	int isize = EXT2_INODE_SIZE(fs->super);
	ext2_inode_scan is;
	errcode_t err;
	ext2_ino_t ino;
	int rc = 0;

	s->inode = calloc(1, (size_t)isize > sizeof(struct ext2_inode_large) ? (size_t)isize
						 : sizeof(struct ext2_inode_large));
	if (!s->inode)
		return diag_fail(d, "out of memory");
	err = ext2fs_open_inode_scan(fs, 0, &is);
	if (err)
		return diag_fail(d, "scanning the inodes: %s", error_message(err));
	ext2fs_inode_scan_flags(is, EXT2_SF_SKIP_MISSING_ITABLE, 0);
	for (;;) {
		struct ext2_inode *in = s->inode;
		blk64_t acl;

		err = ext2fs_get_next_inode_full(is, &ino, in, isize);
		if (err == EXT2_ET_BAD_BLOCK_IN_INODE_TABLE || err == EXT2_ET_INODE_CSUM_INVALID ||
		    err == EXT2_ET_INODE_IS_GARBAGE)
			continue;
		if (err) {
			struct diag why;

			rc = diag_fail(d, "scanning the inodes: %s",
				       ext2io_failed(s->src, &why) ? why.msg : error_message(err));
			break;
		}
		if (!ino)
			break;
		if (have_bitmaps ? !ext2fs_test_inode_bitmap2(fs->inode_map, ino)
				 : !in->i_links_count && (ino >= EXT2_FIRST_INO(fs->super) || !in->i_blocks))
			continue;
		if (LINUX_S_ISDIR(in->i_mode) && add_dir(s, ino) < 0) {
			rc = diag_fail(d, "out of memory");
			break;
		}
		if (!s->unowned)
			continue;
		s->ino = ino;
		acl = ext2fs_file_acl_block(fs, in);
		if (acl)
			mark(s, acl, 1, OWN_EA, 0, 0);
		if (!ext2fs_inode_has_valid_blocks2(fs, in))
			continue;
		if (in->i_flags & EXT4_EXTENTS_FL)
			walk_extents(s);
		else
			ext2fs_block_iterate3(fs, ino, BLOCK_FLAG_READ_ONLY, NULL, iterate_block, s);
	}
	ext2fs_close_inode_scan(is);
	return rc;
}

/* The label of the filesystem's own inodes, NULL for files and directories. */
static const char *special_inode(ext2_filsys fs, ext2_ino_t ino)
{
	struct ext2_super_block *sb = fs->super;

	if (ext2fs_has_feature_journal(sb) && ino == sb->s_journal_inum)
		return "journal";
	if (ino == sb->s_usr_quota_inum)
		return "user quota";
	if (ino == sb->s_grp_quota_inum)
		return "group quota";
	if (ino == sb->s_prj_quota_inum)
		return "project quota";
	if (ino == sb->s_orphan_file_inum)
		return "orphan file";
	switch (ino) {
	case EXT2_ROOT_INO: return NULL;
	case EXT2_BAD_INO: return "bad blocks list";
	case EXT4_USR_QUOTA_INO: return "user quota";
	case EXT4_GRP_QUOTA_INO: return "group quota";
	case EXT2_BOOT_LOADER_INO: return "boot loader";
	case EXT2_UNDEL_DIR_INO: return "undelete directory";
	case EXT2_RESIZE_INO: return "resize inode";
	case EXT2_JOURNAL_INO: return "journal";
	case EXT2_EXCLUDE_INO: return "exclude inode";
	case EXT4_REPLICA_INO: return "replica inode";
	}
	return ino < EXT2_FIRST_INO(sb) ? "reserved inode" : NULL;
}

static int cmp_named(const void *x, const void *y)
{
	ext2_ino_t a = ((const struct named *)x)->ino, b = ((const struct named *)y)->ino;

	return a < b ? -1 : a > b;
}

static struct named *find_named(struct scan *s, ext2_ino_t ino)
{
	struct named key = { .ino = ino };

	return bsearch(&key, s->names, s->nnames, sizeof(*s->names), cmp_named);
}

static int dir_entry(ext2_ino_t dir, int entry, struct ext2_dir_entry *dirent, int offset, int blocksize,
		     char *buf, void *priv)
{
	struct scan *s = priv;
	struct named *n;

	if (entry == DIRENT_DOT_FILE || entry == DIRENT_DOT_DOT_FILE || !dirent->inode)
		return 0;
	n = find_named(s, dirent->inode);
	if (n && !n->special && !n->parent && !LINUX_S_ISDIR(n->mode)) {
		n->parent = dir;
		if (--s->unnamed == 0)
			return DIRENT_ABORT;
	}
	return 0;
}

/* The inodes hit, with paths: directories know their parent; for files
 * the directories are searched for an entry (the first of hard links). */
static int name_inodes(struct scan *s, struct diag *d)
{
	size_t i, j;

	for (i = 0; i < s->nown; i++)
		if (s->own[i].ino)
			s->nnames++;
	if (!s->nnames)
		return 0;
	s->names = calloc(s->nnames, sizeof(*s->names));
	if (!s->names)
		return diag_fail(d, "out of memory");
	for (i = j = 0; i < s->nown; i++)
		if (s->own[i].ino)
			s->names[j++].ino = s->own[i].ino;
	qsort(s->names, s->nnames, sizeof(*s->names), cmp_named);
	for (i = j = 0; i < s->nnames; i++)
		if (!j || s->names[j - 1].ino != s->names[i].ino)
			s->names[j++] = s->names[i];
	s->nnames = j;
	for (i = 0; i < s->nnames; i++) {
		struct named *n = &s->names[i];
		struct ext2_inode in;

		n->special = special_inode(s->fs, n->ino);
		if (ext2fs_read_inode(s->fs, n->ino, &in) == 0) {
			n->mode = in.i_mode;
			n->extents = in.i_flags & EXT4_EXTENTS_FL;
		}
		if (n->special)
			continue;
		if (LINUX_S_ISDIR(n->mode)) {
			if (ext2fs_get_pathname(s->fs, n->ino, 0, &n->path))
				n->path = NULL;
		} else {
			s->unnamed++;
		}
	}
	for (i = 0; s->unnamed && i < s->ndirs; i++)
		ext2fs_dir_iterate2(s->fs, s->dirs[i], 0, NULL, dir_entry, s);
	for (i = 0; i < s->nnames; i++) {
		struct named *n = &s->names[i];

		if (n->parent && ext2fs_get_pathname(s->fs, n->parent, n->ino, &n->path))
			n->path = NULL;
	}
	return 0;
}

/* Whether owner b, the next block after a, continues a's description. */
static bool same_owner(const struct owner *a, const struct owner *b)
{
	if (a->kind != b->kind || a->ino != b->ino || a->group != b->group)
		return false;
	if (a->kind == OWN_DATA)
		return b->base == a->base + 1 && b->unwritten == a->unwritten;
	return a->base == b->base;
}

/* "file /x", "directory /d", "journal" ... */
static void print_who(FILE *f, const struct named *n)
{
	const char *what = LINUX_S_ISDIR(n->mode) ? "directory" : LINUX_S_ISLNK(n->mode) ? "symlink"
			 : LINUX_S_ISREG(n->mode) ? "file" : "special file";

	if (n->special)
		fprintf(f, "%s", n->special);
	else if (n->path)
		fprintf(f, "%s %s", what, n->path);
	else
		fprintf(f, "%s with no name found", what);
}

/* Describes array bytes [from, to) held by the blocks of owners a..b. */
static void print_piece(FILE *f, struct scan *s, const struct owner *a, const struct owner *b,
			uint64_t from, uint64_t to)
{
	ext2_filsys fs = s->fs;
	uint64_t bs = fs->blocksize;
	const struct named *n = a->ino ? find_named(s, a->ino) : NULL;
	struct named none = { .ino = a->ino };

	if (a->ino && !n)
		n = &none;
	switch (a->kind) {
	case OWN_BEYOND: fprintf(f, "beyond the filesystem"); break;
	case OWN_BOOT: fprintf(f, "metadata (boot block)"); break;
	case OWN_SUPER:
		if (a->group)
			fprintf(f, "metadata (backup superblock in group %u)", a->group);
		else
			fprintf(f, "metadata (superblock)");
		break;
	case OWN_GDT:
		if (a->group)
			fprintf(f, "metadata (group descriptors in group %u)", a->group);
		else
			fprintf(f, "metadata (group descriptors)");
		break;
	case OWN_RGDT: fprintf(f, "metadata (reserved group descriptor blocks in group %u)", a->group); break;
	case OWN_BBITMAP: fprintf(f, "metadata (block bitmap of group %u)", a->group); break;
	case OWN_IBITMAP: fprintf(f, "metadata (inode bitmap of group %u)", a->group); break;
	case OWN_ITABLE: {
		uint64_t isz = EXT2_INODE_SIZE(fs->super), ipg = fs->super->s_inodes_per_group;
		uint64_t first = (from - a->base * bs) / isz, last = (to - 1 - a->base * bs) / isz;

		if (first >= ipg)
			fprintf(f, "metadata (inode table of group %u, past its last inode)", a->group);
		else
			fprintf(f, "metadata (inode table of group %u, inodes %llu-%llu)", a->group,
				(unsigned long long)(a->group * ipg + first + 1),
				(unsigned long long)(a->group * ipg + (last < ipg ? last : ipg - 1) + 1));
		break;
	}
	case OWN_MMP: fprintf(f, "metadata (MMP block)"); break;
	case OWN_DATA:
		if (n->special) {
			fprintf(f, "metadata (%s, inode %u)", n->special, n->ino);
		} else if (LINUX_S_ISREG(n->mode)) {
			print_who(f, n);
			fprintf(f, " (inode %u, file offset %llu%s)", n->ino,
				(unsigned long long)(a->base * bs + from - a->blk * bs),
				a->unwritten ? ", unwritten extent" : "");
		} else {
			print_who(f, n);
			fprintf(f, " (inode %u)", n->ino);
		}
		break;
	case OWN_MAP:
		fprintf(f, "metadata (%s of ", n->extents ? "extent tree block" : "indirect block");
		print_who(f, n);
		fprintf(f, ", inode %u)", n->ino);
		break;
	case OWN_EA:
		fprintf(f, "metadata (extended attribute block of ");
		print_who(f, n);
		fprintf(f, ", inode %u)", n->ino);
		break;
	case OWN_FREE: fprintf(f, "free space"); break;
	case OWN_USED: fprintf(f, "in use, but owned by no inode found"); break;
	case OWN_NONE:
	case OWN_UNKNOWN: fprintf(f, "owned by no inode found (block bitmap unreadable)"); break;
	}
	(void)b;
}

/* The description of array bytes [off, off + len). */
static char *describe_range(struct scan *s, uint64_t off, uint64_t len)
{
	uint64_t bs = s->fs->blocksize, end = off + len, from = off;
	const struct owner *first = NULL, *prev = NULL;
	char *buf = NULL;
	size_t size = 0;
	int pieces = 0;
	FILE *f;

	f = open_memstream(&buf, &size);
	if (!f)
		return NULL;
	while (from < end) {
		blk64_t blk = from / bs;
		const struct owner *o = &s->own[lower(s, blk)];
		uint64_t to = (blk + 1) * bs < end ? (blk + 1) * bs : end;

		if (first && !same_owner(prev, o)) {
			fprintf(f, "%s", pieces++ ? "; " : "");
			print_piece(f, s, first, prev, off, from);
			first = NULL;
			off = from;
		}
		if (!first)
			first = o;
		prev = o;
		from = to;
	}
	if (first) {
		fprintf(f, "%s", pieces++ ? "; " : "");
		print_piece(f, s, first, prev, off, end);
	}
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

int fsmap_describe(struct fsmap *m, const uint64_t *offsets, size_t n, uint64_t len,
		   char **descs, struct diag *d)
{
	ext2_filsys fs = m->fs;
	struct scan s = { .fs = fs, .src = m->src };
	uint64_t bs = fs->blocksize, *blks = NULL;
	size_t i, nb = 0, k;
	bool have_bitmaps;
	int rc = -1;

	if (!len)
		len = 1;
	ext2io_forget(m->src);
	for (i = 0; i < n; i++)
		nb += (offsets[i] + len - 1) / bs - offsets[i] / bs + 1;
	blks = malloc((nb ? nb : 1) * sizeof(*blks));
	if (!blks)
		return diag_fail(d, "out of memory");
	for (i = nb = 0; i < n; i++) {
		blk64_t b;

		for (b = offsets[i] / bs; b <= (offsets[i] + len - 1) / bs; b++)
			blks[nb++] = b;
	}
	qsort(blks, nb, sizeof(*blks), cmp_u64);
	s.own = calloc(nb ? nb : 1, sizeof(*s.own));
	if (!s.own) {
		diag_fail(d, "out of memory");
		goto out;
	}
	for (i = 0; i < nb; i++)
		if (!s.nown || s.own[s.nown - 1].blk != blks[i])
			s.own[s.nown++].blk = blks[i];
	s.unowned = s.nown;

	mark_groups(&s);
	have_bitmaps = ext2fs_read_bitmaps(fs) == 0;
	if (s.unowned && scan_inodes(&s, have_bitmaps, d) < 0)
		goto out;
	for (i = 0; i < s.nown && s.unowned; i++) {
		struct owner *o = &s.own[i];

		if (o->kind != OWN_NONE)
			continue;
		o->kind = !have_bitmaps ? OWN_UNKNOWN
			: ext2fs_test_block_bitmap2(fs->block_map, o->blk) ? OWN_USED : OWN_FREE;
		s.unowned--;
	}
	if (name_inodes(&s, d) < 0)
		goto out;
	for (i = 0; i < n; i++) {
		descs[i] = describe_range(&s, offsets[i], len);
		if (!descs[i]) {
			for (k = 0; k < i; k++) {
				free(descs[k]);
				descs[k] = NULL;
			}
			diag_fail(d, "out of memory");
			goto out;
		}
	}
	rc = 0;
out:
	for (i = 0; i < s.nnames; i++)
		if (s.names[i].path)
			ext2fs_free_mem(&s.names[i].path);
	free(s.names);
	free(s.dirs);
	free(s.inode);
	free(s.own);
	free(blks);
	return rc;
}
