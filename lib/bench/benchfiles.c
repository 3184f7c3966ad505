/* benchfiles: bonnie++'s file tests (-n): create, stat and delete many
 * small files, first in name order then in random order, in a directory of
 * the run's own. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench/bench.h"
#include "io/dev.h"

#define FILES_UNIT 1024          /* -n counts files in units of 1024 */
#define RAND_EXTRA 12            /* up to 12 random characters in a name */
#define NAME_MAX_LEN 32

struct file_set {
	const struct bench_params *p;
	struct bench_target *t;
	char *top;                   /* the directory the files go in */
	int topfd;
	int *dirfd;                  /* per directory (just topfd when there is one) */
	unsigned ndirs;
	size_t n;                    /* files */
	char (*name)[NAME_MAX_LEN];
	unsigned *dir;               /* the directory of each name */
	uint64_t rnd;
	char *buf;                   /* data for files of max_size > 0 */
};

static const char name_chars[] = "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";

/* bonnie++'s names: a 10-digit hex number and 0 to 12 random characters;
 * the number first for the sequential tests, last for the random ones. */
static void make_names(struct file_set *fs, bool random_first)
{
	size_t per_dir = fs->n / fs->ndirs + (fs->n % fs->ndirs != 0), i;

	for (i = 0; i < fs->n; i++) {
		char extra[RAND_EXTRA + 1];
		unsigned len = (unsigned)(bench_random(&fs->rnd) % (RAND_EXTRA + 1)), k;

		for (k = 0; k < len; k++)
			extra[k] = name_chars[bench_random(&fs->rnd) % (sizeof(name_chars) - 1)];
		extra[len] = 0;
		if (random_first)
			snprintf(fs->name[i], NAME_MAX_LEN, "%s%010zx", extra, i);
		else
			snprintf(fs->name[i], NAME_MAX_LEN, "%010zx%s", i, extra);
		fs->dir[i] = (unsigned)(i / per_dir);
	}
}

static void shuffle(struct file_set *fs)
{
	size_t i;

	for (i = fs->n; i > 1; i--) {
		size_t j = (size_t)(bench_random(&fs->rnd) % i);
		char tmp[NAME_MAX_LEN];
		unsigned dt = fs->dir[i - 1];

		memcpy(tmp, fs->name[i - 1], NAME_MAX_LEN);
		memcpy(fs->name[i - 1], fs->name[j], NAME_MAX_LEN);
		memcpy(fs->name[j], tmp, NAME_MAX_LEN);
		fs->dir[i - 1] = fs->dir[j];
		fs->dir[j] = dt;
	}
}

static int stopped(struct file_set *fs, struct diag *d)
{
	return bench_stopped(fs->t) ? diag_fail(d, "interrupted") : 0;
}

static int sync_fs(struct file_set *fs, struct diag *d)
{
	if (syncfs(fs->topfd) < 0)
		return diag_fail(d, "%s: syncfs failed: %s", fs->top, strerror(errno));
	return 0;
}

static uint64_t file_size(struct file_set *fs)
{
	const struct bench_files *f = &fs->p->files;

	if (f->max_size > f->min_size)
		return f->min_size + bench_random(&fs->rnd) % (f->max_size - f->min_size + 1);
	return f->max_size;
}

static int create_one(struct file_set *fs, size_t i, struct diag *d)
{
	int dfd = fs->dirfd[fs->dir[i]];
	int fd = openat(dfd, fs->name[i], O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0600);
	uint64_t size = file_size(fs), done = 0;
	int rc = 0;

	if (fd < 0)
		return diag_fail(d, "%s: cannot create %s: %s", fs->top, fs->name[i], strerror(errno));
	while (rc == 0 && done < size) {
		size_t len = size - done < fs->p->chunk ? (size_t)(size - done) : fs->p->chunk;
		ssize_t n = write(fd, fs->buf, len);

		if (n <= 0)
			rc = diag_fail(d, "%s: %s: write error: %s", fs->top, fs->name[i],
				       n < 0 ? strerror(errno) : "no progress (disk full?)");
		else
			done += (uint64_t)n;
	}
	if (rc == 0 && fs->p->fsync && (fsync(fd) < 0 || fsync(dfd) < 0))
		rc = diag_fail(d, "%s: %s: fsync failed: %s", fs->top, fs->name[i], strerror(errno));
	close(fd);
	return rc;
}

static int create_all(struct file_set *fs, struct bench_figure *f, struct diag *d)
{
	struct bench_clock c;
	size_t i;
	int rc = 0;

	bench_clock_start(&c);
	for (i = 0; rc == 0 && i < fs->n; i++) {
		uint64_t s = bench_now_ns();

		rc = create_one(fs, i, d);
		bench_op(f, bench_now_ns() - s);
		if (rc == 0)
			rc = stopped(fs, d);
	}
	if (rc == 0)
		rc = sync_fs(fs, d);
	bench_clock_stop(&c, f);
	f->ops = fs->n;
	return rc;
}

/* stat a file, and read what it holds, as bonnie++'s "read" column does. */
static int stat_one(struct file_set *fs, int dfd, const char *name, struct diag *d)
{
	struct stat st;
	int fd, rc = 0;

	if (fstatat(dfd, name, &st, 0) < 0)
		return diag_fail(d, "%s: cannot stat %s: %s", fs->top, name, strerror(errno));
	if (!st.st_size)
		return 0;
	fd = openat(dfd, name, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return diag_fail(d, "%s: cannot open %s: %s", fs->top, name, strerror(errno));
	for (;;) {
		ssize_t n = read(fd, fs->buf, fs->p->chunk);

		if (n < 0)
			rc = diag_fail(d, "%s: %s: read error: %s", fs->top, name, strerror(errno));
		if (n <= 0)
			break;
	}
	close(fd);
	return rc;
}

/* Every file of each directory in the order readdir gives: stat, or unlink. */
static int walk_dirs(struct file_set *fs, bool unlink_them, struct bench_figure *f, struct diag *d)
{
	struct bench_clock c;
	size_t seen = 0;
	unsigned k;
	int rc = 0;

	bench_clock_start(&c);
	for (k = 0; rc == 0 && k < fs->ndirs; k++) {
		int fd = dup(fs->dirfd[k]);
		DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
		struct dirent *e;

		if (!dir) {
			if (fd >= 0)
				close(fd);
			return diag_fail(d, "%s: cannot read the directory: %s", fs->top, strerror(errno));
		}
		rewinddir(dir);
		while (rc == 0) {
			uint64_t s = bench_now_ns();

			if (!(e = readdir(dir)))
				break;
			if (e->d_name[0] == '.')
				continue;
			if (unlink_them) {
				if (unlinkat(fs->dirfd[k], e->d_name, 0) < 0)
					rc = diag_fail(d, "%s: cannot delete %s: %s", fs->top, e->d_name, strerror(errno));
				else if (fs->p->fsync && fsync(fs->dirfd[k]) < 0)
					rc = diag_fail(d, "%s: fsync failed: %s", fs->top, strerror(errno));
			} else {
				rc = stat_one(fs, fs->dirfd[k], e->d_name, d);
			}
			bench_op(f, bench_now_ns() - s);
			seen++;
			if (rc == 0)
				rc = stopped(fs, d);
		}
		closedir(dir);
	}
	if (rc == 0 && seen != fs->n)
		rc = diag_fail(d, "%s: expected %zu files, found %zu", fs->top, fs->n, seen);
	if (rc == 0 && unlink_them)
		rc = sync_fs(fs, d);
	bench_clock_stop(&c, f);
	f->ops = fs->n;
	return rc;
}

/* The files in the (shuffled) name order: stat, or unlink. */
static int each_random(struct file_set *fs, bool unlink_them, struct bench_figure *f, struct diag *d)
{
	struct bench_clock c;
	size_t i;
	int rc = 0;

	shuffle(fs);
	bench_clock_start(&c);
	for (i = 0; rc == 0 && i < fs->n; i++) {
		uint64_t s = bench_now_ns();
		int dfd = fs->dirfd[fs->dir[i]];

		if (!unlink_them)
			rc = stat_one(fs, dfd, fs->name[i], d);
		else if (unlinkat(dfd, fs->name[i], 0) < 0)
			rc = diag_fail(d, "%s: cannot delete %s: %s", fs->top, fs->name[i], strerror(errno));
		else if (fs->p->fsync && fsync(dfd) < 0)
			rc = diag_fail(d, "%s: fsync failed: %s", fs->top, strerror(errno));
		bench_op(f, bench_now_ns() - s);
		if (rc == 0)
			rc = stopped(fs, d);
	}
	if (rc == 0 && unlink_them)
		rc = sync_fs(fs, d);
	bench_clock_stop(&c, f);
	f->ops = fs->n;
	return rc;
}

static int open_dirs(struct file_set *fs, struct diag *d)
{
	unsigned k;

	if (mkdir(fs->top, 0700) < 0)
		return diag_fail(d, "%s: cannot make the directory: %s", fs->top, strerror(errno));
	fs->topfd = open(fs->top, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fs->topfd < 0)
		return diag_fail(d, "%s: cannot open the directory: %s", fs->top, strerror(errno));
	if (fs->ndirs == 1) {
		fs->dirfd[0] = fs->topfd;
		return 0;
	}
	for (k = 0; k < fs->ndirs; k++) {
		char sub[16];

		snprintf(sub, sizeof(sub), "%05u", k);
		if (mkdirat(fs->topfd, sub, 0700) < 0 ||
		    (fs->dirfd[k] = openat(fs->topfd, sub, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
			return diag_fail(d, "%s/%s: cannot make the directory: %s", fs->top, sub, strerror(errno));
	}
	return 0;
}

static void close_dirs(struct file_set *fs)
{
	unsigned k;

	for (k = 0; fs->ndirs > 1 && k < fs->ndirs; k++) {
		char sub[16];

		if (fs->dirfd[k] >= 0)
			close(fs->dirfd[k]);
		snprintf(sub, sizeof(sub), "%05u", k);
		unlinkat(fs->topfd, sub, AT_REMOVEDIR);
	}
	if (fs->topfd >= 0)
		close(fs->topfd);
	rmdir(fs->top);
}

int bonnie_file_tests(const struct bench_params *p, struct bench_target *t, struct bench_results *r,
		      struct diag *d)
{
	struct file_set fs = { .p = p, .t = t, .topfd = -1, .rnd = p->seed ^ 0xf11e5ull };
	int rc = 0;

	fs.n = (size_t)p->files.count * FILES_UNIT;
	fs.ndirs = p->files.dirs ? p->files.dirs : 1;
	if (asprintf(&fs.top, "%s/files", t->tmpdir) < 0)
		return diag_fail(d, "out of memory");
	fs.name = calloc(fs.n, sizeof(*fs.name));
	fs.dir = calloc(fs.n, sizeof(*fs.dir));
	fs.dirfd = calloc(fs.ndirs, sizeof(*fs.dirfd));
	fs.buf = dev_alloc(p->chunk);
	if (fs.buf)
		bench_fill(fs.buf, p->chunk, p->seed);
	if (!fs.name || !fs.dir || !fs.dirfd || !fs.buf)
		rc = diag_fail(d, "out of memory for %zu file names", fs.n);
	for (unsigned k = 0; fs.dirfd && k < fs.ndirs; k++)
		fs.dirfd[k] = -1;
	if (rc == 0)
		rc = open_dirs(&fs, d);
	if (rc == 0) {
		if (t->note)
			t->note(t->note_ctx, "file tests in name order");
		make_names(&fs, false);
		rc = create_all(&fs, &r->fig[BT_SEQ_CREATE], d);
	}
	if (rc == 0)
		rc = walk_dirs(&fs, false, &r->fig[BT_SEQ_STAT], d);
	if (rc == 0)
		rc = walk_dirs(&fs, true, &r->fig[BT_SEQ_DELETE], d);
	if (rc == 0) {
		if (t->note)
			t->note(t->note_ctx, "file tests in random order");
		make_names(&fs, true);
		rc = create_all(&fs, &r->fig[BT_RAN_CREATE], d);
	}
	if (rc == 0)
		rc = each_random(&fs, false, &r->fig[BT_RAN_STAT], d);
	if (rc == 0)
		rc = each_random(&fs, true, &r->fig[BT_RAN_DELETE], d);
	if (fs.dirfd)
		close_dirs(&fs);
	free(fs.top);
	free(fs.name);
	free(fs.dir);
	free(fs.dirfd);
	free(fs.buf);
	return rc;
}
