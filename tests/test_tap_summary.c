/* test_tap_summary.c - make test's closing lines: skips counted and grouped by reason */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Runs tests/tap-summary.awk on tap (TAP text); returns what it printed
 * (caller frees). */
static char *tap_summary(const char *tap)
{
	char path[] = "/tmp/tap-summary-XXXXXX", cmd[256];
	int fd = mkstemp(path);
	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, tap, strlen(tap)), (ssize_t)strlen(tap));
	close(fd);
	snprintf(cmd, sizeof cmd, "awk -f tests/tap-summary.awk %s", path);
	FILE *p = popen(cmd, "r");
	cr_assert_not_null(p);
	char *out = calloc(1, 4096);
	cr_assert_not_null(out);
	size_t n = fread(out, 1, 4095, p);
	out[n] = '\0';
	cr_assert_eq(pclose(p), 0);
	unlink(path);
	return out;
}

Test(tap_summary, skips_grouped_by_reason_and_counted)
{
	char *out = tap_summary(
		"TAP version 13\n1..6\n# Running 6 tests from a\n"
		"ok - a::one  # SKIP no GPU here: no CUDA driver on this machine\n"
		"ok - a::two  # SKIP sph-gpu-brute cannot run here: no CUDA driver on this machine\n"
		"ok - a::three  # SKIP gnuplot is not installed (apt-get install gnuplot-nox)\n"
		"ok - a::four (0.01s)\n"
		"not ok - a::five (0.02s)\n"
		"ok - a::six  # SKIP test was skipped\n");
	cr_expect(strstr(out, "skipped: 4 of 6 tests, so this run is not complete:\n"), "%s", out);
	cr_expect(strstr(out, "      2  no CUDA driver on this machine\n"), "%s", out);
	cr_expect(strstr(out, "      1  gnuplot is not installed (apt-get install gnuplot-nox)\n"),
		  "%s", out);
	cr_expect(strstr(out, "      1  not selected (--filter)\n"), "%s", out);
	const char *last = "tests: 1 passed, 1 failed, 4 skipped\n";
	size_t len = strlen(out), ll = strlen(last);
	cr_expect(len >= ll && strcmp(out + len - ll, last) == 0, "the totals come last: %s", out);
	free(out);
}

Test(tap_summary, a_run_without_skips_says_so)
{
	char *out = tap_summary("TAP version 13\n1..2\nok - a::one (0.01s)\nok - a::two\n");
	cr_expect_str_eq(out, "skipped: none of 2 tests\ntests: 2 passed, 0 failed, 0 skipped\n");
	free(out);
}
