/* nbdkit-stripe-plugin: an md array served over NBD by nbdkit ("nbdkit
 * stripe MEMBER..."): reads and writes through the stripe engine (parity
 * kept, degraded arrays too), flush a durability point, trim and zero of
 * whole stripe rows on the members, dirty while served and clean after. */
#define NBDKIT_API_VERSION 2
#define THREAD_MODEL NBDKIT_THREAD_MODEL_PARALLEL

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nbdkit-plugin.h>

#include "cli/cli.h"
#include "cli/open_array.h"
#include "raid/served.h"
#include "server_readonly.h"

#define TOOL "nbdkit-stripe-plugin"
#define MEMBERS_MAX ST_MAX_DISKS

/* As stripe-map serves: four requests through engines at once (reads of
 * whole rows go straight to the members beside them); writes of whole
 * rows written at once, the others answered once queued and merged into
 * whole rows. */
static const struct served_config serving = {
	.engines = 4, .depth = 16, .write_max = 1u << 20, .merge_max = 8u << 20, .merge_wait_ns = 1000000L,
};

static char *members[MEMBERS_MAX];
static int nmembers;
static bool allow_degraded;          /* the tools' --run */
static bool quiet;                   /* the tools' -q: no word of left-out members */
static struct array the_array;
static struct served srv;
static bool opened, started, ended;
static uint8_t zeroes[1u << 20];     /* what a zero request writes at its partial rows */

static void stripe_unload(void)
{
	int i;

	if (opened && !ended)
		served_end(&srv);
	if (opened)
		array_close(&the_array);
	opened = false;
	for (i = 0; i < nmembers; i++)
		free(members[i]);
	nmembers = 0;
}

static int stripe_config(const char *key, const char *value)
{
	if (strcmp(key, "member") == 0) {
		if (nmembers == MEMBERS_MAX) {
			nbdkit_error("%s: more than %d members", value, MEMBERS_MAX);
			return -1;
		}
		if (!(members[nmembers] = strdup(value))) {
			nbdkit_error("%s: out of memory", value);
			return -1;
		}
		nmembers++;
		return 0;
	}
	if (strcmp(key, "allow-degraded") == 0 || strcmp(key, "quiet") == 0) {
		int v = nbdkit_parse_bool(value);

		if (v < 0)
			return -1;
		*(key[0] == 'q' ? &quiet : &allow_degraded) = v;
		return 0;
	}
	nbdkit_error("unknown parameter '%s' (member=PATH or a bare PATH, allow-degraded=BOOL, quiet=BOOL)", key);
	return -1;
}

static int stripe_config_complete(void)
{
	if (nmembers == 0) {
		nbdkit_error("no members given: nbdkit stripe MEMBER... (block devices or image files)");
		return -1;
	}
	return 0;
}

/* served's failures, one line each, where nbdkit logs. */
static void say_line(void *ctx, const char *msg)
{
	nbdkit_error("%s", msg);
}

/* Opens the members as the other tools do, with their refusals (one line
 * on stderr each): a writer's hold on every member unless nbdkit is
 * read-only, and roles in sync left out refused without allow-degraded.
 * A refusal ends nbdkit with the tools' status 2, nothing written. */
static int stripe_get_ready(void)
{
	bool ro = server_readonly();
	struct cli_members given = {
		.tool = TOOL, .paths = members, .n = nmembers, .readable = true,
		.aopt.mode = ro ? DEV_READ : DEV_WRITE, .run = allow_degraded, .run_word = "allow-degraded=true",
		.say_degraded = true,
		.say = quiet ? CLI_SAY_NOTHING : CLI_SAY_LEFT_OUT,
	};
	struct diag d;

	if (cli_open_array(&the_array, &given) < 0)
		exit(EXIT_ERROR);
	opened = true;
	if (served_begin(&srv, &the_array, ro, &serving, say_line, NULL, &d) < 0) {
		fprintf(stderr, TOOL ": %s\n", d.msg);
		array_close(&the_array);
		opened = false;
		exit(EXIT_ERROR);
	}
	nbdkit_debug("%s: %llu bytes of a %s array, %s", members[0],
		     (unsigned long long)the_array.geo.array_sectors * 512, level_name(the_array.geo.level),
		     ro ? "read-only" : "read-write");
	return 0;
}

/* nbdkit has forked into the background: the engines' threads start now. */
static int stripe_after_fork(void)
{
	struct diag d;

	if (served_start(&srv, &d) < 0) {
		nbdkit_error("%s: %s", members[0], d.msg);
		return -1;
	}
	started = true;
	return 0;
}

/* The server is stopping: every queued write on the members, flushed,
 * and the array marked clean (unless a write failed). */
static void stripe_cleanup(void)
{
	if (started)
		served_stop(&srv);
	started = false;
	if (opened) {
		served_end(&srv);
		ended = true;
	}
}

/* Every connection serves the one array: no state of its own. */
static void *stripe_open(int readonly)
{
	return &srv;
}

static int64_t stripe_get_size(void *h)
{
	return (int64_t)(the_array.geo.array_sectors * 512);
}

static int stripe_can_write(void *h)
{
	return !srv.read_only;
}

static int stripe_can_flush(void *h)
{
	return 1;
}

/* A flush is served for every connection at once (all share the queue
 * and the members), so several connections are safe. */
static int stripe_can_multi_conn(void *h)
{
	return 1;
}

static int stripe_can_fua(void *h)
{
	return NBDKIT_FUA_EMULATE;
}

static int stripe_can_trim(void *h)
{
	return !srv.read_only;
}

static int stripe_can_zero(void *h)
{
	return 1;
}

static int stripe_can_fast_zero(void *h)
{
	return 0;
}

static int stripe_pread(void *h, void *buf, uint32_t count, uint64_t offset, uint32_t flags)
{
	if (served_read(&srv, buf, count, offset) < 0) {
		nbdkit_set_error(EIO);
		return -1;
	}
	return 0;
}

static int stripe_pwrite(void *h, const void *buf, uint32_t count, uint64_t offset, uint32_t flags)
{
	if (served_write(&srv, buf, count, offset) < 0) {
		nbdkit_set_error(errno);
		return -1;
	}
	return 0;
}

static int stripe_flush(void *h, uint32_t flags)
{
	if (served_sync(&srv) < 0) {
		nbdkit_set_error(EIO);
		return -1;
	}
	return 0;
}

/* Whole rows made to read as zeroes on the members; the partial rows at
 * either end are left as they are (a trim is advice). */
static int stripe_trim(void *h, uint32_t count, uint64_t offset, uint32_t flags)
{
	uint64_t lo, hi;

	if (served_zero_rows(&srv, offset, count, &lo, &hi) < 0) {
		nbdkit_set_error(EIO);
		return -1;
	}
	return 0;
}

/* Writes zeroes from a static buffer over [off, off + len). */
static int write_zeroes(uint64_t off, uint64_t len)
{
	while (len > 0) {
		size_t n = len < sizeof(zeroes) ? (size_t)len : sizeof(zeroes);

		if (served_write(&srv, zeroes, n, off) < 0)
			return -1;
		off += n;
		len -= n;
	}
	return 0;
}

/* Whole rows zeroed on the members, the partial rows at either end
 * written with zeroes through the engine (parity kept). */
static int stripe_zero(void *h, uint32_t count, uint64_t offset, uint32_t flags)
{
	uint64_t lo, hi, end = offset + count;

	if (flags & NBDKIT_FLAG_FAST_ZERO) {
		nbdkit_set_error(ENOTSUP);
		return -1;
	}
	if (served_zero_rows(&srv, offset, count, &lo, &hi) < 0) {
		nbdkit_set_error(EIO);
		return -1;
	}
	if (lo >= hi)
		lo = hi = end;
	if (write_zeroes(offset, lo - offset) < 0 || write_zeroes(hi, end - hi) < 0) {
		nbdkit_set_error(errno);
		return -1;
	}
	return 0;
}

static void stripe_dump_plugin(void)
{
	printf("stripe_version=%s\n", STRIPE_VERSION);
}

static struct nbdkit_plugin plugin = {
	.name = "stripe",
	.longname = "stripe: md RAID arrays served from their members",
	.version = STRIPE_VERSION,
	.description = "Serves an md RAID array (RAID0/1/4/5/6/10) from its members, with no kernel md.",
	.config = stripe_config,
	.config_complete = stripe_config_complete,
	.config_help =
		"[member=]MEMBER ...     (required) the array's members, in any order\n"
		"allow-degraded=true     write although roles in sync were not given (the\n"
		"                        stripe tools' --run)\n"
		"quiet=true              no warnings about left-out members",
	.magic_config_key = "member",
	.get_ready = stripe_get_ready,
	.after_fork = stripe_after_fork,
	.cleanup = stripe_cleanup,
	.unload = stripe_unload,
	.dump_plugin = stripe_dump_plugin,
	.open = stripe_open,
	.get_size = stripe_get_size,
	.can_write = stripe_can_write,
	.can_flush = stripe_can_flush,
	.can_multi_conn = stripe_can_multi_conn,
	.can_fua = stripe_can_fua,
	.can_trim = stripe_can_trim,
	.can_zero = stripe_can_zero,
	.can_fast_zero = stripe_can_fast_zero,
	.pread = stripe_pread,
	.pwrite = stripe_pwrite,
	.flush = stripe_flush,
	.trim = stripe_trim,
	.zero = stripe_zero,
	.errno_is_preserved = 0,
};

NBDKIT_REGISTER_PLUGIN(plugin)
