/* backup: the primary superblock an ext4 backup copy stands for.  A copy
 * in group g lies at the array byte g's first block; the member byte it
 * was found at, less a data offset, is where a geometry keeps that array
 * byte: some chunk's offset and row.  The anchors later judge each data
 * offset that fits (anchor.c).  A RAID6's Q keeps a copy too, times its
 * syndrome coefficient, where the copy's row is otherwise empty: with its
 * data member and P both absent, that copy is what is left. */
#include "probe/backup.h"
#include "probe/offsets.h"

#define MIN_CHUNK_BYTES 4096u
#define MAX_CHUNK_BYTES (1u << 20)

/* Could a striped geometry of up to n members (RAID0/4/5/6, RAID10's near
 * copies) keep array byte `array` at byte rel after the data offset: a
 * chunk that leaves it at the same offset within, in the row of its chunk
 * over some count of data members? */
static bool striped_fits(uint64_t array, uint64_t rel, int n)
{
	for (uint64_t chunk = MIN_CHUNK_BYTES; chunk <= MAX_CHUNK_BYTES; chunk *= 2) {
		if (rel % chunk != array % chunk)
			continue;
		for (int data = 1; data <= n; data++)
			if (array / chunk / (uint64_t)data == rel / chunk)
				return true;
	}
	return false;
}

static bool known(const struct fs_primary *p, int np, const struct fs_primary *one)
{
	for (int k = 0; k < np; k++)
		if (p[k].data_offset == one->data_offset && fs_primary_same_fs(&p[k], one))
			return true;
	return false;
}

/* The primaries the backup superblock sb, found at member byte off of
 * member, may stand for: one per data offset that fits. */
static int from_backup(const struct probe_sample *s, const struct probe_hints *h, const struct ext4_sb *sb,
		       int member, uint64_t off, struct fs_primary *p, int np, int max)
{
	uint64_t offs[PROBE_MAX_OFFSETS], array = ext4_super_offset(sb, sb->group);
	int noffs = probe_offsets(h, probe_smallest_member(s), off, offs);

	for (int k = 0; k < noffs && np < max; k++) {
		uint64_t rel = off - offs[k] * 512;
		if (!striped_fits(array, rel, s->nmembers))
			continue;
		struct fs_primary one = { .kind = FS_EXT4, .member = member, .offset = off, .data_offset = offs[k],
					  .sb = *sb };
		one.sb.group = 0;    /* the primary it copies */
		if (!known(p, np, &one))
			p[np++] = one;
	}
	return np;
}

static int find_in_window(const struct probe_sample *s, const struct probe_hints *h, const struct probe_window *w,
			  int member, struct fs_primary *p, int np, int max)
{
	for (size_t at = 0; at + EXT4_SB_BYTES <= w->len && np < max; at += 512) {
		struct ext4_sb sb;
		if (ext4_sb_parse_scaled(w->buf[member] + at, -1, &sb) && sb.group && ext4_group_has_super(&sb, sb.group))
			np = from_backup(s, h, &sb, member, w->offset + at, p, np, max);
	}
	return np;
}

int backup_find_primaries(const struct probe_sample *s, const struct probe_hints *h, struct fs_primary *p,
			  int max)
{
	int np = 0;

	for (int w = 0; w < s->nwindows; w++)
		for (int i = 0; i < s->nmembers; i++)
			if (s->windows[w].buf[i])
				np = find_in_window(s, h, &s->windows[w], i, p, np, max);
	return np;
}
