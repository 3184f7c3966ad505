/* anchor: ext4 blocks that know their own place in the filesystem (the
 * superblock and its backups, descriptor blocks, inode-table blocks) found
 * in the members' bytes, and the roles a geometry must give the members
 * for each to lie where the filesystem put it. */
#ifndef STRIPE_PROBE_ANCHOR_H
#define STRIPE_PROBE_ANCHOR_H

#include "probe/ext4.h"
#include "probe/probe.h"

/* A primary superblock found in the sample: where the filesystem, and so
 * the array's data, starts on a member. */
struct ext4_primary {
	int member;
	uint64_t offset;             /* member byte of the superblock */
	uint64_t data_offset;        /* sectors: the filesystem's start on the member */
	struct ext4_sb sb;
};

/* Primary superblocks in the sample's windows at any sector, one per data
 * offset (the first member that holds it), within the hinted data offset. */
int anchor_find_primaries(const struct probe_sample *s, const struct probe_hints *h,
			  struct ext4_primary *p, int max);

struct pin_tally {
	unsigned hits;               /* anchors found where spec puts them */
	unsigned misses;             /* anchors a decided role does not hold */
	unsigned unresolved;         /* anchors no free member holds (a missing one's, or a wrong guess) */
};

/* Decides spec's PROBE_UNKNOWN roles (level, raid_disks, chunk, layout,
 * data offset and size set) by the anchors: a role whose anchor exactly
 * one free member holds gets that member.  Roles no anchor decides stay
 * PROBE_UNKNOWN.  false when the anchors refute spec. */
bool anchor_pin(struct probe_sample *s, const struct ext4_primary *p, struct geometry_spec *spec,
		struct pin_tally *t);

#endif
