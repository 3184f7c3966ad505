/* chain: a RAID0 from continuity alone, where no filesystem, parity or
 * copies speak (a tar or text stream written across the members).  For
 * each chunk size, every member's chunk ends are ranked against the
 * starts that could follow them; the start each member's ends continue
 * into far beyond chance links it to the next member, and links that
 * chain every member once give the order.  The chunk whose chain
 * continues significantly most decides. */
#include <stdlib.h>
#include <string.h>

#include "md/layout.h"
#include "probe/blocks.h"
#include "probe/continuity.h"
#include "probe/evidence.h"
#include "probe/offsets.h"

#define MIN_CHUNK 8u                 /* sectors: 4 KiB */
#define MAX_CHUNK 2048u              /* 1 MiB */
#define MAX_MEMBERS 32               /* a chain longer than this is not tried */
#define MAX_ROWS 512                 /* rows ranked a chunk size, spread over the sample */
#define MIN_RANKED 16                /* a member's chunk ends ranked before its link speaks */
#define MIN_Z 4.0                    /* standard deviations above chance that make a link */
#define APART_Z 2.5                  /* and above the runner-up start, or chunk */
#define CHAIN_SCORE 0.95             /* confident, short of what checksums give */
#define UNSURE_SCORE 0.5             /* the chain holds, something else is open */

/* Where a member's chunk that ends at the end of a row's chunk goes on:
 * option j < n is member j's start at the same member offset (the next
 * role's chunk of the row), option n + j member j's start one chunk on
 * (the next row's first chunk; member j itself going on when j is the
 * member, which no chunk boundary does). */
struct links {
	int n;
	uint32_t chunk;              /* sectors */
	int ranked[MAX_MEMBERS];     /* chunk ends ranked */
	int won[MAX_MEMBERS][2 * MAX_MEMBERS];
	double chance[MAX_MEMBERS];  /* how many one given start wins by chance */
	double spread[MAX_MEMBERS];  /* the variance of that */
	int link[MAX_MEMBERS];       /* the option a member's ends continue into, or -1 */
	int order[MAX_MEMBERS];      /* role -> member, when the links chain */
	bool chained;
	int continued, boundaries;   /* over the chain's links */
	double by_chance;
};

/* The edge of member i's block at off (head: its first bytes, else its
 * last); false where the sample does not hold it. */
static bool edge_of(const struct probe_sample *s, int i, uint64_t off, bool head, struct continuity_edge *e)
{
	const uint8_t *b = probe_sample_at(s, i, off, PROBE_BLOCK);

	if (!b)
		return false;
	continuity_edge(head ? b : b + PROBE_BLOCK - CONTINUITY_EDGE_BYTES, CONTINUITY_EDGE_BYTES, e);
	return true;
}

/* Is x more than k standard deviations (of variance v) above zero? */
static bool above(double x, double k, double v)
{
	return x > 0 && x * x > k * k * v;
}

/* Member i's chunk ending at member byte end: which start it continues
 * into best, among those the sample holds (heads[0..n) at end - chunk,
 * heads[n..2n) at end). */
static void rank_end(struct links *l, int i, const struct continuity_edge *tail, const struct continuity_edge *heads,
		     const bool *held)
{
	double best = -1, alike[2 * MAX_MEMBERS];
	int options = 0, winner = -1;
	bool tie = false;

	for (int o = 0; o < 2 * l->n; o++) {
		if (!held[o] || o == i)      /* its own chunk's start: a file resembles itself */
			continue;
		options++;
		alike[o] = continuity_alike(tail, &heads[o]);
		if (alike[o] > best) {
			best = alike[o];
			winner = o;
			tie = false;
		} else if (alike[o] == best) {
			tie = true;
		}
	}
	if (options < 2)
		return;
	double p = 1.0 / options;
	l->ranked[i]++;
	l->chance[i] += p;
	l->spread[i] += p * (1 - p);
	if (!tie)
		l->won[i][winner]++;
}

/* One row: the chunks at member byte at, ranked at their ends. */
static void rank_row(const struct probe_sample *s, struct links *l, uint64_t at, struct continuity_edge *heads)
{
	uint64_t chunk = (uint64_t)l->chunk * 512;
	bool held[2 * MAX_MEMBERS];
	struct continuity_edge tail;

	for (int j = 0; j < l->n; j++) {
		held[j] = edge_of(s, j, at, true, &heads[j]) && !heads[j].flat;
		held[l->n + j] = edge_of(s, j, at + chunk, true, &heads[l->n + j]) && !heads[l->n + j].flat;
	}
	for (int i = 0; i < l->n; i++)
		if (edge_of(s, i, at + chunk - PROBE_BLOCK, false, &tail) && !tail.flat)
			rank_end(l, i, &tail, heads, held);
}

/* The rows of chunk size l->chunk from member byte doff whose chunk the
 * sample holds whole, every stride'th so that at most MAX_ROWS are ranked. */
static void rank_rows(const struct probe_sample *s, struct links *l, uint64_t doff, struct continuity_edge *heads)
{
	uint64_t chunk = (uint64_t)l->chunk * 512, total = 0, seen = 0, stride = 1;

	for (int pass = 0; pass < 2; pass++) {
		for (int w = 0; w < s->nwindows; w++) {
			const struct probe_window *win = &s->windows[w];
			uint64_t end = win->offset + win->len, at = doff;
			if (win->offset > doff)
				at += (win->offset - doff + chunk - 1) / chunk * chunk;
			for (; at + chunk <= end; at += chunk)
				if (!pass)
					total++;
				else if (seen++ % stride == 0)
					rank_row(s, l, at, heads);
		}
		stride = total / MAX_ROWS + 1;
	}
}

/* The start member i's ends continue into most often (its top option). */
static int top_of(const struct links *l, int i)
{
	int best = 0;

	for (int o = 1; o < 2 * l->n; o++)
		if (l->won[i][o] > l->won[i][best])
			best = o;
	return best;
}

/* Member i's link: its top option when won far beyond chance and clearly
 * more often than any other, or -1. */
static int link_of(const struct links *l, int i)
{
	int best = top_of(l, i), second = -1;

	if (l->ranked[i] < MIN_RANKED)
		return -1;
	for (int o = 0; o < 2 * l->n; o++)
		if (o != best && (second < 0 || l->won[i][o] > l->won[i][second]))
			second = o;
	int b = l->won[i][best], r = l->won[i][second];
	if (!above(b - l->chance[i], MIN_Z, l->spread[i]) || !above(b - r, APART_Z, b + r))
		return -1;
	return best;
}

/* The member an option names. */
static int target(const struct links *l, int o)
{
	return o < l->n ? o : o - l->n;
}

/* One member left without a link: it takes the one start the others
 * leave (the member nobody links into; the next row's when no link wraps
 * yet), when that is its own top option too.  false otherwise. */
static bool imply_link(struct links *l, int u)
{
	bool into[MAX_MEMBERS] = { false }, wraps = false;
	int free_member = -1;

	for (int i = 0; i < l->n; i++)
		if (i != u) {
			into[target(l, l->link[i])] = true;
			wraps |= l->link[i] >= l->n;
		}
	for (int i = 0; i < l->n; i++)
		if (!into[i])
			free_member = free_member < 0 ? i : -2;
	if (free_member < 0)
		return false;
	int o = wraps ? free_member : l->n + free_member;
	if (top_of(l, u) != o)
		return false;
	l->link[u] = o;
	return true;
}

/* Do the links chain every member once?  Each member's chunk ends lead to
 * the next role's chunk in the row, but the last role's, to the first
 * role's next chunk: one cycle over every member with one wrap.  One link
 * left undecided (a weak member, or the wrap the sample's windows cut) is
 * implied by the rest. */
static void chain(struct links *l)
{
	int n = l->n, undecided = -1, wraps = 0, first = -1;

	l->chained = false;
	for (int i = 0; i < n; i++) {
		l->link[i] = link_of(l, i);
		if (l->link[i] == n + i)
			return;              /* a member going on: no chunk boundary there */
		if (l->link[i] >= 0)
			continue;
		if (undecided >= 0)
			return;              /* two links undecided */
		undecided = i;
	}
	if (undecided >= 0 && !imply_link(l, undecided))
		return;
	for (int i = 0; i < n; i++)
		if (l->link[i] >= n) {
			wraps++;
			first = l->link[i] - n;
		}
	if (wraps != 1)
		return;
	int at = first, k = 0;
	do {
		l->order[k++] = at;
		at = target(l, l->link[at]);
	} while (at != first && k < n);
	if (at != first || k != n)
		return;              /* a cycle that leaves members out */
	l->chained = true;
	l->continued = l->boundaries = 0;
	l->by_chance = 0;
	for (int i = 0; i < n; i++) {
		l->continued += l->won[i][l->link[i]];
		l->boundaries += l->ranked[i];
		l->by_chance += l->chance[i];
	}
}

static double excess(const struct links *l)
{
	double room = l->boundaries - l->by_chance;

	return room > 0 && l->continued > l->by_chance ? (l->continued - l->by_chance) / room : 0;
}

/* Does runner-up r continue significantly less than best b? */
static bool apart(const struct links *b, const struct links *r)
{
	double share = b->boundaries ? (double)b->continued / b->boundaries : 0;

	return above(share * r->boundaries - r->continued - 1, APART_Z, r->boundaries * share * (1 - share));
}

/* The first member byte where any member holds data, in the sample. */
static uint64_t first_data(const struct probe_sample *s)
{
	const uint8_t *blk[ST_MAX_DISKS];
	uint64_t first = UINT64_MAX;

	for (int i = 0, rows = sample_rows(s); i < rows; i++) {
		uint64_t off = sample_row(s, i, blk);
		for (int m = 0; m < s->nmembers && off < first; m++)
			if (blk[m] && !block_zero(blk[m]))
				first = off;
	}
	return first;
}

static void propose(const struct links *l, const struct links *rival,
		    uint64_t doff, uint64_t first, struct probe_result *r)
{
	struct probe_candidate c = { .score = CHAIN_SCORE };
	bool offset_known = first < (doff + l->chunk) * 512;   /* on a member, the first row's chunk */

	c.spec.level = MD_LEVEL_RAID0;
	c.spec.layout = RAID0_LAYOUT_UNSPECIFIED;
	c.spec.raid_disks = l->n;
	c.spec.chunk_sectors = l->chunk;
	c.spec.data_offset = doff;
	for (int k = 0; k < l->n; k++) {
		c.spec.order[k] = l->order[k];
		c.uses[k] = true;
	}
	probe_candidate_evidence(&c, "no filesystem, parity or copies found: continuity alone proposes raid0 "
				     "(a raid4 or parity-last raid5 missing its parity member places data alike)");
	probe_candidate_evidence(&c, "continuity: each member's chunk ends continue into one next start, chaining "
				     "every member once: %d/%d boundaries (%.0f by chance)",
				 l->continued, l->boundaries, l->by_chance);
	if (rival && rival->chained)
		probe_candidate_evidence(&c, "continuity decides the chunk, %u KiB: %u KiB chains too, %d/%d",
					 l->chunk / 2, rival->chunk / 2, rival->continued, rival->boundaries);
	else
		probe_candidate_evidence(&c, "continuity decides the chunk, %u KiB: no other size chains the members",
					 l->chunk / 2);
	if (rival && rival->chained && !apart(l, rival)) {
		c.score = UNSURE_SCORE;
		probe_result_undecided(r, "raid0: %u KiB and %u KiB chunks chain the members alike; -c decides",
				       l->chunk / 2, rival->chunk / 2);
	}
	if (offset_known) {
		probe_candidate_evidence(&c, "data offset %llu sectors: the data begins in the array's first row",
					 (unsigned long long)doff);
	} else {
		c.score = UNSURE_SCORE;
		probe_result_undecided(r, "raid0: data first seen at member byte %llu, past the first row from "
					  "%llu sectors; --data-offset decides", (unsigned long long)first,
				       (unsigned long long)doff);
	}
	probe_result_add(r, &c);
}

int probe_chain(struct probe_sample *s, const struct probe_hints *h, struct probe_result *r, struct diag *d)
{
	uint64_t offs[PROBE_MAX_OFFSETS], first = first_data(s);
	int n = s->nmembers;

	if (n < 2 || n > MAX_MEMBERS || probe_absent(s, n) || (h->level >= 0 && h->level != MD_LEVEL_RAID0) ||
	    (h->raid_disks && h->raid_disks != n) || first == UINT64_MAX ||
	    !probe_offsets(h, probe_smallest_member(s), first, offs))
		return 0;
	struct links *l = calloc(3, sizeof(*l));
	struct continuity_edge *heads = calloc(2 * MAX_MEMBERS, sizeof(*heads));
	if (!l || !heads) {
		free(l);
		free(heads);
		return diag_fail(d, "out of memory for the chunk links");
	}
	/* the best chain, the runner-up and the one being ranked */
	struct links *best = &l[0], *second = &l[1], *now = &l[2], *t;
	bool have = false, rival = false;
	for (uint32_t chunk = MIN_CHUNK; chunk <= MAX_CHUNK; chunk *= 2) {
		if (h->chunk_sectors && chunk != h->chunk_sectors)
			continue;
		memset(now, 0, sizeof(*now));
		now->n = n;
		now->chunk = chunk;
		rank_rows(s, now, offs[0] * 512, heads);
		chain(now);
		if (!now->chained)
			continue;
		if (!have || excess(now) > excess(best)) {
			t = second, second = best, best = now, now = t;
			rival = have;
			have = true;
		} else if (!rival || excess(now) > excess(second)) {
			t = second, second = now, now = t;
			rival = true;
		}
	}
	if (have)
		propose(best, rival ? second : NULL, offs[0], first, r);
	else
		probe_result_undecided(r, "raid0: no chunk size links every member's chunk ends to one next start "
					  "beyond chance: random, compressed or encrypted data, or too few chunks sampled "
					  "(--deep reads more)");
	free(l);
	free(heads);
	return 0;
}
