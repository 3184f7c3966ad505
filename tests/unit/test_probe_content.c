/* test_probe_content: the probe's filesystem evidence on one RAID5 holding
 * a real ext4 (tests/probe/make-ext4-array, superblocks zeroed), the run
 * the sanitizers watch: a superblock read from raw bytes and refused when
 * a byte changes; the geometry found from the filesystem alone, and with a
 * member missing; a wrong complete candidate rescored below the original;
 * random members give no candidate and say so. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "probe/evidence.h"
#include "probe/ext4.h"
#include "tap.h"

#define MEMBERS 5
#define BUDGET (8ull << 20)

static char dir[] = "/tmp/test_probe_content.XXXXXX";
static char paths[MEMBERS][160];

static int make_array(void)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd),
		 "tests/probe/make-ext4-array %s/a 16M -l 5 -n %d -c 32K -p right-asymmetric -e 1.2 >/dev/null && "
		 "tests/probe/make-ext4-array --zero %s/a", dir, MEMBERS, dir);
	for (int i = 0; i < MEMBERS; i++)
		snprintf(paths[i], sizeof(paths[i]), "%s/a/m%d.img", dir, i);
	return system(cmd) == 0 ? 0 : -1;
}

/* The array's geometry as DIR/truth says, size left to the search. */
static int truth(struct geometry_spec *g)
{
	char path[200], line[512] = "";
	struct diag d;
	FILE *f;

	snprintf(path, sizeof(path), "%s/a/truth", dir);
	if (!(f = fopen(path, "r")))
		return -1;
	if (!fgets(line, sizeof(line), f))
		line[0] = 0;
	fclose(f);
	line[strcspn(line, "\n")] = 0;
	if (geometry_spec_parse(line, g, &d) < 0)
		return -1;
	g->size = 0;
	return 0;
}

static bool same(const struct geometry_spec *a, const struct geometry_spec *b)
{
	char x[256], y[256];

	geometry_spec_print(a, x, sizeof(x));
	geometry_spec_print(b, y, sizeof(y));
	return strcmp(x, y) == 0;
}

/* probe_content on the members named (NULL for "missing") with r as given. */
static int run(char *const *names, int n, struct probe_result *r)
{
	struct probe_hints h = { .level = -1, .layout = -1, .data_offset = UINT64_MAX };
	struct probe_member m[MEMBERS];
	struct probe_sample s;
	struct diag d;
	int rc = -1;

	if (probe_members_open(names, n, m, &d) < 0)
		return -1;
	if (probe_sample_read(&s, m, n, BUDGET, &d) == 0) {
		rc = probe_content(&s, &h, r, &d);
		probe_sample_free(&s);
	}
	probe_members_close(m, n);
	return rc;
}

/* right-asymmetric keeps row 0's parity on role 0: the array's first
 * chunk, and the primary superblock, are on role 1. */
static void superblock_from_raw_bytes(const struct geometry_spec *want)
{
	uint8_t raw[EXT4_SB_BYTES];
	struct ext4_sb sb;
	int fd = open(paths[1], O_RDONLY);
	off_t at = (off_t)want->data_offset * 512 + EXT4_SB_OFFSET;
	bool read_ok = fd >= 0 && pread(fd, raw, sizeof(raw), at) == sizeof(raw);

	if (fd >= 0)
		close(fd);
	ok(read_ok && ext4_sb_parse(raw, &sb) && sb.group == 0 && sb.csum,
	   "the primary superblock on role 1 parses from raw bytes, group 0, metadata_csum");
	raw[100] ^= 1;
	ok(!ext4_sb_parse(raw, &sb), "one byte changed, its checksum refuses it");
}

static void found_from_the_filesystem_alone(const struct geometry_spec *want)
{
	char *names[MEMBERS];
	static struct probe_result r;

	for (int i = 0; i < MEMBERS; i++)
		names[i] = paths[i];
	memset(&r, 0, sizeof(r));
	ok(run(names, MEMBERS, &r) == 0 && r.ncand > 0 && same(&r.cand[0].spec, want) && r.cand[0].score == 1,
	   "an empty result gets the exact geometry on top, score 1");
	ok(r.ncand > 0 && strncmp(r.cand[0].evidence[0], "ext4: ", 6) == 0, "with its ext4 evidence: %s",
	   r.ncand ? r.cand[0].evidence[0] : "none");
}

static void found_with_a_member_missing(const struct geometry_spec *want)
{
	char *names[MEMBERS], missing[] = "missing";
	static struct probe_result r;
	struct geometry_spec g = *want;

	for (int i = 0; i < MEMBERS; i++)
		names[i] = i == 3 ? missing : paths[i];
	g.order[3] = SPEC_MISSING;
	memset(&r, 0, sizeof(r));
	ok(run(names, MEMBERS, &r) == 0 && r.ncand > 0 && same(&r.cand[0].spec, &g) && r.cand[0].score == 1,
	   "member 3 given as missing: the same geometry, role 3 missing, read through parity");
}

static void wrong_candidate_rescored(const struct geometry_spec *want)
{
	char *names[MEMBERS];
	static struct probe_result r;
	struct probe_candidate wrong = { .spec = *want, .score = 1, .metadata = 120 };

	for (int i = 0; i < MEMBERS; i++)
		names[i] = paths[i];
	wrong.spec.chunk_sectors *= 2;
	wrong.spec.order[0] = 1;
	wrong.spec.order[1] = 0;
	memset(&r, 0, sizeof(r));
	probe_result_add(&r, &wrong);
	bool found = run(names, MEMBERS, &r) == 0 && r.ncand > 1 && same(&r.cand[0].spec, want);
	double wrong_score = -1;
	for (int k = 0; k < r.ncand; k++)
		if (same(&r.cand[k].spec, &wrong.spec))
			wrong_score = r.cand[k].score;
	ok(found && wrong_score == 0, "a wrong complete candidate is rescored to %.3f, the original on top",
	   wrong_score);
}

static void nothing_on_random_members(void)
{
	char names[4][64], *p[4], cmd[320];
	static struct probe_result r;

	for (int i = 0; i < 4; i++) {
		snprintf(names[i], sizeof(names[i]), "%s/r%d.img", dir, i);
		p[i] = names[i];
		snprintf(cmd, sizeof(cmd), "head -c 4M /dev/urandom >%s", names[i]);
		if (system(cmd) != 0)
			names[i][0] = 0;
	}
	memset(&r, 0, sizeof(r));
	ok(run(p, 4, &r) == 0 && r.ncand == 0 && r.nundecided == 1 &&
	   strcmp(r.undecided[0], "no ext4 superblock found in the sample") == 0,
	   "random members: no candidate, and one line saying no ext4 was found");
}

int main(void)
{
	struct geometry_spec want;
	char cmd[128];

	if (!mkdtemp(dir) || make_array() < 0 || truth(&want) < 0) {
		ok(0, "an ext4 array made in %s", dir);
		return tap_done();
	}
	superblock_from_raw_bytes(&want);
	found_from_the_filesystem_alone(&want);
	found_with_a_member_missing(&want);
	wrong_candidate_rescored(&want);
	nothing_on_random_members();
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "test_probe_content: %s left behind\n", dir);
	return tap_done();
}
