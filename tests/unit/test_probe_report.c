/* test_probe_report: the lines the probe prints for hand-made candidates:
 * mdadm's and stripe-create's exact text (members in role order, missing
 * roles, layouts as mdadm spells them, paths quoted for the shell), the
 * --geometry SPEC renumbered for a subset of the members, the size and
 * metadata proposed as mdadm would choose them, and the superblocks'
 * geometry described against the data's. */
#include <stdint.h>
#include <string.h>

#include "probe/report.h"
#include "probe/search.h"
#include "probe/shape.h"
#include "tap.h"

static struct probe_member members[6];

static void given(const char *const *paths, int n, uint64_t sectors)
{
	memset(members, 0, sizeof(members));
	for (int i = 0; i < n; i++) {
		members[i].path = strcmp(paths[i], "missing") ? paths[i] : NULL;
		members[i].sectors = members[i].path ? sectors : 0;
		members[i].dev.fd = -1;
	}
}

static struct probe_candidate candidate(int level, int layout, uint32_t chunk, uint64_t data_offset, int n,
					const int *order)
{
	struct probe_candidate c = { .spec = { .level = level, .layout = layout, .chunk_sectors = chunk,
					       .data_offset = data_offset, .raid_disks = n } };

	memcpy(c.spec.order, order, sizeof(order[0]) * (size_t)n);
	return c;
}

static const struct probe_hints no_hints = { .level = -1, .layout = -1, .data_offset = UINT64_MAX };

static void raid6_with_missing_role(void)
{
	static const char *const paths[] = { "a.img", "b.img", "c.img" };
	static const int order[] = { 2, 0, SPEC_MISSING, 1 };
	struct probe_candidate c = candidate(6, 2, 128, 2048, 4, order);
	char line[1024];

	given(paths, 3, 131072);
	probe_candidate_finish(&c, members, &no_hints);
	ok(c.metadata == 120, "data after the start proposes metadata 1.2 (got %d)", c.metadata);
	ok(c.spec.size == 129024, "the size is all after the data offset, in whole chunks (got %llu)",
	   (unsigned long long)c.spec.size);
	probe_mdadm_line(&c, members, line, sizeof(line));
	ok(strcmp(line, "mdadm --create /dev/md/restored --run --assume-clean --level 6 --chunk 64K "
			"--layout left-symmetric --metadata 1.2 --data-offset 1M --size 63M --raid-devices 4 "
			"c.img a.img missing b.img") == 0,
	   "the mdadm line names the members in role order with missing in its place: %s", line);
	probe_create_line(&c, members, line, sizeof(line));
	ok(strcmp(line, "stripe-create --assume-clean --force --level 6 --chunk 64K --layout left-symmetric "
			"--metadata 1.2 --data-offset 1M --size 63M --raid-devices 4 c.img a.img missing b.img") == 0,
	   "the stripe-create line says the same: %s", line);
}

static void data_at_zero_is_metadata_1_0(void)
{
	static const char *const paths[] = { "a.img", "b.img", "c.img" };
	static const int order[] = { 0, 1, 2 };
	struct probe_candidate c = candidate(5, 0, 128, 0, 3, order);
	char line[1024];

	given(paths, 3, 131072);
	probe_candidate_finish(&c, members, &no_hints);
	/* 1.0: the superblock 8 KiB from the end on a 4 KiB boundary, the
	 * bad-block log's 4 KiB and the bitmap's 4 KiB before it, then whole chunks */
	ok(c.metadata == 100 && c.spec.size == 130944, "data at 0 proposes 1.0 and %llu sectors (got %d, %llu)",
	   130944ull, c.metadata, (unsigned long long)c.spec.size);
	probe_mdadm_line(&c, members, line, sizeof(line));
	ok(strstr(line, "--layout left-asymmetric --metadata 1.0 --size 65472K --raid-devices 3 a.img b.img c.img") &&
	   !strstr(line, "--data-offset"), "1.0 takes no --data-offset: %s", line);
	c.spec.size = 0;
	probe_candidate_finish(&c, members, &(struct probe_hints){ .level = -1, .layout = -1, .metadata = 90 });
	ok(c.metadata == 90, "-e 0.90 is kept where data starts at 0 (got %d)", c.metadata);
}

static void mirror_and_raid10_words(void)
{
	static const char *const paths[] = { "a.img", "b.img", "c.img", "d.img" };
	static const int order[] = { 1, 0, 3, 2 };
	struct probe_candidate c = candidate(1, 0, 0, 2048, 2, order);
	char line[1024];

	given(paths, 4, 131072);
	probe_candidate_finish(&c, members, &no_hints);
	probe_mdadm_line(&c, members, line, sizeof(line));
	ok(strstr(line, "--level 1 --metadata 1.2") && !strstr(line, "--chunk") && !strstr(line, "--layout"),
	   "a mirror has neither chunk nor layout: %s", line);
	c = candidate(10, 0x102, 1024, 2048, 4, order);
	probe_candidate_finish(&c, members, &no_hints);
	probe_mdadm_line(&c, members, line, sizeof(line));
	ok(strstr(line, "--level 10 --chunk 512K --layout n2 "), "raid10 near copies read n2: %s", line);
	c.spec.layout = 0x201;
	probe_mdadm_line(&c, members, line, sizeof(line));
	ok(strstr(line, "--layout f2 "), "far copies read f2: %s", line);
	c.spec.layout = 0x10201;
	probe_mdadm_line(&c, members, line, sizeof(line));
	ok(strstr(line, "--layout o2 "), "offset copies read o2: %s", line);
}

static void paths_are_quoted(void)
{
	static const char *const paths[] = { "my disk.img", "it's.img", "plain.img" };
	static const int order[] = { 0, 1, 2 };
	struct probe_candidate c = candidate(5, 2, 128, 2048, 3, order);
	char line[1024];

	given(paths, 3, 131072);
	probe_candidate_finish(&c, members, &no_hints);
	probe_mdadm_line(&c, members, line, sizeof(line));
	ok(strstr(line, " 'my disk.img' 'it'\\''s.img' plain.img"), "paths are quoted for the shell: %s", line);
}

static void geometry_renumbered_for_a_subset(void)
{
	static const char *const paths[] = { "x.img", "a.img", "y.img", "b.img", "c.img" };
	static const int order[] = { 4, 1, SPEC_MISSING, 3 };
	struct probe_candidate c = candidate(6, 2, 128, 2048, 4, order);
	char line[1024];

	given(paths, 5, 131072);
	probe_candidate_finish(&c, members, &no_hints);
	probe_geometry_line(&c, members, line, sizeof(line));
	ok(strcmp(line, "--geometry level=6,chunk=64K,layout=left-symmetric,data-offset=2048s,size=63M,"
			"order=2:0:missing:1 a.img b.img c.img") == 0,
	   "the SPEC's order counts in the members it uses, listed beside it: %s", line);
}

static void smallest_member_decides_the_size(void)
{
	static const char *const paths[] = { "a.img", "b.img", "c.img" };
	static const int order[] = { 0, 1, 2 };
	struct probe_candidate c = candidate(5, 2, 128, 2048, 3, order);

	given(paths, 3, 131072);
	members[1].sectors = 65536;
	probe_candidate_finish(&c, members, &no_hints);
	ok(c.spec.size == 63488, "the smallest member's room is the size (got %llu)", (unsigned long long)c.spec.size);
}

static void undecided_fields_read_as_questions(void)
{
	static const int order[] = { 0, PROBE_UNKNOWN, 2 };
	struct probe_candidate c = candidate(5, -1, 0, UINT64_MAX, 3, order);
	char text[PROBE_LINE];

	probe_shape_describe(&c.spec, NULL, text, sizeof(text));
	ok(strcmp(text, "raid5, 3 devices, chunk ?, layout ?, data offset ? sectors, order 0:?:2") == 0,
	   "what is not known reads '?': %s", text);
	ok(!probe_candidate_complete(&c), "such a candidate is not complete");
}

static void superblocks_against_data(void)
{
	static const int said_order[] = { 1, 0, 2 }, data_order[] = { 0, 1, 2 };
	struct probe_candidate said = candidate(5, 2, 1024, 2048, 3, said_order);
	struct probe_candidate data = candidate(5, 2, 128, 2048, 3, data_order);
	char says[PROBE_LINE], supports[PROBE_LINE];

	probe_shape_describe(&said.spec, &data.spec, says, sizeof(says));
	probe_shape_describe(&data.spec, &said.spec, supports, sizeof(supports));
	ok(strcmp(says, "chunk 512K, order 1:0:2") == 0 && strcmp(supports, "chunk 64K, order 0:1:2") == 0,
	   "only the fields that differ are named: '%s' against '%s'", says, supports);
	probe_shape_describe(&data.spec, &data.spec, says, sizeof(says));
	ok(says[0] == 0, "a geometry like the data's names nothing");
}

int main(void)
{
	raid6_with_missing_role();
	data_at_zero_is_metadata_1_0();
	mirror_and_raid10_words();
	paths_are_quoted();
	geometry_renumbered_for_a_subset();
	smallest_member_decides_the_size();
	undecided_fields_read_as_questions();
	superblocks_against_data();
	return tap_done();
}
