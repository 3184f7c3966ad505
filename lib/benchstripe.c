/* benchstripe: placeholder */
#include "bench.h"
int bonnie_array_tests(const struct bench_params *p, struct bench_target *t, struct bench_results *r, struct diag *d)
{ (void)p; (void)t; (void)r; return diag_fail(d, "not yet"); }
