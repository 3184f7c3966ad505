/* super0: the v0.90 md superblock: its codec, checksum and checks, where it
 * sits, and the operations table create and recovery record members by. */
#include <string.h>

#include "util/endian.h"
#include "md/layout.h"
#include "md/super.h"

static uint32_t swab32(uint32_t v)
{
	return __builtin_bswap32(v);
}

int sb0_decode(const uint8_t *buf, struct sb0 *sb, struct diag *d)
{
	uint32_t magic = get_le32(buf);
	int i;

	memset(sb, 0, sizeof(*sb));
	if (magic != MD_SB_MAGIC && swab32(magic) != MD_SB_MAGIC)
		return diag_fail(d, "bad magic 0x%08x, expected 0x%08x", magic, MD_SB_MAGIC);
	sb->swapped = magic != MD_SB_MAGIC;
	for (i = 0; i < SB0_BYTES / 4; i++) {
		uint32_t v = get_le32(buf + 4 * i);

		sb->w[i] = sb->swapped ? swab32(v) : v;
	}
	if (sb->w[SB0_MAJOR] != 0)
		return diag_fail(d, "major version %u, expected 0", sb->w[SB0_MAJOR]);
	return 0;
}

void sb0_encode(const struct sb0 *sb, uint8_t *buf)
{
	int i;

	for (i = 0; i < SB0_BYTES / 4; i++)
		put_le32(buf + 4 * i, sb->swapped ? swab32(sb->w[i]) : sb->w[i]);
}

uint32_t sb0_csum(const struct sb0 *sb)
{
	uint64_t sum = 0;
	int i;

	for (i = 0; i < SB0_BYTES / 4; i++)
		sum += i == SB0_CSUM ? 0 : sb->w[i];
	return (uint32_t)((sum & 0xffffffffu) + (sum >> 32));
}

/* A big-endian host declares events_hi before events_lo, so the 64-bit count
 * is a native u64 on either kind of host. */
uint64_t sb0_events(const struct sb0 *sb)
{
	uint64_t a = sb->w[SB0_EVENTS_A], b = sb->w[SB0_EVENTS_B];

	return sb->swapped ? a << 32 | b : b << 32 | a;
}

uint32_t sb0_disk(const struct sb0 *sb, int n, enum sb0_disk_word i)
{
	int base = n < 0 ? SB0_THIS_DISK : SB0_DISKS_BASE + 32 * n;

	return sb->w[base + i];
}

uint64_t sb0_location(uint64_t dev_sectors)
{
	return dev_sectors < 256 ? 0 : (dev_sectors & ~(uint64_t)127) - 128;
}

int sb0_validate(const struct sb0 *sb, const char *path, uint64_t dev_sectors,
		 uint64_t sb_sector, struct diag *d)
{
	uint32_t csum = sb0_csum(sb), minor = sb->w[SB0_MINOR];
	int32_t level = (int32_t)sb->w[SB0_LEVEL];

	if (sb->w[SB0_CSUM] != csum)
		return diag_fail(d, "%s: superblock checksum 0x%08x, computed 0x%08x (sector %llu)",
				 path, sb->w[SB0_CSUM], csum, (unsigned long long)sb_sector);
	if (minor < 90 || minor > 91)
		return diag_fail(d, "%s: version 0.%u, expected 0.90 or 0.91", path, minor);
	if (sb->w[SB0_RAID_DISKS] > SB0_DISKS)
		return diag_fail(d, "%s: %u raid disks, 0.90 metadata holds at most %d",
				 path, sb->w[SB0_RAID_DISKS], SB0_DISKS);
	if (sb0_disk(sb, -1, SB0_D_NUMBER) >= SB0_DISKS)
		return diag_fail(d, "%s: this disk's number %u is out of range", path,
				 sb0_disk(sb, -1, SB0_D_NUMBER));
	if (level >= 1 && (uint64_t)sb->w[SB0_SIZE] * 2 > sb_sector)
		return diag_fail(d, "%s: component size %u KiB runs past the superblock at sector %llu (device %llu sectors)",
				 path, sb->w[SB0_SIZE], (unsigned long long)sb_sector,
				 (unsigned long long)dev_sectors);
	return 0;
}

static void uuid_word(uint8_t *p, uint32_t w)
{
	/* mdadm prints 0.90 UUID words as host-order numbers; keep them in
	 * that order big-endian so printing bytes in sequence matches. */
	p[0] = (uint8_t)(w >> 24);
	p[1] = (uint8_t)(w >> 16);
	p[2] = (uint8_t)(w >> 8);
	p[3] = (uint8_t)w;
}

static int sb0_role(const struct sb0 *r, int n)
{
	uint32_t state = sb0_disk(r, n, SB0_D_STATE), raid_disk = sb0_disk(r, n, SB0_D_RAID_DISK);

	if (state & (1u << SB0_DS_FAULTY))
		return ROLE_FAULTY;
	if (!(state & (1u << SB0_DS_SYNC)) || (state & (1u << SB0_DS_REMOVED)))
		return ROLE_SPARE;
	return raid_disk < SB0_DISKS ? (int)raid_disk : ROLE_SPARE;
}

static void summarise0(struct md_super *s)
{
	const struct sb0 *r = &s->raw.v0;
	const uint32_t *w = r->w;

	s->major = 0;
	s->feature_map = (w[SB0_STATE] & (1u << SB0_ST_BITMAP)) ? SB1_FEAT_BITMAP_OFFSET : 0;
	uuid_word(s->uuid, w[SB0_UUID0]);
	uuid_word(s->uuid + 4, w[SB0_UUID1]);
	uuid_word(s->uuid + 8, w[SB0_UUID2]);
	uuid_word(s->uuid + 12, w[SB0_UUID3]);
	s->ctime = w[SB0_CTIME];
	s->utime = w[SB0_UTIME];
	s->level = (int32_t)w[SB0_LEVEL];
	s->layout = (int32_t)w[SB0_LAYOUT];
	s->size = (uint64_t)w[SB0_SIZE] * 2;
	s->chunk_sectors = w[SB0_CHUNK] / 512;
	s->raid_disks = (int)w[SB0_RAID_DISKS];
	s->data_offset = 0;
	/* raid0 uses everything up to the superblock; others their component size */
	s->data_size = s->level == 0 ? s->sb_sector : s->size;
	s->recovery_offset = 0;
	s->resync_offset = (w[SB0_STATE] & (1u << SB0_ST_CLEAN)) ? MD_MAX_SECTOR : w[SB0_RECOVERY_CP];
	s->dev_number = (int)sb0_disk(r, -1, SB0_D_NUMBER);
	/* md (super_90_validate) takes a member's role from its entry in its
	 * own table of disks, not from the copy in this_disk */
	s->role = s->dev_number >= 0 && s->dev_number < SB0_DISKS ? sb0_role(r, s->dev_number) : ROLE_SPARE;
	s->events = sb0_events(r);
	s->csum_stored = w[SB0_CSUM];
	s->csum_computed = sb0_csum(r);
	s->bitmap_offset = s->feature_map ? 8 : 0;
	s->bblog_offset = 0;
	s->dev_slots = SB0_DISKS;
}

static void disk_row(const struct sb0 *r, int n, struct sb0_disk_row *row)
{
	*row = (struct sb0_disk_row){
		.number = sb0_disk(r, n, SB0_D_NUMBER), .major = sb0_disk(r, n, SB0_D_MAJOR),
		.minor = sb0_disk(r, n, SB0_D_MINOR), .raid_disk = sb0_disk(r, n, SB0_D_RAID_DISK),
		.state = sb0_disk(r, n, SB0_D_STATE) };
}

void super0_view(const struct md_super *s, struct sb0_view *v)
{
	const uint32_t *w = s->raw.v0.w;
	int i;

	*v = (struct sb0_view){
		.minor = w[SB0_MINOR], .patch = w[SB0_PATCH], .nr_disks = w[SB0_NR_DISKS],
		.md_minor = w[SB0_MD_MINOR], .clean = w[SB0_STATE] & (1u << SB0_ST_CLEAN),
		.active = w[SB0_ACTIVE], .working = w[SB0_WORKING], .failed = w[SB0_FAILED],
		.spare = w[SB0_SPARE] };
	disk_row(&s->raw.v0, -1, &v->this_disk);
	for (i = 0; i < SB0_DISKS; i++)
		disk_row(&s->raw.v0, i, &v->disk[i]);
}

static int role_of0(const struct md_super *sb, int dev_number)
{
	return dev_number >= 0 && dev_number < SB0_DISKS ? sb0_role(&sb->raw.v0, dev_number) : ROLE_SPARE;
}

static int decode0(const uint8_t *buf, struct md_super *sb, struct diag *d)
{
	if (sb0_decode(buf, &sb->raw.v0, d) < 0)
		return -1;
	sb->minor = (int)sb->raw.v0.w[SB0_MINOR];
	return 0;
}

static int validate0(const struct md_super *sb, const char *path, struct diag *d)
{
	return sb0_validate(&sb->raw.v0, path, sb->dev_sectors, sb->sb_sector, d);
}

static void encode0(const struct md_super *sb, uint8_t buf[4096], size_t *len)
{
	sb0_encode(&sb->raw.v0, buf);
	*len = SB0_BYTES;
}

static void seal0(struct md_super *sb)
{
	sb->raw.v0.w[SB0_CSUM] = sb0_csum(&sb->raw.v0);
}

static uint64_t location0(int minor, uint64_t dev_sectors)
{
	return sb0_location(dev_sectors);
}

static uint64_t no_data_offset(int minor, uint64_t dev_sectors, uint32_t chunk_sectors)
{
	return 0;
}

/* Everything below the superblock holds data. */
static uint64_t data_room0(int minor, uint64_t dev_sectors, uint64_t data_offset)
{
	return dev_sectors < 256 ? 0 : sb0_location(dev_sectors);
}

/* The bitmap follows the superblock's 4 KiB in the other 60 KiB of the
 * 64 KiB reserved at the end, whatever the array's size. */
#define SB0_BITMAP_OFFSET 8
#define SB0_RESERVED_SECTORS 128

static uint64_t bitmap_room0(int minor, uint64_t size)
{
	return SB0_RESERVED_SECTORS - SB0_BITMAP_OFFSET;
}

static int32_t bitmap_offset0(int minor, const struct md_bitmap *bm)
{
	return SB0_BITMAP_OFFSET;
}

static uint64_t joiner_room0(const struct md_super *ref, uint64_t dev_sectors)
{
	return data_room0(ref->minor, dev_sectors, 0);
}

/* need, then the 64 KiB superblock, within 64 KiB units */
static uint64_t joiner_min_sectors0(const struct md_super *ref, uint64_t need)
{
	return (need + 128 + 127) / 128 * 128;
}

/* A 64-bit counter kept in words a and a + 1, low word first on the host
 * that wrote the superblock. */
static void sb0_set_u64(struct sb0 *r, int a, uint64_t v)
{
	uint32_t lo = (uint32_t)v, hi = (uint32_t)(v >> 32);

	r->w[a] = r->swapped ? hi : lo;
	r->w[a + 1] = r->swapped ? lo : hi;
}

static void set_state0(struct md_super *sb, uint64_t events, bool clean, uint64_t now)
{
	struct sb0 *r = &sb->raw.v0;

	sb0_set_u64(r, SB0_EVENTS_A, events);
	if (clean)
		r->w[SB0_STATE] |= 1u << SB0_ST_CLEAN;
	else
		r->w[SB0_STATE] &= ~(1u << SB0_ST_CLEAN);
	/* md keeps recovery_cp at the end and cp_events at the events
	 * count while clean, both 0 while dirty */
	r->w[SB0_RECOVERY_CP] = clean ? 0xffffffffu : 0;
	sb0_set_u64(r, SB0_CP_EVENTS_A, clean ? events : 0);
	r->w[SB0_UTIME] = (uint32_t)now;
}

static bool listed(const int *present, int n, int number)
{
	int i;

	for (i = 0; i < n; i++)
		if (present[i] == number)
			return true;
	return false;
}

/* md's super_90_sync: the disk table holds the devices it runs with, each
 * keeping its entry (a spare in slot 0 too: stripe's rebuild target of
 * role 0); a slot below raid_disks left empty is "faulty removed" and
 * counts as failed, but for slot 0, which md marks "removed" before it
 * fills the table (all zeroes there would read as a device numbered 0). */
static void keep_devices0(struct md_super *sb, const int *present, int n)
{
	struct sb0 *r = &sb->raw.v0;
	uint32_t active = 0, working = 0, failed = 0, spare = 0, nr = 0;
	uint32_t k, slots = r->w[SB0_RAID_DISKS] < SB0_DISKS ? r->w[SB0_RAID_DISKS] : SB0_DISKS;

	for (k = 0; k < SB0_DISKS; k++) {
		uint32_t *e = &r->w[SB0_DISKS_BASE + 32 * k], st = e[SB0_D_STATE];

		if (!listed(present, n, (int)k)) {
			memset(e, 0, 32 * sizeof(*e));
			if (k == 0) {
				e[SB0_D_STATE] = 1u << SB0_DS_REMOVED;
			} else if (k < slots) {
				e[SB0_D_NUMBER] = e[SB0_D_RAID_DISK] = k;
				e[SB0_D_STATE] = 1u << SB0_DS_FAULTY | 1u << SB0_DS_REMOVED;
				failed++;
			}
			continue;
		}
		nr++;
		if (st & 1u << SB0_DS_FAULTY) {
			failed++;
		} else if ((st & (1u << SB0_DS_ACTIVE | 1u << SB0_DS_SYNC)) ==
			   (1u << SB0_DS_ACTIVE | 1u << SB0_DS_SYNC)) {
			active++;
			working++;
		} else {
			spare++;
			working++;
		}
	}
	r->w[SB0_NR_DISKS] = nr;
	r->w[SB0_ACTIVE] = active;
	r->w[SB0_WORKING] = working;
	r->w[SB0_FAILED] = failed;
	r->w[SB0_SPARE] = spare;
}

static uint32_t *disk_entry(struct sb0 *r, int n)
{
	return &r->w[n < 0 ? SB0_THIS_DISK : SB0_DISKS_BASE + 32 * n];
}

/* mdadm's init_super0: a missing member is "faulty removed", an active one
 * "active sync", a spare has no state bits. */
static void set_disk0(struct sb0 *r, const struct super_array *a, int k)
{
	const struct super_slot *s = &a->slot[k];
	uint32_t *e = disk_entry(r, k);

	e[SB0_D_NUMBER] = (uint32_t)k;
	e[SB0_D_RAID_DISK] = (uint32_t)k;
	if (!s->present)
		e[SB0_D_STATE] = 1u << SB0_DS_FAULTY | 1u << SB0_DS_REMOVED;
	else if (s->role >= 0)
		e[SB0_D_STATE] = 1u << SB0_DS_ACTIVE | 1u << SB0_DS_SYNC;
	else
		e[SB0_D_STATE] = 0;
	e[SB0_D_MAJOR] = s->rdev_major;
	e[SB0_D_MINOR] = s->rdev_minor;
}

static void new_member0(struct md_super *sb, const struct super_array *a, int number,
			uint64_t dev_sectors)
{
	struct sb0 *r = &sb->raw.v0;
	uint32_t *w = r->w;
	int i, present = 0, active = 0;

	memset(r, 0, sizeof(*r));
	for (i = 0; i < a->n; i++) {
		present += a->slot[i].present;
		active += a->slot[i].present && a->slot[i].role >= 0;
	}
	w[SB0_MAGIC] = MD_SB_MAGIC;
	w[SB0_MINOR] = 90;
	for (i = 0; i < 4; i++)
		w[i == 0 ? SB0_UUID0 : SB0_UUID1 + i - 1] =
			(uint32_t)a->uuid[4 * i] << 24 | (uint32_t)a->uuid[4 * i + 1] << 16 |
			(uint32_t)a->uuid[4 * i + 2] << 8 | a->uuid[4 * i + 3];
	w[SB0_CTIME] = w[SB0_UTIME] = (uint32_t)a->now;
	w[SB0_LEVEL] = (uint32_t)a->level;
	w[SB0_SIZE] = (uint32_t)(a->size / 2);
	w[SB0_NR_DISKS] = (uint32_t)a->n;
	w[SB0_RAID_DISKS] = (uint32_t)a->raid_disks;
	w[SB0_STATE] = 1u << SB0_ST_CLEAN | (a->bitmap ? 1u << SB0_ST_BITMAP : 0);
	w[SB0_ACTIVE] = (uint32_t)active;
	w[SB0_WORKING] = (uint32_t)present;
	w[SB0_FAILED] = (uint32_t)(a->n - present);
	w[SB0_SPARE] = (uint32_t)a->spares;
	w[SB0_EVENTS_A] = 1;
	w[SB0_RECOVERY_CP] = 0xffffffffu;
	w[SB0_LAYOUT] = a->level == MD_LEVEL_RAID0 ? 0 : (uint32_t)a->layout;
	w[SB0_CHUNK] = a->level == MD_LEVEL_RAID1 ? 0 : a->chunk_sectors * 512;
	for (i = 0; i < a->n; i++)
		set_disk0(r, a, i);
	memcpy(disk_entry(r, -1), disk_entry(r, number), 32 * sizeof(uint32_t));
	sb->major = 0;
	sb->minor = 90;
	sb->sb_sector = sb0_location(dev_sectors);
	sb->dev_sectors = dev_sectors;
}

/* The array's superblock with the role's own descriptor (mdadm numbers a
 * 0.90 array's disks by role) recording this member: a spare while it is
 * rebuilt, "active sync" once it holds the role. */
static void join0(struct md_super *sb, const struct md_super *ref, int role, bool in_sync)
{
	struct sb0 *r = &sb->raw.v0;
	uint64_t dev_sectors = sb->dev_sectors;
	int k, slot = -1;
	uint32_t *e;

	*r = ref->raw.v0;
	for (k = 0; k < SB0_DISKS && slot < 0; k++)
		if ((int)disk_entry(r, k)[SB0_D_RAID_DISK] == role)
			slot = k;
	if (slot < 0)
		slot = role;
	e = disk_entry(r, slot);
	e[SB0_D_NUMBER] = (uint32_t)slot;
	e[SB0_D_MAJOR] = e[SB0_D_MINOR] = 0;
	e[SB0_D_RAID_DISK] = (uint32_t)role;
	e[SB0_D_STATE] = in_sync ? (1u << SB0_DS_ACTIVE | 1u << SB0_DS_SYNC) : 0;
	memcpy(disk_entry(r, -1), e, 32 * sizeof(uint32_t));
	sb->major = 0;
	sb->minor = 90;
	sb->dev_sectors = dev_sectors;
	sb->sb_sector = sb0_location(dev_sectors);
	summarise0(sb);
}

static int replacement0(struct md_super *sb, const struct md_super *ref,
			const struct super_joiner *j, struct diag *d)
{
	sb->dev_sectors = j->dev_sectors;
	join0(sb, ref, j->role, false);
	return 0;
}

static void recovered0(struct md_super *sb, const struct md_super *ref, int role)
{
	join0(sb, ref, role, true);
}

/* 0.90 keeps every member's view of every disk: member's own entry, which
 * names its role. */
static void record_role0(struct md_super *sb, const struct md_super *member, int role)
{
	memcpy(disk_entry(&sb->raw.v0, member->dev_number),
	       &member->raw.v0.w[SB0_THIS_DISK], 32 * sizeof(uint32_t));
}

static bool checkpoint0(struct md_super *sb, uint64_t done)
{
	return false;
}

/* md's super_90_sync counts from the table it writes: an entry marked
 * removed is a failed slot and no disk; the other entries are disks,
 * faulty, active in sync, or spare. */
static void recount0(struct sb0 *r)
{
	uint32_t nr = 0, active = 0, working = 0, failed = 0, spare = 0, k, st;
	const uint32_t sync = 1u << SB0_DS_ACTIVE | 1u << SB0_DS_SYNC;

	for (k = 0; k < SB0_DISKS; k++) {
		const uint32_t *e = disk_entry(r, (int)k);

		st = e[SB0_D_STATE];
		if (!st && !e[SB0_D_NUMBER] && !e[SB0_D_MAJOR] && !e[SB0_D_MINOR] && !e[SB0_D_RAID_DISK])
			continue;
		if (st & 1u << SB0_DS_REMOVED) {
			failed++;
			continue;
		}
		nr++;
		if (st & 1u << SB0_DS_FAULTY)
			continue;
		working++;
		if ((st & sync) == sync)
			active++;
		else
			spare++;
	}
	r->w[SB0_NR_DISKS] = nr;
	r->w[SB0_ACTIVE] = active;
	r->w[SB0_WORKING] = working;
	r->w[SB0_FAILED] = failed;
	r->w[SB0_SPARE] = spare;
}

static bool entry_free0(struct sb0 *r, int k)
{
	const uint32_t *e = disk_entry(r, k);
	int i;

	for (i = 0; i < 32; i++)
		if (e[i])
			return false;
	return true;
}

/* md lists the devices that hold no role (spares, faulty ones) after
 * the roles, from raid_disks up, each numbered by its place. */
static int next_spare0(struct sb0 *r)
{
	int k;

	for (k = (int)r->w[SB0_RAID_DISKS]; k < SB0_DISKS; k++)
		if (entry_free0(r, k))
			return k;
	return -1;
}

static void set_entry0(struct sb0 *r, int k, uint32_t major, uint32_t minor, uint32_t state)
{
	uint32_t *e = disk_entry(r, k);

	memset(e, 0, 32 * sizeof(*e));
	e[SB0_D_NUMBER] = e[SB0_D_RAID_DISK] = (uint32_t)k;
	e[SB0_D_MAJOR] = major;
	e[SB0_D_MINOR] = minor;
	e[SB0_D_STATE] = state;
}

static void record_spare0(struct md_super *sb, const struct md_super *spare)
{
	struct sb0 *r = &sb->raw.v0;

	memcpy(disk_entry(r, spare->dev_number), &spare->raw.v0.w[SB0_THIS_DISK], 32 * sizeof(uint32_t));
	recount0(r);
}

/* The array's superblock, with the spare in the first free entry past
 * the roles (its major and minor, no state bits) as its own disk. */
static int spare0(struct md_super *sb, const struct md_super *ref, const struct super_joiner *j,
		  struct diag *d)
{
	struct sb0 *r = &sb->raw.v0;
	int k;

	*r = ref->raw.v0;
	k = next_spare0(r);
	if (k < 0)
		return diag_fail(d, "%s: the 0.90 table of disks is full (%d entries)", j->path, SB0_DISKS);
	set_entry0(r, k, j->rdev_major, j->rdev_minor, 0);
	memcpy(disk_entry(r, -1), disk_entry(r, k), 32 * sizeof(uint32_t));
	recount0(r);
	sb->major = 0;
	sb->minor = ref->minor;
	sb->dev_sectors = j->dev_sectors;
	sb->sb_sector = sb0_location(j->dev_sectors);
	summarise0(sb);
	return 0;
}

/* md marks the role's slot "faulty removed" and lists the faulty device
 * itself past the roles with its major and minor, state faulty, until it
 * is removed; a faulty spare keeps its entry. */
static void record_faulty0(struct md_super *sb, const struct md_super *member)
{
	struct sb0 *r = &sb->raw.v0;
	const uint32_t *own = &member->raw.v0.w[SB0_THIS_DISK];
	int role = member->role, k;

	if (role < 0 || role >= SB0_DISKS) {
		disk_entry(r, member->dev_number)[SB0_D_STATE] = 1u << SB0_DS_FAULTY;
	} else {
		set_entry0(r, role, 0, 0, 1u << SB0_DS_FAULTY | 1u << SB0_DS_REMOVED);
		k = next_spare0(r);
		if (k >= 0)
			set_entry0(r, k, own[SB0_D_MAJOR], own[SB0_D_MINOR], 1u << SB0_DS_FAULTY);
	}
	recount0(r);
}

/* The entry past the roles that lists member: its own for a spare, the
 * faulty one with its major and minor for a failed member (the only
 * faulty one when the numbers do not tell). */
static int listed_at0(struct sb0 *r, const struct md_super *member)
{
	const uint32_t *own = &member->raw.v0.w[SB0_THIS_DISK];
	int k, first = -1, faulty = 0;

	if (member->role == ROLE_SPARE)
		return member->dev_number;
	for (k = (int)r->w[SB0_RAID_DISKS]; k < SB0_DISKS; k++) {
		const uint32_t *e = disk_entry(r, k);

		if (e[SB0_D_STATE] != 1u << SB0_DS_FAULTY)
			continue;
		if (e[SB0_D_MAJOR] == own[SB0_D_MAJOR] && e[SB0_D_MINOR] == own[SB0_D_MINOR])
			return k;
		if (faulty++ == 0)
			first = k;
	}
	return faulty == 1 ? first : -1;
}

static void record_removed0(struct md_super *sb, const struct md_super *member)
{
	struct sb0 *r = &sb->raw.v0;
	int k = listed_at0(r, member);

	if (k >= (int)r->w[SB0_RAID_DISKS] && k < SB0_DISKS)
		memset(disk_entry(r, k), 0, 32 * sizeof(uint32_t));
	recount0(r);
}

/* The faulty devices are those listed past the roles; a role's slot
 * marked faulty removed stays so, as md keeps it. */
static int remove_faulty0(struct md_super *sb)
{
	struct sb0 *r = &sb->raw.v0;
	int k, n = 0;

	for (k = (int)r->w[SB0_RAID_DISKS]; k < SB0_DISKS; k++) {
		if (disk_entry(r, k)[SB0_D_STATE] == 1u << SB0_DS_FAULTY) {
			memset(disk_entry(r, k), 0, 32 * sizeof(uint32_t));
			n++;
		}
	}
	recount0(r);
	return n;
}

/* mdadm's store_super0: the whole 4 KiB superblock. */
static size_t zeroed_bytes0(unsigned sector_size)
{
	return SB0_BYTES > sector_size ? SB0_BYTES : sector_size;
}

const struct super_ops super0_ops = {
	.major = 0,
	.label = "0.90",
	.max_devices = SB0_DISKS,
	.min_dev_sectors = 256,
	.tracks_recovery = false,
	.location = location0,
	.default_data_offset = no_data_offset,
	.data_room = data_room0,
	.bitmap_room = bitmap_room0,
	.bitmap_offset = bitmap_offset0,
	.joiner_room = joiner_room0,
	.joiner_min_sectors = joiner_min_sectors0,
	.decode = decode0,
	.validate = validate0,
	.encode = encode0,
	.summarise = summarise0,
	.seal = seal0,
	.role_of = role_of0,
	.new_member = new_member0,
	.replacement = replacement0,
	.recovered = recovered0,
	.record_role = record_role0,
	.keep_devices = keep_devices0,
	.set_state = set_state0,
	.checkpoint = checkpoint0,
	.spare = spare0,
	.record_spare = record_spare0,
	.record_faulty = record_faulty0,
	.record_removed = record_removed0,
	.remove_faulty = remove_faulty0,
	.zeroed_bytes = zeroed_bytes0,
};
