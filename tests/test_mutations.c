/* test_mutations.c - the bugs make mutate plants still fit the sources (suite mutations) */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <stdlib.h>

#include "cli_run.h"

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
