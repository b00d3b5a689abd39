/* skips.c - variants a run could not run here: said once, in one line, and kept in its sidecar */
#include "skips.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "json_in.h"
#include "json_out.h"

void skips_add(struct skips *s, const char *name, const char *why)
{
	for (size_t i = 0; i < s->count; i++)
		if (strncmp(s->name[i], name, sizeof s->name[i] - 1) == 0)
			return;
	if (s->count == SKIPS_MAX) {
		s->dropped++;
		return;
	}
	snprintf(s->name[s->count], sizeof s->name[0], "%s", name);
	snprintf(s->why[s->count], sizeof s->why[0], "%s", why && why[0] ? why : "cannot run here");
	s->count++;
}

size_t skips_total(const struct skips *s)
{
	return s->count + s->dropped;
}

/* Appends text to out (of len, n used so far); marks a cut with "...". */
static size_t skips_put(char *out, size_t len, size_t n, const char *text)
{
	if (n + 1 >= len)
		return n;
	int w = snprintf(out + n, len - n, "%s", text);
	if (w < 0)
		return n;
	if ((size_t)w >= len - n) {
		if (len >= 4)
			memcpy(out + len - 4, "...", 4);
		return len - 1;
	}
	return n + (size_t)w;
}

/* Whether the reason of entry i was seen in an earlier entry. */
static bool skips_seen_before(const struct skips *s, size_t i)
{
	for (size_t k = 0; k < i; k++)
		if (strcmp(s->why[k], s->why[i]) == 0)
			return true;
	return false;
}

void skips_describe(const struct skips *s, char *out, size_t len)
{
	char buf[320];
	size_t n = 0, groups = 0;
	if (len)
		out[0] = '\0';
	if (!len || skips_total(s) == 0)
		return;
	for (size_t i = 0; i < s->count; i++)
		groups += !skips_seen_before(s, i);
	snprintf(buf, sizeof buf, "%zu variant%s that cannot run here%s", skips_total(s),
		 skips_total(s) == 1 ? "" : "s", groups > 1 ? ":" : "");
	n = skips_put(out, len, n, buf);
	for (size_t i = 0, g = 0; i < s->count; i++) {
		if (skips_seen_before(s, i))
			continue;
		size_t in_group = 0;
		for (size_t k = i; k < s->count; k++)
			in_group += strcmp(s->why[k], s->why[i]) == 0;
		if (groups > 1)
			snprintf(buf, sizeof buf, "%s %zu (%s): ", g ? ";" : "", in_group, s->why[i]);
		else
			snprintf(buf, sizeof buf, " (%s): ", s->why[i]);
		n = skips_put(out, len, n, buf);
		for (size_t k = i, m = 0; k < s->count; k++) {
			if (strcmp(s->why[k], s->why[i]) != 0)
				continue;
			n = skips_put(out, len, n, m++ ? ", " : "");
			n = skips_put(out, len, n, s->name[k]);
		}
		g++;
	}
	if (s->dropped) {
		snprintf(buf, sizeof buf, "; and %zu more", s->dropped);
		skips_put(out, len, n, buf);
	}
}

void skips_say(FILE *fp, const struct skips *s, const char *prefix)
{
	char what[1024];
	if (skips_total(s) == 0)
		return;
	skips_describe(s, what, sizeof what);
	fprintf(fp, "%sskipped %s\n", prefix, what);
}

void skips_say_each(FILE *fp, const struct skips *s, const char *label)
{
	for (size_t i = 0; i < s->count; i++) {
		if (skips_seen_before(s, i))
			continue;
		size_t in_group = 0;
		for (size_t k = i; k < s->count; k++)
			in_group += strcmp(s->why[k], s->why[i]) == 0;
		fprintf(fp, "%zu variant%s: ", in_group, in_group == 1 ? "" : "s");
		for (size_t k = i, m = 0; k < s->count; k++)
			if (strcmp(s->why[k], s->why[i]) == 0)
				fprintf(fp, "%s%s", m++ ? ", " : "", s->name[k]);
		fprintf(fp, " (%s: %s)\n", label, s->why[i]);
	}
	if (s->dropped)
		fprintf(fp, "%zu more variants (%s)\n", s->dropped, label);
}

void skips_json(struct json_out *j, const struct skips *s)
{
	json_key(j, "skipped");
	json_begin_array(j);
	for (size_t i = 0; i < s->count; i++) {
		json_begin_object(j);
		json_kv_string(j, "variant", s->name[i]);
		json_kv_string(j, "why", s->why[i]);
		json_end_object(j);
	}
	json_end_array(j);
}

int skips_from_sidecar(const struct json_in_value *side, struct skips *s)
{
	memset(s, 0, sizeof *s);
	const struct json_in_value *a = json_in_member(side, "skipped");
	if (!a)
		return 0;
	if (a->type != JSON_IN_ARRAY)
		return -1;
	for (size_t i = 0; i < a->count; i++) {
		const struct json_in_value *v = json_in_member(&a->items[i], "variant");
		const struct json_in_value *w = json_in_member(&a->items[i], "why");
		if (!v || v->type != JSON_IN_STRING || !w || w->type != JSON_IN_STRING)
			return -1;
		skips_add(s, v->string, w->string);
	}
	return 0;
}
