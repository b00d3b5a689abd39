/* report_sph.c - the SPH tables of results/sph.md, printed from a results directory */
#include "report_sph.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/csv_table.h"
#include "../report_format.h"
#include "../core/results.h"

/* The columns of the steps/s table, fastest method first, and the rows of
 * the per-phase table (the GPU searches but brute force). */
static const char *const report_sph_variants[] = {
	"sph-gpu-verlet", "sph-gpu-verlet-fine", "sph-gpu-nlist", "sph-gpu-grid-count", "sph-gpu-grid-radix",
	"sph-gpu-zindex-cells", "sph-gpu-grid-buckets", "sph-gpu-zindex-blocks", "sph-gpu-brute",
	"sph-cpu-grid",
};
#define REPORT_SPH_NV (sizeof report_sph_variants / sizeof *report_sph_variants)
#define REPORT_SPH_PHASES (REPORT_SPH_NV - 2)
#define REPORT_SPH_MAX_ROWS 512

/* The rows of DIR/sph-table.csv and DIR/sph-large.csv (when there). */
struct report_sph_rows {
	struct csv_table t[2];
	size_t nt;
};

/* The valid, timed row of variant at n: its table and index; 0 or -1. */
static int rs_find(const struct report_sph_rows *rs, const char *variant, long long n,
		   const struct csv_table **t, size_t *r)
{
	for (size_t k = 0; k < rs->nt; k++)
		for (size_t i = 0; i < rs->t[k].nrows; i++)
			if (strcmp(csv_table_named(&rs->t[k], i, "variant"), variant) == 0 &&
			    atoll(csv_table_named(&rs->t[k], i, "n")) == n &&
			    strcmp(csv_table_named(&rs->t[k], i, "valid"), "1") == 0 &&
			    csv_table_named(&rs->t[k], i, "steps_per_s")[0] != '\0') {
				*t = &rs->t[k];
				*r = i;
				return 0;
			}
	return -1;
}

/* Whether the row's last-resort clamp fired (its clamps column is not 0):
 * its water left the walls somewhere, and its number is marked. */
static bool rs_clamped(const struct csv_table *t, size_t r)
{
	return csv_table_col(t, "clamps") >= 0 && atoll(csv_table_named(t, r, "clamps")) != 0;
}

/* The mark of such a row, and the line under a table that has one. */
#define REPORT_SPH_CLAMP_MARK "!"
static void rs_clamp_note(bool any)
{
	if (any)
		printf("\n%s: the run clamped coordinates back onto a wall (its clamps column is not "
		       "0): some water left the walls, so the number is not of the flow the scene "
		       "describes.\n",
		       REPORT_SPH_CLAMP_MARK);
}

/* Steps per second as the README writes them: whole and grouped from 10,
 * one decimal below. */
static void rs_rate(char *buf, size_t len, double v)
{
	if (v >= 9.95)
		report_grouped(buf, len, llround(v));
	else
		snprintf(buf, len, "%.1f", v);
}

/* The paper's GTX 280 physics rate at n in the published table t (NULL:
 * none read), or 0. */
static double rs_paper(const struct csv_table *t, long long n)
{
	double v = 0;
	for (size_t i = 0; t && i < t->nrows; i++)
		if (strcmp(csv_table_named(t, i, "quantity"), "physical_simulation_fps") == 0 &&
		    strcmp(csv_table_named(t, i, "device"), "GeForce GTX 280") == 0 &&
		    atoll(csv_table_named(t, i, "n")) == n)
			v = atof(csv_table_named(t, i, "value"));
	return v;
}

/* The short name of a variant in the tables' headings. */
static const char *rs_short(const char *v)
{
	if (strcmp(v, "sph-cpu-grid") == 0)
		return "CPU grid";
	return strncmp(v, "sph-gpu-", 8) == 0 ? v + 8 : v;
}

static int rs_cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;
	return (x > y) - (x < y);
}

/* The steps/s table: a row per particle count any variant was timed at. */
static void rs_rates(const struct report_sph_rows *rs)
{
	long long ns[REPORT_SPH_MAX_ROWS];
	size_t nn = 0;
	for (size_t k = 0; k < rs->nt; k++)
		for (size_t i = 0; i < rs->t[k].nrows && nn < REPORT_SPH_MAX_ROWS; i++) {
			long long n = atoll(csv_table_named(&rs->t[k], i, "n"));
			bool seen = false;
			for (size_t j = 0; j < nn; j++)
				seen = seen || ns[j] == n;
			if (!seen)
				ns[nn++] = n;
		}
	qsort(ns, nn, sizeof *ns, rs_cmp_ll);
	struct csv_table paper_t;
	char perr[512];
	const bool have_paper = csv_table_read("results/published/goswami2010_sph.csv", &paper_t,
					       perr, sizeof perr) == 0;
	printf("| particles (+ boundary) |");
	for (size_t v = 0; v < REPORT_SPH_NV; v++)
		printf(" %s |", rs_short(report_sph_variants[v]));
	printf(" paper, GTX 280 |\n|---|");
	for (size_t v = 0; v <= REPORT_SPH_NV; v++)
		printf("---|");
	printf("\n");
	bool any_clamped = false;
	for (size_t j = 0; j < nn; j++) {
		double rate[REPORT_SPH_NV], top = 0;
		bool clamped[REPORT_SPH_NV];
		long long nb = -1;
		for (size_t v = 0; v < REPORT_SPH_NV; v++) {
			const struct csv_table *t;
			size_t r;
			rate[v] = 0;
			clamped[v] = false;
			if (rs_find(rs, report_sph_variants[v], ns[j], &t, &r) == 0) {
				rate[v] = atof(csv_table_named(t, r, "steps_per_s"));
				nb = atoll(csv_table_named(t, r, "boundary_particles"));
				clamped[v] = rs_clamped(t, r);
				any_clamped = any_clamped || clamped[v];
			}
			top = fmax(top, rate[v]);
		}
		char n[32], b[32], cell[32];
		report_grouped(n, sizeof n, ns[j]);
		report_grouped(b, sizeof b, nb);
		printf("| %s (+%s) |", n, b);
		for (size_t v = 0; v < REPORT_SPH_NV; v++) {
			rs_rate(cell, sizeof cell, rate[v]);
			if (!(rate[v] > 0))
				printf(" |");
			else
				printf(rate[v] == top ? " **%s**%s |" : " %s%s |", cell,
				       clamped[v] ? REPORT_SPH_CLAMP_MARK : "");
		}
		double paper = rs_paper(have_paper ? &paper_t : NULL, ns[j]);
		if (paper > 0) {
			rs_rate(cell, sizeof cell, paper);
			printf(" %s |\n", cell);
		} else {
			printf(" |\n");
		}
	}
	if (have_paper)
		csv_table_free(&paper_t);
	rs_clamp_note(any_clamped);
}

/* The per-phase table at n. 0, or -1 when a variant lacks its row. */
static int rs_phases(const struct report_sph_rows *rs, long long n, char *err, size_t errlen)
{
	double bytes[REPORT_SPH_PHASES], least = HUGE_VAL;
	const struct csv_table *tt[REPORT_SPH_PHASES];
	size_t rr[REPORT_SPH_PHASES];
	for (size_t v = 0; v < REPORT_SPH_PHASES; v++) {
		if (rs_find(rs, report_sph_variants[v], n, &tt[v], &rr[v]) != 0) {
			snprintf(err, errlen, "no valid, timed row of %s at %lld particles",
				 report_sph_variants[v], n);
			return -1;
		}
		bytes[v] = atof(csv_table_named(tt[v], rr[v], "aux_bytes_per_particle"));
		least = fmin(least, bytes[v]);
	}
	char nn[32];
	report_grouped(nn, sizeof nn, n);
	printf("\nAt %s particles, per step (ms) and per particle:\n\n", nn);
	printf("| variant | build | density | force | integrate | bytes per particle beyond the "
	       "fluid arrays | candidate pairs per neighbour pair |\n");
	printf("|---|---|---|---|---|---|---|\n");
	bool any_clamped = false;
	for (size_t v = 0; v < REPORT_SPH_PHASES; v++) {
		char b[32];
		const bool clamped = rs_clamped(tt[v], rr[v]);
		any_clamped = any_clamped || clamped;
		report_grouped(b, sizeof b, llround(bytes[v]));
		printf("| %s%s | %.3f | %.3f | %.3f | %.3f | %s%s%s | %.3g |\n",
		       rs_short(report_sph_variants[v]), clamped ? REPORT_SPH_CLAMP_MARK : "",
		       atof(csv_table_named(tt[v], rr[v], "build_ms")),
		       atof(csv_table_named(tt[v], rr[v], "density_ms")), atof(csv_table_named(tt[v], rr[v], "force_ms")),
		       atof(csv_table_named(tt[v], rr[v], "integrate_ms")), bytes[v] == least ? "**" : "", b,
		       bytes[v] == least ? "**" : "",
		       atof(csv_table_named(tt[v], rr[v], "candidates_per_neighbour")));
	}
	rs_clamp_note(any_clamped);
	return 0;
}

int report_sph(const char *from)
{
	static const char *const names[2] = { "sph-table.csv", "sph-large.csv" };
	struct report_sph_rows rs = { .nt = 0 };
	char err[4200], note[1024], path[4096];
	int rc = 2;
	for (size_t k = 0; k < 2; k++) {
		snprintf(path, sizeof path, "%s/%s", from, names[k]);
		if (k > 0 && access(path, R_OK) != 0)
			continue; /* the large columns are optional */
		if (results_pair_check(path, note, sizeof note) == RESULTS_PAIR_MISMATCH) {
			snprintf(err, sizeof err, "%s", note);
			goto out;
		}
		if (csv_table_read(path, &rs.t[rs.nt], err, sizeof err) != 0)
			goto out;
		rs.nt++;
		if (csv_table_col(&rs.t[rs.nt - 1], "steps_per_s") < 0 ||
		    csv_table_col(&rs.t[rs.nt - 1], "boundary_particles") < 0) {
			snprintf(err, sizeof err, "%s: not an SPH results file with boundary particles", path);
			goto out;
		}
	}
	rs_rates(&rs);
	if (rs_phases(&rs, 255600, err, sizeof err) == 0)
		rc = 0;
out:
	for (size_t k = 0; k < rs.nt; k++)
		csv_table_free(&rs.t[k]);
	if (rc != 0)
		fprintf(stderr, "harness: report: %s\n", err);
	return rc;
}
