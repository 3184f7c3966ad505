/* open_array: the member list a tool was given, judged and put together as
 * an array, with the refusals and warnings every stripe tool makes alike. */
#ifndef STRIPE_CLI_OPEN_ARRAY_H
#define STRIPE_CLI_OPEN_ARRAY_H

#include <stdbool.h>
#include <stdio.h>

#include "md/array.h"

/* How much a tool says on stderr about the members it opened. */
enum cli_say {
	CLI_SAY_NOTHING,     /* -q, or a tool that reports the members its own way */
	CLI_SAY_LEFT_OUT,    /* each member left out, and why */
	CLI_SAY_ROLES,       /* that, and the role each other member holds (-v) */
};

/* What a tool asks of the members it was given. */
struct cli_members {
	const char *tool;            /* the name every message starts with */
	char *const *paths;          /* in the order given */
	int n;
	struct array_options aopt;   /* DEV_WRITE: members in use are refused first */
	/* Opened read-only, but refused as a write would be, so that a dry
	 * run says what the run would; a path not made yet is passed over. */
	bool dry_run;
	/* Replacements (NULL: none): one carrying a signature is refused
	 * unless force, and none is judged a stranger once opened (it may
	 * be blank, or hold this array's half-finished rebuild). */
	const bool *newcomers;
	bool force;
	bool readable;               /* refuse an array whose data the members cannot serve */
	/* --run: write although roles the superblocks record in sync were
	 * not given (they are then recorded gone).  Without it a write, or
	 * its dry run, is refused naming them, unless roles_later: a rebuild
	 * asks cli_refuse_left_out itself once its targets are known. */
	bool run;
	const char *run_word;        /* what --run is called where it is not (NULL: --run) */
	bool roles_later;
	/* --geometry: the array as this describes it, no superblock read
	 * (NULL: assembled from the superblocks). */
	const struct geometry_spec *geometry;
	bool say_degraded;           /* one line when roles are served from redundancy */
	enum cli_say say;
};

/* Opens the members as an array.  Refuses, in this order: no members; one
 * member given twice (by device and inode, so ./path, a symlink, a hard
 * link or a loop device over the file count); a member in use (when writing), before any member is opened; members that
 * do not form an array; members of no array or of another one, every one
 * named; an array too degraded to read (when readable is asked); roles in
 * sync that were not given (when writing, without run).  Then names those
 * left out, and says the array is degraded (say_degraded).  Returns 0 with a open, or -1
 * having said why on stderr and closed it. */
int cli_open_array(struct array *a, const struct cli_members *m);

/* "no members given" on stderr as a usage error (that line, then where the
 * help is) if n is 0: -1; else 0.  For a tool whose member list is not all
 * of its arguments, or that goes on when the array cannot be formed. */
int cli_need_members(const char *tool, int n);

/* An output file the tool would write that is one of the members, under
 * any name (as above): "TOOL: OUTPUT: the output is the member M; ..." on
 * stderr and -1; else 0.  Asked before the output is opened. */
int cli_refuse_output(const char *tool, const char *output, char *const *paths, int n);

#endif
