/* memberio: a member's read or write of one batch, run by a pool worker. */
#include <string.h>

#include "io/memberio.h"

/* Reads [at, at + len) of the item's range.  Where that fails and the
 * item finds bad pages, again a page at a time, zero-filling and flagging
 * the pages that still fail. */
static int read_run(struct member_io *io, size_t at, size_t len)
{
	uint8_t *buf = io->buf;
	size_t p;

	if (dev_read(io->dev, buf + at, len, io->off + at, io->bad ? NULL : &io->d) == 0)
		return 0;
	if (!io->bad)
		return -1;
	/* whole pages only, as md counts them: a tail shorter than a page
	 * (the end of a component not in whole pages) has no flag of its own
	 * and is compared by no one, so it is zeroed rather than read past
	 * the range */
	for (p = at; p + MEMBER_PAGE <= at + len; p += MEMBER_PAGE) {
		if (dev_read(io->dev, buf + p, MEMBER_PAGE, io->off + p, NULL) == 0)
			continue;
		memset(buf + p, 0, MEMBER_PAGE);
		io->bad[p / MEMBER_PAGE] = 1;
		io->bad_pages++;
	}
	memset(buf + p, 0, at + len - p);
	return 0;
}

/* Reads the wanted runs of chunks only (all of them without skip), one
 * call per run. */
static int read_wanted(struct member_io *io)
{
	size_t unit = io->skip ? io->chunk : io->len, n = unit ? io->len / unit : 0, k = 0, from;

	if (io->bad) {
		memset(io->bad, 0, io->len / MEMBER_PAGE);
		io->bad_pages = 0;
	}
	while (k < n) {
		for (; k < n && io->skip && io->skip[k]; k++)
			;
		for (from = k; k < n && !(io->skip && io->skip[k]); k++)
			;
		if (k > from && read_run(io, from * unit, (k - from) * unit) < 0)
			return -1;
	}
	return 0;
}

void member_io_run(void *p)
{
	struct member_io *io = p;

	io->rc = 0;
	if (!io->dev)
		return;
	if (io->write)
		io->rc = dev_write(io->dev, io->buf, io->len, io->off, &io->d);
	else
		io->rc = read_wanted(io);
}

int member_read(struct dev *dev, void *buf, size_t len, uint64_t off, struct diag *d)
{
	struct member_io io = { .dev = dev, .buf = buf, .len = len, .off = off };

	member_io_run(&io);
	if (io.rc < 0 && d)
		*d = io.d;
	return io.rc;
}

int member_io_wait(struct pool *pl, struct member_io *io, int n, struct diag *d)
{
	int i;

	pool_wait(pl);
	for (i = 0; i < n; i++) {
		if (io[i].dev && io[i].rc < 0) {
			*d = io[i].d;
			return -1;
		}
	}
	return 0;
}
