/* geometry_spec: the --geometry SPEC string that names everything deciding
 * where an array's bytes live, for members whose superblocks are gone. */
#ifndef STRIPE_GEOMETRY_SPEC_H
#define STRIPE_GEOMETRY_SPEC_H

#include <stddef.h>
#include <stdint.h>

#include "md/layout.h"
#include "util/diag.h"

#define SPEC_MISSING (-1)

/* level=6,chunk=64K,layout=left-symmetric,data-offset=2048s,size=7680K,
 * order=2:0:1:missing.  Every member gets the same size, so a RAID0 is one
 * zone: a multi-zone one is not yet described. */
struct geometry_spec {
	int level;
	int layout;                   /* md's number; the level's default when not given */
	uint32_t chunk_sectors;       /* 0 for raid1 */
	uint64_t data_offset;         /* sectors, on every member */
	uint64_t size;                /* component size used on each member, sectors */
	int raid_disks;
	int order[ST_MAX_DISKS];      /* role -> index in the member list, or SPEC_MISSING */
};

/* Parses SPEC; fails with one line naming the field for anything out of
 * bounds, unknown or repeated. */
int geometry_spec_parse(const char *spec, struct geometry_spec *s, struct diag *d);

/* Writes the SPEC that parses back to s.  Returns the length it needed, as
 * snprintf does. */
int geometry_spec_print(const struct geometry_spec *s, char *buf, size_t len);

#endif
