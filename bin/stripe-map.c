/* stripe-map: an md array as one file, MOUNTPOINT/array, through FUSE.
 * Reads and writes go through the stripe engine (parity kept, degraded
 * arrays too) from several threads; while mapped read-write the array is
 * marked dirty, and clean again once it is unmapped. */
#define FUSE_USE_VERSION 312

#include <errno.h>
#include <fcntl.h>
#include <fuse.h>
#include <getopt.h>
#include <limits.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "md/array.h"
#include "cli/cli.h"
#include "cli/open_array.h"
#include "map_fuse.h"
#include "raid/readplan.h"
#include "raid/served.h"

#define TOOL "stripe-map"
#define FILE_NAME "array"
#define FILE_PATH "/" FILE_NAME
#define IO_BYTES (512u << 10)        /* largest FUSE write request */
#define ENGINES 4                    /* requests served at once; the rest wait */
#define QUEUED_MAX 8                 /* writes answered but not yet on the members */
#define MERGE_BYTES (8u << 20)       /* most bytes a run of queued writes is written in */
#define MERGE_WAIT_NS 1000000L       /* how long a partial row waits for the write that ends it */
#define SPLICE_RUNS 512              /* member runs one read may be spliced from */

extern char **environ;

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: " TOOL " [options] MEMBER... MOUNTPOINT\n"
		"\n"
		"Map the md array made of MEMBER... (block devices or image files, in any\n"
		"order) as one file, MOUNTPOINT/" FILE_NAME ", through FUSE: what is read from it\n"
		"is read from the members, degraded arrays rebuilt on the fly; what is written\n"
		"to it is written to them with mirrors and parity kept. It can hold a file\n"
		"system: mkfs.ext4 MOUNTPOINT/" FILE_NAME "; mount -o loop MOUNTPOINT/" FILE_NAME " /mnt.\n"
		"While mapped read-write the array is marked dirty, as md does; it is marked\n"
		"clean when unmapped: fusermount3 -u MOUNTPOINT, or SIGTERM.\n"
		"\n"
		"Options:\n"
		"  -r, --read-only         map read-only: members opened read-only, writes refused\n"
		"  -R, --run               map read-write although roles in sync were not given\n"
		"      --geometry SPEC     map the members as SPEC describes, no superblock read;\n"
		"                          with -r only (see stripe-read(1))\n"
		"      --foreground        stay in the foreground until unmapped (default: go to\n"
		"                          the background once the file is there)\n"
		"  -q, --quiet             no warnings about left-out members\n"
		"  -v, --verbose           say which members are used and what is mapped\n"
		"  -h, --help              show this help and exit\n"
		"  -V, --version           show the version and exit\n"
		"\n"
		"Exit status: 0 mapped, and unmapped with every byte served (read errors\n"
		"rebuilt from the other members are named on stderr), 1 a read or write\n"
		"too little redundancy was left to serve (answered EIO, named; the array\n"
		"is left clean), 2 error (nothing mapped, or a write error while mapped).\n");
}

struct options {
	bool read_only, run, foreground, quiet, verbose;
	struct geometry_spec spec;
	bool geometry;               /* --geometry given: spec is the array */
	char **members;
	int nmembers;
	const char *mountpoint;
};

/* One mapping: the array, the file it is shown as, and what the FUSE
 * threads share.  Handed to every callback as FUSE's private_data. */
struct map {
	struct array *a;
	char mountpoint[PATH_MAX];
	bool read_only, use_syslog;
	bool from_spec;              /* --geometry: no UUID to name the file system after */
	uint64_t size;               /* bytes of the array, the file's size */
	uint64_t blksize;            /* st_blksize: md's optimal I/O size */
	/* ENGINES requests at once; a write is answered once queued, with its
	 * rows held, so that later reads of those rows wait for it */
	struct served srv;
	uid_t uid;
	gid_t gid;
	struct timespec mapped_at;
	pthread_mutex_t mu;          /* guards mtime */
	struct timespec mtime;
	atomic_int opens;
	struct fuse *fuse;
	pthread_t loop_thread;
	sigset_t sigs;               /* handled by the signal thread */
};

static struct map *this_map(void)
{
	return fuse_get_context()->private_data;
}

/* A message on standard error, or to syslog once in the background. */
static void report(const struct map *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void report(const struct map *m, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (m->use_syslog) {
		vsyslog(LOG_ERR, fmt, ap);
	} else {
		fputs(TOOL ": ", stderr);
		vfprintf(stderr, fmt, ap);
		fputc('\n', stderr);
	}
	va_end(ap);
}

/* served's failures, one line each */
static void say_line(void *ctx, const char *msg)
{
	report(ctx, "%s", msg);
}

/* How requests are served at once and writes queued. */
static const struct served_config serving = {
	.engines = ENGINES, .depth = QUEUED_MAX, .write_max = IO_BYTES, .merge_max = MERGE_BYTES,
	.merge_wait_ns = MERGE_WAIT_NS,
};

/* ---- the file's I/O ---------------------------------------------------- */

/* The length of a request at off cut at the end of the file. */
static size_t clamp(const struct map *m, size_t size, off_t off)
{
	if (off < 0 || (uint64_t)off >= m->size)
		return 0;
	return (uint64_t)size < m->size - (uint64_t)off ? size : (size_t)(m->size - (uint64_t)off);
}

/* The pipe a FUSE thread hands read data over in: member pages go in by
 * reference, and libfuse splices them on to the reader.  Made on first
 * use, big enough for the largest request; NULL where that cannot be. */
static const int *thread_pipe(void)
{
	static __thread int fds[2] = { -1, -1 };
	static __thread bool tried;

	if (!tried) {
		tried = true;
		readplan_pipe(fds, READ_BYTES);
	}
	return fds[0] >= 0 ? fds : NULL;
}

/* Reads from the members' page cache, spliced to the reader; where that
 * cannot be (a degraded row, an unaligned request, a read error, no pipe)
 * through the engine, into memory, which reports the error. */
static int map_read_buf(const char *path, struct fuse_bufvec **bufp, size_t size, off_t off,
			struct fuse_file_info *fi)
{
	struct map *m = this_map();
	size_t len = clamp(m, size, off);
	struct fuse_bufvec *bv = malloc(sizeof(*bv));
	struct member_run runs[SPLICE_RUNS];
	const int *p = thread_pipe();
	struct range_hold h;
	uint8_t *mem;
	int n, rc;

	*bufp = NULL;
	if (!bv)
		return -ENOMEM;
	*bv = (struct fuse_bufvec)FUSE_BUFVEC_INIT(len);
	if (len == 0) {
		*bufp = bv;
		return 0;
	}
	if (p && readplan_pipe_empty(p[0]) == 0 &&
	    (n = readplan_make(m->a, (uint64_t)off, len, runs, SPLICE_RUNS)) > 0) {
		engineset_hold(&m->srv.engines, &h, (uint64_t)off, len, ROWS_READ);
		rc = readplan_splice(p[1], runs, n);
		engineset_drop(&m->srv.engines, &h);
		if (rc == 0) {
			bv->buf[0].flags = FUSE_BUF_IS_FD;
			bv->buf[0].fd = p[0];
			*bufp = bv;
			return 0;
		}
		readplan_pipe_empty(p[0]);
	}
	if (!(mem = malloc(len))) {
		free(bv);
		return -ENOMEM;
	}
	if (served_read(&m->srv, mem, len, (uint64_t)off) < 0) {
		free(mem);
		free(bv);
		return -EIO;
	}
	bv->buf[0].mem = mem;
	*bufp = bv;
	return 0;
}

/* Waits until every queued write is on the members; -EIO if one failed. */
static int drain(struct map *m)
{
	return served_drain(&m->srv) < 0 ? -EIO : 0;
}

static void touch_mtime(struct map *m)
{
	struct timespec now;

	clock_gettime(CLOCK_REALTIME, &now);
	pthread_mutex_lock(&m->mu);
	m->mtime = now;
	pthread_mutex_unlock(&m->mu);
}

/* write(2): the bytes are taken into a write-behind buffer and the write
 * is answered; the writer thread puts them on the members.  With FUSE's
 * splice read the bytes come in a pipe that holds the writer's own pages,
 * and the read from it here is their one copy before the members'. */
static int map_write_buf(const char *path, struct fuse_bufvec *buf, off_t off, struct fuse_file_info *fi)
{
	struct map *m = this_map();
	size_t size = fuse_buf_size(buf), len = clamp(m, size, off);
	struct fuse_bufvec to;
	struct queued_write *w;
	ssize_t got;

	if (m->read_only)
		return -EROFS;
	if (atomic_load(&m->srv.write_failed))
		return -EIO;
	if (len == 0)
		return size ? -ENOSPC : 0;
	/* more than max_write (IO_BYTES): the kernel never sends it */
	w = writebehind_buffer(&m->srv.writes, (uint64_t)off, len);
	if (!w)
		return -EINVAL;
	to = (struct fuse_bufvec)FUSE_BUFVEC_INIT(len);
	to.buf[0].mem = w->data;
	got = fuse_buf_copy(&to, buf, 0);
	if (got != (ssize_t)len) {
		writebehind_cancel(&m->srv.writes, w);
		return got < 0 ? (int)got : -EIO;
	}
	writebehind_queue(&m->srv.writes, w);
	touch_mtime(m);
	return (int)len;
}

static int map_fsync(const char *path, int datasync, struct fuse_file_info *fi)
{
	return served_sync(&this_map()->srv) < 0 ? -EIO : 0;
}

/* ---- the file's attributes --------------------------------------------- */

static int map_getattr(const char *path, struct stat *st, struct fuse_file_info *fi)
{
	struct map *m = this_map();

	memset(st, 0, sizeof(*st));
	st->st_uid = m->uid;
	st->st_gid = m->gid;
	st->st_atim = st->st_ctim = st->st_mtim = m->mapped_at;
	if (strcmp(path, "/") == 0) {
		st->st_mode = S_IFDIR | 0755;
		st->st_nlink = 2;
		return 0;
	}
	if (strcmp(path, FILE_PATH) != 0)
		return -ENOENT;
	st->st_mode = S_IFREG | (m->read_only ? 0444 : 0644);
	st->st_nlink = 1;
	st->st_size = (off_t)m->size;
	st->st_blocks = (blkcnt_t)(m->size / 512);
	st->st_blksize = (blksize_t)m->blksize;
	pthread_mutex_lock(&m->mu);
	st->st_mtim = st->st_ctim = m->mtime;
	pthread_mutex_unlock(&m->mu);
	return 0;
}

static int map_readdir(const char *path, void *buf, fuse_fill_dir_t fill, off_t off,
		       struct fuse_file_info *fi, enum fuse_readdir_flags flags)
{
	if (strcmp(path, "/") != 0)
		return -ENOTDIR;
	fill(buf, ".", NULL, 0, 0);
	fill(buf, "..", NULL, 0, 0);
	fill(buf, FILE_NAME, NULL, 0, 0);
	return 0;
}

static int map_open(const char *path, struct fuse_file_info *fi)
{
	struct map *m = this_map();

	if (strcmp(path, FILE_PATH) != 0)
		return strcmp(path, "/") == 0 ? -EISDIR : -ENOENT;
	if (m->read_only && (fi->flags & O_ACCMODE) != O_RDONLY)
		return -EROFS;
	/* Not FUSE's direct_io: with it the kernel sends an O_DIRECT request
	 * in one piece after another; without it, in READ_BYTES pieces at
	 * once (async DIO), served side by side by the FUSE threads.  The
	 * page cache the kernel then keeps of the file holds only what went
	 * through this map (writes go straight on: no writeback cache). */
	fi->direct_io = 0;
	atomic_fetch_add(&m->opens, 1);
	return 0;
}

/* close(2): what was written through this file is on the members, or the
 * error that kept it off them is reported. */
static int map_flush(const char *path, struct fuse_file_info *fi)
{
	return drain(this_map());
}

static int map_release(const char *path, struct fuse_file_info *fi)
{
	atomic_fetch_sub(&this_map()->opens, 1);
	return 0;
}

/* The array's size is fixed: only a "change" to the same size succeeds
 * (as for a block device, whose size truncate cannot change either). */
static int map_truncate(const char *path, off_t size, struct fuse_file_info *fi)
{
	struct map *m = this_map();

	if (m->read_only)
		return -EROFS;
	return (uint64_t)size == m->size ? 0 : -EPERM;
}

static int map_utimens(const char *path, const struct timespec tv[2], struct fuse_file_info *fi)
{
	struct map *m = this_map();
	struct timespec now;

	if (m->read_only)
		return -EROFS;
	clock_gettime(CLOCK_REALTIME, &now);
	pthread_mutex_lock(&m->mu);
	if (tv[1].tv_nsec == UTIME_NOW)
		m->mtime = now;
	else if (tv[1].tv_nsec != UTIME_OMIT)
		m->mtime = tv[1];
	pthread_mutex_unlock(&m->mu);
	return 0;
}

static int map_chmod(const char *path, mode_t mode, struct fuse_file_info *fi)
{
	return -EPERM;
}

static int map_chown(const char *path, uid_t uid, gid_t gid, struct fuse_file_info *fi)
{
	return -EPERM;
}

static int map_statfs(const char *path, struct statvfs *sv)
{
	struct map *m = this_map();

	memset(sv, 0, sizeof(*sv));
	sv->f_bsize = sv->f_frsize = 4096;
	sv->f_blocks = m->size / 4096;
	sv->f_files = 1;
	sv->f_namemax = 255;
	return 0;
}

static void *map_init(struct fuse_conn_info *conn, struct fuse_config *cfg)
{
	struct map *m = this_map();

	conn->max_write = IO_BYTES;
	/* replies spliced from map_read_buf's pipe, holding the members' pages */
	map_fuse_reads(conn);
	/* writes handed over in a pipe holding the writer's pages: libfuse
	 * takes a request plus its header into a pipe of at most 1 MiB
	 * (fs.pipe-max-size), hence writes of at most 512 KiB */
	if (conn->capable & FUSE_CAP_SPLICE_READ)
		conn->want |= FUSE_CAP_SPLICE_READ;
	conn->want &= ~(unsigned)FUSE_CAP_WRITEBACK_CACHE;
	cfg->direct_io = 0;
	cfg->kernel_cache = 0;
	cfg->use_ino = 0;
	cfg->nullpath_ok = 0;
	/* one file whose attributes only this process changes */
	cfg->attr_timeout = cfg->entry_timeout = 1.0;
	return m;
}

static const struct fuse_operations map_ops = {
	.init = map_init,
	.getattr = map_getattr,
	.readdir = map_readdir,
	.open = map_open,
	.read_buf = map_read_buf,
	.write_buf = map_write_buf,
	.fsync = map_fsync,
	.flush = map_flush,
	.release = map_release,
	.truncate = map_truncate,
	.utimens = map_utimens,
	.chmod = map_chmod,
	.chown = map_chown,
	.statfs = map_statfs,
};

/* ---- unmapping on a signal --------------------------------------------- */

/* Interrupts the FUSE loop's wait; it then sees the session has ended. */
static void wake_loop(int sig)
{
	(void)sig;
}

/* Detaches the mount (lazily: a loop device or a process that still has
 * the file open keeps being served until it closes it); FUSE's loop ends
 * by itself when the last user is gone. */
static void detach(struct map *m)
{
	char *argv[] = { "fusermount3", "-u", "-z", "-q", "--", m->mountpoint, NULL };
	pid_t pid;
	int status;

	if (umount2(m->mountpoint, MNT_DETACH) < 0 && errno == EPERM &&
	    posix_spawnp(&pid, argv[0], NULL, NULL, argv, environ) == 0)
		waitpid(pid, &status, 0);
	if (atomic_load(&m->opens) > 0)
		report(m, "%s: unmounted; %s/" FILE_NAME " is still open, and is served until it is closed "
		       "(a second signal stops at once)", m->mountpoint, m->mountpoint);
}

/* The first SIGTERM, SIGINT or SIGHUP unmaps; a second one ends the
 * service at once.  SIGUSR1 from the main thread ends this thread. */
static void *signal_thread(void *p)
{
	struct map *m = p;
	int sig, seen = 0;

	for (;;) {
		if (sigwait(&m->sigs, &sig) != 0)
			continue;
		if (sig == SIGUSR1)
			return NULL;
		if (seen++ == 0) {
			detach(m);
			continue;
		}
		report(m, "%s: stopping at once on a second signal", m->mountpoint);
		fuse_exit(m->fuse);
		pthread_kill(m->loop_thread, SIGUSR2);
	}
}

/* Blocks the unmapping signals in every thread (the signal thread waits
 * for them) and lets SIGUSR2 interrupt the loop's wait. */
static void setup_signals(struct map *m)
{
	struct sigaction sa = { .sa_handler = wake_loop };

	sigemptyset(&m->sigs);
	sigaddset(&m->sigs, SIGTERM);
	sigaddset(&m->sigs, SIGINT);
	sigaddset(&m->sigs, SIGHUP);
	sigaddset(&m->sigs, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &m->sigs, NULL);
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR2, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

/* ---- setting up ---------------------------------------------------------- */

static int parse_args(int argc, char **argv, struct options *o)
{
	static const struct option opts[] = {
		{ "read-only", no_argument, NULL, 'r' },
		{ "run", no_argument, NULL, 'R' },
		{ "foreground", no_argument, NULL, 'f' },
		{ "geometry", required_argument, NULL, 'G' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct diag d;
	int c;

	cli_getopt_name(argv, TOOL);
	while ((c = getopt_long(argc, argv, "rRqvhV", opts, NULL)) != -1) {
		switch (c) {
		case 'r': o->read_only = true; break;
		case 'R': o->run = true; break;
		case 'f': o->foreground = true; break;
		case 'G':
			if (geometry_spec_parse(optarg, &o->spec, &d) < 0) {
				fprintf(stderr, TOOL ": %s\n", d.msg);
				return -1;
			}
			o->geometry = true;
			break;
		case 'q': o->quiet = true; break;
		case 'v': o->verbose = true; break;
		case 'h': usage(stdout); exit(EXIT_OK);
		case 'V': cli_version(TOOL); exit(EXIT_OK);
		default: cli_usage_error(TOOL, NULL); return -1;
		}
	}
	if (argc - optind < 2) {
		cli_usage_error(TOOL, "%s", optind >= argc ? "no members given, and no mountpoint"
							   : "no mountpoint given after the members");
		return -1;
	}
	/* a SPEC is a guess until the data bears it out: nothing is written on one */
	if (o->geometry && !o->read_only) {
		fprintf(stderr, TOOL ": --geometry: only with -r/--read-only; map read-only, then write the "
			"superblocks (stripe-create --assume-clean) to map read-write\n");
		return -1;
	}
	o->members = argv + optind;
	o->nmembers = argc - optind - 1;
	o->mountpoint = argv[argc - 1];
	return 0;
}

static int check_mountpoint(const char *path, char *abs)
{
	struct stat st;

	if (stat(path, &st) < 0) {
		fprintf(stderr, TOOL ": %s: mountpoint: %s\n", path, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		fprintf(stderr, TOOL ": %s: mountpoint is not a directory\n", path);
		return -1;
	}
	if (!realpath(path, abs)) {
		fprintf(stderr, TOOL ": %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

static int open_array(struct array *a, const struct options *o)
{
	struct cli_members given = {
		.tool = TOOL, .paths = o->members, .n = o->nmembers, .readable = true,
		.aopt.mode = o->read_only ? DEV_READ : DEV_WRITE, .run = o->run, .say_degraded = true,
		.say = o->verbose ? CLI_SAY_ROLES : o->quiet ? CLI_SAY_NOTHING : CLI_SAY_LEFT_OUT,
		.geometry = o->geometry ? &o->spec : NULL,
	};

	return cli_open_array(a, &given);
}

static void map_setup(struct map *m, struct array *a, const struct options *o)
{
	const struct geometry *g = &a->geo;
	uint64_t min_io;

	m->a = a;
	m->read_only = o->read_only;
	m->from_spec = o->geometry;
	m->size = g->array_sectors * 512;
	geometry_io_hints(g, &min_io, &m->blksize);
	if (m->blksize < 4096)
		m->blksize = 4096;
	pthread_mutex_init(&m->mu, NULL);
	m->uid = getuid();
	m->gid = getgid();
	clock_gettime(CLOCK_REALTIME, &m->mapped_at);
	m->mtime = m->mapped_at;
	atomic_init(&m->opens, 0);
}

/* The FUSE handle, mounted: the file system is named after the array. */
static struct fuse *mount_map(struct map *m)
{
	char uuid[36], opts[256];
	char *argv[] = { TOOL, "-o", opts, NULL };
	struct fuse_args args = FUSE_ARGS_INIT(3, argv);
	struct fuse *f;

	if (m->from_spec)
		snprintf(uuid, sizeof(uuid), "geometry");
	else
		super_uuid_str(m->a->ref->uuid, uuid);
	snprintf(opts, sizeof(opts), "fsname=stripe:%.36s,subtype=stripe,max_read=%u%s", uuid, READ_BYTES,
		 m->read_only ? ",ro" : "");
	f = fuse_new(&args, &map_ops, sizeof(map_ops), m);
	fuse_opt_free_args(&args);
	if (!f) {
		fprintf(stderr, TOOL ": %s: cannot set up FUSE\n", m->mountpoint);
		return NULL;
	}
	if (fuse_mount(f, m->mountpoint) != 0) {
		fprintf(stderr, TOOL ": %s: cannot mount (is /dev/fuse there, fuse3 installed?)\n",
			m->mountpoint);
		fuse_destroy(f);
		return NULL;
	}
	return f;
}

/* Serves requests until the mount goes away (or a second signal). */
static int serve(struct map *m)
{
	struct fuse_loop_config *cfg;
	struct diag d;
	pthread_t sig_th;
	int rc;

	m->loop_thread = pthread_self();
	if (served_start(&m->srv, &d) < 0) {
		report(m, "%s: %s", m->mountpoint, d.msg);
		return -1;
	}
	if (pthread_create(&sig_th, NULL, signal_thread, m) != 0) {
		report(m, "%s: cannot start the signal thread", m->mountpoint);
		served_stop(&m->srv);
		return -1;
	}
	cfg = fuse_loop_cfg_create();
	fuse_loop_cfg_set_max_threads(cfg, 16);
	rc = fuse_loop_mt(m->fuse, cfg);
	fuse_loop_cfg_destroy(cfg);
	served_stop(&m->srv);
	pthread_kill(sig_th, SIGUSR1);
	pthread_join(sig_th, NULL);
	if (rc != 0)
		report(m, "%s: the FUSE service failed (%d)", m->mountpoint, rc);
	return rc != 0 ? -1 : 0;
}

/* Every request allocates the engine's stripe buffers and its copy of a
 * write afresh: keep them in the heap (one arena for all threads), and
 * keep freed heap, so that a request reuses the pages the last one touched
 * instead of faulting in newly mapped ones. */
static void tune_malloc(void)
{
	mallopt(M_MMAP_THRESHOLD, 64 << 20);
	mallopt(M_TRIM_THRESHOLD, 256 << 20);
	mallopt(M_ARENA_MAX, 1);
}

int main(int argc, char **argv)
{
	struct options o = { 0 };
	struct map m = { 0 };
	struct array a;
	struct diag d;
	int rc;

	tune_malloc();
	if (parse_args(argc, argv, &o) < 0 || check_mountpoint(o.mountpoint, m.mountpoint) < 0)
		return EXIT_ERROR;
	if (open_array(&a, &o) < 0)
		return EXIT_ERROR;
	map_setup(&m, &a, &o);
	/* from the mount on, a SIGTERM waits for the signal thread, so that
	 * it unmaps and marks the array clean */
	setup_signals(&m);
	m.fuse = mount_map(&m);
	if (!m.fuse) {
		array_close(&a);
		return EXIT_ERROR;
	}
	if (served_begin(&m.srv, &a, o.read_only, &serving, say_line, &m, &d) < 0) {
		fprintf(stderr, TOOL ": %s\n", d.msg);
		fuse_unmount(m.fuse);
		fuse_destroy(m.fuse);
		array_close(&a);
		return EXIT_ERROR;
	}
	if (o.verbose)
		fprintf(stderr, TOOL ": %s/" FILE_NAME ": %llu bytes of a %s array, %s\n", m.mountpoint,
			(unsigned long long)m.size, level_name(a.geo.level), o.read_only ? "read-only" : "read-write");
	if (!o.foreground) {
		openlog(TOOL, LOG_PID, LOG_DAEMON);
		m.use_syslog = true;
		fuse_daemonize(0);
	}
	rc = serve(&m);
	fuse_unmount(m.fuse);
	fuse_destroy(m.fuse);
	if (served_end(&m.srv) < 0)
		rc = -1;
	pthread_mutex_destroy(&m.mu);
	array_close(&a);
	/* the data tools' rule: 1 when a range could not be served */
	return rc < 0 ? EXIT_ERROR : atomic_load(&m.srv.unserved) ? EXIT_PROBLEM : EXIT_OK;
}
