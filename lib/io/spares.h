/* spares: the buffers a write-behind queue takes writes into, made at the
 * start and kept from one write to the next, since fresh memory for each
 * write would cost a page fault per page. */
#ifndef STRIPE_SPARES_H
#define STRIPE_SPARES_H

#include <stddef.h>
#include <stdint.h>

#include "io/rangelock.h"
#include "io/writeq.h"

/* A write answered and queued: its bytes, and the hold on its rows that
 * it keeps until they are on the members. */
struct queued_write {
	struct writeq_item q;        /* first: a run of them is linked through it (cast back) */
	struct range_hold hold;
	int slot;                    /* among the writes being taken in, while its bytes come */
	size_t skip;                 /* bytes of data written before its rest was put back */
	size_t at;                   /* how much of the rest the writer has taken */
	bool put_back;               /* the rest of a run, put back once already */
	uint8_t data[];
};
_Static_assert(offsetof(struct queued_write, q) == 0, "a queue item is cast back to its write");

static inline struct queued_write *queued_write_of(struct writeq_item *it)
{
	return (struct queued_write *)it;
}

/* The free buffers, linked through their queue item; no lock of its own,
 * its owner's guards it. */
struct spares {
	struct queued_write *free;
	size_t bytes;                /* room for data in each */
};

/* n buffers of bytes each, touched now rather than at the first writes;
 * -1 when memory runs out (those made are kept, for spares_free). */
int spares_make(struct spares *s, int n, size_t bytes);
/* A free buffer, or NULL when all are taken. */
struct queued_write *spares_pop(struct spares *s);
void spares_put(struct spares *s, struct queued_write *w);
/* Frees the buffers given back; those still taken stay their holders'. */
void spares_free(struct spares *s);

#endif
