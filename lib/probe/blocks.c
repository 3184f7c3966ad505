/* blocks: comparing and combining the sample's 4 KiB blocks, and walking
 * the sample row by row. */
#include <string.h>

#include "probe/blocks.h"

#define WORDS (PROBE_BLOCK / 8)

static uint64_t word(const uint8_t *b, unsigned i)
{
	uint64_t w;

	memcpy(&w, b + 8 * i, 8);   /* the sample's buffers promise no alignment */
	return w;
}

bool block_zero(const uint8_t *b)
{
	uint64_t any = 0;

	for (unsigned i = 0; i < WORDS; i++)
		any |= word(b, i);
	return any == 0;
}

bool block_equal(const uint8_t *a, const uint8_t *b)
{
	return memcmp(a, b, PROBE_BLOCK) == 0;
}

void block_xor(uint8_t *acc, const uint8_t *b)
{
	for (unsigned i = 0; i < WORDS; i++) {
		uint64_t w = word(acc, i) ^ word(b, i);
		memcpy(acc + 8 * i, &w, 8);
	}
}

/* An odd number of words, each rotated by its index mod 63, folded: a block
 * of one repeated word (all ones, say) does not fold to zero as it would
 * over an even count.  The last word is left out to make the count odd. */
uint64_t block_print(const uint8_t *b)
{
	uint64_t p = 0;

	for (unsigned i = 0; i < WORDS - 1; i++) {
		unsigned r = i % 63;
		uint64_t w = word(b, i);
		p ^= r ? (w << r) | (w >> (64 - r)) : w;
	}
	return p;
}

static int window_rows(const struct probe_window *w)
{
	return (int)(w->len / PROBE_BLOCK);
}

int sample_rows(const struct probe_sample *s)
{
	int rows = 0;

	for (int w = 0; w < s->nwindows; w++)
		rows += window_rows(&s->windows[w]);
	return rows;
}

uint64_t sample_row(const struct probe_sample *s, int i, const uint8_t **blk)
{
	int w = 0;

	while (w < s->nwindows && i >= window_rows(&s->windows[w]))
		i -= window_rows(&s->windows[w++]);
	const struct probe_window *win = &s->windows[w];
	size_t at = (size_t)i * PROBE_BLOCK;
	for (int m = 0; m < s->nmembers; m++)
		blk[m] = win->buf[m] ? win->buf[m] + at : NULL;
	return win->offset + at;
}
