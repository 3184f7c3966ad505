/* test_spec_array: members formed into an array from a --geometry SPEC,
 * with no superblock read, serve through the engines and the splice plan
 * stripe-map reads with the bytes the superblocks' array holds: given out
 * of order, with a role missing, and not under a wrong order. */
#include "md/geometry_spec.h"
#include "raid/engineset.h"
#include "tap.h"
#include "image_array.h"
#include "splice_read.h"

#define MEMBERS 4

static char dir[] = "/tmp/test_spec_array.XXXXXX";

/* The SPEC of the array a superblocks describe, its roles held by the
 * members of given (paths in another order), or missing where NULL. */
static void spec_of(const struct array *a, char *const *given, struct geometry_spec *s)
{
	memset(s, 0, sizeof(*s));
	s->level = a->geo.level;
	s->layout = a->geo.layout;
	s->chunk_sectors = a->ref->chunk_sectors;
	s->data_offset = a->ref->data_offset;
	s->size = a->ref->size;
	s->raid_disks = a->geo.raid_disks;
	for (int r = 0; r < s->raid_disks; r++) {
		s->order[r] = SPEC_MISSING;
		for (int i = 0; i < MEMBERS; i++)
			if (given[i] && !strcmp(given[i], a->role[r]->path))
				s->order[r] = i;
	}
}

/* Whether the whole array read as stripe-map reads it, an engine of a set
 * at a time, is the pattern. */
static bool engines_give_pattern(struct array *a)
{
	size_t len = (size_t)a->geo.array_sectors * 512;
	uint8_t *got = malloc(len);
	struct membuf mb = { got, 0 };
	struct engineset es;
	struct diag d;
	bool same = false;

	if (got && engineset_start(&es, a, 2, &d) == 0) {
		same = engineset_read(&es, 0, len, to_memory, &mb, &d) == 0;
		engineset_stop(&es);
		for (size_t i = 0; same && i < len; i++)
			same = got[i] == pattern_byte(i);
	}
	free(got);
	return same;
}

static void serves_members_given_out_of_order(const struct array *sb_array)
{
	char *given[MEMBERS] = { sb_array->role[2]->path, sb_array->role[0]->path, sb_array->role[3]->path,
				 sb_array->role[1]->path };
	struct geometry_spec s;
	struct array a;
	struct diag d;

	spec_of(sb_array, given, &s);
	if (array_open_spec(&a, given, MEMBERS, &s, &d) < 0) {
		ok(0, "the SPEC's array opens: %s", d.msg);
		return;
	}
	ok(a.state == ARRAY_CLEAN && a.geo.array_sectors == sb_array->geo.array_sectors,
	   "the SPEC's array is whole and as large as the superblocks'");
	ok(engines_give_pattern(&a), "the engines give the array's bytes, members given out of order");
	ok(splice_gives_pattern(&a, 192 << 10, 256 << 10), "a healthy read spliced from the members gives them too");
	array_close(&a);
}

static void serves_a_role_missing(const struct array *sb_array)
{
	char *given[MEMBERS] = { sb_array->role[0]->path, NULL, sb_array->role[2]->path, sb_array->role[3]->path };
	char *paths[MEMBERS - 1] = { given[0], given[2], given[3] };
	struct geometry_spec s;
	struct array a;
	struct diag d;

	spec_of(sb_array, given, &s);
	/* the list given holds three members: the indices past the gap move down */
	s.order[2] = 1;
	s.order[3] = 2;
	if (array_open_spec(&a, paths, MEMBERS - 1, &s, &d) < 0) {
		ok(0, "the degraded SPEC's array opens: %s", d.msg);
		return;
	}
	ok(a.state == ARRAY_DEGRADED, "a SPEC with role 1 missing forms a degraded array");
	ok(engines_give_pattern(&a), "the engines rebuild role 1 from parity and give the array's bytes");
	array_close(&a);
}

static void a_wrong_order_gives_other_bytes(const struct array *sb_array)
{
	char *given[MEMBERS] = { sb_array->role[1]->path, sb_array->role[0]->path, sb_array->role[2]->path,
				 sb_array->role[3]->path };
	struct geometry_spec s;
	struct array a;
	struct diag d;

	spec_of(sb_array, given, &s);
	s.order[0] = 0;              /* role 0 given role 1's member, and the other way round */
	s.order[1] = 1;
	if (array_open_spec(&a, given, MEMBERS, &s, &d) < 0) {
		ok(0, "the wrong SPEC's array opens: %s", d.msg);
		return;
	}
	ok(!engines_give_pattern(&a), "roles 0 and 1 swapped give other bytes");
	array_close(&a);
}

int main(void)
{
	struct array_options opt = { .mode = DEV_READ };
	char *paths[MEMBERS];
	struct array a;
	struct diag d;

	if (!mkdtemp(dir)) {
		skip("no temporary directory");
		return tap_done();
	}
	if (make_image_array(dir, 5, -1, MEMBERS, paths) < 0 || array_open(&a, paths, MEMBERS, &opt, &d) < 0) {
		ok(0, "a raid5 of 4 is made and opened");
		return tap_done();
	}
	serves_members_given_out_of_order(&a);
	serves_a_role_missing(&a);
	a_wrong_order_gives_other_bytes(&a);
	array_close(&a);
	remove_image_array(paths, MEMBERS);
	rmdir(dir);
	return tap_done();
}
