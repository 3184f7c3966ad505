/* benchtarget: where stripe-bench puts its bytes: a directory of its own
 * inside the target directory (removed at the end, whatever happens), or
 * the file or block device given; the free-space check before a run. */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <libgen.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "bench/bench.h"

int bench_target_open(struct bench_target *t, const char *path, struct diag *d)
{
	struct stat st;

	t->path = path;
	t->tmpdir = NULL;
	t->file = NULL;
	if (stat(path, &st) < 0)
		return diag_fail(d, "%s: %s", path, strerror(errno));
	if (S_ISDIR(st.st_mode)) {
		t->kind = BENCH_DIR;
		if (asprintf(&t->tmpdir, "%s/stripe-bench.XXXXXX", path) < 0) {
			t->tmpdir = NULL;
			return diag_fail(d, "out of memory");
		}
		if (!mkdtemp(t->tmpdir)) {
			int e = errno;

			free(t->tmpdir);
			t->tmpdir = NULL;
			return diag_fail(d, "%s: not writable, cannot make a directory for the test files there: %s",
					 path, strerror(e));
		}
		if (asprintf(&t->file, "%s/Bonnie.%d", t->tmpdir, (int)getpid()) < 0) {
			t->file = NULL;
			return diag_fail(d, "out of memory");
		}
		return 0;
	}
	if (!S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode))
		return diag_fail(d, "%s: neither a directory, a regular file nor a block device", path);
	t->kind = S_ISBLK(st.st_mode) ? BENCH_DEVICE : BENCH_FILE;
	if (access(path, R_OK) < 0)
		return diag_fail(d, "%s: not readable: %s", path, strerror(errno));
	t->file = strdup(path);
	return t->file ? 0 : diag_fail(d, "out of memory");
}

int bench_target_size(const struct bench_target *t, uint64_t *size, struct diag *d)
{
	struct stat st;
	int fd;

	if (t->kind != BENCH_DEVICE) {
		if (stat(t->file, &st) < 0)
			return diag_fail(d, "%s: %s", t->file, strerror(errno));
		*size = (uint64_t)st.st_size;
		return 0;
	}
	fd = open(t->file, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return diag_fail(d, "%s: %s", t->file, strerror(errno));
	if (ioctl(fd, BLKGETSIZE64, size) < 0) {
		close(fd);
		return diag_fail(d, "%s: cannot read the device size: %s", t->file, strerror(errno));
	}
	close(fd);
	return 0;
}

/* The first byte that is not zero among len at off: its offset in *at, or
 * -1 there when all are zero. */
static int first_data(int fd, const char *name, uint8_t *buf, size_t len, uint64_t off, int64_t *at,
		      struct diag *d)
{
	ssize_t n = pread(fd, buf, len, (off_t)off);
	ssize_t i;

	*at = -1;
	if (n < 0)
		return diag_fail(d, "%s: read error at byte %llu: %s", name, (unsigned long long)off,
				 strerror(errno));
	for (i = 0; i < n && *at < 0; i++)
		if (buf[i])
			*at = (int64_t)(off + (uint64_t)i);
	return 0;
}

int bench_target_data_at(const struct bench_target *t, uint64_t *where, struct diag *d)
{
	const size_t span = 1u << 20;
	uint64_t size, off[2];
	uint8_t *buf;
	int64_t at = -1;
	int fd, i, rc = 0;

	if (bench_target_size(t, &size, d) < 0)
		return -1;
	fd = open(t->file, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return diag_fail(d, "%s: %s", t->file, strerror(errno));
	buf = malloc(span);
	if (!buf)
		rc = diag_fail(d, "out of memory");
	off[0] = 0;
	off[1] = size > span ? size - span : 0;
	for (i = 0; rc == 0 && i < 2 && at < 0; i++)
		rc = first_data(fd, t->file, buf, span, off[i], &at, d);
	free(buf);
	close(fd);
	if (rc < 0)
		return -1;
	if (at >= 0)
		*where = (uint64_t)at;
	return at >= 0;
}

int bench_target_check_space(const struct bench_target *t, uint64_t need, struct diag *d)
{
	struct statvfs sv;
	char *copy, *where;
	uint64_t avail;
	int rc = 0;

	if (t->kind == BENCH_DEVICE || t->kind == BENCH_ARRAY || need == 0)
		return 0;
	copy = strdup(t->kind == BENCH_DIR ? t->tmpdir : t->file);
	if (!copy)
		return diag_fail(d, "out of memory");
	where = t->kind == BENCH_DIR ? copy : dirname(copy);
	if (statvfs(where, &sv) < 0) {
		rc = diag_fail(d, "%s: cannot tell the free space: %s", t->path, strerror(errno));
	} else {
		avail = (uint64_t)sv.f_bavail * sv.f_frsize;
		if (avail < need)
			rc = diag_fail(d, "%s: %llu bytes free, the tests need %llu (see --size)", t->path,
				       (unsigned long long)avail, (unsigned long long)need);
	}
	free(copy);
	return rc;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

void bench_target_cleanup(struct bench_target *t)
{
	if (t->tmpdir) {
		nftw(t->tmpdir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
		free(t->tmpdir);
		t->tmpdir = NULL;
	}
	free(t->file);
	t->file = NULL;
}

int bench_drop_cache(int fd, const char *name, struct diag *d)
{
	int err = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);

	if (err)
		return diag_fail(d, "%s: cannot drop its pages from the page cache: %s", name, strerror(err));
	return 0;
}
