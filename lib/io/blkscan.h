/* blkscan: the machine's block devices whose content libblkid names with a
 * given type, found the way util-linux's blkid -t TYPE=... finds them. */
#ifndef STRIPE_IO_BLKSCAN_H
#define STRIPE_IO_BLKSCAN_H

#include "util/diag.h"

/* The device paths (/dev/...) libblkid finds of type (as "linux_raid_member"),
 * probed afresh rather than read from its cache file, into *paths (NULL
 * with none; free with blkscan_free).  Returns how many, or -1 when the
 * devices cannot be listed. */
int blkscan_type(const char *type, char ***paths, struct diag *d);
void blkscan_free(char **paths, int n);

#endif
