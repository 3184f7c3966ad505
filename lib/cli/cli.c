/* cli: helpers shared by the tools' option parsing and output. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "md/array.h"
#include "cli/cli.h"
#include "io/probe.h"

int cli_parse_size(const char *s, uint64_t *out)
{
	static const char units[] = "KMGT";
	unsigned long long v;
	const char *u;
	char *end;
	int shift = 0;

	if (!s || !*s || *s == '-')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s)
		return -1;
	if (*end) {
		u = strchr(units, *end >= 'a' ? *end - 32 : *end);
		if (!u || !*u)
			return -1;
		shift = 10 * (int)(u - units + 1);
		end++;
		if (*end == 'i' || *end == 'I')
			end++;
		if (*end == 'b' || *end == 'B')
			end++;
		if (*end)
			return -1;
	}
	if (shift && v > (UINT64_MAX >> shift))
		return -1;
	*out = (uint64_t)v << shift;
	return 0;
}

int cli_raid0_layout(const char *s)
{
	if (strcmp(s, "original") == 0 || strcmp(s, "1") == 0)
		return 1;
	if (strcmp(s, "alternate") == 0 || strcmp(s, "2") == 0)
		return 2;
	return -1;
}

void cli_version(const char *tool)
{
	printf("%s (stripe) %s\n", tool, STRIPE_VERSION);
}

void cli_export(FILE *f, const char *key, const char *value)
{
	fprintf(f, "%s='", key);
	for (; *value; value++) {
		if (*value == '\'')
			fputs("'\\''", f);
		else
			fputc(*value, f);
	}
	fputs("'\n", f);
}

void cli_export_u64(FILE *f, const char *key, unsigned long long v)
{
	fprintf(f, "%s=%llu\n", key, v);
}

void cli_close_stdout(void)
{
	if (fflush(stdout) != 0 || ferror(stdout) || close(STDOUT_FILENO) != 0) {
		if (errno != EBADF) {
			fprintf(stderr, "stripe: write error on standard output: %s\n", strerror(errno));
			_exit(EXIT_ERROR);
		}
	}
}

int cli_refuse_busy(const char *tool, char *const *paths, int n)
{
	struct diag d;
	int i;

	for (i = 0; i < n; i++) {
		if (probe_refuse(paths[i], true, true, &d) < 0) {
			fprintf(stderr, "%s: %s\n", tool, d.msg);
			return -1;
		}
	}
	return 0;
}

int cli_refuse_strangers(const char *tool, const struct array *a, const bool *skip, bool say_left_out)
{
	int i, rc = 0;

	for (i = 0; i < a->nmembers; i++) {
		const struct member *m = &a->members[i];

		if (skip && skip[i])
			continue;
		if (m->state == MEMBER_INVALID) {
			fprintf(stderr, "%s: %s\n", tool, m->reason);
			rc = -1;
		} else if (m->state == MEMBER_FOREIGN) {
			fprintf(stderr, "%s: %s: %s\n", tool, m->path, m->reason);
			rc = -1;
		} else if (m->state != MEMBER_ACTIVE && say_left_out) {
			fprintf(stderr, "%s: %s: left out: %s\n", tool, m->path, m->reason);
		}
	}
	return rc;
}
