/* fuzz_super: libFuzzer target for superblock parsing.  The input is a member
 * image's tail: it is laid out as a small member file and loaded with
 * super_load, then re-serialised, which must give back the bytes read. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "md/badblocks.h"
#include "md/bitmap.h"
#include "md/super.h"

#define IMG_BYTES (160 * 1024)

static char path[64];

static int write_image(const uint8_t *data, size_t size)
{
	static uint8_t img[IMG_BYTES];
	FILE *f;
	size_t half;

	/* The first half of the input lands at the start of the image (1.1,
	 * 1.2 superblocks), the rest at the end (1.0 and 0.90). */
	memset(img, 0, sizeof(img));
	half = size / 2 < 16384 ? size / 2 : 16384;
	memcpy(img, data, half);
	size -= half;
	if (size > 65536 + 16384)
		size = 65536 + 16384;
	memcpy(img + IMG_BYTES - 65536 - 8192, data + half, size);
	f = fopen(path, "wb");
	if (!f)
		return -1;
	fwrite(img, 1, sizeof(img), f);
	return fclose(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct md_super sb;
	struct md_bitmap bm;
	struct badblocks bb;
	struct dev dv;
	struct diag d;
	uint8_t enc[4096], disk[4096];
	size_t len;

	if (!path[0])
		snprintf(path, sizeof(path), "/tmp/fuzz-super-%d.img", (int)getpid());
	if (write_image(data, size) < 0 || dev_open(&dv, path, DEV_READ, &d) < 0)
		return 0;
	if (super_load(&dv, &sb, &d) == 0) {
		super_encode(&sb, enc, &len);
		if (dev_read(&dv, disk, sizeof(disk), sb.sb_sector * 512, &d) == 0 &&
		    memcmp(enc, disk, len) != 0)
			abort();
		if (bitmap_read(&dv, &sb, &bm, &d) < 0)
			(void)d;
		if (badblocks_read(&dv, &sb, &bb, &d) == 0)
			badblocks_free(&bb);
	}
	dev_close(&dv);
	return 0;
}
