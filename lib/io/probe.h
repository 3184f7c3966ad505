/* probe: the safety guards that stand before any write to a member: is it
 * mounted, in use, or does it carry a filesystem, partition table, LVM or md
 * signature (libblkid, libmount, O_EXCL). */
#ifndef STRIPE_PROBE_H
#define STRIPE_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/diag.h"

struct probe_result {
	bool mounted;                /* the device, or a loop device backed by the file, is mounted */
	bool busy;                   /* O_EXCL open refused (held by md, LVM, a mount, another stripe writer) */
	bool has_signature;
	char what[256];              /* e.g. "ext4 filesystem (UUID 1234-...)", "dos partition table" */
	char where[256];             /* mountpoint or holder, when known */
};

/* Looks at path (block device or regular file) without changing it. */
int probe_member(const char *path, struct probe_result *r, struct diag *d);

/* The rule every writing tool applies: mounted or busy members are refused
 * always; a member with a signature is refused unless force.  ignore_md lets
 * tools that rewrite an existing md member (write, repair, rebuild --readd)
 * accept the md signature they expect.  The message names the path and what
 * was found. */
int probe_refuse(const char *path, bool force, bool ignore_md, struct diag *d);

/* The signatures other than md's whose magic blkid finds in bytes [lo, hi)
 * of path, worded as probe_refuse words them ("an ext4 filesystem (UUID
 * ...)"), into what; "" when there are none. */
int probe_signatures_in(const char *path, uint64_t lo, uint64_t hi, char *what, size_t len,
			struct diag *d);

#endif
