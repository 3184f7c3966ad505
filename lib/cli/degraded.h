/* degraded: what the tools say of the roles an array runs without: the
 * writers' refusal of roles in sync that were not given (--run), and the
 * readers' one-line notice, as mdadm's "started with 4 drives (out of 6)". */
#ifndef STRIPE_CLI_DEGRADED_H
#define STRIPE_CLI_DEGRADED_H

#include <stdbool.h>
#include <stddef.h>

#include "md/array.h"

/* The roles the freshest superblock records as held by a device (in sync,
 * or being rebuilt) that no member given is: into left_out (room for
 * ST_MAX_DISKS), those in covered (NULL: none) excepted, as a rebuild's
 * targets stand for their roles.  Returns how many. */
int cli_roles_not_given(const struct array *a, const bool *covered, bool *left_out);

/* "4", "4 and 5", "1, 4 and 5": the n first roles set in set. */
void cli_role_list(const bool *set, int n, char *buf, size_t len);

/* Refuses (-1, one line on stderr naming them) to write an array whose
 * superblocks record roles in sync that were not given and are not in
 * covered: a member list with a typo would otherwise leave them stale for
 * good.  An array the superblocks already call degraded passes. */
int cli_refuse_left_out(const char *tool, const struct array *a, const bool *covered);
/* The same, naming run_word where the tool's --run has another name (the
 * nbdkit plugin's allow-degraded=true). */
int cli_refuse_left_out_as(const char *tool, const struct array *a, const bool *covered, const char *run_word);

/* "TOOL: degraded: N drives (out of M) in sync; roles ... served from
 * parity" on stderr when a role has no in-sync holder; else nothing. */
void cli_say_degraded(const char *tool, const struct array *a);

#endif
