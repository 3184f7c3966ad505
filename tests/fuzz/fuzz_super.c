/* fuzz_super: structure-aware libFuzzer target for one member's metadata.
 * The input picks a member of a set made by stripe's create and edits fields
 * of its superblock, bitmap and bad-block log (memberset.h); the member is
 * then loaded as stripe-examine loads it, and a superblock that loads must
 * encode back to the bytes read. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "memberset.h"
#include "md/badblocks.h"
#include "md/bitmap.h"
#include "md/super.h"

static void load(const char *path)
{
	struct md_super sb;
	struct md_bitmap bm;
	struct badblocks bb;
	struct sb0_view v;
	struct dev dv;
	struct diag d;
	uint8_t enc[4096], disk[4096];
	size_t len;

	if (dev_open(&dv, path, DEV_READ, &d) < 0)
		return;
	if (super_load(&dv, &sb, &d) == 0) {
		super_encode(&sb, enc, &len);
		if (dev_read(&dv, disk, sizeof(disk), sb.sb_sector * 512, &d) == 0 &&
		    memcmp(enc, disk, len) != 0)
			abort();
		(void)bitmap_read(&dv, &sb, &bm, &d);
		if (badblocks_read(&dv, &sb, &bb, &d) == 0)
			badblocks_free(&bb);
		if (sb.major == 0)
			super0_view(&sb, &v);
		(void)super_role_of(&sb, sb.dev_number);
	}
	dev_close(&dv);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t **img = memberset_scratch();
	char paths[SET_MAX_MEMBERS][64];
	const struct member_set *s;
	int m;

	if (size < 2)
		return 0;
	s = memberset_get(data[0] % memberset_count());
	m = data[1] % s->n;
	memberset_edit(s, img, data + 2, size - 2);
	if (memberset_store("super", &img[m], 1, paths) < 0)
		return 0;
	load(paths[0]);
	return 0;
}
