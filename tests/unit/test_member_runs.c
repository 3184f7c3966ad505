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
#include "image_array.h"
#include "tap.h"

#define MAX_RUNS 512

static char dir[] = "/tmp/test_member_runs.XXXXXX";

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

	if (make_image_array(dir, 5, -1, 4, paths) < 0 || array_open(&a, paths, 4, &opt, &d) < 0) {
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
		remove_image_array(paths, 4);
		return;
	}
	/* left-symmetric: row 0 keeps its data on roles 0-2, row 1 starts on role 3 */
	n = stripe_member_runs(&a, 0, 3 * 65536, r, MAX_RUNS);
	ok(n == 3 && runs_give_bytes(&a, 0, 3 * 65536),
	   "raid5 degraded: a row whose data the members present hold has its runs");
	ok(stripe_member_runs(&a, 3 * 65536, 65536, r, MAX_RUNS) == -1,
	   "raid5 degraded: the missing member's chunk says -1");
	array_close(&a);
	remove_image_array(paths, 4);
}

static void test_mirrors(int level, int layout, int disks, const char *name)
{
	struct array_options opt = { .mode = DEV_READ };
	char *paths[4];
	struct array a;
	struct diag d;

	if (make_image_array(dir, level, layout, disks, paths) < 0 || array_open(&a, paths, disks, &opt, &d) < 0) {
		ok(0, "%s is made and opened", name);
		return;
	}
	ok(runs_give_bytes(&a, 4096, (4u << 20) + 512), "%s: the runs give the array's bytes", name);
	ok(members_used(&a, 0, 4u << 20) == disks, "%s: a 4 MiB read is shared by all %d members", name, disks);
	array_close(&a);
	remove_image_array(paths, disks);
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
