/* hdparm: hdparm's read timings with its semantics: -T reads the first
 * 2 MiB again and again for 2 s (the page cache and memory), -t reads 2 MiB
 * after 2 MiB from the start for 3 s or to the end (the disk), after a
 * sync, a pause and a flush of the cache; on a file, a device or an array. */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "bench/bench.h"
#include "io/dev.h"
#include "raid/stripe.h"

#define TIMING_BUF (2u << 20)    /* hdparm's TIMING_BUF_MB */

/* What the timings read from: a descriptor, or an array. */
struct source {
	const struct bench_params *p;
	struct bench_target *t;
	int fd;
	uint8_t *buf;
};

static int stopped(const struct source *s, struct diag *d)
{
	return bench_stopped(s->t) ? diag_fail(d, "interrupted") : 0;
}

/* hdparm's sleeps (3 s to settle, 1 s after a flush), scaled with
 * --seconds; a signal cuts them short. */
static int pause_for(const struct source *s, double seconds, struct diag *d)
{
	struct timespec ts = { (time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9) };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		if (bench_stopped(s->t))
			break;
	return stopped(s, d);
}

static int copy_sink(void *ctx, const void *buf, size_t len, struct diag *d)
{
	uint8_t **at = ctx;

	memcpy(*at, buf, len);
	*at += len;
	(void)d;
	return 0;
}

/* One 2 MiB read at off; on a descriptor from where it stands (read()),
 * as hdparm reads, the caller seeking where needed. */
static int read_block(struct source *s, uint64_t off, struct diag *d)
{
	size_t done = 0;

	if (s->t->kind == BENCH_ARRAY) {
		uint8_t *at = s->buf;

		return stripe_read(s->t->array, off, TIMING_BUF, copy_sink, &at, d);
	}
	while (done < TIMING_BUF) {
		ssize_t n = read(s->fd, s->buf + done, TIMING_BUF - done);

		if (n < 0 && errno == EINTR && !bench_stopped(s->t))
			continue;
		if (n < 0)
			return diag_fail(d, "%s: read error at byte %llu: %s", s->t->file ? s->t->file : s->t->path,
					 (unsigned long long)(off + done), strerror(errno));
		if (n == 0)
			return diag_fail(d, "%s: end of file at byte %llu: too small to time", s->t->path,
					 (unsigned long long)(off + done));
		done += (size_t)n;
	}
	/* touch every sector, so the read is seen to be complete */
	for (done = 0; done < TIMING_BUF; done += 512)
		s->buf[done] &= 1;
	return 0;
}

static int seek_zero(struct source *s, struct diag *d)
{
	if (s->t->kind != BENCH_ARRAY && lseek(s->fd, 0, SEEK_SET) != 0)
		return diag_fail(d, "%s: lseek to 0: %s", s->t->path, strerror(errno));
	return 0;
}

static void drop_cache_fd(int fd, bool blockdev)
{
	fsync(fd);
	if (blockdev)
		ioctl(fd, BLKFLSBUF, NULL);
	posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
}

/* hdparm's flush_buffer_cache: written data out, the cached pages dropped
 * (BLKFLSBUF on a device, fadvise on a file, every member of an array). */
static void flush_cache(struct source *s)
{
	int i;

	if (s->t->kind != BENCH_ARRAY) {
		drop_cache_fd(s->fd, s->t->kind == BENCH_DEVICE);
		return;
	}
	for (i = 0; i < s->t->array->geo.raid_disks; i++) {
		struct member *m = s->t->array->role[i];

		if (m)
			drop_cache_fd(m->dev.fd, m->dev.is_blockdev);
	}
}

/* -T: the first 2 MiB once, a flush, then again and again until the time
 * is up; lseek's own cost is taken out, as hdparm does. */
static int time_cache(struct source *s, struct hdparm_timing *h, struct diag *d)
{
	double want = s->p->seconds * 2.0 / 3.0;
	uint64_t start, now, n = 0, k;
	int rc;

	rc = pause_for(s, s->p->seconds, d);
	if (rc == 0)
		rc = seek_zero(s, d);
	if (rc == 0)
		rc = read_block(s, 0, d);
	if (rc == 0) {
		flush_cache(s);
		rc = pause_for(s, s->p->seconds / 3.0, d);
	}
	start = now = bench_now_ns();
	while (rc == 0 && (double)(now - start) / 1e9 < want) {
		rc = seek_zero(s, d);
		if (rc == 0)
			rc = read_block(s, 0, d);
		if (rc == 0)
			rc = stopped(s, d);
		n++;
		now = bench_now_ns();
	}
	if (rc < 0)
		return -1;
	h->elapsed_ns = now - start;
	start = bench_now_ns();
	for (k = 0; k < n && s->t->kind != BENCH_ARRAY; k++)
		seek_zero(s, d);
	now = bench_now_ns();
	if (now - start < h->elapsed_ns)
		h->elapsed_ns -= now - start;
	h->bytes = n * TIMING_BUF;
	h->run = true;
	flush_cache(s);
	return pause_for(s, s->p->seconds / 3.0, d);
}

/* -t: from the start, 2 MiB at a time, for the time given or to the end. */
static int time_device(struct source *s, struct hdparm_timing *h, struct diag *d)
{
	uint64_t max = s->p->size / TIMING_BUF, start, now, n = 0;
	int rc;

	flush_cache(s);
	rc = pause_for(s, s->p->seconds, d);
	if (rc == 0)
		rc = seek_zero(s, d);
	start = now = bench_now_ns();
	while (rc == 0 && n < max && (double)(now - start) / 1e9 < s->p->seconds) {
		rc = read_block(s, n * TIMING_BUF, d);
		if (rc == 0)
			rc = stopped(s, d);
		n++;
		now = bench_now_ns();
	}
	if (rc < 0)
		return -1;
	h->elapsed_ns = now - start;
	h->bytes = n * TIMING_BUF;
	h->run = true;
	return 0;
}

static int open_source(struct source *s, struct diag *d)
{
	if (s->t->kind == BENCH_ARRAY)
		return s->p->direct ? bench_array_direct(s->t->array, true, d) : 0;
	s->fd = open(s->t->file, O_RDONLY | O_CLOEXEC | (s->p->direct ? O_DIRECT : 0));
	if (s->fd < 0)
		return diag_fail(d, "%s: cannot open for reading%s: %s", s->t->path,
				 s->p->direct ? " with O_DIRECT" : "", strerror(errno));
	return 0;
}

int hdparm_run(const struct bench_params *p, struct bench_target *t, struct hdparm_results *r, struct diag *d)
{
	struct source s = { .p = p, .t = t, .fd = -1 };
	int rc;

	if (p->size < TIMING_BUF)
		return diag_fail(d, "%s: %llu bytes are too few to time: hdparm reads 2 MiB at a time", t->path,
				 (unsigned long long)p->size);
	if (t->kind == BENCH_ARRAY)
		bench_array_heap();
	if (!(s.buf = bench_buffer(p, TIMING_BUF, d)))
		return -1;
	memset(s.buf, 0, TIMING_BUF);
	mlock(s.buf, TIMING_BUF);    /* as hdparm; without the privilege, unlocked */
	sync();
	rc = open_source(&s, d);
	if (rc == 0) {
		if (t->note)
			t->note(t->note_ctx, "cached reads (-T)");
		rc = time_cache(&s, &r->cached, d);
	}
	if (rc == 0) {
		if (t->note)
			t->note(t->note_ctx, "disk reads (-t)");
		rc = time_device(&s, &r->disk, d);
	}
	if (s.fd >= 0)
		close(s.fd);
	if (t->kind == BENCH_ARRAY && p->direct && bench_array_direct(t->array, false, rc ? NULL : d) < 0)
		rc = -1;
	munlock(s.buf, TIMING_BUF);
	free(s.buf);
	return rc;
}
