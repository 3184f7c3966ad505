/* diag: the error value that travels back from every library call.
 * A failing call fills one message naming the device, offset and what was expected. */
#ifndef STRIPE_DIAG_H
#define STRIPE_DIAG_H

#include <stdarg.h>

struct diag {
	char msg[512];
};

/* Formats a message into d (if d is not NULL) and returns -1, so callers can
 * write "return diag_fail(d, ...)". */
int diag_fail(struct diag *d, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Prefixes an existing message, e.g. with the path it concerns. */
int diag_prefix(struct diag *d, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
