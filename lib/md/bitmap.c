/* bitmap: md's internal bitmap superblock, parsed and encoded, and the
 * count of its dirty bits; a new array's bitmap, chosen and written as
 * mdadm makes it. */
#include <stdlib.h>
#include <string.h>

#include "md/bitmap.h"
#include "md/layout.h"
#include "util/endian.h"

static void bitmap_decode(const uint8_t *b, struct md_bitmap *bm)
{
	bm->magic = get_le32(b);
	bm->version = get_le32(b + 4);
	memcpy(bm->uuid, b + 8, 16);
	bm->events = get_le64(b + 24);
	bm->events_cleared = get_le64(b + 32);
	bm->sync_size = get_le64(b + 40);
	bm->state = get_le32(b + 48);
	bm->chunksize = get_le32(b + 52);
	bm->daemon_sleep = get_le32(b + 56);
	bm->write_behind = get_le32(b + 60);
	bm->sectors_reserved = get_le32(b + 64);
	bm->nodes = get_le32(b + 68);
	memcpy(bm->cluster_name, b + 72, 64);
	bm->cluster_name[64] = 0;
}

void bitmap_encode(const struct md_bitmap *bm, uint8_t *b)
{
	memset(b, 0, BITMAP_HEADER_BYTES);
	put_le32(b, bm->magic);
	put_le32(b + 4, bm->version);
	memcpy(b + 8, bm->uuid, 16);
	put_le64(b + 24, bm->events);
	put_le64(b + 32, bm->events_cleared);
	put_le64(b + 40, bm->sync_size);
	put_le32(b + 48, bm->state);
	put_le32(b + 52, bm->chunksize);
	put_le32(b + 56, bm->daemon_sleep);
	put_le32(b + 60, bm->write_behind);
	put_le32(b + 64, bm->sectors_reserved);
	put_le32(b + 68, bm->nodes);
	memcpy(b + 72, bm->cluster_name, strnlen(bm->cluster_name, 64));
}

static uint64_t count_bits(const uint8_t *p, uint64_t nbits)
{
	uint64_t n = 0, i;

	for (i = 0; i < nbits; i++)
		n += (p[i / 8] >> (i % 8)) & 1;
	return n;
}

/* md's bits cover each member's sectors, but raid10's cover the array's
 * (its resync runs in array sectors): at most every member's worth. */
static uint64_t span_bound(const struct md_super *sb)
{
	if (sb->level == MD_LEVEL_RAID10 && sb->raid_disks > 0 && sb->raid_disks <= ST_MAX_DISKS)
		return sb->dev_sectors * (uint64_t)sb->raid_disks;
	return sb->dev_sectors;
}

int bitmap_sector(const struct dev *dv, const struct md_super *sb, uint64_t *sector, struct diag *d)
{
	if (sb->bitmap_offset < 0 && (uint64_t)-(int64_t)sb->bitmap_offset > sb->sb_sector)
		return diag_fail(d, "%s: bitmap offset %d sectors from the superblock at %llu is before the device",
				 dv->path, (int)sb->bitmap_offset, (unsigned long long)sb->sb_sector);
	*sector = sb->sb_sector + (uint64_t)(int64_t)sb->bitmap_offset;
	return 0;
}

int bitmap_read(struct dev *dv, const struct md_super *sb, struct md_bitmap *bm, struct diag *d)
{
	uint8_t head[4096], *bits;
	uint64_t bytes;
	int rc;

	memset(bm, 0, sizeof(*bm));
	if (!(sb->feature_map & SB1_FEAT_BITMAP_OFFSET))
		return 1;
	if (bitmap_sector(dv, sb, &bm->sector, d) < 0)
		return -1;
	if (bm->sector > dv->size / 512 || dv->size - bm->sector * 512 < sizeof(head))
		return diag_fail(d, "%s: bitmap at sector %llu runs past the end of the device", dv->path,
				 (unsigned long long)bm->sector);
	if (dev_read(dv, head, sizeof(head), bm->sector * 512, d) < 0)
		return -1;
	bitmap_decode(head, bm);
	if (bm->magic != BITMAP_MAGIC)
		return diag_fail(d, "%s: bitmap magic 0x%08x at sector %llu, expected 0x%08x",
				 dv->path, bm->magic, (unsigned long long)bm->sector, BITMAP_MAGIC);
	if (memcmp(bm->uuid, sb->uuid, 16) != 0 && sb->major == 1)
		return diag_fail(d, "%s: bitmap at sector %llu belongs to another array (UUID differs)",
				 dv->path, (unsigned long long)bm->sector);
	if (bm->version < BITMAP_VERSION_LO || bm->version > BITMAP_VERSION_HI)
		return diag_fail(d, "%s: bitmap version %u at sector %llu, md knows %d to %d", dv->path,
				 bm->version, (unsigned long long)bm->sector, BITMAP_VERSION_LO, BITMAP_VERSION_HI);
	if (bm->chunksize < 512 || (bm->chunksize & (bm->chunksize - 1)))
		return diag_fail(d, "%s: bitmap chunk size %u bytes is not a power of two >= 512",
				 dv->path, bm->chunksize);
	/* md refuses these two (md_bitmap_read_sb), so an array with them
	 * does not start */
	if (bm->daemon_sleep < 1)
		return diag_fail(d, "%s: bitmap daemon sleep of %u seconds, md wants at least 1", dv->path,
				 bm->daemon_sleep);
	if (bm->write_behind > BITMAP_WRITE_BEHIND_MAX)
		return diag_fail(d, "%s: bitmap write-behind limit %u, md allows 0 to %d", dv->path,
				 bm->write_behind, BITMAP_WRITE_BEHIND_MAX);
	/* sizes from disk: bounded before any sum or allocation is made of them */
	if (bm->sync_size > span_bound(sb))
		return diag_fail(d, "%s: bitmap covers %llu sectors, more than the %s's %llu", dv->path,
				 (unsigned long long)bm->sync_size, sb->level == MD_LEVEL_RAID10 ? "array" : "device",
				 (unsigned long long)span_bound(sb));
	bm->bits = bm->sync_size / (bm->chunksize / 512) + (bm->sync_size % (bm->chunksize / 512) != 0);
	bytes = (bm->bits + 7) / 8;
	if (bytes > (64u << 20))
		return diag_fail(d, "%s: bitmap of %llu bits is implausibly large", dv->path,
				 (unsigned long long)bm->bits);
	if (bm->sector * 512 + BITMAP_HEADER_BYTES + bytes > dv->size)
		return diag_fail(d, "%s: bitmap at sector %llu (%llu bytes of bits) runs past the end of the device",
				 dv->path, (unsigned long long)bm->sector, (unsigned long long)bytes);
	bits = malloc(bytes ? bytes : 1);
	if (!bits)
		return diag_fail(d, "%s: out of memory for the bitmap", dv->path);
	rc = dev_read(dv, bits, bytes, bm->sector * 512 + BITMAP_HEADER_BYTES, d);
	if (rc == 0)
		bm->dirty = count_bits(bits, bm->bits);
	free(bits);
	return rc;
}

/* mdadm's chunk rule: double the chunk from md's least until the bits fit
 * in the room (mdadm counts one bit more than the chunks, and halves the
 * count with each doubling, rounded up). */
static uint64_t least_chunk(uint64_t sync_size, uint64_t room_sectors)
{
	uint64_t max_bits = (room_sectors * 512 - BITMAP_HEADER_BYTES) * 8;
	uint64_t chunk = BITMAP_CHUNK_MIN, bits = sync_size * 512 / BITMAP_CHUNK_MIN + 1;

	while (bits > max_bits) {
		chunk *= 2;
		bits = (bits + 1) / 2;
	}
	return chunk;
}

int bitmap_new(struct md_bitmap *bm, const uint8_t uuid[16], uint64_t sync_size,
	       uint32_t chunk, uint64_t room_sectors, uint64_t events, struct diag *d)
{
	uint64_t least;

	memset(bm, 0, sizeof(*bm));
	if (room_sectors * 512 <= BITMAP_HEADER_BYTES)
		return diag_fail(d, "no room for a write-intent bitmap: %llu sectors left for it",
				 (unsigned long long)room_sectors);
	least = least_chunk(sync_size, room_sectors);
	if (least > UINT32_MAX / 2 + 1)
		return diag_fail(d, "a bitmap of %llu sectors would need chunks over 2 GiB",
				 (unsigned long long)sync_size);
	if (chunk && chunk < least)
		return diag_fail(d, "--bitmap-chunk %uK is too small: %llu KiB of bitmap room needs at least %lluK to cover %llu KiB",
				 chunk / 1024, (unsigned long long)room_sectors / 2,
				 (unsigned long long)least / 1024, (unsigned long long)sync_size / 2);
	if (!chunk)
		chunk = least > BITMAP_CHUNK_DEFAULT ? (uint32_t)least : BITMAP_CHUNK_DEFAULT;
	bm->magic = BITMAP_MAGIC;
	bm->version = BITMAP_VERSION_NEW;
	memcpy(bm->uuid, uuid, 16);
	bm->events = bm->events_cleared = events;
	bm->sync_size = sync_size;
	bm->chunksize = chunk;
	bm->daemon_sleep = BITMAP_DAEMON_SLEEP;
	bm->bits = (sync_size * 512 + chunk - 1) / chunk;
	return 0;
}

uint64_t bitmap_bytes(const struct md_bitmap *bm, uint64_t align)
{
	uint64_t bytes = BITMAP_HEADER_BYTES + (bm->bits + 7) / 8;

	return (bytes + align - 1) / align * align;
}

int bitmap_write_new(struct dev *dv, uint64_t sector, const struct md_bitmap *bm,
		     uint64_t room_bytes, struct diag *d)
{
	uint64_t bytes = (room_bytes + 4095) / 4096 * 4096, i;
	uint8_t *buf;
	int rc;

	if (!(buf = dev_alloc(bytes)))
		return diag_fail(d, "%s: out of memory (%llu bytes) for a new bitmap", dv->path,
				 (unsigned long long)bytes);
	/* mdadm fills the room with ones; md clears a chunk's bit once the
	 * chunk is in sync, which every chunk of a new array is */
	memset(buf, 0xff, bytes);
	bitmap_encode(bm, buf);
	for (i = 0; i < bm->bits; i++)
		buf[BITMAP_HEADER_BYTES + i / 8] &= (uint8_t)~(1u << (i % 8));
	rc = dev_write(dv, buf, room_bytes, sector * 512, d);
	free(buf);
	return rc;
}
