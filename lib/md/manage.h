/* manage: mdadm's manage-mode verbs done offline (--add a spare, --fail,
 * --remove) and its --zero-superblock, each leaving the superblocks md
 * leaves once the array has stopped after the same mdadm command. */
#ifndef STRIPE_MANAGE_H
#define STRIPE_MANAGE_H

#include <stdbool.h>
#include <stdint.h>

#include "md/array.h"
#include "util/diag.h"

/* Whether md writes m's superblock at a change of the array: it holds a
 * role (in sync or being rebuilt) or is one of its spares. */
bool manage_writes(const struct member *m);

/* Writes a hot spare's superblock on spare (opened for writing, no member
 * of this array) and records it on every member md would write: events
 * one up.  rdev_major and rdev_minor are a block device's numbers (0.90
 * lists them), else 0.  Fails writing nothing when spare is too small or
 * the array has no device number left. */
int manage_add_spare(struct array *a, struct member *spare, uint32_t rdev_major, uint32_t rdev_minor,
		     struct diag *d);

/* Records m (holding a role in sync, or a spare) faulty on every other
 * member md would write, as md does after mdadm --fail and --stop: events
 * two up; m's own superblock is left as it was, md writes no more to a
 * faulty device. */
int manage_fail(struct array *a, struct member *m, struct diag *d);

/* Removes m (faulty or a spare of the array) from the tables of every
 * member md would write: events one up; m's own superblock is left as it
 * was, as md leaves it. */
int manage_remove(struct array *a, struct member *m, struct diag *d);

/* mdadm --remove failed: takes every device the array records faulty out
 * of the tables of every member md would write, whether or not it was
 * given: events one up for each, as md removes them one by one.  *n says
 * how many; 0 writes nothing. */
int manage_remove_failed(struct array *a, int *n, struct diag *d);

/* The bytes mdadm --zero-superblock writes: zeroes over the superblock sb
 * found on dv (4 KiB for 0.90, 512 bytes or one logical sector for 1.x),
 * flushed. */
int manage_zero(struct dev *dv, const struct md_super *sb, struct diag *d);

#endif
