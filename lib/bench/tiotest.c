/* tiotest: tiotest's concurrent threads, each on a file of its own (or its
 * own region of a file, device or array): sequential write, random write,
 * sequential read, random read; every test started in all threads at once,
 * with figures per thread and for all of them together. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/bench.h"
#include "io/dev.h"
#include "raid/stripe.h"

struct tio_thread {
	const struct bench_params *p;
	struct bench_target *t;
	unsigned id;
	enum tio_test test;
	char *path;                  /* the thread's file, or the target's */
	int fd;                      /* -1 on an array */
	uint64_t base, len;          /* its region: bytes */
	uint64_t randoms;            /* random operations per random test */
	uint64_t rnd;
	uint8_t *buf;
	struct bench_figure *fig;    /* TIO_COUNT of them */
	pthread_t th;
	bool started;
	int rc;
	struct diag d;
};

static int io_at(struct tio_thread *th, bool write, uint64_t off, struct diag *d)
{
	size_t len = th->p->chunk, done = 0;

	if (write)
		bench_stamp(th->buf, len, th->base + off, th->p->seed);
	if (th->fd < 0)
		return write ? bench_array_write(th->t->array, th->buf, th->base + off, len, d)
			     : bench_array_read(th->t->array, th->buf, th->base + off, len, d);
	while (done < len) {
		off_t at = (off_t)(th->base + off + done);
		ssize_t n = write ? pwrite(th->fd, th->buf + done, len - done, at)
				  : pread(th->fd, th->buf + done, len - done, at);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return diag_fail(d, "%s: %s error at byte %llu: %s", th->path, write ? "write" : "read",
					 (unsigned long long)at,
					 n < 0 ? strerror(errno) : write ? "no progress (disk full?)" : "end of file");
		done += (size_t)n;
	}
	if (write && th->p->fsync && fsync(th->fd) < 0)
		return diag_fail(d, "%s: fsync failed: %s", th->path, strerror(errno));
	return 0;
}

/* A whole region of an array in one streamed call, as the Bonnie block
 * tests on an array. */
struct region_stream {
	struct tio_thread *th;
	struct bench_figure *f;
	uint64_t last;
	uint64_t pos;                /* array offset of the next byte */
};

static int region_step(struct region_stream *rs, struct diag *d)
{
	uint64_t now = bench_now_ns();

	bench_op(rs->f, now - rs->last);
	rs->f->ops++;
	rs->last = now;
	return bench_stopped(rs->th->t) ? diag_fail(d, "interrupted") : 0;
}

static long long region_source(void *ctx, void *buf, size_t len, struct diag *d)
{
	struct region_stream *rs = ctx;
	size_t done = 0;

	for (; done < len; done += rs->th->p->chunk)
		memcpy((uint8_t *)buf + done, rs->th->buf,
		       len - done < rs->th->p->chunk ? len - done : rs->th->p->chunk);
	bench_stamp(buf, len, rs->pos, rs->th->p->seed);
	rs->pos += len;
	return region_step(rs, d) < 0 ? -1 : (long long)len;
}

static int region_sink(void *ctx, const void *buf, size_t len, struct diag *d)
{
	struct region_stream *rs = ctx;

	rs->th->buf[0] ^= ((const uint8_t *)buf)[len - 1];
	return region_step(rs, d);
}

static int array_sequential(struct tio_thread *th, bool write, struct bench_figure *f, struct diag *d)
{
	struct region_stream rs = { .th = th, .f = f, .last = bench_now_ns(), .pos = th->base };
	uint64_t written;

	if (!write)
		return stripe_read(th->t->array, th->base, th->len, region_sink, &rs, d);
	if (stripe_write(th->t->array, th->base, th->len, region_source, &rs, &written, d) < 0)
		return -1;
	return bench_array_sync(th->t->array, d);
}

static int sequential(struct tio_thread *th, bool write, struct bench_figure *f, struct diag *d)
{
	uint64_t off;
	int rc = 0;

	if (th->fd < 0)
		return array_sequential(th, write, f, d);
	for (off = 0; rc == 0 && off < th->len; off += th->p->chunk) {
		uint64_t s = bench_now_ns();

		rc = io_at(th, write, off, d);
		bench_op(f, bench_now_ns() - s);
		f->ops++;
		if (rc == 0 && bench_stopped(th->t))
			rc = diag_fail(d, "interrupted");
	}
	if (rc == 0 && write && fsync(th->fd) < 0 && errno != EINVAL)
		rc = diag_fail(d, "%s: fsync failed: %s", th->path, strerror(errno));
	return rc;
}

static int random_io(struct tio_thread *th, bool write, struct bench_figure *f, struct diag *d)
{
	uint64_t chunks = th->len / th->p->chunk, k;
	int rc = 0;

	for (k = 0; rc == 0 && k < th->randoms; k++) {
		uint64_t off = bench_random(&th->rnd) % chunks * th->p->chunk, s = bench_now_ns();

		rc = io_at(th, write, off, d);
		bench_op(f, bench_now_ns() - s);
		f->ops++;
		if (rc == 0 && bench_stopped(th->t))
			rc = diag_fail(d, "interrupted");
	}
	if (rc == 0 && write)
		rc = th->fd < 0 ? bench_array_sync(th->t->array, d)
				: fsync(th->fd) < 0 && errno != EINVAL
					  ? diag_fail(d, "%s: fsync failed: %s", th->path, strerror(errno)) : 0;
	return rc;
}

static void *thread_run(void *arg)
{
	struct tio_thread *th = arg;
	struct bench_figure *f = &th->fig[th->test];
	struct bench_clock c;
	bool write = th->test == TIO_WRITE || th->test == TIO_RANDOM_WRITE;

	bench_clock_start_thread(&c);
	if (th->test == TIO_WRITE || th->test == TIO_READ)
		th->rc = sequential(th, write, f, &th->d);
	else
		th->rc = random_io(th, write, f, &th->d);
	bench_clock_stop(&c, f);
	f->bytes = f->ops * th->p->chunk;
	if (th->fd < 0 && th->test != TIO_RANDOM_WRITE && th->test != TIO_RANDOM_READ)
		f->bytes = th->rc == 0 ? th->len : 0;
	return NULL;
}

static int open_thread(struct tio_thread *th, struct diag *d)
{
	int flags = O_RDWR | O_CLOEXEC | (th->p->direct ? O_DIRECT : 0);

	th->fd = -1;
	if (th->t->kind == BENCH_ARRAY)
		return 0;
	if (th->t->kind == BENCH_DIR) {
		if (asprintf(&th->path, "%s/tiotest.%u", th->t->tmpdir, th->id) < 0) {
			th->path = NULL;
			return diag_fail(d, "out of memory");
		}
		flags |= O_CREAT;
	} else if (!(th->path = strdup(th->t->file))) {
		return diag_fail(d, "out of memory");
	}
	th->fd = open(th->path, flags, 0600);
	if (th->fd < 0)
		return diag_fail(d, "%s: cannot open%s: %s", th->path, th->p->direct ? " for direct I/O" : "",
				 strerror(errno));
	return 0;
}

/* One test in every thread at once; the total runs from the first start
 * to the last end, with the whole process's CPU time. */
static int run_test(struct tio_thread *th, unsigned n, enum tio_test test, struct bench_figure *total,
		    struct diag *d)
{
	static const char *const what[TIO_COUNT] = { "write", "random write", "read", "random read" };
	struct bench_clock c;
	unsigned i;
	int rc = 0;

	if (th[0].t->note)
		th[0].t->note(th[0].t->note_ctx, what[test]);
	bench_clock_start(&c);
	for (i = 0; i < n; i++) {
		th[i].test = test;
		th[i].started = pthread_create(&th[i].th, NULL, thread_run, &th[i]) == 0;
		if (!th[i].started && rc == 0)
			rc = diag_fail(d, "cannot start thread %u of %u: %s", i + 1, n, strerror(errno));
	}
	for (i = 0; i < n; i++)
		if (th[i].started)
			pthread_join(th[i].th, NULL);
	bench_clock_stop(&c, total);
	for (i = 0; i < n; i++) {
		bench_merge_ops(total, &th[i].fig[test]);
		if (th[i].rc < 0 && rc == 0) {
			*d = th[i].d;
			rc = -1;
		}
	}
	return rc;
}

int tiotest_run(const struct bench_params *p, struct bench_target *t, struct tio_results *r, struct diag *d)
{
	unsigned n = p->threads, i;
	struct tio_thread *th = calloc(n, sizeof(*th));
	uint64_t per = p->size / n;
	int rc = 0, k;

	r->threads = n;
	r->per = calloc((size_t)n * TIO_COUNT, sizeof(*r->per));
	if (!th || !r->per) {
		free(th);
		return diag_fail(d, "out of memory for %u threads", n);
	}
	if (t->kind == BENCH_ARRAY) {
		bench_array_heap();
		if (p->direct)
			rc = bench_array_direct(t->array, true, d);
	}
	for (i = 0; i < n; i++) {
		th[i] = (struct tio_thread){ .p = p, .t = t, .id = i + 1, .fd = -1, .len = per,
					     .base = t->kind == BENCH_DIR ? 0 : per * i,
					     .randoms = p->seeks / n ? p->seeks / n : 1,
					     .rnd = p->seed ^ ((uint64_t)(i + 1) << 40),
					     .fig = &r->per[i * TIO_COUNT] };
		th[i].buf = bench_buffer(p, p->chunk, rc ? NULL : d);
		if (!th[i].buf)
			rc = -1;
		else
			bench_fill(th[i].buf, p->chunk, p->seed + i);
		if (rc == 0)
			rc = open_thread(&th[i], d);
	}
	for (k = 0; rc == 0 && k < TIO_COUNT; k++)
		rc = run_test(th, n, (enum tio_test)k, &r->total[k], d);
	if (t->kind == BENCH_ARRAY && p->direct && bench_array_direct(t->array, false, rc ? NULL : d) < 0)
		rc = -1;
	for (i = 0; i < n; i++) {
		if (th[i].fd >= 0)
			close(th[i].fd);
		free(th[i].path);
		free(th[i].buf);
	}
	free(th);
	return rc;
}
