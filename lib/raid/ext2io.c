/* ext2io: libext2fs reads the array through a read-only io_manager; its
 * channel serves array bytes from a few cached windows filled by
 * stripe_read.  The source travels to the channel in its name,
 * "stripe:<address>", as an io_manager's open takes nothing else. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "raid/ext2io.h"
#include "raid/stripe.h"

#define IO_MAGIC 0x66736d70u         /* "fsmp": a name that really points at a source */
#define WIN_SLOTS 4

/* A cached, aligned window of array bytes. */
struct win {
	uint64_t off;
	size_t len;                  /* 0: empty */
	uint64_t used;               /* for least-recently-used replacement */
	uint8_t *buf;
};

/* What a channel reads from: the array, and the first read failure. */
struct ext2io {
	uint32_t magic;
	struct array *a;
	uint64_t size;               /* array bytes */
	struct win win[WIN_SLOTS];
	uint64_t tick;
	size_t win_bytes;
	uint64_t bytes_read;
	bool failed;
	struct diag d;
	char name[64];
};

struct fill {
	uint8_t *p;
};

static int fill_sink(void *ctx, const void *buf, size_t len, struct diag *d)
{
	struct fill *f = ctx;

	memcpy(f->p, buf, len);
	f->p += len;
	return 0;
}

static int read_direct(struct ext2io *s, uint64_t off, void *buf, size_t len)
{
	struct fill f = { .p = buf };
	struct diag d;

	s->bytes_read += len;
	if (stripe_read(s->a, off, len, fill_sink, &f, &d) == 0)
		return 0;
	if (!s->failed) {
		s->failed = true;
		s->d = d;
	}
	return -1;
}

/* The window holding off, read in if need be; NULL when it cannot be read. */
static struct win *window(struct ext2io *s, uint64_t off)
{
	uint64_t start = off / s->win_bytes * s->win_bytes;
	size_t len = s->size - start < s->win_bytes ? (size_t)(s->size - start) : s->win_bytes;
	struct win *w = &s->win[0];

	for (int i = 0; i < WIN_SLOTS; i++) {
		if (s->win[i].len && s->win[i].off == start) {
			s->win[i].used = ++s->tick;
			return &s->win[i];
		}
		if (s->win[i].used < w->used)
			w = &s->win[i];
	}
	if (!w->buf && !(w->buf = malloc(s->win_bytes)))
		return NULL;
	w->len = 0;
	if (read_direct(s, start, w->buf, len) < 0)
		return NULL;
	w->off = start;
	w->len = len;
	w->used = ++s->tick;
	return w;
}

/* Array bytes [off, off + len); past the end of the array zeros and a
 * short read, as the unix manager gives past the end of a device.  Where a
 * window cannot be read (a read error where no redundancy is left), the
 * range is read 4 KiB at a time and what cannot be read is zero-filled. */
static errcode_t source_read(struct ext2io *s, uint64_t off, uint8_t *buf, size_t len)
{
	errcode_t err = 0;

	while (len) {
		struct win *w;
		size_t n;

		if (off >= s->size) {
			memset(buf, 0, len);
			return EXT2_ET_SHORT_READ;
		}
		w = window(s, off);
		if (w) {
			n = w->off + w->len - off < len ? (size_t)(w->off + w->len - off) : len;
			memcpy(buf, w->buf + (off - w->off), n);
		} else {
			n = 4096 - off % 4096;
			n = n < len ? n : len;
			n = s->size - off < n ? (size_t)(s->size - off) : n;
			if (read_direct(s, off, buf, n) < 0) {
				memset(buf, 0, n);
				err = EXT2_ET_SHORT_READ;
			}
		}
		off += n;
		buf += n;
		len -= n;
	}
	return err;
}

static struct struct_io_manager stripe_io_manager;

static errcode_t chan_open(const char *name, int flags, io_channel *channel)
{
	struct ext2io *s = NULL;
	io_channel io;

	if (!name || sscanf(name, "stripe:%p", (void **)&s) != 1 || !s || s->magic != IO_MAGIC)
		return EXT2_ET_BAD_DEVICE_NAME;
	if (flags & IO_FLAG_RW)
		return EXT2_ET_RO_FILSYS;
	io = calloc(1, sizeof(*io));
	if (!io || !(io->name = strdup(name))) {
		free(io);
		return EXT2_ET_NO_MEMORY;
	}
	io->magic = EXT2_ET_MAGIC_IO_CHANNEL;
	io->manager = &stripe_io_manager;
	io->block_size = 1024;
	io->refcount = 1;
	io->private_data = s;
	*channel = io;
	return 0;
}

static errcode_t chan_close(io_channel io)
{
	EXT2_CHECK_MAGIC(io, EXT2_ET_MAGIC_IO_CHANNEL);
	if (--io->refcount > 0)
		return 0;
	free(io->name);
	free(io);
	return 0;
}

static errcode_t chan_set_blksize(io_channel io, int blksize)
{
	EXT2_CHECK_MAGIC(io, EXT2_ET_MAGIC_IO_CHANNEL);
	if (blksize <= 0)
		return EXT2_ET_INVALID_ARGUMENT;
	io->block_size = blksize;
	return 0;
}

/* count < 0 means -count bytes, as in every io_manager. */
static errcode_t chan_read_blk64(io_channel io, unsigned long long block, int count, void *data)
{
	size_t len;

	EXT2_CHECK_MAGIC(io, EXT2_ET_MAGIC_IO_CHANNEL);
	len = count < 0 ? (size_t)-(long long)count : (size_t)count * (size_t)io->block_size;
	return source_read(io->private_data, block * (unsigned long long)io->block_size, data, len);
}

static errcode_t chan_read_blk(io_channel io, unsigned long block, int count, void *data)
{
	return chan_read_blk64(io, block, count, data);
}

static errcode_t chan_write_blk(io_channel io, unsigned long block, int count, const void *data)
{
	return EXT2_ET_RO_FILSYS;
}

static errcode_t chan_write_blk64(io_channel io, unsigned long long block, int count, const void *data)
{
	return EXT2_ET_RO_FILSYS;
}

static errcode_t chan_write_byte(io_channel io, unsigned long offset, int count, const void *data)
{
	return EXT2_ET_RO_FILSYS;
}

static errcode_t chan_flush(io_channel io)
{
	return 0;
}

static errcode_t chan_set_option(io_channel io, const char *option, const char *arg)
{
	return EXT2_ET_INVALID_ARGUMENT;
}

static struct struct_io_manager stripe_io_manager = {
	.magic = EXT2_ET_MAGIC_IO_MANAGER,
	.name = "stripe array I/O manager",
	.open = chan_open,
	.close = chan_close,
	.set_blksize = chan_set_blksize,
	.read_blk = chan_read_blk,
	.write_blk = chan_write_blk,
	.flush = chan_flush,
	.write_byte = chan_write_byte,
	.set_option = chan_set_option,
	.read_blk64 = chan_read_blk64,
	.write_blk64 = chan_write_blk64,
};

struct ext2io *ext2io_new(struct array *a, size_t window)
{
	struct ext2io *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->magic = IO_MAGIC;
	s->a = a;
	s->size = a->geo.array_sectors * 512;
	s->win_bytes = window;
	snprintf(s->name, sizeof(s->name), "stripe:%p", (void *)s);
	return s;
}

void ext2io_free(struct ext2io *s)
{
	if (!s)
		return;
	for (int i = 0; i < WIN_SLOTS; i++)
		free(s->win[i].buf);
	free(s);
}

const char *ext2io_name(const struct ext2io *s)
{
	return s->name;
}

io_manager ext2io_manager(void)
{
	return &stripe_io_manager;
}

bool ext2io_failed(const struct ext2io *s, struct diag *d)
{
	if (s->failed && d)
		*d = s->d;
	return s->failed;
}

void ext2io_forget(struct ext2io *s)
{
	s->failed = false;
}

uint64_t ext2io_bytes_read(const struct ext2io *s)
{
	return s->bytes_read;
}
