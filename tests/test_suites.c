/* test_suites.c - every suite line names real variants and a valid N list */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "../harness/cli.h"
#include "../variants/suites.h"

Test(suites, every_line_resolves)
{
	cr_assert_gt(suite_entry_count, 0);
	for (size_t e = 0; e < suite_entry_count; e++) {
		const struct suite_entry *se = &suite_entries[e];
		struct cli_options o;
		memset(&o, 0, sizeof o);
		char err[512];
		cr_expect_eq(cli_select_variants(se->variants, &o, err, sizeof err), CLI_OK,
			     "suite %s: %s", se->name, err);
		size_t *n = NULL, count = 0;
		cr_expect_eq(cli_parse_suite_n(se->n_list, 2, &n, &count, err, sizeof err), CLI_OK,
			     "suite %s: %s", se->name, err);
		cr_expect_gt(count, 0);
		free(n);
	}
}

Test(suites, the_chapters_figures_are_there)
{
	const char *want[] = { "fig31-5", "fig31-6", "fig31-7", "fig31-8", "steps", "cpu-speedup",
			       "baseline", "scaling", "weak-scaling", "all" };
	for (size_t i = 0; i < sizeof want / sizeof *want; i++)
		cr_expect(suite_exists(want[i]), "suite %s missing", want[i]);
	cr_expect(!suite_exists("fig31-9"));
}

Test(suites, steps_suite_times_steps)
{
	bool found = false;
	for (size_t e = 0; e < suite_entry_count; e++)
		if (strcmp(suite_entries[e].name, "steps") == 0) {
			found = true;
			cr_expect_eq(suite_entries[e].mode, SUITE_STEPS);
		}
	cr_expect(found);
}

Test(suites, fig31_6_has_points_between_powers_of_two)
{
	for (size_t e = 0; e < suite_entry_count; e++) {
		if (strcmp(suite_entries[e].name, "fig31-6") != 0)
			continue;
		size_t *n = NULL, count = 0;
		char err[256];
		cr_assert_eq(cli_parse_n_list(suite_entries[e].n_list, &n, &count, err, sizeof err), CLI_OK);
		cr_expect_eq(n[0], 1024);
		cr_expect_eq(n[1], 1536);
		cr_expect_eq(n[count - 1], 1048576);
		free(n);
	}
}
