/* parity: md's GF(2^8) tables, the argument checks and case analysis of
 * recovery, and the run-time choice among the kernels in parity_*.c. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "raid/parity.h"
#include "raid/parity_impl.h"

/* Written out rather than built at start-up so gf_* need no initialisation;
 * tests/unit/test_parity.c re-derives both tables from the polynomial. */
const uint8_t parity_gf_exp[510] = {
	0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80, 0x1d, 0x3a, 0x74, 0xe8,
	0xcd, 0x87, 0x13, 0x26, 0x4c, 0x98, 0x2d, 0x5a, 0xb4, 0x75, 0xea, 0xc9,
	0x8f, 0x03, 0x06, 0x0c, 0x18, 0x30, 0x60, 0xc0, 0x9d, 0x27, 0x4e, 0x9c,
	0x25, 0x4a, 0x94, 0x35, 0x6a, 0xd4, 0xb5, 0x77, 0xee, 0xc1, 0x9f, 0x23,
	0x46, 0x8c, 0x05, 0x0a, 0x14, 0x28, 0x50, 0xa0, 0x5d, 0xba, 0x69, 0xd2,
	0xb9, 0x6f, 0xde, 0xa1, 0x5f, 0xbe, 0x61, 0xc2, 0x99, 0x2f, 0x5e, 0xbc,
	0x65, 0xca, 0x89, 0x0f, 0x1e, 0x3c, 0x78, 0xf0, 0xfd, 0xe7, 0xd3, 0xbb,
	0x6b, 0xd6, 0xb1, 0x7f, 0xfe, 0xe1, 0xdf, 0xa3, 0x5b, 0xb6, 0x71, 0xe2,
	0xd9, 0xaf, 0x43, 0x86, 0x11, 0x22, 0x44, 0x88, 0x0d, 0x1a, 0x34, 0x68,
	0xd0, 0xbd, 0x67, 0xce, 0x81, 0x1f, 0x3e, 0x7c, 0xf8, 0xed, 0xc7, 0x93,
	0x3b, 0x76, 0xec, 0xc5, 0x97, 0x33, 0x66, 0xcc, 0x85, 0x17, 0x2e, 0x5c,
	0xb8, 0x6d, 0xda, 0xa9, 0x4f, 0x9e, 0x21, 0x42, 0x84, 0x15, 0x2a, 0x54,
	0xa8, 0x4d, 0x9a, 0x29, 0x52, 0xa4, 0x55, 0xaa, 0x49, 0x92, 0x39, 0x72,
	0xe4, 0xd5, 0xb7, 0x73, 0xe6, 0xd1, 0xbf, 0x63, 0xc6, 0x91, 0x3f, 0x7e,
	0xfc, 0xe5, 0xd7, 0xb3, 0x7b, 0xf6, 0xf1, 0xff, 0xe3, 0xdb, 0xab, 0x4b,
	0x96, 0x31, 0x62, 0xc4, 0x95, 0x37, 0x6e, 0xdc, 0xa5, 0x57, 0xae, 0x41,
	0x82, 0x19, 0x32, 0x64, 0xc8, 0x8d, 0x07, 0x0e, 0x1c, 0x38, 0x70, 0xe0,
	0xdd, 0xa7, 0x53, 0xa6, 0x51, 0xa2, 0x59, 0xb2, 0x79, 0xf2, 0xf9, 0xef,
	0xc3, 0x9b, 0x2b, 0x56, 0xac, 0x45, 0x8a, 0x09, 0x12, 0x24, 0x48, 0x90,
	0x3d, 0x7a, 0xf4, 0xf5, 0xf7, 0xf3, 0xfb, 0xeb, 0xcb, 0x8b, 0x0b, 0x16,
	0x2c, 0x58, 0xb0, 0x7d, 0xfa, 0xe9, 0xcf, 0x83, 0x1b, 0x36, 0x6c, 0xd8,
	0xad, 0x47, 0x8e, 0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80, 0x1d,
	0x3a, 0x74, 0xe8, 0xcd, 0x87, 0x13, 0x26, 0x4c, 0x98, 0x2d, 0x5a, 0xb4,
	0x75, 0xea, 0xc9, 0x8f, 0x03, 0x06, 0x0c, 0x18, 0x30, 0x60, 0xc0, 0x9d,
	0x27, 0x4e, 0x9c, 0x25, 0x4a, 0x94, 0x35, 0x6a, 0xd4, 0xb5, 0x77, 0xee,
	0xc1, 0x9f, 0x23, 0x46, 0x8c, 0x05, 0x0a, 0x14, 0x28, 0x50, 0xa0, 0x5d,
	0xba, 0x69, 0xd2, 0xb9, 0x6f, 0xde, 0xa1, 0x5f, 0xbe, 0x61, 0xc2, 0x99,
	0x2f, 0x5e, 0xbc, 0x65, 0xca, 0x89, 0x0f, 0x1e, 0x3c, 0x78, 0xf0, 0xfd,
	0xe7, 0xd3, 0xbb, 0x6b, 0xd6, 0xb1, 0x7f, 0xfe, 0xe1, 0xdf, 0xa3, 0x5b,
	0xb6, 0x71, 0xe2, 0xd9, 0xaf, 0x43, 0x86, 0x11, 0x22, 0x44, 0x88, 0x0d,
	0x1a, 0x34, 0x68, 0xd0, 0xbd, 0x67, 0xce, 0x81, 0x1f, 0x3e, 0x7c, 0xf8,
	0xed, 0xc7, 0x93, 0x3b, 0x76, 0xec, 0xc5, 0x97, 0x33, 0x66, 0xcc, 0x85,
	0x17, 0x2e, 0x5c, 0xb8, 0x6d, 0xda, 0xa9, 0x4f, 0x9e, 0x21, 0x42, 0x84,
	0x15, 0x2a, 0x54, 0xa8, 0x4d, 0x9a, 0x29, 0x52, 0xa4, 0x55, 0xaa, 0x49,
	0x92, 0x39, 0x72, 0xe4, 0xd5, 0xb7, 0x73, 0xe6, 0xd1, 0xbf, 0x63, 0xc6,
	0x91, 0x3f, 0x7e, 0xfc, 0xe5, 0xd7, 0xb3, 0x7b, 0xf6, 0xf1, 0xff, 0xe3,
	0xdb, 0xab, 0x4b, 0x96, 0x31, 0x62, 0xc4, 0x95, 0x37, 0x6e, 0xdc, 0xa5,
	0x57, 0xae, 0x41, 0x82, 0x19, 0x32, 0x64, 0xc8, 0x8d, 0x07, 0x0e, 0x1c,
	0x38, 0x70, 0xe0, 0xdd, 0xa7, 0x53, 0xa6, 0x51, 0xa2, 0x59, 0xb2, 0x79,
	0xf2, 0xf9, 0xef, 0xc3, 0x9b, 0x2b, 0x56, 0xac, 0x45, 0x8a, 0x09, 0x12,
	0x24, 0x48, 0x90, 0x3d, 0x7a, 0xf4, 0xf5, 0xf7, 0xf3, 0xfb, 0xeb, 0xcb,
	0x8b, 0x0b, 0x16, 0x2c, 0x58, 0xb0, 0x7d, 0xfa, 0xe9, 0xcf, 0x83, 0x1b,
	0x36, 0x6c, 0xd8, 0xad, 0x47, 0x8e,
};

static const uint8_t gf_log_tab[256] = {
	  0,   0,   1,  25,   2,  50,  26, 198,   3, 223,  51, 238,  27, 104, 199,  75,
	  4, 100, 224,  14,  52, 141, 239, 129,  28, 193, 105, 248, 200,   8,  76, 113,
	  5, 138, 101,  47, 225,  36,  15,  33,  53, 147, 142, 218, 240,  18, 130,  69,
	 29, 181, 194, 125, 106,  39, 249, 185, 201, 154,   9, 120,  77, 228, 114, 166,
	  6, 191, 139,  98, 102, 221,  48, 253, 226, 152,  37, 179,  16, 145,  34, 136,
	 54, 208, 148, 206, 143, 150, 219, 189, 241, 210,  19,  92, 131,  56,  70,  64,
	 30,  66, 182, 163, 195,  72, 126, 110, 107,  58,  40,  84, 250, 133, 186,  61,
	202,  94, 155, 159,  10,  21, 121,  43,  78, 212, 229, 172, 115, 243, 167,  87,
	  7, 112, 192, 247, 140, 128,  99,  13, 103,  74, 222, 237,  49, 197, 254,  24,
	227, 165, 153, 119,  38, 184, 180, 124,  17,  68, 146, 217,  35,  32, 137,  46,
	 55,  63, 209,  91, 149, 188, 207, 205, 144, 135, 151, 178, 220, 252, 190,  97,
	242,  86, 211, 171,  20,  42,  93, 158, 132,  60,  57,  83,  71, 109,  65, 162,
	 31,  45,  67, 216, 183, 123, 164, 118, 196,  23,  73, 236, 127,  12, 111, 246,
	108, 161,  59,  82,  41, 157,  85, 170, 251,  96, 134, 177, 187, 204,  62,  90,
	203,  89,  95, 176, 156, 169, 160,  81,  11, 245,  22, 235, 122, 117,  44, 215,
	 79, 174, 213, 233, 230, 231, 173, 232, 116, 214, 244, 234, 168,  80,  88, 175,
};

uint8_t md_gf_mul(uint8_t a, uint8_t b)
{
	if (!a || !b)
		return 0;
	return parity_gf_exp[gf_log_tab[a] + gf_log_tab[b]];
}

uint8_t md_gf_exp(int power)
{
	int e = power % 255;

	return parity_gf_exp[e < 0 ? e + 255 : e];
}

int md_gf_log(uint8_t x)
{
	return x ? gf_log_tab[x] : -1;
}

uint8_t md_gf_inv(uint8_t x)
{
	/* 0 has no inverse; 0 keeps a caller's mistake from indexing out of range. */
	return x ? parity_gf_exp[255 - gf_log_tab[x]] : 0;
}

static inline uint8_t mul2(uint8_t q)
{
	return (uint8_t)(q << 1) ^ (q & 0x80 ? 0x1d : 0);
}

/* Output bit i of the affine product is the parity of (row i & x), row i
 * sitting in byte 7-i.  Multiplying by c sends input bit j to c*2^j, so bit j
 * of row i is bit i of c*2^j. */
uint64_t parity_gf_matrix(uint8_t c)
{
	uint64_t m = 0;
	uint8_t col = c;

	for (int j = 0; j < 8; j++, col = mul2(col))
		for (int i = 0; i < 8; i++)
			m |= (uint64_t)(col >> i & 1) << (8 * (7 - i) + j);
	return m;
}

/* c*x is linear in x, so each entry is an earlier one XOR c*(its lowest bit). */
void parity_gf_nibbles(uint8_t c, uint8_t lo[16], uint8_t hi[16])
{
	uint8_t pw[8];

	pw[0] = c;
	for (int j = 1; j < 8; j++)
		pw[j] = mul2(pw[j - 1]);
	lo[0] = hi[0] = 0;
	for (int i = 1; i < 16; i++) {
		int j = __builtin_ctz((unsigned)i);

		lo[i] = lo[i & (i - 1)] ^ pw[j];
		hi[i] = hi[i & (i - 1)] ^ pw[j + 4];
	}
}

static uint64_t gmat[255];
static pthread_once_t gmat_once = PTHREAD_ONCE_INIT;

static void gmat_build(void)
{
	for (int i = 0; i < 255; i++)
		gmat[i] = parity_gf_matrix(parity_gf_exp[i]);
}

const uint64_t *parity_gf_gmat(void)
{
	pthread_once(&gmat_once, gmat_build);
	return gmat;
}

/* --- byte-at-a-time code for the bytes after the last whole 64-byte column
 * (the interface promises lengths in PARITY_ALIGN units, but misuse should
 * not read past the end either) --- */

static void tail_xor(uint8_t *dst, void *const *src, int nsrc, size_t off, size_t len)
{
	for (size_t i = off; i < off + len; i++) {
		uint8_t v = 0;

		for (int k = 0; k < nsrc; k++)
			v ^= ((const uint8_t *)src[k])[i];
		dst[i] = v;
	}
}

static void tail_rec(int n, void *const *d, const uint8_t *p, const uint8_t *q,
		     uint8_t ca, uint8_t cb, uint8_t *x, uint8_t *y, size_t off, size_t len)
{
	for (size_t i = off; i < off + len; i++) {
		uint8_t pv = p ? p[i] : 0, qv = 0, xv;

		for (int z = n - 1; z >= 0; z--) {
			qv = mul2(qv);
			if (d[z]) {
				pv ^= ((const uint8_t *)d[z])[i];
				qv ^= ((const uint8_t *)d[z])[i];
			}
		}
		qv ^= q[i];
		xv = md_gf_mul(ca, pv) ^ md_gf_mul(cb, qv);
		x[i] = xv;
		y[i] = xv ^ pv;
	}
}

static void tail_gen(int n, void *const *d, uint8_t *p, uint8_t *q, size_t off, size_t len)
{
	for (size_t i = off; i < off + len; i++) {
		uint8_t pv = 0, qv = 0;

		for (int z = n - 1; z >= 0; z--) {
			qv = mul2(qv) ^ ((const uint8_t *)d[z])[i];
			pv ^= ((const uint8_t *)d[z])[i];
		}
		if (p)
			p[i] = pv;
		q[i] = qv;
	}
}

/* --- choosing a kernel --- */

#if defined(__x86_64__) || defined(__i386__)
unsigned parity_x86_features(void)
{
	unsigned a, b, c, d, f = 0;
	uint32_t xcr0, xcr0_hi;

	if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_OSXSAVE) || !(c & bit_AVX))
		return 0;
	/* The CPU may have the instructions while the OS does not save the
	 * wider registers on a context switch. */
	__asm__ volatile("xgetbv" : "=a"(xcr0), "=d"(xcr0_hi) : "c"(0));
	(void)xcr0_hi;
	if ((xcr0 & 0x06) != 0x06)
		return 0;
	if (!__get_cpuid_count(7, 0, &a, &b, &c, &d))
		return 0;
	if (b & bit_AVX2)
		f |= PARITY_X86_AVX2;
	if ((xcr0 & 0xe0) == 0xe0 && (b & bit_AVX512F) && (b & bit_AVX512BW))
		f |= PARITY_X86_AVX512BW;
	if (c & bit_GFNI)
		f |= PARITY_X86_GFNI;
	return f;
}
#endif

static const struct parity_impl *const impls[] = {
#if defined(__x86_64__) || defined(__i386__)
	&parity_impl_gfni_avx512,
	&parity_impl_avx512bw,
	&parity_impl_avx2,
#endif
	&parity_impl_vec,
};
#define NIMPLS ((int)(sizeof(impls) / sizeof(impls[0])))

static const struct parity_impl *chosen;

static const struct parity_impl *best(void)
{
	for (int i = 0; i < NIMPLS; i++)
		if (impls[i]->usable())
			return impls[i];
	return &parity_impl_vec;
}

/* Racing first callers compute the same answer; the atomics only make the
 * race well defined. */
static const struct parity_impl *impl(void)
{
	const struct parity_impl *im = __atomic_load_n(&chosen, __ATOMIC_ACQUIRE);

	if (!im) {
		im = best();
		__atomic_store_n(&chosen, im, __ATOMIC_RELEASE);
	}
	return im;
}

const char *parity_impl_name(void)
{
	return impl()->name;
}

const char *parity_impl_list(int i)
{
	return i >= 0 && i < NIMPLS ? impls[i]->name : NULL;
}

int parity_select(const char *name)
{
	const struct parity_impl *im = NULL;

	if (!name) {
		im = best();
	} else {
		for (int i = 0; i < NIMPLS; i++)
			if (!strcmp(impls[i]->name, name))
				im = impls[i];
		if (!im || !im->usable())
			return -1;
	}
	__atomic_store_n(&chosen, im, __ATOMIC_RELEASE);
	return 0;
}

/* --- the public operations --- */

void parity_xor(void *dst, void *const *src, int nsrc, size_t len)
{
	size_t body = len & ~(size_t)63;

	if (nsrc <= 0) {
		memset(dst, 0, len);
		return;
	}
	if (body)
		impl()->xor_n(dst, src, nsrc, body);
	if (len > body)
		tail_xor(dst, src, nsrc, body, len - body);
}

static void gen(int n, size_t len, void *const *d, uint8_t *p, uint8_t *q)
{
	size_t body = len & ~(size_t)63;

	if (body)
		impl()->gen(n, body, d, p, q);
	if (len > body)
		tail_gen(n, d, p, q, body, len - body);
}

void parity_gen_pq(int ndata, size_t len, void **blocks)
{
	if (ndata < 1)
		return;
	gen(ndata, len, blocks, blocks[ndata], blocks[ndata + 1]);
}

/* blocks[0..nblk-1] without blocks[skip], XORed into blocks[skip]. */
static int xor_others(int nblk, size_t len, void **blocks, int skip)
{
	void *small[64] = { NULL }, **src = small;

	if (nblk - 1 > 64 && !(src = malloc(sizeof(*src) * (size_t)(nblk - 1))))
		return -1;
	for (int i = 0, k = 0; i < nblk; i++)
		if (i != skip)
			src[k++] = blocks[i];
	parity_xor(blocks[skip], src, nblk - 1, len);
	if (src != small)
		free(src);
	return 0;
}

int parity_recover(int ndata, int q, size_t len, void **blocks,
		   const int *missing, int nmissing)
{
	int nblk = ndata + (q ? 2 : 1), a, b;
	int P = ndata, Q = ndata + 1;
	void *d[PARITY_REC_MAX];
	uint8_t ca, cb;
	size_t body = len & ~(size_t)63;

	if (ndata < 1 || nmissing < 0 || nmissing > (q ? 2 : 1) || (nmissing && !missing))
		return -1;
	if (nmissing == 0)
		return 0;
	a = missing[0];
	b = nmissing == 2 ? missing[1] : -1;
	if (a < 0 || a >= nblk || (nmissing == 2 && (b < 0 || b >= nblk || a == b)))
		return -1;
	if (len == 0)
		return 0;
	if (nmissing == 1) {
		if (a == Q) {
			gen(ndata, len, blocks, NULL, blocks[Q]);
			return 0;
		}
		return xor_others(ndata + 1, len, blocks, a);     /* data or P */
	}
	if (a > b) {
		int t = a;

		a = b;
		b = t;
	}
	if (b == Q) {
		if (a == P) {
			gen(ndata, len, blocks, blocks[P], blocks[Q]);
			return 0;
		}
		if (xor_others(ndata + 1, len, blocks, a))
			return -1;
		gen(ndata, len, blocks, NULL, blocks[Q]);
		return 0;
	}

	/* What is left needs Q, in which slots more than 254 apart look alike. */
	if (ndata > PARITY_REC_MAX)
		return -1;
	memcpy(d, blocks, sizeof(*d) * (size_t)ndata);
	d[a] = NULL;
	if (b == P) {
		/* Q ^ Q' = g^a D_a */
		ca = 0;
		cb = md_gf_inv(md_gf_exp(a));
		if (body)
			impl()->rec(ndata, body, d, NULL, blocks[Q], ca, cb, blocks[a], blocks[P]);
		if (len > body)
			tail_rec(ndata, d, NULL, blocks[Q], ca, cb, blocks[a], blocks[P],
				 body, len - body);
		return 0;
	}
	/* Pxy = D_a ^ D_b and Qxy = g^a D_a ^ g^b D_b, solved for D_b. */
	d[b] = NULL;
	ca = md_gf_inv(md_gf_exp(b - a) ^ 1);
	cb = md_gf_inv(md_gf_exp(a) ^ md_gf_exp(b));
	if (body)
		impl()->rec(ndata, body, d, blocks[P], blocks[Q], ca, cb, blocks[b], blocks[a]);
	if (len > body)
		tail_rec(ndata, d, blocks[P], blocks[Q], ca, cb, blocks[b], blocks[a],
			 body, len - body);
	return 0;
}
