/* test_tap_summary.c - make test's closing lines: skips counted and grouped by reason */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>

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

/* A stand-in for bin/tests-gpu: logs its GPUs and filter, and reports
 * gpu_dist::two and gpu_variants::one (failing when FAKE_FAIL is set) as
 * Criterion would, a test its filter leaves out as skipped. */
static const char fake_gpu_tests[] =
	"#!/bin/sh\n"
	"f=none; tap=\n"
	"for a; do case $a in --filter=*) f=${a#--filter=};; --tap=*) tap=${a#--tap=};; esac; done\n"
	"prev=; for a; do [ \"$prev\" = --filter ] && f=$a; prev=$a; done\n"
	"echo \"gpus=${CUDA_VISIBLE_DEVICES-all} filter=$f\" >> calls.log\n"
	"case $f in 'gpu_dist/*') d=1 v=0;; '!(gpu_dist)/*') d=0 v=1;; none) d=1 v=1;; *) d=0 v=0;; esac\n"
	"{ echo 'TAP version 13'; echo '1..2'\n"
	"  if [ $d = 1 ]; then echo 'ok - gpu_dist::two (1.00s)'; else echo 'ok - gpu_dist::two  # SKIP test was skipped'; fi\n"
	"  if [ $v = 0 ]; then echo 'ok - gpu_variants::one  # SKIP test was skipped'\n"
	"  elif [ -n \"${FAKE_FAIL-}\" ]; then echo 'not ok - gpu_variants::one (0.10s)'; else echo 'ok - gpu_variants::one (0.10s)'; fi\n"
	"} > \"$tap\"\n"
	"[ $v = 1 ] && [ -n \"${FAKE_FAIL-}\" ] && exit 1; exit 0\n";

/* Runs tests/run-gpu-tests.sh in a scratch folder with the stand-in and
 * the environment env; returns its status, and the stand-in's calls and the
 * summary of the report it left in calls and summary. */
static int run_gpu_tests(const char *env, const char *args, char *calls, size_t clen, char *summary,
			 size_t slen)
{
	char dir[] = "/tmp/run-gpu-tests-XXXXXX", path[256], cmd[8448], root[4096];
	cr_assert_not_null(mkdtemp(dir));
	cr_assert_not_null(getcwd(root, sizeof root));
	snprintf(path, sizeof path, "%s/fake", dir);
	FILE *f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs(fake_gpu_tests, f);
	fclose(f);
	cr_assert_eq(chmod(path, 0755), 0);
	snprintf(cmd, sizeof cmd,
		 "cd %s && env -u CUDA_VISIBLE_DEVICES %s %s/tests/run-gpu-tests.sh bin/harness ./fake %s "
		 ">/dev/null 2>&1",
		 dir, env, root, args);
	int st = system(cmd);
	snprintf(path, sizeof path, "%s/calls.log", dir);
	f = fopen(path, "r");
	cr_assert_not_null(f);
	size_t n = fread(calls, 1, clen - 1, f);
	calls[n] = '\0';
	fclose(f);
	snprintf(cmd, sizeof cmd, "awk -f %s/tests/tap-summary.awk %s/build/tests-gpu.tap", root, dir);
	FILE *p = popen(cmd, "r");
	cr_assert_not_null(p);
	n = fread(summary, 1, slen - 1, p);
	summary[n] = '\0';
	pclose(p);
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	cr_assert_eq(system(cmd), 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

Test(tap_summary, gpu_tests_see_one_gpu_but_the_distributed_ones_and_count_once)
{
	char calls[1024], sum[1024];
	cr_assert_eq(run_gpu_tests("", "", calls, sizeof calls, sum, sizeof sum), 0);
	cr_expect_str_eq(calls, "gpus=all filter=gpu_dist/*\ngpus=0 filter=!(gpu_dist)/*\n");
	cr_expect_str_eq(sum, "skipped: none of 2 tests\ntests: 2 passed, 0 failed, 0 skipped\n");

	cr_assert_eq(run_gpu_tests("CUDA_VISIBLE_DEVICES=2,3", "", calls, sizeof calls, sum, sizeof sum),
		     0);
	cr_expect_str_eq(calls, "gpus=2,3 filter=gpu_dist/*\ngpus=2 filter=!(gpu_dist)/*\n");
	/* set but empty: no GPU, in both passes */
	cr_assert_eq(run_gpu_tests("CUDA_VISIBLE_DEVICES=", "", calls, sizeof calls, sum, sizeof sum), 0);
	cr_expect_str_eq(calls, "gpus= filter=gpu_dist/*\ngpus= filter=!(gpu_dist)/*\n");

	/* a failure in the second pass is the status, and counted once */
	cr_expect_eq(run_gpu_tests("FAKE_FAIL=1", "", calls, sizeof calls, sum, sizeof sum), 1);
	cr_expect_str_eq(sum, "skipped: none of 2 tests\ntests: 1 passed, 1 failed, 0 skipped\n");

	/* the user's filter: one pass, every GPU, what it left out skipped */
	cr_assert_eq(run_gpu_tests("", "--filter 'x/*'", calls, sizeof calls, sum, sizeof sum), 0);
	cr_expect_str_eq(calls, "gpus=all filter=x/*\n");
	cr_expect(strstr(sum, "tests: 0 passed, 0 failed, 2 skipped\n"), "%s", sum);
}
