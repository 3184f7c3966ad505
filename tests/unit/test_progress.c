/* test_progress: what the progress report says at a given moment: the
 * percentage, the rate, an ETA that is never 0:00:00 with work left and only
 * falls on a steady run, a bar, and bytes alone when the length is unknown. */
#include <stdio.h>
#include <string.h>

#include "util/progress.h"
#include "tap.h"

#define MIB (1024ull * 1024)

static struct progress at(enum progress_mode mode, uint64_t total, uint64_t done)
{
	struct progress p = { .mode = mode, .tool = "t", .what = "writing", .total = total, .done = done };

	return p;
}

/* The ETA's seconds, parsed back out of a line ("eta H:MM:SS"). */
static long eta_of(const char *line)
{
	const char *e = strstr(line, "eta ");
	int h, m, s;

	if (!e || sscanf(e, "eta %d:%d:%d", &h, &m, &s) != 3)
		return -1;
	return h * 3600L + m * 60L + s;
}

static void eta_left_at_23_percent_is_not_zero(void)
{
	struct progress p = at(PROGRESS_LOG, 100 * MIB, 23 * MIB);
	char line[200];

	/* 23 MiB in 0.1 s: a third of a second left */
	progress_describe(&p, 0.1, line, sizeof(line));
	ok(strstr(line, " 23.0% (23.0 MiB of 100.0 MiB)") != NULL, "the line gives percentage and sizes: %s", line);
	ok(eta_of(line) == 1, "a third of a second left is eta 0:00:01, not 0:00:00: %s", line);
}

static void eta_is_zero_only_when_done(void)
{
	struct progress p = at(PROGRESS_LOG, 100 * MIB, 100 * MIB);
	char line[200];

	progress_describe(&p, 4, line, sizeof(line));
	ok(eta_of(line) == 0 && strstr(line, "100.0%"), "a finished run says 100%% and eta 0:00:00: %s", line);
}

static void eta_falls_on_a_steady_run(void)
{
	char line[200];
	long prev = -1, e;
	int t, rises = 0;

	/* 10 MiB/s for 60 s of a 600 MiB job, seen every tenth of a second */
	for (t = 1; t < 600; t++) {
		struct progress p = at(PROGRESS_LOG, 600 * MIB, (uint64_t)t * MIB);

		progress_describe(&p, t / 10.0, line, sizeof(line));
		e = eta_of(line);
		rises += prev >= 0 && e > prev;
		prev = e;
	}
	ok(rises == 0, "on a steady run the ETA never rises (%d rises)", rises);
}

static void rate_is_bytes_per_second(void)
{
	struct progress p = at(PROGRESS_LOG, 100 * MIB, 30 * MIB);
	char line[200];

	progress_describe(&p, 2, line, sizeof(line));
	ok(strstr(line, "15.0 MiB/s") != NULL, "30 MiB in 2 s is 15.0 MiB/s: %s", line);
}

static void bar_fills_with_the_share_done(void)
{
	struct progress p = at(PROGRESS_BAR, 100 * MIB, 50 * MIB);
	char line[200];

	p.bar_width = 20;
	progress_describe(&p, 1, line, sizeof(line));
	ok(strcmp(line, "writing [##########..........]  50.0%, 50.0 MiB/s, eta 0:00:01") == 0,
	   "half done fills half the bar, then percentage, rate and ETA: %s", line);
	p.bar_width = 0;
	progress_describe(&p, 1, line, sizeof(line));
	ok(strcmp(line, "writing  50.0%, 50.0 MiB/s, eta 0:00:01") == 0, "a terminal too narrow for a bar: %s", line);
	p = at(PROGRESS_LOG, 100 * MIB, 50 * MIB);
	progress_describe(&p, 1, line, sizeof(line));
	ok(strchr(line, '[') == NULL, "a log line has no bar: %s", line);
}

static void unknown_length_gives_bytes_and_rate(void)
{
	struct progress p = at(PROGRESS_BAR, 0, 8 * MIB);
	char line[200];

	progress_describe(&p, 2, line, sizeof(line));
	ok(strcmp(line, "writing 8.0 MiB, 4.0 MiB/s") == 0, "a pipe shows bytes and rate alone: %s", line);
}

static void quiet_silences_only_the_default(void)
{
	ok(progress_quiet(PROGRESS_AUTO, true) == PROGRESS_NONE, "-q turns the default off");
	ok(progress_quiet(PROGRESS_LOG, true) == PROGRESS_LOG, "-q keeps a --progress given explicitly");
	ok(progress_quiet(PROGRESS_AUTO, false) == PROGRESS_AUTO, "without -q the default stays");
}

int main(void)
{
	eta_left_at_23_percent_is_not_zero();
	eta_is_zero_only_when_done();
	eta_falls_on_a_steady_run();
	rate_is_bytes_per_second();
	bar_fills_with_the_share_done();
	unknown_length_gives_bytes_and_rate();
	quiet_silences_only_the_default();
	return tap_done();
}
