/* test_floors.c - the between-run floors: their derivation, the committed table, compare's use of them */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <glob.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../harness/gate/calibrate.h"
#include "../../harness/gate/compare.h"
#include "../../harness/gate/floors.h"
#include "../../harness/core/csv_table.h"
#include "../cli_run.h"

/* e = sqrt(d^2 - n^2) where the difference is beyond the noise, else 0. */
Test(floors, the_excess_is_the_difference_beyond_the_noise)
{
	cr_expect_float_eq(floors_excess(5, 4), 3, 1e-12);
	cr_expect_float_eq(floors_excess(4, 5), 0, 1e-12);
	cr_expect_float_eq(floors_excess(0.3, 0), 0.3, 1e-12);
}

/* The 95th percentile by nearest rank, up to the next 0.05; none from
 * fewer than FLOORS_MIN_PAIRS pairs. */
Test(floors, the_floor_is_the_95th_percentile_rounded_up)
{
	double e[40];
	for (int i = 0; i < 20; i++)
		e[i] = 0.1 * (20 - i); /* 2.0, 1.9, ..., 0.1, in no order the rule needs */
	/* rank ceil(0.95 x 20) = 19 of 0.1 .. 2.0: 1.9 */
	cr_expect_float_eq(floors_derive(e, 20), 1.90, 1e-9);
	for (int i = 0; i < 20; i++)
		e[i] = 0.1 * (i + 1);
	e[18] = 1.901;
	cr_expect_float_eq(floors_derive(e, 20), 1.95, 1e-9, "1.901 rounds up to the next step");
	for (int i = 0; i < 40; i++)
		e[i] = i < 38 ? 0.2 : 7.0; /* two outliers in 40: 5 %, above the 95th */
	cr_expect_float_eq(floors_derive(e, 40), 0.20, 1e-9);
	e[37] = 7.0; /* three: 7.5 %, one reaches the 95th */
	cr_expect_float_eq(floors_derive(e, 40), 7.00, 1e-9);
	cr_expect(isnan(floors_derive(e, FLOORS_MIN_PAIRS - 1)), "too few pairs: no floor");
}

/* A row's floor: its device, kind, device class and band; none elsewhere. */
Test(floors, a_row_finds_the_floor_of_its_class)
{
	const struct floor_class *f = floors_find("NVIDIA H200", "sph", "gpu", 6e-3);
	cr_assert_not_null(f);
	cr_expect_gt(f->floor_pct, 0);
	cr_expect_geq(f->pairs, FLOORS_MIN_PAIRS);
	const struct floor_class *shortc = floors_find("NVIDIA H200", "nbody", "gpu", 5e-5);
	const struct floor_class *longc = floors_find("NVIDIA H200", "nbody", "gpu", 2e-4);
	cr_assert(shortc && longc && shortc != longc, "two bands of N-body calls");
	cr_expect_lt(shortc->min_call_s, FLOORS_SHORT_CALL_S);
	cr_expect_geq(longc->min_call_s, FLOORS_SHORT_CALL_S);
	cr_expect_null(floors_find("NVIDIA H100 80GB HBM3", "sph", "gpu", 6e-3));
	cr_expect_null(floors_find("NVIDIA H200", "sph-render", "gpu", 6e-3));
	cr_expect_null(floors_find("NVIDIA H200", "nbody", "cpu", 6e-3));
	cr_expect_eq(floors_band(FLOORS_SHORT_CALL_S), 1);
	cr_expect_eq(floors_band(0.99 * FLOORS_SHORT_CALL_S), 0);
}

/* Writes an SPH results file of one row of device_name: steps/s rate,
 * noise_pct noise, a window of 128 steps of 50 us. */
static void sph_row_file(const char *path, const char *device_name, double rate, double noise)
{
	FILE *fp = fopen(path, "w");
	cr_assert_not_null(fp);
	fprintf(fp, "variant,device,device_name,column,warm_steps,window_steps,flow_to_steps,valid,"
		    "samples,time_median_step_s,noise_pct,steps_per_s,build_ms\n"
		    "sph-gpu-verlet,gpu,%s,255600,20,128,,1,40,5e-05,%g,%g,0.01\n",
		device_name, noise, rate);
	fclose(fp);
}

/* The verdict of rate against 10,000 steps/s on device_name, both rows of
 * no noise, at --threshold 5: the floor is all of the resolution. */
static struct compare_entry judge(const char *device_name, double rate, char *dir)
{
	char a[128], b[128], err[512];
	struct compare_opts o = { .threshold_pct = 5, .min_change_pct = 0, .unchecked = true };
	struct compare_report r;
	snprintf(a, sizeof a, "%s/a.csv", dir);
	snprintf(b, sizeof b, "%s/b.csv", dir);
	sph_row_file(a, device_name, 10000, 0);
	sph_row_file(b, device_name, rate, 0);
	cr_assert_eq(compare_files(a, b, &o, &r, err, sizeof err), 0, "%s", err);
	cr_assert_eq(r.count, 1);
	struct compare_entry e = r.entries[0];
	e.key.count = 0; /* the key's cells go with the report */
	compare_report_free(&r);
	return e;
}

/* compare adds the floor to the noise: a change of half the floor is
 * within it (same), one of twice the floor is beyond it (slower); on a
 * device without a floor both are told apart by the noise alone. */
Test(floors, compare_adds_the_floor_to_the_noise)
{
	char dir[] = "/tmp/test_floors.XXXXXX";
	cr_assert_not_null(mkdtemp(dir));
	const double f = floors_find("NVIDIA H200", "sph", "gpu", 128 * 5e-5)->floor_pct;
	struct compare_entry half = judge("NVIDIA H200", 10000 * (1 - f / 200), dir);
	cr_expect_eq(half.raw.verdict, COMPARE_SAME, "half the floor: %d", half.raw.verdict);
	cr_expect_float_eq(half.raw.resolution_pct, f, 1e-9, "no noise: the floor alone");
	cr_assert_not_null(half.floor);
	cr_expect_float_eq(half.floor->floor_pct, f, 1e-12);
	struct compare_entry twice = judge("NVIDIA H200", 10000 * (1 - 2 * f / 100), dir);
	cr_expect_eq(twice.raw.verdict, COMPARE_SLOWER, "twice the floor: %d", twice.raw.verdict);
	cr_expect(!twice.raw.regression, "under the threshold");
	struct compare_entry none = judge("A GPU of no calibration", 10000 * (1 - f / 200), dir);
	cr_expect_null(none.floor);
	cr_expect_eq(none.raw.verdict, COMPARE_SLOWER, "no floor: even half of it is told apart");
	char cmd[512], out[8192];
	snprintf(cmd, sizeof cmd, "%s compare --unchecked %s/a.csv %s/b.csv", cli_harness_bin(), dir,
		 dir);
	cli_run_capture(cmd, ">%s 2>&1", out, sizeof out);
	cr_expect(strstr(out, "no floor: 1 pair on a device, kind or time per call that no separate "
			      "runs calibrated"), "%s", out);
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	cr_assert_eq(system(cmd), 0);
}

/* The committed calibration runs: every run-k/NAME.csv beside the suite's
 * own results/h200/NAME.csv (the first run). */
static size_t committed_runs(const char **paths, size_t max, glob_t *g)
{
	size_t n = 0;
	cr_assert_eq(glob("results/h200/calibration/run-*/*.csv", 0, NULL, g), 0,
		     "run from the repository root");
	for (size_t i = 0; i < g->gl_pathc && n + 2 < max; i++) {
		const char *base = strrchr(g->gl_pathv[i], '/') + 1;
		bool have = false;
		for (size_t q = 0; q < n && !have; q++)
			have = strcmp(strrchr(paths[q], '/') + 1, base) == 0 &&
			       strncmp(paths[q], "results/h200/calibration", 24) != 0;
		if (!have) {
			char *first = malloc(64 + strlen(base));
			sprintf(first, "results/h200/%s", base);
			paths[n++] = first;
		}
		paths[n++] = g->gl_pathv[i];
	}
	return n;
}

/* floors.def is what calibrate derives from the runs it names, line by
 * line: no floor is typed in by hand. */
Test(floors, the_table_is_what_the_committed_runs_give, .timeout = 60)
{
	const char *paths[256];
	glob_t g;
	size_t n = committed_runs(paths, 256, &g);
	static struct calibrate_result r;
	char err[1024];
	cr_assert_eq(calibrate_files(paths, n, &r, err, sizeof err), 0, "%s", err);
	size_t derived = 0;
	for (size_t i = 0; i < r.count; i++) {
		const struct calibrate_class *c = &r.classes[i];
		if (c->suite[0] || isnan(c->floor_pct))
			continue;
		derived++;
		const struct floor_class *f = floors_find(c->device_name, c->kind, c->device,
							  c->band ? FLOORS_SHORT_CALL_S : 0);
		cr_assert_not_null(f, "no line for %s %s %s band %d", c->device_name, c->kind,
				   c->device, c->band);
		cr_expect_float_eq(f->floor_pct, c->floor_pct, 1e-9, "%s %s %s", c->device_name,
				   c->kind, c->device);
		cr_expect_eq((size_t)f->pairs, c->pairs);
		cr_expect_str_eq(f->source, "results/h200/calibration");
	}
	size_t lines = 0;
	for (size_t i = 0; i < floors_count; i++)
		lines += strcmp(floors_table[i].source, "results/h200/calibration") == 0;
	cr_expect_eq(lines, derived, "a line of floors.def that its runs do not give");
	for (size_t i = 0; i < n; i++)
		if (strncmp(paths[i], "results/h200/calibration", 24) != 0)
			free((char *)paths[i]);
	globfree(&g);
}

/* One run of a suite cannot be calibrated; the command says so. */
Test(floors, calibrate_needs_two_runs_of_each_suite)
{
	char cmd[512], out[4096];
	snprintf(cmd, sizeof cmd, "%s calibrate results/h200/sph-table.csv "
		 "results/h200/calibration/run-2/sph-table.csv results/h200/fig31-7.csv",
		 cli_harness_bin());
	cr_expect_eq(cli_run_capture(cmd, ">%s 2>&1", out, sizeof out), 2, "%s", out);
	cr_expect(strstr(out, "fig31-7.csv") && strstr(out, "two or more separate runs"), "%s", out);
	snprintf(cmd, sizeof cmd, "%s calibrate --frob a.csv b.csv", cli_harness_bin());
	cr_expect_eq(cli_run_capture(cmd, ">%s 2>&1", out, sizeof out), 2, "%s", out);
	cr_expect(strstr(out, "--frob"), "%s", out);
	snprintf(cmd, sizeof cmd, "%s calibrate results/h200/sph-table.csv "
		 "results/h200/calibration/run-2/sph-table.csv --def here", cli_harness_bin());
	cr_expect_eq(cli_run_capture(cmd, ">%s 2>&1", out, sizeof out), 0, "%s", out);
	cr_expect(strstr(out, "FLOOR(\"NVIDIA H200\", \"sph\", \"gpu\", 1, "), "%s", out);
}

/* The script of separate runs: K processes one after the other, a line a
 * run in runs.csv, each run's suite file where calibrate finds the pairs;
 * a run that would start past --time-limit is not started; bad usage is
 * exit 2. */
Test(floors, calibration_runs_are_separate_processes, .timeout = 120)
{
	char dir[] = "/tmp/test_floors_runs.XXXXXX", cmd[1024], out[8192], path[256];
	cr_assert_not_null(mkdtemp(dir));
	snprintf(cmd, sizeof cmd, "tests/gate/calibration-runs.sh --bin %s --suite baseline --runs 2 "
		 "--out %s/cal -- --filter '^cpu-simd$' --n 1024,2048 --min-time 0 --max-time 0.02",
		 cli_harness_bin(), dir);
	cr_assert_eq(cli_run_capture(cmd, ">%s 2>&1", out, sizeof out), 0, "%s", out);
	snprintf(path, sizeof path, "%s/cal/runs.csv", dir);
	struct csv_table t;
	char err[512];
	cr_assert_eq(csv_table_read(path, &t, err, sizeof err), 0, "%s", err);
	cr_expect_eq(t.nrows, 2);
	for (size_t r = 0; r < t.nrows; r++) {
		cr_expect_str_eq(csv_table_named(&t, r, "exit_status"), "0");
		cr_expect_eq(atoi(csv_table_named(&t, r, "run")), (int)r + 1);
	}
	csv_table_free(&t);
	snprintf(cmd, sizeof cmd, "%s calibrate %s/cal/run-1/baseline.csv %s/cal/run-2/baseline.csv",
		 cli_harness_bin(), dir, dir);
	cr_assert_eq(cli_run_capture(cmd, ">%s 2>&1", out, sizeof out), 0, "%s", out);
	cr_expect(strstr(out, "nbody  cpu  >=100us") && strstr(out, "      2       -"),
		  "two pairs: too few for a floor: %s", out);
	/* a limit already past: the first run starts (it is never late), the second does not */
	snprintf(cmd, sizeof cmd, "tests/gate/calibration-runs.sh --bin %s --suite baseline --runs 2 "
		 "--time-limit 1 --out %s/late -- --filter '^cpu-simd$' --n 1024 --min-time 1.2 "
		 "--max-time 1.2", cli_harness_bin(), dir);
	cr_assert_eq(cli_run_capture(cmd, ">%s 2>&1", out, sizeof out), 0, "%s", out);
	cr_expect(strstr(out, "run 2 not started: past --time-limit 1 s"), "%s", out);
	snprintf(cmd, sizeof cmd, "tests/gate/calibration-runs.sh --suite baseline --runs 0 --out %s/x",
		 dir);
	cr_expect_eq(cli_run_capture(cmd, ">%s 2>&1", out, sizeof out), 2, "%s", out);
	cr_expect(strstr(out, "--runs '0'"), "%s", out);
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	cr_assert_eq(system(cmd), 0);
}
