/* open_array: a tool's member list refused or opened as an array, the
 * same way in every tool. */
#include <stdlib.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/degraded.h"
#include "cli/open_array.h"
#include "io/dev.h"
#include "io/probe.h"

int cli_need_members(const char *tool, int n)
{
	if (n > 0)
		return 0;
	cli_usage_error(tool, "no members given");
	return -1;
}

/* The first member that is path's file or device under whatever name; -1
 * when none is, or path cannot be looked at (then it is no member). */
static int same_as(char *const *paths, int n, const char *path)
{
	struct dev_id want, id;
	int i;

	if (dev_identify(path, &want) < 0)
		return -1;
	for (i = 0; i < n; i++)
		if (dev_identify(paths[i], &id) == 0 && dev_id_same(&id, &want))
			return i;
	return -1;
}

/* One member named twice (./m0.img, a symlink, a hard link, a loop device
 * over the file) would be read and written as two, each write undoing the
 * other's.  Each path is looked at once: a member list may be long. */
static int refuse_twice(const struct cli_members *m)
{
	struct dev_id *ids = calloc((size_t)m->n, sizeof(*ids));
	bool *known = calloc((size_t)m->n, sizeof(*known));
	int i, j, rc = 0;

	if (!ids || !known) {
		fprintf(stderr, "%s: %s: out of memory for the member list\n", m->tool, m->paths[0]);
		rc = -1;
	}
	for (i = 0; rc == 0 && i < m->n; i++) {
		known[i] = dev_identify(m->paths[i], &ids[i]) == 0;
		for (j = 0; known[i] && j < i; j++) {
			if (known[j] && dev_id_same(&ids[j], &ids[i])) {
				fprintf(stderr, "%s: %s and %s: the same member given twice\n", m->tool,
					m->paths[j], m->paths[i]);
				rc = -1;
				break;
			}
		}
	}
	free(ids);
	free(known);
	return rc;
}

int cli_refuse_output(const char *tool, const char *output, char *const *paths, int n)
{
	int i = same_as(paths, n, output);

	if (i < 0)
		return 0;
	fprintf(stderr, "%s: %s: the output is the member %s; refusing to overwrite it\n", tool, output,
		paths[i]);
	return -1;
}

static bool newcomer(const struct cli_members *m, int i)
{
	return m->newcomers && m->newcomers[i];
}

/* Members must be free before stripe takes its own hold on them: a mounted
 * or busy member is someone else's.  md signatures are the array's own; a
 * newcomer's other signatures are data that --force alone may overwrite. */
static int refuse_busy(const struct cli_members *m)
{
	struct diag d;
	int i;

	for (i = 0; i < m->n; i++) {
		if (m->dry_run && access(m->paths[i], F_OK) < 0)
			continue;
		if (probe_refuse(m->paths[i], newcomer(m, i) ? m->force : true, true, &d) < 0) {
			fprintf(stderr, "%s: %s\n", m->tool, d.msg);
			return -1;
		}
	}
	return 0;
}

/* A path that is no member of the array stops the run, every such path
 * named: a typo in a member list is not worked around. */
static int refuse_strangers(const struct cli_members *m, const struct array *a)
{
	int i, rc = 0;

	for (i = 0; i < a->nmembers; i++) {
		const struct member *mb = &a->members[i];

		if (newcomer(m, i))
			continue;
		if (mb->state == MEMBER_INVALID) {
			fprintf(stderr, "%s: %s\n", m->tool, mb->reason);
			rc = -1;
		} else if (mb->state == MEMBER_FOREIGN) {
			fprintf(stderr, "%s: %s: %s\n", m->tool, mb->path, mb->reason);
			rc = -1;
		}
	}
	return rc;
}

static void say_members(const struct cli_members *m, const struct array *a)
{
	int i;

	for (i = 0; m->say != CLI_SAY_NOTHING && i < a->nmembers; i++) {
		const struct member *mb = &a->members[i];

		if (mb->state != MEMBER_ACTIVE)
			fprintf(stderr, "%s: %s: left out: %s\n", m->tool, mb->path, mb->reason);
		else if (m->say == CLI_SAY_ROLES)
			fprintf(stderr, "%s: %s: role %d\n", m->tool, mb->path, mb->sb.role);
	}
}

/* An array that could not be formed because no member could be read as
 * one: why each could not (No such file or directory, no md superblock)
 * is the cause, said once per member in place of the summary. */
static void say_not_formed(const struct cli_members *m, const struct array *a, const struct diag *d)
{
	int i;

	for (i = 0; a->members && i < a->nmembers; i++)
		if (a->members[i].has_sb)
			break;
	if (!a->members || i < a->nmembers || m->geometry) {
		fprintf(stderr, "%s: %s\n", m->tool, d->msg);
		return;
	}
	for (i = 0; i < a->nmembers; i++)
		fprintf(stderr, "%s: %s\n", m->tool, a->members[i].reason);
}

int cli_open_array(struct array *a, const struct cli_members *m)
{
	struct diag d;

	if (cli_need_members(m->tool, m->n) < 0 || refuse_twice(m) < 0)
		return -1;
	if ((m->aopt.mode == DEV_WRITE || m->dry_run) && refuse_busy(m) < 0)
		return -1;
	if (m->geometry ? array_open_spec(a, m->paths, m->n, m->geometry, &d) < 0
			: array_open(a, m->paths, m->n, &m->aopt, &d) < 0) {
		say_not_formed(m, a, &d);
		array_close(a);
		return -1;
	}
	if (refuse_strangers(m, a) < 0) {
		array_close(a);
		return -1;
	}
	/* a refusal is one line: why each member was left out is
	 * stripe-examine's to show */
	if (m->readable && array_check_readable(a, &d) < 0) {
		fprintf(stderr, "%s: %s\n", m->tool, d.msg);
		array_close(a);
		return -1;
	}
	if ((m->aopt.mode == DEV_WRITE || m->dry_run) && !m->run && !m->roles_later &&
	    cli_refuse_left_out_as(m->tool, a, NULL, m->run_word ? m->run_word : "--run") < 0) {
		array_close(a);
		return -1;
	}
	say_members(m, a);
	if (m->say_degraded && m->say != CLI_SAY_NOTHING)
		cli_say_degraded(m->tool, a);
	return 0;
}
