/* test_probe_volume: volume.c reads a real LVM2 label, the first MiB of a
 * PV that pvcreate, vgcreate and lvcreate made (tests/fixtures/lvm2): its
 * PV UUID and where its extents start, at the member offset it lies at;
 * a label whose checksum no longer fits is refused, as LVM2 refuses it. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "probe/volume.h"
#include "tap.h"

#define MIB (1u << 20)
#define FIXTURE "tests/fixtures/lvm2/pv-first-mib.bin.xz"
#define PV_UUID "CrvLOU-mjK7-LiUk-0Len-5Z7P-vOtM-zZ07CV"   /* what pvs -o pv_uuid said */
#define PE_START (1048576ull)                            /* pvs -o pe_start, in bytes */

/* The fixture's path: under the working directory or a folder above it,
 * or above this program (tests/unit/ or build/san/tests/unit/). */
static int fixture_path(char path[PATH_MAX])
{
	char starts[2][PATH_MAX];

	if (!getcwd(starts[0], sizeof(starts[0])))
		starts[0][0] = '\0';
	if (!realpath("/proc/self/exe", starts[1]))
		starts[1][0] = '\0';
	for (int s = 0; s < 2; s++) {
		for (int up = 0; up < 8 && starts[s][0]; up++) {
			char *slash;

			snprintf(path, PATH_MAX, "%.3800s/" FIXTURE, starts[s]);
			if (access(path, R_OK) == 0)
				return 0;
			slash = strrchr(starts[s], '/');
			if (!slash)
				break;
			*slash = '\0';
		}
	}
	return -1;
}

/* The PV's first MiB, decompressed by xz into buf. */
static int read_fixture(uint8_t *buf)
{
	char path[PATH_MAX], cmd[PATH_MAX + 32];
	FILE *p;
	size_t got;

	if (fixture_path(path) < 0)
		return -1;
	snprintf(cmd, sizeof(cmd), "xz -dc -- '%s'", path);
	if (!(p = popen(cmd, "r")))
		return -1;
	got = fread(buf, 1, MIB, p);
	return pclose(p) == 0 && got == MIB ? 0 : -1;
}

/* One member whose sample is one window from its start, of len bytes. */
struct one_member {
	struct probe_member m;
	struct probe_window w;
	struct probe_sample s;
};

static void one_member_init(struct one_member *o, uint8_t *buf, size_t len)
{
	memset(o, 0, sizeof(*o));
	o->m.path = "raw";
	o->m.dev.size = len;
	o->w = (struct probe_window){ .offset = 0, .len = len };
	o->w.buf[0] = buf;
	o->s = (struct probe_sample){ .nmembers = 1, .members = &o->m, .nwindows = 1, .windows = &o->w };
}

/* The PV at the start of the array, which starts at offset sectors of the
 * member. */
static void reads_the_real_label(const uint8_t *pv, uint64_t offset)
{
	struct probe_hints h = { .level = -1, .layout = -1, .data_offset = UINT64_MAX };
	size_t len = offset * 512 + MIB;
	uint8_t *buf = calloc(1, len);
	struct one_member o;
	struct volume v[2];
	int n;

	if (!buf) {
		ok(0, "out of memory");
		return;
	}
	memcpy(buf + offset * 512, pv, MIB);
	one_member_init(&o, buf, len);
	n = volume_find(&o.s, &h, v, 2);
	ok(n == 1 && v[0].kind == VOLUME_LVM2 && v[0].data_offset == offset && v[0].header_at == 512,
	   "the label at member sector %llu: an LVM2 PV, the array starting at sector %llu: %s",
	   (unsigned long long)(offset + 1), (unsigned long long)offset, n ? v[0].what : "none");
	ok(n == 1 && strcmp(v[0].uuid, PV_UUID) == 0, "its PV UUID is the one pvs printed: %s", n ? v[0].uuid : "none");
	ok(n == 1 && v[0].fs_offset == PE_START, "its first data area starts at pe_start, 2048 sectors in");
	free(buf);
}

/* A byte the checksum covers, changed: the PV header's device size. */
static void refuses_a_label_whose_checksum_fails(const uint8_t *pv)
{
	struct probe_hints h = { .level = -1, .layout = -1, .data_offset = UINT64_MAX };
	uint8_t *buf = malloc(MIB);
	struct one_member o;
	struct volume v[2];

	if (!buf) {
		ok(0, "out of memory");
		return;
	}
	memcpy(buf, pv, MIB);
	buf[512 + 32 + 32] ^= 1;
	one_member_init(&o, buf, MIB);
	ok(volume_find(&o.s, &h, v, 2) == 0, "one byte of the PV header changed: its label's checksum refuses it");
	free(buf);
}

int main(void)
{
	static uint8_t pv[MIB];

	if (read_fixture(pv) < 0) {
		ok(0, "%s decompresses (xz) to 1 MiB", FIXTURE);
		return tap_done();
	}
	reads_the_real_label(pv, 0);
	reads_the_real_label(pv, 2048);
	refuses_a_label_whose_checksum_fails(pv);
	return tap_done();
}
