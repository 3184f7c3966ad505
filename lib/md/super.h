/* super: one member's md superblock, whichever version, found where its
 * version keeps it, with the facts assembly and geometry need; and the
 * operations table each version fills (super0.c, super1.c), through which
 * create and recovery make and change superblocks. */
#ifndef STRIPE_SUPER_H
#define STRIPE_SUPER_H

#include <stdbool.h>
#include <stdint.h>

#include "io/dev.h"
#include "util/diag.h"
#include "md/super0.h"
#include "md/super1.h"

/* A member's place in the array, beyond its slot number (>= 0). */
enum md_role {
	ROLE_SPARE = -1,
	ROLE_FAULTY = -2,
	ROLE_JOURNAL = -3,
};

#define MD_MAX_SECTOR UINT64_MAX
#define MD_SB_MAGIC 0xa92b4efcu      /* every version's first word */

/* The bad-block log mdadm makes and md fills: 8 sectors, 512 entries. */
#define MD_BBLOG_SECTORS 8

struct md_super {
	int major;                   /* 0 or 1 */
	int minor;                   /* 90/91 for 0.x; 0, 1, 2 for 1.x */
	uint64_t sb_sector;          /* where it was found */
	uint64_t dev_sectors;        /* size of the device it came from */

	uint32_t feature_map;        /* 1.x bits; 0.90 sets BITMAP_OFFSET for its bitmap */
	uint8_t uuid[16];
	char name[33];
	uint64_t ctime, utime;       /* seconds */
	int level;
	int layout;
	uint64_t size;               /* component size, sectors */
	uint32_t chunk_sectors;
	int raid_disks;
	uint64_t data_offset, data_size;   /* sectors */
	uint64_t recovery_offset;    /* valid with SB1_FEAT_RECOVERY_OFFSET */
	uint64_t resync_offset;      /* MD_MAX_SECTOR when clean */
	int dev_number;
	int role;                    /* slot, or enum md_role */
	uint8_t device_uuid[16];
	uint64_t events;
	uint32_t csum_stored, csum_computed;
	int32_t bitmap_offset;       /* sectors from the superblock, if any */
	int32_t bblog_offset;        /* 1.x: the bad-block log's, sectors from the superblock; 0: none */
	uint32_t bblog_sectors;      /* 1.x: the bad-block log's size (bblog_size) */
	int dev_slots;               /* device numbers it describes: 1.x max_dev, 0.90 its 27 */

	union {
		struct sb1 v1;
		struct sb0 v0;
	} raw;
};

struct md_bitmap;

/* A reshape as a superblock records it, meaningful while one is in
 * progress (1.x RESHAPE_ACTIVE, 0.91). */
struct md_reshape {
	uint64_t position;           /* array sectors reshaped so far */
	int delta_disks, new_level, new_layout;
	uint64_t new_chunk;          /* sectors */
	bool moves_data;             /* 1.x NEW_OFFSET: the data moves by new_offset */
	int64_t new_offset;          /* sectors, from data_offset */
	bool backwards;
};

/* 0.91 keeps reshape_position as one 64-bit word pair in the byte order
 * of the host that wrote it; new_chunk is in bytes there. */
static inline void super_reshape(const struct md_super *s, struct md_reshape *r)
{
	const struct sb1 *v = &s->raw.v1;
	const uint32_t *w = s->raw.v0.w;
	int lo = s->raw.v0.swapped ? 1 : 0;

	*r = (struct md_reshape){ 0 };
	if (s->major == 1) {
		*r = (struct md_reshape){ .position = v->reshape_position, .delta_disks = (int32_t)v->delta_disks,
					  .new_level = (int32_t)v->new_level, .new_layout = (int32_t)v->new_layout,
					  .new_chunk = v->new_chunk,
					  .moves_data = (s->feature_map & SB1_FEAT_NEW_OFFSET) != 0,
					  .new_offset = (int32_t)v->new_offset,
					  .backwards = (s->feature_map & SB1_FEAT_RESHAPE_BACKWARDS) != 0 };
		return;
	}
	r->position = (uint64_t)w[SB0_RESHAPE_POS + 1 - lo] << 32 | w[SB0_RESHAPE_POS + lo];
	r->new_level = (int32_t)w[SB0_NEW_LEVEL];
	r->delta_disks = (int32_t)w[SB0_DELTA_DISKS];
	r->new_layout = (int32_t)w[SB0_NEW_LAYOUT];
	r->new_chunk = w[SB0_NEW_CHUNK] / 512;
}

/* One member of a new array, by device number. */
struct super_slot {
	bool present;                /* false: "missing" */
	int role;                    /* slot, or ROLE_SPARE */
	uint32_t rdev_major, rdev_minor;   /* a block device's numbers, else 0 */
};

/* What every superblock of a new array records (create). */
struct super_array {
	const uint8_t *uuid;         /* 16 bytes */
	const char *name;            /* NULL or "": "0" */
	const char *homehost;        /* NULL: none */
	uint64_t now;                /* seconds */
	int level, layout, raid_disks, spares;
	uint32_t chunk_sectors;      /* 0 for raid1 */
	uint64_t size;               /* component sectors */
	int minor;                   /* 1.x: 0, 1 or 2 */
	uint64_t data_offset;        /* sectors: 1.1 and 1.2 */
	const struct md_bitmap *bitmap;    /* the internal bitmap, or NULL */
	int n;                       /* members, present or not */
	const struct super_slot *slot;
};

/* A member taking a role of a running array (recovery's target). */
struct super_joiner {
	const char *path;            /* names messages */
	int role;
	bool readd;                  /* its superblock is the array's: keeps identity and placement */
	bool replaces;               /* takes the role over from its holder in sync (md's replacement) */
	uint64_t resume;             /* sectors already rebuilt */
	bool bitmap;                 /* md's bitmap-based recovery (1.x RECOVERY_BITMAP) */
	uint64_t dev_sectors;
	const int *taken;            /* device numbers other members hold */
	int ntaken;
	uint32_t rdev_major, rdev_minor;   /* a block device's numbers, else 0 (0.90 records them) */
};

/* Everything one superblock version knows, in the spirit of mdadm's
 * struct superswitch: where it sits, how its bytes read and write, and how
 * create and recovery record members in it.  Dev sizes are in sectors. */
struct super_ops {
	int major;
	const char *label;           /* "0.90", "v1": names messages */
	uint64_t min_dev_sectors;    /* smaller members cannot hold one */
	int max_devices;             /* members its role table can list */
	bool tracks_recovery;        /* records a rebuild's progress (1.x recovery_offset) */

	/* placement */
	uint64_t (*location)(int minor, uint64_t dev_sectors);
	uint64_t (*default_data_offset)(int minor, uint64_t dev_sectors, uint32_t chunk_sectors);
	/* data sectors a new member of dev_sectors offers */
	uint64_t (*data_room)(int minor, uint64_t dev_sectors, uint64_t data_offset);
	/* sectors mdadm gives a new array's internal bitmap, by component size */
	uint64_t (*bitmap_room)(int minor, uint64_t size);
	/* where a new member's bitmap starts, sectors from its superblock */
	int32_t (*bitmap_offset)(int minor, const struct md_bitmap *bm);
	/* data sectors a replacement offers under ref's metadata */
	uint64_t (*joiner_room)(const struct md_super *ref, uint64_t dev_sectors);
	/* the smallest device that holds need data sectors under ref's metadata */
	uint64_t (*joiner_min_sectors)(const struct md_super *ref, uint64_t need);

	/* bytes: decode fills sb->raw (and 0.90's minor) from 4096 bytes */
	int (*decode)(const uint8_t *buf, struct md_super *sb, struct diag *d);
	int (*validate)(const struct md_super *sb, const char *path, struct diag *d);
	void (*encode)(const struct md_super *sb, uint8_t buf[4096], size_t *len);
	void (*summarise)(struct md_super *sb);      /* summary fields from sb->raw */
	void (*seal)(struct md_super *sb);           /* the checksum */

	/* members */
	int (*role_of)(const struct md_super *sb, int dev_number);
	void (*new_member)(struct md_super *sb, const struct super_array *a, int number,
			   uint64_t dev_sectors);
	/* a joiner's superblock from the array's: 1.x in its role, recovering
	 * from resume; 0.90, which cannot record a recovery, as a spare */
	int (*replacement)(struct md_super *sb, const struct md_super *ref,
			   const struct super_joiner *j, struct diag *d);
	/* the joiner holds its role in sync now */
	void (*recovered)(struct md_super *sb, const struct md_super *ref, int role);
	/* records in sb that member holds role */
	void (*record_role)(struct md_super *sb, const struct md_super *member, int role);
	/* records in sb that member is being copied into role beside the
	 * role's holder, as md lists a replacement; NULL where the version
	 * cannot record one (0.90) */
	void (*record_replacement)(struct md_super *sb, const struct md_super *member, int role);
	/* records in sb that member failed (md's faulty role) */
	void (*record_faulty)(struct md_super *sb, const struct md_super *member);
	/* records that only the device numbers in present take part: the
	 * others' roles recorded gone, as md's recovery leaves them */
	void (*keep_devices)(struct md_super *sb, const int *present, int n);
	void (*set_state)(struct md_super *sb, uint64_t events, bool clean, uint64_t now);
	/* records the rebuild's progress; false where the version cannot */
	bool (*checkpoint)(struct md_super *sb, uint64_t done);

	/* mdadm's manage mode (manage.c; record_faulty above too): a hot
	 * spare's superblock from the array's, with the device number md
	 * gives it; and, in a member's superblock, that the spare joined, or
	 * that member (faulty or spare) is gone from the array */
	int (*spare)(struct md_super *sb, const struct md_super *ref, const struct super_joiner *j,
		     struct diag *d);
	void (*record_spare)(struct md_super *sb, const struct md_super *spare);
	void (*record_removed)(struct md_super *sb, const struct md_super *member);
	/* takes every device sb records faulty out of its tables (mdadm
	 * --remove failed, for members that are gone); returns how many */
	int (*remove_faulty)(struct md_super *sb);
	/* bytes mdadm --zero-superblock writes over the superblock, at least
	 * one logical sector */
	size_t (*zeroed_bytes)(unsigned sector_size);
};

extern const struct super_ops super0_ops, super1_ops;

/* The table of metadata major version major (0 or 1). */
const struct super_ops *super_ops_of(int major);

/* Finds and validates the superblock on dv: 1.2, 1.1, 1.0, then 0.90.
 * Returns 0, or -1 with a message naming the path and what is wrong. */
int super_load(struct dev *dv, struct md_super *sb, struct diag *d);

/* The on-disk bytes of the superblock as it stands, in *len bytes (the
 * region the checksum covers, or 4096 for 0.90). */
void super_encode(const struct md_super *sb, uint8_t buf[4096], size_t *len);

/* The role this superblock records for device number dev_number, by the
 * array's own bookkeeping (slot >= 0 or enum md_role; ROLE_SPARE if unknown). */
int super_role_of(const struct md_super *sb, int dev_number);

/* The sectors where 1.2, 1.1, 1.0 and 0.90 keep a superblock on a member
 * of dev_sectors. */
#define SUPER_PLACES 4
void super_places(uint64_t dev_sectors, uint64_t where[SUPER_PLACES]);

/* Every valid md superblock on dv, one per place a version keeps one (a
 * member re-created under another version keeps the old one beside the
 * new), into sbs; returns how many. */
int super_load_every(struct dev *dv, struct md_super sbs[SUPER_PLACES]);

/* Whether the 4096 bytes in buf start like an md superblock of any version. */
bool super_is_md(const uint8_t *buf);

/* "1.2", "0.90" */
const char *super_version(const struct md_super *sb, char *buf, int len);

/* UUID as mdadm prints it: 4 groups of 8 hex digits, colon separated. */
void super_uuid_str(const uint8_t uuid[16], char out[36]);

bool super_same_array(const struct md_super *a, const struct md_super *b);

/* Records a state change the way md does: the new events count, clean or
 * dirty (1.x: resync_offset at the end or 0; 0.90: the CLEAN bit and
 * recovery_cp), the update time, and a fresh checksum. */
void super_set_state(struct md_super *sb, uint64_t events, bool clean, uint64_t now);

/* Records, as md does when it writes the superblocks of an array running
 * without some of its members, that only the n device numbers in present
 * take part: 1.x gives every other number the spare role (0xffff, as md 6.x
 * writes it); 0.90 clears every other disk entry, records a slot below
 * raid_disks that is left empty as "faulty removed" (slot 0 "removed"
 * only, as md does) and recounts the active, working, failed and spare
 * disks. */
void super_keep_devices(struct md_super *sb, const int *present, int n);

/* Recomputes and stores the checksum of the raw superblock. */
void super_seal(struct md_super *sb);

/* Writes the superblock where it belongs on dv (a whole 4 KiB block, so
 * 4K-sector devices work), then flushes it to stable storage. */
int super_write(struct dev *dv, const struct md_super *sb, struct diag *d);

/* One disk descriptor of a 0.90 superblock, as mdadm --examine lists it. */
struct sb0_disk_row {
	unsigned number, major, minor, raid_disk, state;
};

/* What mdadm --examine shows of a 0.90 superblock beyond struct md_super:
 * its version words, its counters and its table of disks. */
struct sb0_view {
	unsigned minor, patch, nr_disks, md_minor;
	bool clean;
	unsigned active, working, failed, spare;
	struct sb0_disk_row this_disk, disk[SB0_DISKS];
};

/* s must be a 0.90 superblock (major 0). */
void super0_view(const struct md_super *s, struct sb0_view *v);

/* Whether mdadm takes two superblocks for members of one array (its
 * compare_super): one version, one UUID, and the same creation time,
 * level, size and device count; 1.x also layout and chunk, 0.90 its
 * version words. */
bool super_mdadm_same_array(const struct md_super *a, const struct md_super *b);

/* Whether mdadm reads a member's own superblock as in sync: 1.x any role
 * but spare, faulty and journal (a stale member's too); 0.90 its
 * this_disk's sync bit. */
bool super_mdadm_in_sync(const struct md_super *s);

/* 0.90's preferred minor (the N of /dev/mdN); -1 for 1.x. */
int super_preferred_minor(const struct md_super *s);

#endif
