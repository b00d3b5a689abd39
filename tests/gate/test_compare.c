/* test_compare.c - harness compare: the join, bad input, exit statuses (its rule: test_compare_judge.c) */
#define _XOPEN_SOURCE 700
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../csv_column.h"
#include "../../harness/gate/compare.h"
#include "../../harness/core/csv_table.h"
#include "../../harness/core/json_in.h"
#include "../../harness/core/results.h"
#include "../cli_run.h"

#define FIX "tests/fixtures/results/compare/"

static const struct compare_opts same_device = { .threshold_pct = COMPARE_DEFAULT_THRESHOLD_PCT,
						 .min_change_pct = COMPARE_DEFAULT_MIN_CHANGE_PCT };
static const struct compare_opts across = { .threshold_pct = COMPARE_DEFAULT_THRESHOLD_PCT,
					    .across_devices = true,
					    .min_change_pct = COMPARE_DEFAULT_MIN_CHANGE_PCT };
/* The fixtures' BASE has a row that failed validation (not compared):
 * tests about other rows allow it. */
static const struct compare_opts allow_missing = { .threshold_pct = COMPARE_DEFAULT_THRESHOLD_PCT,
						   .min_change_pct = COMPARE_DEFAULT_MIN_CHANGE_PCT,
						   .allow_missing = true };

/* Compares two fixtures; fails the test on bad input. */
static void compare_fixtures(const char *base, const char *new, const struct compare_opts *o,
			     struct compare_report *r)
{
	char err[1024];
	cr_assert_eq(compare_files(base, new, o, r, err, sizeof err), 0, "%s", err);
}

/* The entry with this key (forces mode unless steps), or a failed test. */
static const struct compare_entry *entry(const struct compare_report *r, const char *variant,
					 long long n, const char *mode)
{
	char nbuf[32];
	snprintf(nbuf, sizeof nbuf, "%lld", n);
	for (size_t i = 0; i < r->count; i++) {
		const struct compare_entry *e = &r->entries[i];
		if (strcmp(compare_key_value(r, e, "variant"), variant) == 0 &&
		    strcmp(compare_key_value(r, e, "n"), nbuf) == 0 &&
		    strcmp(compare_key_value(r, e, "mode"), mode) == 0)
			return e;
	}
	cr_assert_fail("no entry %s n %lld %s", variant, n, mode);
	return NULL;
}

/* ---- the join, on fixtures ------------------------------------------------ */

Test(compare, identical_files_are_same)
{
	struct compare_report r;
	compare_fixtures(FIX "base.csv", FIX "base.csv", &same_device, &r);
	cr_expect_eq(r.same, 5);
	cr_expect_eq(r.uncompared, 1, "the row invalid in BASE");
	cr_expect_eq(r.faster + r.slower + r.inconclusive + r.only_base + r.only_new + r.failed_new, 0);
	cr_expect_eq(compare_exit_status(&r), COMPARE_UNDECIDED, "a row asked for was not compared");
	compare_report_free(&r);
	compare_fixtures(FIX "base.csv", FIX "base.csv", &allow_missing, &r);
	cr_expect_eq(compare_exit_status(&r), COMPARE_OK);
	compare_report_free(&r);
}

Test(compare, faster_row)
{
	struct compare_report r;
	compare_fixtures(FIX "base.csv", FIX "faster.csv", &allow_missing, &r);
	const struct compare_entry *e = entry(&r, "unrolled-u4", 16384, "forces");
	cr_expect_eq(e->raw.verdict, COMPARE_FASTER);
	cr_expect_float_eq(e->raw.ratio, 1.2, 1e-9);
	cr_expect_eq(r.faster, 1);
	cr_expect_eq(compare_exit_status(&r), COMPARE_OK);
	compare_report_free(&r);
}

Test(compare, slowed_row_is_a_regression)
{
	struct compare_report r;
	compare_fixtures(FIX "base.csv", FIX "slowed.csv", &same_device, &r);
	const struct compare_entry *e = entry(&r, "unrolled-u4", 16384, "forces");
	cr_expect_eq(e->raw.verdict, COMPARE_SLOWER);
	cr_expect(e->raw.regression);
	cr_expect_float_eq(e->raw.ratio, 0.8, 1e-9);
	cr_expect_eq(entry(&r, "unrolled-u4", 4096, "forces")->raw.verdict, COMPARE_SAME);
	cr_expect_eq(r.regressions, 1);
	cr_expect_eq(compare_exit_status(&r), COMPARE_REGRESSED, "a regression outranks the rest");
	compare_report_free(&r);

	/* a threshold above the slowdown lets it pass, still reported slower */
	struct compare_opts loose = allow_missing;
	loose.threshold_pct = 30;
	compare_fixtures(FIX "base.csv", FIX "slowed.csv", &loose, &r);
	cr_expect_eq(r.slower, 1);
	cr_expect_eq(compare_exit_status(&r), COMPARE_OK);
	compare_report_free(&r);
}

Test(compare, within_noise)
{
	struct compare_report r;
	compare_fixtures(FIX "base.csv", FIX "within-noise.csv", &same_device, &r);
	/* -3 % with noise sqrt(1 + 9) = 3.2 %: 3 +- 3.2 straddles 5 % */
	cr_expect_eq(entry(&r, "unrolled-u4", 16384, "forces")->raw.verdict, COMPARE_INCONCLUSIVE);
	/* -4 % with noise 0.7 %: slower, and surely by less than 5 % */
	const struct compare_entry *e = entry(&r, "auto", 16384, "forces");
	cr_expect_eq(e->raw.verdict, COMPARE_SLOWER);
	cr_expect_not(e->raw.regression);
	cr_expect_eq(r.inconclusive, 1);
	cr_expect_eq(compare_exit_status(&r), COMPARE_UNDECIDED);
	compare_report_free(&r);
	struct compare_opts allow = allow_missing;
	compare_fixtures(FIX "base.csv", FIX "within-noise.csv", &allow, &r);
	cr_expect_eq(compare_exit_status(&r), COMPARE_UNDECIDED, "--allow-missing is not enough");
	compare_report_free(&r);
	allow.allow_inconclusive = true;
	compare_fixtures(FIX "base.csv", FIX "within-noise.csv", &allow, &r);
	cr_expect_eq(compare_exit_status(&r), COMPARE_OK);
	compare_report_free(&r);
}

Test(compare, rows_on_one_side_only)
{
	struct compare_report r;
	compare_fixtures(FIX "base.csv", FIX "missing.csv", &same_device, &r);
	cr_expect_eq(r.only_base, 1);
	cr_expect_eq(r.only_new, 1);
	const struct compare_entry *b = entry(&r, "auto", 16384, "forces");
	cr_expect(b->in_base && !b->in_new);
	const struct compare_entry *v = entry(&r, "unrolled-u8", 16384, "forces");
	cr_expect(v->in_new && !v->in_base);
	cr_expect_eq(compare_exit_status(&r), COMPARE_UNDECIDED, "a row of BASE was not measured");
	compare_report_free(&r);
	compare_fixtures(FIX "base.csv", FIX "missing.csv", &allow_missing, &r);
	cr_expect_eq(compare_exit_status(&r), COMPARE_OK, "a row only in NEW counts against nothing");
	compare_report_free(&r);
}

Test(compare, invalid_rows_are_not_compared)
{
	struct compare_report r;
	compare_fixtures(FIX "base.csv", FIX "slowed.csv", &same_device, &r);
	const struct compare_entry *e = entry(&r, "tiled-p256", 16384, "forces");
	cr_expect(e->in_base && e->in_new);
	cr_expect_not(e->base.valid);
	cr_expect_eq(e->raw.verdict, COMPARE_UNCOMPARED);
	cr_expect_not(e->raw.regression);
	cr_expect_eq(r.uncompared, 1);
	cr_expect_eq(r.failed_new, 0, "it failed in BASE too: not NEW's failure");
	compare_report_free(&r);
}

Test(compare, steps_rows_use_steps_per_s)
{
	struct compare_report r;
	compare_fixtures(FIX "base.csv", FIX "base.csv", &same_device, &r);
	const struct compare_entry *e = entry(&r, "auto", 16384, "steps");
	cr_expect_float_eq(e->base.value, 3000, 1e-6);
	cr_expect_float_eq(entry(&r, "auto", 16384, "forces")->base.value, 1.5e12, 1);
	compare_report_free(&r);
}

/* ---- devices --------------------------------------------------------------- */

Test(compare, other_device_is_refused)
{
	struct compare_report r;
	char err[1024] = "";
	cr_expect_eq(compare_files(FIX "base.csv", FIX "other-device.csv", &same_device, &r, err,
				   sizeof err), -1);
	cr_expect(strstr(err, "NVIDIA H200") && strstr(err, "NVIDIA A100-SXM4-80GB"), "%s", err);
	cr_expect(strstr(err, "--across-devices") != NULL, "%s", err);
	cr_expect_null(strchr(err, '\n'), "one line: %s", err);
}

Test(compare, across_devices_judges_share_of_ceiling)
{
	struct compare_report r;
	compare_fixtures(FIX "base.csv", FIX "other-device.csv", &across, &r);
	/* 2.5x slower raw on the smaller GPU, but 57 % of its ceiling against 50 % */
	const struct compare_entry *u4 = entry(&r, "unrolled-u4", 16384, "forces");
	cr_expect_eq(u4->raw.verdict, COMPARE_SLOWER);
	cr_expect_eq(u4->ceiling.verdict, COMPARE_FASTER);
	cr_expect(u4->counts_ceiling);
	/* 60 % of its ceiling against 75 %: the regression that counts */
	const struct compare_entry *a = entry(&r, "auto", 16384, "forces");
	cr_expect_eq(a->ceiling.verdict, COMPARE_SLOWER);
	cr_expect(a->ceiling.regression);
	/* CPU rows have no ceiling: judged raw */
	const struct compare_entry *cpu = entry(&r, "cpu-simd", 4096, "forces");
	cr_expect_not(cpu->counts_ceiling);
	cr_expect_eq(cpu->raw.verdict, COMPARE_SAME);
	cr_expect_eq(r.regressions, 1);
	cr_expect_eq(compare_exit_status(&r), COMPARE_REGRESSED);
	compare_report_free(&r);
}

/* ---- bad input ------------------------------------------------------------ */

static void expect_bad_input(const char *new, const char *mention1, const char *mention2)
{
	struct compare_report r;
	char err[1024] = "";
	cr_expect_eq(compare_files(FIX "base.csv", new, &same_device, &r, err, sizeof err), -1,
		     "%s was accepted", new);
	cr_expect(strstr(err, mention1) != NULL, "'%s' lacks '%s'", err, mention1);
	cr_expect(strstr(err, mention2) != NULL, "'%s' lacks '%s'", err, mention2);
	cr_expect_null(strchr(err, '\n'), "one line: %s", err);
}

Test(compare, malformed_inputs)
{
	expect_bad_input(FIX "malformed.csv", "malformed.csv:3:", "'interactions_per_s': 'fast'");
	expect_bad_input(FIX "short-row.csv", "short-row.csv:4:", "header has 37");
	expect_bad_input(FIX "no-noise-column.csv", "no-noise-column.csv:1:", "'noise_pct'");
	expect_bad_input(FIX "does-not-exist.csv", "does-not-exist.csv", "No such file");
}

/* A key twice in one file would make the join ambiguous. */
Test(compare, repeated_row_is_refused)
{
	char dir[] = "/tmp/test_compare.XXXXXX", path[64], line[4096];
	cr_assert_not_null(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/dup.csv", dir);
	FILE *in = fopen(FIX "base.csv", "r"), *out = fopen(path, "w");
	cr_assert(in && out);
	for (int i = 0; fgets(line, sizeof line, in); i++) {
		fputs(line, out);
		if (i == 1)
			fputs(line, out);
	}
	fclose(in);
	fclose(out);
	expect_bad_input(path, "dup.csv:3:", "repeats variant 'unrolled-u4' n 16384");
	unlink(path);
	rmdir(dir);
}

/* ---- bin/harness compare, as a user runs it --------------------------------- */

static const char *harness_bin(void)
{
	return cli_harness_bin();
}

/* Runs a shell command line; returns its exit status and its stderr. */
static int run(const char *cmdline, char *errtext, size_t errlen)
{
	return cli_run(cmdline, errtext, errlen);
}

/* bin/harness must dispatch "compare" to compare_command. */
static void need_compare_command(void)
{
	char cmd[512];
	snprintf(cmd, sizeof cmd, "%s compare --help 2>&1 | grep -q 'usage: harness compare'",
		 harness_bin());
	cr_assert_eq(system(cmd), 0, "%s does not dispatch 'compare'", harness_bin());
}

static int harness_compare(const char *args, char *errtext, size_t errlen)
{
	char cmd[1024];
	snprintf(cmd, sizeof cmd, "%s compare %s", harness_bin(), args);
	return run(cmd, errtext, errlen);
}

/* Every exit status through the program: 0 a pass, 1 a regression, 2 bad
 * input, 3 not a pass (undecided or incomplete), with one line on stderr
 * saying why for 1 and 3. */
Test(compare, cli_exit_statuses)
{
	char e[4096];
	need_compare_command();
	cr_expect_eq(harness_compare(FIX "base.csv " FIX "faster.csv --allow-missing", e, sizeof e),
		     0, "%s", e);
	cr_expect_str_empty(e, "a pass says nothing on stderr");
	cr_expect_eq(harness_compare(FIX "base.csv " FIX "faster.csv", e, sizeof e), 3, "%s", e);
	cr_expect(strstr(e, "tiled-p256") && strstr(e, "exit 3") && strchr(e, '\n') == strrchr(e, '\n'),
		  "one line naming the row not compared: %s", e);
	cr_expect_eq(harness_compare(FIX "base.csv " FIX "within-noise.csv --allow-missing", e,
				     sizeof e), 3, "%s", e);
	cr_expect(strstr(e, "inconclusive") && strstr(e, "unrolled-u4 N=16384"), "%s", e);
	cr_expect_eq(harness_compare(FIX "base.csv " FIX "within-noise.csv --allow-missing "
				     "--allow-inconclusive", e, sizeof e), 0, "%s", e);
	cr_expect_eq(harness_compare(FIX "base.csv " FIX "slowed.csv", e, sizeof e), 1, "%s", e);
	cr_expect(strstr(e, "unrolled-u4 N=16384") && strstr(e, "exit 1"), "%s", e);
	cr_expect_eq(harness_compare(FIX "base.csv " FIX "slowed.csv --threshold 30 --allow-missing",
				     e, sizeof e), 0, "%s", e);
	cr_expect_eq(harness_compare(FIX "base.csv " FIX "other-device.csv --across-devices", e,
				     sizeof e), 1, "%s", e);
	cr_expect_eq(harness_compare(FIX "base.csv " FIX "missing.csv --allow-missing", e, sizeof e),
		     0, "%s", e);
	cr_expect_eq(harness_compare(FIX "base.csv " FIX "missing.csv", e, sizeof e), 3, "%s", e);
	cr_expect(strstr(e, "auto N=16384 mode=forces"), "the row only in BASE is named: %s", e);
}

/* Bad input: exit 2 and exactly one line on stderr naming the problem. */
static void expect_cli_bad_input(const char *args, const char *mention)
{
	char e[4096];
	int rc = harness_compare(args, e, sizeof e);
	cr_expect_eq(rc, 2, "'%s': exit %d, stderr: %s", args, rc, e);
	size_t lines = 0;
	for (const char *p = e; *p; p++)
		lines += *p == '\n';
	cr_expect_eq(lines, 1, "'%s': want one line, got: %s", args, e);
	cr_expect(strstr(e, mention) != NULL, "'%s': message lacks '%s': %s", args, mention, e);
}

Test(compare, cli_bad_input)
{
	need_compare_command();
	expect_cli_bad_input(FIX "base.csv " FIX "malformed.csv", "malformed.csv:3:");
	expect_cli_bad_input(FIX "base.csv " FIX "other-device.csv", "--across-devices");
	expect_cli_bad_input(FIX "base.csv " FIX "nosuch.csv", "nosuch.csv");
	expect_cli_bad_input(FIX "base.csv", "BASE.csv and NEW.csv");
	expect_cli_bad_input(FIX "base.csv " FIX "slowed.csv --threshold lots", "'lots'");
	expect_cli_bad_input(FIX "base.csv " FIX "slowed.csv --bogus", "--bogus");
	expect_cli_bad_input(FIX "base.csv " FIX "slowed.csv --out", "--out");
	expect_cli_bad_input(FIX "base.csv " FIX "slowed.csv --out /nonexistent-dir/v.csv",
			     "/nonexistent-dir");
}

/* ---- every kind of results CSV ---------------------------------------------- */

/* A CSV edited cell by cell: a copy of a results file with changes. */
struct edited {
	char dir[32], path[64];
	struct csv_table t;
};

static void edited_open(struct edited *e, const char *src)
{
	char err[1024];
	strcpy(e->dir, "/tmp/test_compare.XXXXXX");
	cr_assert_not_null(mkdtemp(e->dir));
	snprintf(e->path, sizeof e->path, "%s/new.csv", e->dir);
	cr_assert_eq(csv_table_read(src, &e->t, err, sizeof err), 0, "%s", err);
}

/* Sets column col of row (every row when row is SIZE_MAX) to value, or to
 * its number times factor when value is NULL. */
static void edited_set(struct edited *e, size_t row, const char *col, const char *value,
		       double factor)
{
	int c = csv_table_col(&e->t, col);
	cr_assert_geq(c, 0, "no column %s", col);
	for (size_t r = 0; r < e->t.nrows; r++) {
		if (row != SIZE_MAX && r != row)
			continue;
		char **cell = &e->t.cells[r * e->t.ncols + (size_t)c], buf[64];
		if (!value && (*cell)[0] == '\0')
			continue;
		snprintf(buf, sizeof buf, "%.9g", value ? 0 : strtod(*cell, NULL) * factor);
		free(*cell);
		*cell = strdup(value ? value : buf);
	}
}

/* The row whose variant and key column key_col are as given. */
static size_t edited_row(const struct edited *e, const char *variant, const char *key_col,
			 const char *key)
{
	int v = csv_table_col(&e->t, "variant"), k = csv_table_col(&e->t, key_col);
	for (size_t r = 0; r < e->t.nrows; r++)
		if (strcmp(csv_table_cell(&e->t, r, (size_t)v), variant) == 0 &&
		    strcmp(csv_table_cell(&e->t, r, (size_t)k), key) == 0)
			return r;
	cr_assert_fail("no row %s %s", variant, key);
	return 0;
}

/* Writes the edited table to e->path with one more column, name, holding
 * value in every row (NULL: none). */
static void edited_write_col(struct edited *e, const char *name, const char *value)
{
	const bool extra = name != NULL;
	FILE *fp = fopen(e->path, "w");
	cr_assert_not_null(fp);
	const char *fields[64];
	cr_assert_lt(e->t.ncols, 63);
	for (size_t c = 0; c < e->t.ncols; c++)
		fields[c] = e->t.header[c];
	fields[e->t.ncols] = name;
	cr_assert_eq(csv_write_row(fp, fields, e->t.ncols + extra), 0);
	for (size_t r = 0; r < e->t.nrows; r++) {
		for (size_t c = 0; c < e->t.ncols; c++)
			fields[c] = csv_table_cell(&e->t, r, c);
		fields[e->t.ncols] = value;
		cr_assert_eq(csv_write_row(fp, fields, e->t.ncols + extra), 0);
	}
	cr_assert_eq(fclose(fp), 0);
}

/* Writes the edited table to e->path, with an extra column at the end
 * when extra (later versions of a kind gain columns). */
static void edited_write(struct edited *e, bool extra)
{
	edited_write_col(e, extra ? "a_later_versions_column" : NULL, "1234");
}

static void edited_close(struct edited *e)
{
	csv_table_free(&e->t);
	unlink(e->path);
	rmdir(e->dir);
}

static const struct compare_entry *sph_entry(const struct compare_report *r, const char *variant,
					     const char *column)
{
	for (size_t i = 0; i < r->count; i++)
		if (strcmp(compare_key_value(r, &r->entries[i], "variant"), variant) == 0 &&
		    strcmp(compare_key_value(r, &r->entries[i], "column"), column) == 0)
			return &r->entries[i];
	cr_assert_fail("no entry %s %s", variant, column);
	return NULL;
}

#define SPH_TABLE "tests/fixtures/results/sph-h100/sph-table.csv"

/* A median of 0 is no measurement: the row reads as untimed (no value)
 * and is not compared, which for a row BASE timed is a failure in NEW
 * (exit 1), never a slowdown of 100 %. */
Test(compare, a_zero_median_is_not_a_measurement)
{
	struct edited e;
	struct compare_report r;
	edited_open(&e, FIX "base.csv");
	edited_set(&e, edited_row(&e, "unrolled-u4", "n", "16384"), "interactions_per_s", "0", 0);
	edited_write(&e, false);
	compare_fixtures(FIX "base.csv", e.path, &same_device, &r);
	const struct compare_entry *x = entry(&r, "unrolled-u4", 16384, "forces");
	cr_expect_eq(x->raw.verdict, COMPARE_UNCOMPARED);
	cr_expect_not(x->raw.regression);
	cr_expect(isnan(x->new.value), "a median of 0 reads as none");
	cr_expect_eq(r.failed_new, 1);
	cr_expect_eq(compare_exit_status(&r), COMPARE_REGRESSED);
	compare_report_free(&r);
	edited_close(&e);
}

/* One sample has no spread to measure: a row timed once on either side
 * is inconclusive, never decided on a noise of 0, here a 20 % slowdown
 * (a SLOWER row with two samples or more a side). */
Test(compare, a_row_of_one_sample_is_inconclusive)
{
	struct edited e;
	struct compare_report r;
	const struct compare_opts o = { .threshold_pct = COMPARE_DEFAULT_THRESHOLD_PCT,
					.min_change_pct = COMPARE_DEFAULT_MIN_CHANGE_PCT,
					.allow_missing = true };
	for (int samples = 1; samples <= 2; samples++) {
		edited_open(&e, FIX "slowed.csv");
		char cell[8];
		snprintf(cell, sizeof cell, "%d", samples);
		edited_set(&e, edited_row(&e, "unrolled-u4", "n", "16384"), "samples", cell, 0);
		edited_write(&e, false);
		compare_fixtures(FIX "base.csv", e.path, &o, &r);
		const struct compare_entry *x = entry(&r, "unrolled-u4", 16384, "forces");
		cr_expect_eq(x->raw.verdict, samples == 1 ? COMPARE_INCONCLUSIVE : COMPARE_SLOWER,
			     "%d sample(s)", samples);
		cr_expect_eq(compare_exit_status(&r), samples == 1 ? COMPARE_UNDECIDED : COMPARE_REGRESSED,
			     "%d sample(s)", samples);
		compare_report_free(&r);
		edited_close(&e);
	}
}

/* SPH rows (as sph run writes them, with a column more than today) join
 * on (variant, column) and are judged by steps/s. */
Test(compare, sph_rows)
{
	struct edited e;
	edited_open(&e, SPH_TABLE);
	size_t row = edited_row(&e, "sph-gpu-grid-count", "column", "255600");
	edited_set(&e, row, "steps_per_s", NULL, 0.8);
	edited_set(&e, row, "force_ms", NULL, 1.25);
	edited_write(&e, true);
	struct compare_report r;
	compare_fixtures(SPH_TABLE, e.path, &same_device, &r);
	cr_expect_str_eq(r.kind->name, "SPH");
	const struct compare_entry *slow = sph_entry(&r, "sph-gpu-grid-count", "255600");
	cr_expect_eq(slow->raw.verdict, COMPARE_SLOWER);
	cr_expect(slow->raw.regression);
	cr_expect_float_eq(slow->raw.ratio, 0.8, 1e-6);
	cr_expect_float_eq(slow->new.details[2] / slow->base.details[2], 1.25, 1e-6, "force_ms");
	cr_expect_float_eq(slow->new.details[0] / slow->base.details[0], 1.0, 1e-9, "build_ms");
	/* 4 % noise a side: an unchanged row cannot be told at 5 % */
	cr_expect_eq(sph_entry(&r, "sph-gpu-grid-count", "16128")->raw.verdict, COMPARE_INCONCLUSIVE);
	cr_expect_eq(sph_entry(&r, "sph-gpu-brute", "16128")->raw.verdict, COMPARE_SAME, "0.03 %% noise");
	cr_expect_eq(r.regressions, 1);
	cr_expect_eq(r.only_base + r.only_new, 0);
	cr_expect_eq(compare_exit_status(&r), COMPARE_REGRESSED);
	compare_report_free(&r);
	edited_close(&e);
}

/* SPH rows from another GPU: refused without --across-devices; with it,
 * judged on their raw figures (SPH rows have no ceiling). */
Test(compare, sph_across_devices)
{
	struct edited e;
	edited_open(&e, SPH_TABLE);
	edited_set(&e, SIZE_MAX, "device_name", "NVIDIA H100 80GB HBM3", 0);
	edited_set(&e, SIZE_MAX, "steps_per_s", NULL, 0.8);
	edited_write(&e, false);
	struct compare_report r;
	char err[1024] = "";
	cr_expect_eq(compare_files(SPH_TABLE, e.path, &same_device, &r, err, sizeof err), -1);
	cr_expect(strstr(err, "--across-devices") && strstr(err, "H100"), "%s", err);
	compare_fixtures(SPH_TABLE, e.path, &across, &r);
	const struct compare_entry *x = sph_entry(&r, "sph-gpu-grid-count", "255600");
	cr_expect_not(x->counts_ceiling);
	cr_expect_eq(x->raw.verdict, COMPARE_SLOWER, "20 %% slower with 8.3 %% noise");
	cr_expect(x->raw.regression, "the raw verdict counts");
	cr_expect_eq(compare_exit_status(&r), COMPARE_REGRESSED);
	compare_report_free(&r);
	edited_close(&e);
}

#define RENDER_TABLE "results/h200/sph-render-table.csv"

/* Rendering rows (sph run --render) are their own kind: joined on
 * variant, column, width, height, field_res and shading, judged by overall fps
 * with the frames' noise, the stage times shown; a row whose rendering
 * failed its checks is not compared even though its physics validated. */
Test(compare, render_rows)
{
	struct edited e;
	edited_open(&e, RENDER_TABLE);
	/* a row of little frame noise (0.2 %): Verlet rows have much more, the
	 * frames with a list rebuild being several times the others */
	size_t row = edited_row(&e, "sph-gpu-nlist", "column", "4207500");
	edited_set(&e, row, "overall_fps", NULL, 0.8);
	edited_set(&e, row, "raycast_ms", NULL, 1.5);
	size_t bad = edited_row(&e, "sph-gpu-grid-count", "column", "16128");
	edited_set(&e, bad, "render_valid", "0", 0);
	edited_write(&e, true);
	struct compare_report r;
	compare_fixtures(RENDER_TABLE, e.path, &same_device, &r);
	cr_expect_str_eq(r.kind->name, "SPH rendering");
	const struct compare_entry *slow = sph_entry(&r, "sph-gpu-nlist", "4207500");
	cr_expect_eq(slow->raw.verdict, COMPARE_SLOWER);
	cr_expect(slow->raw.regression);
	cr_expect_float_eq(slow->raw.ratio, 0.8, 1e-6);
	cr_expect_float_eq(slow->new.details[2] / slow->base.details[2], 1.5, 1e-6, "raycast_ms");
	cr_expect_float_eq(slow->new.details[0] / slow->base.details[0], 1.0, 1e-9, "extraction_ms");
	cr_expect_not(sph_entry(&r, "sph-gpu-grid-count", "16128")->new.valid,
		      "render_valid 0 makes the row invalid");
	cr_expect_eq(sph_entry(&r, "sph-gpu-nlist", "75200")->raw.verdict, COMPARE_SAME);
	cr_expect_eq(r.regressions, 1);
	cr_expect_eq(compare_exit_status(&r), COMPARE_REGRESSED);
	compare_report_free(&r);
	edited_close(&e);
}

/* The H200's rendering table against an H100's from a version that drew
 * every column at field resolution 256: a row at another resolution is
 * another measurement, so none joins and each side's 48 rows are its
 * own. */
Test(compare, render_at_other_field_resolutions_do_not_join)
{
	struct compare_report r;
	compare_fixtures(RENDER_TABLE, "tests/fixtures/results/sph-h100/sph-render-table.csv",
			 &across, &r);
	cr_expect_str_eq(r.kind->name, "SPH rendering");
	cr_expect_eq(r.only_base, 48, "%zu only in the H200's", r.only_base);
	cr_expect_eq(r.only_new, 48, "%zu only in the H100's", r.only_new);
	compare_report_free(&r);
}

/* RENDER_TABLE with a shading column of value v on every row, written to
 * path (no sidecar: compare reads it unchecked). */
static void render_table_shaded(const char *v, char *path, size_t len)
{
	snprintf(path, len, "/tmp/compare-shading-XXXXXX");
	int fd = mkstemp(path);
	cr_assert_geq(fd, 0);
	close(fd);
	csv_with_column(RENDER_TABLE, path, "shading", v);
}

/* A rendering row in the paper's shading is another measurement than
 * Phong's: none joins; a file from before the column is Phong's. */
Test(compare, render_rows_of_two_shadings_do_not_join)
{
	char paper[64], phong[64];
	struct compare_report a, b;
	render_table_shaded("paper", paper, sizeof paper);
	render_table_shaded("phong", phong, sizeof phong);
	compare_fixtures(RENDER_TABLE, paper, &same_device, &a);
	cr_expect_eq(a.only_base, 48);
	cr_expect_eq(a.only_new, 48);
	cr_expect_neq(compare_exit_status(&a), 0, "nothing compared is not a pass");
	compare_report_free(&a);
	compare_fixtures(RENDER_TABLE, phong, &same_device, &b);
	cr_expect_eq(b.only_base + b.only_new, 0);
	compare_report_free(&b);
	unlink(paper);
	unlink(phong);
}

Test(compare, kinds_are_not_mixed)
{
	struct compare_report r;
	char err[1024] = "";
	cr_expect_eq(compare_files("results/h200/steps.csv", SPH_TABLE, &same_device, &r, err,
				   sizeof err), -1);
	cr_expect(strstr(err, "N-body") && strstr(err, "SPH"), "%s", err);
	cr_expect_eq(compare_files(FIX "../../../../results/published/gpugems3_ch31.csv", SPH_TABLE,
				   &same_device, &r, err, sizeof err), -1);
	cr_expect(strstr(err, "not a results CSV") && strstr(err, "build_ms"), "%s", err);
}

/* Two runs of one build differ by a few tenths of a percent even when
 * each run's samples agree to a hundredth of one: that reads "same". */
Test(compare, differences_under_the_floor_are_same)
{
	cr_expect_eq(compare_judge(100, 0.01, 100.1, 0.01, 5, 1).verdict, COMPARE_SAME);
	cr_expect_eq(compare_judge(100, 0.01, 99.9, 0.01, 5, 1).verdict, COMPARE_SAME);
	cr_expect_eq(compare_judge(100, 0.01, 100.1, 0.01, 5, 0).verdict, COMPARE_FASTER);
	cr_expect_eq(compare_judge(100, 0.01, 98.5, 0.01, 5, 1).verdict, COMPARE_SLOWER);
	cr_expect_not(compare_judge(100, 0, 99.5, 0, 0, 1).regression,
		      "under the floor is never a regression, even with --threshold 0");

	struct edited e;
	edited_open(&e, "results/h200/baseline.csv");
	edited_set(&e, SIZE_MAX, "interactions_per_s", NULL, 0.999);
	edited_set(&e, SIZE_MAX, "noise_pct", "0.01", 0);
	edited_write(&e, false);
	struct compare_report r;
	compare_fixtures("results/h200/baseline.csv", e.path, &same_device, &r);
	cr_expect_eq(r.slower + r.faster, 0, "%zu slower, %zu faster", r.slower, r.faster);
	cr_expect_gt(r.same, 300, "the 364 rows, less those invalid or not timed");
	compare_report_free(&r);
	/* without MIN, and on a device no separate runs calibrated (so no
	 * between-run floor either), 0.1 % is told apart */
	struct edited b;
	edited_open(&b, "results/h200/baseline.csv");
	snprintf(b.path, sizeof b.path, "%s/base.csv", b.dir);
	edited_set(&b, SIZE_MAX, "device_name", "A GPU of no calibration", 0);
	edited_set(&b, SIZE_MAX, "noise_pct", "0.01", 0);
	edited_set(&e, SIZE_MAX, "device_name", "A GPU of no calibration", 0);
	edited_write(&b, false);
	edited_write(&e, false);
	struct compare_opts no_floor = same_device;
	no_floor.min_change_pct = 0;
	compare_fixtures(b.path, e.path, &no_floor, &r);
	cr_expect_gt(r.slower, 0, "without the floor 0.1 %% reads slower");
	cr_expect_eq(r.regressions, 0, "and is no regression");
	cr_expect_eq(r.floored, 0);
	cr_expect_gt(r.unfloored, 300, "every timed pair is judged without a between-run floor");
	compare_report_free(&r);
	char cmd[512], err[4096];
	/* (its CPU rows are too noisy to decide at 5 %: allowed here) */
	snprintf(cmd, sizeof cmd, "%s compare %s %s --min-change 0.5 --allow-inconclusive "
		 "--unchecked", harness_bin(), b.path, e.path);
	cr_expect_eq(run(cmd, err, sizeof err), 0, "%s", err);
	edited_close(&b);
	edited_close(&e);
}

Test(compare, cli_min_change_option)
{
	need_compare_command();
	expect_cli_bad_input(FIX "base.csv " FIX "slowed.csv --min-change", "--min-change");
	expect_cli_bad_input(FIX "base.csv " FIX "slowed.csv --min-change=-1", "'-1'");
	char e[4096];
	cr_expect_eq(harness_compare(FIX "base.csv " FIX "slowed.csv --min-change=25 --allow-missing",
				     e, sizeof e), 0, "20 %% slower is under a 25 %% floor: %s", e);
}

/* N-body rows join on the ranks they ran on: a file from before the
 * column means one rank; rows on 2 ranks are another measurement. */
Test(compare, rows_join_on_ranks)
{
	struct edited e;
	struct compare_report r;
	edited_open(&e, FIX "base.csv");
	cr_assert_lt(csv_table_col(&e.t, "ranks"), 0, "the fixture predates the ranks column");
	edited_write_col(&e, "ranks", "1");
	compare_fixtures(FIX "base.csv", e.path, &same_device, &r);
	cr_expect_gt(r.count, 0);
	cr_expect_eq(r.only_base + r.only_new, 0, "ranks 1 joins a file without the column");
	compare_report_free(&r);
	edited_write_col(&e, "ranks", "2");
	compare_fixtures(FIX "base.csv", e.path, &same_device, &r);
	cr_expect_eq(r.only_base, r.count / 2, "2 ranks join nothing of 1");
	cr_expect_eq(r.only_new, r.count / 2);
	cr_expect_eq(r.regressions, 0, "rows only on one side are no regression");
	cr_expect_eq(r.failed_new, 1, "but NEW's invalid row is NEW's failure");
	cr_expect_eq(compare_exit_status(&r), COMPARE_REGRESSED);
	compare_report_free(&r);
	edited_close(&e);
}

/* SPH columns are names too (martin-moyce, NXxNYxNZ@L), not only counts. */
Test(compare, sph_named_columns)
{
	struct edited e;
	struct compare_report r;
	edited_open(&e, SPH_TABLE);
	size_t row = edited_row(&e, "sph-gpu-brute", "column", "16128");
	edited_set(&e, row, "column", "martin-moyce", 0);
	edited_write(&e, false);
	compare_fixtures(e.path, e.path, &same_device, &r);
	const struct compare_entry *x = sph_entry(&r, "sph-gpu-brute", "martin-moyce");
	cr_expect_eq(x->raw.verdict, COMPARE_SAME);
	compare_report_free(&r);
	edited_close(&e);
}

/* ---- nothing compared is no pass -------------------------------------------- */

/* A row that validated in BASE and failed in NEW (invalid, or not timed)
 * is NEW's failure: exit 1 whatever is allowed. */
Test(compare, rows_that_failed_in_new_are_a_regression)
{
	static const struct {
		const char *col, *value;
	} failures[] = { { "valid", "0" }, { "interactions_per_s", "" } };
	struct compare_opts allow_all = allow_missing;
	allow_all.allow_inconclusive = true;
	for (size_t k = 0; k < 2; k++) {
		struct edited e;
		struct compare_report r;
		edited_open(&e, FIX "base.csv");
		size_t row = edited_row(&e, "unrolled-u4", "n", "4096");
		edited_set(&e, row, failures[k].col, failures[k].value, 0);
		edited_write(&e, false);
		compare_fixtures(FIX "base.csv", e.path, &allow_all, &r);
		const struct compare_entry *x = entry(&r, "unrolled-u4", 4096, "forces");
		cr_expect_eq(x->raw.verdict, COMPARE_UNCOMPARED, "%s", failures[k].col);
		cr_expect_eq(r.failed_new, 1, "%s", failures[k].col);
		cr_expect_eq(r.uncompared, 1, "the row invalid in both is BASE's");
		cr_expect_eq(compare_exit_status(&r), COMPARE_REGRESSED, "%s", failures[k].col);
		compare_report_free(&r);
		edited_close(&e);
	}
}

/* No row in both files with a figure on each side: 3, even when every
 * allowance is given. */
Test(compare, an_empty_join_is_no_pass)
{
	struct compare_opts allow_all = allow_missing;
	allow_all.allow_inconclusive = true;
	struct edited e;
	struct compare_report r;
	edited_open(&e, FIX "base.csv");
	edited_write_col(&e, "ranks", "2"); /* rows on 2 ranks join none on 1 */
	compare_fixtures(FIX "base.csv", e.path, &allow_all, &r);
	cr_expect_eq(r.only_base, 6);
	cr_expect_eq(r.only_new, 6);
	cr_expect_eq(r.failed_new, 1, "NEW's invalid row, now only in NEW");
	cr_expect_eq(compare_exit_status(&r), COMPARE_REGRESSED);
	compare_report_free(&r);
	/* without the failed row: nothing compared, nothing failed */
	edited_set(&e, edited_row(&e, "tiled-p256", "n", "16384"), "valid", "1", 0);
	edited_set(&e, edited_row(&e, "tiled-p256", "n", "16384"), "interactions_per_s", "1e12", 0);
	edited_write_col(&e, "ranks", "2");
	compare_fixtures(FIX "base.csv", e.path, &allow_all, &r);
	cr_expect_eq(r.faster + r.same + r.slower + r.inconclusive, 0);
	cr_expect_eq(compare_exit_status(&r), COMPARE_UNDECIDED, "nothing compared");
	compare_report_free(&r);

	/* a NEW of no rows at all (its header only) */
	FILE *fp = fopen(e.path, "w");
	cr_assert_not_null(fp);
	cr_assert_eq(csv_write_row(fp, (const char *const *)e.t.header, e.t.ncols), 0);
	fclose(fp);
	compare_fixtures(FIX "base.csv", e.path, &allow_all, &r);
	cr_expect_eq(r.only_base, 6);
	cr_expect_eq(compare_exit_status(&r), COMPARE_UNDECIDED);
	compare_report_free(&r);
	char cmd[512], err[4096];
	snprintf(cmd, sizeof cmd, "%s compare " FIX "base.csv %s --allow-missing --allow-inconclusive "
		 "--unchecked", harness_bin(), e.path);
	cr_expect_eq(run(cmd, err, sizeof err), 3, "%s", err);
	cr_expect(strstr(err, "nothing compared"), "%s", err);
	edited_close(&e);
}

/* Writes a sidecar beside e's CSV listing variants its run skipped. */
static void edited_skipped_sidecar(const struct edited *e, const char *skipped_json)
{
	char side[96];
	snprintf(side, sizeof side, "%s/new.meta.json", e->dir);
	FILE *fp = fopen(side, "w");
	cr_assert_not_null(fp);
	fprintf(fp, "{\"schema\": \"nbody-harness-results/1\", \"skipped\": %s}\n", skipped_json);
	fclose(fp);
}

/* Variants NEW's run could not run (its sidecar's "skipped") were asked
 * for and not measured: 3 unless --allow-missing. */
Test(compare, variants_new_skipped_are_not_measured)
{
	struct edited e;
	struct compare_report r;
	char side[96];
	edited_open(&e, FIX "base.csv");
	edited_write(&e, false);
	edited_skipped_sidecar(&e, "[{\"variant\": \"naive\", \"why\": \"no CUDA device\"},"
				   " {\"variant\": \"rsqrt\", \"why\": \"no CUDA device\"}]");
	struct compare_opts o = allow_missing;
	o.allow_missing = false;
	compare_fixtures(e.path, e.path, &o, &r);
	cr_expect_eq(r.skipped_new, 2);
	cr_expect(strstr(r.skipped_note, "naive, rsqrt") && strstr(r.skipped_note, "no CUDA device"),
		  "%s", r.skipped_note);
	cr_expect_eq(compare_exit_status(&r), COMPARE_UNDECIDED);
	compare_report_free(&r);
	compare_fixtures(e.path, e.path, &allow_missing, &r);
	cr_expect_eq(compare_exit_status(&r), COMPARE_OK);
	compare_report_free(&r);
	char cmd[512], err[4096];
	snprintf(cmd, sizeof cmd, "%s compare %s %s --unchecked", harness_bin(), e.path, e.path);
	cr_expect_eq(run(cmd, err, sizeof err), 3, "%s", err);
	cr_expect(strstr(err, "NEW's run skipped 2 variants") && strstr(err, "naive"), "%s", err);

	/* a list that is not one is bad input */
	edited_skipped_sidecar(&e, "[\"naive\"]");
	char msg[1024];
	cr_expect_eq(compare_files(e.path, e.path, &allow_missing, &r, msg, sizeof msg), -1);
	cr_expect(strstr(msg, "skipped"), "%s", msg);
	snprintf(side, sizeof side, "%s/new.meta.json", e.dir);
	unlink(side);
	edited_close(&e);
}

/* --out: a row per entry with its verdict, change and resolution, and a
 * sidecar with the counts and the exit status. */
Test(compare, verdicts_file)
{
	char dir[] = "/tmp/test_compare.XXXXXX", out[64], side[64], cmd[512], err[4096], e[512];
	cr_assert_not_null(mkdtemp(dir));
	snprintf(out, sizeof out, "%s/v.csv", dir);
	snprintf(side, sizeof side, "%s/v.meta.json", dir);
	snprintf(cmd, sizeof cmd, "%s compare " FIX "base.csv " FIX "within-noise.csv --out %s",
		 harness_bin(), out);
	cr_expect_eq(run(cmd, err, sizeof err), 3, "%s", err);
	struct csv_table t;
	cr_assert_eq(csv_table_read(out, &t, e, sizeof e), 0, "%s", e);
	cr_expect_eq(t.nrows, 6);
	const char *want[][3] = {
		{ "unrolled-u4", "16384", "inconclusive" }, { "auto", "16384", "slower" },
		{ "unrolled-u4", "4096", "same" },	    { "tiled-p256", "16384", "invalid in both" },
	};
	for (size_t k = 0; k < 4; k++) {
		size_t r = 0;
		while (r < t.nrows && !(strcmp(csv_table_named(&t, r, "variant"), want[k][0]) == 0 &&
					strcmp(csv_table_named(&t, r, "n"), want[k][1]) == 0 &&
					strcmp(csv_table_named(&t, r, "mode"), "forces") == 0))
			r++;
		cr_assert_lt(r, t.nrows, "no row %s %s", want[k][0], want[k][1]);
		cr_expect_str_eq(csv_table_named(&t, r, "verdict"), want[k][2]);
		if (k == 0) {
			double res, change, floor;
			cr_assert_eq(csv_table_double(&t, r, "resolution_pct", &res, e, sizeof e), 0, "%s", e);
			cr_assert_eq(csv_table_double(&t, r, "change_pct", &change, e, sizeof e), 0, "%s", e);
			cr_assert_eq(csv_table_double(&t, r, "floor_pct", &floor, e, sizeof e), 0, "%s", e);
			/* the H200's floor for a GPU N-body call from 100 us (floors.def) */
			cr_expect_float_eq(floor, 0.5, 1e-9);
			cr_expect_float_eq(res, sqrt(1.0 + 9.0 + 0.25), 1e-3, "sqrt(1^2 + 3^2 + 0.5^2)");
			cr_expect_float_eq(change, -3.0, 1e-3);
		}
	}
	csv_table_free(&t);
	struct json_in_value v;
	cr_assert_eq(json_in_read_file(side, &v, e, sizeof e), 0, "%s", e);
	cr_expect_eq(json_in_member(&v, "exit_status")->number, 3);
	cr_expect_eq(json_in_member(json_in_member(&v, "counts"), "inconclusive")->number, 1);
	cr_expect_str_eq(json_in_member(&v, "schema")->string, "harness-verdicts/1");
	json_in_free(&v);
	char msg[1024];
	cr_expect_eq(results_pair_check(out, msg, sizeof msg), RESULTS_PAIR_OK, "%s", msg);
	unlink(out);
	unlink(side);
	rmdir(dir);
}

/* ---- files with nothing timed: a check's, the memory suite's, sph physics' ---- */

/* `compare F F` on FILE, and on F against a copy whose row (key columns
 * key[], values at[]) has column col set to value: exit statuses into
 * same and changed, compare's output on the copy into out. */
static void compare_untimed(const char *file, size_t nkeys, const char *const *key,
			    const char *const *at, const char *col, const char *value, int *same,
			    int *changed, char *out, size_t outlen)
{
	char dir[] = "/tmp/harness-untimed-XXXXXX", copy[128], cmd[1024];
	cr_assert_not_null(mkdtemp(dir));
	snprintf(copy, sizeof copy, "%s/new.csv", dir);
	snprintf(cmd, sizeof cmd, "%s compare %s %s", cli_harness_bin(), file, file);
	*same = cli_run_capture(cmd, ">%s 2>&1", out, outlen);
	csv_with_cell(file, copy, nkeys, key, at, col, value);
	snprintf(cmd, sizeof cmd, "%s compare %s %s --unchecked", cli_harness_bin(), file, copy);
	*changed = cli_run_capture(cmd, ">%s 2>&1", out, outlen);
	unlink(copy);
	rmdir(dir);
}

/* A check's rows (validated, never timed) compare by their validation:
 * the file against itself passes, saying nothing was timed; a row that
 * validated in BASE and fails in NEW is a regression, named. */
Test(compare, a_check_file_compares_its_validation)
{
	static char out[1 << 17];
	const char *key[] = { "variant" }, *at[] = { "tiled-p64" };
	int same, changed;
	compare_untimed("results/h200/check-1000003.csv", 1, key, at, "valid", "0", &same, &changed,
			out, sizeof out);
	cr_expect_eq(same, 0);
	cr_expect_eq(changed, 1, "%s", out);
	cr_expect(strstr(out, "tiled-p64") && strstr(out, "invalid in NEW") &&
		  strstr(out, "1 failed in NEW"), "%s", out);
	cr_expect(strstr(out, "nothing timed to compare"), "%s", out);
}

/* The memory suite's rows the same (SPH rows, nothing timed). */
Test(compare, the_memory_suite_compares_its_validation)
{
	static char out[1 << 17];
	const char *key[] = { "variant", "column" }, *at[] = { "sph-gpu-verlet", "255600" };
	int same, changed;
	compare_untimed("results/h200/sph-memory.csv", 2, key, at, "valid", "0", &same, &changed,
			out, sizeof out);
	cr_expect_eq(same, 0, "%s", out);
	cr_expect_eq(changed, 1, "%s", out);
	cr_expect(strstr(out, "sph-gpu-verlet") && strstr(out, "invalid in NEW"), "%s", out);
}

/* sph physics' judged quantities compare by their pass flags: a check
 * that passed in BASE and fails in NEW is a regression; the curves
 * (judged 0) are data, not verdicts, and a change there is no change of
 * verdict; a judged row that is gone is missing (exit 3). */
Test(compare, physics_rows_compare_their_pass_flags)
{
	static char out[1 << 17];
	const char *key[] = { "check", "column", "quantity" };
	const char *at[] = { "leak", "255600", "leak_clamps" };
	int same, changed;
	compare_untimed("results/h200/sph-physics.csv", 3, key, at, "pass", "0", &same, &changed, out,
			sizeof out);
	cr_expect_eq(same, 0, "%s", out);
	cr_expect(strstr(out, "SPH physics rows"), "%s", out);
	cr_expect_eq(changed, 1, "%s", out);
	cr_expect(strstr(out, "leak_clamps") && strstr(out, "invalid in NEW"), "%s", out);
	const char *curve[] = { "check", "column", "quantity" };
	const char *at_curve[] = { "leak", "255600", "leak_cfl_curve" };
	compare_untimed("results/h200/sph-physics.csv", 3, curve, at_curve, "pass", "0", &same,
			&changed, out, sizeof out);
	cr_expect_eq(changed, 0, "a curve's flag is no verdict: %s", out);
	/* a judged row made unjudged: gone from NEW's verdicts */
	compare_untimed("results/h200/sph-physics.csv", 3, key, at, "judged", "0", &same, &changed,
			out, sizeof out);
	cr_expect_eq(changed, 3, "%s", out);
	cr_expect(strstr(out, "only in BASE"), "%s", out);
}

/* A file with timed rows against one without: the rows are compared by
 * their timing, and those not timed in one of them are not a pass. */
Test(compare, timed_against_untimed_is_not_a_pass)
{
	char cmd[512], out[1 << 16];
	struct edited e;
	edited_open(&e, "results/h200/sph-table.csv");
	edited_set(&e, SIZE_MAX, "steps_per_s", "", 0);
	edited_write(&e, false);
	snprintf(cmd, sizeof cmd, "%s compare --unchecked %s results/h200/sph-table.csv",
		 cli_harness_bin(), e.path);
	cr_expect_eq(cli_run_capture(cmd, ">%s 2>&1", out, sizeof out), 3, "%s", out);
	cr_expect(strstr(out, "not timed in BASE"), "%s", out);
	edited_close(&e);
}

/* SPH rows timed over a window of K steps are another measurement than
 * those of another K or of a file from before the window (timed along
 * the flow): none joins, and the file without the column is said to be
 * of that older timing; rows of the same K join. */
Test(compare, sph_rows_of_another_window_do_not_join)
{
	char paths[3][64];
	const char *ks[3] = { "128", "16", "128" };
	const char *w128 = paths[0], *w16 = paths[1], *again = paths[2];
	for (int k = 0; k < 3; k++) {
		snprintf(paths[k], sizeof paths[k], "/tmp/compare-window-XXXXXX");
		int fd = mkstemp(paths[k]);
		cr_assert_geq(fd, 0);
		close(fd);
		csv_with_column(SPH_TABLE, paths[k], "window_steps", ks[k]);
	}
	struct compare_report r;
	compare_fixtures(SPH_TABLE, w128, &same_device, &r);
	cr_expect_eq(r.only_base, r.count / 2);
	cr_expect_eq(r.only_new, r.count / 2);
	cr_expect(strstr(r.notes[0], "no column window_steps: rows timed along the flow"), "%s",
		  r.notes[0]);
	cr_expect_eq(r.notes[1][0] == '\0' || !strstr(r.notes[1], "window_steps"), 1, "%s",
		     r.notes[1]);
	cr_expect_neq(compare_exit_status(&r), 0, "nothing compared is not a pass");
	compare_report_free(&r);
	compare_fixtures(w128, w16, &same_device, &r);
	cr_expect_eq(r.only_base + r.only_new, r.count);
	compare_report_free(&r);
	compare_fixtures(w128, again, &same_device, &r);
	cr_expect_eq(r.only_base + r.only_new, 0);
	compare_report_free(&r);
	for (int k = 0; k < 3; k++)
		unlink(paths[k]);
}
