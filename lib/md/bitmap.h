/* bitmap: md's internal write-intent bitmap (bitmap_super_t and its bits). */
#ifndef STRIPE_BITMAP_H
#define STRIPE_BITMAP_H

#include <stdint.h>

#include "io/dev.h"
#include "util/diag.h"
#include "md/super.h"

#define BITMAP_MAGIC 0x6d746962u
#define BITMAP_VERSION_LO 3          /* md's BITMAP_MAJOR_LO ... */
#define BITMAP_VERSION_HI 5          /* ... to BITMAP_MAJOR_CLUSTERED */
#define BITMAP_WRITE_BEHIND_MAX 16383  /* md's COUNTER_MAX */
#define BITMAP_HEADER_BYTES 256      /* bitmap_super_t; the bits follow it */

enum bitmap_state {
	BITMAP_STALE = 1 << 1,
	BITMAP_WRITE_ERROR = 1 << 2,
	BITMAP_FIRST_USE = 1 << 3,
	BITMAP_CLEAN = 1 << 4,
	BITMAP_DAEMON_BUSY = 1 << 5,
	BITMAP_HOSTENDIAN = 1 << 15,
};

struct md_bitmap {
	uint64_t sector;             /* where the bitmap superblock is on the member */
	uint32_t magic, version;
	uint8_t uuid[16];
	uint64_t events, events_cleared, sync_size;
	uint32_t state, chunksize, daemon_sleep, write_behind, sectors_reserved, nodes;
	char cluster_name[65];
	uint64_t bits;               /* chunks covered */
	uint64_t dirty;              /* bits set */
};

/* Reads the bitmap that sb points at.  Returns 1 if the member has none,
 * 0 when read, -1 on error (I/O, bad magic, UUID not the array's). */
int bitmap_read(struct dev *dv, const struct md_super *sb, struct md_bitmap *bm, struct diag *d);

/* The 256-byte bitmap_super_t of bm, as md lays it out (bits not included). */
void bitmap_encode(const struct md_bitmap *bm, uint8_t *b);

/* Copies the bitmap from_sb points at on from to where to_sb points on to,
 * so md finds one there.  Returns 0 (also when from has none), -1 on error. */
int bitmap_copy(struct dev *from, const struct md_super *from_sb, struct dev *to,
		const struct md_super *to_sb, struct diag *d);

#endif
