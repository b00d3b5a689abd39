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
#include "../../reference/sph_scene.h"

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

/* Which row of a variant and column: that of the whole flow (a file
 * without such rows: its first), or that of one moment (step). */
#define RS_FLOW (-1L)

/* Whether row i of t is the row of the whole flow. */
static bool rs_is_flow(const struct csv_table *t, size_t i)
{
	return csv_table_col(t, "flow_to_steps") >= 0 && csv_table_named(t, i, "flow_to_steps")[0];
}

/* The valid, timed row of variant at n, at the moment which (RS_FLOW or a
 * step): its table and index; 0 or -1. */
static int rs_find_at(const struct report_sph_rows *rs, const char *variant, long long n,
		      long which, const struct csv_table **t, size_t *r)
{
	for (size_t k = 0; k < rs->nt; k++) {
		const bool flows = csv_table_col(&rs->t[k], "flow_to_steps") >= 0;
		for (size_t i = 0; i < rs->t[k].nrows; i++)
			if (strcmp(csv_table_named(&rs->t[k], i, "variant"), variant) == 0 &&
			    atoll(csv_table_named(&rs->t[k], i, "n")) == n &&
			    strcmp(csv_table_named(&rs->t[k], i, "valid"), "1") == 0 &&
			    csv_table_named(&rs->t[k], i, "steps_per_s")[0] != '\0' &&
			    (which == RS_FLOW ? !flows || rs_is_flow(&rs->t[k], i)
					      : !rs_is_flow(&rs->t[k], i) &&
						atol(csv_table_named(&rs->t[k], i, "warm_steps")) == which)) {
				*t = &rs->t[k];
				*r = i;
				return 0;
			}
	}
	return -1;
}

/* The row of the whole flow of variant at n (rs_find_at). */
static int rs_find(const struct report_sph_rows *rs, const char *variant, long long n,
		   const struct csv_table **t, size_t *r)
{
	return rs_find_at(rs, variant, n, RS_FLOW, t, r);
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

/* The particle counts of rs's rows, ascending, into ns; how many. */
static size_t rs_counts(const struct report_sph_rows *rs, long long ns[REPORT_SPH_MAX_ROWS])
{
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
	return nn;
}

/* The steps/s table: a row per particle count any variant was timed at. */
static void rs_rates(const struct report_sph_rows *rs)
{
	long long ns[REPORT_SPH_MAX_ROWS];
	const size_t nn = rs_counts(rs, ns);
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
		/* candidate pairs are of one state: the flow's first moment's */
		const struct csv_table *ct = tt[v];
		size_t cr = rr[v];
		if (rs_is_flow(tt[v], rr[v]))
			rs_find_at(rs, report_sph_variants[v], n,
				   atol(csv_table_named(tt[v], rr[v], "warm_steps")), &ct, &cr);
		any_clamped = any_clamped || clamped;
		report_grouped(b, sizeof b, llround(bytes[v]));
		printf("| %s%s | %.3f | %.3f | %.3f | %.3f | %s%s%s | %.3g |\n",
		       rs_short(report_sph_variants[v]), clamped ? REPORT_SPH_CLAMP_MARK : "",
		       atof(csv_table_named(tt[v], rr[v], "build_ms")),
		       atof(csv_table_named(tt[v], rr[v], "density_ms")), atof(csv_table_named(tt[v], rr[v], "force_ms")),
		       atof(csv_table_named(tt[v], rr[v], "integrate_ms")), bytes[v] == least ? "**" : "", b,
		       bytes[v] == least ? "**" : "",
		       atof(csv_table_named(ct, cr, "candidates_per_neighbour")));
	}
	rs_clamp_note(any_clamped);
	return 0;
}

/* Seconds of flow a step of column (a name or NXxNYxNZ@L) is; NAN when
 * the name is not one. */
static double rs_dt(const char *column)
{
	struct sph_column c;
	struct sph_params p;
	char err[256];
	if (sph_scene_column_parse(column, &c, err, sizeof err) != 0)
		return NAN;
	sph_scene_box(&c, &p);
	return p.dt;
}

/* A moment as the tables name it: "step 20" before 0.05 s of flow, else
 * its time, "0.1 s". */
static void rs_moment(char *out, size_t len, long step, double dt)
{
	if (isnan(dt) || (double)step * dt < 0.05)
		snprintf(out, len, "step %ld", step);
	else
		snprintf(out, len, "%.2g s", (double)step * dt);
}

/* The steps of the moments of the flow rows at n (those of the first
 * variant with a flow row there), ascending, into steps; how many. */
static size_t rs_moments_at(const struct report_sph_rows *rs, long long n, long *steps,
			    size_t max, const char **column)
{
	size_t k = 0;
	for (size_t v = 0; v < REPORT_SPH_NV && k == 0; v++) {
		const struct csv_table *t;
		size_t r;
		if (rs_find(rs, report_sph_variants[v], n, &t, &r) != 0 || !rs_is_flow(t, r))
			continue;
		*column = csv_table_named(t, r, "column");
		const long lo = atol(csv_table_named(t, r, "warm_steps"));
		const long hi = atol(csv_table_named(t, r, "flow_to_steps"));
		for (size_t i = 0; i < t->nrows && k < max; i++) {
			if (rs_is_flow(t, i) || atoll(csv_table_named(t, i, "n")) != n ||
			    strcmp(csv_table_named(t, i, "variant"), report_sph_variants[v]) != 0)
				continue;
			const long w = atol(csv_table_named(t, i, "warm_steps"));
			if (w >= lo && w <= hi)
				steps[k++] = w;
		}
	}
	for (size_t i = 1; i < k; i++)
		for (size_t j = i; j > 0 && steps[j] < steps[j - 1]; j--) {
			const long x = steps[j];
			steps[j] = steps[j - 1];
			steps[j - 1] = x;
		}
	return k;
}

#define RS_MAX_MOMENTS 16

/* The table of n's moments: each variant's steps/s at each moment of the
 * flow and over the whole of it, the fastest in bold; then, for each
 * moment, the methods in order, and where the order changes. Nothing when
 * n has no flow rows. */
static void rs_moments(const struct report_sph_rows *rs, long long n)
{
	long steps[RS_MAX_MOMENTS];
	const char *column = NULL;
	const size_t k = rs_moments_at(rs, n, steps, RS_MAX_MOMENTS, &column);
	if (k < 2)
		return;
	const double dt = rs_dt(column);
	double rate[REPORT_SPH_NV][RS_MAX_MOMENTS + 1];
	double top[RS_MAX_MOMENTS + 1] = { 0 };
	for (size_t v = 0; v < REPORT_SPH_NV; v++)
		for (size_t m = 0; m <= k; m++) {
			const struct csv_table *t;
			size_t r;
			rate[v][m] = rs_find_at(rs, report_sph_variants[v], n, m < k ? steps[m] : RS_FLOW,
						&t, &r) == 0
					     ? atof(csv_table_named(t, r, "steps_per_s"))
					     : 0;
			top[m] = fmax(top[m], rate[v][m]);
		}
	char nn[32], cell[32];
	report_grouped(nn, sizeof nn, n);
	printf("\nAt %s particles, steps/s at each moment of the flow and over the whole of it:\n\n"
	       "| variant |", nn);
	for (size_t m = 0; m < k; m++) {
		rs_moment(cell, sizeof cell, steps[m], dt);
		printf(" %s |", cell);
	}
	printf(" the flow |\n|---|");
	for (size_t m = 0; m <= k; m++)
		printf("---|");
	printf("\n");
	for (size_t v = 0; v < REPORT_SPH_NV; v++) {
		if (!(rate[v][k] > 0))
			continue;
		printf("| %s |", rs_short(report_sph_variants[v]));
		for (size_t m = 0; m <= k; m++) {
			rs_rate(cell, sizeof cell, rate[v][m]);
			printf(rate[v][m] > 0 ? rate[v][m] == top[m] ? " **%s** |" : " %s |" : " |", cell);
		}
		printf("\n");
	}
	/* the order of the methods at each moment */
	size_t prev[REPORT_SPH_NV], nprev = 0;
	printf("\nThe order at %s particles, fastest first:\n\n", nn);
	for (size_t m = 0; m < k; m++) {
		size_t order[REPORT_SPH_NV], no = 0;
		for (size_t v = 0; v < REPORT_SPH_NV; v++)
			if (rate[v][m] > 0 && rate[v][k] > 0) {
				size_t at = no++;
				while (at > 0 && rate[order[at - 1]][m] < rate[v][m]) {
					order[at] = order[at - 1];
					at--;
				}
				order[at] = v;
			}
		bool same = no == nprev;
		for (size_t i = 0; same && i < no; i++)
			same = order[i] == prev[i];
		rs_moment(cell, sizeof cell, steps[m], dt);
		printf("- %s:", cell);
		if (m > 0 && same) {
			printf(" as before\n");
			continue;
		}
		for (size_t i = 0; i < no; i++) {
			bool moved = m > 0 && (i >= nprev || prev[i] != order[i]);
			printf("%s %s%s%s", i ? "," : "", moved ? "*" : "", rs_short(report_sph_variants[order[i]]),
			       moved ? "*" : "");
		}
		printf("\n");
		memcpy(prev, order, no * sizeof *order);
		nprev = no;
	}
	printf("\n(*: a method whose place changed since the moment before)\n");
}

/* `report --sph --data`: a line per valid, timed moment row of the flow
 * (not the flow rows): the figure's data (plots/sph-flow.gp). */
static void rs_data(const struct report_sph_rows *rs)
{
	printf("# variant column n step time_s steps_per_s build_ms density_ms force_ms integrate_ms\n");
	for (size_t k = 0; k < rs->nt; k++) {
		const struct csv_table *t = &rs->t[k];
		for (size_t i = 0; i < t->nrows; i++) {
			if (rs_is_flow(t, i) || strcmp(csv_table_named(t, i, "valid"), "1") != 0 ||
			    !csv_table_named(t, i, "steps_per_s")[0])
				continue;
			const char *column = csv_table_named(t, i, "column");
			const long step = atol(csv_table_named(t, i, "warm_steps"));
			printf("%s %s %s %ld %.6g %s %s %s %s %s\n", csv_table_named(t, i, "variant"),
			       column, csv_table_named(t, i, "n"), step, (double)step * rs_dt(column),
			       csv_table_named(t, i, "steps_per_s"), csv_table_named(t, i, "build_ms"),
			       csv_table_named(t, i, "density_ms"), csv_table_named(t, i, "force_ms"),
			       csv_table_named(t, i, "integrate_ms"));
		}
	}
}

int report_sph(const char *from, bool data)
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
	if (data) {
		rs_data(&rs);
		rc = 0;
		goto out;
	}
	rs_rates(&rs);
	if (rs_phases(&rs, 255600, err, sizeof err) == 0)
		rc = 0;
	long long ns[REPORT_SPH_MAX_ROWS];
	const size_t nn = rs_counts(&rs, ns);
	for (size_t j = 0; rc == 0 && j < nn; j++)
		rs_moments(&rs, ns[j]);
out:
	for (size_t k = 0; k < rs.nt; k++)
		csv_table_free(&rs.t[k]);
	if (rc != 0)
		fprintf(stderr, "harness: report: %s\n", err);
	return rc;
}
