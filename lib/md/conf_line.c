/* conf_line: an array's mdadm.conf ARRAY line, byte for byte as mdadm
 * --examine --brief (and --scan --verbose) prints it (super0.c and
 * super1.c's brief_examine_super, Examine.c), so that mdadm assembles
 * from what stripe prints. */
#include <string.h>

#include "md/scan.h"

/* mdadm's names of the levels (maps.c pers[], the first name of each);
 * NULL where mdadm has none. */
static const char *mdadm_level(int level)
{
	static const struct { int level; const char *name; } names[] = {
		{ -1, "linear" }, { 0, "raid0" }, { 1, "raid1" }, { 4, "raid4" }, { 5, "raid5" },
		{ 6, "raid6" }, { 10, "raid10" }, { -4, "multipath" }, { -5, "faulty" },
	};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].level == level)
			return names[i].name;
	return NULL;
}

static bool is_control(unsigned char c)
{
	return (c < 0x20 && c != '\t') || c == 0x7f;
}

static bool has_control(const char *s)
{
	for (; *s; s++)
		if (is_control((unsigned char)*s))
			return true;
	return false;
}

/* The name mdadm makes a device of: after "host:", blanks as '_' and '/'
 * as '-' (mdadm's print_escape); control characters as '_' too. */
static void escape_device(const char *name, char *buf, size_t len)
{
	size_t n = 0;

	for (; *name && n + 1 < len; name++)
		buf[n++] = *name == ' ' || *name == '\t' || is_control((unsigned char)*name) ? '_'
			 : *name == '/' ? '-' : *name;
	buf[n] = 0;
}

void scan_device_name(const struct md_super *s, char *buf, size_t len)
{
	const char *nm = strchr(s->name, ':');
	char esc[sizeof(s->name)];

	if (s->major == 0) {
		snprintf(buf, len, "/dev/md%d", super_preferred_minor(s));
		return;
	}
	nm = nm ? nm + 1 : s->name;
	if (!*nm && !strchr(s->name, ':')) {
		buf[0] = 0;
		return;
	}
	escape_device(nm, esc, sizeof(esc));
	snprintf(buf, len, "/dev/md/%s", esc);
}

/* A name= value as mdadm's print_quoted writes it: bare unless it holds a
 * blank or a quote, else in the quote it does not start with, switching
 * quotes around each quote of that kind inside. */
static void print_quoted(FILE *out, const char *str)
{
	const char *c = str + strcspn(str, " \t'\"");
	char q;

	if (!*c) {
		fputs(str, out);
		return;
	}
	c = str + strcspn(str, "'\"");
	q = *c == '"' ? '\'' : '"';
	fputc(q, out);
	for (c = str; *c; c++) {
		if (*c == q) {
			fputc(q, out);
			q = q == '"' ? '\'' : '"';
			fputc(q, out);
		}
		fputc(*c, out);
	}
	fputc(q, out);
}

static void print_uuid(FILE *out, const struct md_super *s)
{
	char u[36];

	super_uuid_str(s->uuid, u);
	/* 0.90 before minor 90 had one word of UUID */
	if (s->major == 0 && s->minor < 90)
		u[8] = 0;
	fprintf(out, "UUID=%s", u);
}

static void print_line0(FILE *out, const struct md_super *s, bool brief)
{
	const char *level = mdadm_level(s->level);
	char dev[32];

	scan_device_name(s, dev, sizeof(dev));
	if (brief)
		fprintf(out, "ARRAY %s ", dev);
	else
		fprintf(out, "ARRAY %s level=%s num-devices=%d ", dev, level ? level : "-unknown-", s->raid_disks);
	print_uuid(out, s);
	fputc('\n', out);
}

/* mdadm names 1.x's minor by where the superblock sits, not by a field. */
static const char *metadata1(const struct md_super *s)
{
	return s->sb_sector <= 4 ? "1.1" : s->sb_sector <= 8 ? "1.2" : "1.0";
}

static void print_line1(FILE *out, const struct md_super *s, bool brief)
{
	const char *level = mdadm_level(s->level);
	bool named = s->name[0] && !has_control(s->name);
	char dev[64];

	scan_device_name(s, dev, sizeof(dev));
	fprintf(out, "ARRAY %s%s", dev, dev[0] ? " " : "");
	if (!brief && level)
		fprintf(out, " level=%s", level);
	fprintf(out, " metadata=%s ", metadata1(s));
	if (!brief)
		fprintf(out, "num-devices=%d ", s->raid_disks);
	print_uuid(out, s);
	if (named) {
		fputs(" name=", out);
		print_quoted(out, s->name);
	}
	fputc('\n', out);
}

void scan_print_line(FILE *out, const struct md_scan *s, const struct scan_array *a, bool brief)
{
	const struct md_super *sb = scan_array_super(s, a);
	int i;

	if (sb->major == 0)
		print_line0(out, sb, brief);
	else
		print_line1(out, sb, brief);
	if (a->spares)
		fprintf(out, "   spares=%d", a->spares);
	if (!brief) {
		fputs("   devices", out);
		for (i = 0; i < a->nmembers; i++)
			fprintf(out, "%c%s", i ? ',' : '=', s->members[a->members[i]].path);
	}
	if (a->spares || !brief)
		fputc('\n', out);
}
