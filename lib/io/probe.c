/* probe: what stands in the way of writing to a member.  Mounts and swap come
 * from libmount (/proc/self/mountinfo, /proc/swaps), holders from sysfs,
 * exclusive use from an O_EXCL open, signatures from libblkid's low-level
 * probing of every superblock and partition table it knows.  A regular file
 * is also looked at through every loop device it backs. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/loop.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <blkid.h>
#include <malloc.h>
#include <pthread.h>
#include <libmount.h>

#include "io/dev.h"
#include "io/probe.h"

/* Everything one look at a path found; probe_member publishes the summary,
 * probe_refuse words its message from the details. */
struct scan {
	const char *path;
	struct probe_result *r;
	struct libmnt_table *mounts;
	struct libmnt_table *swaps;
	bool swap;                   /* mounted means "in use as swap" */
	bool busy_excl;              /* busy because an O_EXCL open was refused */
	bool locked;                 /* a regular file another writer holds an flock on */
	bool has_md;                 /* a linux_raid_member signature is among the signatures */
	char mount_via[96];          /* loop device or partition the mount goes through */
	char busy_via[96];           /* loop device the busy claim sits on */
	char sigs[256];              /* the signatures with articles, for messages */
	char found[8][200];          /* each signature's description */
	int nfound;
};

/* Appends to a fixed buffer, truncating quietly. */
static void append(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void append(char *buf, size_t len, const char *fmt, ...)
{
	size_t used = strnlen(buf, len);
	va_list ap;

	if (used + 1 >= len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + used, len - used, fmt, ap);
	va_end(ap);
}

static int parse_devno(const char *s, dev_t *devno)
{
	unsigned int ma, mi;

	if (sscanf(s, "%u:%u", &ma, &mi) != 2)
		return -1;
	*devno = makedev(ma, mi);
	return 0;
}

/* The whole disk a partition belongs to; -1 when devno is not a partition. */
static int partition_parent(dev_t devno, dev_t *parent)
{
	char link[64], real[PATH_MAX], file[PATH_MAX + 16], line[32];
	struct stat st;
	char *slash;

	snprintf(link, sizeof(link), "/sys/dev/block/%u:%u", major(devno), minor(devno));
	snprintf(file, sizeof(file), "%s/partition", link);
	if (stat(file, &st) < 0 || !realpath(link, real))
		return -1;
	slash = strrchr(real, '/');
	if (!slash)
		return -1;
	*slash = 0;
	snprintf(file, sizeof(file), "%s/dev", real);
	if (dev_sysfs_line(file, line, sizeof(line)) < 0)
		return -1;
	return parse_devno(line, parent);
}

/* The kernel's name for a block device (sda1, loop3p1), for messages. */
static void devno_name(dev_t devno, char *buf, size_t len)
{
	char link[64], real[PATH_MAX];
	const char *slash;

	snprintf(link, sizeof(link), "/sys/dev/block/%u:%u", major(devno), minor(devno));
	if (realpath(link, real) && (slash = strrchr(real, '/')))
		snprintf(buf, len, "%s", slash + 1);
	else
		snprintf(buf, len, "%u:%u", major(devno), minor(devno));
}

static int load_tables(struct scan *s, struct diag *d)
{
	s->mounts = mnt_new_table_from_file("/proc/self/mountinfo");
	if (!s->mounts)
		return diag_fail(d, "%s: cannot read the mount table (/proc/self/mountinfo)", s->path);
	s->swaps = mnt_new_table();
	if (!s->swaps)
		return diag_fail(d, "%s: out of memory", s->path);
	/* No /proc/swaps (no swap support) simply means no swap in use. */
	mnt_table_parse_swaps(s->swaps, NULL);
	return 0;
}

/* Is the block device devno, or one of its partitions, mounted or swap?
 * via names the path the mount goes through ("" when it is devno itself). */
static bool blockdev_mounted(struct scan *s, dev_t devno, const char *via)
{
	struct libmnt_iter *it = mnt_new_iter(MNT_ITER_FORWARD);
	struct libmnt_fs *fs;
	bool found = false;

	if (!it)
		return false;
	while (!found && mnt_table_next_fs(s->mounts, it, &fs) == 0) {
		const char *src = mnt_fs_get_source(fs);
		dev_t fsdev = mnt_fs_get_devno(fs), parent;
		struct stat st;

		/* btrfs and friends show an anonymous devno; the source path still names the device. */
		if ((fsdev == 0 || major(fsdev) == 0) && src && src[0] == '/' &&
		    stat(src, &st) == 0 && S_ISBLK(st.st_mode))
			fsdev = st.st_rdev;
		if (fsdev == 0)
			continue;
		if (fsdev == devno) {
			snprintf(s->mount_via, sizeof(s->mount_via), "%s", via);
		} else if (partition_parent(fsdev, &parent) == 0 && parent == devno) {
			char part[64];

			devno_name(fsdev, part, sizeof(part));
			snprintf(s->mount_via, sizeof(s->mount_via), "%s%spartition %s",
				 via, via[0] ? ", " : "", part);
		} else {
			continue;
		}
		snprintf(s->r->where, sizeof(s->r->where), "%s", mnt_fs_get_target(fs) ?: "?");
		found = true;
	}
	mnt_reset_iter(it, MNT_ITER_FORWARD);
	while (!found && mnt_table_next_fs(s->swaps, it, &fs) == 0) {
		const char *src = mnt_fs_get_source(fs);
		dev_t parent;
		struct stat st;

		if (!src || stat(src, &st) < 0 || !S_ISBLK(st.st_mode))
			continue;
		if (st.st_rdev != devno &&
		    (partition_parent(st.st_rdev, &parent) < 0 || parent != devno))
			continue;
		snprintf(s->mount_via, sizeof(s->mount_via), "%s", via);
		snprintf(s->r->where, sizeof(s->r->where), "swap");
		s->swap = true;
		found = true;
	}
	mnt_free_iter(it);
	return found;
}

/* Appends the holders (md127, dm-0) of one sysfs block directory. */
static void add_holders(const char *sysdir, const char *part, char *buf, size_t len)
{
	char dir[PATH_MAX];
	struct dirent *e;
	DIR *dh;

	snprintf(dir, sizeof(dir), "%s/holders", sysdir);
	dh = opendir(dir);
	if (!dh)
		return;
	while ((e = readdir(dh))) {
		if (e->d_name[0] == '.')
			continue;
		append(buf, len, "%s%s%s%s%s", buf[0] ? ", " : "", e->d_name,
		       part ? " (via partition " : "", part ? part : "", part ? ")" : "");
	}
	closedir(dh);
}

/* Holders of devno and of each of its partitions, comma-separated. */
static void blockdev_holders(dev_t devno, char *buf, size_t len)
{
	char sysdir[64], sub[PATH_MAX], file[PATH_MAX + 16];
	struct dirent *e;
	struct stat st;
	DIR *dh;

	buf[0] = 0;
	snprintf(sysdir, sizeof(sysdir), "/sys/dev/block/%u:%u", major(devno), minor(devno));
	add_holders(sysdir, NULL, buf, len);
	dh = opendir(sysdir);
	if (!dh)
		return;
	while ((e = readdir(dh))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", sysdir, e->d_name);
		snprintf(file, sizeof(file), "%s/partition", sub);
		if (stat(file, &st) == 0)
			add_holders(sub, e->d_name, buf, len);
	}
	closedir(dh);
}

/* Mounts, swap, holders and exclusive use of one block device.  node is a
 * path to open it by (NULL when there is none); via is "" for the path being
 * probed itself, or the loop device a file is seen through. */
static void check_blockdev(struct scan *s, dev_t devno, const char *node, const char *via)
{
	char holders[sizeof(s->r->where)];

	if (!s->r->mounted && blockdev_mounted(s, devno, via))
		s->r->mounted = true;
	if (s->r->busy)
		return;
	blockdev_holders(devno, holders, sizeof(holders));
	if (holders[0]) {
		s->r->busy = true;
		snprintf(s->busy_via, sizeof(s->busy_via), "%s", via);
		if (!s->r->mounted)
			snprintf(s->r->where, sizeof(s->r->where), "%s", holders);
		return;
	}
	if (node) {
		/* A read-only exclusive open changes nothing and is refused
		 * exactly when someone (a mount, md, dm, another writer) holds it. */
		int fd = open(node, O_RDONLY | O_EXCL | O_CLOEXEC | O_NONBLOCK);

		if (fd >= 0) {
			close(fd);
		} else if (errno == EBUSY) {
			s->r->busy = true;
			s->busy_excl = true;
			snprintf(s->busy_via, sizeof(s->busy_via), "%s", via);
		}
	}
}

/* Is the loop device in sysfs directory name (loop3) backed by the file st/real? */
static bool loop_backs(const char *name, const struct stat *st, const char *real)
{
	char file[PATH_MAX], backing[PATH_MAX + 16], node[sizeof("/dev/") + NAME_MAX];
	struct loop_info64 info;
	struct stat bst;
	bool same = false;
	int fd;

	snprintf(file, sizeof(file), "/sys/block/%s/loop/backing_file", name);
	if (dev_sysfs_line(file, backing, sizeof(backing)) < 0)
		return false;            /* not bound to a file */
	if (strcmp(backing, real) == 0)
		return true;
	if (stat(backing, &bst) == 0 && bst.st_dev == st->st_dev && bst.st_ino == st->st_ino)
		return true;
	/* The sysfs path may come from another mount namespace; the loop
	 * device itself knows the backing inode. */
	snprintf(node, sizeof(node), "/dev/%s", name);
	fd = open(node, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return false;
	if (ioctl(fd, LOOP_GET_STATUS64, &info) == 0)
		same = info.lo_inode == st->st_ino && (dev_t)info.lo_device == st->st_dev;
	close(fd);
	return same;
}

/* Writers lock image files with flock (dev_open), and the file behind a
 * loop device they write; test for one.  want: the file must be this one
 * (a loop device's backing file found by its path), or NULL. */
static void check_lock(struct scan *s, const char *file, const struct dev_id *want)
{
	struct stat st;
	int fd = open(file, O_RDONLY | O_CLOEXEC | O_NONBLOCK);

	if (fd < 0)
		return;
	if (want && (fstat(fd, &st) < 0 || st.st_dev != want->dev || st.st_ino != want->ino)) {
		close(fd);
		return;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		if (errno == EWOULDBLOCK) {
			s->r->busy = true;
			s->locked = true;
		}
	} else {
		flock(fd, LOCK_UN);
	}
	close(fd);
}

/* A loop device is the file behind it: a writer of that file holds it. */
static void check_backing_file(struct scan *s, dev_t devno)
{
	char backing[PATH_MAX];
	struct dev_id id;
	int fd = open(s->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	bool loop;

	if (fd < 0)
		return;
	loop = dev_loop_backing(fd, devno, backing, sizeof(backing), &id) == 0;
	close(fd);
	if (loop)
		check_lock(s, backing, &id);
}

/* A regular file: a swap file, every loop device backed by it, and another
 * writer's flock. */
static void check_file(struct scan *s, const struct stat *st)
{
	struct libmnt_iter *it = mnt_new_iter(MNT_ITER_FORWARD);
	struct libmnt_fs *fs;
	char real[PATH_MAX];
	struct dirent *e;
	DIR *dh;

	while (it && !s->r->mounted && mnt_table_next_fs(s->swaps, it, &fs) == 0) {
		const char *src = mnt_fs_get_source(fs);
		struct stat sst;

		if (src && stat(src, &sst) == 0 && S_ISREG(sst.st_mode) &&
		    sst.st_dev == st->st_dev && sst.st_ino == st->st_ino) {
			s->r->mounted = s->swap = true;
			snprintf(s->r->where, sizeof(s->r->where), "swap");
		}
	}
	mnt_free_iter(it);

	if (!realpath(s->path, real))
		snprintf(real, sizeof(real), "%s", s->path);
	dh = opendir("/sys/block");
	if (dh) {
		while ((e = readdir(dh))) {
			char file[PATH_MAX], line[32], node[sizeof("/dev/") + NAME_MAX];
			struct stat nst;
			dev_t devno;

			if (strncmp(e->d_name, "loop", 4) != 0 || !loop_backs(e->d_name, st, real))
				continue;
			snprintf(file, sizeof(file), "/sys/block/%s/dev", e->d_name);
			if (dev_sysfs_line(file, line, sizeof(line)) < 0 || parse_devno(line, &devno) < 0)
				continue;
			snprintf(node, sizeof(node), "/dev/%s", e->d_name);
			check_blockdev(s, devno,
				       stat(node, &nst) == 0 && S_ISBLK(nst.st_mode) &&
				       nst.st_rdev == devno ? node : NULL, node);
		}
		closedir(dh);
	}
	if (!s->r->busy)
		check_lock(s, s->path, NULL);
}

/* "a" or "an" before a signature name, by how it is said: an ext4, an LVM2_member. */
static const char *article(const char *word)
{
	char c = word[0];

	if (strchr("aeiouAEIOU", c) && c)
		return "an";
	/* Initialisms whose first letter is said with a vowel sound. */
	if (c && strchr("FHLMNRSX", c) && isupper((unsigned char)word[1]))
		return "an";
	return "a";
}

/* One signature found by blkid, into both descriptions. */
static void add_signature(struct scan *s, blkid_probe pr)
{
	const char *type = NULL, *pttype = NULL, *usage = NULL, *uuid = NULL, *label = NULL;
	char desc[200] = "", detail[160] = "";

	blkid_probe_lookup_value(pr, "PTTYPE", &pttype, NULL);
	blkid_probe_lookup_value(pr, "TYPE", &type, NULL);
	if (pttype && !type) {
		blkid_probe_lookup_value(pr, "PTUUID", &uuid, NULL);
		snprintf(desc, sizeof(desc), "%s partition table", pttype);
	} else if (type) {
		blkid_probe_lookup_value(pr, "USAGE", &usage, NULL);
		blkid_probe_lookup_value(pr, "UUID", &uuid, NULL);
		blkid_probe_lookup_value(pr, "LABEL", &label, NULL);
		if (strcmp(type, "linux_raid_member") == 0) {
			s->has_md = true;
			append(detail, sizeof(detail), "md superblock");
		} else if (strcmp(type, "LVM2_member") == 0) {
			append(detail, sizeof(detail), "LVM physical volume");
		} else if (usage && strcmp(usage, "raid") == 0) {
			append(detail, sizeof(detail), "RAID member");
		} else if (usage && strcmp(usage, "crypto") == 0) {
			append(detail, sizeof(detail), "encrypted volume");
		}
		if (strcmp(type, "swap") == 0)
			snprintf(desc, sizeof(desc), "swap space");
		else if (usage && strcmp(usage, "filesystem") == 0)
			snprintf(desc, sizeof(desc), "%s filesystem", type);
		else
			snprintf(desc, sizeof(desc), "%s", type);
	} else {
		return;
	}
	if (uuid && uuid[0])
		append(detail, sizeof(detail), "%sUUID %s", detail[0] ? ", " : "", uuid);
	if (label && label[0])
		append(detail, sizeof(detail), "%slabel %s", detail[0] ? ", " : "", label);
	if (blkid_probe_has_value(pr, "SBBADCSUM"))
		append(detail, sizeof(detail), "%sbad checksum", detail[0] ? ", " : "");
	if (detail[0])
		append(desc, sizeof(desc), " (%s)", detail);
	append(s->r->what, sizeof(s->r->what), "%s%s", s->r->what[0] ? ", " : "", desc);
	if (s->nfound < (int)(sizeof(s->found) / sizeof(s->found[0])))
		snprintf(s->found[s->nfound++], sizeof(s->found[0]), "%s", desc);
	s->r->has_signature = true;
}

/* "an ext4 filesystem (...)", "a dos partition table and an ext4 filesystem". */
static void word_signatures(struct scan *s)
{
	for (int i = 0; i < s->nfound; i++)
		append(s->sigs, sizeof(s->sigs), "%s%s %s",
		       i == 0 ? "" : i == s->nfound - 1 ? " and " : ", ",
		       article(s->found[i]), s->found[i]);
}

/* libblkid reads into a fresh zeroed buffer of up to 256 KiB per read and
 * frees them all with the probe; glibc hands such blocks back to the
 * kernel at once, so every probe of every member faulted its buffers in
 * anew (a quarter of a rebuild's start-up).  Kept in the heap instead,
 * the members after the first reuse them. */
static void keep_probe_buffers(void)
{
	mallopt(M_MMAP_THRESHOLD, 1 << 20);
	mallopt(M_TRIM_THRESHOLD, 4 << 20);
}

/* A probe of every superblock and partition table blkid recognises, as
 * wipefs would list them, not just the one a safe probe would settle on;
 * each with where its magic lies. */
static blkid_probe new_probe(const char *path, struct diag *d)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	blkid_probe pr;

	pthread_once(&once, keep_probe_buffers);
	errno = 0;
	pr = blkid_new_probe_from_filename(path);
	if (!pr) {
		diag_fail(d, "%s: cannot open for probing: %s", path, errno ? strerror(errno) : "libblkid failed");
		return NULL;
	}
	blkid_probe_enable_superblocks(pr, 1);
	blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_TYPE | BLKID_SUBLKS_UUID |
					  BLKID_SUBLKS_LABEL | BLKID_SUBLKS_USAGE |
					  BLKID_SUBLKS_BADCSUM | BLKID_SUBLKS_MAGIC);
	blkid_probe_enable_partitions(pr, 1);
	blkid_probe_set_partitions_flags(pr, BLKID_PARTS_MAGIC);
	return pr;
}

static int check_signatures(struct scan *s, struct diag *d)
{
	blkid_probe pr = new_probe(s->path, d);
	int rc;

	if (!pr)
		return -1;
	while ((rc = blkid_do_probe(pr)) == 0)
		add_signature(s, pr);
	blkid_free_probe(pr);
	word_signatures(s);
	if (rc < 0)
		return diag_fail(d, "%s: probing for signatures failed", s->path);
	return 0;
}

/* Where the signature the probe stands on keeps its magic, in bytes;
 * UINT64_MAX when blkid does not say. */
static uint64_t magic_offset(blkid_probe pr)
{
	const char *v = NULL;

	if (blkid_probe_lookup_value(pr, "SBMAGIC_OFFSET", &v, NULL) < 0 &&
	    blkid_probe_lookup_value(pr, "PTMAGIC_OFFSET", &v, NULL) < 0)
		return UINT64_MAX;
	return v && *v >= '0' && *v <= '9' ? strtoull(v, NULL, 10) : UINT64_MAX;
}

static bool is_md(blkid_probe pr)
{
	const char *type = NULL;

	return blkid_probe_lookup_value(pr, "TYPE", &type, NULL) == 0 && type &&
	       strcmp(type, "linux_raid_member") == 0;
}

int probe_signatures_in(const char *path, uint64_t lo, uint64_t hi, char *what, size_t len,
			struct diag *d)
{
	struct probe_result r;
	struct scan s;
	blkid_probe pr;
	int rc;

	memset(&s, 0, sizeof(s));
	memset(&r, 0, sizeof(r));
	s.path = path;
	s.r = &r;
	pr = new_probe(path, d);
	if (!pr)
		return -1;
	while ((rc = blkid_do_probe(pr)) == 0) {
		uint64_t at = magic_offset(pr);

		if (!is_md(pr) && at >= lo && at < hi)
			add_signature(&s, pr);
	}
	blkid_free_probe(pr);
	if (rc < 0)
		return diag_fail(d, "%s: probing for signatures failed", path);
	word_signatures(&s);
	snprintf(what, len, "%s", s.sigs);
	return 0;
}

static int scan(struct scan *s, const char *path, struct probe_result *r, struct diag *d)
{
	struct stat st;
	int rc = -1;

	memset(s, 0, sizeof(*s));
	memset(r, 0, sizeof(*r));
	s->path = path;
	s->r = r;
	if (stat(path, &st) < 0)
		return diag_fail(d, "%s: %s", path, strerror(errno));
	if (S_ISDIR(st.st_mode))
		return diag_fail(d, "%s: is a directory, not a member device or image file", path);
	if (!S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode))
		return diag_fail(d, "%s: not a regular file or block device", path);
	if (load_tables(s, d) < 0)
		goto out;
	if (S_ISBLK(st.st_mode)) {
		check_blockdev(s, st.st_rdev, path, "");
		if (!s->r->busy)
			check_backing_file(s, st.st_rdev);
	} else
		check_file(s, &st);
	rc = check_signatures(s, d);
out:
	mnt_unref_table(s->mounts);
	mnt_unref_table(s->swaps);
	s->mounts = s->swaps = NULL;
	return rc;
}

int probe_member(const char *path, struct probe_result *r, struct diag *d)
{
	struct scan s;

	return scan(&s, path, r, d);
}

int probe_refuse(const char *path, bool force, bool ignore_md, struct diag *d)
{
	static const char never[] = "refusing to write (even with --force)";
	struct probe_result r;
	char via[128] = "";
	struct scan s;

	if (scan(&s, path, &r, d) < 0)
		return -1;
	if (r.mounted) {
		if (s.mount_via[0])
			snprintf(via, sizeof(via), " (via %s)", s.mount_via);
		if (s.swap)
			return diag_fail(d, "%s: in use as swap%s; %s", path, via, never);
		return diag_fail(d, "%s: mounted on %s%s; %s", path, r.where, via, never);
	}
	if (r.busy) {
		if (s.busy_via[0])
			snprintf(via, sizeof(via), "via %s, ", s.busy_via);
		if (s.locked)
			return diag_fail(d, "%s: in use (locked by another writer); %s", path, never);
		if (s.busy_excl)
			return diag_fail(d, "%s: in use (%sopened exclusively by another program); %s",
					 path, via, never);
		return diag_fail(d, "%s: in use (%sheld by %s); %s", path, via, r.where, never);
	}
	if (!r.has_signature || force)
		return 0;
	/* The md superblock a rewriting tool expects; whatever else blkid sees
	 * on an md member (the array's own filesystem on a 0.90/1.0 RAID1
	 * member, say) is array data, which blkid too ranks below md. */
	if (ignore_md && s.has_md)
		return 0;
	return diag_fail(d, "%s: carries %s; use --force to overwrite it", path, s.sigs);
}
