/* progress: rate and ETA on stderr, redrawn at most five times a second on
 * a terminal, or one timestamped line every 10 s when stderr is a log. */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util/progress.h"

#define LOG_INTERVAL 10.0
#define BAR_INTERVAL 0.2

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int progress_parse(const char *s)
{
	static const char *const names[] = { "auto", "bar", "log", "none" };
	int i;

	for (i = 0; i < 4; i++)
		if (strcmp(s, names[i]) == 0)
			return i;
	return -1;
}

int progress_option(const char *tool, const char *arg, enum progress_mode *mode)
{
	int m = progress_parse(arg);

	if (m < 0) {
		fprintf(stderr, "%s: --progress: '%s' is not auto, bar, log or none\n", tool, arg);
		return -1;
	}
	*mode = (enum progress_mode)m;
	return 0;
}

void progress_start(struct progress *p, enum progress_mode mode, const char *tool,
		    const char *what, uint64_t total)
{
	memset(p, 0, sizeof(*p));
	if (mode == PROGRESS_AUTO)
		mode = isatty(STDERR_FILENO) ? PROGRESS_BAR : PROGRESS_LOG;
	p->mode = mode;
	p->tool = tool;
	p->what = what;
	p->total = total;
	p->start = p->last = now_s();
}

static void human_rate(double bytes_per_s, char *buf, size_t len)
{
	const char *unit[] = { "B/s", "KiB/s", "MiB/s", "GiB/s", "TiB/s" };
	int u = 0;

	while (bytes_per_s >= 1024 && u < 4) {
		bytes_per_s /= 1024;
		u++;
	}
	snprintf(buf, len, "%.1f %s", bytes_per_s, unit[u]);
}

static void describe(const struct progress *p, double t, char *buf, size_t len)
{
	double el = t - p->start, rate = el > 0 ? (double)p->done / el : 0;
	double pct = p->total ? 100.0 * (double)p->done / (double)p->total : 100.0;
	char r[32];
	long eta = rate > 0 && p->total > p->done ? (long)((double)(p->total - p->done) / rate) : 0;

	human_rate(rate, r, sizeof(r));
	snprintf(buf, len, "%s %5.1f%% (%llu of %llu MiB) %s, eta %ld:%02ld:%02ld", p->what, pct,
		 (unsigned long long)(p->done >> 20), (unsigned long long)(p->total >> 20), r,
		 eta / 3600, eta / 60 % 60, eta % 60);
}

void progress_update(struct progress *p, uint64_t done)
{
	double t;
	char line[160];

	p->done = done;
	if (p->mode == PROGRESS_NONE)
		return;
	t = now_s();
	if (t - p->last < (p->mode == PROGRESS_BAR ? BAR_INTERVAL : LOG_INTERVAL))
		return;
	p->last = t;
	describe(p, t, line, sizeof(line));
	if (p->mode == PROGRESS_BAR) {
		fprintf(stderr, "\r%s: %s\033[K", p->tool, line);
		p->drawn = 1;
	} else {
		time_t wall = time(NULL);
		struct tm tm;
		char stamp[32];

		localtime_r(&wall, &tm);
		strftime(stamp, sizeof(stamp), "%Y-%m-%d %H:%M:%S", &tm);
		fprintf(stderr, "%s %s: %s\n", stamp, p->tool, line);
	}
	fflush(stderr);
}

void progress_finish(struct progress *p)
{
	if (p->drawn)
		fprintf(stderr, "\r\033[K");
	p->drawn = 0;
}
