/* test_probe_parity: the probe's redundancy evidence on member images built
 * here with the library's own layout and parity code, filled with random
 * data (never the fixtures' pattern), superblock areas left zero: RAID6's
 * exact geometry over layouts, member counts and chunks, with one member
 * missing and with two; RAID5's level and data offset found and its order
 * honestly left unknown on random data, and placed where zero chunks sit
 * beside data, and nothing claimed with a member missing; two arrays'
 * members given together told apart; RAID1 and RAID10 near, far and offset
 * copies, near=2 on odd member counts too; hints that narrow and never widen. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "md/layout.h"
#include "probe/evidence.h"
#include "raid/parity.h"
#include "tap.h"

#define MIB (1u << 20)
#define BUDGET (32ull << 20)

static char tmp[256];

/* What a test array is made of. */
struct build {
	int level, layout, n;
	uint32_t chunk;                   /* sectors */
	uint64_t doff;                    /* sectors */
	size_t member_bytes;
	int sparse;                       /* one data chunk in sparse is left zero */
	bool tails;                       /* one data chunk a row ends in zero sectors, as a file does */
	uint64_t seed;
	int file_of_role[ST_MAX_DISKS];   /* the member file each role is written to */
	const char *tag;                  /* file name prefix */
};

static uint64_t next_random(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

static void fill_random(uint8_t *p, size_t len, uint64_t *x)
{
	for (size_t i = 0; i < len; i += 8) {
		uint64_t w = next_random(x);
		memcpy(p + i, &w, 8);
	}
}

static void fill_parity_rows(const struct build *b, const struct geometry *g, uint8_t **role, uint64_t *x)
{
	size_t chunk = (size_t)b->chunk * 512;
	uint64_t rows = g->dev_sectors / b->chunk;
	struct stripe_map m;
	void *blocks[ST_MAX_DISKS + 2];
	uint8_t *base[ST_MAX_DISKS];
	void *zero = NULL;

	if (posix_memalign(&zero, PARITY_ALIGN, chunk) != 0)
		return;
	memset(zero, 0, chunk);
	for (uint64_t r = 0; r < rows; r++) {
		layout_stripe(g, r, &m);
		for (int k = 0; k < b->n; k++)
			base[k] = role[k] + b->doff * 512 + r * chunk;
		for (int dd = 0; dd < m.data_disks; dd++)
			if (!b->sparse || next_random(x) % (uint64_t)b->sparse)
				fill_random(base[m.data[dd]], chunk, x);
		if (b->tails)
			memset(base[m.data[next_random(x) % (uint64_t)m.data_disks]] + chunk - 1536, 0, 1536);
		int nd = layout_row_blocks(&m, base, 0, zero, blocks);
		if (m.qd >= 0)
			parity_gen_pq(nd, chunk, blocks);
		else
			parity_xor(blocks[nd], blocks, nd, chunk);
	}
	free(zero);
}

static void fill_copies(const struct build *b, const struct geometry *g, uint8_t **role, uint64_t *x)
{
	size_t chunk = (size_t)(b->chunk ? b->chunk : 128) * 512;
	struct copy c[ST_MAX_DISKS];
	uint8_t *data = malloc(chunk);
	uint64_t run;

	for (uint64_t s = 0; data && s + chunk / 512 <= g->array_sectors; s += chunk / 512) {
		fill_random(data, chunk, x);
		int nc = layout_locate(g, s, c, &run);
		for (int i = 0; i < nc; i++)
			memcpy(role[c[i].role] + (b->doff + c[i].sector) * 512, data, chunk);
	}
	free(data);
}

static int write_file(const char *path, const uint8_t *buf, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	bool done = fd >= 0 && write(fd, buf, len) == (ssize_t)len;

	if (fd >= 0)
		close(fd);
	return done ? 0 : -1;
}

/* Builds b's members as files tmp/<tag><file>; paths[] get their names. */
static int build(const struct build *b, char paths[][512])
{
	struct geometry g;
	struct diag d = { 0 };
	uint8_t *role[ST_MAX_DISKS] = { NULL };
	uint64_t x = b->seed | 1;
	int rc = -1;

	if (geometry_init(&g, b->level, b->layout, b->n, b->chunk, b->member_bytes / 512 - b->doff, NULL, &d) < 0) {
		printf("# geometry: %s\n", d.msg);
		return -1;
	}
	for (int k = 0; k < b->n; k++) {
		void *p = NULL;
		if (posix_memalign(&p, PARITY_ALIGN, b->member_bytes) != 0)
			goto out;
		role[k] = p;
		memset(role[k], 0, b->member_bytes);
	}
	if (layout_has_parity(b->level))
		fill_parity_rows(b, &g, role, &x);
	else
		fill_copies(b, &g, role, &x);
	for (int k = 0; k < b->n; k++) {
		int f = b->file_of_role[k];
		snprintf(paths[f], 512, "%s/%s%d", tmp, b->tag, f);
		if (write_file(paths[f], role[k], b->member_bytes) < 0)
			goto out;
	}
	rc = 0;
out:
	for (int k = 0; k < b->n; k++)
		free(role[k]);
	return rc;
}

static void remove_files(char paths[][512], int n)
{
	for (int i = 0; i < n; i++)
		if (strcmp(paths[i], "missing") != 0)
			unlink(paths[i]);
}

static const struct probe_hints no_hints = { .level = -1, .layout = -1, .data_offset = UINT64_MAX };

/* Runs parity and copies evidence on the members named. */
static int probe(char paths[][512], int n, struct probe_result *r, const struct probe_hints *h)
{
	struct probe_member m[ST_MAX_DISKS];
	struct probe_sample s;
	struct diag d = { 0 };
	char *argv[ST_MAX_DISKS];

	memset(r, 0, sizeof(*r));
	for (int i = 0; i < n; i++)
		argv[i] = paths[i];
	if (probe_members_open(argv, n, m, &d) < 0)
		goto fail;
	if (probe_sample_read(&s, m, n, BUDGET, &d) < 0) {
		probe_members_close(m, n);
		goto fail;
	}
	int rc = probe_parity(&s, h, r, &d) < 0 || probe_mirror(&s, h, r, &d) < 0 ? -1 : 0;
	probe_sample_free(&s);
	probe_members_close(m, n);
	if (rc == 0)
		return 0;
fail:
	printf("# probe: %s\n", d.msg);
	return -1;
}

/* Does c describe b exactly (roles mapped to files, a missing one SPEC_MISSING)? */
static bool exact(const struct probe_candidate *c, const struct build *b, int missing_file)
{
	const struct geometry_spec *g = &c->spec;

	if (g->level != b->level || g->raid_disks != b->n || g->data_offset != b->doff)
		return false;
	if (b->level != MD_LEVEL_RAID1 && (g->layout != b->layout || g->chunk_sectors != b->chunk))
		return false;
	for (int k = 0; k < b->n; k++) {
		int want = b->file_of_role[k] == missing_file ? SPEC_MISSING : b->file_of_role[k];
		if (g->order[k] != want)
			return false;
	}
	return true;
}

static void describe(const struct probe_result *r)
{
	for (int i = 0; i < r->ncand && i < 6; i++) {
		const struct geometry_spec *g = &r->cand[i].spec;
		printf("#   cand %d: level %d layout %d chunk %u doff %llu n %d score %.3f order", i, g->level, g->layout,
		       g->chunk_sectors, (unsigned long long)g->data_offset, g->raid_disks, r->cand[i].score);
		for (int k = 0; k < g->raid_disks; k++)
			printf(" %d", g->order[k]);
		printf("\n");
	}
	for (int i = 0; i < r->nundecided; i++)
		printf("#   undecided: %s\n", r->undecided[i]);
}

/* Roles written to files in a shuffled order, so that the order found
 * cannot be the order given by chance. */
static void shuffle_roles(struct build *b)
{
	uint64_t x = b->seed * 7 + 3;

	for (int k = 0; k < b->n; k++)
		b->file_of_role[k] = k;
	for (int k = b->n - 1; k > 0; k--) {
		int j = (int)(next_random(&x) % (uint64_t)(k + 1)), t = b->file_of_role[k];
		b->file_of_role[k] = b->file_of_role[j];
		b->file_of_role[j] = t;
	}
}

static int rank_of_exact(const struct probe_result *r, const struct build *b, int missing_file)
{
	for (int i = 0; i < r->ncand; i++)
		if (exact(&r->cand[i], b, missing_file))
			return i;
	return -1;
}

/* Members of 1 MiB data offset and room for rows chunk rows, whole MiB. */
static size_t rows_of(uint32_t chunk, int rows)
{
	size_t data = (size_t)chunk * 512 * (size_t)rows;

	return MIB + (data < MIB ? MIB : (data + MIB - 1) / MIB * MIB);
}

static void raid6_case(int layout, int n, uint32_t chunk, bool must_be_top)
{
	static struct probe_result r;
	char paths[ST_MAX_DISKS][512];
	struct build b = { .level = 6, .layout = layout, .n = n, .chunk = chunk, .doff = 2048,
			   .member_bytes = rows_of(chunk, 4), .seed = 0x5eed0000u + (uint64_t)(layout * 64 + n) * 4096 + chunk,
			   .tag = "r6-" };
	char name[64];

	shuffle_roles(&b);
	if (build(&b, paths) < 0 || probe(paths, n, &r, &no_hints) < 0) {
		ok(0, "raid6 %s, %d members, chunk %uK: built and probed", layout_name(6, layout, name, sizeof(name)),
		   n, chunk / 2);
		return;
	}
	int at = rank_of_exact(&r, &b, -1);
	ok(must_be_top ? at == 0 : at >= 0 && at <= 1,
	   "raid6 %s, %d members, chunk %uK, on random data: the exact geometry and order %s (found at %d)",
	   layout_name(6, layout, name, sizeof(name)), n, chunk / 2,
	   must_be_top ? "comes first" : "is beside the default its parity reads alike", at);
	if (must_be_top ? at != 0 : at < 0 || at > 1)
		describe(&r);
	remove_files(paths, n);
}

static void test_raid6_layouts(void)
{
	raid6_case(2, 4, 8, true);              /* left-symmetric, 4K */
	raid6_case(3, 5, 128, true);            /* right-symmetric, 64K */
	raid6_case(18, 6, 256, true);           /* left-symmetric-6, 128K */
	raid6_case(19, 4, 64, true);            /* right-symmetric-6, 32K */
	raid6_case(8, 8, 2048, true);           /* ddf-zero-restart, 1M */
	raid6_case(9, 6, 512, true);            /* ddf-N-restart, 256K */
	raid6_case(10, 7, 32, true);            /* ddf-N-continue, 16K */
	raid6_case(0, 5, 1024, false);          /* left-asymmetric, 512K: reads as left-symmetric */
	raid6_case(17, 8, 16, false);           /* right-asymmetric-6, 8K */
}

static void test_raid6_missing(void)
{
	static struct probe_result r;
	char paths[ST_MAX_DISKS][512];
	struct build b = { .level = 6, .layout = 2, .n = 6, .chunk = 128, .doff = 2048, .member_bytes = 2 * MIB,
			   .seed = 0x6d155, .tag = "r6m-" };

	shuffle_roles(&b);
	if (build(&b, paths) < 0) {
		ok(0, "raid6 with members missing: built");
		return;
	}
	unlink(paths[2]);
	strcpy(paths[2], "missing");
	ok(probe(paths, b.n, &r, &no_hints) == 0 && rank_of_exact(&r, &b, 2) == 0,
	   "raid6 with one member missing: the exact geometry, the missing role named missing, comes first");
	if (rank_of_exact(&r, &b, 2) != 0)
		describe(&r);

	unlink(paths[4]);
	strcpy(paths[4], "missing");
	bool said = false;
	ok(probe(paths, b.n, &r, &no_hints) == 0, "raid6 with two members missing: probed");
	for (int i = 0; i < r.nundecided; i++)
		said |= strstr(r.undecided[i], "2 members missing") != NULL;
	bool any6 = false;
	for (int i = 0; i < r.ncand; i++)
		any6 |= r.cand[i].spec.level == 6;
	ok(!any6 && said, "raid6 with two members missing: no parity candidate, and it says parity decides nothing");
	if (any6 || !said)
		describe(&r);
	remove_files(paths, b.n);
}

static bool all_unknown(const struct probe_candidate *c)
{
	for (int k = 0; k < c->spec.raid_disks; k++)
		if (c->spec.order[k] != PROBE_UNKNOWN)
			return false;
	return true;
}

static void test_raid5_random(void)
{
	static struct probe_result r;
	char paths[ST_MAX_DISKS][512];
	struct build b = { .level = 5, .layout = 2, .n = 5, .chunk = 128, .doff = 4096, .member_bytes = 3 * MIB,
			   .seed = 0x55aa, .tag = "r5-" };

	shuffle_roles(&b);
	if (build(&b, paths) < 0 || probe(paths, b.n, &r, &no_hints) < 0) {
		ok(0, "raid5 on random data: built and probed");
		return;
	}
	const struct probe_candidate *c = &r.cand[0];
	ok(r.ncand >= 1 && c->spec.level == 5 && c->spec.raid_disks == 5 && c->spec.data_offset == 4096,
	   "raid5 on random data: level, members and data offset found");
	ok(r.ncand >= 1 && all_unknown(c) && c->spec.chunk_sectors == 0 && c->spec.layout == -1 &&
	   r.nundecided >= 1 && strstr(r.undecided[0], "left to content"),
	   "raid5 on random data: chunk, layout and order honestly left unknown, and said so");
	if (!r.ncand || !all_unknown(c))
		describe(&r);
	remove_files(paths, b.n);
}

static void test_raid5_zero_chunks(void)
{
	static struct probe_result r;
	char paths[ST_MAX_DISKS][512];
	struct build b = { .level = 5, .layout = 2, .n = 5, .chunk = 64, .doff = 2048, .member_bytes = 4 * MIB,
			   .sparse = 3, .seed = 0x5a5a, .tag = "r5z-" };

	shuffle_roles(&b);
	if (build(&b, paths) < 0 || probe(paths, b.n, &r, &no_hints) < 0) {
		ok(0, "raid5 with zero chunks beside data: built and probed");
		return;
	}
	ok(rank_of_exact(&r, &b, -1) == 0,
	   "raid5 with zero chunks beside data: P placed row by row, the exact chunk and order come first");
	if (rank_of_exact(&r, &b, -1) != 0)
		describe(&r);
	remove_files(paths, b.n);
}

static void test_raid5_tails(void)
{
	static struct probe_result r;
	char paths[ST_MAX_DISKS][512];
	struct build b = { .level = 5, .layout = 3, .n = 4, .chunk = 16, .doff = 2048, .member_bytes = 2 * MIB,
			   .tails = true, .seed = 0x7a115, .tag = "r5t-" };

	shuffle_roles(&b);
	if (build(&b, paths) < 0 || probe(paths, b.n, &r, &no_hints) < 0) {
		ok(0, "raid5 whose chunks end in zero sectors: built and probed");
		return;
	}
	int at = rank_of_exact(&r, &b, -1);
	ok(at >= 0 && at <= 1 && r.cand[at].score == r.cand[0].score,
	   "raid5 whose chunks end in zero sectors (file tails): P placed at the sector, the exact chunk and "
	   "order among the first, level with left-symmetric's reading (found at %d)", at);
	if (at < 0 || at > 1)
		describe(&r);
	remove_files(paths, b.n);
}

static void test_raid4_tails(void)
{
	static struct probe_result r;
	char paths[ST_MAX_DISKS][512];
	struct build b = { .level = 4, .layout = 0, .n = 4, .chunk = 16, .doff = 2048, .member_bytes = 2 * MIB,
			   .tails = true, .seed = 0x4a115, .tag = "r4t-" };

	shuffle_roles(&b);
	if (build(&b, paths) < 0 || probe(paths, b.n, &r, &no_hints) < 0) {
		ok(0, "raid4 whose chunks end in zero sectors: built and probed");
		return;
	}
	const struct probe_candidate *c = &r.cand[0];
	ok(r.ncand >= 1 && c->spec.level == 4 && c->spec.order[3] == b.file_of_role[3] && c->spec.chunk_sectors == 0 &&
	   c->spec.order[0] == PROBE_UNKNOWN,
	   "raid4: P never moves, so level 4 with P's member placed, chunk and data order left unknown");
	if (!r.ncand || c->spec.level != 4)
		describe(&r);
	remove_files(paths, b.n);
}

static bool uses_exactly(const struct probe_candidate *c, const bool *want, int n)
{
	for (int i = 0; i < n; i++)
		if (c->uses[i] != want[i])
			return false;
	return true;
}

static void test_two_arrays_mixed(void)
{
	static struct probe_result r;
	char paths[ST_MAX_DISKS][512], p5[ST_MAX_DISKS][512], p6[ST_MAX_DISKS][512];
	struct build b5 = { .level = 5, .layout = 2, .n = 3, .chunk = 128, .doff = 2048, .member_bytes = 2 * MIB,
			    .seed = 0x3535, .tag = "mix5-" };
	struct build b6 = { .level = 6, .layout = 2, .n = 4, .chunk = 64, .doff = 2048, .member_bytes = 2 * MIB,
			    .seed = 0x3636, .tag = "mix6-" };
	bool in5[7] = { false }, in6[7] = { false };
	/* given in the order 6 5 6 6 5 6 5 */
	int slot5[3] = { 1, 4, 6 }, slot6[4] = { 0, 2, 3, 5 };

	shuffle_roles(&b5);
	shuffle_roles(&b6);
	if (build(&b5, p5) < 0 || build(&b6, p6) < 0) {
		ok(0, "two arrays' members: built");
		return;
	}
	for (int i = 0; i < 3; i++) {
		strcpy(paths[slot5[i]], p5[i]);
		in5[slot5[i]] = true;
	}
	for (int i = 0; i < 4; i++) {
		strcpy(paths[slot6[i]], p6[i]);
		in6[slot6[i]] = true;
	}
	bool found5 = false, found6 = false;
	if (probe(paths, 7, &r, &no_hints) == 0)
		for (int i = 0; i < r.ncand; i++) {
			found5 |= r.cand[i].spec.level == 5 && uses_exactly(&r.cand[i], in5, 7);
			found6 |= r.cand[i].spec.level == 6 && uses_exactly(&r.cand[i], in6, 7);
		}
	ok(found5 && found6, "members of a raid5 and a raid6 given together: each array's members found as one set");
	bool top6 = r.ncand && r.cand[0].spec.level == 6 && r.cand[0].spec.chunk_sectors == 64;
	for (int k = 0; top6 && k < 4; k++)
		top6 = r.cand[0].spec.order[k] == slot6[b6.file_of_role[k]];
	ok(top6, "members of a raid5 and a raid6 given together: the raid6's exact order, in given positions, first");
	if (!found5 || !found6 || !top6)
		describe(&r);
	remove_files(p5, 3);
	remove_files(p6, 4);
}

static void test_mirror_beside_raid6(void)
{
	static struct probe_result r;
	char paths[ST_MAX_DISKS][512], p1[ST_MAX_DISKS][512], p6[ST_MAX_DISKS][512];
	struct build b1 = { .level = 1, .layout = 0, .n = 2, .doff = 2048, .member_bytes = 2 * MIB,
			    .seed = 0x1616, .tag = "mir1-" };
	struct build b6 = { .level = 6, .layout = 2, .n = 4, .chunk = 64, .doff = 2048, .member_bytes = 2 * MIB,
			    .seed = 0x6161, .tag = "mir6-" };

	for (int k = 0; k < 2; k++)
		b1.file_of_role[k] = k;
	shuffle_roles(&b6);
	if (build(&b1, p1) < 0 || build(&b6, p6) < 0) {
		ok(0, "a raid1's members beside a raid6's: built");
		return;
	}
	/* given in the order 6 1 6 6 1 6 */
	strcpy(paths[0], p6[0]);
	strcpy(paths[1], p1[0]);
	strcpy(paths[2], p6[1]);
	strcpy(paths[3], p6[2]);
	strcpy(paths[4], p1[1]);
	strcpy(paths[5], p6[3]);
	bool mirror = false;
	if (probe(paths, 6, &r, &no_hints) == 0)
		for (int i = 0; i < r.ncand; i++)
			mirror |= r.cand[i].spec.level == 1 && r.cand[i].spec.order[0] == 1 &&
				  r.cand[i].spec.order[1] == 4 && r.cand[i].score == 1.0;
	ok(mirror, "a raid1's members given beside a raid6's: the mirror found whole, the others placed by parity");
	if (!mirror)
		describe(&r);
	remove_files(p1, 2);
	remove_files(p6, 4);
}

static void copies_case(const char *what, int level, int layout, int n, uint32_t chunk, bool chunk_found)
{
	static struct probe_result r;
	char paths[ST_MAX_DISKS][512];
	struct build b = { .level = level, .layout = layout, .n = n, .chunk = chunk, .doff = 2048,
			   .member_bytes = (layout == 0x201 ? 4 : 2) * MIB, .seed = 0xc0b1e5u + (uint64_t)layout, .tag = "cp-" };

	for (int k = 0; k < n; k++)
		b.file_of_role[k] = k;
	if (build(&b, paths) < 0 || probe(paths, n, &r, &no_hints) < 0) {
		ok(0, "%s: built and probed", what);
		return;
	}
	struct build want = b;
	if (!chunk_found)
		want.chunk = 0;
	int at = rank_of_exact(&r, &want, -1);
	ok(at >= 0 && r.cand[at].score >= r.cand[0].score - 0.02,
	   "%s: the exact %s among the best candidates (found at %d)", what,
	   chunk_found ? "geometry" : "copies and order, the chunk left unknown,", at);
	if (at < 0)
		describe(&r);
	remove_files(paths, n);
}

static void test_copies(void)
{
	copies_case("raid1 of 3 members", 1, 0, 3, 0, true);
	copies_case("raid10 near=2 of 4 members", 10, 0x102, 4, 128, false);
	copies_case("raid10 near=2 of 3 members (copies straddle rows)", 10, 0x102, 3, 128, true);
	copies_case("raid10 near=2 of 5 members (copies straddle rows)", 10, 0x102, 5, 32, true);
	copies_case("raid10 offset=2 of 3 members", 10, 0x10201, 3, 128, true);
	copies_case("raid10 offset=2 of 4 members", 10, 0x10201, 4, 128, true);
	copies_case("raid10 far=2 of 4 members", 10, 0x201, 4, 128, false);
}

static void test_raid1_first(void)
{
	static struct probe_result r;
	char paths[ST_MAX_DISKS][512];
	struct build b = { .level = 1, .layout = 0, .n = 2, .doff = 2048, .member_bytes = 2 * MIB,
			   .seed = 0x1111, .tag = "r1-" };

	for (int k = 0; k < 2; k++)
		b.file_of_role[k] = k;
	ok(build(&b, paths) == 0 && probe(paths, 2, &r, &no_hints) == 0 && rank_of_exact(&r, &b, -1) == 0 &&
	   r.cand[0].score == 1.0, "raid1 of 2 members with 1.2's data offset: exact, first, score 1");
	remove_files(paths, 2);
}

static bool any_level(const struct probe_result *r, int level)
{
	for (int i = 0; i < r->ncand; i++)
		if (r->cand[i].spec.level == level)
			return true;
	return false;
}

static void test_hints(void)
{
	static struct probe_result r;
	char paths[ST_MAX_DISKS][512];
	struct build b = { .level = 6, .layout = 2, .n = 5, .chunk = 128, .doff = 2048, .member_bytes = 2 * MIB,
			   .seed = 0x41175, .tag = "hint-" };
	struct probe_hints h = no_hints;

	shuffle_roles(&b);
	if (build(&b, paths) < 0) {
		ok(0, "hints: built");
		return;
	}
	h.layout = 2;
	ok(probe(paths, b.n, &r, &h) == 0 && r.ncand == 1 && rank_of_exact(&r, &b, -1) == 0,
	   "a hinted layout narrows: left-symmetric alone, without the asymmetric one parity reads alike");
	h.layout = 3;
	ok(probe(paths, b.n, &r, &h) == 0 && !any_level(&r, 6),
	   "a hinted layout the rows do not bear out gives no raid6 candidate");
	h = no_hints;
	h.chunk_sectors = 256;
	ok(probe(paths, b.n, &r, &h) == 0 && !any_level(&r, 6),
	   "a hinted chunk the rows do not bear out gives no raid6 candidate");
	h = no_hints;
	h.level = 5;
	ok(probe(paths, b.n, &r, &h) == 0 && r.ncand == 0, "a hinted level 5 on a raid6's members gives no candidate");
	h = no_hints;
	h.raid_disks = 4;
	ok(probe(paths, b.n, &r, &h) == 0 && !any_level(&r, 6), "a hinted member count of 4 leaves out a raid6 of 5");
	remove_files(paths, b.n);
}

static void test_raid5_missing(void)
{
	static struct probe_result r;
	char paths[ST_MAX_DISKS][512];
	struct build b = { .level = 5, .layout = 2, .n = 4, .chunk = 128, .doff = 2048, .member_bytes = 2 * MIB,
			   .seed = 0x5e155, .tag = "r5m-" };
	bool said = false;

	shuffle_roles(&b);
	if (build(&b, paths) < 0) {
		ok(0, "raid5 with a member missing: built");
		return;
	}
	unlink(paths[1]);
	strcpy(paths[1], "missing");
	ok(probe(paths, b.n, &r, &no_hints) == 0, "raid5 with a member missing: probed");
	for (int i = 0; i < r.nundecided; i++)
		said |= strstr(r.undecided[i], "one member missing") != NULL;
	ok(!any_level(&r, 5) && !any_level(&r, 6) && said,
	   "raid5 with a member missing: no parity candidate, and it says only content can place the rest");
	if (any_level(&r, 5) || !said)
		describe(&r);
	remove_files(paths, b.n);
}

int main(void)
{
	snprintf(tmp, sizeof(tmp), "%s/test_probe_parity.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(tmp)) {
		printf("Bail out! mkdtemp %s: %s\n", tmp, strerror(errno));
		return 1;
	}
	test_raid6_layouts();
	test_raid6_missing();
	test_raid5_random();
	test_raid5_zero_chunks();
	test_raid5_tails();
	test_raid4_tails();
	test_raid5_missing();
	test_two_arrays_mixed();
	test_raid1_first();
	test_copies();
	test_mirror_beside_raid6();
	test_hints();
	rmdir(tmp);
	return tap_done();
}
