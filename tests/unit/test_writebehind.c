/* test_writebehind: queued writes are on the members once drained, in any
 * order they came and whole rows or not, the later of two overlapping ones
 * left; two sequential streams of writes that are not whole rows, sent
 * in turns, leave their bytes and right parity; a queued write holds its
 * rows against reads until it is written; a
 * buffer handed back frees its place, and buffers go to callers in the
 * order they asked; a write that fails is told with its
 * bytes and makes the drain say -1.  And the engine set: its row unit, and
 * its reads. */
#include <signal.h>

#include "raid/check.h"
#include "raid/writebehind.h"
#include "tap.h"
#include "image_array.h"

#define ROW (3u * 65536)             /* raid5 of 4, 64 KiB chunks */
#define WRITE_MAX (512u << 10)

static char dir[] = "/tmp/test_writebehind.XXXXXX";

/* What the array should hold, the pattern at first. */
static uint8_t *model;
static uint64_t model_bytes;

struct failure {
	int count;
	uint64_t off, len;
	char msg[sizeof(((struct diag *)0)->msg)];
};

static void note_failure(void *ctx, uint64_t off, uint64_t len, const struct diag *d)
{
	struct failure *f = ctx;

	f->count++;
	f->off = off;
	f->len = len;
	snprintf(f->msg, sizeof(f->msg), "%s", d->msg);
}

static struct writebehind_config config(int depth, struct failure *f)
{
	return (struct writebehind_config){ .depth = depth, .write_max = WRITE_MAX, .merge_max = 8u << 20,
					    .merge_wait_ns = 1000000L, .failed = note_failure, .ctx = f };
}

/* Queues a write of len bytes of value v at off, into the model too. */
static void write_bytes(struct writebehind *wb, uint64_t off, size_t len, uint8_t v)
{
	struct queued_write *w = writebehind_buffer(wb, off, len);

	memset(w->data, v, len);
	memset(model + off, v, len);
	writebehind_queue(wb, w);
}

static void reset_model(void)
{
	uint64_t i;

	for (i = 0; i < model_bytes; i++)
		model[i] = pattern_byte(i);
}

static bool array_is_model(struct array *a)
{
	return array_holds(a, 0, model_bytes, model);
}

/* The writer started on es, or a failed check. */
static bool start(struct writebehind *wb, struct engineset *es, int depth, struct failure *f)
{
	struct writebehind_config cfg = config(depth, f);
	struct diag d;

	if (writebehind_start(wb, es, &cfg, &d) < 0) {
		ok(0, "the writer starts: %s", d.msg);
		return false;
	}
	return true;
}

static void test_written(struct array *a, struct engineset *es)
{
	struct failure f = { 0 };
	struct writebehind wb;

	if (!start(&wb, es, 8, &f))
		return;
	write_bytes(&wb, 4096, 8192, 0x11);
	ok(writebehind_drain(&wb) == 0 && array_is_model(a), "a write inside a row is on the members once drained");
	write_bytes(&wb, 2 * ROW, ROW, 0x22);
	write_bytes(&wb, 3 * ROW, WRITE_MAX, 0x33);
	ok(writebehind_drain(&wb) == 0 && array_is_model(a), "whole rows, and a write as large as allowed, are written");
	write_bytes(&wb, 20 * ROW + ROW / 2, ROW / 2 + 512, 0x44);
	write_bytes(&wb, 20 * ROW + 512, ROW / 2 - 512, 0x45);
	ok(writebehind_drain(&wb) == 0 && array_is_model(a), "two halves of a row queued back to front are both written");
	write_bytes(&wb, 30 * ROW, 65536, 0x55);
	write_bytes(&wb, 30 * ROW + 4096, 4096, 0x56);
	write_bytes(&wb, 30 * ROW, 1024, 0x57);
	ok(writebehind_drain(&wb) == 0 && array_is_model(a), "of overlapping writes the later bytes are left");
	writebehind_stop(&wb);
	ok(f.count == 0 && array_is_model(a), "stopped, nothing failed and the array holds every write");
}

/* Many writes of odd sizes and places, more at once than the queue holds. */
static void test_many(struct array *a, struct engineset *es)
{
	struct failure f = { 0 };
	struct writebehind wb;
	int i;

	if (!start(&wb, es, 4, &f))
		return;
	srand(18);
	for (i = 0; i < 300; i++) {
		size_t len = 512 * (1 + (size_t)rand() % 256);
		uint64_t off = 512 * ((uint64_t)rand() % ((model_bytes - len) / 512));

		write_bytes(&wb, off, len, (uint8_t)(i + 1));
	}
	writebehind_stop(&wb);
	ok(f.count == 0 && array_is_model(a), "300 random writes through a queue of 4 leave the latest bytes");
}

/* Two writers, each of 256 KiB requests in order (not whole rows of 192
 * KiB), sent in turns, as nbdcopy's connections send them: the writer
 * puts back the part of a run in its last row for the next request, which
 * must leave every byte, and parity, right. */
static void test_streams(struct array *a, struct engineset *es)
{
	enum { REQ = 256 << 10, EACH = 24 };
	uint64_t half = model_bytes / 2 / REQ * REQ;
	struct check_options o = { 0 };
	struct check_result r = { 0 };
	struct failure f = { 0 };
	struct writebehind wb;
	struct diag d;
	int i;

	if (!start(&wb, es, 4, &f))
		return;
	for (i = 0; i < 2 * EACH; i++)
		write_bytes(&wb, (i % 2 ? half : ROW / 2) + (uint64_t)(i / 2) * REQ, REQ, (uint8_t)(0x90 + i));
	ok(writebehind_drain(&wb) == 0 && array_is_model(a), "two streams of 256 KiB writes in turns are all written");
	writebehind_stop(&wb);
	ok(check_array(a, &o, &r, &d) == 0 && r.inconsistent == 0 && r.units > 0,
	   "and parity is right (%llu of %llu pages inconsistent)", (unsigned long long)r.inconsistent,
	   (unsigned long long)r.units);
}

/* With every engine lent out, the writer cannot write: what it holds shows. */
static void test_holds(struct array *a, struct engineset *es)
{
	struct stripe_engine *taken[2];
	struct failure f = { 0 };
	struct writebehind wb;

	if (!start(&wb, es, 8, &f))
		return;
	taken[0] = engineset_take(es);
	taken[1] = engineset_take(es);
	write_bytes(&wb, 5 * ROW + 4096, 4096, 0x66);
	ok(rangelock_busy(&es->rows, 5 * ROW, 5 * ROW + 1, ROWS_READ) &&
	   rangelock_busy(&es->rows, 6 * ROW - 1, 6 * ROW, ROWS_READ),
	   "a queued write holds its whole row against reads");
	ok(!rangelock_busy(&es->rows, 4 * ROW, 5 * ROW, ROWS_READ) && !rangelock_busy(&es->rows, 6 * ROW, 7 * ROW, ROWS_READ),
	   "and not the rows beside it");
	ok(!rangelock_busy(&es->rows, 5 * ROW, 6 * ROW, ROWS_WRITE), "another write may share it");
	engineset_give(es, taken[0]);
	engineset_give(es, taken[1]);
	ok(writebehind_drain(&wb) == 0 && !rangelock_busy(&es->rows, 5 * ROW, 6 * ROW, ROWS_READ),
	   "once written, the row is free");
	writebehind_stop(&wb);
	ok(array_is_model(a), "and holds the write");
}

static void test_cancel(struct array *a, struct engineset *es)
{
	struct failure f = { 0 };
	struct writebehind wb;
	struct queued_write *w;

	if (!start(&wb, es, 1, &f))
		return;
	w = writebehind_buffer(&wb, 0, 4096);
	memset(w->data, 0x77, 4096);
	writebehind_cancel(&wb, w);
	w = writebehind_buffer(&wb, 8192, 4096);
	ok(w != NULL, "a queue of one gives its buffer again once it is handed back");
	writebehind_cancel(&wb, w);
	ok(writebehind_drain(&wb) == 0, "a drain with nothing queued returns at once");
	w = writebehind_buffer(&wb, 0, WRITE_MAX + 1);
	ok(w == NULL, "a write longer than the buffers is refused");
	if (w)
		writebehind_cancel(&wb, w);
	w = writebehind_buffer(&wb, 0, WRITE_MAX);
	ok(w != NULL, "one as long as them is taken");
	if (w)
		writebehind_cancel(&wb, w);
	writebehind_stop(&wb);
	ok(array_is_model(a), "the bytes of a write handed back are not written");
}

struct asker {
	struct writebehind *wb;
	uint64_t off;
	int *order, *n;              /* the offsets' turns, as buffers came */
	pthread_mutex_t *mu;
};

static void *ask_buffer(void *p)
{
	struct asker *k = p;
	struct queued_write *w = writebehind_buffer(k->wb, k->off, 512);

	pthread_mutex_lock(k->mu);
	k->order[(*k->n)++] = (int)(k->off / 512);
	pthread_mutex_unlock(k->mu);
	writebehind_cancel(k->wb, w);
	return NULL;
}

/* How many callers wait in line for a buffer now. */
static int waiting(struct writebehind *wb)
{
	struct buffer_waiter *bw;
	int n = 0;

	pthread_mutex_lock(&wb->mu);
	for (bw = wb->waiters; bw; bw = bw->next)
		n++;
	pthread_mutex_unlock(&wb->mu);
	return n;
}

/* Callers that find every buffer taken have them in the order they asked,
 * so that a sequential writer's requests queue as runs. */
static void test_turns(struct engineset *es)
{
	enum { ASKERS = 6 };
	pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
	struct asker k[ASKERS];
	pthread_t th[ASKERS];
	struct failure f = { 0 };
	struct writebehind wb;
	struct queued_write *held;
	int order[ASKERS], n = 0, i, spin, in_order = 1;

	if (!start(&wb, es, 1, &f))
		return;
	held = writebehind_buffer(&wb, 0, 512);
	for (i = 0; i < ASKERS; i++) {
		k[i] = (struct asker){ .wb = &wb, .off = (uint64_t)(i + 1) * 512, .order = order, .n = &n, .mu = &mu };
		pthread_create(&th[i], NULL, ask_buffer, &k[i]);
		for (spin = 0; waiting(&wb) < i + 1 && spin < 10000; spin++)
			usleep(100);         /* each in line before the next asks */
	}
	ok(waiting(&wb) == ASKERS, "with the one buffer taken, %d callers wait in line", ASKERS);
	writebehind_cancel(&wb, held);
	for (i = 0; i < ASKERS; i++)
		pthread_join(th[i], NULL);
	for (i = 0; i < ASKERS; i++)
		in_order &= order[i] == i + 1;
	ok(n == ASKERS && in_order, "the buffer goes to them in the order they asked (%d %d %d %d %d %d)", order[0],
	   order[1], order[2], order[3], order[4], order[5]);
	writebehind_stop(&wb);
}

/* Member 0's descriptor swapped for a read-only one: writes to it fail. */
static void test_failure(struct array *a, struct engineset *es, const char *path0)
{
	struct failure f = { 0 };
	struct writebehind wb;
	int fd = a->members[0].dev.fd, saved = dup(fd), ro = open(path0, O_RDONLY);

	if (saved < 0 || ro < 0 || dup2(ro, fd) < 0) {
		ok(0, "member 0 is made read-only");
		return;
	}
	if (start(&wb, es, 8, &f)) {
		write_bytes(&wb, 4096, 8192, 0x88);
		ok(writebehind_drain(&wb) == -1, "a write that fails makes the drain say -1");
		ok(f.count == 1 && f.off == 4096 && f.len == 8192 && strstr(f.msg, path0),
		   "the failure is told once, with the write's bytes and the member (%s)", f.msg);
		write_bytes(&wb, 0, 512, 0x89);
		ok(writebehind_drain(&wb) == -1, "the drain keeps saying -1 after");
		writebehind_stop(&wb);
	}
	dup2(saved, fd);
	close(saved);
	close(ro);
}

static void test_engineset(struct array *a)
{
	uint8_t *got = malloc(ROW + 1024);
	struct membuf mb = { got, 0 };
	struct engineset es;
	struct diag d;

	ok(engineset_start(&es, a, 2, &d) == 0, "an engine set starts");
	ok(es.row_bytes == ROW, "raid5 of 4: holds are whole rows of %u bytes (%llu)", ROW,
	   (unsigned long long)es.row_bytes);
	ok(got && engineset_read(&es, ROW - 512, ROW + 1024, to_memory, &mb, &d) == 0 &&
	   memcmp(got, model + ROW - 512, ROW + 1024) == 0, "a read through the set gives the array's bytes");
	ok(!rangelock_busy(&es.rows, 0, 3 * ROW, ROWS_WRITE), "and holds no row after");
	engineset_stop(&es);
	free(got);
}

static void test_engineset_mirrors(void)
{
	struct array_options opt = { .mode = DEV_READ };
	char *paths[2];
	struct engineset es;
	struct array a;
	struct diag d;

	if (make_image_array(dir, 1, -1, 2, paths) < 0 || array_open(&a, paths, 2, &opt, &d) < 0) {
		ok(0, "a raid1 of 2 is made and opened");
		return;
	}
	ok(engineset_start(&es, &a, 1, &d) == 0, "an engine set over mirrors starts");
	ok(es.row_bytes == 1, "raid1: holds are the bytes themselves");
	engineset_stop(&es);
	array_close(&a);
	remove_image_array(paths, 2);
}

int main(void)
{
	char *paths[4];
	struct engineset es;
	struct array a;
	struct diag d;

	alarm(120);                  /* a writer that never drains fails, not hangs */
	if (!open_image_raid5(dir, DEV_WRITE, paths, &a))
		return tap_done();
	model_bytes = a.geo.array_sectors * 512;
	model = malloc(model_bytes);
	reset_model();
	ok(engineset_start(&es, &a, 2, &d) == 0, "an engine set over raid5 starts");
	test_written(&a, &es);
	test_many(&a, &es);
	test_streams(&a, &es);
	test_holds(&a, &es);
	test_cancel(&a, &es);
	test_turns(&es);
	test_engineset(&a);
	test_failure(&a, &es, paths[0]);
	engineset_stop(&es);
	array_close(&a);
	remove_image_array(paths, 4);
	test_engineset_mirrors();
	free(model);
	rmdir(dir);
	return tap_done();
}
