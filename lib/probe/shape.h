/* shape: a candidate geometry in words, for the report and for the lines
 * that weigh superblocks against the data ("chunk 64K, order 0:1:2"). */
#ifndef STRIPE_PROBE_SHAPE_H
#define STRIPE_PROBE_SHAPE_H

#include <stddef.h>
#include <stdint.h>

#include "md/geometry_spec.h"

/* sectors in the largest unit that divides them: "64K", "1M", "2049s". */
void probe_shape_size(char *buf, size_t len, uint64_t sectors);

/* The order as roles' member indices: "2:0:missing:?" ("?" for a role
 * PROBE_UNKNOWN). */
void probe_shape_order(const struct geometry_spec *s, char *buf, size_t len);

/* The fields of s that differ from than's (every field when than is NULL),
 * "raid5, 4 devices, chunk 64K, layout left-symmetric, data offset 2048
 * sectors, order 1:0:2"; an empty string when none differs.  A field not
 * known reads "?". */
void probe_shape_describe(const struct geometry_spec *s, const struct geometry_spec *than, char *buf,
			  size_t len);

#endif
