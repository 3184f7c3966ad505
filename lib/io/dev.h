/* dev: one member device or image file: open, size, whole reads and writes
 * that name the path and offset when they fail. */
#ifndef STRIPE_DEV_H
#define STRIPE_DEV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "util/diag.h"

enum dev_mode {
	DEV_READ,            /* O_RDONLY */
	/* O_RDWR, plus O_EXCL on block devices and an flock on files; a loop
	 * device's backing file is flocked too, so that one member has one
	 * lock by either name */
	DEV_WRITE,
};

/* Bytes [off, off + len) of a device. */
struct dev_range {
	uint64_t off, len;
};

/* Byte ranges where reads fail with EIO: set from STRIPE_FAULT_READ by tests,
 * so error handling can be exercised without a failing disk. */
#define DEV_MAX_FAULTS 16

struct dev {
	char *path;
	int fd;
	bool holds_backing;  /* hold_fd is a loop device's backing file, flocked */
	int hold_fd;
	bool is_blockdev;
	bool writable;
	uint64_t size;       /* bytes */
	int nfaults;
	struct dev_range faults[DEV_MAX_FAULTS];
	int nlogged;
	struct dev_range *logged;    /* what its bad-block log names: never read */
};

/* Ranges that reads must treat as unreadable, as md treats what a member's
 * bad-block log names: a read touching one fails as a read error, so that
 * the data comes from redundancy.  A copy is kept until dev_close. */
int dev_set_logged(struct dev *dv, const struct dev_range *r, int n, struct diag *d);

/* Whether [off, off + len) touches a range the bad-block log names. */
bool dev_logged(const struct dev *dv, uint64_t off, size_t len);

/* [off, off + len) no longer unreadable for the log's sake: rewritten, and
 * taken out of the log.  A range it splits in two needs room for one
 * more; -1 when there is none. */
int dev_unlog(struct dev *dv, uint64_t off, uint64_t len, struct diag *d);

/* STRIPE_FAULT_READ="FILE:OFFSET:LENGTH[,FILE:OFFSET:LENGTH...]": reads of a
 * member whose path ends in FILE that touch [OFFSET, OFFSET+LENGTH) fail with
 * EIO.  A test hook; unset in normal use. */

/* Whether a read of [off, off + len) would meet a STRIPE_FAULT_READ range:
 * for readers that go around dev_read (stripe-map splices member pages). */
bool dev_read_faults(const struct dev *dv, uint64_t off, size_t len);

/* Which bytes a path names, however it is spelt: a file by its device and
 * inode (through a symlink, a hard link, or a loop device bound to it), any
 * other block device by its device number.  Two paths with equal ids are
 * one member. */
struct dev_id {
	dev_t dev;
	ino_t ino;           /* 0 for a block device that is no loop over a file */
};

/* Fails (-1, errno set) only when path cannot be looked at. */
int dev_identify(const char *path, struct dev_id *id);
bool dev_id_same(const struct dev_id *a, const struct dev_id *b);

/* Reads the first line of a small sysfs file, without its newline; -1
 * when there is none. */
int dev_sysfs_line(const char *file, char *buf, size_t len);

/* The file behind the block device devno, open as fd: its path (as the
 * kernel recorded it) and its id; -1 when it is no loop device bound to a
 * file. */
int dev_loop_backing(int fd, dev_t devno, char *path, size_t len, struct dev_id *id);

/* Opens path.  A directory, a missing path or something that is neither a
 * regular file nor a block device is refused with a message naming it. */
int dev_open(struct dev *dv, const char *path, enum dev_mode mode, struct diag *d);
void dev_close(struct dev *dv);

/* Read or write exactly len bytes at byte offset off; a short transfer or an
 * error is reported with the path, the offset and errno's text. */
int dev_read(struct dev *dv, void *buf, size_t len, uint64_t off, struct diag *d);
int dev_write(struct dev *dv, const void *buf, size_t len, uint64_t off, struct diag *d);

/* Flushes what was written to stable storage (fdatasync). */
int dev_sync(struct dev *dv, struct diag *d);

/* The logical sector size: BLKSSZGET on a block device, 512 for a file. */
unsigned dev_sector_size(const struct dev *dv);

/* Makes [off, off + len) read as zeroes: a hole punched in a file, BLKZEROOUT
 * on a block device, plain writes of zeroes where neither works. */
int dev_zero(struct dev *dv, uint64_t off, uint64_t len, struct diag *d);

/* Aligned allocation for I/O and parity buffers (4 KiB aligned); NULL when
 * memory runs out, so that the caller can say what for and on which member. */
void *dev_alloc(size_t len);

/* The same for large batch buffers: 2 MiB aligned and offered to the
 * kernel for huge pages (NULL when memory runs out). */
void *dev_alloc_huge(size_t len);

#endif
