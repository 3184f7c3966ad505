/* recovery: the superblock side of a rebuild, as md records a recovery: the
 * replacement's superblock, recovery_offset checkpoints, the bad-block log,
 * and every member's events at the end. */
#ifndef STRIPE_RECOVERY_H
#define STRIPE_RECOVERY_H

#include <stdbool.h>
#include <stdint.h>

#include "md/array.h"
#include "util/diag.h"
#include "md/badblocks.h"

/* One role being rebuilt and the member that will hold it. */
struct rebuild_target {
	int role;
	struct member *m;            /* opened for writing; its superblock is made anew */
	bool readd;                  /* the member held this role before: keeps its identity */
	struct member *replaces;     /* a replace: the role's holder in sync, copied from and
				      * recorded faulty at the end, as md's replacement; NULL
				      * for a rebuild */
	uint64_t resume;             /* member sectors already rebuilt (recovery_offset) */
	bool bitmap;                 /* recovered from the write-intent bitmap: only what changed */
	int nbad, capbad;
	struct bad_range *bad;       /* unrecoverable ranges, device sectors, for the bad-block log */
};

/* The smallest member size, in bytes, that can hold role of this array. */
uint64_t rebuild_min_size(const struct array *a);

void rebuild_target_free(struct rebuild_target *t);

/* Whether the rebuild can begin, before anything is written: the members
 * in sync hold what the targets need, every target holds its role, and
 * the bitmap a new member gets can be read. */
int recovery_check(const struct array *a, const struct rebuild_target *t, int n, struct diag *d);

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
 * a recovery ends.  A member a target replaced is recorded faulty and,
 * as md leaves a faulty member, not written again. */
int recovery_finish(struct array *a, struct rebuild_target *t, int n, struct diag *d);

#endif
