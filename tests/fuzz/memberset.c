/* memberset: small member sets made by stripe's own create for the fuzzers,
 * and the field edits a fuzz input spells on them (see memberset.h). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "memberset.h"
#include "md/array.h"
#include "md/badblocks.h"
#include "md/bitmap.h"
#include "md/create.h"
#include "md/super.h"
#include "md/super0.h"
#include "md/super1.h"
#include "raid/stripe.h"
#include "util/endian.h"

#define SECTORS (SET_MEMBER_BYTES / 512)
#define BITMAP_CHUNK 4096

struct set_recipe {
	const char *what;
	int level, layout, n, major, minor;
	uint32_t chunk_sectors;
	bool bitmap, badblocks;
};

/* Every level, every superblock version, a bitmap on both ends of 1.x and
 * a bad-block log in use: the shapes whose fields the edits reach. */
static const struct set_recipe recipes[] = {
	{ "raid5 ls, 4 members, 1.2, bitmap, bad blocks", 5, 2, 4, 1, 2, 16, true, true },
	{ "raid6, 5 members, 1.0, bitmap, bad blocks", 6, 2, 5, 1, 0, 8, true, true },
	{ "raid1, 3 members, 0.90", 1, 0, 3, 0, 90, 0, false, false },
	{ "raid10 n2, 4 members, 1.1, bad blocks", 10, 0x102, 4, 1, 1, 8, false, true },
	{ "raid0, 3 members, 1.2", 0, 0, 3, 1, 2, 8, false, false },
	{ "raid4, 3 members, 0.90", 4, 0, 3, 0, 90, 8, false, false },
	{ "raid5 la, 3 members, 0.90", 5, 0, 3, 0, 90, 16, false, false },
	{ "raid10 f2, 4 members, 1.2, bitmap", 10, 0x201, 4, 1, 2, 8, true, false },
	{ "raid6 rs, 6 members, 1.2, bad blocks", 6, 3, 6, 1, 2, 8, false, true },
	{ "raid1, 2 members, 1.0, bitmap", 1, 0, 2, 1, 0, 0, true, false },
};
#define NRECIPES ((int)(sizeof(recipes) / sizeof(recipes[0])))

static struct member_set sets[NRECIPES];

static void die(const char *what, const char *why)
{
	fprintf(stderr, "memberset: %s: %s\n", what, why);
	exit(1);
}

/* A member file in no folder: a memfd, which the tools open by its
 * /proc/self/fd path, and which goes with the process however it ends.
 * Files in /dev/shm were left behind: libFuzzer leaves by _Exit on a
 * crash, a timeout or a leak, and no atexit cleanup runs then. */
static int unnamed_file(const char *name, char path[64])
{
	int fd = memfd_create(name, MFD_CLOEXEC);

	if (fd >= 0)
		snprintf(path, 64, "/proc/self/fd/%d", fd);
	return fd;
}

static long long fill(void *ctx, void *buf, size_t len, struct diag *d)
{
	uint64_t *at = ctx;
	size_t i;

	(void)d;
	for (i = 0; i < len; i++)
		((uint8_t *)buf)[i] = (uint8_t)((*at + i) * 131 >> 3);
	*at += len;
	return (long long)len;
}

/* Every member gets a bitmap header in the room create left for one (after
 * the 1.1/1.2 superblock, below the 1.0 bad-block log), with some bits set. */
static void add_bitmap(struct dev *dv, struct md_super *sb, const char *what)
{
	uint8_t buf[4096] = { 0 };
	struct diag d;
	int32_t off = sb->minor == 0 ? sb->bblog_offset - 8 : 8;
	uint64_t bits = (sb->size + BITMAP_CHUNK / 512 - 1) / (BITMAP_CHUNK / 512);

	put_le32(buf, BITMAP_MAGIC);
	put_le32(buf + 4, 4);
	memcpy(buf + 8, sb->uuid, 16);
	put_le64(buf + 24, sb->events);
	put_le64(buf + 32, sb->events);
	put_le64(buf + 40, sb->size);
	put_le32(buf + 52, BITMAP_CHUNK);
	put_le32(buf + 56, 5);
	put_le32(buf + 64, 8);
	memset(buf + 256, 0xa5, (bits + 7) / 8);
	sb->raw.v1.feature_map |= SB1_FEAT_BITMAP_OFFSET;
	sb->raw.v1.bitmap_offset = (uint32_t)off;
	super_seal(sb);
	if (dev_write(dv, buf, sizeof(buf), (sb->sb_sector + (uint64_t)(int64_t)off) * 512, &d) < 0 ||
	    super_write(dv, sb, &d) < 0)
		die(what, d.msg);
}

static void add_badblocks(struct dev *dv, struct md_super *sb, const char *what)
{
	struct bad_range bad[2] = { { sb->data_offset + 16, 8 }, { sb->data_offset + 64, 1 } };
	struct diag d;

	if (badblocks_write(dv, sb, bad, 2, &d) < 0)
		die(what, d.msg);
	super_seal(sb);
	if (super_write(dv, sb, &d) < 0)
		die(what, d.msg);
}

/* Data through stripe's own writer, so parity and copies agree. */
static void fill_data(char **paths, int n, const char *what)
{
	struct array_options opt = { .mode = DEV_WRITE };
	struct array a;
	struct diag d;
	uint64_t at = 0, written;

	if (array_open(&a, paths, n, &opt, &d) < 0)
		die(what, d.msg);
	if (stripe_write(&a, 0, a.geo.array_sectors * 512, fill, &at, &written, &d) < 0)
		die(what, d.msg);
	array_close(&a);
}

static void keep_images(struct member_set *s, const struct set_recipe *r, char **paths)
{
	struct md_super sb;
	struct dev dv;
	struct diag d;
	int i;

	for (i = 0; i < r->n; i++) {
		if (dev_open(&dv, paths[i], DEV_WRITE, &d) < 0 || super_load(&dv, &sb, &d) < 0)
			die(r->what, d.msg);
		if (r->bitmap)
			add_bitmap(&dv, &sb, r->what);
		if (r->badblocks)
			add_badblocks(&dv, &sb, r->what);
		s->sb_byte = sb.sb_sector * 512;
		if (r->bitmap)
			s->bitmap_byte = (sb.sb_sector + (uint64_t)(int64_t)sb.bitmap_offset) * 512;
		if (sb.major == 1)
			s->bblog_byte = (sb.sb_sector + (uint64_t)(int64_t)sb.bblog_offset) * 512;
		s->img[i] = malloc(SET_MEMBER_BYTES);
		if (!s->img[i] || dev_read(&dv, s->img[i], SET_MEMBER_BYTES, 0, &d) < 0)
			die(r->what, "cannot keep the image");
		dev_close(&dv);
	}
}

static void make_set(struct member_set *s, const struct set_recipe *r)
{
	struct create_spec spec = {
		.level = r->level, .layout = r->layout, .raid_disks = r->n,
		.chunk_sectors = r->chunk_sectors, .major = r->major, .minor = r->minor,
		.data_offset = r->major == 1 && r->minor > 0 ? 64 : CREATE_DEFAULT, .now = 1700000000,
	};
	char names[SET_MAX_MEMBERS][64], *paths[SET_MAX_MEMBERS];
	struct create_plan p;
	struct diag d;
	int i, fd[SET_MAX_MEMBERS];

	for (i = 0; i < r->n; i++) {
		paths[i] = names[i];
		fd[i] = unnamed_file("fuzz-base", names[i]);
		if (fd[i] < 0 || ftruncate(fd[i], SET_MEMBER_BYTES) < 0)
			die(r->what, "cannot make a member file (memfd_create)");
	}
	if (create_plan(&p, &spec, paths, r->n, &d) < 0 || create_write(&p, &d) < 0)
		die(r->what, d.msg);
	create_free(&p);
	fill_data(paths, r->n, r->what);
	s->what = r->what;
	s->n = r->n;
	s->major = r->major;
	keep_images(s, r, paths);
	for (i = 0; i < r->n; i++)
		close(fd[i]);
}

int memberset_count(void)
{
	return NRECIPES;
}

const struct member_set *memberset_get(int i)
{
	if (!sets[i].what)
		make_set(&sets[i], &recipes[i]);
	return &sets[i];
}

/* mdp_superblock_1's fields: byte offset and width; dev_roles follow. */
static const uint16_t sb1_fields[][2] = {
	{ 0, 4 }, { 4, 4 }, { 8, 4 }, { 12, 4 }, { 16, 8 }, { 24, 8 }, { 32, 8 }, { 64, 8 },
	{ 72, 4 }, { 76, 4 }, { 80, 8 }, { 88, 4 }, { 92, 4 }, { 96, 4 }, { 100, 4 }, { 104, 8 },
	{ 112, 4 }, { 116, 4 }, { 120, 4 }, { 124, 4 }, { 128, 8 }, { 136, 8 }, { 144, 8 },
	{ 152, 8 }, { 160, 4 }, { 164, 4 }, { 168, 8 }, { 184, 1 }, { 185, 1 }, { 186, 2 },
	{ 188, 4 }, { 192, 8 }, { 200, 8 }, { 208, 8 }, { 216, 4 }, { 220, 4 }, { 224, 8 },
};
#define SB1_NFIELDS (sizeof(sb1_fields) / sizeof(sb1_fields[0]))

/* mdp_super_t's words worth changing: the generic and personality words and
 * the first rows of the disk table, then this_disk. */
static const uint16_t sb0_words[] = {
	0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 32, 33, 34, 35, 36, 37, 38, 39,
	40, 41, 42, 43, 44, 45, 46, 47, 48, 64, 65, 66, 67,
	128, 129, 130, 131, 132, 160, 161, 162, 163, 164, 192, 193, 194, 195, 196,
	224, 225, 226, 227, 228, 256, 257, 258, 259, 260, 992, 993, 994, 995, 996,
};
#define SB0_NWORDS (sizeof(sb0_words) / sizeof(sb0_words[0]))

/* bitmap_super_t's fields */
static const uint16_t bitmap_fields[][2] = {
	{ 0, 4 }, { 4, 4 }, { 8, 8 }, { 16, 8 }, { 24, 8 }, { 32, 8 }, { 40, 8 }, { 48, 4 },
	{ 52, 4 }, { 56, 4 }, { 60, 4 }, { 64, 4 }, { 68, 4 }, { 72, 8 },
};
#define BITMAP_NFIELDS (sizeof(bitmap_fields) / sizeof(bitmap_fields[0]))

/* Values at the edges of what the fields hold and of the members' size. */
static const uint64_t boundary[] = {
	0, 1, 2, 3, 7, 8, 9, 63, 64, 255, 256, 511, 512, 4096, 0x7fff, 0x8000, 0xfffe, 0xffff,
	0x10000, 1u << 21, (1u << 21) + 1, 0x7fffffff, 0x80000000u, 0xfffffffeu, 0xffffffffu,
	1ULL << 32, 1ULL << 40, 1ULL << 55, 1ULL << 63, UINT64_MAX - 1, UINT64_MAX,
	SECTORS - 1, SECTORS, SECTORS + 1, SECTORS - 8, SECTORS / 2, SET_MEMBER_BYTES,
};

enum edit_kind { EDIT_SUPER, EDIT_BITMAP, EDIT_BBLOG, EDIT_RAW };
enum edit_op { OP_SET, OP_ADD, OP_XOR, OP_BOUNDARY };
#define EDIT_KEEP_CSUM 0x80

static uint64_t get_n(const uint8_t *p, unsigned width)
{
	uint64_t v = 0;
	unsigned i;

	for (i = 0; i < width; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

static void put_n(uint8_t *p, unsigned width, uint64_t v)
{
	unsigned i;

	for (i = 0; i < width; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void change(uint8_t *p, unsigned width, unsigned op, uint64_t v)
{
	uint64_t old = get_n(p, width);

	switch (op & 3) {
	case OP_SET: break;
	case OP_ADD: v += old; break;
	case OP_XOR: v ^= old; break;
	default: v = boundary[v % (sizeof(boundary) / sizeof(boundary[0]))]; break;
	}
	put_n(p, width, v);
}

/* Where an edit lands in a member image: its byte and width. */
static void edit_place(const struct member_set *s, unsigned kind, unsigned field, uint64_t v,
		       uint64_t *at, unsigned *width)
{
	if (kind == EDIT_BITMAP && !s->bitmap_byte)
		kind = EDIT_SUPER;
	if (kind == EDIT_BBLOG && !s->bblog_byte)
		kind = EDIT_RAW;
	switch (kind) {
	case EDIT_SUPER:
		if (s->major == 0) {
			*at = s->sb_byte + 4 * sb0_words[field % SB0_NWORDS];
			*width = 4;
		} else if (field < SB1_NFIELDS) {
			*at = s->sb_byte + sb1_fields[field][0];
			*width = sb1_fields[field][1];
		} else {
			*at = s->sb_byte + 256 + 2 * ((field - SB1_NFIELDS) % 64);
			*width = 2;
		}
		return;
	case EDIT_BITMAP:
		if (field < BITMAP_NFIELDS) {
			*at = s->bitmap_byte + bitmap_fields[field][0];
			*width = bitmap_fields[field][1];
		} else {
			*at = s->bitmap_byte + 256 + (field - BITMAP_NFIELDS) % 16;
			*width = 1;
		}
		return;
	case EDIT_BBLOG:
		*at = s->bblog_byte + 8 * (field % 64);
		*width = 8;
		return;
	default:
		*at = s->sb_byte + ((field | (unsigned)(v >> 48) << 8) % 4096);
		*width = 1;
		return;
	}
}

static void fix_csum(const struct member_set *s, uint8_t *img)
{
	uint8_t *buf = img + s->sb_byte;

	if (s->major == 1) {
		struct sb1 r;

		if (sb1_decode(buf, &r, NULL) == 0)
			put_le32(buf + 216, sb1_csum(&r));
	} else {
		struct sb0 r;

		if (sb0_decode(buf, &r, NULL) == 0) {
			r.w[SB0_CSUM] = sb0_csum(&r);
			sb0_encode(&r, buf);
		}
	}
}

uint8_t **memberset_scratch(void)
{
	static uint8_t *img[SET_MAX_MEMBERS];
	int i;

	for (i = 0; i < SET_MAX_MEMBERS; i++)
		if (!img[i] && !(img[i] = malloc(SET_MEMBER_BYTES)))
			die("scratch images", "out of memory");
	return img;
}

void memberset_edit(const struct member_set *s, uint8_t *img[], const uint8_t *prog, size_t len)
{
	bool edited[SET_MAX_MEMBERS] = { false }, keep[SET_MAX_MEMBERS] = { false };
	uint64_t at;
	unsigned width;
	int i, m;

	for (i = 0; i < s->n; i++)
		memcpy(img[i], s->img[i], SET_MEMBER_BYTES);
	for (; len >= EDIT_BYTES; prog += EDIT_BYTES, len -= EDIT_BYTES) {
		uint64_t v = get_n(prog + 3, 8);

		m = (prog[0] >> 2 & 7) % s->n;
		edit_place(s, prog[0] & 3, prog[1], v, &at, &width);
		change(img[m] + at, width, prog[2], v);
		edited[m] = true;
		keep[m] |= (prog[0] & EDIT_KEEP_CSUM) != 0;
	}
	for (i = 0; i < s->n; i++)
		if (edited[i] && !keep[i])
			fix_csum(s, img[i]);
}

static int fds[SET_MAX_MEMBERS];
static char names[SET_MAX_MEMBERS][64];

int memberset_store(const char *tag, uint8_t *const img[], int n, char paths[][64])
{
	char name[64];
	int i;

	for (i = 0; i < n; i++) {
		if (!names[i][0]) {
			snprintf(name, sizeof(name), "fuzz-%s-%d", tag, i);
			if ((fds[i] = unnamed_file(name, names[i])) < 0)
				return -1;
		}
		if (ftruncate(fds[i], SET_MEMBER_BYTES) < 0 ||
		    pwrite(fds[i], img[i], SET_MEMBER_BYTES, 0) != SET_MEMBER_BYTES)
			return -1;
		strcpy(paths[i], names[i]);
	}
	return 0;
}
