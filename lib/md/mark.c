/* mark: the clean/dirty transitions md records in every member's superblock
 * and bitmap around writes (events, resync_offset or the 0.90 CLEAN bit),
 * and, on an array running without some members, that those are gone. */
#include <time.h>

#include "md/array.h"
#include "md/intent.h"

int array_present_numbers(const struct array *a, int *present)
{
	int i, n = 0;

	for (i = 0; i < a->nmembers; i++) {
		const struct member *m = &a->members[i];

		if (m->state == MEMBER_ACTIVE || m->state == MEMBER_REBUILDING || m->state == MEMBER_SPARE)
			present[n++] = m->sb.dev_number;
	}
	return n;
}

int array_next_events(const struct array *a, uint64_t *events, struct diag *d)
{
	if (a->events == UINT64_MAX)
		return diag_fail(d, "%s: the array's events count is at its limit (2^64-1): one more change would wrap it to 0 and leave every member stale; nothing written",
				 a->role[0] ? a->role[0]->path : a->members[0].path);
	*events = a->events + 1;
	return 0;
}

int array_mark(struct array *a, bool clean, struct diag *d)
{
	uint64_t events = 0, now = (uint64_t)time(NULL);
	int present[a->nmembers > 0 ? a->nmembers : 1], npresent = array_present_numbers(a, present);
	int i;

	if (array_next_events(a, &events, d) < 0 || intent_open(a, d) < 0)
		return -1;
	/* md's bitmap daemon clears the bits once the writes are done, but
	 * never while a role is missing: those bits are what a returning
	 * member needs copied */
	if (clean && a->missing == 0)
		intent_clear(a, events);

	for (i = 0; i < a->ref->raid_disks; i++) {
		struct member *m = a->role[i];

		if (!m)
			continue;
		if (!m->dev.writable)
			return diag_fail(d, "%s: opened read-only, cannot record the array state", m->path);
		/* without this a member left out still counts as active, and
		 * mdadm --assemble would wait for it (not start without --run) */
		if (a->missing > 0)
			super_keep_devices(&m->sb, present, npresent);
		super_set_state(&m->sb, events, clean, now);
		/* md writes the bitmap's superblock first, so it is never
		 * behind the superblocks that md compares it with */
		if (intent_stamp(a, m, events, d) < 0 || super_write(&m->dev, &m->sb, d) < 0)
			return -1;
	}
	a->events = events;
	a->dirty = !clean;
	return 0;
}
