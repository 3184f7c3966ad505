/* mark: the clean/dirty transitions md records in every member's superblock
 * around writes (events, resync_offset or the 0.90 CLEAN bit). */
#include <time.h>

#include "array.h"

int array_mark(struct array *a, bool clean, struct diag *d)
{
	uint64_t events = a->events + 1, now = (uint64_t)time(NULL);
	int i;

	for (i = 0; i < a->ref->raid_disks; i++) {
		struct member *m = a->role[i];

		if (!m)
			continue;
		if (!m->dev.writable)
			return diag_fail(d, "%s: opened read-only, cannot record the array state", m->path);
		super_set_state(&m->sb, events, clean, now);
		if (super_write(&m->dev, &m->sb, d) < 0)
			return -1;
	}
	a->events = events;
	a->dirty = !clean;
	return 0;
}
