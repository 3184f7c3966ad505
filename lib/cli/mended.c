/* mended: the read errors a data tool read around, said a run at a time
 * (the engine tells of each page; a line per page would bury the rest). */
#include <stdio.h>

#include "cli/mended.h"

void cli_mended_flush(struct cli_mended *md)
{
	if (md->len && !md->quiet)
		fprintf(stderr, "%s: %s: read error at bytes %llu-%llu (%llu bytes); rebuilt from the other members\n",
			md->tool, md->m->path, (unsigned long long)md->start,
			(unsigned long long)(md->start + md->len - 1), (unsigned long long)md->len);
	md->len = 0;
}

void cli_mended_note(void *ctx, const struct member *m, uint64_t offset, size_t len)
{
	struct cli_mended *md = ctx;

	if (md->len && (m != md->m || offset != md->start + md->len))
		cli_mended_flush(md);
	if (!md->len) {
		md->m = m;
		md->start = offset;
	}
	md->len += len;
	md->bytes += len;
}
