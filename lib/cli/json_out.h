/* json_out: where a tool's --json document goes, stdout for --json or FILE
 * for --json=FILE, replaced whole or not at all; and its "verdict". */
#ifndef STRIPE_CLI_JSON_OUT_H
#define STRIPE_CLI_JSON_OUT_H

#include <stdbool.h>
#include <stdio.h>

#include "util/json.h"

struct json_out {
	const char *tool;
	bool on;                     /* --json given, its document not yet ended */
	bool on_stdout;              /* --json alone: the document is the output */
	const char *path;            /* --json=FILE; NULL: standard output */
	char *tmp;                   /* the document being written, beside path */
	FILE *f;
	bool begun;
	struct json j;
};

/* Takes --json's optional argument (NULL: standard output); an empty
 * FILE is refused on stderr with -1.  From here on the tool's last line on
 * stderr is kept, for the document of a run that fails. */
int json_out_option(struct json_out *o, const char *tool, const char *arg);

/* Whether the tool prints its human output: without --json, and beside
 * a --json=FILE (as the runbooks do); --json alone is the output. */
static inline bool json_out_human(const struct json_out *o)
{
	return !o->on_stdout;
}

/* Starts the document ("format", "tool", "version"): on stdout, or in a
 * new file in FILE's directory.  -1 (said on stderr) when that cannot be
 * made. */
int json_out_begin(struct json_out *o, int format);

/* Closes the levels left open, adds "verdict" and, when the run failed
 * (verdict "error", or "unserved": a range the array could not serve
 * stopped it), "error" with msg or else the last line the tool said
 * on stderr; then puts FILE in place.  Begins the document first if the
 * run failed before it began.  Returns 0, or -1 said on stderr.  Does
 * nothing without --json. */
int json_out_end(struct json_out *o, int format, const char *verdict, const char *msg);

#endif
