/* benchseek: random seeks shared out to seeker threads through a ticket
 * counter, as bonnie++ hands tickets to its seeker processes. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/benchseek.h"
#include "io/dev.h"

struct seek_plan {
	int64_t *tickets;            /* chunk numbers; negative: read-modify-write */
	unsigned n;
	atomic_uint next;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool open;                   /* the gate: seekers wait until every one is ready */
};

static void wait_gate(struct seek_plan *plan)
{
	pthread_mutex_lock(&plan->mu);
	while (!plan->open)
		pthread_cond_wait(&plan->cv, &plan->mu);
	pthread_mutex_unlock(&plan->mu);
}

static void open_gate(struct seek_plan *plan)
{
	pthread_mutex_lock(&plan->mu);
	plan->open = true;
	pthread_cond_broadcast(&plan->cv);
	pthread_mutex_unlock(&plan->mu);
}

static void *seeker_run(void *arg)
{
	struct seeker *s = arg;
	char *buf = dev_alloc(s->p->chunk);
	unsigned i;

	if (buf)
		memset(buf, 0, s->p->chunk);
	else
		s->rc = diag_fail(&s->d, "out of memory (%zu bytes) for a seeker's buffer", (size_t)s->p->chunk);
	wait_gate(s->plan);
	while (s->rc == 0 && (i = atomic_fetch_add(&s->plan->next, 1)) < s->plan->n) {
		int64_t ticket = s->plan->tickets[i];
		uint64_t off = (uint64_t)(ticket < 0 ? -ticket : ticket) * s->p->chunk, st = bench_now_ns();

		s->rc = s->read_chunk(s, buf, off, &s->d);
		if (s->rc == 0 && ticket < 0) {
			buf[off / s->p->chunk % s->p->chunk]--;
			s->rc = s->write_chunk(s, buf, off, &s->d);
		}
		bench_op(&s->fig, bench_now_ns() - st);
		s->fig.ops++;
		if (s->rc == 0 && bench_stopped(s->t))
			s->rc = diag_fail(&s->d, "interrupted");
	}
	if (s->rc == 0 && s->finish)
		s->rc = s->finish(s, &s->d);
	free(buf);
	return NULL;
}

static int plan_seeks(const struct bench_params *p, struct seek_plan *plan, struct diag *d)
{
	uint64_t chunks = p->size / p->chunk, st = p->seed ^ 0x5eeca11ull;
	unsigned i;

	memset(plan, 0, sizeof(*plan));
	plan->n = p->seeks;
	atomic_init(&plan->next, 0);
	pthread_mutex_init(&plan->mu, NULL);
	pthread_cond_init(&plan->cv, NULL);
	plan->tickets = malloc(((size_t)p->seeks + 1) * sizeof(*plan->tickets));
	if (!plan->tickets)
		return diag_fail(d, "out of memory for %u seeks", p->seeks);
	for (i = 0; i < p->seeks; i++) {
		uint64_t r = bench_random(&st);
		int64_t chunk = (int64_t)(r % (chunks ? chunks : 1));

		/* chunk 0 cannot carry the sign, so it is only ever read */
		plan->tickets[i] = (r >> 32) % BENCH_UPDATE_SEEK == 0 ? -chunk : chunk;
	}
	return 0;
}

static void free_plan(struct seek_plan *plan)
{
	free(plan->tickets);
	pthread_mutex_destroy(&plan->mu);
	pthread_cond_destroy(&plan->cv);
}

int bench_seeks(const struct bench_params *p, struct bench_target *t, struct bench_figure *f,
		seeker_open open_seeker, struct diag *d)
{
	struct seeker *s = calloc(p->seekers, sizeof(*s));
	struct seek_plan plan;
	struct bench_clock c;
	unsigned i;
	int rc = 0;

	if (t->note)
		t->note(t->note_ctx, bench_test_names[BT_SEEKS].what);
	if (!s)
		return diag_fail(d, "out of memory for %u seekers", p->seekers);
	if (plan_seeks(p, &plan, d) < 0) {
		free_plan(&plan);
		free(s);
		return -1;
	}
	for (i = 0; i < p->seekers; i++)
		s[i] = (struct seeker){ .p = p, .t = t, .plan = &plan, .fd = -1 };
	for (i = 0; rc == 0 && i < p->seekers; i++)
		rc = open_seeker(&s[i], d);
	for (i = 0; rc == 0 && i < p->seekers; i++) {
		s[i].started = pthread_create(&s[i].th, NULL, seeker_run, &s[i]) == 0;
		if (!s[i].started) {
			rc = diag_fail(d, "cannot start seeker %u of %u: %s", i + 1, p->seekers, strerror(errno));
			atomic_store(&plan.next, plan.n);   /* the started ones find no tickets */
		}
	}
	bench_clock_start(&c);
	open_gate(&plan);
	for (i = 0; i < p->seekers; i++)
		if (s[i].started)
			pthread_join(s[i].th, NULL);
	bench_clock_stop(&c, f);
	for (i = 0; i < p->seekers; i++) {
		if (s[i].fd >= 0)
			close(s[i].fd);
		bench_merge_ops(f, &s[i].fig);
		if (s[i].rc < 0 && rc == 0) {
			*d = s[i].d;
			rc = -1;
		}
	}
	f->bytes = 0;
	free_plan(&plan);
	free(s);
	return rc;
}
