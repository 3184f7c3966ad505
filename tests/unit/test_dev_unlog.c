/* test_dev_unlog: what a repair rewrote leaves the ranges a member's
 * bad-block log makes unreadable: trimmed, split or gone. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/dev.h"
#include "tap.h"

static char path[] = "/tmp/test_dev_unlog.XXXXXX";

/* A member of 64 KiB whose log names [4096, 12288) and [20480, 24576). */
static void open_logged(struct dev *dv)
{
	static const struct dev_range logged[] = { { 4096, 8192 }, { 20480, 4096 } };
	struct diag d = { 0 };
	int fd = mkstemp(path);

	if (fd < 0 || ftruncate(fd, 65536) < 0 || close(fd) < 0 || dev_open(dv, path, DEV_READ, &d) < 0 ||
	    dev_set_logged(dv, logged, 2, &d) < 0) {
		printf("Bail out! %s\n", d.msg[0] ? d.msg : path);
		exit(1);
	}
}

static bool is(const struct dev *dv, int n, const struct dev_range *want)
{
	return dv->nlogged == n && !memcmp(dv->logged, want, (size_t)n * sizeof(*want));
}

int main(void)
{
	struct diag d = { 0 };
	uint8_t page[4096];
	struct dev dv;

	open_logged(&dv);
	ok(dev_logged(&dv, 8192, 4096) && !dev_logged(&dv, 12288, 8192), "dev_logged tells the logged bytes from the rest");
	ok(dev_unlog(&dv, 8192, 4096, &d) == 0 && is(&dv, 2, (struct dev_range[]){ { 4096, 4096 }, { 20480, 4096 } }),
	   "a rewrite of a range's end trims it");
	ok(dev_read(&dv, page, 4096, 8192, &d) == 0, "the rewritten bytes read again");
	ok(dev_read(&dv, page, 4096, 4096, &d) < 0 && strstr(d.msg, "bad-block log"),
	   "the bytes still logged are refused, naming the log");
	ok(dev_unlog(&dv, 20480, 4096, &d) == 0 && is(&dv, 1, (struct dev_range[]){ { 4096, 4096 } }),
	   "a rewrite of a whole range takes it away");
	dev_close(&dv);
	unlink(path);

	strcpy(path, "/tmp/test_dev_unlog.XXXXXX");
	open_logged(&dv);
	ok(dev_unlog(&dv, 6144, 2048, &d) == 0 &&
	   is(&dv, 3, (struct dev_range[]){ { 4096, 2048 }, { 8192, 4096 }, { 20480, 4096 } }),
	   "a rewrite inside a range splits it in two, in order");
	ok(dev_unlog(&dv, 0, 65536, &d) == 0 && dv.nlogged == 0, "a rewrite of everything leaves nothing logged");
	dev_close(&dv);
	unlink(path);
	return tap_done();
}
