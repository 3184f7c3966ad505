/* parity_avx2: kernels for x86 CPUs with AVX2 but no AVX-512, compiled for
 * AVX2 function by function so the library itself needs no -march. */
#include <string.h>

#include "raid/parity.h"
#include "raid/parity_impl.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

#define TGT __attribute__((target("avx2")))
#define INL static inline __attribute__((always_inline))
/* 16 ymm registers: 4 lanes of P and Q accumulators leave room for constants. */
#define WIDE 4
#define LANES(w) _Pragma("GCC unroll 4") for (int l = 0; l < (w); l++)

TGT INL __m256i ld(const uint8_t *p)
{
	return _mm256_loadu_si256((const __m256i *)(const void *)p);
}

TGT INL void st(uint8_t *p, __m256i v)
{
	_mm256_storeu_si256((__m256i *)(void *)p, v);
}

/* For a value that feeds two instructions.  Without the empty asm GCC folds
 * the load into each user as a memory operand and reads the 32 bytes twice. */
TGT INL __m256i ld2(const uint8_t *p)
{
	__m256i v = ld(p);

	__asm__("" : "+x"(v));
	return v;
}

/* x*2 ^ v.  Bytes whose top bit is shifted out get the 0x1d remainder; the
 * signed compare against zero turns that top bit into a byte mask. */
TGT INL __m256i mul2x(__m256i x, __m256i v, __m256i poly)
{
	__m256i carry = _mm256_cmpgt_epi8(_mm256_setzero_si256(), x);

	return _mm256_xor_si256(_mm256_xor_si256(_mm256_add_epi8(x, x), v),
				_mm256_and_si256(carry, poly));
}

/* x*c from two 16-entry tables, c*(low nibble) and c*(high nibble << 4):
 * multiplication distributes over the two halves of the byte. */
TGT INL __m256i mulc(__m256i x, __m256i lo, __m256i hi)
{
	__m256i m = _mm256_set1_epi8(0x0f);

	return _mm256_xor_si256(_mm256_shuffle_epi8(lo, _mm256_and_si256(x, m)),
				_mm256_shuffle_epi8(hi, _mm256_and_si256(_mm256_srli_epi16(x, 4), m)));
}

TGT INL void xor_cols(uint8_t *dst, void *const *src, int nsrc, size_t o, const int w)
{
	__m256i v[WIDE];
	const uint8_t *s = (const uint8_t *)src[0] + o;

	LANES(w) v[l] = ld(s + 32 * l);
	for (int k = 1; k < nsrc; k++) {
		s = (const uint8_t *)src[k] + o;
		LANES(w) v[l] = _mm256_xor_si256(v[l], ld(s + 32 * l));
	}
	LANES(w) st(dst + o + 32 * l, v[l]);
}

TGT static void avx2_xor(uint8_t *dst, void *const *src, int nsrc, size_t len)
{
	size_t o = 0;

	for (; o + 32 * WIDE <= len; o += 32 * WIDE)
		xor_cols(dst, src, nsrc, o, WIDE);
	for (; o < len; o += 64)
		xor_cols(dst, src, nsrc, o, 2);
}

/* Horner from the highest slot down, as md does: q = q*2 ^ d[z]. */
TGT INL void gen_cols(int n, void *const *d, uint8_t *p, uint8_t *q, size_t o, const int w)
{
	__m256i pv[WIDE], qv[WIDE], poly = _mm256_set1_epi8(0x1d);
	const uint8_t *s = (const uint8_t *)d[n - 1] + o;

	LANES(w) pv[l] = qv[l] = ld2(s + 32 * l);
	for (int z = n - 2; z >= 0; z--) {
		s = (const uint8_t *)d[z] + o;
		LANES(w) {
			__m256i v = ld2(s + 32 * l);

			pv[l] = _mm256_xor_si256(pv[l], v);
			qv[l] = mul2x(qv[l], v, poly);
		}
	}
	if (p) {
		LANES(w) st(p + o + 32 * l, pv[l]);
	}
	LANES(w) st(q + o + 32 * l, qv[l]);
}

TGT static void avx2_gen(int n, size_t len, void *const *d, uint8_t *p, uint8_t *q)
{
	size_t o = 0;

	for (; o + 32 * WIDE <= len; o += 32 * WIDE)
		gen_cols(n, d, p, q, o, WIDE);
	for (; o < len; o += 64)
		gen_cols(n, d, p, q, o, 2);
}

TGT INL void rec_cols(int n, void *const *d, const uint8_t *p, const uint8_t *q,
		      const uint8_t *tabs, uint8_t *x, uint8_t *y, size_t o, const int w)
{
	__m256i pv[WIDE], qv[WIDE], poly = _mm256_set1_epi8(0x1d), zero = _mm256_setzero_si256();
	__m256i alo, ahi, blo, bhi;

	LANES(w) {
		pv[l] = p ? ld(p + o + 32 * l) : zero;
		qv[l] = zero;
	}
	for (int z = n - 1; z >= 0; z--) {
		const uint8_t *s;

		if (!d[z]) {
			LANES(w) qv[l] = mul2x(qv[l], zero, poly);
			continue;
		}
		s = (const uint8_t *)d[z] + o;
		LANES(w) {
			__m256i v = ld2(s + 32 * l);

			pv[l] = _mm256_xor_si256(pv[l], v);
			qv[l] = mul2x(qv[l], v, poly);
		}
	}
	alo = ld(tabs);
	ahi = ld(tabs + 32);
	blo = ld(tabs + 64);
	bhi = ld(tabs + 96);
	LANES(w) {
		__m256i qxy = _mm256_xor_si256(qv[l], ld(q + o + 32 * l));
		__m256i xv = _mm256_xor_si256(mulc(pv[l], alo, ahi), mulc(qxy, blo, bhi));

		st(x + o + 32 * l, xv);
		st(y + o + 32 * l, _mm256_xor_si256(xv, pv[l]));
	}
}

TGT static void avx2_rec(int n, size_t len, void *const *d, const uint8_t *p,
			 const uint8_t *q, uint8_t ca, uint8_t cb, uint8_t *x, uint8_t *y)
{
	uint8_t tabs[128];
	size_t o = 0;

	/* the same 16 entries in both 128-bit halves: vpshufb looks up per half */
	parity_gf_nibbles(ca, tabs, tabs + 32);
	parity_gf_nibbles(cb, tabs + 64, tabs + 96);
	for (int i = 0; i < 128; i += 32)
		memcpy(tabs + i + 16, tabs + i, 16);
	for (; o + 32 * WIDE <= len; o += 32 * WIDE)
		rec_cols(n, d, p, q, tabs, x, y, o, WIDE);
	for (; o < len; o += 64)
		rec_cols(n, d, p, q, tabs, x, y, o, 2);
}

static int avx2_usable(void)
{
	return !!(parity_x86_features() & PARITY_X86_AVX2);
}

const struct parity_impl parity_impl_avx2 = {
	.name = "avx2",
	.usable = avx2_usable,
	.xor_n = avx2_xor,
	.gen = avx2_gen,
	.rec = avx2_rec,
};

#endif
