/* report.c - the N-body results tables of results/nbody.md and the README, printed from a results directory */
#include "report.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/csv_table.h"
#include "render/report_render.h"
#include "report_format.h"
#include "core/results.h"
#include "sph/report_sph.h"

#define REPORT_DEFAULT_FROM "results/h200"
#define REPORT_SPH_DEFAULT_FROM "results/h200"

/* The rows of the main table: N, precision and the target the harness was
 * asked to reach there (interactions/s). */
static const struct report_target {
	long long n;
	const char *precision;
	double target;
} report_targets[] = {
	{ 1024, "fp32", 1.5e11 },   { 4096, "fp32", 6.0e11 },    { 16384, "fp32", 1.0e12 },
	{ 262144, "fp32", 2.2e12 }, { 1048576, "fp32", 2.2e12 }, { 262144, "fp64", 7.9e11 },
};

/* 2.01e11 as the README writes it: decimals digits after the point, no
 * '+' or leading zeros in the exponent. */
static void report_sci(char *buf, size_t len, double v, int decimals)
{
	int e = (int)floor(log10(v));
	double m = v / pow(10, e);
	if (m >= 10 - 0.5 * pow(10, -decimals)) {
		m /= 10;
		e++;
	}
	snprintf(buf, len, "%.*fe%d", decimals, m, e);
}

/* A results table of DIR and the columns the report reads from it. */
struct report_file {
	struct csv_table t;
	int variant, n, precision, mode, valid, figure, pct;
};

/* Reads DIR/name (checked against its sidecar) with figure column fig.
 * 0, or -1 with err. */
static int report_open(struct report_file *f, const char *dir, const char *name,
		       const char *fig, char *err, size_t errlen)
{
	char path[4096], note[1024];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	memset(f, 0, sizeof *f);
	if (results_pair_check(path, note, sizeof note) == RESULTS_PAIR_MISMATCH) {
		snprintf(err, errlen, "%s", note);
		return -1;
	}
	if (csv_table_read(path, &f->t, err, errlen) != 0)
		return -1;
	const char *cols[] = { "variant", "n", "precision", "mode", "valid", fig, "pct_of_ceiling" };
	int *idx[] = { &f->variant, &f->n, &f->precision, &f->mode, &f->valid, &f->figure, &f->pct };
	for (size_t c = 0; c < sizeof cols / sizeof *cols; c++) {
		*idx[c] = csv_table_col(&f->t, cols[c]);
		if (*idx[c] < 0) {
			snprintf(err, errlen, "%s: no column '%s'", path, cols[c]);
			return -1;
		}
	}
	return 0;
}

static const char *report_cell(const struct report_file *f, size_t row, int col)
{
	return csv_table_cell(&f->t, row, (size_t)col);
}

/* The valid, timed row of f at n in precision (and variant, unless NULL)
 * with the highest figure; its index, or SIZE_MAX. */
static size_t report_best(const struct report_file *f, long long n, const char *precision,
			  const char *variant)
{
	size_t best = (size_t)-1;
	double top = 0;
	for (size_t r = 0; r < f->t.nrows; r++) {
		double v = atof(report_cell(f, r, f->figure));
		if (atoll(report_cell(f, r, f->n)) != n || strcmp(report_cell(f, r, f->valid), "1") != 0 ||
		    strcmp(report_cell(f, r, f->precision), precision) != 0 ||
		    (variant && strcmp(report_cell(f, r, f->variant), variant) != 0) || !(v > top))
			continue;
		top = v;
		best = r;
	}
	return best;
}

static int report_missing(const struct report_file *f, const char *what, long long n,
			  char *err, size_t errlen)
{
	snprintf(err, errlen, "%s: no valid, timed row of %s at N = %lld", f->t.path, what, n);
	return -1;
}

/* The main table, from baseline.csv. */
static int report_targets_table(const struct report_file *f, char *err, size_t errlen)
{
	printf("| N | target (interactions/s) | measured, best variant | `auto` | %% of FP32 ceiling |\n"
	       "|---|---|---|---|---|\n");
	for (size_t i = 0; i < sizeof report_targets / sizeof *report_targets; i++) {
		const struct report_target *t = &report_targets[i];
		bool fp64 = strcmp(t->precision, "fp64") == 0;
		size_t b = report_best(f, t->n, t->precision, NULL);
		size_t a = fp64 ? 0 : report_best(f, t->n, t->precision, "auto");
		if (b == (size_t)-1 || a == (size_t)-1)
			return report_missing(f, a == (size_t)-1 ? "auto" : t->precision, t->n, err,
					      errlen);
		char n[32], target[32], best[32], autofig[32] = " ";
		report_grouped(n, sizeof n, t->n);
		report_sci(target, sizeof target, t->target, 1);
		report_sci(best, sizeof best, atof(report_cell(f, b, f->figure)), 2);
		if (!fp64) {
			autofig[0] = ' ';
			report_sci(autofig + 1, sizeof autofig - 2, atof(report_cell(f, a, f->figure)), 2);
			strcat(autofig, " ");
		}
		/* a target the best row falls short of is marked, as on every table */
		bool missed = atof(report_cell(f, b, f->figure)) < t->target;
		printf("| %s%s | >= %s | %s%s `%s` |%s| %.0f%s |\n", n, fp64 ? ", fp64" : "", target,
		       missed ? "**missed**: " : "", best, report_cell(f, b, f->variant), autofig,
		       atof(report_cell(f, b, f->pct)), fp64 ? " of the FP64 ceiling" : "");
	}
	return 0;
}

/* Whole steps at N = 16,384, from steps.csv. */
static int report_steps(const struct report_file *f, char *err, size_t errlen)
{
	const char *variants[] = { "auto", "unrolled-u4", "fp64-fast" };
	printf("\nWhole steps at N = 16,384 (steps/s):");
	for (size_t i = 0; i < sizeof variants / sizeof *variants; i++) {
		bool fp64 = strncmp(variants[i], "fp64", 4) == 0;
		size_t r = report_best(f, 16384, fp64 ? "fp64" : "fp32", variants[i]);
		if (r == (size_t)-1)
			return report_missing(f, variants[i], 16384, err, errlen);
		printf("%s `%s` %.0f", i ? "," : "", variants[i], atof(report_cell(f, r, f->figure)));
	}
	printf("\n");
	return 0;
}

/* auto's share of the ceiling along Figure 31-6, from fig31-6.csv. */
static int report_fig31_6(const struct report_file *f, char *err, size_t errlen)
{
	const long long ns[] = { 4096, 16384, 32768, 262144, 1048576 };
	printf("\n`auto` along Figure 31-6, %% of the FP32 ceiling:");
	for (size_t i = 0; i < sizeof ns / sizeof *ns; i++) {
		size_t r = report_best(f, ns[i], "fp32", "auto");
		if (r == (size_t)-1)
			return report_missing(f, "auto", ns[i], err, errlen);
		char n[32];
		report_grouped(n, sizeof n, ns[i]);
		printf("%s N = %s: %.0f", i ? "," : "", n, atof(report_cell(f, r, f->pct)));
	}
	printf("\n");
	return 0;
}

int report_command(int argc, char **argv)
{
	const char *from = NULL;
	bool sph = false, render = false, data = false;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--from") == 0 && i + 1 < argc) {
			from = argv[++i];
		} else if (strcmp(argv[i], "--sph") == 0) {
			sph = true;
		} else if (strcmp(argv[i], "--render") == 0) {
			render = true;
		} else if (strcmp(argv[i], "--data") == 0) {
			data = true;
		} else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			printf("usage: harness report [--sph | --render] [--data] [--from DIR]\n\n"
			       "Prints the N-body results tables (results/nbody.md) from DIR/baseline.csv,\n"
			       "DIR/steps.csv and DIR/fig31-6.csv (default DIR: %s); with --sph\n"
			       "its SPH tables from DIR/sph-table.csv and DIR/sph-large.csv\n"
			       "(default DIR: %s), the rates of the whole flow and of its moments,\n"
			       "--data a line per moment for plots/sph-flow.gp; with --render the rendering tables (the SPH\n"
			       "paper's Tables 1 and 2 beside the measured rows) from\n"
			       "DIR/sph-render-table.csv (default DIR: %s), --data as gnuplot blocks.\n",
			       REPORT_DEFAULT_FROM, REPORT_SPH_DEFAULT_FROM, REPORT_SPH_DEFAULT_FROM);
			return 0;
		} else {
			fprintf(stderr, "harness: report: unknown argument '%s' (usage: harness report "
					"[--sph | --render] [--data] [--from DIR])\n", argv[i]);
			return 2;
		}
	}
	if ((sph && render) || (data && !render && !sph)) {
		fprintf(stderr, "harness: report: --sph and --render are separate reports; --data goes "
				"with one of them\n");
		return 2;
	}
	struct stat st;
	const char *dir = from ? from : render || sph ? REPORT_SPH_DEFAULT_FROM : REPORT_DEFAULT_FROM;
	if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
		fprintf(stderr, "harness: report: --from '%s' is not a folder of results (%s)\n", dir,
			stat(dir, &st) != 0 ? strerror(errno) : "not a folder");
		return 2;
	}
	if (render)
		return report_render(from ? from : REPORT_SPH_DEFAULT_FROM, data);
	if (sph)
		return report_sph(from ? from : REPORT_SPH_DEFAULT_FROM, data);
	if (!from)
		from = REPORT_DEFAULT_FROM;
	struct report_file base, steps, fig;
	char err[4200];
	int rc = 2;
	if (report_open(&base, from, "baseline.csv", "interactions_per_s", err, sizeof err) != 0)
		goto out_free_base;
	if (report_open(&steps, from, "steps.csv", "steps_per_s", err, sizeof err) != 0)
		goto out_free_steps;
	if (report_open(&fig, from, "fig31-6.csv", "interactions_per_s", err, sizeof err) != 0)
		goto out_free_fig;
	if (report_targets_table(&base, err, sizeof err) == 0 &&
	    report_steps(&steps, err, sizeof err) == 0 && report_fig31_6(&fig, err, sizeof err) == 0)
		rc = 0;
out_free_fig:
	csv_table_free(&fig.t);
out_free_steps:
	csv_table_free(&steps.t);
out_free_base:
	csv_table_free(&base.t);
	if (rc != 0)
		fprintf(stderr, "harness: report: %s\n", err);
	return rc;
}
