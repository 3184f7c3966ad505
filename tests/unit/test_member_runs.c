/* test_member_runs: stripe_member_runs says where array bytes lie on the
 * members: read from there, they are the bytes stripe_read gives; mirrors
 * share a long read; a degraded row or too many runs say -1. */
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "md/array.h"
#include "md/create.h"
#include "raid/stripe.h"
#include "tap.h"

#define MEMBER_BYTES (8u << 20)
#define MAX_RUNS 512

static char dir[] = "/tmp/test_member_runs.XXXXXX";

struct pattern {
	uint64_t at;
};

/* Array byte b holds a byte of b's hash, so that every misplaced byte shows. */
static uint8_t pattern_byte(uint64_t b)
{
	b ^= b >> 17;
	b *= 0x9e3779b97f4a7c15ull;
	return (uint8_t)(b >> 56);
}

static long long pattern_source(void *ctx, void *buf, size_t len, struct diag *d)
{
	struct pattern *p = ctx;
	uint8_t *out = buf;
	size_t i;

	(void)d;
	for (i = 0; i < len; i++)
		out[i] = pattern_byte(p->at + i);
	p->at += len;
	return (long long)len;
}

struct membuf {
	uint8_t *buf;
	size_t at;
};

static int to_memory(void *ctx, const void *buf, size_t len, struct diag *d)
{
	struct membuf *m = ctx;

	(void)d;
	memcpy(m->buf + m->at, buf, len);
	m->at += len;
	return 0;
}

/* Makes an array of n image files m0.. in dir, filled with the pattern. */
static int make_array(int level, int layout, int n, char **paths)
{
	struct create_spec s = { .level = level, .layout = layout, .raid_disks = n, .chunk_sectors = 128,
				 .major = 1, .minor = 2, .data_offset = CREATE_DEFAULT, .now = 1700000000 };
	struct array_options opt = { .mode = DEV_WRITE };
	struct create_plan p;
	struct pattern pat = { 0 };
	struct array a;
	struct diag d;
	uint64_t written;
	int i, fd, rc;

	for (i = 0; i < n; i++) {
		if (asprintf(&paths[i], "%s/m%d", dir, i) < 0)
			return -1;
		fd = open(paths[i], O_RDWR | O_CREAT | O_TRUNC, 0600);
		if (fd < 0 || ftruncate(fd, MEMBER_BYTES) < 0)
			return -1;
		close(fd);
	}
	s.layout = layout < 0 ? create_default_layout(level) : layout;
	rc = create_plan(&p, &s, paths, n, &d);
	if (rc == 0)
		rc = create_write(&p, &d);
	create_free(&p);
	if (rc < 0) {
		printf("# create: %s\n", d.msg);
		return -1;
	}
	if (array_open(&a, paths, n, &opt, &d) < 0) {
		printf("# open: %s\n", d.msg);
		return -1;
	}
	rc = stripe_write(&a, 0, a.geo.array_sectors * 512, pattern_source, &pat, &written, &d);
	if (rc < 0)
		printf("# write: %s\n", d.msg);
	array_close(&a);
	return rc;
}

static void remove_array(char **paths, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		unlink(paths[i]);
		free(paths[i]);
	}
}

/* Do the runs for [off, off + len) cover it in order with the array's bytes? */
static bool runs_give_bytes(struct array *a, uint64_t off, size_t len)
{
	struct member_run r[MAX_RUNS];
	uint8_t *got = malloc(len), *want = malloc(len);
	struct membuf mb = { want, 0 };
	struct diag d;
	size_t at = 0;
	bool same = false;
	int n, i;

	n = stripe_member_runs(a, off, len, r, MAX_RUNS);
	if (got && want && n > 0 && stripe_read(a, off, len, to_memory, &mb, &d) == 0) {
		for (i = 0; i < n && at + r[i].len <= len; i++) {
			if (pread(r[i].member->dev.fd, got + at, r[i].len, (off_t)r[i].pos) != (ssize_t)r[i].len)
				break;
			at += r[i].len;
		}
		same = i == n && at == len && memcmp(got, want, len) == 0;
	}
	free(got);
	free(want);
	return same;
}

/* How many members a read of [off, off + len) is spread over. */
static int members_used(struct array *a, uint64_t off, size_t len)
{
	struct member_run r[MAX_RUNS];
	const struct member *seen[ST_MAX_DISKS];
	int n = stripe_member_runs(a, off, len, r, MAX_RUNS), k = 0, i, j;

	for (i = 0; i < n; i++) {
		for (j = 0; j < k && seen[j] != r[i].member; j++)
			;
		if (j == k && k < ST_MAX_DISKS)
			seen[k++] = r[i].member;
	}
	return k;
}

static void test_raid5(void)
{
	struct array_options opt = { .mode = DEV_READ };
	struct member_run r[MAX_RUNS];
	char *paths[4];
	struct array a;
	struct diag d;
	bool all = true;
	uint64_t off;
	int n;

	if (make_array(5, -1, 4, paths) < 0 || array_open(&a, paths, 4, &opt, &d) < 0) {
		ok(0, "a raid5 of 4 is made and opened");
		return;
	}
	for (off = 0; off < (3u << 20); off += 196608 + 512)
		all &= runs_give_bytes(&a, off, 300 * 1024);
	ok(all, "raid5: the runs, read from the members, are the bytes stripe_read gives");
	ok(runs_give_bytes(&a, 512, 512), "raid5: one sector inside a chunk");
	n = stripe_member_runs(&a, 0, 4 * 65536, r, MAX_RUNS);
	ok(n == 4 && r[0].len == 65536 && r[3].len == 65536, "raid5: a chunk a run, in array order (%d runs)", n);
	ok(stripe_member_runs(&a, 0, 4 * 65536, r, 3) == -1, "more runs than there is room for say -1");
	array_close(&a);

	/* the last member left out: the rows whose data it held are degraded */
	if (array_open(&a, paths, 3, &opt, &d) < 0) {
		ok(0, "a raid5 opens without its last member");
		remove_array(paths, 4);
		return;
	}
	/* left-symmetric: row 0 keeps its data on roles 0-2, row 1 starts on role 3 */
	n = stripe_member_runs(&a, 0, 3 * 65536, r, MAX_RUNS);
	ok(n == 3 && runs_give_bytes(&a, 0, 3 * 65536),
	   "raid5 degraded: a row whose data the members present hold has its runs");
	ok(stripe_member_runs(&a, 3 * 65536, 65536, r, MAX_RUNS) == -1,
	   "raid5 degraded: the missing member's chunk says -1");
	array_close(&a);
	remove_array(paths, 4);
}

static void test_mirrors(int level, int layout, int disks, const char *name)
{
	struct array_options opt = { .mode = DEV_READ };
	char *paths[4];
	struct array a;
	struct diag d;

	if (make_array(level, layout, disks, paths) < 0 || array_open(&a, paths, disks, &opt, &d) < 0) {
		ok(0, "%s is made and opened", name);
		return;
	}
	ok(runs_give_bytes(&a, 4096, (4u << 20) + 512), "%s: the runs give the array's bytes", name);
	ok(members_used(&a, 0, 4u << 20) == disks, "%s: a 4 MiB read is shared by all %d members", name, disks);
	array_close(&a);
	remove_array(paths, disks);
}

int main(void)
{
	if (!mkdtemp(dir)) {
		skip("no temporary directory");
		return tap_done();
	}
	test_raid5();
	test_mirrors(1, -1, 2, "raid1 of 2");
	test_mirrors(10, 0x102, 4, "raid10 n2 of 4");
	rmdir(dir);
	return tap_done();
}
