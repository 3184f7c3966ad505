/* probe: finding a lost array's geometry from what its members hold.  The
 * model every evidence module shares: the members, the sample read from
 * them, the user's hints and the candidates ranked for the report. */
#ifndef STRIPE_PROBE_H
#define STRIPE_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "io/dev.h"
#include "md/geometry_spec.h"
#include "md/layout.h"
#include "md/super.h"
#include "util/diag.h"
#include "util/progress.h"

/* A role in a candidate's order not decided yet; SPEC_MISSING (-1) is a
 * role no given member holds. */
#define PROBE_UNKNOWN (-2)

#define PROBE_MAX_CANDIDATES 32
#define PROBE_MAX_EVIDENCE 8
#define PROBE_LINE 200

/* One member as given: a path, or "missing" for one known to be absent. */
struct probe_member {
	const char *path;            /* as given; NULL for "missing" */
	struct dev dev;              /* open read-only; fd -1 when missing */
	uint64_t sectors;            /* its size */
	bool has_super;              /* an md superblock was found on it */
	struct md_super sb;          /* that superblock, when has_super */
};

/* What the user told (-l -n -c -p -e --data-offset --deep); each field is
 * "not known" until given. */
struct probe_hints {
	int level;                   /* -1: not known */
	int raid_disks;              /* 0 */
	int layout;                  /* -1; md's number for the level */
	uint32_t chunk_sectors;      /* 0 */
	uint64_t data_offset;        /* UINT64_MAX; sectors */
	int metadata;                /* 0; else 90, 100, 110 or 120 */
	bool deep;                   /* more sample, and data offsets at any MiB up to 256 MiB */
};

/* len bytes at the same offset of every member. */
struct probe_window {
	uint64_t offset;             /* bytes from the start of each member */
	size_t len;
	uint8_t *buf[ST_MAX_DISKS];  /* by member index; NULL for a missing member */
};

/* What the probe has read: the windows spread over the members, and the
 * members themselves for the few reads a scorer makes beyond them. */
struct probe_sample {
	int nmembers;
	struct probe_member *members;
	int nwindows;
	struct probe_window *windows;
	uint64_t bytes_read;         /* per member, windows and later reads together */
	struct progress *progress;   /* told bytes_read as the windows come in; NULL: not shown */
};

/* One geometry that fits the evidence.  spec.order maps a role to the index
 * of a given member (a candidate may use some of the members only, when
 * several arrays' members were given together); while the search goes on a
 * role may be PROBE_UNKNOWN. */
struct probe_candidate {
	struct geometry_spec spec;
	bool uses[ST_MAX_DISKS];     /* the given members (by index) the candidate's array holds,
	                              * whether their roles are known or not */
	int metadata;                /* proposed: 90, 100, 110 or 120 */
	double score;                /* 0..1: how much of the evidence sampled fits */
	int nevidence;
	char evidence[PROBE_MAX_EVIDENCE][PROBE_LINE];  /* "P consistent in 4093/4096 rows sampled" */
};

struct probe_result {
	int ncand;
	struct probe_candidate cand[PROBE_MAX_CANDIDATES];
	int nundecided;
	char undecided[PROBE_MAX_EVIDENCE][PROBE_LINE];   /* what could not be decided, and why */
};

/* Opens the members (paths[i] "missing" for one known to be absent)
 * read-only and loads any superblock each holds.  A member given twice,
 * by any name, is refused. */
int probe_members_open(char *const *paths, int n, struct probe_member *m, struct diag *d);
void probe_members_close(struct probe_member *m, int n);

/* Reads the sample: the head of each member, where every data offset
 * mdadm chooses lies, the window at 128 MiB (mdadm's 262144-sector offset),
 * and windows spread evenly over the rest, up to budget bytes per member. */
int probe_sample_read(struct probe_sample *s, struct probe_member *m, int n, uint64_t budget,
		      struct diag *d);
/* The same, the reading shown on shown (started by the caller) as each
 * window comes in. */
int probe_sample_read_shown(struct probe_sample *s, struct probe_member *m, int n, uint64_t budget,
			    struct progress *shown, struct diag *d);
void probe_sample_free(struct probe_sample *s);

/* Adds c to r, keeping the PROBE_MAX_CANDIDATES best by score.  A
 * candidate equal in geometry to one already there merges into it: the
 * higher score stays and the evidence lines are joined. */
void probe_result_add(struct probe_result *r, const struct probe_candidate *c);

/* Records one line of what the probe could not decide. */
void probe_result_undecided(struct probe_result *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Adds one evidence line to c (dropped when c already holds
 * PROBE_MAX_EVIDENCE). */
void probe_candidate_evidence(struct probe_candidate *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* The size in bytes of the smallest member given (0 with none present). */
uint64_t probe_smallest_member(const struct probe_sample *s);

/* Member i's len bytes at member byte off where a window of the sample
 * holds them whole, else NULL. */
const uint8_t *probe_sample_at(const struct probe_sample *s, int i, uint64_t off, size_t len);

/* Reads len bytes at off of member i, from the windows when they hold
 * them and from the member otherwise (counted in bytes_read).  Fails for a
 * missing member or a range beyond its end. */
int probe_read(struct probe_sample *s, int i, void *buf, size_t len, uint64_t off, struct diag *d);

/* Roles of an array of raid_disks no given member can hold: the members
 * given as "missing", and those not given at all. */
int probe_absent(const struct probe_sample *s, int raid_disks);

#endif
