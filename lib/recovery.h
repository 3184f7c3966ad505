/* recovery: the superblock side of a rebuild, as md records a recovery: the
 * replacement's superblock, recovery_offset checkpoints, the bad-block log,
 * and every member's events at the end. */
#ifndef STRIPE_RECOVERY_H
#define STRIPE_RECOVERY_H

#include <stdint.h>

#include "array.h"
#include "diag.h"
#include "rebuild.h"

/* Builds each target's superblock (a new device number and UUID for a
 * replacement, its own identity for a re-added member), marked as
 * recovering from t->resume, and records the targets in the survivors'
 * superblocks, with events one up.  Fails, writing nothing, when a target
 * is too small. */
int recovery_begin(struct array *a, struct rebuild_target *t, int n, struct diag *d);

/* Records that the targets hold good data below member sector done
 * (after flushing that data to stable storage).  0.90 superblocks cannot
 * record it; for them this only flushes. */
int recovery_checkpoint(struct array *a, struct rebuild_target *t, int n, uint64_t done,
			struct diag *d);

/* The targets are complete: writes their bad-block logs, clears the
 * recovery marks and gives every member the same events, as md does when
 * a recovery ends. */
int recovery_finish(struct array *a, struct rebuild_target *t, int n, struct diag *d);

#endif
