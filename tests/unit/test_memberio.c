/* test_memberio: a member's batch read finding its unreadable pages
 * through the fault hook, with and without chunks left out. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/memberio.h"
#include "tap.h"

#define LEN (16 * MEMBER_PAGE)

static char path[] = "/tmp/test_memberio.XXXXXX";
static uint8_t want[LEN];

static void open_member(struct dev *dv)
{
	struct diag d = { 0 };
	int fd = mkstemp(path);

	for (size_t i = 0; i < LEN; i++)
		want[i] = (uint8_t)(i * 7 + i / MEMBER_PAGE);
	if (fd < 0 || write(fd, want, LEN) != LEN || close(fd) < 0 || dev_open(dv, path, DEV_READ, &d) < 0) {
		printf("Bail out! %s\n", d.msg[0] ? d.msg : path);
		exit(1);
	}
}

static int count(const uint8_t *bad)
{
	int n = 0;

	for (int i = 0; i < LEN / MEMBER_PAGE; i++)
		n += bad[i];
	return n;
}

int main(void)
{
	struct dev dv;
	uint8_t *buf = dev_alloc(LEN), bad[LEN / MEMBER_PAGE], zero[MEMBER_PAGE] = { 0 };
	bool skip[4] = { false, true, false, false };
	struct member_io io;

	open_member(&dv);
	dv.faults[dv.nfaults++] = (struct dev_range){ 5 * MEMBER_PAGE + 100, 10 };

	io = (struct member_io){ .dev = &dv, .buf = buf, .len = LEN, .off = 0 };
	member_io_run(&io);
	ok(io.rc < 0 && strstr(io.d.msg, path), "a read without bad fails on an unreadable page, naming the member");

	memset(bad, 7, sizeof(bad));
	io = (struct member_io){ .dev = &dv, .buf = buf, .len = LEN, .off = 0, .bad = bad };
	member_io_run(&io);
	ok(io.rc == 0 && io.bad_pages == 1 && bad[5] && count(bad) == 1,
	   "a read with bad succeeds and flags the one page the fault touches");
	ok(!memcmp(buf + 5 * MEMBER_PAGE, zero, MEMBER_PAGE) && !memcmp(buf, want, 5 * MEMBER_PAGE) &&
	   !memcmp(buf + 6 * MEMBER_PAGE, want + 6 * MEMBER_PAGE, LEN - 6 * MEMBER_PAGE),
	   "the unreadable page reads as zeroes and every other page as the member holds it");

	memset(bad, 7, sizeof(bad));
	io = (struct member_io){ .dev = &dv, .buf = buf, .len = LEN, .off = 0, .bad = bad,
				 .skip = skip, .chunk = LEN / 4 };
	member_io_run(&io);
	ok(io.rc == 0 && io.bad_pages == 0 && count(bad) == 0,
	   "a chunk left out is not read, so its unreadable page is not found");
	skip[1] = false;
	skip[0] = true;
	member_io_run(&io);
	ok(io.rc == 0 && io.bad_pages == 1 && bad[5], "a wanted chunk's unreadable page is found with others left out");

	/* a range ending inside a page whose tail the fault touches */
	dv.faults[dv.nfaults++] = (struct dev_range){ 15 * MEMBER_PAGE + 10, 10 };
	memset(bad, 7, sizeof(bad));
	memset(buf, 0xee, LEN);
	io = (struct member_io){ .dev = &dv, .buf = buf, .len = 2 * MEMBER_PAGE + 512,
				 .off = 13 * MEMBER_PAGE, .bad = bad };
	member_io_run(&io);
	ok(io.rc == 0 && io.bad_pages == 0 && !bad[0] && !bad[1] && bad[2] == 7,
	   "a range not in whole pages flags whole pages only, and no flag past its own");
	ok(!memcmp(buf, want + 13 * MEMBER_PAGE, 2 * MEMBER_PAGE) && !memcmp(buf + 2 * MEMBER_PAGE, zero, 512) &&
	   buf[2 * MEMBER_PAGE + 512] == 0xee,
	   "its whole pages read as the member holds them, its failed tail as zeroes, nothing past it");

	{
		struct diag d = { 0 };

		ok(member_read(&dv, buf, 5 * MEMBER_PAGE, 0, &d) == 0 && !memcmp(buf, want, 5 * MEMBER_PAGE),
		   "member_read gives a range the member can read as it holds it");
		ok(member_read(&dv, buf, 2 * MEMBER_PAGE, 4 * MEMBER_PAGE, &d) < 0 && strstr(d.msg, path),
		   "member_read fails on a range with an unreadable page, naming the member");
	}

	dev_close(&dv);
	unlink(path);
	free(buf);
	return tap_done();
}
