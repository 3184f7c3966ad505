/* evidence: the modules that read the sample and add candidate geometries,
 * each from one kind of evidence.  In a candidate they add, a role may be
 * PROBE_UNKNOWN, chunk_sectors 0 and layout -1 where they could not decide
 * (for levels that have them), data_offset UINT64_MAX likewise; spec.size
 * is left 0 for search to set. */
#ifndef STRIPE_PROBE_EVIDENCE_H
#define STRIPE_PROBE_EVIDENCE_H

#include "probe/probe.h"

/* RAID4/5/6 from parity and syndromes: members whose XOR is zero row by
 * row, Q solving the data order. */
int probe_parity(struct probe_sample *s, const struct probe_hints *h, struct probe_result *r,
		 struct diag *d);

/* RAID1/10 from copies: members, or member offsets, that hold equal bytes. */
int probe_mirror(struct probe_sample *s, const struct probe_hints *h, struct probe_result *r,
		 struct diag *d);

/* Filesystem content (ext4's superblocks, group descriptors and checksummed
 * metadata, read through a candidate with libext2fs): completes the
 * candidates in r where parity and copies left roles, chunk, layout or
 * data offset undecided, rescores every candidate, and adds those content
 * alone can find (RAID0, and arrays too degraded for parity to show). */
int probe_content(struct probe_sample *s, const struct probe_hints *h, struct probe_result *r,
		  struct diag *d);

/* Continuity of data across chunk boundaries: every candidate whose chunk,
 * layout, order and data offset are decided is ranked at each sampled
 * boundary (does the chunk it puts next start the way the chunk before
 * ends, more than the other starts there?) and gets an evidence line.
 * A candidate whose chunk alone is open (RAID10 far copies hide it) is
 * completed with the chunk whose boundaries continue significantly most,
 * or else weighed by the best any chunk gives it.  Where some candidate's
 * boundaries continue far beyond chance, those over the same members that
 * continue significantly less lose up to half their score; where none
 * does (random, compressed or encrypted data) no score changes and r says
 * so. */
int probe_continuity(struct probe_sample *s, const struct probe_hints *h, struct probe_result *r,
		     struct diag *d);

/* RAID0 from continuity alone, when nothing else found a candidate and
 * every member is present: for each chunk size, the start each member's
 * chunk ends continue into far beyond chance links it to the next member;
 * where the links chain every member once, a raid0 of that order, chunk
 * and data offset (mdadm's largest below the first data) is proposed,
 * confident only when no other chunk chains them about as well and the
 * data begins in the array's first row.  Where no chunk chains them, r
 * says so. */
int probe_chain(struct probe_sample *s, const struct probe_hints *h, struct probe_result *r, struct diag *d);

#endif
