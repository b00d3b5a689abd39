/* test_sph_journal.c - sph run --resume: the rows an interrupted run kept are taken back, the rest measured */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../harness/core/json_in.h"
#include "../cli_run.h"
#include "../file_read.h"
#include "../tmp_dir.h"

#define J_ARGS "-v sph-cpu-grid --column 6x6x7@4 --warm-steps 1,2,3 --min-time 0.02 --max-time 0.1 -q"

/* The data line of csv whose row is row (1: the first after the header). */
static void j_line(const char *csv, int row, char *out, size_t len)
{
	size_t n;
	char *text = (char *)file_read_whole(csv, &n), *p = text;
	for (int r = 0; r < row && p; r++)
		p = strchr(p, '\n'), p = p ? p + 1 : NULL;
	cr_assert_not_null(p, "%s has no row %d", csv, row);
	const size_t l = strcspn(p, "\n");
	snprintf(out, len, "%.*s", (int)l, p);
	free(text);
}

static int j_run(const char *env, const char *dir, const char *more, char *e, size_t len)
{
	char line[2048];
	snprintf(line, sizeof line, "%s %s sph run " J_ARGS " -o %s/r.csv %s", env, cli_harness_bin(),
		 dir, more);
	return cli_run(line, e, len);
}

/*
 * Cut after two of its four rows: the CSV holds those two, marked
 * incomplete, and r.csv.rows keeps them; --resume takes both back (the
 * same measurements, byte for byte in the CSV), measures the two others,
 * writes the CSV whole and removes the journal.
 */
Test(sph_journal, an_interrupted_run_resumes_with_its_finished_rows, .timeout = 120)
{
	char dir[64], e[8192], jpath[128], csv[128], a[4096], b[4096];
	tmp_dir_make(dir, "sph-resume");
	snprintf(csv, sizeof csv, "%s/r.csv", dir);
	snprintf(jpath, sizeof jpath, "%s/r.csv.rows", dir);
	cr_assert_eq(j_run("HARNESS_TEST_HOOKS=1 HARNESS_TEST_INTERRUPT=2:TERM", dir, "", e, sizeof e),
		     128 + SIGTERM, "%s", e);
	cr_assert_eq(access(jpath, F_OK), 0, "the journal is kept: %s", e);
	char first[2][4096];
	j_line(csv, 1, first[0], sizeof first[0]);
	j_line(csv, 2, first[1], sizeof first[1]);
	cr_assert_eq(j_run("", dir, "--resume", e, sizeof e), 0, "%s", e);
	cr_expect(strstr(e, "2 rows taken back from") && strstr(e, "r.csv.rows"), "%s", e);
	for (int r = 1; r <= 2; r++) {
		j_line(csv, r, a, sizeof a);
		cr_expect_str_eq(a, first[r - 1], "row %d is the interrupted run's", r);
	}
	j_line(csv, 4, b, sizeof b);
	cr_expect(strstr(b, "sph-cpu-grid") != NULL, "the flow's row: %s", b);
	cr_expect_neq(access(jpath, F_OK), 0, "a whole CSV removes its journal");
	/* the sidecar names the rows taken back */
	char side[160], err[256];
	struct json_in_value v;
	snprintf(side, sizeof side, "%s/r.meta.json", dir);
	cr_assert_eq(json_in_read_file(side, &v, err, sizeof err), 0, "%s", err);
	const struct json_in_value *rows = json_in_member(json_in_find(&v, "resumed"), "rows");
	cr_assert(rows && rows->count == 2, "two rows resumed");
	cr_expect_str_eq(rows->items[0].string, "sph-cpu-grid on 6x6x7@4 at step 1");
	cr_expect_str_eq(rows->items[1].string, "sph-cpu-grid on 6x6x7@4 at step 2");
	json_in_free(&v);
	/* a run with no journal to resume measures everything and says so */
	cr_assert_eq(j_run("", dir, "--resume", e, sizeof e), 0, "%s", e);
	cr_expect(strstr(e, "nothing to resume at"), "%s", e);
	tmp_dir_remove(dir);
}

/* Other arguments, or a damaged journal, are refused in one line
 * (exit 2) and leave the journal as it was. */
Test(sph_journal, a_journal_of_another_run_or_damaged_is_refused, .timeout = 120)
{
	char dir[64], e[8192], jpath[128];
	tmp_dir_make(dir, "sph-resume-bad");
	snprintf(jpath, sizeof jpath, "%s/r.csv.rows", dir);
	cr_assert_eq(j_run("HARNESS_TEST_HOOKS=1 HARNESS_TEST_INTERRUPT=1:TERM", dir, "", e, sizeof e),
		     128 + SIGTERM, "%s", e);
	cr_expect_eq(j_run("", dir, "--seed 7 --resume", e, sizeof e), 2, "%s", e);
	cr_expect(strstr(e, "is of another run") && strchr(e, '\n') == strrchr(e, '\n'), "%s", e);
	cr_expect_eq(access(jpath, F_OK), 0, "the journal stays");
	char cmd[512];
	snprintf(cmd, sizeof cmd, "printf 'x' | dd of=%s bs=1 seek=200 conv=notrunc 2>/dev/null", jpath);
	cr_assert_eq(system(cmd), 0);
	cr_expect_eq(j_run("", dir, "--resume", e, sizeof e), 2, "%s", e);
	cr_expect(strstr(e, "does not hash to its checksum"), "%s", e);
	tmp_dir_remove(dir);
}

/* A column whose every row the journal holds is not run again, nor are
 * its states made: with --states, only the other column's appear. */
Test(sph_journal, a_column_taken_back_whole_makes_no_states, .timeout = 120)
{
	char dir[64], e[8192], line[2048];
	tmp_dir_make(dir, "sph-resume-cols");
	const char *args = "-v sph-cpu-grid --column 6x6x7@4,8x4x8@4 --warm-steps 1,2 --min-time "
			   "0.02 --max-time 0.1 -q";
	/* the first column's two moments and its flow, then cut */
	snprintf(line, sizeof line, "HARNESS_TEST_HOOKS=1 HARNESS_TEST_INTERRUPT=3:TERM %s sph run %s "
		 "-o %s/r.csv --states %s/st", cli_harness_bin(), args, dir, dir);
	cr_assert_eq(cli_run(line, e, sizeof e), 128 + SIGTERM, "%s", e);
	snprintf(line, sizeof line, "rm -f %s/st/*", dir);
	cr_assert_eq(system(line), 0);
	snprintf(line, sizeof line, "%s sph run %s -o %s/r.csv --states %s/st --resume",
		 cli_harness_bin(), args, dir, dir);
	cr_assert_eq(cli_run(line, e, sizeof e), 0, "%s", e);
	cr_expect(strstr(e, "3 rows taken back"), "%s", e);
	char state[256];
	snprintf(state, sizeof state, "%s/st/6x6x7@4-seed42-step1-sph-cpu-grid.sphstate", dir);
	cr_expect_neq(access(state, F_OK), 0, "no state of the column taken back: %s", state);
	snprintf(state, sizeof state, "%s/st/8x4x8@4-seed42-step1-sph-cpu-grid.sphstate", dir);
	cr_expect_eq(access(state, F_OK), 0, "the other column's states are made: %s", state);
	tmp_dir_remove(dir);
}
