/* test_probe_content: the probe's filesystem evidence on one RAID5 holding
 * a real ext4 (tests/probe/make-ext4-array, superblocks zeroed), the run
 * the sanitizers watch: a superblock read from raw bytes and refused when
 * a byte changes; the geometry found from the filesystem alone, and with a
 * member missing; a wrong complete candidate rescored below the original;
 * random members give no candidate and say so.  And the volumes and XFS
 * headers read from raw bytes built here: a GPT header and a LUKS header
 * found where they lie, an XFS superblock and AGF, each refused when a
 * byte changes. */
#include <ext2fs/ext2fs.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "probe/evidence.h"
#include "probe/ext4.h"
#include "probe/volume.h"
#include "probe/xfs.h"
#include "ext4_array.h"
#include "tap.h"
#include "util/endian.h"

#define MEMBERS EXT4_ARRAY_MEMBERS
#define BUDGET (8ull << 20)

static char dir[] = "/tmp/test_probe_content.XXXXXX";
static char paths[MEMBERS][EXT4_ARRAY_PATH];

/* The array's geometry as DIR/truth says, size left to the search. */
static int truth(struct geometry_spec *g)
{
	char path[200], line[512] = "";
	struct diag d;
	FILE *f;

	snprintf(path, sizeof(path), "%s/a/truth", dir);
	if (!(f = fopen(path, "r")))
		return -1;
	if (!fgets(line, sizeof(line), f))
		line[0] = 0;
	fclose(f);
	line[strcspn(line, "\n")] = 0;
	if (geometry_spec_parse(line, g, &d) < 0)
		return -1;
	g->size = 0;
	return 0;
}

static bool same(const struct geometry_spec *a, const struct geometry_spec *b)
{
	char x[256], y[256];

	geometry_spec_print(a, x, sizeof(x));
	geometry_spec_print(b, y, sizeof(y));
	return strcmp(x, y) == 0;
}

/* probe_content on the members named (NULL for "missing") with r as given. */
static int run(char *const *names, int n, struct probe_result *r)
{
	struct probe_hints h = { .level = -1, .layout = -1, .data_offset = UINT64_MAX };
	struct probe_member m[MEMBERS];
	struct probe_sample s;
	struct diag d;
	int rc = -1;

	if (probe_members_open(names, n, m, &d) < 0)
		return -1;
	if (probe_sample_read(&s, m, n, BUDGET, &d) == 0) {
		rc = probe_content(&s, &h, r, &d);
		probe_sample_free(&s);
	}
	probe_members_close(m, n);
	return rc;
}

/* right-asymmetric keeps row 0's parity on role 0: the array's first
 * chunk, and the primary superblock, are on role 1. */
static void superblock_from_raw_bytes(const struct geometry_spec *want)
{
	uint8_t raw[EXT4_SB_BYTES];
	struct ext4_sb sb;
	int fd = open(paths[1], O_RDONLY);
	off_t at = (off_t)want->data_offset * 512 + EXT4_SB_OFFSET;
	bool read_ok = fd >= 0 && pread(fd, raw, sizeof(raw), at) == sizeof(raw);

	if (fd >= 0)
		close(fd);
	ok(read_ok && ext4_sb_parse(raw, &sb) && sb.group == 0 && sb.csum,
	   "the primary superblock on role 1 parses from raw bytes, group 0, metadata_csum");
	raw[100] ^= 1;
	ok(!ext4_sb_parse(raw, &sb), "one byte changed, its checksum refuses it");
}

static void found_from_the_filesystem_alone(const struct geometry_spec *want)
{
	char *names[MEMBERS];
	static struct probe_result r;

	for (int i = 0; i < MEMBERS; i++)
		names[i] = paths[i];
	memset(&r, 0, sizeof(r));
	ok(run(names, MEMBERS, &r) == 0 && r.ncand > 0 && same(&r.cand[0].spec, want) && r.cand[0].score == 1,
	   "an empty result gets the exact geometry on top, score 1");
	ok(r.ncand > 0 && strncmp(r.cand[0].evidence[0], "ext4: ", 6) == 0, "with its ext4 evidence: %s",
	   r.ncand ? r.cand[0].evidence[0] : "none");
}

static void found_with_a_member_missing(const struct geometry_spec *want)
{
	char *names[MEMBERS], missing[] = "missing";
	static struct probe_result r;
	struct geometry_spec g = *want;

	for (int i = 0; i < MEMBERS; i++)
		names[i] = i == 3 ? missing : paths[i];
	g.order[3] = SPEC_MISSING;
	memset(&r, 0, sizeof(r));
	ok(run(names, MEMBERS, &r) == 0 && r.ncand > 0 && same(&r.cand[0].spec, &g) && r.cand[0].score == 1,
	   "member 3 given as missing: the same geometry, role 3 missing, read through parity");
}

static void wrong_candidate_rescored(const struct geometry_spec *want)
{
	char *names[MEMBERS];
	static struct probe_result r;
	struct probe_candidate wrong = { .spec = *want, .score = 1, .metadata = 120 };

	for (int i = 0; i < MEMBERS; i++)
		names[i] = paths[i];
	wrong.spec.chunk_sectors *= 2;
	wrong.spec.order[0] = 1;
	wrong.spec.order[1] = 0;
	memset(&r, 0, sizeof(r));
	probe_result_add(&r, &wrong);
	bool found = run(names, MEMBERS, &r) == 0 && r.ncand > 1 && same(&r.cand[0].spec, want);
	double wrong_score = -1;
	for (int k = 0; k < r.ncand; k++)
		if (same(&r.cand[k].spec, &wrong.spec))
			wrong_score = r.cand[k].score;
	ok(found && wrong_score == 0, "a wrong complete candidate is rescored to %.3f, the original on top",
	   wrong_score);
}

static void nothing_on_random_members(void)
{
	char names[4][64], *p[4], cmd[320];
	static struct probe_result r;

	for (int i = 0; i < 4; i++) {
		snprintf(names[i], sizeof(names[i]), "%s/r%d.img", dir, i);
		p[i] = names[i];
		snprintf(cmd, sizeof(cmd), "head -c 4M /dev/urandom >%s", names[i]);
		if (system(cmd) != 0)
			names[i][0] = 0;
	}
	memset(&r, 0, sizeof(r));
	ok(run(p, 4, &r) == 0 && r.ncand == 0 && r.nundecided == 1 &&
	   strcmp(r.undecided[0], "no ext4 superblock found in the sample") == 0,
	   "random members: no candidate, and one line saying no ext4 was found");
}

/* One member whose bytes are all in the sample's one window. */
struct one_member {
	struct probe_member m;
	struct probe_window w;
	struct probe_sample s;
	uint8_t buf[64 << 10];
};

static void one_member_init(struct one_member *o)
{
	memset(o, 0, sizeof(*o));
	o->m.path = "raw";
	o->m.dev.size = sizeof(o->buf);
	o->w = (struct probe_window){ .offset = 0, .len = sizeof(o->buf) };
	o->w.buf[0] = o->buf;
	o->s = (struct probe_sample){ .nmembers = 1, .members = &o->m, .nwindows = 1, .windows = &o->w };
}

static void put_be(uint8_t *p, uint64_t v, int bytes)
{
	for (int k = bytes - 1; k >= 0; k--, v >>= 8)
		p[k] = (uint8_t)v;
}

static uint32_t crc32_ieee(const uint8_t *p, size_t len)
{
	uint32_t crc = ~0u;

	for (size_t i = 0; i < len; i++) {
		crc ^= p[i];
		for (int b = 0; b < 8; b++)
			crc = crc >> 1 ^ (0xedb88320u & -(crc & 1));
	}
	return ~crc;
}

/* A GPT as data chunk 0 holds it, the array starting 8 sectors into the
 * member: its header at member sector 9, partition 1 at sector 2048. */
static void gpt_found_where_it_lies(void)
{
	static struct one_member o;
	struct probe_hints h = { .level = -1, .layout = -1, .data_offset = UINT64_MAX };
	struct volume v[2];

	one_member_init(&o);
	uint8_t *hdr = o.buf + 9 * 512, *entry = o.buf + 10 * 512;
	memcpy(hdr, "EFI PART", 8);
	put_le32(hdr + 8, 0x10000);
	put_le32(hdr + 12, 92);
	put_le64(hdr + 24, 1);
	put_le64(hdr + 32, 99999);
	put_le64(hdr + 72, 2);
	put_le32(hdr + 80, 128);
	put_le32(hdr + 84, 128);
	put_le32(hdr + 16, crc32_ieee(hdr, 92));
	put_le64(entry + 32, 2048);
	put_le64(entry + 40, 4095);
	int n = volume_find(&o.s, &h, v, 2);
	ok(n == 1 && v[0].kind == VOLUME_GPT && v[0].member == 0 && v[0].data_offset == 8 &&
	   v[0].fs_offset == 2048 * 512 && v[0].array_sectors == 100000,
	   "a GPT header gives the data offset, the partition's start and the array's size: %s", n ? v[0].what : "none");
	hdr[40] ^= 1;
	ok(volume_find(&o.s, &h, v, 2) == 0, "one byte of the GPT header changed, its CRC refuses it");
}

static void luks_found_where_it_lies(void)
{
	static struct one_member o;
	struct probe_hints h = { .level = -1, .layout = -1, .data_offset = UINT64_MAX };
	struct volume v[2];

	one_member_init(&o);
	memcpy(o.buf + 4096, "LUKS\xba\xbe\0\2", 8);
	int n = volume_find(&o.s, &h, v, 2);
	ok(n == 1 && v[0].kind == VOLUME_LUKS && v[0].data_offset == 8 && v[0].fs_offset == VOLUME_NONE &&
	   strcmp(v[0].what, "LUKS2") == 0, "a LUKS2 header at member byte 4096: data offset 8 sectors, nothing to read");
}

static void xfs_crc(uint8_t *raw, uint32_t len, uint32_t at)
{
	memset(raw + at, 0, 4);
	put_le32(raw + at, ~ext2fs_crc32c_le(~0u, raw, len));
}

/* A v5 XFS superblock of 4 groups of 4096 4 KiB blocks, and group 2's AGF. */
static void xfs_headers_from_raw_bytes(void)
{
	static uint8_t sb_raw[XFS_SECTOR_MAX], agf[512];
	static const uint8_t uuid[16] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };
	struct xfs_sb sb;

	memcpy(sb_raw, "XFSB", 4);
	put_be(sb_raw + 4, 4096, 4);
	put_be(sb_raw + 8, 4 * 4096, 8);
	memcpy(sb_raw + 32, uuid, 16);
	put_be(sb_raw + 56, 128, 8);
	put_be(sb_raw + 84, 4096, 4);
	put_be(sb_raw + 88, 4, 4);
	put_be(sb_raw + 100, 0xb4a5, 2);
	put_be(sb_raw + 102, 512, 2);
	put_be(sb_raw + 104, 512, 2);
	sb_raw[123] = 3;
	sb_raw[124] = 12;
	xfs_crc(sb_raw, 512, 224);
	bool parsed = xfs_sb_parse(sb_raw, &sb);
	ok(parsed && sb.v5 && sb.ag_count == 4 && xfs_header_offset(&sb, 2, XFS_AGF) == 2ull * 4096 * 4096 + 512 &&
	   xfs_inode_offset(&sb, 128) == 16 * 4096, "a v5 XFS superblock parses: its groups, headers and inodes placed");
	memcpy(agf, "XAGF", 4);
	put_be(agf + 4, 1, 4);
	put_be(agf + 8, 2, 4);
	memcpy(agf + 64, uuid, 16);
	xfs_crc(agf, 512, 216);
	ok(parsed && xfs_header_check(&sb, XFS_AGF, 2, agf) && !xfs_header_check(&sb, XFS_AGF, 1, agf),
	   "group 2's AGF is group 2's, not group 1's");
	agf[100] ^= 1;
	ok(parsed && !xfs_header_check(&sb, XFS_AGF, 2, agf), "one byte of the AGF changed, its CRC refuses it");
	sb_raw[20] ^= 1;
	ok(!xfs_sb_parse(sb_raw, &sb), "one byte of the superblock changed, its CRC refuses it");
}

int main(void)
{
	struct geometry_spec want;
	char cmd[128];

	gpt_found_where_it_lies();
	luks_found_where_it_lies();
	xfs_headers_from_raw_bytes();

	if (!mkdtemp(dir) || make_ext4_array(dir, paths) < 0 || truth(&want) < 0) {
		ok(0, "an ext4 array made in %s", dir);
		return tap_done();
	}
	superblock_from_raw_bytes(&want);
	found_from_the_filesystem_alone(&want);
	found_with_a_member_missing(&want);
	wrong_candidate_rescored(&want);
	nothing_on_random_members();
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "test_probe_content: %s left behind\n", dir);
	return tap_done();
}
