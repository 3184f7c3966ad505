/* writeq: runs of queued writes that meet end to end, taken in array
 * order, never ahead of an earlier write they overlap. */
#include <stddef.h>

#include "io/writeq.h"

void writeq_push(struct writeq *q, struct writeq_item *it)
{
	it->next = NULL;
	if (q->tail)
		q->tail->next = it;
	else
		q->head = it;
	q->tail = it;
}

static bool overlaps(const struct writeq_item *a, const struct writeq_item *b)
{
	return a->off < b->off + b->len && b->off < a->off + a->len;
}

/* Whether it may be written before the writes queued ahead of it: none of
 * them overlaps it. */
static bool may_jump(const struct writeq *q, const struct writeq_item *it)
{
	const struct writeq_item *e;

	for (e = q->head; e != it; e = e->next)
		if (overlaps(e, it))
			return false;
	return true;
}

static void unlink_item(struct writeq *q, struct writeq_item *prev, struct writeq_item *it)
{
	if (prev)
		prev->next = it->next;
	else
		q->head = it->next;
	if (q->tail == it)
		q->tail = prev;
	it->next = NULL;
}

/* A queued write that touches [lo, hi) at either end, may be written now
 * and keeps the run within max bytes; NULL if none. */
static struct writeq_item *find_neighbour(const struct writeq *q, uint64_t lo, uint64_t hi,
					  uint64_t max, struct writeq_item **prevp)
{
	struct writeq_item *prev = NULL, *e;

	for (e = q->head; e; prev = e, e = e->next)
		if ((e->off == hi || e->off + e->len == lo) && hi - lo + e->len <= max && may_jump(q, e)) {
			*prevp = prev;
			return e;
		}
	return NULL;
}

/* The run's items lie inside [lo, hi) and so never meet it, and never
 * overlap a write outside it: looking for neighbours with them still
 * queued finds what taking them out would. */
bool writeq_peek_run(const struct writeq *q, uint64_t max, uint64_t *lo, uint64_t *hi)
{
	struct writeq_item *e, *prev;

	if (!q->head)
		return false;
	*lo = q->head->off;
	*hi = q->head->off + q->head->len;
	while ((e = find_neighbour(q, *lo, *hi, max, &prev))) {
		if (e->off == *hi)
			*hi += e->len;
		else
			*lo = e->off;
	}
	return true;
}

struct writeq_item *writeq_take_run(struct writeq *q, uint64_t max, int *n, uint64_t *len)
{
	struct writeq_item *first = q->head, *last = first, *e, *prev;
	uint64_t lo, hi;

	*n = 0;
	*len = 0;
	if (!first)
		return NULL;
	lo = first->off;
	hi = first->off + first->len;
	unlink_item(q, NULL, first);
	*n = 1;
	while ((e = find_neighbour(q, lo, hi, max, &prev))) {
		unlink_item(q, prev, e);
		if (e->off == hi) {
			last->next = e;
			last = e;
			hi += e->len;
		} else {
			e->next = first;
			first = e;
			lo = e->off;
		}
		(*n)++;
	}
	*len = hi - lo;
	return first;
}

void writeq_put_back(struct writeq *q, struct writeq_item *first)
{
	struct writeq_item *last = first, *e, *it;
	bool behind = true;

	if (!first)
		return;
	while (last->next)
		last = last->next;
	for (e = q->head; e && behind; e = e->next)
		for (it = first; it && behind; it = it->next)
			behind = !overlaps(e, it);
	if (!q->head) {
		q->head = first;
		q->tail = last;
	} else if (behind) {
		q->tail->next = first;
		q->tail = last;
	} else {
		last->next = q->head;
		q->head = first;
	}
}
