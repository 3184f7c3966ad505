/* test_geometry_spec: the --geometry SPEC parsed into md's numbers, printed
 * back to a SPEC that parses the same, and hostile strings refused in one
 * line naming the field. */
#include <string.h>

#include "md/geometry_spec.h"
#include "tap.h"

static struct geometry_spec spec;
static struct diag d;

static void reads_the_example_of_the_issue(void)
{
	int rc = geometry_spec_parse("level=6,chunk=64K,layout=left-symmetric,data-offset=2048s,size=7680K,"
				     "order=2:0:1:missing", &spec, &d);

	ok(rc == 0, "the issue's example parses");
	ok(spec.level == 6 && spec.layout == 2, "level 6, left-symmetric is layout 2");
	ok(spec.chunk_sectors == 128, "chunk 64K is 128 sectors");
	ok(spec.data_offset == 2048 && spec.size == 15360, "data-offset 2048s, size 7680K is 15360 sectors");
	ok(spec.raid_disks == 4 && spec.order[0] == 2 && spec.order[1] == 0 && spec.order[2] == 1 &&
	   spec.order[3] == SPEC_MISSING, "order gives each role its member, missing for the absent one");
}

static void round_trips(void)
{
	static const char *const specs[] = {
		"level=6,chunk=64K,layout=left-symmetric,data-offset=2048s,size=7680K,order=2:0:1:missing",
		"level=5,chunk=512K,layout=parity-first,data-offset=0s,size=1M,order=0:1:2",
		"level=10,chunk=64K,layout=258,data-offset=262144s,size=1G,order=3:2:1:0",
		"level=1,data-offset=4096s,size=1025s,order=missing:0",
		"level=0,chunk=4K,data-offset=0s,size=64M,order=1:0",
		"level=0,chunk=64K,raid0-layout=alternate,data-offset=2048s,sizes=7680K:7680K:15M,order=0:1:2",
		"level=0,chunk=64K,raid0-layout=original,data-offset=0s,sizes=4M:8M:12M,order=2:0:1",
		"level=0,chunk=64K,data-offset=0s,sizes=8M:8M:12M,order=0:1:2",
	};
	char out[256];
	struct geometry_spec back;

	for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]); i++) {
		ok(geometry_spec_parse(specs[i], &spec, &d) == 0, "parses: %s", specs[i]);
		geometry_spec_print(&spec, out, sizeof(out));
		ok(!strcmp(out, specs[i]), "prints back as given: %s", out);
		ok(geometry_spec_parse(out, &back, &d) == 0 && !memcmp(&back, &spec, sizeof(spec)),
		   "what it prints parses to the same spec: %s", out);
	}
}

static void gives_each_raid0_role_its_size(void)
{
	int rc = geometry_spec_parse("level=0,chunk=64K,raid0-layout=alternate,sizes=7680K:7680K:15360K,order=2:0:1",
				     &spec, &d);

	ok(rc == 0 && spec.layout == RAID0_ALT_MULTIZONE_LAYOUT, "raid0-layout=alternate is md's layout 2");
	ok(geometry_spec_member_size(&spec, 0) == 15360 && geometry_spec_member_size(&spec, 2) == 30720,
	   "sizes are per role, in role order");
	ok(geometry_spec_parse("level=0,chunk=64K,raid0-layout=original,size=1M,order=0:1", &spec, &d) == 0 &&
	   spec.layout == RAID0_ORIG_LAYOUT && geometry_spec_member_size(&spec, 1) == 2048,
	   "raid0-layout=original is layout 1, and size gives every role the same size");
	ok(geometry_spec_parse("level=0,chunk=64K,sizes=8M:8M:12M,order=0:1:2", &spec, &d) == 0 &&
	   spec.layout == RAID0_LAYOUT_UNSPECIFIED,
	   "a second zone on one member needs no raid0-layout: md places it one way only");
}

static void defaults_the_layout(void)
{
	ok(geometry_spec_parse("level=5,chunk=64K,size=1M,order=0:1:2", &spec, &d) == 0 && spec.layout == 2 &&
	   spec.data_offset == 0, "without layout and data-offset: md's default layout, data from sector 0");
}

/* SPEC, refused with a message containing want. */
static void refused(const char *s, const char *want)
{
	int rc = geometry_spec_parse(s, &spec, &d);

	ok(rc == -1 && strstr(d.msg, want) && !strchr(d.msg, '\n'), "refused naming '%s': %.80s -> %s", want, s,
	   rc ? d.msg : "accepted");
}

static void refuses_hostile_input(void)
{
	char longer[5000];

	refused("", "empty");
	refused("level=6,chunk=64K,size=1M", "order: not given");
	refused("level=6,size=1M,order=0:1:2:3", "chunk: not given");
	refused("level=7,chunk=64K,size=1M,order=0:1", "level");
	refused("level=5,chunk=48K,size=1M,order=0:1:2", "chunk: 96 sectors is not a power of two");
	refused("level=5,chunk=64,size=1M,order=0:1:2", "chunk: '64' is not a size");
	refused("level=5,chunk=2G,size=1M,order=0:1:2", "chunk: 2G is above 1G");
	refused("level=5,chunk=64K,size=99999999999999999999K,order=0:1:2", "size");
	refused("level=5,chunk=64K,size=18014398509481984K,order=0:1:2", "size: 18014398509481984K is too large");
	refused("level=5,chunk=64K,size=1M,data-offset=18014398509481983s,order=0:1:2", "data-offset");
	refused("level=5,chunk=64K,size=0K,order=0:1:2", "size: 0");
	refused("level=5,chunk=64K,size=1M,layout=sideways,order=0:1:2", "layout");
	refused("level=1,chunk=64K,size=1M,order=0:1", "chunk: raid1 has none");
	refused("level=0,chunk=64K,layout=left-symmetric,size=1M,order=0:1", "layout: raid0 has none");
	refused("level=5,chunk=64K,size=1M,order=0:1:1", "order: member 1 holds two roles");
	refused("level=5,chunk=64K,size=1M,order=0:-1:2", "order: role 1: '-1'");
	refused("level=5,chunk=64K,size=1M,order=0::2", "order: role 1");
	refused("level=5,chunk=64K,size=1M,order=0:256", "order: role 1: member index 256 is past 255");
	refused("level=5,chunk=64K,size=1M,order=0:99999999999999999999", "order: role 1");
	refused("level=5,level=6,chunk=64K,size=1M,order=0:1:2", "level: given twice");
	refused("level=5,chunk=64K,size=1M,colour=red,order=0:1:2", "'colour' is not a field");
	refused("level=5,chunk=64K,size=1M,order=0:1:2,", "an empty field");
	refused("level=5,,chunk=64K,size=1M,order=0:1:2", "an empty field");
	refused("level=0,chunk=64K,sizes=4M:8M:12M,order=0:1:2",
		"raid0-layout: not given; these sizes make 3 zones");
	refused("level=0,chunk=64K,raid0-layout=sideways,size=1M,order=0:1", "raid0-layout: 'sideways'");
	refused("level=5,chunk=64K,raid0-layout=original,size=1M,order=0:1:2", "raid0-layout: raid5 is not raid0");
	refused("level=0,chunk=64K,size=1M,sizes=1M:1M,order=0:1", "sizes: not with size");
	refused("level=5,chunk=64K,sizes=1M:1M:1M,order=0:1:2", "sizes: only a raid0's members differ in size");
	refused("level=0,chunk=64K,sizes=1M:1M,order=0:1:2", "sizes: 2 given for the 3 roles of order");
	refused("level=0,chunk=64K,sizes=1M::1M,order=0:1:2", "sizes: an empty size");
	refused("level=0,chunk=64K,sizes=1M:0K,order=0:1", "sizes: role 1: 0");
	refused("level=0,chunk=64K,sizes=1M:1Q,order=0:1", "sizes: '1Q' is not a size");
	refused("level=0,chunk=64K,order=0:1", "size: not given");
	memset(longer, 'a', sizeof(longer) - 1);
	longer[sizeof(longer) - 1] = 0;
	refused(longer, "longer than 4096");
}

int main(void)
{
	reads_the_example_of_the_issue();
	round_trips();
	gives_each_raid0_role_its_size();
	defaults_the_layout();
	refuses_hostile_input();
	return tap_done();
}
