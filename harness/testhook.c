/* testhook.c - switches only tests turn on: a planted slowdown of named variants */
#define _POSIX_C_SOURCE 200809L
#include "testhook.h"

#include <fnmatch.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../variants/registry.h"
#include "../variants/sph_registry.h"

const char *testhook_active(void)
{
	const char *on = getenv(TESTHOOK_ENABLE), *spec = getenv(TESTHOOK_SLOWDOWN);
	if (!on || strcmp(on, "1") != 0 || !spec || !spec[0])
		return NULL;
	return spec;
}

/* Whether pattern matches a variant of either registry. */
static bool testhook_names_variant(const char *pattern)
{
	bool nbody[NBODY_VARIANT_COUNT] = { false }, sph[SPH_VARIANT_COUNT] = { false };
	return variant_match(pattern, nbody) + sph_variant_match(pattern, sph) > 0;
}

/*
 * Walks the entries of spec. For each, calls visit(pattern, fraction, arg)
 * until it returns non-zero. Returns what visit returned, 0 when the
 * entries ran out, or -1 with err for a malformed entry.
 */
static int testhook_walk(const char *spec, int (*visit)(const char *, double, void *), void *arg,
			 char *err, size_t errlen)
{
	char *copy = strdup(spec), *save = NULL;
	int rc = 0;
	if (!copy) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (char *w = strtok_r(copy, ",", &save); w && rc == 0; w = strtok_r(NULL, ",", &save)) {
		char *colon = strrchr(w, ':'), *end = NULL;
		double pct = colon ? strtod(colon + 1, &end) : NAN;
		if (!colon || colon == w || end == colon + 1 || *end != '\0' || !(pct > 0 && pct <= 1000)) {
			snprintf(err, errlen,
				 "%s entry '%s' is not VARIANT:PERCENT with 0 < PERCENT <= 1000 (e.g. cpu-portable:30)",
				 TESTHOOK_SLOWDOWN, w);
			rc = -1;
			break;
		}
		*colon = '\0';
		rc = visit(w, pct / 100.0, arg);
	}
	free(copy);
	return rc;
}

struct testhook_check_ctx {
	char *err;
	size_t errlen;
};

static int testhook_check_one(const char *pattern, double fraction, void *arg)
{
	struct testhook_check_ctx *c = arg;
	(void)fraction;
	if (testhook_names_variant(pattern))
		return 0;
	snprintf(c->err, c->errlen, "%s: '%s' names no variant (see 'harness list', 'harness sph list')",
		 TESTHOOK_SLOWDOWN, pattern);
	return -1;
}

int testhook_check(char *err, size_t errlen)
{
	const char *spec = testhook_active();
	struct testhook_check_ctx c = { err, errlen };
	return spec ? (testhook_walk(spec, testhook_check_one, &c, err, errlen) != 0 ? -1 : 0) : 0;
}

struct testhook_find_ctx {
	const char *name;
	double fraction;
};

static int testhook_find_one(const char *pattern, double fraction, void *arg)
{
	struct testhook_find_ctx *f = arg;
	if (fnmatch(pattern, f->name, 0) != 0)
		return 0;
	f->fraction = fraction;
	return 1;
}

double testhook_slowdown(const char *name)
{
	const char *spec = testhook_active();
	struct testhook_find_ctx f = { name, 0.0 };
	char err[256];
	if (!spec || testhook_walk(spec, testhook_find_one, &f, err, sizeof err) < 0)
		return 0.0;
	return f.fraction;
}
