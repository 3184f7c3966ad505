/* volume: GPT, LVM2 and LUKS headers found at the array's start.  Each
 * names the sector of the array it sits in (a GPT header LBA 1, an LVM2
 * label its own sector, LUKS sector 0), so where a member holds one gives
 * that member's data offset; GPT and LVM2 then say where the filesystem
 * they hold begins. */
#include <stdio.h>
#include <string.h>

#include "probe/volume.h"
#include "util/endian.h"

#define GPT_HEADER_MIN 92u
#define GPT_ENTRY_BYTES 128u
#define GPT_ENTRIES_IN_CHUNK 24u     /* entries LBA 2 starts with inside a 4 KiB chunk 0 */
#define LVM_LABEL_SECTORS 4u         /* the label lies in one of the first four */
#define LVM_AREAS_MAX 8u
#define LVM_CRC_FROM 20u             /* the label's checksum covers it from its offset field on */
#define LVM_CRC_INITIAL 0xf597a6cfu  /* and starts from this, not inverted at either end */

/* The reflected CRC-32 of polynomial 0xedb88320 from crc, with no
 * inversion: GPT's (zlib's) starts from ~0 and inverts the result,
 * LVM2's label checksum starts from LVM_CRC_INITIAL. */
static uint32_t crc32_from(uint32_t crc, const uint8_t *p, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		crc ^= p[i];
		for (int b = 0; b < 8; b++)
			crc = crc >> 1 ^ (0xedb88320u & -(crc & 1));
	}
	return crc;
}

/* GPT's header checksum, over the header with its own field zero. */
static uint32_t crc32_ieee(const uint8_t *p, size_t len)
{
	return ~crc32_from(~0u, p, len);
}

static bool gpt_header_ok(const uint8_t *sec)
{
	uint8_t copy[VOLUME_SECTOR];
	uint32_t size = get_le32(sec + 12);

	if (memcmp(sec, "EFI PART", 8) != 0 || size < GPT_HEADER_MIN || size > VOLUME_SECTOR)
		return false;
	memcpy(copy, sec, size);
	memset(copy + 16, 0, 4);
	return crc32_ieee(copy, size) == get_le32(sec + 16);
}

/* The first used partition among the entries chunk 0 holds at any chunk
 * size (the rest may lie on other members). */
static bool gpt_first_partition(struct probe_sample *s, int member, uint64_t header_off, const uint8_t *hdr,
				uint32_t *number, uint64_t *first_lba)
{
	uint8_t e[GPT_ENTRY_BYTES];
	struct diag d;

	if (get_le64(hdr + 72) != 2 || get_le32(hdr + 84) != GPT_ENTRY_BYTES)
		return false;
	uint32_t n = get_le32(hdr + 80);
	for (uint32_t k = 0; k < n && k < GPT_ENTRIES_IN_CHUNK; k++) {
		if (probe_read(s, member, e, sizeof(e), header_off + VOLUME_SECTOR + k * GPT_ENTRY_BYTES, &d) < 0)
			return false;
		uint64_t first = get_le64(e + 32);
		if (first && get_le64(e + 40) >= first) {
			*number = k + 1;
			*first_lba = first;
			return true;
		}
	}
	return false;
}

static bool gpt(struct probe_sample *s, int member, uint64_t off, const uint8_t *sec, struct volume *v)
{
	uint32_t number;
	uint64_t first;

	if (off < VOLUME_SECTOR || !gpt_header_ok(sec) || get_le64(sec + 24) != 1 ||
	    !gpt_first_partition(s, member, off, sec, &number, &first))
		return false;
	v->kind = VOLUME_GPT;
	v->header_at = VOLUME_SECTOR;
	v->fs_offset = first * VOLUME_SECTOR;
	v->array_sectors = get_le64(sec + 32) + 1;
	snprintf(v->what, sizeof(v->what), "GPT: partition %u at sector %llu", number, (unsigned long long)first);
	return true;
}

/* The PV's UUID as pvs prints it: its 32 characters in groups of
 * 6-4-4-4-4-4-6; a byte that is not printable shows as '?'. */
static void lvm2_uuid(const uint8_t *raw, char out[VOLUME_UUID])
{
	static const int group[] = { 6, 4, 4, 4, 4, 4, 6 };
	int k = 0, at = 0;

	for (int g = 0; g < 7; g++) {
		if (g)
			out[k++] = '-';
		for (int i = 0; i < group[g]; i++, at++)
			out[k++] = raw[at] > ' ' && raw[at] < 0x7f ? (char)raw[at] : '?';
	}
	out[k] = '\0';
}

/* An LVM2 label: "LABELONE", its own sector, its checksum, "LVM2 001",
 * and the PV header (the PV's UUID, its device's size, then the data
 * areas) whose first data area is where the extents (the first LV's, as
 * lvcreate allocates) begin.  LVM2 reads no label whose checksum is
 * wrong, and neither does the probe. */
static bool lvm2(const uint8_t *sec, uint64_t off, struct volume *v)
{
	uint64_t own = get_le64(sec + 8);
	uint32_t pvh = get_le32(sec + 20);

	if (memcmp(sec, "LABELONE", 8) != 0 || memcmp(sec + 24, "LVM2 001", 8) != 0 || own >= LVM_LABEL_SECTORS ||
	    off < own * VOLUME_SECTOR || pvh < 32 || pvh + 32 + 8 + 16 > VOLUME_SECTOR ||
	    get_le32(sec + 16) != crc32_from(LVM_CRC_INITIAL, sec + LVM_CRC_FROM, VOLUME_SECTOR - LVM_CRC_FROM))
		return false;
	uint64_t pe_start = get_le64(sec + pvh + 40);
	if (!pe_start || pe_start % VOLUME_SECTOR)
		return false;
	v->kind = VOLUME_LVM2;
	lvm2_uuid(sec + pvh, v->uuid);
	v->header_at = own * VOLUME_SECTOR;
	v->fs_offset = pe_start;
	snprintf(v->what, sizeof(v->what), "LVM2: physical volume whose extents start at sector %llu",
		 (unsigned long long)(pe_start / VOLUME_SECTOR));
	return true;
}

static bool luks(const uint8_t *sec, struct volume *v)
{
	uint16_t version = get_be16(sec + 6);

	if (memcmp(sec, "LUKS\xba\xbe", 6) != 0 || (version != 1 && version != 2))
		return false;
	v->kind = VOLUME_LUKS;
	v->header_at = 0;
	v->fs_offset = VOLUME_NONE;
	snprintf(v->what, sizeof(v->what), "LUKS%u", version);
	return true;
}

/* Is one found already?  The same header on another member at the same
 * place counts as one more holder. */
static bool known(struct volume *v, int n, const struct volume *one)
{
	for (int k = 0; k < n; k++)
		if (v[k].kind == one->kind && v[k].data_offset == one->data_offset) {
			v[k].holders += v[k].member != one->member && memcmp(v[k].header, one->header, VOLUME_SECTOR) == 0;
			return true;
		}
	return false;
}

static int find_in_window(struct probe_sample *s, const struct probe_window *w, int member,
			  const struct probe_hints *h, struct volume *v, int n, int max)
{
	for (size_t at = 0; at + VOLUME_SECTOR <= w->len && n < max; at += VOLUME_SECTOR) {
		const uint8_t *sec = w->buf[member] + at;
		uint64_t off = w->offset + at;
		struct volume one = { .member = member, .holders = 1 };
		if (!gpt(s, member, off, sec, &one) && !lvm2(sec, off, &one) && !luks(sec, &one))
			continue;
		one.data_offset = (off - one.header_at) / VOLUME_SECTOR;
		memcpy(one.header, sec, VOLUME_SECTOR);
		if ((h->data_offset == UINT64_MAX || h->data_offset == one.data_offset) && !known(v, n, &one))
			v[n++] = one;
	}
	return n;
}

int volume_find(struct probe_sample *s, const struct probe_hints *h, struct volume *v, int max)
{
	int n = 0;

	for (int w = 0; w < s->nwindows; w++)
		for (int i = 0; i < s->nmembers; i++)
			if (s->windows[w].buf[i])
				n = find_in_window(s, &s->windows[w], i, h, v, n, max);
	return n;
}

bool volume_gpt_backup_at(const uint8_t *sec, uint64_t lba)
{
	return gpt_header_ok(sec) && get_le64(sec + 24) == lba && get_le64(sec + 32) == 1;
}
