/* json: streaming JSON with two-space indentation, strings escaped per RFC 8259;
 * a byte that is not valid UTF-8 (a file name can hold any) becomes \u00XX. */
#include "util/json.h"

static void indent(struct json *j)
{
	int i;

	fputc('\n', j->f);
	for (i = 0; i < j->depth; i++)
		fputs("  ", j->f);
}

/* The length of the UTF-8 sequence at s (1 to 4), or 0 where s holds no
 * valid one: a stray continuation, an overlong form, a surrogate, or past
 * U+10FFFF, as RFC 3629 has it. */
static int utf8_len(const unsigned char *s)
{
	unsigned char c = s[0];
	int n, i;
	unsigned lo = 0x80, hi = 0xbf;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4;
	else
		return 0;
	/* the second byte's range rules out overlongs, surrogates and > U+10FFFF */
	if (c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f;
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i < n; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return n;
}

static void put_string(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;

	fputc('"', f);
	while (*s) {
		unsigned char c = *s;
		int n = utf8_len(s);

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", f);
		else if (c == '\t')
			fputs("\\t", f);
		else if (c < 0x20 || c == 0x7f || n == 0)
			fprintf(f, "\\u%04x", c);
		else
			fwrite(s, 1, (size_t)n, f);
		s += n ? n : 1;
	}
	fputc('"', f);
}

static void item(struct json *j, const char *key)
{
	if (j->has_items[j->depth])
		fputc(',', j->f);
	j->has_items[j->depth] = true;
	indent(j);
	if (key) {
		put_string(j->f, key);
		fputs(": ", j->f);
	}
}

static void open_level(struct json *j, const char *key, char c)
{
	item(j, key);
	fputc(c, j->f);
	if (j->depth + 1 < JSON_MAX_DEPTH)
		j->depth++;
	j->has_items[j->depth] = false;
	j->closer[j->depth] = c == '{' ? '}' : ']';
}

void json_begin(struct json *j, FILE *f, const char *tool)
{
	json_begin_format(j, f, tool, 1);
}

void json_begin_format(struct json *j, FILE *f, const char *tool, int format)
{
	j->f = f;
	j->depth = 0;
	j->has_items[0] = false;
	fputc('{', f);
	j->depth = 1;
	j->has_items[1] = false;
	j->closer[1] = '}';
	json_int(j, "format", format);
	json_str(j, "tool", tool);
	json_str(j, "version", STRIPE_VERSION);
}

void json_object(struct json *j, const char *key)
{
	open_level(j, key, '{');
}

void json_array(struct json *j, const char *key)
{
	open_level(j, key, '[');
}

void json_close(struct json *j)
{
	bool had = j->has_items[j->depth];
	char c = j->closer[j->depth];

	j->depth--;
	if (had)
		indent(j);
	fputc(c, j->f);
}

void json_end(struct json *j)
{
	while (j->depth > 1)
		json_close(j);
	j->depth = 0;
	indent(j);
	fputs("}\n", j->f);
}

void json_str(struct json *j, const char *key, const char *v)
{
	item(j, key);
	put_string(j->f, v ? v : "");
}

void json_int(struct json *j, const char *key, long long v)
{
	item(j, key);
	fprintf(j->f, "%lld", v);
}

void json_uint(struct json *j, const char *key, unsigned long long v)
{
	item(j, key);
	fprintf(j->f, "%llu", v);
}

void json_bool(struct json *j, const char *key, bool v)
{
	item(j, key);
	fputs(v ? "true" : "false", j->f);
}

void json_null(struct json *j, const char *key)
{
	item(j, key);
	fputs("null", j->f);
}
