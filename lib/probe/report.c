/* report: the probe's findings for people (ranked candidates, doubts, the
 * lines that restore each array found) and for scripts (--json). */
#include <stdarg.h>
#include <string.h>

#include "md/layout.h"
#include "probe/report.h"
#include "probe/shape.h"

/* How many candidates the text shows without -v. */
#define SHOWN 5

/* md's raid10 layout word as mdadm's --layout spells it: n2, f2, o2. */
#define R10_OFFSET 0x10000

const char *probe_verdict_name(enum probe_verdict v)
{
	return v == PROBE_FOUND ? "found" : v == PROBE_AMBIGUOUS ? "ambiguous" : "none";
}

/* A line built as snprintf would, counting what did not fit. */
struct line {
	char *buf;
	size_t len, at;
};

__attribute__((format(printf, 2, 3)))
static void put(struct line *l, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(l->at < l->len ? l->buf + l->at : NULL, l->at < l->len ? l->len - l->at : 0, fmt, ap);
	va_end(ap);
	if (n > 0)
		l->at += (size_t)n;
}

/* A word for the shell: as it is when it holds nothing the shell reads,
 * else in single quotes. */
static void put_word(struct line *l, const char *w)
{
	if (w[0] && strspn(w, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_/.,:+=@%-") == strlen(w)) {
		put(l, " %s", w);
		return;
	}
	put(l, " '");
	for (const char *c = w; *c; c++)
		if (*c == '\'')
			put(l, "'\\''");
		else
			put(l, "%c", *c);
	put(l, "'");
}

static void put_size(struct line *l, const char *opt, uint64_t sectors)
{
	char v[32];

	probe_shape_size(v, sizeof(v), sectors);
	put(l, " %s %s", opt, v);
}

static const char *metadata_name(int metadata)
{
	return metadata == 90 ? "0.90" : metadata == 100 ? "1.0" : metadata == 110 ? "1.1" : "1.2";
}

/* The layout as mdadm --layout and stripe-create -p take it; NULL where
 * the level has none to give (raid0, raid1, raid4's only one). */
static const char *layout_word(const struct geometry_spec *s, char *buf, int len)
{
	if (s->level == MD_LEVEL_RAID0 || s->level == MD_LEVEL_RAID1 ||
	    (s->level == MD_LEVEL_RAID4 && s->layout == 5))
		return NULL;
	if (s->level == MD_LEVEL_RAID10) {
		int near = s->layout & 0xff, far = (s->layout >> 8) & 0xff;
		if (near > 1 && far == 1)
			snprintf(buf, (size_t)len, "n%d", near);
		else if (near == 1 && far > 1)
			snprintf(buf, (size_t)len, "%c%d", s->layout & R10_OFFSET ? 'o' : 'f', far);
		else
			snprintf(buf, (size_t)len, "%d", s->layout);
		return buf;
	}
	const char *name = layout_name(s->level, s->layout, buf, len);
	if (name)
		return name;
	snprintf(buf, (size_t)len, "%d", s->layout);
	return buf;
}

/* The options both create lines share, then the members in role order. */
static void put_shape(struct line *l, const struct probe_candidate *c, const struct probe_member *m)
{
	const struct geometry_spec *s = &c->spec;
	char buf[64];
	const char *lay = layout_word(s, buf, sizeof(buf));

	put(l, " --level %d", s->level);
	if (s->level != MD_LEVEL_RAID1)
		put_size(l, "--chunk", s->chunk_sectors);
	if (lay)
		put(l, " --layout %s", lay);
	put(l, " --metadata %s", metadata_name(c->metadata));
	if (c->metadata >= 110)
		put_size(l, "--data-offset", s->data_offset);
	/* a raid0 takes all its members give, as mdadm sizes it */
	if (s->level != MD_LEVEL_RAID0)
		put_size(l, "--size", s->size);
	put(l, " --raid-devices %d", s->raid_disks);
	for (int r = 0; r < s->raid_disks; r++) {
		int i = s->order[r];
		put_word(l, i >= 0 ? m[i].path : i == SPEC_MISSING ? "missing" : "?");
	}
}

int probe_mdadm_line(const struct probe_candidate *c, const struct probe_member *m, char *buf, size_t len)
{
	struct line l = { buf, len, 0 };

	if (len)
		buf[0] = 0;
	/* --run: mdadm asks before writing over old signatures, and without a
	 * terminal it gives up */
	put(&l, "mdadm --create %s --run --assume-clean", PROBE_MD_DEVICE);
	put_shape(&l, c, m);
	return (int)l.at;
}

int probe_create_line(const struct probe_candidate *c, const struct probe_member *m, char *buf, size_t len)
{
	struct line l = { buf, len, 0 };

	if (len)
		buf[0] = 0;
	/* --force: the members hold the data's signatures by design */
	put(&l, "stripe-create --assume-clean --force");
	put_shape(&l, c, m);
	return (int)l.at;
}

int probe_geometry_line(const struct probe_candidate *c, const struct probe_member *m, char *buf, size_t len)
{
	struct line l = { buf, len, 0 };
	struct geometry_spec s = c->spec;
	int renumbered[ST_MAX_DISKS], used = 0, highest = -1;
	char spec[512];

	if (len)
		buf[0] = 0;
	for (int r = 0; r < s.raid_disks; r++)
		if (s.order[r] > highest)
			highest = s.order[r];
	for (int i = 0; i <= highest; i++) {
		renumbered[i] = -1;
		for (int r = 0; r < s.raid_disks && renumbered[i] < 0; r++)
			if (s.order[r] == i)
				renumbered[i] = used++;
	}
	for (int r = 0; r < s.raid_disks; r++)
		if (s.order[r] >= 0)
			s.order[r] = renumbered[s.order[r]];
	geometry_spec_print(&s, spec, sizeof(spec));
	put(&l, "--geometry %s", spec);
	for (int i = 0; i <= highest; i++)
		if (renumbered[i] >= 0)
			put_word(&l, m[i].path);
	return (int)l.at;
}

static int percent(double x)
{
	return (int)(x * 100 + 0.5);
}

static const struct probe_group *group_of(const struct probe_outcome *o, int cand)
{
	for (int g = 0; g < o->ngroups; g++)
		if (o->group[g].cand == cand)
			return &o->group[g];
	return NULL;
}

static void text_candidate(FILE *f, const struct probe_outcome *o, int i)
{
	const struct probe_candidate *c = &o->result.cand[i];
	const struct probe_group *g = group_of(o, i);
	char shape[PROBE_LINE * 2], size[32];

	probe_shape_describe(&c->spec, NULL, shape, sizeof(shape));
	fprintf(f, "candidate %d: %s\n", i + 1, shape);
	fprintf(f, "  confidence %d%%", percent(c->score));
	if (g)
		fprintf(f, ", %d%% ahead of the next", percent(g->lead));
	if (g && g->alike)
		fprintf(f, " (%d more lay every block on the same members: the same array, named otherwise)",
			g->alike);
	if (c->spec.size) {
		probe_shape_size(size, sizeof(size), c->spec.size);
		fprintf(f, "; metadata %s proposed, size %s per member", metadata_name(c->metadata), size);
	}
	fprintf(f, "\n");
	for (int e = 0; e < c->nevidence; e++)
		fprintf(f, "  - %s\n", c->evidence[e]);
}

static void text_lines(FILE *f, const char *title, const char (*lines)[PROBE_LINE], int n)
{
	if (!n)
		return;
	fprintf(f, "\n%s:\n", title);
	for (int i = 0; i < n; i++)
		fprintf(f, "  - %s\n", lines[i]);
}

static void text_restore(FILE *f, const struct probe_outcome *o, const struct probe_group *g)
{
	const struct probe_candidate *c = &o->result.cand[g->cand];
	char line[4096];

	if (!probe_candidate_complete(c))
		return;
	fprintf(f, "\n%s candidate %d:\n", g->confident ? "To restore" : "Not confident; check before writing anything, "
		"with stripe-read --geometry, then restore", g->cand + 1);
	probe_mdadm_line(c, o->members, line, sizeof(line));
	fprintf(f, "  %s\n", line);
	probe_create_line(c, o->members, line, sizeof(line));
	fprintf(f, "  %s\n", line);
	probe_geometry_line(c, o->members, line, sizeof(line));
	fprintf(f, "  stripe-read %s\n", line);
}

static void text_verdict(FILE *f, const struct probe_outcome *o)
{
	fprintf(f, "\n");
	if (o->verdict == PROBE_FOUND)
		fprintf(f, "found: candidate %d, confidence %d%%, %d%% ahead of the next\n", o->group[0].cand + 1,
			percent(o->result.cand[o->group[0].cand].score), percent(o->group[0].lead));
	else if (o->verdict == PROBE_NONE)
		fprintf(f, "cannot decide: no geometry fits the data sampled; more members, hints "
			"(-l -n -c) or --deep may decide it\n");
	else if (o->ngroups > 1)
		fprintf(f, "cannot decide one array: the members form %d arrays\n", o->ngroups);
	else if (o->uneven)
		fprintf(f, "cannot decide: the members differ in size by more than 1 %%; give the ones of this array\n");
	else if (o->nunused)
		fprintf(f, "cannot decide: %d member%s fit no candidate\n", o->nunused, o->nunused == 1 ? "" : "s");
	else
		fprintf(f, "cannot decide: no candidate is confident; hints (-l -n -c -p) or --deep may decide it\n");
}

static void text_findings(FILE *f, const struct probe_outcome *o, bool every)
{
	int present = 0;

	for (int i = 0; i < o->nmembers; i++)
		present += o->members[i].path != NULL;
	fprintf(f, "%d member%s given (%d present), %llu bytes read from each\n", o->nmembers,
		o->nmembers == 1 ? "" : "s", present, (unsigned long long)o->sample.bytes_read);
	for (int i = 0; i < o->result.ncand && (every || i < SHOWN || group_of(o, i)); i++) {
		fprintf(f, "\n");
		text_candidate(f, o, i);
	}
	text_lines(f, "Could not decide", o->result.undecided, o->result.nundecided);
	text_lines(f, "Notes", o->notes, o->nnotes);
	if (o->nunused && o->ngroups) {
		fprintf(f, "\nIn no array found:");
		for (int u = 0; u < o->nunused; u++)
			fprintf(f, " %s", o->members[o->unused[u]].path);
		fprintf(f, "\n");
	}
}

void probe_report_text(FILE *f, const struct probe_outcome *o, enum probe_detail detail)
{
	if (detail != PROBE_BRIEF)
		text_findings(f, o, detail == PROBE_ALL);
	for (int g = 0; g < o->ngroups; g++)
		text_restore(f, o, &o->group[g]);
	text_verdict(f, o);
}

static void json_lines(struct json *j, const char *key, const char (*lines)[PROBE_LINE], int n)
{
	json_array(j, key);
	for (int i = 0; i < n; i++)
		json_str(j, NULL, lines[i]);
	json_close(j);
}

static void json_candidate(struct json *j, const struct probe_outcome *o, int i)
{
	const struct probe_candidate *c = &o->result.cand[i];
	const struct geometry_spec *s = &c->spec;
	char buf[4096];

	json_object(j, NULL);
	json_int(j, "rank", i + 1);
	json_int(j, "level", s->level);
	json_int(j, "raid_devices", s->raid_disks);
	if (s->level == MD_LEVEL_RAID1 || s->chunk_sectors)
		json_uint(j, "chunk_bytes", (unsigned long long)s->chunk_sectors * 512);
	else
		json_null(j, "chunk_bytes");
	if (s->level == MD_LEVEL_RAID0 || s->level == MD_LEVEL_RAID1 || s->layout < 0)
		json_null(j, "layout");
	else
		json_str(j, "layout",
			 layout_word(s, buf, sizeof(buf)) ?: layout_name(s->level, s->layout, buf, sizeof(buf)));
	if (s->data_offset == UINT64_MAX) {
		json_null(j, "data_offset_sectors");
		json_null(j, "metadata");
	} else {
		json_uint(j, "data_offset_sectors", (unsigned long long)s->data_offset);
		json_str(j, "metadata", metadata_name(c->metadata));
	}
	json_uint(j, "size_sectors", (unsigned long long)s->size);
	json_array(j, "roles");
	for (int r = 0; r < s->raid_disks; r++)
		json_str(j, NULL, s->order[r] >= 0 ? o->members[s->order[r]].path
				  : s->order[r] == SPEC_MISSING ? "missing" : "?");
	json_close(j);
	json_int(j, "confidence_percent", percent(c->score));
	json_lines(j, "evidence", c->evidence, c->nevidence);
	json_bool(j, "complete", probe_candidate_complete(c));
	if (probe_candidate_complete(c)) {
		probe_mdadm_line(c, o->members, buf, sizeof(buf));
		json_str(j, "mdadm", buf);
		probe_create_line(c, o->members, buf, sizeof(buf));
		json_str(j, "stripe_create", buf);
		probe_geometry_line(c, o->members, buf, sizeof(buf));
		json_str(j, "geometry", buf);
	}
	json_close(j);
}

void probe_report_json(struct json *j, const struct probe_outcome *o)
{
	json_array(j, "members");
	for (int i = 0; i < o->nmembers; i++) {
		const struct probe_member *m = &o->members[i];
		json_object(j, NULL);
		json_str(j, "path", m->path ? m->path : "missing");
		json_uint(j, "size_bytes", m->path ? (unsigned long long)m->dev.size : 0);
		json_bool(j, "superblock", m->has_super);
		json_close(j);
	}
	json_close(j);
	json_uint(j, "sampled_bytes_per_member", (unsigned long long)o->sample.bytes_read);
	json_array(j, "candidates");
	for (int i = 0; i < o->result.ncand; i++)
		json_candidate(j, o, i);
	json_close(j);
	json_array(j, "arrays");
	for (int g = 0; g < o->ngroups; g++) {
		json_object(j, NULL);
		json_int(j, "candidate", o->group[g].cand + 1);
		json_int(j, "lead_percent", percent(o->group[g].lead));
		json_bool(j, "confident", o->group[g].confident);
		json_int(j, "alike", o->group[g].alike);
		json_close(j);
	}
	json_close(j);
	json_array(j, "unused");
	for (int u = 0; u < o->nunused; u++)
		json_str(j, NULL, o->members[o->unused[u]].path);
	json_close(j);
	json_lines(j, "undecided", o->result.undecided, o->result.nundecided);
	json_lines(j, "notes", o->notes, o->nnotes);
}
