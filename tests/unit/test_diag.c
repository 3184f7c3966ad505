/* test_diag: a failure's message and its kind, an error or a range the
 * array could not serve, as they travel back through the layers. */
#include <string.h>

#include "util/diag.h"
#include "tap.h"

static void fail_is_an_error(void)
{
	struct diag d = { 0 };

	ok(diag_fail(&d, "%s: short read at byte %d", "m0.img", 4096) == -1, "diag_fail returns -1");
	ok(strcmp(d.msg, "m0.img: short read at byte 4096") == 0, "diag_fail formats the message");
	ok(d.kind == DIAG_ERROR, "diag_fail's kind is an error");
}

static void unserved_is_told_apart(void)
{
	struct diag d = { 0 };

	ok(diag_unserved(&d, "array bytes %d-%d", 0, 4095) == -1, "diag_unserved returns -1");
	ok(strcmp(d.msg, "array bytes 0-4095") == 0, "diag_unserved formats the message");
	ok(d.kind == DIAG_UNSERVED, "diag_unserved's kind is unserved");
	diag_fail(&d, "write error");
	ok(d.kind == DIAG_ERROR, "a later diag_fail makes the same diag an error again");
}

static void prefix_keeps_the_kind(void)
{
	struct diag d = { 0 };

	diag_unserved(&d, "array bytes 0-4095");
	diag_prefix(&d, "%s", "stripe-map");
	ok(strcmp(d.msg, "stripe-map: array bytes 0-4095") == 0, "diag_prefix puts its words first");
	ok(d.kind == DIAG_UNSERVED, "a prefixed unserved diag stays unserved");
}

static void null_is_allowed(void)
{
	ok(diag_unserved(NULL, "x") == -1 && diag_fail(NULL, "x") == -1, "a NULL diag only returns -1");
}

int main(void)
{
	fail_is_an_error();
	unserved_is_told_apart();
	prefix_keeps_the_kind();
	null_is_allowed();
	return tap_done();
}
