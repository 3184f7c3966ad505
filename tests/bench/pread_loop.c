/* pread_loop: the I/O alone, no benchmark's bookkeeping around it: reads a
 * file front to back in blocks of BS with pread(2) and prints the rate in
 * bytes per second; bench_stripe_bench sets it beside stripe-bench and fio.
 * With O_DIRECT its buffer is in huge pages, as the two tools' are there. */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "io/dev.h"

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	bool direct = argc == 4 && strcmp(argv[3], "direct") == 0;
	uint64_t total = 0, t0, ns;
	size_t bs;
	ssize_t n;
	void *buf;
	int fd;

	if (argc < 3 || argc > 4 || (argc == 4 && !direct) || (bs = strtoul(argv[2], NULL, 10)) == 0) {
		fprintf(stderr, "usage: pread_loop FILE BLOCK_BYTES [direct]\n");
		return 2;
	}
	if ((fd = open(argv[1], O_RDONLY | O_CLOEXEC | (direct ? O_DIRECT : 0))) < 0) {
		fprintf(stderr, "pread_loop: %s: %s\n", argv[1], strerror(errno));
		return 2;
	}
	buf = direct ? dev_alloc_huge(bs) : dev_alloc(bs);
	t0 = now_ns();
	while ((n = pread(fd, buf, bs, (off_t)total)) > 0)
		total += (uint64_t)n;
	ns = now_ns() - t0;
	if (n < 0) {
		fprintf(stderr, "pread_loop: %s: read at byte %llu: %s\n", argv[1], (unsigned long long)total,
			strerror(errno));
		return 2;
	}
	printf("%.0f\n", ns ? (double)total * 1e9 / (double)ns : 0.0);
	free(buf);
	close(fd);
	return 0;
}
