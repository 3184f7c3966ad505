/* test_probe_search: the verdict the probe draws from ranked candidates,
 * on hand-made outcomes: one confident answer, two close ones, several
 * arrays among the members, a member in none, a candidate whose roles are
 * not all decided, members of uneven size, and superblocks weighed
 * against the data; a confident answer's level keeps only its own and
 * no level's undecided lines. */
#include <stdio.h>
#include <string.h>

#include "probe/search.h"
#include "tap.h"

static struct probe_member members[8];
static const char *const names[] = { "a.img", "b.img", "c.img", "d.img", "e.img", "f.img", "g.img", "h.img" };

/* An outcome over n members of equal size and no superblock. */
static void outcome(struct probe_outcome *o, int n)
{
	memset(o, 0, sizeof(*o));
	memset(members, 0, sizeof(members));
	for (int i = 0; i < n; i++) {
		members[i].path = names[i];
		members[i].sectors = 131072;
		members[i].dev.size = 131072 * 512ull;
		members[i].dev.fd = -1;
	}
	o->members = members;
	o->nmembers = n;
}

/* Adds a raid5 of the members in order[] scoring score. */
static void add(struct probe_outcome *o, double score, uint32_t chunk, int n, const int *order)
{
	struct probe_candidate c = { .spec = { .level = 5, .layout = 2, .chunk_sectors = chunk, .data_offset = 2048,
					       .raid_disks = n },
				     .score = score };

	memcpy(c.spec.order, order, sizeof(order[0]) * (size_t)n);
	probe_result_add(&o->result, &c);
}

static void one_confident_answer(void)
{
	static const int order[] = { 2, 0, 1 };
	struct probe_outcome o;

	outcome(&o, 3);
	add(&o, 0.98, 128, 3, order);
	add(&o, 0.40, 256, 3, order);
	probe_settle(&o);
	ok(o.verdict == PROBE_FOUND && o.ngroups == 1 && o.group[0].cand == 0,
	   "a candidate far ahead of the next is found (verdict %d, %d arrays)", o.verdict, o.ngroups);
	ok(o.group[0].lead > 0.57 && o.group[0].lead < 0.59, "its lead is the gap to the next (%.2f)",
	   o.group[0].lead);
}

static void other_levels_questions_dropped(void)
{
	static const int order[] = { 2, 0, 1 };
	struct probe_outcome o;

	outcome(&o, 3);
	add(&o, 0.98, 128, 3, order);
	probe_result_undecided(&o.result, "raid6: symmetric and asymmetric layouts place P, Q and the syndrome alike");
	probe_result_undecided(&o.result, "raid5: parity cannot tell left from right");
	probe_result_undecided(&o.result, "no ext4 superblock found in the sample");
	probe_settle(&o);
	ok(o.verdict == PROBE_FOUND && o.result.nundecided == 2 && strncmp(o.result.undecided[0], "raid5:", 6) == 0 &&
		   strncmp(o.result.undecided[1], "no ext4", 7) == 0,
	   "a confident raid5 answer keeps the undecided lines of raid5 and of no level, not raid6's (%d kept)",
	   o.result.nundecided);
	outcome(&o, 3);
	add(&o, 0.95, 128, 3, order);
	add(&o, 0.93, 256, 3, order);
	probe_result_undecided(&o.result, "raid6: symmetric and asymmetric layouts place P, Q and the syndrome alike");
	probe_settle(&o);
	ok(o.verdict == PROBE_AMBIGUOUS && o.result.nundecided == 1, "no confident answer: every level's line is kept");
}

static void two_close_candidates(void)
{
	static const int order[] = { 0, 1, 2 };
	struct probe_outcome o;

	outcome(&o, 3);
	add(&o, 0.95, 128, 3, order);
	add(&o, 0.93, 256, 3, order);
	probe_settle(&o);
	ok(o.verdict == PROBE_AMBIGUOUS && !o.group[0].confident, "two candidates close together are no answer");
}

static void low_score_alone(void)
{
	static const int order[] = { 0, 1, 2 };
	struct probe_outcome o;

	outcome(&o, 3);
	add(&o, 0.6, 128, 3, order);
	probe_settle(&o);
	ok(o.verdict == PROBE_AMBIGUOUS, "a lone candidate that fits little of the evidence is no answer");
}

static void no_candidate(void)
{
	struct probe_outcome o;

	outcome(&o, 3);
	probe_settle(&o);
	ok(o.verdict == PROBE_NONE && o.ngroups == 0, "no candidate: verdict none");
}

static void two_arrays_mixed(void)
{
	static const int first[] = { 0, 2, 4 }, second[] = { 5, 3, 1 }, across[] = { 0, 1, 2 };
	struct probe_outcome o;

	outcome(&o, 6);
	add(&o, 0.99, 128, 3, first);
	add(&o, 0.97, 128, 3, second);
	add(&o, 0.30, 128, 3, across);
	probe_settle(&o);
	ok(o.ngroups == 2 && o.nunused == 0, "members of two arrays part into two (%d arrays, %d unused)", o.ngroups,
	   o.nunused);
	ok(o.group[0].confident && o.group[1].confident, "each array found is confident on its own");
	ok(o.verdict == PROBE_AMBIGUOUS, "but two arrays are not the one answer exit 0 means");
}

static void member_in_no_array(void)
{
	static const int order[] = { 0, 1, 2 };
	struct probe_outcome o;

	outcome(&o, 4);
	add(&o, 0.99, 128, 3, order);
	probe_settle(&o);
	ok(o.nunused == 1 && o.unused[0] == 3 && o.verdict == PROBE_AMBIGUOUS,
	   "a member no array uses is named, and there is no answer");
}

static void undecided_roles_are_one_array(void)
{
	static const int known[] = { 0, 1, 2, 3 };
	static const int unknown[] = { PROBE_UNKNOWN, PROBE_UNKNOWN, PROBE_UNKNOWN, PROBE_UNKNOWN };
	struct probe_outcome o;

	outcome(&o, 4);
	add(&o, 0.99, 128, 4, known);
	add(&o, 0.95, 256, 4, unknown);
	probe_settle(&o);
	ok(o.ngroups == 1, "a candidate whose roles are undecided may use any member: no second array (%d)",
	   o.ngroups);
	ok(!probe_candidate_complete(&o.result.cand[1]), "and it is not complete");
}

static void uneven_members(void)
{
	static const int order[] = { 0, 1, 2 };
	struct probe_outcome o;

	outcome(&o, 3);
	add(&o, 0.99, 128, 3, order);
	members[2].sectors = 262144;
	members[2].dev.size = 262144 * 512ull;
	probe_settle(&o);
	ok(o.uneven && o.verdict == PROBE_AMBIGUOUS, "members twice the size of the others leave no sure answer");
	ok(o.nnotes == 1 && strstr(o.notes[0], "members differ in size: c.img has 134217728 bytes, a.img 67108864"),
	   "the note names the largest and the smallest: %s", o.nnotes ? o.notes[0] : "(none)");
	members[2].sectors = 131072 + 1024;
	members[2].dev.size = members[2].sectors * 512;
	probe_settle(&o);
	ok(!o.uneven && o.verdict == PROBE_FOUND, "members within 1 %% of each other still give an answer");
}

static void the_same_array_named_otherwise(void)
{
	static const int last[] = { 0, 1, 2, 3 }, first[] = { 3, 0, 1, 2 };
	struct probe_outcome o;
	struct probe_candidate c = { .spec = { .level = 5, .layout = 5, .chunk_sectors = 128, .data_offset = 2048,
					       .size = 8192, .raid_disks = 4 },
				     .score = 1 };

	outcome(&o, 4);
	memcpy(c.spec.order, first, sizeof(first));
	c.spec.layout = 4;
	probe_result_add(&o.result, &c);
	memcpy(c.spec.order, last, sizeof(last));
	c.spec.layout = 5;
	probe_result_add(&o.result, &c);
	probe_settle(&o);
	ok(o.verdict == PROBE_FOUND && o.group[0].alike == 1,
	   "parity-first rotated and parity-last lay every block alike: one answer (verdict %d, alike %d)", o.verdict,
	   o.group[0].alike);
	memcpy(o.result.cand[1].spec.order, (int[]){ 1, 0, 2, 3 }, sizeof(last));
	probe_settle(&o);
	ok(o.verdict == PROBE_AMBIGUOUS && o.group[0].alike == 0, "another order is a rival, not the same array");
}

static void superblocks_weighed(void)
{
	static const int order[] = { 0, 1, 2 };
	struct probe_outcome o;

	outcome(&o, 3);
	add(&o, 0.99, 128, 3, order);
	/* a re-create with another chunk and the first two members swapped */
	for (int i = 0; i < 3; i++) {
		members[i].has_super = true;
		members[i].sb = (struct md_super){ .level = 5, .layout = 2, .chunk_sectors = 1024, .data_offset = 2048,
						   .raid_disks = 3, .role = i == 0 ? 1 : i == 1 ? 0 : 2 };
	}
	probe_settle(&o);
	ok(o.nnotes == 1 && strcmp(o.notes[0], "the superblocks say chunk 512K, order 1:0:2; the data supports chunk "
				   "64K, order 0:1:2") == 0,
	   "a wrong re-create is named field by field: %s", o.nnotes ? o.notes[0] : "(none)");
	members[0].sb.role = 0;
	members[1].sb.role = 1;
	for (int i = 0; i < 3; i++)
		members[i].sb.chunk_sectors = 128;
	probe_settle(&o);
	ok(o.nnotes == 1 && strcmp(o.notes[0], "the superblocks on 3 members agree with the data") == 0,
	   "superblocks that match the data are said to: %s", o.nnotes ? o.notes[0] : "(none)");
}

int main(void)
{
	one_confident_answer();
	other_levels_questions_dropped();
	two_close_candidates();
	low_score_alone();
	no_candidate();
	two_arrays_mixed();
	member_in_no_array();
	undecided_roles_are_one_array();
	uneven_members();
	the_same_array_named_otherwise();
	superblocks_weighed();
	return tap_done();
}
