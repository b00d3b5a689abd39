/* test_figures.c - make figures (plots/figures.sh): a bad folder stops it */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_run.h"
#include "tmp_dir.h"

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
