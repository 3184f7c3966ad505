/* create_guard: --assume-clean keeps the data on the members, so the
 * superblock, bitmap and bad-block log it lays down must land where no data is. */
#include <stdio.h>
#include <string.h>

#include "io/probe.h"
#include "md/create.h"

/* What the create puts outside the data area, and who may put it over
 * bytes already there: a superblock never (md would read it back as the
 * array's, and the data under it would be gone), the bitmap and the
 * bad-block log with --force. */
enum area_kind { AREA_SUPER, AREA_BITMAP, AREA_BBLOG };

struct area {
	enum area_kind kind;
	uint64_t lo, hi;             /* member sectors, hi exclusive */
};

#define SCAN_BYTES 65536u

static const char *area_name(enum area_kind k)
{
	static const char *const names[] = {
		[AREA_SUPER] = "superblock", [AREA_BITMAP] = "bitmap", [AREA_BBLOG] = "bad-block log",
	};

	return names[k];
}

/* The 1.2 superblock comes with the 4 KiB before it cleared (mdadm's
 * wipe of old signatures), so its area starts at sector 0. */
static int areas_of(const struct create_plan *p, const struct create_member *m, struct area *a)
{
	const struct md_super *sb = &m->sb;
	uint8_t enc[4096];
	size_t len;
	int n = 0;

	super_encode(sb, enc, &len);
	a[n++] = (struct area){ AREA_SUPER, p->spec.major == 1 && p->spec.minor == 2 ? 0 : sb->sb_sector,
				sb->sb_sector + (len + 511) / 512 };
	if (p->has_bitmap) {
		uint64_t at = sb->sb_sector +
			      (uint64_t)(int64_t)super_ops_of(p->spec.major)->bitmap_offset(p->spec.minor, &p->bitmap);

		a[n++] = (struct area){ AREA_BITMAP, at, at + (p->bitmap_bytes + 511) / 512 };
	}
	if (p->spec.major == 1 && sb->bblog_offset && sb->bblog_sectors) {
		uint64_t at = sb->sb_sector + (uint64_t)(int64_t)sb->bblog_offset;

		a[n++] = (struct area){ AREA_BBLOG, at, at + sb->bblog_sectors };
	}
	return n;
}

/* The first sector of [lo, hi) holding a byte that is not zero: 1, and
 * *at; 0 when all are zero. */
static int first_nonzero(struct dev *dv, uint64_t lo, uint64_t hi, uint64_t *at, struct diag *d)
{
	static const uint8_t zero[512];
	uint8_t buf[SCAN_BYTES];

	for (uint64_t s = lo; s < hi;) {
		uint64_t n = hi - s < SCAN_BYTES / 512 ? hi - s : SCAN_BYTES / 512;

		if (dev_read(dv, buf, n * 512, s * 512, d) < 0)
			return -1;
		for (uint64_t i = 0; i < n; i++)
			if (memcmp(buf + i * 512, zero, 512)) {
				*at = s + i;
				return 1;
			}
		s += n;
	}
	return 0;
}

/* Whether an md superblock already on the member accounts for the area:
 * it lies outside that array's data, among its own metadata, which a
 * re-create writes over as mdadm does.  Any of them will do: a restore
 * after a wrong re-create under another version finds the wrong array's
 * superblock beside the one of the array it restores. */
static bool old_metadata(const struct md_super *old, int nold, const struct area *a)
{
	for (int i = 0; i < nold; i++)
		if (a->hi <= old[i].data_offset || a->lo >= old[i].data_offset + old[i].data_size)
			return true;
	return false;
}

/* What to give instead: metadata where the data leaves room. */
static const char *remedy(const struct create_plan *p, const struct area *a)
{
	if (a->kind == AREA_BITMAP)
		return "give --bitmap none, or --force to write the bitmap over them";
	if (a->kind == AREA_BBLOG)
		return "give --force to leave md's bad-block log there";
	if (p->spec.major == 1 && p->spec.minor > 0)
		return "the data starts before the data offset: for data from sector 0 give --metadata 1.0 (superblock at the end), else the --data-offset it starts at";
	return "the data runs to the end of the member: give --metadata 1.2 and the --data-offset the data starts at";
}

static int refuse(const struct create_plan *p, const struct create_member *m, const struct area *a,
		  uint64_t at, struct diag *d)
{
	char what[256] = "", range[64];
	struct diag pd;

	/* blkid names what it knows there; anything else is said as found */
	if (probe_signatures_in(m->path, a->lo * 512, a->hi * 512, what, sizeof(what), &pd) < 0 || !what[0]) {
		if (at > a->lo)
			snprintf(what, sizeof(what), "bytes that are not zero (from sector %llu)", (unsigned long long)at);
		else
			snprintf(what, sizeof(what), "bytes that are not zero");
	}
	if (a->hi - a->lo == 1)
		snprintf(range, sizeof(range), "sector %llu", (unsigned long long)a->lo);
	else
		snprintf(range, sizeof(range), "sectors %llu-%llu", (unsigned long long)a->lo,
			 (unsigned long long)(a->hi - 1));
	return diag_fail(d, "%s: %s, where the %d.%d %s would go, %s %s, data --assume-clean keeps; refusing to write%s; %s",
			 m->path, range, p->spec.major, p->spec.major ? p->spec.minor : 90, area_name(a->kind),
			 a->hi - a->lo == 1 ? "holds" : "hold", what, a->kind == AREA_SUPER ? " (even with --force)" : "",
			 remedy(p, a));
}

static int guard_member(const struct create_plan *p, struct create_member *m, struct diag *d)
{
	struct area areas[3];
	struct md_super old[SUPER_PLACES];
	int nold = super_load_every(&m->dev, old);
	int n = areas_of(p, m, areas);

	for (int i = 0; i < n; i++) {
		uint64_t at;
		int rc;

		if (old_metadata(old, nold, &areas[i]))
			continue;
		if (areas[i].kind != AREA_SUPER && p->spec.force)
			continue;
		rc = first_nonzero(&m->dev, areas[i].lo, areas[i].hi, &at, d);
		if (rc < 0)
			return -1;
		if (rc > 0)
			return refuse(p, m, &areas[i], at, d);
	}
	return 0;
}

int create_guard_data(const struct create_plan *p, struct diag *d)
{
	if (!p->spec.assume_clean)
		return 0;
	/* a spare's bytes are no array's data: a rebuild writes over them */
	for (int i = 0; i < p->n; i++)
		if (p->m[i].path && p->m[i].role >= 0 && guard_member(p, &p->m[i], d) < 0)
			return -1;
	return 0;
}
