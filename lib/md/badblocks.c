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

/* Fills the log's bytes with the ranges, in units of 1 << shift sectors
 * (each range widened to whole units), each cut into entries of at most
 * BBLOG_MAX_LEN units; -1 when they need more than cap entries. */
static int encode_ranges(uint8_t *buf, size_t cap, const struct bad_range *bad, int nbad, unsigned shift)
{
	uint64_t unit = (uint64_t)1 << shift;
	size_t k = 0;
	int i;

	for (i = 0; i < nbad; i++) {
		uint64_t s = bad[i].start >> shift, left = (bad[i].start + bad[i].len + unit - 1) / unit - s;

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

/* The log's bytes for the ranges, written where the log lies. */
static int write_log(struct dev *dv, const struct md_super *sb, const struct bad_range *bad, int nbad,
		     struct diag *d)
{
	const struct sb1 *r = &sb->raw.v1;
	size_t bytes = (size_t)r->bblog_size * 512;
	uint64_t at;
	uint8_t *buf;
	int rc;

	if (log_place(dv, sb, &at, d) < 0)
		return -1;
	if (!(buf = dev_alloc(bytes)))
		return diag_fail(d, "%s: out of memory (%zu bytes) for its bad-block log", dv->path, bytes);
	memset(buf, 0xff, bytes);
	if (encode_ranges(buf, bytes / 8, bad, nbad, r->bblog_shift) < 0) {
		free(buf);
		return diag_fail(d, "%s: the bad-block log holds %zu entries, too few for the unrecoverable ranges",
				 dv->path, bytes / 8);
	}
	rc = dev_write(dv, buf, bytes, at * 512, d);
	free(buf);
	return rc;
}

int badblocks_write(struct dev *dv, struct md_super *sb, const struct bad_range *bad, int nbad,
		    struct diag *d)
{
	struct sb1 *r = &sb->raw.v1;

	if (!nbad || sb->major != 1)
		return 0;
	if (!r->bblog_size || !r->bblog_offset)
		return diag_fail(d, "%s: %d unrecoverable ranges, and the superblock has no bad-block log to record them",
				 dv->path, nbad);
	if (write_log(dv, sb, bad, nbad, d) < 0)
		return -1;
	r->feature_map |= SB1_FEAT_BAD_BLOCKS;
	return 0;
}

/* The part of [s, e) left after every range of done, appended to out
 * (*n of them); done is in order. */
static void subtract_one(uint64_t s, uint64_t e, const struct bad_range *done, int ndone,
			 struct bad_range *out, int *n)
{
	int i;

	for (i = 0; i < ndone && s < e; i++) {
		uint64_t ds = done[i].start, de = ds + done[i].len;

		if (de <= s || ds >= e)
			continue;
		if (ds > s)
			out[(*n)++] = (struct bad_range){ s, ds - s };
		s = de;
	}
	if (s < e)
		out[(*n)++] = (struct bad_range){ s, e - s };
}

/* An emptied log is no longer in use: the kernel's super_1_sync starts
 * from a feature map of 0 and sets BAD_BLOCKS only while entries are
 * left, so md's next superblock write drops the bit (and mdadm
 * --examine-badblocks says the list is empty).  Nothing else may write
 * this superblock (a repair of part of the array), so it is written now. */
static int log_emptied(struct dev *dv, struct md_super *sb, struct diag *d)
{
	sb->raw.v1.feature_map &= ~(uint32_t)SB1_FEAT_BAD_BLOCKS;
	super_seal(sb);
	return super_write(dv, sb, d);
}

int badblocks_clear(struct dev *dv, struct md_super *sb, const struct bad_range *done, int ndone,
		    int *cleared, struct diag *d)
{
	struct bad_range *left;
	struct badblocks bb;
	int rc, i, n = 0;

	*cleared = 0;
	if ((rc = badblocks_read(dv, sb, &bb, d)) != 0)
		return rc < 0 ? -1 : 0;
	/* each range of done splits an entry in two at most */
	left = calloc((size_t)bb.count + (size_t)ndone + 1, sizeof(*left));
	if (!left) {
		badblocks_free(&bb);
		return diag_fail(d, "%s: out of memory for the bad-block log", dv->path);
	}
	for (i = 0; i < bb.count; i++) {
		int before = n;

		if (!bb.ranges[i].len)
			continue;            /* names nothing: no entry to clear */

		subtract_one(bb.ranges[i].start, bb.ranges[i].start + bb.ranges[i].len, done, ndone, left, &n);
		if (n != before + 1 || left[before].len != bb.ranges[i].len)
			(*cleared)++;
	}
	rc = *cleared ? write_log(dv, sb, left, n, d) : 0;
	if (rc == 0 && *cleared && n == 0)
		rc = log_emptied(dv, sb, d);
	free(left);
	badblocks_free(&bb);
	return rc;
}
