/* test_served: a served write of whole stripe rows is on the members when
 * it returns; writers racing on the same rows leave them as one of them
 * wrote them, parity right; a whole-row write after a queued partial
 * write of its row keeps its own bytes, and the other way round; a
 * whole-row write that fails says so at once, and later writes fail;
 * served read-only, writes are refused. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>

#include "raid/check.h"
#include "raid/served.h"
#include "tap.h"
#include "image_array.h"

#define ROW (3u * 65536)             /* raid5 of 4, 64 KiB chunks */

static const struct served_config serving = {
	.engines = 4, .depth = 8, .write_max = 1u << 20, .merge_max = 8u << 20, .merge_wait_ns = 1000000L,
};

static char dir[] = "/tmp/test_served.XXXXXX";

struct heard {
	int count;
	char last[1024];
};

static void hear(void *ctx, const char *msg)
{
	struct heard *h = ctx;

	h->count++;
	snprintf(h->last, sizeof(h->last), "%s", msg);
}

static bool start(struct served *s, struct array *a, struct heard *h)
{
	struct diag d;

	if (served_begin(s, a, false, &serving, hear, h, &d) < 0 || served_start(s, &d) < 0) {
		ok(0, "the array is served: %s", d.msg);
		return false;
	}
	return true;
}

static bool parity_right(struct array *a)
{
	struct check_options o = { 0 };
	struct check_result r = { 0 };
	struct diag d;

	return check_array(a, &o, &r, &d) == 0 && r.inconsistent == 0 && r.units > 0;
}

/* Whether all of [off, off + len) reads as v. */
static bool reads_as(struct array *a, uint64_t off, size_t len, uint8_t v)
{
	uint8_t *want = malloc(len);
	bool same;

	memset(want, v, len);
	same = array_holds(a, off, len, want);
	free(want);
	return same;
}

static void test_at_once(struct array *a)
{
	struct heard h = { 0 };
	struct served s;
	uint8_t *buf = malloc(2 * ROW);

	if (!start(&s, a, &h))
		return;
	memset(buf, 0x11, 2 * ROW);
	ok(served_write(&s, buf, 2 * ROW, 3 * ROW) == 0 && reads_as(a, 3 * ROW, 2 * ROW, 0x11),
	   "a write of two whole rows is on the members when it returns, before any drain");
	served_stop(&s);
	ok(served_end(&s) == 0 && h.count == 0 && parity_right(a), "and parity is right, nothing said");
	free(buf);
}

enum { RACERS = 4, ROUNDS = 40, RACE_ROWS = 16 };	/* rows beyond a job run in the caller */

struct racer {
	struct served *s;
	pthread_barrier_t *round;
	uint8_t v;
	int failed;
};

/* Writes rows 10 to 25 whole once a round, with its own byte, all racers
 * at once. */
static void *race(void *p)
{
	struct racer *r = p;
	uint8_t *buf = malloc(RACE_ROWS * ROW);
	int i;

	memset(buf, r->v, RACE_ROWS * ROW);
	for (i = 0; i < ROUNDS; i++) {
		pthread_barrier_wait(r->round);
		r->failed += served_write(r->s, buf, RACE_ROWS * ROW, 10 * ROW) < 0;
		pthread_barrier_wait(r->round);
	}
	free(buf);
	return NULL;
}

/* Whether the rows raced on hold one racer's bytes, not a mix. */
static bool one_racer(struct array *a)
{
	uint8_t first = 0;

	stripe_read(a, 10 * ROW, 1, to_memory, &(struct membuf){ &first, 0 }, &(struct diag){ 0 });
	return first >= 0x40 && first < 0x40 + RACERS && reads_as(a, 10 * ROW, RACE_ROWS * ROW, first);
}

static void test_race(struct array *a)
{
	struct racer r[RACERS];
	pthread_t th[RACERS];
	pthread_barrier_t round;
	struct heard h = { 0 };
	struct served s;
	int i, failed = 0, whole = 0;

	if (!start(&s, a, &h))
		return;
	pthread_barrier_init(&round, NULL, RACERS + 1);
	for (i = 0; i < RACERS; i++) {
		r[i] = (struct racer){ .s = &s, .round = &round, .v = (uint8_t)(0x40 + i) };
		pthread_create(&th[i], NULL, race, &r[i]);
	}
	for (i = 0; i < ROUNDS; i++) {
		pthread_barrier_wait(&round);        /* they write */
		pthread_barrier_wait(&round);        /* they have written */
		whole += one_racer(a);
	}
	for (i = 0; i < RACERS; i++) {
		pthread_join(th[i], NULL);
		failed += r[i].failed;
	}
	pthread_barrier_destroy(&round);
	served_stop(&s);
	ok(served_end(&s) == 0 && failed == 0, "%d writers racing on the same %d rows, %d rounds: every write done",
	   RACERS, RACE_ROWS, ROUNDS);
	ok(whole == ROUNDS, "after each round the rows hold one write's bytes, not a mix of several (%d of %d)", whole,
	   ROUNDS);
	ok(parity_right(a), "and parity is right");
}

static void test_order(struct array *a)
{
	struct heard h = { 0 };
	struct served s;
	uint8_t *row = malloc(ROW), part[4096];

	if (!start(&s, a, &h))
		return;
	memset(part, 0x22, sizeof(part));
	memset(row, 0x33, ROW);
	ok(served_write(&s, part, sizeof(part), 20 * ROW + 100) == 0 && served_write(&s, row, ROW, 20 * ROW) == 0 &&
	   served_drain(&s) == 0 && reads_as(a, 20 * ROW, ROW, 0x33),
	   "a whole-row write after a queued partial write of its row leaves the whole row's bytes");
	ok(served_write(&s, row, ROW, 21 * ROW) == 0 && served_write(&s, part, sizeof(part), 21 * ROW + 100) == 0 &&
	   served_drain(&s) == 0 && reads_as(a, 21 * ROW + 100, sizeof(part), 0x22) &&
	   reads_as(a, 21 * ROW, 100, 0x33) && reads_as(a, 21 * ROW + 100 + sizeof(part), ROW - 100 - sizeof(part), 0x33),
	   "a partial write after a whole-row write of its row leaves its bytes on top");
	served_stop(&s);
	ok(served_end(&s) == 0 && parity_right(a), "and parity is right");
	free(row);
}

static void test_read_only(struct array *a)
{
	struct heard h = { 0 };
	struct served s;
	struct diag d;
	uint8_t row[ROW];

	memset(row, 0x66, sizeof(row));
	if (served_begin(&s, a, true, &serving, hear, &h, &d) < 0 || served_start(&s, &d) < 0) {
		ok(0, "the array is served read-only: %s", d.msg);
		return;
	}
	errno = 0;
	ok(served_write(&s, row, ROW, 40 * ROW) == -1 && errno == EROFS && served_write(&s, row, 100, 41 * ROW) == -1 &&
	   errno == EROFS, "served read-only, a write of whole rows and a partial one are refused, EROFS");
	served_stop(&s);
	ok(served_end(&s) == 0 && !reads_as(a, 40 * ROW, ROW, 0x66), "and nothing is written");
}

/* Member 0's descriptor swapped for a read-only one: writes to it fail. */
static void test_failure(struct array *a, const char *path0)
{
	int fd = a->members[0].dev.fd, saved = dup(fd), ro = open(path0, O_RDONLY);
	struct heard h = { 0 };
	struct served s;
	uint8_t *row = malloc(ROW);

	memset(row, 0x55, ROW);
	if (!start(&s, a, &h))
		return;
	if (saved < 0 || ro < 0 || dup2(ro, fd) < 0) {
		ok(0, "member 0 is made read-only");
		return;
	}
	errno = 0;
	ok(served_write(&s, row, ROW, 30 * ROW) == -1 && errno == EIO, "a whole-row write that fails returns -1, EIO");
	ok(h.count == 1 && strstr(h.last, "writing") && strstr(h.last, path0),
	   "it is said at once, the member named (%s)", h.last);
	errno = 0;
	ok(served_write(&s, row, ROW, 31 * ROW) == -1 && errno == EIO && h.count == 1,
	   "a later write fails too, without another word");
	dup2(saved, fd);
	served_stop(&s);
	ok(served_end(&s) == -1, "the end says the array is left dirty");
	close(saved);
	close(ro);
	free(row);
}

int main(void)
{
	char *paths[4];
	struct array a;

	alarm(120);                  /* a write that never returns fails, not hangs */
	if (!open_image_raid5(dir, DEV_WRITE, paths, &a))
		return tap_done();
	test_at_once(&a);
	test_race(&a);
	test_order(&a);
	test_read_only(&a);
	test_failure(&a, paths[0]);
	array_close(&a);
	remove_image_array(paths, 4);
	rmdir(dir);
	return tap_done();
}
