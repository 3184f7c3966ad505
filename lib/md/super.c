/* super: find a member's superblock, whichever version, and act on it
 * through that version's operations table (super0.c, super1.c). */
#include <stdio.h>
#include <string.h>

#include "md/super.h"
#include "util/endian.h"

const struct super_ops *super_ops_of(int major)
{
	return major == 1 ? &super1_ops : &super0_ops;
}

static const struct super_ops *ops(const struct md_super *sb)
{
	return super_ops_of(sb->major);
}

int super_role_of(const struct md_super *sb, int dev_number)
{
	return ops(sb)->role_of(sb, dev_number);
}

static int read_block(struct dev *dv, uint64_t sector, uint8_t *buf, struct diag *d)
{
	if ((sector + 8) * 512 > dv->size)
		return diag_fail(d, "%s: too small for a superblock at sector %llu (%llu bytes)",
				 dv->path, (unsigned long long)sector, (unsigned long long)dv->size);
	return dev_read(dv, buf, 4096, sector * 512, d);
}

/* Tries version o (1.minor); returns 1 if no superblock of it is there, 0
 * if one was loaded, -1 if one is there but broken. */
static int try_version(struct dev *dv, const struct super_ops *o, int minor, struct md_super *sb,
		       struct diag *d)
{
	uint64_t nsect = dv->size / 512, at = o->location(minor, nsect);
	uint8_t buf[4096];
	struct diag why;

	if (nsect < o->min_dev_sectors || (at + 8) * 512 > dv->size)
		return 1;
	if (read_block(dv, at, buf, d) < 0)
		return -1;
	sb->minor = minor;
	if (o->decode(buf, sb, &why) < 0) {
		if (strstr(why.msg, "magic"))
			return 1;
		return diag_fail(d, "%s: %s superblock at sector %llu: %s", dv->path, o->label,
				 (unsigned long long)at, why.msg);
	}
	sb->major = o->major;
	sb->sb_sector = at;
	sb->dev_sectors = nsect;
	if (o->validate(sb, dv->path, d) < 0)
		return -1;
	o->summarise(sb);
	return 0;
}

/* Every place a superblock can be, in the order md's tools look. */
static const struct { const struct super_ops *ops; int minor; } order[SUPER_PLACES] = {
	{ &super1_ops, 2 }, { &super1_ops, 1 }, { &super1_ops, 0 }, { &super0_ops, 90 },
};

int super_load_every(struct dev *dv, struct md_super sbs[SUPER_PLACES])
{
	struct diag ignored;
	int n = 0;

	for (size_t i = 0; i < SUPER_PLACES; i++) {
		memset(&sbs[n], 0, sizeof(sbs[n]));
		if (try_version(dv, order[i].ops, order[i].minor, &sbs[n], &ignored) == 0)
			n++;
	}
	return n;
}

void super_places(uint64_t dev_sectors, uint64_t where[SUPER_PLACES])
{
	int i;

	for (i = 0; i < SUPER_PLACES; i++)
		where[i] = order[i].ops->location(order[i].minor, dev_sectors);
}

int super_load(struct dev *dv, struct md_super *sb, struct diag *d)
{
	size_t i;
	int rc;

	memset(sb, 0, sizeof(*sb));
	if (dv->size < 4096)
		return diag_fail(d, "%s: %llu bytes, too small to be an md member", dv->path,
				 (unsigned long long)dv->size);
	for (i = 0; i < SUPER_PLACES; i++) {
		rc = try_version(dv, order[i].ops, order[i].minor, sb, d);
		if (rc <= 0)
			return rc;
	}
	return diag_fail(d, "%s: no md superblock found (looked for 1.2 at sector 8, 1.1 at 0, 1.0 at %llu, 0.90 at %llu)",
			 dv->path, (unsigned long long)sb1_location(0, dv->size / 512),
			 (unsigned long long)sb0_location(dv->size / 512));
}

void super_encode(const struct md_super *sb, uint8_t buf[4096], size_t *len)
{
	memset(buf, 0, 4096);
	ops(sb)->encode(sb, buf, len);
}

/* Every version starts with md's magic; 0.90 in its host's byte order. */
bool super_is_md(const uint8_t *buf)
{
	uint32_t magic = get_le32(buf);

	return magic == MD_SB_MAGIC || __builtin_bswap32(magic) == MD_SB_MAGIC;
}

const char *super_version(const struct md_super *sb, char *buf, int len)
{
	if (sb->major == 0)
		snprintf(buf, (size_t)len, "0.%02d", sb->minor);
	else
		snprintf(buf, (size_t)len, "1.%d", sb->minor);
	return buf;
}

void super_uuid_str(const uint8_t u[16], char out[36])
{
	snprintf(out, 36, "%02x%02x%02x%02x:%02x%02x%02x%02x:%02x%02x%02x%02x:%02x%02x%02x%02x",
		 u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7],
		 u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
}

bool super_same_array(const struct md_super *a, const struct md_super *b)
{
	return memcmp(a->uuid, b->uuid, 16) == 0;
}

/* The summary fields from the raw superblock (after a change to sb->raw,
 * or after building one); major, minor, sb_sector and dev_sectors must be
 * set. */
static void super_refresh(struct md_super *sb)
{
	ops(sb)->summarise(sb);
}

void super_seal(struct md_super *sb)
{
	ops(sb)->seal(sb);
	super_refresh(sb);
}

void super_set_state(struct md_super *sb, uint64_t events, bool clean, uint64_t now)
{
	ops(sb)->set_state(sb, events, clean, now);
	super_seal(sb);
}

void super_keep_devices(struct md_super *sb, const int *present, int n)
{
	ops(sb)->keep_devices(sb, present, n);
	super_seal(sb);
}

int super_write(struct dev *dv, const struct md_super *sb, struct diag *d)
{
	uint8_t block[4096], enc[4096];
	uint64_t at = sb->sb_sector * 512;
	size_t len;

	super_encode(sb, enc, &len);
	if (dev_read(dv, block, sizeof(block), at, d) < 0)
		return -1;
	memcpy(block, enc, sb->major == 1 ? (len + 511) / 512 * 512 : len);
	if (dev_write(dv, block, sizeof(block), at, d) < 0)
		return -1;
	return dev_sync(dv, d);
}

/* What mdadm reads of a superblock beyond struct md_super, for the lines
 * stripe-examine --scan prints (scan.c, conf_line.c). */

/* mdp_super_t's gvalid_words, which mdadm compares beside the version */
#define SB0_GVALID_WORDS 4

static bool mdadm_same1(const struct sb1 *a, const struct sb1 *b)
{
	return memcmp(a->set_uuid, b->set_uuid, 16) == 0 && a->ctime == b->ctime && a->level == b->level &&
	       a->layout == b->layout && a->size == b->size && a->chunksize == b->chunksize &&
	       a->raid_disks == b->raid_disks;
}

static bool mdadm_same0(const struct md_super *a, const struct md_super *b)
{
	static const int words[] = { SB0_MAJOR, SB0_MINOR, SB0_PATCH, SB0_GVALID_WORDS,
				     SB0_CTIME, SB0_LEVEL, SB0_SIZE, SB0_RAID_DISKS };
	size_t i;

	if (!super_same_array(a, b))
		return false;
	for (i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (a->raw.v0.w[words[i]] != b->raw.v0.w[words[i]])
			return false;
	return true;
}

bool super_mdadm_same_array(const struct md_super *a, const struct md_super *b)
{
	if (a->major != b->major)
		return false;
	return a->major == 1 ? mdadm_same1(&a->raw.v1, &b->raw.v1) : mdadm_same0(a, b);
}

bool super_mdadm_in_sync(const struct md_super *s)
{
	const struct sb1 *r = &s->raw.v1;
	uint16_t role;

	if (s->major == 0)
		return (sb0_disk(&s->raw.v0, -1, SB0_D_STATE) >> SB0_DS_SYNC) & 1;
	/* a device number past the table is faulty to mdadm */
	if (r->dev_number >= r->max_dev)
		return false;
	role = r->dev_roles[r->dev_number];
	return role != SB1_ROLE_SPARE && role != SB1_ROLE_FAULTY && role != SB1_ROLE_JOURNAL;
}

int super_preferred_minor(const struct md_super *s)
{
	return s->major == 0 ? (int)s->raw.v0.w[SB0_MD_MINOR] : -1;
}
