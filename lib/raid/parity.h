/* parity: RAID5 XOR and RAID6 P+Q in md's field (GF(2^8), polynomial 0x11d,
 * generator 2), generation and reconstruction of any one or two lost blocks. */
#ifndef STRIPE_PARITY_H
#define STRIPE_PARITY_H

#include <stddef.h>
#include <stdint.h>

/* Every buffer handed to this module is PARITY_ALIGN-byte aligned and every
 * length a multiple of PARITY_ALIGN. */
#define PARITY_ALIGN 64

/* dst = src[0] ^ src[1] ^ ... ^ src[nsrc-1].  dst may be one of the sources. */
void parity_xor(void *dst, void *const *src, int nsrc, size_t len);

/* blocks[0..ndata-1] are the data blocks in md's syndrome order (slot i is
 * multiplied by g^i), blocks[ndata] is P and blocks[ndata+1] is Q.  Fills P
 * and Q.  A data block that is all zeroes (DDF's P/Q positions) may be passed
 * as a pointer to a shared zero buffer.  ndata >= 1. */
void parity_gen_pq(int ndata, size_t len, void **blocks);

/* Same layout as parity_gen_pq.  missing[] lists 1 or 2 distinct indices into
 * blocks (ndata = P, ndata+1 = Q) whose contents are lost; their buffers are
 * overwritten with the reconstructed bytes.  With q == 0 (RAID4/5: blocks holds
 * ndata data blocks and P only) one missing index is allowed.
 * Returns 0, or -1 when the request cannot be met (too many missing, or a
 * loss that needs Q with ndata > 255, where g^i repeats). */
int parity_recover(int ndata, int q, size_t len, void **blocks,
		   const int *missing, int nmissing);

/* GF(2^8) arithmetic in md's field, for callers that locate errors. */
uint8_t md_gf_mul(uint8_t a, uint8_t b);
uint8_t md_gf_exp(int power);          /* g^power, power taken mod 255 */
int md_gf_log(uint8_t x);              /* -1 for x == 0 */
uint8_t md_gf_inv(uint8_t x);          /* x != 0 */

/* Name of the implementation chosen at run time, for benchmarks and --version. */
const char *parity_impl_name(void);

/* For tests and benchmarks: the names of the implementations compiled in,
 * best first (i = 0, 1, ... until NULL), and a way to force one.
 * parity_select(NULL) returns to the automatic choice; -1 if the name is
 * unknown or this CPU cannot run it. */
const char *parity_impl_list(int i);
int parity_select(const char *name);

#endif
