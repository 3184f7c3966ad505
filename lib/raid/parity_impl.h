/* parity_impl: the contract between parity.c (argument checks, field tables,
 * dispatch) and the per-instruction-set kernels in parity_*.c. */
#ifndef STRIPE_PARITY_IMPL_H
#define STRIPE_PARITY_IMPL_H

#include <stddef.h>
#include <stdint.h>

/* Kernels see len > 0 and a multiple of 64; parity.c does any remainder.
 * Within one 64-byte column a kernel reads all of its inputs before it stores
 * anything, so an output may alias an input.
 *
 * xor_n: dst = src[0] ^ ... ^ src[nsrc-1], nsrc >= 1.
 *
 * gen: d[0..n-1] are the data slots (none NULL).  p = XOR of the slots,
 *      q = sum of g^z * d[z].  p may be NULL when only Q is wanted.
 *
 * rec: 1 <= n <= PARITY_REC_MAX; d[z] may be NULL (a lost slot, counted as
 *      zero).  With Pxy = p ^ XOR(d) (p NULL counts as zero) and
 *      Qxy = q ^ sum g^z d[z]: x = ca*Pxy ^ cb*Qxy and y = x ^ Pxy.
 *      Two lost data slots a < b give x = D_b, y = D_a; a lost slot a plus P
 *      (p NULL, ca 0) give x = D_a, y = P.  One pass over the survivors. */
struct parity_impl {
	const char *name;
	int (*usable)(void);            /* the CPU and the OS support it */
	void (*xor_n)(uint8_t *dst, void *const *src, int nsrc, size_t len);
	void (*gen)(int n, size_t len, void *const *d, uint8_t *p, uint8_t *q);
	void (*rec)(int n, size_t len, void *const *d, const uint8_t *p,
		    const uint8_t *q, uint8_t ca, uint8_t cb, uint8_t *x, uint8_t *y);
};

/* g^255 = 1, so beyond 255 data slots two of them share a Q coefficient. */
#define PARITY_REC_MAX 255

extern const struct parity_impl parity_impl_vec;
#if defined(__x86_64__) || defined(__i386__)
extern const struct parity_impl parity_impl_avx2;
extern const struct parity_impl parity_impl_avx512bw;
extern const struct parity_impl parity_impl_gfni_avx512;

#define PARITY_X86_AVX2      1u
#define PARITY_X86_AVX512BW  2u     /* with AVX512F, and the OS saves zmm */
#define PARITY_X86_GFNI      4u
unsigned parity_x86_features(void);
#endif

extern const uint8_t parity_gf_exp[510];   /* g^i, i in 0..509 */

/* The 8x8 bit matrix for GFNI's affine instruction that multiplies a byte by
 * c in md's field; parity_gf_gmat()[i] is the one for g^i, i in 0..254. */
uint64_t parity_gf_matrix(uint8_t c);
const uint64_t *parity_gf_gmat(void);

/* lo[i] = c*i and hi[i] = c*(i << 4): byte-shuffle tables for x*c. */
void parity_gf_nibbles(uint8_t c, uint8_t lo[16], uint8_t hi[16]);

#endif
