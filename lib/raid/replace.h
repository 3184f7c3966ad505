/* replace: a member in sync copied onto a new device before it fails, as
 * mdadm --replace does: what md refuses, and a replacement that an
 * interrupted run left recorded in the superblocks, to resume. */
#ifndef STRIPE_REPLACE_H
#define STRIPE_REPLACE_H

#include <stdbool.h>

#include "md/array.h"
#include "util/diag.h"

/* Whether md would replace role of a with m: fails, in one line naming m
 * or the array, for a RAID0 (nothing to serve unreadable ranges from), a
 * role no member holds in sync (that is a rebuild), or an m the array
 * uses (being rebuilt into another role). */
int replace_refuse(const struct array *a, int role, const struct member *m, struct diag *d);

/* Whether m is the replacement of a role still held in sync that an
 * interrupted replace recorded (1.x REPLACEMENT and a recovery offset):
 * the rebuild to resume.  Its role is m->sb.role. */
bool replace_recorded(const struct array *a, const struct member *m);

#endif
