/* intent: md's write-intent bitmap kept while stripe writes.  One image of
 * the bitmap (its 256-byte superblock, then the bits) is held for the
 * array and written alike to every member holding a role, as md does. */
#include <stdlib.h>
#include <string.h>

#include "md/array.h"
#include "md/intent.h"

/* The image: header and bits, whole sectors. */
static size_t image_bytes(const struct intent *t)
{
	return (size_t)bitmap_bytes(&t->bm, 512);
}

static uint8_t *image_of(const struct intent *t)
{
	return t->bits - BITMAP_HEADER_BYTES;
}

static uint64_t bitmap_byte(const struct member *m)
{
	return (m->sb.sb_sector + (uint64_t)(int64_t)m->sb.bitmap_offset) * 512;
}

static bool keeps_bitmap(const struct member *m)
{
	return (m->sb.feature_map & SB1_FEAT_BITMAP_OFFSET) != 0;
}

/* Where m's bitmap would be written must be its own: inside the device,
 * clear of its data area and superblock.  A hostile member's offset could
 * otherwise aim the bits at its data. */
static int check_place(const struct member *m, size_t bytes, struct diag *d)
{
	const struct md_super *sb = &m->sb;
	uint64_t at, n = bytes / 512, lo = sb->data_offset, hi = sb->data_offset + sb->data_size;

	if (bitmap_sector(&m->dev, sb, &at, d) < 0)
		return -1;
	if (at > m->dev.size / 512 || m->dev.size / 512 - at < n)
		return diag_fail(d, "%s: bitmap at sector %llu (%llu sectors) runs past the end of the device",
				 m->path, (unsigned long long)at, (unsigned long long)n);
	if (at < hi && at + n > lo)
		return diag_fail(d, "%s: bitmap at sector %llu (%llu sectors) lies in the data area (sectors %llu to %llu); nothing written",
				 m->path, (unsigned long long)at, (unsigned long long)n, (unsigned long long)lo,
				 (unsigned long long)hi);
	if (at < sb->sb_sector + 8 && at + n > sb->sb_sector)
		return diag_fail(d, "%s: bitmap at sector %llu (%llu sectors) overlaps the superblock at sector %llu; nothing written",
				 m->path, (unsigned long long)at, (unsigned long long)n,
				 (unsigned long long)sb->sb_sector);
	return 0;
}

static const struct member *first_in_sync(const struct array *a)
{
	int i;

	for (i = 0; i < a->ref->raid_disks; i++)
		if (a->role[i] && keeps_bitmap(a->role[i]))
			return a->role[i];
	return NULL;
}

/* Every member the bitmap is written to: each in-sync one. */
static int check_places(struct array *a, struct diag *d)
{
	int i;

	for (i = 0; i < a->ref->raid_disks; i++)
		if (a->role[i] && keeps_bitmap(a->role[i]) &&
		    check_place(a->role[i], image_bytes(a->intent), d) < 0) {
			intent_close(a);
			return -1;
		}
	return 0;
}

int intent_open(struct array *a, struct diag *d)
{
	const struct member *src;
	struct intent *t;
	uint8_t *image;
	size_t len;

	if (a->intent || !(a->ref->feature_map & SB1_FEAT_BITMAP_OFFSET) || !(src = first_in_sync(a)))
		return 0;
	if (!(t = calloc(1, sizeof(*t))))
		return diag_fail(d, "out of memory for the write-intent bitmap");
	if (bitmap_read((struct dev *)&src->dev, &src->sb, &t->bm, d) != 0) {
		free(t);
		return -1;
	}
	t->bytes = (size_t)((t->bm.bits + 7) / 8);
	t->sectors_per_bit = t->bm.chunksize / 512;
	len = image_bytes(t);
	if (!(image = dev_alloc(len))) {
		diag_fail(d, "%s: out of memory (%zu bytes) for its bitmap at sector %llu", src->path, len,
			  (unsigned long long)t->bm.sector);
		free(t);
		return -1;
	}
	if (dev_read((struct dev *)&src->dev, image, len, t->bm.sector * 512, d) < 0) {
		free(image);
		free(t);
		return -1;
	}
	t->bits = image + BITMAP_HEADER_BYTES;
	pthread_mutex_init(&t->lock, NULL);
	a->intent = t;
	return check_places(a, d);
}

void intent_close(struct array *a)
{
	struct intent *t = a->intent;

	if (!t)
		return;
	pthread_mutex_destroy(&t->lock);
	free(image_of(t));
	free(t);
	a->intent = NULL;
}

/* Sets bits [lo, hi]; returns the bytes changed as [*from, *to), or 0 when
 * every bit was set already. */
static bool set_bits(struct intent *t, uint64_t lo, uint64_t hi, size_t *from, size_t *to)
{
	bool changed = false;
	uint64_t b;

	for (b = lo; b <= hi; b++) {
		uint8_t bit = (uint8_t)(1u << (b % 8));

		if (t->bits[b / 8] & bit)
			continue;
		t->bits[b / 8] |= bit;
		if (!changed)
			*from = (size_t)(b / 8);
		*to = (size_t)(b / 8) + 1;
		changed = true;
	}
	return changed;
}

/* Writes image bytes [from, to) of the bits, in whole sectors, to every
 * in-sync member, and syncs them. */
static int write_bits(struct array *a, size_t from, size_t to, struct diag *d)
{
	struct intent *t = a->intent;
	size_t lo = (BITMAP_HEADER_BYTES + from) / 512 * 512;
	size_t hi = (BITMAP_HEADER_BYTES + to + 511) / 512 * 512;
	int i;

	bitmap_encode(&t->bm, image_of(t));
	for (i = 0; i < a->ref->raid_disks; i++) {
		struct member *m = a->role[i];

		if (!m || !keeps_bitmap(m))
			continue;
		if (dev_write(&m->dev, image_of(t) + lo, hi - lo, bitmap_byte(m) + lo, d) < 0)
			return -1;
	}
	for (i = 0; i < a->ref->raid_disks; i++)
		if (a->role[i] && keeps_bitmap(a->role[i]) && dev_sync(&a->role[i]->dev, d) < 0)
			return -1;
	return 0;
}

int intent_mark(struct array *a, uint64_t sector, uint64_t count, struct diag *d)
{
	struct intent *t = a->intent;
	uint64_t lo, hi;
	size_t from = 0, to = 0;
	int rc = 0;

	if (!t || count == 0 || t->bm.bits == 0)
		return 0;
	lo = sector / t->sectors_per_bit;
	hi = (sector + count - 1) / t->sectors_per_bit;
	/* md's bits cover sync_size; beyond it md tracks nothing either */
	if (lo >= t->bm.bits)
		return 0;
	if (hi >= t->bm.bits)
		hi = t->bm.bits - 1;
	/* held through the write: another writer finding its bit set must
	 * find it on disk too */
	pthread_mutex_lock(&t->lock);
	if (set_bits(t, lo, hi, &from, &to))
		rc = write_bits(a, from, to, d);
	pthread_mutex_unlock(&t->lock);
	return rc;
}

int intent_stamp(struct array *a, struct member *m, uint64_t events, struct diag *d)
{
	struct intent *t = a->intent;

	if (!t || !keeps_bitmap(m))
		return 0;
	/* a rebuild's target is placed by stripe, the others were checked
	 * at the open; this one check costs nothing next to the write */
	if (check_place(m, image_bytes(t), d) < 0)
		return -1;
	t->bm.events = events;
	/* as md: a cleared mark is never ahead of the events */
	if (t->bm.events_cleared > events)
		t->bm.events_cleared = events;
	bitmap_encode(&t->bm, image_of(t));
	return dev_write(&m->dev, image_of(t), image_bytes(t), bitmap_byte(m), d);
}

int intent_seed_spare(struct array *a, struct member *m, struct diag *d)
{
	struct intent *t = a->intent;
	size_t len;
	uint8_t *image;
	int rc;

	if (!t || !keeps_bitmap(m))
		return 0;
	len = (size_t)bitmap_bytes(&t->bm, 4096);
	if (check_place(m, len, d) < 0)
		return -1;
	if (!(image = dev_alloc(len)))
		return diag_fail(d, "%s: out of memory (%zu bytes) for a new spare's bitmap", m->path, len);
	memset(image, 0xff, len);
	bitmap_encode(&t->bm, image);
	rc = dev_write(&m->dev, image, len, bitmap_byte(m), d);
	free(image);
	return rc;
}

void intent_clear(struct array *a, uint64_t events)
{
	struct intent *t = a->intent;

	if (!t)
		return;
	intent_clear_bits(a);
	t->bm.events_cleared = events;
}

void intent_clear_bits(struct array *a)
{
	if (a->intent)
		memset(a->intent->bits, 0, a->intent->bytes);
}
