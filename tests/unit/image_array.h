/* image_array.h: arrays of image files in a temporary folder for the unit
 * tests, made by the library as stripe-create makes them and filled with
 * a pattern in which every misplaced byte shows. */
#ifndef STRIPE_TEST_IMAGE_ARRAY_H
#define STRIPE_TEST_IMAGE_ARRAY_H

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "md/array.h"
#include "md/create.h"
#include "raid/stripe.h"
#include "tap.h"

#define IMAGE_BYTES (8u << 20)

/* Array byte b holds a byte of b's hash. */
static inline uint8_t pattern_byte(uint64_t b)
{
	b ^= b >> 17;
	b *= 0x9e3779b97f4a7c15ull;
	return (uint8_t)(b >> 56);
}

static inline long long pattern_source(void *ctx, void *buf, size_t len, struct diag *d)
{
	uint64_t *at = ctx;
	uint8_t *out = buf;
	size_t i;

	(void)d;
	for (i = 0; i < len; i++)
		out[i] = pattern_byte(*at + i);
	*at += len;
	return (long long)len;
}

struct membuf {
	uint8_t *buf;
	size_t at;
};

static inline int to_memory(void *ctx, const void *buf, size_t len, struct diag *d)
{
	struct membuf *m = ctx;

	(void)d;
	memcpy(m->buf + m->at, buf, len);
	m->at += len;
	return 0;
}

/* Makes an array of n image files m0.. in dir (chunk 64 KiB, 1.2
 * superblocks, layout as given or the level's default when it is -1),
 * filled with the pattern;
 * paths are allocated.  0, or -1 with the reason printed. */
static inline int make_image_array(const char *dir, int level, int layout, int n, char **paths)
{
	struct create_spec s = { .level = level, .layout = layout < 0 ? create_default_layout(level) : layout,
				 .raid_disks = n,
				 .chunk_sectors = 128, .major = 1, .minor = 2, .data_offset = CREATE_DEFAULT,
				 .now = 1700000000 };
	struct array_options opt = { .mode = DEV_WRITE };
	struct create_plan p;
	struct array a;
	struct diag d;
	uint64_t at = 0, written;
	int i, fd, rc;

	for (i = 0; i < n; i++) {
		if (asprintf(&paths[i], "%s/m%d", dir, i) < 0)
			return -1;
		fd = open(paths[i], O_RDWR | O_CREAT | O_TRUNC, 0600);
		if (fd < 0 || ftruncate(fd, IMAGE_BYTES) < 0)
			return -1;
		close(fd);
	}
	rc = create_plan(&p, &s, paths, n, &d);
	if (rc == 0)
		rc = create_write(&p, &d);
	create_free(&p);
	if (rc < 0) {
		printf("# create: %s\n", d.msg);
		return -1;
	}
	if (array_open(&a, paths, n, &opt, &d) < 0) {
		printf("# open: %s\n", d.msg);
		return -1;
	}
	rc = stripe_write(&a, 0, a.geo.array_sectors * 512, pattern_source, &at, &written, &d);
	if (rc < 0)
		printf("# write: %s\n", d.msg);
	array_close(&a);
	return rc;
}

/* A raid5 of 4 image files made in the temporary folder dir (a mkdtemp
 * template) and opened in mode; false, said in TAP, when it cannot be. */
static inline bool open_image_raid5(char *dir, enum dev_mode mode, char **paths, struct array *a)
{
	struct array_options opt = { .mode = mode };
	struct diag d;

	if (!mkdtemp(dir)) {
		skip("no temporary directory");
		return false;
	}
	if (make_image_array(dir, 5, -1, 4, paths) < 0 || array_open(a, paths, 4, &opt, &d) < 0) {
		ok(0, "a raid5 of 4 is made and opened");
		return false;
	}
	return true;
}

static inline void remove_image_array(char **paths, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		unlink(paths[i]);
		free(paths[i]);
	}
}

/* Whether array bytes [off, off + len) read by stripe_read are want. */
static inline bool array_holds(struct array *a, uint64_t off, size_t len, const uint8_t *want)
{
	uint8_t *got = malloc(len);
	struct membuf mb = { got, 0 };
	struct diag d;
	bool same;

	same = got && stripe_read(a, off, len, to_memory, &mb, &d) == 0 && memcmp(got, want, len) == 0;
	free(got);
	return same;
}

#endif
