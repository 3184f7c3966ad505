/* memberio: a member's read or write of one batch, run by a pool worker. */
#include <string.h>

#include "io/memberio.h"

/* Reads the wanted runs of chunks only, one call per run. */
static int member_read_wanted(struct member_io *io)
{
	size_t k = 0, nchunks = io->len / io->chunk, from;

	while (k < nchunks) {
		for (; k < nchunks && io->skip[k]; k++)
			;
		for (from = k; k < nchunks && !io->skip[k]; k++)
			;
		if (k > from && dev_read(io->dev, (uint8_t *)io->buf + from * io->chunk, (k - from) * io->chunk,
					 io->off + from * io->chunk, &io->d) < 0)
			return -1;
	}
	return 0;
}

/* The failing pages of a read that failed as a whole, found one by one. */
static void member_read_pages(struct member_io *io)
{
	uint8_t *buf = io->buf;
	size_t i, pages = io->len / MEMBER_PAGE;

	memset(io->bad, 0, pages);
	io->bad_pages = 0;
	if (dev_read(io->dev, buf, io->len, io->off, NULL) == 0)
		return;
	for (i = 0; i < pages; i++) {
		if (dev_read(io->dev, buf + i * MEMBER_PAGE, MEMBER_PAGE, io->off + i * MEMBER_PAGE, NULL) == 0)
			continue;
		memset(buf + i * MEMBER_PAGE, 0, MEMBER_PAGE);
		io->bad[i] = 1;
		io->bad_pages++;
	}
}

void member_io_run(void *p)
{
	struct member_io *io = p;

	io->rc = 0;
	if (!io->dev)
		return;
	if (io->write)
		io->rc = dev_write(io->dev, io->buf, io->len, io->off, &io->d);
	else if (io->bad)
		member_read_pages(io);
	else if (io->skip)
		io->rc = member_read_wanted(io);
	else
		io->rc = dev_read(io->dev, io->buf, io->len, io->off, &io->d);
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
