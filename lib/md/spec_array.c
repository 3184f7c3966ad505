/* spec_array: an array formed from a --geometry SPEC instead of superblocks,
 * for reading members whose superblocks are gone or not to be trusted. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "md/array.h"

/* What the row engine asks of a member's superblock is where its data
 * starts and its role: the SPEC gives both, and nothing on the member is
 * read for them. */
static void describe_member(struct member *m, const struct geometry_spec *s, int role)
{
	memset(&m->sb, 0, sizeof(m->sb));
	m->sb.level = s->level;
	m->sb.layout = s->layout;
	m->sb.size = s->size;
	m->sb.chunk_sectors = s->chunk_sectors;
	m->sb.raid_disks = s->raid_disks;
	m->sb.data_offset = s->data_offset;
	m->sb.data_size = geometry_spec_member_size(s, role);
	m->sb.recovery_offset = MD_MAX_SECTOR;
	m->sb.resync_offset = MD_MAX_SECTOR;
	m->sb.dev_number = role;
	m->sb.role = role;
}

static int open_member(struct member *m, const char *path, const struct geometry_spec *s, int role,
		       struct diag *d)
{
	m->dev.fd = -1;
	m->path = strdup(path);
	if (!m->path)
		return diag_fail(d, "out of memory");
	if (dev_open(&m->dev, path, DEV_READ, d) < 0)
		return -1;
	if (m->dev.size / 512 < s->data_offset + geometry_spec_member_size(s, role))
		return diag_fail(d, "%s: %llu bytes; the --geometry data-offset and size need %llu", path,
				 (unsigned long long)m->dev.size,
				 (unsigned long long)((s->data_offset + geometry_spec_member_size(s, role)) * 512));
	describe_member(m, s, role);
	m->state = MEMBER_ACTIVE;
	return 0;
}

/* The role each given member holds; every member must hold one, since a
 * member the SPEC leaves out was most likely a slip in it. */
static int roles_of(const struct geometry_spec *s, int n, int *role, struct diag *d)
{
	for (int i = 0; i < n; i++)
		role[i] = -1;
	for (int r = 0; r < s->raid_disks; r++) {
		if (s->order[r] == SPEC_MISSING && s->level == MD_LEVEL_RAID0)
			return diag_fail(d, "--geometry: order: raid0 has no redundancy; no role can be missing");
		if (s->order[r] == SPEC_MISSING)
			continue;
		if (s->order[r] >= n)
			return diag_fail(d, "--geometry: order: role %d names member %d; %d members given", r,
					 s->order[r], n);
		role[s->order[r]] = r;
	}
	for (int i = 0; i < n; i++)
		if (role[i] < 0)
			return diag_fail(d, "--geometry: order: member %d is given but holds no role", i);
	return 0;
}

int array_open_spec(struct array *a, char *const *paths, int n, const struct geometry_spec *s,
		    struct diag *d)
{
	int role[ST_MAX_DISKS];
	uint64_t sizes[ST_MAX_DISKS];

	memset(a, 0, sizeof(*a));
	if (n < 1)
		return diag_fail(d, "no members given");
	if (n > ST_MAX_DISKS)
		return diag_fail(d, "%d members given; stripe handles up to %d", n, ST_MAX_DISKS);
	if (roles_of(s, n, role, d) < 0)
		return -1;
	a->members = calloc((size_t)n, sizeof(*a->members));
	if (!a->members)
		return diag_fail(d, "out of memory");
	a->nmembers = n;
	for (int i = 0; i < n; i++)
		a->members[i].dev.fd = -1;
	for (int i = 0; i < n; i++) {
		if (open_member(&a->members[i], paths[i], s, role[i], d) < 0)
			return -1;
		a->role[role[i]] = &a->members[i];
	}
	a->ref = &a->members[0].sb;
	for (int r = 0; r < s->raid_disks; r++)
		sizes[r] = geometry_spec_member_size(s, r);
	if (geometry_init(&a->geo, s->level, s->layout, s->raid_disks, s->chunk_sectors, s->size, sizes, d) < 0)
		return diag_prefix(d, "--geometry: ");
	a->missing = s->raid_disks - n;
	a->state = a->missing == 0 ? ARRAY_CLEAN
		 : array_check_readable(a, NULL) == 0 ? ARRAY_DEGRADED : ARRAY_FAILED;
	return 0;
}
