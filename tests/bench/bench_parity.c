/* bench_parity: libstripe's parity kernels against ISA-L in one run, side by
 * side and interleaved, because this machine drifts 30-50 % between runs.
 *
 * usage: bench_parity [reps [mode]]   reps: samples per figure (default 41);
 *        mode: only the 4+2 rows of that mode (cache, stream or L1)
 *
 * GB/s are data bytes (ndata x chunk per stripe) per second, 10^9 units, for
 * every operation, timed by this thread's CPU clock so that time spent
 * preempted by other work on the machine does not count.  "cache" reuses one
 * stripe (64 KiB chunks: L2-resident; 4 KiB: L1-resident); "stream" walks
 * on through 256 MiB of data (plus parity), 64 MiB of it per sample, so
 * every sample starts where the cache holds nothing of it.  Many short
 * samples, with the ratio taken as the median of per-pair ratios (each pair
 * measured back to back), held still better than a few long ones. */
#include <isa-l/erasure_code.h>
#include <isa-l/raid.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "raid/parity.h"

#define CHUNK   (64 * 1024)      /* chunk of the main rows */
#define STREAM  ((size_t)256 << 20)   /* data bytes of the stream geometry */
#define STREAM_SAMPLE ((size_t)64 << 20)  /* data bytes walked by one sample */
#define MAXN    16
#define CACHE_NS 2e6              /* length of one cache-resident sample */
#define MAXREPS 201

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void *xalloc(size_t len)
{
	void *p;

	if (posix_memalign(&p, 4096, len)) {
		fprintf(stderr, "bench_parity: out of memory (%zu bytes)\n", len);
		exit(2);
	}
	return p;
}

static void fill(uint8_t *b, size_t len, uint64_t seed)
{
	uint64_t x = seed * 0x9e3779b97f4a7c15ull + 1;

	for (size_t i = 0; i + 8 <= len; i += 8) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		memcpy(b + i, &x, 8);
	}
}

/* A geometry: n data blocks + P + Q, each `span` bytes, walked in chunks.
 * The blocks sit one page apart in one allocation, as separately allocated
 * buffers usually do: how blocks alias in the caches moved single figures by
 * 30 % when each geometry inherited whatever the allocator had freed before. */
struct geo {
	int n;
	size_t span, chunk;
	size_t cursor;                  /* where the next stream sample starts */
	uint8_t *arena;
	uint8_t *blk[MAXN + 2];
	/* ISA-L's decode of data slots A and B from the others */
	unsigned char gftbls[32 * MAXN * 2];
};

#define LOST_A 1
#define LOST_B 2

static void isal_decode_tables(struct geo *g)
{
	unsigned char m[2 * MAXN];
	int a = LOST_A, b = LOST_B, k = 0;
	/* Pxy = P ^ sum D_i = Da ^ Db and Qxy = Q ^ sum g^i D_i = g^a Da ^ g^b Db
	 * (sums over the survivors); the 2x2 system inverts to
	 * Da = (g^b Pxy ^ Qxy)/det and Db = (g^a Pxy ^ Qxy)/det, det = g^a ^ g^b.
	 * Written out per source, that is md's P and Q rows with the lost
	 * columns solved away.  (md_gf_mul and md_gf_inv are declared by both
	 * libraries, for the same field; check() confirms the result.) */
	unsigned char ga = md_gf_exp(a), gb = md_gf_exp(b), idet = md_gf_inv(ga ^ gb);

	for (int i = 0; i < g->n; i++) {
		if (i == a || i == b)
			continue;
		m[k] = md_gf_mul(idet, gb ^ md_gf_exp(i));
		m[g->n + k] = md_gf_mul(idet, ga ^ md_gf_exp(i));
		k++;
	}
	m[k] = md_gf_mul(idet, gb);                 /* P */
	m[g->n + k] = md_gf_mul(idet, ga);
	k++;
	m[k] = idet;                             /* Q */
	m[g->n + k] = idet;
	ec_init_tables(g->n, 2, m, g->gftbls);
}

static void geo_init(struct geo *g, int n, size_t chunk, size_t span)
{
	void *ptr[MAXN + 2];

	g->n = n;
	g->chunk = chunk;
	g->span = span;
	g->cursor = 0;
	g->arena = xalloc((size_t)(n + 2) * (span + 4096));
	for (int i = 0; i < n + 2; i++) {
		g->blk[i] = g->arena + (size_t)i * (span + 4096);
		if (i < n)
			fill(g->blk[i], span, (uint64_t)i + 1);
	}
	for (size_t o = 0; o < span; o += chunk) {
		for (int i = 0; i < n + 2; i++)
			ptr[i] = g->blk[i] + o;
		parity_gen_pq(n, chunk, ptr);
	}
	isal_decode_tables(g);
}

static void geo_free(struct geo *g)
{
	free(g->arena);
}

/* ---- the operations, one stripe (chunk offset o) at a time ---- */

typedef void op_fn(struct geo *g, size_t o);

static void lib_pq(struct geo *g, size_t o)
{
	void *p[MAXN + 2];

	for (int i = 0; i < g->n + 2; i++)
		p[i] = g->blk[i] + o;
	parity_gen_pq(g->n, g->chunk, p);
}

static void isal_pq(struct geo *g, size_t o)
{
	void *p[MAXN + 2];

	for (int i = 0; i < g->n + 2; i++)
		p[i] = g->blk[i] + o;
	pq_gen(g->n + 2, (int)g->chunk, p);
}

static void lib_rec(struct geo *g, size_t o)
{
	void *p[MAXN + 2];
	static const int lost[2] = { LOST_A, LOST_B };

	for (int i = 0; i < g->n + 2; i++)
		p[i] = g->blk[i] + o;
	parity_recover(g->n, 1, g->chunk, p, lost, 2);
}

static void isal_rec(struct geo *g, size_t o)
{
	unsigned char *src[MAXN + 2], *dst[2] = { g->blk[LOST_A] + o, g->blk[LOST_B] + o };
	int k = 0;

	for (int i = 0; i < g->n + 2; i++)
		if (i != LOST_A && i != LOST_B)
			src[k++] = g->blk[i] + o;
	ec_encode_data((int)g->chunk, g->n, 2, g->gftbls, src, dst);
}

static void lib_xor(struct geo *g, size_t o)
{
	void *p[MAXN + 1];

	for (int i = 0; i < g->n; i++)
		p[i] = g->blk[i] + o;
	parity_xor(g->blk[g->n] + o, p, g->n, g->chunk);
}

static void isal_xor(struct geo *g, size_t o)
{
	void *p[MAXN + 1];

	for (int i = 0; i < g->n + 1; i++)
		p[i] = g->blk[i] + o;
	xor_gen(g->n + 1, (int)g->chunk, p);
}

/* ---- timing ---- */

/* One sample in GB/s of data.  Cache: the first stripe over and over for
 * about CACHE_NS, in batches of about 1 MiB between readings of the clock
 * (a system call); stream: the next STREAM_SAMPLE bytes of data. */
static double sample(struct geo *g, op_fn *fn, int stream)
{
	double t0, t;
	long iters = 0, batch = (long)(1048576 / ((size_t)g->n * g->chunk)) + 1;

	if (stream) {
		size_t per_block = STREAM_SAMPLE / (size_t)g->n;

		t0 = now_ns();
		for (size_t done = 0; done < per_block; done += g->chunk) {
			fn(g, g->cursor);
			g->cursor += g->chunk;
			if (g->cursor >= g->span)
				g->cursor = 0;
		}
		t = now_ns() - t0;
		return (double)g->n * (double)per_block / t;
	}
	t0 = now_ns();
	do {
		for (long i = 0; i < batch; i++)
			fn(g, 0);
		iters += batch;
		t = now_ns() - t0;
	} while (t < CACHE_NS);
	return (double)g->n * (double)g->chunk * (double)iters / t;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n & 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

struct result {
	double lib, isal, ratio;        /* medians */
};

/* lib and ISA-L alternate, and which goes first alternates, so drift and
 * warm-up hit both alike. */
static struct result duel(struct geo *g, op_fn *mine, op_fn *theirs, int stream, int reps)
{
	double a[MAXREPS], b[MAXREPS], r[MAXREPS];
	struct result res;

	sample(g, mine, stream);
	sample(g, theirs, stream);
	for (int i = 0; i < reps; i++) {
		if (i & 1) {
			b[i] = sample(g, theirs, stream);
			a[i] = sample(g, mine, stream);
		} else {
			a[i] = sample(g, mine, stream);
			b[i] = sample(g, theirs, stream);
		}
		r[i] = a[i] / b[i];
	}
	res.lib = median(a, reps);
	res.isal = median(b, reps);
	res.ratio = median(r, reps);
	return res;
}

/* ---- correctness before speed ---- */

static int check(struct geo *g)
{
	size_t len = g->chunk;
	uint8_t *keep[2], *p = xalloc(len), *q = xalloc(len);
	int bad = 0;

	memcpy(p, g->blk[g->n], len);
	memcpy(q, g->blk[g->n + 1], len);
	isal_pq(g, 0);
	bad |= memcmp(p, g->blk[g->n], len) || memcmp(q, g->blk[g->n + 1], len);
	for (int k = 0; k < 2; k++) {
		int s = k ? LOST_B : LOST_A;

		keep[k] = xalloc(len);
		memcpy(keep[k], g->blk[s], len);
		memset(g->blk[s], 0, len);
	}
	isal_rec(g, 0);
	bad |= memcmp(keep[0], g->blk[LOST_A], len) || memcmp(keep[1], g->blk[LOST_B], len);
	memset(g->blk[LOST_A], 0, len);
	memset(g->blk[LOST_B], 0, len);
	lib_rec(g, 0);
	bad |= memcmp(keep[0], g->blk[LOST_A], len) || memcmp(keep[1], g->blk[LOST_B], len);
	isal_xor(g, 0);
	memcpy(q, g->blk[g->n], len);
	lib_xor(g, 0);
	bad |= memcmp(q, g->blk[g->n], len);
	lib_pq(g, 0);                            /* P back to P */
	free(keep[0]);
	free(keep[1]);
	free(p);
	free(q);
	return bad;
}

struct row {
	const char *what;
	op_fn *mine, *theirs;
};

static const struct row rows[] = {
	{ "P+Q generation", lib_pq, isal_pq },
	{ "2-data recovery", lib_rec, isal_rec },
	{ "RAID-5 XOR (P)", lib_xor, isal_xor },
};

static void print_row(const char *what, int n, int q, size_t chunk, const char *mode,
		      struct result r)
{
	char lay[16];

	snprintf(lay, sizeof(lay), "%d+%d", n, q);
	printf("%-16s %-6s %4zuK  %-7s %9.1f %9.1f %6.2f\n", what, lay, chunk >> 10, mode,
	       r.lib, r.isal, r.ratio);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	int reps = argc > 1 ? atoi(argv[1]) : 41;
	const char *only = argc > 2 ? argv[2] : NULL;
	static const int extra_n[] = { 8, 16 };
	struct geo cache, small, stream;

	if (reps < 1 || reps > MAXREPS)
		reps = 41;
	printf("bench_parity: libstripe \"%s\" vs ISA-L (its own runtime dispatch)\n",
	       parity_impl_name());
	printf("GB/s of data bytes per second of thread CPU time, medians of %d interleaved samples;\n"
	       "ratio = libstripe/ISA-L (median of paired ratios); recovery rebuilds data slots %d and %d\n\n",
	       reps, LOST_A, LOST_B);

	geo_init(&cache, 4, CHUNK, CHUNK);
	geo_init(&small, 4, 4096, 4096);
	geo_init(&stream, 4, CHUNK, STREAM / 4);
	if (check(&cache) || check(&small)) {
		printf("FAIL: libstripe and ISA-L disagree\n");
		return 1;
	}
	printf("%-16s %-6s %5s  %-7s %9s %9s %6s\n", "operation", "layout", "chunk", "mode",
	       "libstripe", "ISA-L", "ratio");
	for (size_t r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
		int q = r == 2 ? 1 : 2;

		if (!only || !strcmp(only, "cache"))
			print_row(rows[r].what, 4, q, CHUNK, "cache",
				  duel(&cache, rows[r].mine, rows[r].theirs, 0, reps));
		if (!only || !strcmp(only, "stream"))
			print_row(rows[r].what, 4, q, CHUNK, "stream",
				  duel(&stream, rows[r].mine, rows[r].theirs, 1, reps));
		if (!only || !strcmp(only, "L1"))
			print_row(rows[r].what, 4, q, small.chunk, "L1",
				  duel(&small, rows[r].mine, rows[r].theirs, 0, reps));
	}
	geo_free(&stream);
	geo_free(&small);
	if (only) {
		geo_free(&cache);
		return 0;
	}

	/* wider stripes, cache-resident */
	for (size_t e = 0; e < sizeof(extra_n) / sizeof(extra_n[0]); e++) {
		struct geo g;

		geo_init(&g, extra_n[e], CHUNK, CHUNK);
		if (check(&g)) {
			printf("FAIL: libstripe and ISA-L disagree at %d+2\n", extra_n[e]);
			return 1;
		}
		for (size_t r = 0; r < sizeof(rows) / sizeof(rows[0]); r++)
			print_row(rows[r].what, extra_n[e], r == 2 ? 1 : 2, CHUNK, "cache",
				  duel(&g, rows[r].mine, rows[r].theirs, 0, reps));
		geo_free(&g);
	}

	/* each libstripe kernel this CPU runs, 4+2 cache-resident, against ISA-L */
	printf("\n%-12s %15s %15s %15s   (4+2, 64K, cache: GB/s, ratio)\n", "kernel",
	       "P+Q gen", "2-data rec", "XOR");
	for (int i = 0; parity_impl_list(i); i++) {
		const char *name = parity_impl_list(i);

		if (parity_select(name))
			continue;
		printf("%-12s", name);
		for (size_t r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
			struct result res = duel(&cache, rows[r].mine, rows[r].theirs, 0,
						 (reps + 1) / 2);

			printf("   %6.1f %5.2f", res.lib, res.ratio);
			fflush(stdout);
		}
		printf("\n");
	}
	parity_select(NULL);
	geo_free(&cache);
	return 0;
}
