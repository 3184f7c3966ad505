/* diag: formatting of the error messages that library calls return. */
#include <stdio.h>
#include <string.h>

#include "util/diag.h"

static int diag_set(struct diag *d, enum diag_kind kind, const char *fmt, va_list ap)
{
	if (!d)
		return -1;
	vsnprintf(d->msg, sizeof(d->msg), fmt, ap);
	d->kind = kind;
	return -1;
}

int diag_fail(struct diag *d, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	diag_set(d, DIAG_ERROR, fmt, ap);
	va_end(ap);
	return -1;
}

int diag_unserved(struct diag *d, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	diag_set(d, DIAG_UNSERVED, fmt, ap);
	va_end(ap);
	return -1;
}

int diag_prefix(struct diag *d, const char *fmt, ...)
{
	char head[256];
	size_t h, rest;
	va_list ap;

	if (!d)
		return -1;
	va_start(ap, fmt);
	vsnprintf(head, sizeof(head), fmt, ap);
	va_end(ap);
	h = strlen(head) + 2;
	rest = strnlen(d->msg, sizeof(d->msg) - 1);
	if (h + rest >= sizeof(d->msg))
		rest = sizeof(d->msg) - 1 - h;
	memmove(d->msg + h, d->msg, rest);
	memcpy(d->msg, head, h - 2);
	memcpy(d->msg + h - 2, ": ", 2);
	d->msg[h + rest] = 0;
	return -1;
}
