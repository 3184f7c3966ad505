/* test_fsmap: while a filesystem on an array is open for --files, what
 * libext2fs reports itself through com_err comes out as one line under the
 * tool's name, however many times it reports; after, com_err is its own. */
#include <et/com_err.h>
#include <ext2fs/ext2fs.h>

#include "raid/fsmap.h"
#include "tap.h"
#include "image_array.h"

static char dir[] = "/tmp/test_fsmap.XXXXXX";

static long long from_file(void *ctx, void *buf, size_t len, struct diag *d)
{
	ssize_t got = read(*(int *)ctx, buf, len);

	return got < 0 ? diag_fail(d, "reading the filesystem image") : got;
}

/* An ext4 made by mkfs.ext4, written into the array. */
static int put_ext4(char **paths, int n)
{
	struct array_options opt = { .mode = DEV_WRITE };
	struct array a;
	struct diag d;
	char img[128], cmd[256];
	uint64_t written;
	int fd, rc = -1;

	snprintf(img, sizeof(img), "%s/fs.img", dir);
	if (array_open(&a, paths, n, &opt, &d) < 0)
		return -1;
	snprintf(cmd, sizeof(cmd), "mkfs.ext4 -q -F -b 4096 %s %lluk >/dev/null 2>&1", img,
		 (unsigned long long)a.geo.array_sectors / 2);
	if (system(cmd) == 0 && (fd = open(img, O_RDONLY)) >= 0) {
		rc = stripe_write(&a, 0, a.geo.array_sectors * 512, from_file, &fd, &written, &d);
		close(fd);
	}
	array_close(&a);
	unlink(img);
	return rc;
}

/* What com_err says twice, as stderr got it. */
static void com_err_twice(char *out, size_t len)
{
	char path[128];
	int fd, saved;
	ssize_t got;

	snprintf(path, sizeof(path), "%s/stderr", dir);
	fflush(stderr);
	saved = dup(2);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	dup2(fd, 2);
	com_err("ext2fs_test_block_bitmap", 0, "block #%d of the block bitmap", 7);
	com_err("ext2fs_test_block_bitmap", 0, "block #%d of the block bitmap", 8);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	got = pread(fd, out, len - 1, 0);
	out[got > 0 ? got : 0] = 0;
	close(fd);
	/* one line each, as TAP shows them */
	for (char *p = out; (p = strchr(p, '\n')); p++)
		*p = p[1] ? '|' : 0;
	unlink(path);
}

int main(void)
{
	struct array_options opt = { .mode = DEV_READ };
	char *paths[4], said[1024];
	struct fsmap *m = NULL;
	struct array a;
	struct diag d;

	if (!mkdtemp(dir) || make_image_array(dir, 5, -1, 4, paths) < 0 || put_ext4(paths, 4) < 0) {
		printf("1..0 # SKIP cannot make an ext4 array (mkfs.ext4 missing?)\n");
		return 0;
	}
	ok(array_open(&a, paths, 4, &opt, &d) == 0 && fsmap_open(&a, &m, &d) == 0, "the filesystem opens");
	com_err_twice(said, sizeof(said));
	ok(strcmp(said, "test_fsmap: --files: libext2fs, ext2fs_test_block_bitmap: block #7 of the block bitmap") == 0,
	   "libext2fs's reports come out as one line under the tool's name: %s", said);
	fsmap_close(m);
	com_err_twice(said, sizeof(said));
	ok(strncmp(said, "ext2fs_test_block_bitmap", 24) == 0 && strstr(said, "#8"),
	   "once the filesystem is closed, com_err is its own again: %s", said);
	array_close(&a);
	remove_image_array(paths, 4);
	rmdir(dir);
	return tap_done();
}
