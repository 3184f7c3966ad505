/* fuse_ceiling: the fastest a FUSE server moves a file on this machine.
 * Serves one file as MOUNTPOINT/file, every read spliced straight from it
 * by libfuse, with stripe-map's connection settings; bench_stripe_map reads
 * it beside the map to tell the kernel's FUSE cost from stripe-map's own. */
#define FUSE_USE_VERSION 35
#include <errno.h>
#include <fcntl.h>
#include <fuse.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "map_fuse.h"

#define NAME "/file"

struct ceiling {
	int fd;
	off_t size;
};

static struct ceiling *this_ceiling(void)
{
	return fuse_get_context()->private_data;
}

static int ceiling_getattr(const char *path, struct stat *st, struct fuse_file_info *fi)
{
	(void)fi;
	memset(st, 0, sizeof(*st));
	if (strcmp(path, "/") == 0) {
		st->st_mode = S_IFDIR | 0555;
		st->st_nlink = 2;
	} else if (strcmp(path, NAME) == 0) {
		st->st_mode = S_IFREG | 0444;
		st->st_nlink = 1;
		st->st_size = this_ceiling()->size;
	} else {
		return -ENOENT;
	}
	return 0;
}

static int ceiling_readdir(const char *path, void *buf, fuse_fill_dir_t fill, off_t off,
			   struct fuse_file_info *fi, enum fuse_readdir_flags flags)
{
	(void)off;
	(void)fi;
	(void)flags;
	if (strcmp(path, "/") != 0)
		return -ENOTDIR;
	fill(buf, ".", NULL, 0, 0);
	fill(buf, "..", NULL, 0, 0);
	fill(buf, NAME + 1, NULL, 0, 0);
	return 0;
}

static int ceiling_open(const char *path, struct fuse_file_info *fi)
{
	if (strcmp(path, NAME) != 0)
		return -ENOENT;
	if ((fi->flags & O_ACCMODE) != O_RDONLY)
		return -EROFS;
	fi->direct_io = 0;           /* as stripe-map: O_DIRECT reads go out in pieces at once */
	return 0;
}

/* The reply is the file's own pages: libfuse splices them to the reader. */
static int ceiling_read_buf(const char *path, struct fuse_bufvec **bufp, size_t size, off_t off,
			    struct fuse_file_info *fi)
{
	const struct ceiling *c = this_ceiling();
	struct fuse_bufvec *bv = malloc(sizeof(*bv));

	(void)path;
	(void)fi;
	if (!bv)
		return -ENOMEM;
	if (off >= c->size)
		size = 0;
	else if ((off_t)size > c->size - off)
		size = (size_t)(c->size - off);
	*bv = (struct fuse_bufvec)FUSE_BUFVEC_INIT(size);
	bv->buf[0].flags = FUSE_BUF_IS_FD | FUSE_BUF_FD_SEEK;
	bv->buf[0].fd = c->fd;
	bv->buf[0].pos = off;
	*bufp = bv;
	return 0;
}

static void *ceiling_init(struct fuse_conn_info *conn, struct fuse_config *cfg)
{
	map_fuse_reads(conn);
	cfg->attr_timeout = cfg->entry_timeout = 1.0;
	return fuse_get_context()->private_data;
}

static const struct fuse_operations ceiling_ops = {
	.getattr = ceiling_getattr,
	.readdir = ceiling_readdir,
	.open = ceiling_open,
	.read_buf = ceiling_read_buf,
	.init = ceiling_init,
};

int main(int argc, char **argv)
{
	char opt[64];
	char *fargv[] = { argv[0], "-f", "-o", opt, argc > 2 ? argv[2] : NULL, NULL };
	struct ceiling c;
	struct stat st;

	if (argc != 3) {
		fprintf(stderr, "usage: fuse_ceiling FILE MOUNTPOINT\n");
		return 2;
	}
	if ((c.fd = open(argv[1], O_RDONLY | O_CLOEXEC)) < 0 || fstat(c.fd, &st) < 0) {
		fprintf(stderr, "fuse_ceiling: %s: %s\n", argv[1], strerror(errno));
		return 2;
	}
	c.size = st.st_size;
	snprintf(opt, sizeof(opt), "ro,max_read=%u", READ_BYTES);
	return fuse_main(5, fargv, &ceiling_ops, &c) == 0 ? 0 : 2;
}
