/* json_in.h - a small JSON reader, for reading sidecars back */
#ifndef JSON_IN_H
#define JSON_IN_H

#include <stdbool.h>
#include <stddef.h>

/* Deepest nesting of objects and arrays the reader accepts. */
#define JSON_IN_MAX_DEPTH 64

enum json_in_type { JSON_IN_NULL, JSON_IN_BOOL, JSON_IN_NUMBER, JSON_IN_STRING, JSON_IN_ARRAY,
		    JSON_IN_OBJECT };

/* One parsed value; a document is a tree of them, owned by its root. */
struct json_in_value {
	enum json_in_type type;
	bool boolean;                 /* JSON_IN_BOOL */
	double number;                /* JSON_IN_NUMBER */
	char *string;                 /* JSON_IN_STRING: decoded, UTF-8, NUL-terminated */
	size_t count;                 /* JSON_IN_ARRAY, JSON_IN_OBJECT: how many items */
	struct json_in_value *items;  /* the elements, or the members' values, in order */
	char **keys;                  /* JSON_IN_OBJECT: the members' names */
};

/*
 * Parses one JSON document (RFC 8259: one value, surrounded by white space
 * only) from text[0..len) into out. Strings are decoded (escapes, \u
 * surrogate pairs to UTF-8; a \u0000 is refused, since strings are
 * NUL-terminated); numbers must follow JSON's grammar. Returns 0, or -1
 * with "line L: what" in err and out left empty (json_in_free harmless).
 */
int json_in_parse(const char *text, size_t len, struct json_in_value *out, char *err,
		  size_t errlen);

/* Reads and parses the file at path. 0, or -1 with "path: ..." in err. */
int json_in_read_file(const char *path, struct json_in_value *out, char *err, size_t errlen);

/* The value of obj's member key (the first, if repeated); NULL when obj is
 * NULL, not an object, or has no such member. */
const struct json_in_value *json_in_member(const struct json_in_value *obj, const char *key);

/* The first member named key found depth first in v (v's own members
 * before those of its children, in document order); NULL when none. For
 * keys that occur once in a sidecar ("csv_fnv1a64", "logical_cpus"). */
const struct json_in_value *json_in_find(const struct json_in_value *v, const char *key);

/* Frees what v holds and leaves it JSON_IN_NULL; harmless to repeat. */
void json_in_free(struct json_in_value *v);

#endif /* JSON_IN_H */
