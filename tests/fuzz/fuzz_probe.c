/* fuzz_probe: libFuzzer target for stripe-probe's evidence on hostile members.
 * The input builds a few members with no md superblock: a RAID5 of
 * pseudo-random data with its parity right, an optional ext4 superblock
 * where a filesystem would start, then raw edits; the probe runs on them
 * with every evidence module, as stripe-probe runs it. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "memberset.h"
#include "probe/search.h"

#define EXT4_SB_AT 1024

struct input {
	const uint8_t *p;
	size_t left;
};

static unsigned take(struct input *in, int bytes)
{
	unsigned v = 0;

	for (int i = 0; i < bytes && in->left; i++, in->left--)
		v |= (unsigned)*in->p++ << (8 * i);
	return v;
}

static void fill_random(uint8_t *img, uint32_t seed)
{
	uint32_t x = seed | 1;

	for (size_t i = 0; i < SET_MEMBER_BYTES; i++) {
		x ^= x << 13, x ^= x >> 17, x ^= x << 5;
		/* runs of zero sectors, as file tails leave them */
		img[i] = (i / 512) % 5 == 3 ? 0 : (uint8_t)x;
	}
}

static void put_le(uint8_t *at, uint64_t v, int bytes)
{
	for (int i = 0; i < bytes; i++)
		at[i] = (uint8_t)(v >> (8 * i));
}

/* The fields of an ext4 superblock the probe reads first, with values a
 * small filesystem has; the edits then bend them. */
static void put_ext4_super(uint8_t *img)
{
	uint8_t *sb = img + EXT4_SB_AT;

	memset(sb, 0, 1024);
	put_le(sb + 0x00, 2048, 4);        /* s_inodes_count */
	put_le(sb + 0x04, 8192, 4);        /* s_blocks_count_lo */
	put_le(sb + 0x14, 1, 4);           /* s_first_data_block */
	put_le(sb + 0x18, 0, 4);           /* s_log_block_size: 1 KiB */
	put_le(sb + 0x20, 8192, 4);        /* s_blocks_per_group */
	put_le(sb + 0x28, 2048, 4);        /* s_inodes_per_group */
	put_le(sb + 0x38, 0xef53, 2);      /* s_magic */
	put_le(sb + 0x4c, 1, 4);           /* s_rev_level */
	put_le(sb + 0x58, 256, 2);         /* s_inode_size */
	put_le(sb + 0x60, 0x2c2, 4);       /* incompat: filetype, extents, flex_bg, 64bit */
	put_le(sb + 0x64, 0x1, 4);         /* ro_compat: sparse_super */
	put_le(sb + 0xfe, 64, 2);          /* s_desc_size */
}

static void keep_parity(uint8_t *img[], int n)
{
	for (size_t i = 0; i < SET_MEMBER_BYTES; i++) {
		uint8_t x = 0;
		for (int m = 0; m < n - 1; m++)
			x ^= img[m][i];
		img[n - 1][i] = x;
	}
}

/* Edits: member, offset in 16-byte steps, length, then the bytes. */
static void apply_edits(uint8_t *img[], int n, struct input *in)
{
	while (in->left >= 4) {
		int m = (int)take(in, 1) % n;
		size_t at = (size_t)take(in, 2) * 16 % SET_MEMBER_BYTES;
		size_t len = take(in, 1);
		if (len > in->left)
			len = in->left;
		if (len > SET_MEMBER_BYTES - at)
			len = SET_MEMBER_BYTES - at;
		memcpy(img[m] + at, in->p, len);
		in->p += len;
		in->left -= len;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct input in = { data, size };
	uint8_t **img = memberset_scratch();
	char paths[SET_MAX_MEMBERS][64];
	char *argv[SET_MAX_MEMBERS];
	struct probe_hints h = { .level = -1, .layout = -1, .data_offset = UINT64_MAX };
	struct probe_outcome out;
	struct diag d;

	if (size < 4)
		return 0;
	int n = 2 + (int)take(&in, 1) % (SET_MAX_MEMBERS - 1);
	unsigned how = take(&in, 1);
	uint32_t seed = take(&in, 2);
	for (int m = 0; m < n; m++)
		fill_random(img[m], seed + (uint32_t)m * 7919);
	if (how & 1)
		put_ext4_super(img[0]);
	apply_edits(img, n, &in);
	if (how & 2)
		keep_parity(img, n);
	if (memberset_store("probe", img, n, paths) < 0)
		return 0;
	for (int m = 0; m < n; m++)
		argv[m] = paths[m];
	if (how & 4)
		argv[n - 1] = "missing";
	memset(&out, 0, sizeof(out));
	if (probe_run(argv, n, &h, NULL, &out, &d) == 0)
		probe_outcome_free(&out);
	return 0;
}
