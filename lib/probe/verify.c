/* verify: P and Q recomputed from a complete candidate's data blocks row by
 * row in the sample's windows, and compared with the blocks the candidate
 * says hold them. */
#include <stdlib.h>
#include <string.h>

#include "md/layout.h"
#include "probe/verify.h"
#include "raid/parity.h"

/* Enough rows to tell a layout, few enough to stay quick on wide chunks. */
#define VERIFY_ROWS 256

struct row_check {
	const struct geometry *g;
	size_t chunk;                /* bytes */
	uint8_t *role[ST_MAX_DISKS]; /* the row's blocks by role, aligned copies */
	uint8_t *p, *q, *zero;       /* computed P and Q; a zero block for DDF's empty slots */
};

static bool all_zero(const uint8_t *b, size_t len)
{
	return b[0] == 0 && memcmp(b, b + 1, len - 1) == 0;
}

/* -1: the row holds no data, and fits any layout; else 1 when its parity
 * is the candidate's, 0 when not. */
static int check_row(struct row_check *rc, uint64_t row)
{
	struct stripe_map m;
	void *blocks[ST_MAX_DISKS + 2];
	bool data = false;

	layout_stripe(rc->g, row, &m);
	int nd = layout_row_blocks(&m, rc->role, 0, rc->zero, blocks);
	for (int i = 0; i < nd && !data; i++)
		data = blocks[i] != rc->zero && !all_zero(blocks[i], rc->chunk);
	if (!data)
		return -1;
	if (m.qd < 0) {
		parity_xor(rc->p, blocks, nd, rc->chunk);
		return memcmp(rc->p, rc->role[m.pd], rc->chunk) == 0;
	}
	blocks[nd] = rc->p;
	blocks[nd + 1] = rc->q;
	parity_gen_pq(nd, rc->chunk, blocks);
	return memcmp(rc->p, rc->role[m.pd], rc->chunk) == 0 && memcmp(rc->q, rc->role[m.qd], rc->chunk) == 0;
}

static bool every_role_present(const struct probe_sample *s, const struct geometry_spec *spec)
{
	for (int r = 0; r < spec->raid_disks; r++)
		if (spec->order[r] < 0 || !s->members[spec->order[r]].path)
			return false;
	return true;
}

/* The rows of window w that it holds whole, each role's block copied. */
static void check_window(const struct probe_window *w, const struct geometry_spec *spec, struct row_check *rc,
			 int *checked, int *fitting)
{
	uint64_t doff = spec->data_offset * 512, rows = spec->size * 512 / rc->chunk;
	uint64_t row = w->offset > doff ? (w->offset - doff + rc->chunk - 1) / rc->chunk : 0;

	for (; row < rows && *checked < VERIFY_ROWS; row++) {
		uint64_t at = doff + row * rc->chunk;
		if (at + rc->chunk > w->offset + w->len)
			return;
		for (int r = 0; r < spec->raid_disks; r++)
			memcpy(rc->role[r], w->buf[spec->order[r]] + (at - w->offset), rc->chunk);
		int fits = check_row(rc, row);
		if (fits < 0)
			continue;
		++*checked;
		*fitting += fits;
	}
}

int probe_verify_parity(const struct probe_sample *s, const struct probe_candidate *c, int *checked, int *fitting,
			struct diag *d)
{
	const struct geometry_spec *spec = &c->spec;
	struct geometry g;
	struct row_check rc = { .g = &g, .chunk = (size_t)spec->chunk_sectors * 512 };

	*checked = *fitting = 0;
	if (!layout_has_parity(spec->level) || !spec->size || !every_role_present(s, spec))
		return 0;
	if (geometry_init(&g, spec->level, spec->layout, spec->raid_disks, spec->chunk_sectors, spec->size, NULL, d) < 0)
		return -1;
	uint8_t *mem = aligned_alloc(PARITY_ALIGN, rc.chunk * (size_t)(spec->raid_disks + 3));
	if (!mem)
		return diag_fail(d, "out of memory for %d blocks of %zu bytes", spec->raid_disks + 3, rc.chunk);
	for (int r = 0; r < spec->raid_disks; r++)
		rc.role[r] = mem + rc.chunk * (size_t)r;
	rc.p = mem + rc.chunk * (size_t)spec->raid_disks;
	rc.q = rc.p + rc.chunk;
	rc.zero = rc.q + rc.chunk;
	memset(rc.zero, 0, rc.chunk);
	for (int w = 0; w < s->nwindows && *checked < VERIFY_ROWS; w++)
		check_window(&s->windows[w], spec, &rc, checked, fitting);
	free(mem);
	return 0;
}
