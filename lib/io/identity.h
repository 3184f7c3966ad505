/* identity: what a member path is, so that a report can say which disk to
 * pull: a file, a loop device over a named file, or a disk or partition with
 * its model, serial, WWN and /dev/disk/by-id name (sysfs and udev's data). */
#ifndef STRIPE_IDENTITY_H
#define STRIPE_IDENTITY_H

#include <stddef.h>

/* The trees read, each from an environment variable so that tests can point
 * them at fake ones: STRIPE_SYSFS_ROOT (/sys), STRIPE_UDEV_ROOT (/run/udev)
 * and STRIPE_DEV_ROOT (/dev).  STRIPE_TEST_DEVNO="FILE=MAJ:MIN[,...]" makes
 * a member whose path ends in FILE look like block device MAJ:MIN (a test
 * hook; unset in normal use). */

enum ident_kind {
	IDENT_FILE,
	IDENT_DISK,              /* a whole block device */
	IDENT_PARTITION,
	IDENT_LOOP,
	IDENT_BLOCK,             /* a block device sysfs does not describe */
};

#define IDENT_TEXT 128

struct identity {
	enum ident_kind kind;
	unsigned major, minor;           /* block devices */
	char name[64];                   /* the kernel's: sda1, nvme0n1, loop0 */
	char parent[64];                 /* a partition's disk: sda */
	int partition;                   /* its number; 0 none */
	char vendor[IDENT_TEXT], model[IDENT_TEXT], serial[IDENT_TEXT], wwn[IDENT_TEXT];
	char by_id[512];                 /* the /dev/disk/by-id link, under the dev root */
	char backing[4096];              /* a loop device's file, as the kernel recorded it */
};

/* Fills id for path; -1 (errno set) when it cannot be looked at or is
 * neither a regular file nor a block device.  What sysfs or udev do not
 * hold is left empty: a member is never refused for it. */
int identity_of(const char *path, struct identity *id);

/* The text fields by their report names (kernel_name, parent, vendor,
 * model, serial, wwn, by_id, backing_file), each "" when not known: one
 * list for every output format to walk. */
#define IDENT_FIELDS 8
struct identity_field {
	const char *name, *value;
};
void identity_fields(const struct identity *id, struct identity_field f[IDENT_FIELDS]);

/* "file", "disk", "partition", "loop" or "block". */
const char *identity_kind_name(enum ident_kind k);

/* What it is in words: "file", "disk sda", "partition 1 of disk sda",
 * "loop device loop0 over /srv/d0.img", "block device 8:16". */
void identity_what(const struct identity *id, char *buf, size_t len);

/* The same, then the fields known: "partition 1 of disk sda: model M,
 * serial S, WWN W, /dev/disk/by-id/...". */
void identity_describe(const struct identity *id, char *buf, size_t len);

#endif
