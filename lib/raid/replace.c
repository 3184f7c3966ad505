/* replace: the requests md refuses to replace a member with, and the
 * replacement an interrupted replace leaves, in md's words (md.c's
 * super_1_validate, raid5_add_disk and mdadm's Manage). */
#include "md/layout.h"
#include "raid/replace.h"

int replace_refuse(const struct array *a, int role, const struct member *m, struct diag *d)
{
	const struct member *old = role >= 0 && role < a->geo.raid_disks ? a->role[role] : NULL;

	if (a->geo.level == MD_LEVEL_RAID0)
		return diag_fail(d, "%s: raid0 has no redundancy: md replaces members of raid1, 4, 5, 6 and 10 only",
				 a->members[0].path);
	if (!old)
		return diag_fail(d, "%s: role %d is not held by a member in sync: nothing to replace", m->path, role);
	/* a member rebuilding another role is the array's already */
	if (m->state == MEMBER_REBUILDING && m->sb.role != role && super_same_array(&m->sb, a->ref))
		return diag_fail(d, "%s: in use by the array, being rebuilt into role %d", m->path, m->sb.role);
	return 0;
}

bool replace_recorded(const struct array *a, const struct member *m)
{
	int role = m->sb.role;

	return m->state == MEMBER_REBUILDING && m->sb.major == 1 &&
	       (m->sb.feature_map & SB1_FEAT_REPLACEMENT) && role >= 0 && role < a->geo.raid_disks &&
	       a->role[role] != NULL;
}
