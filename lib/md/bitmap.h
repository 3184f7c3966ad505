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
#define BITMAP_VERSION_NEW 4         /* what mdadm writes: BITMAP_MAJOR_HI */
#define BITMAP_DAEMON_SLEEP 5        /* seconds: mdadm's DEFAULT_BITMAP_DELAY */
#define BITMAP_CHUNK_MIN 4096u       /* bytes: md cannot use sub-page chunks */
#define BITMAP_CHUNK_DEFAULT (64u << 20)   /* bytes: mdadm's least default chunk */

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

/* The sector sb puts its bitmap at (bitmap_offset from the superblock);
 * fails naming the member when that lies before the device. */
int bitmap_sector(const struct dev *dv, const struct md_super *sb, uint64_t *sector, struct diag *d);

/* Reads the bitmap that sb points at.  Returns 1 if the member has none,
 * 0 when read, -1 on error (I/O, bad magic, UUID not the array's). */
int bitmap_read(struct dev *dv, const struct md_super *sb, struct md_bitmap *bm, struct diag *d);

/* The 256-byte bitmap_super_t of bm, as md lays it out (bits not included). */
void bitmap_encode(const struct md_bitmap *bm, uint8_t *b);

/* A new bitmap covering sync_size sectors, as mdadm's add_internal_bitmap
 * makes it: chunk bytes as asked (0: mdadm's default, the smallest power of
 * two whose bits fit in room_sectors and at least 64 MiB), no bit set, and
 * events and events_cleared both at events, the two being equal in every
 * new array md has run (mdadm writes 0 and 0, with superblocks at 0).
 * Fails when room_sectors holds no bitmap or the chunk asked for needs
 * more bits than fit there. */
int bitmap_new(struct md_bitmap *bm, const uint8_t uuid[16], uint64_t sync_size,
	       uint32_t chunk, uint64_t room_sectors, uint64_t events, struct diag *d);

/* Bytes bm takes on the device, its superblock and bits rounded up to
 * align (mdadm's calc_bitmap_size). */
uint64_t bitmap_bytes(const struct md_bitmap *bm, uint64_t align);

/* Writes bm at sector of dv: its superblock and bits (all clear,
 * the array being consistent), and the rest of room_bytes as mdadm fills
 * it, all ones. */
int bitmap_write_new(struct dev *dv, uint64_t sector, const struct md_bitmap *bm,
		     uint64_t room_bytes, struct diag *d);


#endif
