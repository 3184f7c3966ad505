/* cli: helpers shared by the tools' option parsing and output. */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"

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

static bool bare_number(const char *s)
{
	return *s && !s[strspn(s, "0123456789")];
}

int cli_parse_kib(const char *s, uint64_t *out)
{
	uint64_t v;

	if (cli_parse_size(s, &v) < 0)
		return -1;
	if (bare_number(s)) {
		if (v > UINT64_MAX / 1024)
			return -1;
		v *= 1024;
	}
	*out = v;
	return 0;
}

int cli_parse_size_unit(const char *s, uint64_t *out)
{
	uint64_t v;

	if (cli_parse_size(s, &v) < 0)
		return -1;
	if (v && bare_number(s))
		return CLI_SIZE_BARE;
	*out = v;
	return 0;
}

int cli_size_error(const char *tool, const char *opt, const char *arg, int rc)
{
	if (rc == CLI_SIZE_BARE)
		fprintf(stderr, "%s: %s: '%s' has no unit: write %sK, %sM, %sG or %sT (bonnie++ and fio "
			"read a bare number differently)\n", tool, opt, arg, arg, arg, arg, arg);
	else
		fprintf(stderr, "%s: %s: '%s' is not a size (a number with K, M, G or T)\n", tool, opt, arg);
	return -1;
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

void cli_getopt_name(char **argv, const char *tool)
{
	argv[0] = (char *)tool;
}

int cli_usage_error(const char *tool, const char *fmt, ...)
{
	va_list ap;

	if (fmt) {
		fprintf(stderr, "%s: ", tool);
		va_start(ap, fmt);
		vfprintf(stderr, fmt, ap);
		va_end(ap);
		fputc('\n', stderr);
	}
	fprintf(stderr, "Try '%s --help'.\n", tool);
	return EXIT_ERROR;
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
