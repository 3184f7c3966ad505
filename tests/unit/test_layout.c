/* test_layout: md's placement rules checked three ways: against tables written
 * out by hand, against a second model of md-format.md, and against member
 * images made by the real md driver (../shared/fixtures, tests/fixtures). */
#include <dirent.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "md/layout.h"
#include "tap.h"

#define CELL_P (-1)
#define CELL_Q (-2)
#define CELL_FREE (-3)
#define BLK 4096
#define BLK_SECTORS 8

static const int raid5_algs[] = { 0, 1, 2, 3, 4, 5 };
static const int raid6_algs[] = { 0, 1, 2, 3, 4, 5, 8, 9, 10, 16, 17, 18, 19, 20 };
#define NALGS(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* Large enough to be kept off the stack, and reused by every test. */
static struct geometry geo;
static struct copy cps[ST_MAX_DISKS];

/* ------------------------------------------------------------------ */
/* A second model of md-format.md 2.1: put P and Q where the table says, then
 * hand out data indices walking the free members, either in member order or
 * round from just past P (within `width` members for the -6 layouts). */
static void model_row(int level, int alg, int n, uint64_t row, int *cell)
{
	int r = (int)(row % (uint64_t)n), r1 = n > 1 ? (int)(row % (uint64_t)(n - 1)) : 0;
	int pd = n - 1, qd = -1, walk_from = -1, width = n, i, k, dd = 0;

	if (level == 5) {
		switch (alg) {
		case 0: pd = n - 1 - r; break;
		case 1: pd = r; break;
		case 2: pd = n - 1 - r; walk_from = pd; break;
		case 3: pd = r; walk_from = pd; break;
		case 4: pd = 0; break;
		case 5: pd = n - 1; break;
		}
	} else if (level == 6) {
		switch (alg) {
		case 0: pd = n - 1 - r; qd = pd == n - 1 ? 0 : pd + 1; break;
		case 1: case 8: pd = r; qd = pd == n - 1 ? 0 : pd + 1; break;
		case 9: pd = n - 1 - (int)((row % (uint64_t)n + 1) % (uint64_t)n);
			qd = pd == n - 1 ? 0 : pd + 1; break;
		case 2: pd = n - 1 - r; qd = (pd + 1) % n; walk_from = pd; break;
		case 3: pd = r; qd = (pd + 1) % n; walk_from = pd; break;
		case 10: pd = n - 1 - r; qd = (pd + n - 1) % n; walk_from = pd; break;
		case 4: pd = 0; qd = 1; break;
		case 5: pd = n - 2; qd = n - 1; break;
		case 16: pd = n - 2 - r1; qd = n - 1; break;
		case 17: pd = r1; qd = n - 1; break;
		case 18: pd = n - 2 - r1; qd = n - 1; walk_from = pd; width = n - 1; break;
		case 19: pd = r1; qd = n - 1; walk_from = pd; width = n - 1; break;
		case 20: pd = 0; qd = n - 1; break;
		}
	}
	for (i = 0; i < n; i++)
		cell[i] = CELL_FREE;
	cell[pd] = CELL_P;
	if (qd >= 0)
		cell[qd] = CELL_Q;
	for (k = 0; k < width; k++) {
		i = walk_from < 0 ? k : (walk_from + 1 + k) % width;
		if (cell[i] == CELL_FREE)
			cell[i] = dd++;
	}
}

static int is_ddf(int level, int alg)
{
	return level == 6 && alg >= 8 && alg <= 10;
}

/* Syndrome slots per md-format.md: members round from the one after Q, or
 * the member index itself for DDF (P/Q positions zero). */
static int model_slots(int level, int alg, int n, const int *cell, int *slot)
{
	int i, k = 0, qd = -1;

	if (is_ddf(level, alg)) {
		for (i = 0; i < n; i++)
			slot[i] = cell[i] >= 0 ? i : -1;
		return n;
	}
	for (i = 0; i < n; i++)
		if (cell[i] == CELL_Q)
			qd = i;
	if (qd < 0) {
		for (i = 0; i < n; i++)
			if (cell[i] >= 0)
				slot[cell[i]] = i;
		return n - 1;
	}
	for (i = 1; i < n; i++)
		if (cell[(qd + i) % n] >= 0)
			slot[k++] = (qd + i) % n;
	return k;
}

/* "" if the map agrees with the cells, else what differs. */
static const char *map_vs_cells(const struct stripe_map *m, const int *cell, int n)
{
	static char why[160];
	int i, ndata = 0;

	for (i = 0; i < n; i++) {
		if (cell[i] == CELL_P && m->pd != i)
			snprintf(why, sizeof(why), "P on %d, expected %d", m->pd, i);
		else if (cell[i] == CELL_Q && m->qd != i)
			snprintf(why, sizeof(why), "Q on %d, expected %d", m->qd, i);
		else if (cell[i] >= 0 && (cell[i] >= m->data_disks || m->data[cell[i]] != i))
			snprintf(why, sizeof(why), "data %d not on member %d", cell[i], i);
		else {
			ndata += cell[i] >= 0;
			continue;
		}
		return why;
	}
	if (ndata != m->data_disks) {
		snprintf(why, sizeof(why), "%d data members, expected %d", m->data_disks, ndata);
		return why;
	}
	return "";
}

static int init_geo(int level, int layout, int n, uint32_t chunk, uint64_t dev,
		    const uint64_t *ms)
{
	struct diag d = { 0 };
	int rc = geometry_init(&geo, level, layout, n, chunk, dev, ms, &d);

	if (rc)
		printf("# geometry_init(level %d, layout %d, n %d, chunk %u): %s\n",
		       level, layout, n, chunk, d.msg);
	return rc;
}

/* Compares md's table (via layout_stripe and layout_locate) with the model
 * over rows [0, nrows) and a far-away run of rows, for one algorithm. */
static void check_algorithm_vs_model(int level, int alg, int n, int nrows)
{
	static const uint64_t bases[] = { 0, (1ull << 40) + 3 };
	int cell[ST_MAX_DISKS], slot[ST_MAX_DISKS];
	struct stripe_map m;
	char what[200] = "";
	const uint32_t chunk = 16;
	int b, i, nslot;

	if (init_geo(level, alg, n, chunk, (uint64_t)chunk << 44, NULL)) {
		ok(0, "raid%d alg %d n=%d: geometry", level, alg, n);
		return;
	}
	for (b = 0; b < 2 && !what[0]; b++) {
		for (uint64_t row = bases[b]; row < bases[b] + (uint64_t)nrows && !what[0]; row++) {
			const char *why;

			model_row(level, alg, n, row, cell);
			layout_stripe(&geo, row, &m);
			why = map_vs_cells(&m, cell, n);
			if (*why) {
				snprintf(what, sizeof(what), "row %llu: %s", (unsigned long long)row, why);
				break;
			}
			nslot = model_slots(level, alg, n, cell, slot);
			if (nslot != m.syndrome_disks) {
				snprintf(what, sizeof(what), "row %llu: %d syndrome slots, expected %d",
					 (unsigned long long)row, m.syndrome_disks, nslot);
				break;
			}
			for (i = 0; i < nslot; i++)
				if (slot[i] != m.slot[i]) {
					snprintf(what, sizeof(what), "row %llu: slot %d on %d, expected %d",
						 (unsigned long long)row, i, m.slot[i], slot[i]);
					break;
				}
			/* layout_locate must agree with the row map for every data chunk */
			for (i = 0; i < m.data_disks && !what[0]; i++) {
				uint64_t off = row % chunk;
				uint64_t s = ((row * m.data_disks) + i) * chunk + off, run = 0;
				int k = layout_locate(&geo, s, cps, &run);

				if (k != 1 || cps[0].role != m.data[i] ||
				    cps[0].sector != row * chunk + off || run != chunk - off)
					snprintf(what, sizeof(what),
						 "row %llu data %d: locate gave %d copies, member %d sector %llu run %llu",
						 (unsigned long long)row, i, k, cps[0].role,
						 (unsigned long long)cps[0].sector, (unsigned long long)run);
			}
		}
	}
	ok(!what[0], "raid%d %s n=%d: %d rows (and rows from 2^40) match the model%s%s", level,
	   layout_name(level, alg, NULL, 0) ? layout_name(level, alg, NULL, 0) : "raid4",
	   n, nrows, what[0] ? ": " : "", what);
}

/* Tables drawn by hand from md-format.md: one string per row, a character per
 * member: a digit is the logical data index, P and Q the parities. */
struct picture {
	int level, alg, n;
	const char *rows[6];
};

static const struct picture pictures[] = {
	{ 5, 0, 4, { "012P", "01P2", "0P12", "P012", "012P" } },
	{ 5, 1, 4, { "P012", "0P12", "01P2", "012P", "P012" } },
	{ 5, 2, 4, { "012P", "12P0", "2P01", "P012", "012P" } },
	{ 5, 3, 4, { "P012", "2P01", "12P0", "012P", "P012" } },
	{ 5, 4, 4, { "P012", "P012" } },
	{ 5, 5, 4, { "012P", "012P" } },
	{ 4, 0, 4, { "012P", "012P", "012P" } },
	{ 5, 2, 3, { "01P", "1P0", "P01", "01P" } },
	{ 6, 0, 5, { "Q012P", "012PQ", "01PQ2", "0PQ12", "PQ012", "Q012P" } },
	{ 6, 1, 5, { "PQ012", "0PQ12", "01PQ2", "012PQ", "Q012P", "PQ012" } },
	{ 6, 2, 5, { "Q012P", "012PQ", "12PQ0", "2PQ01", "PQ012", "Q012P" } },
	{ 6, 3, 5, { "PQ012", "2PQ01", "12PQ0", "012PQ", "Q012P", "PQ012" } },
	{ 6, 4, 5, { "PQ012", "PQ012" } },
	{ 6, 5, 5, { "012PQ", "012PQ" } },
	{ 6, 8, 5, { "PQ012", "0PQ12", "01PQ2", "012PQ", "Q012P" } },
	{ 6, 9, 5, { "012PQ", "01PQ2", "0PQ12", "PQ012", "Q012P", "012PQ" } },
	{ 6, 10, 5, { "012QP", "12QP0", "2QP01", "QP012", "P012Q", "012QP" } },
	{ 6, 16, 5, { "012PQ", "01P2Q", "0P12Q", "P012Q", "012PQ" } },
	{ 6, 17, 5, { "P012Q", "0P12Q", "01P2Q", "012PQ", "P012Q" } },
	{ 6, 18, 5, { "012PQ", "12P0Q", "2P01Q", "P012Q", "012PQ" } },
	{ 6, 19, 5, { "P012Q", "2P01Q", "12P0Q", "012PQ", "P012Q" } },
	{ 6, 20, 5, { "P012Q", "P012Q" } },
	{ 6, 2, 4, { "Q01P", "01PQ", "1PQ0", "PQ01", "Q01P" } },
};

static void check_pictures(void)
{
	size_t p;

	for (p = 0; p < sizeof(pictures) / sizeof(pictures[0]); p++) {
		const struct picture *pc = &pictures[p];
		char what[120] = "";
		int row, i, cell[16];
		struct stripe_map m;

		if (init_geo(pc->level, pc->alg, pc->n, 128, 128 * 64, NULL)) {
			ok(0, "picture raid%d alg %d: geometry", pc->level, pc->alg);
			continue;
		}
		for (row = 0; row < 6 && pc->rows[row] && !what[0]; row++) {
			for (i = 0; i < pc->n; i++) {
				char ch = pc->rows[row][i];

				cell[i] = ch == 'P' ? CELL_P : ch == 'Q' ? CELL_Q : ch - '0';
			}
			layout_stripe(&geo, (uint64_t)row, &m);
			if (*map_vs_cells(&m, cell, pc->n))
				snprintf(what, sizeof(what), ": row %d is not %s (%s)", row,
					 pc->rows[row], map_vs_cells(&m, cell, pc->n));
		}
		ok(!what[0], "raid%d layout %d n=%d matches the hand-drawn table%s",
		   pc->level, pc->alg, pc->n, what);
	}
}

static void check_syndrome_example(void)
{
	struct stripe_map m;

	/* md-format.md: left-asymmetric n=5 row 2: P=2, Q=3, data on 0,1,4,
	 * but syndrome slots 0,1,2 are members 4,0,1 */
	init_geo(6, 0, 5, 128, 128 * 64, NULL);
	layout_stripe(&geo, 2, &m);
	ok(m.pd == 2 && m.qd == 3, "la n=5 row 2: P on 2, Q on 3 (got %d, %d)", m.pd, m.qd);
	ok(m.data_disks == 3 && m.data[0] == 0 && m.data[1] == 1 && m.data[2] == 4,
	   "la n=5 row 2: data 0,1,2 on members 0,1,4");
	ok(m.syndrome_disks == 3 && m.slot[0] == 4 && m.slot[1] == 0 && m.slot[2] == 1,
	   "la n=5 row 2: syndrome slots 0,1,2 are members 4,0,1 (got %d,%d,%d)",
	   m.slot[0], m.slot[1], m.slot[2]);

	/* a DDF layout: every member is a slot, P and Q positions empty */
	init_geo(6, 10, 5, 128, 128 * 64, NULL);
	layout_stripe(&geo, 1, &m);
	ok(m.syndrome_disks == 5 && m.slot[0] == 0 && m.slot[1] == 1 && m.slot[2] == -1 &&
	   m.slot[3] == -1 && m.slot[4] == 4,
	   "ddf-N-continue n=5 row 1: slots are members, Q(2) and P(3) empty");

	/* raid5: the syndrome order is just the data order */
	init_geo(5, 0, 4, 128, 128 * 64, NULL);
	layout_stripe(&geo, 1, &m);
	ok(m.qd == -1 && m.syndrome_disks == 3 && m.slot[0] == 0 && m.slot[1] == 1 &&
	   m.slot[2] == 3, "raid5 la n=4 row 1: no Q, slots follow data");
}

/* Every raid6 row uses each member exactly once, and Q's slots name each data
 * member exactly once. */
static void check_raid6_permutations(void)
{
	int n, a;

	for (n = 4; n <= 8; n++) {
		for (a = 0; a < NALGS(raid6_algs); a++) {
			int alg = raid6_algs[a], bad = -1;
			uint64_t row;

			init_geo(6, alg, n, 8, 8 * 4096, NULL);
			for (row = 0; row < (uint64_t)(2 * n * (n - 1)) && bad < 0; row++) {
				struct stripe_map m;
				int seen[ST_MAX_DISKS] = { 0 }, inslot[ST_MAX_DISKS] = { 0 };
				int i, fine = 1, empty = 0;

				layout_stripe(&geo, row, &m);
				fine = m.data_disks == n - 2 && m.pd >= 0 && m.pd < n &&
				       m.qd >= 0 && m.qd < n;
				for (i = 0; fine && i < m.data_disks; i++)
					fine = m.data[i] >= 0 && m.data[i] < n && !seen[m.data[i]]++;
				if (fine)
					fine = !seen[m.pd]++ && !seen[m.qd]++;
				for (i = 0; fine && i < m.syndrome_disks; i++) {
					int r = m.slot[i];

					if (r < 0) {
						empty++;
						continue;
					}
					fine = r < n && r != m.pd && r != m.qd && !inslot[r]++;
				}
				if (fine)
					fine = m.syndrome_disks - empty == n - 2 &&
					       empty == (is_ddf(6, alg) ? 2 : 0);
				if (!fine)
					bad = (int)row;
			}
			ok(bad < 0, "raid6 alg %d n=%d: each row a permutation of the members, slots cover the data once%s",
			   alg, n, bad < 0 ? "" : " (broken)");
			if (bad >= 0)
				printf("#   first bad row %d\n", bad);
		}
	}
}

static void check_tables(void)
{
	int a, n;

	/* the brief's tables: raid5 n=4 and raid6 n=5, rows 0..9 */
	for (a = 0; a < NALGS(raid5_algs); a++)
		check_algorithm_vs_model(5, raid5_algs[a], 4, 10);
	for (a = 0; a < NALGS(raid6_algs); a++)
		check_algorithm_vs_model(6, raid6_algs[a], 5, 10);
	/* and wider: more members, several full rotations */
	for (n = 2; n <= 9; n++)
		for (a = 0; a < NALGS(raid5_algs); a++)
			if (n != 4)
				check_algorithm_vs_model(5, raid5_algs[a], n, 3 * n * n);
	for (n = 4; n <= 9; n++)
		for (a = 0; a < NALGS(raid6_algs); a++)
			if (n != 5)
				check_algorithm_vs_model(6, raid6_algs[a], n, 3 * n * n);
	for (n = 2; n <= 6; n++)
		check_algorithm_vs_model(4, 0, n, 20);
	/* raid4 ignores the layout field: parity stays on the last member */
	init_geo(4, 2, 4, 16, 16 * 100, NULL);
	{
		struct stripe_map m;

		layout_stripe(&geo, 1, &m);
		ok(m.pd == 3 && m.data[0] == 0 && m.data[2] == 2, "raid4 with layout 2 still keeps P last");
	}
}

/* ------------------------------------------------------------------ */

static int rejects(const char *what, int level, int layout, int n, uint32_t chunk,
		   uint64_t dev, const uint64_t *ms)
{
	struct diag d = { 0 };
	uint64_t run = 1;
	int rc = geometry_init(&geo, level, layout, n, chunk, dev, ms, &d);

	ok(rc == -1 && d.msg[0] && geo.array_sectors == 0 &&
	   layout_locate(&geo, 0, cps, &run) == 0 && run == 0,
	   "rejects %s (%s)", what, d.msg[0] ? d.msg : "no message");
	return rc;
}

static void check_geometry(void)
{
	uint64_t ms[ST_MAX_DISKS];
	int i;

	for (i = 0; i < ST_MAX_DISKS; i++)
		ms[i] = 1024;
	rejects("raid5 layout 6", 5, 6, 4, 128, 1 << 20, NULL);
	rejects("raid5 layout -1", 5, -1, 4, 128, 1 << 20, NULL);
	rejects("raid6 layout 6", 6, 6, 5, 128, 1 << 20, NULL);
	rejects("raid6 layout 7", 6, 7, 5, 128, 1 << 20, NULL);
	rejects("raid6 layout 11", 6, 11, 5, 128, 1 << 20, NULL);
	rejects("raid6 layout 15", 6, 15, 5, 128, 1 << 20, NULL);
	rejects("raid6 layout 21", 6, 21, 5, 128, 1 << 20, NULL);
	rejects("raid6 with 3 members", 6, 2, 3, 128, 1 << 20, NULL);
	rejects("raid5 with 1 member", 5, 2, 1, 128, 1 << 20, NULL);
	rejects("raid4 with 1 member", 4, 0, 1, 128, 1 << 20, NULL);
	rejects("raid5 chunk of 12 sectors", 5, 2, 4, 12, 1 << 20, NULL);
	rejects("raid5 chunk below 4 KiB", 5, 2, 4, 4, 1 << 20, NULL);
	rejects("raid5 chunk 0", 5, 2, 4, 0, 1 << 20, NULL);
	rejects("raid10 chunk below 4 KiB", 10, 0x102, 4, 4, 1 << 20, NULL);
	rejects("raid0 chunk of 24 sectors", 0, 1, 2, 24, 0, ms);
	rejects("raid0 chunk 0", 0, 1, 2, 0, 0, ms);
	rejects("257 members", 1, 0, ST_MAX_DISKS + 1, 0, 1 << 20, NULL);
	rejects("0 members", 1, 0, 0, 0, 1 << 20, NULL);
	rejects("level 7", 7, 0, 4, 128, 1 << 20, NULL);
	rejects("level -1 (linear)", -1, 0, 4, 128, 1 << 20, NULL);
	rejects("raid10 with one copy (0x101)", 10, 0x101, 4, 128, 1 << 20, NULL);
	rejects("raid10 n3 on 2 members", 10, 0x103, 2, 128, 1 << 20, NULL);
	rejects("raid10 near=2 far=2 on 3 members", 10, 0x202, 3, 128, 1 << 20, NULL);
	rejects("raid10 near 0", 10, 0x200, 4, 128, 1 << 20, NULL);
	rejects("raid10 bit 19", 10, 0x80102, 4, 128, 1 << 20, NULL);
	rejects("raid10 far-set scheme 3", 10, 0x60201, 4, 128, 1 << 20, NULL);
	rejects("raid10 negative layout", 10, -1, 4, 128, 1 << 20, NULL);
	rejects("raid0 without member sizes", 0, 1, 2, 8, 0, NULL);
	ms[1] = 7;
	rejects("raid0 member smaller than a chunk", 0, 1, 2, 8, 0, ms);
	ms[0] = 24;
	ms[1] = 64;
	ms[2] = 64;
	rejects("multi-zone raid0 without a layout", 0, -1, 3, 8, 0, ms);
	rejects("multi-zone raid0 with layout 0", 0, 0, 3, 8, 0, ms);
	rejects("multi-zone raid0 with layout 3", 0, 3, 3, 8, 0, ms);
	rejects("raid6 size overflow", 6, 2, 200, 128, UINT64_MAX / 4, NULL);
	rejects("raid10 size overflow", 10, 0x102, 200, 128, UINT64_MAX / 2, NULL);
	{
		uint64_t big[3] = { UINT64_MAX / 2, UINT64_MAX / 2, UINT64_MAX / 2 };

		rejects("raid0 size overflow", 0, 1, 3, 8, 0, big);
	}

	/* sizes the kernel would compute */
	ok(!init_geo(1, 0, 3, 128, 16256, NULL) && geo.array_sectors == 16256 &&
	   geo.chunk_sectors == 0, "raid1: array = component size, chunk ignored");
	ok(!init_geo(5, 2, 4, 128, 1000, NULL) && geo.dev_sectors == 896 &&
	   geo.array_sectors == 896 * 3 && geo.data_disks == 3,
	   "raid5 n=4: component rounded down to a chunk, x3");
	ok(!init_geo(6, 2, 6, 256, 14336, NULL) && geo.array_sectors == 14336 * 4 &&
	   geo.data_disks == 4, "raid6 n=6: x4");
	ok(!init_geo(5, 2, 2, 8, 100, NULL) && geo.array_sectors == 96,
	   "raid5 with 2 members is accepted (a mirror with parity)");
	ok(!init_geo(4, 0, 3, 8, 100, NULL) && geo.array_sectors == 192, "raid4 n=3");
	/* raid10: 11-chunk members on 3 disks */
	ok(!init_geo(10, 0x102, 3, 8, 88, NULL) && geo.array_sectors == 16 * 8 &&
	   geo.dev_sectors == 11 * 8 && geo.copies == 2,
	   "raid10 n2 on 3: 16 chunks, 11 used per member");
	ok(!init_geo(10, 0x201, 3, 8, 88, NULL) && geo.array_sectors == 15 * 8 &&
	   geo.dev_sectors == 10 * 8 && geo.far_stride == 5 * 8,
	   "raid10 f2 on 3: 15 chunks, 10 used, far copies 5 chunks on");
	ok(!init_geo(10, 0x10201, 3, 8, 88, NULL) && geo.array_sectors == 15 * 8 &&
	   geo.dev_sectors == 10 * 8 && geo.far_stride == 8 && geo.far_offset,
	   "raid10 o2 on 3: 15 chunks, far copy one chunk on");
	ok(!init_geo(10, 0x202, 5, 8, 6 * 8, NULL) && geo.array_sectors == 7 * 8 &&
	   geo.dev_sectors == 6 * 8 && geo.far_stride == 3 * 8 && geo.copies == 4,
	   "raid10 n2 f2 on 5: 7 chunks, 6 used, stride 3");
	ok(!init_geo(10, 0x40201, 4, 8, 64, NULL) && geo.far_set_size == 2,
	   "raid10 far-set scheme 2: sets of far*near members");
	ok(!init_geo(10, 0x20201, 4, 8, 64, NULL) && geo.far_set_size == 2,
	   "raid10 far-set scheme 1: sets of members/far");
	ok(!init_geo(10, 0x201, 4, 8, 64, NULL) && geo.far_set_size == 4,
	   "raid10 far-set scheme 0: one set of all members");
	/* raid0 */
	ms[0] = 24 + 5;  /* rounds down to 3 chunks */
	ms[1] = 64;
	ms[2] = 64;
	ok(!init_geo(0, 1, 3, 8, 0, ms) && geo.nzones == 2 && geo.array_sectors == 19 * 8 &&
	   geo.member_sectors[0] == 24 && geo.zones[0].end == 72 && geo.zones[0].nb_dev == 3 &&
	   geo.zones[1].dev_start == 24 && geo.zones[1].nb_dev == 2 && geo.zones[1].end == 152,
	   "raid0 3,8,8 chunks: zones of 9 and 10 chunks");
	ms[1] = 24;
	ok(!init_geo(0, -1, 3, 8, 0, ms) && geo.nzones == 2 && geo.zones[1].nb_dev == 1,
	   "raid0 with one member in zone 1 needs no layout (md forces original)");
	ms[0] = ms[1] = ms[2] = 64;
	ok(!init_geo(0, -1, 3, 8, 0, ms) && geo.nzones == 1 && geo.array_sectors == 192,
	   "raid0 with equal members needs no layout");
	ms[0] = 8;
	ms[1] = 40;
	ms[2] = 24;
	ms[3] = 40;
	ok(!init_geo(0, 2, 4, 8, 0, ms) && geo.nzones == 3 &&
	   geo.zones[1].nb_dev == 3 && geo.zones[1].dev_start == 8 &&
	   geo.zones[2].nb_dev == 2 && geo.zones[2].dev_start == 24 &&
	   geo.array_sectors == (1 + 5 + 3 + 5) * 8,
	   "raid0 1,5,3,5 chunks: three zones of 4, 6 and 4 chunks");
}

/* ------------------------------------------------------------------ */
/* RAID10: md.4's pictures.  Each row is one member chunk across the members,
 * naming the array chunk stored there ("-" unused). */
static void check_raid10_picture(const char *what, int n, int layout, uint64_t dev_chunks,
				 const char *expect)
{
	char got[512], cellbuf[16];
	int grid[64][16];
	int rows = (int)dev_chunks, r, i, used = 0;
	uint64_t c;

	if (init_geo(10, layout, n, 8, dev_chunks * 8, NULL)) {
		ok(0, "raid10 %s: geometry", what);
		return;
	}
	for (r = 0; r < rows; r++)
		for (i = 0; i < n; i++)
			grid[r][i] = -1;
	for (c = 0; c < geo.array_sectors / 8; c++) {
		int k = layout_locate(&geo, c * 8, cps, NULL);

		for (i = 0; i < k; i++)
			if (cps[i].sector / 8 < (uint64_t)rows)
				grid[cps[i].sector / 8][cps[i].role] = (int)c;
	}
	got[0] = 0;
	for (r = 0; r < rows; r++) {
		for (i = 0; i < n; i++) {
			if (grid[r][i] < 0)
				snprintf(cellbuf, sizeof(cellbuf), "-");
			else
				snprintf(cellbuf, sizeof(cellbuf), "%d", grid[r][i]);
			used += snprintf(got + used, sizeof(got) - used, "%s%s",
					 i ? " " : (r ? "|" : ""), cellbuf);
		}
	}
	ok(!strcmp(got, expect), "raid10 %s: %s", what, got);
	if (strcmp(got, expect))
		printf("#   expected %s\n", expect);
}

/* For every raid10 shape md accepts on n members: copies land on distinct
 * members, inside the used part, and no member chunk is used twice. */
static void check_raid10_sweep(void)
{
	static unsigned char used[16][64];
	int n, near, far, offset, scheme, shapes = 0, bad = 0, quirky = 0, set_quirks = 0;
	char first_bad[160] = "";

	for (n = 2; n <= 9; n++)
		for (near = 1; near <= n; near++)
			for (far = 1; near * far <= n; far++)
				for (offset = 0; offset < 2; offset++)
					for (scheme = 0; scheme <= 2; scheme += 2) {
		int layout = near | far << 8 | offset << 16 | scheme << 17;
		uint64_t dev_chunks = 13 + n, c, want;
		const char *why = NULL;
		/* md's own quirks, in layouts the kernel accepts but mdadm never
		 * writes: in offset mode a near copy that wraps to the next row
		 * lands on that row's far copies; with far sets (scheme 2) that do
		 * not divide n, a copy can step into the last set onto another's
		 * member.  Scheme 2 overlaps are only counted. */
		int md_overlaps = offset && far > 1 && near > 1 && n % near;
		int overlapped = 0;

		if (near * far < 2)
			continue;
		if (init_geo(10, layout, n, 8, dev_chunks * 8, NULL)) {
			why = "rejected";
			goto judged;
		}
		shapes++;
		want = dev_chunks / far * n / near;
		if (geo.array_sectors != want * 8) {
			why = "array size";
			goto judged;
		}
		memset(used, 0, sizeof(used));
		for (c = 0; c < want && !why; c++) {
			uint64_t run = 0;
			int k = layout_locate(&geo, c * 8 + 3, cps, &run), i, j;

			if (k != near * far || run != 5)
				why = "copy count or run";
			for (i = 0; i < k && !why; i++) {
				uint64_t mc = cps[i].sector / 8;

				if (cps[i].role < 0 || cps[i].role >= n || cps[i].sector % 8 != 3 ||
				    cps[i].sector >= geo.dev_sectors)
					why = "copy outside the member's used area";
				else if (used[cps[i].role][mc]++)
					overlapped = 1;
				for (j = 0; j < i && !why; j++)
					if (cps[j].role == cps[i].role)
						why = "two copies on one member";
			}
		}
		if (!why && scheme == 2 && overlapped) {
			set_quirks++;
			overlapped = md_overlaps;
		}
		if (!why && overlapped != md_overlaps)
			why = overlapped ? "member chunk used twice" : "expected md's overlap, found none";
		quirky += overlapped;
judged:
		if (why) {
			if (!bad++)
				snprintf(first_bad, sizeof(first_bad), ": n=%d layout 0x%x: %s",
					 n, layout, why);
		}
	}
	ok(!bad, "raid10: %d shapes (n 2..9, near/far/offset, far-set schemes 0 and 2) place copies apart; only the %d near+offset shapes with n %% near != 0 overlap, as in md%s",
	   shapes, quirky, first_bad);
	printf("# raid10: %d far-set scheme 2 shapes overlap copies, by md's own formula\n", set_quirks);
}

static void check_raid10(void)
{
	check_raid10_picture("n2 on 4 (md.4)", 4, 0x102, 2, "0 0 1 1|2 2 3 3");
	check_raid10_picture("n2 on 5 (md.4)", 5, 0x102, 4,
			     "0 0 1 1 2|2 3 3 4 4|5 5 6 6 7|7 8 8 9 9");
	check_raid10_picture("f2 on 4 (md.4)", 4, 0x201, 4, "0 1 2 3|4 5 6 7|3 0 1 2|7 4 5 6");
	check_raid10_picture("f2 on 5 (md.4)", 5, 0x201, 4,
			     "0 1 2 3 4|5 6 7 8 9|4 0 1 2 3|9 5 6 7 8");
	check_raid10_picture("o2 on 4 (md.4)", 4, 0x10201, 4, "0 1 2 3|3 0 1 2|4 5 6 7|7 4 5 6");
	check_raid10_picture("o2 on 5 (md.4)", 5, 0x10201, 4,
			     "0 1 2 3 4|4 0 1 2 3|5 6 7 8 9|9 5 6 7 8");
	check_raid10_picture("n3 on 4", 4, 0x103, 4, "0 0 0 1|1 1 2 2|2 3 3 3|4 4 4 -");
	check_raid10_picture("n2 f2 on 4", 4, 0x202, 4, "0 0 1 1|2 2 3 3|1 1 0 0|3 3 2 2");
	check_raid10_picture("f3 on 3", 3, 0x301, 3, "0 1 2|2 0 1|1 2 0");
	check_raid10_picture("f2 on 4, far sets of 2", 4, 0x40201, 4,
			     "0 1 2 3|4 5 6 7|1 0 3 2|5 4 7 6");
	check_raid10_sweep();

	/* the kernel's slot order: near copies, each followed by its far copies */
	init_geo(10, 0x202, 4, 8, 32, NULL);
	{
		int k = layout_locate(&geo, 8 + 1, cps, NULL);

		ok(k == 4 && cps[0].role == 2 && cps[1].role == 0 && cps[2].role == 3 &&
		   cps[3].role == 1 && cps[0].sector == 1 && cps[1].sector == 17 &&
		   cps[2].sector == 1 && cps[3].sector == 17,
		   "raid10 n2 f2: copies of chunk 1 in md's order (2,0 far of 2, 3, 1 far of 3)");
	}
}

/* ------------------------------------------------------------------ */

static void check_raid0(void)
{
	uint64_t ms[8] = { 24, 64, 64 }, run;
	int k;

	/* zone 0 ends at chunk 9 (odd), so the two layouts disagree in zone 1 */
	init_geo(0, RAID0_ORIG_LAYOUT, 3, 8, 0, ms);
	k = layout_locate(&geo, 9 * 8 + 2, cps, &run);
	ok(k == 1 && cps[0].role == 2 && cps[0].sector == 26 && run == 6,
	   "raid0 original: chunk 9 on member 2 (absolute chunk 9 %% 2), chunk 3 of it");
	layout_locate(&geo, 10 * 8, cps, &run);
	ok(cps[0].role == 1 && cps[0].sector == 24, "raid0 original: chunk 10 on member 1");
	layout_locate(&geo, 8 * 8, cps, &run);
	ok(cps[0].role == 2 && cps[0].sector == 16, "raid0: chunk 8 (zone 0) on member 2, chunk 2");
	init_geo(0, RAID0_ALT_MULTIZONE_LAYOUT, 3, 8, 0, ms);
	layout_locate(&geo, 9 * 8 + 2, cps, &run);
	ok(cps[0].role == 1 && cps[0].sector == 26,
	   "raid0 alternate: chunk 9 on member 1 (zone chunk 0)");
	layout_locate(&geo, 18 * 8 + 7, cps, &run);
	ok(cps[0].role == 2 && cps[0].sector == 63 && run == 1,
	   "raid0 alternate: last sector on member 2's last sector");
	ok(layout_locate(&geo, 19 * 8, cps, &run) == 0 && run == 0, "raid0: nothing past the end");

	/* members in zone 1 keep role order even when a middle one is short */
	ms[0] = 64;
	ms[1] = 24;
	ms[2] = 64;
	init_geo(0, RAID0_ALT_MULTIZONE_LAYOUT, 3, 8, 0, ms);
	layout_locate(&geo, 10 * 8, cps, &run);
	ok(cps[0].role == 2 && cps[0].sector == 24, "raid0 8,3,8: zone 1 is members 0 and 2");

	/* bijection over several shapes and both layouts */
	{
		static const uint64_t shapes[][5] = {
			{ 3, 8, 8, 0, 0 }, { 8, 3, 8, 5, 0 }, { 1, 5, 3, 5, 2 },
			{ 7, 7, 7, 7, 0 }, { 2, 9, 0, 0, 0 }, { 9, 2, 4, 6, 11 },
		};
		int sh, lay, bad = 0, tried = 0;

		for (sh = 0; sh < 6; sh++)
			for (lay = 1; lay <= 2; lay++) {
				static unsigned char hit[5][16];
				uint64_t sz[5], c, total = 0;
				int n = 0, r;

				for (r = 0; r < 5 && shapes[sh][r]; r++) {
					sz[r] = shapes[sh][r] * 16 + 3;  /* ragged: rounded down */
					total += shapes[sh][r];
					n++;
				}
				if (init_geo(0, lay, n, 16, 0, sz)) {
					bad++;
					continue;
				}
				tried++;
				memset(hit, 0, sizeof(hit));
				if (geo.array_sectors != total * 16)
					bad++;
				for (c = 0; c < total; c++) {
					k = layout_locate(&geo, c * 16 + 5, cps, &run);
					if (k != 1 || run != 11 || cps[0].sector % 16 != 5 ||
					    cps[0].role < 0 || cps[0].role >= n ||
					    cps[0].sector / 16 >= shapes[sh][cps[0].role] ||
					    hit[cps[0].role][cps[0].sector / 16]++) {
						bad++;
						break;
					}
				}
			}
		ok(!bad, "raid0: %d zone shapes x layouts map the array one-to-one onto the members", tried);
	}
}

static void check_raid1(void)
{
	uint64_t run;
	int k;

	init_geo(1, 0, 3, 0, 1000, NULL);
	k = layout_locate(&geo, 990, cps, &run);
	ok(k == 3 && cps[0].role == 0 && cps[2].role == 2 && cps[1].sector == 990 && run == 10,
	   "raid1: every member, same sector, run to the end");
}

/* ------------------------------------------------------------------ */

static void check_names(void)
{
	char buf[64];
	struct diag d = { 0 };
	int a, l, level;

	for (l = 0; l < 2; l++) {
		level = l ? 6 : 5;
		const int *algs = l ? raid6_algs : raid5_algs;
		int count = l ? NALGS(raid6_algs) : NALGS(raid5_algs), bad = 0;

		for (a = 0; a < count; a++) {
			const char *nm = layout_name(level, algs[a], buf, sizeof(buf));

			if (!nm || layout_parse(level, nm, &d) != algs[a]) {
				bad++;
				printf("#   raid%d %d: name %s\n", level, algs[a], nm ? nm : "(none)");
			}
		}
		ok(!bad, "raid%d: every layout has a name that parses back", level);
	}
	ok(!strcmp(layout_name(5, 2, NULL, 0), "left-symmetric") &&
	   !strcmp(layout_name(5, 0, NULL, 0), "left-asymmetric") &&
	   !strcmp(layout_name(5, 1, NULL, 0), "right-asymmetric") &&
	   !strcmp(layout_name(5, 3, NULL, 0), "right-symmetric") &&
	   !strcmp(layout_name(5, 4, NULL, 0), "parity-first") &&
	   !strcmp(layout_name(5, 5, NULL, 0), "parity-last"),
	   "raid5 names as mdadm prints them");
	ok(!strcmp(layout_name(6, 8, NULL, 0), "ddf-zero-restart") &&
	   !strcmp(layout_name(6, 9, NULL, 0), "ddf-N-restart") &&
	   !strcmp(layout_name(6, 10, NULL, 0), "ddf-N-continue") &&
	   !strcmp(layout_name(6, 16, NULL, 0), "left-asymmetric-6") &&
	   !strcmp(layout_name(6, 17, NULL, 0), "right-asymmetric-6") &&
	   !strcmp(layout_name(6, 18, NULL, 0), "left-symmetric-6") &&
	   !strcmp(layout_name(6, 19, NULL, 0), "right-symmetric-6") &&
	   !strcmp(layout_name(6, 20, NULL, 0), "parity-first-6"),
	   "raid6 DDF and -6 names as mdadm prints them");
	ok(!layout_name(5, 8, NULL, 0) && !layout_name(6, 6, NULL, 0) &&
	   !layout_name(5, -1, NULL, 0) && !layout_name(1, 0, NULL, 0) &&
	   !layout_name(4, 0, NULL, 0), "no name for numbers md has none for");
	ok(!strcmp(layout_name(0, 1, NULL, 0), "original") &&
	   !strcmp(layout_name(0, 2, NULL, 0), "alternate") && !layout_name(0, -1, NULL, 0),
	   "raid0 names; none for the unspecified -1");
	ok(!strcmp(layout_name(10, 0x102, buf, sizeof(buf)), "near=2") &&
	   !strcmp(layout_name(10, 0x201, buf, sizeof(buf)), "far=2") &&
	   !strcmp(layout_name(10, 0x10201, buf, sizeof(buf)), "offset=2") &&
	   !strcmp(layout_name(10, 0x202, buf, sizeof(buf)), "near=2, far=2") &&
	   !strcmp(layout_name(10, 0x10302, buf, sizeof(buf)), "near=2, offset=3") &&
	   !strcmp(layout_name(10, 0x103, buf, sizeof(buf)), "near=3"),
	   "raid10 names as mdadm --detail prints them");
	ok(!layout_name(10, 0x102, buf, 4) && !layout_name(10, 0x102, NULL, 0) &&
	   !layout_name(10, 0x2, buf, sizeof(buf)), "raid10 name: NULL without room or for near-only-no-far junk");

	ok(layout_parse(5, "ls", &d) == 2 && layout_parse(5, "la", &d) == 0 &&
	   layout_parse(5, "ra", &d) == 1 && layout_parse(5, "rs", &d) == 3 &&
	   layout_parse(5, "default", &d) == 2 && layout_parse(6, "default", &d) == 2,
	   "short names and default for raid5/6");
	ok(layout_parse(5, "ddf-zero-restart", &d) == 1 && layout_parse(5, "ddf-N-restart", &d) == 0 &&
	   layout_parse(5, "ddf-N-continue", &d) == 2 && layout_parse(6, "ddf-N-restart", &d) == 9,
	   "DDF names mean plain rotations on raid5, as in mdadm");
	ok(layout_parse(5, "3", &d) == 3 && layout_parse(6, "0x10", &d) == 16 &&
	   layout_parse(6, "18", &d) == 18, "numbers accepted");
	d.msg[0] = 0;
	ok(layout_parse(6, "7", &d) == -1 && d.msg[0], "raid6 layout 7 refused: %s", d.msg);
	d.msg[0] = 0;
	ok(layout_parse(5, "left-symmetric-6", &d) == -1 && strstr(d.msg, "left-symmetric-6"),
	   "raid5 refuses a raid6-only name: %s", d.msg);
	d.msg[0] = 0;
	ok(layout_parse(5, "bogus", &d) == -1 && strstr(d.msg, "bogus") &&
	   strstr(d.msg, "left-symmetric"), "unknown name: message lists the known ones");
	ok(layout_parse(5, "", &d) == -1 && layout_parse(5, NULL, &d) == -1 &&
	   layout_parse(5, "2x", &d) == -1 && layout_parse(5, "-2", &d) == -1 &&
	   layout_parse(5, "0x", &d) == -1, "empty, NULL and malformed numbers refused");
	ok(layout_parse(10, "n2", &d) == 0x102 && layout_parse(10, "f2", &d) == 0x201 &&
	   layout_parse(10, "o2", &d) == 0x10201 && layout_parse(10, "n3", &d) == 0x103 &&
	   layout_parse(10, "f3", &d) == 0x301 && layout_parse(10, "default", &d) == 0x102,
	   "raid10 mdadm short names");
	ok(layout_parse(10, "near=2, far=2", &d) == 0x202 &&
	   layout_parse(10, "near=2", &d) == 0x102 && layout_parse(10, "offset=2", &d) == 0x10201 &&
	   layout_parse(10, "n2,o2", &d) == 0x10202 && layout_parse(10, "258", &d) == 258 &&
	   layout_parse(10, "0x10201", &d) == 0x10201,
	   "raid10 long forms (as layout_name prints them) and numbers");
	ok(layout_parse(10, "n1", &d) == -1 && layout_parse(10, "x2", &d) == -1 &&
	   layout_parse(10, "f2,o2", &d) == -1 && layout_parse(10, "n2,n2", &d) == -1 &&
	   layout_parse(10, "n", &d) == -1 && layout_parse(10, "n2x", &d) == -1 &&
	   layout_parse(10, "n256", &d) == -1 && layout_parse(10, "0x101", &d) == -1 &&
	   layout_parse(10, "0x80102", &d) == -1, "raid10 nonsense refused");
	ok(layout_parse(0, "original", &d) == 1 && layout_parse(0, "alternate", &d) == 2 &&
	   layout_parse(0, "default", &d) == 1 && layout_parse(0, "dangerous", &d) == 0 &&
	   layout_parse(0, "2", &d) == 2 && layout_parse(0, "3", &d) == -1,
	   "raid0 names");
	ok(layout_parse(1, "default", &d) == 0 && layout_parse(4, "default", &d) == 0 &&
	   layout_parse(4, "left-symmetric", &d) == -1 && layout_parse(7, "default", &d) == -1,
	   "raid1/raid4 only take the default");
	for (a = 0; a < 0x20000; a += 0x101) {
		const char *nm = layout_name(10, a, buf, sizeof(buf));

		if (nm && (a & 0xff) * ((a >> 8) & 0xff) >= 2 && layout_parse(10, nm, &d) != a &&
		    !(a & 0x10000 && ((a >> 8) & 0xff) == 1)) {
			ok(0, "raid10 0x%x: %s parses back to 0x%x", a, nm, layout_parse(10, nm, &d));
			return;
		}
	}
	ok(1, "raid10 names parse back to their numbers");
}

/* ------------------------------------------------------------------ */
/* Real md: member images and their MANIFEST. */

struct manifest {
	char *text;
	int n;
	char *key[1024], *val[1024];
};

static int manifest_read(struct manifest *m, const char *path)
{
	FILE *f = fopen(path, "r");
	long len;
	char *line, *save = NULL;

	memset(m, 0, sizeof(*m));
	if (!f)
		return -1;
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	rewind(f);
	m->text = calloc(1, (size_t)len + 1);
	if (!m->text || fread(m->text, 1, (size_t)len, f) != (size_t)len) {
		fclose(f);
		return -1;
	}
	fclose(f);
	for (line = strtok_r(m->text, "\n", &save); line && m->n < 1024;
	     line = strtok_r(NULL, "\n", &save)) {
		char *eq = strchr(line, '=');

		if (line[0] == '#' || !eq)
			continue;
		*eq = 0;
		m->key[m->n] = line;
		m->val[m->n++] = eq + 1;
	}
	return 0;
}

static const char *mget(const struct manifest *m, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static const char *mget(const struct manifest *m, const char *fmt, ...)
{
	char key[128];
	va_list ap;
	int i;

	va_start(ap, fmt);
	vsnprintf(key, sizeof(key), fmt, ap);
	va_end(ap);
	for (i = 0; i < m->n; i++)
		if (!strcmp(m->key[i], key))
			return m->val[i];
	return NULL;
}

static int mnum(const char *v, long long *out)
{
	char *end;

	if (!v || !*v)
		return -1;
	*out = strtoll(v, &end, 10);
	return *end ? -1 : 0;
}

struct fixture {
	char dir[PATH_MAX];
	const char *name;
	struct manifest mf;
	int level, layout, n, stale_role, is_pattern;
	uint32_t chunk;
	uint64_t dev_sectors, array_bytes;
	uint64_t data_offset[ST_MAX_DISKS], data_size[ST_MAX_DISKS];  /* by role */
	int member_of_role[ST_MAX_DISKS];
	unsigned char *img[ST_MAX_DISKS];                             /* by role, mapped */
	size_t img_len[ST_MAX_DISKS];
	const char *set, *stale_set;
};

static const unsigned char *member_at(const struct fixture *f, int role, uint64_t sector)
{
	uint64_t byte;

	if (role < 0 || role >= f->n || !f->img[role] || sector + BLK_SECTORS > f->data_size[role])
		return NULL;
	byte = (f->data_offset[role] + sector) * 512;
	if (byte + BLK > f->img_len[role])
		return NULL;
	return f->img[role] + byte;
}

static void pattern_block(unsigned char *out, uint64_t blk, const char *set)
{
	char line[256];
	int len = snprintf(line, sizeof(line), "blk=%016llx set=%s\n", (unsigned long long)blk, set);
	int at;

	for (at = 0; at < BLK; at += len)
		memcpy(out + at, line, (size_t)(BLK - at < len ? BLK - at : len));
}

/* Reads the MANIFEST facts the layout needs; "" on success, else why not. */
static const char *fixture_parse(struct fixture *f)
{
	struct manifest *m = &f->mf;
	long long v, ndev;
	const char *lv = mget(m, "level"), *content = mget(m, "content");
	int i;

	if (!lv || sscanf(lv, "raid%d", &f->level) != 1)
		return "no raid level";
	if (mnum(mget(m, "layout_num"), &v))
		return "no layout_num";
	f->layout = (int)v;
	if (mnum(mget(m, "raid_devices"), &ndev) || ndev < 1 || ndev > ST_MAX_DISKS)
		return "no raid_devices";
	f->n = (int)ndev;
	f->chunk = mnum(mget(m, "chunk_bytes"), &v) ? 0 : (uint32_t)(v / 512);
	f->dev_sectors = mnum(mget(m, "component_size_kib"), &v) ? 0 : (uint64_t)v * 2;
	if (mnum(mget(m, "array_size_bytes"), &v))
		return "no array_size_bytes";
	f->array_bytes = (uint64_t)v;
	f->set = mget(m, "pattern_set");
	f->is_pattern = content && !strcmp(content, "pattern") && f->set;
	for (i = 0; i < f->n; i++)
		f->member_of_role[i] = -1;
	for (i = 0; i < f->n; i++) {
		long long role = i, off, size;

		if (mget(m, "member%d.role", i) && mnum(mget(m, "member%d.role", i), &role))
			return "bad member role";
		if (role < 0 || role >= f->n || f->member_of_role[role] >= 0)
			return "member roles are not 0..n-1";
		if (mnum(mget(m, "member%d.data_offset_sectors", i), &off) ||
		    mnum(mget(m, "member%d.data_size_sectors", i), &size))
			return "member data offset/size missing";
		f->member_of_role[role] = i;
		f->data_offset[role] = (uint64_t)off;
		f->data_size[role] = (uint64_t)size;
	}
	f->stale_role = -1;
	if (mget(m, "failed_roles") && !mnum(mget(m, "failed_roles"), &v))
		f->stale_role = (int)v;
	f->stale_set = mget(m, "stale_pattern_set");
	return "";
}

/* Scratch directory the members are decompressed into, one set at a time. */
static char scratch[PATH_MAX];

static void shell_quote_append(char *cmd, size_t cap, const char *s)
{
	size_t used = strlen(cmd);

	/* fixture paths never hold a quote; refuse rather than escape */
	if (strchr(s, '\''))
		return;
	snprintf(cmd + used, cap - used, "'%s'", s);
}

/* Maps one image read-only into f->img[r]. */
static int map_image(struct fixture *f, int r, const char *path)
{
	struct stat st;
	int fd = open(path, O_RDONLY);

	if (fd < 0 || fstat(fd, &st) || st.st_size < BLK) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	f->img[r] = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (f->img[r] == MAP_FAILED) {
		f->img[r] = NULL;
		return -1;
	}
	f->img_len[r] = (size_t)st.st_size;
	return 0;
}

/* make check unpacks every set once (tests/unpack-fixtures); where the raw
 * images are already there, map them instead of decompressing again. */
static int fixture_map_raw(struct fixture *f)
{
	char path[PATH_MAX + 64];
	int r;

	for (r = 0; r < f->n; r++) {
		const char *file = mget(&f->mf, "member%d.file", f->member_of_role[r]);
		size_t len = file ? strlen(file) : 0;

		if (!file || len < 4 || strcmp(file + len - 3, ".xz") != 0)
			return -1;
		snprintf(path, sizeof(path), "%s/%.*s", f->dir, (int)(len - 3), file);
		if (access(path, R_OK) != 0)
			return -1;
	}
	for (r = 0; r < f->n; r++) {
		const char *file = mget(&f->mf, "member%d.file", f->member_of_role[r]);

		snprintf(path, sizeof(path), "%s/%.*s", f->dir, (int)(strlen(file) - 3), file);
		if (map_image(f, r, path) < 0)
			return -1;
	}
	return 0;
}

/* All members of a set decompress at once (xz is single-threaded per file),
 * into scratch files that are then mapped, never copied. */
static int fixture_load_members(struct fixture *f)
{
	static char cmd[ST_MAX_DISKS * (2 * PATH_MAX / 8) + 64];
	char path[PATH_MAX + 64], out[PATH_MAX + 32];
	long long file_size = 0, want_size;
	int r, fd;

	mnum(mget(&f->mf, "member_size_bytes"), &file_size);
	if (fixture_map_raw(f) == 0)
		return 0;

	cmd[0] = 0;
	for (r = 0; r < f->n; r++) {
		const char *file = mget(&f->mf, "member%d.file", f->member_of_role[r]);

		if (!file || strchr(file, '\'') || strchr(f->dir, '\''))
			return -1;
		snprintf(path, sizeof(path), "%s/%s", f->dir, file);
		snprintf(out, sizeof(out), "%s/%d", scratch, r);
		/* a failed xz leaves no file behind, which the size check catches */
		strncat(cmd, "(xz -dc -- ", sizeof(cmd) - strlen(cmd) - 1);
		shell_quote_append(cmd, sizeof(cmd), path);
		strncat(cmd, " > ", sizeof(cmd) - strlen(cmd) - 1);
		shell_quote_append(cmd, sizeof(cmd), out);
		strncat(cmd, " || rm -f ", sizeof(cmd) - strlen(cmd) - 1);
		shell_quote_append(cmd, sizeof(cmd), out);
		strncat(cmd, ") & ", sizeof(cmd) - strlen(cmd) - 1);
	}
	strncat(cmd, "wait", sizeof(cmd) - strlen(cmd) - 1);
	if (system(cmd) != 0)
		return -1;
	for (r = 0; r < f->n; r++) {
		struct stat st;

		want_size = file_size;
		mnum(mget(&f->mf, "member%d.size_bytes", f->member_of_role[r]), &want_size);
		snprintf(out, sizeof(out), "%s/%d", scratch, r);
		fd = open(out, O_RDONLY);
		if (fd < 0 || fstat(fd, &st) || st.st_size < BLK ||
		    (want_size > 0 && st.st_size != want_size)) {
			if (fd >= 0)
				close(fd);
			printf("#   member of role %d did not decompress\n", r);
			return -1;
		}
		f->img[r] = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		close(fd);
		unlink(out);  /* the mapping keeps it until fixture_free */
		if (f->img[r] == MAP_FAILED) {
			f->img[r] = NULL;
			return -1;
		}
		f->img_len[r] = (size_t)st.st_size;
	}
	return 0;
}

static void fixture_free(struct fixture *f)
{
	char out[PATH_MAX + 32];
	int r;

	for (r = 0; r < f->n; r++) {
		if (f->img[r])
			munmap(f->img[r], f->img_len[r]);
		snprintf(out, sizeof(out), "%s/%d", scratch, r);
		unlink(out);  /* left over when decompressing failed half way */
	}
	free(f->mf.text);
}

/* Data blocks the MANIFEST says were overwritten on purpose, and the (row,
 * page) of every parity it says must now disagree. */
struct damage {
	int ndata, npar;
	long long data_blk[8];
	long long par_row[8], par_page[8];
	char par_kind[8];  /* P, Q or D(ata: breaks P and Q) */
};

static void fixture_damage(const struct fixture *f, struct damage *dm)
{
	long long count = 0, j, v;

	memset(dm, 0, sizeof(*dm));
	if (mnum(mget(&f->mf, "corrupt_count"), &count))
		return;
	for (j = 0; j < count && j < 8; j++) {
		const char *kind = mget(&f->mf, "corrupt%lld.kind", j);
		long long row = -1, off = -1;

		mnum(mget(&f->mf, "corrupt%lld.stripe_row", j), &row);
		mnum(mget(&f->mf, "corrupt%lld.offset_in_data_area", j), &off);
		if (!kind)
			continue;
		/* a bad mirror copy: that block is skipped, there is no parity */
		if (!strcmp(kind, "copy")) {
			if (!mnum(mget(&f->mf, "corrupt%lld.array_byte_offset", j), &v) && dm->ndata < 8)
				dm->data_blk[dm->ndata++] = v / BLK;
			continue;
		}
		if (!strcmp(kind, "data") && !mnum(mget(&f->mf, "corrupt%lld.array_block_4k", j), &v))
			dm->data_blk[dm->ndata++] = v;
		dm->par_row[dm->npar] = row;
		dm->par_page[dm->npar] = off % ((long long)f->chunk * 512) / BLK;
		dm->par_kind[dm->npar++] = kind[0] == 'd' ? 'D' : kind[0];
	}
}

static int damage_has_block(const struct damage *dm, uint64_t blk)
{
	int i;

	for (i = 0; i < dm->ndata; i++)
		if ((uint64_t)dm->data_blk[i] == blk)
			return 1;
	return 0;
}

static int damage_hits_parity(const struct damage *dm, uint64_t row, int page, char which)
{
	int i;

	for (i = 0; i < dm->npar; i++)
		if ((uint64_t)dm->par_row[i] == row && dm->par_page[i] == page &&
		    (dm->par_kind[i] == which || dm->par_kind[i] == 'D'))
			return 1;
	return 0;
}

/* Every 4 KiB block of the array, at every place layout_locate names. */
static void fixture_check_data(const struct fixture *f, const struct damage *dm)
{
	static unsigned char want[BLK], stale[BLK], rebuilt[BLK];
	uint64_t nblk = f->array_bytes / BLK, b, copies = 0, stale_seen = 0, rebuilt_ok = 0;
	int per = geo.level == 1 ? geo.raid_disks : geo.level == 10 ? geo.copies : 1;
	int bad_locate = 0, outside = 0, differ = 0, unexpected = 0, expected_seen = 0;
	int stale_bad = 0, rebuilt_bad = 0, i, r;

	for (b = 0; b < nblk; b++) {
		uint64_t run = 0;
		int k = layout_locate(&geo, b * BLK_SECTORS, cps, &run);

		if (k != per || run < BLK_SECTORS) {
			if (!bad_locate++)
				printf("#   block %llu: %d copies, run %llu\n",
				       (unsigned long long)b, k, (unsigned long long)run);
			continue;
		}
		pattern_block(want, b, f->set);
		for (i = 0; i < k; i++) {
			const unsigned char *at = member_at(f, cps[i].role, cps[i].sector);

			if (!at) {
				if (!outside++)
					printf("#   block %llu: member %d sector %llu outside its data\n",
					       (unsigned long long)b, cps[i].role,
					       (unsigned long long)cps[i].sector);
				continue;
			}
			copies++;
			if (cps[i].role == f->stale_role) {
				/* the failed member kept the older generation; what md
				 * serves instead is the XOR of the others */
				pattern_block(stale, b, f->stale_set ? f->stale_set : "");
				stale_seen++;
				if (memcmp(at, stale, BLK))
					stale_bad++;
				memset(rebuilt, 0, BLK);
				for (r = 0; r < f->n; r++) {
					const unsigned char *o = member_at(f, r, cps[i].sector);
					int j;

					if (r == f->stale_role || !o)
						continue;
					for (j = 0; j < BLK; j++)
						rebuilt[j] ^= o[j];
				}
				if (memcmp(rebuilt, want, BLK))
					rebuilt_bad++;
				else
					rebuilt_ok++;
				continue;
			}
			if (!memcmp(at, want, BLK))
				continue;
			if (damage_has_block(dm, b)) {
				expected_seen++;
				continue;
			}
			if (!differ++ || differ < 4)
				printf("#   block %llu differs on member %d sector %llu: %.40s\n",
				       (unsigned long long)b, cps[i].role,
				       (unsigned long long)cps[i].sector, (const char *)at);
			unexpected++;
		}
	}
	ok(!bad_locate && !outside && !unexpected && expected_seen == dm->ndata,
	   "%s: all %llu blocks (%llu copies) hold the pattern where layout_locate says%s",
	   f->name, (unsigned long long)nblk, (unsigned long long)copies,
	   dm->ndata ? ", except exactly the blocks the MANIFEST corrupted" : "");
	if (f->stale_role >= 0) {
		ok(stale_seen && !stale_bad, "%s: the %llu blocks on stale member %d hold set %s",
		   f->name, (unsigned long long)stale_seen, f->stale_role,
		   f->stale_set ? f->stale_set : "?");
		if (geo.level == 4 || geo.level == 5)
			ok(rebuilt_ok && !rebuilt_bad,
			   "%s: XOR of the other members rebuilds all %llu of them",
			   f->name, (unsigned long long)rebuilt_ok);
	}
}

static uint8_t gf_times2(uint8_t x)
{
	return (uint8_t)((x << 1) ^ ((x & 0x80) ? 0x1d : 0));
}

/* P and Q of every row and 4 KiB page, recomputed from the data members;
 * Q by Horner in md's syndrome order (stripe_map.slot). */
static void fixture_check_parity(const struct fixture *f, const struct damage *dm)
{
	static unsigned char p[BLK], q[BLK];
	uint64_t rows = geo.dev_sectors / geo.chunk_sectors, row;
	int pages = (int)(geo.chunk_sectors / BLK_SECTORS), pg, i, z, j;
	int pbad = 0, qbad = 0, unexpected = 0, expected_seen = 0, missing = 0;
	int checked = 0;

	for (row = 0; row < rows; row++) {
		struct stripe_map m;

		layout_stripe(&geo, row, &m);
		for (pg = 0; pg < pages; pg++) {
			uint64_t sec = row * geo.chunk_sectors + (uint64_t)pg * BLK_SECTORS;
			const unsigned char *pp = member_at(f, m.pd, sec);
			const unsigned char *qq = m.qd >= 0 ? member_at(f, m.qd, sec) : NULL;

			memset(p, 0, BLK);
			memset(q, 0, BLK);
			for (i = 0; i < m.data_disks; i++) {
				const unsigned char *dd = member_at(f, m.data[i], sec);

				if (!dd) {
					missing++;
					continue;
				}
				for (j = 0; j < BLK; j++)
					p[j] ^= dd[j];
			}
			for (z = m.syndrome_disks - 1; m.qd >= 0 && z >= 0; z--) {
				const unsigned char *dd = m.slot[z] >= 0 ? member_at(f, m.slot[z], sec) : NULL;

				for (j = 0; j < BLK; j++)
					q[j] = gf_times2(q[j]) ^ (dd ? dd[j] : 0);
			}
			if (!pp || (m.qd >= 0 && !qq)) {
				missing++;
				continue;
			}
			checked++;
			if (memcmp(p, pp, BLK)) {
				pbad++;
				if (damage_hits_parity(dm, row, pg, 'P'))
					expected_seen++;
				else if (unexpected++ < 3)
					printf("#   row %llu page %d: P on member %d differs\n",
					       (unsigned long long)row, pg, m.pd);
			}
			if (qq && memcmp(q, qq, BLK)) {
				qbad++;
				if (damage_hits_parity(dm, row, pg, 'Q'))
					expected_seen++;
				else if (unexpected++ < 3)
					printf("#   row %llu page %d: Q on member %d differs\n",
					       (unsigned long long)row, pg, m.qd);
			}
		}
	}
	ok(!missing && !unexpected && checked == (int)rows * pages &&
	   (dm->npar == 0 || expected_seen >= dm->npar),
	   "%s: %s of all %llu rows x %d pages match the data%s", f->name,
	   geo.level == 6 ? "P and Q (md syndrome order)" : "P", (unsigned long long)rows, pages,
	   dm->npar ? ", except exactly where the MANIFEST corrupted" : "");
}

/* The MANIFEST's own account of where it damaged things must agree with ours. */
static void fixture_check_damage_positions(const struct fixture *f)
{
	long long count = 0, j, member, row, off, blk;
	int agree = 1;

	if (mnum(mget(&f->mf, "corrupt_count"), &count) || count < 1)
		return;
	if (mnum(mget(&f->mf, "corrupt_member"), &member))
		return;
	/* mirror copies have no rows or parity to place */
	if (f->level == 1 || f->level == 10)
		return;
	for (j = 0; j < count; j++) {
		const char *kind = mget(&f->mf, "corrupt%lld.kind", j);
		struct stripe_map m;

		if (!kind || mnum(mget(&f->mf, "corrupt%lld.stripe_row", j), &row) ||
		    mnum(mget(&f->mf, "corrupt%lld.offset_in_data_area", j), &off)) {
			agree = 0;
			continue;
		}
		layout_stripe(&geo, (uint64_t)row, &m);
		if (!strcmp(kind, "P"))
			agree &= m.pd == (int)member;
		else if (!strcmp(kind, "Q"))
			agree &= m.qd == (int)member;
		else if (!mnum(mget(&f->mf, "corrupt%lld.array_block_4k", j), &blk)) {
			layout_locate(&geo, (uint64_t)blk * BLK_SECTORS, cps, NULL);
			agree &= cps[0].role == (int)member && cps[0].sector * 512 == (uint64_t)off;
		}
		agree &= (uint64_t)off / 512 / geo.chunk_sectors == (uint64_t)row;
	}
	ok(agree, "%s: the corrupted P/data blocks sit where layout places row %s's parity and block",
	   f->name, mget(&f->mf, "corrupt0.stripe_row"));
}

/* A multi-zone raid0 set only proves the layout if the other layout would
 * have put some block elsewhere; then the data there must not fit. */
static void fixture_check_other_raid0_layout(const struct fixture *f)
{
	static struct geometry other;
	static struct copy oc[ST_MAX_DISKS];
	static unsigned char want[BLK];
	uint64_t nblk = f->array_bytes / BLK, b, moved = 0, fits = 0;
	int alt = f->layout == RAID0_ORIG_LAYOUT ? RAID0_ALT_MULTIZONE_LAYOUT : RAID0_ORIG_LAYOUT;

	if (geo.nzones < 2 || (f->layout != 1 && f->layout != 2))
		return;
	if (geometry_init(&other, 0, alt, f->n, f->chunk, 0, f->data_size, NULL))
		return;
	for (b = 0; b < nblk; b++) {
		const unsigned char *at;

		layout_locate(&geo, b * BLK_SECTORS, cps, NULL);
		layout_locate(&other, b * BLK_SECTORS, oc, NULL);
		if (oc[0].role == cps[0].role && oc[0].sector == cps[0].sector)
			continue;
		moved++;
		pattern_block(want, b, f->set);
		at = member_at(f, oc[0].role, oc[0].sector);
		fits += at && !memcmp(at, want, BLK);
	}
	if (!moved) {
		printf("# %s: layouts 1 and 2 place every block alike here (each zone starts on a multiple of the next zone's width), so this set cannot tell them apart\n",
		       f->name);
		return;
	}
	ok(!fits, "%s: layout %d would misplace %llu blocks, and the data there does not fit it",
	   f->name, alt, (unsigned long long)moved);
}

static void run_fixture_checks(struct fixture *f)
{
	struct damage dm;
	struct diag d = { 0 };
	char path[PATH_MAX + 16];
	const char *why;
	int rc;

	snprintf(path, sizeof(path), "%s/MANIFEST", f->dir);
	if (manifest_read(&f->mf, path)) {
		skip("%s: MANIFEST unreadable", f->name);
		return;
	}
	why = fixture_parse(f);
	if (*why) {
		skip("%s: %s", f->name, why);
		return;
	}
	rc = geometry_init(&geo, f->level, f->layout, f->n, f->chunk, f->dev_sectors,
			   f->data_size, &d);
	ok(rc == 0, "%s: raid%d layout %d, %d members, chunk %u: geometry accepted%s%s",
	   f->name, f->level, f->layout, f->n, f->chunk, rc ? ": " : "", rc ? d.msg : "");
	if (rc)
		return;
	ok(geo.array_sectors * 512 == f->array_bytes &&
	   (f->level == 0 || (f->level == 10 ? geo.dev_sectors <= f->dev_sectors
					    : geo.dev_sectors == f->dev_sectors)),
	   "%s: array of %llu bytes, as md made it (got %llu)", f->name,
	   (unsigned long long)f->array_bytes, (unsigned long long)geo.array_sectors * 512);
	if (fixture_load_members(f)) {
		ok(0, "%s: members decompressed", f->name);
		return;
	}
	fixture_damage(f, &dm);
	if (f->is_pattern)
		fixture_check_data(f, &dm);
	else
		printf("# %s: content is not the pattern; checking size and parity only\n", f->name);
	if ((f->level == 4 || f->level == 5 || f->level == 6) && f->stale_role < 0)
		fixture_check_parity(f, &dm);
	if (f->level == 0 && f->is_pattern)
		fixture_check_other_raid0_layout(f);
	fixture_check_damage_positions(f);
}

static void run_fixture(const char *dir, const char *name)
{
	static struct fixture f;

	memset(&f, 0, sizeof(f));
	snprintf(f.dir, sizeof(f.dir), "%s", dir);
	f.name = name;
	run_fixture_checks(&f);
	fixture_free(&f);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sets live in ../shared/fixtures next to the repository and in the
 * repository's tests/fixtures; the repository is found from the working
 * directory or the program's own path. */
static int find_repo_root(char *root)
{
	char starts[2][PATH_MAX];
	int s, up;

	if (!getcwd(starts[0], sizeof(starts[0])))
		starts[0][0] = 0;
	if (!realpath("/proc/self/exe", starts[1]))
		starts[1][0] = 0;
	for (s = 0; s < 2; s++) {
		char p[PATH_MAX], probe[PATH_MAX + 32];

		memcpy(p, starts[s], sizeof(p));
		for (up = 0; up < 8 && p[0]; up++) {
			char *slash;

			snprintf(probe, sizeof(probe), "%s/tests/unit/tap.h", p);
			if (!access(probe, R_OK)) {
				snprintf(root, PATH_MAX, "%s", p);
				return 0;
			}
			slash = strrchr(p, '/');
			if (!slash)
				break;
			*slash = 0;
		}
	}
	return -1;
}

static int list_sets(const char *base, char **out, int max, int have)
{
	DIR *dir = opendir(base);
	struct dirent *e;
	char path[PATH_MAX];
	int start = have;

	if (!dir)
		return have;
	while ((e = readdir(dir)) && have < max) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s/MANIFEST", base, e->d_name);
		if (access(path, R_OK))
			continue;
		snprintf(path, sizeof(path), "%s/%s", base, e->d_name);
		out[have++] = strdup(path);
	}
	closedir(dir);
	qsort(out + start, (size_t)(have - start), sizeof(out[0]), cmp_str);
	return have;
}

static void check_fixtures(void)
{
	char root[PATH_MAX], base[PATH_MAX + 32], *sets[256];
	const char *env = getenv("STRIPE_FIXTURES");
	int nsets = 0, i;

	if (system("xz --version >/dev/null 2>&1") != 0) {
		skip("real-md fixtures: xz is not installed");
		return;
	}
	if (env && *env) {
		char *copy = strdup(env), *t, *save = NULL;

		for (t = strtok_r(copy, ":", &save); t; t = strtok_r(NULL, ":", &save))
			nsets = list_sets(t, sets, 256, nsets);
		free(copy);
	} else if (!find_repo_root(root)) {
		snprintf(base, sizeof(base), "%s/tests/fixtures", root);
		nsets = list_sets(base, sets, 256, nsets);
		snprintf(base, sizeof(base), "%s/../shared/fixtures", root);
		nsets = list_sets(base, sets, 256, nsets);
	}
	if (!nsets) {
		skip("real-md fixtures: no set found (../shared/fixtures, tests/fixtures, $STRIPE_FIXTURES)");
		return;
	}
	snprintf(scratch, sizeof(scratch), "%s/test_layout.XXXXXX",
		 getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(scratch)) {
		skip("real-md fixtures: no scratch directory %s", scratch);
		nsets = 0;
	}
	for (i = 0; i < nsets; i++) {
		const char *name = strrchr(sets[i], '/') + 1;
		int j, dup = 0;

		/* the repository keeps copies of the shared sets; run each name once */
		for (j = 0; j < i; j++)
			dup |= !strcmp(strrchr(sets[j], '/') + 1, name);
		if (!dup)
			run_fixture(sets[i], name);
	}
	for (i = 0; i < nsets; i++)
		free(sets[i]);
	if (scratch[0])
		rmdir(scratch);
}

/* Recovery walks members: every copy layout_locate names must map back to
 * its array sector, for every raid10 shape md has (near, far, offset, far
 * sets of both schemes, odd member counts). */
static void check_raid10_inverse(void)
{
	static const struct { int layout, n; } shapes[] = {
		{ 0x102, 4 }, { 0x102, 3 }, { 0x102, 5 }, { 0x103, 3 }, { 0x103, 5 },
		{ 0x201, 2 }, { 0x201, 4 }, { 0x201, 5 }, { 0x301, 3 }, { 0x301, 7 },
		{ 0x10201, 4 }, { 0x10201, 5 }, { 0x10301, 6 }, { 0x202, 4 }, { 0x202, 5 },
		{ 0x20201, 5 }, { 0x20201, 7 }, { 0x40201, 6 }, { 0x40201, 7 }, { 0x50201, 5 },
	};
	size_t i;

	for (i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
		uint64_t s, run, bad = UINT64_MAX, covered = 0;
		int k, nc;

		if (init_geo(10, shapes[i].layout, shapes[i].n, 16, 16 * 37, NULL)) {
			ok(0, "raid10 0x%x n=%d: geometry", shapes[i].layout, shapes[i].n);
			continue;
		}
		for (s = 0; s < geo.array_sectors && bad == UINT64_MAX; s += run) {
			nc = layout_locate(&geo, s, cps, &run);
			for (k = 0; k < nc; k++)
				if (layout_array_sector(&geo, cps[k].role, cps[k].sector) != s)
					bad = s;
			covered += (uint64_t)nc * run;
		}
		ok(bad == UINT64_MAX && covered == geo.array_sectors * (uint64_t)geo.copies,
		   "raid10 0x%x n=%d: each copy maps back to its array sector%s", shapes[i].layout,
		   shapes[i].n, bad == UINT64_MAX ? "" : " (not at a sector)");
	}
	init_geo(1, 0, 3, 0, 1000, NULL);
	ok(layout_array_sector(&geo, 2, 999) == 999 && layout_array_sector(&geo, 2, 1000) == UINT64_MAX,
	   "raid1: a member sector is the array sector, up to the array's end");
}

int main(void)
{
	check_tables();
	check_pictures();
	check_syndrome_example();
	check_raid6_permutations();
	check_geometry();
	check_raid10();
	check_raid10_inverse();
	check_raid0();
	check_raid1();
	check_names();
	check_fixtures();
	return tap_done();
}
