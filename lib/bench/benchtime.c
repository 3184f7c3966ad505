/* benchtime: the clocks behind every stripe-bench figure: wall time, the
 * process's CPU time, per-operation latencies, rates; and the test names. */
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "bench/bench.h"

const struct bench_test_name bench_test_names[BT_COUNT] = {
	[BT_PUTC] = { "per_char_write", "per-character write" },
	[BT_WRITE] = { "block_write", "block write" },
	[BT_REWRITE] = { "rewrite", "rewrite" },
	[BT_GETC] = { "per_char_read", "per-character read" },
	[BT_READ] = { "block_read", "block read" },
	[BT_SEEKS] = { "random_seeks", "random seeks" },
	[BT_SEQ_CREATE] = { "sequential_create", "sequential create" },
	[BT_SEQ_STAT] = { "sequential_stat", "sequential stat" },
	[BT_SEQ_DELETE] = { "sequential_delete", "sequential delete" },
	[BT_RAN_CREATE] = { "random_create", "random create" },
	[BT_RAN_STAT] = { "random_stat", "random stat" },
	[BT_RAN_DELETE] = { "random_delete", "random delete" },
};

uint64_t bench_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t tv_ns(const struct timeval *tv)
{
	return (uint64_t)tv->tv_sec * 1000000000ull + (uint64_t)tv->tv_usec * 1000ull;
}

static void clock_start(struct bench_clock *c, int who)
{
	struct rusage ru;

	c->who = who;
	getrusage(who, &ru);
	c->user_ns = tv_ns(&ru.ru_utime);
	c->sys_ns = tv_ns(&ru.ru_stime);
	c->wall_ns = bench_now_ns();
}

void bench_clock_start(struct bench_clock *c)
{
	clock_start(c, RUSAGE_SELF);
}

void bench_clock_start_thread(struct bench_clock *c)
{
	clock_start(c, RUSAGE_THREAD);
}

void bench_clock_stop(const struct bench_clock *c, struct bench_figure *f)
{
	uint64_t now = bench_now_ns();
	struct rusage ru;

	getrusage(c->who, &ru);
	f->run = true;
	f->elapsed_ns = now > c->wall_ns ? now - c->wall_ns : 1;
	f->user_ns = tv_ns(&ru.ru_utime) - c->user_ns;
	f->sys_ns = tv_ns(&ru.ru_stime) - c->sys_ns;
}

void bench_op(struct bench_figure *f, uint64_t ns)
{
	if (ns > f->latency_ns)
		f->latency_ns = ns;
	f->latency_sum_ns += ns;
	f->timed++;
	f->over_2s += ns > 2000000000ull;
	f->over_10s += ns > 10000000000ull;
}

void bench_merge_ops(struct bench_figure *a, const struct bench_figure *b)
{
	if (b->latency_ns > a->latency_ns)
		a->latency_ns = b->latency_ns;
	a->latency_sum_ns += b->latency_sum_ns;
	a->timed += b->timed;
	a->over_2s += b->over_2s;
	a->over_10s += b->over_10s;
	a->bytes += b->bytes;
	a->ops += b->ops;
}

double bench_rate(const struct bench_figure *f, uint64_t amount)
{
	if (!f->run || !f->elapsed_ns)
		return 0;
	return (double)amount * 1e9 / (double)f->elapsed_ns;
}

unsigned bench_cpu_tenths(const struct bench_figure *f)
{
	if (!f->run || !f->elapsed_ns)
		return 0;
	return (unsigned)((double)(f->user_ns + f->sys_ns) * 1000.0 / (double)f->elapsed_ns);
}

void *bench_buffer(const struct bench_params *p, size_t len, struct diag *d)
{
	void *buf = p->direct ? dev_alloc_huge(len) : dev_alloc(len);

	if (!buf)
		diag_fail(d, "out of memory (%zu bytes) for a benchmark buffer", len);
	return buf;
}

void bench_fill(void *buf, size_t len, uint64_t seed)
{
	uint64_t s = seed | 1, v;
	uint8_t *p = buf;
	size_t i;

	for (i = 0; i + 8 <= len; i += 8) {
		v = bench_random(&s);
		memcpy(p + i, &v, 8);
	}
	for (v = bench_random(&s); i < len; i++, v >>= 8)
		p[i] = (uint8_t)v;
}

void bench_stamp(void *buf, size_t len, uint64_t off, uint64_t seed)
{
	uint8_t *p = buf;
	size_t at;

	for (at = 0; at + 512 <= len; at += 512) {
		uint64_t where = off + at;

		memcpy(p + at, &where, 8);
		memcpy(p + at + 8, &seed, 8);
	}
}
