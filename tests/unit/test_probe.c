/* test_probe: the write guards on image files in a temp dir: blank passes,
 * ext4, a dos partition table and a real md member are refused unless forced
 * (md also with ignore_md), a directory and a missing path fail; as root, a
 * loop device held exclusively or mounted is refused even with force, both by
 * its own path and by its backing file's. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "io/probe.h"
#include "tap.h"

static char tmp[256];

static void path_in_tmp(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", tmp, name);
}

static int blank_file(const char *path, off_t size)
{
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	int rc;

	if (fd < 0)
		return -1;
	rc = ftruncate(fd, size);
	close(fd);
	return rc;
}

static int copy_file(const char *from, const char *to)
{
	char buf[65536];
	int in = open(from, O_RDONLY | O_CLOEXEC), out;
	ssize_t n = 0;

	if (in < 0)
		return -1;
	out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (out < 0) {
		close(in);
		return -1;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n) {
			n = -1;
			break;
		}
	close(in);
	close(out);
	return n < 0 ? -1 : 0;
}

/* Runs a shell command quietly; 0 when it exited 0. */
static int run(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int run(const char *fmt, ...)
{
	char cmd[1024];
	va_list ap;
	int st;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	st = system(cmd);
	return st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

/* ": message" when a call left one, for the end of a check's text. */
#define WHY(d) (d).msg[0] ? ": " : "", (d).msg

static bool has(const struct diag *d, const char *word)
{
	return strstr(d->msg, word) != NULL;
}

/* One refusal check: rc, and the message names the path and every word. */
static void refused(const char *what, const char *path, bool force, bool ignore_md,
		    const char *w1, const char *w2)
{
	struct diag d = { 0 };
	int rc = probe_refuse(path, force, ignore_md, &d);

	ok(rc == -1 && strncmp(d.msg, path, strlen(path)) == 0 &&
	   (!w1 || has(&d, w1)) && (!w2 || has(&d, w2)),
	   "%s is refused (force=%d ignore_md=%d): %s", what, force, ignore_md, d.msg);
}

static void passes(const char *what, const char *path, bool force, bool ignore_md)
{
	struct diag d = { 0 };
	int rc = probe_refuse(path, force, ignore_md, &d);

	ok(rc == 0, "%s passes (force=%d ignore_md=%d)%s%s", what, force, ignore_md,
	   rc ? ": " : "", rc ? d.msg : "");
}

static void test_blank(void)
{
	struct probe_result r;
	struct diag d = { 0 };
	char path[512];

	path_in_tmp(path, sizeof(path), "blank.img");
	if (blank_file(path, 8 << 20) < 0) {
		ok(0, "create %s: %s", path, strerror(errno));
		return;
	}
	ok(probe_member(path, &r, &d) == 0 && !r.mounted && !r.busy && !r.has_signature &&
	   !r.what[0], "blank file: nothing found%s%s", WHY(d));
	passes("blank file", path, false, false);
}

static void test_ext4(void)
{
	struct probe_result r;
	struct diag d = { 0 };
	char path[512];

	path_in_tmp(path, sizeof(path), "ext4.img");
	if (blank_file(path, 8 << 20) < 0 ||
	    run("mkfs.ext4 -q -F -L probetest -U 0e1f2a3b-4c5d-4e6f-8a9b-0c1d2e3f4a5b '%s' >/dev/null 2>&1",
		path) < 0) {
		skip("mkfs.ext4 not available or failed");
		return;
	}
	ok(probe_member(path, &r, &d) == 0 && r.has_signature && !r.mounted && !r.busy &&
	   strstr(r.what, "ext4 filesystem") &&
	   strstr(r.what, "UUID 0e1f2a3b-4c5d-4e6f-8a9b-0c1d2e3f4a5b") &&
	   strstr(r.what, "label probetest"), "ext4 file: what = \"%s\"", r.what);
	refused("ext4 file", path, false, false, "carries an ext4 filesystem", "--force");
	refused("ext4 file", path, false, true, "ext4", NULL);
	passes("ext4 file", path, true, false);
}

static void test_dos(void)
{
	uint8_t mbr[512] = { 0 };
	struct probe_result r;
	struct diag d = { 0 };
	char path[512];
	int fd;

	path_in_tmp(path, sizeof(path), "dos.img");
	/* Disk id, then one Linux partition from sector 2048 to the end of 8 MiB. */
	mbr[440] = 0x78; mbr[441] = 0x56; mbr[442] = 0x34; mbr[443] = 0x12;
	mbr[446 + 4] = 0x83;
	mbr[446 + 8] = 0x00; mbr[446 + 9] = 0x08;                     /* LBA 2048 */
	mbr[446 + 12] = 0x00; mbr[446 + 13] = 0x38;                   /* 14336 sectors */
	mbr[510] = 0x55; mbr[511] = 0xaa;
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || ftruncate(fd, 8 << 20) < 0 || pwrite(fd, mbr, sizeof(mbr), 0) != sizeof(mbr)) {
		ok(0, "create %s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return;
	}
	close(fd);
	ok(probe_member(path, &r, &d) == 0 && r.has_signature &&
	   strstr(r.what, "dos partition table"), "dos file: what = \"%s\"", r.what);
	refused("dos partition table", path, false, false, "partition", "dos");
	refused("dos partition table", path, false, true, "partition", NULL);
	passes("dos partition table", path, true, false);
}

static void test_md(void)
{
	const char *fix = getenv("STRIPE_FIXTURES");
	char from[4096], path[512];
	struct probe_result r;
	struct diag d = { 0 };

	if (!fix || !fix[0]) {
		skip("STRIPE_FIXTURES not set: no md member to copy");
		return;
	}
	snprintf(from, sizeof(from), "%s/r5-4d-64k-ls-1.2/member0.img", fix);
	path_in_tmp(path, sizeof(path), "member0.img");
	if (copy_file(from, path) < 0) {
		skip("cannot copy %s: %s", from, strerror(errno));
		return;
	}
	ok(probe_member(path, &r, &d) == 0 && r.has_signature &&
	   strstr(r.what, "linux_raid_member (md superblock"), "md member: what = \"%s\"", r.what);
	refused("md member", path, false, false, "linux_raid_member", "--force");
	passes("md member", path, true, false);
	passes("md member", path, false, true);

	/* A 1.0 RAID1 member carries the array's filesystem at offset 0 and the
	 * md superblock at the end: ignore_md accepts it, as the data is the array's. */
	snprintf(from, sizeof(from), "%s/r1-2d-1.0/member0.img", fix);
	path_in_tmp(path, sizeof(path), "r1-member0.img");
	if (copy_file(from, path) < 0 ||
	    run("mkfs.ext4 -q -F '%s' 2M >/dev/null 2>&1", path) < 0) {
		skip("cannot make a 1.0 member with a filesystem from %s", from);
		return;
	}
	d.msg[0] = 0;
	ok(probe_member(path, &r, &d) == 0 && strstr(r.what, "linux_raid_member") &&
	   strstr(r.what, "ext4 filesystem"), "1.0 member with ext4: what = \"%s\"", r.what);
	refused("1.0 member with ext4", path, false, false, "linux_raid_member", " and an ext4 filesystem");
	passes("1.0 member with ext4", path, false, true);
}

static void test_not_members(void)
{
	struct probe_result r;
	struct diag d = { 0 };
	char path[512];

	ok(probe_refuse(tmp, true, true, &d) == -1 && strncmp(d.msg, tmp, strlen(tmp)) == 0 &&
	   has(&d, "directory"), "a directory fails: %s", d.msg);
	path_in_tmp(path, sizeof(path), "no-such.img");
	d.msg[0] = 0;
	ok(probe_refuse(path, true, true, &d) == -1 && strncmp(d.msg, path, strlen(path)) == 0 &&
	   has(&d, "No such file"), "a missing path fails: %s", d.msg);
	d.msg[0] = 0;
	ok(probe_member(path, &r, &d) == -1 && has(&d, path),
	   "probe_member on a missing path fails: %s", d.msg);
	d.msg[0] = 0;
	ok(probe_refuse("/dev/null", true, true, &d) == -1 && has(&d, "/dev/null") &&
	   has(&d, "not a regular file or block device"), "a character device fails: %s", d.msg);
}

/* The root-only part runs in a child that reports "1 text" / "0 text"
 * lines; the parent turns them into TAP and cleans up whatever happens. */
static FILE *report;

static void child_ok(bool cond, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void child_ok(bool cond, const char *fmt, ...)
{
	char line[900];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	for (char *nl = line; (nl = strchr(nl, '\n')); )
		*nl = ' ';
	fprintf(report, "%d %s\n", cond ? 1 : 0, line);
	fflush(report);
}

static void child_refused(const char *what, const char *path, const char *word)
{
	struct diag d = { 0 };
	int rc = probe_refuse(path, true, true, &d);

	child_ok(rc == -1 && strncmp(d.msg, path, strlen(path)) == 0 && has(&d, word) &&
		 has(&d, "even with --force"), "%s is refused even with force: %s", what, d.msg);
}

static void child_checks(const char *loop, const char *file, const char *mnt)
{
	struct probe_result r;
	struct diag d = { 0 };
	int fd;

	/* Attached but idle: only the ext4 signature stands in the way. */
	d.msg[0] = 0;
	child_ok(probe_refuse(loop, true, false, &d) == 0, "idle %s passes with force%s%s", loop, WHY(d));
	d.msg[0] = 0;
	child_ok(probe_refuse(loop, false, false, &d) == -1 && has(&d, "ext4"),
		 "idle %s is refused without force: %s", loop, d.msg);
	d.msg[0] = 0;
	child_ok(probe_refuse(file, true, false, &d) == 0,
		 "file behind idle %s passes with force%s%s", loop, WHY(d));

	/* Held exclusively by someone else (here: this process). */
	fd = open(loop, O_RDONLY | O_EXCL | O_CLOEXEC);
	if (fd < 0) {
		child_ok(false, "exclusive open of %s: %s", loop, strerror(errno));
	} else {
		d.msg[0] = 0;
		child_ok(probe_member(loop, &r, &d) == 0 && r.busy && !r.mounted,
			 "held %s: busy%s%s", loop, WHY(d));
		child_refused("held loop device", loop, "in use");
		child_refused("file behind held loop device", file, "in use");
		close(fd);
	}

	if (run("mount -t ext4 '%s' '%s' >/dev/null 2>&1", loop, mnt) < 0) {
		fprintf(report, "S mount %s on %s failed\n", loop, mnt);
		fflush(report);
		return;
	}
	d.msg[0] = 0;
	child_ok(probe_member(loop, &r, &d) == 0 && r.mounted && r.busy && strcmp(r.where, mnt) == 0,
		 "mounted %s: mounted on \"%s\"%s%s", loop, r.where, WHY(d));
	d.msg[0] = 0;
	child_ok(probe_member(file, &r, &d) == 0 && r.mounted && strcmp(r.where, mnt) == 0,
		 "file behind mounted %s: mounted on \"%s\"%s%s", loop, r.where, WHY(d));
	child_refused("mounted loop device", loop, "mounted on");
	child_refused("file behind mounted loop device", file, "mounted on");
	child_refused("file behind mounted loop device", file, loop);
}

static void test_mounted(void)
{
	char file[512], mnt[512], loop[64] = "", line[1024];
	int pfd[2], st;
	pid_t pid;
	FILE *f, *in;

	if (geteuid() != 0) {
		skip("not root: no loop devices or mounts");
		return;
	}
	path_in_tmp(file, sizeof(file), "loop-ext4.img");
	path_in_tmp(mnt, sizeof(mnt), "mnt");
	if (blank_file(file, 8 << 20) < 0 || mkdir(mnt, 0755) < 0 ||
	    run("mkfs.ext4 -q -F '%s' >/dev/null 2>&1", file) < 0) {
		skip("cannot prepare an ext4 image for the loop device");
		return;
	}
	snprintf(line, sizeof(line), "losetup -f --show '%s' 2>/dev/null", file);
	f = popen(line, "r");
	if (!f || !fgets(loop, sizeof(loop), f) || strncmp(loop, "/dev/loop", 9) != 0) {
		if (f)
			pclose(f);
		skip("losetup failed: no loop device");
		return;
	}
	pclose(f);
	loop[strcspn(loop, "\n")] = 0;

	fflush(stdout);
	if (pipe(pfd) < 0 || (pid = fork()) < 0) {
		ok(0, "pipe/fork: %s", strerror(errno));
		goto cleanup;
	}
	if (pid == 0) {
		close(pfd[0]);
		report = fdopen(pfd[1], "w");
		if (!report)
			_exit(3);
		child_checks(loop, file, mnt);
		fclose(report);
		_exit(0);
	}
	close(pfd[1]);
	in = fdopen(pfd[0], "r");
	while (in && fgets(line, sizeof(line), in)) {
		line[strcspn(line, "\n")] = 0;
		if (line[0] == 'S')
			skip("%s", line + 2);
		else
			ok(line[0] == '1', "%s", line + 2);
	}
	if (in)
		fclose(in);
	else
		close(pfd[0]);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	ok(WIFEXITED(st) && WEXITSTATUS(st) == 0, "root checks ran to the end (status 0x%x)", st);
cleanup:
	/* Whatever happened above: unmount (if mounted) and detach. */
	if (umount2(mnt, 0) < 0 && errno != EINVAL)
		umount2(mnt, MNT_DETACH);
	ok(run("losetup -d '%s'", loop) == 0, "detached %s", loop);
	rmdir(mnt);
}

int main(void)
{
	const char *base = getenv("TMPDIR");

	setvbuf(stdout, NULL, _IOLBF, 0);
	snprintf(tmp, sizeof(tmp), "%s/test_probe.XXXXXX", base && base[0] ? base : "/tmp");
	if (!mkdtemp(tmp)) {
		printf("Bail out! mkdtemp %s: %s\n", tmp, strerror(errno));
		return 1;
	}
	test_blank();
	test_ext4();
	test_dos();
	test_md();
	test_not_members();
	test_mounted();
	run("rm -rf '%s'", tmp);
	return tap_done();
}
