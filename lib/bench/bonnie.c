/* bonnie: Bonnie's I/O tests on a file or a block device, with bonnie++'s
 * semantics: per-character write and read (1-byte write()/read(), or stdio
 * as the original Bonnie), block write, rewrite, block read, random seeks. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/bench.h"
#include "bench/benchseek.h"
#include "io/dev.h"

static int interrupted(struct diag *d)
{
	return diag_fail(d, "interrupted");
}

static int open_file(const struct bench_target *t, bool create, bool direct, struct diag *d)
{
	int flags = O_RDWR | O_CLOEXEC, fd;

	if (create && t->kind == BENCH_DIR)
		flags |= O_CREAT | O_TRUNC;
	if (direct)
		flags |= O_DIRECT;
	fd = open(t->file, flags, 0600);
	if (fd < 0)
		return diag_fail(d, "%s: cannot open for %s: %s", t->file, direct ? "direct I/O" : "reading and writing",
				 strerror(errno));
	return fd;
}

/* write() until len bytes are out; a short count is retried, an error named. */
static int write_all(int fd, const char *name, const void *buf, size_t len, uint64_t off, struct diag *d)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = write(fd, (const char *)buf + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return diag_fail(d, "%s: write error at byte %llu: %s", name, (unsigned long long)(off + done),
					 n < 0 ? strerror(errno) : "no progress (disk full?)");
		done += (size_t)n;
	}
	return 0;
}

static int read_all(int fd, const char *name, void *buf, size_t len, uint64_t off, struct diag *d)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = read(fd, (char *)buf + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return diag_fail(d, "%s: read error at byte %llu: %s", name, (unsigned long long)(off + done),
					 strerror(errno));
		if (n == 0)
			return diag_fail(d, "%s: unexpected end of file at byte %llu", name,
					 (unsigned long long)(off + done));
		done += (size_t)n;
	}
	return 0;
}

/* fsync and close, as bonnie++ does before it stops a write test's clock. */
static int sync_close(int fd, const char *name, bool sync, struct diag *d)
{
	int rc = 0;

	if (sync && fsync(fd) < 0 && errno != EINVAL)
		rc = diag_fail(d, "%s: fsync failed: %s", name, strerror(errno));
	if (close(fd) < 0 && rc == 0)
		rc = diag_fail(d, "%s: close failed: %s", name, strerror(errno));
	return rc;
}

static void note(const struct bench_target *t, enum bench_test test)
{
	if (t->note)
		t->note(t->note_ctx, bench_test_names[test].what);
}

/* Per-character output: char_size bytes one write() (or putc) each; the
 * latency is that of each chunk's worth of bytes, as bonnie++ counts it. */
static int putc_test(const struct bench_params *p, struct bench_target *t, struct bench_figure *f, struct diag *d)
{
	struct bench_clock c;
	uint64_t i, op_start;
	FILE *fp = NULL;
	int fd, rc = 0;

	note(t, BT_PUTC);
	if ((fd = open_file(t, true, false, d)) < 0)
		return -1;
	if (p->stdio && !(fp = fdopen(fd, "w"))) {
		close(fd);
		return diag_fail(d, "%s: fdopen: %s", t->file, strerror(errno));
	}
	bench_clock_start(&c);
	op_start = c.wall_ns;
	for (i = 0; rc == 0 && i < p->char_size; i++) {
		char ch = (char)(i & 0x7f);

		if (fp) {
			if (putc(ch, fp) == EOF)
				rc = diag_fail(d, "%s: putc failed at byte %llu: %s", t->file, (unsigned long long)i,
					       strerror(errno));
		} else {
			rc = write_all(fd, t->file, &ch, 1, i, d);
		}
		if ((i + 1) % p->chunk == 0 || i + 1 == p->char_size) {
			uint64_t now = bench_now_ns();

			bench_op(f, now - op_start);
			op_start = now;
			if (bench_stopped(t))
				rc = interrupted(d);
		}
	}
	if (fp) {
		if (fflush(fp) == EOF && rc == 0)
			rc = diag_fail(d, "%s: write error: %s", t->file, strerror(errno));
		if (fsync(fd) < 0 && errno != EINVAL && rc == 0)
			rc = diag_fail(d, "%s: fsync failed: %s", t->file, strerror(errno));
		if (fclose(fp) == EOF && rc == 0)
			rc = diag_fail(d, "%s: close failed: %s", t->file, strerror(errno));
	} else if (sync_close(fd, t->file, true, rc ? NULL : d) < 0) {
		rc = -1;
	}
	bench_clock_stop(&c, f);
	f->bytes = p->char_size;
	f->ops = p->char_size;
	return rc;
}

static int getc_test(const struct bench_params *p, struct bench_target *t, struct bench_figure *f, struct diag *d)
{
	struct bench_clock c;
	uint64_t i, op_start;
	FILE *fp = NULL;
	int fd, rc = 0;

	note(t, BT_GETC);
	if ((fd = open_file(t, false, false, d)) < 0)
		return -1;
	if (p->stdio && !(fp = fdopen(fd, "r"))) {
		close(fd);
		return diag_fail(d, "%s: fdopen: %s", t->file, strerror(errno));
	}
	bench_clock_start(&c);
	op_start = c.wall_ns;
	for (i = 0; rc == 0 && i < p->char_size; i++) {
		unsigned char ch;

		if (fp) {
			if (getc(fp) == EOF)
				rc = diag_fail(d, "%s: getc: %s at byte %llu", t->file,
					       ferror(fp) ? strerror(errno) : "end of file", (unsigned long long)i);
		} else {
			rc = read_all(fd, t->file, &ch, 1, i, d);
		}
		if ((i + 1) % p->chunk == 0 || i + 1 == p->char_size) {
			uint64_t now = bench_now_ns();

			bench_op(f, now - op_start);
			op_start = now;
			if (bench_stopped(t))
				rc = interrupted(d);
		}
	}
	if (fp)
		fclose(fp);
	else
		close(fd);
	bench_clock_stop(&c, f);
	f->bytes = p->char_size;
	f->ops = p->char_size;
	return rc;
}

/* One chunk of a block test at byte off of the open file. */
typedef int (*block_step)(const struct bench_params *p, int fd, const char *file, void *buf,
			  uint64_t off, struct diag *d);

static int fsync_if_asked(const struct bench_params *p, int fd, const char *file, struct diag *d)
{
	if (p->fsync && fsync(fd) < 0)
		return diag_fail(d, "%s: fsync failed: %s", file, strerror(errno));
	return 0;
}

/* Block output: chunk-sized write()s. */
static int write_step(const struct bench_params *p, int fd, const char *file, void *buf, uint64_t off,
		      struct diag *d)
{
	bench_stamp(buf, p->chunk, off, p->seed);
	if (write_all(fd, file, buf, p->chunk, off, d) < 0)
		return -1;
	return fsync_if_asked(p, fd, file, d);
}

/* Rewrite: read a chunk, dirty a byte, seek back, write it. */
static int rewrite_step(const struct bench_params *p, int fd, const char *file, void *buf, uint64_t off,
			struct diag *d)
{
	if (read_all(fd, file, buf, p->chunk, off, d) < 0)
		return -1;
	((char *)buf)[off / p->chunk % p->chunk]++;
	if (lseek(fd, -(off_t)p->chunk, SEEK_CUR) < 0)
		return diag_fail(d, "%s: lseek back to byte %llu: %s", file, (unsigned long long)off,
				 strerror(errno));
	return write_step(p, fd, file, buf, off, d);
}

static int read_step(const struct bench_params *p, int fd, const char *file, void *buf, uint64_t off,
		     struct diag *d)
{
	return read_all(fd, file, buf, p->chunk, off, d);
}

/* A block test: size bytes a chunk at a time, each step timed; writing
 * tests end with fsync and close inside the clock, as bonnie++ does. */
static int block_test(const struct bench_params *p, struct bench_target *t, void *buf, struct bench_figure *f,
		      enum bench_test kind, block_step step, struct diag *d)
{
	bool writes = kind != BT_READ;
	struct bench_clock c;
	uint64_t off;
	int fd, rc = 0;

	note(t, kind);
	if ((fd = open_file(t, kind == BT_WRITE, p->direct, d)) < 0)
		return -1;
	bench_clock_start(&c);
	for (off = 0; rc == 0 && off < p->size; off += p->chunk) {
		uint64_t s = bench_now_ns();

		rc = step(p, fd, t->file, buf, off, d);
		bench_op(f, bench_now_ns() - s);
		f->ops++;
		if (rc == 0 && bench_stopped(t))
			rc = interrupted(d);
	}
	if (!writes)
		close(fd);
	else if (sync_close(fd, t->file, true, rc ? NULL : d) < 0)
		rc = -1;
	bench_clock_stop(&c, f);
	f->bytes = p->size;
	return rc;
}

static int fd_read_chunk(struct seeker *s, void *buf, uint64_t off, struct diag *d)
{
	if (lseek(s->fd, (off_t)off, SEEK_SET) < 0)
		return diag_fail(d, "%s: lseek to byte %llu: %s", s->t->file, (unsigned long long)off, strerror(errno));
	return read_all(s->fd, s->t->file, buf, s->p->chunk, off, d);
}

static int fd_write_chunk(struct seeker *s, const void *buf, uint64_t off, struct diag *d)
{
	if (lseek(s->fd, (off_t)off, SEEK_SET) < 0)
		return diag_fail(d, "%s: lseek to byte %llu: %s", s->t->file, (unsigned long long)off, strerror(errno));
	if (write_all(s->fd, s->t->file, buf, s->p->chunk, off, d) < 0)
		return -1;
	return fsync_if_asked(s->p, s->fd, s->t->file, d);
}

static int fd_finish(struct seeker *s, struct diag *d)
{
	if (fsync(s->fd) < 0 && errno != EINVAL)
		return diag_fail(d, "%s: fsync failed: %s", s->t->file, strerror(errno));
	return 0;
}

static int open_fd_seeker(struct seeker *s, struct diag *d)
{
	s->fd = open_file(s->t, false, s->p->direct, d);
	s->read_chunk = fd_read_chunk;
	s->write_chunk = fd_write_chunk;
	s->finish = fd_finish;
	return s->fd < 0 ? -1 : 0;
}

/* Before a reading test with --drop-cache (O_DIRECT has no cache to drop). */
static int drop_file_cache(const struct bench_params *p, const struct bench_target *t, struct diag *d)
{
	int fd, rc;

	if (!p->drop_cache || p->direct)
		return 0;
	fd = open(t->file, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return diag_fail(d, "%s: cannot open for reading: %s", t->file, strerror(errno));
	rc = bench_drop_cache(fd, t->file, d);
	close(fd);
	return rc;
}

int bonnie_io_tests(const struct bench_params *p, struct bench_target *t, struct bench_results *r,
		    struct diag *d)
{
	void *buf = bench_buffer(p, p->chunk, d);
	bool per_char = p->char_size && !p->direct;
	int rc = 0;

	if (!buf)
		return -1;
	bench_fill(buf, p->chunk, p->seed);
	if (per_char)
		rc = putc_test(p, t, &r->fig[BT_PUTC], d);
	if (rc == 0)
		rc = block_test(p, t, buf, &r->fig[BT_WRITE], BT_WRITE, write_step, d);
	if (rc == 0 && (rc = drop_file_cache(p, t, d)) == 0)
		rc = block_test(p, t, buf, &r->fig[BT_REWRITE], BT_REWRITE, rewrite_step, d);
	if (rc == 0 && per_char && (rc = drop_file_cache(p, t, d)) == 0)
		rc = getc_test(p, t, &r->fig[BT_GETC], d);
	if (rc == 0 && (rc = drop_file_cache(p, t, d)) == 0)
		rc = block_test(p, t, buf, &r->fig[BT_READ], BT_READ, read_step, d);
	if (rc == 0 && p->seeks && (rc = drop_file_cache(p, t, d)) == 0)
		rc = bench_seeks(p, t, &r->fig[BT_SEEKS], open_fd_seeker, d);
	free(buf);
	return rc;
}
