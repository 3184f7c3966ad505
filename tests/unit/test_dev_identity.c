/* dev_identify: one member is one id however its path is spelt, and two
 * files are two ids, even when their bytes are alike. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/dev.h"
#include "tap.h"

static char dir[] = "/tmp/test_dev_identity.XXXXXX";

static const char *at(const char *name)
{
	static char bufs[4][256];
	static int next;
	char *b = bufs[next++ % 4];

	snprintf(b, sizeof(bufs[0]), "%s/%s", dir, name);
	return b;
}

static void make_file(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd < 0 || write(fd, "same bytes", 10) != 10) {
		perror(path);
		exit(2);
	}
	close(fd);
}

/* Whether both paths can be looked at and name one member. */
static bool same(const char *a, const char *b)
{
	struct dev_id x, y;

	return dev_identify(a, &x) == 0 && dev_identify(b, &y) == 0 && dev_id_same(&x, &y);
}

int main(void)
{
	struct dev_id id;
	char dotted[300];

	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 2;
	}
	make_file(at("m0.img"));
	make_file(at("m1.img"));
	if (link(at("m0.img"), at("hard.img")) < 0 || symlink("m0.img", at("soft.img")) < 0) {
		perror("link");
		return 2;
	}
	snprintf(dotted, sizeof(dotted), "%s/./m0.img", dir);

	ok(same(at("m0.img"), at("m0.img")), "a path is its own member");
	ok(same(at("m0.img"), dotted), "a path through ./ is the same member");
	ok(same(at("m0.img"), at("hard.img")), "a hard link is the same member");
	ok(same(at("m0.img"), at("soft.img")), "a symbolic link is the same member");
	ok(!same(at("m0.img"), at("m1.img")), "two files with the same bytes are two members");
	ok(dev_identify(at("nope.img"), &id) < 0, "a path that does not exist cannot be identified");

	unlink(at("soft.img"));
	unlink(at("hard.img"));
	unlink(at("m1.img"));
	unlink(at("m0.img"));
	rmdir(dir);
	return tap_done();
}
