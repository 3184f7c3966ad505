/* test_spares: the spare buffers are made zeroed with the room asked for,
 * each given out once until it comes back, then given out again. */
#include <stdint.h>
#include <string.h>

#include "io/spares.h"
#include "tap.h"

#define BYTES 8192

static bool all_zero(const uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

int main(void)
{
	struct spares s;
	struct queued_write *w[3], *again;

	spares_make(&s, 3, BYTES);
	w[0] = spares_pop(&s);
	w[1] = spares_pop(&s);
	w[2] = spares_pop(&s);
	ok(w[0] && w[1] && w[2] && w[0] != w[1] && w[1] != w[2] && w[0] != w[2],
	   "three spares made are three buffers");
	ok(spares_pop(&s) == NULL, "a fourth is not there while the three are out");
	ok(s.bytes == BYTES && all_zero(w[0]->data, BYTES) && all_zero(w[2]->data, BYTES),
	   "each has the room asked for, zeroed");
	memset(w[1]->data, 0xa5, BYTES);
	spares_put(&s, w[1]);
	again = spares_pop(&s);
	ok(again == w[1] && again->data[BYTES - 1] == 0xa5, "a buffer put back is given out again, as it was left");
	ok(spares_pop(&s) == NULL, "and then none is left");
	spares_put(&s, w[0]);
	spares_put(&s, w[1]);
	spares_put(&s, w[2]);
	spares_free(&s);
	ok(s.free == NULL, "freed, none is left to give");
	return tap_done();
}
