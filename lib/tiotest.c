/* tiotest: placeholder */
#include "bench.h"
int tiotest_run(const struct bench_params *p, struct bench_target *t, struct tio_results *r, struct diag *d)
{ (void)p; (void)t; (void)r; return diag_fail(d, "not yet"); }
