/* ext4_array.h: the probe's unit tests' array, made once in a test's
 * directory: a zeroed 5-member RAID5 holding a real ext4
 * (tests/probe/make-ext4-array), its member paths in paths. */
#ifndef STRIPE_TEST_EXT4_ARRAY_H
#define STRIPE_TEST_EXT4_ARRAY_H

#include <stdio.h>
#include <stdlib.h>

#define EXT4_ARRAY_MEMBERS 5
#define EXT4_ARRAY_PATH 160

static inline int make_ext4_array(const char *dir, char paths[][EXT4_ARRAY_PATH])
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd),
		 "tests/probe/make-ext4-array %s/a 16M -l 5 -n %d -c 32K -p right-asymmetric -e 1.2 >/dev/null && "
		 "tests/probe/make-ext4-array --zero %s/a", dir, EXT4_ARRAY_MEMBERS, dir);
	for (int i = 0; i < EXT4_ARRAY_MEMBERS; i++)
		snprintf(paths[i], EXT4_ARRAY_PATH, "%s/a/m%d.img", dir, i);
	return system(cmd) == 0 ? 0 : -1;
}

#endif
