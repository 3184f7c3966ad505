/* verify: a complete RAID4/5/6 candidate's parity recomputed where the
 * sample holds whole rows, for what tells apart geometries that place the
 * data alike but the parity otherwise (md's RAID6 layouts and DDF's). */
#ifndef STRIPE_PROBE_VERIFY_H
#define STRIPE_PROBE_VERIFY_H

#include "probe/probe.h"

/* Rows the sample holds whole for c, with data in them and every role
 * present (*checked), and those whose P (and RAID6's Q, in md's syndrome
 * order) are what c's layout computes from its data (*fitting).  0, or
 * -1 with a message (out of memory, a geometry md refuses). */
int probe_verify_parity(const struct probe_sample *s, const struct probe_candidate *c, int *checked, int *fitting,
			struct diag *d);

#endif
