/* super0: decode, encode, checksum and validate v0.90 md superblocks. */
#include <string.h>

#include "util/endian.h"
#include "md/super0.h"

#define MD_SB_MAGIC 0xa92b4efcu

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
