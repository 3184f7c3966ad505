/* diag: the error value that travels back from every library call.
 * A failing call fills one message naming the device, offset and what was expected. */
#ifndef STRIPE_DIAG_H
#define STRIPE_DIAG_H

#include <stdarg.h>

/* What a failure means to the run: most stop it; a range of the array
 * that could not be served (too little redundancy left to read or write
 * it) is work the run did not do, which the data tools tell apart (exit 1,
 * not 2). */
enum diag_kind {
	DIAG_ERROR,
	DIAG_UNSERVED,
};

struct diag {
	char msg[512];
	enum diag_kind kind;
};

/* Formats a message into d (if d is not NULL) and returns -1, so callers can
 * write "return diag_fail(d, ...)". */
int diag_fail(struct diag *d, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* As diag_fail, for a range of the array that could not be served: the
 * message names its array bytes and the roles lacking. */
int diag_unserved(struct diag *d, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Prefixes an existing message, e.g. with the path it concerns. */
int diag_prefix(struct diag *d, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
