/* array: an md array put together from member paths: which member holds
 * which role, which were left out and why, and the geometry. */
#ifndef STRIPE_ARRAY_H
#define STRIPE_ARRAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "io/dev.h"
#include "util/diag.h"
#include "md/geometry_spec.h"
#include "md/layout.h"
#include "md/super.h"

enum member_state {
	MEMBER_ACTIVE,       /* in sync and holding its role */
	MEMBER_REBUILDING,   /* holds a role, rebuilt only up to recovery_offset */
	MEMBER_SPARE,
	MEMBER_FAULTY,       /* marked faulty by the array */
	MEMBER_STALE,        /* events behind the array */
	MEMBER_DUPLICATE,    /* its role is held by a fresher member */
	MEMBER_FOREIGN,      /* member of another array */
	MEMBER_INVALID,      /* cannot be opened, or no valid superblock */
};

struct member {
	char *path;
	struct dev dev;
	bool has_sb;
	struct md_super sb;
	enum member_state state;
	char reason[512];    /* why it was left out (empty for active members) */
};

/* Whether every role is held; md's clean or active (needing a resync)
 * is struct array's dirty. */
enum array_state {
	ARRAY_CLEAN,         /* every role held */
	ARRAY_DEGRADED,      /* roles missing, data still readable */
	ARRAY_FAILED,        /* too many roles missing */
};

struct array_options {
	enum dev_mode mode;
	int raid0_layout;    /* used when a multi-zone raid0 records none; 0 = refuse */
};

struct array {
	int nmembers;
	struct member *members;          /* in the order given */
	const struct md_super *ref;      /* the freshest superblock: the array's view */
	struct member *role[ST_MAX_DISKS];  /* in-sync holder of each role, or NULL */
	struct geometry geo;
	uint64_t events;
	int missing;                     /* roles without an in-sync holder */
	enum array_state state;
	bool dirty;                      /* resync needed (resync_offset not at the end) */
	struct intent *intent;           /* its write-intent bitmap, once a writer loaded it */
	/* Told of each page of a member that failed to read and that the
	 * stripe engine rebuilt from the other members (byte offset on the
	 * member); NULL: not told.  Called from the thread that reads. */
	void (*read_mended)(void *ctx, const struct member *m, uint64_t offset, size_t len);
	void *read_mended_ctx;
	/* Told of array bytes [offset, offset + len) that a read found no
	 * member to give, unreadable where no redundancy is left: they read
	 * as zeroes and the read goes on, as it does past what stripe-rebuild
	 * logged unrecoverable.  NULL: such a read fails, naming the member. */
	void (*read_lost)(void *ctx, uint64_t offset, size_t len);
	void *read_lost_ctx;
};

/* Opens every path, reads superblocks and assembles as md would.  Members
 * that cannot take part are kept with a state and reason.  Fails (-1) when
 * no array can be formed: no superblock at all, members of several arrays
 * in equal numbers, two current members claiming one role, or a geometry md
 * would refuse. */
int array_open(struct array *a, char *const *paths, int n,
	       const struct array_options *opt, struct diag *d);
void array_close(struct array *a);

/* Opens the members read-only as the array SPEC describes, path i as the
 * member the SPEC's order calls i: no superblock is read, so the array has
 * no events, bitmap or bad-block logs, and every role given is in sync.
 * Fails when a member is too small for the SPEC or holds no role. */
int array_open_spec(struct array *a, char *const *paths, int n, const struct geometry_spec *s,
		    struct diag *d);

/* Fails with a message naming the missing roles when the data cannot be
 * read with the members held. */
int array_check_readable(const struct array *a, struct diag *d);

/* The largest number of missing roles the level survives (raid10: by copy
 * placement, so this is an upper bound). */
int array_redundancy(const struct geometry *g);

/* Records on every in-sync member that the array is about to change
 * (clean = false: events + 1, resync needed) or is consistent again
 * (clean = true: events + 1, in sync), as md does around writes, so an
 * interrupted run is seen as active, needing a resync, by md and by stripe. */
int array_mark(struct array *a, bool clean, struct diag *d);

/* The events count the next state change records: one up, or a failure
 * naming the member when the count is at its limit and would wrap to 0
 * (md would then take every member as stale). */
int array_next_events(const struct array *a, uint64_t *events, struct diag *d);

/* The device numbers md would run the array with: the members holding a
 * role (in sync or being rebuilt) and the spares given, into present (room
 * for nmembers).  Returns how many. */
int array_present_numbers(const struct array *a, int *present);

const char *member_state_name(enum member_state s);

/* The array's state in one word: "clean", or "active" where a resync is
 * needed (md's words for an array with every role held), "degraded" or
 * "failed". */
const char *array_state_word(const struct array *a);

/* The state as mdadm --detail words it: "clean" or "active", then
 * ", degraded" or ", FAILED" where roles are missing. */
void array_md_state(const struct array *a, char *buf, size_t len);

/* Whether a superblock records a reshape in progress (1.x RESHAPE_ACTIVE,
 * 0.91). */
bool member_reshaping(const struct md_super *s);

/* md's names of the states a superblock records that stripe does not
 * implement, and every tool refuses: "reshape", "journal", "ppl",
 * "clustered"; up to max into names, returns how many. */
int member_unimplemented(const struct md_super *s, const char **names, int max);

#endif
