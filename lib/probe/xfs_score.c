/* xfs_score: an XFS judged through a geometry by its allocation group
 * headers.  Each carries its group's number (v5: a CRC and the UUID too),
 * so a header a wrong geometry reads from another place fails.  A few
 * sectors per group: the headers of up to MAX_AGS groups are read. */
#include <stdio.h>
#include <string.h>

#include "probe/fs_score.h"
#include "probe/xfs_score.h"
#include "raid/stripe.h"

#define MAX_AGS 64

struct fill {
	uint8_t *p;
};

static int fill_sink(void *ctx, const void *buf, size_t len, struct diag *d)
{
	struct fill *f = ctx;

	memcpy(f->p, buf, len);
	f->p += len;
	return 0;
}

/* The three headers at a group's start, in its first sectors. */
static void count_group(struct array *a, const struct xfs_sb *sb, uint64_t fs_offset, uint32_t g,
			struct xfs_tally *t)
{
	static const enum xfs_header kinds[] = { XFS_SB, XFS_AGF, XFS_AGI };
	uint8_t raw[3 * XFS_SECTOR_MAX];
	struct fill f = { raw };
	struct diag d;
	uint64_t at = fs_offset + xfs_header_offset(sb, g, XFS_SB), len = 3ull * sb->sector_size;

	t->expected += 3;
	if (at + len > a->geo.array_sectors * 512 || stripe_read(a, at, len, fill_sink, &f, &d) < 0)
		return;
	t->bytes_read += len;
	for (int k = 0; k < 3; k++)
		t->verified += xfs_header_check(sb, kinds[k], g, raw + (size_t)k * sb->sector_size);
}

int xfs_score(struct probe_sample *s, const struct geometry_spec *spec, uint64_t fs_offset,
	      const struct xfs_sb *sb, struct xfs_tally *t, struct diag *d)
{
	struct array a;

	memset(t, 0, sizeof(*t));
	int n = probe_array_open(s, spec, &a, d);
	if (n < 0)
		return -1;
	for (uint32_t g = 0; g < sb->ag_count && g < MAX_AGS; g++) {
		unsigned before = t->verified;
		count_group(&a, sb, fs_offset, g, t);
		if (g == 0)
			t->opened = t->verified - before == 3;
	}
	s->bytes_read += t->bytes_read / (uint64_t)(n ? n : 1);
	array_close(&a);
	return 0;
}

double xfs_tally_score(const struct xfs_tally *t)
{
	return t->opened && t->expected ? (double)t->verified / t->expected : 0;
}

void xfs_tally_line(const struct xfs_tally *t, char *buf, size_t len)
{
	if (!t->opened)
		snprintf(buf, len, "XFS: no allocation group 0 where this geometry puts the filesystem's start");
	else
		snprintf(buf, len, "XFS: %u/%u allocation group headers verified where this geometry puts them",
			 t->verified, t->expected);
}
