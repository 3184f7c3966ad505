/* test_rows: the row engine on small RAID5/6 image files in a temporary
 * directory: pieces in order, batches shorter than a chunk, unreadable
 * pages found through the fault hook, pieces mended from P and P+Q, and
 * fill walks (writes) of whole rows. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "raid/rows.h"
#include "raid/parity.h"
#include "tap.h"

#define CHUNK (64u * 1024)
#define ROWS 4
#define DATA_OFF_SECTORS 8           /* data areas start 4 KiB in, to catch offsets forgotten */
#define MAXN 8

/* A RAID array of image files, and what each member's data area holds. */
struct rig {
	char dir[64];
	struct array a;
	struct member m[MAXN];
	uint8_t *want[MAXN];         /* per role: ROWS * CHUNK bytes */
};

/* What a walk saw: every piece's place and bytes, copied out. */
struct seen {
	struct rig *r;
	int pieces;
	uint64_t next;               /* member byte the next piece should start at */
	bool in_order;
	bool bytes_match;            /* every role's bytes (lost ones aside) are want's */
	bool lost_pages[MAXN][ROWS * CHUNK / ROWS_PAGE];
	int nbeyond;
	size_t min_len, max_len;
};

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint8_t rnd8(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint8_t)rng;
}

static void bail(const char *what)
{
	printf("Bail out! %s\n", what);
	exit(1);
}

/* Random data, P (and Q) computed, written to n image files. */
static void rig_make(struct rig *r, int level, int n)
{
	struct diag d = { 0 };
	int i, q = level == MD_LEVEL_RAID6;

	memset(r, 0, sizeof(*r));
	strcpy(r->dir, "/tmp/test_rows.XXXXXX");
	if (!mkdtemp(r->dir))
		bail("mkdtemp");
	if (geometry_init(&r->a.geo, level, 2, n, CHUNK / 512, ROWS * CHUNK / 512, NULL, &d) < 0)
		bail(d.msg);
	for (i = 0; i < n; i++) {
		r->want[i] = dev_alloc(ROWS * CHUNK);
		for (size_t k = 0; k < ROWS * CHUNK; k++)
			r->want[i][k] = rnd8();
	}
	for (uint64_t row = 0; row < ROWS; row++) {
		struct stripe_map map;
		void *blocks[ST_MAX_DISKS + 2];
		int nd;

		layout_stripe(&r->a.geo, row, &map);
		nd = layout_row_blocks(&map, r->want, row * CHUNK, NULL, blocks);
		if (q)
			parity_gen_pq(nd, CHUNK, blocks);
		else
			parity_xor(blocks[nd], blocks, nd, CHUNK);
	}
	for (i = 0; i < n; i++) {
		char path[96];
		struct dev *dv = &r->m[i].dev;
		FILE *f;

		snprintf(path, sizeof(path), "%s/m%d.img", r->dir, i);
		r->m[i].path = strdup(path);
		f = fopen(path, "w");

		if (!f || fclose(f) != 0 || dev_open(dv, path, DEV_WRITE, &d) < 0)
			bail(d.msg[0] ? d.msg : path);
		if (dev_write(dv, r->want[i], ROWS * CHUNK, DATA_OFF_SECTORS * 512, &d) < 0)
			bail(d.msg);
		r->m[i].sb.data_offset = DATA_OFF_SECTORS;
		r->a.role[i] = &r->m[i];
	}
}

static void rig_free(struct rig *r)
{
	for (int i = 0; i < r->a.geo.raid_disks; i++) {
		dev_close(&r->m[i].dev);
		unlink(r->m[i].path);
		free(r->m[i].path);
		free(r->want[i]);
	}
	rmdir(r->dir);
}

/* Reads of role's member bytes [off, off + len) of its data area fail. */
static void rig_fault(struct rig *r, int role, uint64_t off, uint64_t len)
{
	struct dev *dv = &r->m[role].dev;

	dv->faults[dv->nfaults++] = (struct dev_range){ DATA_OFF_SECTORS * 512 + off, len };
}

static int record(void *ctx, struct rows_piece *p, struct diag *d)
{
	struct seen *s = ctx;
	uint64_t at = p->row * CHUNK + p->at;
	int i;

	(void)d;
	s->pieces++;
	s->in_order &= at == s->next && p->at + p->len <= CHUNK;
	s->next = at + p->len;
	s->min_len = p->len < s->min_len ? p->len : s->min_len;
	s->max_len = p->len > s->max_len ? p->len : s->max_len;
	for (i = 0; i < s->r->a.geo.raid_disks; i++)
		for (size_t pg = 0; pg < p->len / ROWS_PAGE; pg++) {
			bool lost = p->lost[i][pg], beyond = p->beyond && p->beyond[pg];

			s->lost_pages[i][at / ROWS_PAGE + pg] = lost;
			if (beyond)
				continue;
			if (!lost || p->beyond)
				s->bytes_match &= !memcmp(p->block[i] + pg * ROWS_PAGE,
							  s->r->want[i] + at + pg * ROWS_PAGE, ROWS_PAGE);
		}
	s->nbeyond += p->nbeyond;
	return 0;
}

/* Walks the whole rig; member_bytes 0 for the engine's own choice. */
static struct rows_walk walk(struct rig *r, struct seen *s, bool mend, size_t member_bytes)
{
	struct rows_walk w = { .a = &r->a, .from = 0, .to = ROWS * CHUNK, .mend = mend,
			       .member_bytes = member_bytes, .visit = record, .ctx = s };
	struct diag d = { 0 };

	memset(s, 0, sizeof(*s));
	*s = (struct seen){ .r = r, .in_order = true, .bytes_match = true, .min_len = SIZE_MAX };
	if (rows_walk(&w, &d) < 0)
		printf("# rows_walk: %s\n", d.msg);
	return w;
}

static int count_lost(const struct seen *s, int role)
{
	int n = 0;

	for (size_t pg = 0; pg < ROWS * CHUNK / ROWS_PAGE; pg++)
		n += s->lost_pages[role][pg];
	return n;
}

static void test_batch_bytes(void)
{
	ok(rows_batch_bytes(64, 512 * 1024, ROWS_BUDGET) == 256 * 1024,
	   "64 members with a 512 KiB chunk read a quarter chunk of each per batch");
	ok(rows_batch_bytes(6, 512 * 1024, ROWS_BUDGET) == ROWS_MEMBER_MAX,
	   "6 members with a 512 KiB chunk read two chunks of each per batch");
	ok(rows_batch_bytes(6, 4 * 1024 * 1024, ROWS_BUDGET) == ROWS_MEMBER_MAX,
	   "a 4 MiB chunk is read a megabyte at a time");
	ok(rows_batch_bytes(256, 64 * 1024, 64 * 1024) == ROWS_PAGE,
	   "a batch never falls below one page");
	ok(rows_batch_bytes(48, 512 * 1024, ROWS_BUDGET) == 256 * 1024,
	   "a part of a chunk divides the chunk (48 members: 341 KiB rounds down to 256 KiB)");
}

static void test_whole_walk(void)
{
	struct rig r;
	struct seen s;
	struct rows_walk w;

	rig_make(&r, MD_LEVEL_RAID6, 6);
	w = walk(&r, &s, false, 0);
	ok(s.in_order && s.next == ROWS * CHUNK, "a walk hands out every piece of the range, in member order");
	ok(s.bytes_match && count_lost(&s, 0) == 0 && w.read_errors == 0,
	   "a healthy array's pieces hold the members' bytes and no page is lost");
	ok(s.pieces == ROWS && s.min_len == CHUNK, "batches of whole chunks hand out a whole chunk per piece");
	rig_free(&r);
}

static void test_short_batch(void)
{
	struct rig r;
	struct seen s;

	rig_make(&r, MD_LEVEL_RAID6, 6);
	walk(&r, &s, false, 16 * 1024);
	ok(s.pieces == ROWS * 4 && s.max_len == 16 * 1024 && s.min_len == 16 * 1024,
	   "a batch shorter than a chunk hands each row out in pieces of the batch's length");
	ok(s.in_order && s.bytes_match, "the pieces of a short batch hold the members' bytes at their offsets");
	rig_free(&r);
}

static void test_unreadable_found(void)
{
	struct rig r;
	struct seen s;
	struct rows_walk w;

	rig_make(&r, MD_LEVEL_RAID6, 6);
	rig_fault(&r, 2, CHUNK + 2 * ROWS_PAGE, ROWS_PAGE);
	w = walk(&r, &s, false, 0);
	ok(w.read_errors == 1 && count_lost(&s, 2) == 1 && s.lost_pages[2][CHUNK / ROWS_PAGE + 2],
	   "a page the fault hook fails is the one page found unreadable");
	ok(s.bytes_match, "the rest of the member's batch is read around the unreadable page");
	rig_free(&r);
}

static void count_mended(void *ctx, const struct member *m, uint64_t off, size_t len)
{
	(void)m;
	(void)off;
	*(size_t *)ctx += len;
}

static void test_mend_from_p(void)
{
	struct rig r;
	struct seen s;
	size_t told = 0;

	rig_make(&r, MD_LEVEL_RAID5, 5);
	r.a.read_mended = count_mended;
	r.a.read_mended_ctx = &told;
	rig_fault(&r, 1, 2 * CHUNK + 8 * ROWS_PAGE, 3 * ROWS_PAGE);
	walk(&r, &s, true, 0);
	ok(count_lost(&s, 1) == 3 && s.bytes_match && s.nbeyond == 0,
	   "RAID5: a member's unreadable pages are mended from P");
	ok(told == 3 * ROWS_PAGE, "each mended page of a present member is told to the array's read_mended");
	rig_free(&r);
}

static void test_mend_from_pq(void)
{
	struct rig r;
	struct seen s;

	rig_make(&r, MD_LEVEL_RAID6, 6);
	rig_fault(&r, 0, 3 * CHUNK + 5 * ROWS_PAGE, 2 * ROWS_PAGE);
	rig_fault(&r, 4, 3 * CHUNK + 6 * ROWS_PAGE, 2 * ROWS_PAGE);
	walk(&r, &s, true, 8 * 1024);
	ok(count_lost(&s, 0) == 2 && count_lost(&s, 4) == 2 && s.bytes_match && s.nbeyond == 0,
	   "RAID6: two members' unreadable pages, overlapping, are mended from P and Q in short batches");
	rig_free(&r);
}

static void test_missing_role(void)
{
	struct rig r;
	struct seen s;

	rig_make(&r, MD_LEVEL_RAID6, 6);
	r.a.role[3] = NULL;
	rig_fault(&r, 5, 0, ROWS_PAGE);
	walk(&r, &s, true, 0);
	ok(count_lost(&s, 3) == ROWS * CHUNK / ROWS_PAGE && s.bytes_match && s.nbeyond == 0,
	   "RAID6: a missing role and another's unreadable page are mended from P and Q");
	r.a.role[3] = &r.m[3];
	rig_free(&r);
}

static void test_beyond(void)
{
	struct rig r;
	struct seen s;

	rig_make(&r, MD_LEVEL_RAID5, 4);
	rig_fault(&r, 0, ROWS_PAGE, ROWS_PAGE);
	rig_fault(&r, 3, ROWS_PAGE, 2 * ROWS_PAGE);
	walk(&r, &s, true, 0);
	ok(s.nbeyond == 1, "RAID5: a page lost on two members is flagged as beyond mending, and only that one");
	ok(s.bytes_match, "the pages around it are still mended or read");
	rig_free(&r);
}

/* What a fill walk's visit does: each role's block of a row filled with
 * fresh bytes (kept in fresh), or checked against the array's bytes where
 * the batch was read first. */
struct filler {
	struct rig *r;
	struct rows_walk *w;
	uint8_t *fresh[MAXN];        /* per role: ROWS * CHUNK bytes */
	uint64_t keep_row;           /* the row keep asks to read first */
	uint64_t stop_row;           /* the walk ends with this row (ROWS: never) */
	bool kept_read;              /* that row's blocks held the array's bytes, mended */
	int whole_chunks;            /* pieces that were a whole chunk of their row */
};

static bool keep_one(void *ctx, uint64_t pos, size_t len)
{
	struct filler *f = ctx;

	return f->keep_row * CHUNK >= pos && f->keep_row * CHUNK < pos + len;
}

static int fill(void *ctx, struct rows_piece *p, struct diag *d)
{
	struct filler *f = ctx;
	int i;

	(void)d;
	f->whole_chunks += p->at == 0 && p->len == CHUNK;
	for (i = 0; i < f->r->a.geo.raid_disks; i++) {
		if (p->row == f->keep_row)
			f->kept_read &= !memcmp(p->block[i], f->r->want[i] + p->row * CHUNK, CHUNK);
		memcpy(p->block[i], f->fresh[i] + p->row * CHUNK, CHUNK);
	}
	if (p->row == f->stop_row)
		f->w->to = (p->row + 1) * CHUNK;
	return 0;
}

/* Does role's member hold fresh bytes in rows [from, to) and the old ones
 * elsewhere? */
static bool member_holds(struct rig *r, struct filler *f, int role, uint64_t from, uint64_t to)
{
	uint8_t *got = dev_alloc(ROWS * CHUNK);
	struct diag d = { 0 };
	bool same = dev_read(&r->m[role].dev, got, ROWS * CHUNK, DATA_OFF_SECTORS * 512, &d) == 0;

	for (uint64_t row = 0; same && row < ROWS; row++)
		same = !memcmp(got + row * CHUNK, (row >= from && row < to ? f->fresh[role] : r->want[role]) + row * CHUNK,
			       CHUNK);
	free(got);
	return same;
}

static void filler_make(struct filler *f, struct rig *r, struct rows_walk *w)
{
	*f = (struct filler){ .r = r, .w = w, .keep_row = ROWS, .stop_row = ROWS, .kept_read = true };
	for (int i = 0; i < r->a.geo.raid_disks; i++) {
		f->fresh[i] = dev_alloc(ROWS * CHUNK);
		for (size_t k = 0; k < ROWS * CHUNK; k++)
			f->fresh[i][k] = rnd8();
	}
}

static void filler_free(struct filler *f)
{
	for (int i = 0; i < f->r->a.geo.raid_disks; i++)
		free(f->fresh[i]);
}

static void test_fill_walk(void)
{
	struct rig r;
	struct filler f;
	struct rows_walk w = { .from = 0, .to = ROWS * CHUNK, .fill = true, .visit = fill };
	struct diag d = { 0 };
	bool all = true;

	rig_make(&r, MD_LEVEL_RAID6, 6);
	w.a = &r.a;
	w.ctx = &f;
	w.member_bytes = 16 * 1024;
	filler_make(&f, &r, &w);
	ok(rows_walk(&w, &d) == 0 && f.whole_chunks == ROWS,
	   "a fill walk hands out whole chunks of each row, even where a reading batch is shorter");
	for (int i = 0; i < 6; i++)
		all &= member_holds(&r, &f, i, 0, ROWS);
	ok(all && w.written == ROWS * CHUNK, "a fill walk writes what the visit filled to every member");
	filler_free(&f);
	rig_free(&r);
}

static void test_fill_keeps(void)
{
	struct rig r;
	struct filler f;
	struct rows_walk w = { .from = 0, .to = ROWS * CHUNK, .fill = true, .mend = true, .keep = keep_one,
			       .visit = fill };
	struct diag d = { 0 };

	rig_make(&r, MD_LEVEL_RAID6, 6);
	w.a = &r.a;
	w.ctx = &f;
	filler_make(&f, &r, &w);
	f.keep_row = 2;
	r.a.role[4] = NULL;
	rig_fault(&r, 1, 2 * CHUNK + ROWS_PAGE, ROWS_PAGE);
	ok(rows_walk(&w, &d) == 0 && f.kept_read,
	   "a batch keep asks for is read first, a missing role and an unreadable page mended");
	r.a.role[4] = &r.m[4];
	filler_free(&f);
	rig_free(&r);
}

static void test_fill_stops(void)
{
	struct rig r;
	struct filler f;
	struct rows_walk w = { .from = 0, .to = ROWS * CHUNK, .fill = true, .visit = fill };
	struct rows_engine e;
	struct seen s = { 0 };
	struct rows_walk rw = { .from = 0, .to = ROWS * CHUNK, .visit = record, .ctx = &s };
	struct diag d = { 0 };
	bool held = true;
	int i;

	rig_make(&r, MD_LEVEL_RAID5, 4);
	w.a = rw.a = &r.a;
	w.ctx = &f;
	filler_make(&f, &r, &w);
	f.stop_row = 1;
	rows_engine_start(&e, &r.a, 0, 0);
	ok(rows_engine_walk(&e, &w, &d) == 0 && w.written == 2 * CHUNK,
	   "a visit that lowers to ends the walk with its row, and written says how far it went");
	for (i = 0; i < 4; i++)
		held &= member_holds(&r, &f, i, 0, 2);
	ok(held, "nothing past the row the walk ended with is written");
	for (i = 0; i < 4; i++)
		memcpy(r.want[i], f.fresh[i], 2 * CHUNK);
	s = (struct seen){ .r = &r, .in_order = true, .bytes_match = true, .min_len = SIZE_MAX };
	ok(rows_engine_walk(&e, &rw, &d) == 0 && s.bytes_match && s.next == ROWS * CHUNK,
	   "the same engine then reads back what it wrote and what it left");
	rows_engine_stop(&e);
	filler_free(&f);
	rig_free(&r);
}

int main(void)
{
	test_batch_bytes();
	test_whole_walk();
	test_short_batch();
	test_unreadable_found();
	test_mend_from_p();
	test_mend_from_pq();
	test_missing_role();
	test_beyond();
	test_fill_walk();
	test_fill_keeps();
	test_fill_stops();
	return tap_done();
}
