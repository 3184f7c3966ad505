/* backup: an ext4 whose primary superblock is not in the sample (its
 * member absent, its row's parity not equal to it) found by a backup copy
 * of it, which names the group it sits in and so its array byte. */
#ifndef STRIPE_PROBE_BACKUP_H
#define STRIPE_PROBE_BACKUP_H

#include "probe/anchor.h"

/* Backup superblocks in the sample's windows at any sector, each read as
 * the primary it copies at every data offset (mdadm's, or the hinted one)
 * from which some striped geometry of the given members could put its
 * group where it was found: one per filesystem and data offset.  Fills up
 * to max and returns how many. */
int backup_find_primaries(const struct probe_sample *s, const struct probe_hints *h, struct fs_primary *p,
			  int max);

#endif
