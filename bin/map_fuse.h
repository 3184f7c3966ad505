/* map_fuse: how stripe-map's FUSE connection reads, shared with the bench's
 * fuse_ceiling so that the two are measured with the same settings. */
#ifndef STRIPE_MAP_FUSE_H
#define STRIPE_MAP_FUSE_H

/* Largest FUSE read request: a reply, its header and libfuse's slack must
 * fit the pipe it is spliced through, and pipes stop at 1 MiB
 * (fs.pipe-max-size) for a process without CAP_SYS_RESOURCE. */
#define READ_BYTES (512u << 10)

/* Reads of READ_BYTES, O_DIRECT ones sent in pieces at once (async DIO),
 * replies spliced from a pipe; not SPLICE_MOVE, which could take the
 * pages from the page cache they were spliced from. */
static inline void map_fuse_reads(struct fuse_conn_info *conn)
{
	conn->max_read = READ_BYTES;
	conn->max_readahead = READ_BYTES;
	if (conn->capable & FUSE_CAP_ASYNC_DIO)
		conn->want |= FUSE_CAP_ASYNC_DIO;
	if (conn->capable & FUSE_CAP_SPLICE_WRITE)
		conn->want |= FUSE_CAP_SPLICE_WRITE;
	conn->want &= ~(unsigned)FUSE_CAP_SPLICE_MOVE;
}

#endif
