/* check: offline verify (and explicit repair) of an array's redundancy, one
 * 4 KiB unit at a time as md's check does, naming the blocks of each
 * inconsistent unit and, for RAID6, the member at fault. */
#ifndef STRIPE_CHECK_H
#define STRIPE_CHECK_H

#include <stdbool.h>
#include <stdint.h>

#include "md/array.h"
#include "raid/rows.h"
#include "util/diag.h"

/* md checks a page at a time: the row engine's page. */
#define CHECK_UNIT ROWS_PAGE

enum block_kind { BLOCK_DATA, BLOCK_P, BLOCK_Q, BLOCK_COPY };

struct unit_block {
	int role;
	const struct member *member;     /* NULL when the role is missing */
	uint64_t member_offset;          /* bytes from the start of the member */
	enum block_kind kind;
	uint64_t array_offset;           /* data and copies: where it is in the array */
	bool unreadable;                 /* a read error hit this block */
};

enum unit_verdict {
	UNIT_MISMATCH,       /* parity or copies disagree; the culprit is not known */
	UNIT_CULPRIT,        /* RAID6: the syndrome names blocks[culprit] */
	UNIT_UNREADABLE,     /* read errors left too little redundancy to verify */
	UNIT_READ_ERROR,     /* a block could not be read; the rest agrees */
};

struct check_unit {
	uint64_t row;                    /* stripe row (raid4/5/6) or array chunk (raid1/10) */
	unsigned page;                   /* 4 KiB page within the chunk */
	enum unit_verdict verdict;
	int culprit;                     /* index into blocks, or -1 */
	int nblocks;
	struct unit_block blocks[ST_MAX_DISKS];
	bool repaired;                   /* mended: parity, copies, or its unreadable blocks rewritten */
};

/* Called for each inconsistent or unverifiable unit; returns 0 to go on. */
typedef int (*check_report)(void *ctx, const struct check_unit *u);
/* Called now and then with the array bytes covered so far. */
typedef void (*check_progress)(void *ctx, uint64_t done);

struct check_options {
	uint64_t offset, length;         /* array bytes; length 0 = to the end */
	bool repair;
	int prefer_role;                 /* raid1/10 repair source, -1 = first in-sync copy */
	check_report report;
	check_progress progress;
	void *ctx;
};

struct check_result {
	uint64_t units;                  /* 4 KiB units looked at */
	uint64_t inconsistent;
	uint64_t mismatch_sectors;       /* what md's check would leave in mismatch_cnt */
	uint64_t repaired;
	uint64_t unverified;             /* units with no redundancy left to compare */
	uint64_t read_errors;            /* 4 KiB blocks that could not be read */
	uint64_t rewritten;              /* repair: unreadable blocks rewritten from redundancy */
	uint64_t log_cleared;            /* repair: bad-block log entries cleared or shrunk */
	uint64_t unsettled;              /* units left neither verified nor rebuilt (no redundancy) */
};

/* Verifies (and with repair, mends) the range.  Read errors on members,
 * and what their bad-block logs name, are counted and worked around while
 * redundancy allows; a repair rewrites them from it and takes them out of
 * the log.  A repair of the whole array leaves it marked clean.  Fails
 * only on errors that stop the run. */
int check_array(struct array *a, const struct check_options *o, struct check_result *r,
		struct diag *d);

const char *block_kind_name(enum block_kind k);

#endif
