/* anchor: filesystem blocks that know their own place (ext4's superblock
 * and its backups, descriptor blocks, inode-table blocks; XFS's AG headers)
 * found in the members' bytes, and the roles a geometry must give the members
 * for each to lie where the filesystem put it. */
#ifndef STRIPE_PROBE_ANCHOR_H
#define STRIPE_PROBE_ANCHOR_H

#include "probe/ext4.h"
#include "probe/probe.h"
#include "probe/volume.h"
#include "probe/xfs.h"

/* A primary superblock found in the sample, and where the filesystem
 * starts: at the array's start, found where it lies on a member, or in a
 * volume (a partition, an LVM2 PV) whose header at the array's start was
 * found where it lies on a member. */
enum fs_kind { FS_EXT4, FS_XFS };

struct fs_primary {
	enum fs_kind kind;
	int member;
	uint64_t offset;             /* member byte of the superblock, or of the volume's header */
	uint64_t data_offset;        /* sectors: the array's start on the member */
	uint64_t fs_offset;          /* array byte where the filesystem starts */
	const struct volume *volume; /* the header in front of it, an anchor too; NULL */
	struct ext4_sb sb;           /* FS_EXT4 */
	struct xfs_sb xfs;           /* FS_XFS */
};

/* "ext4", "XFS" */
const char *fs_primary_name(const struct fs_primary *p);

/* The filesystem's bytes. */
uint64_t fs_primary_bytes(const struct fs_primary *p);

bool fs_primary_same_fs(const struct fs_primary *a, const struct fs_primary *b);

/* Primary superblocks (ext4's, and XFS's followed by AG 0's AGF) in the
 * sample's windows at any sector, one per filesystem and data offset (the
 * first member that holds it), within the hinted data offset. */
int anchor_find_primaries(const struct probe_sample *s, const struct probe_hints *h,
			  struct fs_primary *p, int max);

struct pin_tally {
	unsigned hits;               /* anchors found where spec puts them */
	unsigned misses;             /* anchors a decided role does not hold */
	unsigned unresolved;         /* anchors no free member holds (a missing one's, or a wrong guess) */
};

/* The filesystem a volume holds: its superblock found anywhere in the sample,
 * placed at the volume's filesystem offset.  Fills up to max, one per
 * filesystem found, and returns how many. */
int anchor_in_volume(const struct probe_sample *s, const struct volume *v, struct fs_primary *p, int max);

/* Decides spec's PROBE_UNKNOWN roles (level, raid_disks, chunk, layout,
 * data offset and size set) by the anchors: a role whose anchor exactly
 * one free member holds gets that member.  Roles no anchor decides stay
 * PROBE_UNKNOWN.  false when the anchors refute spec, or none was found
 * where it puts them. */
bool anchor_pin(struct probe_sample *s, const struct fs_primary *p, struct geometry_spec *spec,
		struct pin_tally *t);

/* Do the anchors tallied refute the geometry (more misses than hits, and a
 * few)?  A complete order whose anchors all lie on absent members is not
 * refuted: it has no hits, and no misses either. */
bool anchor_refuted(const struct pin_tally *t);

#endif
