/* test_scan: members grouped into arrays as mdadm --examine --scan groups
 * them, and their ARRAY lines byte for byte, on superblocks made in memory:
 * the names mdadm quotes or escapes, and those stripe keeps off the line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "md/scan.h"
#include "tap.h"

#define DEV_SECTORS 40960            /* a 20 MiB member */

static const uint8_t uuid[16] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };

struct shape {
	int major, minor, chunk;
	const char *name, *homehost;
	int role;                    /* of member 0; ROLE_SPARE for a spare */
};

/* Member 0 of a raid5 of three (and a spare slot) of the given shape. */
static void member(struct md_super *sb, const struct shape *s)
{
	const struct super_ops *o = super_ops_of(s->major);
	struct super_slot slot[4] = {
		{ .present = true, .role = s->role }, { .present = true, .role = 1 },
		{ .present = true, .role = 2 }, { .present = true, .role = ROLE_SPARE },
	};
	struct super_array a = {
		.uuid = uuid, .name = s->name, .homehost = s->homehost, .now = 1700000000, .level = 5,
		.layout = 2, .raid_disks = 3, .spares = 1, .chunk_sectors = (uint32_t)s->chunk,
		.minor = s->minor, .n = 4, .slot = slot,
	};

	if (s->role == ROLE_SPARE)
		slot[3].role = 0;
	a.data_offset = o->default_data_offset(s->minor, DEV_SECTORS, a.chunk_sectors);
	a.size = o->data_room(s->minor, DEV_SECTORS, a.data_offset) / 128 * 128;
	memset(sb, 0, sizeof(*sb));
	o->new_member(sb, &a, 0, DEV_SECTORS);
	super_seal(sb);
}

/* The lines of the scan's arrays, last found first, as stripe prints them. */
static char *lines(const struct md_scan *s, bool brief)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	int i;

	for (i = s->narrays - 1; i >= 0; i--)
		scan_print_line(f, s, &s->arrays[i], brief);
	fclose(f);
	return text;
}

/* The brief line of one member of the given shape. */
static char *line_of(const struct shape *sh, bool brief)
{
	struct md_scan s = { 0 };
	struct md_super sb;
	struct diag d;
	char *text;

	member(&sb, sh);
	scan_add(&s, "m0.img", &sb, &d);
	text = lines(&s, brief);
	scan_free(&s);
	return text;
}

static void test_named(void)
{
	struct shape sh = { 1, 2, 128, "data", "srv", 0 };
	char *t = line_of(&sh, true);

	ok(strcmp(t, "ARRAY /dev/md/data  metadata=1.2 UUID=01020304:05060708:090a0b0c:0d0e0f10 name=srv:data\n") == 0,
	   "a 1.2 array named host:name: /dev/md/name, metadata, UUID and name=");
	free(t);
	t = line_of(&sh, false);
	ok(strcmp(t, "ARRAY /dev/md/data  level=raid5 metadata=1.2 num-devices=3 UUID=01020304:05060708:090a0b0c:0d0e0f10 name=srv:data\n   devices=m0.img\n") == 0,
	   "verbose: level=, num-devices= and devices= on the next line");
	free(t);
}

static void test_quoted(void)
{
	struct shape sh = { 1, 0, 128, "a'b\"c d/e", NULL, 0 };
	char *t = line_of(&sh, true);

	/* mdadm's print_quoted: in the quote the name does not start with,
	 * switching at each of that quote inside */
	ok(strstr(t, "ARRAY /dev/md/a'b\"c_d-e  metadata=1.0 ") == t && strstr(t, " name=\"a'b\"'\"c d/e'\n"),
	   "quotes and blanks in a name are quoted as mdadm quotes them, the device name escaped");
	free(t);
}

static void test_control_characters(void)
{
	struct shape sh = { 1, 2, 128, "x\ny", NULL, 0 };
	char *t = line_of(&sh, true);

	ok(strcmp(t, "ARRAY /dev/md/x_y  metadata=1.2 UUID=01020304:05060708:090a0b0c:0d0e0f10\n") == 0,
	   "a name with a newline stays off the line: no name=, '_' in the device name");
	free(t);
}

static void test_v090(void)
{
	struct shape sh = { 0, 90, 128, NULL, NULL, 0 };
	char *t = line_of(&sh, true);

	ok(strncmp(t, "ARRAY /dev/md0 UUID=", 20) == 0 && !strchr(t + 20, ' '),
	   "0.90: /dev/mdN from its preferred minor, the UUID and nothing else");
	free(t);
	t = line_of(&sh, false);
	ok(strncmp(t, "ARRAY /dev/md0 level=raid5 num-devices=3 UUID=", 46) == 0, "0.90 verbose: level= and num-devices=");
	free(t);
}

static void test_grouping(void)
{
	struct shape a = { 1, 2, 128, "g", NULL, 0 }, spare = a, other = a, old = a;
	struct md_scan s = { 0 };
	struct md_super sb;
	struct diag d;

	spare.role = ROLE_SPARE;
	other.chunk = 256;
	old.major = 0;
	old.minor = 90;
	member(&sb, &a);
	scan_add(&s, "a", &sb, &d);
	member(&sb, &other);
	scan_add(&s, "other", &sb, &d);
	member(&sb, &spare);
	scan_add(&s, "spare", &sb, &d);
	member(&sb, &old);
	scan_add(&s, "old", &sb, &d);
	ok(s.narrays == 3, "one UUID in three arrays: another chunk and another version are other arrays (%d)", s.narrays);
	ok(s.arrays[0].nmembers == 2 && s.members[s.arrays[0].members[1]].sb.role == ROLE_SPARE,
	   "the spare joins the array of its shape");
	ok(s.arrays[0].spares == 1 && s.arrays[1].spares == 0, "and is counted as its spare");
	scan_free(&s);
}

int main(void)
{
	test_named();
	test_quoted();
	test_control_characters();
	test_v090();
	test_grouping();
	return tap_done();
}
