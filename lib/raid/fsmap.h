/* fsmap: what an ext2/3/4 filesystem on an array keeps at given array
 * bytes: which file (inode, path, file offset), directory or metadata, or
 * free space.  The filesystem is read with libext2fs through an io_manager
 * that takes its bytes from the members via stripe_read (degraded arrays
 * too): no kernel md, no mount, nothing written. */
#ifndef STRIPE_FSMAP_H
#define STRIPE_FSMAP_H

#include <stddef.h>
#include <stdint.h>

#include "md/array.h"
#include "util/diag.h"

struct fsmap;

/* Opens the filesystem at the start of the array read-only (from a backup
 * superblock when the primary one is unreadable).  Fails with "no
 * ext2/3/4 filesystem on the array" when no superblock is found. */
int fsmap_open(struct array *a, struct fsmap **out, struct diag *d);

/* Describes array bytes [offsets[i], offsets[i] + len) for each i in one
 * pass over the inodes, e.g. "file /dir/x (inode 13, file offset 4096)",
 * "directory /dir (inode 12)", "metadata (inode table of group 0, inodes
 * 17-32)", "free space", "beyond the filesystem"; a range over several
 * filesystem blocks that differ gets their descriptions joined by "; ".
 * descs[i] is malloc'd (the caller frees each); on failure none are left. */
int fsmap_describe(struct fsmap *m, const uint64_t *offsets, size_t n, uint64_t len,
		   char **descs, struct diag *d);

void fsmap_close(struct fsmap *m);

#endif
