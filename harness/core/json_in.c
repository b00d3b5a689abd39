/* json_in.c - a small JSON reader, for reading sidecars back */
#define _POSIX_C_SOURCE 200809L
#include "json_in.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The parser's position in the text and where to put a message. */
struct json_in_parser {
	const char *s, *end;
	size_t line;
	int depth;
	char *err;
	size_t errlen;
};

static int json_in_fail(struct json_in_parser *p, const char *what)
{
	if (p->err[0] == '\0')
		snprintf(p->err, p->errlen, "line %zu: %s", p->line, what);
	return -1;
}

static void json_in_skip_space(struct json_in_parser *p)
{
	while (p->s < p->end && (*p->s == ' ' || *p->s == '\t' || *p->s == '\n' || *p->s == '\r')) {
		p->line += *p->s == '\n';
		p->s++;
	}
}

/* Consumes the literal word (true, false, null) or fails. */
static int json_in_word(struct json_in_parser *p, const char *word)
{
	size_t n = strlen(word);
	if ((size_t)(p->end - p->s) < n || memcmp(p->s, word, n) != 0)
		return json_in_fail(p, "unexpected text (not a JSON value)");
	p->s += n;
	return 0;
}

/* A number: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
static int json_in_number(struct json_in_parser *p, double *out)
{
	const char *q = p->s;
	char buf[64];
#define JSON_IN_DIGITS(q) ((q) < p->end && *(q) >= '0' && *(q) <= '9')
	if (q < p->end && *q == '-')
		q++;
	if (!JSON_IN_DIGITS(q))
		return json_in_fail(p, "malformed number");
	if (*q == '0')
		q++;
	else
		while (JSON_IN_DIGITS(q))
			q++;
	if (q < p->end && *q == '.') {
		q++;
		if (!JSON_IN_DIGITS(q))
			return json_in_fail(p, "malformed number");
		while (JSON_IN_DIGITS(q))
			q++;
	}
	if (q < p->end && (*q == 'e' || *q == 'E')) {
		q++;
		if (q < p->end && (*q == '+' || *q == '-'))
			q++;
		if (!JSON_IN_DIGITS(q))
			return json_in_fail(p, "malformed number");
		while (JSON_IN_DIGITS(q))
			q++;
	}
#undef JSON_IN_DIGITS
	if ((size_t)(q - p->s) >= sizeof buf)
		return json_in_fail(p, "number too long");
	memcpy(buf, p->s, (size_t)(q - p->s));
	buf[q - p->s] = '\0';
	errno = 0;
	*out = strtod(buf, NULL);
	if (errno == ERANGE && (*out > 1 || *out < -1))
		return json_in_fail(p, "number out of range");
	p->s = q;
	return 0;
}

/* Appends the UTF-8 encoding of code point c to out at *n. */
static void json_in_utf8(char *out, size_t *n, unsigned long c)
{
	if (c < 0x80) {
		out[(*n)++] = (char)c;
	} else if (c < 0x800) {
		out[(*n)++] = (char)(0xC0 | (c >> 6));
		out[(*n)++] = (char)(0x80 | (c & 0x3F));
	} else if (c < 0x10000) {
		out[(*n)++] = (char)(0xE0 | (c >> 12));
		out[(*n)++] = (char)(0x80 | ((c >> 6) & 0x3F));
		out[(*n)++] = (char)(0x80 | (c & 0x3F));
	} else {
		out[(*n)++] = (char)(0xF0 | (c >> 18));
		out[(*n)++] = (char)(0x80 | ((c >> 12) & 0x3F));
		out[(*n)++] = (char)(0x80 | ((c >> 6) & 0x3F));
		out[(*n)++] = (char)(0x80 | (c & 0x3F));
	}
}

/* Four hex digits after "\u". */
static int json_in_hex4(struct json_in_parser *p, unsigned long *out)
{
	*out = 0;
	if (p->end - p->s < 4)
		return json_in_fail(p, "truncated \\u escape");
	for (int i = 0; i < 4; i++) {
		char c = *p->s++;
		int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
			: c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
		if (d < 0)
			return json_in_fail(p, "malformed \\u escape");
		*out = *out * 16 + (unsigned long)d;
	}
	return 0;
}

/* One escape after the backslash, appended to out at *n. */
static int json_in_escape(struct json_in_parser *p, char *out, size_t *n)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	if (p->s == p->end)
		return json_in_fail(p, "unterminated string");
	char c = *p->s++;
	const char *k = c ? strchr(from, c) : NULL;
	if (k) {
		out[(*n)++] = to[k - from];
		return 0;
	}
	if (c != 'u')
		return json_in_fail(p, "unknown escape in string");
	unsigned long cp, lo;
	if (json_in_hex4(p, &cp) != 0)
		return -1;
	if (cp >= 0xD800 && cp <= 0xDBFF) {
		if (p->end - p->s < 2 || p->s[0] != '\\' || p->s[1] != 'u')
			return json_in_fail(p, "lone surrogate in \\u escape");
		p->s += 2;
		if (json_in_hex4(p, &lo) != 0)
			return -1;
		if (lo < 0xDC00 || lo > 0xDFFF)
			return json_in_fail(p, "lone surrogate in \\u escape");
		cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
	} else if ((cp >= 0xDC00 && cp <= 0xDFFF) || cp == 0) {
		return json_in_fail(p, cp ? "lone surrogate in \\u escape" : "\\u0000 in a string");
	}
	json_in_utf8(out, n, cp);
	return 0;
}

/* A string after its opening quote; *out is malloc'ed. */
static int json_in_string(struct json_in_parser *p, char **out)
{
	/* Decoding never lengthens: the rest of the text bounds the result. */
	char *buf = malloc((size_t)(p->end - p->s) + 1);
	size_t n = 0;
	if (!buf)
		return json_in_fail(p, "out of memory");
	for (;;) {
		if (p->s == p->end) {
			free(buf);
			return json_in_fail(p, "unterminated string");
		}
		unsigned char c = (unsigned char)*p->s++;
		if (c == '"')
			break;
		if (c < 0x20) {
			free(buf);
			return json_in_fail(p, "control character in string");
		}
		if (c != '\\')
			buf[n++] = (char)c;
		else if (json_in_escape(p, buf, &n) != 0) {
			free(buf);
			return -1;
		}
	}
	buf[n] = '\0';
	*out = buf;
	return 0;
}

static int json_in_value(struct json_in_parser *p, struct json_in_value *v);

/* Appends a zeroed item to v (and a key slot for objects); returns it. */
static struct json_in_value *json_in_push(struct json_in_parser *p, struct json_in_value *v,
					  size_t *cap)
{
	if (v->count == *cap) {
		size_t ncap = *cap ? 2 * *cap : 8;
		struct json_in_value *items = realloc(v->items, ncap * sizeof *items);
		if (!items)
			return json_in_fail(p, "out of memory"), NULL;
		v->items = items;
		if (v->type == JSON_IN_OBJECT) {
			char **keys = realloc(v->keys, ncap * sizeof *keys);
			if (!keys)
				return json_in_fail(p, "out of memory"), NULL;
			v->keys = keys;
		}
		*cap = ncap;
	}
	struct json_in_value *item = &v->items[v->count];
	memset(item, 0, sizeof *item);
	if (v->type == JSON_IN_OBJECT)
		v->keys[v->count] = NULL;
	v->count++;
	return item;
}

/* An array or object after its opening bracket; close is ']' or '}'. */
static int json_in_container(struct json_in_parser *p, struct json_in_value *v, char close)
{
	size_t cap = 0;
	if (++p->depth > JSON_IN_MAX_DEPTH)
		return json_in_fail(p, "nested too deeply");
	json_in_skip_space(p);
	if (p->s < p->end && *p->s == close) {
		p->s++;
		p->depth--;
		return 0;
	}
	for (;;) {
		struct json_in_value *item = json_in_push(p, v, &cap);
		if (!item)
			return -1;
		if (close == '}') {
			json_in_skip_space(p);
			if (p->s == p->end || *p->s != '"')
				return json_in_fail(p, "expected a member name in quotes");
			p->s++;
			if (json_in_string(p, &v->keys[v->count - 1]) != 0)
				return -1;
			json_in_skip_space(p);
			if (p->s == p->end || *p->s++ != ':')
				return json_in_fail(p, "expected ':' after a member name");
		}
		if (json_in_value(p, item) != 0)
			return -1;
		json_in_skip_space(p);
		if (p->s < p->end && *p->s == ',') {
			p->s++;
			continue;
		}
		if (p->s < p->end && *p->s == close) {
			p->s++;
			p->depth--;
			return 0;
		}
		return json_in_fail(p, close == '}' ? "expected ',' or '}'" : "expected ',' or ']'");
	}
}

static int json_in_value(struct json_in_parser *p, struct json_in_value *v)
{
	memset(v, 0, sizeof *v);
	json_in_skip_space(p);
	if (p->s == p->end)
		return json_in_fail(p, "unexpected end of text");
	switch (*p->s) {
	case '{':
		p->s++;
		v->type = JSON_IN_OBJECT;
		return json_in_container(p, v, '}');
	case '[':
		p->s++;
		v->type = JSON_IN_ARRAY;
		return json_in_container(p, v, ']');
	case '"':
		p->s++;
		v->type = JSON_IN_STRING;
		return json_in_string(p, &v->string);
	case 't':
	case 'f':
		v->type = JSON_IN_BOOL;
		v->boolean = *p->s == 't';
		return json_in_word(p, v->boolean ? "true" : "false");
	case 'n':
		return json_in_word(p, "null");
	default:
		v->type = JSON_IN_NUMBER;
		return json_in_number(p, &v->number);
	}
}

int json_in_parse(const char *text, size_t len, struct json_in_value *out, char *err,
		  size_t errlen)
{
	struct json_in_parser p = { text, text + len, 1, 0, err, errlen };
	err[0] = '\0';
	int rc = json_in_value(&p, out);
	if (rc == 0) {
		json_in_skip_space(&p);
		if (p.s != p.end)
			rc = json_in_fail(&p, "text after the JSON value");
	}
	if (rc != 0)
		json_in_free(out);
	return rc;
}

int json_in_read_file(const char *path, struct json_in_value *out, char *err, size_t errlen)
{
	char what[256];
	size_t len = 0, cap = 1 << 16;
	char *text = malloc(cap);
	FILE *fp = fopen(path, "rb");
	memset(out, 0, sizeof *out);
	if (!fp || !text) {
		snprintf(err, errlen, "%s: %s", path, fp ? "out of memory" : strerror(errno));
		goto out_close;
	}
	for (size_t got; (got = fread(text + len, 1, cap - len, fp)) > 0;) {
		len += got;
		if (len < cap)
			continue;
		char *grown = realloc(text, 2 * cap);
		if (!grown) {
			snprintf(err, errlen, "%s: out of memory", path);
			goto out_close;
		}
		text = grown;
		cap *= 2;
	}
	if (ferror(fp)) {
		snprintf(err, errlen, "%s: cannot read", path);
		goto out_close;
	}
	fclose(fp);
	int rc = json_in_parse(text, len, out, what, sizeof what);
	if (rc != 0)
		snprintf(err, errlen, "%s: %s", path, what);
	free(text);
	return rc;
out_close:
	if (fp)
		fclose(fp);
	free(text);
	return -1;
}

const struct json_in_value *json_in_member(const struct json_in_value *obj, const char *key)
{
	if (!obj || obj->type != JSON_IN_OBJECT)
		return NULL;
	for (size_t i = 0; i < obj->count; i++)
		if (obj->keys[i] && strcmp(obj->keys[i], key) == 0)
			return &obj->items[i];
	return NULL;
}

const struct json_in_value *json_in_find(const struct json_in_value *v, const char *key)
{
	const struct json_in_value *own = json_in_member(v, key);

	if (own || !v || (v->type != JSON_IN_OBJECT && v->type != JSON_IN_ARRAY))
		return own;
	for (size_t i = 0; i < v->count; i++) {
		const struct json_in_value *found = json_in_find(&v->items[i], key);

		if (found)
			return found;
	}
	return NULL;
}

void json_in_free(struct json_in_value *v)
{
	for (size_t i = 0; v->items && i < v->count; i++) {
		json_in_free(&v->items[i]);
		if (v->keys)
			free(v->keys[i]);
	}
	free(v->items);
	free(v->keys);
	free(v->string);
	memset(v, 0, sizeof *v);
}
