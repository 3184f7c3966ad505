/* ext2io: a read-only libext2fs io_manager whose channel takes its bytes
 * from an array through stripe_read, so libext2fs reads a filesystem on
 * members no kernel md has assembled (degraded ones through their parity). */
#ifndef STRIPE_EXT2IO_H
#define STRIPE_EXT2IO_H

#include <ext2fs/ext2fs.h>
#include <stdbool.h>
#include <stdint.h>

#include "md/array.h"
#include "util/diag.h"

struct ext2io;

/* A source over the array's bytes, named for ext2fs_open2 by ext2io_name
 * (the name carries its address: it is valid while the source lives).
 * Reads are served from a few cached windows of window bytes (a power of
 * two): large for a pass over the whole filesystem, small for a few
 * scattered blocks. */
struct ext2io *ext2io_new(struct array *a, size_t window);
void ext2io_free(struct ext2io *io);

const char *ext2io_name(const struct ext2io *io);
io_manager ext2io_manager(void);

/* The first read the array refused since the last ext2io_forget (d gets its
 * message), false when every read was served. */
bool ext2io_failed(const struct ext2io *io, struct diag *d);
void ext2io_forget(struct ext2io *io);

/* Array bytes read so far (window fills and direct reads). */
uint64_t ext2io_bytes_read(const struct ext2io *io);

#endif
