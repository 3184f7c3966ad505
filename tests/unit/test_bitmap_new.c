/* test_bitmap_new: a new array's bitmap chosen by mdadm's rule, checked
 * against what mdadm 4.2 made in ../shared/mdvm (tests/fixtures/md-writes/
 * *bitmap* MANIFESTs): its chunk, bits and size on disk, and the chunks
 * too small for the room it has. */
#include <stdint.h>
#include <string.h>

#include "md/bitmap.h"
#include "tap.h"

static const uint8_t uuid[16] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };

/* bitmap_new with room sectors of room; the chunk it took, or 0 if refused */
static uint32_t chunk_for(uint64_t sync_size, uint32_t asked, uint64_t room, struct md_bitmap *bm,
			  struct diag *d)
{
	return bitmap_new(bm, uuid, sync_size, asked, room, 1, d) == 0 ? bm->chunksize : 0;
}

int main(void)
{
	struct md_bitmap bm;
	struct diag d;

	/* r5-4d-64k-1.2-bitmap: 7 MiB members, 4 KiB of room */
	ok(chunk_for(14336, 0, 8, &bm, &d) == 64u << 20 && bm.bits == 1,
	   "a small array gets mdadm's least default chunk, 64 MiB, and one bit");
	ok(bitmap_bytes(&bm, 4096) == 4096, "its superblock and bit take one 4 KiB block");
	ok(bm.magic == BITMAP_MAGIC && bm.version == 4 && bm.daemon_sleep == 5 && bm.write_behind == 0 &&
	   !memcmp(bm.uuid, uuid, 16) && bm.sync_size == 14336,
	   "magic, version 4, 5 s daemon sleep, no write-behind, the UUID and sectors given");
	ok(bm.events == 1 && bm.events_cleared == 1 && bm.state == 0,
	   "events and events cleared at the events given, state 0");
	/* r5-3d-64k-1.2-bitmap4k */
	ok(chunk_for(14336, 4096, 8, &bm, &d) == 4096 && bm.bits == 1792, "--bitmap-chunk 4K gives 1792 bits");
	/* r1-2d-210g-1.2-bitmap: 128 KiB of room, but 64 MiB chunks need 420 bytes */
	ok(chunk_for(440137728, 0, 256, &bm, &d) == 64u << 20 && bm.bits == 3358 &&
	   bitmap_bytes(&bm, 4096) == 4096, "210 GiB members: 3358 bits of 64 MiB in one 4 KiB block");
	/* r1-2d-120g-1.2-bitmap1m: the bad-block log follows 32 sectors of bitmap */
	ok(chunk_for(251525120, 1u << 20, 128, &bm, &d) == 1u << 20 && bm.bits == 122815 &&
	   bitmap_bytes(&bm, 4096) == 16384, "120 GiB members with 1 MiB chunks: 122815 bits in 16 KiB");
	/* 512 TiB in 128 KiB of room: 2^20 bits of 512 MiB are 2048 too many */
	ok(chunk_for(1ULL << 40, 0, 256, &bm, &d) == 1u << 30, "a chunk past 64 MiB when the bits need it");
	ok(chunk_for(409600, 4096, 8, &bm, &d) == 0 && strstr(d.msg, "at least 8K"),
	   "a chunk too small for the room is refused with the least that fits: %s", d.msg);
	ok(chunk_for(409600, 8192, 8, &bm, &d) == 8192, "the least that fits is taken");
	ok(chunk_for(100, 0, 0, &bm, &d) == 0 && strstr(d.msg, "no room"), "no room, no bitmap: %s", d.msg);
	return tap_done();
}
