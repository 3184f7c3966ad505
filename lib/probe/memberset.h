/* memberset: which of the given members hold parity together, when the
 * members of several arrays may have been given at once. */
#ifndef STRIPE_PROBE_MEMBERSET_H
#define STRIPE_PROBE_MEMBERSET_H

#include <stdbool.h>
#include <stdint.h>

#include "probe/probe.h"
#include "probe/syndrome.h"

#define MAX_PARITY_SETS 8

struct parity_set {
	int n;
	int member[PSET_MAX];        /* set index -> member index */
	bool raid6;                  /* XOR is zero but for one block (Q) per row */
	int rows, fitting;           /* sampled rows with data, and those the test held in */
};

/* Finds the sets of present members whose blocks XOR to zero row by row
 * (RAID4/5) or do so once one block is left out (RAID6), smallest first and
 * none holding another; members equal to each other (copies) form no set.
 * Returns how many. */
int parity_sets_find(const struct probe_sample *s, struct parity_set *out, int max);

#endif
