/* served: the array behind stripe-map's file and the nbdkit plugin's
 * export: its threads, its reads and queued writes, flushes, zeroed rows,
 * and dirty while served, clean after. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "md/intent.h"
#include "md/layout.h"
#include "raid/readplan.h"
#include "raid/served.h"

#define READ_RUNS 1024               /* member runs a read may be planned as */
enum { ROWS_ZERO = ROWS_WRITE + 1 }; /* apart from reads and from writes */

static void say(struct served *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(struct served *s, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (s->say)
		s->say(s->say_ctx, msg);
}

/* A member's read error the engine read around: the reader got the right
 * bytes, so the status stays 0 (every byte served), but the disk is
 * failing, which is said. */
static void note_mended(void *ctx, const struct member *mb, uint64_t offset, size_t len)
{
	say(ctx, "%s: read error at bytes %llu-%llu; rebuilt from the other members", mb->path,
	    (unsigned long long)offset, (unsigned long long)(offset + len - 1));
}

/* A write the writer thread could not put on the members: later writes
 * fail, the writer having been told this one went well.  One that stopped
 * at a range too little redundancy is left to serve wrote whole rows before
 * it, and is the data tools' status 1; any other leaves the array dirty. */
static void note_write_failed(void *ctx, uint64_t off, uint64_t len, const struct diag *d)
{
	struct served *s = ctx;

	say(s, "%s: writing %llu bytes at offset %llu: %s", s->a->members[0].path, (unsigned long long)len,
	    (unsigned long long)off, d->msg);
	atomic_store(d->kind == DIAG_UNSERVED ? &s->unserved : &s->left_dirty, true);
	atomic_store(&s->write_failed, true);
}

int served_begin(struct served *s, struct array *a, bool read_only, const struct served_config *cfg,
		 void (*sayfn)(void *ctx, const char *msg), void *say_ctx, struct diag *d)
{
	s->a = a;
	s->read_only = read_only;
	s->cfg = *cfg;
	s->say = sayfn;
	s->say_ctx = say_ctx;
	atomic_init(&s->unserved, false);
	atomic_init(&s->write_failed, false);
	atomic_init(&s->left_dirty, false);
	a->read_mended = note_mended;
	a->read_mended_ctx = s;
	s->was_clean = !a->dirty;
	if (!read_only && array_mark(a, false, d) < 0)
		return -1;
	return 0;
}

int served_start(struct served *s, struct diag *d)
{
	const struct writebehind_config wcfg = {
		.depth = s->cfg.depth, .write_max = s->cfg.write_max, .merge_max = s->cfg.merge_max,
		.merge_wait_ns = s->cfg.merge_wait_ns, .failed = note_write_failed, .ctx = s,
	};

	if (engineset_start(&s->engines, s->a, s->cfg.engines, d) < 0)
		return -1;
	if (!s->read_only && writebehind_start(&s->writes, &s->engines, &wcfg, d) < 0) {
		engineset_stop(&s->engines);
		return -1;
	}
	return 0;
}

void served_stop(struct served *s)
{
	if (!s->read_only)
		writebehind_stop(&s->writes);
	engineset_stop(&s->engines);
}

int served_sync_members(struct array *a, struct diag *d)
{
	int i, rc = 0;

	for (i = 0; i < a->geo.raid_disks; i++)
		if (a->role[i] && dev_sync(&a->role[i]->dev, d) < 0)
			rc = -1;
	return rc;
}

int served_end(struct served *s)
{
	struct diag d;

	if (s->read_only)
		return 0;
	if (served_sync_members(s->a, &d) < 0) {
		say(s, "%s", d.msg);
		return -1;
	}
	if (atomic_load(&s->left_dirty)) {
		say(s, "%s: a write failed while served: the array is left marked dirty", s->a->members[0].path);
		return -1;
	}
	if (s->was_clean && array_mark(s->a, true, &d) < 0) {
		say(s, "%s", d.msg);
		return -1;
	}
	return 0;
}

struct membuf {
	uint8_t *p;
	size_t len, at;
};

static int copy_out(void *ctx, const void *buf, size_t len, struct diag *d)
{
	struct membuf *b = ctx;

	if (len > b->len - b->at)
		return diag_fail(d, "the engine gave %zu bytes more than asked for", len - (b->len - b->at));
	memcpy(b->p + b->at, buf, len);
	b->at += len;
	return 0;
}

/* The rows whole on the members present, read straight from them with
 * the rows held against a queued write; -1 where the engine must read. */
static int read_planned(struct served *s, void *buf, size_t len, uint64_t off)
{
	struct member_run runs[READ_RUNS];
	struct range_hold h;
	int n, rc;

	if ((n = readplan_make(s->a, off, len, runs, READ_RUNS)) <= 0)
		return -1;
	engineset_hold(&s->engines, &h, off, len, ROWS_READ);
	rc = readplan_pread(buf, runs, n);
	engineset_drop(&s->engines, &h);
	return rc;
}

int served_read(struct served *s, void *buf, size_t len, uint64_t off)
{
	struct membuf b = { buf, len, 0 };
	struct diag d;

	if (read_planned(s, buf, len, off) == 0)
		return 0;
	if (engineset_read(&s->engines, off, len, copy_out, &b, &d) < 0) {
		say(s, "%s: reading %zu bytes at offset %llu: %s", s->a->members[0].path, len,
		    (unsigned long long)off, d.msg);
		atomic_store(&s->unserved, true);
		return -1;
	}
	return 0;
}

/* A write of whole stripe rows, written at once by the caller's thread
 * with an engine of its own: its parity needs nothing read, and the copy
 * into a queued buffer and the one writer thread would only cost more.
 * Its rows held alone: a queued write to them goes first, and no other
 * write changes them meanwhile. */
static int write_whole_rows(struct served *s, const void *buf, size_t len, uint64_t off)
{
	struct range_hold h;
	struct stripe_engine *e;
	uint64_t written;
	struct diag d;
	int rc;

	engineset_hold(&s->engines, &h, off, len, RANGE_ALONE);
	e = engineset_take(&s->engines);
	rc = stripe_engine_write_from(e, off, len, buf, &written, &d);
	engineset_give(&s->engines, e);
	engineset_drop(&s->engines, &h);
	if (rc < 0) {
		note_write_failed(s, off, len, &d);
		errno = EIO;
	}
	return rc;
}

/* Queues [off, off + len) for the writer thread, in pieces the buffers
 * hold. */
static int queue_write(struct served *s, const uint8_t *p, size_t len, uint64_t off)
{
	while (len > 0) {
		size_t n = len < s->cfg.write_max ? len : s->cfg.write_max;
		struct queued_write *w;

		if (atomic_load(&s->write_failed)) {
			errno = EIO;     /* the writer failed while the request's pieces came */
			return -1;
		}
		if (!(w = writebehind_buffer(&s->writes, off, n))) {
			errno = EINVAL;
			return -1;
		}
		memcpy(w->data, p, n);
		writebehind_queue(&s->writes, w);
		p += n;
		off += n;
		len -= n;
	}
	return 0;
}

/* A write of whole stripe rows is written at once.  One with a partial
 * row is queued whole, where the writes that complete its rows may meet it
 * (a row written whole needs nothing read back); its whole rows written
 * apart, its ends would be queued alone and meet less often (measured:
 * more read back, no faster). */
int served_write(struct served *s, const void *buf, size_t len, uint64_t off)
{
	uint64_t u = s->engines.row_bytes;

	if (s->read_only) {
		errno = EROFS;
		return -1;
	}
	if (atomic_load(&s->write_failed)) {
		errno = EIO;
		return -1;
	}
	if (off > s->a->geo.array_sectors * 512 || len > s->a->geo.array_sectors * 512 - off) {
		errno = EINVAL;      /* the client's mistake: the array is not failed for it */
		return -1;
	}
	if (off % u == 0 && len % u == 0)
		return write_whole_rows(s, buf, len, off);
	return queue_write(s, buf, len, off);
}

int served_drain(struct served *s)
{
	if (s->read_only)
		return 0;
	writebehind_drain(&s->writes);
	return atomic_load(&s->write_failed) ? -1 : 0;
}

int served_sync(struct served *s)
{
	struct diag d;

	if (s->read_only)
		return 0;
	if (served_drain(s) < 0)
		return -1;
	if (served_sync_members(s->a, &d) < 0) {
		say(s, "%s", d.msg);
		atomic_store(&s->left_dirty, true);
		atomic_store(&s->write_failed, true);
		return -1;
	}
	return 0;
}

/* Zeroes array sectors [lo, hi) of a level without parity on every copy
 * a member present holds. */
static int zero_copies(struct array *a, uint64_t lo, uint64_t hi, struct diag *d)
{
	struct copy c[ST_MAX_DISKS];
	uint64_t s, run;
	int i, n;

	for (s = lo; s < hi; s += run) {
		n = layout_locate(&a->geo, s, c, &run);
		if (run == 0 || run > hi - s)
			run = hi - s;
		for (i = 0; i < n; i++) {
			struct member *m = a->role[c[i].role];

			if (m && dev_zero(&m->dev, (m->sb.data_offset + c[i].sector) * 512, run * 512, d) < 0)
				return -1;
		}
	}
	return 0;
}

/* Zeroes stripe rows [r0, r1) on every member present: each row is one
 * chunk at the same place on every member (md's raid4/5/6). */
static int zero_parity_rows(struct array *a, uint64_t r0, uint64_t r1, struct diag *d)
{
	uint64_t chunk = a->geo.chunk_sectors;
	int i;

	for (i = 0; i < a->geo.raid_disks; i++) {
		struct member *m = a->role[i];

		if (m && dev_zero(&m->dev, (m->sb.data_offset + r0 * chunk) * 512, (r1 - r0) * chunk * 512, d) < 0)
			return -1;
	}
	return 0;
}

int served_zero_rows(struct served *s, uint64_t off, uint64_t len, uint64_t *lo, uint64_t *hi)
{
	const struct geometry *g = &s->a->geo;
	bool parity = layout_has_parity(g->level);
	uint64_t u = parity ? s->engines.row_bytes : 512;
	struct range_hold h;
	struct diag d;
	int rc;

	*lo = (off + u - 1) / u * u;
	*hi = (off + len) / u * u;
	if (s->read_only || *lo >= *hi) {
		*hi = *lo;
		return 0;
	}
	if (served_drain(s) < 0)
		return -1;
	engineset_hold(&s->engines, &h, *lo, *hi - *lo, ROWS_ZERO);
	if (parity)
		rc = intent_mark(s->a, *lo / u * g->chunk_sectors, (*hi - *lo) / u * g->chunk_sectors, &d) < 0 ||
		     zero_parity_rows(s->a, *lo / u, *hi / u, &d) < 0 ? -1 : 0;
	else
		rc = intent_mark(s->a, *lo / 512, (*hi - *lo) / 512, &d) < 0 ||
		     zero_copies(s->a, *lo / 512, *hi / 512, &d) < 0 ? -1 : 0;
	engineset_drop(&s->engines, &h);
	if (rc < 0) {
		say(s, "%s: zeroing %llu bytes at offset %llu: %s", s->a->members[0].path,
		    (unsigned long long)(*hi - *lo), (unsigned long long)*lo, d.msg);
		atomic_store(&s->left_dirty, true);
		atomic_store(&s->write_failed, true);
	}
	return rc;
}
