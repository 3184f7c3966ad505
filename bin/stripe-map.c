/* stripe-map: an md array as one file, MOUNTPOINT/array, through FUSE.
 * Reads and writes go through the stripe engine (parity kept, degraded
 * arrays too) from several threads; while mapped read-write the array is
 * marked dirty, and clean again once it is unmapped. */
#define FUSE_USE_VERSION 312

#include <errno.h>
#include <fcntl.h>
#include <fuse.h>
#include <getopt.h>
#include <limits.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "md/array.h"
#include "cli/cli.h"
#include "cli/open_array.h"
#include "map_fuse.h"
#include "io/rangelock.h"
#include "raid/stripe.h"
#include "io/writeq.h"

#define TOOL "stripe-map"
#define FILE_NAME "array"
#define FILE_PATH "/" FILE_NAME
#define IO_BYTES (512u << 10)        /* largest FUSE write request */
#define ENGINES 4                    /* requests served at once; the rest wait */
#define QUEUED_MAX 8                 /* writes answered but not yet on the members */
#define MERGE_BYTES (8u << 20)       /* most bytes a run of queued writes is written in */
#define MERGE_WAIT_NS 1000000L       /* how long a partial row waits for the write that ends it */
#define SPLICE_RUNS 512              /* member runs one read may be spliced from */

enum { HOLD_READS, HOLD_WRITES };    /* rangelock groups */

extern char **environ;

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: " TOOL " [options] MEMBER... MOUNTPOINT\n"
		"\n"
		"Map the md array made of MEMBER... (block devices or image files, in any\n"
		"order) as one file, MOUNTPOINT/" FILE_NAME ", through FUSE: what is read from it\n"
		"is read from the members, degraded arrays rebuilt on the fly; what is written\n"
		"to it is written to them with mirrors and parity kept. It can hold a file\n"
		"system: mkfs.ext4 MOUNTPOINT/" FILE_NAME "; mount -o loop MOUNTPOINT/" FILE_NAME " /mnt.\n"
		"While mapped read-write the array is marked dirty, as md does; it is marked\n"
		"clean when unmapped: fusermount3 -u MOUNTPOINT, or SIGTERM.\n"
		"\n"
		"Options:\n"
		"  -r, --read-only         map read-only: members opened read-only, writes refused\n"
		"  -f, --foreground        stay in the foreground until unmapped (default: go to\n"
		"                          the background once the file is there)\n"
		"  -q, --quiet             no warnings about left-out members\n"
		"  -v, --verbose           say which members are used and what is mapped\n"
		"  -h, --help              show this help and exit\n"
		"  -V, --version           show the version and exit\n"
		"\n"
		"Exit status: 0 mapped and unmapped cleanly, 2 error (nothing mapped, or an\n"
		"I/O error while mapped).\n");
}

struct options {
	bool read_only, foreground, quiet, verbose;
	char **members;
	int nmembers;
	const char *mountpoint;
};

/* One mapping: the array, the file it is shown as, and what the FUSE
 * threads share.  Handed to every callback as FUSE's private_data. */
struct map {
	struct array *a;
	char mountpoint[PATH_MAX];
	bool read_only, use_syslog;
	uint64_t size;               /* bytes of the array, the file's size */
	uint64_t lock_unit;          /* requests lock whole stripe rows (1 for copy levels) */
	uint64_t blksize;            /* st_blksize: md's optimal I/O size */
	struct rangelock rows;
	struct stripe_engine engine[ENGINES];
	bool engine_busy[ENGINES];
	pthread_cond_t engine_freed; /* with mu */
	uid_t uid;
	gid_t gid;
	struct timespec mapped_at;
	pthread_mutex_t mu;          /* guards mtime, engine_busy and the write queue */
	struct timespec mtime;
	/* write-behind: a write is answered once queued, with its rows held,
	 * so that later reads of those rows wait for it; one writer thread
	 * applies the queue in order */
	struct writeq queue;         /* of struct pending */
	struct pending *spare;       /* buffers for writes to come, QUEUED_MAX in all */
	int inflight;                /* queued or being written */
	struct writeq_item incoming[QUEUED_MAX];  /* writes being taken in; len 0: free */
	int flushing;                /* callers waiting for the queue to empty */
	bool stopping;
	pthread_cond_t queued, drained;
	pthread_t writer;
	atomic_int opens;
	atomic_bool io_failed, write_failed;
	struct fuse *fuse;
	pthread_t loop_thread;
	sigset_t sigs;               /* handled by the signal thread */
};

static struct map *this_map(void)
{
	return fuse_get_context()->private_data;
}

/* A message on standard error, or to syslog once in the background. */
static void report(const struct map *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void report(const struct map *m, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (m->use_syslog) {
		vsyslog(LOG_ERR, fmt, ap);
	} else {
		fputs(TOOL ": ", stderr);
		vfprintf(stderr, fmt, ap);
		fputc('\n', stderr);
	}
	va_end(ap);
}

/* ---- the file's I/O ---------------------------------------------------- */

struct membuf {
	uint8_t *p;
	size_t len, at;
};

static int copy_out(void *ctx, const void *buf, size_t len, struct diag *d)
{
	struct membuf *b = ctx;

	if (len > b->len - b->at)
		return diag_fail(d, "the engine gave %zu bytes more than asked for", len - (b->len - b->at));
	memcpy(b->p + b->at, buf, len);
	b->at += len;
	return 0;
}

/* An engine to serve a request with: its member threads stay up from one
 * request to the next. */
static struct stripe_engine *engine_take(struct map *m)
{
	int i;

	pthread_mutex_lock(&m->mu);
	for (;;) {
		for (i = 0; i < ENGINES && m->engine_busy[i]; i++)
			;
		if (i < ENGINES)
			break;
		pthread_cond_wait(&m->engine_freed, &m->mu);
	}
	m->engine_busy[i] = true;
	pthread_mutex_unlock(&m->mu);
	return &m->engine[i];
}

static void engine_give(struct map *m, struct stripe_engine *e)
{
	pthread_mutex_lock(&m->mu);
	m->engine_busy[e - m->engine] = false;
	pthread_cond_signal(&m->engine_freed);
	pthread_mutex_unlock(&m->mu);
}

/* Holds the stripe rows [off, off + len) touches: a write rewrites P and Q
 * of whole rows, and a degraded read rebuilds from them. */
static void hold_rows(struct map *m, struct range_hold *h, uint64_t off, uint64_t len, int group)
{
	uint64_t u = m->lock_unit;

	rangelock_take(&m->rows, h, off / u * u, (off + len + u - 1) / u * u, group);
}

/* The length of a request at off cut at the end of the file. */
static size_t clamp(const struct map *m, size_t size, off_t off)
{
	if (off < 0 || (uint64_t)off >= m->size)
		return 0;
	return (uint64_t)size < m->size - (uint64_t)off ? size : (size_t)(m->size - (uint64_t)off);
}

/* A read through the stripe engine into memory of its own: degraded rows
 * rebuilt, errors reported.  0, or -EIO. */
static int read_by_engine(struct map *m, uint8_t *buf, size_t len, off_t off)
{
	struct membuf b = { buf, len, 0 };
	struct range_hold h;
	struct stripe_engine *e;
	struct diag d;
	int rc;

	hold_rows(m, &h, (uint64_t)off, len, HOLD_READS);
	e = engine_take(m);
	rc = stripe_engine_read(e, (uint64_t)off, len, copy_out, &b, &d);
	engine_give(m, e);
	rangelock_drop(&m->rows, &h);
	if (rc < 0) {
		report(m, "%s: reading %zu bytes at offset %lld: %s", m->a->members[0].path, len,
		       (long long)off, d.msg);
		atomic_store(&m->io_failed, true);
		return -EIO;
	}
	return 0;
}

/* Where [off, off + len) lies on the members (stripe_member_runs), or -1
 * where the engine must read it: a degraded row, more than SPLICE_RUNS
 * runs, or a run the test hook says fails to read (the engine meets the
 * failure and says so). */
static int plan_runs(const struct map *m, uint64_t off, size_t len, struct member_run *r)
{
	int n = stripe_member_runs(m->a, off, len, r, SPLICE_RUNS), i;

	for (i = 0; i < n; i++)
		if (r[i].member->dev.nfaults && dev_read_faults(&r[i].member->dev, r[i].pos, r[i].len))
			return -1;
	return n;
}

/* The pipe a FUSE thread hands read data over in: member pages go in by
 * reference, and libfuse splices them on to the reader, so the bytes are
 * copied once, into the reader's buffer.  Made on first use, big enough
 * for the largest request; NULL where that cannot be. */
static const int *thread_pipe(void)
{
	static __thread int fds[2] = { -1, -1 };
	static __thread bool tried;

	if (!tried) {
		tried = true;
		if (pipe2(fds, O_CLOEXEC) == 0 && fcntl(fds[1], F_SETPIPE_SZ, (int)READ_BYTES) < (int)READ_BYTES) {
			close(fds[0]);
			close(fds[1]);
			fds[0] = fds[1] = -1;
		}
	}
	return fds[0] >= 0 ? fds : NULL;
}

/* Empties the pipe of what a reply that failed half way left in it. */
static int drain_pipe(int rfd)
{
	char junk[65536];
	int left;

	while (ioctl(rfd, FIONREAD, &left) == 0 && left > 0)
		if (read(rfd, junk, sizeof(junk)) <= 0)
			return -1;
	return 0;
}

/* Splices the runs into the pipe's write end wfd; -1 on a read error or
 * a member cut short. */
static int splice_runs(int wfd, const struct member_run *r, int nruns)
{
	int i;

	for (i = 0; i < nruns; i++) {
		loff_t pos = (loff_t)r[i].pos;
		size_t left = r[i].len;

		while (left > 0) {
			ssize_t n = splice(r[i].member->dev.fd, &pos, wfd, NULL, left, 0);

			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				return -1;
			left -= (size_t)n;
		}
	}
	return 0;
}

/* Reads from the members' page cache, spliced to the reader; where that
 * cannot be (a degraded row, an unaligned request, a read error, no pipe)
 * through the engine, into memory, which reports the error. */
static int map_read_buf(const char *path, struct fuse_bufvec **bufp, size_t size, off_t off,
			struct fuse_file_info *fi)
{
	struct map *m = this_map();
	size_t len = clamp(m, size, off);
	struct fuse_bufvec *bv = malloc(sizeof(*bv));
	struct member_run runs[SPLICE_RUNS];
	const int *p = thread_pipe();
	struct range_hold h;
	uint8_t *mem;
	int n, rc;

	*bufp = NULL;
	if (!bv)
		return -ENOMEM;
	*bv = (struct fuse_bufvec)FUSE_BUFVEC_INIT(len);
	if (len == 0) {
		*bufp = bv;
		return 0;
	}
	if (p && (off | (off_t)len) % 512 == 0 && drain_pipe(p[0]) == 0 &&
	    (n = plan_runs(m, (uint64_t)off, len, runs)) > 0) {
		hold_rows(m, &h, (uint64_t)off, len, HOLD_READS);
		rc = splice_runs(p[1], runs, n);
		rangelock_drop(&m->rows, &h);
		if (rc == 0) {
			bv->buf[0].flags = FUSE_BUF_IS_FD;
			bv->buf[0].fd = p[0];
			*bufp = bv;
			return 0;
		}
		drain_pipe(p[0]);
	}
	if (!(mem = malloc(len))) {
		free(bv);
		return -ENOMEM;
	}
	if ((rc = read_by_engine(m, mem, len, off)) < 0) {
		free(mem);
		free(bv);
		return rc;
	}
	bv->buf[0].mem = mem;
	*bufp = bv;
	return 0;
}

/* Writes [off, off + len) from data (or source, when data is NULL): the
 * whole stripe rows in the middle in one call, which computes their parity
 * without reading, and the partial rows at either end on their own, so
 * that only those are read back. */
static int write_rows(struct map *m, struct stripe_engine *e, uint64_t off, uint64_t len,
		      const uint8_t *data, stripe_source source, void *ctx, struct diag *d)
{
	uint64_t u = m->lock_unit, end = off + len, lo = (off + u - 1) / u * u, hi = end / u * u;
	uint64_t cut[4] = { off, lo, hi, end }, written;
	int i;

	if (u == 1 || lo >= hi) {
		cut[1] = cut[2] = end;
	}
	for (i = 0; i < 3; i++) {
		uint64_t n = cut[i + 1] - cut[i];

		if (n && (data ? stripe_engine_write_from(e, cut[i], n, data + (cut[i] - off), &written, d)
			       : stripe_engine_write(e, cut[i], n, source, ctx, &written, d)) < 0)
			return -1;
	}
	return 0;
}

/* A write answered and queued: its bytes, and the hold on its rows that
 * it keeps until they are on the members. */
struct pending {
	struct writeq_item q;        /* first: a run of them is linked through it (cast back) */
	struct range_hold hold;
	int slot;                    /* in incoming[] while its bytes are taken in */
	size_t at;                   /* how much of data the writer has taken */
	uint8_t data[];
};
_Static_assert(offsetof(struct pending, q) == 0, "a queue item is cast back to its pending write");

/* The bytes of a run of queued writes that follow each other, in order. */
static long long copy_in_run(void *ctx, void *buf, size_t len, struct diag *d)
{
	struct pending **run = ctx;
	size_t done = 0;

	while (done < len && *run) {
		struct pending *p = *run;
		size_t n = p->q.len - p->at < len - done ? p->q.len - p->at : len - done;

		memcpy((uint8_t *)buf + done, p->data + p->at, n);
		p->at += n;
		done += n;
		if (p->at == p->q.len)
			*run = (struct pending *)p->q.next;
	}
	return (long long)done;
}

/* The spare buffers are linked through their queue item.  With mu. */
static void put_spare(struct map *m, struct pending *p)
{
	p->q.next = m->spare ? &m->spare->q : NULL;
	m->spare = p;
}

static struct pending *pop_spare(struct map *m)
{
	struct pending *p = m->spare;

	if (p)
		m->spare = (struct pending *)p->q.next;
	return p;
}

/* Writes a run of queued writes (linked by next, ending with NULL) as one,
 * then lets go of their rows. */
static void write_run(struct map *m, struct pending *first, uint64_t len)
{
	struct stripe_engine *e = engine_take(m);
	struct pending *p = first, *next;
	struct diag d;
	int rc;

	/* one write alone is written from its buffer; a run of them is
	 * gathered by copy_in_run */
	rc = write_rows(m, e, first->q.off, len, first->q.next ? NULL : first->data, copy_in_run, &p, &d);
	engine_give(m, e);
	if (rc < 0) {
		report(m, "%s: writing %llu bytes at offset %llu: %s", m->a->members[0].path,
		       (unsigned long long)len, (unsigned long long)first->q.off, d.msg);
		atomic_store(&m->write_failed, true);
	}
	pthread_mutex_lock(&m->mu);
	for (p = first; p; p = next) {
		next = (struct pending *)p->q.next;
		rangelock_drop(&m->rows, &p->hold);
		put_spare(m, p);
	}
	pthread_mutex_unlock(&m->mu);
}

/* Takes the head of the queue and every queued write that extends it at
 * either end (two halves of one request come in either order), so that
 * the rows they share are written once, whole.  With mu. */
static struct pending *take_run(struct map *m, int *n, uint64_t *len)
{
	return (struct pending *)writeq_take_run(&m->queue, MERGE_BYTES, n, len);
}

/* Whether the writer should give a write being taken in a moment to
 * arrive: the run it would write starts or ends inside a stripe row,
 * which would be read back to merge, and a write on its way starts or
 * ends right there (the halves of a large request come at once).  Never
 * while someone waits for the queue to empty.  With mu. */
static bool worth_waiting(const struct map *m)
{
	uint64_t u = m->lock_unit, lo, hi;
	int i;

	if (u == 1 || m->flushing || m->stopping || !writeq_peek_run(&m->queue, MERGE_BYTES, &lo, &hi))
		return false;
	for (i = 0; i < QUEUED_MAX; i++) {
		const struct writeq_item *w = &m->incoming[i];

		if (w->len && ((hi % u && w->off == hi) || (lo % u && w->off + w->len == lo)))
			return true;
	}
	return false;
}

/* Waits, at most MERGE_WAIT_NS, while waiting is worth it.  With mu. */
static void wait_for_neighbours(struct map *m)
{
	struct timespec until;

	clock_gettime(CLOCK_MONOTONIC, &until);
	until.tv_nsec += MERGE_WAIT_NS;
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	while (worth_waiting(m))
		if (pthread_cond_timedwait(&m->queued, &m->mu, &until) == ETIMEDOUT)
			break;
}

static void *writer_thread(void *arg)
{
	struct map *m = arg;
	struct pending *run;
	uint64_t len;
	int n;

	pthread_mutex_lock(&m->mu);
	for (;;) {
		while (!m->queue.head && !m->stopping)
			pthread_cond_wait(&m->queued, &m->mu);
		if (!m->queue.head)
			break;
		wait_for_neighbours(m);
		run = take_run(m, &n, &len);
		pthread_mutex_unlock(&m->mu);
		write_run(m, run, len);
		pthread_mutex_lock(&m->mu);
		m->inflight -= n;
		pthread_cond_broadcast(&m->drained);
	}
	pthread_mutex_unlock(&m->mu);
	return NULL;
}

/* A buffer for the write of len bytes at off, once fewer than QUEUED_MAX
 * are queued: kept from one write to the next, as fresh memory for each
 * would cost a page fault per page.  The write is listed as incoming
 * until received() or give_back(). */
static struct pending *take_spare(struct map *m, uint64_t off, size_t len)
{
	struct pending *p;
	int i;

	pthread_mutex_lock(&m->mu);
	while (m->inflight >= QUEUED_MAX || !m->spare)
		pthread_cond_wait(&m->drained, &m->mu);
	m->inflight++;
	p = pop_spare(m);
	for (i = 0; m->incoming[i].len; i++)
		;                    /* one free slot per spare taken */
	m->incoming[i] = (struct writeq_item){ .off = off, .len = len };
	*p = (struct pending){ .q = { .off = off, .len = len }, .slot = i };
	pthread_mutex_unlock(&m->mu);
	return p;
}

/* The write's bytes are in its buffer: no longer incoming.  With mu. */
static void received(struct map *m, struct pending *p)
{
	m->incoming[p->slot].len = 0;
	pthread_cond_signal(&m->queued);
}

/* QUEUED_MAX buffers of IO_BYTES, touched now rather than at the first
 * writes. */
static void make_spares(struct map *m)
{
	int i;

	for (i = 0; i < QUEUED_MAX; i++) {
		struct pending *p = dev_alloc(sizeof(*p) + IO_BYTES);

		memset(p, 0, sizeof(*p) + IO_BYTES);
		put_spare(m, p);
	}
}

static void free_spares(struct map *m)
{
	struct pending *p;

	while ((p = pop_spare(m)))
		free(p);
}

/* A buffer taken for a write that did not come. */
static void give_back(struct map *m, struct pending *p)
{
	pthread_mutex_lock(&m->mu);
	received(m, p);
	put_spare(m, p);
	m->inflight--;
	pthread_cond_broadcast(&m->drained);
	pthread_mutex_unlock(&m->mu);
}

static void enqueue(struct map *m, struct pending *p)
{
	pthread_mutex_lock(&m->mu);
	writeq_push(&m->queue, &p->q);
	pthread_cond_signal(&m->queued);
	pthread_mutex_unlock(&m->mu);
}

/* Waits until every queued write is on the members; -EIO if one failed. */
static int drain(struct map *m)
{
	pthread_mutex_lock(&m->mu);
	m->flushing++;
	pthread_cond_signal(&m->queued);     /* the writer waits no more */
	while (m->inflight > 0)
		pthread_cond_wait(&m->drained, &m->mu);
	m->flushing--;
	pthread_mutex_unlock(&m->mu);
	return atomic_load(&m->write_failed) ? -EIO : 0;
}

static void touch_mtime(struct map *m)
{
	struct timespec now;

	clock_gettime(CLOCK_REALTIME, &now);
	pthread_mutex_lock(&m->mu);
	m->mtime = now;
	pthread_mutex_unlock(&m->mu);
}

/* write(2): the bytes are taken into a write-behind buffer and the write
 * is answered; the writer thread puts them on the members.  With FUSE's
 * splice read the bytes come in a pipe that holds the writer's own pages,
 * and the read from it here is their one copy before the members'. */
static int map_write_buf(const char *path, struct fuse_bufvec *buf, off_t off, struct fuse_file_info *fi)
{
	struct map *m = this_map();
	size_t size = fuse_buf_size(buf), len = clamp(m, size, off);
	struct fuse_bufvec to;
	struct pending *p;
	ssize_t got;

	if (m->read_only)
		return -EROFS;
	if (atomic_load(&m->write_failed))
		return -EIO;
	if (len == 0)
		return size ? -ENOSPC : 0;
	if (len > IO_BYTES)          /* more than max_write: the kernel never sends it */
		return -EINVAL;
	p = take_spare(m, (uint64_t)off, len);
	to = (struct fuse_bufvec)FUSE_BUFVEC_INIT(len);
	to.buf[0].mem = p->data;
	got = fuse_buf_copy(&to, buf, 0);
	if (got != (ssize_t)len) {
		give_back(m, p);
		return got < 0 ? (int)got : -EIO;
	}
	pthread_mutex_lock(&m->mu);
	received(m, p);
	pthread_mutex_unlock(&m->mu);
	hold_rows(m, &p->hold, p->q.off, len, HOLD_WRITES);
	enqueue(m, p);
	touch_mtime(m);
	return (int)len;
}

/* Flushes every member, so that what was written is on stable storage. */
static int sync_members(struct map *m, struct diag *d)
{
	int i, rc = 0;

	for (i = 0; i < m->a->geo.raid_disks; i++)
		if (m->a->role[i] && dev_sync(&m->a->role[i]->dev, d) < 0)
			rc = -1;
	return rc;
}

static int map_fsync(const char *path, int datasync, struct fuse_file_info *fi)
{
	struct map *m = this_map();
	struct diag d;

	if (m->read_only)
		return 0;
	if (drain(m) < 0)
		return -EIO;
	if (sync_members(m, &d) < 0) {
		report(m, "%s", d.msg);
		atomic_store(&m->write_failed, true);
		return -EIO;
	}
	return 0;
}

/* ---- the file's attributes --------------------------------------------- */

static int map_getattr(const char *path, struct stat *st, struct fuse_file_info *fi)
{
	struct map *m = this_map();

	memset(st, 0, sizeof(*st));
	st->st_uid = m->uid;
	st->st_gid = m->gid;
	st->st_atim = st->st_ctim = st->st_mtim = m->mapped_at;
	if (strcmp(path, "/") == 0) {
		st->st_mode = S_IFDIR | 0755;
		st->st_nlink = 2;
		return 0;
	}
	if (strcmp(path, FILE_PATH) != 0)
		return -ENOENT;
	st->st_mode = S_IFREG | (m->read_only ? 0444 : 0644);
	st->st_nlink = 1;
	st->st_size = (off_t)m->size;
	st->st_blocks = (blkcnt_t)(m->size / 512);
	st->st_blksize = (blksize_t)m->blksize;
	pthread_mutex_lock(&m->mu);
	st->st_mtim = st->st_ctim = m->mtime;
	pthread_mutex_unlock(&m->mu);
	return 0;
}

static int map_readdir(const char *path, void *buf, fuse_fill_dir_t fill, off_t off,
		       struct fuse_file_info *fi, enum fuse_readdir_flags flags)
{
	if (strcmp(path, "/") != 0)
		return -ENOTDIR;
	fill(buf, ".", NULL, 0, 0);
	fill(buf, "..", NULL, 0, 0);
	fill(buf, FILE_NAME, NULL, 0, 0);
	return 0;
}

static int map_open(const char *path, struct fuse_file_info *fi)
{
	struct map *m = this_map();

	if (strcmp(path, FILE_PATH) != 0)
		return strcmp(path, "/") == 0 ? -EISDIR : -ENOENT;
	if (m->read_only && (fi->flags & O_ACCMODE) != O_RDONLY)
		return -EROFS;
	/* Not FUSE's direct_io: with it the kernel sends an O_DIRECT request
	 * in one piece after another; without it, in READ_BYTES pieces at
	 * once (async DIO), served side by side by the FUSE threads.  The
	 * page cache the kernel then keeps of the file holds only what went
	 * through this map (writes go straight on: no writeback cache). */
	fi->direct_io = 0;
	atomic_fetch_add(&m->opens, 1);
	return 0;
}

/* close(2): what was written through this file is on the members, or the
 * error that kept it off them is reported. */
static int map_flush(const char *path, struct fuse_file_info *fi)
{
	return drain(this_map());
}

static int map_release(const char *path, struct fuse_file_info *fi)
{
	atomic_fetch_sub(&this_map()->opens, 1);
	return 0;
}

/* The array's size is fixed: only a "change" to the same size succeeds
 * (as for a block device, whose size truncate cannot change either). */
static int map_truncate(const char *path, off_t size, struct fuse_file_info *fi)
{
	struct map *m = this_map();

	if (m->read_only)
		return -EROFS;
	return (uint64_t)size == m->size ? 0 : -EPERM;
}

static int map_utimens(const char *path, const struct timespec tv[2], struct fuse_file_info *fi)
{
	struct map *m = this_map();
	struct timespec now;

	if (m->read_only)
		return -EROFS;
	clock_gettime(CLOCK_REALTIME, &now);
	pthread_mutex_lock(&m->mu);
	if (tv[1].tv_nsec == UTIME_NOW)
		m->mtime = now;
	else if (tv[1].tv_nsec != UTIME_OMIT)
		m->mtime = tv[1];
	pthread_mutex_unlock(&m->mu);
	return 0;
}

static int map_chmod(const char *path, mode_t mode, struct fuse_file_info *fi)
{
	return -EPERM;
}

static int map_chown(const char *path, uid_t uid, gid_t gid, struct fuse_file_info *fi)
{
	return -EPERM;
}

static int map_statfs(const char *path, struct statvfs *sv)
{
	struct map *m = this_map();

	memset(sv, 0, sizeof(*sv));
	sv->f_bsize = sv->f_frsize = 4096;
	sv->f_blocks = m->size / 4096;
	sv->f_files = 1;
	sv->f_namemax = 255;
	return 0;
}

static void *map_init(struct fuse_conn_info *conn, struct fuse_config *cfg)
{
	struct map *m = this_map();

	conn->max_write = IO_BYTES;
	/* replies spliced from map_read_buf's pipe, holding the members' pages */
	map_fuse_reads(conn);
	/* writes handed over in a pipe holding the writer's pages: libfuse
	 * takes a request plus its header into a pipe of at most 1 MiB
	 * (fs.pipe-max-size), hence writes of at most 512 KiB */
	if (conn->capable & FUSE_CAP_SPLICE_READ)
		conn->want |= FUSE_CAP_SPLICE_READ;
	conn->want &= ~(unsigned)FUSE_CAP_WRITEBACK_CACHE;
	cfg->direct_io = 0;
	cfg->kernel_cache = 0;
	cfg->use_ino = 0;
	cfg->nullpath_ok = 0;
	/* one file whose attributes only this process changes */
	cfg->attr_timeout = cfg->entry_timeout = 1.0;
	return m;
}

static const struct fuse_operations map_ops = {
	.init = map_init,
	.getattr = map_getattr,
	.readdir = map_readdir,
	.open = map_open,
	.read_buf = map_read_buf,
	.write_buf = map_write_buf,
	.fsync = map_fsync,
	.flush = map_flush,
	.release = map_release,
	.truncate = map_truncate,
	.utimens = map_utimens,
	.chmod = map_chmod,
	.chown = map_chown,
	.statfs = map_statfs,
};

/* ---- unmapping on a signal --------------------------------------------- */

/* Interrupts the FUSE loop's wait; it then sees the session has ended. */
static void wake_loop(int sig)
{
	(void)sig;
}

/* Detaches the mount (lazily: a loop device or a process that still has
 * the file open keeps being served until it closes it); FUSE's loop ends
 * by itself when the last user is gone. */
static void detach(struct map *m)
{
	char *argv[] = { "fusermount3", "-u", "-z", "-q", "--", m->mountpoint, NULL };
	pid_t pid;
	int status;

	if (umount2(m->mountpoint, MNT_DETACH) < 0 && errno == EPERM &&
	    posix_spawnp(&pid, argv[0], NULL, NULL, argv, environ) == 0)
		waitpid(pid, &status, 0);
	if (atomic_load(&m->opens) > 0)
		report(m, "%s: unmounted; %s/" FILE_NAME " is still open, and is served until it is closed "
		       "(a second signal stops at once)", m->mountpoint, m->mountpoint);
}

/* The first SIGTERM, SIGINT or SIGHUP unmaps; a second one ends the
 * service at once.  SIGUSR1 from the main thread ends this thread. */
static void *signal_thread(void *p)
{
	struct map *m = p;
	int sig, seen = 0;

	for (;;) {
		if (sigwait(&m->sigs, &sig) != 0)
			continue;
		if (sig == SIGUSR1)
			return NULL;
		if (seen++ == 0) {
			detach(m);
			continue;
		}
		report(m, "%s: stopping at once on a second signal", m->mountpoint);
		fuse_exit(m->fuse);
		pthread_kill(m->loop_thread, SIGUSR2);
	}
}

/* Blocks the unmapping signals in every thread (the signal thread waits
 * for them) and lets SIGUSR2 interrupt the loop's wait. */
static void setup_signals(struct map *m)
{
	struct sigaction sa = { .sa_handler = wake_loop };

	sigemptyset(&m->sigs);
	sigaddset(&m->sigs, SIGTERM);
	sigaddset(&m->sigs, SIGINT);
	sigaddset(&m->sigs, SIGHUP);
	sigaddset(&m->sigs, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &m->sigs, NULL);
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR2, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

/* ---- setting up ---------------------------------------------------------- */

static int parse_args(int argc, char **argv, struct options *o)
{
	static const struct option opts[] = {
		{ "read-only", no_argument, NULL, 'r' },
		{ "foreground", no_argument, NULL, 'f' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "rfqvhV", opts, NULL)) != -1) {
		switch (c) {
		case 'r': o->read_only = true; break;
		case 'f': o->foreground = true; break;
		case 'q': o->quiet = true; break;
		case 'v': o->verbose = true; break;
		case 'h': usage(stdout); exit(EXIT_OK);
		case 'V': cli_version(TOOL); exit(EXIT_OK);
		default: usage(stderr); return -1;
		}
	}
	if (argc - optind < 2) {
		fprintf(stderr, TOOL ": %s\n", optind >= argc ? "no members given, and no mountpoint"
							      : "no mountpoint given after the members");
		usage(stderr);
		return -1;
	}
	o->members = argv + optind;
	o->nmembers = argc - optind - 1;
	o->mountpoint = argv[argc - 1];
	return 0;
}

static int check_mountpoint(const char *path, char *abs)
{
	struct stat st;

	if (stat(path, &st) < 0) {
		fprintf(stderr, TOOL ": %s: mountpoint: %s\n", path, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		fprintf(stderr, TOOL ": %s: mountpoint is not a directory\n", path);
		return -1;
	}
	if (!realpath(path, abs)) {
		fprintf(stderr, TOOL ": %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

static int open_array(struct array *a, const struct options *o)
{
	struct cli_members given = {
		.tool = TOOL, .paths = o->members, .n = o->nmembers, .readable = true,
		.aopt.mode = o->read_only ? DEV_READ : DEV_WRITE,
		.say = o->verbose ? CLI_SAY_ROLES : o->quiet ? CLI_SAY_NOTHING : CLI_SAY_LEFT_OUT,
	};

	return cli_open_array(a, &given);
}

/* A member's read error the engine read around: the reader got the right
 * bytes, but the disk is failing, which the exit status says too. */
static void note_mended(void *ctx, const struct member *mb, uint64_t offset, size_t len)
{
	struct map *m = ctx;

	report(m, "%s: read error at bytes %llu-%llu; rebuilt from the other members", mb->path,
	       (unsigned long long)offset, (unsigned long long)(offset + len - 1));
	atomic_store(&m->io_failed, true);
}

static void map_setup(struct map *m, struct array *a, const struct options *o)
{
	const struct geometry *g = &a->geo;
	uint64_t min_io;

	m->a = a;
	a->read_mended = note_mended;
	a->read_mended_ctx = m;
	m->read_only = o->read_only;
	m->size = g->array_sectors * 512;
	m->lock_unit = 1;
	if (layout_has_parity(g->level))
		m->lock_unit = (uint64_t)g->chunk_sectors * 512 * (uint64_t)g->data_disks;
	geometry_io_hints(g, &min_io, &m->blksize);
	if (m->blksize < 4096)
		m->blksize = 4096;
	rangelock_init(&m->rows);
	pthread_mutex_init(&m->mu, NULL);
	pthread_cond_init(&m->engine_freed, NULL);
	{
		pthread_condattr_t ca;       /* the writer's timed wait: a clock that never steps */

		pthread_condattr_init(&ca);
		pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
		pthread_cond_init(&m->queued, &ca);
		pthread_condattr_destroy(&ca);
	}
	pthread_cond_init(&m->drained, NULL);
	m->uid = getuid();
	m->gid = getgid();
	clock_gettime(CLOCK_REALTIME, &m->mapped_at);
	m->mtime = m->mapped_at;
	atomic_init(&m->opens, 0);
	atomic_init(&m->io_failed, false);
	atomic_init(&m->write_failed, false);
}

/* The FUSE handle, mounted: the file system is named after the array. */
static struct fuse *mount_map(struct map *m)
{
	char uuid[36], opts[256];
	char *argv[] = { TOOL, "-o", opts, NULL };
	struct fuse_args args = FUSE_ARGS_INIT(3, argv);
	struct fuse *f;

	super_uuid_str(m->a->ref->uuid, uuid);
	snprintf(opts, sizeof(opts), "fsname=stripe:%.36s,subtype=stripe,max_read=%u%s", uuid, READ_BYTES,
		 m->read_only ? ",ro" : "");
	f = fuse_new(&args, &map_ops, sizeof(map_ops), m);
	fuse_opt_free_args(&args);
	if (!f) {
		fprintf(stderr, TOOL ": %s: cannot set up FUSE\n", m->mountpoint);
		return NULL;
	}
	if (fuse_mount(f, m->mountpoint) != 0) {
		fprintf(stderr, TOOL ": %s: cannot mount (is /dev/fuse there, fuse3 installed?)\n",
			m->mountpoint);
		fuse_destroy(f);
		return NULL;
	}
	return f;
}

/* The threads behind the FUSE loop: an engine per request served at once
 * and the writer that empties the write queue.  Returns whether the
 * writer started. */
static bool start_workers(struct map *m)
{
	int i;

	for (i = 0; i < ENGINES; i++)
		stripe_engine_start(&m->engine[i], m->a);
	if (!m->read_only)
		make_spares(m);
	return pthread_create(&m->writer, NULL, writer_thread, m) == 0;
}

/* Puts every queued write on the members, then ends the writer (when it
 * started) and the engines. */
static void stop_workers(struct map *m, bool writer)
{
	int i;

	if (writer)
		drain(m);
	pthread_mutex_lock(&m->mu);
	m->stopping = true;
	pthread_cond_broadcast(&m->queued);
	pthread_mutex_unlock(&m->mu);
	if (writer)
		pthread_join(m->writer, NULL);
	for (i = 0; i < ENGINES; i++)
		stripe_engine_stop(&m->engine[i]);
	free_spares(m);
}

/* Serves requests until the mount goes away (or a second signal). */
static int serve(struct map *m)
{
	struct fuse_loop_config *cfg;
	pthread_t sig_th;
	int rc;

	m->loop_thread = pthread_self();
	if (!start_workers(m)) {
		report(m, "%s: cannot start the writer thread", m->mountpoint);
		stop_workers(m, false);
		return -1;
	}
	if (pthread_create(&sig_th, NULL, signal_thread, m) != 0) {
		report(m, "%s: cannot start the signal thread", m->mountpoint);
		stop_workers(m, true);
		return -1;
	}
	cfg = fuse_loop_cfg_create();
	fuse_loop_cfg_set_max_threads(cfg, 16);
	rc = fuse_loop_mt(m->fuse, cfg);
	fuse_loop_cfg_destroy(cfg);
	stop_workers(m, true);
	pthread_kill(sig_th, SIGUSR1);
	pthread_join(sig_th, NULL);
	if (rc != 0)
		report(m, "%s: the FUSE service failed (%d)", m->mountpoint, rc);
	return rc != 0 ? -1 : 0;
}

/* After the service: every write flushed, and the array marked clean
 * unless a write failed (then md and stripe-check look at it) or it needed
 * a resync already. */
static int finish(struct map *m, bool was_clean)
{
	struct diag d;
	int rc = 0;

	if (m->read_only)
		return atomic_load(&m->io_failed) ? -1 : 0;
	if (sync_members(m, &d) < 0) {
		report(m, "%s", d.msg);
		return -1;
	}
	if (atomic_load(&m->write_failed)) {
		report(m, "%s: a write failed while mapped: the array is left marked dirty",
		       m->a->members[0].path);
		return -1;
	}
	if (was_clean && array_mark(m->a, true, &d) < 0) {
		report(m, "%s", d.msg);
		rc = -1;
	}
	return atomic_load(&m->io_failed) ? -1 : rc;
}

/* Every request allocates the engine's stripe buffers and its copy of a
 * write afresh: keep them in the heap (one arena for all threads), and
 * keep freed heap, so that a request reuses the pages the last one touched
 * instead of faulting in newly mapped ones. */
static void tune_malloc(void)
{
	mallopt(M_MMAP_THRESHOLD, 64 << 20);
	mallopt(M_TRIM_THRESHOLD, 256 << 20);
	mallopt(M_ARENA_MAX, 1);
}

int main(int argc, char **argv)
{
	struct options o = { 0 };
	struct map m = { 0 };
	struct array a;
	struct diag d;
	bool was_clean;
	int rc;

	tune_malloc();
	if (parse_args(argc, argv, &o) < 0 || check_mountpoint(o.mountpoint, m.mountpoint) < 0)
		return EXIT_ERROR;
	if (open_array(&a, &o) < 0)
		return EXIT_ERROR;
	map_setup(&m, &a, &o);
	/* from the mount on, a SIGTERM waits for the signal thread, so that
	 * it unmaps and marks the array clean */
	setup_signals(&m);
	m.fuse = mount_map(&m);
	if (!m.fuse) {
		array_close(&a);
		return EXIT_ERROR;
	}
	was_clean = !a.dirty;
	if (!o.read_only && array_mark(&a, false, &d) < 0) {
		fprintf(stderr, TOOL ": %s\n", d.msg);
		fuse_unmount(m.fuse);
		fuse_destroy(m.fuse);
		array_close(&a);
		return EXIT_ERROR;
	}
	if (o.verbose)
		fprintf(stderr, TOOL ": %s/" FILE_NAME ": %llu bytes of a %s array, %s\n", m.mountpoint,
			(unsigned long long)m.size, level_name(a.geo.level), o.read_only ? "read-only" : "read-write");
	if (!o.foreground) {
		openlog(TOOL, LOG_PID, LOG_DAEMON);
		m.use_syslog = true;
		fuse_daemonize(0);
	}
	rc = serve(&m);
	fuse_unmount(m.fuse);
	fuse_destroy(m.fuse);
	if (finish(&m, was_clean) < 0)
		rc = -1;
	rangelock_destroy(&m.rows);
	pthread_cond_destroy(&m.engine_freed);
	pthread_cond_destroy(&m.queued);
	pthread_cond_destroy(&m.drained);
	pthread_mutex_destroy(&m.mu);
	array_close(&a);
	return rc < 0 ? EXIT_ERROR : EXIT_OK;
}
