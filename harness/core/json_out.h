/* json_out.h - a small streaming JSON writer for metadata sidecars */
#ifndef JSON_OUT_H
#define JSON_OUT_H

#include <stdbool.h>
#include <stdio.h>

/* Deepest nesting of objects and arrays a writer accepts. */
#define JSON_MAX_DEPTH 32

/*
 * Writes one JSON value (normally an object) to fp, pretty-printed with a
 * two-space indent, one member or element per line, "{}" and "[]" when
 * empty. The writer keeps the nesting so that commas, newlines and indents
 * come out right; calling it out of order (a key outside an object, a value
 * where a key is due, closing what is not open, a second top-level value)
 * is a programming error and fails an assert. Errors on fp are not
 * reported here: check ferror(fp), as atomic_file_commit does.
 * Treat the fields as private.
 */
struct json_out {
	FILE *fp;
	int depth;                      /* containers open */
	char open[JSON_MAX_DEPTH];      /* '{' or '[' for each open container */
	unsigned long count[JSON_MAX_DEPTH]; /* members or elements so far */
	bool after_key;                 /* a key was written, its value is due */
	bool done;                      /* the top-level value is complete */
};

/* Starts a writer on fp. */
void json_init(struct json_out *j, FILE *fp);
/* Ends the document with a newline; asserts that everything was closed. */
void json_finish(struct json_out *j);

void json_begin_object(struct json_out *j);
void json_end_object(struct json_out *j);
void json_begin_array(struct json_out *j);
void json_end_array(struct json_out *j);

/* Writes a member name; the next call writes its value. */
void json_key(struct json_out *j, const char *key);

/*
 * Values. Strings are taken as UTF-8 and passed through, with '"', '\\'
 * and control characters escaped (\n, \t, ... or \u00XX); a NULL string is
 * written as null. Doubles are written with the fewest of 15, 16 or 17
 * significant digits that read back as the same double ("0.1", not
 * "0.10000000000000001"); NaN and infinities, which JSON cannot hold, are
 * written as null.
 */
void json_string(struct json_out *j, const char *s);
void json_double(struct json_out *j, double v);
void json_int(struct json_out *j, long long v);
void json_bool(struct json_out *j, bool v);
void json_null(struct json_out *j);

/* A key and its value in one call. */
void json_kv_string(struct json_out *j, const char *key, const char *value);
void json_kv_double(struct json_out *j, const char *key, double value);
void json_kv_int(struct json_out *j, const char *key, long long value);
void json_kv_bool(struct json_out *j, const char *key, bool value);
void json_kv_null(struct json_out *j, const char *key);

#endif /* JSON_OUT_H */
