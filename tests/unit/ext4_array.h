/* ext4_array.h: the probe's unit tests' array, made once in a test's
 * directory: a zeroed 5-member RAID5 holding a real ext4
 * (tests/probe/make-ext4-array), its member paths in paths;
 * make_ext4_array_as makes one with other options. */
#ifndef STRIPE_TEST_EXT4_ARRAY_H
#define STRIPE_TEST_EXT4_ARRAY_H

#include <stdio.h>
#include <stdlib.h>

#define EXT4_ARRAY_MEMBERS 5
#define EXT4_ARRAY_PATH 160

/* A zeroed array of n members in dir/sub, opts its member size and
 * stripe-create options ("16M -l 5 ..."), the members' paths in paths. */
static inline int make_ext4_array_as(const char *dir, const char *sub, const char *opts, int n,
				     char paths[][EXT4_ARRAY_PATH])
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd),
		 "tests/probe/make-ext4-array %s/%s %s -n %d >/dev/null && tests/probe/make-ext4-array --zero %s/%s",
		 dir, sub, opts, n, dir, sub);
	for (int i = 0; i < n; i++)
		snprintf(paths[i], EXT4_ARRAY_PATH, "%s/%s/m%d.img", dir, sub, i);
	return system(cmd) == 0 ? 0 : -1;
}

static inline int make_ext4_array(const char *dir, char paths[][EXT4_ARRAY_PATH])
{
	return make_ext4_array_as(dir, "a", "16M -l 5 -c 32K -p right-asymmetric -e 1.2", EXT4_ARRAY_MEMBERS, paths);
}

#endif
