/* test_role_list: the roles a tool names in one line (the --run refusal,
 * the degraded notice), listed as a sentence lists them. */
#include <stdbool.h>
#include <string.h>

#include "tap.h"
#include "cli/degraded.h"

/* The list of roles set among the first n of set. */
static const char *list(const bool *set, int n)
{
	static char buf[64];

	cli_role_list(set, n, buf, sizeof(buf));
	return buf;
}

int main(void)
{
	bool none[6] = { false }, one[6] = { [4] = true }, two[6] = { [4] = true, [5] = true };
	bool three[6] = { [1] = true, [4] = true, [5] = true }, first[6] = { [0] = true, [2] = true };
	bool all[40];
	char small[8];

	ok(!strcmp(list(none, 6), ""), "no role set: an empty list");
	ok(!strcmp(list(one, 6), "4"), "one role: its number");
	ok(!strcmp(list(two, 6), "4 and 5"), "two roles: joined by and");
	ok(!strcmp(list(three, 6), "1, 4 and 5"), "three roles: commas, then and before the last");
	ok(!strcmp(list(first, 6), "0 and 2"), "role 0 is listed like any other");
	ok(!strcmp(list(two, 5), "4"), "roles past n are not looked at");
	memset(all, true, sizeof(all));
	cli_role_list(all, 40, small, sizeof(small));
	ok(strlen(small) == sizeof(small) - 1 && !strncmp(small, "0, 1, 2", 7),
	   "a list longer than the buffer is cut at its end, still terminated");
	return tap_done();
}
