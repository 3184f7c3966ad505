/* badblocks: md's per-member bad-block log (v1.x only). */
#ifndef STRIPE_BADBLOCKS_H
#define STRIPE_BADBLOCKS_H

#include <stdint.h>

#include "io/dev.h"
#include "util/diag.h"
#include "md/super.h"

struct bad_range {
	uint64_t start;              /* device sectors from the start of the member (md adds data_offset) */
	uint64_t len;
};

struct badblocks {
	uint64_t sector;             /* where the log is on the member */
	int capacity;                /* entries the log has room for */
	int count;
	struct bad_range *ranges;    /* count entries, malloc'd */
};

/* Reads the log.  Returns 1 if the member has no log, 0 when read, -1 on error. */
int badblocks_read(struct dev *dv, const struct md_super *sb, struct badblocks *bb, struct diag *d);
void badblocks_free(struct badblocks *bb);

/* Writes the nbad ranges (device sectors, in order) as the member's log and
 * marks it in use in sb (sealed and written by the caller).  0.90 has no
 * log: nothing is written.  Fails naming the member when its superblock
 * has no log or the log has too few entries. */
int badblocks_write(struct dev *dv, struct md_super *sb, const struct bad_range *bad, int nbad,
		    struct diag *d);

/* Takes the ranges of done (device sectors, in order) out of the member's
 * log, as md does once they are rewritten: entries they cover go, those
 * they cover in part shrink or split.  The log is rewritten only when an
 * entry changed; *cleared says how many did.  An emptied log is marked
 * no longer in use, with a superblock write, as the kernel's next
 * superblock update marks it.  A member without a log: nothing to do. */
int badblocks_clear(struct dev *dv, struct md_super *sb, const struct bad_range *done, int ndone,
		    int *cleared, struct diag *d);

#endif
