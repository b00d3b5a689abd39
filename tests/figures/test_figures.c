/* test_figures.c - make figures (plots/figures.sh): a bad folder stops it, the scaling figures found as the model is */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../cli_run.h"
#include "../tmp_dir.h"

static void need_gnuplot(void)
{
	if (system("command -v gnuplot >/dev/null 2>&1") != 0)
		cr_skip_test("gnuplot is not installed (apt-get install gnuplot-nox, or make test)");
}

/* plots/figures.sh BIN FROM FIGURES: its exit status, stdout and stderr
 * together into out. */
static int figures(const char *from, const char *to, char *out, size_t len)
{
	char cmd[1024];
	snprintf(cmd, sizeof cmd, "plots/figures.sh %s '%s' %s", cli_harness_bin(), from, to);
	return cli_run_capture(cmd, ">%s 2>&1", out, len);
}

/* The line of out that starts with prefix, into line; false when none. */
static bool line_of(const char *out, const char *prefix, char *line, size_t len)
{
	for (const char *p = out; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (strncmp(p, prefix, strlen(prefix)) == 0) {
			snprintf(line, len, "%.*s", (int)strcspn(p, "\n"), p);
			return true;
		}
	return false;
}

/* FROM that is no folder: plot's line says so, and nothing else is
 * drawn or said to be skipped; exit 2, no output folder. */
Test(figures, a_from_that_is_no_folder_stops_there)
{
	char dir[64], to[128], out[1 << 14];
	need_gnuplot();
	tmp_dir_make(dir, "figures-bad");
	snprintf(to, sizeof to, "%s/figs", dir);
	cr_expect_eq(figures("/nonexistent-results", to, out, sizeof out), 2, "%s", out);
	cr_expect(strstr(out, "harness: plot: results directory /nonexistent-results: "), "%s", out);
	cr_expect_null(strstr(out, "sph-collapse"), "went on after the bad folder:\n%s", out);
	cr_expect_null(strstr(out, "skipped"), "went on after the bad folder:\n%s", out);
	size_t lines = 0;
	for (const char *p = out; *p; p++)
		lines += *p == '\n';
	cr_expect_eq(lines, 2, "the command and plot's line:\n%s", out);
	cr_expect(access(to, F_OK) != 0, "%s was made", to);
	tmp_dir_remove(dir);
}

/*
 * Without FROM the scaling figures are drawn as the scaling model is:
 * where this machine measured them, else from the committed results of
 * four H200s that hold both, each line saying where; none is skipped.
 */
Test(figures, without_from_the_scaling_figures_are_found_as_the_model_is, .timeout = 240)
{
	char dir[64], to[128], line[8192], png[256];
	static char out[1 << 16];
	need_gnuplot();
	tmp_dir_make(dir, "figures-default");
	snprintf(to, sizeof to, "%s/figs", dir);
	cr_expect_eq(figures("", to, out, sizeof out), 0, "%s", out);
	const char *names[] = { "scaling", "weak-scaling", "scaling-model" };
	for (size_t k = 0; k < 3; k++) {
		char prefix[64];
		snprintf(prefix, sizeof prefix, "%s: ", names[k]);
		cr_assert(line_of(out, prefix, line, sizeof line), "no line for %s:\n%s", names[k], out);
		cr_expect_null(strstr(line, "skipped"), "%s", line);
		if (strstr(line, "(the default"))
			cr_expect(strncmp(line + strlen(prefix), "results/h200x4/", 15) == 0,
				  "the default is where the model is: %s", line);
		snprintf(png, sizeof png, "%s/%s.png", to, names[k]);
		cr_expect(access(png, F_OK) == 0, "no %s", png);
	}
	cr_expect(line_of(out, "sph-render-table: ", line, sizeof line) && !strstr(line, "skipped"),
		  "%s", out);
	tmp_dir_remove(dir);
}

/* A scaling suite missing from --from is one line naming the files it
 * looked for, P and all: the error for that suite alone, the skipped
 * line under --suite all. */
Test(figures, a_missing_scaling_suite_is_one_line_naming_its_files)
{
	char dir[64], cmd[1024], err[4096];
	static char out[1 << 16];
	need_gnuplot();
	tmp_dir_make(dir, "figures-scaling");
	snprintf(cmd, sizeof cmd, "%s plot --suite scaling --from results/h200 --out %s",
		 cli_harness_bin(), dir);
	cr_expect_eq(cli_run(cmd, err, sizeof err), 2, "%s", err);
	cr_expect_str_eq(err, "harness: plot: no suite CSV (scaling-pP.csv: one file per number of "
			      "ranks P) in results/h200\n");
	snprintf(cmd, sizeof cmd, "%s plot --suite scaling --from results/h200 --out %s 2>/dev/null",
		 cli_harness_bin(), dir);
	cr_expect_eq(cli_run_stdout(cmd, out, sizeof out), 2);
	cr_expect_str_empty(out, "the error says it all: %s", out);
	snprintf(cmd, sizeof cmd, "%s plot --suite all --from results/h200 --out %s 2>&1",
		 cli_harness_bin(), dir);
	cr_expect_eq(cli_run_stdout(cmd, out, sizeof out), 0, "%s", out);
	cr_expect(strstr(out, "\nweak-scaling: no weak-scaling-pP.csv (one file per number of ranks "
			      "P) in results/h200 (skipped)\n"), "%s", out);
	tmp_dir_remove(dir);
}
