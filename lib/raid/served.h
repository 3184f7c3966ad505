/* served: an array served to requests from several threads, as stripe-map
 * serves its FUSE file and the nbdkit plugin its export: engines side by
 * side, writes of whole rows done at once and the others answered once
 * queued (write-behind), the failures that decide the exit status, and
 * the array dirty while served, clean after. */
#ifndef STRIPE_SERVED_H
#define STRIPE_SERVED_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "md/array.h"
#include "raid/engineset.h"
#include "raid/writebehind.h"

/* How many requests at once, and how much write-behind. */
struct served_config {
	int engines;                 /* requests served at once; the rest wait */
	int depth;                   /* writes answered but not yet on the members */
	size_t write_max;            /* the largest write taken in one piece */
	uint64_t merge_max;          /* most bytes a run of queued writes is written in */
	long merge_wait_ns;          /* how long a partial row waits for the write that ends it */
};

struct served {
	struct array *a;
	bool read_only;
	bool was_clean;              /* clean before: marked clean again at the end */
	struct served_config cfg;
	struct engineset engines;
	struct writebehind writes;
	/* Told each failure's one line (the member or array named), from
	 * whichever thread met it. */
	void (*say)(void *ctx, const char *msg);
	void *say_ctx;
	atomic_bool unserved;        /* a range too little redundancy was left to serve */
	atomic_bool write_failed;    /* a write or sync failed: later ones fail too */
	atomic_bool left_dirty;      /* one failed on an error, not an unserved range */
};

/* Sets s up on the open array a, and read-write marks it dirty (md's
 * active) until served_end; -1 with d set when that cannot be written. */
int served_begin(struct served *s, struct array *a, bool read_only, const struct served_config *cfg,
		 void (*say)(void *ctx, const char *msg), void *say_ctx, struct diag *d);

/* Starts the engines and, read-write, the writer thread; -1 with d set
 * when they cannot start (nothing is left running then).  In the process
 * that serves: after any fork. */
int served_start(struct served *s, struct diag *d);

/* Puts every queued write on the members, then ends the threads. */
void served_stop(struct served *s);

/* Every write on the members and flushed to stable storage, then the
 * array marked clean unless a write failed (it stays dirty for md and
 * stripe-check to look at) or it needed a resync before.  -1 when a
 * write failed or the marking could not be written (said). */
int served_end(struct served *s);

/* len bytes at array offset off into buf: from the members' page cache
 * where the rows are whole, else through an engine (degraded rows rebuilt,
 * read errors mended and named).  -1 when a range could not be served
 * (said; unserved set). */
int served_read(struct served *s, void *buf, size_t len, uint64_t off);

/* Writes len bytes from buf at off: at once when they are whole stripe
 * rows (every write, for the copy levels), their rows held against every
 * other request; else queued (in pieces of at most cfg.write_max) and
 * answered once queued.  -1 (errno EIO) when the write failed or once one
 * did, EINVAL when the range is outside the array, EROFS when served
 * read-only. */
int served_write(struct served *s, const void *buf, size_t len, uint64_t off);

/* Waits until every queued write is on the members; -1 if one failed. */
int served_drain(struct served *s);

/* That, then every member flushed (fdatasync): a durability point. */
int served_sync(struct served *s);

/* Flushes every member; -1 with d set if one fails. */
int served_sync_members(struct array *a, struct diag *d);

/* Where the whole stripe rows of [off, off + len) are (for the copy
 * levels every sector counts as a row): every member's bytes of them made
 * to read as zeroes (holes punched, BLKZEROOUT) after the queued writes,
 * parity staying right, as zeroes' parity is zeroes.  The range covered is
 * returned in *lo, *hi (empty when no whole row is in it).  -1 when a
 * member failed (said; the array is left dirty). */
int served_zero_rows(struct served *s, uint64_t off, uint64_t len, uint64_t *lo, uint64_t *hi);

#endif
