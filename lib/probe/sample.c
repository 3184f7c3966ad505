/* sample: the members opened read-only and the windows the probe reads from
 * them: the head, where data offsets lie, and a spread over the rest. */
#include <stdlib.h>
#include <string.h>

#include "io/memberio.h"
#include "probe/probe.h"

#define WINDOW (1u << 20)
#define HEAD (3u << 20)              /* covers data offsets 0, 2048 and 4096 sectors */
#define MDADM_BIG_OFFSET (128ull << 20)

static int open_one(struct probe_member *m, const char *path, struct diag *d)
{
	memset(m, 0, sizeof(*m));
	m->dev.fd = -1;
	if (strcmp(path, "missing") == 0)
		return 0;
	m->path = path;
	if (dev_open(&m->dev, path, DEV_READ, d) < 0)
		return -1;
	m->sectors = m->dev.size / 512;
	/* No superblock is the case the probe is for: not an error. */
	m->has_super = super_load(&m->dev, &m->sb, NULL) == 0;
	return 0;
}

static int refuse_twice(char *const *paths, int n, struct diag *d)
{
	struct dev_id id[ST_MAX_DISKS];

	for (int i = 0; i < n; i++) {
		if (strcmp(paths[i], "missing") == 0)
			continue;
		if (dev_identify(paths[i], &id[i]) < 0)
			return diag_fail(d, "%s: cannot be looked at: %m", paths[i]);
		for (int j = 0; j < i; j++)
			if (strcmp(paths[j], "missing") != 0 && dev_id_same(&id[i], &id[j]))
				return diag_fail(d, "%s and %s are the same member, given twice", paths[j],
						 paths[i]);
	}
	return 0;
}

int probe_members_open(char *const *paths, int n, struct probe_member *m, struct diag *d)
{
	if (n < 1 || n > ST_MAX_DISKS)
		return diag_fail(d, "%d members given; the probe takes 1 to %d", n, ST_MAX_DISKS);
	if (refuse_twice(paths, n, d) < 0)
		return -1;
	for (int i = 0; i < n; i++)
		if (open_one(&m[i], paths[i], d) < 0) {
			probe_members_close(m, i);
			return -1;
		}
	return 0;
}

void probe_members_close(struct probe_member *m, int n)
{
	for (int i = 0; i < n; i++)
		if (m[i].dev.fd >= 0)
			dev_close(&m[i].dev);
}

static uint64_t smallest_member(const struct probe_member *m, int n)
{
	uint64_t least = UINT64_MAX;

	for (int i = 0; i < n; i++)
		if (m[i].path && m[i].dev.size < least)
			least = m[i].dev.size;
	return least == UINT64_MAX ? 0 : least;
}

uint64_t probe_smallest_member(const struct probe_sample *s)
{
	return smallest_member(s->members, s->nmembers);
}

static int add_window(struct probe_sample *s, uint64_t off, size_t len, struct diag *d)
{
	struct probe_window *w = &s->windows[s->nwindows];

	memset(w, 0, sizeof(*w));
	w->offset = off;
	w->len = len;
	for (int i = 0; i < s->nmembers; i++) {
		struct probe_member *m = &s->members[i];
		if (!m->path)
			continue;
		w->buf[i] = malloc(len);
		if (!w->buf[i])
			return diag_fail(d, "out of memory for the sample");
		if (member_read(&m->dev, w->buf[i], len, off, d) < 0) {
			free(w->buf[i]);
			w->buf[i] = NULL;
			return -1;
		}
	}
	s->nwindows++;
	s->bytes_read += len;
	if (s->progress)
		progress_update(s->progress, s->bytes_read);
	return 0;
}

/* Window starts: the head, mdadm's large offset, then every step'th MiB. */
static int plan(uint64_t size, uint64_t budget, uint64_t *start, size_t *len, int max)
{
	int k = 0;
	uint64_t head = size < HEAD ? size : HEAD;

	if (head) {
		start[k] = 0;
		len[k++] = head;
	}
	if (size >= MDADM_BIG_OFFSET + WINDOW && budget > HEAD + WINDOW) {
		start[k] = MDADM_BIG_OFFSET;
		len[k++] = WINDOW;
	}
	uint64_t spent = head + (k > 1 ? WINDOW : 0);
	if (size <= HEAD + WINDOW || budget <= spent)
		return k;
	uint64_t left = (budget - spent) / WINDOW;
	uint64_t room = (size - HEAD) / WINDOW;      /* whole MiB after the head */
	if (left > room)
		left = room;
	for (uint64_t i = 0; i < left && k < max; i++) {
		uint64_t at = HEAD + (room * (2 * i + 1) / (2 * left)) * WINDOW;
		if (at + WINDOW > size || (at < MDADM_BIG_OFFSET + WINDOW && at + WINDOW > MDADM_BIG_OFFSET &&
					   k > 1 && start[1] == MDADM_BIG_OFFSET))
			continue;
		start[k] = at;
		len[k++] = WINDOW;
	}
	return k;
}

int probe_sample_read(struct probe_sample *s, struct probe_member *m, int n, uint64_t budget,
		      struct diag *d)
{
	return probe_sample_read_shown(s, m, n, budget, NULL, d);
}

int probe_sample_read_shown(struct probe_sample *s, struct probe_member *m, int n, uint64_t budget,
			    struct progress *shown, struct diag *d)
{
	enum { MAX_WINDOWS = 1024 };
	uint64_t start[MAX_WINDOWS];
	size_t len[MAX_WINDOWS];

	memset(s, 0, sizeof(*s));
	s->progress = shown;
	s->members = m;
	s->nmembers = n;
	int k = plan(smallest_member(m, n), budget, start, len, MAX_WINDOWS);
	s->windows = calloc((size_t)(k ? k : 1), sizeof(*s->windows));
	if (!s->windows)
		return diag_fail(d, "out of memory for the sample");
	for (int i = 0; i < k; i++)
		if (add_window(s, start[i], len[i], d) < 0) {
			probe_sample_free(s);
			return -1;
		}
	return 0;
}

void probe_sample_free(struct probe_sample *s)
{
	for (int w = 0; w < s->nwindows; w++)
		for (int i = 0; i < s->nmembers; i++)
			free(s->windows[w].buf[i]);
	free(s->windows);
	s->windows = NULL;
	s->nwindows = 0;
}

const uint8_t *probe_sample_at(const struct probe_sample *s, int i, uint64_t off, size_t len)
{
	for (int w = 0; w < s->nwindows; w++) {
		const struct probe_window *win = &s->windows[w];
		if (win->buf[i] && off >= win->offset && off + len <= win->offset + win->len)
			return win->buf[i] + (off - win->offset);
	}
	return NULL;
}

int probe_read(struct probe_sample *s, int i, void *buf, size_t len, uint64_t off, struct diag *d)
{
	struct probe_member *m = &s->members[i];

	if (!m->path)
		return diag_fail(d, "member %d is missing: nothing to read", i);
	if (off > m->dev.size || len > m->dev.size - off)
		return diag_fail(d, "%s: %zu bytes at %llu lie beyond its end (%llu bytes)", m->path, len,
				 (unsigned long long)off, (unsigned long long)m->dev.size);
	const uint8_t *held = probe_sample_at(s, i, off, len);

	if (held) {
		memcpy(buf, held, len);
		return 0;
	}
	s->bytes_read += len;
	return member_read(&m->dev, buf, len, off, d);
}

int probe_absent(const struct probe_sample *s, int raid_disks)
{
	int absent = raid_disks > s->nmembers ? raid_disks - s->nmembers : 0;

	for (int i = 0; i < s->nmembers; i++)
		absent += !s->members[i].path;
	return absent;
}
