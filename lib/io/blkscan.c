/* blkscan: every block device libblkid lists (its probe of each device in
 * /proc/partitions), kept where the type it reads is the one asked. */
#include <blkid.h>
#include <stdlib.h>
#include <string.h>

#include "io/blkscan.h"

/* libblkid's cache file is written by root's runs and read by everyone's:
 * a stale entry would name a device as it was.  "/dev/null" as the cache,
 * as blkid -c /dev/null has it, makes every answer a fresh probe. */
#define FRESH_CACHE "/dev/null"

static int append(char ***paths, int n, const char *path, struct diag *d)
{
	char **p = realloc(*paths, (size_t)(n + 1) * sizeof(*p));

	if (!p)
		return diag_fail(d, "out of memory");
	*paths = p;
	if (!(p[n] = strdup(path)))
		return diag_fail(d, "out of memory");
	return 0;
}

int blkscan_type(const char *type, char ***paths, struct diag *d)
{
	blkid_dev_iterate iter;
	blkid_cache cache;
	blkid_dev dev;
	int n = 0;

	*paths = NULL;
	if (blkid_get_cache(&cache, FRESH_CACHE) < 0)
		return diag_fail(d, "libblkid: cannot start a device cache");
	if (blkid_probe_all(cache) < 0) {
		blkid_put_cache(cache);
		return diag_fail(d, "libblkid: cannot list the block devices (/proc/partitions)");
	}
	iter = blkid_dev_iterate_begin(cache);
	blkid_dev_set_search(iter, "TYPE", type);
	while (iter && blkid_dev_next(iter, &dev) == 0) {
		/* what blkid does with each device its search returns */
		if (!(dev = blkid_verify(cache, dev)))
			continue;
		if (append(paths, n, blkid_dev_devname(dev), d) < 0) {
			blkid_dev_iterate_end(iter);
			blkid_put_cache(cache);
			blkscan_free(*paths, n);
			*paths = NULL;
			return -1;
		}
		n++;
	}
	blkid_dev_iterate_end(iter);
	blkid_put_cache(cache);
	return n;
}

void blkscan_free(char **paths, int n)
{
	int i;

	for (i = 0; i < n; i++)
		free(paths[i]);
	free(paths);
}
