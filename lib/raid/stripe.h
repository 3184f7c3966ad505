/* stripe: the stripe engine's read side: an array's logical bytes from its
 * members, reconstructing what missing members held. */
#ifndef STRIPE_STRIPE_H
#define STRIPE_STRIPE_H

#include <stddef.h>
#include <stdint.h>

#include "md/array.h"
#include "util/diag.h"
#include "raid/rows.h"

/* Receives the array's bytes in order; returns 0, or -1 to stop with d set. */
typedef int (*stripe_sink)(void *ctx, const void *buf, size_t len, struct diag *d);

/* Streams array bytes [off, off + len) into sink.  Members are read in
 * parallel, a window of array bytes at a time (a degraded RAID4/5/6 a
 * batch of the row engine at a time); memory stays within the row
 * engine's budget whatever the length.  Fails before calling sink when the
 * range is outside the array or the array cannot be read.  A page a member
 * fails to read is rebuilt from parity or read from another copy, and the
 * array's read_mended hook told; where nothing is left to rebuild it from,
 * it reads as zeroes and the array's read_lost hook is told, or without
 * that hook the read fails naming the member, its offset and the array
 * bytes. */
int stripe_read(struct array *a, uint64_t off, uint64_t len,
		stripe_sink sink, void *ctx, struct diag *d);

/* Supplies the bytes to write, in order: fills up to len bytes of buf and
 * returns how many (fewer only at the end of the input), or -1 with d set. */
typedef long long (*stripe_source)(void *ctx, void *buf, size_t len, struct diag *d);

/* Writes bytes from source into the array from offset off until the source
 * ends or len bytes are written, keeping mirrors and parity right: whole
 * rows are written without reading; partial rows are read, mended where a
 * member is missing or a page unreadable, merged and written back with
 * fresh P (and Q).  What a
 * missing member would hold stays recoverable from parity.  *written tells
 * how far it got, also on failure.  A row whose kept bytes more was lost
 * from than the level rebuilds stops the write before its batch is
 * written, unserved (diag_unserved): the rows before are whole on the
 * members, the array as consistent as before. */
int stripe_write(struct array *a, uint64_t off, uint64_t len, stripe_source source,
		 void *ctx, uint64_t *written, struct diag *d);

/* One piece of the array's bytes as it lies on a member. */
struct member_run {
	const struct member *member;
	uint64_t pos;                /* bytes from the start of the member */
	size_t len;
};

/* Where array bytes [off, off + len) lie on the members present, in array
 * order (adjacent pieces on one member joined), a mirrored piece on the
 * copy stripe_read would read.  For callers that move the bytes on their
 * own, such as stripe-map splicing them to a reader.  Returns how many runs
 * (at most max), or -1 when a piece is on no member present (a degraded
 * row: only parity gives it back) or when more than max runs are needed. */
int stripe_member_runs(struct array *a, uint64_t off, size_t len, struct member_run *r, int max);

/* An engine keeps its worker threads (one per member) from one call to
 * the next, for callers that make many small calls, such as stripe-map's
 * requests: starting and stopping a thread per member for each would cost
 * more than a small call's I/O.  stripe_read and stripe_write start one for
 * the call.  One call at a time per engine; several engines may work on one
 * array at once, on different stripe rows. */
struct stripe_engine {
	struct array *a;
	struct rows_engine rows;     /* its pool does every call's member I/O */
	struct stripe_buffers *buf;  /* made at the first call, kept until the stop */
};

void stripe_engine_start(struct stripe_engine *e, struct array *a);
void stripe_engine_stop(struct stripe_engine *e);
int stripe_engine_read(struct stripe_engine *e, uint64_t off, uint64_t len,
		       stripe_sink sink, void *ctx, struct diag *d);
int stripe_engine_write(struct stripe_engine *e, uint64_t off, uint64_t len, stripe_source source,
			void *ctx, uint64_t *written, struct diag *d);
/* The same for len bytes already in memory at data: written from where
 * they lie (the data chunks and parity are still built in the engine's
 * buffers, but the copy a source makes is saved). */
int stripe_engine_write_from(struct stripe_engine *e, uint64_t off, uint64_t len, const void *data,
			     uint64_t *written, struct diag *d);

#endif
