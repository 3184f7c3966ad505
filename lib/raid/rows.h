/* rows: the one walk over the stripe rows of a RAID4/5/6 array, a range of
 * member bytes at a time, finding unreadable pages and mending them from
 * P/Q, and handing each piece of a row to the caller (or, for a write,
 * whole rows to fill, written back after). */
#ifndef STRIPE_ROWS_H
#define STRIPE_ROWS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "md/array.h"
#include "io/memberio.h"
#include "io/pool.h"
#include "util/diag.h"

/* The unit a read error takes out, a piece is mended in and check
 * compares. */
#define ROWS_PAGE MEMBER_PAGE

/* Memory for the batches of every member together, two batches (one being
 * read, one being handed out): a batch covers budget / (2 * members) bytes
 * of each member, so memory no longer grows with the member count. */
#define ROWS_BUDGET (32u << 20)
/* image files' member I/O jobs of no more bytes than this run in the caller */
#define ROWS_HERE_BYTES (512u << 10)

/* A member's share of one batch at most (and a window's share per
 * member): on a page-cached RAID6 4 MiB checked slower than 1 MiB (the
 * parity pass no longer finds in cache what the reads just copied) and
 * 512 KiB no faster. */
#define ROWS_MEMBER_MAX (1u << 20)

/* [at, at + len) of one chunk of a row, on every member: member byte
 * row * chunk + at of each member's data area. */
struct rows_piece {
	uint64_t row;
	size_t at;                       /* bytes into the chunk, whole pages */
	size_t len;                      /* whole pages */
	const struct stripe_map *map;
	/* Per role: the piece's bytes.  A missing role's are zero, or mended
	 * when the walk mends. */
	uint8_t *block[ST_MAX_DISKS];
	/* Per role and page of the piece: nonzero where the role is missing
	 * or its page could not be read (mended or not). */
	const uint8_t *lost[ST_MAX_DISKS];
	/* Walks that mend: per page, nonzero where more was lost than the
	 * level rebuilds, so the page holds no trustworthy bytes. */
	const uint8_t *beyond;
	int nbeyond;                     /* how many such pages */
	uint8_t *zero;                   /* zeroes, the piece's length: DDF's empty slots */
	uint64_t batch;                  /* member byte where the piece's batch starts */
	bool last;                       /* the batch's last piece: its buffers are reused after */
};

typedef int (*rows_visit)(void *ctx, struct rows_piece *p, struct diag *d);

struct rows_walk {
	struct array *a;
	uint64_t from, to;               /* member bytes of the data area, whole pages */
	bool mend;                       /* rebuild lost pages from P/Q before the visit */
	size_t member_bytes;             /* a member's share of a batch; 0: from ROWS_BUDGET */
	int workers;                     /* threads reading the members; 0: one a role */
	rows_visit visit;                /* returns 0 to go on */
	void *ctx;
	uint64_t read_errors;            /* out: pages of present members that could not be read */

	/* A write: the visit fills every block of each piece (data and
	 * parity), and the engine writes each batch to every present member
	 * after its visits.  Batches are whole rows (from and to too), each
	 * piece a whole chunk of a row, so the visit can take a stream in
	 * array order.  A batch is read first (and mended, with mend) only
	 * where keep says it holds bytes the write leaves as they are.  A
	 * visit may end the walk early by lowering to to a row's end: nothing
	 * past it is written. */
	bool fill;
	bool (*keep)(void *ctx, uint64_t pos, size_t len);
	uint64_t written;                /* out: [from, written) is on every present member */
};

struct rows_batch;

/* An engine keeps its worker pool (a thread per member) and its batch
 * buffers from one walk to the next, for callers that walk many short
 * ranges (a read mending a chunk at a time, stripe-map's requests), where
 * threads and fresh memory for each would cost more than the walk's I/O.
 * The buffers are made at the first walk.  One walk at a time. */
struct rows_engine {
	struct array *a;
	int n;                           /* roles */
	size_t chunk, bytes;             /* bytes: a member's share of a reading walk's batch */
	size_t stride;                   /* a member's share of a batch in the walk under way */
	int nbatches;                    /* 2, or 1 for a write whose row is over the budget */
	struct rows_batch *batch;        /* two, made at the first walk */
	size_t room, piece_room;         /* bytes the arena holds; the longest piece beyond and zero hold */
	uint8_t *arena;                  /* every batch buffer, in one allocation */
	uint8_t *bad;                    /* every batch's lost flags */
	uint8_t *beyond;                 /* per page of the piece being mended */
	uint8_t *zero;                   /* a zero run of the longest piece (DDF slots) */
	struct pool pool;                /* also for the caller's own jobs between walks */
	size_t here_bytes;               /* jobs of no more bytes than this run in the caller */
	struct rows_walk *w;             /* the walk under way */
};

/* member_bytes: a member's share of a batch, 0 for rows_batch_bytes of
 * ROWS_BUDGET; workers: threads for the members' I/O, 0 for
 * rows_io_workers of every CPU.  A walk's own member_bytes and workers are
 * ignored on an engine. */
void rows_engine_start(struct rows_engine *e, struct array *a, size_t member_bytes, int workers);

/* Threads worth having for the members' I/O: one a role when any member is
 * a block device, a disk that works while the others do; for image files
 * no more than cpus, their I/O being a copy from the page cache that more
 * threads than CPUs would only take turns at. */
int rows_io_workers(const struct array *a, int cpus);
void rows_engine_stop(struct rows_engine *e);
/* Starts a job of member I/O moving bytes in all on the pool, or runs it
 * at once in the caller when it is small; pool_wait collects it either way. */
void rows_engine_submit(struct rows_engine *e, void (*run)(void *item), void *items, size_t size, size_t bytes);
int rows_engine_walk(struct rows_engine *e, struct rows_walk *w, struct diag *d);

/* The bytes of each member a batch covers for an array of n members with
 * this chunk: from the budget, at most ROWS_MEMBER_MAX, never below a
 * page, and either whole chunks or a part that divides a chunk, so no
 * piece straddles two batches unevenly. */
size_t rows_batch_bytes(int n, size_t chunk, size_t budget);

/* Reads [from, to) of every present member on the shared worker pool, a
 * batch at a time, double buffered, and calls visit for each piece in
 * member order.  Fails with visit's failure, or out of memory.  An engine
 * for this one walk. */
int rows_walk(struct rows_walk *w, struct diag *d);

#endif
