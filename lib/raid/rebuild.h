/* rebuild: reconstruct lost members of an array onto replacements, in one
 * pass over the members' data areas, as md's recovery does, resumable from
 * the recovery_offset it records on the way. */
#ifndef STRIPE_REBUILD_H
#define STRIPE_REBUILD_H

#include <stdbool.h>
#include <stdint.h>

#include "md/array.h"
#include "md/recovery.h"
#include "util/diag.h"

/* The most lanes a RAID4/5/6 rebuild walks its members with side by side. */
#define REBUILD_JOBS_MAX 8

/* What a rebuild reports as it goes. */
enum rebuild_event_kind {
	REBUILD_UNRECOVERABLE,       /* no redundancy left for this range of a target */
	REBUILD_DISAGREE,            /* RAID6: survivors disagree with P/Q here */
	REBUILD_READ_ERROR,          /* a survivor failed to read; worked around when possible */
};

struct rebuild_event {
	enum rebuild_event_kind kind;
	const struct member *member; /* the target (unrecoverable) or survivor (read error) */
	int role;
	uint64_t member_offset;      /* bytes from the start of the member */
	uint64_t length;             /* bytes */
	int nlost;                   /* array ranges whose data is lost or suspect */
	uint64_t lost_offset[ST_MAX_DISKS];   /* array bytes, 4 KiB each (RAID4/5/6) */
	uint64_t lost_length[ST_MAX_DISKS];
};

/* Member sectors [start, end) of every target. */
struct rebuild_range {
	uint64_t start, end;
};

typedef int (*rebuild_report)(void *ctx, const struct rebuild_event *e);
typedef void (*rebuild_progress)(void *ctx, uint64_t done, uint64_t total);

struct rebuild_options {
	bool restart;                /* ignore recorded recovery offsets */
	unsigned checkpoint_ms;      /* how often recovery_offset is recorded; 0 = 1000 */
	int jobs;                    /* RAID4/5/6 lanes side by side; 0: one per CPU */
	/* md's bitmap-based recovery: only these ranges (in order, apart) are
	 * rebuilt, the rest of every target being in sync already; NULL: the
	 * whole of each target */
	const struct rebuild_range *only;
	int nonly;
	rebuild_report report;
	rebuild_progress progress;
	void *ctx;
};

struct rebuild_result {
	uint64_t start, end;         /* member sectors rebuilt in this run */
	uint64_t copied;             /* of those, sectors written to each target (the rest skipped) */
	uint64_t unrecoverable;      /* bytes of targets recorded as bad */
	uint64_t disagree;           /* RAID6 4 KiB units where survivors disagree with P/Q */
	uint64_t read_errors;        /* survivor 4 KiB blocks that could not be read */
	uint64_t rewritten;          /* bytes of survivors their bad-block logs named, rewritten */
	uint64_t log_cleared;        /* survivors' bad-block log entries cleared or shrunk */
	int checkpoints;
};

/* Rebuilds targets[0..n-1] (distinct roles the array does not hold in sync)
 * from the array's survivors, recording progress in the targets'
 * superblocks, and at the end makes every member agree: same events, the
 * targets in sync.  Survivors' data areas are only read, but for what
 * their bad-block logs name: that is had from redundancy where there is
 * some, rewritten on them and cleared from their logs, as md does.  Fails when the
 * array cannot supply the data (too many roles missing), a target is too
 * small, or I/O on a target fails. */
int rebuild_array(struct array *a, struct rebuild_target *t, int n,
		  const struct rebuild_options *o, struct rebuild_result *r, struct diag *d);

/* Sectors of ranges r[0..n-1] that lie in [from, to). */
uint64_t rebuild_ranges_within(const struct rebuild_range *r, int n, uint64_t from, uint64_t to);



#endif
