/* pool: worker threads for a whole pass over an array; a job is an array
 * of items (one per member) and a function, and each item runs once, on
 * whichever worker claims it first. */
#ifndef STRIPE_POOL_H
#define STRIPE_POOL_H

#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pool_worker {
	struct pool *pool;
	pthread_t th;
	sem_t go;                    /* posted once per job, and to stop */
	bool started;
};

struct pool {
	void (*run)(void *item);
	char *items;
	size_t size;                 /* of one item */
	int n;                       /* items per job */
	int nw;                      /* workers */
	atomic_int next;             /* the next item to claim */
	atomic_int pending;          /* items of the job still running */
	sem_t done;                  /* posted by the worker that finishes a job */
	bool threaded;
	bool busy;                   /* a job submitted or run here, not yet collected */
	bool on_workers;             /* that job is the workers' */
	atomic_bool stop;            /* read by workers that may still be waking from the last job */
	struct pool_worker *w;
};

/* Starts workers (1 to n) for jobs of n items, each item run by whichever
 * worker claims it first; with one item, or when threads cannot be had,
 * jobs run in the caller instead, one item after the other. */
void pool_start(struct pool *pl, int n, int workers);

/* The CPUs this process may run on (at least 1). */
int pool_cpus(void);
void pool_stop(struct pool *pl);
/* Hands items[0..n-1] to the workers and returns at once; pool_wait
 * collects the job.  One job at a time. */
void pool_submit(struct pool *pl, void (*run)(void *item), void *items, size_t size);
void pool_wait(struct pool *pl);
/* Runs items[0..n-1] in the caller, one after the other: a small job's
 * I/O costs less than waking a worker for it. */
void pool_run_here(struct pool *pl, void (*run)(void *item), void *items, size_t size);

#endif
