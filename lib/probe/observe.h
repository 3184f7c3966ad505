/* observe: what each sampled row of a parity set says: for RAID6 where Q,
 * P and every data slot lie (syndrome.c), for RAID4/5 which members may be
 * P; rows alike enough to leave a RAID6 system short are solved together. */
#ifndef STRIPE_PROBE_OBSERVE_H
#define STRIPE_PROBE_OBSERVE_H

#include "probe/memberset.h"
#include "probe/rowfit.h"

/* What the rows of one set showed. */
struct set_rows {
	const struct parity_set *set;
	struct obs_list obs;
	int with_data;                    /* rows where a member of the set holds data */
	int inconsistent;                 /* rows no parity assignment fits */
	int q_only;                       /* RAID6 rows whose bytes named Q but not every data slot */
	uint64_t first;                   /* member offset of the first decided row */
};

/* Reads every row of sr->set in the sample into sr (zeroed but for set). */
int observe_set(const struct probe_sample *s, struct set_rows *sr, struct diag *d);

#endif
