/* json_in.c - reading a few values back from the harness's own JSON sidecars */
#include "json_in.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *json_in_read_file(const char *path)
{
	FILE *fp = fopen(path, "rb");
	if (!fp)
		return NULL;
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap);
	while (buf) {
		n += fread(buf + n, 1, cap - n - 1, fp);
		if (n + 1 < cap)
			break;
		char *b = realloc(buf, cap *= 2);
		if (!b)
			free(buf);
		buf = b;
	}
	fclose(fp);
	if (buf)
		buf[n] = '\0';
	return buf;
}

void json_in_string(const char *s, char *out, size_t outlen)
{
	size_t n = 0;
	for (s++; *s && *s != '"' && n + 1 < outlen; s++) {
		if (*s == '\\' && s[1]) {
			s++;
			if (*s == 'u' && strlen(s) >= 5) {
				out[n++] = (char)strtol((char[]){ s[3], s[4], 0 }, NULL, 16);
				s += 4;
				continue;
			}
			out[n++] = *s == 'n' ? '\n' : *s == 't' ? '\t' : *s;
			continue;
		}
		out[n++] = *s;
	}
	out[n] = '\0';
}

const char *json_in_value(const char *json, const char *key)
{
	size_t klen = strlen(key);
	for (const char *p = json; (p = strchr(p, '"')) != NULL; p++) {
		if (strncmp(p + 1, key, klen) != 0 || p[1 + klen] != '"')
			continue;
		const char *v = p + 2 + klen;
		v += strspn(v, " \t\r\n");
		if (*v != ':')
			continue;
		v++;
		return v + strspn(v, " \t\r\n");
	}
	return NULL;
}
