/* benchout: stripe-bench's reports: the original Bonnie table, a bonnie++
 * 1.98 CSV line, tiotest's tables, hdparm's lines, and --json. */
#ifndef STRIPE_BENCHOUT_H
#define STRIPE_BENCHOUT_H

#include <stdio.h>

#include "bench/bench.h"
#include "util/json.h"

enum bench_mode {
	BENCH_BONNIE,                /* Bonnie's tests (and the file tests) */
	BENCH_THREADS,               /* tiotest */
	BENCH_HDPARM,                /* hdparm -T, -t */
};

struct bench_report {
	enum bench_mode mode;
	const struct bench_params *p;
	const struct bench_results *r;
	const struct bench_target *t;
};

/* bonnie++'s CSV format version, the one bon_csv2txt 2.00a expects. */
#define BENCH_CSV_VERSION "1.98"
#define BENCH_CSV_FIELDS 50

/* The Bonnie table (K/sec and %CPU per test, seeks/sec), a Latency row,
 * and the file tests' table when they ran; tiotest's tables in threads
 * mode; hdparm's lines. */
void bench_print_text(FILE *f, const struct bench_report *rep);

/* One bonnie++ 1.98 CSV line (50 fields). */
void bench_print_csv(FILE *f, const struct bench_report *rep);
/* bonnie++'s own CSV header line (BonTimer::PrintHeader's names, with the
 * 1.98 seeks columns): bon_csv2html skips it, bon_csv2txt notes it on
 * stderr and reads on. */
void bench_print_csv_header(FILE *f);

/* The run's parameters and figures into an open JSON document. */
void bench_json(struct json *j, const struct bench_report *rep);

/* bonnie++'s latency notation: "812us", "45ms", "2s". */
void bench_latency_str(uint64_t ns, char *buf, size_t len);

#endif
