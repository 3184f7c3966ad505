/* identity: a member's kind and, for a block device, the names on its
 * label, read from sysfs and udev's database under roots tests can move. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "io/identity.h"

/* Bounds on what the trees may hand us: an attribute's bytes (a page, as
 * sysfs shows a loop device's file), the lines of a udev record and their
 * length, the links of /dev/disk/by-id. */
#define ATTR_MAX 4096
#define UDEV_LINES 4096
#define UDEV_LINE 1024
#define BYID_MAX 4096

static const char *root(const char *env, const char *fallback)
{
	const char *r = getenv(env);

	return r && *r ? r : fallback;
}

/* Keeps printable ASCII, each other byte as '?', and trims the spaces
 * SCSI and NVMe pad their fields with. */
static void clean(char *s)
{
	size_t n = 0, i, start = 0;

	for (i = 0; s[i]; i++)
		s[i] = (unsigned char)s[i] >= 0x20 && (unsigned char)s[i] < 0x7f ? s[i] : '?';
	while (s[start] == ' ')
		start++;
	for (i = start; s[i]; i++)
		s[n++] = s[i];
	while (n && s[n - 1] == ' ')
		n--;
	s[n] = 0;
}

/* src into dst, cut to fit, cleaned. */
static void copy(char *dst, size_t len, const char *src)
{
	size_t n = strnlen(src, len - 1);

	memcpy(dst, src, n);
	dst[n] = 0;
	clean(dst);
}

/* path opened for reading when it is a regular file (a fake tree could
 * hold a FIFO or a device there: never waited on); -1 otherwise. */
static int open_regular(const char *path)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);

	if (fd >= 0 && (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Up to len - 1 bytes of the regular file dir/rel; -1 when there are none. */
static ssize_t read_bytes(const char *dir, const char *rel, char *buf, size_t len)
{
	char path[PATH_MAX];
	ssize_t n;
	int fd;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, rel) >= sizeof(path) || (fd = open_regular(path)) < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	return n;
}

/* The first line of attribute dir/rel, cleaned, into out; false when it
 * is missing or blank. */
static bool read_attr(const char *dir, const char *rel, char *out, size_t len)
{
	char buf[ATTR_MAX];

	if (read_bytes(dir, rel, buf, sizeof(buf)) < 0)
		return false;
	buf[strcspn(buf, "\n")] = 0;
	copy(out, len, buf);
	return out[0] != 0;
}

/* A SCSI disk's unit serial number (VPD page 0x80: a 4-byte header, then
 * its length in bytes 2-3), as libata answers it with the ATA serial. */
static bool read_vpd_serial(const char *dir, char *out, size_t len)
{
	unsigned char buf[ATTR_MAX];
	size_t n, have;
	ssize_t got = read_bytes(dir, "device/vpd_pg80", (char *)buf, sizeof(buf));

	if (got < 4 || buf[1] != 0x80)
		return false;
	have = (size_t)got - 4;
	n = (size_t)buf[2] << 8 | buf[3];
	if (n > have)
		n = have;
	if (n >= len)
		n = len - 1;
	memcpy(out, buf + 4, n);
	out[n] = 0;
	clean(out);
	return out[0] != 0;
}

static bool is_dir(const char *dir, const char *rel)
{
	char path[PATH_MAX];
	struct stat st;

	return (size_t)snprintf(path, sizeof(path), "%s/%s", dir, rel) < sizeof(path) && stat(path, &st) == 0 &&
	       S_ISDIR(st.st_mode);
}

static const char *base(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* The disk's own fields, for a whole disk or a partition's parent:
 * SCSI and ATA (device/model, vendor, wwid, VPD 0x80), NVMe (the
 * controller's or subsystem's model and serial, the namespace's wwid),
 * virtio (the disk's serial).  Only what udev left empty is filled. */
static void sysfs_disk_fields(const char *disk, struct identity *id)
{
	char model[IDENT_TEXT];
	bool scsi = read_attr(disk, "device/model", model, sizeof(model));

	if (!id->model[0] && scsi)
		snprintf(id->model, sizeof(id->model), "%s", model);
	if (!id->vendor[0] && scsi)
		read_attr(disk, "device/vendor", id->vendor, sizeof(id->vendor));
	if (!id->serial[0] && !read_attr(disk, "device/serial", id->serial, sizeof(id->serial)) &&
	    !read_attr(disk, "serial", id->serial, sizeof(id->serial)))
		read_vpd_serial(disk, id->serial, sizeof(id->serial));
	if (!id->wwn[0] && !read_attr(disk, "wwid", id->wwn, sizeof(id->wwn)))
		read_attr(disk, "device/wwid", id->wwn, sizeof(id->wwn));
}

/* A partition number as sysfs or udev write it: 1 to 65535. */
static int part_number(const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);

	return end != s && !*end && v > 0 && v <= 65535 ? (int)v : 0;
}

/* The device's directory in sysfs, its kind, name, partition and loop
 * file, then its disk's fields. */
static void from_sysfs(struct identity *id)
{
	char link[PATH_MAX], dir[PATH_MAX], disk[PATH_MAX], num[16];
	char *slash;

	if ((size_t)snprintf(link, sizeof(link), "%s/dev/block/%u:%u", root("STRIPE_SYSFS_ROOT", "/sys"), id->major,
			     id->minor) >= sizeof(link) || !realpath(link, dir) || !strcmp(dir, "/"))
		return;
	copy(id->name, sizeof(id->name), base(dir));
	snprintf(disk, sizeof(disk), "%s", dir);
	if (read_attr(dir, "partition", num, sizeof(num)) && part_number(num)) {
		id->kind = IDENT_PARTITION;
		id->partition = part_number(num);
		slash = strrchr(disk, '/');
		if (slash && slash != disk)
			*slash = 0;
		copy(id->parent, sizeof(id->parent), base(disk));
	} else if (is_dir(dir, "loop")) {
		id->kind = IDENT_LOOP;
		read_attr(dir, "loop/backing_file", id->backing, sizeof(id->backing));
		return;
	} else if (id->kind != IDENT_PARTITION) {
		/* (a partition udev names, whose sysfs says nothing of it, stays one) */
		id->kind = IDENT_DISK;
	}
	sysfs_disk_fields(disk, id);
}

/* udev's \xNN escapes (ID_MODEL_ENC keeps the spaces ID_MODEL turns
 * into underscores), decoded in place. */
static void unhex(char *s)
{
	char *o = s, hex[3] = { 0 };

	for (; *s; o++) {
		if (s[0] == '\\' && s[1] == 'x' && isxdigit((unsigned char)s[2]) && isxdigit((unsigned char)s[3])) {
			memcpy(hex, s + 2, 2);
			*o = (char)strtoul(hex, NULL, 16);
			s += 4;
		} else {
			*o = *s++;
		}
	}
	*o = 0;
}

/* A by-id name for a person to find: the bus, model and serial
 * (ata-..., nvme-Model_Serial, virtio-...) before wwn- and eui. ones. */
static int by_id_rank(const char *name)
{
	return strncmp(name, "wwn-", 4) && !strstr(name, "-eui.") && strncmp(name, "nvme-nvme.", 10) ? 2 : 1;
}

/* Keeps the best name offered: by rank, then the shortest (newer udev
 * rules give an NVMe disk's model and serial name a twin ending in its
 * namespace number, "_1"). */
struct by_id_pick {
	int rank;                    /* 0 while none was kept */
	size_t len;
};

static void offer_by_id(struct identity *id, struct by_id_pick *pick, const char *name)
{
	int r = by_id_rank(name);
	size_t n = strlen(name);

	if (r < pick->rank || (r == pick->rank && n >= pick->len) || !*name || strchr(name, '/'))
		return;
	pick->rank = r;
	pick->len = n;
	snprintf(id->by_id, sizeof(id->by_id), "%s/disk/by-id/%s", root("STRIPE_DEV_ROOT", "/dev"), name);
	clean(id->by_id);
}

/* Value of "E:KEY=value" when line is that key's. */
static const char *prop(const char *line, const char *key)
{
	size_t n = strlen(key);

	return !strncmp(line, "E:", 2) && !strncmp(line + 2, key, n) && line[2 + n] == '=' ? line + 3 + n : NULL;
}

/* One record line: the keys lsblk reads (the _ENC forms first), and the
 * by-id links. */
static void udev_line(struct identity *id, char *line, struct by_id_pick *pick, bool *enc_model, bool *enc_vendor)
{
	const char *v;
	char buf[UDEV_LINE];

	if (!strncmp(line, "S:disk/by-id/", 13)) {
		offer_by_id(id, pick, line + 13);
	} else if ((v = prop(line, "ID_MODEL_ENC")) || ((v = prop(line, "ID_MODEL")) && !*enc_model)) {
		snprintf(buf, sizeof(buf), "%s", v);
		if (prop(line, "ID_MODEL_ENC")) {
			unhex(buf);
			*enc_model = true;
		}
		copy(id->model, sizeof(id->model), buf);
	} else if ((v = prop(line, "ID_VENDOR_ENC")) || ((v = prop(line, "ID_VENDOR")) && !*enc_vendor)) {
		snprintf(buf, sizeof(buf), "%s", v);
		if (prop(line, "ID_VENDOR_ENC")) {
			unhex(buf);
			*enc_vendor = true;
		}
		copy(id->vendor, sizeof(id->vendor), buf);
	} else if ((v = prop(line, "ID_SERIAL_SHORT")) || ((v = prop(line, "ID_SERIAL")) && !id->serial[0])) {
		copy(id->serial, sizeof(id->serial), v);
	} else if ((v = prop(line, "ID_WWN_WITH_EXTENSION")) || ((v = prop(line, "ID_WWN")) && !id->wwn[0])) {
		copy(id->wwn, sizeof(id->wwn), v);
	} else if ((v = prop(line, "ID_PART_ENTRY_NUMBER")) && part_number(v) && id->kind != IDENT_LOOP) {
		id->partition = part_number(v);
		id->kind = IDENT_PARTITION;
	}
}

/* udev's record of the device (/run/udev/data/bMAJ:MIN), line by line;
 * a line longer than UDEV_LINE is skipped whole. */
static void from_udev(struct identity *id, struct by_id_pick *pick)
{
	char path[PATH_MAX], line[UDEV_LINE];
	bool enc_model = false, enc_vendor = false, skipping = false;
	FILE *f = NULL;
	int n, fd;

	snprintf(path, sizeof(path), "%s/data/b%u:%u", root("STRIPE_UDEV_ROOT", "/run/udev"), id->major, id->minor);
	fd = open_regular(path);
	if (fd >= 0 && !(f = fdopen(fd, "r")))
		close(fd);
	if (!f)
		return;
	for (n = 0; n < UDEV_LINES && fgets(line, sizeof(line), f); n++) {
		size_t len = strlen(line);
		bool whole = len && line[len - 1] == '\n';

		if (!skipping && whole) {
			line[len - 1] = 0;
			udev_line(id, line, pick, &enc_model, &enc_vendor);
		}
		skipping = !whole && !feof(f);
	}
	fclose(f);
}

/* Without udev's record (a container, a rescue system): the links in the
 * dev root's disk/by-id that point at the device's name. */
static void scan_by_id(struct identity *id, struct by_id_pick *pick)
{
	char dir[PATH_MAX], target[PATH_MAX];
	struct dirent *e;
	DIR *d;
	int n = 0;

	snprintf(dir, sizeof(dir), "%s/disk/by-id", root("STRIPE_DEV_ROOT", "/dev"));
	if (!id->name[0] || !(d = opendir(dir)))
		return;
	while (n++ < BYID_MAX && (e = readdir(d))) {
		ssize_t len = readlinkat(dirfd(d), e->d_name, target, sizeof(target) - 1);

		if (len <= 0)
			continue;
		target[len] = 0;
		if (!strcmp(base(target), id->name))
			offer_by_id(id, pick, e->d_name);
	}
	closedir(d);
}

/* STRIPE_TEST_DEVNO's MAJ:MIN for path, when a FILE given there ends it. */
static bool test_devno(const char *path, unsigned *major_, unsigned *minor_)
{
	const char *p = getenv("STRIPE_TEST_DEVNO");
	size_t plen = strlen(path);

	while (p && *p) {
		const char *eq = strchr(p, '='), *next = strchr(p, ',');
		size_t flen = eq ? (size_t)(eq - p) : 0;

		if (!eq || (next && next < eq))
			return false;
		if (flen && flen <= plen && !memcmp(path + plen - flen, p, flen) &&
		    sscanf(eq + 1, "%u:%u", major_, minor_) == 2)
			return true;
		p = next ? next + 1 : NULL;
	}
	return false;
}

int identity_of(const char *path, struct identity *id)
{
	struct stat st;
	struct by_id_pick pick = { 0, 0 };

	memset(id, 0, sizeof(*id));
	if (!test_devno(path, &id->major, &id->minor)) {
		if (stat(path, &st) < 0)
			return -1;
		if (S_ISREG(st.st_mode))
			return 0;
		if (!S_ISBLK(st.st_mode)) {
			errno = EINVAL;
			return -1;
		}
		id->major = major(st.st_rdev);
		id->minor = minor(st.st_rdev);
	}
	id->kind = IDENT_BLOCK;
	/* udev first: its model keeps ATA's whole name, where SCSI's field
	 * holds 16 bytes of it; sysfs fills what udev has not */
	from_udev(id, &pick);
	from_sysfs(id);
	if (!pick.rank)
		scan_by_id(id, &pick);
	return 0;
}

void identity_fields(const struct identity *id, struct identity_field f[IDENT_FIELDS])
{
	const struct identity_field all[IDENT_FIELDS] = {
		{ "kernel_name", id->name }, { "parent", id->parent }, { "vendor", id->vendor },
		{ "model", id->model }, { "serial", id->serial }, { "wwn", id->wwn },
		{ "by_id", id->by_id }, { "backing_file", id->backing },
	};

	memcpy(f, all, sizeof(all));
}

const char *identity_kind_name(enum ident_kind k)
{
	static const char *const names[] = {
		[IDENT_FILE] = "file", [IDENT_DISK] = "disk", [IDENT_PARTITION] = "partition",
		[IDENT_LOOP] = "loop", [IDENT_BLOCK] = "block",
	};

	return names[k];
}

void identity_what(const struct identity *id, char *buf, size_t len)
{
	switch (id->kind) {
	case IDENT_FILE:
		snprintf(buf, len, "file");
		break;
	case IDENT_DISK:
		snprintf(buf, len, "disk %s", id->name);
		break;
	case IDENT_PARTITION:
		if (id->parent[0])
			snprintf(buf, len, "partition %d of disk %s", id->partition, id->parent);
		else
			snprintf(buf, len, "partition %d", id->partition);
		break;
	case IDENT_LOOP:
		if (id->backing[0])
			snprintf(buf, len, "loop device %s over %s", id->name, id->backing);
		else
			snprintf(buf, len, "loop device %s with no file bound", id->name);
		break;
	default:
		snprintf(buf, len, "block device %u:%u", id->major, id->minor);
	}
}

void identity_describe(const struct identity *id, char *buf, size_t len)
{
	const char *label[] = { "vendor ", "model ", "serial ", "WWN ", "" };
	const char *value[] = { id->vendor, id->model, id->serial, id->wwn, id->by_id };
	size_t used;
	int i, n = 0;

	identity_what(id, buf, len);
	for (i = 0; i < 5; i++) {
		used = strlen(buf);
		if (value[i][0] && used + 1 < len)
			snprintf(buf + used, len - used, "%s%s%s", n++ ? ", " : ": ", label[i], value[i]);
	}
}
