/* splice_read.h: a read planned as member runs and spliced to a pipe, as
 * stripe-map answers a healthy read, checked against image_array.h's
 * pattern. */
#ifndef STRIPE_TEST_SPLICE_READ_H
#define STRIPE_TEST_SPLICE_READ_H

#include "raid/readplan.h"
#include "image_array.h"

#define SPLICE_RUNS 512
#define SPLICE_PIPE_BYTES (512u << 10)

/* Plans [off, off + len), splices it and reads it back: whether that gave
 * the pattern's bytes.  The pipe is read only once every run is in it, so
 * it must hold them all: len and a page a run (a spliced run of a few
 * bytes still takes one of its slots) within SPLICE_PIPE_BYTES. */
static inline bool splice_gives_pattern(struct array *a, uint64_t off, size_t len)
{
	struct member_run r[SPLICE_RUNS];
	uint8_t *got = malloc(len);
	int fds[2], n;
	size_t at = 0, i;
	bool same = false;

	if (!got || readplan_pipe(fds, SPLICE_PIPE_BYTES) < 0) {
		free(got);
		return false;
	}
	n = readplan_make(a, off, len, r, SPLICE_RUNS);
	if (n > 0 && readplan_splice(fds[1], r, n) == 0) {
		while (at < len) {
			ssize_t k = read(fds[0], got + at, len - at);

			if (k <= 0)
				break;
			at += (size_t)k;
		}
		for (same = at == len, i = 0; same && i < len; i++)
			same = got[i] == pattern_byte(off + i);
	}
	close(fds[0]);
	close(fds[1]);
	free(got);
	return same;
}

#endif
