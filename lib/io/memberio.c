/* memberio: a member's read or write of one batch, run by a pool worker. */
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

void member_io_run(void *p)
{
	struct member_io *io = p;

	io->rc = 0;
	if (!io->dev)
		return;
	if (io->write)
		io->rc = dev_write(io->dev, io->buf, io->len, io->off, &io->d);
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
