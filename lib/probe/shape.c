/* shape: a candidate geometry in words, field by field, with "?" for what
 * the probe left undecided. */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "md/layout.h"
#include "probe/probe.h"
#include "probe/shape.h"

void probe_shape_size(char *buf, size_t len, uint64_t sectors)
{
	static const char units[] = "KMGT";
	int u;

	if (sectors % 2) {
		snprintf(buf, len, "%llus", (unsigned long long)sectors);
		return;
	}
	sectors /= 2;
	for (u = 0; u < 3 && sectors && sectors % 1024 == 0; u++)
		sectors /= 1024;
	snprintf(buf, len, "%llu%c", (unsigned long long)sectors, units[u]);
}

/* Appends to buf as far as it holds, never past len. */
__attribute__((format(printf, 3, 4)))
static void append(char *buf, size_t len, const char *fmt, ...)
{
	size_t at = strnlen(buf, len);
	va_list ap;

	if (at + 1 >= len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + at, len - at, fmt, ap);
	va_end(ap);
}

void probe_shape_order(const struct geometry_spec *s, char *buf, size_t len)
{
	if (len)
		buf[0] = 0;
	for (int r = 0; r < s->raid_disks; r++) {
		const char *sep = r ? ":" : "";
		if (s->order[r] == SPEC_MISSING)
			append(buf, len, "%smissing", sep);
		else if (s->order[r] == PROBE_UNKNOWN)
			append(buf, len, "%s?", sep);
		else
			append(buf, len, "%s%d", sep, s->order[r]);
	}
}

static bool same_order(const struct geometry_spec *a, const struct geometry_spec *b)
{
	return a->raid_disks == b->raid_disks &&
	       memcmp(a->order, b->order, sizeof(a->order[0]) * (size_t)a->raid_disks) == 0;
}

static void field(char *buf, size_t len, const char *fmt, const char *value)
{
	append(buf, len, buf[0] ? ", " : "");
	append(buf, len, fmt, value);
}

void probe_shape_describe(const struct geometry_spec *s, const struct geometry_spec *than, char *buf,
			  size_t len)
{
	char v[PROBE_LINE];

	if (len)
		buf[0] = 0;
	if (!than || than->level != s->level)
		field(buf, len, "%s", level_name(s->level));
	if (!than || than->raid_disks != s->raid_disks) {
		snprintf(v, sizeof(v), "%d", s->raid_disks);
		field(buf, len, "%s devices", v);
	}
	if (s->level != MD_LEVEL_RAID1 && (!than || than->chunk_sectors != s->chunk_sectors)) {
		if (s->chunk_sectors)
			probe_shape_size(v, sizeof(v), s->chunk_sectors);
		field(buf, len, "chunk %s", s->chunk_sectors ? v : "?");
	}
	if (s->level != MD_LEVEL_RAID0 && s->level != MD_LEVEL_RAID1 && (!than || than->layout != s->layout)) {
		const char *name = s->layout >= 0 ? layout_name(s->level, s->layout, v, sizeof(v)) : "?";
		if (!name) {
			snprintf(v, sizeof(v), "%d", s->layout);
			name = v;
		}
		field(buf, len, "layout %s", name);
	}
	if (!than || than->data_offset != s->data_offset) {
		if (s->data_offset != UINT64_MAX)
			snprintf(v, sizeof(v), "%llu", (unsigned long long)s->data_offset);
		field(buf, len, "data offset %s sectors", s->data_offset != UINT64_MAX ? v : "?");
	}
	if (!than || !same_order(s, than)) {
		probe_shape_order(s, v, sizeof(v));
		field(buf, len, "order %s", v);
	}
}
