/* calibrate.c - bin/harness calibrate: what separate runs of the same code differ by, as the floors of compare */
#define _POSIX_C_SOURCE 200809L
#include "calibrate.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../cli.h"
#include "compare.h"
#include "../core/json_out.h"
#include "../core/results.h"

/* One pair: a row of two separate runs. */
struct calibrate_pair {
	size_t group;
	const char *device_name, *kind, *device;
	int band;
	double d, n; /* |difference| and combined noise, percent */
	double b, v; /* the two figures */
};

struct calibrate_pairs {
	struct calibrate_pair *p;
	size_t n, cap;
	char **names;   /* owned strings the pairs point into */
	size_t nnames, capnames;
};

/* An owned copy of s in ps (the same one for an equal string). */
static const char *calibrate_intern(struct calibrate_pairs *ps, const char *s)
{
	for (size_t i = 0; i < ps->nnames; i++)
		if (strcmp(ps->names[i], s) == 0)
			return ps->names[i];
	if (ps->nnames == ps->capnames) {
		size_t cap = ps->capnames ? 2 * ps->capnames : 16;
		char **grown = realloc(ps->names, cap * sizeof *grown);
		if (!grown)
			return NULL;
		ps->names = grown;
		ps->capnames = cap;
	}
	return (ps->names[ps->nnames++] = strdup(s));
}

static int calibrate_add(struct calibrate_pairs *ps, const struct calibrate_pair *p)
{
	if (ps->n == ps->cap) {
		size_t cap = ps->cap ? 2 * ps->cap : 256;
		struct calibrate_pair *grown = realloc(ps->p, cap * sizeof *grown);
		if (!grown)
			return -1;
		ps->p = grown;
		ps->cap = cap;
	}
	ps->p[ps->n++] = *p;
	return 0;
}

static void calibrate_pairs_free(struct calibrate_pairs *ps)
{
	for (size_t i = 0; i < ps->nnames; i++)
		free(ps->names[i]);
	free(ps->names);
	free(ps->p);
}

/* The file name of path (the suite's: "sph-table.csv"). */
static const char *calibrate_base(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

/* Every timed pair of rows of the two runs a and b, into ps. 0, or -1. */
static int calibrate_join(const char *a, const char *b, size_t group, struct calibrate_pairs *ps,
			  char *err, size_t errlen)
{
	struct compare_opts o = { .threshold_pct = CALIBRATE_THRESHOLD_PCT,
				  .min_change_pct = COMPARE_DEFAULT_MIN_CHANGE_PCT };
	struct compare_report r;
	if (compare_files(a, b, &o, &r, err, errlen) != 0)
		return -1;
	int rc = 0;
	for (size_t i = 0; i < r.count && rc == 0; i++) {
		const struct compare_entry *e = &r.entries[i];
		if (!e->in_base || !e->in_new || e->untimed || !e->base.valid || !e->new.valid ||
		    !(e->base.value > 0) || !(e->new.value > 0))
			continue;
		struct calibrate_pair p = {
			.group = group,
			.device_name = calibrate_intern(ps, e->base.device_name),
			.kind = r.kind->slug,
			.device = calibrate_intern(ps, e->base.device_class),
			.band = floors_band(fmin(e->base.call_s, e->new.call_s)),
			.d = 100.0 * fabs(log(e->new.value / e->base.value)),
			.n = sqrt(e->base.noise_pct * e->base.noise_pct +
				  e->new.noise_pct * e->new.noise_pct),
			.b = e->base.value,
			.v = e->new.value,
		};
		if (!p.device_name || !p.device || calibrate_add(ps, &p) != 0) {
			snprintf(err, errlen, "out of memory");
			rc = -1;
		}
	}
	compare_report_free(&r);
	return rc;
}

static int calibrate_cmp(const void *a, const void *b)
{
	const double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Whether pair p is of class c (its suite's group, or any with suite ""). */
static bool calibrate_of(const struct calibrate_pair *p, const struct calibrate_class *c,
			 const char *const *group_name)
{
	return (!c->suite[0] || strcmp(group_name[p->group], c->suite) == 0) &&
	       strcmp(p->device_name, c->device_name) == 0 && strcmp(p->kind, c->kind) == 0 &&
	       strcmp(p->device, c->device) == 0 && p->band == c->band;
}

/* Measures class c over the pairs of ps; its floor is floor (NAN: derive
 * it from these pairs). */
static void calibrate_measure(struct calibrate_class *c, const struct calibrate_pairs *ps,
			      const char *const *group_name, double floor)
{
	double *e = malloc((ps->n ? ps->n : 1) * sizeof *e);
	double *u = malloc((ps->n ? ps->n : 1) * sizeof *u);
	size_t k = 0;
	for (size_t i = 0; e && u && i < ps->n; i++)
		if (calibrate_of(&ps->p[i], c, group_name))
			e[k++] = floors_excess(ps->p[i].d, ps->p[i].n);
	c->pairs = k;
	c->floor_pct = isnan(floor) && e && u ? floors_derive(e, k) : floor;
	const double f = isnan(c->floor_pct) ? 0 : c->floor_pct;
	size_t m = 0;
	for (size_t i = 0; e && u && i < ps->n; i++) {
		const struct calibrate_pair *p = &ps->p[i];
		if (!calibrate_of(p, c, group_name))
			continue;
		const double res = sqrt(p->n * p->n + f * f);
		u[m++] = res;
		c->within_noise += p->d <= p->n;
		c->within_floor += p->d <= res;
		c->difference_max_pct = fmax(c->difference_max_pct, p->d);
		c->false_slower += compare_decide(p->b, p->v, res, CALIBRATE_THRESHOLD_PCT,
						  COMPARE_DEFAULT_MIN_CHANGE_PCT).regression ||
				   compare_decide(p->v, p->b, res, CALIBRATE_THRESHOLD_PCT,
						  COMPARE_DEFAULT_MIN_CHANGE_PCT).regression;
	}
	if (u && m > 0) {
		qsort(u, m, sizeof *u, calibrate_cmp);
		c->resolution_median_pct = m % 2 ? u[m / 2] : (u[m / 2 - 1] + u[m / 2]) / 2;
		c->resolution_max_pct = u[m - 1];
	} else {
		c->resolution_median_pct = c->resolution_max_pct = NAN;
	}
	free(e);
	free(u);
}

/* The class of pair p (with suite, "" for all) in out, added when new;
 * NULL when the table is full. */
static struct calibrate_class *calibrate_class_of(struct calibrate_result *out,
						  const struct calibrate_pair *p, const char *suite)
{
	for (size_t i = 0; i < out->count; i++) {
		struct calibrate_class *c = &out->classes[i];
		if (strcmp(c->suite, suite) == 0 && strcmp(c->device_name, p->device_name) == 0 &&
		    strcmp(c->kind, p->kind) == 0 && strcmp(c->device, p->device) == 0 &&
		    c->band == p->band)
			return c;
	}
	if (out->count == CALIBRATE_MAX_CLASSES)
		return NULL;
	struct calibrate_class *c = &out->classes[out->count++];
	memset(c, 0, sizeof *c);
	snprintf(c->suite, sizeof c->suite, "%s", suite);
	snprintf(c->device_name, sizeof c->device_name, "%s", p->device_name);
	snprintf(c->kind, sizeof c->kind, "%s", p->kind);
	snprintf(c->device, sizeof c->device, "%s", p->device);
	c->band = p->band;
	return c;
}

int calibrate_files(const char *const *paths, size_t n, struct calibrate_result *out, char *err,
		    size_t errlen)
{
	memset(out, 0, sizeof *out);
	out->files = n;
	const char **group_name = calloc(n ? n : 1, sizeof *group_name);
	size_t *group_of = calloc(n ? n : 1, sizeof *group_of);
	struct calibrate_pairs ps = { 0 };
	int rc = -1;
	if (!group_name || !group_of) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		size_t g = 0;
		while (g < out->groups && strcmp(group_name[g], calibrate_base(paths[i])) != 0)
			g++;
		if (g == out->groups)
			group_name[out->groups++] = calibrate_base(paths[i]);
		group_of[i] = g;
	}
	for (size_t g = 0; g < out->groups; g++) {
		size_t runs = 0, last = 0;
		for (size_t i = 0; i < n; i++)
			if (group_of[i] == g) {
				runs++;
				last = i;
			}
		if (runs < 2) {
			snprintf(err, errlen, "%s: one run of %s: calibrating needs two or more separate "
				 "runs of each suite (files of one name)", paths[last], group_name[g]);
			goto out;
		}
	}
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++)
			if (group_of[i] == group_of[j] &&
			    calibrate_join(paths[i], paths[j], group_of[i], &ps, err, errlen) != 0)
				goto out;
	/* the floors over every suite, then each suite's share with them */
	for (size_t i = 0; i < ps.n; i++)
		if (!calibrate_class_of(out, &ps.p[i], "")) {
			snprintf(err, errlen, "more than %d classes of rows", CALIBRATE_MAX_CLASSES);
			goto out;
		}
	const size_t overall = out->count;
	for (size_t c = 0; c < overall; c++)
		calibrate_measure(&out->classes[c], &ps, group_name, NAN);
	for (size_t i = 0; i < ps.n; i++) {
		if (!calibrate_class_of(out, &ps.p[i], group_name[ps.p[i].group])) {
			snprintf(err, errlen, "more than %d classes of rows", CALIBRATE_MAX_CLASSES);
			goto out;
		}
	}
	for (size_t c = overall; c < out->count; c++) {
		struct calibrate_class *k = &out->classes[c];
		double floor = NAN;
		for (size_t q = 0; q < overall; q++) {
			const struct calibrate_class *a = &out->classes[q];
			if (strcmp(a->device_name, k->device_name) == 0 && strcmp(a->kind, k->kind) == 0 &&
			    strcmp(a->device, k->device) == 0 && a->band == k->band)
				floor = a->floor_pct;
		}
		calibrate_measure(k, &ps, group_name, floor);
	}
	rc = 0;
out:
	calibrate_pairs_free(&ps);
	free(group_name);
	free(group_of);
	return rc;
}

/* ---- the command ---------------------------------------------------------- */

static const char *const calibrate_columns[] = {
	"suite", "device_name", "kind", "device", "calls", "pairs", "floor_pct",
	"within_noise_pct", "within_resolution_pct", "resolution_median_pct",
	"resolution_max_pct", "difference_max_pct", "false_slower_at_2pct",
};
#define CALIBRATE_NCOLS (sizeof calibrate_columns / sizeof *calibrate_columns)

static const char *calibrate_band_name(int band)
{
	return band ? ">=100us" : "<100us";
}

static void calibrate_num(char *cell, double v, const char *fmt)
{
	if (isnan(v))
		cell[0] = '\0';
	else
		snprintf(cell, RESULTS_CELL, fmt, v);
}

/* The suite of class k as a user names it: its file's name less .csv. */
static void calibrate_suite(const struct calibrate_class *k, char *out, size_t len)
{
	const size_t n = strlen(k->suite);
	if (!k->suite[0])
		snprintf(out, len, "all");
	else
		snprintf(out, len, "%.*s", (int)(n > 4 && strcmp(k->suite + n - 4, ".csv") == 0 ? n - 4 : n),
			 k->suite);
}

struct calibrate_json_ctx {
	const struct calibrate_result *r;
	const char *const *paths;
	size_t n;
};

static void calibrate_row(const void *ctx, size_t r, char (*c)[RESULTS_CELL])
{
	const struct calibrate_class *k = &((const struct calibrate_json_ctx *)ctx)->r->classes[r];
	size_t i = 0;
	calibrate_suite(k, c[i++], RESULTS_CELL);
	snprintf(c[i++], RESULTS_CELL, "%s", k->device_name);
	snprintf(c[i++], RESULTS_CELL, "%s", k->kind);
	snprintf(c[i++], RESULTS_CELL, "%s", k->device);
	snprintf(c[i++], RESULTS_CELL, "%s", calibrate_band_name(k->band));
	snprintf(c[i++], RESULTS_CELL, "%zu", k->pairs);
	calibrate_num(c[i++], k->floor_pct, "%.2f");
	calibrate_num(c[i++], k->pairs ? 100.0 * (double)k->within_noise / (double)k->pairs : NAN, "%.1f");
	calibrate_num(c[i++], k->pairs ? 100.0 * (double)k->within_floor / (double)k->pairs : NAN, "%.1f");
	calibrate_num(c[i++], k->resolution_median_pct, "%.3g");
	calibrate_num(c[i++], k->resolution_max_pct, "%.3g");
	calibrate_num(c[i++], k->difference_max_pct, "%.3g");
	snprintf(c[i++], RESULTS_CELL, "%zu", k->false_slower);
}

static void calibrate_json(struct json_out *j, const void *ctx)
{
	const struct calibrate_json_ctx *c = ctx;
	json_kv_string(j, "method", "the files of one name are separate runs of one suite, joined pair by pair as compare joins them; for each class (device_name, kind, device, calls under or from 100 us) each valid timed pair gives d = 100 |ln(v2/v1)| and n = sqrt(noise1^2 + noise2^2) percent, and e = sqrt(max(d^2 - n^2, 0)); its floor is the 95th percentile of e by nearest rank, rounded up to 0.05, over every suite (no floor under 20 pairs); within_resolution_pct: the share of pairs with d <= sqrt(n^2 + floor^2), within_noise_pct that with d <= n; false_slower_at_2pct: pairs compare would call SLOWER one way or the other at --threshold 2 with that resolution (harness/gate/floors.h)");
	json_key(j, "runs");
	json_begin_array(j);
	for (size_t i = 0; i < c->n; i++)
		json_string(j, c->paths[i]);
	json_end_array(j);
}

static void calibrate_print(const struct calibrate_result *r)
{
	printf("%-18s %-28s %-6s %-4s %-8s %6s %7s %9s %9s %8s %8s %8s %6s\n", "suite", "device",
	       "kind", "dev", "calls", "pairs", "floor", "in noise", "in resol", "res med",
	       "res max", "diff max", "SLOWER");
	for (size_t i = 0; i < r->count; i++) {
		const struct calibrate_class *k = &r->classes[i];
		char floor[16], suite[64];
		calibrate_suite(k, suite, sizeof suite);
		calibrate_num(floor, k->floor_pct, "%.2f%%");
		if (!floor[0])
			snprintf(floor, sizeof floor, "-");
		printf("%-18s %-28.28s %-6s %-4s %-8s %6zu %7s %8.1f%% %8.1f%% %7.2f%% %7.2f%% %7.2f%% %6zu\n",
		       suite, k->device_name, k->kind, k->device,
		       calibrate_band_name(k->band), k->pairs, floor,
		       k->pairs ? 100.0 * (double)k->within_noise / (double)k->pairs : 0.0,
		       k->pairs ? 100.0 * (double)k->within_floor / (double)k->pairs : 0.0,
		       k->resolution_median_pct, k->resolution_max_pct, k->difference_max_pct,
		       k->false_slower);
	}
	printf("floor: the 95th percentile of what pairs of separate runs differ by beyond their "
	       "noise (- : fewer than %d pairs); in noise, in resol: the pairs whose difference the "
	       "rows' noise alone, and with the floor, held; SLOWER: pairs called a regression at "
	       "--threshold %g\n", FLOORS_MIN_PAIRS, CALIBRATE_THRESHOLD_PCT);
}

/* The FLOOR lines of floors.def for r's classes over every suite. */
static void calibrate_print_def(const struct calibrate_result *r, const char *source)
{
	for (size_t i = 0; i < r->count; i++) {
		const struct calibrate_class *k = &r->classes[i];
		if (k->suite[0] || isnan(k->floor_pct))
			continue;
		printf("FLOOR(\"%s\", \"%s\", \"%s\", %d, %.2f, %zu, \"%s\")\n", k->device_name, k->kind,
		       k->device, k->band, k->floor_pct, k->pairs, source);
	}
}

static void calibrate_help(void)
{
	printf("usage: harness calibrate RUN.csv RUN.csv ... [--out FILE.csv] [--def SOURCE]\n\n"
	       "What separate runs of the same code on one machine differ by, beyond what each\n"
	       "run's own samples say: files of one name (run-1/sph-table.csv, run-2/sph-table.csv,\n"
	       "...: two or more separate runs of each suite, tests/gate/calibration-runs.sh makes\n"
	       "them) are joined pair by pair, and for each class of rows (device, kind of\n"
	       "results, device class, calls under or from 100 us) the floor is the 95th\n"
	       "percentile of their difference beyond their noise, rounded up to 0.05 %%: what\n"
	       "compare adds to every pair's noise (harness/gate/floors.def, floors.h).\n"
	       "Printed: each class over every suite, then per suite, with the share of pairs\n"
	       "the noise alone and the resolution with the floor held, the resolution's median\n"
	       "and largest, and the pairs compare would call SLOWER at --threshold %g.\n\n"
	       "  --out FILE.csv   the table, with its sidecar\n"
	       "  --def SOURCE     print the FLOOR lines of harness/gate/floors.def instead,\n"
	       "                   naming where the runs are\n"
	       "Exit status: 0, or 2 for bad input (a suite with one run, unreadable files, files\n"
	       "of one name of different kinds or devices).\n",
	       CALIBRATE_THRESHOLD_PCT);
}

int calibrate_command(int argc, char **argv)
{
	const char *out = NULL, *def = NULL;
	const char **paths = calloc((size_t)argc + 1, sizeof *paths);
	size_t n = 0;
	char err[1024];
	if (!paths)
		return cli_usage_error("calibrate", "out of memory");
	for (int i = 1; i < argc; i++) {
		const char *val, *name = argv[i];
		if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0) {
			calibrate_help();
			free(paths);
			return 0;
		}
		const char **into = strncmp(name, "--out", 5) == 0 ? &out
				    : strncmp(name, "--def", 5) == 0 ? &def
								     : NULL;
		const int t = into ? cli_take_option(argc, argv, &i, into == &out ? "--out" : "--def",
						     &val)
				   : 0;
		if (t < 0) {
			free(paths);
			snprintf(err, sizeof err, "%s needs a value", name);
			return cli_usage_error("calibrate", err);
		}
		if (t > 0) {
			*into = val;
			continue;
		}
		if (argv[i][0] == '-') {
			free(paths);
			snprintf(err, sizeof err, "unknown option '%s' (see 'harness calibrate --help')",
				 argv[i]);
			return cli_usage_error("calibrate", err);
		}
		paths[n++] = argv[i];
	}
	if (n < 2) {
		free(paths);
		return cli_usage_error("calibrate", "give two or more separate runs of each suite "
				       "(see 'harness calibrate --help')");
	}
	static struct calibrate_result r;
	if (calibrate_files(paths, n, &r, err, sizeof err) != 0) {
		free(paths);
		return cli_usage_error("calibrate", err);
	}
	if (def)
		calibrate_print_def(&r, def);
	else
		calibrate_print(&r);
	int rc = 0;
	if (out) {
		struct calibrate_json_ctx jc = { &r, paths, n };
		struct results_table t = { .schema = "harness-calibration/1", .columns = calibrate_columns,
					   .ncols = CALIBRATE_NCOLS, .nrows = r.count, .rows = &r,
					   .format = calibrate_row, .json = calibrate_json, .ctx = &jc };
		struct results_meta meta = { argc, argv, NULL, NULL, 0, NULL, NULL };
		if (results_write_table(out, &t, &meta, err, sizeof err) != 0) {
			fprintf(stderr, "harness: calibrate: %s\n", err);
			rc = 2;
		} else if (!def) {
			printf("wrote %s\n", out);
		}
	}
	free(paths);
	return rc;
}
