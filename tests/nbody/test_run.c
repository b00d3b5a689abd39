/* test_run.c - bin/harness run end to end: results pair, suites, a failing variant */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../harness/core/csv_table.h"
#include "../../harness/core/json_in.h"
#include "../../harness/core/results.h"
#include "../../harness/core/stats.h"
#include "../cli_run.h"

/* Short timing: these tests check what run writes, not what it measures. */
#define RUN_TIMING "--min-time 0.01 --max-time 0.05"

static void run_tmpdir(char *dir)
{
	strcpy(dir, "/tmp/harness-run-XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
}

static void run_rmdir(const char *dir)
{
	char cmd[256];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	cr_expect_eq(system(cmd), 0);
}

/* How many entries dir holds (besides . and ..). */
static size_t run_dir_entries(const char *dir)
{
	DIR *d = opendir(dir);
	cr_assert_not_null(d);
	size_t n = 0;
	for (struct dirent *e; (e = readdir(d)) != NULL;)
		n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
	closedir(d);
	return n;
}

/* Reads csv_path, checks it against its sidecar and that every row
 * validated and was timed; returns the table (caller frees). */
static struct csv_table run_read_results(const char *csv_path)
{
	char err[1024];
	struct csv_table t;
	cr_assert_eq(results_pair_check(csv_path, err, sizeof err), RESULTS_PAIR_OK, "%s", err);
	cr_assert_eq(csv_table_read(csv_path, &t, err, sizeof err), 0, "%s", err);
	int valid = csv_table_col(&t, "valid"), med = csv_table_col(&t, "time_median_s");
	cr_assert(valid >= 0 && med >= 0);
	for (size_t r = 0; r < t.nrows; r++) {
		cr_expect_str_eq(csv_table_cell(&t, r, (size_t)valid), "1", "%s row %zu", csv_path, r);
		cr_expect_neq(csv_table_cell(&t, r, (size_t)med)[0], '\0', "%s row %zu untimed",
			      csv_path, r);
	}
	return t;
}

/* Rows of t whose variant is name. */
static size_t run_rows_of(const struct csv_table *t, const char *name)
{
	int c = csv_table_col(t, "variant");
	size_t n = 0;
	for (size_t r = 0; r < t->nrows; r++)
		n += strcmp(csv_table_cell(t, r, (size_t)c), name) == 0;
	return n;
}

/* Runs "harness ARGS", which must exit 0, and reads dir/csv_name as above. */
static struct csv_table run_ok(const char *args, const char *dir, const char *csv_name)
{
	char cmd[1024], err[8192], path[128];
	snprintf(cmd, sizeof cmd, "%s %s", cli_harness_bin(), args);
	cr_assert_eq(cli_run(cmd, err, sizeof err), 0, "%s", err);
	snprintf(path, sizeof path, "%s/%s", dir, csv_name);
	return run_read_results(path);
}

Test(run, writes_a_results_pair_that_matches, .timeout = 120)
{
	char dir[32], args[512], side[128];
	run_tmpdir(dir);
	snprintf(args, sizeof args, "run --variant 'cpu-*' --n 100,1000 " RUN_TIMING " --out %s/r.csv",
		 dir);
	struct csv_table t = run_ok(args, dir, "r.csv");
	cr_expect_eq(t.nrows, 4, "2 variants x 2 N");
	cr_expect_eq(run_rows_of(&t, "cpu-portable"), 2);
	cr_expect_eq(run_rows_of(&t, "cpu-simd"), 2);
	csv_table_free(&t);
	snprintf(side, sizeof side, "%s/r.meta.json", dir);
	FILE *fp = fopen(side, "r");
	cr_assert_not_null(fp);
	char json[65536];
	json[fread(json, 1, sizeof json - 1, fp)] = '\0';
	fclose(fp);
	cr_expect(strstr(json, "\"100,1000\""), "the sidecar keeps the command line");
	cr_expect(strstr(json, "\"csv_rows\": 4"), "the sidecar counts the rows");
	cr_expect_eq(run_dir_entries(dir), 2, "the pair and nothing else");
	run_rmdir(dir);
}

/* Whether this build can run variant name here (harness list says). */
static bool run_can_run_here(const char *name)
{
	char cmd[512];
	snprintf(cmd, sizeof cmd, "%s list --variant %s | grep -q '^%s .* yes '", cli_harness_bin(),
		 name, name);
	return system(cmd) == 0;
}

/* Lines of text that contain word. */
static int run_lines_with(const char *text, const char *word)
{
	int n = 0;
	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		const char *end = strchr(l, '\n'), *hit = strstr(l, word);
		n += hit && (!end || hit < end);
	}
	return n;
}

/* A whole suite from suites.def: what this machine can run of it (the
 * CPU variants everywhere; the GPU ones where there is a GPU), and one
 * line naming what it skipped, also listed in the sidecar. */
/* `run --suite cpu-speedup` with extra options into a fresh dir (exit 0
 * asserted; its stderr in err): the rows it wrote. */
static struct csv_table run_cpu_speedup(const char *extra, char *dir, char *err, size_t errlen)
{
	char cmd[1024], path[128];
	run_tmpdir(dir);
	snprintf(cmd, sizeof cmd, "%s run --suite cpu-speedup %s " RUN_TIMING " --out-dir %s",
		 cli_harness_bin(), extra, dir);
	cr_assert_eq(cli_run(cmd, err, errlen), 0, "%s", err);
	snprintf(path, sizeof path, "%s/cpu-speedup.csv", dir);
	return run_read_results(path);
}

Test(run, suite_writes_its_csv, .timeout = 300)
{
	char dir[32], err[8192], path[128];
	struct csv_table t = run_cpu_speedup("", dir, err, sizeof err);
	cr_expect_eq(run_rows_of(&t, "cpu-portable"), 5, "1024..16384");
	cr_expect_eq(run_rows_of(&t, "cpu-simd"), 7, "1024..65536");
	csv_table_free(&t);
	if (!run_can_run_here("auto")) {
		cr_expect_eq(run_lines_with(err, "skipped"), 1, "once: %s", err);
		cr_expect(strstr(err, "harness: suite cpu-speedup: skipped 2 variants that cannot run here") &&
			  strstr(err, "unrolled-u4, auto"), "%s", err);
		struct json_in_value v;
		snprintf(path, sizeof path, "%s/cpu-speedup.meta.json", dir);
		cr_assert_eq(json_in_read_file(path, &v, err, sizeof err), 0, "%s", err);
		const struct json_in_value *sk = json_in_member(&v, "skipped");
		cr_expect(sk && sk->count == 2, "the sidecar lists them");
		json_in_free(&v);
	}
	run_rmdir(dir);
}

/* A suite none of whose rows can run here writes no file (no header-only
 * CSV that reads like a measurement): one line saying why, exit 2. */
Test(run, suite_that_cannot_run_here_writes_nothing)
{
	if (run_can_run_here("unrolled-u4"))
		cr_skip_test("fig31-5 runs here: this test needs a machine without a GPU");
	char dir[32], cmd[512], err[8192];
	run_tmpdir(dir);
	snprintf(cmd, sizeof cmd, "%s run --suite fig31-5 " RUN_TIMING " --out-dir %s", cli_harness_bin(),
		 dir);
	cr_expect_eq(cli_run(cmd, err, sizeof err), 2, "%s", err);
	cr_expect(strncmp(err, "harness: suite fig31-5: nothing of it can run here, no file written", 67) == 0,
		  "%s", err);
	cr_expect(strchr(err, '\n') == strrchr(err, '\n'), "one line: %s", err);
	cr_expect_eq(run_dir_entries(dir), 0, "no file");
	run_rmdir(dir);
}

/* --n with a suite keeps the suite's rows at those N (in the suite's
 * order); an N the suite does not have is an error, and no file. */
Test(run, suite_rows_at_the_given_n, .timeout = 120)
{
	char dir[32], cmd[1024], err[8192];
	struct csv_table t = run_cpu_speedup("--n 2^11,2^15", dir, err, sizeof err);
	cr_expect_eq(run_rows_of(&t, "cpu-portable"), 1, "2048 only: cpu-portable stops at 16384");
	cr_expect_eq(run_rows_of(&t, "cpu-simd"), 2, "2048 and 32768");
	for (size_t r = 0; r < t.nrows; r++) {
		const char *n = csv_table_named(&t, r, "n");
		cr_expect(strcmp(n, "2048") == 0 || strcmp(n, "32768") == 0, "row at N = %s", n);
	}
	csv_table_free(&t);
	run_rmdir(dir);

	run_tmpdir(dir);
	snprintf(cmd, sizeof cmd, "%s run --suite cpu-speedup --n 3000 " RUN_TIMING " --out-dir %s",
		 cli_harness_bin(), dir);
	cr_expect_eq(cli_run(cmd, err, sizeof err), 2, "%s", err);
	cr_expect(strstr(err, "suite cpu-speedup has no row at the N given by --n") != NULL, "%s", err);
	cr_expect_eq(run_dir_entries(dir), 0, "no file");
	run_rmdir(dir);
}

/* A plain run leaves out what cannot run here and says so once, in one
 * line naming the variants and why; the sidecar lists them. */
Test(run, skipped_variants_are_named_once)
{
	if (run_can_run_here("naive"))
		cr_skip_test("the GPU variants run here: this test needs a machine without a GPU");
	char dir[32], cmd[512], err[8192], side[128];
	run_tmpdir(dir);
	snprintf(cmd, sizeof cmd, "%s run --variant 'cpu-portable,naive,tiled-*' --n 16 " RUN_TIMING
		 " --out %s/r.csv", cli_harness_bin(), dir);
	cr_expect_eq(cli_run(cmd, err, sizeof err), 0, "%s", err);
	cr_expect_eq(run_lines_with(err, "skipped"), 1, "%s", err);
	cr_expect(strstr(err, "harness: skipped 7 variants that cannot run here (") &&
		  strstr(err, "naive, tiled-p32, tiled-p64"), "%s", err);
	snprintf(side, sizeof side, "%s/r.meta.json", dir);
	struct json_in_value v;
	char e[512];
	cr_assert_eq(json_in_read_file(side, &v, e, sizeof e), 0, "%s", e);
	const struct json_in_value *sk = json_in_member(&v, "skipped");
	cr_assert(sk && sk->type == JSON_IN_ARRAY && sk->count == 7);
	cr_expect_str_eq(json_in_member(&sk->items[0], "variant")->string, "naive");
	json_in_free(&v);
	/* nothing that can run: one line, exit 2, no file */
	snprintf(cmd, sizeof cmd, "%s run --variant 'naive,tiled-*' --n 16 --out %s/x.csv",
		 cli_harness_bin(), dir);
	cr_expect_eq(cli_run(cmd, err, sizeof err), 2, "%s", err);
	cr_expect(strstr(err, "nothing selected can run here: 7 variants"), "%s", err);
	cr_expect(strchr(err, '\n') == strrchr(err, '\n'), "one line: %s", err);
	cr_expect_eq(run_dir_entries(dir), 2, "r.csv and its sidecar only");
	run_rmdir(dir);
}

/* One CPU variant with a planted bug (the registry's test hook: the middle
 * body skipped in every force sum): run must name it and exit 1; the
 * results file keeps both variants' rows, the failed ones with valid = 0
 * and no timing, so they cannot pass for measurements. */
Test(run, a_variant_failing_validation_exits_1_and_is_marked_invalid, .timeout = 120)
{
	char dir[32], cmd[1024], err[4096], csv[64];
	run_tmpdir(dir);
	snprintf(cmd, sizeof cmd,
		 "HARNESS_PLANT_SKIP_BODY=cpu-simd %s run --variant 'cpu-*' --n 1000,4097 " RUN_TIMING
		 " --out %s/f.csv",
		 cli_harness_bin(), dir);
	cr_expect_eq(cli_run(cmd, err, sizeof err), 1, "%s", err);
	cr_expect(strstr(err, "cpu-simd N=1000 FAILED validation"), "%s", err);
	cr_expect(strstr(err, "cpu-simd N=4097 FAILED validation"), "%s", err);
	cr_expect_null(strstr(err, "cpu-portable N="), "the other variant passed: %s", err);
	snprintf(csv, sizeof csv, "%s/f.csv", dir);
	struct csv_table t;
	char terr[256];
	cr_assert_eq(csv_table_read(csv, &t, terr, sizeof terr), 0, "%s", terr);
	const int var = csv_table_col(&t, "variant"), valid = csv_table_col(&t, "valid");
	const int med = csv_table_col(&t, "time_median_s");
	cr_assert(var >= 0 && valid >= 0 && med >= 0);
	cr_expect_eq(t.nrows, 4, "two variants at two N");
	for (size_t r = 0; r < t.nrows; r++) {
		const bool planted = strcmp(csv_table_cell(&t, r, (size_t)var), "cpu-simd") == 0;

		cr_expect_str_eq(csv_table_cell(&t, r, (size_t)valid), planted ? "0" : "1", "row %zu", r);
		cr_expect_eq(csv_table_cell(&t, r, (size_t)med)[0] == '\0', planted,
			     "row %zu: timing only for a valid row", r);
	}
	csv_table_free(&t);

	/* Without the hook the same command passes: the plant made the failure. */
	snprintf(cmd, sizeof cmd, "%s run --variant 'cpu-*' --n 1000 " RUN_TIMING " --out %s/f.csv",
		 cli_harness_bin(), dir);
	cr_expect_eq(cli_run(cmd, err, sizeof err), 0, "%s", err);
	run_rmdir(dir);
}

/*
 * check and forces on a variant with the planted bug (the middle body
 * skipped) exit 1 and say why, where the same command without the hook
 * exits 0: the exit status carries the verdict on every command that
 * validates, not only on run. forces still writes its file (every body
 * next to the reference), with the verdict on stdout.
 */
Test(run, check_and_forces_exit_1_on_a_failing_variant, .timeout = 120)
{
	char dir[32], cmd[1024], err[4096];
	run_tmpdir(dir);
	for (int plant = 0; plant < 2; plant++) {
		const char *hook = plant ? "HARNESS_PLANT_SKIP_BODY=cpu-portable " : "";
		snprintf(cmd, sizeof cmd, "%s%s check --variant cpu-portable --n 1000", hook,
			 cli_harness_bin());
		int rc = cli_run(cmd, err, sizeof err);
		cr_expect_eq(rc, plant, "check, plant %d: exit %d: %s", plant, rc, err);
		cr_expect_eq(strstr(err, "cpu-portable N=1000 FAILED validation") != NULL, plant,
			     "check, plant %d: %s", plant, err);

		snprintf(cmd, sizeof cmd, "%s%s forces --variant cpu-portable --n 1000 --out %s/f.csv",
			 hook, cli_harness_bin(), dir);
		char out[4096];
		rc = cli_run_stdout(cmd, out, sizeof out);
		cr_expect_eq(rc, plant, "forces, plant %d: exit %d: %s", plant, rc, out);
		cr_expect(strstr(out, plant ? ": INVALID," : ": valid,") != NULL, "forces, plant %d: %s",
			  plant, out);
	}
	run_rmdir(dir);
}

/*
 * Softening 0, where every body's own pair sits at zero distance: check
 * validates cpu-simd on each path the CPU can run (NBODY_CPU_SIMD_ISA
 * asks for it; the isa is in the output), at an N that is not a multiple
 * of the 64-body blocks, and cpu-portable with it.
 */
Test(run, check_at_softening_0_on_every_cpu_path, .timeout = 120)
{
	static const char *const isas[] = { "avx512", "avx2", "scalar" };
	char cmd[1024], err[4096];
	for (size_t k = 0; k < sizeof isas / sizeof *isas; k++) {
		snprintf(cmd, sizeof cmd,
			 "NBODY_CPU_SIMD_ISA=%s %s check --variant 'cpu-*' --n 1000 --eps 0", isas[k],
			 cli_harness_bin());
		const int rc = cli_run(cmd, err, sizeof err);
		cr_expect_eq(rc, 0, "NBODY_CPU_SIMD_ISA=%s, eps 0: exit %d: %s", isas[k], rc, err);
	}
}

/*
 * forces judges every body, the last one too: three bodies on a line,
 * x = -10, 0.1 and 0 (unit masses), with the planted bug (the middle
 * body, 1, weighs nothing to the variant). Body 2 then loses its
 * dominant pull (from body 1, 0.1 away: an error of almost all of
 * sum_j |f_2j|), body 0 about half of its own; so the verdict's worst
 * body is the last one.
 */
Test(run, forces_judges_the_last_body_too, .timeout = 60)
{
	char dir[32], in[64], cmd[1024], out[4096];
	run_tmpdir(dir);
	snprintf(in, sizeof in, "%s/three.csv", dir);
	FILE *fp = fopen(in, "w");
	cr_assert_not_null(fp);
	fputs("x,y,z,mass\n-10,0,0,1\n0.1,0,0,1\n0,0,0,1\n", fp);
	cr_assert_eq(fclose(fp), 0);
	snprintf(cmd, sizeof cmd,
		 "HARNESS_PLANT_SKIP_BODY=cpu-portable %s forces --variant cpu-portable --ic %s "
		 "--eps 0 --out %s/f.csv",
		 cli_harness_bin(), in, dir);
	const int rc = cli_run_stdout(cmd, out, sizeof out);
	cr_expect_eq(rc, 1, "exit %d: %s", rc, out);
	cr_expect(strstr(out, "INVALID") && strstr(out, "at body 2,"), "the worst body is the last: %s",
		  out);
	unlink(in);
	run_rmdir(dir);
}

/* ---- --repetitions, --min-samples, --filter, the GPU of the run ------- */

/* The sidecar of csv_path, parsed (caller frees). */
static void run_read_sidecar(const char *csv_path, struct json_in_value *v)
{
	char err[512], *side = results_sidecar_path(csv_path);
	cr_assert_not_null(side);
	cr_assert_eq(json_in_read_file(side, v, err, sizeof err), 0, "%s", err);
	free(side);
}

/* The median of a seconds_per_call array. */
static double run_median_of(const struct json_in_value *a)
{
	cr_assert(a && a->type == JSON_IN_ARRAY && a->count > 0);
	double *x = malloc(a->count * sizeof *x);
	cr_assert_not_null(x);
	for (size_t i = 0; i < a->count; i++)
		x[i] = a->items[i].number;
	double m = stats_median(x, a->count);
	free(x);
	return m;
}

/* A figure as the CSV writes it (%.6g), read back. */
static double run_as_csv(double v)
{
	char cell[64];
	snprintf(cell, sizeof cell, "%.6g", v);
	return atof(cell);
}

/* Runs "harness run ARGS --out DIR/r.csv" into a fresh dir, which must
 * exit 0: its table in out, the CSV's path in path (128 bytes). */
static void run_table(const char *args, char *dir, char *path, char *out, size_t outlen)
{
	char cmd[1024];
	run_tmpdir(dir);
	snprintf(path, 128, "%s/r.csv", dir);
	snprintf(cmd, sizeof cmd, "%s run %s --out %s", cli_harness_bin(), args, path);
	cr_assert_eq(cli_run_stdout(cmd, out, outlen), 0, "%s", out);
}

Test(run, repetitions_keep_each_one_and_the_row_is_their_median, .timeout = 120)
{
	char dir[32], cmd[1024], out[8192], path[128];
	run_table("--variant cpu-portable --n 64 --repetitions 3 " RUN_TIMING, dir, path, out,
		  sizeof out);
	cr_expect(strstr(out, "reps range") && strstr(out, "3 repetitions a row (--repetitions): "
							   "median = the median of their medians"),
		  "the table shows the repetitions' spread and says what it is:\n%s", out);
	struct csv_table t = run_read_results(path);
	cr_assert_eq(t.nrows, 1);
	struct json_in_value side;
	run_read_sidecar(path, &side);
	cr_expect_eq(json_in_member(json_in_member(&side, "timing"), "repetitions")->number, 3);
	const struct json_in_value *e = &json_in_member(&side, "samples")->items[0];
	const struct json_in_value *reps = json_in_member(e, "repetitions");
	cr_assert(reps && reps->type == JSON_IN_ARRAY && reps->count == 3, "three repetitions");
	double med[3];
	size_t total = 0;
	for (size_t k = 0; k < 3; k++) {
		const struct json_in_value *s = json_in_member(&reps->items[k], "seconds_per_call");
		med[k] = run_median_of(s);
		total += s->count;
	}
	cr_expect_eq(json_in_member(e, "seconds_per_call")->count, total, "every sample is kept");
	double samples, median, noise;
	char err[256];
	cr_assert_eq(csv_table_double(&t, 0, "samples", &samples, err, sizeof err), 0, "%s", err);
	cr_assert_eq(csv_table_double(&t, 0, "time_median_s", &median, err, sizeof err), 0, "%s", err);
	cr_assert_eq(csv_table_double(&t, 0, "noise_pct", &noise, err, sizeof err), 0, "%s", err);
	cr_expect_eq(samples, (double)total);
	cr_expect_eq(median, run_as_csv(stats_median(med, 3)), "the median of the three medians");
	struct stats_summary between;
	cr_assert_eq(stats_summarize(med, 3, &between), 0);
	cr_expect_geq(noise, run_as_csv(100 * between.rel_stddev),
		      "noise_pct %g is not below the repetitions' own spread", noise);
	json_in_free(&side);
	csv_table_free(&t);
	/* compare reads the row, its resolution from that noise */
	char verdicts[160], want[32];
	snprintf(verdicts, sizeof verdicts, "%s/v.csv", dir);
	snprintf(cmd, sizeof cmd, "%s compare %s %s --out %s 2>/dev/null", cli_harness_bin(), path,
		 path, verdicts);
	int rc = cli_run_stdout(cmd, out, sizeof out);
	cr_expect(rc == 0 || rc == 3, "compare exits %d:\n%s", rc, out);
	cr_assert_eq(csv_table_read(verdicts, &t, err, sizeof err), 0, "%s", err);
	cr_assert_eq(t.nrows, 1);
	snprintf(want, sizeof want, "%.4g", sqrt(2.0) * noise);
	cr_expect_str_eq(csv_table_named(&t, 0, "noise_pct"), want, "sqrt(2) x the row's noise_pct");
	csv_table_free(&t);
	run_rmdir(dir);
}

Test(run, min_samples_is_the_fewest_a_row_takes, .timeout = 120)
{
	char dir[32], out[8192], path[128];
	/* no time floor and any noise will do: only --min-samples keeps it going */
	run_table("--variant cpu-portable --n 64 --min-samples 7 --min-time 0 --max-noise 100", dir,
		  path, out, sizeof out);
	cr_expect_null(strstr(out, "reps range"), "one repetition: the table of before:\n%s", out);
	struct json_in_value side;
	run_read_sidecar(path, &side);
	cr_expect_eq(json_in_member(json_in_member(&side, "timing"), "min_samples")->number, 7);
	const struct json_in_value *e = &json_in_member(&side, "samples")->items[0];
	cr_expect_geq(json_in_member(e, "seconds_per_call")->count, 7);
	cr_expect_null(json_in_member(e, "repetitions"), "no repetitions without --repetitions");
	json_in_free(&side);
	run_rmdir(dir);
}

Test(run, filter_keeps_the_rows_whose_name_it_matches, .timeout = 120)
{
	char dir[32], args[512];
	run_tmpdir(dir);
	snprintf(args, sizeof args, "run --variant 'cpu-*,dist-*' --filter 'simd$|^dist-ring' "
		 "--device cpu --n 64 " RUN_TIMING " --out %s/r.csv", dir);
	struct csv_table t = run_ok(args, dir, "r.csv");
	cr_expect_eq(t.nrows, 2, "cpu-simd and dist-ring-cpu");
	cr_expect_eq(run_rows_of(&t, "cpu-simd"), 1);
	cr_expect_eq(run_rows_of(&t, "dist-ring-cpu"), 1);
	csv_table_free(&t);
	run_rmdir(dir);
}

/* The sidecar says which GPU the run had and how it was chosen:
 * CUDA_VISIBLE_DEVICES as it was (null when unset), the index used among
 * the visible GPUs and that GPU's identity. */
Test(run, the_sidecar_records_the_gpu_selection, .timeout = 120)
{
	char dir[32], cmd[1024], err[8192], path[128];
	run_tmpdir(dir);
	snprintf(path, sizeof path, "%s/set.csv", dir);
	snprintf(cmd, sizeof cmd, "CUDA_VISIBLE_DEVICES=0,1 %s run --variant cpu-portable --n 16 "
		 RUN_TIMING " --out %s", cli_harness_bin(), path);
	cr_assert_eq(cli_run(cmd, err, sizeof err), 0, "%s", err);
	struct json_in_value side;
	run_read_sidecar(path, &side);
	const struct json_in_value *g = json_in_member(&side, "gpu_selection");
	cr_assert_not_null(g, "no gpu_selection in the sidecar");
	const struct json_in_value *cvd = json_in_member(g, "cuda_visible_devices");
	cr_assert(cvd && cvd->type == JSON_IN_STRING);
	cr_expect_str_eq(cvd->string, "0,1");
	const struct json_in_value *visible = json_in_member(g, "visible_gpus");
	const struct json_in_value *index = json_in_member(g, "index");
	cr_assert(visible && visible->type == JSON_IN_NUMBER && index);
	if (visible->number == 0) {
		cr_expect_eq(index->type, JSON_IN_NULL, "no GPU, no index");
	} else {
		cr_expect_eq(index->number, 0, "the default: the first visible GPU");
		const struct json_in_value *uuid = json_in_member(g, "uuid");
		cr_expect(uuid && uuid->type == JSON_IN_STRING && strncmp(uuid->string, "GPU-", 4) == 0);
		cr_expect(json_in_member(g, "pci_bus_id") != NULL);
	}
	json_in_free(&side);

	snprintf(path, sizeof path, "%s/unset.csv", dir);
	snprintf(cmd, sizeof cmd, "env -u CUDA_VISIBLE_DEVICES %s run --variant cpu-portable --n 16 "
		 RUN_TIMING " --out %s", cli_harness_bin(), path);
	cr_assert_eq(cli_run(cmd, err, sizeof err), 0, "%s", err);
	run_read_sidecar(path, &side);
	cvd = json_in_member(json_in_member(&side, "gpu_selection"), "cuda_visible_devices");
	cr_assert_not_null(cvd);
	cr_expect_eq(cvd->type, JSON_IN_NULL, "unset: null");
	json_in_free(&side);
	run_rmdir(dir);
}
