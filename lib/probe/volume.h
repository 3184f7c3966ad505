/* volume: what may sit at the array's start in front of a filesystem (a
 * GPT, an LVM2 physical volume, a LUKS header), found in the members'
 * bytes before any geometry is known, and where the filesystem it holds
 * begins. */
#ifndef STRIPE_PROBE_VOLUME_H
#define STRIPE_PROBE_VOLUME_H

#include <stdint.h>

#include "probe/probe.h"

#define VOLUME_SECTOR 512u
#define VOLUME_UUID 39u             /* LVM2's 32 characters, six dashes and the end */
#define VOLUME_NONE UINT64_MAX       /* fs_offset of a volume whose content cannot be read (LUKS) */

enum volume_kind { VOLUME_GPT, VOLUME_LVM2, VOLUME_LUKS };

/* One header found: the sector it sits in is data chunk 0's, so the
 * member holding it and where give the data offset, and its bytes are an
 * anchor for that role. */
struct volume {
	enum volume_kind kind;
	int member;                  /* the member holding data chunk 0 (the first, see holders) */
	int holders;                 /* members holding it there: parity copies a chunk whose row is otherwise zero */
	uint64_t data_offset;        /* sectors: the array's start on that member */
	uint64_t header_at;          /* array byte of the header's sector */
	uint8_t header[VOLUME_SECTOR];
	uint64_t fs_offset;          /* array byte where what it holds begins; VOLUME_NONE */
	uint64_t array_sectors;      /* the array's size its backup GPT header names; 0 unknown */
	char uuid[VOLUME_UUID];      /* LVM2: the PV's UUID as pvs prints it; "" for the others */
	char what[PROBE_LINE];       /* "GPT: partition 1 at sector 2048" */
};

/* Headers in the sample's windows at any sector, one per kind and data
 * offset (the first member that holds it), within the hinted data offset. */
int volume_find(struct probe_sample *s, const struct probe_hints *h, struct volume *v, int max);

/* Is sec a GPT backup header (valid, at lba, naming LBA 1 its primary)? */
bool volume_gpt_backup_at(const uint8_t *sec, uint64_t lba);

#endif
