/* progress: a bar with percentage, rate and ETA redrawn at most five times a
 * second on a terminal, or one timestamped line every 10 s in a log. */
#include <fcntl.h>
#include <sys/ioctl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util/progress.h"

#define LOG_INTERVAL 10.0
#define BAR_INTERVAL 0.2
#define BAR_MAX 40
#define BAR_MIN 8
/* what a bar line holds besides the name, the doing and the bar:
 * " [...]  35.2%, 1023.9 MiB/s, eta 99:59:59" and the cursor's column */
#define BAR_TEXT 40

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

enum progress_mode progress_quiet(enum progress_mode mode, bool quiet)
{
	return quiet && mode == PROGRESS_AUTO ? PROGRESS_NONE : mode;
}

/* The environment's say, read here alone.  STRIPE_PROGRESS_INTERVAL
 * (seconds) shortens the wait between reports, so a spec sees log lines
 * from a run of a second, not ten.  STRIPE_PROGRESS_FD is where a script
 * that keeps its tools' stderr for its report lends them its terminal. */
static double env_number(const char *name, double lo, double hi)
{
	const char *env = getenv(name);
	char *end;
	double v;

	if (!env || !*env)
		return -1;
	v = strtod(env, &end);
	return *end == '\0' && v >= lo && v <= hi ? v : -1;
}

static int out_fd(void)
{
	double fd = env_number("STRIPE_PROGRESS_FD", 0, 1023);

	return fd >= 0 && fcntl((int)fd, F_GETFD) >= 0 ? (int)fd : STDERR_FILENO;
}

static double interval_of(enum progress_mode mode)
{
	double s = env_number("STRIPE_PROGRESS_INTERVAL", 0, 86400);

	if (s >= 0)
		return s;
	return mode == PROGRESS_BAR ? BAR_INTERVAL : LOG_INTERVAL;
}

/* A bar as wide as the terminal leaves room for, so that the line never
 * wraps (a wrapped line is not redrawn in place); none on a narrow one. */
static int bar_width(int fd, const char *tool, const char *what)
{
	struct winsize ws;
	int cols = ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col ? ws.ws_col : 80;
	int w = cols - (int)(strlen(tool) + 2 + strlen(what)) - BAR_TEXT;

	if (w < BAR_MIN)
		return 0;
	return w > BAR_MAX ? BAR_MAX : w;
}

void progress_start(struct progress *p, enum progress_mode mode, const char *tool,
		    const char *what, uint64_t total)
{
	memset(p, 0, sizeof(*p));
	p->fd = out_fd();
	if (mode == PROGRESS_AUTO)
		mode = isatty(p->fd) ? PROGRESS_BAR : PROGRESS_LOG;
	p->mode = mode;
	p->tool = tool;
	p->what = what;
	p->total = total;
	p->interval = interval_of(mode);
	if (mode == PROGRESS_BAR)
		p->bar_width = bar_width(p->fd, tool, what);
	p->start = p->last = now_s();
}

static void human(double v, const char *suffix, char *buf, size_t len)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	int u = 0;

	while (v >= 1024 && u < 5) {
		v /= 1024;
		u++;
	}
	snprintf(buf, len, "%.1f %s%s", v, unit[u], suffix);
}

/* Seconds left at the average rate so far, rounded up: a run with work
 * left never claims 0:00:00, and a steady run's ETA only goes down. */
static long eta_s(const struct progress *p, double el)
{
	double left;
	long s;

	if (p->done == 0 || el <= 0 || p->done >= p->total)
		return -1;
	left = (double)(p->total - p->done) * el / (double)p->done;
	s = (long)left;
	return (double)s < left ? s + 1 : s;
}

/* "[#####.....] ", or nothing when no bar fits */
static void bar(const struct progress *p, char *buf, size_t len)
{
	int w = p->bar_width, fill = (int)((double)w * (double)p->done / (double)p->total), i;

	buf[0] = '\0';
	if (w <= 0 || (size_t)w + 4 > len)
		return;
	buf[0] = '[';
	for (i = 0; i < w; i++)
		buf[1 + i] = i < fill ? '#' : '.';
	memcpy(buf + 1 + w, "] ", 3);
}

void progress_describe(const struct progress *p, double t, char *buf, size_t len)
{
	double el = t - p->start;
	char rate[32], done[32], total[32], eta[32] = "--:--:--", b[BAR_MAX + 4];
	double pct;
	long e;

	human(el > 0 ? (double)p->done / el : 0, "/s", rate, sizeof(rate));
	human((double)p->done, "", done, sizeof(done));
	if (!p->total) {
		snprintf(buf, len, "%s %s, %s", p->what, done, rate);
		return;
	}
	human((double)p->total, "", total, sizeof(total));
	e = eta_s(p, el);
	if (e >= 0)
		snprintf(eta, sizeof(eta), "%ld:%02ld:%02ld", e / 3600, e / 60 % 60, e % 60);
	else if (p->done >= p->total)
		snprintf(eta, sizeof(eta), "0:00:00");
	pct = 100.0 * (double)(p->done < p->total ? p->done : p->total) / (double)p->total;
	if (p->mode == PROGRESS_BAR) {
		bar(p, b, sizeof(b));
		snprintf(buf, len, "%s %s%5.1f%%, %s, eta %s", p->what, b, pct, rate, eta);
	} else {
		snprintf(buf, len, "%s %5.1f%% (%s of %s) %s, eta %s", p->what, pct, done, total, rate, eta);
	}
}

static void log_line(const struct progress *p, const char *line)
{
	time_t wall = time(NULL);
	struct tm tm;
	char stamp[32];

	localtime_r(&wall, &tm);
	strftime(stamp, sizeof(stamp), "%Y-%m-%d %H:%M:%S", &tm);
	dprintf(p->fd, "%s %s: %s\n", stamp, p->tool, line);
}

void progress_update(struct progress *p, uint64_t done)
{
	double t;
	char line[200];

	p->done = done;
	if (p->mode == PROGRESS_NONE)
		return;
	t = now_s();
	if (t - p->last < p->interval)
		return;
	p->last = t;
	progress_describe(p, t, line, sizeof(line));
	if (p->mode == PROGRESS_BAR) {
		dprintf(p->fd, "\r%s: %s\033[K", p->tool, line);
		p->drawn = 1;
	} else {
		log_line(p, line);
	}
}

void progress_finish(struct progress *p)
{
	if (p->drawn)
		dprintf(p->fd, "\r\033[K");
	p->drawn = 0;
}
