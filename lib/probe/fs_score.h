/* fs_score: how well a complete geometry reads the ext4 on the members:
 * its checksummed metadata read through the array engine with libext2fs,
 * counted as verifying or failing. */
#ifndef STRIPE_PROBE_FS_SCORE_H
#define STRIPE_PROBE_FS_SCORE_H

#include <stdbool.h>
#include <stddef.h>

#include "probe/probe.h"

struct fs_tally {
	bool opened;                 /* libext2fs found a filesystem where the geometry puts it */
	unsigned desc_verified, desc_failed;   /* group descriptors */
	unsigned walk_verified, walk_failed;   /* inodes, directory and extent blocks from the root */
	unsigned backups_found, backups_expected;
	uint64_t bytes_read;         /* array bytes the reads took */
};

/* Reads the filesystem through spec (every role a member or SPEC_MISSING,
 * size set) within a few MiB of reads.  Fails only when the array cannot
 * be formed; a geometry that shows no filesystem is a tally, not an error. */
int fs_score(struct probe_sample *s, const struct geometry_spec *spec, struct fs_tally *t, struct diag *d);

/* 0..1: the parts that verified among those checked (descriptors,
 * backups, the walk), multiplied. */
double fs_tally_score(const struct fs_tally *t);

/* "ext4: 412/412 checksummed metadata blocks verified; backup superblocks
 * at 7/7 predicted places" */
void fs_tally_line(const struct fs_tally *t, char *buf, size_t len);

#endif
