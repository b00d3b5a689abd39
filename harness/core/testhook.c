/* testhook.c - switches only tests turn on: a planted slowdown of named variants */
#define _POSIX_C_SOURCE 200809L
#include "testhook.h"

#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A hook variable: its name, what its number means and its range. */
struct testhook_var {
	const char *name, *unit;
	double max, scale; /* the number is in (0, max]; times scale is the value */
};

static const struct testhook_var testhook_vars[] = {
	{ TESTHOOK_SLOWDOWN, "PERCENT", 1000, 0.01 },
	{ TESTHOOK_WORK, "MICROSECONDS", 1e6, 1e-6 },
};

const char *testhook_active(const char *var)
{
	const char *on = getenv(TESTHOOK_ENABLE), *spec = getenv(var);
	if (!on || strcmp(on, "1") != 0 || !spec || !spec[0])
		return NULL;
	return spec;
}

/*
 * Walks the entries of var's value spec. For each, calls visit(pattern,
 * value, arg) until it returns non-zero. Returns what visit returned, 0
 * when the entries ran out, or -1 with err for a malformed entry.
 */
static int testhook_walk(const struct testhook_var *var, const char *spec,
			 int (*visit)(const char *, double, void *), void *arg, char *err,
			 size_t errlen)
{
	char *copy = strdup(spec), *save = NULL;
	int rc = 0;
	if (!copy) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (char *w = strtok_r(copy, ",", &save); w && rc == 0; w = strtok_r(NULL, ",", &save)) {
		char *colon = strrchr(w, ':'), *end = NULL;
		double v = colon ? strtod(colon + 1, &end) : NAN;
		if (!colon || colon == w || end == colon + 1 || *end != '\0' || !(v > 0 && v <= var->max)) {
			snprintf(err, errlen, "%s entry '%s' is not VARIANT:%s with 0 < %s <= %g (e.g. cpu-portable:30)",
				 var->name, w, var->unit, var->unit, var->max);
			rc = -1;
			break;
		}
		*colon = '\0';
		rc = visit(w, v * var->scale, arg);
	}
	free(copy);
	return rc;
}

struct testhook_check_ctx {
	const char *var;
	bool (*names_variant)(const char *pattern);
	char *err;
	size_t errlen;
};

static int testhook_check_one(const char *pattern, double value, void *arg)
{
	struct testhook_check_ctx *c = arg;
	(void)value;
	if (c->names_variant(pattern))
		return 0;
	snprintf(c->err, c->errlen, "%s: '%s' names no variant (see 'harness list', 'harness sph list')",
		 c->var, pattern);
	return -1;
}

/* HARNESS_TEST_INTERRUPT's value: 0 with *rows and *sig, or -1. */
static int testhook_parse_interrupt(const char *spec, size_t *rows, int *sig)
{
	static const struct { const char *name; int sig; } sigs[] = {
		{ "INT", SIGINT }, { "TERM", SIGTERM }, { "HUP", SIGHUP },
	};
	char *end;
	errno = 0;
	unsigned long long n = strtoull(spec, &end, 10);
	if (errno || end == spec || *end != ':' || n < 1 || n > 1000000 || spec[0] == '-')
		return -1;
	for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++)
		if (strcmp(end + 1, sigs[i].name) == 0) {
			*rows = (size_t)n;
			*sig = sigs[i].sig;
			return 0;
		}
	return -1;
}

int testhook_interrupt(size_t *rows)
{
	const char *spec = testhook_active(TESTHOOK_INTERRUPT);
	int sig = 0;
	if (!spec || testhook_parse_interrupt(spec, rows, &sig) != 0)
		return 0;
	return sig;
}

int testhook_check(bool (*names_variant)(const char *pattern), char *err, size_t errlen)
{
	const char *intr = testhook_active(TESTHOOK_INTERRUPT);
	size_t rows;
	int sig;
	if (intr && testhook_parse_interrupt(intr, &rows, &sig) != 0) {
		snprintf(err, errlen, "%s '%s' is not ROWS:SIGNAL with 1 <= ROWS <= 1000000 and SIGNAL "
			 "INT, TERM or HUP (e.g. 2:INT)", TESTHOOK_INTERRUPT, intr);
		return -1;
	}
	for (size_t i = 0; i < sizeof testhook_vars / sizeof *testhook_vars; i++) {
		const char *spec = testhook_active(testhook_vars[i].name);
		struct testhook_check_ctx c = { testhook_vars[i].name, names_variant, err, errlen };
		if (spec && testhook_walk(&testhook_vars[i], spec, testhook_check_one, &c, err, errlen) != 0)
			return -1;
	}
	return 0;
}

struct testhook_find_ctx {
	const char *name;
	double value;
};

static int testhook_find_one(const char *pattern, double value, void *arg)
{
	struct testhook_find_ctx *f = arg;
	if (fnmatch(pattern, f->name, 0) != 0)
		return 0;
	f->value = value;
	return 1;
}

/* The value var gives the variant called name; 0 when none. */
static double testhook_value(const struct testhook_var *var, const char *name)
{
	const char *spec = testhook_active(var->name);
	struct testhook_find_ctx f = { name, 0.0 };
	char err[256];
	if (!spec || testhook_walk(var, spec, testhook_find_one, &f, err, sizeof err) < 0)
		return 0.0;
	return f.value;
}

double testhook_slowdown(const char *name)
{
	return testhook_value(&testhook_vars[0], name);
}

double testhook_work(const char *name)
{
	return testhook_value(&testhook_vars[1], name);
}
