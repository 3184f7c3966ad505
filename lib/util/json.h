/* json: a small streaming JSON writer shared by every tool's --json output. */
#ifndef STRIPE_JSON_H
#define STRIPE_JSON_H

#include <stdbool.h>
#include <stdio.h>

#define JSON_MAX_DEPTH 16

struct json {
	FILE *f;
	int depth;
	bool has_items[JSON_MAX_DEPTH];
	char closer[JSON_MAX_DEPTH];   /* '}' or ']' for each open level */
};

/* Starts the top-level object with "format": 1, "tool" and "version". */
void json_begin(struct json *j, FILE *f, const char *tool);
/* The same for a document whose fields changed meaning: "format" as given. */
void json_begin_format(struct json *j, FILE *f, const char *tool, int format);
/* Closes every open level and ends the line. */
void json_end(struct json *j);

/* key is NULL inside arrays. */
void json_object(struct json *j, const char *key);
void json_array(struct json *j, const char *key);
void json_close(struct json *j);
void json_str(struct json *j, const char *key, const char *v);
void json_int(struct json *j, const char *key, long long v);
void json_uint(struct json *j, const char *key, unsigned long long v);
void json_bool(struct json *j, const char *key, bool v);
void json_null(struct json *j, const char *key);

#endif
