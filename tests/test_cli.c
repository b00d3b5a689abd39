/* test_cli.c - command-line parsing and every user error of bin/harness */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../harness/cli.h"
#include "../harness/core/csv_table.h"
#include "../harness/core/gpu_device.h"
#include "../harness/core/sysinfo.h"
#include "../harness/nbody/instance.h"
#include "../variants/sph_registry.h"
#include "cli_run.h"

/* ---- the parser, in process ------------------------------------------ */

static int parse_list(const char *s, size_t **out, size_t *count)
{
	char err[256];
	return cli_parse_n_list(s, out, count, err, sizeof err);
}

Test(cli, n_list_forms)
{
	size_t *v, c;
	cr_assert_eq(parse_list("1024,4096", &v, &c), CLI_OK);
	cr_assert_eq(c, 2);
	cr_assert_eq(v[0], 1024);
	cr_assert_eq(v[1], 4096);
	free(v);
	cr_assert_eq(parse_list("2^10..2^13", &v, &c), CLI_OK);
	cr_assert_eq(c, 4);
	cr_assert_eq(v[0], 1024);
	cr_assert_eq(v[3], 8192);
	free(v);
	cr_assert_eq(parse_list("1000..8000,31", &v, &c), CLI_OK);
	cr_assert_eq(c, 5);
	cr_assert_eq(v[3], 8000);
	cr_assert_eq(v[4], 31);
	free(v);
	cr_assert_eq(parse_list("1000..7999", &v, &c), CLI_OK);
	cr_assert_eq(c, 3, "doubling stops at the last value that fits");
	free(v);
	cr_assert_eq(parse_list("2^0", &v, &c), CLI_OK);
	cr_assert_eq(v[0], 1);
	free(v);
}

Test(cli, n_list_rejects)
{
	const char *bad[] = { "", "0", "-5", "abc", "1e3", "10,", ",10", "2^", "3^4", "2^10..2^5",
			      "0..8", "2^31", "10..", "..10", "12 ", " 12", "1,,2", "2^99",
			      "99999999999999999999999" };
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		size_t *v = NULL, c = 0;
		char err[256] = "";
		cr_expect_eq(cli_parse_n_list(bad[i], &v, &c, err, sizeof err), CLI_USAGE,
			     "'%s' should be rejected", bad[i]);
		cr_expect_neq(err[0], '\0', "'%s' needs a message", bad[i]);
	}
}

Test(cli, numbers_are_strict)
{
	double d;
	uint64_t u;
	char err[256];
	cr_assert_eq(cli_parse_double("--eps", "0.05", 0, 1, &d, err, sizeof err), CLI_OK);
	cr_assert_float_eq(d, 0.05, 1e-15);
	cr_assert_eq(cli_parse_double("--eps", "0.05x", 0, 1, &d, err, sizeof err), CLI_USAGE);
	cr_assert_eq(cli_parse_double("--eps", "nan", 0, 1, &d, err, sizeof err), CLI_USAGE);
	cr_assert_eq(cli_parse_double("--eps", "2", 0, 1, &d, err, sizeof err), CLI_USAGE);
	cr_assert(strstr(err, "out of range"), "%s", err);
	cr_assert_eq(cli_parse_u64("--seed", "18446744073709551615", &u, err, sizeof err), CLI_OK);
	cr_assert_eq(u, UINT64_MAX);
	cr_assert_eq(cli_parse_u64("--seed", "-1", &u, err, sizeof err), CLI_USAGE);
	cr_assert_eq(cli_parse_u64("--seed", "18446744073709551616", &u, err, sizeof err), CLI_USAGE);
}

Test(cli, parse_run_options)
{
	char *argv[] = { "harness", "run", "--variant", "cpu-*", "--n", "2^10", "--ic", "cube",
			 "--seed", "7", "--eps", "0.1", "--steps", "--dt", "0.01", "--max-noise", "2",
			 "--quiet", NULL };
	struct cli_options o;
	char err[256];
	cr_assert_eq(cli_parse(18, argv, &o, err, sizeof err), CLI_OK, "%s", err);
	cr_assert_eq(o.cmd, CLI_RUN);
	cr_assert(o.selected[NBODY_V_cpu_portable] && o.selected[NBODY_V_cpu_simd]);
	cr_assert_eq(o.n_count, 1);
	cr_assert_eq(o.n_list[0], 1024);
	cr_assert_eq(o.ic, IC_CUBE);
	cr_assert_eq(o.seed, 7);
	cr_assert(o.steps && o.quiet);
	cr_assert_float_eq(o.timing.max_noise, 2.0, 1e-12);
	cli_options_free(&o);
}

Test(cli, defaults_per_command)
{
	char *run[] = { "harness", "run", NULL }, *check[] = { "harness", "check", NULL };
	char *two[] = { "harness", "run", "--ic", "twobody", NULL };
	struct cli_options o;
	char err[256];
	cr_assert_eq(cli_parse(2, run, &o, err, sizeof err), CLI_OK);
	cr_assert_eq(o.n_count, 3);
	cr_assert_eq(o.n_list[2], 16384);
	cli_options_free(&o);
	cr_assert_eq(cli_parse(2, check, &o, err, sizeof err), CLI_OK);
	cr_assert_eq(o.n_count, 6);
	cr_assert_eq(o.n_list[5], 4097);
	cli_options_free(&o);
	cr_assert_eq(cli_parse(4, two, &o, err, sizeof err), CLI_OK);
	cr_assert_eq(o.n_count, 1);
	cr_assert_eq(o.n_list[0], 2);
	cli_options_free(&o);
}

/* ---- the program, as a user runs it ---------------------------------- */

static const char *harness_bin(void)
{
	return cli_harness_bin();
}

/* Runs bin/harness with args (a shell fragment); returns its exit status
 * and what it wrote to stderr (in a static buffer). */
static int run_harness(const char *args, char **errtext)
{
	static char buf[8192];
	char cmd[2048];
	snprintf(cmd, sizeof cmd, "%s %s", harness_bin(), args);
	*errtext = buf;
	return cli_run(cmd, buf, sizeof buf);
}

/* A user error: exit status 2 and exactly one line naming the value. */
static void expect_usage_error(const char *args, const char *mention)
{
	char *e;
	int rc = run_harness(args, &e);
	cr_expect_eq(rc, 2, "'%s': exit %d, stderr: %s", args, rc, e);
	size_t lines = 0;
	for (const char *p = e; *p; p++)
		lines += *p == '\n';
	cr_expect_eq(lines, 1, "'%s': want one line, got: %s", args, e);
	cr_expect(strncmp(e, "harness: ", 9) == 0, "'%s': %s", args, e);
	cr_expect(strstr(e, mention) != NULL, "'%s': message lacks '%s': %s", args, mention, e);
}

Test(cli_program, user_errors_get_one_line_and_status_2)
{
	cr_assert(access(harness_bin(), X_OK) == 0, "build %s first (make test does)", harness_bin());
	expect_usage_error("run --variant nosuch", "nosuch");
	expect_usage_error("run --variant 'gpu-zz*'", "gpu-zz*");
	expect_usage_error("run --n 0", "0");
	expect_usage_error("run --n abc", "abc");
	expect_usage_error("run --n 2^10..2^5", "2^10..2^5");
	expect_usage_error("run --n 2^40", "2^40");
	/* 2^30 bodies need 136 GiB: more than HARNESS_MEMORY allows on any
	 * machine (a machine with more would start the check instead) */
	setenv("HARNESS_MEMORY", "64G", 1);
	expect_usage_error("check --n 2^30", "needs about 136.0 GiB of memory");
	setenv("HARNESS_MEMORY", "lots", 1);
	expect_usage_error("check --n 3", "HARNESS_MEMORY='lots' is not a size");
	unsetenv("HARNESS_MEMORY");
	expect_usage_error("run --eps -1", "--eps");
	expect_usage_error("run --eps 0.1.2", "0.1.2");
	expect_usage_error("run --seed -3", "--seed");
	expect_usage_error("run --max-noise 200", "--max-noise");
	expect_usage_error("run --min-time 3 --max-time 1", "--max-time");
	expect_usage_error("run --dt 0", "--dt");
	expect_usage_error("run --device tpu", "tpu");
	expect_usage_error("run --suite fig99", "fig99");
	expect_usage_error("run --suite fig31-5 --variant naive", "--suite");
	expect_usage_error("check --suite fig31-5", "--suite");
	expect_usage_error("run --out-dir /tmp/x", "--out-dir");
	expect_usage_error("run --frobnicate", "--frobnicate");
	expect_usage_error("run --n", "--n");
	expect_usage_error("run stray", "stray");
	expect_usage_error("launch", "launch");
	expect_usage_error("run --ic twobody --n 4", "twobody");
	expect_usage_error("run --ic /nonexistent/bodies.csv", "/nonexistent/bodies.csv");
	/* a mistyped kind: the kinds named */
	expect_usage_error("run --ic nosuchkind", "--ic 'nosuchkind' is neither a kind of bodies "
						   "(plummer, cube, twobody) nor a file");
	expect_usage_error("check --n 3 --out /nonexistent-dir/x.csv", "/nonexistent-dir");
	expect_usage_error("check --n 3 --out /tmp", "/tmp");
	expect_usage_error("forces --variant cpu-simd", "--out");
	expect_usage_error("forces --variant 'cpu-*' --out /tmp/x.csv", "exactly one");
	expect_usage_error("forces --variant cpu-simd --n 8,16 --out /tmp/x.csv", "one N");
	/* a directory's name that names none is said to be both */
	expect_usage_error("run --variant cpu-portable --out /nonexistent-dir/nosub/",
			   "/nonexistent-dir/nosub/: ends in '/', so it names a directory, not a file "
			   "(and there is no directory /nonexistent-dir/nosub either)");
}

Test(cli_program, malformed_body_file_is_refused_without_output)
{
	char dir[] = "/tmp/harness-cli-XXXXXX";
	cr_assert_not_null(mkdtemp(dir));
	char in[256], out[256], side[256], args[1024];
	snprintf(in, sizeof in, "%s/bodies.csv", dir);
	snprintf(out, sizeof out, "%s/out.csv", dir);
	snprintf(side, sizeof side, "%s/out.meta.json", dir);
	FILE *fp = fopen(in, "w");
	fputs("x,y,z,mass\n0,0,0,1\n1,0,zero,1\n", fp);
	fclose(fp);
	snprintf(args, sizeof args, "run --variant cpu-portable --ic %s --out %s", in, out);
	expect_usage_error(args, "bodies.csv:3");
	cr_expect(access(out, F_OK) != 0, "no results file after bad input");
	cr_expect(access(side, F_OK) != 0, "no sidecar after bad input");
	unlink(in);
	rmdir(dir);
}

/* run and sph run both name the results file and its sidecar they wrote. */
Test(cli_program, run_and_sph_run_name_the_sidecar_they_wrote, .timeout = 60)
{
	char dir[] = "/tmp/harness-cli-XXXXXX", cmd[1024], out[8192], want[256];
	cr_assert_not_null(mkdtemp(dir));
	const char *runs[] = {
		"run --variant cpu-portable --n 16 --min-time 0 --max-time 0.01",
		"sph run -v sph-cpu-grid --column 6x6x7@4 --warm-steps 1 --window-steps 2 "
		"--min-samples 3 --min-time 0 --max-time 0.01",
	};
	for (size_t k = 0; k < 2; k++) {
		snprintf(cmd, sizeof cmd, "%s %s --out %s/r%zu.csv 2>/dev/null", harness_bin(), runs[k],
			 dir, k);
		cr_assert_eq(cli_run_stdout(cmd, out, sizeof out), 0, "%s", out);
		snprintf(want, sizeof want, "wrote %s/r%zu.csv and %s/r%zu.meta.json\n", dir, k, dir, k);
		cr_expect(strstr(out, want) != NULL, "%s: no '%s' in:\n%s", runs[k], want, out);
	}
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	cr_expect_eq(system(cmd), 0);
}

Test(cli_program, check_and_help_exit_zero)
{
	char *e;
	cr_assert_eq(run_harness("check --n 3,31 --variant cpu-portable", &e), 0, "%s", e);
	cr_assert_eq(run_harness("run --help", &e), 0, "%s", e);
	cr_assert_eq(run_harness("list", &e), 0, "%s", e);
	cr_assert_eq(run_harness("--help", &e), 0, "%s", e);
}

Test(cli_program, forces_writes_every_body_next_to_the_reference)
{
	char dir[] = "/tmp/harness-forces-XXXXXX";
	cr_assert_not_null(mkdtemp(dir));
	char in[256], out[256], args[1024];
	snprintf(in, sizeof in, "%s/two.csv", dir);
	snprintf(out, sizeof out, "%s/forces.csv", dir);
	FILE *fp = fopen(in, "w");
	/* Two unit masses 2 apart, eps = 0: each pulls the other with 1/4. */
	fputs("x,y,z,mass\n-1,0,0,1\n1,0,0,1\n", fp);
	fclose(fp);
	snprintf(args, sizeof args, "forces --variant cpu-portable --ic %s --eps 0 --out %s", in, out);
	char *e;
	cr_assert_eq(run_harness(args, &e), 0, "%s", e);
	struct csv_table t;
	char err[256];
	cr_assert_eq(csv_table_read(out, &t, err, sizeof err), 0, "%s", err);
	cr_assert_eq(t.nrows, 2);
	double ax0, ax1, ref0, nerr;
	cr_assert_eq(csv_table_double(&t, 0, "ax", &ax0, err, sizeof err), 0, "%s", err);
	cr_assert_eq(csv_table_double(&t, 1, "ax", &ax1, err, sizeof err), 0, "%s", err);
	cr_assert_eq(csv_table_double(&t, 0, "ax_ref", &ref0, err, sizeof err), 0, "%s", err);
	cr_assert_eq(csv_table_double(&t, 0, "norm_err", &nerr, err, sizeof err), 0, "%s", err);
	cr_expect_float_eq(ax0, 0.25, 1e-7);
	cr_expect_float_eq(ax1, -0.25, 1e-7);
	cr_expect_float_eq(ref0, 0.25, 1e-15);
	cr_expect_lt(nerr, 1e-6);
	csv_table_free(&t);
	unlink(in);
	unlink(out);
	rmdir(dir);
}

/* ---- finding one's way: the commands, the version, the lists -------- */

/* The comma-separated items of a message's list: after open, up to the
 * first of the characters in end, into items[] (64 bytes each). */
static size_t list_items(const char *msg, const char *open, const char *end, char items[][64],
			 size_t max)
{
	const char *p = strstr(msg, open);
	cr_assert_not_null(p, "no '%s' in %s", open, msg);
	p += strlen(open);
	char stops[16];
	snprintf(stops, sizeof stops, ",%s", end);
	size_t count = 0;
	while (*p && !strchr(end, *p) && count < max) {
		size_t len = strcspn(p, stops);
		cr_assert_lt(len, 64);
		snprintf(items[count++], 64, "%.*s", (int)len, p);
		p += len;
		p += strspn(p, ", ");
	}
	return count;
}

/* The names of "unknown command 'x' (allowed: a, b, c)" into names[]. */
static size_t allowed_commands(char names[][64], size_t max)
{
	char *e;
	cr_assert_eq(run_harness("nosuchcommand", &e), 2, "%s", e);
	return list_items(e, "(allowed: ", ")", names, max);
}

/* No command at all is bad input, as an unknown one is: the overview
 * goes to stderr, nothing to stdout, exit 2; --help is the overview asked
 * for (stdout, exit 0). */
Test(cli_program, no_command_is_bad_input_with_the_overview_on_stderr)
{
	char cmd[512], out[8192], help[8192];
	char *e;
	snprintf(cmd, sizeof cmd, "%s --help", harness_bin());
	cr_assert_eq(cli_run_stdout(cmd, help, sizeof help), 0);
	cr_expect_eq(run_harness("", &e), 2, "%s", e);
	cr_expect_str_eq(e, help, "stderr is the overview");
	snprintf(cmd, sizeof cmd, "%s 2>/dev/null", harness_bin());
	cr_expect_eq(cli_run_stdout(cmd, out, sizeof out), 2);
	cr_expect_str_empty(out, "nothing on stdout: %s", out);
}

Test(cli_program, help_and_unknown_command_name_the_same_commands)
{
	char names[32][64], help[8192], cmd[512];
	size_t count = allowed_commands(names, 32);
	snprintf(cmd, sizeof cmd, "%s --help", harness_bin());
	cr_assert_eq(cli_run_stdout(cmd, help, sizeof help), 0);
	const char *must[] = { "ab", "report", "export", "version", "compare", "plot", "sph" };
	for (size_t m = 0; m < sizeof must / sizeof *must; m++) {
		bool found = false;
		for (size_t i = 0; i < count; i++)
			found = found || strcmp(names[i], must[m]) == 0;
		cr_expect(found, "the unknown-command message lacks %s", must[m]);
	}
	size_t lines = 0;
	for (const char *p = help; (p = strstr(p, "\n  ")) != NULL; p++)
		lines += p[3] != ' ';
	cr_expect_eq(lines, count, "the overview lists %zu commands, the message %zu:\n%s", lines,
		     count, help);
	for (size_t i = 0; i < count; i++) {
		char line[64], *e;
		snprintf(line, sizeof line, "\n  %.31s ", names[i]);
		cr_expect(strstr(help, line) != NULL, "--help lacks %s:\n%s", names[i], help);
		snprintf(line, sizeof line, "%.31s --help", names[i]);
		cr_expect_eq(run_harness(line, &e), 0, "'%s' is not a command: %s", line, e);
	}
}

Test(cli_program, version_names_the_commit_and_the_build_options)
{
	char out[4096], again[4096], cmd[512];
	snprintf(cmd, sizeof cmd, "%s --version", harness_bin());
	cr_assert_eq(cli_run_stdout(cmd, out, sizeof out), 0, "%s", out);
	snprintf(cmd, sizeof cmd, "%s version", harness_bin());
	cr_assert_eq(cli_run_stdout(cmd, again, sizeof again), 0, "%s", again);
	cr_expect_str_eq(out, again);
	cr_expect(strstr(out, sysinfo_git_commit()) != NULL, "no commit %s: %s", sysinfo_git_commit(),
		  out);
	const char *parts[] = { "CUDA o", "MPI o", "NCCL o", "PNG o" };
	for (size_t i = 0; i < sizeof parts / sizeof *parts; i++)
		cr_expect(strstr(out, parts[i]) != NULL, "lacks '%s': %s", parts[i], out);
#ifdef HARNESS_HAVE_CUDA
	cr_expect(strstr(out, "CUDA on (sm_") != NULL, "no architectures: %s", out);
#else
	cr_expect(strstr(out, "CUDA off") != NULL, "%s", out);
#endif
	expect_usage_error("version extra", "extra");
}

/* The items of an unknown variant's list: between "known: " and the ';'
 * after them, each a name or a family's glob ("tiled-* (6)": the glob). */
static size_t known_items(const char *err, char items[][64], size_t max)
{
	size_t n = list_items(err, "(known: ", ";", items, max);
	for (size_t k = 0; k < n; k++)
		items[k][strcspn(items[k], " ")] = '\0';
	return n;
}

/* An unknown variant's line names every variant on one short line:
 * each by name, or by its family's glob, which selects it; it points at
 * 'harness list' for the names; cut short, it says how many it left out. */
Test(cli, unknown_variant_names_every_variant_by_name_or_family)
{
	struct cli_options o;
	char err[2048], small[120], items[64][64];
	memset(&o, 0, sizeof o);
	cr_assert_eq(cli_select_variants("nosuch", &o, err, sizeof err), CLI_USAGE);
	cr_expect_lt(strlen(err), 300, "one short line: %s", err);
	cr_expect(strstr(err, "tiled-* (6)") && strstr(err, "see 'harness list'"), "%s", err);
	const size_t n = known_items(err, items, 64);
	for (size_t i = 0; i < NBODY_VARIANT_COUNT; i++) {
		size_t k = 0;
		while (k < n && fnmatch(items[k], nbody_variants[i].name, 0) != 0)
			k++;
		cr_expect_lt(k, n, "no item stands for %s: %s", nbody_variants[i].name, err);
	}
	for (size_t k = 0; k < n; k++) {
		struct cli_options sel;
		memset(&sel, 0, sizeof sel);
		cr_expect_eq(cli_select_variants(items[k], &sel, small, sizeof small), CLI_OK,
			     "the item %s selects nothing", items[k]);
	}
	cr_expect(strstr(err, "...") == NULL, "%s", err);
	cr_expect_eq(err[strlen(err) - 1], ')', "%s", err);
	memset(&o, 0, sizeof o);
	cr_assert_eq(cli_select_variants("nosuch", &o, small, sizeof small), CLI_USAGE);
	cr_expect(strstr(small, "... and ") != NULL && strstr(small, " more, see 'harness list'"),
		  "a cut list says how many it left out: %s", small);
	cr_expect_eq(small[strlen(small) - 1], ')', "%s", small);
	size_t left, covered = 0;
	cr_assert_eq(sscanf(strstr(small, "... and ") + 8, "%zu", &left), 1);
	const size_t shown = known_items(small, items, 64) - 1; /* the last is "..." */
	for (size_t i = 0; i < NBODY_VARIANT_COUNT; i++) {
		size_t k = 0;
		while (k < shown && fnmatch(items[k], nbody_variants[i].name, 0) != 0)
			k++;
		covered += k < shown;
	}
	cr_expect_eq(covered + left, NBODY_VARIANT_COUNT, "%zu shown + %zu more: %s", covered, left,
		     small);
}

/* The lines of out that end "(unavailable: WHY)": no WHY twice, and each
 * unavailable variant (name, why) named on the line of its reason. */
static void expect_one_line_per_reason(const char *out, const char *name, const char *why)
{
	char tail[320], item[96];
	snprintf(tail, sizeof tail, "(unavailable: %s)\n", why);
	const char *line = NULL;
	for (const char *p = out; (p = strstr(p, tail)) != NULL; p++) {
		cr_expect_null(line, "'%s' is said twice:\n%s", why, out);
		line = p;
	}
	cr_assert_not_null(line, "no line for '%s':\n%s", why, out);
	while (line > out && line[-1] != '\n')
		line--;
	cr_expect(strncmp(line, name, strlen(name)) != 0, "a row of its own for %s", name);
	snprintf(item, sizeof item, " %s,", name);
	bool listed = strstr(line, item) && strstr(line, item) < strstr(line, tail);
	snprintf(item, sizeof item, " %s (unavailable: ", name);
	listed = listed || (strstr(line, item) && strstr(line, item) < strstr(line, tail) + 1);
	cr_expect(listed, "%s is not on the line of its reason: %.300s", name, line);
}

Test(cli_program, list_says_each_reason_once)
{
	static char out[65536];
	char cmd[512];
	const char *why;
	snprintf(cmd, sizeof cmd, "%s list", harness_bin());
	cr_assert_eq(cli_run_stdout(cmd, out, sizeof out), 0);
	for (size_t i = 0; i < NBODY_VARIANT_COUNT; i++)
		if (!variant_available(&nbody_variants[i], &why))
			expect_one_line_per_reason(out, nbody_variants[i].name, why);
	snprintf(cmd, sizeof cmd, "%s sph list", harness_bin());
	cr_assert_eq(cli_run_stdout(cmd, out, sizeof out), 0);
	for (size_t i = 0; i < SPH_VARIANT_COUNT; i++)
		if (!sph_variant_available(&sph_variants[i], &why))
			expect_one_line_per_reason(out, sph_variants[i].name, why);
}

Test(cli_program, sph_list_shows_the_columns_sph_takes)
{
	char out[65536], cmd[512], e[4096];
	snprintf(cmd, sizeof cmd, "%s sph list", harness_bin());
	cr_assert_eq(cli_run_stdout(cmd, out, sizeof out), 0);
	cr_expect(strstr(out, "\nmartin-moyce ") && strstr(out, "\n16128 ") &&
		  strstr(out, "\n4207500 ") && strstr(out, "NXxNYxNZ"), "%s", out);
	/* the column named in that list is accepted */
	snprintf(cmd, sizeof cmd, "%s sph check --column 'martin-moyce' --help", harness_bin());
	cr_expect_eq(cli_run(cmd, e, sizeof e), 0, "%s", e);
}

/* ---- --filter, --gpu, --min-samples, --repetitions ------------------ */

static const char *const filter_names[] = { "alpha", "beta", "alphabet" };

static const char *filter_name(size_t i)
{
	return filter_names[i];
}

Test(cli, filter_matches_anywhere_with_anchors_allowed)
{
	bool keep[3];
	char err[512];
	cr_assert_eq(cli_filter_names("lph", filter_name, 3, keep, "word", "list", err, sizeof err),
		     CLI_OK, "%s", err);
	cr_expect(keep[0] && !keep[1] && keep[2], "anywhere in the name");
	cr_assert_eq(cli_filter_names("^alpha$", filter_name, 3, keep, "word", "list", err, sizeof err),
		     CLI_OK, "%s", err);
	cr_expect(keep[0] && !keep[1] && !keep[2], "anchored");
	cr_assert_eq(cli_filter_names("^(beta|alphab)", filter_name, 3, keep, "word", "list", err,
				      sizeof err), CLI_OK, "%s", err);
	cr_expect(!keep[0] && keep[1] && keep[2], "extended syntax");
	cr_expect_eq(cli_filter_names("gamma", filter_name, 3, keep, "word", "list", err, sizeof err),
		     CLI_USAGE);
	cr_expect_str_eq(err, "--filter 'gamma' matches no word (known: alpha, beta, alphabet; see 'list')");
	cr_expect_eq(cli_filter_names("(al", filter_name, 3, keep, "word", "list", err, sizeof err),
		     CLI_USAGE);
	cr_expect(strstr(err, "--filter '(al' is not a POSIX extended regular expression"), "%s", err);
	char small[90];
	cr_expect_eq(cli_filter_names("gamma", filter_name, 3, keep, "word", "list", small,
				      sizeof small), CLI_USAGE);
	cr_expect(strstr(small, "more, see 'list')"), "a cut list says so: %s", small);
}

Test(cli, parse_selection_and_sampling_options)
{
	char *argv[] = { "harness", "run", "--filter", "^cpu-", "--variant", "cpu-*,naive,dist-*",
			 "--gpu", "3", "--min-samples", "7", "--repetitions", "4", NULL };
	struct cli_options o;
	char err[512];
	cr_assert_eq(cli_parse(12, argv, &o, err, sizeof err), CLI_OK, "%s", err);
	cr_expect_eq(o.gpu, 3);
	cr_expect_eq(o.timing.min_samples, 7);
	cr_expect_eq(o.timing.repetitions, 4);
	size_t wanted = 0;
	for (size_t i = 0; i < NBODY_VARIANT_COUNT; i++)
		wanted += cli_wants_variant(&o, i);
	cr_expect_eq(wanted, 2, "--variant and --filter together: the two cpu-* variants");
	cr_expect(cli_wants_variant(&o, NBODY_V_cpu_portable) && cli_wants_variant(&o, NBODY_V_cpu_simd));
	cr_expect(!cli_wants_variant(&o, NBODY_V_naive), "naive is not ^cpu-");
	cli_options_free(&o);

	char *alone[] = { "harness", "check", "--filter", "-cpu$", "--device", "cpu", NULL };
	cr_assert_eq(cli_parse(6, alone, &o, err, sizeof err), CLI_OK, "%s", err);
	cr_expect_eq(o.gpu, -1, "no --gpu: none chosen");
	cr_expect_eq(o.timing.repetitions, 1);
	cr_expect_eq(o.timing.min_samples, 5);
	wanted = 0;
	for (size_t i = 0; i < NBODY_VARIANT_COUNT; i++) {
		bool dist_cpu = strncmp(nbody_variants[i].name, "dist-", 5) == 0 &&
				strstr(nbody_variants[i].name, "-cpu") != NULL;
		cr_expect_eq(cli_wants_variant(&o, i), dist_cpu, "%s", nbody_variants[i].name);
		wanted += cli_wants_variant(&o, i);
	}
	cr_expect_eq(wanted, 3);
	cli_options_free(&o);
}

Test(cli, sampling_and_gpu_values_are_strict)
{
	const char *bad[][2] = {
		{ "--min-samples", "0" }, { "--min-samples", "-3" }, { "--min-samples", "abc" },
		{ "--min-samples", "2.5" }, { "--min-samples", "10001" }, { "--repetitions", "0" },
		{ "--repetitions", "-1" }, { "--repetitions", "three" }, { "--repetitions", "1001" },
		{ "--gpu", "-1" }, { "--gpu", "x" }, { "--gpu", "0.5" }, { "--filter", "a(" },
		{ "--filter", "^nosuch$" },
	};
	for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
		char *argv[] = { "harness", "run", (char *)bad[k][0], (char *)bad[k][1], NULL };
		struct cli_options o;
		char err[2048] = "";
		cr_expect_eq(cli_parse(4, argv, &o, err, sizeof err), CLI_USAGE, "%s %s", bad[k][0],
			     bad[k][1]);
		cr_expect(strstr(err, bad[k][0]) && strstr(err, bad[k][1]), "%s %s: %s", bad[k][0],
			  bad[k][1], err);
	}
}

Test(cli_program, new_options_are_in_the_help)
{
	char out[16384], cmd[512];
	const char *opts[] = { "--filter REGEX", "--gpu INDEX", "--min-samples K", "--repetitions R" };
	snprintf(cmd, sizeof cmd, "%s run --help", harness_bin());
	cr_assert_eq(cli_run_stdout(cmd, out, sizeof out), 0);
	for (size_t i = 0; i < 4; i++)
		cr_expect(strstr(out, opts[i]), "run --help lacks %s", opts[i]);
	cr_expect(strstr(out, "mpirun"), "run --help says what --gpu does under mpirun");
	snprintf(cmd, sizeof cmd, "%s sph run --help", harness_bin());
	cr_assert_eq(cli_run_stdout(cmd, out, sizeof out), 0);
	for (size_t i = 0; i < 4; i++)
		cr_expect(strstr(out, opts[i]), "sph run --help lacks %s", opts[i]);
}

Test(cli_program, new_options_refuse_bad_values_in_one_line)
{
	expect_usage_error("run --min-samples 0", "--min-samples 0");
	expect_usage_error("run --min-samples -2", "--min-samples -2");
	expect_usage_error("run --min-samples many", "'many'");
	expect_usage_error("run --repetitions 0", "--repetitions 0");
	expect_usage_error("run --repetitions -4", "--repetitions -4");
	expect_usage_error("run --repetitions x", "'x'");
	expect_usage_error("run --gpu -1", "--gpu -1");
	expect_usage_error("run --gpu first", "'first'");
	expect_usage_error("run --filter '(cpu'", "'(cpu'");
	expect_usage_error("run --filter nosuch", "--filter 'nosuch' matches no variant (known: cpu-* (2)");
	expect_usage_error("check --filter '^cpu-' --device gpu", "no variant is selected");
	expect_usage_error("check --filter '^cpu-' --variant naive", "no variant is selected");
	cli_expect_usage("sph", "run --min-samples 0", "--min-samples 0");
	cli_expect_usage("sph", "run --repetitions 2.5", "--repetitions '2.5'");
	cli_expect_usage("sph", "run --gpu x", "--gpu 'x'");
	cli_expect_usage("sph", "check --filter nosuch", "matches no SPH variant (known: sph-cpu-grid");
	cli_expect_usage("sph", "check --filter '[a'", "'[a'");
	cli_expect_usage("sph physics", "--gpu -2", "--gpu -2");
	cli_expect_usage("sph render", "--gpu y --variant sph-cpu-grid --at 1 --out /tmp/x", "'y'");
}

/* --gpu past the visible GPUs: one line that says how many there are
 * (none on a machine without a GPU), with a GPU variant asked for or
 * only CPU variants. */
Test(cli_program, gpu_out_of_range_says_how_many_are_visible)
{
	int count = gpu_device_count(), index = count > 0 ? count : 1;
	char args[256], mention[64];
	snprintf(mention, sizeof mention, "--gpu %d: %d GPU", index, count);
	snprintf(args, sizeof args, "run --gpu %d --variant naive --n 64", index);
	expect_usage_error(args, mention);
	snprintf(args, sizeof args, "check --gpu %d --device gpu", index);
	expect_usage_error(args, mention);
	snprintf(args, sizeof args, "run --gpu %d --variant sph-gpu-brute", index);
	cli_expect_usage("sph", args, mention);
	snprintf(args, sizeof args, "--gpu %d --variant sph-gpu-verlet", index);
	cli_expect_usage("sph physics", args, mention);
	snprintf(args, sizeof args, "--gpu %d --variant sph-gpu-verlet --at 1 --out /tmp/x", index);
	cli_expect_usage("sph render", args, mention);
	/* only CPU variants: the index still names no GPU, and the line says
	 * they need none */
	snprintf(args, sizeof args, "check --gpu %d --variant cpu-portable --n 3", index);
	expect_usage_error(args, mention);
	expect_usage_error(args, "the CPU variants selected need no --gpu");
	snprintf(args, sizeof args, "check --gpu %d --variant sph-cpu-grid --column 6x6x7@4", index);
	cli_expect_usage("sph", args, "need no --gpu");
	snprintf(args, sizeof args, "--gpu %d --variant sph-cpu-grid --at 1 --out /tmp/x", index);
	cli_expect_usage("sph render", args, "need no --gpu");
}
