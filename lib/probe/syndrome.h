/* syndrome: one RAID6 row read back from its blocks alone: which block is Q,
 * which is P and the syndrome slot of every data block. */
#ifndef STRIPE_PROBE_SYNDROME_H
#define STRIPE_PROBE_SYNDROME_H

#include <stdint.h>

/* Most members a parity set may have here. */
#define PSET_MAX 32

/* What a row says of one member: its syndrome slot (0..), or one of these. */
#define TAG_UNKNOWN (-1)
#define TAG_P (-2)
#define TAG_Q (-3)

/* ROW_SHORT: the row names its Q (tagged) but its bytes do not fix every
 * coefficient; rows after it in the same chunk, solved together, may. */
enum row_verdict { ROW_INCONSISTENT = -1, ROW_UNDECIDED = 0, ROW_DECIDED = 1, ROW_SHORT = 2 };

struct syndrome_scratch {
	uint8_t *mem;                /* aligned room for PSET_MAX + 3 blocks */
};

int syndrome_scratch_init(struct syndrome_scratch *sc);
void syndrome_scratch_free(struct syndrome_scratch *sc);

/* blk[r * n + k] is member k's block in row r of a run of rows that share
 * one stripe row (n members, at most one NULL in each row: a missing one).
 * Q is the block equal to the XOR of all others' (with one missing: the one
 * whose leaving out lets the missing block be rebuilt so that Q holds); Q =
 * sum c_k X_k over the others is then solved for the coefficients by
 * Gaussian elimination over GF(256) on byte positions, and checked on every
 * whole block: c = 0 is P, c = g^s is the data block in syndrome slot s.
 * Fills tag[k] (TAG_UNKNOWN for a block all zero in every row, whose
 * coefficient no byte shows) and returns a row_verdict. */
int syndrome_run(const uint8_t *const *blk, int nrows, int n, int16_t *tag, struct syndrome_scratch *sc);

#endif
