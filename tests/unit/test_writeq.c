/* test_writeq: queued writes are taken as runs that meet end to end, in
 * array order whatever the order they came in, never ahead of an earlier
 * write they overlap, and within the size asked for; a peek finds the
 * same run; the rest of a run written in part is put back behind the
 * writes queued since, or at the front when one of those overlaps it;
 * and, replayed at random against a model, with runs written whole or in
 * part, the bytes left are always the latest. */
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "io/writeq.h"

#define KIB 1024u

struct w {
	struct writeq_item q;        /* first, as in stripe-map */
	int id;
};

static struct w items[256];          /* more than can be queued at once */

static void push(struct writeq *q, int id, uint64_t off, uint64_t len)
{
	items[id] = (struct w){ .q = { .off = off * KIB, .len = len * KIB }, .id = id };
	writeq_push(q, &items[id].q);
}

/* The run's ids in its order, as "a,b,c". */
static const char *ids(const struct writeq_item *it)
{
	static char buf[256];
	size_t at = 0;

	buf[0] = 0;
	for (; it; it = it->next)
		at += (size_t)snprintf(buf + at, sizeof(buf) - at, "%s%d", at ? "," : "",
				       ((const struct w *)it)->id);
	return buf;
}

static const char *take(struct writeq *q, uint64_t max_kib, int *n, uint64_t *len)
{
	return ids(writeq_take_run(q, max_kib * KIB, n, len));
}

/* Writes the first cut bytes of a run into arr and puts the rest back, as
 * the writer does; how many of its writes were written whole. */
static int write_part(struct writeq *q, struct writeq_item *run, uint64_t cut, unsigned char *arr,
		      const unsigned char *val)
{
	struct writeq_item *left = NULL, **tail = &left, *it, *next;
	uint64_t end = run->off + cut;
	int whole = 0;

	for (it = run; it; it = next) {
		uint64_t to = it->off + it->len < end ? it->off + it->len : end;

		next = it->next;
		if (it->off < to)
			memset(arr + it->off, val[((struct w *)it)->id], (size_t)(to - it->off));
		if (to == it->off + it->len) {
			whole++;
			continue;
		}
		if (it->off < to) {
			it->len -= to - it->off;
			it->off = to;
		}
		*tail = it;
		tail = &it->next;
	}
	*tail = NULL;
	writeq_put_back(q, left);
	return whole;
}

/* Random writes over a small region, applied to a model array in queue
 * order and, through writeq runs (with part, some of them written in part
 * and the rest put back), to another; true when they end equal. */
static bool replay_matches(unsigned seed, bool part)
{
	enum { REGION = 64, OPS = 2000, DEPTH = 8 };
	unsigned char model[REGION], arr[REGION], val[256];
	struct writeq q = { 0 };
	int queued = 0, op, n, next_id = 0;
	const struct writeq_item *run;
	uint64_t len, lo, hi;

	srand(seed);
	memset(model, 0, sizeof(model));
	memset(arr, 0, sizeof(arr));
	for (op = 0; op < OPS; op++) {
		if (queued < DEPTH && rand() % 3) {
			uint64_t l = 1 + (uint64_t)rand() % 8, o = (uint64_t)rand() % (REGION - l + 1);
			int id = next_id;

			next_id = (next_id + 1) % 256;
			val[id] = (unsigned char)(op % 251 + 1);
			items[id] = (struct w){ .q = { .off = o, .len = l }, .id = id };
			writeq_push(&q, &items[id].q);
			memset(model + o, val[id], (size_t)l);
			queued++;
			continue;
		}
		if (!queued)
			continue;
		if (!writeq_peek_run(&q, 16, &lo, &hi))
			return false;
		run = writeq_take_run(&q, 16, &n, &len);
		if (run->off != lo || len != hi - lo)
			return false;
		queued -= write_part(&q, (struct writeq_item *)run,
				     part && len > 1 && rand() % 2 ? 1 + (uint64_t)rand() % (len - 1) : len, arr, val);
	}
	while (queued > 0) {
		for (const struct writeq_item *it = writeq_take_run(&q, 16, &n, &len); it; it = it->next)
			memset(arr + it->off, val[((const struct w *)it)->id], (size_t)it->len);
		queued -= n;
	}
	return memcmp(model, arr, sizeof(model)) == 0;
}

int main(void)
{
	struct writeq q = { 0 };
	uint64_t len, lo, hi;
	int n;
	unsigned seed;
	bool all = true;

	ok(writeq_take_run(&q, 1024 * KIB, &n, &len) == NULL && n == 0, "an empty queue gives no run");

	push(&q, 1, 0, 512);
	push(&q, 2, 512, 512);
	ok(!strcmp(take(&q, 8192, &n, &len), "1,2") && n == 2 && len == 1024 * KIB,
	   "two halves queued in order make one run");

	push(&q, 1, 512, 512);
	push(&q, 2, 0, 512);
	ok(!strcmp(take(&q, 8192, &n, &len), "2,1") && len == 1024 * KIB,
	   "halves queued the other way round make one run, lowest first");

	push(&q, 1, 1024, 512);
	push(&q, 2, 0, 512);
	push(&q, 3, 512, 512);
	push(&q, 4, 1536, 512);
	ok(!strcmp(take(&q, 8192, &n, &len), "2,3,1,4") && n == 4 && !q.head,
	   "pieces that meet at either end in any order join into one run");

	push(&q, 1, 0, 512);
	push(&q, 2, 768, 512);
	push(&q, 3, 512, 512);
	ok(!strcmp(take(&q, 8192, &n, &len), "1") && !strcmp(take(&q, 8192, &n, &len), "2") &&
	   !strcmp(take(&q, 8192, &n, &len), "3"),
	   "a write that would meet the run but overlaps an earlier queued write waits its turn");

	push(&q, 1, 0, 512);
	push(&q, 2, 2048, 512);
	push(&q, 3, 512, 512);
	ok(!strcmp(take(&q, 8192, &n, &len), "1,3") && !strcmp(take(&q, 8192, &n, &len), "2"),
	   "a write that overlaps nothing ahead of it joins past the ones it does not meet");

	push(&q, 1, 0, 512);
	push(&q, 2, 512, 512);
	push(&q, 3, 1024, 512);
	ok(!strcmp(take(&q, 1024, &n, &len), "1,2") && len == 1024 * KIB &&
	   !strcmp(take(&q, 1024, &n, &len), "3"),
	   "a run stops at the size asked for");

	push(&q, 1, 0, 512);
	push(&q, 2, 512, 512);
	push(&q, 3, 4096, 512);
	take(&q, 8192, &n, &len);
	writeq_put_back(&q, &items[2].q);
	push(&q, 4, 1024, 512);
	ok(!strcmp(take(&q, 8192, &n, &len), "3") && !strcmp(take(&q, 8192, &n, &len), "2,4") && !q.head,
	   "a run's rest put back goes behind the writes queued since, where the next piece joins it");

	push(&q, 1, 0, 512);
	push(&q, 2, 512, 512);
	push(&q, 3, 768, 512);
	take(&q, 8192, &n, &len);
	items[2].q.next = NULL;
	writeq_put_back(&q, &items[2].q);
	ok(!strcmp(take(&q, 8192, &n, &len), "2") && !strcmp(take(&q, 8192, &n, &len), "3") && !q.head,
	   "and at the front when a write queued overlaps it, so the later bytes stay last");

	writeq_put_back(&q, NULL);
	push(&q, 1, 0, 512);
	take(&q, 8192, &n, &len);
	writeq_put_back(&q, &items[1].q);
	ok(q.head == &items[1].q && q.tail == &items[1].q, "a rest put back into an empty queue is all of it");
	take(&q, 8192, &n, &len);

	ok(!writeq_peek_run(&q, 8192 * KIB, &len, &len), "an empty queue has no run to peek at");
	push(&q, 1, 512, 512);
	push(&q, 2, 0, 512);
	ok(writeq_peek_run(&q, 8192 * KIB, &lo, &hi) && lo == 0 && hi == 1024 * KIB && q.head == &items[1].q,
	   "a peek gives the run's bounds and leaves the queue as it was");
	take(&q, 8192, &n, &len);
	for (seed = 1; seed <= 200; seed++)
		all = all && replay_matches(seed, false);
	ok(all, "random writes taken as runs leave the latest bytes and lie where a peek said, "
		"200 replays against a model");
	for (seed = 1, all = true; seed <= 200; seed++)
		all = all && replay_matches(seed, true);
	ok(all, "and so do runs written in part, their rest put back, 200 replays");
	return tap_done();
}
