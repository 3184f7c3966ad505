/* continuity: real files run across chunk boundaries, so the end of one
 * array chunk looks like the start of the chunk a right geometry puts after
 * it, and not like the starts beside it.  Each candidate is ranked at every
 * sampled boundary against those other starts; random data continues no
 * more than chance, and then the measure says nothing. */
#include <stdlib.h>
#include <string.h>

#include "md/layout.h"
#include "probe/blocks.h"
#include "probe/continuity.h"
#include "probe/evidence.h"

#define WORDS ((int)(CONTINUITY_EDGE_BITS / 64))
#define EDGE_BITS_LOG2 11            /* 2048 bits */
#define MIN_BOUNDARIES 16            /* boundaries ranked before the measure speaks */
#define MIN_Z 4.0                    /* standard deviations above chance that say "continues" */
#define RIVAL_Z 2.5                  /* deviations short of the best rival that cost score */
#define WEIGHT 0.5                   /* the most continuity takes from a candidate's score */
#define MIN_CHUNK 8u                 /* sectors: 4 KiB */
#define MAX_CHUNK 2048u              /* 1 MiB */

/* A byte pair's bit: Fibonacci hashing, one multiply, the top bits kept. */
static unsigned pair_bit(uint8_t a, uint8_t b)
{
	return (unsigned)(((uint32_t)(a << 8 | b) * 0x9e3779b1u) >> (32 - EDGE_BITS_LOG2));
}

void continuity_edge(const uint8_t *p, size_t len, struct continuity_edge *e)
{
	memset(e, 0, sizeof(*e));
	e->flat = true;
	for (size_t i = 0; i + 1 < len; i++) {
		unsigned h = pair_bit(p[i], p[i + 1]);
		e->bits[h / 64] |= 1ull << (h % 64);
		e->flat &= p[i] == p[i + 1];
	}
	for (int w = 0; w < WORDS; w++)
		e->count += (unsigned)__builtin_popcountll(e->bits[w]);
	e->ready = true;
}

double continuity_alike(const struct continuity_edge *a, const struct continuity_edge *b)
{
	unsigned both = 0, either = 0;

	for (int w = 0; w < WORDS; w++) {
		both += (unsigned)__builtin_popcountll(a->bits[w] & b->bits[w]);
		either += (unsigned)__builtin_popcountll(a->bits[w] | b->bits[w]);
	}
	return either ? (double)both / either : 0;
}

/* The sample's block edges, each computed the first time it is asked
 * for: a block's first and last CONTINUITY_EDGE_BYTES on a member. */
struct edges {
	const struct probe_sample *s;
	struct continuity_edge **head;   /* [window][block * nmembers + member] */
	struct continuity_edge **tail;
};

static size_t window_blocks(const struct probe_window *w)
{
	return w->len / PROBE_BLOCK;
}

static void edges_free(struct edges *e)
{
	for (int w = 0; e->head && e->tail && w < e->s->nwindows; w++) {
		free(e->head[w]);
		free(e->tail[w]);
	}
	free(e->head);
	free(e->tail);
}

static int edges_take(const struct probe_sample *s, struct edges *e)
{
	size_t n = (size_t)s->nmembers;

	e->s = s;
	e->head = calloc((size_t)s->nwindows + 1, sizeof(*e->head));
	e->tail = calloc((size_t)s->nwindows + 1, sizeof(*e->tail));
	if (!e->head || !e->tail)
		return -1;
	for (int w = 0; w < s->nwindows; w++) {
		size_t nb = window_blocks(&s->windows[w]);
		e->head[w] = calloc(nb * n + 1, sizeof(**e->head));
		e->tail[w] = calloc(nb * n + 1, sizeof(**e->tail));
		if (!e->head[w] || !e->tail[w])
			return -1;
	}
	return 0;
}

/* The edge of the block at member byte off (block aligned), from the
 * windows only; NULL where the sample does not hold it. */
static const struct continuity_edge *edge_at(const struct edges *e, bool head, int member, uint64_t off)
{
	const struct probe_sample *s = e->s;

	if (member < 0 || off % PROBE_BLOCK)
		return NULL;
	for (int w = 0; w < s->nwindows; w++) {
		const struct probe_window *win = &s->windows[w];
		if (!win->buf[member] || off < win->offset || off + PROBE_BLOCK > win->offset + window_blocks(win) * PROBE_BLOCK)
			continue;
		size_t b = (off - win->offset) / PROBE_BLOCK;
		struct continuity_edge *edge = &(head ? e->head : e->tail)[w][b * (size_t)s->nmembers + (size_t)member];
		if (!edge->ready) {
			const uint8_t *blk = win->buf[member] + b * PROBE_BLOCK;
			continuity_edge(head ? blk : blk + PROBE_BLOCK - CONTINUITY_EDGE_BYTES, CONTINUITY_EDGE_BYTES, edge);
		}
		return edge;
	}
	return NULL;
}

static bool same_edge(const struct continuity_edge *a, const struct continuity_edge *b)
{
	return memcmp(a->bits, b->bits, sizeof(a->bits)) == 0;
}

/* Where a chunk ends (on its member, in bytes) and where the chunk a
 * geometry puts after it starts. */
struct boundary {
	int tail_member;
	uint64_t tail_start, tail_end;
	int next_member;
	uint64_t next_at;
};

/* One boundary: the tail ranked against the head the candidate puts next
 * and the other heads there (each member's at that offset, and the tail's
 * own member going on).  The start of the tail's own chunk is no rival (a
 * file resembles itself, and no order puts a chunk after itself), and
 * heads equal to the candidate's (a mirror's copy) are the same choice. */
static void rank_boundary(const struct edges *e, const struct continuity_edge *tail, const struct boundary *b,
			  struct continuity_tally *t)
{
	const struct continuity_edge *next = edge_at(e, true, b->next_member, b->next_at);

	if (tail->flat || !next)
		return;
	double mine = continuity_alike(tail, next);
	int options = 1;
	bool best = true;
	for (int m = 0; m <= e->s->nmembers; m++) {
		bool own = m == b->tail_member && b->next_at == b->tail_start;
		const struct continuity_edge *h = m < e->s->nmembers ? edge_at(e, true, m, b->next_at)
								     : edge_at(e, true, b->tail_member, b->tail_end);
		if (!h || own || h == next || same_edge(h, next))
			continue;
		options++;
		best &= continuity_alike(tail, h) < mine;
	}
	if (options < 2)
		return;
	t->boundaries++;
	t->continued += best;
	t->chance += 1.0 / options;
	t->spread += (1.0 / options) * (1 - 1.0 / options);
}

/* The array chunk whose start the member in role keeps at member sector x
 * (a chunk start), or UINT64_MAX where it keeps parity or nothing. */
static uint64_t chunk_at(const struct geometry *g, int role, uint64_t x)
{
	uint64_t row = x / g->chunk_sectors;
	struct stripe_map m;

	switch (g->level) {
	case MD_LEVEL_RAID0:
		return g->nzones == 1 ? row * (uint64_t)g->raid_disks + (uint64_t)role : UINT64_MAX;
	case MD_LEVEL_RAID4:
	case MD_LEVEL_RAID5:
	case MD_LEVEL_RAID6:
		layout_stripe(g, row, &m);
		for (int dd = 0; dd < m.data_disks; dd++)
			if (m.data[dd] == role)
				return row * (uint64_t)m.data_disks + (uint64_t)dd;
		return UINT64_MAX;
	case MD_LEVEL_RAID10: {
		uint64_t a = layout_array_sector(g, role, x);
		return a == UINT64_MAX || a % g->chunk_sectors ? UINT64_MAX : a / g->chunk_sectors;
	}
	}
	return UINT64_MAX;
}

static bool geometry_of(const struct probe_sample *s, const struct geometry_spec *spec, struct geometry *g)
{
	uint64_t sizes[ST_MAX_DISKS], size = spec->size;

	if (!spec->chunk_sectors || spec->level == MD_LEVEL_RAID1 || spec->data_offset == UINT64_MAX)
		return false;
	if (!size) {
		size = UINT64_MAX;
		for (int i = 0; i < s->nmembers; i++)
			if (s->members[i].path && s->members[i].sectors < size)
				size = s->members[i].sectors;
		if (size == UINT64_MAX || size <= spec->data_offset)
			return false;
		size -= spec->data_offset;
		size -= size % spec->chunk_sectors;
	}
	for (int r = 0; r < spec->raid_disks; r++) {
		sizes[r] = spec->sizes[r] ? spec->sizes[r] : size;
		if (spec->order[r] == PROBE_UNKNOWN)
			return false;
	}
	return geometry_init(g, spec->level, spec->layout, spec->raid_disks, spec->chunk_sectors, size, sizes,
			     NULL) == 0;
}

/* Every chunk start the windows hold on a member the candidate names,
 * with the tail of the chunk before it, ranked. */
static void tally(const struct edges *e, const struct geometry_spec *spec, struct continuity_tally *t)
{
	const struct probe_sample *s = e->s;
	struct geometry g;
	struct copy cp[ST_MAX_DISKS];
	uint64_t run, doff = spec->data_offset * 512, chunk = (uint64_t)spec->chunk_sectors * 512;

	memset(t, 0, sizeof(*t));
	if (!geometry_of(s, spec, &g))
		return;
	for (int w = 0; w < s->nwindows; w++) {
		const struct probe_window *win = &s->windows[w];
		uint64_t end = win->offset + window_blocks(win) * PROBE_BLOCK;
		uint64_t first = win->offset > doff ? (win->offset - doff + chunk - 1) / chunk * chunk : 0;
		for (uint64_t at = doff + first; at + PROBE_BLOCK <= end; at += chunk)
			for (int role = 0; role < spec->raid_disks; role++) {
				int member = spec->order[role];
				const struct continuity_edge *next = edge_at(e, true, member, at);
				uint64_t k = next ? chunk_at(&g, role, (at - doff) / 512) : UINT64_MAX;
				if (k == UINT64_MAX || k == 0 || k * spec->chunk_sectors >= g.array_sectors ||
				    layout_locate(&g, k * spec->chunk_sectors - 1, cp, &run) < 1)
					continue;
				struct boundary b = { .tail_member = spec->order[cp[0].role],
						      .tail_end = doff + (cp[0].sector + 1) * 512,
						      .next_member = member, .next_at = at };
				b.tail_start = b.tail_end - chunk;
				const struct continuity_edge *tail = edge_at(e, false, b.tail_member, b.tail_end - PROBE_BLOCK);
				if (tail)
					rank_boundary(e, tail, &b, t);
			}
	}
}

int continuity_tally_of(const struct probe_sample *s, const struct geometry_spec *spec,
			struct continuity_tally *t, struct diag *d)
{
	struct edges e = { 0 };

	if (edges_take(s, &e) < 0) {
		edges_free(&e);
		return diag_fail(d, "out of memory for the chunk edges");
	}
	tally(&e, spec, t);
	edges_free(&e);
	return 0;
}

/* Is x more than k standard deviations (of variance v) above zero? */
static bool beyond(double x, double k, double v)
{
	return x > 0 && x * x > k * k * v;
}

bool continuity_speaks(const struct continuity_tally *t)
{
	return t->boundaries >= MIN_BOUNDARIES && beyond(t->continued - t->chance, MIN_Z, t->spread);
}

double continuity_excess(const struct continuity_tally *t)
{
	double room = t->boundaries - t->chance;

	return room > 0 && t->continued > t->chance ? (t->continued - t->chance) / room : 0;
}

static bool holds(const struct probe_candidate *c, int member)
{
	for (int r = 0; r < c->spec.raid_disks; r++)
		if (c->spec.order[r] == member)
			return true;
	return c->uses[member];
}

static bool share_members(const struct probe_candidate *a, const struct probe_candidate *b)
{
	for (int m = 0; m < ST_MAX_DISKS; m++)
		if (holds(a, m) && holds(b, m))
			return true;
	return false;
}

static void sort_by_score(struct probe_result *r)
{
	for (int i = 1; i < r->ncand; i++)
		for (int j = i; j > 0 && r->cand[j - 1].score < r->cand[j].score; j--) {
			struct probe_candidate t = r->cand[j - 1];
			r->cand[j - 1] = r->cand[j];
			r->cand[j] = t;
		}
}


/* What the best continuing rival over the same members makes of c: its
 * score is cut by how far c's boundaries fall short of the rival's
 * (significantly only: within RIVAL_Z deviations of the rival's share
 * stays whole). */
static double factor_for(const struct continuity_tally *mine, const struct continuity_tally *best)
{
	if (!mine->boundaries || !best->boundaries)
		return 1;
	double share = (double)best->continued / best->boundaries;
	double short_of = share * mine->boundaries - mine->continued - 1;
	if (!beyond(short_of, RIVAL_Z, mine->boundaries * share * (1 - share)))
		return 1;
	double lost = 1 - continuity_excess(mine) / continuity_excess(best);
	return 1 - WEIGHT * (lost < 0 ? 0 : lost > 1 ? 1 : lost);
}

/* Is everything but the chunk decided? */
static bool only_chunk_open(const struct geometry_spec *g)
{
	if (g->chunk_sectors || g->level == MD_LEVEL_RAID1 || g->data_offset == UINT64_MAX ||
	    (g->layout < 0 && g->level != MD_LEVEL_RAID0))
		return false;
	for (int r = 0; r < g->raid_disks; r++)
		if (g->order[r] == PROBE_UNKNOWN)
			return false;
	return true;
}

/* The two chunks under which c's boundaries continue most. */
struct chunk_ranking {
	uint32_t best, second;           /* sectors; 0 when none */
	struct continuity_tally at_best, at_second;
};

static void rank_chunks(const struct edges *e, const struct probe_hints *h, const struct probe_candidate *c,
			struct chunk_ranking *k)
{
	struct continuity_tally t;

	memset(k, 0, sizeof(*k));
	for (uint32_t chunk = MIN_CHUNK; chunk <= MAX_CHUNK; chunk *= 2) {
		struct geometry_spec g = c->spec;
		if (h && h->chunk_sectors && chunk != h->chunk_sectors)
			continue;
		g.chunk_sectors = chunk;
		g.size -= g.size % chunk;
		tally(e, &g, &t);
		if (!k->best || continuity_excess(&t) > continuity_excess(&k->at_best)) {
			k->second = k->best;
			k->at_second = k->at_best;
			k->best = chunk;
			k->at_best = t;
		} else if (!k->second || continuity_excess(&t) > continuity_excess(&k->at_second)) {
			k->second = chunk;
			k->at_second = t;
		}
	}
}

/* The chunk c's other evidence left open, where one chunk's boundaries
 * continue far beyond chance and significantly more than any other's: c
 * completed with it, or false. */
static bool complete_chunk(const struct edges *e, const struct probe_hints *h, const struct probe_candidate *c,
			   struct probe_candidate *out)
{
	struct chunk_ranking k;

	rank_chunks(e, h, c, &k);
	if (!k.best || !continuity_speaks(&k.at_best) || (k.second && factor_for(&k.at_second, &k.at_best) == 1))
		return false;
	*out = *c;
	out->spec.chunk_sectors = k.best;
	out->spec.size -= out->spec.size % k.best;
	probe_candidate_evidence(out, "continuity decides the chunk, %u KiB: %d/%d boundaries continue (%u KiB: %d/%d)",
				 k.best / 2, k.at_best.continued, k.at_best.boundaries, k.second / 2,
				 k.at_second.continued, k.at_second.boundaries);
	return true;
}

/* Candidates whose chunk alone is open are replaced by their completion
 * where continuity decides it. */
static void complete_chunks(const struct edges *e, const struct probe_hints *h, struct probe_result *r)
{
	struct probe_candidate done[PROBE_MAX_CANDIDATES];
	int ndone = 0, kept = 0;

	for (int i = 0; i < r->ncand; i++) {
		if (only_chunk_open(&r->cand[i].spec) && complete_chunk(e, h, &r->cand[i], &done[ndone])) {
			ndone++;
			continue;
		}
		r->cand[kept++] = r->cand[i];
	}
	r->ncand = kept;
	for (int k = 0; k < ndone; k++)
		probe_result_add(r, &done[k]);
}

int probe_continuity(struct probe_sample *s, const struct probe_hints *h, struct probe_result *r,
		     struct diag *d)
{
	struct edges e = { 0 };
	struct continuity_tally t[PROBE_MAX_CANDIDATES];
	int ranked = 0, speaking = 0;

	if (edges_take(s, &e) < 0) {
		edges_free(&e);
		return diag_fail(d, "out of memory for the chunk edges");
	}
	complete_chunks(&e, h, r);
	uint32_t open_best[PROBE_MAX_CANDIDATES] = { 0 };
	for (int i = 0; i < r->ncand; i++) {
		struct chunk_ranking k;
		if (only_chunk_open(&r->cand[i].spec)) {
			/* undecided: weighed by the best any chunk gives it */
			rank_chunks(&e, h, &r->cand[i], &k);
			t[i] = k.at_best;
			open_best[i] = k.best;
		} else {
			tally(&e, &r->cand[i].spec, &t[i]);
		}
		ranked += t[i].boundaries > 0;
		speaking += continuity_speaks(&t[i]);
	}
	edges_free(&e);
	if (!ranked)
		return 0;
	if (!speaking) {
		probe_result_undecided(r, "continuity: no candidate's chunk boundaries continue more often than chance; "
					  "the data (compressed, encrypted or random) says nothing of the order");
		return 0;
	}
	double factor[PROBE_MAX_CANDIDATES];
	for (int i = 0; i < r->ncand; i++) {
		int best = -1;
		for (int j = 0; j < r->ncand; j++)
			if (continuity_speaks(&t[j]) && share_members(&r->cand[i], &r->cand[j]) &&
			    (best < 0 || continuity_excess(&t[j]) > continuity_excess(&t[best])))
				best = j;
		factor[i] = best < 0 ? 1 : factor_for(&t[i], &t[best]);
	}
	for (int i = 0; i < r->ncand; i++) {
		struct probe_candidate *c = &r->cand[i];
		if (!t[i].boundaries)
			continue;
		c->score *= factor[i];
		if (open_best[i])
			probe_candidate_evidence(c, "continuity: at best %d/%d chunk boundaries continue, with %u KiB chunks "
						    "(%.0f by chance)%s",
						 t[i].continued, t[i].boundaries, open_best[i] / 2, t[i].chance,
						 factor[i] < 1 ? ", fewer than a rival's" : "");
		else
			probe_candidate_evidence(c, "continuity: %d/%d chunk boundaries continue into the chunk this "
						    "geometry puts next (%.0f by chance)%s",
						 t[i].continued, t[i].boundaries, t[i].chance,
						 factor[i] < 1 ? ", fewer than a rival's" : "");
	}
	sort_by_score(r);
	return 0;
}
