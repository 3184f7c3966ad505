/* continuity: how often the end of each array chunk a geometry gives
 * resembles the start of the chunk it puts next, more than the other
 * starts there; the parts probe_continuity (evidence.h) is made of. */
#ifndef STRIPE_PROBE_CONTINUITY_H
#define STRIPE_PROBE_CONTINUITY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "probe/probe.h"

#define CONTINUITY_EDGE_BYTES 1024u  /* of a block's start or end compared */
#define CONTINUITY_EDGE_BITS 2048u

/* A block edge as the set of byte pairs it holds (hashed into bits): text
 * shares its letters' pairs with the text that follows it, a binary its
 * opcodes', zeros their one pair. */
struct continuity_edge {
	uint64_t bits[CONTINUITY_EDGE_BITS / 64];
	unsigned count;              /* bits set */
	bool flat;                   /* one byte repeated: a zero run, nothing to match */
	bool ready;                  /* computed (the probe computes the edges it ranks only) */
};

void continuity_edge(const uint8_t *p, size_t len, struct continuity_edge *e);

/* 0..1: the pairs two edges share among those either holds. */
double continuity_alike(const struct continuity_edge *a, const struct continuity_edge *b);

/* A geometry's chunk boundaries in the sample, ranked. */
struct continuity_tally {
	int boundaries;              /* ranked: a chunk's end and the next chunk's start both sampled */
	int continued;               /* where the start this geometry puts next resembled the end best */
	double chance;               /* how many would, were the order random */
	double spread;               /* the variance of that */
};

/* Ranks the boundaries of spec (chunk, layout, order and data offset
 * decided) in s's windows. */
int continuity_tally_of(const struct probe_sample *s, const struct geometry_spec *spec,
			struct continuity_tally *t, struct diag *d);

/* Do the boundaries continue far beyond chance (enough of them ranked)? */
bool continuity_speaks(const struct continuity_tally *t);

/* 0..1: the share of boundaries continued beyond what chance gives. */
double continuity_excess(const struct continuity_tally *t);

#endif
