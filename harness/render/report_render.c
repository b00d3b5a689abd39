/* report_render.c - the rendering tables of results/render.md (the SPH paper's Tables 1 and 2), printed from a results directory */
#include "report_render.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/csv_table.h"
#include "../report_format.h"
#include "../core/results.h"

/* The paper's four columns: its quantity names and ours. */
static const char *const rr_paper_q[4] = { "physical_simulation_fps",
					   "surface_particle_extraction_fps", "rendering_fps",
					   "overall_fps" };
static const char *const rr_heading[4] = { "physics", "extraction", "rendering", "overall" };
static const char *const rr_paper_dev[2] = { "GeForce 8800 GT", "GeForce GTX 280" };
static const char *const rr_paper_label[2] = { "8800 GT (Table 1)", "GTX 280 (Table 2)" };
/* The measured rows shown beside the paper's: its method, and the
 * fastest step of the harness. */
static const char *const rr_variants[2] = { "sph-gpu-zindex-blocks", "sph-gpu-verlet" };
/* Every particle count of the suite, the paper's four first; the stage
 * table shows the last two (the rendering targets: 255,600 and 4.2
 * million). */
static const long long rr_n[5] = { 16128, 75200, 129024, 255600, 4207500 };

/*
 * The step's one measurement: the SPH step suites beside the rendering
 * table (DIR/sph-table.csv at the paper's columns, sph-large.csv at 4.2
 * million), whose rates results/sph.md quotes. A rendering row's physics
 * fps and step are theirs, and its overall fps 1 / (that step + its
 * extraction, field and raycast); only a row with no step-suite row
 * beside it takes the step timed in its own run (and is marked *).
 */
struct rr_steps {
	struct csv_table t[2];
	bool have[2];
};

static void rr_steps_read(const char *from, struct rr_steps *s)
{
	static const char *const name[2] = { "sph-table.csv", "sph-large.csv" };
	char path[4096], err[4200], note[1024];
	for (int k = 0; k < 2; k++) {
		snprintf(path, sizeof path, "%s/%s", from, name[k]);
		s->have[k] = access(path, R_OK) == 0 &&
			     results_pair_check(path, note, sizeof note) != RESULTS_PAIR_MISMATCH &&
			     csv_table_read(path, &s->t[k], err, sizeof err) == 0;
		if (s->have[k] && csv_table_col(&s->t[k], "time_median_step_s") < 0) {
			csv_table_free(&s->t[k]);
			s->have[k] = false;
		}
	}
}

static void rr_steps_free(struct rr_steps *s)
{
	for (int k = 0; k < 2; k++)
		if (s->have[k])
			csv_table_free(&s->t[k]);
}

/* Row i's cell of column col, "" where t has no such column. */
static const char *rr_cell(const struct csv_table *t, size_t i, const char *col)
{
	return csv_table_col(t, col) >= 0 ? csv_table_named(t, i, col) : "";
}

/* Whether rows i of t and j of u are of one moment: the same warm_steps
 * and the same flow_to_steps (none in a file without the column). */
static bool rr_same_moment(const struct csv_table *t, size_t i, const struct csv_table *u, size_t j)
{
	return strcmp(rr_cell(t, i, "warm_steps"), rr_cell(u, j, "warm_steps")) == 0 &&
	       strcmp(rr_cell(t, i, "flow_to_steps"), rr_cell(u, j, "flow_to_steps")) == 0;
}

/* Rendering row i's step [s]: the step suites' median for its variant, n
 * and moment, or (*own set) the one timed in its own run. */
static double rr_step_s(const struct rr_steps *s, const struct csv_table *t, size_t i, bool *own)
{
	const char *variant = csv_table_named(t, i, "variant");
	const long long n = atoll(csv_table_named(t, i, "n"));
	for (int k = 0; k < 2; k++)
		for (size_t j = 0; s->have[k] && j < s->t[k].nrows; j++)
			if (strcmp(csv_table_named(&s->t[k], j, "variant"), variant) == 0 &&
			    atoll(csv_table_named(&s->t[k], j, "n")) == n &&
			    rr_same_moment(t, i, &s->t[k], j) &&
			    strcmp(csv_table_named(&s->t[k], j, "valid"), "1") == 0 &&
			    atof(csv_table_named(&s->t[k], j, "time_median_step_s")) > 0) {
				*own = false;
				return atof(csv_table_named(&s->t[k], j, "time_median_step_s"));
			}
	*own = true;
	return atof(csv_table_named(t, i, "time_median_step_s"));
}

/* Rendering row i's four rates (physics, extraction, rendering, overall),
 * the step as rr_step_s takes it. */
static void rr_rates(const struct rr_steps *s, const struct csv_table *t, size_t i, double q[4],
		     bool *own)
{
	const double step = rr_step_s(s, t, i, own);
	const double ex = 1e-3 * atof(csv_table_named(t, i, "extraction_ms"));
	const double render = 1e-3 * (atof(csv_table_named(t, i, "field_ms")) +
				      atof(csv_table_named(t, i, "raycast_ms")));
	q[0] = step > 0 ? 1.0 / step : NAN;
	q[1] = ex > 0 ? 1.0 / ex : NAN;
	q[2] = render > 0 ? 1.0 / render : NAN;
	q[3] = 1.0 / (step + ex + render);
}

/* The valid, timed rendering row of variant at n (that of the whole
 * flow where the table has such rows), or -1. */
static long rr_find(const struct csv_table *t, const char *variant, long long n)
{
	const bool flows = csv_table_col(t, "flow_to_steps") >= 0;
	for (size_t i = 0; i < t->nrows; i++)
		if (strcmp(csv_table_named(t, i, "variant"), variant) == 0 &&
		    (!flows || rr_cell(t, i, "flow_to_steps")[0]) &&
		    atoll(csv_table_named(t, i, "n")) == n && strcmp(csv_table_named(t, i, "valid"), "1") == 0 &&
		    strcmp(csv_table_named(t, i, "render_valid"), "1") == 0 &&
		    csv_table_named(t, i, "overall_fps")[0] != '\0')
			return (long)i;
	return -1;
}

/* The paper's value of quantity q on device d at n, or 0. */
static double rr_paper(const struct csv_table *p, int d, int q, long long n)
{
	for (size_t i = 0; p && i < p->nrows; i++)
		if (strcmp(csv_table_named(p, i, "quantity"), rr_paper_q[q]) == 0 &&
		    strcmp(csv_table_named(p, i, "device"), rr_paper_dev[d]) == 0 &&
		    atoll(csv_table_named(p, i, "n")) == n)
			return atof(csv_table_named(p, i, "value"));
	return 0;
}

/* A rate as the tables write it: grouped whole numbers, one decimal
 * below 10, a dash for none. */
static void rr_rate(char *buf, size_t len, double v)
{
	if (!(v > 0))
		snprintf(buf, len, "-");
	else if (v >= 9.95)
		report_grouped(buf, len, llround(v));
	else
		snprintf(buf, len, "%.1f", v);
}

/* Whether row i's last-resort clamp fired (its clamps column is not 0);
 * such a row is marked, and a line under the tables says what it means. */
static bool rr_clamped(const struct csv_table *t, size_t i)
{
	return csv_table_col(t, "clamps") >= 0 && atoll(csv_table_named(t, i, "clamps")) != 0;
}

static void rr_markdown(const struct csv_table *t, const struct csv_table *p, const char *dev,
			const struct rr_steps *s)
{
	char buf[32], nn[32];
	bool any_clamped = false, any_own = false;
	printf("| particles | source | physics fps | extraction fps | rendering fps | overall fps |\n"
	       "|---|---|---|---|---|---|\n");
	for (size_t k = 0; k < sizeof rr_n / sizeof *rr_n; k++) {
		report_grouped(nn, sizeof nn, rr_n[k]);
		for (int d = 0; d < 2; d++) {
			if (!(rr_paper(p, d, 0, rr_n[k]) > 0))
				continue;
			printf("| %s | %s |", nn, rr_paper_label[d]);
			for (int q = 0; q < 4; q++) {
				rr_rate(buf, sizeof buf, rr_paper(p, d, q, rr_n[k]));
				printf(" %s |", buf);
			}
			printf("\n");
		}
		for (int v = 0; v < 2; v++) {
			long r = rr_find(t, rr_variants[v], rr_n[k]);
			if (r < 0)
				continue;
			const bool clamped = rr_clamped(t, (size_t)r);
			double rate[4];
			bool own;
			rr_rates(s, t, (size_t)r, rate, &own);
			any_clamped = any_clamped || clamped;
			any_own = any_own || own;
			printf("| %s | %s, %s%s%s |", nn, dev, rr_variants[v] + 8, clamped ? "!" : "",
			       own ? "*" : "");
			for (int q = 0; q < 4; q++) {
				rr_rate(buf, sizeof buf, rate[q]);
				printf(q == 3 ? " **%s** |" : " %s |", buf);
			}
			printf("\n");
		}
	}
	printf("\nPer stage at the targets' columns (ms, medians over frames), every variant:\n\n"
	       "| particles | variant | surface particles | extraction | field | raycast | "
	       "step | overall fps |\n|---|---|---|---|---|---|---|---|\n");
	for (size_t k = 3; k < sizeof rr_n / sizeof *rr_n; k++)
		for (size_t i = 0; i < t->nrows; i++) {
			if (atoll(csv_table_named(t, i, "n")) != rr_n[k] ||
			    rr_find(t, csv_table_named(t, i, "variant"), rr_n[k]) != (long)i)
				continue;
			char sp[32];
			double rate[4];
			bool own;
			report_grouped(nn, sizeof nn, rr_n[k]);
			report_grouped(sp, sizeof sp, atoll(csv_table_named(t, i, "surface_particles")));
			rr_rates(s, t, i, rate, &own);
			rr_rate(buf, sizeof buf, rate[3]);
			any_clamped = any_clamped || rr_clamped(t, i);
			any_own = any_own || own;
			printf("| %s | %s%s%s | %s | %.3f | %.3f | %.3f | %.3f | %s |\n", nn,
			       csv_table_named(t, i, "variant"), rr_clamped(t, i) ? "!" : "",
			       own ? "*" : "", sp, atof(csv_table_named(t, i, "extraction_ms")),
			       atof(csv_table_named(t, i, "field_ms")), atof(csv_table_named(t, i, "raycast_ms")),
			       1e3 / rate[0], buf);
		}
	if (any_own)
		printf("\n*: no row of the SPH step suites (sph-table.csv, sph-large.csv) beside it: "
		       "the step is the one timed in the rendering run's own row.\n");
	if (any_clamped)
		printf("\n!: the run clamped coordinates back onto a wall (its clamps column is not "
		       "0): some water left the walls, so the numbers are not of the flow the scene "
		       "describes.\n");
}

/* For plots/sph-render-table.gp: one block per column of the paper
 * (gnuplot index 0..3), a line per particle count: n, then 8800 GT,
 * GTX 280 and the measured variants (0: none). */
static void rr_data(const struct csv_table *t, const struct csv_table *p, const char *dev,
		    const struct rr_steps *s)
{
	printf("# device: %s\n", dev);
	printf("# harness report --render --data: fps per column of the paper; sources: 8800 GT, "
	       "GTX 280, %s %s, %s %s\n", dev, rr_variants[0] + 8, dev, rr_variants[1] + 8);
	for (int q = 0; q < 4; q++) {
		printf("%s# %s\n", q ? "\n\n" : "", rr_heading[q]);
		for (size_t k = 0; k < sizeof rr_n / sizeof *rr_n; k++) {
			printf("%lld", rr_n[k]);
			for (int d = 0; d < 2; d++)
				printf(" %g", rr_paper(p, d, q, rr_n[k]));
			for (int v = 0; v < 2; v++) {
				long r = rr_find(t, rr_variants[v], rr_n[k]);
				double rate[4] = { 0, 0, 0, 0 };
				bool own;
				if (r >= 0)
					rr_rates(s, t, (size_t)r, rate, &own);
				printf(" %g", rate[q]);
			}
			printf("\n");
		}
	}
}

/* Reads the rendering table at path into t, its sidecar checked: 0, or 2
 * with one line said. */
static int rr_read(const char *path, struct csv_table *t)
{
	char err[4200], note[1024];
	if (results_pair_check(path, note, sizeof note) == RESULTS_PAIR_MISMATCH) {
		fprintf(stderr, "harness: report: %s\n", note);
		return 2;
	}
	if (csv_table_read(path, t, err, sizeof err) != 0) {
		fprintf(stderr, "harness: report: %s\n", err);
		return 2;
	}
	if (csv_table_col(t, "overall_fps") < 0) {
		fprintf(stderr, "harness: report: %s: not a rendering results file (no overall_fps)\n",
			path);
		csv_table_free(t);
		return 2;
	}
	return 0;
}

/* The rows of the paper's shading's table (DIR/sph-render-table-paper.csv,
 * where there is one) under Phong's: 0, or 2 for a file that is not of
 * the paper's shading. */
static int rr_paper_shading(const char *from, const struct csv_table *p, const char *dev,
			    const struct rr_steps *s)
{
	char path[4096];
	struct csv_table t;
	snprintf(path, sizeof path, "%s/sph-render-table-paper.csv", from);
	if (access(path, R_OK) != 0)
		return 0;
	if (rr_read(path, &t) != 0)
		return 2;
	for (size_t i = 0; i < t.nrows; i++)
		if (strcmp(csv_table_named(&t, i, "render_valid"), "1") == 0 &&
		    strcmp(csv_table_named(&t, i, "shading"), "paper") != 0) {
			fprintf(stderr, "harness: report: %s:%zu: a row not in the paper's shading\n",
				path, t.row_line[i]);
			csv_table_free(&t);
			return 2;
		}
	printf("\nIn the paper's shading (refractions, Fresnel, the environment; "
	       "sph-render-table-paper.csv):\n\n");
	rr_markdown(&t, p, dev, s);
	csv_table_free(&t);
	return 0;
}

int report_render(const char *from, bool data)
{
	char path[4096], err[4200];
	struct csv_table t, p;
	snprintf(path, sizeof path, "%s/sph-render-table.csv", from);
	if (rr_read(path, &t) != 0)
		return 2;
	const bool have_paper = csv_table_read("results/published/goswami2010_sph.csv", &p, err,
					       sizeof err) == 0;
	/* the device as the rows name it, shortened: "NVIDIA H100 80GB HBM3" -> "H100" */
	char dev[64] = "GPU";
	for (size_t i = 0; i < t.nrows; i++)
		if (strcmp(csv_table_named(&t, i, "device"), "gpu") == 0) {
			const char *name = csv_table_named(&t, i, "device_name");
			const char *h = strstr(name, " H");
			snprintf(dev, sizeof dev, "%s", h ? h + 1 : name);
			dev[strcspn(dev, " ")] = '\0';
			break;
		}
	int rc = 0;
	bool any = false;
	struct rr_steps steps;
	rr_steps_read(from, &steps);
	for (size_t k = 0; k < sizeof rr_n / sizeof *rr_n; k++)
		for (int v = 0; v < 2; v++)
			any = any || rr_find(&t, rr_variants[v], rr_n[k]) >= 0;
	if (!any) {
		fprintf(stderr, "harness: report: %s has no valid, timed row of %s or %s at the "
			"paper's columns or 4.2 million: nothing to show\n", path, rr_variants[0],
			rr_variants[1]);
		rc = 2;
	} else if (data) {
		rr_data(&t, have_paper ? &p : NULL, dev, &steps);
	} else {
		rr_markdown(&t, have_paper ? &p : NULL, dev, &steps);
		rc = rr_paper_shading(from, have_paper ? &p : NULL, dev, &steps);
	}
	if (have_paper)
		csv_table_free(&p);
	rr_steps_free(&steps);
	csv_table_free(&t);
	return rc;
}
