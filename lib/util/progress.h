/* progress: the progress report every long-running tool shows on stderr:
 * a bar with rate and ETA on a terminal, a timestamped line every 10 s in
 * logs (--progress=auto|bar|log|none). */
#ifndef STRIPE_PROGRESS_H
#define STRIPE_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum progress_mode { PROGRESS_AUTO, PROGRESS_BAR, PROGRESS_LOG, PROGRESS_NONE };

struct progress {
	enum progress_mode mode;
	const char *tool, *what;
	uint64_t total, done;        /* bytes; total 0 when unknown (a pipe) */
	double start, last;          /* seconds, monotonic */
	double interval;             /* seconds between two reports */
	int fd;                      /* stderr, or STRIPE_PROGRESS_FD */
	int bar_width;               /* '#' and '.' a bar has: what fits the terminal */
	int drawn;                   /* a bar is on screen */
};

/* "auto", "bar", "log", "none"; -1 for anything else. */
int progress_parse(const char *s);

/* The --progress option of tool: sets *mode, or says what is wrong on
 * stderr and returns -1. */
int progress_option(const char *tool, const char *arg, enum progress_mode *mode);

/* The mode a tool runs with: -q silences the default; a --progress given
 * explicitly is kept. */
enum progress_mode progress_quiet(enum progress_mode mode, bool quiet);

/* total 0: the length is unknown, and only bytes and rate are shown. */
void progress_start(struct progress *p, enum progress_mode mode, const char *tool,
		    const char *what, uint64_t total);
void progress_update(struct progress *p, uint64_t done);
/* Clears the bar. */
void progress_finish(struct progress *p);

/* The report's text at t seconds (the monotonic clock of start), without
 * the tool's name or a time stamp: a bar line (bar, percentage, rate, ETA:
 * one terminal line) or a log line (percentage, bytes, rate, ETA). */
void progress_describe(const struct progress *p, double t, char *buf, size_t len);

#endif
