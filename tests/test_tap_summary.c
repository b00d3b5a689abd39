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
 * gpu_dist::two and gpu_variants::one (failing when FAKE_FAIL is set;
 * skipped for want of a GPU when FAKE_NOGPU is) as Criterion would, a
 * test its filter leaves out as skipped; without a GPU it ends with the
 * GPU tests' closing line, which counts both (unless
 * HARNESS_GPU_SKIP_LINE=0). */
static const char fake_gpu_tests[] =
	"#!/bin/sh\n"
	"f=none; tap=\n"
	"for a; do case $a in --filter=*) f=${a#--filter=};; --tap=*) tap=${a#--tap=};; esac; done\n"
	"prev=; for a; do [ \"$prev\" = --filter ] && f=$a; prev=$a; done\n"
	"echo \"gpus=${CUDA_VISIBLE_DEVICES-all} filter=$f\" >> calls.log\n"
	"case $f in 'gpu_dist/*') d=1 v=0;; '!(gpu_dist)/*' | 'gpu_variants/*') d=0 v=1;; none) d=1 v=1;;\n"
	"  *) d=0 v=0;; esac\n"
	"two='(1.00s)'; one='(0.10s)'\n"
	"[ -n \"${FAKE_NOGPU-}\" ] && two=' # SKIP no GPU ranks here: no CUDA driver' && one=' # SKIP no GPU here: no CUDA driver'\n"
	"{ echo 'TAP version 13'; echo '1..2'\n"
	"  if [ $d = 1 ]; then echo \"ok - gpu_dist::two $two\"; else echo 'ok - gpu_dist::two  # SKIP test was skipped'; fi\n"
	"  if [ $v = 0 ]; then echo 'ok - gpu_variants::one  # SKIP test was skipped'\n"
	"  elif [ -n \"${FAKE_FAIL-}\" ]; then echo 'not ok - gpu_variants::one (0.10s)'; else echo \"ok - gpu_variants::one $one\"; fi\n"
	"} > \"$tap\"\n"
	"[ -n \"${FAKE_NOGPU-}\" ] && [ \"${HARNESS_GPU_SKIP_LINE-}\" != 0 ] && echo 'GPU tests: 2 skipped: no CUDA driver' >&2\n"
	"[ $v = 1 ] && [ -n \"${FAKE_FAIL-}\" ] && exit 1; exit 0\n";

/* Runs tests/run-gpu-tests.sh in a scratch folder with the stand-in and
 * the environment env; returns its status, and the stand-in's calls, the
 * summary of the report it left and the script's output (stdout and
 * stderr) in calls, summary and out. */
static int run_gpu_tests_out(const char *env, const char *args, char *calls, size_t clen,
			     char *summary, size_t slen, char *out, size_t olen)
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
		 ">out.txt 2>&1",
		 dir, env, root, args);
	int st = system(cmd);
	snprintf(path, sizeof path, "%s/out.txt", dir);
	f = fopen(path, "r");
	cr_assert_not_null(f);
	size_t got = fread(out, 1, olen - 1, f);
	out[got] = '\0';
	fclose(f);
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

static int run_gpu_tests(const char *env, const char *args, char *calls, size_t clen, char *summary,
			 size_t slen)
{
	char out[4096];
	return run_gpu_tests_out(env, args, calls, clen, summary, slen, out, sizeof out);
}

/* The lines of text that start with prefix. */
static int lines_starting(const char *text, const char *prefix)
{
	int n = 0;
	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		n += strncmp(l, prefix, strlen(prefix)) == 0;
	return n;
}

/* Without a GPU, one closing line for both passes, counting the tests
 * skipped for want of one, not those a pass's filter left to the other. */
Test(tap_summary, gpu_tests_without_a_gpu_say_so_once)
{
	char calls[1024], sum[1024], out[4096];
	cr_assert_eq(run_gpu_tests_out("FAKE_NOGPU=1", "", calls, sizeof calls, sum, sizeof sum, out,
				       sizeof out), 0);
	cr_expect_eq(lines_starting(out, "GPU tests:"), 1, "%s", out);
	cr_expect(strstr(out, "\nGPU tests: 2 skipped: no CUDA driver\n"), "%s", out);
	cr_assert_eq(run_gpu_tests_out("FAKE_NOGPU=1", "--filter 'gpu_variants/*'", calls, sizeof calls,
				       sum, sizeof sum, out, sizeof out), 0);
	cr_expect_eq(lines_starting(out, "GPU tests:"), 1, "%s", out);
	cr_expect(strstr(out, "\nGPU tests: 1 skipped: no CUDA driver\n"), "%s", out);
	/* with a GPU nothing is skipped: no such line */
	cr_assert_eq(run_gpu_tests_out("", "", calls, sizeof calls, sum, sizeof sum, out, sizeof out), 0);
	cr_expect_eq(lines_starting(out, "GPU tests:"), 0, "%s", out);
}

/* Tests that expect an abort keep its message out of a passing run. */
Test(tap_summary, a_passing_run_prints_no_assertion_messages)
{
	char self[4096], cmd[8300], out[8192];
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	cr_assert_gt(n, 0);
	self[n] = '\0';
	/* a run of its own: nothing of this test's process in its environment
	 * but where to find programs and libraries */
	snprintf(cmd, sizeof cmd, "env -i PATH=\"$PATH\" LD_LIBRARY_PATH=\"$LD_LIBRARY_PATH\" %s --filter 'json_out/*_asserts' --jobs 1 2>&1",
		 self);
	FILE *p = popen(cmd, "r");
	cr_assert_not_null(p);
	size_t got = fread(out, 1, sizeof out - 1, p);
	out[got] = '\0';
	cr_assert_eq(pclose(p), 0, "%s", out);
	cr_expect(strstr(out, "Passing: 4 "), "%s", out);
	cr_expect_null(strstr(out, "Assertion"), "%s", out);
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
