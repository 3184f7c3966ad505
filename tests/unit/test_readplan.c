/* test_readplan: a read planned as member runs and spliced to a pipe gives
 * the array's bytes; a read not in whole sectors, over a degraded row, over
 * too many runs or over a range the fault hook fails is left to the engine
 * (-1); a splice from past a member's end fails; a pipe is emptied of a
 * reply left half way. */
#include <sys/ioctl.h>

#include "raid/readplan.h"
#include "tap.h"
#include "image_array.h"
#include "splice_read.h"

#define RUNS 512
#define PIPE_BYTES (512u << 10)

static char dir[] = "/tmp/test_readplan.XXXXXX";

static int pipe_holds(int rfd)
{
	int left = -1;

	ioctl(rfd, FIONREAD, &left);
	return left;
}

static void test_healthy(struct array *a)
{
	struct member_run r[RUNS];

	ok(splice_gives_pattern(a, 0, 4096), "the first page spliced is the array's first page");
	ok(splice_gives_pattern(a, 512, 300 * 1024), "300 KiB from sector 1, over two rows, are the array's bytes");
	ok(splice_gives_pattern(a, (2u << 20) + 65536 - 1024, 2048), "two sectors across a chunk boundary");
	ok(readplan_make(a, 100, 4096, r, RUNS) == -1, "a read not starting on a sector is left to the engine");
	ok(readplan_make(a, 0, 4000, r, RUNS) == -1, "a read not ending on a sector is left to the engine");
	ok(readplan_make(a, 0, 4 * 65536, r, 3) == -1, "a read over more runs than there is room for is left to the engine");
	ok(readplan_make(a, 0, 4 * 65536, r, RUNS) == 4, "four chunks are four runs");
}

static void test_splice_past_end(struct array *a)
{
	struct member_run r = { .member = &a->members[0], .pos = a->members[0].dev.size, .len = 4096 };
	int fds[2];

	if (readplan_pipe(fds, PIPE_BYTES) < 0) {
		ok(0, "a pipe of %u bytes is made", PIPE_BYTES);
		return;
	}
	ok(readplan_splice(fds[1], &r, 1) == -1, "a run past its member's end fails to splice");
	close(fds[0]);
	close(fds[1]);
}

static void test_pipe_empty(struct array *a)
{
	struct member_run r[RUNS];
	int fds[2], n;

	if (readplan_pipe(fds, PIPE_BYTES) < 0) {
		ok(0, "a pipe of %u bytes is made", PIPE_BYTES);
		return;
	}
	n = readplan_make(a, 0, 3 * 65536, r, RUNS);
	ok(n == 3 && readplan_splice(fds[1], r, 2) == 0 && pipe_holds(fds[0]) == 2 * 65536,
	   "two runs spliced leave their bytes in the pipe");
	ok(readplan_pipe_empty(fds[0]) == 0 && pipe_holds(fds[0]) == 0, "emptying the pipe leaves nothing in it");
	close(fds[0]);
	close(fds[1]);
}

static void test_degraded(char **paths)
{
	struct array_options opt = { .mode = DEV_READ };
	struct member_run r[RUNS];
	struct array a;
	struct diag d;

	if (array_open(&a, paths, 3, &opt, &d) < 0) {
		ok(0, "the raid5 opens without its last member: %s", d.msg);
		return;
	}
	/* left-symmetric: row 0 keeps its data on roles 0-2, row 1 starts on role 3 */
	ok(splice_gives_pattern(&a, 0, 3 * 65536), "degraded: a row whose data is all there is spliced");
	ok(readplan_make(&a, 3 * 65536, 65536, r, RUNS) == -1,
	   "degraded: the missing member's chunk is left to the engine");
	array_close(&a);
}

static void test_fault_hook(char **paths)
{
	struct array_options opt = { .mode = DEV_READ };
	struct member_run r[RUNS];
	struct array a;
	struct diag d;
	int rc;

	setenv("STRIPE_FAULT_READ", "m1:0:1099511627776", 1);
	rc = array_open(&a, paths, 4, &opt, &d);
	unsetenv("STRIPE_FAULT_READ");
	if (rc < 0) {
		ok(0, "the raid5 opens with the fault hook set: %s", d.msg);
		return;
	}
	ok(readplan_make(&a, 0, 65536, r, RUNS) == 1, "fault hook on m1: a chunk on m0 is planned");
	ok(readplan_make(&a, 0, 2 * 65536, r, RUNS) == -1,
	   "fault hook on m1: a read touching m1 is left to the engine, which meets the failure");
	array_close(&a);
}

static void test_raid1(void)
{
	struct array_options opt = { .mode = DEV_READ };
	struct member_run r[RUNS];
	char *paths[2];
	struct array a;
	struct diag d;

	if (make_image_array(dir, 1, -1, 2, paths) < 0 || array_open(&a, paths, 2, &opt, &d) < 0) {
		ok(0, "a raid1 of 2 is made and opened");
		return;
	}
	ok(readplan_make(&a, 4096, 8192, r, RUNS) == 1 && r[0].len == 8192,
	   "raid1: a small read is one run on one mirror");
	ok(splice_gives_pattern(&a, 4096, 256 * 1024), "raid1: spliced bytes are the array's");
	array_close(&a);
	remove_image_array(paths, 2);
}

int main(void)
{
	char *paths[4];
	struct array a;

	if (!open_image_raid5(dir, DEV_READ, paths, &a))
		return tap_done();
	test_healthy(&a);
	test_splice_past_end(&a);
	test_pipe_empty(&a);
	array_close(&a);
	test_degraded(paths);
	test_fault_hook(paths);
	remove_image_array(paths, 4);
	test_raid1();
	rmdir(dir);
	return tap_done();
}
