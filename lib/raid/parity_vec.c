/* parity_vec: portable kernels in GCC vector extensions, the fallback when no
 * x86 kernel fits; 16-byte vectors map onto every SIMD unit without ABI fuss. */
#include <string.h>

#include "raid/parity_impl.h"

typedef uint8_t v16 __attribute__((vector_size(16)));
typedef int8_t vs16 __attribute__((vector_size(16)));

#define LANES 4                  /* v16 per 64-byte column */
#define EACH for (int l = 0; l < LANES; l++)

static inline v16 ld(const uint8_t *p)
{
	v16 v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline void st(uint8_t *p, v16 v)
{
	memcpy(p, &v, sizeof(v));
}

/* x*2: shift left; a byte whose top bit fell off gets the 0x1d remainder.
 * The mask comes from an arithmetic shift rather than a compare, whose
 * result type AltiVec compilers treat specially. */
static inline v16 mul2(v16 x)
{
	v16 carry = (v16)((vs16)x >> 7);

	return (x + x) ^ (carry & 0x1d);
}

/* No byte shuffle is portable, so r = ca*p ^ cb*q goes by Horner over the
 * bits of the constants, high bit first: r = r*2 ^ (bit of ca ? p) ^ (bit of cb ? q). */
static inline void mulsum(v16 *r, const v16 *p, const v16 *q, uint8_t ca, uint8_t cb)
{
	EACH r[l] = (v16){0};
	for (int i = 7; i >= 0; i--) {
#pragma GCC unroll 4
		EACH r[l] = mul2(r[l]);
		if (ca >> i & 1) {
#pragma GCC unroll 4
			EACH r[l] ^= p[l];
		}
		if (cb >> i & 1) {
#pragma GCC unroll 4
			EACH r[l] ^= q[l];
		}
	}
}

static void vec_xor(uint8_t *dst, void *const *src, int nsrc, size_t len)
{
	for (size_t o = 0; o < len; o += 64) {
		const uint8_t *s = (const uint8_t *)src[0] + o;
		v16 v[LANES];

#pragma GCC unroll 4
		EACH v[l] = ld(s + 16 * l);
		for (int k = 1; k < nsrc; k++) {
			s = (const uint8_t *)src[k] + o;
#pragma GCC unroll 4
			EACH v[l] ^= ld(s + 16 * l);
		}
#pragma GCC unroll 4
		EACH st(dst + o + 16 * l, v[l]);
	}
}

static void vec_gen(int n, size_t len, void *const *d, uint8_t *p, uint8_t *q)
{
	for (size_t o = 0; o < len; o += 64) {
		const uint8_t *s = (const uint8_t *)d[n - 1] + o;
		v16 pv[LANES], qv[LANES];

#pragma GCC unroll 4
		EACH pv[l] = qv[l] = ld(s + 16 * l);
		for (int z = n - 2; z >= 0; z--) {
			s = (const uint8_t *)d[z] + o;
#pragma GCC unroll 4
			EACH {
				v16 v = ld(s + 16 * l);

				pv[l] ^= v;
				qv[l] = mul2(qv[l]) ^ v;
			}
		}
		if (p) {
#pragma GCC unroll 4
			EACH st(p + o + 16 * l, pv[l]);
		}
#pragma GCC unroll 4
		EACH st(q + o + 16 * l, qv[l]);
	}
}

static void vec_rec(int n, size_t len, void *const *d, const uint8_t *p,
		    const uint8_t *q, uint8_t ca, uint8_t cb, uint8_t *x, uint8_t *y)
{
	for (size_t o = 0; o < len; o += 64) {
		v16 pv[LANES], qv[LANES], xv[LANES];

		if (p) {
#pragma GCC unroll 4
			EACH pv[l] = ld(p + o + 16 * l);
		} else {
#pragma GCC unroll 4
			EACH pv[l] = (v16){0};
		}
#pragma GCC unroll 4
		EACH qv[l] = (v16){0};
		for (int z = n - 1; z >= 0; z--) {
			const uint8_t *s;

#pragma GCC unroll 4
			EACH qv[l] = mul2(qv[l]);
			if (!d[z])
				continue;
			s = (const uint8_t *)d[z] + o;
#pragma GCC unroll 4
			EACH {
				v16 v = ld(s + 16 * l);

				pv[l] ^= v;
				qv[l] ^= v;
			}
		}
#pragma GCC unroll 4
		EACH qv[l] ^= ld(q + o + 16 * l);
		mulsum(xv, pv, qv, ca, cb);
#pragma GCC unroll 4
		EACH {
			st(x + o + 16 * l, xv[l]);
			st(y + o + 16 * l, xv[l] ^ pv[l]);
		}
	}
}

static int vec_usable(void)
{
	return 1;
}

const struct parity_impl parity_impl_vec = {
	.name = "portable",
	.usable = vec_usable,
	.xor_n = vec_xor,
	.gen = vec_gen,
	.rec = vec_rec,
};
