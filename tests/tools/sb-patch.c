/* sb-patch: test helper that changes one field of a member's md superblock
 * and, unless told not to, fixes the checksum, so tests can make superblocks
 * that are wrong in exactly one way.
 *   sb-patch IMAGE BYTE WIDTH VALUE [keep-csum]
 * BYTE is the field's offset inside the superblock, WIDTH 1, 2, 4 or 8. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/dev.h"
#include "util/endian.h"
#include "md/super.h"

int main(int argc, char **argv)
{
	struct md_super sb;
	struct dev dv;
	struct diag d;
	uint8_t buf[4096];
	unsigned long byte, width;
	unsigned long long value;
	size_t len;

	if (argc < 5) {
		fprintf(stderr, "usage: sb-patch IMAGE BYTE WIDTH VALUE [keep-csum]\n");
		return 2;
	}
	byte = strtoul(argv[2], NULL, 0);
	width = strtoul(argv[3], NULL, 0);
	value = strtoull(argv[4], NULL, 0);
	if (dev_open(&dv, argv[1], DEV_WRITE, &d) < 0 || super_load(&dv, &sb, &d) < 0) {
		fprintf(stderr, "sb-patch: %s\n", d.msg);
		return 2;
	}
	if (dev_read(&dv, buf, sizeof(buf), sb.sb_sector * 512, &d) < 0 || byte + width > sizeof(buf)) {
		fprintf(stderr, "sb-patch: %s\n", d.msg);
		return 2;
	}
	switch (width) {
	case 1: buf[byte] = (uint8_t)value; break;
	case 2: put_le16(buf + byte, (uint16_t)value); break;
	case 4: put_le32(buf + byte, (uint32_t)value); break;
	case 8: put_le64(buf + byte, value); break;
	default: fprintf(stderr, "sb-patch: width %lu\n", width); return 2;
	}
	if (!(argc > 5 && strcmp(argv[5], "keep-csum") == 0)) {
		if (sb.major == 1) {
			struct sb1 r;

			if (sb1_decode(buf, &r, &d) == 0) {
				r.sb_csum = sb1_csum(&r);
				sb1_encode(&r, buf);
				len = sb1_bytes(&r);
				(void)len;
			}
		} else {
			struct sb0 r;

			if (sb0_decode(buf, &r, &d) == 0) {
				r.w[SB0_CSUM] = sb0_csum(&r);
				sb0_encode(&r, buf);
			}
		}
	}
	if (dev_write(&dv, buf, sizeof(buf), sb.sb_sector * 512, &d) < 0) {
		fprintf(stderr, "sb-patch: %s\n", d.msg);
		return 2;
	}
	dev_close(&dv);
	return 0;
}
