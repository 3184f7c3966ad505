/* fuzz_assemble: libFuzzer target for assembly.  The input is cut into up to
 * four member images that each start from a real v1.2 superblock with a
 * fuzzed header, then assembled and, when that succeeds, read end to end. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "md/array.h"
#include "util/endian.h"
#include "raid/stripe.h"
#include "md/super1.h"

#define MEMBER_BYTES (256 * 1024)
#define DATA_OFFSET 64

static int discard(void *ctx, const void *buf, size_t len, struct diag *d)
{
	(void)ctx; (void)buf; (void)len; (void)d;
	return 0;
}

/* A plausible raid5 member of 4, role n, so mutations reach the deep checks. */
static void base_super(uint8_t *sb, int n)
{
	struct sb1 r;
	int i;

	memset(&r, 0, sizeof(r));
	r.magic = 0xa92b4efc;
	r.major_version = 1;
	memset(r.set_uuid, 0x5a, 16);
	r.level = 5;
	r.layout = 2;
	r.chunksize = 16;
	r.raid_disks = 4;
	r.data_offset = DATA_OFFSET;
	r.data_size = MEMBER_BYTES / 512 - DATA_OFFSET;
	r.size = r.data_size;
	r.super_offset = 8;
	r.dev_number = (uint32_t)n;
	r.events = 10;
	r.resync_offset = UINT64_MAX;
	r.max_dev = 128;
	for (i = 0; i < 128; i++)
		r.dev_roles[i] = i < 4 ? (uint16_t)i : 0xffff;
	r.sb_csum = sb1_csum(&r);
	sb1_encode(&r, sb);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t img[MEMBER_BYTES];
	char paths[4][64], *argv[4];
	struct array_options opt = { .mode = DEV_READ, .raid0_layout = 0 };
	struct array a;
	struct diag d;
	int n, i;

	if (size < 1)
		return 0;
	n = 1 + data[0] % 4;
	data++;
	size--;
	for (i = 0; i < n; i++) {
		size_t part = size / (size_t)n, j;
		const uint8_t *p = data + part * (size_t)i;
		FILE *f;

		memset(img, 0, sizeof(img));
		base_super(img + 4096, i);
		/* Fuzz bytes overwrite the header (with its checksum fixed half
		 * the time, so validation does not stop everything) and data. */
		for (j = 0; j + 1 < part && j < 512; j += 2)
			img[4096 + p[j] % 256] = p[j + 1];
		if (part && (p[0] & 1)) {
			struct sb1 r;

			if (sb1_decode(img + 4096, &r, NULL) == 0) {
				r.sb_csum = sb1_csum(&r);
				sb1_encode(&r, img + 4096);
			}
		}
		snprintf(paths[i], sizeof(paths[i]), "/tmp/fuzz-asm-%d-%d.img", (int)getpid(), i);
		argv[i] = paths[i];
		f = fopen(paths[i], "wb");
		if (!f)
			return 0;
		fwrite(img, 1, sizeof(img), f);
		fclose(f);
	}
	if (array_open(&a, argv, n, &opt, &d) == 0 && a.geo.array_sectors * 512 <= 16u << 20)
		stripe_read(&a, 0, a.geo.array_sectors * 512, discard, NULL, &d);
	array_close(&a);
	for (i = 0; i < n; i++)
		unlink(paths[i]);
	return 0;
}
