/* writeq: the order rules of a write-behind queue.  Queued writes are
 * taken as runs that meet end to end, whatever order they were queued in,
 * but a write never goes ahead of an earlier one it overlaps: the later
 * bytes must be the ones left. */
#ifndef STRIPE_WRITEQ_H
#define STRIPE_WRITEQ_H

#include <stdbool.h>
#include <stdint.h>

/* Embedded in whatever holds a queued write's bytes. */
struct writeq_item {
	struct writeq_item *next;
	uint64_t off, len;           /* array bytes */
};

struct writeq {
	struct writeq_item *head, *tail;
};

void writeq_push(struct writeq *q, struct writeq_item *it);

/* Takes the head and every queued write that extends the run at either
 * end and may be written now, keeping the run within max bytes.  Returns
 * the run linked in array order (its first item lowest), with *n items
 * and *len bytes; NULL when the queue is empty. */
struct writeq_item *writeq_take_run(struct writeq *q, uint64_t max, int *n, uint64_t *len);

/* Puts back the writes of a run (linked by next) that were not written:
 * behind the writes queued since, when none of those overlaps one of them,
 * so that the writes ahead go first and a write that comes meanwhile may
 * still join them; else at the front, where they came from (none of the
 * writes left ahead of them there overlaps them, or they could not have
 * been taken). */
void writeq_put_back(struct writeq *q, struct writeq_item *first);

/* Where the run writeq_take_run would take now lies: [*lo, *hi) in array
 * bytes; false when the queue is empty. */
bool writeq_peek_run(const struct writeq *q, uint64_t max, uint64_t *lo, uint64_t *hi);

#endif
