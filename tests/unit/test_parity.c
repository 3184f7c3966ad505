/* test_parity: every implementation against a byte-at-a-time model of md's
 * RAID-5/6 math, including every loss of one or two blocks for 1..16 data. */
#include <stdint.h>
#include <string.h>

#include "raid/parity.h"
#include "tap.h"

#define MAXN 16

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void fill(uint8_t *b, size_t len)
{
	for (size_t i = 0; i < len; i += 8) {
		uint64_t r = rnd();

		memcpy(b + i, &r, len - i < 8 ? len - i : 8);
	}
}

static void *xalloc(size_t len)
{
	void *p;

	if (posix_memalign(&p, PARITY_ALIGN, len ? len : 1)) {
		printf("Bail out! out of memory\n");
		exit(1);
	}
	return p;
}

/* ---- the model: shift-and-reduce, nothing shared with the library ---- */

static uint8_t m_mul2(uint8_t x)
{
	return (uint8_t)((x << 1) ^ (x & 0x80 ? 0x1d : 0));
}

static uint8_t m_mul(uint8_t a, uint8_t b)
{
	uint8_t r = 0;

	for (; b; b >>= 1, a = m_mul2(a))
		if (b & 1)
			r ^= a;
	return r;
}

/* md's gen_syndrome: Horner from the highest slot down. */
static void m_pq(int n, size_t len, uint8_t *const *d, uint8_t *p, uint8_t *q)
{
	for (size_t i = 0; i < len; i++) {
		uint8_t pv = 0, qv = 0;

		for (int z = n - 1; z >= 0; z--) {
			pv ^= d[z][i];
			qv = m_mul2(qv) ^ d[z][i];
		}
		p[i] = pv;
		q[i] = qv;
	}
}

/* ---- field ---- */

static void test_field(void)
{
	static const uint8_t first[10] = { 1, 2, 4, 8, 16, 32, 64, 128, 0x1d, 0x3a };
	int ok_exp = 1, ok_log = 1, ok_mul = 1, ok_inv = 1, seen[255] = { 0 };
	uint8_t x = 1;

	for (int i = 0; i < 10; i++)
		ok_exp &= md_gf_exp(i) == first[i];
	ok(ok_exp, "md_gf_exp(0..9) = 1 2 4 .. 0x80 0x1d 0x3a");
	ok(md_gf_exp(8) == 0x1d, "g^8 = 0x1d (polynomial 0x11d)");
	ok(md_gf_exp(255) == 1 && md_gf_exp(256) == 2 && md_gf_exp(510) == 1, "g^255 = 1, powers wrap mod 255");
	ok(md_gf_exp(-1) == 0x8e && md_gf_exp(-255) == 1, "negative powers: g^-1 = 0x8e");

	ok_exp = 1;
	for (int i = 0; i < 255; i++, x = m_mul2(x)) {
		ok_exp &= md_gf_exp(i) == x;
		ok_log &= md_gf_log(x) == i;
		if (md_gf_log(x) >= 0 && md_gf_log(x) < 255)
			seen[md_gf_log(x)]++;
	}
	for (int i = 0; i < 255; i++)
		ok_log &= seen[i] == 1;
	ok(ok_exp, "md_gf_exp matches repeated doubling for all 255 powers");
	ok(ok_log && md_gf_log(0) == -1, "md_gf_log inverts md_gf_exp, md_gf_log(0) = -1");

	for (int a = 0; a < 256; a++)
		for (int b = 0; b < 256; b++)
			ok_mul &= md_gf_mul((uint8_t)a, (uint8_t)b) == m_mul((uint8_t)a, (uint8_t)b);
	ok(ok_mul, "md_gf_mul matches shift-and-add for all 65536 pairs");
	ok(md_gf_mul(0x80, 2) == 0x1d && md_gf_mul(0x8e, 2) == 1 && md_gf_mul(3, 7) == 9,
	   "md_gf_mul known values: 0x80*2 = 0x1d, 0x8e*2 = 1, 3*7 = 9");

	for (int a = 1; a < 256; a++)
		ok_inv &= md_gf_mul((uint8_t)a, md_gf_inv((uint8_t)a)) == 1;
	ok(ok_inv && md_gf_inv(1) == 1 && md_gf_inv(2) == 0x8e, "md_gf_inv: x * inv(x) = 1 for all x != 0");
}

/* ---- blocks ---- */

struct set {
	int n;
	size_t len;
	uint8_t *orig[MAXN + 2];        /* data, then P and Q from the model */
	uint8_t *work[MAXN + 2];
};

static void set_init(struct set *s, int n, size_t len)
{
	s->n = n;
	s->len = len;
	for (int i = 0; i < n + 2; i++) {
		s->orig[i] = xalloc(len);
		s->work[i] = xalloc(len);
		if (i < n)
			fill(s->orig[i], len);
	}
	m_pq(n, len, s->orig, s->orig[n], s->orig[n + 1]);
}

static void set_free(struct set *s)
{
	for (int i = 0; i < s->n + 2; i++) {
		free(s->orig[i]);
		free(s->work[i]);
	}
}

static void reset(struct set *s)
{
	for (int i = 0; i < s->n + 2; i++)
		memcpy(s->work[i], s->orig[i], s->len);
}

/* First block that differs from the model, or -1. */
static int differs(const struct set *s, int nblk)
{
	for (int i = 0; i < nblk; i++)
		if (memcmp(s->work[i], s->orig[i], s->len))
			return i;
	return -1;
}

/* Loses the listed blocks (garbage in them), recovers, and checks every
 * block: the lost ones rebuilt, the others untouched. */
static int lose_and_recover(struct set *s, int q, const int *miss, int nmiss)
{
	int nblk = s->n + (q ? 2 : 1), bad;

	for (int k = 0; k < nmiss; k++)
		memset(s->work[miss[k]], 0xa5 + k, s->len);
	if (parity_recover(s->n, q, s->len, (void **)s->work, miss, nmiss)) {
		printf("#   parity_recover refused n=%d q=%d missing", s->n, q);
		for (int k = 0; k < nmiss; k++)
			printf(" %d", miss[k]);
		printf("\n");
		return 0;
	}
	bad = differs(s, nblk);
	if (bad >= 0) {
		printf("#   n=%d q=%d len=%zu missing", s->n, q, s->len);
		for (int k = 0; k < nmiss; k++)
			printf(" %d", miss[k]);
		printf(": block %d wrong\n", bad);
		reset(s);
		return 0;
	}
	return 1;
}

static void test_set(struct set *s, const char *impl)
{
	int n = s->n, good = 1, singles = 0, pairs = 0;
	int nblk = n + 2, bad;

	/* generation, into garbage */
	reset(s);
	memset(s->work[n], 0x5a, s->len);
	memset(s->work[n + 1], 0x5a, s->len);
	parity_gen_pq(n, s->len, (void **)s->work);
	bad = differs(s, nblk);
	if (bad >= 0) {
		printf("#   gen n=%d len=%zu: block %d differs from the model\n", n, s->len, bad);
		good = 0;
	}

	/* RAID-6: every single and every pair */
	reset(s);
	for (int a = 0; a < nblk; a++) {
		good &= lose_and_recover(s, 1, &a, 1);
		singles++;
		for (int b = a + 1; b < nblk; b++) {
			int m[2] = { b, a };     /* either order is allowed */

			if ((a + b) & 1) {
				m[0] = a;
				m[1] = b;
			}
			good &= lose_and_recover(s, 1, m, 2);
			pairs++;
		}
	}

	/* RAID-4/5: data blocks and P only */
	for (int a = 0; a < n + 1; a++)
		good &= lose_and_recover(s, 0, &a, 1);

	ok(good, "%s n=%d len=%zu: P,Q match the model; %d single and %d double losses, %d RAID-5 losses recovered",
	   impl, n, s->len, singles, pairs, n + 1);
}

static int select_impl(const char *name)
{
	if (parity_select(name)) {
		skip("%s: not supported by this CPU", name);
		return -1;
	}
	return 0;
}

static void test_all_losses(void)
{
	static const size_t lens[] = { 64, 4096, 65536 + 64 * 3 };

	for (int n = 1; n <= MAXN; n++) {
		for (int li = 0; li < 3; li++) {
			struct set s;

			set_init(&s, n, lens[li]);
			for (int i = 0; parity_impl_list(i); i++)
				if (!select_impl(parity_impl_list(i)))
					test_set(&s, parity_impl_list(i));
			set_free(&s);
		}
	}
	parity_select(NULL);
}

/* ---- edges of the interface ---- */

static void test_refusals(void)
{
	struct set s;
	int three[3] = { 0, 1, 2 }, dup[2] = { 1, 1 }, out[2] = { 0, 6 }, neg[1] = { -1 };
	int two[2] = { 0, 1 };

	set_init(&s, 4, 4096);
	reset(&s);
	ok(parity_recover(4, 1, s.len, (void **)s.work, three, 3) == -1, "three missing: -1");
	ok(parity_recover(4, 0, s.len, (void **)s.work, two, 2) == -1, "RAID-5 with two missing: -1");
	ok(parity_recover(4, 1, s.len, (void **)s.work, dup, 2) == -1, "the same block twice: -1");
	ok(parity_recover(4, 1, s.len, (void **)s.work, out, 2) == -1, "index beyond Q: -1");
	out[1] = 5;
	ok(parity_recover(4, 0, s.len, (void **)s.work, out + 1, 1) == -1, "RAID-5: index beyond P: -1");
	ok(parity_recover(4, 1, s.len, (void **)s.work, neg, 1) == -1, "negative index: -1");
	ok(parity_recover(4, 1, s.len, (void **)s.work, NULL, 0) == 0 && differs(&s, 6) < 0,
	   "nothing missing: 0, nothing written");
	set_free(&s);
}

static void test_xor(void)
{
	size_t len = 4096 + 64;
	uint8_t *b[5], *want = xalloc(len);
	int good = 1;

	for (int i = 0; i < 5; i++) {
		b[i] = xalloc(len);
		fill(b[i], len);
	}
	for (size_t i = 0; i < len; i++)
		want[i] = b[0][i] ^ b[1][i] ^ b[2][i] ^ b[3][i] ^ b[4][i];
	for (int i = 0; parity_impl_list(i); i++) {
		uint8_t *dst, *keep;

		if (select_impl(parity_impl_list(i)))
			continue;
		dst = xalloc(len);
		keep = xalloc(len);
		parity_xor(dst, (void **)b, 5, len);
		good = !memcmp(dst, want, len);
		parity_xor(dst, (void **)b, 1, len);
		good &= !memcmp(dst, b[0], len);
		memcpy(keep, b[2], len);
		parity_xor(b[2], (void **)b, 5, len);          /* dst is a source */
		good &= !memcmp(b[2], want, len);
		memcpy(b[2], keep, len);
		parity_xor(dst, (void **)b, 0, len);
		for (size_t k = 0; k < len; k++)
			good &= dst[k] == 0;
		ok(good, "%s: parity_xor of 5, of 1, into one of its sources, of none", parity_impl_list(i));
		free(dst);
		free(keep);
	}
	parity_select(NULL);
	for (int i = 0; i < 5; i++)
		free(b[i]);
	free(want);
}

/* More slots than the field has distinct coefficients: P and Q still follow
 * md's definition, losses that need Q to tell two slots apart are refused,
 * and the others still work. */
static void test_wide(void)
{
	enum { N = 300, LEN = 128 };
	uint8_t *orig[N + 2], *work[N + 2];
	int two[2] = { 3, 9 }, dq[2] = { 7, N + 1 }, good = 1;

	for (int i = 0; i < N + 2; i++) {
		orig[i] = xalloc(LEN);
		work[i] = xalloc(LEN);
		if (i < N)
			fill(orig[i], LEN);
	}
	m_pq(N, LEN, orig, orig[N], orig[N + 1]);
	for (int i = 0; i < N + 2; i++)
		memcpy(work[i], orig[i], LEN);
	memset(work[N], 0, LEN);
	memset(work[N + 1], 0, LEN);
	parity_gen_pq(N, LEN, (void **)work);
	for (int i = 0; i < N + 2; i++)
		good &= !memcmp(work[i], orig[i], LEN);
	ok(good, "%d data slots: P,Q match the model", N);
	ok(parity_recover(N, 1, LEN, (void **)work, two, 2) == -1,
	   "%d data slots: two lost data slots refused", N);
	memset(work[7], 0, LEN);
	memset(work[N + 1], 0, LEN);
	ok(parity_recover(N, 1, LEN, (void **)work, dq, 2) == 0 &&
	   !memcmp(work[7], orig[7], LEN) && !memcmp(work[N + 1], orig[N + 1], LEN),
	   "%d data slots: a data slot and Q recovered", N);
	for (int i = 0; i < N + 2; i++) {
		free(orig[i]);
		free(work[i]);
	}
}

/* DDF passes its P/Q positions as one shared zero block. */
static void test_shared_zero(void)
{
	struct set s;
	uint8_t *zero = xalloc(4096);
	int m[2] = { 0, 2 }, mp[2] = { 4, 6 }, good;

	memset(zero, 0, 4096);
	set_init(&s, 6, 4096);
	memset(s.orig[1], 0, 4096);
	memset(s.orig[3], 0, 4096);
	m_pq(6, 4096, s.orig, s.orig[6], s.orig[7]);
	reset(&s);
	free(s.work[1]);
	free(s.work[3]);
	s.work[1] = s.work[3] = zero;
	memset(s.work[6], 0, 4096);
	memset(s.work[7], 0, 4096);
	parity_gen_pq(6, 4096, (void **)s.work);
	good = differs(&s, 8) < 0;
	good &= lose_and_recover(&s, 1, m, 2);
	good &= lose_and_recover(&s, 1, mp, 2);
	ok(good, "a shared zero block in two slots: P,Q and recovery unaffected");
	s.work[1] = xalloc(1);
	s.work[3] = xalloc(1);
	set_free(&s);
	free(zero);
}

/* The interface wants multiples of 64, but a stray length must still be
 * right and stay inside the buffers. */
static void test_odd_length(void)
{
	struct set s;
	int good = 1;

	for (int i = 0; parity_impl_list(i); i++) {
		if (select_impl(parity_impl_list(i)))
			continue;
		set_init(&s, 5, 64 * 5 + 37);
		reset(&s);
		memset(s.work[5], 0, s.len);
		memset(s.work[6], 0, s.len);
		parity_gen_pq(5, s.len, (void **)s.work);
		good = differs(&s, 7) < 0;
		for (int a = 0; a < 7; a++)
			for (int b = a + 1; b < 7; b++) {
				int m[2] = { a, b };

				good &= lose_and_recover(&s, 1, m, 2);
			}
		ok(good, "%s: length %zu (not a multiple of 64)", parity_impl_list(i), s.len);
		set_free(&s);
	}
	parity_select(NULL);
}

static void test_dispatch(void)
{
	const char *name;

	parity_select(NULL);
	name = parity_impl_name();
	ok(name && *name, "parity_impl_name: %s", name ? name : "(null)");
	ok(parity_select("no-such-kernel") == -1 && !strcmp(parity_impl_name(), name),
	   "an unknown name is refused and changes nothing");
	ok(parity_select("portable") == 0 && !strcmp(parity_impl_name(), "portable"),
	   "the portable kernels can always be chosen");
	parity_select(NULL);
	ok(!strcmp(parity_impl_name(), name), "parity_select(NULL) restores %s", name);
}

int main(void)
{
	printf("# implementations:");
	for (int i = 0; parity_impl_list(i); i++)
		printf(" %s", parity_impl_list(i));
	printf("; chosen: %s\n", parity_impl_name());
	test_field();
	test_dispatch();
	test_refusals();
	test_xor();
	test_shared_zero();
	test_wide();
	test_odd_length();
	test_all_losses();
	return tap_done();
}
