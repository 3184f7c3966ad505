/* tap.h: a minimal TAP producer for the C unit tests; each check is one "ok" line. */
#ifndef STRIPE_TAP_H
#define STRIPE_TAP_H

#include <stdio.h>
#include <stdlib.h>

static int tap_n, tap_failed;

#define ok(cond, ...) do {                                              \
	int ok_c_ = !!(cond);                                           \
	printf("%sok %d - ", ok_c_ ? "" : "not ", ++tap_n);             \
	printf(__VA_ARGS__);                                            \
	printf("\n");                                                   \
	if (!ok_c_) {                                                   \
		tap_failed++;                                           \
		printf("#   failed at %s:%d: %s\n", __FILE__, __LINE__, #cond); \
	}                                                               \
} while (0)

#define skip(...) do {                                                  \
	printf("ok %d # skip ", ++tap_n);                               \
	printf(__VA_ARGS__);                                            \
	printf("\n");                                                   \
} while (0)

static inline int tap_done(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

#endif
