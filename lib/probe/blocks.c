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

/* Blocks with data mostly show it in their first bytes: look there before
 * scanning the rest, which a loop without an exit lets the compiler do in
 * wide words. */
#define HEAD_WORDS 8

bool block_zero(const uint8_t *b)
{
	uint64_t any = 0;

	for (unsigned i = 0; i < HEAD_WORDS; i++)
		any |= word(b, i);
	if (any)
		return false;
	for (unsigned i = HEAD_WORDS; i < WORDS; i++)
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

/* The first eight words of every eighth of the block (eight cache lines
 * read, not sixty-four), but one word: an odd count, since a block of one
 * repeated word (all ones, say) folds to zero over an even count.  Each
 * word is rotated by its place.  Equal blocks always print alike; blocks
 * that differ only in the words left out print alike too, and callers
 * confirm on the bytes. */
#define PRINTED 63

uint64_t block_print(const uint8_t *b)
{
	uint64_t p = 0;

	for (unsigned k = 0; k < PRINTED; k++) {
		uint64_t w = word(b, (k / 8) * (WORDS / 8) + k % 8);
		p ^= k ? (w << k) | (w >> (64 - k)) : w;
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
