/* content: candidates completed, rescored and found from the filesystem
 * (ext4 or XFS, at the array's start or in a GPT partition or LVM2 PV) the
 * members hold.  The primary superblock gives the data offset; for each
 * chunk and layout left open the anchors decide the order (anchor.c), a
 * few roles left over are tried every way, and each complete geometry is
 * judged by what libext2fs reads through it (fs_score.c), or an XFS by
 * its allocation group headers (xfs_score.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe/anchor.h"
#include "probe/backup.h"
#include "probe/evidence.h"
#include "probe/fs_score.h"
#include "probe/xfs_score.h"

#define MAX_PRIMARIES 8
#define MAX_VOLUMES 4
#define KEEP_PINNED 4                /* chunk and layout pairs completed (with roles absent, more) */
#define MAX_PAIRS 160                /* chunk and layout pairs: 9 chunks times 14 layouts fit */
#define MAX_ORDERS 5040              /* orders of one pair's open roles tried */
#define MORE_ORDERS 20000            /* with roles absent: orders of the pairs beyond KEEP_PINNED */
#define KEEP_SCORED 24               /* complete orders read through libext2fs; with roles absent, and those tied */
#define SCORED_MAX 512               /* at most, ties and all */
#define MIN_CHUNK 8u                 /* sectors: 4 KiB */
#define MAX_CHUNK 2048u              /* 1 MiB */

/* What one run of probe_content works with. */
struct run {
	struct probe_sample *s;
	const struct probe_hints *h;
	struct probe_result *r;
};

static const int raid5_layouts[] = { 0, 1, 2, 3, 4, 5 };
static const int raid6_layouts[] = { 0, 1, 2, 3, 4, 5, 8, 9, 10, 16, 17, 18, 19, 20 };
static const int raid10_layouts[] = { 0x102, 0x201, 0x10201 };   /* n2, f2, o2 */
static const int raid0_layouts[] = { RAID0_LAYOUT_UNSPECIFIED };
static const int raid4_layouts[] = { 0 };

struct layouts {
	const int *list;
	int n;
};

static struct layouts level_layouts(int level)
{
#define L(a) (struct layouts){ a, (int)(sizeof(a) / sizeof(a[0])) }
	switch (level) {
	case MD_LEVEL_RAID0: return L(raid0_layouts);
	case MD_LEVEL_RAID4: return L(raid4_layouts);
	case MD_LEVEL_RAID5: return L(raid5_layouts);
	case MD_LEVEL_RAID6: return L(raid6_layouts);
	case MD_LEVEL_RAID10: return L(raid10_layouts);
	}
	return (struct layouts){ NULL, 0 };
#undef L
}

/* A raid0 layout of -1 is its one-zone value, not "undecided". */
static bool layout_open(const struct geometry_spec *g)
{
	return g->layout == -1 && g->level != MD_LEVEL_RAID0;
}

static bool order_complete(const struct geometry_spec *g)
{
	for (int r = 0; r < g->raid_disks; r++)
		if (g->order[r] == PROBE_UNKNOWN)
			return false;
	return true;
}

static bool complete(const struct geometry_spec *g)
{
	return order_complete(g) && !layout_open(g) && g->data_offset != UINT64_MAX &&
	       (g->chunk_sectors || g->level == MD_LEVEL_RAID1);
}

/* Bytes an array of the level holds on n members of cap bytes each
 * (RAID10 keeps two copies, of which an odd n holds half-members). */
static uint64_t array_bytes(int level, int n, uint64_t cap)
{
	switch (level) {
	case MD_LEVEL_RAID0: return (uint64_t)n * cap;
	case MD_LEVEL_RAID4:
	case MD_LEVEL_RAID5: return n > 1 ? (uint64_t)(n - 1) * cap : 0;
	case MD_LEVEL_RAID6: return n > 2 ? (uint64_t)(n - 2) * cap : 0;
	case MD_LEVEL_RAID10: return n > 1 ? (uint64_t)n * cap / 2 : 0;
	}
	return cap;
}

/* Sectors each member can give after the data offset: the size the probe
 * reads with (search sets the real one). */
static uint64_t capacity(const struct probe_sample *s, uint64_t data_offset)
{
	uint64_t least = UINT64_MAX;

	for (int i = 0; i < s->nmembers; i++)
		if (s->members[i].path && s->members[i].sectors < least)
			least = s->members[i].sectors;
	return least == UINT64_MAX || least <= data_offset ? 0 : least - data_offset;
}

/* The hinted metadata, else one that fits: 1.0 keeps data at 0, 1.2
 * sits before an offset. */
static int propose_metadata(const struct probe_hints *h, uint64_t data_offset)
{
	if (h->metadata)
		return h->metadata;
	return data_offset ? 120 : 100;
}

/* Is GPT's backup header at the array's last LBA where c's geometry, at
 * the member size that LBA gives, puts it? */
static bool gpt_backup_found(struct probe_sample *s, const struct probe_candidate *c, const struct volume *v,
			     uint64_t member_sectors)
{
	const struct geometry_spec *g = &c->spec;
	struct geometry geo;
	struct copy cp[ST_MAX_DISKS];
	uint64_t sizes[ST_MAX_DISKS], run;
	uint8_t sec[VOLUME_SECTOR];
	struct diag d;

	for (int r = 0; r < g->raid_disks; r++)
		sizes[r] = member_sectors;
	if (geometry_init(&geo, g->level, g->layout, g->raid_disks, g->chunk_sectors, member_sectors, sizes, NULL) < 0)
		return false;
	int n = layout_locate(&geo, v->array_sectors - 1, cp, &run);
	for (int k = 0; k < n; k++) {
		int i = g->order[cp[k].role];
		if (i >= 0 && s->members[i].path &&
		    probe_read(s, i, sec, sizeof(sec), (g->data_offset + cp[k].sector) * VOLUME_SECTOR, &d) == 0 &&
		    volume_gpt_backup_at(sec, v->array_sectors - 1))
			return true;
	}
	return false;
}

/* What the volume in front of the filesystem says: where it puts the
 * filesystem and, from GPT's backup header, the array's size. */
static void volume_evidence(struct probe_sample *s, struct probe_candidate *c, const struct fs_primary *p)
{
	const struct volume *v = p->volume;

	probe_candidate_evidence(c, "%s holds the %s", v->what, fs_primary_name(p));
	uint64_t per = array_bytes(c->spec.level, c->spec.raid_disks, 2);
	if (!v->array_sectors || !per)
		return;
	uint64_t member = v->array_sectors * 2 / per;
	if (gpt_backup_found(s, c, v, member))
		probe_candidate_evidence(c, "GPT: its backup header at LBA %llu, where this geometry puts it: "
					    "the array holds %llu sectors, %llu a member",
					 (unsigned long long)(v->array_sectors - 1), (unsigned long long)v->array_sectors,
					 (unsigned long long)member);
	else
		probe_candidate_evidence(c, "GPT: no backup header at LBA %llu, where its primary says, through this geometry",
					 (unsigned long long)(v->array_sectors - 1));
}

/* How well spec (size set) reads p's filesystem, 0..1, with the line
 * saying what was read; -1 when the members cannot form it (too many roles
 * missing). */
static double read_through(struct run *run, const struct fs_primary *p, const struct geometry_spec *spec,
			   char *line, size_t len)
{
	uint64_t fs_offset = p ? p->fs_offset : 0;
	struct diag d;

	if (p && p->kind == FS_XFS) {
		struct xfs_tally t;
		if (xfs_score(run->s, spec, fs_offset, &p->xfs, &t, &d) < 0)
			return -1;
		xfs_tally_line(&t, line, len);
		return xfs_tally_score(&t);
	}
	struct fs_tally t;
	if (fs_score(run->s, spec, fs_offset, &t, &d) < 0)
		return -1;
	fs_tally_line(&t, line, len);
	return fs_tally_score(&t);
}

/* Scores one complete geometry and adds it to r; parent bounds the score
 * (what the other evidence said of the geometry it came from). */
static bool score_and_add(struct run *run, const struct fs_primary *p, const struct probe_candidate *parent,
			  const struct geometry_spec *spec, const struct pin_tally *pin)
{
	struct geometry_spec sized = *spec;
	struct probe_candidate c;
	char line[PROBE_LINE];

	if (!sized.size) {
		sized.size = capacity(run->s, spec->data_offset);
		if (spec->chunk_sectors)
			sized.size -= sized.size % spec->chunk_sectors;
	}
	double fs = read_through(run, p, &sized, line, sizeof(line));
	if (fs < 0)
		return false;
	c = parent ? *parent : (struct probe_candidate){ .score = 1 };
	c.spec = *spec;
	c.spec.size = parent ? parent->spec.size : 0;
	if (!c.metadata)
		c.metadata = propose_metadata(run->h, spec->data_offset);
	if (!parent && fs == 0)
		return false;    /* nothing of the filesystem reads through it: no candidate */
	c.score = fs < c.score ? fs : c.score;
	probe_candidate_evidence(&c, "%s", line);
	if (p && p->volume && fs > 0)
		volume_evidence(run->s, &c, p);
	if (pin)
		probe_candidate_evidence(&c, "%s anchors: %u where this geometry puts them, %u not",
					 fs_primary_name(p), pin->hits, pin->misses);
	probe_result_add(run->r, &c);
	return true;
}

/* A geometry the anchors decided in part or in whole, and what they said
 * of it. */
struct pinned {
	struct geometry_spec spec;
	struct pin_tally tally;
};

static long merit(const struct pin_tally *t)
{
	return (long)t->hits - 2 * (long)t->misses;
}

/* The complete orders kept for libext2fs, best by merit first. */
struct ranking {
	struct pinned *best;
	int n, cap;
};

/* Keeps one when it is among the cap best by merit; on a tie the earlier
 * stays ahead. */
static void rank(struct ranking *r, const struct pinned *one)
{
	int at;

	if (r->n < r->cap)
		at = r->n++;
	else if (merit(&r->best[r->cap - 1].tally) < merit(&one->tally))
		at = r->cap - 1;
	else
		return;
	r->best[at] = *one;
	for (; at > 0 && merit(&r->best[at - 1].tally) < merit(&r->best[at].tally); at--) {
		struct pinned swap = r->best[at - 1];
		r->best[at - 1] = r->best[at];
		r->best[at] = swap;
	}
}

/* Filling a pinned geometry's open roles every way. */
struct completing {
	struct run *run;
	const struct fs_primary *p;
	struct ranking *out;          /* NULL: count the orders only */
	long orders, limit;           /* counted so far; past limit, stop */
};

/* The roles no anchor decided, filled with the free members every way (a
 * member given as "missing" reads as SPEC_MISSING, and one stands for
 * them all); each complete order is checked against the anchors again,
 * now with no role left to give, and ranked.  Reading the filesystem
 * through an order costs a thousand times as much: with two members of
 * a RAID6 absent the anchors decide few roles, and only orders the
 * anchors do not refute are worth it. */
static void complete_orders(struct completing *c, struct geometry_spec *spec, bool *taken)
{
	const struct probe_sample *s = c->run->s;
	int role = -1;

	if (c->orders > c->limit)
		return;
	for (int k = 0; k < spec->raid_disks && role < 0; k++)
		if (spec->order[k] == PROBE_UNKNOWN)
			role = k;
	if (role < 0) {
		c->orders++;
		struct pinned one = { .spec = *spec };
		if (!c->out)
			return;
		anchor_pin(c->run->s, c->p, &one.spec, &one.tally);
		if (!anchor_refuted(&one.tally))
			rank(c->out, &one);
		return;
	}
	bool any = false, missing_tried = false;
	for (int i = 0; i < s->nmembers; i++) {
		bool missing = !s->members[i].path;
		if (taken[i] || (missing && missing_tried))
			continue;
		any = true;
		missing_tried |= missing;
		taken[i] = true;
		spec->order[role] = missing ? SPEC_MISSING : i;
		complete_orders(c, spec, taken);
		taken[i] = false;
	}
	if (!any) {          /* fewer members given than roles: one not given at all */
		spec->order[role] = SPEC_MISSING;
		complete_orders(c, spec, taken);
	}
	spec->order[role] = PROBE_UNKNOWN;
}

/* Runs complete_orders over one pinned geometry; returns the orders
 * (counting stops past MAX_ORDERS). */
static long complete_pinned(struct run *run, const struct fs_primary *p, const struct pinned *pin,
			    struct ranking *out)
{
	struct completing c = { run, p, out, 0, MAX_ORDERS };
	struct geometry_spec spec = pin->spec;
	bool taken[ST_MAX_DISKS] = { false };

	for (int role = 0; role < spec.raid_disks; role++)
		if (spec.order[role] >= 0)
			taken[spec.order[role]] = true;
	complete_orders(&c, &spec, taken);
	return c.orders;
}

/* Sorts by merit, best first, keeping the order of trying among equals. */
static void sort_pinned(struct pinned *v, int n)
{
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && merit(&v[j - 1].tally) < merit(&v[j].tally); j--) {
			struct pinned swap = v[j - 1];
			v[j - 1] = v[j];
			v[j] = swap;
		}
}

/* Every chunk and layout partial leaves open, its order decided by the
 * anchors as far as they go.  The best few are completed every way, and
 * with roles absent the others too while MORE_ORDERS lasts: a partial
 * pin's merit then weighs little (anchors that fit without deciding a role
 * count as hits, and where they decide no role every layout ties), the
 * complete orders' merits compare.  Those the anchors like best are read
 * through libext2fs and scored. */
static int expand(struct run *run, const struct fs_primary *p, const struct probe_candidate *parent,
		  const struct geometry_spec *partial)
{
	struct layouts ls = level_layouts(partial->level);
	int npairs = 0, scored = 0;

	if (!ls.n)
		return 0;
	struct pinned *pairs = malloc(sizeof(*pairs) * MAX_PAIRS);
	struct ranking kept = { malloc(sizeof(*kept.best) * SCORED_MAX), 0, SCORED_MAX };
	if (!pairs || !kept.best)
		goto out;
	for (uint32_t chunk = MIN_CHUNK; chunk <= MAX_CHUNK; chunk *= 2) {
		if (partial->chunk_sectors && chunk != partial->chunk_sectors)
			continue;
		for (int l = 0; l < ls.n && npairs < MAX_PAIRS; l++) {
			if (!layout_open(partial) && ls.list[l] != partial->layout)
				continue;
			struct pinned *one = &pairs[npairs];
			one->spec = *partial;
			one->spec.chunk_sectors = chunk;
			one->spec.layout = ls.list[l];
			one->spec.data_offset = p->data_offset;
			one->spec.size = capacity(run->s, p->data_offset);
			one->spec.size -= one->spec.size % chunk;
			if (anchor_pin(run->s, p, &one->spec, &one->tally) &&
			    complete_pinned(run, p, one, NULL) <= MAX_ORDERS)
				npairs++;
		}
	}
	/* roles absent hold anchors no member shows: fewer roles are pinned,
	 * and orders tie that only libext2fs, reading through P and Q, tells
	 * apart */
	bool absent = probe_absent(run->s, partial->raid_disks) > 0;
	sort_pinned(pairs, npairs);
	long budget = MORE_ORDERS;
	for (int k = 0; k < npairs; k++) {
		long orders = complete_pinned(run, p, &pairs[k], NULL);
		if (k >= KEEP_PINNED && (!absent || orders > budget))
			continue;
		budget -= orders;
		complete_pinned(run, p, &pairs[k], &kept);
	}
	for (int k = 0; k < kept.n && (absent || k < KEEP_SCORED); k++) {
		if (k >= KEEP_SCORED && merit(&kept.best[k].tally) < merit(&kept.best[KEEP_SCORED - 1].tally))
			break;
		kept.best[k].spec.size = 0;
		scored += score_and_add(run, p, parent, &kept.best[k].spec, &kept.best[k].tally);
	}
out:
	free(pairs);
	free(kept.best);
	return scored;
}

/* Does the filesystem fill an array of this level, as mkfs on the whole
 * array leaves it (more than one member's worth short would be another
 * level)?  loose: does it merely fit. */
static bool level_fits(const struct probe_sample *s, const struct fs_primary *p, int level, int n, bool loose)
{
	uint64_t cap = capacity(s, p->data_offset) * 512, fs = fs_primary_bytes(p);
	uint64_t room = array_bytes(level, n, cap);

	if (!room || fs > room)
		return false;
	return loose || fs + cap > room;
}

/* Candidates from the anchors alone: the level and member count hinted,
 * or each level the filesystem's size fits. */
static void propose(struct run *run, const struct fs_primary *p)
{
	const struct probe_hints *h = run->h;
	struct probe_sample *s = run->s;
	static const int levels[] = { MD_LEVEL_RAID0, MD_LEVEL_RAID5, MD_LEVEL_RAID6, MD_LEVEL_RAID10 };
	int n = h->raid_disks ? h->raid_disks : s->nmembers;
	bool any = false;

	for (int pass = 0; pass < 2 && !any; pass++)
		for (size_t k = 0; k < sizeof(levels) / sizeof(levels[0]); k++) {
			int level = h->level >= 0 ? h->level : levels[k];
			if (h->level >= 0 && k > 0)
				break;
			if (h->level < 0 && !level_fits(s, p, level, n, pass == 1))
				continue;
			struct geometry_spec g = { .level = level, .raid_disks = n, .layout = h->layout,
						   .chunk_sectors = h->chunk_sectors, .data_offset = p->data_offset };
			if (level == MD_LEVEL_RAID0)
				g.layout = RAID0_LAYOUT_UNSPECIFIED;
			for (int role = 0; role < n; role++)
				g.order[role] = PROBE_UNKNOWN;
			any = true;
			expand(run, p, NULL, &g);
		}
}

/* Layouts that place the data alike (RAID6's rotations and their DDF
 * twins differ in Q's order alone) read the same filesystem: say so
 * rather than let the order of trying decide. */
static void note_layout_tie(struct probe_result *r, const char *fs)
{
	const struct geometry_spec *a = &r->cand[0].spec, *b = &r->cand[1].spec;
	char x[48], y[48];

	if (r->ncand < 2 || r->cand[0].score != r->cand[1].score || a->layout == b->layout ||
	    a->level != b->level || a->chunk_sectors != b->chunk_sectors || a->data_offset != b->data_offset ||
	    memcmp(a->order, b->order, sizeof(a->order[0]) * (size_t)a->raid_disks) != 0)
		return;
	probe_result_undecided(r, "%s reads alike through layouts %s and %s: only parity can tell them apart", fs,
			       layout_name(a->level, a->layout, x, sizeof(x)) ?: "?",
			       layout_name(b->level, b->layout, y, sizeof(y)) ?: "?");
}

/* The primary a partial candidate can use: its data offset's, or the first. */
static const struct fs_primary *primary_for(const struct geometry_spec *g, const struct fs_primary *p, int np)
{
	for (int k = 0; k < np; k++)
		if (g->data_offset == UINT64_MAX || g->data_offset == p[k].data_offset)
			return &p[k];
	return NULL;
}

/* Does member hold the role that keeps array byte at, under g (chunk and
 * layout decided)?  Sets the role when it is undecided and the member free. */
static bool pin_role_of(struct geometry_spec *g, uint64_t size, uint64_t at, int member)
{
	struct geometry geo;
	struct copy c[ST_MAX_DISKS];
	uint64_t sizes[ST_MAX_DISKS], run;

	for (int r = 0; r < g->raid_disks; r++) {
		sizes[r] = size;
		if (g->order[r] == member)
			return true;
	}
	if (geometry_init(&geo, g->level, g->layout, g->raid_disks, g->chunk_sectors, size, sizes, NULL) < 0 ||
	    layout_locate(&geo, at / 512, c, &run) < 1 || g->order[c[0].role] != PROBE_UNKNOWN)
		return false;
	g->order[c[0].role] = member;
	return true;
}

/* A LUKS header is the array's first bytes: a candidate parity left
 * without a data offset takes its place, and where chunk and layout are
 * decided its member (when one member alone holds it) takes the role that
 * keeps them. */
static void pin_by_header(struct run *run, const struct volume *v)
{
	for (int k = 0; k < run->r->ncand; k++) {
		struct probe_candidate *c = &run->r->cand[k];
		struct geometry_spec *g = &c->spec;
		if (g->data_offset != UINT64_MAX && g->data_offset != v->data_offset)
			continue;
		g->data_offset = v->data_offset;
		uint64_t size = capacity(run->s, v->data_offset);
		bool role = v->holders == 1 && !layout_open(g) && g->chunk_sectors && size > g->chunk_sectors &&
			    pin_role_of(g, size - size % g->chunk_sectors, v->header_at, v->member);
		probe_candidate_evidence(c, "%s header at sector %llu of member %d: the data offset%s", v->what,
					 (unsigned long long)v->data_offset, v->member,
					 role ? ", and the member holding data chunk 0" : "");
	}
}

/* The filesystems volumes at the array's start hold come first: the
 * header pins the data offset and chunk 0's member.  A LUKS header says
 * why the rest tells nothing. */
static int find_primaries(struct run *run, struct volume *v, struct fs_primary *p)
{
	struct probe_sample *s = run->s;
	const struct probe_hints *h = run->h;
	int nv = volume_find(s, h, v, MAX_VOLUMES), np = 0;

	for (int k = 0; k < nv; k++) {
		if (v[k].kind == VOLUME_LUKS) {
			pin_by_header(run, &v[k]);
			probe_result_undecided(run->r, "%s header at sector %llu of member %d: the array's data offset, "
						  "and data chunk 0 on that member; the rest is ciphertext, only parity can decide it",
					       v[k].what, (unsigned long long)v[k].data_offset, v[k].member);
		} else {
			np += anchor_in_volume(s, &v[k], p + np, MAX_PRIMARIES / 2 - np);
		}
	}
	int nv_primaries = np, nall = np + anchor_find_primaries(s, h, p + np, MAX_PRIMARIES - np);
	/* a superblock found where a volume puts it is that volume's: read as
	 * the array's start it gives a data offset the volume's header refutes */
	for (int k = nv_primaries; k < nall; k++) {
		bool held = false;
		for (int j = 0; j < nv_primaries && !held; j++)
			held = fs_primary_same_fs(&p[j], &p[k]);
		if (!held)
			p[np++] = p[k];
	}
	/* the primary's member given as missing: its backups stand for it */
	return np ? np : backup_find_primaries(s, h, p, MAX_PRIMARIES);
}

int probe_content(struct probe_sample *s, const struct probe_hints *h, struct probe_result *r,
		  struct diag *d)
{
	struct volume v[MAX_VOLUMES];
	struct fs_primary p[MAX_PRIMARIES];
	struct run run = { s, h, r };
	int np = find_primaries(&run, v, p);

	if (!np) {
		probe_result_undecided(r, "no ext4 superblock found in the sample");
		return 0;
	}
	/* r is built again: complete candidates rescored, partial ones
	 * replaced by their completions (kept when none came) */
	struct probe_result *before = malloc(sizeof(*before));
	if (!before)
		return diag_fail(d, "out of memory");
	*before = *r;
	r->ncand = 0;
	for (int i = 0; i < before->ncand; i++) {
		const struct probe_candidate *c = &before->cand[i];
		const struct fs_primary *pr = primary_for(&c->spec, p, np);
		int scored = complete(&c->spec) ? score_and_add(&run, pr, c, &c->spec, NULL)
			   : pr ? expand(&run, pr, c, &c->spec) : 0;
		if (!scored)
			probe_result_add(r, c);
	}
	free(before);
	/* superblocks that disagree with the data (a wrong re-create) leave
	 * candidates that do not read the filesystem: the anchors look on */
	if (!r->ncand || r->cand[0].score < 1)
		for (int k = 0; k < np; k++)
			propose(&run, &p[k]);
	note_layout_tie(r, fs_primary_name(&p[0]));
	return 0;
}
