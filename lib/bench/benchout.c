/* benchout: the reports of stripe-bench.  The table is the original Bonnie's
 * (Machine, MB, then K/sec and %CPU per test); the CSV is bonnie++ 1.98's,
 * so bon_csv2txt and bon_csv2html read it; both come from the same
 * integers, so their numbers agree. */
#include <inttypes.h>
#include <string.h>

#include "bench/benchout.h"
#include "md/layout.h"

/* bonnie++'s defaults, left out of its "size:chunk:seeks:procs" names */
#define BONNIE_SEEKS 8192
#define BONNIE_SEEKERS 5

static const char *const tio_names[TIO_COUNT] = { "Write", "Random Write", "Read", "Random Read" };
static const char *const tio_keys[TIO_COUNT] = { "write", "random_write", "read", "random_read" };

void bench_latency_str(uint64_t ns, char *buf, size_t len)
{
	double s = (double)ns / 1e9;

	if (!ns)
		snprintf(buf, len, "%s", "");
	else if (s > 99.999999)
		snprintf(buf, len, "%ds", (int)s);
	else if (s > 0.099999)
		snprintf(buf, len, "%dms", (int)(s * 1000.0));
	else
		snprintf(buf, len, "%dus", (int)(s * 1000000.0));
}

/* K/sec as the table and the CSV print it (truncated KiB per second). */
static uint64_t kib_per_s(const struct bench_figure *f)
{
	return (uint64_t)(bench_rate(f, f->bytes) / 1024.0);
}

/* Seeks and files per second: one decimal below 1000, as bonnie++. */
static void per_s_str(const struct bench_figure *f, char *buf, size_t len)
{
	double r = bench_rate(f, f->ops);

	snprintf(buf, len, r >= 1000.0 ? "%.0f" : "%.1f", r);
}

/* A figure's rate as the table and CSV show it: K/sec for the I/O tests,
 * seeks or files per second for the others. */
static void rate_str(enum bench_test t, const struct bench_figure *f, char *buf, size_t len)
{
	if (!f->run)
		snprintf(buf, len, "%s", "");
	else if (t == BT_SEEKS)
		per_s_str(f, buf, len);
	else if (t >= BT_FIRST_FILE)
		snprintf(buf, len, "%" PRIu64, (uint64_t)bench_rate(f, f->ops));
	else
		snprintf(buf, len, "%" PRIu64, kib_per_s(f));
}

static void cpu_str(const struct bench_figure *f, char *buf, size_t len, bool tenths)
{
	unsigned c = bench_cpu_tenths(f);

	if (!f->run)
		snprintf(buf, len, "%s", "");
	else if (tenths)
		snprintf(buf, len, "%u.%u", c / 10, c % 10);
	else
		snprintf(buf, len, "%u", c / 10);
}

/* bonnie++'s sizes: 300M, 1G; 8k, 1m for a chunk ("units" as its print_size). */
static void size_str(uint64_t v, const char *units, char *buf, size_t len)
{
	int i = 0;

	while (v && v % 1024 == 0 && units[i + 1]) {
		v /= 1024;
		i++;
	}
	if (units[i] == ' ')
		snprintf(buf, len, "%" PRIu64, v);
	else
		snprintf(buf, len, "%" PRIu64 "%c", v, units[i]);
}

/* -n as bonnie++ writes it: files[:max:min][/dirs] */
static void files_str(const struct bench_files *fl, char *buf, size_t len)
{
	int n = snprintf(buf, len, "%u", fl->count);

	if (fl->max_size && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, ":%" PRIu64 ":%" PRIu64, fl->max_size, fl->min_size);
	if (fl->dirs > 1 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, "/%u", fl->dirs);
}

static bool any_run(const struct bench_results *r, int from, int to)
{
	int i;

	for (i = from; i < to; i++)
		if (r->fig[i].run)
			return true;
	return false;
}

static void print_row(FILE *f, const struct bench_results *r, int from, int to)
{
	char rate[32], cpu[16];
	int i;

	for (i = from; i < to; i++) {
		rate_str((enum bench_test)i, &r->fig[i], rate, sizeof(rate));
		cpu_str(&r->fig[i], cpu, sizeof(cpu), true);
		fprintf(f, " %5s %4s", rate, cpu);
	}
	fprintf(f, "\n");
}

static void print_latency_row(FILE *f, const struct bench_results *r, int from, int to)
{
	char lat[32];
	int i;

	fprintf(f, "%-13s", "Latency");
	for (i = from; i < to; i++) {
		bench_latency_str(r->fig[i].run ? r->fig[i].latency_ns : 0, lat, sizeof(lat));
		fprintf(f, " %10s", lat);
	}
	fprintf(f, "\n");
}

static void print_bonnie(FILE *f, const struct bench_report *rep)
{
	const struct bench_results *r = rep->r;
	char files[64];

	if (any_run(r, 0, BT_FIRST_FILE)) {
		fprintf(f, "              -------Sequential Output-------- ---Sequential Input-- --Random--\n");
		fprintf(f, "              -Per Char- --Block--- -Rewrite-- -Per Char- --Block--- --Seeks---\n");
		fprintf(f, "Machine    MB K/sec %%CPU K/sec %%CPU K/sec %%CPU K/sec %%CPU K/sec %%CPU  /sec %%CPU\n");
		fprintf(f, "%-8s %4" PRIu64, rep->p->label, rep->p->size >> 20);
		print_row(f, r, 0, BT_FIRST_FILE);
		print_latency_row(f, r, 0, BT_FIRST_FILE);
	}
	if (any_run(r, BT_FIRST_FILE, BT_COUNT)) {
		files_str(&rep->p->files, files, sizeof(files));
		fprintf(f, "              -------Sequential Create-------- ---------Random Create----------\n");
		fprintf(f, "              --Create-- ---Stat--- --Delete-- --Create-- ---Stat--- --Delete--\n");
		fprintf(f, "Machine files  /sec %%CPU  /sec %%CPU  /sec %%CPU  /sec %%CPU  /sec %%CPU  /sec %%CPU\n");
		fprintf(f, "%-7s %5s", rep->p->label, files);
		print_row(f, r, BT_FIRST_FILE, BT_COUNT);
		print_latency_row(f, r, BT_FIRST_FILE, BT_COUNT);
	}
}

static double mib(uint64_t bytes)
{
	return (double)bytes / 1048576.0;
}

static double pct(uint64_t ns, uint64_t elapsed)
{
	return elapsed ? (double)ns * 100.0 / (double)elapsed : 0;
}

static void tio_rate_row(FILE *f, const char *thread, const char *item, const struct bench_figure *x)
{
	char rate[32];

	snprintf(rate, sizeof(rate), "%.3f MB/s", bench_rate(x, x->bytes) / 1048576.0);
	fprintf(f, "|%s %-12s %4.0f MBs | %6.1f s | %12s | %6.1f %% | %5.1f %% |\n", thread, item, mib(x->bytes),
		(double)x->elapsed_ns / 1e9, rate, pct(x->user_ns, x->elapsed_ns), pct(x->sys_ns, x->elapsed_ns));
}

static void tio_latency_row(FILE *f, const char *item, const struct bench_figure *x)
{
	double avg = x->timed ? (double)x->latency_sum_ns / (double)x->timed / 1e6 : 0;

	fprintf(f, "| %-12s | %12.3f ms | %12.3f ms | %8.5f | %9.5f |\n", item, avg, (double)x->latency_ns / 1e6,
		x->timed ? (double)x->over_2s * 100.0 / (double)x->timed : 0,
		x->timed ? (double)x->over_10s * 100.0 / (double)x->timed : 0);
}

/* tiotest's two tables, then one rate table per thread. */
static void print_tiotest(FILE *f, const struct bench_report *rep)
{
	const struct tio_results *t = &rep->r->tio;
	struct bench_figure all = { 0 };
	char thread[16];
	unsigned i, k;

	fprintf(f, "Tiotest results for %u concurrent io threads:\n", t->threads);
	fprintf(f, ",----------------------------------------------------------------------.\n");
	fprintf(f, "| Item                  | Time     | Rate         | Usr CPU  | Sys CPU |\n");
	fprintf(f, "+-----------------------+----------+--------------+----------+---------+\n");
	for (k = 0; k < TIO_COUNT; k++)
		tio_rate_row(f, "", tio_names[k], &t->total[k]);
	fprintf(f, "`----------------------------------------------------------------------'\n");
	fprintf(f, "Tiotest latency results:\n");
	fprintf(f, ",-------------------------------------------------------------------------.\n");
	fprintf(f, "| Item         | Average latency | Maximum latency | %% >2 sec | %% >10 sec |\n");
	fprintf(f, "+--------------+-----------------+-----------------+----------+-----------+\n");
	for (k = 0; k < TIO_COUNT; k++) {
		tio_latency_row(f, tio_names[k], &t->total[k]);
		bench_merge_ops(&all, &t->total[k]);
	}
	fprintf(f, "|--------------+-----------------+-----------------+----------+-----------|\n");
	tio_latency_row(f, "Total", &all);
	fprintf(f, "`--------------+-----------------+-----------------+----------+-----------'\n");
	fprintf(f, "Tiotest results per thread:\n");
	fprintf(f, ",-------------------------------------------------------------------------------.\n");
	fprintf(f, "| Thread | Item                  | Time     | Rate         | Usr CPU  | Sys CPU |\n");
	fprintf(f, "+--------+-----------------------+----------+--------------+----------+---------+\n");
	for (i = 0; i < t->threads; i++)
		for (k = 0; k < TIO_COUNT; k++) {
			snprintf(thread, sizeof(thread), " %6u |", i + 1);
			tio_rate_row(f, thread, tio_names[k], &t->per[i * TIO_COUNT + k]);
		}
	fprintf(f, "`-------------------------------------------------------------------------------'\n");
}

/* hdparm's lines: MB are MiB, as hdparm's. */
static void print_timing(FILE *f, const struct hdparm_timing *h)
{
	double s = (double)h->elapsed_ns / 1e9, mb = (double)(h->bytes >> 20);

	if (s > 0 && mb / s > 1.0)
		fprintf(f, "%3u MB in %5.2f seconds = %6.2f MB/sec\n", (unsigned)mb, s, mb / s);
	else
		fprintf(f, "%3u MB in %5.2f seconds = %6.2f kB/sec\n", (unsigned)mb, s, s > 0 ? mb / s * 1024 : 0);
}

static void print_hdparm(FILE *f, const struct bench_report *rep)
{
	const struct hdparm_results *h = &rep->r->hdparm;

	if (rep->t->kind == BENCH_ARRAY && rep->t->array)
		fprintf(f, "\n%s (%s array):\n", rep->t->path, level_name(rep->t->array->geo.level));
	else
		fprintf(f, "\n%s:\n", rep->t->path);
	if (h->cached.run) {
		fprintf(f, " Timing %scached reads:   ", rep->p->direct ? "O_DIRECT " : "");
		print_timing(f, &h->cached);
	}
	if (h->disk.run) {
		fprintf(f, " Timing %s disk reads:  ", rep->p->direct ? "O_DIRECT" : "buffered");
		print_timing(f, &h->disk);
	}
}

void bench_print_text(FILE *f, const struct bench_report *rep)
{
	switch (rep->mode) {
	case BENCH_BONNIE: print_bonnie(f, rep); break;
	case BENCH_THREADS: print_tiotest(f, rep); break;
	case BENCH_HDPARM: print_hdparm(f, rep); break;
	}
}

struct csv {
	char field[BENCH_CSV_FIELDS][48];
};

static void put(struct csv *c, int i, const char *s)
{
	snprintf(c->field[i], sizeof(c->field[i]), "%s", s);
}

/* Fields 9..20 (I/O), 26..37 (files), 38..43 and 44..49 (latencies). */
static void csv_figure(struct csv *c, int rate_at, int lat_at, enum bench_test t, const struct bench_figure *f)
{
	char buf[48];

	rate_str(t, f, buf, sizeof(buf));
	put(c, rate_at, buf);
	cpu_str(f, buf, sizeof(buf), false);
	put(c, rate_at + 1, buf);
	bench_latency_str(f->run ? f->latency_ns : 0, buf, sizeof(buf));
	put(c, lat_at, buf);
}

/* Threads mode fills block write and read with the totals of all threads. */
static void csv_threads(struct csv *c, const struct tio_results *t)
{
	csv_figure(c, 11, 39, BT_WRITE, &t->total[TIO_WRITE]);
	csv_figure(c, 17, 42, BT_READ, &t->total[TIO_READ]);
}

void bench_print_csv_header(FILE *f)
{
	fputs("format_version,bonnie_version,name,concurrency,seed,file_size,io_chunk_size,seeks,"
	      "seek_proc_count,putc,putc_cpu,put_block,put_block_cpu,rewrite,rewrite_cpu,getc,getc_cpu,"
	      "get_block,get_block_cpu,seeks,seeks_cpu,num_files,max_size,min_size,num_dirs,file_chunk_size,"
	      "seq_create,seq_create_cpu,seq_stat,seq_stat_cpu,seq_del,seq_del_cpu,ran_create,ran_create_cpu,"
	      "ran_stat,ran_stat_cpu,ran_del,ran_del_cpu,putc_latency,put_block_latency,rewrite_latency,"
	      "getc_latency,get_block_latency,seeks_latency,seq_create_latency,seq_stat_latency,"
	      "seq_del_latency,ran_create_latency,ran_stat_latency,ran_del_latency\n", f);
}

void bench_print_csv(FILE *f, const struct bench_report *rep)
{
	const struct bench_params *p = rep->p;
	struct csv c;
	char buf[48];
	int i;

	memset(&c, 0, sizeof(c));
	put(&c, 0, BENCH_CSV_VERSION);
	put(&c, 1, "stripe-" STRIPE_VERSION);
	put(&c, 2, p->label);
	snprintf(buf, sizeof(buf), "%u", rep->mode == BENCH_THREADS ? p->threads : 1);
	put(&c, 3, buf);
	snprintf(buf, sizeof(buf), "%" PRIu64, p->seed);
	put(&c, 4, buf);
	size_str(p->size >> 20, "MG", buf, sizeof(buf));
	put(&c, 5, buf);
	size_str(p->chunk, " km", buf, sizeof(buf));
	put(&c, 6, buf);
	snprintf(buf, sizeof(buf), "%u", p->seeks);
	put(&c, 7, buf);
	snprintf(buf, sizeof(buf), "%u", p->seekers);
	put(&c, 8, buf);
	if (rep->mode == BENCH_THREADS) {
		csv_threads(&c, &rep->r->tio);
	} else {
		for (i = 0; i < BT_FIRST_FILE; i++)
			csv_figure(&c, 9 + 2 * i, 38 + i, (enum bench_test)i, &rep->r->fig[i]);
		for (i = BT_FIRST_FILE; i < BT_COUNT; i++)
			csv_figure(&c, 26 + 2 * (i - BT_FIRST_FILE), 44 + (i - BT_FIRST_FILE), (enum bench_test)i,
				   &rep->r->fig[i]);
	}
	if (rep->mode == BENCH_BONNIE && any_run(rep->r, BT_FIRST_FILE, BT_COUNT)) {
		snprintf(buf, sizeof(buf), "%u", p->files.count);
		put(&c, 21, buf);
		if (p->files.max_size) {
			snprintf(buf, sizeof(buf), "%" PRIu64, p->files.max_size);
			put(&c, 22, buf);
			snprintf(buf, sizeof(buf), "%" PRIu64, p->files.min_size);
			put(&c, 23, buf);
		}
		if (p->files.dirs > 1) {
			snprintf(buf, sizeof(buf), "%u", p->files.dirs);
			put(&c, 24, buf);
		}
	}
	for (i = 0; i < BENCH_CSV_FIELDS; i++)
		fprintf(f, "%s%s", i ? "," : "", c.field[i]);
	fprintf(f, "\n");
}

static void json_figure(struct json *j, const char *key, bool per_op, const struct bench_figure *f)
{
	json_object(j, key);
	json_uint(j, "bytes", f->bytes);
	json_uint(j, "operations", f->ops);
	json_uint(j, "elapsed_ns", f->elapsed_ns);
	if (per_op) {
		json_uint(j, "rate_per_s", (uint64_t)bench_rate(f, f->ops));
	} else {
		json_uint(j, "rate_bytes_per_s", (uint64_t)bench_rate(f, f->bytes));
		json_uint(j, "rate_kib_per_s", kib_per_s(f));
	}
	json_uint(j, "cpu_percent", bench_cpu_tenths(f) / 10);
	json_uint(j, "cpu_user_ns", f->user_ns);
	json_uint(j, "cpu_system_ns", f->sys_ns);
	json_uint(j, "latency_ns", f->latency_ns);
	json_uint(j, "latency_avg_ns", f->timed ? f->latency_sum_ns / f->timed : 0);
	json_close(j);
}

static const char *kind_name(enum bench_kind k)
{
	static const char *const names[] = { "directory", "file", "device", "array" };

	return names[k];
}

static void json_params(struct json *j, const struct bench_report *rep)
{
	const struct bench_params *p = rep->p;
	const struct bench_target *t = rep->t;
	static const char *const modes[] = { "bonnie", "threads", "hdparm" };

	json_object(j, "parameters");
	json_str(j, "mode", modes[rep->mode]);
	json_str(j, "target", t->path);
	json_str(j, "target_kind", kind_name(t->kind));
	json_str(j, "label", p->label);
	json_uint(j, "size_bytes", p->size);
	json_uint(j, "chunk_bytes", p->chunk);
	json_uint(j, "char_size_bytes", p->char_size);
	json_uint(j, "seeks", p->seeks);
	json_uint(j, "seekers", p->seekers);
	json_uint(j, "files", (uint64_t)p->files.count * 1024);
	json_uint(j, "file_max_size_bytes", p->files.max_size);
	json_uint(j, "file_min_size_bytes", p->files.min_size);
	json_uint(j, "file_directories", p->files.dirs ? p->files.dirs : 1);
	json_bool(j, "direct", p->direct);
	json_bool(j, "fsync", p->fsync);
	json_bool(j, "stdio", p->stdio);
	json_bool(j, "drop_cache", p->drop_cache);
	json_uint(j, "threads", p->threads);
	json_uint(j, "hdparm_time_ms", (uint64_t)(p->seconds * 1000.0 + 0.5));
	json_uint(j, "seed", p->seed);
	json_uint(j, "ram_bytes", p->ram);
	json_bool(j, "page_cache_included", !p->direct && !p->drop_cache && p->size < 2 * p->ram);
	if (t->kind == BENCH_ARRAY && t->array) {
		const struct geometry *g = &t->array->geo;
		char lay[64];
		int r;

		json_object(j, "array");
		json_str(j, "level", level_name(g->level));
		json_uint(j, "raid_devices", (uint64_t)g->raid_disks);
		json_uint(j, "chunk_bytes", (uint64_t)g->chunk_sectors * 512);
		if (layout_name(g->level, g->layout, lay, sizeof(lay)))
			json_str(j, "layout", lay);
		json_uint(j, "size_bytes", g->array_sectors * 512);
		json_uint(j, "missing", (uint64_t)t->array->missing);
		/* the roles served from parity or copies, as stderr names them:
		 * a degraded array's figures are not a whole one's */
		json_array(j, "degraded_roles");
		for (r = 0; r < g->raid_disks && r < ST_MAX_DISKS; r++)
			if (!t->array->role[r])
				json_int(j, NULL, r);
		json_close(j);
		json_close(j);
	}
	json_close(j);
}

static void json_timing(struct json *j, const char *key, const struct hdparm_timing *h)
{
	if (!h->run)
		return;
	json_object(j, key);
	json_uint(j, "bytes", h->bytes);
	json_uint(j, "elapsed_ns", h->elapsed_ns);
	json_uint(j, "rate_bytes_per_s", h->elapsed_ns ? (uint64_t)((double)h->bytes * 1e9 / (double)h->elapsed_ns) : 0);
	json_close(j);
}

static void json_tio(struct json *j, const struct tio_results *t)
{
	unsigned i, k;

	json_object(j, "total");
	for (k = 0; k < TIO_COUNT; k++)
		json_figure(j, tio_keys[k], false, &t->total[k]);
	json_close(j);
	json_array(j, "per_thread");
	for (i = 0; i < t->threads; i++) {
		json_object(j, NULL);
		json_uint(j, "thread", i + 1);
		for (k = 0; k < TIO_COUNT; k++)
			json_figure(j, tio_keys[k], false, &t->per[i * TIO_COUNT + k]);
		json_close(j);
	}
	json_close(j);
}

void bench_json(struct json *j, const struct bench_report *rep)
{
	int i;

	json_params(j, rep);
	json_object(j, "results");
	switch (rep->mode) {
	case BENCH_BONNIE:
		for (i = 0; i < BT_COUNT; i++)
			if (rep->r->fig[i].run)
				json_figure(j, bench_test_names[i].key, i == BT_SEEKS || i >= BT_FIRST_FILE,
					    &rep->r->fig[i]);
		break;
	case BENCH_THREADS:
		json_tio(j, &rep->r->tio);
		break;
	case BENCH_HDPARM:
		json_timing(j, "cached_reads", &rep->r->hdparm.cached);
		json_timing(j, "disk_reads", &rep->r->hdparm.disk);
		break;
	}
	json_close(j);
}
