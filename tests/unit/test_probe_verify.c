/* test_probe_verify: a candidate's parity recomputed on a hand-made
 * sample: random data laid out as md's RAID6 left-symmetric lays it, with
 * P and Q computed by md's rules; the true geometry fits every row, a DDF
 * layout that places the data alike fits none, a RAID5 read of the same
 * rows fits none, and rows of zeroes or a missing role are not counted. */
#include <stdlib.h>
#include <string.h>

#include "md/layout.h"
#include "probe/verify.h"
#include "raid/parity.h"
#include "tap.h"

#define N 5
#define CHUNK 4096
#define ROWS 20

static struct probe_member members[N];
static struct probe_window window;
static struct probe_sample sample = { .nmembers = N, .members = members, .nwindows = 1, .windows = &window };

/* Fills the members as md's RAID6 left-symmetric of N members and 4K
 * chunks would, from random data; row zero_row left all zeroes. */
static void lay_out(int zero_row)
{
	struct geometry g;
	struct stripe_map m;
	struct diag d;
	void *blocks[N + 2];
	uint8_t *zero = aligned_alloc(PARITY_ALIGN, CHUNK);

	memset(zero, 0, CHUNK);
	geometry_init(&g, 6, 2, N, CHUNK / 512, ROWS * CHUNK / 512, NULL, &d);
	window.len = ROWS * CHUNK;
	for (int i = 0; i < N; i++) {
		members[i].path = "member";
		window.buf[i] = aligned_alloc(PARITY_ALIGN, window.len);
	}
	for (int row = 0; row < ROWS; row++) {
		uint8_t *role[N];
		layout_stripe(&g, (uint64_t)row, &m);
		for (int r = 0; r < N; r++)
			role[r] = window.buf[r] + row * CHUNK;
		int nd = layout_row_blocks(&m, role, 0, zero, blocks);
		for (int i = 0; i < nd; i++)
			for (int b = 0; b < CHUNK; b++)
				((uint8_t *)blocks[i])[b] = row == zero_row ? 0 : (uint8_t)random();
		parity_gen_pq(nd, CHUNK, blocks);
	}
	free(zero);
}

static struct probe_candidate candidate(int level, int layout, const int *order)
{
	struct probe_candidate c = { .spec = { .level = level, .layout = layout, .chunk_sectors = CHUNK / 512,
					       .data_offset = 0, .size = ROWS * CHUNK / 512, .raid_disks = N } };

	memcpy(c.spec.order, order, sizeof(c.spec.order[0]) * N);
	return c;
}

int main(void)
{
	static const int order[N] = { 0, 1, 2, 3, 4 }, rotated[N] = { 1, 2, 3, 4, 0 };
	int checked, fitting;
	struct diag d;

	srandom(7);
	lay_out(3);
	struct probe_candidate truth = candidate(6, 2, order);
	ok(probe_verify_parity(&sample, &truth, &checked, &fitting, &d) == 0 && checked == ROWS - 1 &&
	   fitting == ROWS - 1, "the true geometry fits every row with data, the row of zeroes uncounted (%d/%d)",
	   fitting, checked);
	/* ddf-N-continue, rotated: the same data places, parity over other slots */
	struct probe_candidate ddf = candidate(6, 10, rotated);
	probe_verify_parity(&sample, &ddf, &checked, &fitting, &d);
	ok(checked == ROWS - 1 && fitting == 0, "a DDF layout placing the data alike fits no row (%d/%d)", fitting,
	   checked);
	struct probe_candidate raid5 = candidate(5, 2, order);
	probe_verify_parity(&sample, &raid5, &checked, &fitting, &d);
	ok(checked > 0 && fitting == 0, "a RAID5 read of RAID6 rows fits none (%d/%d)", fitting, checked);
	members[2].path = NULL;
	probe_verify_parity(&sample, &truth, &checked, &fitting, &d);
	ok(checked == 0, "with a role missing no row is checked");
	for (int i = 0; i < N; i++)
		free(window.buf[i]);
	return tap_done();
}
