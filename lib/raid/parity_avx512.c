/* parity_avx512: kernels on 64-byte zmm registers, with GFNI (one affine
 * instruction per multiplication) and without it (AVX-512BW only). */
#include "raid/parity.h"
#include "raid/parity_impl.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

#define TBW __attribute__((target("avx512f,avx512bw")))
#define TGF __attribute__((target("avx512f,avx512bw,gfni")))
#define INL static inline __attribute__((always_inline))
/* zmm per step and block, as measured on Zen 5 with 64 KiB chunks: XOR did
 * best with two (as ISA-L does), generation and recovery with eight, which
 * helped most at 16 data blocks. */
#define WIDE 8                   /* GFNI kernels */
#define HWIDE 4                  /* AVX-512BW Horner, as the kernel's avx512x4 */
#define XWIDE 2                  /* XOR */
#define LANES(w) _Pragma("GCC unroll 8") for (int l = 0; l < (w); l++)

TBW INL __m512i ld(const uint8_t *p)
{
	return _mm512_loadu_si512((const void *)p);
}

TBW INL void st(uint8_t *p, __m512i v)
{
	_mm512_storeu_si512((void *)p, v);
}

/* For a value that feeds two instructions.  Without the empty asm GCC folds
 * the load into each user as a memory operand and reads the 64 bytes twice. */
TBW INL __m512i ld2(const uint8_t *p)
{
	__m512i v = ld(p);

	__asm__("" : "+v"(v));
	return v;
}

TBW INL __m512i xor3(__m512i a, __m512i b, __m512i c)
{
	return _mm512_ternarylogic_epi64(a, b, c, 0x96);
}

/* ---- XOR, shared by both variants ---- */

/* Highest source first, like the syndrome: at equal instruction counts the
 * other order ran about 10 % slower from L2 at 8 sources. */
TBW INL void xor_cols(uint8_t *dst, void *const *src, int nsrc, size_t o, const int w)
{
	__m512i v[XWIDE];
	int k = nsrc - 1;
	const uint8_t *s = (const uint8_t *)src[k] + o;

	LANES(w) v[l] = ld(s + 64 * l);
	for (k--; k >= 1; k -= 2) {
		const uint8_t *s0 = (const uint8_t *)src[k] + o;
		const uint8_t *s1 = (const uint8_t *)src[k - 1] + o;

		LANES(w) v[l] = xor3(v[l], ld(s0 + 64 * l), ld(s1 + 64 * l));
	}
	if (k == 0) {
		s = (const uint8_t *)src[0] + o;
		LANES(w) v[l] = _mm512_xor_si512(v[l], ld(s + 64 * l));
	}
	LANES(w) st(dst + o + 64 * l, v[l]);
}

TBW static void avx512_xor(uint8_t *dst, void *const *src, int nsrc, size_t len)
{
	size_t o = 0;

	for (; o + 64 * XWIDE <= len; o += 64 * XWIDE)
		xor_cols(dst, src, nsrc, o, XWIDE);
	for (; o < len; o += 64)
		xor_cols(dst, src, nsrc, o, 1);
}

/* ---- AVX-512BW: Horner with shift-and-reduce, nibble tables for x*c ---- */

/* x*2 ^ v: the bytes whose top bit is shifted out get 0x1d. */
TBW INL __m512i mul2x(__m512i x, __m512i v, __m512i poly)
{
	__mmask64 top = _mm512_movepi8_mask(x);

	return xor3(_mm512_add_epi8(x, x), _mm512_maskz_mov_epi8(top, poly), v);
}

TBW INL void bw_gen_cols(int n, void *const *d, uint8_t *p, uint8_t *q, size_t o, const int w)
{
	__m512i pv[HWIDE], qv[HWIDE], poly = _mm512_set1_epi8(0x1d);
	const uint8_t *s = (const uint8_t *)d[n - 1] + o;

	LANES(w) pv[l] = qv[l] = ld2(s + 64 * l);
	for (int z = n - 2; z >= 0; z--) {
		s = (const uint8_t *)d[z] + o;
		LANES(w) {
			__m512i v = ld2(s + 64 * l);

			pv[l] = _mm512_xor_si512(pv[l], v);
			qv[l] = mul2x(qv[l], v, poly);
		}
	}
	if (p) {
		LANES(w) st(p + o + 64 * l, pv[l]);
	}
	LANES(w) st(q + o + 64 * l, qv[l]);
}

TBW static void bw_gen(int n, size_t len, void *const *d, uint8_t *p, uint8_t *q)
{
	size_t o = 0;

	for (; o + 64 * HWIDE <= len; o += 64 * HWIDE)
		bw_gen_cols(n, d, p, q, o, HWIDE);
	for (; o < len; o += 64)
		bw_gen_cols(n, d, p, q, o, 1);
}

/* x*c = c*(low nibble) ^ c*(high nibble << 4), each a 16-entry shuffle. */
TBW INL __m512i mulc(__m512i x, __m512i lo, __m512i hi)
{
	__m512i m = _mm512_set1_epi8(0x0f);

	return _mm512_xor_si512(_mm512_shuffle_epi8(lo, _mm512_and_si512(x, m)),
				_mm512_shuffle_epi8(hi, _mm512_and_si512(_mm512_srli_epi16(x, 4), m)));
}

TBW INL __m512i table(const uint8_t *t16)
{
	return _mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i *)(const void *)t16));
}

TBW INL void bw_rec_cols(int n, void *const *d, const uint8_t *p, const uint8_t *q,
			 const uint8_t *tabs, uint8_t *x, uint8_t *y, size_t o, const int w)
{
	__m512i pv[HWIDE], qv[HWIDE], poly = _mm512_set1_epi8(0x1d), zero = _mm512_setzero_si512();

	LANES(w) {
		pv[l] = p ? ld(p + o + 64 * l) : zero;
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
			__m512i v = ld2(s + 64 * l);

			pv[l] = _mm512_xor_si512(pv[l], v);
			qv[l] = mul2x(qv[l], v, poly);
		}
	}
	LANES(w) {
		__m512i qxy = _mm512_xor_si512(qv[l], ld(q + o + 64 * l));
		__m512i xv = _mm512_xor_si512(mulc(pv[l], table(tabs), table(tabs + 16)),
					      mulc(qxy, table(tabs + 32), table(tabs + 48)));

		st(x + o + 64 * l, xv);
		st(y + o + 64 * l, _mm512_xor_si512(xv, pv[l]));
	}
}

TBW static void bw_rec(int n, size_t len, void *const *d, const uint8_t *p,
		       const uint8_t *q, uint8_t ca, uint8_t cb, uint8_t *x, uint8_t *y)
{
	uint8_t tabs[64];
	size_t o = 0;

	parity_gf_nibbles(ca, tabs, tabs + 16);
	parity_gf_nibbles(cb, tabs + 32, tabs + 48);
	for (; o + 64 * HWIDE <= len; o += 64 * HWIDE)
		bw_rec_cols(n, d, p, q, tabs, x, y, o, HWIDE);
	for (; o < len; o += 64)
		bw_rec_cols(n, d, p, q, tabs, x, y, o, 1);
}

static int bw_usable(void)
{
	return !!(parity_x86_features() & PARITY_X86_AVX512BW);
}

const struct parity_impl parity_impl_avx512bw = {
	.name = "avx512bw",
	.usable = bw_usable,
	.xor_n = avx512_xor,
	.gen = bw_gen,
	.rec = bw_rec,
};

/* ---- AVX-512 + GFNI ----
 * One affine instruction multiplies 64 bytes by any constant, given the
 * constant's 8x8 bit matrix (parity_gf_matrix). */

TGF INL __m512i aff(__m512i x, __m512i m)
{
	return _mm512_gf2p8affine_epi64_epi8(x, m, 0);
}

/* Horner two slots at a time, q = q*4 ^ a*2 ^ b: two multiplications and one
 * three-way XOR per pair, the same count as summing g^z*d[z] directly but
 * with two constant matrices instead of one per slot. */
TGF INL void gf_gen_cols(int n, void *const *d, __m512i m2, __m512i m4,
			 uint8_t *p, uint8_t *q, size_t o, const int w)
{
	__m512i pv[WIDE], qv[WIDE];
	const uint8_t *s = (const uint8_t *)d[n - 1] + o;
	int z = n - 2;

	LANES(w) pv[l] = qv[l] = ld2(s + 64 * l);
	for (; z >= 1; z -= 2) {
		const uint8_t *s0 = (const uint8_t *)d[z] + o;
		const uint8_t *s1 = (const uint8_t *)d[z - 1] + o;

		LANES(w) {
			__m512i a = ld2(s0 + 64 * l), b = ld2(s1 + 64 * l);

			pv[l] = xor3(pv[l], a, b);
			qv[l] = xor3(aff(qv[l], m4), aff(a, m2), b);
		}
	}
	if (z == 0) {
		s = (const uint8_t *)d[0] + o;
		LANES(w) {
			__m512i a = ld2(s + 64 * l);

			pv[l] = _mm512_xor_si512(pv[l], a);
			qv[l] = _mm512_xor_si512(aff(qv[l], m2), a);
		}
	}
	if (p) {
		LANES(w) st(p + o + 64 * l, pv[l]);
	}
	LANES(w) st(q + o + 64 * l, qv[l]);
}

TGF static void gf_gen(int n, size_t len, void *const *d, uint8_t *p, uint8_t *q)
{
	const uint64_t *gm = parity_gf_gmat();
	__m512i m2 = _mm512_set1_epi64((long long)gm[1]);
	__m512i m4 = _mm512_set1_epi64((long long)gm[2]);
	size_t o = 0;

	for (; o + 64 * WIDE <= len; o += 64 * WIDE)
		gf_gen_cols(n, d, m2, m4, p, q, o, WIDE);
	for (; o < len; o += 64)
		gf_gen_cols(n, d, m2, m4, p, q, o, 1);
}

/* Recovery sums instead, Qxy = Q ^ sum g^z d[z] over the survivors, so lost
 * slots cost nothing and the products do not wait on each other; pairs of
 * survivors share one three-way XOR. */

/* The survivors, compacted, with the matrices of their Q coefficients. */
struct survivors {
	int n;
	const uint8_t *src[PARITY_REC_MAX];
	uint64_t mat[PARITY_REC_MAX];
};

TGF INL void gf_rec_cols(const struct survivors *sv, const uint8_t *p, const uint8_t *q,
			 __m512i ma, __m512i mb, uint8_t *x, uint8_t *y, size_t o,
			 const int w, const int has_p, const int has_a)
{
	__m512i pv[WIDE], qv[WIDE];
	int k = 0;

	LANES(w) {
		pv[l] = has_p ? ld(p + o + 64 * l) : _mm512_setzero_si512();
		qv[l] = ld(q + o + 64 * l);
	}
	for (; k + 1 < sv->n; k += 2) {
		const uint8_t *s0 = sv->src[k] + o, *s1 = sv->src[k + 1] + o;
		__m512i m0 = _mm512_set1_epi64((long long)sv->mat[k]);
		__m512i m1 = _mm512_set1_epi64((long long)sv->mat[k + 1]);

		LANES(w) {
			__m512i a = ld2(s0 + 64 * l), b = ld2(s1 + 64 * l);

			pv[l] = xor3(pv[l], a, b);
			qv[l] = xor3(qv[l], aff(a, m0), aff(b, m1));
		}
	}
	if (k < sv->n) {
		const uint8_t *s0 = sv->src[k] + o;
		__m512i m0 = _mm512_set1_epi64((long long)sv->mat[k]);

		LANES(w) {
			__m512i a = ld2(s0 + 64 * l);

			pv[l] = _mm512_xor_si512(pv[l], a);
			qv[l] = _mm512_xor_si512(qv[l], aff(a, m0));
		}
	}
	LANES(w) {
		__m512i xv = aff(qv[l], mb);

		if (has_a)
			xv = _mm512_xor_si512(xv, aff(pv[l], ma));
		st(x + o + 64 * l, xv);
		st(y + o + 64 * l, _mm512_xor_si512(xv, pv[l]));
	}
}

TGF INL void gf_rec_run(const struct survivors *sv, size_t len, const uint8_t *p,
			const uint8_t *q, __m512i ma, __m512i mb, uint8_t *x, uint8_t *y,
			const int has_p, const int has_a)
{
	size_t o = 0;

	for (; o + 64 * WIDE <= len; o += 64 * WIDE)
		gf_rec_cols(sv, p, q, ma, mb, x, y, o, WIDE, has_p, has_a);
	for (; o < len; o += 64)
		gf_rec_cols(sv, p, q, ma, mb, x, y, o, 1, has_p, has_a);
}

TGF static void gf_rec(int n, size_t len, void *const *d, const uint8_t *p,
		       const uint8_t *q, uint8_t ca, uint8_t cb, uint8_t *x, uint8_t *y)
{
	const uint64_t *gm = parity_gf_gmat();
	struct survivors sv;
	/* c = g^log(c), and the matrices of all powers of g are at hand */
	__m512i ma = _mm512_set1_epi64(ca ? (long long)gm[md_gf_log(ca)] : 0);
	__m512i mb = _mm512_set1_epi64(cb ? (long long)gm[md_gf_log(cb)] : 0);

	sv.n = 0;
	for (int z = 0; z < n; z++) {
		if (!d[z])
			continue;
		sv.src[sv.n] = d[z];
		sv.mat[sv.n++] = gm[z];
	}
	/* The two shapes md needs get their own loops, anything else the general one. */
	if (p && ca)
		gf_rec_run(&sv, len, p, q, ma, mb, x, y, 1, 1);
	else if (!p && !ca)
		gf_rec_run(&sv, len, p, q, ma, mb, x, y, 0, 0);
	else
		gf_rec_run(&sv, len, p, q, ma, mb, x, y, !!p, 1);
}

static int gf_usable(void)
{
	unsigned want = PARITY_X86_AVX512BW | PARITY_X86_GFNI;

	return (parity_x86_features() & want) == want;
}

const struct parity_impl parity_impl_gfni_avx512 = {
	.name = "gfni-avx512",
	.usable = gf_usable,
	.xor_n = avx512_xor,
	.gen = gf_gen,
	.rec = gf_rec,
};

#endif
