/* geometry_spec: parsing and printing the --geometry SPEC, every field
 * bounded since the string comes from a command line. */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "md/geometry_spec.h"

#define SPEC_MAX_LEN 4096
#define SPEC_MAX_CHUNK_SECTORS (1u << 21)         /* 1 GiB: far above md's own limit */
#define SPEC_MAX_SECTORS (UINT64_MAX / 1024)      /* a byte count that cannot overflow */

enum spec_field {
	F_LEVEL, F_CHUNK, F_LAYOUT, F_RAID0_LAYOUT, F_DATA_OFFSET, F_SIZE, F_SIZES, F_ORDER, F_COUNT
};

static const char *const field_names[F_COUNT] = {
	"level", "chunk", "layout", "raid0-layout", "data-offset", "size", "sizes", "order",
};

/* A size with its unit, so no reader has to guess whether a bare number
 * meant bytes, KiB or sectors: "2048s", "64K", "7M", "1G", "2T".
 * In sectors; byte counts must be whole sectors. */
static int parse_sectors(const char *field, const char *v, uint64_t *out, struct diag *d)
{
	static const char units[] = "KMGT";
	unsigned long long n, per;
	const char *u;
	char *end;

	if (*v < '0' || *v > '9')
		return diag_fail(d, "--geometry: %s: '%.40s' is not a size (a number then s, K, M, G or T)", field, v);
	errno = 0;
	n = strtoull(v, &end, 10);
	if (errno || !*end || end[1])
		return diag_fail(d, "--geometry: %s: '%.40s' is not a size (a number then s, K, M, G or T)", field, v);
	if (*end == 's') {
		if (n > SPEC_MAX_SECTORS)
			return diag_fail(d, "--geometry: %s: %s is too large", field, v);
		*out = n;
		return 0;
	}
	u = strchr(units, *end);
	if (!u)
		return diag_fail(d, "--geometry: %s: '%.40s' is not a size (a number then s, K, M, G or T)", field, v);
	per = 2ULL << (10 * (u - units));     /* sectors in a K, M, G, T */
	if (n > SPEC_MAX_SECTORS / per)
		return diag_fail(d, "--geometry: %s: %s is too large", field, v);
	n *= per;
	*out = n;
	return 0;
}

static int parse_order(const char *v, struct geometry_spec *s, struct diag *d)
{
	bool used[ST_MAX_DISKS] = { false };
	const char *p = v;

	s->raid_disks = 0;
	for (;;) {
		const char *end = strchr(p, ':');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		int idx;

		if (s->raid_disks == ST_MAX_DISKS)
			return diag_fail(d, "--geometry: order: more than %d roles", ST_MAX_DISKS);
		if (len == 7 && !strncmp(p, "missing", 7)) {
			idx = SPEC_MISSING;
		} else {
			char *e;
			long n;

			errno = 0;
			n = (len && *p >= '0' && *p <= '9') ? strtol(p, &e, 10) : -1;
			if (n < 0 || errno || e != p + len)
				return diag_fail(d, "--geometry: order: role %d: '%.*s' is neither a member index nor missing",
						 s->raid_disks, (int)(len > 32 ? 32 : len), p);
			if (n >= ST_MAX_DISKS)
				return diag_fail(d, "--geometry: order: role %d: member index %ld is past %d",
						 s->raid_disks, n, ST_MAX_DISKS - 1);
			idx = (int)n;
			if (used[idx])
				return diag_fail(d, "--geometry: order: member %d holds two roles", idx);
			used[idx] = true;
		}
		s->order[s->raid_disks++] = idx;
		if (!end)
			return 0;
		p = end + 1;
	}
}

/* sizes=A:B:C, one size per role in role order. */
static int parse_sizes(const char *v, struct geometry_spec *s, struct diag *d)
{
	char copy[SPEC_MAX_LEN + 1], *save = NULL, *item;
	int r = 0;

	if (*v == ':' || v[strlen(v) - 1] == ':' || strstr(v, "::"))
		return diag_fail(d, "--geometry: sizes: an empty size (two colons, or one at an end)");
	strcpy(copy, v);
	for (item = strtok_r(copy, ":", &save); item; item = strtok_r(NULL, ":", &save), r++) {
		if (r == ST_MAX_DISKS)
			return diag_fail(d, "--geometry: sizes: more than %d roles", ST_MAX_DISKS);
		if (parse_sectors("sizes", item, &s->sizes[r], d) < 0)
			return -1;
		if (s->sizes[r] == 0)
			return diag_fail(d, "--geometry: sizes: role %d: 0", r);
	}
	return 0;
}

static int parse_raid0_layout(const char *v, int *layout, struct diag *d)
{
	if (!strcmp(v, "original"))
		*layout = RAID0_ORIG_LAYOUT;
	else if (!strcmp(v, "alternate"))
		*layout = RAID0_ALT_MULTIZONE_LAYOUT;
	else
		return diag_fail(d, "--geometry: raid0-layout: '%.40s' is neither original nor alternate", v);
	return 0;
}

static int parse_field(enum spec_field f, const char *v, struct geometry_spec *s, struct diag *d)
{
	uint64_t n;

	switch (f) {
	case F_LEVEL:
		s->level = level_parse(v, d);
		return s->level == -100 ? diag_prefix(d, "--geometry: level: ") : 0;
	case F_CHUNK:
		if (parse_sectors("chunk", v, &n, d) < 0)
			return -1;
		if (n > SPEC_MAX_CHUNK_SECTORS)
			return diag_fail(d, "--geometry: chunk: %s is above 1G", v);
		s->chunk_sectors = (uint32_t)n;
		return 0;
	case F_LAYOUT:
		return 0;   /* needs the level: parsed once every field is in */
	case F_RAID0_LAYOUT:
		return parse_raid0_layout(v, &s->layout, d);
	case F_DATA_OFFSET:
		return parse_sectors("data-offset", v, &s->data_offset, d);
	case F_SIZE:
		return parse_sectors("size", v, &s->size, d);
	case F_SIZES:
		return parse_sizes(v, s, d);
	case F_ORDER:
		return parse_order(v, s, d);
	default:
		return -1;
	}
}

static int find_field(const char *name, size_t len)
{
	for (int f = 0; f < F_COUNT; f++)
		if (strlen(field_names[f]) == len && !strncmp(field_names[f], name, len))
			return f;
	return -1;
}

uint64_t geometry_spec_member_size(const struct geometry_spec *s, int role)
{
	return s->sizes[0] ? s->sizes[role] : s->size;
}

/* size gives every member one size, sizes one per role: a raid0's only. */
static int check_sizes(const struct geometry_spec *s, const bool *seen, struct diag *d)
{
	int n = 0;

	if (!seen[F_SIZE] && !seen[F_SIZES])
		return diag_fail(d, "--geometry: size: not given");
	if (seen[F_SIZE] && seen[F_SIZES])
		return diag_fail(d, "--geometry: sizes: not with size; give one or the other");
	if (seen[F_SIZE])
		return s->size == 0 ? diag_fail(d, "--geometry: size: 0") : 0;
	if (s->level != MD_LEVEL_RAID0)
		return diag_fail(d, "--geometry: sizes: only a raid0's members differ in size; give size");
	while (n < ST_MAX_DISKS && s->sizes[n])
		n++;
	if (n != s->raid_disks)
		return diag_fail(d, "--geometry: sizes: %d given for the %d roles of order", n, s->raid_disks);
	for (int r = 0; r < n; r++)
		if (s->data_offset > SPEC_MAX_SECTORS - s->sizes[r])
			return diag_fail(d, "--geometry: data-offset: with role %d's size it runs past any device", r);
	return 0;
}

static int check_whole(const struct geometry_spec *s, const bool *seen, struct diag *d)
{
	static const enum spec_field needed[] = { F_LEVEL, F_ORDER };

	for (size_t i = 0; i < sizeof(needed) / sizeof(needed[0]); i++)
		if (!seen[needed[i]])
			return diag_fail(d, "--geometry: %s: not given", field_names[needed[i]]);
	if (check_sizes(s, seen, d) < 0)
		return -1;
	if (s->level != MD_LEVEL_RAID1 && !seen[F_CHUNK])
		return diag_fail(d, "--geometry: chunk: not given (needed for %s)", level_name(s->level));
	if (s->level == MD_LEVEL_RAID1 && seen[F_CHUNK])
		return diag_fail(d, "--geometry: chunk: raid1 has none");
	if (s->chunk_sectors && (s->chunk_sectors & (s->chunk_sectors - 1)))
		return diag_fail(d, "--geometry: chunk: %u sectors is not a power of two", s->chunk_sectors);
	if (s->data_offset > SPEC_MAX_SECTORS - s->size)
		return diag_fail(d, "--geometry: data-offset: with size it runs past any device");
	return 0;
}

/* md refuses to run a raid0 whose zones past the first it could place two
 * ways without knowing which: so does the SPEC, naming the field to add. */
static int check_zones(const struct geometry_spec *s, struct diag *d)
{
	struct geometry g;
	struct diag ignored;
	uint64_t sizes[ST_MAX_DISKS];

	if (s->layout != RAID0_LAYOUT_UNSPECIFIED)
		return 0;
	for (int r = 0; r < s->raid_disks; r++)
		sizes[r] = geometry_spec_member_size(s, r);
	if (geometry_init(&g, s->level, RAID0_LAYOUT_UNSPECIFIED, s->raid_disks, s->chunk_sectors, 0, sizes,
			  &ignored) == 0 ||
	    geometry_init(&g, s->level, RAID0_ORIG_LAYOUT, s->raid_disks, s->chunk_sectors, 0, sizes,
			  &ignored) < 0)
		return 0;   /* one zone, or refused for other reasons where the array is opened */
	return diag_fail(d, "--geometry: raid0-layout: not given; these sizes make %d zones, which md places as original or alternate",
			 g.nzones);
}

int geometry_spec_parse(const char *spec, struct geometry_spec *s, struct diag *d)
{
	bool seen[F_COUNT] = { false };
	char copy[SPEC_MAX_LEN + 1], *layout = NULL, *save = NULL, *item;

	memset(s, 0, sizeof(*s));
	if (!spec || !*spec)
		return diag_fail(d, "--geometry: empty");
	if (strlen(spec) > SPEC_MAX_LEN)
		return diag_fail(d, "--geometry: longer than %d characters", SPEC_MAX_LEN);
	if (*spec == ',' || spec[strlen(spec) - 1] == ',' || strstr(spec, ",,"))
		return diag_fail(d, "--geometry: an empty field (two commas, or one at an end)");
	strcpy(copy, spec);
	for (item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(item, '=');
		size_t name_len = eq ? (size_t)(eq - item) : strlen(item);
		int f = eq ? find_field(item, name_len) : -1;

		if (f < 0)
			return diag_fail(d, "--geometry: '%.*s' is not a field (level, chunk, layout, raid0-layout, data-offset, size, sizes, order)",
					 (int)(name_len > 32 ? 32 : name_len), item);
		if (seen[f])
			return diag_fail(d, "--geometry: %s: given twice", field_names[f]);
		seen[f] = true;
		if (f == F_LAYOUT)
			layout = eq + 1;
		if (parse_field((enum spec_field)f, eq + 1, s, d) < 0)
			return -1;
	}
	if (check_whole(s, seen, d) < 0)
		return -1;
	if (seen[F_RAID0_LAYOUT] && s->level != MD_LEVEL_RAID0)
		return diag_fail(d, "--geometry: raid0-layout: %s is not raid0", level_name(s->level));
	if (s->level == MD_LEVEL_RAID0 || s->level == MD_LEVEL_RAID1) {
		if (layout)
			return diag_fail(d, "--geometry: layout: %s has none here%s", level_name(s->level),
					 s->level == MD_LEVEL_RAID0 ? " (raid0-layout places a multi-zone one)" : "");
		if (s->level == MD_LEVEL_RAID1)
			s->layout = 0;
		else if (!seen[F_RAID0_LAYOUT])
			s->layout = RAID0_LAYOUT_UNSPECIFIED;
		return s->level == MD_LEVEL_RAID0 ? check_zones(s, d) : 0;
	}
	s->layout = layout_parse(s->level, layout ? layout : "default", d);
	return s->layout < 0 ? diag_prefix(d, "--geometry: layout: ") : 0;
}

/* The largest unit that divides the count exactly. */
static int print_size(char *buf, size_t len, uint64_t sectors)
{
	static const char units[] = "KMGT";
	int u = -1;

	if (sectors % 2)
		return snprintf(buf, len, "%llus", (unsigned long long)sectors);
	sectors /= 2;
	for (u = 0; u < 3 && sectors && sectors % 1024 == 0; u++)
		sectors /= 1024;
	return snprintf(buf, len, "%llu%c", (unsigned long long)sectors, units[u]);
}

/* Appends to a buffer as snprintf would write it, counting what did not fit. */
struct out {
	char *buf;
	size_t len, at;
};

__attribute__((format(printf, 2, 3)))
static void put(struct out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(o->buf + (o->at < o->len ? o->at : o->len), o->at < o->len ? o->len - o->at : 0, fmt, ap);
	va_end(ap);
	o->at += n > 0 ? (size_t)n : 0;
}

int geometry_spec_print(const struct geometry_spec *s, char *buf, size_t len)
{
	struct out o = { buf, len, 0 };
	char size[32], name[64];

	if (len)
		buf[0] = 0;
	put(&o, "level=%d", s->level);
	if (s->chunk_sectors) {
		print_size(size, sizeof(size), s->chunk_sectors);
		put(&o, ",chunk=%s", size);
	}
	if (s->level == MD_LEVEL_RAID0 && s->layout != RAID0_LAYOUT_UNSPECIFIED)
		put(&o, ",raid0-layout=%s", s->layout == RAID0_ALT_MULTIZONE_LAYOUT ? "alternate" : "original");
	if (s->level != MD_LEVEL_RAID0 && s->level != MD_LEVEL_RAID1) {
		const char *l = layout_name(s->level, s->layout, name, sizeof(name));

		/* raid10's "near=2, far=2" would read as two fields: its number does not */
		if (l && !strpbrk(l, " ,="))
			put(&o, ",layout=%s", l);
		else
			put(&o, ",layout=%d", s->layout);
	}
	put(&o, ",data-offset=%llus", (unsigned long long)s->data_offset);
	if (s->sizes[0]) {
		for (int r = 0; r < s->raid_disks; r++) {
			print_size(size, sizeof(size), s->sizes[r]);
			put(&o, "%s%s", r ? ":" : ",sizes=", size);
		}
	} else {
		print_size(size, sizeof(size), s->size);
		put(&o, ",size=%s", size);
	}
	put(&o, ",order=");
	for (int r = 0; r < s->raid_disks; r++) {
		if (s->order[r] == SPEC_MISSING)
			put(&o, "%smissing", r ? ":" : "");
		else
			put(&o, "%s%d", r ? ":" : "", s->order[r]);
	}
	return (int)o.at;
}
