/* test_results.c - result rows to CSV and sidecar, and back through libcsv */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../harness/core/csv_table.h"
#include "../harness/core/json_in.h"
#include "../harness/nbody/nbody_results.h"
#include "../harness/core/results.h"
#include "cli_run.h"
#include "cpu_row.h"

static struct result_row timed_row(void)
{
	static double samples[3] = { 2e-3, 1e-3, 3e-3 };
	struct result_row r = cpu_row_of(&nbody_variants[NBODY_V_cpu_simd], samples, 3, true);
	r.device_name = "Test CPU, \"quoted\", with commas";
	r.t.reps_per_sample = 4; /* summary: mean and median 2 ms, stddev 1 ms */
	r.clock_start_mhz = 1980;
	r.clock_end_mhz = 1900;
	r.ceiling = 1e9;
	return r;
}

Test(results, derived_metrics)
{
	struct result_row r = timed_row();
	/* 1000^2 interactions in 2 ms */
	cr_assert_float_eq(results_interactions_per_s(&r), 5e8, 1e-3);
	cr_assert_float_eq(results_gflops(&r), 10.0, 1e-9);
	cr_assert(isnan(results_steps_per_s(&r)), "forces mode has no steps/s");
	r.steps_mode = true;
	cr_assert_float_eq(results_steps_per_s(&r), 500.0, 1e-9);
	r.timed = false;
	cr_assert(isnan(results_interactions_per_s(&r)));
}

Test(results, sidecar_path)
{
	char *a = results_sidecar_path("out/run.csv"), *b = results_sidecar_path("data");
	cr_assert_str_eq(a, "out/run.meta.json");
	cr_assert_str_eq(b, "data.meta.json");
	free(a);
	free(b);
}

Test(results, write_and_read_back)
{
	char dir[] = "/tmp/harness-results-XXXXXX";
	cr_assert_not_null(mkdtemp(dir));
	char path[256], side[256];
	snprintf(path, sizeof path, "%s/r.csv", dir);
	snprintf(side, sizeof side, "%s/r.meta.json", dir);
	struct result_row rows[2] = { timed_row(), timed_row() };
	rows[1].timed = false;
	rows[1].val.pass = false;
	rows[1].val.max_norm = 0.5;
	char *argv[] = { "harness", "run", "--n", "1000" };
	struct timing_opts topts;
	timing_opts_default(&topts);
	struct results_meta meta = { .argc = 4, .argv = argv, .timing = &topts };
	char err[256];
	cr_assert_eq(results_write(path, rows, 2, &meta, err, sizeof err), 0, "%s", err);

	struct csv_table t;
	cr_assert_eq(csv_table_read(path, &t, err, sizeof err), 0, "%s", err);
	cr_assert_eq(t.ncols, results_column_count);
	cr_assert_eq(t.nrows, 2);
	int dn = csv_table_col(&t, "device_name");
	cr_assert_str_eq(csv_table_cell(&t, 0, (size_t)dn), "Test CPU, \"quoted\", with commas");
	double v;
	cr_assert_eq(csv_table_double(&t, 0, "interactions_per_s", &v, err, sizeof err), 0, "%s", err);
	cr_assert_float_eq(v, 5e8, 1);
	cr_assert_eq(csv_table_double(&t, 0, "time_median_s", &v, err, sizeof err), 0);
	cr_assert_float_eq(v, 2e-3, 1e-12);
	int valid = csv_table_col(&t, "valid"), med = csv_table_col(&t, "time_median_s");
	cr_assert_str_eq(csv_table_cell(&t, 1, (size_t)valid), "0");
	cr_assert_str_eq(csv_table_cell(&t, 1, (size_t)med), "", "an invalid row has no timing");
	cr_assert_geq(csv_table_col(&t, "flops_per_interaction"), 0);
	cr_assert_eq(csv_table_double(&t, 0, "pct_of_ceiling", &v, err, sizeof err), 0, "%s", err);
	cr_assert_float_eq(v, 50.0, 1e-9, "5e8 of a 1e9 ceiling");
	int drop = csv_table_col(&t, "clock_dropped");
	cr_assert_str_eq(csv_table_cell(&t, 0, (size_t)drop), "1", "1980 -> 1900 MHz is a 4 %% drop");
	csv_table_free(&t);

	FILE *fp = fopen(side, "r");
	cr_assert_not_null(fp, "the sidecar exists");
	char buf[16384];
	size_t len = fread(buf, 1, sizeof buf - 1, fp);
	buf[len] = '\0';
	fclose(fp);
	cr_assert(strstr(buf, "\"git_commit\""));
	cr_assert(strstr(buf, "\"cpu_model\""));
	cr_assert(strstr(buf, "\"seconds_per_call\""));
	cr_assert(strstr(buf, "0.002"), "raw samples are kept");
	unlink(path);
	unlink(side);
	rmdir(dir);
}

Test(results, failed_write_leaves_no_files)
{
	struct result_row r = timed_row();
	char *argv[] = { "harness" };
	struct timing_opts topts;
	timing_opts_default(&topts);
	struct results_meta meta = { .argc = 1, .argv = argv, .timing = &topts };
	char err[256] = "";
	cr_assert_eq(results_write("/nonexistent-dir/r.csv", &r, 1, &meta, err, sizeof err), -1);
	cr_assert(strstr(err, "/nonexistent-dir"), "%s", err);
	cr_assert(access("/nonexistent-dir/r.meta.json", F_OK) != 0);
}

/* What results_print_table prints for the n rows (the caller frees it). */
static char *table_text(const struct result_row *rows, size_t n)
{
	char *text = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&text, &len);
	cr_assert_not_null(fp);
	results_print_table(fp, rows, n);
	fclose(fp);
	return text;
}

/* check does not time: its table shows dashes, never "nan", in the timing
 * columns, and the figures of timed rows as before. */
Test(results, untimed_rows_print_dashes)
{
	struct result_row rows[2] = { timed_row(), timed_row() };
	rows[0].timed = false;
	rows[1].steps_mode = true;
	char *text = table_text(rows, 2);
	cr_expect_null(strstr(text, "nan"), "%s", text);
	const char *untimed = strchr(text, '\n') + 1;
	cr_expect_eq(strncmp(untimed, "cpu-simd", 8), 0, "%s", text);
	char name[32], valid[8], med[8], noise[8], ips[16], gflops[16], sps[16];
	double err;
	size_t n;
	cr_assert_eq(sscanf(untimed, "%31s %zu %7s %lf %7s %7s %15s %15s %15s", name, &n, valid,
			    &err, med, noise, ips, gflops, sps), 9, "%s", text);
	cr_expect_str_eq(med, "-");
	cr_expect_str_eq(ips, "-");
	cr_expect_str_eq(gflops, "-");
	cr_expect_str_eq(sps, "-");
	cr_expect(strstr(text, "5.000e+08") && strstr(text, "500.0"), "timed figures: %s", text);
	free(text);
}

/* A row of one sample (one call outlasted --max-time) has no spread: the
 * table says "1 sample" instead of a noise of 0.00 %, and a footnote says
 * what that means; a row of three keeps its noise. */
Test(results, a_row_of_one_sample_shows_no_noise)
{
	static double one[1] = { 2e-3 };
	struct result_row rows[2] = {
		cpu_row_of(&nbody_variants[NBODY_V_cpu_simd], one, 1, true), timed_row()
	};
	char *text = table_text(rows, 2);
	const char *first = strchr(text, '\n') + 1, *second = strchr(first, '\n') + 1;
	cr_expect(strstr(first, " 1 sample ") && strstr(first, " 1 sample ") < second, "%s", text);
	cr_expect(!strstr(first, "%") || strstr(first, "%") > second, "no noise figure: %s", text);
	const char *third = strchr(second, '\n');
	cr_expect(strstr(second, "%") && strstr(second, "%") < third, "%s", text);
	cr_expect(!strstr(second, "1 sample") || strstr(second, "1 sample") > third, "%s", text);
	cr_expect(strstr(text, "\n1 sample: one call outlasted --max-time") != NULL, "%s", text);
	free(text);
}

/* ---- a CSV and its sidecar are a pair ------------------------------------ */

Test(results, fnv1a64_reference_values)
{
	/* The published test vectors of FNV-1a 64. */
	cr_expect_eq(results_fnv1a64("", 0), 0xcbf29ce484222325ULL);
	cr_expect_eq(results_fnv1a64("a", 1), 0xaf63dc4c8601ec8cULL);
	cr_expect_eq(results_fnv1a64("foobar", 6), 0x85944171f73967e8ULL);
}

static int results_fail_now(const char *csv_path)
{
	(void)csv_path;
	return -1;
}

/* Writes rows[0..nrows) to path; returns results_write's status. */
static int write_rows(const char *path, size_t nrows, char *err, size_t errlen)
{
	struct result_row rows[2] = { timed_row(), timed_row() };
	rows[1].n = 2000;
	char *argv[] = { "harness", "run" };
	struct timing_opts topts;
	timing_opts_default(&topts);
	struct results_meta meta = { .argc = 2, .argv = argv, .timing = &topts };
	return results_write(path, rows, nrows, &meta, err, errlen);
}

static size_t count_lines(const char *s)
{
	size_t n = 0;
	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/*
 * The second of the two writes fails: the new sidecar (one row) stands
 * beside the old CSV (two rows). The pair check, compare and plot must
 * refuse it with one line, and compare and plot exit 2.
 */
Test(results, failure_between_the_two_writes_is_refused)
{
	char dir[] = "/tmp/harness-pair-XXXXXX", path[128], cmd[1024], err[1024] = "", msg[1024];
	cr_assert_not_null(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/fig31-5.csv", dir);
	cr_assert_eq(write_rows(path, 2, err, sizeof err), 0, "%s", err);
	cr_assert_eq(results_pair_check(path, msg, sizeof msg), RESULTS_PAIR_OK, "%s", msg);
	cr_expect(strstr(msg, "2 rows"), "%s", msg);

	results_fault_between_commits = results_fail_now;
	cr_assert_eq(write_rows(path, 1, err, sizeof err), -1, "the second write must fail");
	results_fault_between_commits = NULL;
	cr_expect(strstr(err, path), "%s", err);
	struct csv_table t;
	cr_assert_eq(csv_table_read(path, &t, err, sizeof err), 0, "%s", err);
	cr_expect_eq(t.nrows, 2, "the old CSV stays");
	csv_table_free(&t);

	cr_expect_eq(results_pair_check(path, msg, sizeof msg), RESULTS_PAIR_MISMATCH, "%s", msg);
	cr_expect(strstr(msg, "does not match its sidecar") && strstr(msg, "1 rows"), "%s", msg);
	cr_expect_eq(count_lines(msg), 0, "one line: %s", msg);

	snprintf(cmd, sizeof cmd, "%s compare %s %s", cli_harness_bin(), path, path);
	cr_expect_eq(cli_run(cmd, err, sizeof err), 2, "compare took a mismatched pair: %s", err);
	cr_expect(strstr(err, "does not match its sidecar"), "%s", err);
	cr_expect_eq(count_lines(err), 1, "one line: %s", err);

	snprintf(cmd, sizeof cmd, "%s plot --suite fig31-5 --from %s --out %s/fig", cli_harness_bin(),
		 dir, dir);
	cr_expect_eq(cli_run(cmd, err, sizeof err), 2, "plot took a mismatched pair: %s", err);
	/* without gnuplot, plot refuses before it reads the pair (exit 2 all
	 * the same); no cr_log_warn here: Criterion fails a run that warned */
	if (!strstr(err, "gnuplot not found"))
		cr_expect(strstr(err, "does not match its sidecar"), "%s", err);

	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	cr_expect_eq(system(cmd), 0);
}

/* Committed results that predate checksums (the two-GPU scaling rows of
 * results/h200x2/): taken as they are, and said so. */
Test(results, unstamped_pairs_are_taken_with_a_note)
{
	char msg[1024], err[1024], cmd[512];
	cr_assert_eq(results_pair_check("results/h200x2/scaling-p1.csv", msg, sizeof msg),
		     RESULTS_PAIR_UNSTAMPED, "%s", msg);
	cr_expect(strstr(msg, "predates checksums"), "%s", msg);
	cr_expect_eq(results_pair_check("tests/fixtures/results/compare/malformed.csv", msg, sizeof msg),
		     RESULTS_PAIR_NO_SIDECAR, "%s", msg);
	/* (a threshold its noisiest row, 5.8 %, can be decided at) */
	snprintf(cmd, sizeof cmd, "%s compare results/h200/steps.csv results/h200/steps.csv --threshold 10",
		 cli_harness_bin());
	cr_expect_eq(cli_run(cmd, err, sizeof err), 0, "%s", err);
}

/* The whole file at path (caller frees); its length in *len. */
static char *slurp(const char *path, size_t *len)
{
	FILE *fp = fopen(path, "rb");
	cr_assert_not_null(fp, "%s", path);
	char *buf = malloc(65536);
	cr_assert_not_null(buf);
	*len = fread(buf, 1, 65535, fp);
	buf[*len] = '\0';
	fclose(fp);
	return buf;
}

static void spill(const char *path, const char *buf, size_t len)
{
	FILE *fp = fopen(path, "wb");
	cr_assert_not_null(fp, "%s", path);
	cr_assert_eq(fwrite(buf, 1, len, fp), len);
	cr_assert_eq(fclose(fp), 0);
}

/*
 * One byte of a data row edited (a digit of the last row's N changed to
 * another digit): same length, same row count, so only the checksum can
 * tell. The pair check must call it a mismatch (a check that needed the
 * row count to differ too would pass it), and the restored byte passes.
 */
Test(results, a_single_edited_byte_is_a_mismatch)
{
	char dir[] = "/tmp/harness-byte-XXXXXX", path[128], err[1024] = "", msg[1024];
	size_t len;
	cr_assert_not_null(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/r.csv", dir);
	cr_assert_eq(write_rows(path, 2, err, sizeof err), 0, "%s", err);
	cr_assert_eq(results_pair_check(path, msg, sizeof msg), RESULTS_PAIR_OK, "%s", msg);

	char *text = slurp(path, &len);
	char *row = strstr(text, ",2000,");	/* the second row's N */
	cr_assert_not_null(row, "%s", text);
	row[1] = '3';				/* 2000 -> 3000 */
	spill(path, text, len);
	cr_expect_eq(results_pair_check(path, msg, sizeof msg), RESULTS_PAIR_MISMATCH,
		     "one byte edited, same rows: %s", msg);
	cr_expect(strstr(msg, "2 rows, FNV-1a") && strstr(msg, "; 2 rows,"),
		  "the rows agree, the checksum does not: %s", msg);
	row[1] = '2';
	spill(path, text, len);
	cr_expect_eq(results_pair_check(path, msg, sizeof msg), RESULTS_PAIR_OK, "restored: %s", msg);
	free(text);

	char cmd[512];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	cr_expect_eq(system(cmd), 0);
}

/* Removes the line of text that holds "key": from the sidecar at side. */
static void drop_key(const char *side, const char *key)
{
	size_t len;
	char *text = slurp(side, &len), pat[64];
	snprintf(pat, sizeof pat, "\"%s\":", key);
	char *at = strstr(text, pat);
	cr_assert_not_null(at, "%s has no %s", side, key);
	char *start = at, *end = strchr(at, '\n');
	while (start > text && start[-1] != '\n')
		start--;
	cr_assert_not_null(end);
	memmove(start, end + 1, strlen(end + 1) + 1);
	spill(side, text, strlen(text));
	free(text);
}

/* Replaces the first from in the file at path with to (same length). */
static void edit_same_length(const char *path, const char *from, const char *to)
{
	size_t len;
	char *text = slurp(path, &len), *at = strstr(text, from);
	cr_assert(at && strlen(from) == strlen(to), "%s has no %s", path, from);
	memcpy(at, to, strlen(to));
	spill(path, text, len);
	free(text);
}

/*
 * A sidecar of a schema that has always recorded its CSV's stamp must
 * have it: with its checksum deleted (the row count and size left), an
 * edited CSV beside it must not pass for genuine, in the pair check nor
 * in compare. Only the schemas written before stamps may lack one, and
 * then all of it.
 */
Test(results, a_stamp_deleted_from_its_sidecar_is_refused)
{
	char dir[] = "/tmp/harness-nostamp-XXXXXX", path[128], side[128], err[1024] = "", msg[1024];
	char cmd[512];
	cr_assert_not_null(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/r.csv", dir);
	snprintf(side, sizeof side, "%s/r.meta.json", dir);
	cr_assert_eq(write_rows(path, 2, err, sizeof err), 0, "%s", err);
	drop_key(side, "csv_fnv1a64");
	edit_same_length(path, ",2000,", ",3000,");
	cr_expect_eq(results_pair_check(path, msg, sizeof msg), RESULTS_PAIR_MISMATCH, "%s", msg);
	cr_expect(strstr(msg, "no csv_fnv1a64") && strstr(msg, "nbody-harness-results/1"), "%s", msg);
	cr_expect_eq(count_lines(msg), 0, "one line: %s", msg);
	snprintf(cmd, sizeof cmd, "%s compare %s %s", cli_harness_bin(), path, path);
	cr_expect_eq(cli_run(cmd, err, sizeof err), 2, "compare took the pair: %s", err);
	cr_expect(strstr(err, "no csv_fnv1a64"), "%s", err);
	cr_expect_eq(count_lines(err), 1, "one line: %s", err);
	/* the size alone gone: refused as well */
	cr_assert_eq(write_rows(path, 2, err, sizeof err), 0, "%s", err);
	drop_key(side, "csv_bytes");
	cr_expect_eq(results_pair_check(path, msg, sizeof msg), RESULTS_PAIR_MISMATCH, "%s", msg);
	cr_expect(strstr(msg, "no csv_bytes"), "%s", msg);
	/* the whole stamp gone from a schema older than stamps: as before them */
	cr_assert_eq(write_rows(path, 2, err, sizeof err), 0, "%s", err);
	drop_key(side, "csv_fnv1a64");
	drop_key(side, "csv_rows");
	drop_key(side, "csv_bytes");
	cr_expect_eq(results_pair_check(path, msg, sizeof msg), RESULTS_PAIR_UNSTAMPED, "%s", msg);
	/* ... but not from one that has always had it */
	edit_same_length(side, "\"nbody-harness-results/1\"", "\"sph-harness-physics/1\"  ");
	cr_expect_eq(results_pair_check(path, msg, sizeof msg), RESULTS_PAIR_MISMATCH, "%s", msg);
	cr_expect(strstr(msg, "no csv_fnv1a64, csv_rows or csv_bytes") &&
		  strstr(msg, "sph-harness-physics/1"), "%s", msg);
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	cr_expect_eq(system(cmd), 0);
}

/* A cell with a line break is quoted: the sidecar's csv_rows counts
 * records, not lines, and the pair still checks. */
Test(results, a_quoted_line_break_is_not_a_row)
{
	char dir[] = "/tmp/harness-quoted-XXXXXX", path[128], side[128], err[1024] = "";
	char msg[1024];
	cr_assert_not_null(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/q.csv", dir);
	snprintf(side, sizeof side, "%s/q.meta.json", dir);
	struct result_row rows[2] = { timed_row(), timed_row() };
	rows[0].device_name = "Test CPU\nsecond line";
	char *argv[] = { "harness", "run" };
	struct timing_opts topts;
	timing_opts_default(&topts);
	struct results_meta meta = { .argc = 2, .argv = argv, .timing = &topts };
	cr_assert_eq(results_write(path, rows, 2, &meta, err, sizeof err), 0, "%s", err);
	struct json_in_value v;
	cr_assert_eq(json_in_read_file(side, &v, err, sizeof err), 0, "%s", err);
	const struct json_in_value *n = json_in_find(&v, "csv_rows");
	cr_assert(n && n->type == JSON_IN_NUMBER);
	cr_expect_eq(n->number, 2.0, "csv_rows %g for two rows, one with a line break", n->number);
	json_in_free(&v);
	cr_expect_eq(results_pair_check(path, msg, sizeof msg), RESULTS_PAIR_OK, "%s", msg);
	cr_expect(strstr(msg, "2 rows"), "%s", msg);
	char cmd[512];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	cr_expect_eq(system(cmd), 0);
}

/* The clock-drop flag's bound, 3 %, restated: a drop of twice it (6 %)
 * is flagged, of half it (1.5 %) is not; a rise never is. */
Test(results, clock_drop_at_twice_and_half_its_bound)
{
	struct result_row r = timed_row();
	r.clock_start_mhz = 2000;
	r.clock_end_mhz = 1880;
	cr_expect(results_clock_dropped(&r), "2000 -> 1880 MHz (6 %%) not flagged");
	r.clock_end_mhz = 1970;
	cr_expect(!results_clock_dropped(&r), "2000 -> 1970 MHz (1.5 %%) flagged");
	r.clock_end_mhz = 2100;
	cr_expect(!results_clock_dropped(&r), "a rise flagged");
}
