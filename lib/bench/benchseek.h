/* benchseek: Bonnie's random seeks: a chunk read at a random place, every
 * tenth written back dirtied, the seeks shared out to concurrent seekers. */
#ifndef STRIPE_BENCHSEEK_H
#define STRIPE_BENCHSEEK_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "bench/bench.h"

/* bonnie++'s UpdateSeek: a ticket divisible by it is a read-modify-write. */
#define BENCH_UPDATE_SEEK 10

struct seek_plan;

/* One seeker: its own descriptor (or none, on an array) and figure. */
struct seeker {
	const struct bench_params *p;
	struct bench_target *t;
	struct seek_plan *plan;
	/* one chunk at byte offset off of the target */
	int (*read_chunk)(struct seeker *s, void *buf, uint64_t off, struct diag *d);
	int (*write_chunk)(struct seeker *s, const void *buf, uint64_t off, struct diag *d);
	/* after the last seek, inside the time: what bonnie++'s close does (fsync) */
	int (*finish)(struct seeker *s, struct diag *d);
	int fd;                      /* -1 when read_chunk needs none */
	struct bench_figure fig;
	pthread_t th;
	bool started;
	int rc;
	struct diag d;
};

/* Sets up one seeker: read_chunk, write_chunk and fd.  The fd is closed
 * by bench_seeks. */
typedef int (*seeker_open)(struct seeker *s, struct diag *d);

/* p->seeks seeks at random chunks of [0, p->size), shared by p->seekers
 * threads.  Elapsed runs from the moment every seeker is ready to the last
 * one done; CPU is the whole process's. */
int bench_seeks(const struct bench_params *p, struct bench_target *t, struct bench_figure *f,
		seeker_open open_seeker, struct diag *d);

#endif
