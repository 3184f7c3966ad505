/* test_cli_size: the three readings of a size on the command line: bytes
 * (cli_parse_size), mdadm's KiB for a bare number (cli_parse_kib), and the
 * benchmarks' unit required (cli_parse_size_unit). */
#include <stdint.h>

#include "cli/cli.h"
#include "tap.h"

/* The value s parses to with parse, or UINT64_MAX - 1 when refused (with
 * the return code in *rc). */
static uint64_t parsed(int (*parse)(const char *, uint64_t *), const char *s, int *rc)
{
	uint64_t v = UINT64_MAX - 1;

	*rc = parse(s, &v);
	return *rc == 0 ? v : UINT64_MAX - 1;
}

static void bytes_unless_suffixed(void)
{
	int rc;

	ok(parsed(cli_parse_size, "4096", &rc) == 4096, "a bare number is bytes to cli_parse_size");
	ok(parsed(cli_parse_size, "64K", &rc) == 65536, "64K is 65536 bytes");
	ok(parsed(cli_parse_size, "2GiB", &rc) == 2ULL << 30, "2GiB is 2 GiB");
	ok(parsed(cli_parse_size, "12Q", &rc) == UINT64_MAX - 1 && rc == -1, "12Q is no size");
	ok(parsed(cli_parse_size, "-1", &rc) == UINT64_MAX - 1 && rc == -1, "a negative number is no size");
}

static void kib_as_mdadm(void)
{
	int rc;

	ok(parsed(cli_parse_kib, "64", &rc) == 65536, "-c 64 is 64 KiB, as mdadm reads it");
	ok(parsed(cli_parse_kib, "102400", &rc) == 100ULL << 20, "-z 102400 is 100 MiB, not 100 KiB");
	ok(parsed(cli_parse_kib, "64K", &rc) == 65536, "64K stays 64 KiB");
	ok(parsed(cli_parse_kib, "1M", &rc) == 1 << 20, "1M stays 1 MiB");
	ok(parsed(cli_parse_kib, "0", &rc) == 0, "0 is 0");
	ok(parsed(cli_parse_kib, "18014398509481984", &rc) == UINT64_MAX - 1 && rc == -1,
	   "a bare number whose KiB overflow 64 bits is refused");
	ok(parsed(cli_parse_kib, "x", &rc) == UINT64_MAX - 1 && rc == -1, "junk is refused");
}

static void unit_required(void)
{
	int rc;

	ok(parsed(cli_parse_size_unit, "4G", &rc) == 4ULL << 30, "4G is taken");
	ok(parsed(cli_parse_size_unit, "2048", &rc) == UINT64_MAX - 1 && rc == CLI_SIZE_BARE,
	   "a bare 2048 is refused as bare, for the hint");
	ok(parsed(cli_parse_size_unit, "0", &rc) == 0, "0 needs no unit");
	ok(parsed(cli_parse_size_unit, "4X", &rc) == UINT64_MAX - 1 && rc == -1, "4X is junk, not bare");
}

int main(void)
{
	bytes_unless_suffixed();
	kib_as_mdadm();
	unit_required();
	return tap_done();
}
