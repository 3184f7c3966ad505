/* blocks: the 4 KiB blocks the redundancy evidence compares.  A row is the
 * blocks at one member offset of every member, taken from the sample. */
#ifndef STRIPE_PROBE_BLOCKS_H
#define STRIPE_PROBE_BLOCKS_H

#include <stdbool.h>
#include <stdint.h>

#include "probe/probe.h"

#define PROBE_BLOCK 4096u

bool block_zero(const uint8_t *b);
bool block_equal(const uint8_t *a, const uint8_t *b);
/* acc ^= b */
void block_xor(uint8_t *acc, const uint8_t *b);

/* A 64-bit fingerprint linear in the block's bits (the print of a XOR is
 * the XOR of the prints), for trying many member subsets cheaply.  It reads
 * part of the block: equal prints are confirmed on the bytes. */
uint64_t block_print(const uint8_t *b);

/* Rows in the sample: every whole block of every window. */
int sample_rows(const struct probe_sample *s);

/* Fills blk[member] with row i's block of each member (NULL for a missing
 * one) and returns the member offset in bytes where the row lies. */
uint64_t sample_row(const struct probe_sample *s, int i, const uint8_t **blk);

#endif
