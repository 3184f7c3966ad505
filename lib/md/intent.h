/* intent: md's write-intent bitmap kept as md keeps it while stripe
 * writes: a region's bit on disk before its data, the bitmap's events in
 * step with the superblocks', bits cleared only while the array is whole. */
#ifndef STRIPE_INTENT_H
#define STRIPE_INTENT_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "util/diag.h"
#include "md/bitmap.h"

struct array;
struct member;

struct intent {
	struct md_bitmap bm;         /* header; events as the members' bitmaps will say */
	uint64_t sectors_per_bit;
	uint8_t *bits;               /* every member's bits; md keeps them alike */
	size_t bytes;                /* of bits */
	pthread_mutex_t lock;        /* writers on several engines mark at once */
};

/* Loads the array's bitmap from its first in-sync member into a->intent,
 * once; nothing when the array keeps none.  Every writer calls it (through
 * array_mark or recovery_begin) before its first write. */
int intent_open(struct array *a, struct diag *d);
void intent_close(struct array *a);

/* Sets the bits of sectors [sector, sector + count) of the space md's
 * bitmap counts (member sectors; array sectors for raid10) and, when any
 * was clear, writes them to every in-sync member and syncs before
 * returning: the caller writes the data after.  Safe from several
 * threads. */
int intent_mark(struct array *a, uint64_t sector, uint64_t count, struct diag *d);

/* md writes the bitmap's superblock with every superblock: writes m's
 * bitmap (header with events, and the bits) as the array's intent holds
 * it.  Nothing for an array without a bitmap. */
int intent_stamp(struct array *a, struct member *m, uint64_t events, struct diag *d);

/* mdadm --add writes a new spare's bitmap itself, before md takes the
 * spare in: the header of a member's bitmap as mdadm read it (its events
 * from before the add), then every bit set, to a whole 4 KiB.  md writes
 * bitmaps only to members holding a role, so the spare keeps that.  Call
 * it before any intent_stamp moves the header's events. */
int intent_seed_spare(struct array *a, struct member *m, struct diag *d);

/* The array is whole and its writes done, as when md's bitmap daemon runs:
 * every bit cleared and events_cleared raised to events (written by the
 * next intent_stamp of each member).  Not for a degraded array: its bits
 * are what lets a returning member be recovered from the bitmap alone. */
void intent_clear(struct array *a, uint64_t events);

/* md's bitmap-based recovery done with the array whole: every bit cleared,
 * events_cleared left where it was (md_bitmap_end_sync clears bits; only a
 * write to the whole array moves events_cleared). */
void intent_clear_bits(struct array *a);

#endif
