/* test_probe_anchor: the anchors' rules where a member is missing, on a
 * RAID5 of 6 holding a real ext4 (parity-first, 64K chunks: P on role 0
 * in every row, the filesystem's start on role 1).  P's XOR of
 * consecutive inode tables verifies as data chunk 0's where their inode
 * numbers cancel: with role 1 missing, that is no evidence that P's member
 * holds data chunk 0.  Row 0's other chunks made zero where the superblock
 * lies, so P holds a copy of it: no evidence either; with every member
 * given it still gives role 1 its member.  And with no primary superblock
 * left in the sample, the backups stand for it; a
 * superblock times g^slot, as a RAID6's Q holds one, reads as itself. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "probe/anchor.h"
#include "probe/backup.h"
#include "raid/parity.h"
#include "ext4_array.h"
#include "tap.h"

#define MEMBERS 6
#define LAYOUT 4                     /* md's parity-first */
#define CHUNK (64u << 10)
#define BUDGET (32ull << 20)
#define DATA_OFFSET 2048u            /* sectors: make-ext4-array's 1.2 default here */

static char dir[] = "/tmp/test_probe_anchor.XXXXXX";
static char paths[MEMBERS][EXT4_ARRAY_PATH];
static char missing[] = "missing";

static bool read_member(const char *path, void *buf, size_t len, uint64_t off)
{
	int fd = open(path, O_RDONLY);
	bool done = fd >= 0 && pread(fd, buf, len, (off_t)off) == (ssize_t)len;

	if (fd >= 0)
		close(fd);
	return done;
}

/* Does member i hold a superblock at the filesystem's start? */
static bool holds_superblock(int i)
{
	uint8_t raw[EXT4_SB_BYTES];
	struct ext4_sb sb;
	int fd = open(paths[i], O_RDONLY);
	bool held = fd >= 0 && pread(fd, raw, sizeof(raw), DATA_OFFSET * 512 + EXT4_SB_OFFSET) == sizeof(raw) &&
		    ext4_sb_parse(raw, &sb);

	if (fd >= 0)
		close(fd);
	return held;
}

/* The true geometry, its order left to the anchors. */
static struct geometry_spec open_order(void)
{
	struct geometry_spec g = { .level = MD_LEVEL_RAID5, .layout = LAYOUT, .raid_disks = MEMBERS,
				   .chunk_sectors = CHUNK / 512, .data_offset = DATA_OFFSET, .size = 18432 };   /* 10M members less the 1M offset */

	for (int r = 0; r < MEMBERS; r++)
		g.order[r] = PROBE_UNKNOWN;
	return g;
}

struct probed {
	struct probe_member m[MEMBERS];
	struct probe_sample s;
};

static int sample(struct probed *p, char *const *names)
{
	struct diag d;

	if (probe_members_open(names, MEMBERS, p->m, &d) < 0)
		return -1;
	if (probe_sample_read(&p->s, p->m, MEMBERS, BUDGET, &d) < 0) {
		probe_members_close(p->m, MEMBERS);
		return -1;
	}
	return 0;
}

static void unsample(struct probed *p)
{
	probe_sample_free(&p->s);
	probe_members_close(p->m, MEMBERS);
}

/* Pins the order with the ext4 primary the sample holds at the array's
 * data offset: -1 when there is none, else whether the anchors fit. */
static int pin(struct probed *p, struct geometry_spec *g, struct pin_tally *t)
{
	const struct probe_hints h = { .level = -1, .layout = -1, .data_offset = DATA_OFFSET };
	struct fs_primary pr[4];
	int n = anchor_find_primaries(&p->s, &h, pr, 4);

	for (int k = 0; k < n; k++)
		if (pr[k].kind == FS_EXT4)
			return anchor_pin(&p->s, &pr[k], g, t);
	return -1;
}

/* Row 0 made as parity keeps it where only data chunk 0 (role 1) holds
 * anything: the other data chunks zero and P (role 0) a copy of it, at
 * the superblock's place (mke2fs leaves that or not, by the files). */
static bool row_zero_but_the_superblock(void)
{
	static const uint8_t zero[EXT4_SB_BYTES];
	uint8_t raw[EXT4_SB_BYTES];
	off_t at = DATA_OFFSET * 512 + EXT4_SB_OFFSET;
	int fd = open(paths[1], O_RDONLY);
	bool done = fd >= 0 && pread(fd, raw, sizeof(raw), at) == sizeof(raw);

	if (fd >= 0)
		close(fd);
	for (int i = 0; i < MEMBERS && done; i++) {
		if (i == 1)
			continue;
		fd = open(paths[i], O_WRONLY);
		done = fd >= 0 && pwrite(fd, i == 0 ? raw : zero, sizeof(raw), at) == sizeof(raw);
		if (fd >= 0)
			close(fd);
	}
	return done;
}

/* Every role the anchors decided has its true member (member i is role i). */
static bool decided_right(const struct geometry_spec *g)
{
	for (int r = 0; r < g->raid_disks; r++)
		if (g->order[r] != PROBE_UNKNOWN && g->order[r] != r)
			return false;
	return true;
}

static void parity_copy_is_no_data_evidence(void)
{
	char *names[MEMBERS] = { paths[0], missing, paths[2], paths[3], paths[4], paths[5] };
	struct geometry_spec g = open_order();
	struct pin_tally t;
	struct probed p;

	ok(row_zero_but_the_superblock() && holds_superblock(0) && holds_superblock(1),
	   "row 0's P (role 0) holds a copy of the superblock data chunk 0 (role 1) holds");
	if (sample(&p, names) < 0) {
		ok(0, "the members sampled");
		return;
	}
	int pinned = pin(&p, &g, &t);
	ok(pinned >= 0 && g.order[1] != 0,
	   "role 1 missing: the superblock's copy on P's member does not make that member data chunk 0's");
	ok(pinned >= 0 && decided_right(&g), "the roles the anchors decide are the true ones (%u found where placed)",
	   t.hits);
	unsample(&p);
}

static void data_member_given_pins_its_role(void)
{
	char *names[MEMBERS] = { paths[0], paths[1], paths[2], paths[3], paths[4], paths[5] };
	struct geometry_spec g = open_order();
	struct pin_tally t;
	struct probed p;

	if (sample(&p, names) < 0) {
		ok(0, "the members sampled");
		return;
	}
	ok(pin(&p, &g, &t) == 1 && g.order[1] == 1 && decided_right(&g),
	   "every member given: the superblock gives role 1 its member, though P holds a copy");
	unsample(&p);
}

/* P's copy overwritten, as when row 0's other chunks are not zero there:
 * with role 1 missing no primary is left in the sample. */
static void backups_stand_for_the_primary(void)
{
	char *names[MEMBERS] = { paths[0], missing, paths[2], paths[3], paths[4], paths[5] };
	const struct probe_hints h = { .level = -1, .layout = -1, .data_offset = UINT64_MAX };
	static const uint8_t other[EXT4_SB_BYTES] = { 1 };
	struct fs_primary pr[8];
	struct probed p;
	int fd = open(paths[0], O_WRONLY);
	bool cleared = fd >= 0 && pwrite(fd, other, sizeof(other), DATA_OFFSET * 512 + EXT4_SB_OFFSET) == sizeof(other);

	if (fd >= 0)
		close(fd);
	if (!cleared || sample(&p, names) < 0) {
		ok(0, "P's copy overwritten and the members sampled");
		return;
	}
	int nprimary = anchor_find_primaries(&p.s, &h, pr, 8), n = backup_find_primaries(&p.s, &h, pr, 8), at = -1;
	for (int k = 0; k < n && at < 0; k++)
		if (pr[k].data_offset == DATA_OFFSET)
			at = k;
	ok(nprimary == 0, "no primary superblock in the sample");
	ok(at >= 0 && pr[at].kind == FS_EXT4 && pr[at].sb.group == 0 && pr[at].fs_offset == 0,
	   "a backup stands for the primary at the true data offset (%d data offsets fit)", n);
	struct geometry_spec g = open_order();
	struct pin_tally t;
	if (at >= 0)
		anchor_pin(&p.s, &pr[at], &g, &t);
	ok(at >= 0 && !t.misses && decided_right(&g), "and its anchors find no role wrong (%u found where placed)",
	   at >= 0 ? t.hits : 0);
	unsample(&p);
}

/* Does member i's block at member byte at verify as the inode-table
 * block whose first inode is first? */
static bool inode_block_at(const struct ext4_sb *sb, int i, uint64_t at, uint32_t first, uint8_t *block)
{
	unsigned good, bad;

	if (!read_member(paths[i], block, sb->block_size, at))
		return false;
	ext4_inode_block_check(sb, first, block, &good, &bad);
	return good && !bad;
}

/* The inode-table blocks of group 0's descriptor block that lie in a
 * row's data chunk 0 (role 1) and that P (role 0) holds as valid inodes
 * of the same numbers though its bytes differ: the row's other chunks are
 * not zero there, and the XOR of their tables still verifies.  -1 when
 * the filesystem cannot be read. */
static int parity_lookalikes(void)
{
	uint8_t raw[EXT4_SB_BYTES], gdt[4096], data[4096], parity[4096];
	uint64_t base = DATA_OFFSET * 512ull;
	struct ext4_sb sb;
	struct ext4_desc desc;
	int found = 0;

	if (!read_member(paths[1], raw, sizeof(raw), base + EXT4_SB_OFFSET) || !ext4_sb_parse(raw, &sb) ||
	    sb.block_size > sizeof(gdt) || ext4_gdt_offset(&sb, 0) + sb.block_size > CHUNK ||
	    !read_member(paths[1], gdt, sb.block_size, base + ext4_gdt_offset(&sb, 0)))
		return -1;
	uint32_t per_itable = sb.block_size / sb.inode_size;
	for (uint32_t k = 0; ext4_desc_read(&sb, 0, k, gdt, &desc); k++) {
		for (uint32_t b = 0; b * per_itable < desc.used_inodes; b++) {
			uint64_t x = (desc.inode_table + b) * sb.block_size, chunk = x / CHUNK;
			uint64_t at = base + chunk / (MEMBERS - 1) * CHUNK + x % CHUNK;
			uint32_t first = k * sb.inodes_per_group + 1 + b * per_itable;
			if (chunk % (MEMBERS - 1) == 0 && inode_block_at(&sb, 1, at, first, data) &&
			    inode_block_at(&sb, 0, at, first, parity) && memcmp(data, parity, sb.block_size) != 0)
				found++;
		}
	}
	return found;
}

static void parity_lookalike_is_no_data_evidence(void)
{
	char *names[MEMBERS] = { paths[0], missing, paths[2], paths[3], paths[4], paths[5] };
	const struct probe_hints h = { .level = -1, .layout = -1, .data_offset = DATA_OFFSET };
	struct geometry_spec g = open_order();
	struct fs_primary pr[8];
	struct pin_tally t = { 0 };
	struct probed p;
	int lookalikes = parity_lookalikes();

	ok(lookalikes > 0, "P holds %d inode-table blocks of data chunk 0 that differ from them and verify",
	   lookalikes);
	if (sample(&p, names) < 0) {
		ok(0, "the members sampled");
		return;
	}
	int n = anchor_find_primaries(&p.s, &h, pr, 8);
	if (!n)
		n = backup_find_primaries(&p.s, &h, pr, 8);
	bool pinned = n > 0 && pr[0].kind == FS_EXT4 && anchor_pin(&p.s, &pr[0], &g, &t);
	ok(pinned && g.order[1] != 0,
	   "role 1 missing: P's look-alike inode tables do not make its member data chunk 0's");
	ok(pinned && decided_right(&g), "the roles the anchors decide are the true ones (%u found where placed)",
	   t.hits);
	unsample(&p);
}

/* Role 1's superblock (data chunk 0 is there) times g^3: read at power 3
 * or any power it is the same superblock; at another power, or changed in
 * one byte, it is none. */
static void scaled_superblock_reads_as_itself(void)
{
	uint8_t raw[EXT4_SB_BYTES], times[EXT4_SB_BYTES];
	struct ext4_sb sb, got;
	int fd = open(paths[1], O_RDONLY);
	bool read = fd >= 0 && pread(fd, raw, sizeof(raw), DATA_OFFSET * 512 + EXT4_SB_OFFSET) == sizeof(raw) &&
		    ext4_sb_parse(raw, &sb);

	if (fd >= 0)
		close(fd);
	ok(read, "role 1 holds the primary superblock");
	for (size_t k = 0; k < sizeof(raw); k++)
		times[k] = md_gf_mul(raw[k], md_gf_exp(3));
	ok(!ext4_sb_parse(times, &got), "times g^3 it is no superblock as it stands");
	ok(ext4_sb_parse_scaled(times, 3, &got) && ext4_same_fs(&got, &sb) && got.group == 0,
	   "read at power 3 it is the same superblock");
	ok(ext4_sb_parse_scaled(times, -1, &got) && ext4_same_fs(&got, &sb), "and at whatever power the magic shows");
	ok(!ext4_sb_parse_scaled(times, 2, &got), "at power 2 it is none");
	ok(ext4_sb_parse_scaled(raw, -1, &got) && !ext4_sb_parse_scaled(raw, 1, &got),
	   "the plain superblock reads at power 0 only");
	times[100] ^= 1;
	ok(!ext4_sb_parse_scaled(times, 3, &got), "one byte changed, its checksum fails");
}

int main(void)
{
	char cmd[128];

	if (!mkdtemp(dir) || make_ext4_array_as(dir, "a", "10M -l 5 -c 64K -p parity-first -e 1.2", MEMBERS, paths) < 0) {
		ok(0, "an ext4 array made in %s", dir);
		return tap_done();
	}
	parity_lookalike_is_no_data_evidence();
	parity_copy_is_no_data_evidence();
	data_member_given_pins_its_role();
	backups_stand_for_the_primary();
	scaled_superblock_reads_as_itself();
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "test_probe_anchor: %s left behind\n", dir);
	return tap_done();
}
