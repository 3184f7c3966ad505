/* memberset: what the structure-aware fuzzers start from and how they change
 * it: small member sets made by stripe's own create (every level, 0.90 and
 * 1.x, a write-intent bitmap, bad-block log entries), and a fuzz input read
 * as a list of edits to their fields, with checksums made right again. */
#ifndef STRIPE_FUZZ_MEMBERSET_H
#define STRIPE_FUZZ_MEMBERSET_H

#include <stddef.h>
#include <stdint.h>

#define SET_MEMBER_BYTES (128 * 1024)
#define SET_MAX_MEMBERS 6

struct member_set {
	const char *what;            /* e.g. "raid5 ls, 4 members, 1.2, bitmap" */
	int n;
	int major;
	uint64_t sb_byte;            /* where each member's superblock is */
	uint64_t bitmap_byte;        /* its bitmap's header; 0: none */
	uint64_t bblog_byte;         /* its bad-block log; 0: none */
	uint8_t *img[SET_MAX_MEMBERS];   /* SET_MEMBER_BYTES each */
};

/* The edits a fuzz input spells, one after the other, EDIT_BYTES each:
 * byte 0 what (low two bits: superblock field, bitmap header field,
 * bad-block log entry, raw byte; bits 2-4 the member; 0x80 leave the
 * checksum wrong), byte 1 which field, byte 2 how (set, add, xor, a
 * boundary value), bytes 3-10 the value, little-endian. */
#define EDIT_BYTES 11

/* How many base sets there are, and set i (made on first use; exits when
 * stripe cannot make it, since the fuzzer would test nothing). */
int memberset_count(void);
const struct member_set *memberset_get(int i);

/* SET_MAX_MEMBERS images' room, made on first use, for the edits. */
uint8_t **memberset_scratch(void);

/* Copies set s into img[0..n-1] and applies the edits in prog: a field of a
 * member's superblock, bitmap header or bad-block log, or a raw byte near
 * the superblock, set, added to, xored or given a boundary value.  Then
 * fixes each edited superblock's checksum, unless an edit asked to leave
 * it wrong. */
void memberset_edit(const struct member_set *s, uint8_t *img[], const uint8_t *prog, size_t len);

/* Writes images to memfd files named after tag (made on first use, kept
 * open across runs, in no folder) and puts their /proc/self/fd paths in
 * paths.  Returns 0, or -1 on an I/O error. */
int memberset_store(const char *tag, uint8_t *const img[], int n, char paths[][64]);

#endif
