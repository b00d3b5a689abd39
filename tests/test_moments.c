/* test_moments.c - moments of a flow (--warm-steps, --at): one rule for steps, one for seconds, as stated */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../harness/cli.h"
#include "cli_run.h"

/* The limits the rule states, read from its text. */
static void stated_limits(unsigned long *max_steps, double *max_secs)
{
	cr_assert_eq(sscanf(CLI_MOMENTS_RULE, "0 <= steps <= %lu or 0s <= seconds of flow <= %lfs",
			    max_steps, max_secs), 2, "the rule reads: %s", CLI_MOMENTS_RULE);
}

static int parse(const char *s, char *err, size_t errlen)
{
	struct cli_moments m;
	err[0] = '\0';
	return cli_parse_moments("--warm-steps", s, &m, err, errlen);
}

/* A value the parser refuses: the message names it as given, unit and
 * all, and states the rule. */
static void expect_refused(const char *list, const char *value)
{
	char err[1024], want[128];
	cr_expect_eq(parse(list, err, sizeof err), CLI_USAGE, "%s accepted", list);
	snprintf(want, sizeof want, " %s is out of range", value);
	cr_expect(strstr(err, want) != NULL, "'%s': no '%s' in: %s", list, want, err);
	cr_expect(strstr(err, CLI_MOMENTS_RULE) != NULL, "'%s': the rule is not stated: %s", list, err);
}

/* The limit the rule states for each unit is the limit applied: at it
 * accepted, past it refused with a message in the value's own unit. */
Test(moments, the_rule_stated_is_the_rule_applied)
{
	unsigned long max_steps;
	double max_secs;
	char list[96], past[48], err[1024];
	stated_limits(&max_steps, &max_secs);
	snprintf(list, sizeof list, "%lu", max_steps);
	cr_expect_eq(parse(list, err, sizeof err), CLI_OK, "%s: %s", list, err);
	snprintf(past, sizeof past, "%lu", max_steps + 1);
	snprintf(list, sizeof list, "20,%s", past);
	expect_refused(list, past);
	snprintf(list, sizeof list, "%gs", max_secs);
	cr_expect_eq(parse(list, err, sizeof err), CLI_OK, "%s: %s", list, err);
	snprintf(past, sizeof past, "%gs", max_secs * 1.001);
	expect_refused(past, past);
	/* below zero, in either unit, named in that unit */
	expect_refused("20,-1s", "-1s");
	expect_refused("-1", "-1");
	cr_expect_eq(parse("0,0s,20,0.1s", err, sizeof err), CLI_OK, "%s", err);
}

/* Values that are neither are refused, named as given. */
Test(moments, malformed_values_are_named)
{
	const char *bad[] = { "2.5", "1e3", "0x1s", "s", "1s5", "nans", "", "20,,x" };
	char err[1024];
	for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
		struct cli_moments m;
		int rc = cli_parse_moments("--at", bad[k], &m, err, sizeof err);
		if (bad[k][0] == '\0') {
			cr_expect(rc == CLI_OK && m.n == 0, "an empty list is no moment");
			continue;
		}
		cr_expect_eq(rc, CLI_USAGE, "'%s' accepted", bad[k]);
		cr_expect(strstr(err, "--at '") && strstr(err, CLI_MOMENTS_RULE), "%s: %s", bad[k], err);
	}
	char many[128] = "0";
	for (int k = 1; k <= CLI_MAX_MOMENTS; k++)
		snprintf(many + strlen(many), sizeof many - strlen(many), ",%d", k);
	cr_expect_eq(parse(many, err, sizeof err), CLI_USAGE, "%d values accepted", CLI_MAX_MOMENTS + 1);
	cr_expect(strstr(err, "more than 16 values"), "%s", err);
}

/* Seconds come to steps of the scene's dt, and the steps' limit holds
 * for them too, said with both units. */
Test(moments, seconds_past_the_steps_limit_are_refused_in_both_units)
{
	unsigned long max_steps, steps[CLI_MAX_MOMENTS];
	double max_secs;
	char err[1024];
	struct cli_moments m;
	stated_limits(&max_steps, &max_secs);
	cr_assert_eq(cli_parse_moments("--warm-steps", "20,10s", &m, err, sizeof err), CLI_OK, "%s", err);
	const unsigned long max = CLI_MOMENT_MAX_STEPS;
	cr_expect_eq(cli_moments_steps("--warm-steps", &m, 1e-4, max, false, steps, err, sizeof err),
		     0, "%s", err);
	cr_expect_eq(steps[0], 20);
	cr_expect_eq(steps[1], 100000);
	const double dt = max_secs / (2.0 * (double)max_steps); /* max_secs: twice the steps */
	cr_expect_eq(cli_moments_steps("--warm-steps", &m, dt, max, false, steps, err, sizeof err),
		     -1);
	cr_expect(strstr(err, "10s is 2000000 steps") && strstr(err, CLI_MOMENTS_RULE), "%s", err);
	cr_assert_eq(cli_parse_moments("--at", "5,3", &m, err, sizeof err), CLI_OK, "%s", err);
	cr_expect_eq(cli_moments_steps("--at", &m, 1e-4, max, true, steps, err, sizeof err), -1);
	cr_expect(strstr(err, "ascending"), "%s", err);
}

/* The program: --help states the rule for both options, and a value
 * past it is one line naming it in its unit. */
Test(moments, the_help_and_the_message_state_the_rule)
{
	static char out[1 << 15];
	const char *cmds[] = { "sph run --help", "sph render --help" };
	for (size_t k = 0; k < sizeof cmds / sizeof *cmds; k++) {
		char cmd[256];
		snprintf(cmd, sizeof cmd, "%s %s", cli_harness_bin(), cmds[k]);
		cr_assert_eq(cli_run_stdout(cmd, out, sizeof out), 0, "%s", cmd);
		cr_expect(strstr(out, CLI_MOMENTS_STEPS) && strstr(out, CLI_MOMENTS_SECONDS),
			  "%s does not state the rule:\n%s", cmds[k], out);
	}
	cli_expect_usage("sph", "check -v sph-cpu-grid --warm-steps 20,-1s",
			 "'20,-1s': -1s is out of range");
	/* (--width 0 after it: a parser that took 11s stops there, not after 11 s of flow) */
	cli_expect_usage("sph render", "-v sph-cpu-grid --at 0,11s --width 0 --out /tmp/never",
			 "11s is out of range");
}
