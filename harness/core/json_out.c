/* json_out.c - a small streaming JSON writer for metadata sidecars */
#include "json_out.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>

void json_init(struct json_out *j, FILE *fp)
{
	j->fp = fp;
	j->depth = 0;
	j->after_key = false;
	j->done = false;
}

void json_finish(struct json_out *j)
{
	assert(j->done && j->depth == 0);
	fputc('\n', j->fp);
}

static void json_newline_indent(struct json_out *j, int depth)
{
	fputc('\n', j->fp);
	for (int i = 0; i < depth; i++)
		fputs("  ", j->fp);
}

/*
 * Puts out what must come before a value: nothing after a key, else a
 * comma after the previous element and the element's line and indent.
 */
static void json_before_value(struct json_out *j)
{
	if (j->after_key) {
		j->after_key = false;
		return;
	}
	if (j->depth == 0) {
		assert(!j->done && "a second top-level JSON value");
		return;
	}
	assert(j->open[j->depth - 1] == '[' && "JSON value where a key is due");
	if (j->count[j->depth - 1]++ > 0)
		fputc(',', j->fp);
	json_newline_indent(j, j->depth);
}

/* Bookkeeping after a complete value (scalar or closed container). */
static void json_after_value(struct json_out *j)
{
	if (j->depth == 0)
		j->done = true;
}

static void json_begin(struct json_out *j, char open)
{
	json_before_value(j);
	assert(j->depth < JSON_MAX_DEPTH && "JSON nested too deeply");
	j->open[j->depth] = open;
	j->count[j->depth] = 0;
	j->depth++;
	fputc(open, j->fp);
}

static void json_end(struct json_out *j, char open, char close)
{
	assert(j->depth > 0 && j->open[j->depth - 1] == open &&
	       "closing a JSON container that is not open");
	assert(!j->after_key && "JSON key without a value");
	j->depth--;
	if (j->count[j->depth] > 0)
		json_newline_indent(j, j->depth);
	fputc(close, j->fp);
	json_after_value(j);
}

void json_begin_object(struct json_out *j) { json_begin(j, '{'); }
void json_end_object(struct json_out *j) { json_end(j, '{', '}'); }
void json_begin_array(struct json_out *j) { json_begin(j, '['); }
void json_end_array(struct json_out *j) { json_end(j, '[', ']'); }

/* Writes s as a quoted JSON string; bytes from 0x80 up pass through. */
static void json_put_string(FILE *fp, const char *s)
{
	fputc('"', fp);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '"':  fputs("\\\"", fp); break;
		case '\\': fputs("\\\\", fp); break;
		case '\b': fputs("\\b", fp); break;
		case '\f': fputs("\\f", fp); break;
		case '\n': fputs("\\n", fp); break;
		case '\r': fputs("\\r", fp); break;
		case '\t': fputs("\\t", fp); break;
		default:
			if (*p < 0x20)
				fprintf(fp, "\\u%04x", *p);
			else
				fputc(*p, fp);
		}
	}
	fputc('"', fp);
}

void json_key(struct json_out *j, const char *key)
{
	assert(j->depth > 0 && j->open[j->depth - 1] == '{' &&
	       "JSON key outside an object");
	assert(!j->after_key && "JSON key where a value is due");
	if (j->count[j->depth - 1]++ > 0)
		fputc(',', j->fp);
	json_newline_indent(j, j->depth);
	json_put_string(j->fp, key);
	fputs(": ", j->fp);
	j->after_key = true;
}

void json_string(struct json_out *j, const char *s)
{
	if (!s) {
		json_null(j);
		return;
	}
	json_before_value(j);
	json_put_string(j->fp, s);
	json_after_value(j);
}

void json_double(struct json_out *j, double v)
{
	char buf[32];

	if (!isfinite(v)) {
		json_null(j);
		return;
	}
	/* 17 digits always read back exactly; fewer often do and read better. */
	for (int digits = 15; digits <= 17; digits++) {
		snprintf(buf, sizeof(buf), "%.*g", digits, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	json_before_value(j);
	fputs(buf, j->fp);
	json_after_value(j);
}

void json_int(struct json_out *j, long long v)
{
	json_before_value(j);
	fprintf(j->fp, "%lld", v);
	json_after_value(j);
}

void json_bool(struct json_out *j, bool v)
{
	json_before_value(j);
	fputs(v ? "true" : "false", j->fp);
	json_after_value(j);
}

void json_null(struct json_out *j)
{
	json_before_value(j);
	fputs("null", j->fp);
	json_after_value(j);
}

void json_kv_string(struct json_out *j, const char *key, const char *value)
{
	json_key(j, key);
	json_string(j, value);
}

void json_kv_double(struct json_out *j, const char *key, double value)
{
	json_key(j, key);
	json_double(j, value);
}

void json_kv_int(struct json_out *j, const char *key, long long value)
{
	json_key(j, key);
	json_int(j, value);
}

void json_kv_bool(struct json_out *j, const char *key, bool value)
{
	json_key(j, key);
	json_bool(j, value);
}

void json_kv_null(struct json_out *j, const char *key)
{
	json_key(j, key);
	json_null(j);
}
