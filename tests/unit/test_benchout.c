/* test_benchout: stripe-bench's reports from known figures: bonnie++'s
 * latency notation, the 50-field 1.98 CSV line with bonnie++'s size names,
 * and the Bonnie table row carrying the same K/sec and %CPU as the CSV. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "bench/benchout.h"
#include "tap.h"

/* A figure of bytes moved in ms milliseconds with cpu_ms of CPU time. */
static struct bench_figure figure(uint64_t bytes, uint64_t ops, double ms, double cpu_ms, uint64_t lat_us)
{
	struct bench_figure f = { .run = true, .bytes = bytes, .ops = ops };

	f.elapsed_ns = (uint64_t)(ms * 1e6);
	f.user_ns = (uint64_t)(cpu_ms * 1e6 / 2);
	f.sys_ns = (uint64_t)(cpu_ms * 1e6 / 2);
	f.latency_ns = lat_us * 1000;
	return f;
}

static char *render(void (*print)(FILE *, const struct bench_report *), const struct bench_report *rep)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	print(f, rep);
	fclose(f);
	return buf;
}

static int split(char *line, char sep, char **fields, int max)
{
	int n = 0;

	fields[n++] = line;
	for (; *line && n < max; line++)
		if (*line == sep) {
			*line = 0;
			fields[n++] = line + 1;
		}
	return n;
}

static void test_latency(void)
{
	char buf[32];

	bench_latency_str(812000, buf, sizeof(buf));
	ok(strcmp(buf, "812us") == 0, "812 microseconds read 812us (%s)", buf);
	bench_latency_str(99000000, buf, sizeof(buf));
	ok(strcmp(buf, "99000us") == 0, "below a tenth of a second stays in us (%s)", buf);
	bench_latency_str(156700000, buf, sizeof(buf));
	ok(strcmp(buf, "156ms") == 0, "from a tenth of a second, ms, truncated (%s)", buf);
	bench_latency_str(150000000000ull, buf, sizeof(buf));
	ok(strcmp(buf, "150s") == 0, "over 100 s reads in seconds (%s)", buf);
	bench_latency_str(0, buf, sizeof(buf));
	ok(buf[0] == 0, "no latency is an empty field");
}

static void test_csv_and_table(void)
{
	struct bench_params p = { .label = "box", .size = 300ull << 20, .chunk = 8192, .seeks = 8192,
				  .seekers = 5, .seed = 42, .files = { .count = 2 } };
	struct bench_results r;
	struct bench_target t = { .kind = BENCH_DIR, .path = "/tmp" };
	struct bench_report rep = { .mode = BENCH_BONNIE, .p = &p, .r = &r, .t = &t };
	char *csv, *text, *f[64], *row, *cols[32];
	int n, i;

	memset(&r, 0, sizeof(r));
	r.fig[BT_WRITE] = figure(300ull << 20, 38400, 1000.0, 615.0, 8200);  /* 307200 K/sec, 61.5 % */
	r.fig[BT_READ] = figure(300ull << 20, 38400, 250.0, 250.0, 900);     /* 1228800 K/sec, 100 % */
	r.fig[BT_SEEKS] = figure(0, 8192, 2000.0, 20.0, 25000);              /* 4096 /s, 1 % */
	r.fig[BT_SEEKS].bytes = 0;
	r.fig[BT_SEQ_CREATE] = figure(0, 2048, 512.0, 100.0, 300);           /* 4000 files/s */
	csv = render(bench_print_csv, &rep);
	n = split(csv, ',', f, 64);
	ok(n == BENCH_CSV_FIELDS, "the CSV line has 50 fields (%d)", n);
	ok(strcmp(f[0], "1.98") == 0 && strcmp(f[2], "box") == 0, "format 1.98, then the label");
	ok(strcmp(f[5], "300M") == 0 && strcmp(f[6], "8k") == 0, "size and chunk as bonnie++ names them (%s %s)",
	   f[5], f[6]);
	ok(strcmp(f[7], "8192") == 0 && strcmp(f[8], "5") == 0, "seeks and seekers in fields 7 and 8");
	ok(f[9][0] == 0 && f[10][0] == 0, "the per-character test that did not run leaves its fields empty");
	ok(strcmp(f[11], "307200") == 0 && strcmp(f[12], "61") == 0, "block write: K/sec and whole %%CPU (%s %s)",
	   f[11], f[12]);
	ok(strcmp(f[17], "1228800") == 0 && strcmp(f[18], "100") == 0, "block read (%s %s)", f[17], f[18]);
	ok(strcmp(f[19], "4096") == 0 && strcmp(f[20], "1") == 0, "seeks per second without decimals above 1000 (%s)",
	   f[19]);
	ok(strcmp(f[21], "2") == 0 && strcmp(f[26], "4000") == 0, "file tests: count and creates per second (%s %s)",
	   f[21], f[26]);
	ok(strcmp(f[39], "8200us") == 0 && strcmp(f[43], "25000us") == 0 && strcmp(f[44], "300us") == 0,
	   "latencies in fields 38-49 (%s %s %s)", f[39], f[43], f[44]);
	free(csv);

	text = render(bench_print_text, &rep);
	row = strstr(text, "\nbox ");
	ok(row != NULL, "the table has a row named by the label");
	if (row) {
		char *end = strchr(row + 1, '\n');

		*end = 0;
		for (n = 0, i = 0, row = strtok(row + 1, " "); row && n < 32; row = strtok(NULL, " "))
			cols[n++] = row;
		(void)i;
		ok(n == 8 && strcmp(cols[1], "300") == 0, "name, MB, and three figures with their %%CPU (%d columns)", n);
		ok(n == 8 && strcmp(cols[2], "307200") == 0 && strcmp(cols[3], "61.5") == 0,
		   "block write as in the CSV, %%CPU with its decimal");
		ok(n == 8 && strcmp(cols[6], "4096") == 0, "seeks as in the CSV");
	}
	free(text);
}

static void test_seek_rates_below_1000(void)
{
	struct bench_params p = { .label = "x", .size = 1 << 20, .chunk = 4096, .seeks = 100, .seekers = 5 };
	struct bench_results r;
	struct bench_target t = { .kind = BENCH_DIR, .path = "/tmp" };
	struct bench_report rep = { .mode = BENCH_BONNIE, .p = &p, .r = &r, .t = &t };
	char *csv, *f[64];

	memset(&r, 0, sizeof(r));
	r.fig[BT_SEEKS] = figure(0, 100, 800.0, 8.0, 20);
	csv = render(bench_print_csv, &rep);
	split(csv, ',', f, 64);
	ok(strcmp(f[19], "125.0") == 0, "seeks per second with one decimal below 1000 (%s)", f[19]);
	ok(strcmp(f[5], "1M") == 0 && strcmp(f[6], "4k") == 0, "1 MiB and 4 KiB are 1M and 4k");
	free(csv);
}

int main(void)
{
	test_latency();
	test_csv_and_table();
	test_seek_rates_below_1000();
	return tap_done();
}
