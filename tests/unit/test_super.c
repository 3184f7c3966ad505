/* test_super: every fixture member's superblock parses, validates, agrees with
 * its MANIFEST and re-serialises to the bytes on disk; 0.90 in the other byte
 * order reads the same. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "md/bitmap.h"
#include "md/badblocks.h"
#include "md/super.h"
#include "tap.h"

static const char *fixtures;

/* Value of key in a MANIFEST, or NULL. */
static char *manifest_get(const char *set, const char *key, char *buf, size_t len)
{
	char path[4096], line[4096];
	size_t klen = strlen(key);
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s/MANIFEST", fixtures, set);
	f = fopen(path, "r");
	if (!f)
		return NULL;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, key, klen) == 0 && line[klen] == '=') {
			snprintf(buf, len, "%s", line + klen + 1);
			buf[strcspn(buf, "\n")] = 0;
			fclose(f);
			return buf;
		}
	}
	fclose(f);
	return NULL;
}

static int read_at(const char *path, uint64_t off, void *buf, size_t len)
{
	FILE *f = fopen(path, "rb");
	int ok;

	if (!f)
		return -1;
	ok = fseeko(f, (off_t)off, SEEK_SET) == 0 && fread(buf, 1, len, f) == len;
	fclose(f);
	return ok ? 0 : -1;
}

static void check_member(const char *set, int n)
{
	char path[4096], key[64], val[256];
	uint8_t disk[4096], enc[4096];
	struct md_super sb;
	struct dev dv;
	struct diag d;
	size_t len;

	snprintf(path, sizeof(path), "%s/%s/member%d.img", fixtures, set, n);
	if (dev_open(&dv, path, DEV_READ, &d) < 0) {
		ok(0, "%s member%d opens: %s", set, n, d.msg);
		return;
	}
	if (super_load(&dv, &sb, &d) < 0) {
		ok(0, "%s member%d superblock loads: %s", set, n, d.msg);
		dev_close(&dv);
		return;
	}
	super_encode(&sb, enc, &len);
	ok(read_at(path, sb.sb_sector * 512, disk, sizeof(disk)) == 0 && memcmp(disk, enc, len) == 0,
	   "%s member%d re-serialises to the %zu bytes on disk", set, n, len);
	ok(sb.csum_stored == sb.csum_computed, "%s member%d checksum is correct", set, n);
	snprintf(key, sizeof(key), "member%d.data_offset_sectors", n);
	if (manifest_get(set, key, val, sizeof(val)))
		ok(sb.data_offset == strtoull(val, NULL, 10), "%s member%d data offset %llu is the MANIFEST's %s",
		   set, n, (unsigned long long)sb.data_offset, val);
	snprintf(key, sizeof(key), "member%d.events", n);
	if (manifest_get(set, key, val, sizeof(val)))
		ok(sb.events == strtoull(val, NULL, 10), "%s member%d events %llu is the MANIFEST's %s",
		   set, n, (unsigned long long)sb.events, val);
	snprintf(key, sizeof(key), "member%d.role", n);
	if (manifest_get(set, key, val, sizeof(val)))
		ok(sb.role == atoi(val), "%s member%d role %d is the MANIFEST's %s", set, n, sb.role, val);
	if (manifest_get(set, "raid_devices", val, sizeof(val)))
		ok(sb.raid_disks == atoi(val), "%s member%d has %d raid devices", set, n, sb.raid_disks);
	if (manifest_get(set, "chunk_bytes", val, sizeof(val)) && sb.level != 1)
		ok((uint64_t)sb.chunk_sectors * 512 == strtoull(val, NULL, 10), "%s member%d chunk %u sectors",
		   set, n, sb.chunk_sectors);
	dev_close(&dv);
}

static void check_sets(void)
{
	struct dirent **sets;
	int n = scandir(fixtures, &sets, NULL, alphasort), i, m;

	for (i = 0; i < n; i++) {
		char probe[4096];

		for (m = 0; m < 16; m++) {
			snprintf(probe, sizeof(probe), "%s/%s/member%d.img", fixtures, sets[i]->d_name, m);
			if (access(probe, R_OK) != 0)
				break;
			check_member(sets[i]->d_name, m);
		}
		free(sets[i]);
	}
	free(sets);
}

/* Writes the r1-3d-0.90 member with its superblock as a big-endian host
 * would have written it, and expects the same facts back. */
static void check_other_byte_order(void)
{
	char path[4096], tmp[] = "/tmp/stripe-sb0-XXXXXX";
	struct md_super le, be;
	struct dev dv;
	struct diag d;
	uint8_t *img, enc[4096];
	size_t len;
	long size;
	FILE *f;
	int fd, i;

	snprintf(path, sizeof(path), "%s/r1-3d-0.90/member0.img", fixtures);
	if (dev_open(&dv, path, DEV_READ, &d) < 0 || super_load(&dv, &le, &d) < 0) {
		ok(0, "0.90 fixture loads: %s", d.msg);
		return;
	}
	size = (long)dv.size;
	dev_close(&dv);
	img = calloc(1, (size_t)size);
	f = fopen(path, "rb");
	if (!img || !f || fread(img, 1, (size_t)size, f) != (size_t)size) {
		ok(0, "read 0.90 fixture");
		if (f)
			fclose(f);
		free(img);
		return;
	}
	fclose(f);
	for (i = 0; i < 1024; i++) {
		uint8_t *w = img + le.sb_sector * 512 + 4 * i, t;

		t = w[0]; w[0] = w[3]; w[3] = t;
		t = w[1]; w[1] = w[2]; w[2] = t;
	}
	/* a big-endian host keeps events_hi first */
	{
		uint8_t *e = img + le.sb_sector * 512 + 156, t[4];

		memcpy(t, e, 4); memcpy(e, e + 4, 4); memcpy(e + 4, t, 4);
		e += 8;
		memcpy(t, e, 4); memcpy(e, e + 4, 4); memcpy(e + 4, t, 4);
	}
	fd = mkstemp(tmp);
	if (fd < 0 || write(fd, img, (size_t)size) != size) {
		ok(0, "write byte-swapped image");
		free(img);
		return;
	}
	close(fd);
	if (dev_open(&dv, tmp, DEV_READ, &d) < 0 || super_load(&dv, &be, &d) < 0) {
		ok(0, "byte-swapped 0.90 superblock loads: %s", d.msg);
	} else {
		ok(be.raw.v0.swapped, "the other byte order is recognised");
		ok(be.events == le.events && be.level == le.level && be.raid_disks == le.raid_disks &&
		   be.size == le.size && be.role == le.role && memcmp(be.uuid, le.uuid, 16) == 0,
		   "byte-swapped 0.90 superblock gives the same facts (events %llu)", (unsigned long long)be.events);
		super_encode(&be, enc, &len);
		ok(memcmp(enc, img + le.sb_sector * 512, len) == 0, "byte-swapped 0.90 superblock re-serialises exactly");
		dev_close(&dv);
	}
	unlink(tmp);
	free(img);
}

static void check_bitmap_and_bblog(void)
{
	char path[4096];
	struct md_super sb;
	struct md_bitmap bm;
	struct badblocks bb;
	struct dev dv;
	struct diag d;

	snprintf(path, sizeof(path), "%s/r5-4d-bitmap-1.2/member0.img", fixtures);
	if (dev_open(&dv, path, DEV_READ, &d) < 0 || super_load(&dv, &sb, &d) < 0) {
		ok(0, "bitmap fixture loads: %s", d.msg);
		return;
	}
	ok(bitmap_read(&dv, &sb, &bm, &d) == 0, "internal bitmap is read");
	ok(bm.sector == 16 && bm.magic == BITMAP_MAGIC && memcmp(bm.uuid, sb.uuid, 16) == 0,
	   "bitmap sits 8 sectors after the superblock, with the array's UUID");
	ok(bm.sync_size == sb.size, "bitmap covers the component size (%llu sectors)",
	   (unsigned long long)bm.sync_size);
	ok(badblocks_read(&dv, &sb, &bb, &d) == 0 && bb.capacity == 512 && bb.count == 0,
	   "bad-block log has 512 entries and none used");
	badblocks_free(&bb);
	dev_close(&dv);
}

int main(void)
{
	fixtures = getenv("STRIPE_FIXTURES");
	if (!fixtures) {
		skip("STRIPE_FIXTURES is not set (run through make check)");
		return tap_done();
	}
	check_sets();
	check_other_byte_order();
	check_bitmap_and_bblog();
	return tap_done();
}
