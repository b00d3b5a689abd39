/* test_ab_pool.c - pooling one side's rounds: recomputed figures, failed rows, disagreeing rounds */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../harness/gate/ab_pool.h"
#include "../../harness/gate/compare.h"
#include "../../harness/core/csv_table.h"
#include "../../harness/core/json_in.h"
#include "../../harness/nbody/nbody_results.h"
#include "../../harness/core/results.h"
#include "../cpu_row.h"
#include "../tmp_dir.h"

static char dir[64];

static void make_dir(void)
{
	tmp_dir_make(dir, "ab-pool");
}

static void remove_dir(void)
{
	tmp_dir_remove(dir);
}

TestSuite(ab_pool, .init = make_dir, .fini = remove_dir);

/* A round's N-body row of cpu-portable at N = 1000 with these samples
 * (seconds per call); valid unless told otherwise. */
static struct result_row row_of(double *samples, size_t count, bool valid)
{
	return cpu_row_of(&nbody_variants[NBODY_V_cpu_portable], samples, count, valid);
}

/* Writes round k's file DIR/<side>-r<k>.csv with its sidecar; returns its path. */
static char *write_round(const char *side, int k, struct result_row *rows, size_t n)
{
	static char paths[8][128];
	static int next;
	char *p = paths[next++ % 8];
	snprintf(p, 128, "%s/%s-r%d.csv", dir, side, k);
	cpu_rows_write(p, rows, n);
	return p;
}

static const struct ab_pool_info info = { "new", "bin/harness", NULL, "ABBA", 0, NULL };

static double cell(const struct csv_table *t, size_t row, const char *col)
{
	double v;
	char err[256];
	cr_assert_eq(csv_table_double(t, row, col, &v, err, sizeof err), 0, "%s", err);
	return v;
}

Test(ab_pool, figures_come_from_all_rounds)
{
	double a[] = { 1e-3, 2e-3, 3e-3 }, b[] = { 4e-3, 5e-3 };
	struct result_row r0 = row_of(a, 3, true), r1 = row_of(b, 2, true);
	const char *csv[] = { write_round("new", 1, &r0, 1), write_round("new", 2, &r1, 1) };
	char out[160], err[512];
	struct ab_pool_summary sum;
	snprintf(out, sizeof out, "%s/new.csv", dir);
	cr_assert_eq(ab_pool(csv, 2, out, &info, &sum, err, sizeof err), 0, "%s", err);
	cr_assert_eq(sum.rows, 1);
	cr_assert_eq(sum.failed, 0);

	struct csv_table t;
	cr_assert_eq(csv_table_read(out, &t, err, sizeof err), 0, "%s", err);
	cr_assert_eq(cell(&t, 0, "samples"), 5);
	/* the median of the rounds' medians (2 and 4.5 ms), not of the pooled
	 * samples (3 ms): the round that took more samples does not weigh more */
	cr_assert_float_eq(cell(&t, 0, "time_median_s"), 3.25e-3, 1e-12);
	cr_assert_float_eq(cell(&t, 0, "time_min_s"), 1e-3, 1e-12);
	cr_assert_float_eq(cell(&t, 0, "time_max_s"), 5e-3, 1e-12);
	/* samples 1..5 ms: mean 3 ms, sample standard deviation sqrt(2.5) ms */
	cr_assert_float_eq(cell(&t, 0, "time_stddev_s"), sqrt(2.5) * 1e-3, 1e-8);
	cr_assert_float_eq(cell(&t, 0, "noise_pct"), 100 * sqrt(2.5) / 3, 1e-4);
	cr_assert_float_eq(cell(&t, 0, "interactions_per_s"), 1e6 / 3.25e-3, 1e3);
	cr_assert_float_eq(cell(&t, 0, "gflop_per_s"), 20 * 1e6 / 3.25e-3 * 1e-9, 1e-4);
	cr_assert_eq(cell(&t, 0, "noise_met"), 0);
	cr_assert_str_eq(csv_table_cell(&t, 0, (size_t)csv_table_col(&t, "variant")), "cpu-portable");
	csv_table_free(&t);

	struct json_in_value side;
	char spath[192];
	snprintf(spath, sizeof spath, "%s/new.meta.json", dir);
	cr_assert_eq(json_in_read_file(spath, &side, err, sizeof err), 0, "%s", err);
	cr_assert_str_eq(json_in_member(&side, "schema")->string, "nbody-harness-results/1");
	cr_assert_str_eq(json_in_member(&side, "csv")->string, out);
	const struct json_in_value *ab = json_in_member(&side, "ab");
	cr_assert_str_eq(json_in_member(ab, "side")->string, "new");
	cr_assert_str_eq(json_in_member(ab, "order")->string, "ABBA");
	cr_assert_str_eq(json_in_member(ab, "git_commit")->string, sum.commit);
	cr_assert_eq(json_in_member(ab, "round_files")->count, 2);
	cr_assert_not_null(json_in_member(json_in_member(&side, "build"), "git_commit"));
	const struct json_in_value *s = json_in_member(&side, "samples");
	cr_assert_eq(s->count, 1);
	cr_assert_eq(json_in_member(&s->items[0], "seconds_per_call")->count, 5);
	json_in_free(&side);
}

/* A row that failed in one round does not count, and compare says why. */
Test(ab_pool, a_row_invalid_in_one_round_is_not_compared)
{
	double a[] = { 1e-3, 1.002e-3 }, b[] = { 1e-3 }; /* 0.14 % noise: decided at 5 % */
	struct result_row good[2] = { row_of(a, 2, true), row_of(b, 1, true) };
	struct result_row bad[2] = { row_of(a, 2, true), row_of(b, 1, false) };
	good[1].n = bad[1].n = 2000;
	const char *base[] = { write_round("base", 1, good, 2), write_round("base", 2, good, 2) };
	const char *new[] = { write_round("new", 1, good, 2), write_round("new", 2, bad, 2) };
	char bout[160], nout[160], err[512];
	struct ab_pool_summary sum;
	snprintf(bout, sizeof bout, "%s/base.csv", dir);
	snprintf(nout, sizeof nout, "%s/new.csv", dir);
	cr_assert_eq(ab_pool(base, 2, bout, &info, &sum, err, sizeof err), 0, "%s", err);
	cr_assert_eq(sum.failed, 0);
	cr_assert_eq(ab_pool(new, 2, nout, &info, &sum, err, sizeof err), 0, "%s", err);
	cr_assert_eq(sum.failed, 1);

	struct compare_report r;
	struct compare_opts o = { .threshold_pct = COMPARE_DEFAULT_THRESHOLD_PCT };
	cr_assert_eq(compare_files(bout, nout, &o, &r, err, sizeof err), 0, "%s", err);
	cr_assert_eq(r.count, 2);
	cr_assert_eq(r.entries[0].raw.verdict, COMPARE_SAME, "identical samples");
	cr_assert_eq(r.entries[1].raw.verdict, COMPARE_UNCOMPARED);
	cr_assert_not(r.entries[1].new.valid);
	cr_assert_eq(r.failed_new, 1);
	cr_assert_eq(compare_exit_status(&r), COMPARE_REGRESSED, "NEW's failure is a regression");
	compare_report_free(&r);
}

Test(ab_pool, rounds_that_ran_other_rows_are_refused)
{
	double a[] = { 1e-3, 2e-3 };
	struct result_row x = row_of(a, 2, true), y = row_of(a, 2, true);
	y.n = 1024;
	const char *csv[] = { write_round("new", 1, &x, 1), write_round("new", 2, &y, 1) };
	char out[160], err[512] = "";
	struct ab_pool_summary sum;
	snprintf(out, sizeof out, "%s/new.csv", dir);
	cr_assert_eq(ab_pool(csv, 2, out, &info, &sum, err, sizeof err), -1);
	cr_assert(strstr(err, "new-r2.csv") && strstr(err, "differs"), "%s", err);
	cr_assert_neq(access(out, F_OK), 0, "no half-made pooled file");
}

/* The SPH schema, as `harness sph run` writes it: rates rescale, phase
 * times average, whatever the other columns are. */
Test(ab_pool, any_schema_with_the_same_column_names_pools)
{
	const char *csv_text[2] = {
		"variant,n,valid,rho_max_rel_err,samples,time_median_step_s,noise_pct,steps_per_s,build_ms\n"
		"sph-cpu-grid,16128,1,1e-6,2,0.02,1,50,4\n",
		"variant,n,valid,rho_max_rel_err,samples,time_median_step_s,noise_pct,steps_per_s,build_ms\n"
		"sph-cpu-grid,16128,1,3e-6,2,0.04,1,25,6\n",
	};
	const char *side_text[2] = {
		"{\"schema\": \"sph-harness-results/1\", \"timing\": {\"max_noise_pct\": 0.5},"
		" \"samples\": [{\"variant\": \"sph-cpu-grid\", \"n\": 16128, \"seconds_per_call\": [0.02, 0.02]}]}",
		"{\"schema\": \"sph-harness-results/1\", \"samples\": [{\"variant\": \"sph-cpu-grid\","
		" \"n\": 16128, \"seconds_per_call\": [0.04, 0.04]}]}",
	};
	char paths[2][160], out[160], err[512];
	const char *csv[2] = { paths[0], paths[1] };
	for (int k = 0; k < 2; k++) {
		char side[192];
		snprintf(paths[k], sizeof paths[k], "%s/sph-r%d.csv", dir, k + 1);
		snprintf(side, sizeof side, "%s/sph-r%d.meta.json", dir, k + 1);
		FILE *fp = fopen(paths[k], "w");
		fputs(csv_text[k], fp);
		fclose(fp);
		fp = fopen(side, "w");
		fputs(side_text[k], fp);
		fclose(fp);
	}
	struct ab_pool_summary sum;
	snprintf(out, sizeof out, "%s/sph.csv", dir);
	cr_assert_eq(ab_pool(csv, 2, out, &info, &sum, err, sizeof err), 0, "%s", err);
	cr_assert_str_eq(sum.commit, "unknown");
	cr_assert_eq(sum.dirty, -1);
	struct csv_table t;
	cr_assert_eq(csv_table_read(out, &t, err, sizeof err), 0, "%s", err);
	cr_assert_float_eq(cell(&t, 0, "time_median_step_s"), 0.03, 1e-12);
	cr_assert_float_eq(cell(&t, 0, "steps_per_s"), 1 / 0.03, 1e-3);
	cr_assert_float_eq(cell(&t, 0, "build_ms"), 5, 1e-12);
	cr_assert_float_eq(cell(&t, 0, "rho_max_rel_err"), 3e-6, 1e-15, "the worst round's error");
	cr_assert_float_eq(cell(&t, 0, "noise_pct"), 100 * sqrt(4e-4 / 3) / 0.03, 1e-3);
	csv_table_free(&t);
}
