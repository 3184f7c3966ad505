/* readplan: planning a read as member runs, and splicing them to a pipe or
 * reading them into memory. */
#include <errno.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "raid/readplan.h"

int readplan_make(struct array *a, uint64_t off, size_t len, struct member_run *r, int max)
{
	int n, i;

	if ((off | len) % 512)
		return -1;
	n = stripe_member_runs(a, off, len, r, max);
	for (i = 0; i < n; i++)
		if (dev_read_faults(&r[i].member->dev, r[i].pos, r[i].len))
			return -1;
	return n;
}

int readplan_pipe(int fds[2], size_t bytes)
{
	if (pipe2(fds, O_CLOEXEC) < 0)
		return -1;
	if (fcntl(fds[1], F_SETPIPE_SZ, (int)bytes) < (int)bytes) {
		close(fds[0]);
		close(fds[1]);
		fds[0] = fds[1] = -1;
		return -1;
	}
	return 0;
}

int readplan_splice(int wfd, const struct member_run *r, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		loff_t pos = (loff_t)r[i].pos;
		size_t left = r[i].len;

		while (left > 0) {
			ssize_t got = splice(r[i].member->dev.fd, &pos, wfd, NULL, left, 0);

			if (got < 0 && errno == EINTR)
				continue;
			if (got <= 0)
				return -1;
			left -= (size_t)got;
		}
	}
	return 0;
}

int readplan_pread(void *buf, const struct member_run *r, int n)
{
	uint8_t *p = buf;
	int i;

	for (i = 0; i < n; i++) {
		uint64_t pos = r[i].pos;
		size_t left = r[i].len;

		while (left > 0) {
			ssize_t got = pread(r[i].member->dev.fd, p, left, (off_t)pos);

			if (got < 0 && errno == EINTR)
				continue;
			if (got <= 0)
				return -1;
			p += got;
			pos += (uint64_t)got;
			left -= (size_t)got;
		}
	}
	return 0;
}

int readplan_pipe_empty(int rfd)
{
	char junk[65536];
	int left;

	while (ioctl(rfd, FIONREAD, &left) == 0 && left > 0)
		if (read(rfd, junk, sizeof(junk)) <= 0)
			return -1;
	return 0;
}
