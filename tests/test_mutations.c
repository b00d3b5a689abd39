/* test_mutations.c - the bugs make mutate plants still fit the sources (suite mutations) */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <stdbool.h>
#include <stdlib.h>

#include "cli_run.h"
#include "tmp_dir.h"

/* Every snippet of tests/mutations.txt occurs once in its file: a change
 * to the code that moves a snippet would otherwise leave make mutate
 * unable to plant that bug, found only at its next hour-long run. */
Test(mutations, every_snippet_is_found_once, .timeout = 60)
{
	if (getenv("HARNESS_MUTATION_RUN"))
		cr_skip_test("inside make mutate, whose planted bug moves its own snippet");
	if (system("command -v python3 >/dev/null 2>&1") != 0)
		cr_skip_test("python3 is not installed (make mutate needs it)");
	char err[8192];
	int rc = cli_run("python3 tests/mutate.py --check", err, sizeof err);
	cr_assert_eq(rc, 0, "tests/mutations.txt does not fit the sources: %s", err);
}

/* A C file for the rule mutants: a comparison, an && and a ! on one
 * line (whose comment has another); an early return and continue; a
 * break before a case label (early) and one that ends its switch (not);
 * the function's last return (not early); a string, a comment and a
 * preprocessor line with operators of their own (never changed). */
static const char mutations_fixture[] =
	"/* fx.c - a fixture */\n"					/* 1 */
	"#include <stdio.h>\n"						/* 2 */
	"#define LIMIT (3 < 4) /* a < b */\n"				/* 3 */
	"\n"								/* 4 */
	"static int f(int a, int b)\n"					/* 5 */
	"{\n"								/* 6 */
	"\tconst char *s = \"a < b && !c\";\n"				/* 7 */
	"\tif (a < b && !b) // x == y\n"				/* 8 */
	"\t\treturn -1;\n"						/* 9 */
	"\tfor (int i = 0; i < a; i++) {\n"				/* 10 */
	"\t\tif (i == 2)\n"						/* 11 */
	"\t\t\tcontinue;\n"						/* 12 */
	"\t\tb += i * 2 - a;\n"						/* 13 */
	"\t}\n"								/* 14 */
	"\tswitch (a) {\n"						/* 15 */
	"\tcase 1:\n"							/* 16 */
	"\t\tbreak;\n"							/* 17 */
	"\tdefault:\n"							/* 18 */
	"\t\tbreak;\n"							/* 19 */
	"\t}\n"								/* 20 */
	"\treturn b + (s != 0);\n"					/* 21 */
	"}\n";								/* 22 */

/* tests/mutate_rules.py FILE's mutants of the fixture, one a line. */
static void mutations_rules_of_fixture(char *out, size_t len)
{
	char dir[64], path[128], cmd[256];
	tmp_dir_make(dir, "rules");
	snprintf(path, sizeof path, "%s/fx.c", dir);
	FILE *fp = fopen(path, "w");
	cr_assert_not_null(fp);
	fputs(mutations_fixture, fp);
	fclose(fp);
	snprintf(cmd, sizeof cmd, "python3 tests/mutate_rules.py %s", path);
	cr_assert_eq(cli_run_stdout(cmd, out, len), 0, "%s failed", cmd);
	tmp_dir_remove(dir);
}

/* Whether out has a mutant FILE:LINE:COL:RULE ending in tail. */
static bool mutations_has(const char *out, const char *tail)
{
	for (const char *p = strstr(out, tail); p; p = strstr(p + 1, tail))
		if (p[strlen(tail)] == '\t')
			return true;
	return false;
}

/* Every rule fires where it should, and nothing is made in comments,
 * strings and preprocessor lines, nor from exits that are not early. */
Test(mutations, rules_make_each_mutant_where_code_is, .timeout = 60)
{
	if (system("command -v python3 >/dev/null 2>&1") != 0)
		cr_skip_test("python3 is not installed (make mutate needs it)");
	char out[16384];
	mutations_rules_of_fixture(out, sizeof out);
	static const char *const want[] = {
		"fx.c:8:8:rel-strict", "fx.c:8:8:rel-flip", "fx.c:8:12:logic-swap",
		"fx.c:8:15:not-drop", "fx.c:9:3:return-drop", "fx.c:9:11:const-inc",
		"fx.c:9:11:const-dec", "fx.c:10:22:bound-inc", "fx.c:10:22:bound-dec",
		"fx.c:11:9:eq-flip", "fx.c:12:4:continue-drop", "fx.c:13:14:term-drop",
		"fx.c:17:3:break-drop", "fx.c:21:11:term-drop", "fx.c:21:16:eq-flip",
	};
	for (size_t i = 0; i < sizeof want / sizeof *want; i++)
		cr_expect(mutations_has(out, want[i]), "no mutant %s in:\n%s", want[i], out);
	static const char *const never[] = {
		"fx.c:19:3:break-drop",		/* the switch's last statement */
		"fx.c:21:2:return-drop",	/* the function's last statement */
	};
	for (size_t i = 0; i < sizeof never / sizeof *never; i++)
		cr_expect(!mutations_has(out, never[i]), "a mutant %s in:\n%s", never[i], out);
	for (const char *l = out; *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : l + strlen(l)) {
		const char *c = strstr(l, "fx.c:");
		cr_assert_not_null(c, "%s", l);
		int line = atoi(c + 5);
		cr_expect(line >= 8,
			  "a mutant in a comment, string or directive: %.80s", l);
	}
	/* the comment on line 8 keeps its == */
	cr_expect(!mutations_has(out, "fx.c:8:24:eq-flip"), "%s", out);
}

/* The sample is the seed's: the same mutants for the same seed and
 * sources, others for another seed, the count asked for, each file with
 * at least one. */
Test(mutations, rules_sample_is_the_seeds, .timeout = 60)
{
	if (system("command -v python3 >/dev/null 2>&1") != 0)
		cr_skip_test("python3 is not installed (make mutate needs it)");
	static char a[65536], b[65536], c[65536];
	const char *files = "harness/gate/ab_judge.c reference/ic.c harness/core/stats.c";
	char cmd[512];
	snprintf(cmd, sizeof cmd, "python3 tests/mutate_rules.py --seed 1 --count 30 %s", files);
	cr_assert_eq(cli_run_stdout(cmd, a, sizeof a), 0);
	cr_assert_eq(cli_run_stdout(cmd, b, sizeof b), 0);
	snprintf(cmd, sizeof cmd, "python3 tests/mutate_rules.py --seed 2 --count 30 %s", files);
	cr_assert_eq(cli_run_stdout(cmd, c, sizeof c), 0);
	cr_expect_str_eq(a, b, "seed 1 drew two samples");
	cr_expect_str_neq(a, c, "seeds 1 and 2 drew the same sample");
	size_t lines = 0;
	for (const char *p = a; (p = strchr(p, '\n')); p++)
		lines++;
	cr_expect_eq(lines, 30, "%zu mutants drawn for 30:\n%s", lines, a);
	cr_expect(strstr(a, "harness/gate/ab_judge.c:") && strstr(a, "reference/ic.c:") &&
		  strstr(a, "harness/core/stats.c:"), "a file without a mutant:\n%s", a);
}

/* make mutate's default rule sample fits the sources: every mutant's
 * snippet once in its file (they are made from the sources, so this
 * fails only when the generator breaks or cannot preprocess the build's
 * files). */
Test(mutations, rules_sample_fits_the_sources, .timeout = 120)
{
	if (system("command -v python3 >/dev/null 2>&1") != 0)
		cr_skip_test("python3 is not installed (make mutate needs it)");
	char err[8192];
	int rc = cli_run("python3 tests/mutate.py --rules --check", err, sizeof err);
	cr_assert_eq(rc, 0, "the rule mutants do not fit the sources: %s", err);
}
