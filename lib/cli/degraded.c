/* degraded: the roles an array runs without, refused for writing unless
 * --run and said in one line when read. */
#include <stdio.h>
#include <string.h>

#include "cli/degraded.h"

static bool of_array(const struct member *m)
{
	return m->has_sb && m->state != MEMBER_FOREIGN && m->state != MEMBER_INVALID;
}

/* Whether a member given is the device the superblocks record in role,
 * whatever its state (a stale member given is the user's choice, and
 * said as left out when opened). */
static bool given(const struct array *a, int role, int number)
{
	int i;

	if (a->role[role])
		return true;
	for (i = 0; i < a->nmembers; i++) {
		const struct member *m = &a->members[i];

		if (of_array(m) && (m->sb.dev_number == number || m->sb.role == role))
			return true;
	}
	return false;
}

int cli_roles_not_given(const struct array *a, const bool *covered, bool *left_out)
{
	int number, role, n = 0;

	memset(left_out, 0, ST_MAX_DISKS * sizeof(*left_out));
	for (number = 0; number < a->ref->dev_slots; number++) {
		role = super_role_of(a->ref, number);
		if (role < 0 || role >= a->ref->raid_disks || role >= ST_MAX_DISKS || left_out[role] ||
		    (covered && covered[role]) || given(a, role, number))
			continue;
		left_out[role] = true;
		n++;
	}
	return n;
}

void cli_role_list(const bool *set, int n, char *buf, size_t len)
{
	int r, said = 0, total = 0, at = 0;

	for (r = 0; r < n; r++)
		total += set[r];
	buf[0] = 0;
	for (r = 0; r < n && (size_t)at < len; r++) {
		if (!set[r])
			continue;
		said++;
		at += snprintf(buf + at, len - (size_t)at, "%s%d",
			       said == 1 ? "" : said == total ? " and " : ", ", r);
	}
}

int cli_refuse_left_out(const char *tool, const struct array *a, const bool *covered)
{
	return cli_refuse_left_out_as(tool, a, covered, "--run");
}

int cli_refuse_left_out_as(const char *tool, const struct array *a, const bool *covered, const char *run_word)
{
	bool left_out[ST_MAX_DISKS];
	char roles[1024];
	int n = cli_roles_not_given(a, covered, left_out);

	if (n == 0)
		return 0;
	cli_role_list(left_out, a->ref->raid_disks, roles, sizeof(roles));
	fprintf(stderr, "%s: role%s %s %s in sync in the superblocks but %s not given; give %s, or %s to write degraded\n",
		tool, n > 1 ? "s" : "", roles, n > 1 ? "are" : "is", n > 1 ? "were" : "was", n > 1 ? "them" : "it",
		run_word);
	return -1;
}

void cli_say_degraded(const char *tool, const struct array *a)
{
	bool missing[ST_MAX_DISKS];
	int r, n = a->ref->raid_disks;
	char roles[1024];

	if (a->missing == 0)
		return;
	for (r = 0; r < n; r++)
		missing[r] = !a->role[r];
	cli_role_list(missing, n, roles, sizeof(roles));
	fprintf(stderr, "%s: degraded: %d drives (out of %d) in sync; role%s %s served from %s\n", tool,
		n - a->missing, n, a->missing > 1 ? "s" : "", roles,
		a->geo.level == MD_LEVEL_RAID1 || a->geo.level == MD_LEVEL_RAID10 ? "copies" : "parity");
}
