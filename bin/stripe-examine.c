/* stripe-examine: show each member's md superblock under mdadm --examine's
 * names, then the array they assemble into. */
#include <ctype.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "md/array.h"
#include "md/badblocks.h"
#include "md/bitmap.h"
#include "md/scan.h"
#include "io/blkscan.h"
#include "io/identity.h"
#include "cli/cli.h"
#include "cli/json_out.h"
#include "cli/open_array.h"
#include "util/json.h"

#define TOOL "stripe-examine"

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: " TOOL " [options] MEMBER...\n"
		"       " TOOL " --scan [--brief] [FILE...]\n"
		"\n"
		"Show the md superblock of each MEMBER (block device or image file) with the\n"
		"field names of mdadm --examine, its internal bitmap and bad-block log, then\n"
		"the array the members assemble into: level, layout, chunk, size, state, who\n"
		"holds each role and why any member is left out. Each member is named first:\n"
		"a file, a loop device over a file, or a disk or partition with its model,\n"
		"serial, WWN and /dev/disk/by-id link (udev's data, sysfs). Nothing is written.\n"
		"\n"
		"Options:\n"
		"      --json[=FILE]       one JSON document (see stripe-examine(1)), on\n"
		"                          standard output, or replacing FILE whole beside\n"
		"                          the text (or --export)\n"
		"      --export            STRIPE_KEY=value lines of the assembled array and\n"
		"                          of each member, for eval\n"
		"      --raid0-layout L    layout for a multi-zone RAID0 that records none\n"
		"      --geometry SPEC     show the array SPEC describes, no superblock read\n"
		"                          (see stripe-read(1))\n"
		"  -s, --scan              find md members among the FILEs, or else among\n"
		"                          the machine's block devices (libblkid), and\n"
		"                          print each array's mdadm.conf ARRAY line, as\n"
		"                          mdadm --examine --scan --verbose (devices=)\n"
		"      --brief             the ARRAY lines as mdadm --examine --brief\n"
		"  -q, --quiet             only the assembled array\n"
		"  -v, --verbose           also list bad-block ranges\n"
		"  -h, --help              show this help and exit\n"
		"  -V, --version           show the version and exit\n"
		"\n"
		"The array's state is md's: clean, or active (a resync is due), then\n"
		"\", degraded\" or \", FAILED\" where roles are missing. A reshape, a write\n"
		"journal, a partial parity log or a clustered array is refused, its members\n"
		"shown.\n"
		"\n"
		"Exit status: 0 the array is whole, 1 it is degraded or failed or members\n"
		"were left out, 2 a member could not be read, or the array cannot be formed\n"
		"or is in a state stripe does not implement.  With --scan: 0 every FILE\n"
		"holds an md superblock, 1 some hold none, 2 one could not be opened.\n");
}

struct member_extra {
	int has_bitmap;              /* 1 read, 0 none, -1 unreadable */
	struct md_bitmap bitmap;
	int has_bblog;
	struct badblocks bblog;
	char bitmap_err[512], bblog_err[512];
	bool has_id;                 /* which disk or file the member is */
	struct identity id;
};

static void human_size(uint64_t bytes, char *buf, size_t len)
{
	/* mdadm's style: MiB and MB with two decimals, GiB/GB from 2 GiB. */
	if (bytes < 5000 * 1024ULL) {
		buf[0] = 0;
	} else if (bytes < (2ULL << 30)) {
		uint64_t mib = (bytes * 200 / (1 << 20) + 1) / 2, mb = (bytes / 5000 + 1) / 2;

		snprintf(buf, len, " (%llu.%02llu MiB %llu.%02llu MB)", (unsigned long long)(mib / 100),
			 (unsigned long long)(mib % 100), (unsigned long long)(mb / 100), (unsigned long long)(mb % 100));
	} else {
		uint64_t gib = (bytes / ((1ULL << 30) / 200) + 1) / 2, gb = (bytes / 5000000 + 1) / 2;

		snprintf(buf, len, " (%llu.%02llu GiB %llu.%02llu GB)", (unsigned long long)(gib / 100),
			 (unsigned long long)(gib % 100), (unsigned long long)(gb / 100), (unsigned long long)(gb % 100));
	}
}

#define NAME_SHOWN (32 * 4 + 1)     /* a 32-byte name, every byte as \xNN */

/* An array name from disk, on one line and in valid UTF-8 whatever its
 * bytes: those outside printable ASCII, and the backslash, as \xNN. */
static const char *printable_name(const char *name, char *buf, size_t len)
{
	size_t n = 0;

	for (; *name && n + 5 <= len; name++) {
		unsigned char c = (unsigned char)*name;

		if (c >= 0x20 && c < 0x7f && c != '\\')
			buf[n++] = (char)c;
		else
			n += (size_t)snprintf(buf + n, len - n, "\\x%02x", c);
	}
	buf[n] = 0;
	return buf;
}

static const char *name_or(const char *name, const char *fallback)
{
	return name ? name : fallback;
}

static const char *time_str(uint64_t t, char *buf, size_t len)
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (!localtime_r(&tt, &tm) || !strftime(buf, len, "%a %b %e %H:%M:%S %Y", &tm))
		snprintf(buf, len, "%llu", (unsigned long long)t);
	return buf;
}

static void chunk_str(uint32_t sectors, char *buf, size_t len)
{
	snprintf(buf, len, "%uK", sectors / 2);
}

static const char *layout_str(const struct md_super *s, char *buf, int len)
{
	const char *n = layout_name(s->level, s->layout, buf, len);

	if (n)
		return n;
	snprintf(buf, (size_t)len, "%d", s->layout);
	return buf;
}

/* The array's view of each role: 'A' held, 'R' replacing (a 1.x table
 * lists two devices in it, as mdadm counts them), '.' missing. */
static void array_state_str(const struct md_super *s, char *buf, size_t len)
{
	int r, k, held, n = s->raid_disks;
	size_t i = 0;

	for (r = 0; r < n && i + 1 < len; r++) {
		for (held = 0, k = 0; k < s->dev_slots; k++)
			held += super_role_of(s, k) == r;
		buf[i++] = held == 0 ? '.' : held == 2 && s->major == 1 && s->level > 0 ? 'R' : 'A';
	}
	buf[i] = 0;
}

static void role_str(const struct md_super *s, char *buf, size_t len)
{
	if (s->role >= 0 && s->major == 1 && (s->feature_map & SB1_FEAT_REPLACEMENT))
		snprintf(buf, len, "Replacement device %d", s->role);
	else if (s->role >= 0)
		snprintf(buf, len, "Active device %d", s->role);
	else
		snprintf(buf, len, "%s", s->role == ROLE_FAULTY ? "faulty" : s->role == ROLE_JOURNAL ? "Journal" : "spare");
}

static uint64_t member_array_bytes(const struct md_super *s)
{
	uint64_t sizes[ST_MAX_DISKS];
	struct geometry g;
	int i;

	/* mdadm derives raid10's size from the component size without
	 * rounding to whole chunks; show what it shows */
	if (s->level == 10 && (s->layout & 0xff) && ((s->layout >> 8) & 0xff))
		return s->size * 512 * (uint64_t)s->raid_disks /
		       (uint64_t)((s->layout & 0xff) * ((s->layout >> 8) & 0xff));
	for (i = 0; i < s->raid_disks && i < ST_MAX_DISKS; i++)
		sizes[i] = s->data_size;
	if (geometry_init(&g, s->level, s->level == 0 ? 1 : s->layout, s->raid_disks,
			  s->chunk_sectors, s->size, sizes, NULL) < 0)
		return 0;
	return g.array_sectors * 512;
}

static void load_extra(struct member *m, struct member_extra *x)
{
	struct diag d;

	memset(x, 0, sizeof(*x));
	x->has_id = identity_of(m->path, &x->id) == 0;
	if (!m->has_sb)
		return;
	x->has_bitmap = bitmap_read(&m->dev, &m->sb, &x->bitmap, &d);
	if (x->has_bitmap < 0)
		snprintf(x->bitmap_err, sizeof(x->bitmap_err), "%s", d.msg);
	x->has_bblog = badblocks_read(&m->dev, &m->sb, &x->bblog, &d);
	if (x->has_bblog < 0)
		snprintf(x->bblog_err, sizeof(x->bblog_err), "%s", d.msg);
	x->has_bitmap = x->has_bitmap == 0 ? 1 : x->has_bitmap < 0 ? -1 : 0;
	x->has_bblog = x->has_bblog == 0 ? 1 : x->has_bblog < 0 ? -1 : 0;
}

/* md's names of what the superblock records and stripe does not
 * implement, comma separated; empty when none. */
static const char *unsupported_str(const struct md_super *s, char *buf, size_t len)
{
	const char *names[8];
	int n = member_unimplemented(s, names, 8), i;
	size_t used = 0;

	buf[0] = 0;
	for (i = 0; i < n && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? ", " : "", names[i]);
	return buf;
}

#define FIELD(name, ...) do { printf("%15s : ", name); printf(__VA_ARGS__); printf("\n"); } while (0)
/* mdadm sets the role lines one column further left than the rest. */
#define FIELD14(name, ...) do { printf("%14s : ", name); printf(__VA_ARGS__); printf("\n"); } while (0)

static void print_bitmap_text(const struct member_extra *x, const struct md_super *s)
{
	if (x->has_bitmap < 0) {
		FIELD("Internal Bitmap", "unreadable: %s", x->bitmap_err);
		return;
	}
	if (!x->has_bitmap)
		return;
	FIELD("Internal Bitmap", "%d sectors from superblock", s->bitmap_offset);
	FIELD("Bitmap Version", "%u", x->bitmap.version);
	FIELD("Bitmap Events", "%llu (cleared %llu)", (unsigned long long)x->bitmap.events,
	      (unsigned long long)x->bitmap.events_cleared);
	FIELD("Bitmap Chunk", "%u KiB", x->bitmap.chunksize / 1024);
	FIELD("Sync Size", "%llu KiB", (unsigned long long)x->bitmap.sync_size / 2);
	FIELD("Bitmap", "%llu bits (chunks), %llu dirty (%.1f%%)", (unsigned long long)x->bitmap.bits,
	      (unsigned long long)x->bitmap.dirty,
	      x->bitmap.bits ? 100.0 * (double)x->bitmap.dirty / (double)x->bitmap.bits : 0.0);
	FIELD("Bitmap State", "%s%s", x->bitmap.state & BITMAP_STALE ? "stale" : "ok",
	      x->bitmap.state & BITMAP_WRITE_ERROR ? ", write error" : "");
}

/* mdadm's reshape lines, every field shown, as stripe refuses the array
 * and this is all there is to see of it. */
static void print_reshape_text(const struct md_super *s)
{
	struct md_reshape r;
	char b[64];

	if (!member_reshaping(s))
		return;
	super_reshape(s, &r);
	/* a position past any device's bytes has no size to show */
	if (r.position <= UINT64_MAX / 512)
		human_size(r.position * 512, b, sizeof(b));
	else
		b[0] = 0;
	FIELD("Reshape pos'n", "%llu%s", (unsigned long long)r.position / 2, b);
	FIELD("Delta Devices", "%d (%lld->%d)", r.delta_disks, (long long)s->raid_disks - r.delta_disks,
	      s->raid_disks);
	FIELD("New Level", "%s", level_name(r.new_level));
	FIELD("New Layout", "%s", name_or(layout_name(r.new_level, r.new_layout, b, sizeof(b)), "-unknown-"));
	FIELD("New Chunksize", "%lluK", (unsigned long long)r.new_chunk / 2);
	if (r.moves_data)
		FIELD("New Offset", "%lld sectors", (long long)s->data_offset + (long long)r.new_offset);
	if (r.backwards)
		FIELD("Direction", "backwards");
	printf("\n");
}

static void print_geometry_text(const struct md_super *s)
{
	char b[64];

	if (s->level == 5 || s->level == 6 || s->level == 10 ||
	    (s->level == 0 && (s->feature_map & SB1_FEAT_RAID0_LAYOUT)))
		FIELD("Layout", "%s", layout_str(s, b, sizeof(b)));
	if (s->level != 1 && s->chunk_sectors) {
		chunk_str(s->chunk_sectors, b, sizeof(b));
		FIELD("Chunk Size", "%s", b);
	}
}

static void disk_state_words(uint32_t st, char *buf, size_t len)
{
	static const char *const words[] = { "faulty", "active", "sync", "removed" };
	size_t used = 0;
	int i;

	buf[0] = 0;
	for (i = 0; i < 4; i++)
		if (st & (1u << i))
			used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? " " : "", words[i]);
	if (!used)
		snprintf(buf, len, "spare");
}

/* The path of the member given on the command line with device number n. */
static const char *path_of_number(const struct array *a, int n)
{
	int i;

	for (i = 0; i < a->nmembers; i++)
		if (a->members[i].has_sb && a->members[i].sb.major == 0 && a->members[i].sb.dev_number == n &&
		    a->members[i].state != MEMBER_FOREIGN)
			return a->members[i].path;
	return "";
}

static void print_disk_row(const char *label, const struct sb0_disk_row *r, const char *path)
{
	char st[64];

	disk_state_words(r->state, st, sizeof(st));
	printf("%4s %5u %7u %8u %8u      %-11s   %s\n", label, r->number, r->major, r->minor,
	       r->raid_disk, st, path);
}

/* 0.90 members read as mdadm shows them: counts and a table of disks. */
static void print_v0_text(const struct array *a, const struct member *m)
{
	const struct md_super *s = &m->sb;
	struct sb0_view v;
	char b[64], u[36], label[16];
	int i;

	super0_view(s, &v);

	FIELD("Magic", "a92b4efc");
	FIELD("Version", "0.%02u.%02u", v.minor, v.patch);
	super_uuid_str(s->uuid, u);
	FIELD("UUID", "%s", u);
	FIELD("Creation Time", "%s", time_str(s->ctime, b, sizeof(b)));
	FIELD("Raid Level", "%s", level_name(s->level));
	if (s->level != 0) {
		human_size(s->size * 512, b, sizeof(b));
		FIELD("Used Dev Size", "%llu%s", (unsigned long long)s->size / 2, b);
		human_size(member_array_bytes(s), b, sizeof(b));
		FIELD("Array Size", "%llu%s", (unsigned long long)member_array_bytes(s) / 1024, b);
	}
	FIELD("Raid Devices", "%d", s->raid_disks);
	FIELD("Total Devices", "%u", v.nr_disks);
	FIELD("Preferred Minor", "%u", v.md_minor);
	printf("\n");
	FIELD("Update Time", "%s", time_str(s->utime, b, sizeof(b)));
	FIELD("State", "%s", v.clean ? "clean" : "active");
	FIELD("Active Devices", "%u", v.active);
	FIELD("Working Devices", "%u", v.working);
	FIELD("Failed Devices", "%u", v.failed);
	FIELD("Spare Devices", "%u", v.spare);
	if (s->csum_stored == s->csum_computed)
		FIELD("Checksum", "%x - correct", s->csum_stored);
	else
		FIELD("Checksum", "%x - expected %x", s->csum_stored, s->csum_computed);
	FIELD("Events", "%llu", (unsigned long long)s->events);
	printf("\n");
	if (*unsupported_str(s, b, sizeof(b)))
		FIELD("Unsupported", "%s", b);
	print_reshape_text(s);
	print_geometry_text(s);
	printf("\n      Number   Major   Minor   RaidDevice State\n");
	print_disk_row("this", &v.this_disk, m->path);
	printf("\n");
	for (i = 0; i < s->dev_slots; i++) {
		if (!v.disk[i].state && !v.disk[i].major && i >= (int)v.nr_disks)
			continue;
		snprintf(label, sizeof(label), "%d", i);
		print_disk_row(label, &v.disk[i], path_of_number(a, i));
	}
}

static bool any_superblock(const struct array *a)
{
	int i;

	for (i = 0; i < a->nmembers; i++)
		if (a->members[i].has_sb)
			return true;
	return false;
}

/* mdadm's Unused Space line of a 1.x member: the sectors free before its
 * data (past the superblock, bitmap and bad-block log) and after it,
 * computed as mdadm's getinfo_super1 does, its quirks kept: for 1.1 and
 * 1.2 the bitmap's end counts from its offset to the superblock, not from
 * the device's start.  mdadm leaves the line out while data moves (a
 * reshape's new_offset), where neither side has room, and (as it marks
 * that case with 1) where one sector is free after. */
static void print_unused_space(const struct md_super *s, const struct member_extra *x)
{
	uint64_t data = s->level <= 0 ? s->data_size : s->size, before, after, end, earliest, bmend;
	bool bitmap = s->feature_map & SB1_FEAT_BITMAP_OFFSET;
	bool bblog = s->bblog_offset && s->bblog_sectors;

	if (s->feature_map & SB1_FEAT_NEW_OFFSET)
		return;
	if (s->data_offset < s->sb_sector) {
		before = s->data_offset;
		end = s->sb_sector;
		if (bblog && s->sb_sector + (int64_t)s->bblog_offset < end)
			end = s->sb_sector + (int64_t)s->bblog_offset;
		if (bitmap && s->sb_sector + (int64_t)s->bitmap_offset < end)
			end = s->sb_sector + (int64_t)s->bitmap_offset;
		after = s->data_offset + data < end ? end - data - s->data_offset : 0;
	} else {
		earliest = s->sb_sector + (32 + 4) * 2;
		if (bitmap && s->bitmap_offset > 0 && x->has_bitmap > 0) {
			bmend = (uint64_t)s->bitmap_offset + bitmap_bytes(&x->bitmap, 4096) / 512;
			if (bmend > earliest)
				earliest = bmend;
		}
		if (bblog && s->sb_sector + (int64_t)s->bblog_offset + s->bblog_sectors > earliest)
			earliest = s->sb_sector + (int64_t)s->bblog_offset + s->bblog_sectors;
		before = earliest < s->data_offset ? s->data_offset - earliest : 0;
		after = s->dev_sectors - data - s->data_offset;
	}
	if (after == 1 || (!before && !after))
		return;
	if (after < INT64_MAX)
		FIELD("Unused Space", "before=%llu sectors, after=%llu sectors", (unsigned long long)before,
		      (unsigned long long)after);
	else
		FIELD("Unused Space", "before=%llu sectors, after=-%llu sectors DEVICE TOO SMALL",
		      (unsigned long long)before, (unsigned long long)(UINT64_MAX - after));
}

/* Which disk to pull: what the member is, and the names on its label. */
static void print_identity_text(const struct member_extra *x)
{
	char what[sizeof(x->id.backing) + 128];

	if (!x->has_id)
		return;
	identity_what(&x->id, what, sizeof(what));
	FIELD("Member", "%s", what);
	if (x->id.vendor[0])
		FIELD("Vendor", "%s", x->id.vendor);
	if (x->id.model[0])
		FIELD("Model", "%s", x->id.model);
	if (x->id.serial[0])
		FIELD("Serial", "%s", x->id.serial);
	if (x->id.wwn[0])
		FIELD("WWN", "%s", x->id.wwn);
	if (x->id.by_id[0])
		FIELD("By-id", "%s", x->id.by_id);
}

static void print_member_text(const struct array *a, const struct member *m,
			      const struct member_extra *x, int verbose)
{
	const struct md_super *s = &m->sb;
	char b1[64], b2[64], u[36], name[NAME_SHOWN];
	int i;

	printf("%s:\n", m->path);
	print_identity_text(x);
	if (s->major == 0) {
		print_v0_text(a, m);
		return;
	}
	FIELD("Magic", "a92b4efc");
	FIELD("Version", "%s", super_version(s, b1, sizeof(b1)));
	if (s->major == 1)
		FIELD("Feature Map", "0x%x", s->feature_map);
	if (*unsupported_str(s, b2, sizeof(b2)))
		FIELD("Unsupported", "%s", b2);
	super_uuid_str(s->uuid, u);
	FIELD("Array UUID", "%s", u);
	if (s->major == 1)
		FIELD("Name", "%s", printable_name(s->name, name, sizeof(name)));
	FIELD("Creation Time", "%s", time_str(s->ctime, b1, sizeof(b1)));
	FIELD("Raid Level", "%s", level_name(s->level));
	FIELD("Raid Devices", "%d", s->raid_disks);
	printf("\n");
	human_size(s->data_size * 512, b1, sizeof(b1));
	FIELD("Avail Dev Size", "%llu sectors%s", (unsigned long long)s->data_size, b1);
	if (s->level != 0) {
		human_size(member_array_bytes(s), b1, sizeof(b1));
		FIELD("Array Size", "%llu KiB%s", (unsigned long long)member_array_bytes(s) / 1024, b1);
	}
	if (s->size && s->size != s->data_size) {
		human_size(s->size * 512, b1, sizeof(b1));
		FIELD("Used Dev Size", "%llu sectors%s", (unsigned long long)s->size, b1);
	}
	if (s->data_offset || s->minor != 0)
		FIELD("Data Offset", "%llu sectors", (unsigned long long)s->data_offset);
	FIELD("Super Offset", "%llu sectors", (unsigned long long)s->sb_sector);
	if (s->feature_map & SB1_FEAT_RECOVERY_OFFSET && s->major == 1)
		FIELD("Recovery Offset", "%llu sectors", (unsigned long long)s->recovery_offset);
	if (s->major == 1)
		print_unused_space(s, x);
	if (s->resync_offset != MD_MAX_SECTOR && s->level != 0)
		FIELD("Resync Offset", "%llu sectors", (unsigned long long)s->resync_offset);
	FIELD("State", "%s", s->resync_offset == MD_MAX_SECTOR ? "clean" : "active");
	if (s->major == 1) {
		super_uuid_str(s->device_uuid, u);
		FIELD("Device UUID", "%s", u);
	}
	printf("\n");
	print_bitmap_text(x, s);
	FIELD("Update Time", "%s", time_str(s->utime, b1, sizeof(b1)));
	if (x->has_bblog > 0)
		FIELD("Bad Block Log", "%d entries available at offset %d sectors%s", x->bblog.capacity,
		      s->bblog_offset, x->bblog.count ? " - bad blocks present." : "");
	else if (x->has_bblog < 0)
		FIELD("Bad Block Log", "unreadable: %s", x->bblog_err);
	if (s->csum_stored == s->csum_computed)
		FIELD("Checksum", "%x - correct", s->csum_stored);
	else
		FIELD("Checksum", "%x - expected %x", s->csum_stored, s->csum_computed);
	FIELD("Events", "%llu", (unsigned long long)s->events);
	printf("\n");
	print_reshape_text(s);
	print_geometry_text(s);
	printf("\n");
	role_str(s, b1, sizeof(b1));
	FIELD14("Device Role", "%s", b1);
	array_state_str(s, b2, sizeof(b2));
	FIELD14("Array State", "%s ('A' == active, '.' == missing, 'R' == replacing)", b2);
	for (i = 0; verbose && x->has_bblog > 0 && i < x->bblog.count; i++)
		printf("%15s   %llu for %llu sectors\n", i ? "" : "Bad Blocks",
		       (unsigned long long)x->bblog.ranges[i].start, (unsigned long long)x->bblog.ranges[i].len);
}

/* The array's shape as the assembled view and --geometry both show it:
 * level, layout where the level has one, chunk, devices and size. */
static void print_shape(const struct geometry *g)
{
	char b[64];

	FIELD("Raid Level", "%s", level_name(g->level));
	if (g->level == 5 || g->level == 6 || g->level == 10 || (g->level == 0 && g->nzones > 1))
		FIELD("Layout", "%s", name_or(layout_name(g->level, g->layout, b, sizeof(b)), "-unknown-"));
	if (g->level != 1) {
		chunk_str(g->chunk_sectors, b, sizeof(b));
		FIELD("Chunk Size", "%s", b);
	}
	FIELD("Raid Devices", "%d", g->raid_disks);
	human_size(g->array_sectors * 512, b, sizeof(b));
	FIELD("Array Size", "%llu KiB%s", (unsigned long long)g->array_sectors / 2, b);
}

static void print_array_text(const struct array *a)
{
	const struct md_super *s = a->ref;
	char b1[64], u[36];
	int i;

	super_uuid_str(s->uuid, u);
	printf("Array %s:\n", u);
	print_shape(&a->geo);
	array_md_state(a, b1, sizeof(b1));
	FIELD("State", "%s", b1);
	FIELD("Events", "%llu", (unsigned long long)a->events);
	printf("\n");
	for (i = 0; i < s->raid_disks; i++) {
		snprintf(b1, sizeof(b1), "Role %d", i);
		FIELD(b1, "%s", a->role[i] ? a->role[i]->path : "missing");
	}
	for (i = 0; i < a->nmembers; i++) {
		const struct member *m = &a->members[i];

		if (m->state != MEMBER_ACTIVE)
			FIELD("Left out", "%s: %s", m->path, m->reason);
	}
}

/* A member's role in --json: its slot, or what it is without one. */
static void json_role(struct json *j, const struct md_super *s)
{
	if (s->role >= 0)
		json_int(j, "role", s->role);
	else
		json_str(j, "role", s->role == ROLE_FAULTY ? "faulty" : s->role == ROLE_JOURNAL ? "journal" : "spare");
}

/* The states stripe refuses, and a reshape's fields. */
static void json_member_unsupported(struct json *j, const struct md_super *s)
{
	const char *names[8];
	int n = member_unimplemented(s, names, 8), i;
	struct md_reshape r;
	char b[64];

	if (!n)
		return;
	json_array(j, "unsupported");
	for (i = 0; i < n; i++)
		json_str(j, NULL, names[i]);
	json_close(j);
	if (!member_reshaping(s))
		return;
	super_reshape(s, &r);
	json_object(j, "reshape");
	json_uint(j, "position_sectors", r.position);
	json_int(j, "delta_disks", r.delta_disks);
	json_str(j, "new_level", level_name(r.new_level));
	json_int(j, "new_layout", r.new_layout);
	json_str(j, "new_layout_name", name_or(layout_name(r.new_level, r.new_layout, b, sizeof(b)), ""));
	json_uint(j, "new_chunk_bytes", r.new_chunk * 512);
	if (r.moves_data)
		json_int(j, "new_offset_sectors", r.new_offset);
	else
		json_null(j, "new_offset_sectors");
	json_bool(j, "backwards", r.backwards);
	json_close(j);
}

static void json_text_or_null(struct json *j, const char *key, const char *v)
{
	if (v[0])
		json_str(j, key, v);
	else
		json_null(j, key);
}

/* "identity": the member's kind and label, every key present (null when
 * not known or not its kind's). */
static void json_identity(struct json *j, const struct identity *id)
{
	char text[sizeof(id->backing) + 1024];
	bool blk = id->kind != IDENT_FILE;
	struct identity_field f[IDENT_FIELDS];
	int i;

	json_object(j, "identity");
	json_str(j, "kind", identity_kind_name(id->kind));
	identity_describe(id, text, sizeof(text));
	json_str(j, "description", text);
	if (blk) {
		json_uint(j, "major", id->major);
		json_uint(j, "minor", id->minor);
	} else {
		json_null(j, "major");
		json_null(j, "minor");
	}
	if (id->partition)
		json_int(j, "partition", id->partition);
	else
		json_null(j, "partition");
	identity_fields(id, f);
	for (i = 0; i < IDENT_FIELDS; i++)
		json_text_or_null(j, f[i].name, f[i].value);
	json_close(j);
}

static void json_member(struct json *j, const struct member *m, const struct member_extra *x)
{
	const struct md_super *s = &m->sb;
	char b[64], u[36], name[NAME_SHOWN];
	int i;

	json_object(j, NULL);
	json_str(j, "path", m->path);
	json_str(j, "state", member_state_name(m->state));
	if (m->reason[0])
		json_str(j, "reason", m->reason);
	if (x->has_id)
		json_identity(j, &x->id);
	else
		json_null(j, "identity");
	if (!m->has_sb) {
		json_close(j);
		return;
	}
	json_str(j, "magic", "a92b4efc");
	json_str(j, "metadata", super_version(s, b, sizeof(b)));
	json_uint(j, "feature_map", s->feature_map);
	super_uuid_str(s->uuid, u);
	json_str(j, "array_uuid", u);
	json_str(j, "name", printable_name(s->name, name, sizeof(name)));
	json_uint(j, "creation_time_s", s->ctime);
	json_uint(j, "update_time_s", s->utime);
	json_str(j, "level", level_name(s->level));
	json_int(j, "layout", s->layout);
	json_str(j, "layout_name", layout_str(s, b, sizeof(b)));
	json_uint(j, "chunk_size_bytes", (unsigned long long)s->chunk_sectors * 512);
	json_int(j, "raid_devices", s->raid_disks);
	json_uint(j, "avail_dev_size_sectors", s->data_size);
	json_uint(j, "used_dev_size_sectors", s->size);
	json_uint(j, "array_size_bytes", member_array_bytes(s));
	json_uint(j, "data_offset_sectors", s->data_offset);
	json_uint(j, "super_offset_sectors", s->sb_sector);
	if (s->major == 1 && (s->feature_map & SB1_FEAT_RECOVERY_OFFSET))
		json_uint(j, "recovery_offset_sectors", s->recovery_offset);
	if (s->resync_offset == MD_MAX_SECTOR)
		json_null(j, "resync_offset_sectors");
	else
		json_uint(j, "resync_offset_sectors", s->resync_offset);
	json_str(j, "sb_state", s->resync_offset == MD_MAX_SECTOR ? "clean" : "active");
	super_uuid_str(s->device_uuid, u);
	json_str(j, "device_uuid", u);
	json_int(j, "dev_number", s->dev_number);
	json_role(j, s);
	json_uint(j, "events", s->events);
	json_object(j, "checksum");
	json_uint(j, "stored", s->csum_stored);
	json_uint(j, "computed", s->csum_computed);
	json_bool(j, "correct", s->csum_stored == s->csum_computed);
	json_close(j);
	array_state_str(s, b, sizeof(b));
	json_str(j, "array_state", b);
	json_member_unsupported(j, s);
	if (x->has_bitmap > 0) {
		json_object(j, "bitmap");
		json_uint(j, "offset_sectors", x->bitmap.sector);
		json_uint(j, "version", x->bitmap.version);
		json_uint(j, "events", x->bitmap.events);
		json_uint(j, "events_cleared", x->bitmap.events_cleared);
		json_uint(j, "chunk_bytes", x->bitmap.chunksize);
		json_uint(j, "sync_size_sectors", x->bitmap.sync_size);
		json_uint(j, "bits", x->bitmap.bits);
		json_uint(j, "dirty_bits", x->bitmap.dirty);
		json_uint(j, "state", x->bitmap.state);
		json_close(j);
	}
	if (x->has_bblog > 0) {
		json_object(j, "bad_block_log");
		json_uint(j, "offset_sectors", x->bblog.sector);
		json_int(j, "capacity", x->bblog.capacity);
		json_array(j, "ranges");
		for (i = 0; i < x->bblog.count; i++) {
			json_object(j, NULL);
			json_uint(j, "start_sectors", x->bblog.ranges[i].start);
			json_uint(j, "length_sectors", x->bblog.ranges[i].len);
			json_close(j);
		}
		json_close(j);
		json_close(j);
	}
	json_close(j);
}

static void json_array_view(struct json *j, const struct array *a)
{
	const struct md_super *s = a->ref;
	char b[64], u[36];
	int i;

	json_object(j, "array");
	super_uuid_str(s->uuid, u);
	json_str(j, "uuid", u);
	json_str(j, "level", level_name(s->level));
	json_int(j, "layout", a->geo.layout);
	json_str(j, "layout_name", name_or(layout_name(s->level, a->geo.layout, b, sizeof(b)), ""));
	json_uint(j, "chunk_size_bytes", (unsigned long long)s->chunk_sectors * 512);
	json_int(j, "raid_devices", s->raid_disks);
	json_uint(j, "size_bytes", a->geo.array_sectors * 512);
	json_uint(j, "component_size_sectors", a->geo.dev_sectors);
	json_str(j, "state", array_state_word(a));
	array_md_state(a, b, sizeof(b));
	json_str(j, "md_state", b);
	json_bool(j, "needs_resync", a->dirty);
	json_uint(j, "events", a->events);
	json_array(j, "roles");
	for (i = 0; i < s->raid_disks; i++) {
		json_object(j, NULL);
		json_int(j, "role", i);
		if (a->role[i])
			json_str(j, "path", a->role[i]->path);
		else
			json_null(j, "path");
		json_close(j);
	}
	json_close(j);
	json_array(j, "left_out");
	for (i = 0; i < a->nmembers; i++) {
		if (a->members[i].state == MEMBER_ACTIVE)
			continue;
		json_object(j, NULL);
		json_str(j, "path", a->members[i].path);
		json_str(j, "state", member_state_name(a->members[i].state));
		json_str(j, "reason", a->members[i].reason);
		json_close(j);
	}
	json_close(j);
	json_close(j);
}

/* The mke2fs options that give an ext2/3/4 on the array the stride and
 * stripe width mke2fs picks on md by itself (from the minimum and optimal
 * I/O sizes md advertises, counted in blocks, each only when larger than a
 * block), for 4 KiB blocks; empty where md advertises none (RAID1). */
static void mkfs_opts(const struct geometry *g, char *buf, size_t len)
{
	uint64_t min_io, opt_io, stride, width;

	geometry_io_hints(g, &min_io, &opt_io);
	stride = min_io > 4096 ? min_io / 4096 : 0;
	width = opt_io > 4096 ? opt_io / 4096 : 0;
	buf[0] = 0;
	if (stride && width)
		snprintf(buf, len, "-b 4096 -E stride=%llu,stripe_width=%llu", (unsigned long long)stride,
			 (unsigned long long)width);
	else if (stride || width)
		snprintf(buf, len, "-b 4096 -E %s=%llu", stride ? "stride" : "stripe_width",
			 (unsigned long long)(stride ? stride : width));
}

static void export_array(const struct array *a)
{
	const struct md_super *s = a->ref;
	char b[64], key[64], u[36], opts[128];
	int i;

	super_uuid_str(s->uuid, u);
	cli_export(stdout, "STRIPE_UUID", u);
	cli_export(stdout, "STRIPE_LEVEL", level_name(s->level));
	cli_export(stdout, "STRIPE_METADATA", super_version(s, b, sizeof(b)));
	cli_export(stdout, "STRIPE_LAYOUT", name_or(layout_name(s->level, a->geo.layout, b, sizeof(b)), ""));
	cli_export_u64(stdout, "STRIPE_CHUNK_BYTES", (unsigned long long)s->chunk_sectors * 512);
	cli_export_u64(stdout, "STRIPE_RAID_DEVICES", (unsigned long long)s->raid_disks);
	cli_export_u64(stdout, "STRIPE_SIZE_BYTES", a->geo.array_sectors * 512);
	cli_export(stdout, "STRIPE_STATE", array_state_word(a));
	array_md_state(a, b, sizeof(b));
	cli_export(stdout, "STRIPE_MD_STATE", b);
	cli_export_u64(stdout, "STRIPE_NEEDS_RESYNC", a->dirty);
	cli_export_u64(stdout, "STRIPE_EVENTS", a->events);
	mkfs_opts(&a->geo, opts, sizeof(opts));
	cli_export(stdout, "STRIPE_MKFS_OPTS", opts);
	for (i = 0; i < s->raid_disks; i++) {
		snprintf(key, sizeof(key), "STRIPE_ROLE_%d", i);
		cli_export(stdout, key, a->role[i] ? a->role[i]->path : "");
	}
}

/* STRIPE_MEMBER_<i>_<WHAT>, what given in either case. */
static void export_member_key(int i, const char *what, const char *v)
{
	char key[64];
	int n = snprintf(key, sizeof(key), "STRIPE_MEMBER_%d_", i);

	for (; *what && n + 1 < (int)sizeof(key); what++)
		key[n++] = (char)toupper((unsigned char)*what);
	key[n] = 0;
	cli_export(stdout, key, v);
}

/* Each member given, in order: its path, state and role, and which disk or
 * file it is (empty where not known), so a script can name the disk to pull. */
static void export_members(const struct array *a, const struct member_extra *x)
{
	char b[sizeof(x->id.backing) + 1024];
	struct identity_field f[IDENT_FIELDS];
	int i, k;

	cli_export_u64(stdout, "STRIPE_MEMBERS", (unsigned long long)a->nmembers);
	for (i = 0; i < a->nmembers; i++) {
		const struct member *m = &a->members[i];
		const struct identity *id = &x[i].id;

		export_member_key(i, "PATH", m->path);
		export_member_key(i, "STATE", member_state_name(m->state));
		b[0] = 0;
		if (m->has_sb && m->sb.role >= 0)
			snprintf(b, sizeof(b), "%d", m->sb.role);
		else if (m->has_sb)
			snprintf(b, sizeof(b), "%s", m->sb.role == ROLE_FAULTY ? "faulty" :
				 m->sb.role == ROLE_JOURNAL ? "journal" : "spare");
		export_member_key(i, "ROLE", b);
		export_member_key(i, "KIND", x[i].has_id ? identity_kind_name(id->kind) : "");
		b[0] = 0;
		if (x[i].has_id)
			identity_describe(id, b, sizeof(b));
		export_member_key(i, "DESCRIPTION", b);
		b[0] = 0;
		if (id->partition)
			snprintf(b, sizeof(b), "%d", id->partition);
		export_member_key(i, "PARTITION", b);
		identity_fields(id, f);
		for (k = 0; k < IDENT_FIELDS; k++)
			export_member_key(i, f[k].name, f[k].value);
	}
}

enum output { OUT_TEXT, OUT_JSON, OUT_EXPORT };   /* what stdout holds */

/* --json's "verdict" for each exit status. */
static const char *const verdicts[] = {
	[EXIT_OK] = "healthy", [EXIT_PROBLEM] = "needs_attention", [EXIT_ERROR] = "error",
};

/* With --geometry the members have no record of their own: the SPEC is
 * the whole array, and this says so once wherever the records would be. */
#define SPEC_MEMBERS_NOTE \
	"from --geometry, no superblock read: per-member superblock details (metadata, UUIDs, events, bitmap, bad-block log) do not apply"

/* What a SPEC'd array has in place of a superblock's view: the SPEC as it
 * reads back, and each role's size and the data offset it gives. */
struct spec_view {
	const struct geometry_spec *spec;
	char text[4200];
};

static void print_spec_text(const struct array *a, const struct spec_view *v, int quiet)
{
	const struct geometry_spec *g = v->spec;
	char b1[64];
	int i;

	if (!quiet)
		printf("Members: %s.\n\n", SPEC_MEMBERS_NOTE);
	printf("Array from --geometry:\n");
	FIELD("Geometry", "%s", v->text);
	print_shape(&a->geo);
	if (g->level != 0)
		FIELD("Used Dev Size", "%llu sectors", (unsigned long long)a->geo.dev_sectors);
	FIELD("Data Offset", "%llu sectors", (unsigned long long)g->data_offset);
	array_md_state(a, b1, sizeof(b1));
	FIELD("State", "%s", b1);
	printf("\n");
	for (i = 0; i < g->raid_disks; i++) {
		snprintf(b1, sizeof(b1), "Role %d", i);
		if (g->level == 0 && a->geo.nzones > 1)
			FIELD(b1, "%s (%llu sectors)", a->role[i] ? a->role[i]->path : "missing",
			      (unsigned long long)geometry_spec_member_size(g, i));
		else
			FIELD(b1, "%s", a->role[i] ? a->role[i]->path : "missing");
	}
}

static void json_spec_view(struct json *j, const struct array *a, const struct spec_view *v)
{
	const struct geometry_spec *g = v->spec;
	char b[64];
	int i;

	json_str(j, "source", "geometry");
	json_str(j, "geometry", v->text);
	json_str(j, "members_note", SPEC_MEMBERS_NOTE);
	json_object(j, "array");
	json_str(j, "level", level_name(g->level));
	json_int(j, "layout", a->geo.layout);
	json_str(j, "layout_name", name_or(layout_name(g->level, a->geo.layout, b, sizeof(b)), ""));
	json_uint(j, "chunk_size_bytes", (unsigned long long)g->chunk_sectors * 512);
	json_int(j, "raid_devices", g->raid_disks);
	json_uint(j, "size_bytes", a->geo.array_sectors * 512);
	json_uint(j, "component_size_sectors", a->geo.dev_sectors);
	json_uint(j, "data_offset_sectors", g->data_offset);
	json_str(j, "state", array_state_word(a));
	array_md_state(a, b, sizeof(b));
	json_str(j, "md_state", b);
	json_array(j, "roles");
	for (i = 0; i < g->raid_disks; i++) {
		json_object(j, NULL);
		json_int(j, "role", i);
		if (a->role[i])
			json_str(j, "path", a->role[i]->path);
		else
			json_null(j, "path");
		json_uint(j, "data_size_sectors", geometry_spec_member_size(g, i));
		json_close(j);
	}
	json_close(j);
	json_close(j);
}

static void export_spec(const struct array *a, const struct spec_view *v)
{
	const struct geometry_spec *g = v->spec;
	char b[64], key[64], opts[128];
	int i;

	cli_export(stdout, "STRIPE_SOURCE", "geometry");
	cli_export(stdout, "STRIPE_GEOMETRY", v->text);
	cli_export(stdout, "STRIPE_LEVEL", level_name(g->level));
	cli_export(stdout, "STRIPE_LAYOUT", name_or(layout_name(g->level, a->geo.layout, b, sizeof(b)), ""));
	cli_export_u64(stdout, "STRIPE_CHUNK_BYTES", (unsigned long long)g->chunk_sectors * 512);
	cli_export_u64(stdout, "STRIPE_RAID_DEVICES", (unsigned long long)g->raid_disks);
	cli_export_u64(stdout, "STRIPE_SIZE_BYTES", a->geo.array_sectors * 512);
	cli_export_u64(stdout, "STRIPE_DATA_OFFSET_SECTORS", g->data_offset);
	cli_export(stdout, "STRIPE_STATE", array_state_word(a));
	array_md_state(a, b, sizeof(b));
	cli_export(stdout, "STRIPE_MD_STATE", b);
	mkfs_opts(&a->geo, opts, sizeof(opts));
	cli_export(stdout, "STRIPE_MKFS_OPTS", opts);
	for (i = 0; i < g->raid_disks; i++) {
		snprintf(key, sizeof(key), "STRIPE_ROLE_%d", i);
		cli_export(stdout, key, a->role[i] ? a->role[i]->path : "");
	}
}

/* examine --geometry: the array the SPEC describes, 0 whole, 1 degraded or
 * failed, 2 when it cannot be formed. */
static int examine_spec(char *const *paths, int n, const struct geometry_spec *spec, enum output out,
			struct json_out *jo, int quiet)
{
	struct spec_view v = { .spec = spec };
	struct array a;
	struct diag d;
	int st;

	geometry_spec_print(spec, v.text, sizeof(v.text));
	if (array_open_spec(&a, paths, n, spec, &d) < 0) {
		fprintf(stderr, TOOL ": %s\n", d.msg);
		array_close(&a);
		json_out_end(jo, 1, "error", d.msg);
		return EXIT_ERROR;
	}
	st = a.state == ARRAY_CLEAN ? EXIT_OK : EXIT_PROBLEM;
	if (jo->on && json_out_begin(jo, 1) < 0) {
		st = EXIT_ERROR;
	} else if (jo->on) {
		json_spec_view(&jo->j, &a, &v);
		if (json_out_end(jo, 1, verdicts[st], NULL) < 0)
			st = EXIT_ERROR;
	}
	if (out == OUT_EXPORT)
		export_spec(&a, &v);
	else if (out == OUT_TEXT)
		print_spec_text(&a, &v, quiet);
	array_close(&a);
	return st;
}

/* A bitmap or bad-block log that cannot be read is shown as such and
 * needs attention, like a member left out. */
static int exit_status(const struct array *a, const struct member_extra *x, int formed)
{
	int i, st = EXIT_OK;

	if (!formed)
		return EXIT_ERROR;
	for (i = 0; i < a->nmembers; i++) {
		enum member_state s = a->members[i].state;

		if (s == MEMBER_INVALID)
			return EXIT_ERROR;
		if ((s != MEMBER_ACTIVE && s != MEMBER_SPARE) || x[i].has_bitmap < 0 || x[i].has_bblog < 0)
			st = EXIT_PROBLEM;
	}
	return a->state != ARRAY_CLEAN ? EXIT_PROBLEM : st;
}

/* --scan: md members among the paths given (or the machine's block
 * devices libblkid names linux_raid_member), grouped as mdadm groups them. */
struct scan_run {
	struct md_scan found;
	int nskipped;
	struct { char *path; char reason[512]; } *skipped;   /* paths holding no member */
	int status;
};

static void scan_skip(struct scan_run *r, const char *path, const char *reason, int status)
{
	void *p = realloc(r->skipped, (size_t)(r->nskipped + 1) * sizeof(*r->skipped));

	fprintf(stderr, TOOL ": %s\n", reason);
	if (status > r->status)
		r->status = status;
	if (!p)
		return;
	r->skipped = p;
	r->skipped[r->nskipped].path = strdup(path);
	snprintf(r->skipped[r->nskipped].reason, sizeof(r->skipped[0].reason), "%s", reason);
	r->nskipped += r->skipped[r->nskipped].path != NULL;
}

/* A path that cannot be opened is an error (2); one holding no md
 * superblock needs attention (1), as the user named it a member. */
static int scan_path(struct scan_run *r, const char *path)
{
	struct md_super sb;
	struct dev dv = { .fd = -1 };
	struct diag d;
	int rc;

	if (dev_open(&dv, path, DEV_READ, &d) < 0) {
		scan_skip(r, path, d.msg, EXIT_ERROR);
		return 0;
	}
	rc = scan_load(&dv, &sb, &d);
	dev_close(&dv);
	if (rc < 0) {
		scan_skip(r, path, d.msg, EXIT_PROBLEM);
		return 0;
	}
	if (scan_add(&r->found, path, &sb, &d) < 0) {
		fprintf(stderr, TOOL ": %s\n", d.msg);
		return -1;
	}
	return 0;
}

/* The ARRAY line as text, without its last newline: --json's "conf". */
static char *conf_text(const struct md_scan *s, const struct scan_array *a, bool brief)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return NULL;
	scan_print_line(f, s, a, brief);
	if (fclose(f) != 0)
		return NULL;
	if (len && text[len - 1] == '\n')
		text[len - 1] = 0;
	return text;
}

static void json_scan_member(struct json *j, const struct scan_member *m)
{
	const struct md_super *s = &m->sb;

	json_object(j, NULL);
	json_str(j, "path", m->path);
	json_int(j, "dev_number", s->dev_number);
	json_role(j, s);
	json_uint(j, "events", s->events);
	json_bool(j, "in_sync", super_mdadm_in_sync(s));
	json_close(j);
}

static void json_scan_array(struct json *j, const struct md_scan *s, const struct scan_array *a, bool brief)
{
	const struct md_super *sb = scan_array_super(s, a);
	char b[64], u[36], name[NAME_SHOWN], *conf = conf_text(s, a, brief);
	int i;

	json_object(j, NULL);
	json_str(j, "metadata", super_version(sb, b, sizeof(b)));
	super_uuid_str(sb->uuid, u);
	json_str(j, "uuid", u);
	if (sb->major == 1)
		json_str(j, "name", printable_name(sb->name, name, sizeof(name)));
	else
		json_null(j, "name");
	scan_device_name(sb, b, sizeof(b));
	if (b[0])
		json_str(j, "device", b);
	else
		json_null(j, "device");
	json_str(j, "level", level_name(sb->level));
	json_int(j, "raid_devices", sb->raid_disks);
	json_int(j, "spares", a->spares);
	json_str(j, "conf", conf ? conf : "");
	free(conf);
	json_array(j, "members");
	for (i = 0; i < a->nmembers; i++)
		json_scan_member(j, &s->members[a->members[i]]);
	json_close(j);
	json_close(j);
}

/* mdadm prints the arrays last found first. */
static void json_scan(struct json *j, const struct scan_run *r, bool brief)
{
	int i;

	json_array(j, "arrays");
	for (i = r->found.narrays - 1; i >= 0; i--)
		json_scan_array(j, &r->found, &r->found.arrays[i], brief);
	json_close(j);
	json_array(j, "not_members");
	for (i = 0; i < r->nskipped; i++) {
		json_object(j, NULL);
		json_str(j, "path", r->skipped[i].path);
		json_str(j, "reason", r->skipped[i].reason);
		json_close(j);
	}
	json_close(j);
}

static void scan_run_free(struct scan_run *r)
{
	int i;

	for (i = 0; i < r->nskipped; i++)
		free(r->skipped[i].path);
	free(r->skipped);
	scan_free(&r->found);
}

/* The paths to look at: those given, or the block devices libblkid finds. */
static int scan_paths(char *const *given, int n, char ***paths, bool *owned, struct diag *d)
{
	*owned = n == 0;
	if (n > 0) {
		*paths = (char **)given;
		return n;
	}
	return blkscan_type("linux_raid_member", paths, d);
}

static int examine_scan(char *const *given, int ngiven, bool brief, enum output out, struct json_out *jo,
			int quiet)
{
	struct scan_run r = { .status = EXIT_OK };
	char **paths;
	bool owned, failed = false;
	struct diag d;
	int n = scan_paths(given, ngiven, &paths, &owned, &d), i;

	if (n < 0) {
		fprintf(stderr, TOOL ": %s\n", d.msg);
		json_out_end(jo, 1, "error", d.msg);
		return EXIT_ERROR;
	}
	for (i = 0; i < n && !failed; i++)
		failed = scan_path(&r, paths[i]) < 0;
	if (owned)
		blkscan_free(paths, n);
	if (failed) {
		json_out_end(jo, 1, "error", NULL);
		scan_run_free(&r);
		return EXIT_ERROR;
	}
	if (!ngiven && !r.found.narrays && !quiet)
		fprintf(stderr, TOOL ": no md member among the block devices libblkid lists%s\n",
			geteuid() ? " (reading them needs root)" : "");
	if (jo->on && json_out_begin(jo, 1) < 0) {
		r.status = EXIT_ERROR;
	} else if (jo->on) {
		json_scan(&jo->j, &r, brief);
		if (json_out_end(jo, 1, verdicts[r.status], NULL) < 0)
			r.status = EXIT_ERROR;
	}
	for (i = r.found.narrays - 1; out == OUT_TEXT && i >= 0; i--)
		scan_print_line(stdout, &r.found, &r.found.arrays[i], brief);
	n = r.status;
	scan_run_free(&r);
	return n;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", optional_argument, NULL, 'j' },
		{ "export", no_argument, NULL, 'e' },
		{ "raid0-layout", required_argument, NULL, 'R' },
		{ "geometry", required_argument, NULL, 'G' },
		{ "scan", no_argument, NULL, 's' },
		{ "brief", no_argument, NULL, 'b' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct array_options aopt = { .mode = DEV_READ };
	struct geometry_spec spec, *given_spec = NULL;
	enum output out = OUT_TEXT;
	int c, quiet = 0, verbose = 0, formed, i, st;
	bool scan = false, brief = false;
	struct member_extra *extra;
	struct array a;
	struct json_out jo = { 0 };
	struct diag d;

	atexit(cli_close_stdout);
	cli_getopt_name(argv, TOOL);
	while ((c = getopt_long(argc, argv, "sqvhV", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			if (json_out_option(&jo, TOOL, optarg) < 0)
				return EXIT_ERROR;
			if (!json_out_human(&jo))
				out = OUT_JSON;
			break;
		case 'e':
			/* it and --json alone are both stdout: the last one wins */
			out = OUT_EXPORT;
			if (!json_out_human(&jo))
				jo = (struct json_out){ 0 };
			break;
		case 'R':
			if ((aopt.raid0_layout = cli_raid0_layout(optarg)) < 0) {
				fprintf(stderr, TOOL ": --raid0-layout: '%s' is neither original nor alternate\n", optarg);
				return EXIT_ERROR;
			}
			break;
		case 'G':
			if (geometry_spec_parse(optarg, &spec, &d) < 0) {
				fprintf(stderr, TOOL ": %s\n", d.msg);
				json_out_end(&jo, 1, "error", d.msg);
				return EXIT_ERROR;
			}
			given_spec = &spec;
			break;
		case 's': scan = true; break;
		case 'b': brief = true; break;
		case 'q': quiet = 1; break;
		case 'v': verbose = 1; break;
		case 'h': usage(stdout); return EXIT_OK;
		case 'V': cli_version(TOOL); return EXIT_OK;
		default: return cli_usage_error(TOOL, NULL);
		}
	}
	/* --brief alone is mdadm's -Eb: the lines of the members named */
	if ((scan || brief) && (given_spec || out == OUT_EXPORT || aopt.raid0_layout))
		return cli_usage_error(TOOL, "--%s: not with --%s", scan ? "scan" : "brief",
				       given_spec ? "geometry" : out == OUT_EXPORT ? "export" : "raid0-layout");
	if (!scan && cli_need_members(TOOL, argc - optind) < 0)
		return EXIT_ERROR;
	/* the report must not land on a member: no document is written there */
	if (jo.path && cli_refuse_output(TOOL, jo.path, argv + optind, argc - optind) < 0)
		return EXIT_ERROR;
	if (given_spec && aopt.raid0_layout) {
		fprintf(stderr, TOOL ": --geometry: not with --raid0-layout; give raid0-layout in the SPEC\n");
		json_out_end(&jo, 1, "error", NULL);
		return EXIT_ERROR;
	}
	if (scan || brief)
		return examine_scan(argv + optind, argc - optind, brief, out, &jo, quiet);
	if (given_spec)
		return examine_spec(argv + optind, argc - optind, given_spec, out, &jo, quiet);
	formed = array_open(&a, argv + optind, argc - optind, &aopt, &d) == 0;
	extra = calloc((size_t)a.nmembers, sizeof(*extra));
	if (!extra || !a.members) {
		fprintf(stderr, TOOL ": %s\n", a.members ? "out of memory" : d.msg);
		json_out_end(&jo, 1, "error", a.members ? "out of memory" : d.msg);
		return EXIT_ERROR;
	}
	for (i = 0; i < a.nmembers; i++) {
		load_extra(&a.members[i], &extra[i]);
		if (a.members[i].state == MEMBER_INVALID)
			fprintf(stderr, TOOL ": %s\n", a.members[i].reason);
		if (extra[i].has_bitmap < 0)
			fprintf(stderr, TOOL ": %s\n", extra[i].bitmap_err);
		if (extra[i].has_bblog < 0)
			fprintf(stderr, TOOL ": %s\n", extra[i].bblog_err);
	}
	/* with no superblock among them, each member's reason above is the
	 * whole story: the summary would say it again */
	if (!formed && any_superblock(&a))
		fprintf(stderr, TOOL ": %s\n", d.msg);
	st = exit_status(&a, extra, formed);
	if (jo.on && json_out_begin(&jo, 1) < 0) {
		st = EXIT_ERROR;
	} else if (jo.on) {
		json_array(&jo.j, "members");
		for (i = 0; i < a.nmembers; i++)
			json_member(&jo.j, &a.members[i], &extra[i]);
		json_close(&jo.j);
		if (formed)
			json_array_view(&jo.j, &a);
		if (json_out_end(&jo, 1, verdicts[st], formed ? NULL : d.msg) < 0)
			st = EXIT_ERROR;
	}
	if (out == OUT_EXPORT) {
		if (formed) {
			export_array(&a);
			export_members(&a, extra);
		}
	} else if (out == OUT_TEXT) {
		/* a member without a superblock has no record: stderr said why */
		for (i = 0; !quiet && i < a.nmembers; i++) {
			if (!a.members[i].has_sb)
				continue;
			print_member_text(&a, &a.members[i], &extra[i], verbose);
			printf("\n");
		}
		if (formed)
			print_array_text(&a);
	}
	for (i = 0; i < a.nmembers; i++)
		badblocks_free(&extra[i].bblog);
	free(extra);
	array_close(&a);
	return st;
}
