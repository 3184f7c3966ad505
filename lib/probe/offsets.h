/* offsets: the data offsets an array may have, as mdadm chooses them. */
#ifndef STRIPE_PROBE_OFFSETS_H
#define STRIPE_PROBE_OFFSETS_H

#include <stdint.h>

#include "probe/probe.h"

#define PROBE_MAX_OFFSETS 260

/* The data offsets (sectors) at or below first, the member offset in bytes
 * where the first data was seen, largest first: the hinted one alone, or
 * mdadm's defaults (0 for 0.90/1.0; 2048, 4096 and 262144 for 1.1/1.2, and
 * what mdadm picks for members of member_bytes with each chunk size), and
 * with deep every MiB up to 256 MiB.  Returns how many. */
int probe_offsets(const struct probe_hints *h, uint64_t member_bytes, uint64_t first, uint64_t *out);

#endif
