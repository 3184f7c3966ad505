/* dev: member I/O on regular files and block devices (size via BLKGETSIZE64). */
#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <linux/fs.h>
#include <linux/loop.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "io/dev.h"

static int dev_size(struct dev *dv, const struct stat *st, struct diag *d)
{
	if (!dv->is_blockdev) {
		dv->size = (uint64_t)st->st_size;
		return 0;
	}
	if (ioctl(dv->fd, BLKGETSIZE64, &dv->size) < 0)
		return diag_fail(d, "%s: cannot read the device size: %s", dv->path, strerror(errno));
	return 0;
}

int dev_sysfs_line(const char *file, char *buf, size_t len)
{
	FILE *f = fopen(file, "re");
	bool got;

	if (!f)
		return -1;
	got = fgets(buf, (int)len, f) != NULL;
	fclose(f);
	if (!got)
		return -1;
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

int dev_loop_backing(int fd, dev_t devno, char *path, size_t len, struct dev_id *id)
{
	struct loop_info64 info;
	char file[96];

	snprintf(file, sizeof(file), "/sys/dev/block/%u:%u/loop/backing_file", major(devno), minor(devno));
	if (dev_sysfs_line(file, path, len) < 0)
		return -1;
	/* The kernel's own record of the inode holds where the sysfs path
	 * was spelt in another mount namespace or the file was renamed. */
	if (ioctl(fd, LOOP_GET_STATUS64, &info) < 0)
		return -1;
	*id = (struct dev_id){ (dev_t)info.lo_device, (ino_t)info.lo_inode };
	return 0;
}

int dev_identify(const char *path, struct dev_id *id)
{
	char backing[4096];
	struct stat st;

	if (stat(path, &st) < 0)
		return -1;
	if (S_ISBLK(st.st_mode)) {
		int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
		bool loop = fd >= 0 && dev_loop_backing(fd, st.st_rdev, backing, sizeof(backing), id) == 0;

		if (fd >= 0)
			close(fd);
		if (!loop)
			*id = (struct dev_id){ st.st_rdev, 0 };
		return 0;
	}
	*id = (struct dev_id){ st.st_dev, st.st_ino };
	return 0;
}

bool dev_id_same(const struct dev_id *a, const struct dev_id *b)
{
	return a->dev == b->dev && a->ino == b->ino;
}

static int lock_file(int fd, const char *path, struct diag *d)
{
	if (flock(fd, LOCK_EX | LOCK_NB) < 0)
		return diag_fail(d, "%s: in use by another writer (flock: %s)", path, strerror(errno));
	return 0;
}

/* A loop device is one member with the file behind it: the writer holds
 * that file's flock too, so a writer of the file is kept out, and one of
 * the file keeps this one out.  The file is found by the kernel's path
 * and trusted only when its inode is the one the loop device reads. */
static int hold_backing_file(struct dev *dv, const struct stat *st, struct diag *d)
{
	char backing[4096];
	struct dev_id id;
	struct stat bst;
	int fd;

	if (dev_loop_backing(dv->fd, st->st_rdev, backing, sizeof(backing), &id) < 0)
		return 0;
	fd = open(backing, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return 0;
	if (fstat(fd, &bst) < 0 || bst.st_dev != id.dev || bst.st_ino != id.ino) {
		close(fd);
		return 0;
	}
	dv->hold_fd = fd;
	dv->holds_backing = true;
	return lock_file(fd, dv->path, d);
}

static int dev_hold(struct dev *dv, const struct stat *st, struct diag *d)
{
	/* Block devices get O_EXCL at open (a loop device the lock of its
	 * file as well); a plain file gets an advisory lock so two stripe
	 * writers never work on one image at once. */
	if (dv->is_blockdev)
		return hold_backing_file(dv, st, d);
	return lock_file(dv->fd, dv->path, d);
}

static bool ends_with(const char *s, const char *tail, size_t tlen)
{
	size_t n = strlen(s);

	return tlen && n >= tlen && memcmp(s + n - tlen, tail, tlen) == 0;
}

static void load_faults(struct dev *dv)
{
	const char *spec = getenv("STRIPE_FAULT_READ"), *p = spec;

	while (p && *p && dv->nfaults < DEV_MAX_FAULTS) {
		const char *colon = strchr(p, ':'), *next = strchr(p, ',');
		unsigned long long off, len;

		if (!colon || (next && next < colon))
			break;
		if (sscanf(colon + 1, "%llu:%llu", &off, &len) == 2 &&
		    ends_with(dv->path, p, (size_t)(colon - p)))
			dv->faults[dv->nfaults++] = (struct dev_range){ off, len };
		p = next ? next + 1 : NULL;
	}
}

static bool touches(const struct dev_range *r, int n, uint64_t off, size_t len)
{
	int i;

	for (i = 0; i < n; i++)
		if (off < r[i].off + r[i].len && r[i].off < off + len)
			return true;
	return false;
}

bool dev_read_faults(const struct dev *dv, uint64_t off, size_t len)
{
	return touches(dv->faults, dv->nfaults, off, len) || touches(dv->logged, dv->nlogged, off, len);
}

bool dev_logged(const struct dev *dv, uint64_t off, size_t len)
{
	return touches(dv->logged, dv->nlogged, off, len);
}

int dev_unlog(struct dev *dv, uint64_t off, uint64_t len, struct diag *d)
{
	struct dev_range *r = dv->logged, *grown;
	uint64_t end = off + len;
	int i, n = dv->nlogged;

	for (i = 0; i < n; i++) {
		uint64_t s = r[i].off, e = s + r[i].len;

		if (e <= off || s >= end)
			continue;
		if (s < off && e > end) {
			if (!(grown = realloc(r, (size_t)(n + 1) * sizeof(*r))))
				return diag_fail(d, "%s: out of memory for its bad-block log ranges", dv->path);
			dv->logged = r = grown;
			memmove(&r[i + 2], &r[i + 1], (size_t)(n - i - 1) * sizeof(*r));
			r[i] = (struct dev_range){ s, off - s };
			r[i + 1] = (struct dev_range){ end, e - end };
			dv->nlogged = ++n;
			i++;
		} else if (s < off) {
			r[i].len = off - s;
		} else if (e > end) {
			r[i] = (struct dev_range){ end, e - end };
		} else {
			memmove(&r[i], &r[i + 1], (size_t)(n - i - 1) * sizeof(*r));
			dv->nlogged = --n;
			i--;
		}
	}
	return 0;
}

int dev_set_logged(struct dev *dv, const struct dev_range *r, int n, struct diag *d)
{
	struct dev_range *copy = n ? malloc((size_t)n * sizeof(*copy)) : NULL;

	if (n && !copy)
		return diag_fail(d, "%s: out of memory for %d bad-block log ranges", dv->path, n);
	if (n)
		memcpy(copy, r, (size_t)n * sizeof(*copy));
	free(dv->logged);
	dv->logged = copy;
	dv->nlogged = n;
	return 0;
}

int dev_open(struct dev *dv, const char *path, enum dev_mode mode, struct diag *d)
{
	struct stat st;
	int flags = O_CLOEXEC | (mode == DEV_WRITE ? O_RDWR : O_RDONLY);

	memset(dv, 0, sizeof(*dv));
	dv->fd = -1;
	if (stat(path, &st) < 0)
		return diag_fail(d, "%s: %s", path, strerror(errno));
	if (S_ISDIR(st.st_mode))
		return diag_fail(d, "%s: is a directory, not a member device or image file", path);
	if (!S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode))
		return diag_fail(d, "%s: not a regular file or block device", path);
	dv->is_blockdev = S_ISBLK(st.st_mode);
	if (dv->is_blockdev && mode == DEV_WRITE)
		flags |= O_EXCL;
	dv->fd = open(path, flags);
	if (dv->fd < 0)
		return diag_fail(d, "%s: cannot open %s: %s", path,
				 mode == DEV_WRITE ? "for writing" : "for reading",
				 errno == EBUSY ? "device is in use" : strerror(errno));
	dv->path = strdup(path);
	dv->writable = mode == DEV_WRITE;
	if (dv->path)
		load_faults(dv);
	if (!dv->path || fstat(dv->fd, &st) < 0 || dev_size(dv, &st, d) < 0 ||
	    (mode == DEV_WRITE && dev_hold(dv, &st, d) < 0)) {
		if (!dv->path)
			diag_fail(d, "%s: out of memory", path);
		dev_close(dv);
		return -1;
	}
	return 0;
}

void dev_close(struct dev *dv)
{
	if (dv->fd >= 0)
		close(dv->fd);
	if (dv->holds_backing)
		close(dv->hold_fd);
	dv->holds_backing = false;
	free(dv->logged);
	dv->logged = NULL;
	dv->nlogged = 0;
	free(dv->path);
	dv->fd = -1;
	dv->path = NULL;
}

int dev_read(struct dev *dv, void *buf, size_t len, uint64_t off, struct diag *d)
{
	size_t done = 0;

	if (touches(dv->logged, dv->nlogged, off, len))
		return diag_fail(d, "%s: read error at byte %llu: in its bad-block log", dv->path,
				 (unsigned long long)off);
	if (touches(dv->faults, dv->nfaults, off, len))
		return diag_fail(d, "%s: read error at byte %llu: %s", dv->path,
				 (unsigned long long)off, strerror(EIO));
	while (done < len) {
		ssize_t n = pread(dv->fd, (char *)buf + done, len - done, (off_t)(off + done));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return diag_fail(d, "%s: read error at byte %llu: %s", dv->path,
					 (unsigned long long)(off + done), strerror(errno));
		if (n == 0)
			return diag_fail(d, "%s: unexpected end of device at byte %llu (wanted %zu bytes at %llu)",
					 dv->path, (unsigned long long)(off + done), len,
					 (unsigned long long)off);
		done += (size_t)n;
	}
	return 0;
}

int dev_write(struct dev *dv, const void *buf, size_t len, uint64_t off, struct diag *d)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = pwrite(dv->fd, (const char *)buf + done, len - done, (off_t)(off + done));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return diag_fail(d, "%s: write error at byte %llu: %s", dv->path,
					 (unsigned long long)(off + done), n < 0 ? strerror(errno) : "no progress");
		done += (size_t)n;
	}
	return 0;
}

int dev_sync(struct dev *dv, struct diag *d)
{
	if (fdatasync(dv->fd) < 0 && errno != EINVAL && errno != EROFS)
		return diag_fail(d, "%s: flush failed: %s", dv->path, strerror(errno));
	return 0;
}

static int zero_by_writing(struct dev *dv, uint64_t off, uint64_t len, struct diag *d)
{
	size_t chunk = 1u << 20;
	void *z = dev_alloc(chunk);
	int rc = 0;

	if (!z)
		return diag_fail(d, "%s: out of memory (%zu bytes) to zero %llu bytes at offset %llu", dv->path,
				 chunk, (unsigned long long)len, (unsigned long long)off);
	memset(z, 0, chunk);
	while (rc == 0 && len) {
		size_t n = len < chunk ? (size_t)len : chunk;

		rc = dev_write(dv, z, n, off, d);
		off += n;
		len -= n;
	}
	free(z);
	return rc;
}

unsigned dev_sector_size(const struct dev *dv)
{
	int size = 0;

	if (dv->is_blockdev && ioctl(dv->fd, BLKSSZGET, &size) == 0 && size >= 512 && size <= 65536)
		return (unsigned)size;
	return 512;
}

int dev_zero(struct dev *dv, uint64_t off, uint64_t len, struct diag *d)
{
	if (!len)
		return 0;
	if (dv->is_blockdev) {
		uint64_t range[2] = { off, len };

		if (off % 512 == 0 && len % 512 == 0 && ioctl(dv->fd, BLKZEROOUT, range) == 0)
			return 0;
		return zero_by_writing(dv, off, len, d);
	}
	/* A hole costs nothing to make and reads back as zeroes. */
	if (fallocate(dv->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)off, (off_t)len) == 0)
		return 0;
	return zero_by_writing(dv, off, len, d);
}

void *dev_alloc(size_t len)
{
	void *p = NULL;

	if (posix_memalign(&p, 4096, len ? len : 4096) != 0)
		return NULL;
	return p;
}

/* With 4 KiB pages each first touch of a batch buffer is a fault, and in
 * a guest those took 7% of a page-cached check's CPU: large buffers come
 * 2 MiB aligned, with a hint that the kernel may back them with huge pages. */
void *dev_alloc_huge(size_t len)
{
	size_t huge = 2u << 20;
	void *p = NULL;

	len = (len + huge - 1) / huge * huge;
	if (posix_memalign(&p, huge, len) != 0)
		return NULL;
	(void)madvise(p, len, MADV_HUGEPAGE);   /* a hint: without it, small pages */
	return p;
}
