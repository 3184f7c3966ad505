/* bench: what stripe-bench measures: Bonnie's tests and their figures, the
 * parameters of a run and the target it runs on, shared by the tests
 * (bonnie, benchfiles, benchstripe, tiotest, hdparm) and the reports (benchout). */
#ifndef STRIPE_BENCH_H
#define STRIPE_BENCH_H

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "md/array.h"
#include "util/diag.h"

/* Bonnie's tests, in the order they run and bonnie++ reports them. */
enum bench_test {
	BT_PUTC,             /* sequential output, per character */
	BT_WRITE,            /* sequential output, block */
	BT_REWRITE,          /* read a block, dirty it, write it back */
	BT_GETC,             /* sequential input, per character */
	BT_READ,             /* sequential input, block */
	BT_SEEKS,            /* random seeks, every tenth a read-modify-write */
	BT_SEQ_CREATE,       /* file tests (-n): create in name order */
	BT_SEQ_STAT,         /* stat (and read) in directory order */
	BT_SEQ_DELETE,       /* delete in directory order */
	BT_RAN_CREATE,       /* create in random order */
	BT_RAN_STAT,
	BT_RAN_DELETE,
	BT_COUNT
};

#define BT_FIRST_FILE BT_SEQ_CREATE

/* One measured figure.  A rate is bytes or ops over elapsed_ns; %CPU is the
 * process's user and system time over elapsed_ns (all its threads). */
struct bench_figure {
	bool run;                    /* measured; false leaves its columns empty */
	uint64_t bytes;              /* moved (0 for seeks and file operations) */
	uint64_t ops;                /* I/O calls, seeks or files */
	uint64_t elapsed_ns;
	uint64_t user_ns, sys_ns;
	uint64_t latency_ns;         /* the slowest single operation */
	uint64_t latency_sum_ns;     /* of every operation timed, for the average */
	uint64_t timed;              /* operations timed */
	uint64_t over_2s, over_10s;  /* operations slower than 2 s, 10 s (tiotest) */
};

/* bonnie++'s file test sizes: -n files[:max[:min[:dirs]]], files in units of 1024. */
struct bench_files {
	unsigned count;              /* units of 1024 files; 0: no file tests */
	uint64_t max_size, min_size; /* bytes written to each file (0: empty files) */
	unsigned dirs;               /* spread over this many directories (1: one) */
};

struct bench_params {
	const char *label;           /* the Machine column */
	uint64_t size;               /* bytes of the block tests */
	uint64_t char_size;          /* bytes of the per-character tests; 0 skips them */
	uint32_t chunk;              /* bytes per I/O call */
	unsigned seeks, seekers;     /* random seeks, and the threads that share them */
	struct bench_files files;
	bool direct;                 /* O_DIRECT */
	bool fsync;                  /* fsync after every write */
	bool stdio;                  /* per-character tests with putc/getc, as the original Bonnie */
	bool drop_cache;             /* the target's pages out of the page cache before each reading test */
	unsigned threads;            /* tiotest mode: concurrent readers and writers; 0: off */
	double seconds;              /* hdparm -t time; -T takes two thirds */
	uint64_t seed;
	uint64_t ram;                /* bytes of RAM, for the report */
};

enum bench_kind {
	BENCH_DIR,                   /* temporary files in a directory */
	BENCH_FILE,                  /* an existing regular file, used in place */
	BENCH_DEVICE,                /* a block device, used in place */
	BENCH_ARRAY,                 /* an md array, through the stripe engine */
};

/* Where the bytes go, and how to stop. */
struct bench_target {
	enum bench_kind kind;
	const char *path;            /* directory, file, device, or the array's first member */
	char *tmpdir;                /* BENCH_DIR: the run's own directory inside path */
	char *file;                  /* the file or device the I/O tests use */
	struct array *array;         /* BENCH_ARRAY */
	pthread_mutex_t *write_lock; /* BENCH_ARRAY: one read-modify-write at a time */
	const volatile sig_atomic_t *stop;  /* set by SIGINT: stop soon, clean up */
	void (*note)(void *ctx, const char *what);  /* told of each test as it starts, or NULL */
	void *note_ctx;
};

/* tiotest's four tests, run by every thread on a file (or array region) of its own. */
enum tio_test {
	TIO_WRITE,
	TIO_RANDOM_WRITE,
	TIO_READ,
	TIO_RANDOM_READ,
	TIO_COUNT
};

struct tio_results {
	unsigned threads;
	struct bench_figure total[TIO_COUNT];    /* all threads: bytes summed, elapsed first start to last end */
	struct bench_figure *per;                /* threads x TIO_COUNT, thread-major */
};

/* hdparm's timings: -T (cached reads) and -t (disk reads). */
struct hdparm_timing {
	bool run;
	uint64_t bytes;
	uint64_t elapsed_ns;
};

struct hdparm_results {
	struct hdparm_timing cached, disk;
};

struct bench_results {
	struct bench_figure fig[BT_COUNT];
	struct tio_results tio;
	struct hdparm_results hdparm;
};

/* Looks at path: a directory gets a directory of the run's own inside it
 * (refused with a clear message when path is not writable), a regular file
 * or a block device is used in place (it must be readable; whether it may
 * be written is the caller's to check).  The array kind is set up by the
 * caller. */
int bench_target_open(struct bench_target *t, const char *path, struct diag *d);
/* Fails naming the filesystem when it has less than need bytes free for
 * the target's files. */
int bench_target_check_space(const struct bench_target *t, uint64_t need, struct diag *d);
/* Where a file or device target already holds data (a byte that is not
 * zero in its first or last MiB, where signatures and headers live): its
 * offset in *where and 1; 0 when those bytes are all zero (a new sparse
 * file, a wiped device); -1 on a read error. */
int bench_target_data_at(const struct bench_target *t, uint64_t *where, struct diag *d);
/* Bytes a file or device target holds now (its size). */
int bench_target_size(const struct bench_target *t, uint64_t *size, struct diag *d);
/* --drop-cache: the pages of what fd reads out of the page cache (clean
 * ones: the writing tests end with fsync), so that the next test reads the
 * device, as with a file larger than the RAM.  name is for the message. */
int bench_drop_cache(int fd, const char *name, struct diag *d);
/* Removes every file the run made (its directory inside a target
 * directory); safe to call more than once, and after a failure. */
void bench_target_cleanup(struct bench_target *t);

/* Names of the tests: the JSON key and the words of the report. */
struct bench_test_name {
	const char *key;             /* "block_write" */
	const char *what;            /* "block write" */
};
extern const struct bench_test_name bench_test_names[BT_COUNT];

/* Clock readings at the start of a figure. */
struct bench_clock {
	uint64_t wall_ns;
	uint64_t user_ns, sys_ns;
	int who;                     /* RUSAGE_SELF, or RUSAGE_THREAD for one thread's figure */
};

uint64_t bench_now_ns(void);
void bench_clock_start(struct bench_clock *c);
/* The same, counting the CPU time of the calling thread only. */
void bench_clock_start_thread(struct bench_clock *c);
/* Closes the figure: elapsed and CPU time since c; marks it run. */
void bench_clock_stop(const struct bench_clock *c, struct bench_figure *f);
/* Records one operation that took ns. */
void bench_op(struct bench_figure *f, uint64_t ns);
/* Adds b's operations and latencies to a (aggregates over threads). */
void bench_merge_ops(struct bench_figure *a, const struct bench_figure *b);

/* bytes (or ops) per second; 0 when nothing was timed. */
double bench_rate(const struct bench_figure *f, uint64_t amount);
/* %CPU in tenths of a percent, truncated, so the table's 96.3 and the
 * CSV's 96 are the same figure. */
unsigned bench_cpu_tenths(const struct bench_figure *f);

/* xorshift64*: the run's random numbers (seek positions, names, orders). */
static inline uint64_t bench_random(uint64_t *state)
{
	uint64_t x = *state ? *state : 0x9e3779b97f4a7c15ull;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * 0x2545f4914f6cdd1dull;
}

/* True when SIGINT asked the run to stop. */
static inline bool bench_stopped(const struct bench_target *t)
{
	return t->stop && *t->stop;
}

/* A transfer buffer of len bytes.  With --direct it comes in huge pages
 * where the kernel grants them: the device then moves a transfer as one
 * piece of memory, where 4 KiB pages scattered over the RAM make it as many
 * pieces, and in a virtual machine each piece costs the host a mapping
 * (1 MiB O_DIRECT reads measured 4 times faster here), and how scattered
 * small pages are is luck that changes from run to run.  fio asks the same
 * with --mem=shmhuge.  Freed with free(). */
void *bench_buffer(const struct bench_params *p, size_t len, struct diag *d);

/* Fills buf with the run's data pattern (pseudo-random, incompressible). */
void bench_fill(void *buf, size_t len, uint64_t seed);

/* Marks each whole 512-byte sector of buf, about to be written at byte off,
 * with its own offset and the seed, so that no two sectors written are
 * alike: storage that deduplicates (a VM's disk image, a SAN) would
 * otherwise store one chunk written over and over almost for free, and
 * the figures would be its, not the device's.  fio does the same. */
void bench_stamp(void *buf, size_t len, uint64_t off, uint64_t seed);

/* The Bonnie I/O tests (per-char, block, rewrite, seeks) on a file or a
 * device (bonnie.c), or on an array (benchstripe.c); the file tests in the
 * target directory (benchfiles.c).  Each fills its figures in r and stops
 * early, failing with "interrupted", when t->stop is set. */
int bonnie_io_tests(const struct bench_params *p, struct bench_target *t, struct bench_results *r,
		    struct diag *d);
int bonnie_array_tests(const struct bench_params *p, struct bench_target *t, struct bench_results *r,
		       struct diag *d);
int bonnie_file_tests(const struct bench_params *p, struct bench_target *t, struct bench_results *r,
		      struct diag *d);

/* Keeps freed engine buffers in the heap for the next call (benchstripe.c). */
void bench_array_heap(void);
/* A small read of the array as md serves it: from the member (or one of
 * the copies) holding each piece, through the engine when it is missing. */
int bench_array_read(struct array *a, void *buf, uint64_t off, size_t len, struct diag *d);
/* A small write, parity and mirrors kept (stripe_write). */
int bench_array_write(struct array *a, const void *buf, uint64_t off, size_t len, struct diag *d);
/* What write() and close() leave on the disk: every member flushed. */
int bench_array_sync(struct array *a, struct diag *d);
/* --direct on an array: every member read and written past the page cache
 * (on), or through it again (off, before the superblocks are written). */
int bench_array_direct(struct array *a, bool on, struct diag *d);

/* tiotest: p->threads threads, each writing, randomly writing, reading and
 * randomly reading size / threads bytes of its own (tiotest.c). */
int tiotest_run(const struct bench_params *p, struct bench_target *t, struct tio_results *r, struct diag *d);

/* hdparm -T and -t on a file, a device or an array (hdparm.c). */
int hdparm_run(const struct bench_params *p, struct bench_target *t, struct hdparm_results *r, struct diag *d);

#endif
