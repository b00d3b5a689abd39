/* test_report.c - harness report: the results pages' tables, printed from the data */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

#include "../harness/core/csv_table.h"
#include "../harness/report_format.h"
#include "cli_run.h"
#include "csv_column.h"
#include "tmp_dir.h"

/* The text of the page path (a results page, run from the repository root). */
static char *report_page(const char *path)
{
	FILE *fp = fopen(path, "r");
	cr_assert_not_null(fp, "%s: run from the repository root", path);
	static char text[1 << 20];
	text[fread(text, 1, sizeof text - 1, fp)] = '\0';
	fclose(fp);
	return text;
}

/* Runs `harness report ARGS` and expects every line it prints to stand,
 * whole, as a line of page; how many lines it checked. (The README's
 * headline tables are subsets of the same lines: tests/test_readme.c.) */
/* What `harness report ARGS` prints (exit 0 asserted), in a buffer of its
 * own that the next call reuses. */
static char *report_stdout(const char *args)
{
	static char out[1 << 16];
	char cmd[512];
	snprintf(cmd, sizeof cmd, "%s report %s", cli_harness_bin(), args);
	cr_assert_eq(cli_run_stdout(cmd, out, sizeof out), 0, "%s", out);
	return out;
}

static size_t report_lines_in_page(const char *args, const char *page)
{
	char *out = report_stdout(args);
	const char *text = report_page(page);
	size_t lines = 0;
	for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
		lines++;
		const char *at = strstr(text, line);
		while (at && !((at == text || at[-1] == '\n') &&
			       (at[strlen(line)] == '\n' || at[strlen(line)] == '\0')))
			at = strstr(at + 1, line);
		cr_expect(at, "%s lacks the line of 'report %s':\n%s", page, args, line);
	}
	return lines;
}

/* Every line the report prints from results/h200 stands in
 * results/nbody.md: the page's numbers are the data's. */
Test(report, nbody_page_tables_come_from_the_data)
{
	cr_expect_eq(report_lines_in_page("--from results/h200", "results/nbody.md"), 10,
		     "header, rule, six rows, the step rates and Figure 31-6's shares");
}

/* Two figures the results pages quote, read from the data. */
Test(report, figures_from_the_h200_results)
{
	const char *out = report_stdout("");
	cr_expect(strstr(out, "| 4,096 | >= 6.0e11 | 1.19e12 `auto` | 1.19e12 | 43 |"), "%s", out);
	cr_expect(strstr(out, "N = 32,768: 71,"), "auto reaches 71 %%, not 76 %%, at 32,768: %s", out);
	cr_expect(strstr(out, "`auto` 6780"), "%s", out);
	/* a target the best row falls short of is marked; one it meets is not */
	cr_expect(strstr(out, "| 1,048,576 | >= 2.2e12 | **missed**: 2.11e12 `auto` | 2.11e12 | 76 |"),
		  "%s", out);
	cr_expect(strstr(out, "| 16,384 | >= 1.0e12 | 1.88e12 `auto` |"), "%s", out);
	cr_expect(strstr(out, "| 262,144, fp64 | >= 7.9e11 | 8.27e11 `fp64-fast` |"), "%s", out);
}

Test(report, missing_results_are_one_line_and_exit_2)
{
	char cmd[512], err[4096];
	snprintf(cmd, sizeof cmd, "%s report --from /nonexistent-results", cli_harness_bin());
	cr_expect_eq(cli_run(cmd, err, sizeof err), 2, "%s", err);
	/* the folder is what is missing, not one of its files */
	cr_expect(strstr(err, "--from '/nonexistent-results' is not a folder of results") &&
		  !strstr(err, "baseline.csv"), "%s", err);
	cr_expect_eq(strchr(err, '\n'), err + strlen(err) - 1, "one line: %s", err);
	/* a folder without the file: the file is named */
	snprintf(cmd, sizeof cmd, "%s report --from tests/fixtures/results/compare", cli_harness_bin());
	cr_expect_eq(cli_run(cmd, err, sizeof err), 2, "%s", err);
	cr_expect(strstr(err, "tests/fixtures/results/compare/baseline.csv"), "%s", err);
	snprintf(cmd, sizeof cmd, "%s report --sph --from README.md", cli_harness_bin());
	cr_expect_eq(cli_run(cmd, err, sizeof err), 2, "%s", err);
	cr_expect(strstr(err, "'README.md' is not a folder of results (not a folder)"), "%s", err);
}

/* Every line `report --sph` prints stands in results/sph.md: its SPH
 * tables are the data's. */
Test(report, sph_page_tables_come_from_the_data)
{
	size_t lines = report_lines_in_page("--sph --from results/h200", "results/sph.md");
	cr_expect_gt(lines, 10, "%zu lines", lines);
}

/* A row whose last-resort clamp fired is marked, in both reports, and a
 * line says what the mark means; a row without is not. The committed
 * H200 rows clamp nothing (the walls hold): in a copy of their tables
 * (sidecars left out, so the edit is not refused) sph-gpu-verlet's row at
 * 16,128 clamped 217 coordinates and the one at 255,600 none. */
Test(report, rows_that_clamped_are_marked)
{
	static const char *key[] = { "variant", "column" };
	static const char *at[] = { "sph-gpu-verlet", "16128" };
	char dir[64], path[128], cmd[512];
	static char out[1 << 16];
	const char *plain = report_stdout("--sph --from results/h200");
	cr_expect_null(strstr(plain, "!: the run clamped"), "no committed row clamped: %s", plain);
	tmp_dir_make(dir, "report-clamps");
	snprintf(path, sizeof path, "%s/sph-table.csv", dir);
	csv_with_cell("results/h200/sph-table.csv", path, 2, key, at, "clamps", "217");
	snprintf(path, sizeof path, "%s/sph-render-table.csv", dir);
	csv_with_cell("results/h200/sph-render-table.csv", path, 2, key, at, "clamps", "217");
	snprintf(cmd, sizeof cmd, "%s report --sph --from %s", cli_harness_bin(), dir);
	cr_assert_eq(cli_run_stdout(cmd, out, sizeof out), 0, "%s", out);
	cr_expect(strstr(out, "| 16,128 (+33,006) | 20,795! |"), "%s", out);
	cr_expect(strstr(out, "| 255,600 (+204,438) | **5,459** |"), "%s", out);
	cr_expect(strstr(out, "\n!: the run clamped coordinates back onto a wall"), "%s", out);
	snprintf(cmd, sizeof cmd, "%s report --render --from %s", cli_harness_bin(), dir);
	cr_assert_eq(cli_run_stdout(cmd, out, sizeof out), 0, "%s", out);
	cr_expect(strstr(out, "| 16,128 | H200, verlet! |"), "%s", out);
	cr_expect(strstr(out, "| 255,600 | H200, verlet |"), "%s", out);
	cr_expect(strstr(out, "\n!: the run clamped coordinates back onto a wall"), "%s", out);
	tmp_dir_remove(dir);
}

Test(report, sph_without_results_is_one_line_and_exit_2)
{
	char cmd[512], e[4096];
	snprintf(cmd, sizeof cmd, "%s report --sph --from /nonexistent-results", cli_harness_bin());
	cr_expect_eq(cli_run(cmd, e, sizeof e), 2, "%s", e);
	cr_expect(strncmp(e, "harness: report: ", 17) == 0 && strchr(e, '\n') == strrchr(e, '\n'),
		  "%s", e);
}

/* Every line `report --render` prints from results/h200 stands in
 * results/render.md: the rendering tables (the paper's Tables 1 and 2
 * beside the measured rows, the stage times) are the data's. */
Test(report, render_page_tables_come_from_the_data)
{
	size_t lines = report_lines_in_page("--render --from results/h200", "results/render.md");
	cr_expect_gt(lines, 20, "both tables: %zu lines", lines);
}

/* The H200's rendering table, with a shading column of value v on every
 * row, as DIR/sph-render-table-paper.csv (no sidecar: read unchecked),
 * beside the table itself. */
static void render_dir_with_paper(const char *dir, const char *v)
{
	char cmd[512], path[128];
	snprintf(cmd, sizeof cmd, "cp results/h200/sph-render-table.csv results/h200/sph-render-table.meta.json %s/",
		 dir);
	cr_assert_eq(system(cmd), 0);
	snprintf(path, sizeof path, "%s/sph-render-table-paper.csv", dir);
	csv_with_column("results/h200/sph-render-table.csv", path, "shading", v);
}

/* Where a results directory has the paper's shading's table too, report
 * --render prints its rows under Phong's; a file whose rows are not of
 * the paper's shading is refused in one line. */
Test(report, render_paper_shading_table_follows_phong)
{
	char dir[64], cmd[512], e[4096];
	tmp_dir_make(dir, "report-paper");
	render_dir_with_paper(dir, "paper");
	static char out[1 << 16];
	snprintf(cmd, sizeof cmd, "%s report --render --from %s", cli_harness_bin(), dir);
	cr_assert_eq(cli_run_stdout(cmd, out, sizeof out), 0, "%s", out);
	const char *at = strstr(out, "\nIn the paper's shading");
	cr_assert_not_null(at, "%s", out);
	/* the paper's file is Phong's relabelled: the same row under each */
	const char *phong = strstr(out, "| 255,600 | H200, verlet");
	cr_assert(phong && phong < at, "Phong's rows first: %s", out);
	char row[256];
	const size_t len = strcspn(phong, "\n");
	cr_assert_lt(len, sizeof row);
	memcpy(row, phong, len);
	row[len] = '\0';
	cr_expect(strstr(at, row), "%s not under the paper's shading: %s", row, at);
	tmp_dir_remove(dir);

	tmp_dir_make(dir, "report-paper");
	render_dir_with_paper(dir, "phong");
	snprintf(cmd, sizeof cmd, "%s report --render --from %s", cli_harness_bin(), dir);
	cr_expect_eq(cli_run(cmd, e, sizeof e), 2, "%s", e);
	cr_expect(strstr(e, "not in the paper's shading") && strchr(e, '\n') == strrchr(e, '\n'),
		  "%s", e);
	tmp_dir_remove(dir);
}

/* The step has one measurement: with the SPH step suite beside it, a
 * rendering row's physics fps is sph-table.csv's rate for its variant and
 * column (the one results/sph.md quotes); without it, the row takes the
 * step timed in its own run, and is marked * with a line saying so. */
Test(report, render_physics_is_the_step_suites_rate)
{
	char dir[64], cmd[512];
	static char out[1 << 16];
	struct csv_table st;
	char err[4200], want[128], rate[32];
	cr_assert_eq(csv_table_read("results/h200/sph-table.csv", &st, err, sizeof err), 0, "%s", err);
	long row = -1;
	for (size_t i = 0; i < st.nrows; i++)
		if (strcmp(csv_table_named(&st, i, "variant"), "sph-gpu-verlet") == 0 &&
		    strcmp(csv_table_named(&st, i, "n"), "255600") == 0 &&
		    /* the rendering row's moment: step 20, not the whole flow */
		    strcmp(csv_table_named(&st, i, "warm_steps"), "20") == 0 &&
		    csv_table_named(&st, i, "flow_to_steps")[0] == '\0')
			row = (long)i;
	cr_assert_geq(row, 0);
	report_grouped(rate, sizeof rate, llround(atof(csv_table_named(&st, (size_t)row, "steps_per_s"))));
	csv_table_free(&st);
	tmp_dir_make(dir, "report-steps");
	snprintf(cmd, sizeof cmd, "cp results/h200/sph-render-table.csv results/h200/sph-render-table.meta.json %s/", dir);
	cr_assert_eq(system(cmd), 0);
	snprintf(cmd, sizeof cmd, "%s report --render --from %s", cli_harness_bin(), dir);
	cr_assert_eq(cli_run_stdout(cmd, out, sizeof out), 0, "%s", out);
	cr_expect(strstr(out, "| 255,600 | H200, verlet* |") && strstr(out, "\n*: no row of the SPH step suites"),
		  "alone, the row takes its own step, marked: %s", out);
	snprintf(cmd, sizeof cmd, "cp results/h200/sph-table.csv results/h200/sph-table.meta.json %s/", dir);
	cr_assert_eq(system(cmd), 0);
	snprintf(cmd, sizeof cmd, "%s report --render --from %s", cli_harness_bin(), dir);
	cr_assert_eq(cli_run_stdout(cmd, out, sizeof out), 0, "%s", out);
	snprintf(want, sizeof want, "| 255,600 | H200, verlet | %s |", rate);
	cr_expect(strstr(out, want), "beside sph-table.csv, '%s' expected: %s", want, out);
	tmp_dir_remove(dir);
}

/* A rendering table none of whose rows the tables show (every row failed
 * its rendering checks) is refused in one line, tables and --data alike,
 * so that make figures skips it saying why instead of drawing nothing. */
Test(report, render_table_without_valid_rows_is_refused)
{
	char dir[64], path[128], cmd[512], e[4096];
	tmp_dir_make(dir, "report-invalid");
	snprintf(path, sizeof path, "%s/sph-render-table.csv", dir);
	csv_with_column("results/h200/sph-render-table.csv", path, "render_valid", "0");
	for (int data = 0; data <= 1; data++) {
		snprintf(cmd, sizeof cmd, "%s report --render%s --from %s", cli_harness_bin(),
			 data ? " --data" : "", dir);
		cr_expect_eq(cli_run(cmd, e, sizeof e), 2, "%s", e);
		cr_expect(strstr(e, "nothing to show") && strchr(e, '\n') == strrchr(e, '\n'), "%s", e);
	}
	tmp_dir_remove(dir);
}

/* --data: the four columns of the paper as gnuplot blocks, a line per
 * particle count with the two published and the two measured rates. */
Test(report, render_data_has_four_blocks)
{
	static char out[65536];
	char cmd[512];
	snprintf(cmd, sizeof cmd, "%s report --render --data --from results/h200", cli_harness_bin());
	cr_assert_eq(cli_run_stdout(cmd, out, sizeof out), 0, "%s", out);
	cr_expect(strstr(out, "# physics\n16128 69 123 ") && strstr(out, "# extraction\n") &&
			  strstr(out, "# rendering\n") && strstr(out, "# overall\n16128 28 52 "),
		  "%s", out);
	cr_expect(strstr(out, "\n4207500 0 0 "), "no published row at 4.2 million: %s", out);
}

Test(report, render_without_results_is_one_line_and_exit_2)
{
	char cmd[512], err[4096];
	snprintf(cmd, sizeof cmd, "%s report --render --from /nonexistent-results", cli_harness_bin());
	cr_expect_eq(cli_run(cmd, err, sizeof err), 2, "%s", err);
	cr_expect(strstr(err, "'/nonexistent-results' is not a folder of results"), "%s", err);
	cr_expect_eq(strchr(err, '\n'), err + strlen(err) - 1, "one line: %s", err);
	snprintf(cmd, sizeof cmd, "%s report --render --from tests/fixtures/results/compare",
		 cli_harness_bin());
	cr_expect_eq(cli_run(cmd, err, sizeof err), 2, "%s", err);
	cr_expect(strstr(err, "tests/fixtures/results/compare/sph-render-table.csv"), "%s", err);
	cr_expect_eq(strchr(err, '\n'), err + strlen(err) - 1, "one line: %s", err);
	snprintf(cmd, sizeof cmd, "%s report --data", cli_harness_bin());
	cr_expect_eq(cli_run(cmd, err, sizeof err), 2, "--data alone: %s", err);
}

/* Copies results/h200/name (and its sidecar when side) into dir. */
static void report_copy(const char *dir, const char *name, bool side)
{
	char cmd[1024];
	snprintf(cmd, sizeof cmd, "cp results/h200/%s %s/", name, dir);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
	if (side) {
		snprintf(cmd, sizeof cmd, "cp results/h200/%.*s.meta.json %s/",
			 (int)(strlen(name) - 4), name, dir);
		cr_assert_eq(system(cmd), 0, "%s", cmd);
	}
}

/*
 * The report takes valid rows only, and refuses a file that does not
 * match its sidecar. In a copy of the H200 results whose baseline.csv
 * (its sidecar left out, so the edit is not refused) gains a failed row
 * at N = 4,096 with a figure far above the best (9.99e12 interactions/s,
 * valid 0), the table still names 1.19e12 `auto`; the same file beside
 * its own (now mismatched) sidecar is refused with exit 2.
 */
Test(report, a_failed_row_is_never_the_best_and_a_mismatched_pair_is_refused)
{
	char dir[] = "/tmp/harness-report-XXXXXX", path[256], cmd[1024], err[4096];
	static char out[65536];
	struct csv_table t;
	cr_assert_not_null(mkdtemp(dir));
	report_copy(dir, "baseline.csv", false);
	report_copy(dir, "steps.csv", true);
	report_copy(dir, "fig31-6.csv", true);
	snprintf(path, sizeof path, "%s/baseline.csv", dir);
	cr_assert_eq(csv_table_read(path, &t, err, sizeof err), 0, "%s", err);
	const int n = csv_table_col(&t, "n"), valid = csv_table_col(&t, "valid");
	const int ips = csv_table_col(&t, "interactions_per_s"), prec = csv_table_col(&t, "precision");
	cr_assert(n >= 0 && valid >= 0 && ips >= 0 && prec >= 0);
	size_t r = 0;
	while (r < t.nrows && !(strcmp(csv_table_cell(&t, r, (size_t)n), "4096") == 0 &&
				strcmp(csv_table_cell(&t, r, (size_t)prec), "fp32") == 0))
		r++;
	cr_assert_lt(r, t.nrows, "no fp32 row at N = 4096");
	const char **cells = malloc(t.ncols * sizeof *cells);
	cr_assert_not_null(cells);
	FILE *fp = fopen(path, "w");
	cr_assert_not_null(fp);
	cr_assert_eq(csv_write_row(fp, (const char *const *)t.header, t.ncols), 0);
	for (size_t q = 0; q <= t.nrows; q++) {
		const size_t from = q < t.nrows ? q : r;	/* the last: the failed copy */
		for (size_t c = 0; c < t.ncols; c++)
			cells[c] = csv_table_cell(&t, from, c);
		if (q == t.nrows) {
			cells[valid] = "0";
			cells[ips] = "9.99e+12";
		}
		cr_assert_eq(csv_write_row(fp, cells, t.ncols), 0);
	}
	cr_assert_eq(fclose(fp), 0);
	free(cells);
	csv_table_free(&t);

	snprintf(cmd, sizeof cmd, "%s report --from %s", cli_harness_bin(), dir);
	cr_assert_eq(cli_run_stdout(cmd, out, sizeof out), 0, "%s", out);
	cr_expect(strstr(out, "| 4,096 | >= 6.0e11 | 1.19e12 `auto` | 1.19e12 | 43 |"),
		  "a failed row taken for the best: %s", out);
	cr_expect_null(strstr(out, "9.99e12"), "%s", out);

	report_copy(dir, "baseline.meta.json", false);
	snprintf(cmd, sizeof cmd, "%s report --from %s", cli_harness_bin(), dir);
	cr_expect_eq(cli_run(cmd, err, sizeof err), 2, "a mismatched pair was read: %s", err);
	cr_expect(strstr(err, "does not match its sidecar"), "%s", err);
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	cr_expect_eq(system(cmd), 0);
}

/* The SPH and rendering tables refuse a file that does not match its
 * sidecar, as the N-body table does (a copy of the H200's sph-table.csv,
 * or sph-render-table.csv, with a row more beside its own sidecar), and
 * a file that is no CSV, in one line and exit 2. */
Test(report, sph_and_render_refuse_a_mismatched_pair)
{
	static const char *const files[2] = { "sph-table.csv", "sph-render-table.csv" };
	static const char *const flags[2] = { "--sph", "--render" };
	for (int k = 0; k < 2; k++) {
		char dir[] = "/tmp/harness-report-XXXXXX", cmd[1024], err[4096];
		cr_assert_not_null(mkdtemp(dir));
		report_copy(dir, files[k], true);
		snprintf(cmd, sizeof cmd, "%s report %s --from %s", cli_harness_bin(), flags[k], dir);
		cr_expect_eq(cli_run(cmd, err, sizeof err), 0, "the pair as committed: %s", err);
		snprintf(cmd, sizeof cmd, "sed -n 2p %s/%s >> %s/%s", dir, files[k], dir, files[k]);
		cr_assert_eq(system(cmd), 0, "%s", cmd);
		snprintf(cmd, sizeof cmd, "%s report %s --from %s", cli_harness_bin(), flags[k], dir);
		cr_expect_eq(cli_run(cmd, err, sizeof err), 2, "%s: a mismatched pair was read: %s",
			     files[k], err);
		cr_expect(strstr(err, "does not match its sidecar"), "%s", err);
		/* a file that is no CSV at all: its line, not a table of nothing */
		snprintf(cmd, sizeof cmd, "rm %s/*.meta.json && printf 'variant,column,steps_per_s\\nx,1,2,3\\n' > %s/%s",
			 dir, dir, files[k]);
		cr_assert_eq(system(cmd), 0, "%s", cmd);
		snprintf(cmd, sizeof cmd, "%s report %s --from %s", cli_harness_bin(), flags[k], dir);
		cr_expect_eq(cli_run(cmd, err, sizeof err), 2, "%s: a malformed file was read: %s",
			     files[k], err);
		cr_expect(strstr(err, "4 fields, header has 3"), "%s", err);
		snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
		cr_expect_eq(system(cmd), 0);
	}
}
