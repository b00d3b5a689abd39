/* test_export.c - harness export --format gbench: Google Benchmark JSON from results CSVs */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../harness/core/csv_table.h"
#include "cli_run.h"

/* ---- a small JSON reader, enough to check the structure ------------------ */

/* Past one JSON value at p (after blanks), or NULL when it is malformed. */
static const char *js_value(const char *p);

static const char *js_ws(const char *p)
{
	while (*p && isspace((unsigned char)*p))
		p++;
	return p;
}

static const char *js_string(const char *p)
{
	if (*p != '"')
		return NULL;
	for (p++; *p && *p != '"'; p++)
		if (*p == '\\' && !*++p)
			return NULL;
	return *p == '"' ? p + 1 : NULL;
}

static const char *js_number(const char *p)
{
	if (*p != '-' && !isdigit((unsigned char)*p))
		return NULL; /* strtod would take nan, inf and hex */
	char *end;
	strtod(p, &end);
	return end == p ? NULL : end;
}

/* Object or array: members separated by commas, keys before objects'. */
static const char *js_container(const char *p, char close)
{
	p = js_ws(p + 1);
	if (*p == close)
		return p + 1;
	for (;;) {
		if (close == '}') {
			p = js_string(p);
			if (!p || *(p = js_ws(p)) != ':')
				return NULL;
			p++;
		}
		p = js_value(p);
		if (!p)
			return NULL;
		p = js_ws(p);
		if (*p == close)
			return p + 1;
		if (*p != ',')
			return NULL;
		p = js_ws(p + 1);
	}
}

static const char *js_value(const char *p)
{
	p = js_ws(p);
	if (*p == '{')
		return js_container(p, '}');
	if (*p == '[')
		return js_container(p, ']');
	if (*p == '"')
		return js_string(p);
	for (const char *w = "true\0false\0null\0"; *w; w += strlen(w) + 1)
		if (strncmp(p, w, strlen(w)) == 0)
			return p + strlen(w);
	return js_number(p);
}

/* How often "key": occurs in json. */
static size_t js_count_key(const char *json, const char *key)
{
	char pat[128];
	snprintf(pat, sizeof pat, "\"%s\":", key);
	size_t n = 0;
	for (const char *p = json; (p = strstr(p, pat)) != NULL; p++)
		n++;
	return n;
}

/* ---- the export ---------------------------------------------------------- */

static char *export_run(const char *csv, int *status)
{
	static char out[1 << 21];
	char cmd[512];
	snprintf(cmd, sizeof cmd, "%s export --format gbench %s", cli_harness_bin(), csv);
	*status = cli_run_stdout(cmd, out, sizeof out);
	return out;
}

/* Rows of the CSV that validated and were timed (time_col not empty). */
static size_t export_timed_rows(const char *csv, const char *time_col)
{
	struct csv_table t;
	char err[512];
	cr_assert_eq(csv_table_read(csv, &t, err, sizeof err), 0, "%s", err);
	int v = csv_table_col(&t, "valid"), tc = csv_table_col(&t, time_col);
	size_t n = 0;
	for (size_t r = 0; r < t.nrows; r++)
		n += strcmp(csv_table_cell(&t, r, (size_t)v), "1") == 0 &&
		     csv_table_cell(&t, r, (size_t)tc)[0] != '\0';
	csv_table_free(&t);
	return n;
}

/* The structure Google Benchmark's JSON has, one benchmark per timed row,
 * each with every field continuous-benchmarking tools read. */
static void expect_gbench(const char *csv, const char *time_col, const char *const *counters)
{
	int status;
	const char *json = export_run(csv, &status);
	cr_assert_eq(status, 0, "export of %s failed", csv);
	const char *end = js_value(json);
	cr_assert_not_null(end, "not JSON: %.200s", json);
	cr_expect_eq(*js_ws(end), '\0', "text after the JSON value");
	cr_expect_eq(*js_ws(json), '{');
	size_t rows = export_timed_rows(csv, time_col);
	cr_assert_gt(rows, 0);
	cr_expect_eq(js_count_key(json, "context"), 1);
	cr_expect_eq(js_count_key(json, "benchmarks"), 1);
	cr_expect(strstr(json, "\"benchmarks\": ["), "benchmarks is an array");
	const char *fields[] = { "name", "run_name", "run_type", "iterations", "real_time",
				 "cpu_time", "time_unit" };
	for (size_t f = 0; f < sizeof fields / sizeof *fields; f++)
		cr_expect_eq(js_count_key(json, fields[f]), rows, "%s: '%s' %zu times, %zu rows", csv,
			     fields[f], js_count_key(json, fields[f]), rows);
	size_t iter = 0;
	for (const char *p = json; (p = strstr(p, "\"run_type\": \"iteration\"")) != NULL; p++)
		iter++;
	cr_expect_eq(iter, rows, "run_type iteration");
	for (size_t c = 0; counters[c]; c++)
		cr_expect_geq(js_count_key(json, counters[c]), 1, "counter %s", counters[c]);
	cr_expect_null(strstr(json, "\"real_time\": null"), "every timed row has a time");
	cr_expect_null(strstr(json, "\"real_time\": 0,"));
}

Test(export, nbody_results_as_gbench_json)
{
	const char *counters[] = { "interactions_per_s", "gflop_per_s", "pct_of_ceiling",
				   "noise_pct", NULL };
	expect_gbench("results/h200/baseline.csv", "time_median_s", counters);
	int status;
	const char *json = export_run("results/h200/baseline.csv", &status);
	cr_expect(strstr(json, "\"name\": \"nbody/auto/n:16384/tile_p:0/threads_q:1/unroll:1/"
			       "bodies_k:1/precision:fp32/mode:forces\""), "the key in the name");
	cr_expect(strstr(json, "\"host_name\": \"vm\"") && strstr(json, "\"num_cpus\": 16"),
		  "the context from the sidecar");
	/* a row on two ranks says so in its name; one rank keeps the name above */
	json = export_run("results/h200x2/scaling-p2.csv", &status);
	cr_assert_eq(status, 0);
	cr_expect(strstr(json, "\"name\": \"nbody/dist-ring/n:65536/tile_p:0/threads_q:1/unroll:1/"
			       "bodies_k:1/precision:fp32/mode:forces/ranks:2\""), "ranks in the name");
}

Test(export, sph_results_as_gbench_json)
{
	const char *counters[] = { "steps_per_s", "build_ms", "density_ms", "force_ms",
				   "integrate_ms", NULL };
	expect_gbench("tests/fixtures/results/sph-h100/sph-table.csv", "time_median_step_s", counters);
	int status;
	const char *json = export_run("tests/fixtures/results/sph-h100/sph-table.csv", &status);
	/* every key in the name: the moment of the flow, and the window
	 * where the file has one (this one was timed along the flow) */
	cr_expect(strstr(json, "\"name\": \"sph/sph-gpu-grid-count/column:255600/warm_steps:20\""),
		  "%.300s", json);
	cr_expect_null(strstr(json, "window_steps:"), "%.300s", json);
}

/* gbench is the one format: the option may be left out. */
Test(export, the_format_defaults_to_gbench)
{
	char cmd[512], with[65536], without[65536];
	snprintf(cmd, sizeof cmd, "%s export --format gbench results/h200/steps.csv", cli_harness_bin());
	cr_assert_eq(cli_run_stdout(cmd, with, sizeof with), 0);
	snprintf(cmd, sizeof cmd, "%s export results/h200/steps.csv", cli_harness_bin());
	cr_assert_eq(cli_run_stdout(cmd, without, sizeof without), 0, "%s", without);
	cr_expect(strstr(without, "\"benchmarks\""), "%.200s", without);
	cr_expect_str_eq(with, without);
}

Test(export, bad_input_is_one_line_and_exit_2)
{
	char cmd[512], err[4096];
	const char *bad[][2] = {
		{ "--format csv results/h200/steps.csv", "unknown format" },
		{ "--format gbench results/published/gpugems3_ch31.csv", "not a results CSV" },
		{ "--format gbench /nonexistent.csv", "/nonexistent.csv" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		snprintf(cmd, sizeof cmd, "%s export %s", cli_harness_bin(), bad[i][0]);
		cr_expect_eq(cli_run(cmd, err, sizeof err), 2, "%s: %s", bad[i][0], err);
		cr_expect(strstr(err, bad[i][1]), "%s: %s", bad[i][0], err);
		cr_expect_eq(strchr(err, '\n'), err + strlen(err) - 1, "one line: %s", err);
	}
}

/* The JSON reader itself must reject what is not JSON. */
Test(export, the_json_check_rejects_malformed_text)
{
	cr_expect_not_null(js_value("{\"a\": [1, 2.5e3, \"x\\\"y\", true, null, {}]}"));
	cr_expect_null(js_value("{\"a\": [1, 2,]}"));
	cr_expect_null(js_value("{\"a\" 1}"));
	cr_expect_null(js_value("{\"a\": nan}"));
	cr_expect_null(js_value("[\"open"));
}
