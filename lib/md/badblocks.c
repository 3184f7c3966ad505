/* badblocks: md's bad-block log, read and written: le64 entries, start in
 * the high 54 bits and length in the low 10, both in units of
 * 1 << bblog_shift sectors, then all-ones filler. */
#include <stdlib.h>
#include <string.h>

#include "md/badblocks.h"
#include "util/endian.h"

#define BBLOG_MAX_LEN 512            /* sectors per entry, as the kernel writes them */

/* Where the log lies, in sectors: within the device and clear of the data
 * area, or it is refused; a log read from elsewhere is not md's, and one
 * written there would overwrite what the member holds. */
static int log_place(const struct dev *dv, const struct md_super *sb, uint64_t *sector, struct diag *d)
{
	const struct sb1 *r = &sb->raw.v1;
	int32_t off = (int32_t)r->bblog_offset;
	uint64_t at, end;

	if (off < 0 && (uint64_t)-(int64_t)off > sb->sb_sector)
		return diag_fail(d, "%s: bad-block log offset %d sectors from the superblock at %llu is before the device",
				 dv->path, (int)off, (unsigned long long)sb->sb_sector);
	at = sb->sb_sector + (uint64_t)(int64_t)off;
	end = at + r->bblog_size;
	if (at > dv->size / 512 || dv->size / 512 - at < r->bblog_size)
		return diag_fail(d, "%s: bad-block log at sector %llu (%u sectors) runs past the end of the device",
				 dv->path, (unsigned long long)at, r->bblog_size);
	if (at < sb->data_offset + sb->data_size && end > sb->data_offset)
		return diag_fail(d, "%s: bad-block log at sector %llu (%u sectors) lies in the data area (sectors %llu to %llu)",
				 dv->path, (unsigned long long)at, r->bblog_size, (unsigned long long)sb->data_offset,
				 (unsigned long long)(sb->data_offset + sb->data_size));
	*sector = at;
	return 0;
}

int badblocks_read(struct dev *dv, const struct md_super *sb, struct badblocks *bb, struct diag *d)
{
	const struct sb1 *r = &sb->raw.v1;
	size_t bytes;
	uint8_t *buf;
	int i;

	memset(bb, 0, sizeof(*bb));
	if (sb->major != 1 || r->bblog_size == 0 || r->bblog_offset == 0)
		return 1;
	/* an entry's start is 54 bits: a shift past 10 could carry it out of
	 * 64; md writes 0 */
	if (r->bblog_shift > 10)
		return diag_fail(d, "%s: bad-block log shift %u, expected at most 10", dv->path, r->bblog_shift);
	if (log_place(dv, sb, &bb->sector, d) < 0)
		return -1;
	bb->capacity = r->bblog_size * 512 / 8;
	bytes = (size_t)r->bblog_size * 512;
	buf = malloc(bytes);
	bb->ranges = calloc((size_t)bb->capacity, sizeof(*bb->ranges));
	if (!buf || !bb->ranges) {
		free(buf);
		badblocks_free(bb);
		return diag_fail(d, "%s: out of memory for the bad-block log", dv->path);
	}
	if (dev_read(dv, buf, bytes, bb->sector * 512, d) < 0) {
		free(buf);
		badblocks_free(bb);
		return -1;
	}
	/* The kernel writes the list only while BAD_BLOCKS is set; otherwise
	 * what is on disk is filler, not entries. */
	for (i = 0; (sb->feature_map & SB1_FEAT_BAD_BLOCKS) && i < bb->capacity; i++) {
		uint64_t e = get_le64(buf + 8 * (size_t)i);

		if (e == UINT64_MAX)
			break;
		bb->ranges[bb->count].start = (e >> 10) << r->bblog_shift;
		bb->ranges[bb->count].len = (e & 0x3ff) << r->bblog_shift;
		bb->count++;
	}
	free(buf);
	return 0;
}

void badblocks_free(struct badblocks *bb)
{
	free(bb->ranges);
	bb->ranges = NULL;
	bb->count = 0;
}

/* Fills the log's bytes with the ranges, each cut into entries of at most
 * BBLOG_MAX_LEN sectors; -1 when they need more than cap entries. */
static int encode_ranges(uint8_t *buf, size_t cap, const struct bad_range *bad, int nbad)
{
	size_t k = 0;
	int i;

	for (i = 0; i < nbad; i++) {
		uint64_t s = bad[i].start, left = bad[i].len;

		while (left && k < cap) {
			uint64_t len = left < BBLOG_MAX_LEN ? left : BBLOG_MAX_LEN;

			put_le64(buf + 8 * k++, s << 10 | len);
			s += len;
			left -= len;
		}
		if (left)
			return -1;
	}
	return 0;
}

int badblocks_write(struct dev *dv, struct md_super *sb, const struct bad_range *bad, int nbad,
		    struct diag *d)
{
	struct sb1 *r = &sb->raw.v1;
	size_t bytes = (size_t)r->bblog_size * 512;
	uint64_t at;
	uint8_t *buf;
	int rc;

	if (!nbad || sb->major != 1)
		return 0;
	if (!r->bblog_size || !r->bblog_offset)
		return diag_fail(d, "%s: %d unrecoverable ranges, and the superblock has no bad-block log to record them",
				 dv->path, nbad);
	if (log_place(dv, sb, &at, d) < 0)
		return -1;
	at *= 512;
	if (!(buf = dev_alloc(bytes)))
		return diag_fail(d, "%s: out of memory (%zu bytes) for its bad-block log", dv->path, bytes);
	memset(buf, 0xff, bytes);
	if (encode_ranges(buf, bytes / 8, bad, nbad) < 0) {
		free(buf);
		return diag_fail(d, "%s: the bad-block log holds %zu entries, too few for the unrecoverable ranges",
				 dv->path, bytes / 8);
	}
	rc = dev_write(dv, buf, bytes, at, d);
	free(buf);
	r->feature_map |= SB1_FEAT_BAD_BLOCKS;
	return rc;
}
