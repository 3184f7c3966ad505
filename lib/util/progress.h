/* progress: the progress report every long-running tool shows on stderr:
 * a bar with rate and ETA on a terminal, a timestamped line every 10 s in
 * logs (--progress=auto|bar|log|none). */
#ifndef STRIPE_PROGRESS_H
#define STRIPE_PROGRESS_H

#include <stdint.h>

enum progress_mode { PROGRESS_AUTO, PROGRESS_BAR, PROGRESS_LOG, PROGRESS_NONE };

struct progress {
	enum progress_mode mode;
	const char *tool, *what;
	uint64_t total, done;
	double start, last;          /* seconds, monotonic */
	int drawn;                   /* a bar is on screen */
};

/* "auto", "bar", "log", "none"; -1 for anything else. */
int progress_parse(const char *s);

/* The --progress option of tool: sets *mode, or says what is wrong on
 * stderr and returns -1. */
int progress_option(const char *tool, const char *arg, enum progress_mode *mode);

void progress_start(struct progress *p, enum progress_mode mode, const char *tool,
		    const char *what, uint64_t total);
void progress_update(struct progress *p, uint64_t done);
/* Final line (or clears the bar). */
void progress_finish(struct progress *p);

#endif
