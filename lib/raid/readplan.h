/* readplan: the splice read path.  A read of a healthy row is planned as
 * the member runs it lies in and spliced from the members' page cache into
 * a pipe, so the bytes are copied once, into the reader's buffer; what
 * cannot be planned so is left to the stripe engine, which rebuilds and
 * reports.  A reader that needs the bytes in memory preads the same runs. */
#ifndef STRIPE_READPLAN_H
#define STRIPE_READPLAN_H

#include <stddef.h>
#include <stdint.h>

#include "raid/stripe.h"

/* Where [off, off + len) lies on the members, in at most max runs; -1
 * where the engine must read it: not in whole sectors, a degraded row,
 * more than max runs, or a run the test hook says fails to read or a
 * member's bad-block log names (the engine meets that failure and says
 * so, or rebuilds it from the other members). */
int readplan_make(struct array *a, uint64_t off, size_t len, struct member_run *r, int max);

/* A pipe that holds at least bytes, in fds; -1 where none can. */
int readplan_pipe(int fds[2], size_t bytes);

/* Splices the runs into the pipe's write end wfd; -1 on a read error or
 * a member cut short, with what was spliced left in the pipe. */
int readplan_splice(int wfd, const struct member_run *r, int n);

/* Reads the runs into buf, one after the other, from the members' page
 * cache (pread); -1 on a read error or a member cut short. */
int readplan_pread(void *buf, const struct member_run *r, int n);

/* Empties the pipe, from its read end rfd, of what a reply that failed
 * half way left in it; -1 where it cannot. */
int readplan_pipe_empty(int rfd);

#endif
