/* xfs_score: how well a complete geometry reads an XFS: each allocation
 * group's superblock copy, AGF, AGI, inode btree root and the inodes it
 * records, read through the array where the superblock puts them, counted
 * as verifying or not. */
#ifndef STRIPE_PROBE_XFS_SCORE_H
#define STRIPE_PROBE_XFS_SCORE_H

#include <stddef.h>

#include "probe/probe.h"
#include "probe/xfs.h"

struct xfs_tally {
	bool opened;                 /* AG 0's headers read where the geometry puts the filesystem */
	unsigned verified, expected; /* headers, btree roots and inodes */
	uint64_t bytes_read;
};

/* Reads the headers of the XFS sb describes, starting at array byte
 * fs_offset, through spec (complete, size set).  Fails only when the array
 * cannot be formed. */
int xfs_score(struct probe_sample *s, const struct geometry_spec *spec, uint64_t fs_offset,
	      const struct xfs_sb *sb, struct xfs_tally *t, struct diag *d);

/* 0..1: the headers verified among those predicted; 0 unless AG 0's were. */
double xfs_tally_score(const struct xfs_tally *t);

/* "XFS: 530/530 allocation group headers, inode btree roots and inodes
 * verified where this geometry puts them" */
void xfs_tally_line(const struct xfs_tally *t, char *buf, size_t len);

#endif
