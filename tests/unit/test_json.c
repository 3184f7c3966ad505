/* test_json: strings in a JSON document are valid UTF-8 whatever bytes a
 * file name holds, so every parser reads the document. */
#include <stdlib.h>
#include <string.h>

#include "util/json.h"
#include "tap.h"

/* The document json writes for one "s": str, reduced to its value. */
static const char *encoded(const char *str)
{
	static char buf[256];
	struct json j;
	char *doc = NULL, *at;
	size_t len = 0;
	FILE *f = open_memstream(&doc, &len);

	json_begin(&j, f, "test");
	json_str(&j, "s", str);
	json_end(&j);
	fclose(f);
	at = strstr(doc, "\"s\": ");
	snprintf(buf, sizeof(buf), "%.*s", at ? (int)strcspn(at + 5, "\n") : 0, at ? at + 5 : "");
	free(doc);
	return buf;
}

int main(void)
{
	ok(strcmp(encoded("disk0.img"), "\"disk0.img\"") == 0, "plain ASCII is written as it is");
	ok(strcmp(encoded("d\xc3\xa9j\xc3\xa0.img"), "\"d\xc3\xa9j\xc3\xa0.img\"") == 0,
	   "valid two-byte UTF-8 is kept");
	ok(strcmp(encoded("\xe2\x82\xac\xf0\x9f\x92\xbe"), "\"\xe2\x82\xac\xf0\x9f\x92\xbe\"") == 0,
	   "valid three- and four-byte UTF-8 is kept");
	ok(strcmp(encoded("d\xe9j\xe0.img"), "\"d\\u00e9j\\u00e0.img\"") == 0,
	   "a Latin-1 byte that is no UTF-8 is escaped as \\u00XX");
	ok(strcmp(encoded("\xc0\xaf"), "\"\\u00c0\\u00af\"") == 0, "an overlong form is escaped byte by byte");
	ok(strcmp(encoded("\xed\xa0\x80"), "\"\\u00ed\\u00a0\\u0080\"") == 0, "an encoded surrogate is escaped");
	ok(strcmp(encoded("\xf4\x90\x80\x80"), "\"\\u00f4\\u0090\\u0080\\u0080\"") == 0,
	   "a code point past U+10FFFF is escaped");
	ok(strcmp(encoded("a\xe2\x82"), "\"a\\u00e2\\u0082\"") == 0, "a sequence cut short by the end is escaped");
	ok(strcmp(encoded("q\"b\\\n\x01"), "\"q\\\"b\\\\\\n\\u0001\"") == 0,
	   "quotes, backslashes and control characters are escaped as before");
	return tap_done();
}
