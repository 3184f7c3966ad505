/* badblocks: decode md's bad-block log: le64 entries, start in the high 54
 * bits and length in the low 10, both in units of 1 << bblog_shift sectors. */
#include <stdlib.h>
#include <string.h>

#include "md/badblocks.h"
#include "util/endian.h"

int badblocks_read(struct dev *dv, const struct md_super *sb, struct badblocks *bb, struct diag *d)
{
	const struct sb1 *r = &sb->raw.v1;
	size_t bytes;
	uint8_t *buf;
	int i;

	memset(bb, 0, sizeof(*bb));
	if (sb->major != 1 || r->bblog_size == 0 || r->bblog_offset == 0)
		return 1;
	bb->sector = sb->sb_sector + (uint64_t)(int64_t)(int32_t)r->bblog_offset;
	bb->capacity = r->bblog_size * 512 / 8;
	bytes = (size_t)r->bblog_size * 512;
	if (bb->sector * 512 + bytes > dv->size)
		return diag_fail(d, "%s: bad-block log at sector %llu (%u sectors) runs past the end of the device",
				 dv->path, (unsigned long long)bb->sector, r->bblog_size);
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
