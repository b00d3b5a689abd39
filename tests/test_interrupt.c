/* test_interrupt.c - Ctrl-C or SIGTERM during run, suites and sph run: one line, the finished rows kept, marked incomplete */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../harness/core/csv_table.h"
#include "../harness/core/interrupt.h"
#include "../harness/core/json_in.h"
#include "../harness/core/keep.h"
#include "../harness/core/results.h"
#include "cli_run.h"
#include "tmp_dir.h"

static char tmp[64];

static void make_tmp(void)
{
	tmp_dir_make(tmp, "interrupt");
}

static void remove_tmp(void)
{
	tmp_dir_remove(tmp);
}

TestSuite(interrupt, .init = make_tmp, .fini = remove_tmp, .timeout = 120);

/* Short timings: the rows are small and many tests run at once. */
#define FAST "--min-time 0.02 --max-time 0.1"
/* The hook that interrupts once ROWS rows are finished (testhook.h). */
#define HOOK(rows, sig) "HARNESS_TEST_HOOKS=1 HARNESS_TEST_INTERRUPT=" #rows ":" #sig

/* Runs "ENV harness ARGS" with stdout discarded and stderr into err;
 * returns the status as a shell reports it (128 + the signal when a
 * signal ended it). */
/* Waits for pid and reads errfile into err; returns the status as a
 * shell reports it (128 + the signal when a signal ended it). */
static int wait_status(pid_t pid, const char *errfile, char *err, size_t errlen)
{
	int st;
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	FILE *fp = fopen(errfile, "r");
	size_t got = fp ? fread(err, 1, errlen - 1, fp) : 0;
	err[got] = '\0';
	if (fp)
		fclose(fp);
	return WIFSIGNALED(st) ? 128 + WTERMSIG(st) : WEXITSTATUS(st);
}

/* Runs "ENV harness ARGS" with stdout discarded and stderr into err;
 * returns its status as wait_status does. */
static int run_status(const char *env, const char *args, char *err, size_t errlen)
{
	char errfile[128];
	snprintf(errfile, sizeof errfile, "%s/stderr.txt", tmp);
	return wait_status(cli_start(env, args, errfile), errfile, err, errlen);
}

/* The line of text that starts with prefix (into line), or fails. */
static void line_starting(const char *text, const char *prefix, char *line, size_t len)
{
	const char *l = strstr(text, prefix);
	cr_assert(l && (l == text || l[-1] == '\n'), "no line '%s...' in: %s", prefix, text);
	snprintf(line, len, "%.*s", (int)strcspn(l, "\n"), l);
}

/* The sidecar of csv, parsed into v (free with json_in_free). */
static void read_sidecar(const char *csv, struct json_in_value *v)
{
	char side[256], err[512];
	snprintf(side, sizeof side, "%.*s.meta.json", (int)(strlen(csv) - 4), csv);
	cr_assert_eq(json_in_read_file(side, v, err, sizeof err), 0, "%s", err);
}

/* Checks that csv's sidecar says the run was interrupted by sig with
 * planned rows planned, of which the CSV has written, and names the
 * missing ones, in order, as the comma-separated labels of want. */
static void expect_incomplete(const char *csv, const char *sig, size_t planned, size_t written,
			      const char *want)
{
	struct json_in_value v;
	char msg[512], got[2048] = "";
	cr_assert_eq(results_pair_check(csv, msg, sizeof msg), RESULTS_PAIR_OK, "%s", msg);
	read_sidecar(csv, &v);
	const struct json_in_value *c = json_in_member(&v, "complete");
	const struct json_in_value *inc = json_in_member(&v, "incomplete");
	cr_assert(c && c->type == JSON_IN_BOOL && !c->boolean, "complete is not false");
	const struct json_in_value *reason = json_in_member(inc, "reason");
	const struct json_in_value *u = json_in_member(inc, "unit");
	const struct json_in_value *p = json_in_member(inc, "planned");
	const struct json_in_value *w = json_in_member(inc, "finished");
	const struct json_in_value *m = json_in_member(inc, "missing");
	cr_assert(reason && reason->type == JSON_IN_STRING && strstr(reason->string, sig));
	cr_expect(u && u->type == JSON_IN_STRING && strcmp(u->string, "row") == 0);
	cr_expect(p && p->number == (double)planned, "planned %g, not %zu", p ? p->number : -1,
		  planned);
	cr_expect(w && w->number == (double)written, "finished %g", w ? w->number : -1);
	cr_assert(m && m->type == JSON_IN_ARRAY);
	for (size_t i = 0; i < m->count; i++)
		snprintf(got + strlen(got), sizeof got - strlen(got), "%s%s", i ? "," : "",
			 m->items[i].string);
	cr_expect_str_eq(got, want);
	struct csv_table t;
	cr_assert_eq(csv_table_read(csv, &t, msg, sizeof msg), 0, "%s", msg);
	cr_expect_eq(t.nrows, written);
	csv_table_free(&t);
	json_in_free(&v);
}

Test(interrupt, run_keeps_its_finished_rows_and_ends_by_the_signal)
{
	/* each signal after its own count of rows (SIGHUP: the terminal gone) */
	static const struct {
		int sig, rows;
		const char *name, *file, *missing;
	} cases[] = {
		{ SIGINT, 1, "INT", "r.csv", "cpu-simd N=64,cpu-portable N=96,cpu-simd N=96" },
		{ SIGTERM, 3, "TERM", "t.csv", "cpu-simd N=96" },
		{ SIGHUP, 2, "HUP", "h.csv", "cpu-portable N=96,cpu-simd N=96" },
	};
	for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
		char args[1024], e[4096], csv[128], line[1024], env[128], said[64], sig[16];
		snprintf(csv, sizeof csv, "%s/%s", tmp, cases[k].file);
		snprintf(args, sizeof args,
			 "run --variant cpu-portable,cpu-simd --n 64,96 " FAST " --out %s", csv);
		snprintf(env, sizeof env, "HARNESS_TEST_HOOKS=1 HARNESS_TEST_INTERRUPT=%d:%s",
			 cases[k].rows, cases[k].name);
		cr_assert_eq(run_status(env, args, e, sizeof e), 128 + cases[k].sig, "%s", e);
		snprintf(sig, sizeof sig, "SIG%s", cases[k].name);
		snprintf(said, sizeof said, "harness: interrupted by %s", sig);
		line_starting(e, said, line, sizeof line);
		cr_expect(strstr(line, csv) && strstr(line, "incomplete"), "%s", line);
		if (cases[k].rows == 1)
			cr_expect(strstr(line, "1 finished row of 4"), "%s", line);
		expect_incomplete(csv, sig, 4, (size_t)cases[k].rows, cases[k].missing);
	}
}

Test(interrupt, a_whole_run_says_it_is_complete)
{
	char args[1024], e[4096], csv[128];
	struct json_in_value v;
	snprintf(csv, sizeof csv, "%s/r.csv", tmp);
	snprintf(args, sizeof args, "run --variant cpu-simd --n 64 " FAST " --out %s", csv);
	cr_assert_eq(run_status("", args, e, sizeof e), 0, "%s", e);
	read_sidecar(csv, &v);
	const struct json_in_value *c = json_in_member(&v, "complete");
	cr_expect(c && c->type == JSON_IN_BOOL && c->boolean);
	cr_expect_null(json_in_member(&v, "incomplete"));
	json_in_free(&v);
	/* a signal after the last row, before the file: all of it kept, whole */
	snprintf(csv, sizeof csv, "%s/last.csv", tmp);
	snprintf(args, sizeof args, "run --variant cpu-portable,cpu-simd --n 64 " FAST " --out %s", csv);
	cr_assert_eq(run_status(HOOK(2, INT), args, e, sizeof e), 128 + SIGINT, "%s", e);
	cr_expect(strstr(e, "with all its 2 rows"), "%s", e);
	read_sidecar(csv, &v);
	c = json_in_member(&v, "complete");
	cr_expect(c && c->type == JSON_IN_BOOL && c->boolean);
	json_in_free(&v);
}

/* compare takes an interrupted file's missing rows as missing: the file
 * against itself is no pass, and --allow-missing lets the rows it has
 * decide. */
Test(interrupt, compare_counts_the_rows_that_never_ran)
{
	char args[1024], e[4096], csv[128], cmd[2048], out[16384];
	snprintf(csv, sizeof csv, "%s/r.csv", tmp);
	snprintf(args, sizeof args, "run --variant cpu-portable,cpu-simd --n 64,96 " FAST " --out %s",
		 csv);
	cr_assert_eq(run_status(HOOK(2, INT), args, e, sizeof e), 128 + SIGINT, "%s", e);
	snprintf(cmd, sizeof cmd, "%s compare --threshold 1000 %s %s", cli_harness_bin(), csv, csv);
	cr_expect_eq(cli_run_capture(cmd, "2>/dev/null >%s", out, sizeof out), 3, "%s", out);
	cr_expect(strstr(out, "NEW's run was interrupted by SIGINT: 2 of 4 planned rows never ran: "
			      "cpu-portable N=96, cpu-simd N=96"), "%s", out);
	cr_expect(strstr(out, "BASE's run was interrupted"), "%s", out);
	snprintf(cmd, sizeof cmd, "%s compare --threshold 1000 --allow-missing %s %s",
		 cli_harness_bin(), csv, csv);
	cr_expect_eq(cli_run_stdout(cmd, out, sizeof out), 0, "%s", out);
	cr_expect(strstr(out, "the rows an interrupted run never ran accepted"), "%s", out);
}

/* A suite's file keeps its finished rows; a run stopped before any row
 * finished writes nothing and leaves no folder it made. */
Test(interrupt, a_suite_keeps_its_rows_and_an_empty_out_dir_goes)
{
	char args[1024], e[4096], csv[256], dir[128], line[1024];
	snprintf(dir, sizeof dir, "%s/suites", tmp);
	snprintf(args, sizeof args, "run --suite cpu-speedup --device cpu --n 1024,2048 " FAST " --out-dir %s", dir);
	cr_assert_eq(run_status(HOOK(1, INT), args, e, sizeof e), 128 + SIGINT, "%s", e);
	snprintf(csv, sizeof csv, "%s/cpu-speedup.csv", dir);
	line_starting(e, "harness: interrupted by SIGINT", line, sizeof line);
	cr_expect(strstr(line, csv), "%s", line);
	expect_incomplete(csv, "SIGINT", 4, 1, "cpu-portable N=2048,cpu-simd N=1024,cpu-simd N=2048");

	/* no row finished: a real signal, long before the first row could end
	 * (the hook's work makes each of its calls last a second) */
	snprintf(dir, sizeof dir, "%s/never/made", tmp);
	char errfile[128];
	snprintf(errfile, sizeof errfile, "%s/stderr2.txt", tmp);
	snprintf(args, sizeof args, "run --suite cpu-speedup --device cpu --n 65536 --out-dir %s", dir);
	pid_t pid = cli_start("HARNESS_TEST_HOOKS=1 HARNESS_TEST_WORK=cpu-simd:1000000", args, errfile);
	struct stat st;
	for (int i = 0; i < 100 && stat(dir, &st) != 0; i++)
		usleep(50000);
	cr_assert_eq(stat(dir, &st), 0, "%s was never made", dir);
	usleep(300000);
	cr_assert_eq(kill(pid, SIGINT), 0);
	cr_assert_eq(wait_status(pid, errfile, e, sizeof e), 128 + SIGINT, "%s", e);
	cr_expect_neq(stat(dir, &st), 0, "the empty %s is still there", dir);
	line_starting(e, "harness: interrupted by SIGINT during cpu-speedup ",
		      line, sizeof line);
	cr_expect(strstr(line, "N=65536") && strstr(line, "no row had finished, nothing written"),
		  "%s", line);
}

Test(interrupt, sph_run_keeps_its_finished_rows)
{
	char args[1024], e[4096], csv[128], line[1024];
	snprintf(csv, sizeof csv, "%s/s.csv", tmp);
	snprintf(args, sizeof args, "sph run -v sph-cpu-grid --column 6x6x7@4,12x3x24@4 --warm-steps 1 "
		 FAST " --out %s", csv);
	cr_assert_eq(run_status(HOOK(1, INT), args, e, sizeof e), 128 + SIGINT, "%s", e);
	line_starting(e, "harness: interrupted by SIGINT", line, sizeof line);
	cr_expect(strstr(line, "1 finished row of 2"), "%s", line);
	expect_incomplete(csv, "SIGINT", 2, 1, "sph-cpu-grid on 12x3x24@4 at step 1");
}

/* With several moments, each finished row is named in the sidecar as it
 * was planned, by one label: the missing list holds exactly the moment and
 * the whole flow that never ran, not the finished one. */
Test(interrupt, sph_run_of_moments_names_only_the_rows_that_never_ran)
{
	char args[1024], e[4096], csv[128], line[1024];
	snprintf(csv, sizeof csv, "%s/m.csv", tmp);
	snprintf(args, sizeof args, "sph run -v sph-cpu-grid --column 6x6x7@4 --warm-steps 1,2 "
		 FAST " --out %s", csv);
	cr_assert_eq(run_status(HOOK(1, INT), args, e, sizeof e), 128 + SIGINT, "%s", e);
	line_starting(e, "harness: interrupted by SIGINT", line, sizeof line);
	cr_expect(strstr(line, "1 finished row of 3"), "%s", line);
	expect_incomplete(csv, "SIGINT", 3, 1,
			  "sph-cpu-grid on 6x6x7@4 at step 2,sph-cpu-grid on 6x6x7@4 over steps 1 to 2");
}

/* sph physics keeps whole checks: the unit of its plan is a check. */
Test(interrupt, sph_physics_keeps_its_finished_checks)
{
	char args[1024], e[8192], csv[128], line[1024];
	struct json_in_value v;
	snprintf(csv, sizeof csv, "%s/p.csv", tmp);
	snprintf(args, sizeof args, "sph physics -v sph-cpu-grid --check leak --leak-columns "
		 "6x6x7@4,12x3x24@4 --out %s", csv);
	cr_assert_eq(run_status(HOOK(1, TERM), args, e, sizeof e), 128 + SIGTERM, "%s", e);
	line_starting(e, "harness: interrupted by SIGTERM", line, sizeof line);
	cr_expect(strstr(line, "1 finished check of 2"), "%s", line);
	read_sidecar(csv, &v);
	const struct json_in_value *inc = json_in_member(&v, "incomplete");
	const struct json_in_value *u = json_in_member(inc, "unit"), *m = json_in_member(inc, "missing");
	cr_expect(u && strcmp(u->string, "check") == 0);
	cr_assert(m && m->count == 1);
	cr_expect_str_eq(m->items[0].string, "leak on 12x3x24@4");
	json_in_free(&v);
	struct csv_table t;
	char msg[512];
	cr_assert_eq(csv_table_read(csv, &t, msg, sizeof msg), 0, "%s", msg);
	for (size_t r = 0; r < t.nrows; r++)
		cr_expect_str_eq(csv_table_named(&t, r, "column"), "6x6x7@4");
	cr_expect_gt(t.nrows, 4, "the first check's rows, curves included");
	csv_table_free(&t);
}

Test(interrupt, a_malformed_hook_is_refused)
{
	char e[4096];
	static const char *const bad[] = { "0:INT", "2:KILL", "x:INT", "2", "-1:INT", "2:INT,3:INT" };
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		char env[128];
		snprintf(env, sizeof env, "HARNESS_TEST_HOOKS=1 HARNESS_TEST_INTERRUPT=%s", bad[i]);
		cr_expect_eq(run_status(env, "run --variant cpu-simd --n 64 " FAST, e, sizeof e), 2,
			     "%s: %s", bad[i], e);
		cr_expect(strstr(e, "HARNESS_TEST_INTERRUPT") && strchr(e, '\n') == strrchr(e, '\n'),
			  "%s: %s", bad[i], e);
	}
}

/* The rows that never ran: what the plan has and the finished rows do
 * not, one planned label per finished one, in plan order. */
Test(interrupt, missing_rows_are_the_plan_less_the_finished)
{
	const char *plan[] = { "a N=1", "b N=1", "a N=2", "a N=1" };
	const char *done[] = { "a N=1", "a N=2", "c N=9" };
	const char *missing[4];
	cr_assert_eq(results_missing(plan, 4, done, 3, missing), 2);
	cr_expect_str_eq(missing[0], "b N=1");
	cr_expect_str_eq(missing[1], "a N=1");
	cr_assert_eq(results_missing(plan, 4, NULL, 0, missing), 4);
	cr_assert_eq(results_missing(plan, 0, done, 3, missing), 0);
}

/* A keeper that takes its time, then leaves a mark: what the watcher
 * finished before the process ended. */
static char slow_mark[128];
static long slow_ms;

static void slow_keeper(void *ctx, int sig, char *said, size_t saidlen)
{
	(void)ctx;
	(void)sig;
	struct timespec d = { slow_ms / 1000, (slow_ms % 1000) * 1000000L };
	nanosleep(&d, NULL);
	FILE *f = fopen(slow_mark, "w");
	if (f)
		fclose(f);
	snprintf(said, saidlen, "kept");
}

/* A child that traps, keeps with slow_keeper, and gets SIGTERM, again
 * 20 ms later and once more gap_ms after that, while its keeper still
 * works; its wait status, and whether the keeper finished. */
static int signalled_twice(long gap_ms, bool *kept)
{
	snprintf(slow_mark, sizeof slow_mark, "%s/kept-%ld", tmp, gap_ms);
	slow_ms = gap_ms + 500; /* still keeping at the third signal */
	unlink(slow_mark);
	fflush(NULL);
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		if (!freopen("/dev/null", "w", stderr) || interrupt_trap() != 0)
			_exit(3);
		interrupt_set_keeper(slow_keeper, NULL);
		struct timespec first = { 0, 20 * 1000000L }, gap = { gap_ms / 1000,
								     (gap_ms % 1000) * 1000000L };
		kill(getpid(), SIGTERM);
		nanosleep(&first, NULL); /* the watcher is keeping now */
		kill(getpid(), SIGTERM);
		nanosleep(&gap, NULL);
		kill(getpid(), SIGTERM);
		for (;;)
			pause();
	}
	int st;
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	*kept = access(slow_mark, F_OK) == 0;
	return st;
}

/* timeout(1) sends SIGTERM to the command and then to its process group,
 * and a process of many threads may run both handlers: a repeat within a
 * second of the first signal is the same request and must not end the
 * process before its rows are kept; a signal after that second still
 * ends it at once. */
Test(interrupt, a_repeated_signal_is_one_request_a_later_one_ends_at_once)
{
	bool kept;
	int st = signalled_twice(0, &kept);
	cr_expect(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM, "status %#x", st);
	cr_expect(kept, "a signal 20 ms after the first cut the keeper short");
	st = signalled_twice(1200, &kept);
	cr_expect(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM, "status %#x", st);
	cr_expect(!kept, "a signal 1.2 s after the first must end the process at once");
}
