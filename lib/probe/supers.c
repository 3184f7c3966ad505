/* supers: the superblocks left on the members, each array's weighed
 * against what the data decides, field by field: a wrong re-create shows
 * here. */
#include <string.h>

#include "probe/search.h"
#include "probe/shape.h"

/* The geometry the superblocks of the array holding member first record,
 * with the roles of every member given that shares its uuid. */
static int super_geometry(const struct probe_outcome *o, int first, struct geometry_spec *s)
{
	const struct md_super *sb = &o->members[first].sb;
	int n = 0;

	*s = (struct geometry_spec){ .level = sb->level, .layout = sb->layout, .chunk_sectors = sb->chunk_sectors,
				     .data_offset = sb->data_offset, .size = sb->size,
				     .raid_disks = sb->raid_disks > ST_MAX_DISKS ? ST_MAX_DISKS : sb->raid_disks };
	for (int r = 0; r < s->raid_disks; r++)
		s->order[r] = SPEC_MISSING;
	for (int i = first; i < o->nmembers; i++) {
		const struct probe_member *m = &o->members[i];
		if (!m->has_super || memcmp(m->sb.uuid, sb->uuid, sizeof(sb->uuid)) != 0)
			continue;
		n++;
		if (m->sb.role >= 0 && m->sb.role < s->raid_disks)
			s->order[m->sb.role] = i;
	}
	return n;
}

/* The candidate the members of s were found in, else the best of all. */
static const struct probe_candidate *candidate_for(const struct probe_outcome *o, const struct geometry_spec *s)
{
	for (int g = 0; g < o->ngroups; g++) {
		const struct probe_candidate *c = &o->result.cand[o->group[g].cand];
		for (int r = 0; r < s->raid_disks; r++)
			if (s->order[r] >= 0 && probe_candidate_uses(c, s->order[r]))
				return c;
	}
	return o->result.ncand ? &o->result.cand[0] : NULL;
}

static void weigh_one_super(struct probe_outcome *o, int first)
{
	struct geometry_spec said;
	char says[PROBE_LINE], supports[PROBE_LINE];
	int n = super_geometry(o, first, &said);
	const struct probe_candidate *c = candidate_for(o, &said);

	if (!c) {
		probe_shape_describe(&said, NULL, says, sizeof(says));
		probe_outcome_note(o, "the superblocks on %d member%s say %s; the data bears out no geometry", n,
				   n == 1 ? "" : "s",
		     says);
		return;
	}
	/* what the data leaves undecided does not disagree */
	struct geometry_spec weighed = said;
	if (!c->spec.chunk_sectors)
		weighed.chunk_sectors = 0;
	if (c->spec.layout < 0)
		weighed.layout = c->spec.layout;
	if (c->spec.data_offset == UINT64_MAX)
		weighed.data_offset = UINT64_MAX;
	for (int r = 0; r < c->spec.raid_disks && r < weighed.raid_disks; r++)
		if (c->spec.order[r] == PROBE_UNKNOWN)
			weighed.order[r] = PROBE_UNKNOWN;
	probe_shape_describe(&weighed, &c->spec, says, sizeof(says));
	probe_shape_describe(&c->spec, &weighed, supports, sizeof(supports));
	if (!says[0])
		probe_outcome_note(o, "the superblocks on %d member%s agree with %s", n, n == 1 ? "" : "s",
		     probe_candidate_complete(c) ? "the data" : "what the data decides");
	else
		probe_outcome_note(o, "the superblocks say %s; the data supports %s", says, supports);
}

/* Each array's superblocks left on the members, weighed against what the
 * data supports: a wrong re-create shows here. */
void probe_weigh_supers(struct probe_outcome *o)
{
	for (int i = 0; i < o->nmembers; i++) {
		const struct probe_member *m = &o->members[i];
		bool seen = false;
		if (!m->has_super)
			continue;
		for (int j = 0; j < i && !seen; j++)
			seen = o->members[j].has_super &&
			       memcmp(o->members[j].sb.uuid, m->sb.uuid, sizeof(m->sb.uuid)) == 0;
		if (!seen)
			weigh_one_super(o, i);
	}
}
