/* scan: md members found among devices and files, grouped into arrays as
 * mdadm --examine --scan groups them (Examine.c: one superblock version,
 * compare_super), and the mdadm.conf ARRAY line of each array. */
#ifndef STRIPE_MD_SCAN_H
#define STRIPE_MD_SCAN_H

#include <stdbool.h>
#include <stdio.h>

#include "io/dev.h"
#include "md/super.h"
#include "util/diag.h"

/* One member found: where, and the superblock mdadm reads there. */
struct scan_member {
	char *path;
	struct md_super sb;
};

/* An array as mdadm groups members: those whose superblocks agree on what
 * mdadm compares (super_mdadm_same_array), in the order found.  Its first
 * member's superblock speaks for it in the ARRAY line, as in mdadm. */
struct scan_array {
	int *members;                /* indexes into struct md_scan's members */
	int nmembers;
	int spares;                  /* members not in sync (super_mdadm_in_sync) */
};

struct md_scan {
	struct scan_member *members;
	int nmembers;
	struct scan_array *arrays;   /* in the order their first member was found */
	int narrays;
};

/* The superblock mdadm reads on dv: where versions left several (a member
 * re-created under another version), the one created last; on a tie the
 * first of 0.90, 1.0, 1.1, 1.2, as mdadm's guess_super tries them.
 * Fails as super_load does where there is none. */
int scan_load(struct dev *dv, struct md_super *sb, struct diag *d);

/* Adds the member at path with superblock sb to the array it belongs to,
 * or to a new one.  Fails only when memory runs out. */
int scan_add(struct md_scan *s, const char *path, const struct md_super *sb, struct diag *d);

void scan_free(struct md_scan *s);

/* The superblock that speaks for the array. */
static inline const struct md_super *scan_array_super(const struct md_scan *s, const struct scan_array *a)
{
	return &s->members[a->members[0]].sb;
}

/* The device name the ARRAY line gives the array: "/dev/md/NAME" from a
 * 1.x name (after any "host:"; blanks as '_', '/' as '-'), "/dev/mdN"
 * from 0.90's preferred minor; empty for a 1.x array without a name. */
void scan_device_name(const struct md_super *s, char *buf, size_t len);

/* The array's mdadm.conf ARRAY line as mdadm prints it: brief as
 * mdadm --examine --brief, else as mdadm --examine --scan --verbose (with
 * level=, num-devices= and devices=), "   spares=N" on the next line where
 * members are not in sync.  A name with control characters (md allows them; mdadm
 * prints them raw, breaking the line) is left out of name= and shown as
 * '_' in the device name: the UUID alone then identifies the array. */
void scan_print_line(FILE *out, const struct md_scan *s, const struct scan_array *a, bool brief);

#endif
