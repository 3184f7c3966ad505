/* mended: what the data tools say of the member read errors they read
 * around, one line per run of adjacent pages on one member. */
#ifndef STRIPE_CLI_MENDED_H
#define STRIPE_CLI_MENDED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "md/array.h"

struct cli_mended {
	const char *tool;            /* the name each line starts with */
	bool quiet;                  /* count, say nothing */
	const struct member *m;
	uint64_t start, len;         /* the run not yet said */
	uint64_t bytes;              /* in all */
};

/* The array's read_mended hook, with a struct cli_mended as its context. */
void cli_mended_note(void *ctx, const struct member *m, uint64_t offset, size_t len);

/* Says the run not yet said; called once the engine is done. */
void cli_mended_flush(struct cli_mended *md);

#endif
