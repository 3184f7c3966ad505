/* json: streaming JSON with two-space indentation, strings escaped per RFC 8259. */
#include "util/json.h"

static void indent(struct json *j)
{
	int i;

	fputc('\n', j->f);
	for (i = 0; i < j->depth; i++)
		fputs("  ", j->f);
}

static void put_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", f);
		else if (c == '\t')
			fputs("\\t", f);
		else if (c < 0x20 || c == 0x7f)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
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
	j->f = f;
	j->depth = 0;
	j->has_items[0] = false;
	fputc('{', f);
	j->depth = 1;
	j->has_items[1] = false;
	j->closer[1] = '}';
	json_int(j, "format", 1);
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
