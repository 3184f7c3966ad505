/* spares: a free list of write buffers, made and touched once. */
#include <stdlib.h>
#include <string.h>

#include "io/dev.h"
#include "io/spares.h"

int spares_make(struct spares *s, int n, size_t bytes)
{
	int i;

	s->free = NULL;
	s->bytes = bytes;
	for (i = 0; i < n; i++) {
		struct queued_write *w = dev_alloc(sizeof(*w) + bytes);

		if (!w)
			return -1;
		memset(w, 0, sizeof(*w) + bytes);
		spares_put(s, w);
	}
	return 0;
}

struct queued_write *spares_pop(struct spares *s)
{
	struct queued_write *w = s->free;

	if (w)
		s->free = queued_write_of(w->q.next);
	return w;
}

void spares_put(struct spares *s, struct queued_write *w)
{
	w->q.next = s->free ? &s->free->q : NULL;
	s->free = w;
}

void spares_free(struct spares *s)
{
	struct queued_write *w;

	while ((w = spares_pop(s)))
		free(w);
}
