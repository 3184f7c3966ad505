/* test_probe_continuity: chunk boundaries ranked on hand-made samples: a
 * stream of files (text of each file's own words, binaries of each file's
 * own byte values, drifting as they go), longer than a chunk, laid out as
 * md's RAID0 lays it; the true order continues at nearly every boundary,
 * another order or chunk far less, random data no more than chance; and
 * probe_continuity takes score from the rivals only, decides a chunk left
 * open, and changes nothing on random data. */
#include <stdlib.h>
#include <string.h>

#include "md/layout.h"
#include "probe/continuity.h"
#include "probe/evidence.h"
#include "tap.h"

#define N 4
#define CHUNK 16384
#define ROWS 64
#define MEMBER (ROWS * CHUNK)
#define VOCABULARY 256
#define IN_USE 12                    /* words (or byte values) a stretch of a file uses */
#define DRIFT 256                    /* bytes over which that moves by one */

static struct probe_member members[N];
static struct probe_window window;
static struct probe_sample sample = { .nmembers = N, .members = members, .nwindows = 1, .windows = &window };

static uint64_t next_random(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* A file of len bytes: words of its own vocabulary, or bytes of its own
 * alphabet, as files of one kind resemble themselves more than each other;
 * what it uses drifts as it goes, as a real file's topic or section does. */
static void one_file(uint8_t *p, size_t len, uint64_t *x)
{
	char words[VOCABULARY][9];
	uint8_t alphabet[VOCABULARY];
	bool text = next_random(x) % 3 != 0;

	for (int w = 0; w < VOCABULARY; w++) {
		int l = 2 + (int)(next_random(x) % 7);
		for (int k = 0; k < l; k++)
			words[w][k] = (char)('a' + next_random(x) % 26);
		words[w][l] = 0;
		alphabet[w] = (uint8_t)next_random(x);
	}
	for (size_t at = 0; at < len;) {
		size_t pick = (at / DRIFT + next_random(x) % IN_USE) % VOCABULARY;
		if (!text) {
			p[at++] = alphabet[pick];
			continue;
		}
		for (size_t k = 0; words[pick][k] && at < len; k++)
			p[at++] = (uint8_t)words[pick][k];
		if (at < len)
			p[at++] = next_random(x) % 9 ? ' ' : '\n';
	}
}

static uint64_t fill_files(uint8_t *array, size_t len, uint64_t seed)
{
	uint64_t x = seed;

	for (size_t at = 0; at < len;) {
		size_t flen = CHUNK + next_random(&x) % (3 * CHUNK);
		if (flen > len - at)
			flen = len - at;
		one_file(array + at, flen, &x);
		at += flen;
	}
	return x;
}

static void fill_random(uint8_t *array, size_t len, uint64_t seed)
{
	uint64_t x = seed;

	for (size_t at = 0; at < len; at += 8) {
		uint64_t w = next_random(&x);
		memcpy(array + at, &w, 8);
	}
}

/* The array's bytes put on the members as RAID0 of CHUNK puts them. */
static void lay_out_raid0(const uint8_t *array)
{
	window.offset = 0;
	window.len = MEMBER;
	for (int i = 0; i < N; i++) {
		members[i].path = "member";
		members[i].sectors = MEMBER / 512;
		if (!window.buf[i])
			window.buf[i] = malloc(MEMBER);
	}
	for (size_t k = 0; k < (size_t)N * ROWS; k++)
		memcpy(window.buf[k % N] + (k / N) * CHUNK, array + k * CHUNK, CHUNK);
}

static struct geometry_spec raid0(uint32_t chunk, int a, int b, int c, int d)
{
	return (struct geometry_spec){ .level = MD_LEVEL_RAID0, .layout = RAID0_LAYOUT_UNSPECIFIED,
				       .chunk_sectors = chunk / 512, .data_offset = 0, .size = MEMBER / 512,
				       .raid_disks = N, .order = { a, b, c, d } };
}

static struct continuity_tally tally(struct geometry_spec g)
{
	struct continuity_tally t;
	struct diag d;

	continuity_tally_of(&sample, &g, &t, &d);
	return t;
}

static struct probe_candidate candidate(struct geometry_spec g)
{
	struct probe_candidate c = { .spec = g, .score = 1 };

	for (int r = 0; r < g.raid_disks; r++)
		c.uses[g.order[r]] = true;
	return c;
}

static void edges(void)
{
	uint8_t zero[CONTINUITY_EDGE_BYTES] = { 0 }, text[CONTINUITY_EDGE_BYTES];
	struct continuity_edge z, a, b;
	uint64_t x = 7;

	one_file(text, sizeof(text), &x);
	continuity_edge(zero, sizeof(zero), &z);
	continuity_edge(text, sizeof(text), &a);
	continuity_edge(text, sizeof(text), &b);
	ok(z.flat && z.count == 1, "a run of zeros is a flat edge of one byte pair");
	ok(!a.flat && continuity_alike(&a, &b) == 1, "an edge resembles itself wholly");
	ok(continuity_alike(&a, &z) < 0.01, "text resembles a zero run hardly at all");
}

static void files_in_order(void)
{
	struct continuity_tally t = tally(raid0(CHUNK, 0, 1, 2, 3));

	ok(t.boundaries == N * ROWS - 1, "every chunk boundary of the sample is ranked (%d)", t.boundaries);
	ok(continuity_speaks(&t) && t.continued > 0.8 * t.boundaries,
	   "in the true order files continue across %d/%d boundaries (%.0f by chance)", t.continued, t.boundaries,
	   t.chance);
	struct continuity_tally swapped = tally(raid0(CHUNK, 0, 2, 1, 3));
	ok(swapped.continued < t.continued / 2, "two members swapped: %d/%d continue", swapped.continued,
	   swapped.boundaries);
	struct continuity_tally half = tally(raid0(CHUNK / 2, 0, 1, 2, 3)), twice = tally(raid0(CHUNK * 2, 0, 1, 2, 3));
	ok(continuity_excess(&half) < continuity_excess(&t) / 2 && continuity_excess(&twice) < continuity_excess(&t) / 2,
	   "half the chunk (%d/%d, %.0f by chance) or twice it (%d/%d, %.0f) continue far less",
	   half.continued, half.boundaries, half.chance, twice.continued, twice.boundaries, twice.chance);
}

static void rivals_lose(void)
{
	struct probe_result r = { 0 };
	struct diag d;

	struct probe_candidate right = candidate(raid0(CHUNK, 0, 1, 2, 3)), wrong = candidate(raid0(CHUNK, 1, 0, 2, 3));
	probe_result_add(&r, &wrong);
	probe_result_add(&r, &right);
	ok(probe_continuity(&sample, NULL, &r, &d) == 0, "probe_continuity runs");
	ok(r.cand[0].spec.order[0] == 0 && r.cand[0].score == 1, "the true order keeps its whole score, on top");
	ok(r.cand[1].score <= 0.75, "the rival's score is cut (%.2f)", r.cand[1].score);
	ok(strstr(r.cand[0].evidence[0], "chunk boundaries continue") != NULL, "the evidence says so: %s",
	   r.cand[0].evidence[0]);
}

static void chunk_completed(void)
{
	struct probe_result r = { 0 };
	struct diag d;
	struct probe_candidate open = candidate(raid0(CHUNK, 0, 1, 2, 3));

	open.spec.chunk_sectors = 0;
	probe_result_add(&r, &open);
	probe_continuity(&sample, NULL, &r, &d);
	ok(r.ncand == 1 && r.cand[0].spec.chunk_sectors == CHUNK / 512,
	   "a chunk left open is decided by the boundaries that continue (%u sectors)", r.cand[0].spec.chunk_sectors);
	ok(strstr(r.cand[0].evidence[0], "continuity decides the chunk, 16 KiB") != NULL, "and said: %s",
	   r.cand[0].evidence[0]);
}

static void random_says_nothing(void)
{
	struct probe_result r = { 0 };
	struct diag d;
	uint8_t *array = malloc((size_t)N * MEMBER);

	fill_random(array, (size_t)N * MEMBER, 99);
	lay_out_raid0(array);
	free(array);
	struct continuity_tally t = tally(raid0(CHUNK, 0, 1, 2, 3));
	ok(!continuity_speaks(&t), "random data: %d/%d boundaries continue, %.0f by chance: nothing said",
	   t.continued, t.boundaries, t.chance);
	struct probe_candidate right = candidate(raid0(CHUNK, 0, 1, 2, 3)), wrong = candidate(raid0(CHUNK, 1, 0, 2, 3));
	right.score = 0.95;
	wrong.score = 0.5;
	probe_result_add(&r, &right);
	probe_result_add(&r, &wrong);
	probe_continuity(&sample, NULL, &r, &d);
	ok(r.cand[0].score == 0.95 && r.cand[1].score == 0.5, "random data changes no score");
	ok(r.nundecided == 1 && strstr(r.undecided[0], "continuity") != NULL, "and the probe says why: %s",
	   r.undecided[0]);
}

int main(void)
{
	uint8_t *array = malloc((size_t)N * MEMBER);

	edges();
	fill_files(array, (size_t)N * MEMBER, 2026);
	lay_out_raid0(array);
	free(array);
	files_in_order();
	rivals_lose();
	chunk_completed();
	random_says_nothing();
	for (int i = 0; i < N; i++)
		free(window.buf[i]);
	return tap_done();
}
