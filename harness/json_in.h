/* json_in.h - reading a few values back from the harness's own JSON sidecars */
#ifndef HARNESS_JSON_IN_H
#define HARNESS_JSON_IN_H

#include <stddef.h>

/*
 * Not a JSON parser: the sidecars are written by json_out, so a value is
 * found by its key's first occurrence. Enough to check a results pair and
 * to tell which device a file was measured on.
 */

/* The whole file at path as a NUL-terminated string (caller frees), or
 * NULL when it cannot be read. */
char *json_in_read_file(const char *path);

/* Decodes the JSON string whose opening quote s points to into out
 * (truncated to outlen - 1 bytes). */
void json_in_string(const char *s, char *out, size_t outlen);

/* Where the value of the first "key": ... in json starts (past the colon
 * and blanks), or NULL when the key is not there. */
const char *json_in_value(const char *json, const char *key);

#endif
