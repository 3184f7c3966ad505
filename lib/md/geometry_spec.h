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
 * order=2:0:1:missing.  A RAID0 whose members differ in size gives each
 * role's size instead (sizes=7680K:7680K:15360K) and, when that makes md
 * place data in several zones, how it places them (raid0-layout=original or
 * alternate), since the two differ past the first zone. */
struct geometry_spec {
	int level;
	int layout;                   /* md's number; the level's default when not given;
	                               * raid0: RAID0_ORIG_LAYOUT, RAID0_ALT_MULTIZONE_LAYOUT or
	                               * RAID0_LAYOUT_UNSPECIFIED */
	uint32_t chunk_sectors;       /* 0 for raid1 */
	uint64_t data_offset;         /* sectors, on every member */
	uint64_t size;                /* component size used on each member, sectors; 0 with sizes */
	int raid_disks;
	int order[ST_MAX_DISKS];      /* role -> index in the member list, or SPEC_MISSING */
	uint64_t sizes[ST_MAX_DISKS]; /* raid0 sizes=: role -> size used on it, sectors; all 0
	                               * when size gives one for every member */
};

/* Parses SPEC; fails with one line naming the field for anything out of
 * bounds, unknown or repeated. */
int geometry_spec_parse(const char *spec, struct geometry_spec *s, struct diag *d);

/* Writes the SPEC that parses back to s.  Returns the length it needed, as
 * snprintf does. */
int geometry_spec_print(const struct geometry_spec *s, char *buf, size_t len);

/* The sectors the SPEC uses on the member holding role, from data-offset on. */
uint64_t geometry_spec_member_size(const struct geometry_spec *s, int role);

#endif
