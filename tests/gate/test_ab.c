/* test_ab.c - harness ab as a CI job runs it: regressions caught, identical trees same, nothing left behind */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../harness/core/csv_table.h"
#include "../../harness/core/json_in.h"
#include "../cli_run.h"
#include "../tmp_dir.h"

/*
 * The timings of these tests are the test hook's wall-clock work
 * (HARNESS_TEST_WORK, testhook.h): 50 ms a call with a known 3 % spread,
 * so that they do not swing with how busy a shared machine is (its CPU
 * kernels' timings can, by a factor of two). The kernel still runs and is
 * validated in every run.
 */
#define AB_TEST_WORK "HARNESS_TEST_HOOKS=1 HARNESS_TEST_WORK=cpu-portable:50000"
#define AB_TEST_ROWS "--variant cpu-portable --n 16,32 --min-time 0.2 --max-time 0.4 --budget 60"

static char tmp[64];

static void make_tmp(void)
{
	tmp_dir_make(tmp, "ab");
}

static void remove_tmp(void)
{
	tmp_dir_remove(tmp);
}

TestSuite(ab, .init = make_tmp, .fini = remove_tmp, .timeout = 120);

/* The program's absolute path (the base trees below copy it). */
static const char *ab_bin_abs(void)
{
	static char path[4096];
	if (!realpath(cli_harness_bin(), path))
		cr_assert_fail("no %s", cli_harness_bin());
	return path;
}

/* Runs "ENV harness ab ARGS"; stdout into out (when given), stderr into err. */
static int ab_cli(const char *env, const char *args, char *out, size_t outlen, char *err,
		  size_t errlen)
{
	char cmd[8192], outfile[128];
	snprintf(outfile, sizeof outfile, "%s/stdout.txt", tmp);
	snprintf(cmd, sizeof cmd, "%s %s ab %s >%s", env, cli_harness_bin(), args, outfile);
	char inner[8200];
	snprintf(inner, sizeof inner, "sh -c '%s'", cmd);
	int rc = cli_run(inner, err, errlen);
	FILE *fp = fopen(outfile, "r");
	size_t len = fp && out ? fread(out, 1, outlen - 1, fp) : 0;
	if (out)
		out[len] = '\0';
	if (fp)
		fclose(fp);
	return rc;
}

static bool exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}

/* Counts the lines of text that start with prefix and contain word. */
static int count_rows(const char *text, const char *prefix, const char *word)
{
	int n = 0;
	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		size_t len = strcspn(l, "\n");
		char line[512];
		snprintf(line, sizeof line, "%.*s", (int)len, l);
		n += strncmp(line, prefix, strlen(prefix)) == 0 && strstr(line, word) != NULL;
	}
	return n;
}

/* A string member of a member of the sidecar of csv ("" when absent). */
static void sidecar_string(const char *csv, const char *obj, const char *key, char *buf, size_t len)
{
	char side[512], err[512];
	struct json_in_value v;
	snprintf(side, sizeof side, "%.*s.meta.json", (int)(strlen(csv) - 4), csv);
	cr_assert_eq(json_in_read_file(side, &v, err, sizeof err), 0, "%s", err);
	const struct json_in_value *s = json_in_member(json_in_member(&v, obj), key);
	snprintf(buf, len, "%s", s && s->type == JSON_IN_STRING ? s->string : "");
	json_in_free(&v);
}

/* The first number in the verdict file's column col, for every row. */
static void verdict_column(const char *dir, const char *col, double *v, size_t n)
{
	char path[256], e[512];
	struct csv_table t;
	snprintf(path, sizeof path, "%s/verdicts.csv", dir);
	cr_assert_eq(csv_table_read(path, &t, e, sizeof e), 0, "%s", e);
	cr_assert_eq(t.nrows, n);
	for (size_t r = 0; r < n; r++)
		cr_assert_eq(csv_table_double(&t, r, col, &v[r], e, sizeof e), 0, "%s", e);
	csv_table_free(&t);
}

/* The root of the tree the program under test belongs to (above its bin/). */
static void tree_root(char *root, size_t len)
{
	snprintf(root, len, "%s", ab_bin_abs());
	for (int up = 0; up < 2; up++)
		*strrchr(root, '/') = '\0';
}

/* Whether that tree is the top of a git work tree with a commit checked
 * out, as --base needs: a copy of the tree without .git, or one unpacked
 * inside some other checkout, is not. */
static bool in_git_checkout(void)
{
	char root[4096], cmd[8400], top[4096] = "", real[4096];
	tree_root(root, sizeof root);
	snprintf(cmd, sizeof cmd, "cd '%s' && git rev-parse --verify -q 'HEAD^{commit}' >/dev/null 2>&1 && git rev-parse --show-toplevel 2>/dev/null",
		 root);
	FILE *p = popen(cmd, "r");
	bool got = p && fgets(top, sizeof top, p);
	if (p)
		pclose(p);
	top[strcspn(top, "\n")] = '\0';
	return got && realpath(top, real) && strcmp(real, root) == 0;
}

#define NO_GIT_TREE "this tree is not a git work tree with a commit (a copy or an unpacked archive): --base needs one"

/* The tests that build a revision in the checkout share its build/ab and
 * its worktrees: every run of ab --base removes the worktrees of runs that
 * died, so one test's planted stale worktree could be removed by another
 * test's run while git is still writing it. They take turns: the lock is
 * held until the test's process ends (Criterion runs each test in a
 * process of its own, several at once). */
static void ab_take_turn(void)
{
	char root[4096], path[4200];
	tree_root(root, sizeof root);
	snprintf(path, sizeof path, "%s/build/ab", root);
	mkdir(path, 0755);
	snprintf(path, sizeof path, "%s/build/ab/tests.lock", root);
	int fd = open(path, O_CREAT | O_RDWR, 0644);
	cr_assert(fd >= 0 && flock(fd, LOCK_EX) == 0, "cannot lock %s: %s", path, strerror(errno));
}

Test(ab, a_planted_slowdown_in_the_working_tree_is_a_regression)
{
	char args[1024], out[16384], err[8192], path[256], hook[128];
	snprintf(args, sizeof args, "--base-bin %s %s --out-dir %s/ab", cli_harness_bin(), AB_TEST_ROWS,
		 tmp);
	int rc = ab_cli(AB_TEST_WORK " HARNESS_TEST_SLOWDOWN=cpu-portable:30", args, out, sizeof out,
			err, sizeof err);
	cr_assert_eq(rc, 1, "exit %d\n%s\n%s", rc, out, err);
	cr_assert_eq(count_rows(out, "cpu-portable", "SLOWER"), 2, "%s", out);
	cr_assert(strstr(out, "(2 regressions)"), "%s", out);
	cr_assert(strstr(out, "order ABBA"), "%s", out);

	/* the slowdown is NEW's only: 1 / 1.3 of BASE's rate, as the rounds'
	 * paired ratios judge it (a load on the machine that comes and goes
	 * between rounds weighs on both sides of each) */
	snprintf(path, sizeof path, "%s/ab/base.csv", tmp);
	sidecar_string(path, "timing", "test_hook_slowdown", hook, sizeof hook);
	cr_assert_str_empty(hook, "BASE ran with the planted slowdown");
	snprintf(path, sizeof path, "%s/ab/new.csv", tmp);
	sidecar_string(path, "timing", "test_hook_slowdown", hook, sizeof hook);
	cr_assert_str_eq(hook, "cpu-portable:30");
	double ratio[2], res[2];
	snprintf(path, sizeof path, "%s/ab", tmp);
	verdict_column(path, "ratio", ratio, 2);
	verdict_column(path, "resolution_pct", res, 2);
	for (size_t r = 0; r < 2; r++) {
		/* 1 / 1.3 within the row's own interval, which is narrow */
		cr_expect_leq(fabs(log(ratio[r] * 1.3)), log1p(res[r] / 100), "row %zu: new/base %g +- %g %%",
			      r, ratio[r], res[r]);
		cr_expect(ratio[r] < 0.85 && res[r] < 20, "row %zu: new/base %g +- %g %%", r, ratio[r],
			  res[r]);
	}
}

Test(ab, an_identical_tree_is_the_same_everywhere)
{
	char args[1024], out[16384], err[8192], path[256];
	/* a 10 % threshold: the CPU tests run side by side, and a row of a
	 * few microseconds on a loaded host resolves 4 to 5 % in the budget,
	 * which a 5 % threshold leaves undecided (as it should) */
	snprintf(args, sizeof args, "--base-bin %s %s --threshold 10 --rounds 2 --out-dir %s/ab",
		 cli_harness_bin(), AB_TEST_ROWS, tmp);
	int rc = ab_cli(AB_TEST_WORK, args, out, sizeof out, err, sizeof err);
	cr_assert_eq(rc, 0, "exit %d\n%s\n%s", rc, out, err);
	cr_assert_eq(count_rows(out, "cpu-portable", " same"), 2, "%s", out);
	cr_assert(strstr(out, "0 faster, 2 same, 0 slower (0 regressions), 0 inconclusive, "
			      "0 failed in NEW, 0 not compared"), "%s", out);
	cr_assert(strstr(out, "verdict: pass (exit 0)"), "%s", out);
	/* two rounds cannot tell 10 % (Student's t of one degree of freedom is
	 * 64 at 99 %): rounds were added */
	cr_assert(strstr(out, "added until every row was decided"), "%s", out);
	/* the pooled files are results files compare reads (by their noise
	 * alone, a few % here: decided at a wider threshold) */
	snprintf(args, sizeof args, "%s compare %s/ab/base.csv %s/ab/new.csv --threshold 20",
		 cli_harness_bin(), tmp, tmp);
	cr_assert_eq(cli_run(args, err, sizeof err), 0, "%s", err);
	for (int k = 1; k <= 2; k++) {
		snprintf(path, sizeof path, "%s/ab/rounds/base-%d.csv", tmp, k);
		cr_assert(exists(path), "%s", path);
		snprintf(path, sizeof path, "%s/ab/rounds/new-%d.meta.json", tmp, k);
		cr_assert(exists(path), "%s", path);
	}
}

/* A slowdown of 0.2 % against a threshold of 0: a slowdown, so never "no
 * regression", and too small to be told from none within the budget
 * (deciding it needs a resolution below 0.2 %; an idle 2-core machine
 * reaches 0.84 % in 15 rounds, 30 s, and got below 0.5 % in 28 rounds,
 * 60 s, so a planted 0.5 % was decided there). Rounds are added until the budget ends, and
 * the rows stay inconclusive: exit 3, each row's resolution in the verdict
 * file. The budget leaves room for a third round on a loaded host too: a
 * run of these rows takes 1 s alone on 2 cores and took 7 s among the CPU
 * tests on a host of 64 cores and four GPUs, and 9 s beside another make
 * test. */
Test(ab, the_budget_ends_with_rows_undecided)
{
	/* err holds a few lines a round, and an idle host runs some thirty */
	char args[1024], out[16384], err[65536], dir[128];
	snprintf(dir, sizeof dir, "%s/ab", tmp);
	snprintf(args, sizeof args, "--base-bin %s --variant cpu-portable --n 16,32 --min-time 0.2 "
		 "--max-time 0.4 --threshold 0 --min-change 0 --rounds 2 --budget 60 --out-dir %s",
		 cli_harness_bin(), dir);
	time_t t0 = time(NULL);
	int rc = ab_cli(AB_TEST_WORK " HARNESS_TEST_SLOWDOWN=cpu-portable:0.2", args, out, sizeof out,
			err, sizeof err);
	cr_assert_eq(rc, 3, "exit %d\n%s\n%s", rc, out, err);
	cr_expect_lt(time(NULL) - t0, 100, "the 60 s budget was kept (within a round or so)");
	cr_assert_eq(count_rows(out, "cpu-portable", "inconclusive"), 2, "%s", out);
	cr_assert(strstr(out, "still inconclusive when the 60 s budget ended"), "%s", out);
	cr_assert(strstr(out, "verdict: NOT A PASS (exit 3)"), "%s", out);
	cr_assert(strstr(err, "2 rows inconclusive") && strstr(err, "exit 3"), "%s", err);
	/* rounds were added past --rounds 2 */
	cr_assert(strstr(err, "inconclusive after 2 rounds: adding round 3"), "%s", err);
	double res[2], rounds[2];
	verdict_column(dir, "resolution_pct", res, 2);
	verdict_column(dir, "rounds", rounds, 2);
	for (int r = 0; r < 2; r++) {
		cr_expect(res[r] > 0.2 && isfinite(res[r]), "row %d: resolution %g %%", r, res[r]);
		cr_expect(rounds[r] > 2 && rounds[r] < 100, "row %d: %g rounds, more than --rounds 2", r,
			  rounds[r]);
	}

	/* allowed, the same rows pass with what was measured */
	snprintf(args, sizeof args, "--base-bin %s --variant cpu-portable --n 16,32 --min-time 0.2 "
		 "--max-time 0.4 --threshold 0 --min-change 0 --rounds 3 --budget 0 --allow-inconclusive --out-dir %s2",
		 cli_harness_bin(), dir);
	rc = ab_cli(AB_TEST_WORK " HARNESS_TEST_SLOWDOWN=cpu-portable:0.2", args, out, sizeof out,
		    err, sizeof err);
	cr_assert_eq(rc, 0, "exit %d\n%s\n%s", rc, out, err);
	cr_assert(strstr(out, "2 inconclusive accepted (--allow-inconclusive)"), "%s", out);
}

/* Fewer starting rounds than the deciding three: after --rounds 1 the
 * undecided rows get two rounds at once (up to 3), then one at a time,
 * within the budget (a round takes some 2 s); with no budget, none. */
Test(ab, one_starting_round_adds_up_to_the_deciding_three)
{
	char args[1024], out[16384], err[65536], dir[128];
	snprintf(dir, sizeof dir, "%s/ab", tmp);
	snprintf(args, sizeof args, "--base-bin %s --variant cpu-portable --n 16,32 --min-time 0.2 "
		 "--max-time 0.4 --threshold 0 --min-change 0 --rounds 1 --budget 30 --out-dir %s",
		 cli_harness_bin(), dir);
	int rc = ab_cli(AB_TEST_WORK " HARNESS_TEST_SLOWDOWN=cpu-portable:0.2", args, out, sizeof out,
			err, sizeof err);
	cr_assert_eq(rc, 3, "exit %d\n%s\n%s", rc, out, err);
	cr_expect(strstr(err, "2 rows inconclusive after 1 round: adding rounds up to 3 "),
		  "two rounds at once after the first: %s", err);
	cr_expect_null(strstr(err, "after 2 rounds"), "a decision after round 2: %s", err);
	cr_expect(strstr(err, "2 rows inconclusive after 3 rounds: adding round 4 "),
		  "one round at a time from the third: %s", err);
	double rounds[2];
	verdict_column(dir, "rounds", rounds, 2);
	for (int r = 0; r < 2; r++)
		cr_expect_geq(rounds[r], 3, "row %d: %g rounds", r, rounds[r]);

	/* no budget: the one round is all */
	snprintf(args, sizeof args, "--base-bin %s --variant cpu-portable --n 16,32 --min-time 0.2 "
		 "--max-time 0.4 --threshold 0 --min-change 0 --rounds 1 --budget 0 --out-dir %s2",
		 cli_harness_bin(), dir);
	rc = ab_cli(AB_TEST_WORK " HARNESS_TEST_SLOWDOWN=cpu-portable:0.2", args, out, sizeof out,
		    err, sizeof err);
	cr_assert_eq(rc, 3, "exit %d\n%s\n%s", rc, out, err);
	cr_expect(strstr(out, "2 rows still inconclusive when the 0 s budget ended"), "%s", out);
	cr_expect_null(strstr(err, "adding"), "%s", err);
	snprintf(dir + strlen(dir), sizeof dir - strlen(dir), "2");
	verdict_column(dir, "rounds", rounds, 2);
	cr_expect(rounds[0] == 1 && rounds[1] == 1, "%g and %g rounds, not 1", rounds[0], rounds[1]);
}

/* Whether this build can run variant name here (harness list says). */
static bool can_run_here(const char *name)
{
	char cmd[512];
	snprintf(cmd, sizeof cmd, "%s list --variant %s | grep -q '^%s .* yes '", cli_harness_bin(),
		 name, name);
	return system(cmd) == 0;
}

/* Variants NEW's runs skipped as unable to run here were asked for and
 * not measured: exit 3, unless --allow-missing. */
Test(ab, variants_that_cannot_run_here_are_not_a_pass)
{
	if (can_run_here("auto"))
		cr_skip_test("'auto' runs here, so nothing is skipped: this test needs a machine without a GPU");
	char args[1024], out[16384], err[8192];
	snprintf(args, sizeof args, "--base-bin %s --variant cpu-portable,auto --n 16 --min-time 0.2 "
		 "--max-time 0.4 --threshold 30 --rounds 1 --budget 0 --out-dir %s/ab", cli_harness_bin(), tmp);
	int rc = ab_cli(AB_TEST_WORK, args, out, sizeof out, err, sizeof err);
	cr_assert_eq(rc, 3, "exit %d\n%s\n%s", rc, out, err);
	cr_assert(strstr(out, "NEW's run skipped 1 variant that cannot run here") && strstr(out, "auto"),
		  "%s", out);
	cr_assert(strstr(err, "NEW's run skipped") && strstr(err, "exit 3"), "%s", err);
	snprintf(args, sizeof args, "--base-bin %s --variant cpu-portable,auto --n 16 --min-time 0.2 "
		 "--max-time 0.4 --threshold 30 --rounds 1 --budget 0 --allow-missing --out-dir %s/ab2",
		 cli_harness_bin(), tmp);
	rc = ab_cli(AB_TEST_WORK, args, out, sizeof out, err, sizeof err);
	cr_assert_eq(rc, 0, "exit %d\n%s\n%s", rc, out, err);
}

/* A suite none of whose rows can run here: the runs refuse it, ab exits 2
 * with the reason, and leaves nothing. */
Test(ab, a_suite_that_cannot_run_here_is_refused)
{
	if (can_run_here("unrolled-u4"))
		cr_skip_test("fig31-5 runs here: this test needs a machine without a GPU");
	char args[1024], out[16384], err[8192], dir[128];
	snprintf(dir, sizeof dir, "%s/ab", tmp);
	snprintf(args, sizeof args, "--base-bin %s --suite fig31-5 --out-dir %s", cli_harness_bin(), dir);
	int rc = ab_cli("", args, out, sizeof out, err, sizeof err);
	cr_assert_eq(rc, 2, "exit %d\n%s\n%s", rc, out, err);
	cr_assert(strstr(err, "suite fig31-5: nothing of it can run here"), "%s", err);
	cr_assert(strstr(err, "refused the rows"), "%s", err);
	cr_assert_not(exists(dir), "%s was left", dir);
}

/* User errors: one line, exit 2, before anything is built or written. */
Test(ab, bad_input_is_refused_before_building)
{
	static const struct {
		const char *args, *mention;
	} bad[] = {
		{ "--variant cpu-portable", "--base" },
		{ "--base HEAD --base-bin /bin/true --n 16", "one of" },
		{ "--base-bin /nonexistent/harness --n 16", "/nonexistent/harness" },
		{ "--base HEAD --variant nosuch", "nosuch" },
		{ "--base HEAD --n 16 --out x.csv", "--out-dir" },
		{ "--base HEAD --suite all", "one suite" },
		{ "--base HEAD --suite nosuch", "nosuch" },
		{ "--base HEAD --rounds 0 --n 16", "--rounds" },
		{ "--base HEAD --threshold abc --n 16", "--threshold" },
		{ "--base HEAD --budget -1 --n 16", "--budget" },
		{ "--base HEAD --budget", "--budget" },
		{ "--base HEAD --min-change x --n 16", "--min-change" },
		{ "--base HEAD --base-commit abc --n 16", "--base-tree" },
		{ "--base HEAD sph --column 12345", "12345" },
		{ "--base HEAD --n 16 --out-dir /", "not empty" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		char err[4096];
		time_t t0 = time(NULL);
		int rc = ab_cli("", bad[i].args, NULL, 0, err, sizeof err);
		cr_expect_eq(rc, 2, "'%s': exit %d: %s", bad[i].args, rc, err);
		cr_expect(strncmp(err, "harness: ab: ", 13) == 0 && strstr(err, bad[i].mention),
			  "'%s' lacks '%s': %s", bad[i].args, bad[i].mention, err);
		cr_expect(strchr(err, '\n') == strrchr(err, '\n'), "'%s': one line: %s", bad[i].args, err);
		cr_expect_leq(time(NULL) - t0, 5, "'%s' took a build's time", bad[i].args);
	}
}

/* git worktree list, for comparing before and after. */
static void worktrees(char *buf, size_t len)
{
	FILE *p = popen("git worktree list --porcelain 2>/dev/null | grep '^worktree '", "r");
	size_t got = p ? fread(buf, 1, len - 1, p) : 0;
	buf[got] = '\0';
	if (p)
		pclose(p);
}

/* Checks that every worktree in after but not in before belongs to a live
 * process (another test's run): none was left by a run that ended. */
static void no_worktree_left(const char *before, const char *after)
{
	for (const char *l = after; *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : l + strlen(l)) {
		char line[4200];
		snprintf(line, sizeof line, "%.*s", (int)strcspn(l, "\n"), l);
		if (!line[0] || strstr(before, line))
			continue;
		const char *wt = strstr(line, "/build/ab/wt-");
		cr_assert(wt && kill((pid_t)atol(wt + 13), 0) == 0, "left behind: %s", line);
	}
}

Test(ab, a_bad_revision_exits_2_and_leaves_nothing)
{
	if (!in_git_checkout())
		cr_skip_test(NO_GIT_TREE);
	ab_take_turn();
	char args[512], err[4096], before[8192], after[8192], dir[128];
	worktrees(before, sizeof before);
	snprintf(dir, sizeof dir, "%s/ab", tmp);
	snprintf(args, sizeof args, "--base no-such-revision-13 %s --out-dir %s", AB_TEST_ROWS, dir);
	int rc = ab_cli("", args, NULL, 0, err, sizeof err);
	cr_assert_eq(rc, 2, "exit %d: %s", rc, err);
	cr_assert(strstr(err, "no-such-revision-13") && strstr(err, "not a commit"), "%s", err);
	worktrees(after, sizeof after);
	no_worktree_left(before, after);
	cr_assert_not(exists(dir), "%s was created", dir);
}

/* A copy of the program in DIR/bin/harness, as in a tree without .git. */
static void copy_program(const char *dir)
{
	char cmd[8400];
	snprintf(cmd, sizeof cmd, "mkdir -p '%s/bin' && cp '%s' '%s/bin/harness'", dir, ab_bin_abs(), dir);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
}

/* --base in a tree that is no git work tree of its own: one line, exit 2,
 * nothing built. Inside another checkout, that checkout's commit would
 * otherwise be built in place of the harness. */
Test(ab, base_needs_a_git_work_tree)
{
	if (system("git --version >/dev/null 2>&1") != 0)
		cr_skip_test("git is not installed");
	char outer[128], tree[160], cmd[1024], err[4096];
	snprintf(outer, sizeof outer, "%s/outer", tmp);
	snprintf(tree, sizeof tree, "%s/tree", outer);
	snprintf(cmd, sizeof cmd, "mkdir -p %s && cd %s && git init -q && echo x > f && git add f && "
		 "git -c user.name=t -c user.email=t@t commit -q -m x", outer, outer);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
	copy_program(tree);
	const char *rows = "--variant cpu-portable --n 16 --min-time 0.01 --max-time 0.02";
	snprintf(cmd, sizeof cmd, "%s/bin/harness ab --base HEAD %s --out-dir %s/ab", tree, rows, tmp);
	int rc = cli_run(cmd, err, sizeof err);
	cr_expect_eq(rc, 2, "exit %d: %s", rc, err);
	cr_expect(strncmp(err, "harness: ab: --base needs a git work tree", 41) == 0, "%s", err);
	cr_expect(strstr(err, tree) && strstr(err, "--base-tree"), "%s", err);
	cr_expect(strchr(err, '\n') == strrchr(err, '\n'), "one line: %s", err);

	/* the same tree with no checkout above it (unless /tmp is in one) */
	snprintf(cmd, sizeof cmd, "rm -rf %s/.git && cd %s && ! git rev-parse --git-dir >/dev/null 2>&1",
		 outer, tree);
	if (system(cmd) == 0) {
		snprintf(cmd, sizeof cmd, "%s/bin/harness ab --base HEAD %s --out-dir %s/ab", tree, rows, tmp);
		rc = cli_run(cmd, err, sizeof err);
		cr_expect_eq(rc, 2, "exit %d: %s", rc, err);
		cr_expect(strncmp(err, "harness: ab: --base needs a git work tree", 41) == 0, "%s", err);
		cr_expect(strchr(err, '\n') == strrchr(err, '\n'), "one line: %s", err);
	}
}

/* A base tree whose Makefile fails, or copies this program and records
 * what make was told. */
static void write_tree(const char *dir, bool fail, const char *commit)
{
	char path[256];
	mkdir(dir, 0777);
	snprintf(path, sizeof path, "%s/Makefile", dir);
	FILE *fp = fopen(path, "w");
	cr_assert_not_null(fp);
	if (fail)
		fputs("bin/harness:\n\t@echo 'kernels/x.cu:1: planted build error' >&2; exit 1\n", fp);
	else
		fprintf(fp, "bin/harness:\n\tmkdir -p bin && cp %s bin/harness\n"
			    "\t@echo 'CC=$(CC) GIT_COMMIT=$(GIT_COMMIT) NVCC=$(NVCC)' > told.txt\n",
			ab_bin_abs());
	fclose(fp);
	if (commit) {
		snprintf(path, sizeof path, "%s/.harness-commit", dir);
		fp = fopen(path, "w");
		fprintf(fp, "%s\n", commit);
		fclose(fp);
	}
}

Test(ab, a_failed_build_says_so_and_exits_2)
{
	char tree[128], args[512], err[8192], dir[128];
	snprintf(tree, sizeof tree, "%s/tree", tmp);
	snprintf(dir, sizeof dir, "%s/ab", tmp);
	write_tree(tree, true, NULL);
	snprintf(args, sizeof args, "--base-tree %s %s --out-dir %s", tree, AB_TEST_ROWS, dir);
	int rc = ab_cli("", args, NULL, 0, err, sizeof err);
	cr_assert_eq(rc, 2, "exit %d: %s", rc, err);
	cr_assert(strstr(err, "planted build error"), "the log's tail: %s", err);
	cr_assert(strstr(err, "harness: ab: building --base-tree") && strstr(err, "failed"), "%s", err);
	cr_assert_not(exists(dir), "%s was created", dir);
	const char *log = strstr(err, "the log: ");
	cr_assert_not_null(log, "%s", err);
	char logpath[1024];
	snprintf(logpath, sizeof logpath, "%.*s", (int)strcspn(log + 9, "\n"), log + 9);
	cr_assert(exists(logpath), "%s", logpath);
	unlink(logpath); /* the log of a planted failure: nobody will read it */
}

Test(ab, a_base_tree_is_built_with_this_builds_settings_and_named_by_its_commit)
{
	const char *sha = "feedfacefeedfacefeedfacefeedfacefeedface";
	char tree[128], args[1024], out[16384], err[8192], path[256], told[512] = "", buf[128];
	snprintf(tree, sizeof tree, "%s/tree", tmp);
	write_tree(tree, false, sha);
	snprintf(args, sizeof args, "--base-tree %s %s --rounds 1 --budget 0 --threshold 30 --out-dir %s/ab",
		 tree, AB_TEST_ROWS, tmp);
	int rc = ab_cli(AB_TEST_WORK, args, out, sizeof out, err, sizeof err);
	cr_assert_eq(rc, 0, "exit %d\n%s\n%s", rc, out, err);
	snprintf(path, sizeof path, "%s/told.txt", tree);
	FILE *fp = fopen(path, "r");
	cr_assert_not_null(fp);
	cr_assert_not_null(fgets(told, sizeof told, fp));
	fclose(fp);
	cr_assert(strstr(told, "GIT_COMMIT=feedface") && strstr(told, "CC=") && strstr(told, "NVCC="),
		  "%s", told);
	snprintf(path, sizeof path, "%s/ab/base.csv", tmp);
	sidecar_string(path, "ab", "git_commit", buf, sizeof buf);
	cr_assert_str_eq(buf, sha);
	sidecar_string(path, "ab", "side", buf, sizeof buf);
	cr_assert_str_eq(buf, "base");
	cr_assert(strstr(out, "1 round in the order AB ("), "%s", out);
}

/* Starts "harness ab ARGS" with env (NAME=value words) in the background. */
static pid_t ab_start(const char *env, const char *args)
{
	char line[4096], errfile[128];
	snprintf(errfile, sizeof errfile, "%s/stderr.txt", tmp);
	snprintf(line, sizeof line, "ab %s", args);
	return cli_start(env, line, errfile);
}

/* Waits up to limit seconds for path to appear. */
static bool wait_for(const char *path, int limit)
{
	for (int i = 0; i < 10 * limit; i++) {
		if (exists(path))
			return true;
		usleep(100000);
	}
	return false;
}

/* Interrupts pid, checks it ended by SIGINT, that dir is gone, and that
 * it said in one line what it was doing (mention) and that it kept
 * nothing. */
static void interrupt_and_check(pid_t pid, const char *dir, const char *mention)
{
	int st;
	char errfile[128], e[4096] = "";
	cr_assert_eq(kill(pid, SIGINT), 0);
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert(WIFSIGNALED(st) && WTERMSIG(st) == SIGINT, "status %#x", st);
	cr_assert_not(exists(dir), "%s is still there", dir);
	snprintf(errfile, sizeof errfile, "%s/stderr.txt", tmp);
	FILE *fp = fopen(errfile, "r");
	cr_assert_not_null(fp);
	size_t got = fread(e, 1, sizeof e - 1, fp);
	e[got] = '\0';
	fclose(fp);
	const char *line = strstr(e, "harness: ab: interrupted by SIGINT ");
	cr_assert(line && strstr(line, mention) && strstr(line, "nothing kept in") &&
		  strchr(line, '\n') == line + strlen(line) - 1, "%s", e);
}

Test(ab, an_interrupted_measurement_leaves_no_results)
{
	char args[1024], dir[128], first[256];
	snprintf(dir, sizeof dir, "%s/ab", tmp);
	snprintf(first, sizeof first, "%s/rounds/base-1.csv", dir);
	snprintf(args, sizeof args, "--base-bin %s --variant cpu-portable --n 16,32,64 --min-time 0.5 --max-time 1 --rounds 4 --out-dir %s",
		 cli_harness_bin(), dir);
	pid_t pid = ab_start(AB_TEST_WORK, args);
	cr_assert(wait_for(first, 60), "the first run never finished");
	interrupt_and_check(pid, dir, "in round ");
}

/* The one line of `git ...` run in the tree's root, into out. */
static void git_line(const char *args, char *out, size_t len)
{
	char root[4096], cmd[8400];
	tree_root(root, sizeof root);
	snprintf(cmd, sizeof cmd, "cd '%s' && git %s", root, args);
	FILE *p = popen(cmd, "r");
	cr_assert_not_null(p);
	bool got = fgets(out, (int)len, p) != NULL;
	cr_assert_eq(pclose(p), 0, "git %s failed", args);
	cr_assert(got, "git %s printed nothing", args);
	out[strcspn(out, "\n")] = '\0';
}

/* Whether build/ab holds an entry (folder or log) of commit sha. */
static bool cache_has(const char *sha)
{
	char root[4096], path[4200];
	tree_root(root, sizeof root);
	snprintf(path, sizeof path, "%s/build/ab", root);
	DIR *d = opendir(path);
	bool found = false;
	for (struct dirent *e; d && (e = readdir(d)) && !found;)
		found = strncmp(e->d_name, sha, strlen(sha)) == 0 && !strstr(e->d_name, ".lock");
	if (d)
		closedir(d);
	return found;
}

Test(ab, an_interrupted_build_leaves_no_worktree, .timeout = 300)
{
	if (!in_git_checkout())
		cr_skip_test(NO_GIT_TREE);
	ab_take_turn();
	char args[512], dir[128], wt[4200], root[4096], before[8192], after[8192];
	snprintf(dir, sizeof dir, "%s/ab", tmp);
	cr_assert_not_null(getcwd(root, sizeof root));
	worktrees(before, sizeof before);
	/* a commit of HEAD's tree that no run has built: nothing of it is in
	 * the cache, and an interrupted build must leave nothing there */
	char sha[128];
	git_line("commit-tree -p HEAD -m 'an unbuilt commit' 'HEAD^{tree}'", sha, sizeof sha);
	cr_assert_not(cache_has(sha));
	snprintf(args, sizeof args, "--base %s %s --out-dir %s", sha, AB_TEST_ROWS, dir);
	pid_t pid = ab_start("", args);
	snprintf(wt, sizeof wt, "%s/build/ab/wt-%ld/Makefile", root, (long)pid);
	/* another test may hold the build lock for a whole build first */
	cr_assert(wait_for(wt, 240), "no worktree %s appeared", wt);
	interrupt_and_check(pid, dir, "while building the base");
	cr_assert_not(cache_has(sha), "an interrupted build left a cache entry of %s in build/ab", sha);
	*strrchr(wt, '/') = '\0';
	cr_assert_not(exists(wt), "%s is still there", wt);
	worktrees(after, sizeof after);
	no_worktree_left(before, after);
	cr_assert_null(strstr(after, wt), "%s is still registered", wt);
}

/* The real thing, once per commit: REV built in a worktree, cached, the
 * worktree removed, and one left by a killed run cleaned up. */
Test(ab, a_revision_is_built_once_and_names_its_commit, .timeout = 600)
{
	if (!in_git_checkout())
		cr_skip_test(NO_GIT_TREE);
	ab_take_turn();
	char args[1024], out[16384], err[16384], root[4096], stale[4200], cmd[8600], head[64] = "";
	char path[256], buf[128];
	cr_assert_not_null(getcwd(root, sizeof root));
	FILE *p = popen("git rev-parse HEAD", "r");
	cr_assert(p && fgets(head, sizeof head, p));
	pclose(p);
	head[strcspn(head, "\n")] = '\0';

	/* a worktree of a run that was killed: its pid is dead */
	pid_t dead = fork();
	if (dead == 0)
		_exit(0);
	waitpid(dead, NULL, 0);
	snprintf(stale, sizeof stale, "%s/build/ab/wt-%ld", root, (long)dead);
	snprintf(cmd, sizeof cmd, "mkdir -p build/ab && git worktree add -q --detach %s HEAD", stale);
	cr_assert_eq(system(cmd), 0);

	snprintf(args, sizeof args, "--base HEAD --variant cpu-portable --n 16 --min-time 0.05 --max-time 0.1 --rounds 1 --budget 0 --out-dir %s/ab",
		 tmp);
	int rc = ab_cli("", args, out, sizeof out, err, sizeof err);
	cr_assert(rc == 0 || rc == 1 || rc == 3, "exit %d\n%s\n%s", rc, out, err);
	cr_assert_not(exists(stale), "the stale worktree %s is still there", stale);
	cr_assert(strstr(err, "left by a run that was killed"), "%s", err);
	snprintf(path, sizeof path, "%s/ab/base.csv", tmp);
	sidecar_string(path, "ab", "git_commit", buf, sizeof buf);
	cr_assert_str_eq(buf, head);
	sidecar_string(path, "build", "git_commit", buf, sizeof buf);
	cr_assert_str_eq(buf, head, "the base binary knows its commit");

	/* built once: the second run takes the cached binary */
	snprintf(args, sizeof args, "--base HEAD --variant cpu-portable --n 16 --min-time 0.05 --max-time 0.1 --rounds 1 --budget 0 --out-dir %s/ab2",
		 tmp);
	rc = ab_cli("", args, out, sizeof out, err, sizeof err);
	cr_assert(rc == 0 || rc == 1 || rc == 3, "exit %d\n%s\n%s", rc, out, err);
	cr_assert(strstr(err, "built before"), "%s", err);
	DIR *d = opendir("build/ab");
	struct dirent *e;
	while (d && (e = readdir(d)))
		cr_expect(strncmp(e->d_name, "wt-", 3) != 0 || atol(e->d_name + 3) == 0 ||
			  kill((pid_t)atol(e->d_name + 3), 0) == 0,
			  "build/ab/%s: a dead run's worktree", e->d_name);
	if (d)
		closedir(d);
}

/* SPH rows go through the same runs and pooling; whether compare reads
 * them is compare's business (exit 2 with its message until it does).
 * A small column (8 x 8 x 8, ~0.1 ms a step) so that the 50 ms of fixed
 * work is the step (a window of one step: the work is a timed call's):
 * on 16,128 particles the real step, slowed by the
 * tests running beside it on a 2-core machine, made two identical builds
 * differ by 26 % (9.7 against 12.3 steps/s). */
Test(ab, sph_rows_are_run_and_pooled)
{
	char args[1024], out[16384], err[8192], path[256];
	snprintf(args, sizeof args, "--base-bin %s --rounds 3 --budget 0 --threshold 30 --out-dir %s/ab sph --variant sph-cpu-grid --column 8x8x8@2 --warm-steps 1 --window-steps 1 --min-time 0.2 --max-time 0.4",
		 cli_harness_bin(), tmp);
	int rc = ab_cli("HARNESS_TEST_HOOKS=1 HARNESS_TEST_WORK=sph-cpu-grid:50000", args, out,
			sizeof out, err, sizeof err);
	cr_assert(rc == 0 || rc == 3 || (rc == 2 && strstr(err, "harness: ") && strstr(out, "A/B:")),
		  "exit %d\n%s\n%s", rc, out, err);
	for (int s = 0; s < 2; s++) {
		struct csv_table t;
		char e[512];
		double steps;
		long long valid;
		snprintf(path, sizeof path, "%s/ab/%s.csv", tmp, s ? "new" : "base");
		cr_assert_eq(csv_table_read(path, &t, e, sizeof e), 0, "%s", e);
		cr_assert_eq(t.nrows, 1);
		cr_assert_eq(csv_table_long(&t, 0, "valid", &valid, e, sizeof e), 0, "%s", e);
		cr_assert_eq(valid, 1);
		cr_assert_eq(csv_table_double(&t, 0, "steps_per_s", &steps, e, sizeof e), 0, "%s", e);
		cr_assert(steps > 0 && steps < 20, "the 50 ms of work a step: %g steps/s", steps);
		csv_table_free(&t);
	}
	/* decided, or too noisy to tell on a busy machine: said so either way */
	if (rc == 0)
		cr_assert_eq(count_rows(out, "sph-cpu-grid", " same"), 1, "%s", out);
	if (rc == 3)
		cr_assert_eq(count_rows(out, "sph-cpu-grid", " inconclusive"), 1, "%s", out);
}
