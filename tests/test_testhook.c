/* test_testhook.c - the test hooks: off by default, strict when on, exact when planted */
#define _POSIX_C_SOURCE 200809L
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../harness/cli.h"
#include "../harness/core/testhook.h"
#include "../harness/core/timing.h"
#include "cli_run.h"

static void hooks(const char *on, const char *spec)
{
	if (on)
		setenv(TESTHOOK_ENABLE, on, 1);
	else
		unsetenv(TESTHOOK_ENABLE);
	if (spec)
		setenv(TESTHOOK_SLOWDOWN, spec, 1);
	else
		unsetenv(TESTHOOK_SLOWDOWN);
}

Test(testhook, off_unless_switched_on)
{
	char err[256] = "";
	hooks(NULL, "cpu-portable:30");
	cr_assert_null(testhook_active(TESTHOOK_SLOWDOWN));
	cr_assert_eq(testhook_slowdown("cpu-portable"), 0.0);
	cr_assert_eq(testhook_check(cli_names_variant, err, sizeof err), 0);
	hooks("0", "cpu-portable:30");
	cr_assert_eq(testhook_slowdown("cpu-portable"), 0.0);
	hooks("1", NULL);
	cr_assert_null(testhook_active(TESTHOOK_SLOWDOWN));
	cr_assert_eq(testhook_slowdown("cpu-portable"), 0.0);
}

Test(testhook, names_and_globs_first_match_wins)
{
	char err[256] = "";
	hooks("1", "cpu-portable:30,cpu-*:10,sph-cpu-grid:3");
	cr_assert_eq(testhook_check(cli_names_variant, err, sizeof err), 0, "%s", err);
	cr_assert_str_eq(testhook_active(TESTHOOK_SLOWDOWN), "cpu-portable:30,cpu-*:10,sph-cpu-grid:3");
	cr_assert_float_eq(testhook_slowdown("cpu-portable"), 0.30, 1e-12);
	cr_assert_float_eq(testhook_slowdown("cpu-simd"), 0.10, 1e-12);
	cr_assert_float_eq(testhook_slowdown("sph-cpu-grid"), 0.03, 1e-12);
	cr_assert_eq(testhook_slowdown("jsplit-k4"), 0.0);
}

Test(testhook, malformed_specs_are_refused_with_one_line)
{
	const char *bad[] = { "cpu-portable", "cpu-portable:", "cpu-portable:0", "cpu-portable:-5",
			      "cpu-portable:30x", ":30", "cpu-portable:2000", "nosuch:30",
			      "cpu-portable:30,,nosuch:1" };
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		char err[256] = "";
		hooks("1", bad[i]);
		cr_expect_eq(testhook_check(cli_names_variant, err, sizeof err), -1, "'%s' accepted", bad[i]);
		cr_expect(strstr(err, TESTHOOK_SLOWDOWN) != NULL, "'%s': %s", bad[i], err);
		cr_expect_null(strchr(err, '\n'), "one line: %s", err);
		cr_expect_eq(testhook_slowdown("cpu-portable"), strstr(bad[i], "cpu-portable:30,") ? 0.3 : 0.0,
			     "'%s' must plant nothing it cannot parse", bad[i]);
	}
}

Test(testhook, work_in_microseconds_and_its_own_errors)
{
	char err[256] = "";
	hooks("1", NULL);
	setenv(TESTHOOK_WORK, "cpu-*:2000", 1);
	cr_assert_eq(testhook_check(cli_names_variant, err, sizeof err), 0, "%s", err);
	cr_assert_float_eq(testhook_work("cpu-simd"), 2e-3, 1e-15);
	cr_assert_eq(testhook_work("naive"), 0.0);
	cr_assert_eq(testhook_slowdown("cpu-simd"), 0.0, "the two hooks are separate");
	setenv(TESTHOOK_WORK, "cpu-simd:2000000", 1);
	cr_assert_eq(testhook_check(cli_names_variant, err, sizeof err), -1);
	cr_assert(strstr(err, TESTHOOK_WORK) && strstr(err, "MICROSECONDS"), "%s", err);
	unsetenv(TESTHOOK_ENABLE);
	cr_assert_eq(testhook_work("cpu-simd"), 0.0);
}

/* A callback reporting 1 ms per call without taking any time. */
static int testhook_fake(void *ctx, int reps, double *seconds)
{
	(void)ctx;
	*seconds = reps * 1e-3;
	return 0;
}

Test(testhook, a_planted_slowdown_lengthens_every_sample_by_its_fraction)
{
	struct timing_opts o;
	struct timing_result plain, slowed;
	timing_opts_default(&o);
	o.min_time = o.max_time = 0.05;
	cr_assert_eq(timing_measure(testhook_fake, NULL, &o, &plain), 0);
	o.slowdown = 0.3;
	double t0 = timing_now();
	cr_assert_eq(timing_measure(testhook_fake, NULL, &o, &slowed), 0);
	double wall = timing_now() - t0;
	cr_assert_float_eq(plain.s.median, 1e-3, 1e-12);
	/* The wait never falls short; a preempted wait runs long, so the
	 * least disturbed sample shows the planted fraction. */
	cr_assert_geq(slowed.s.min, 1.3e-3, "min %g", slowed.s.min);
	cr_assert_lt(slowed.s.min, 1.4e-3, "min %g", slowed.s.min);
	cr_assert_leq(slowed.reps_per_sample, 8, "the warm-up is padded too: 10 ms / 1.3 ms");
	cr_assert_geq(wall, 0.3 * slowed.measured_time / 1.3 * 0.99, "the wait is real");
	timing_result_free(&plain);
	timing_result_free(&slowed);
}

Test(testhook, fixed_work_comes_before_the_slowdown)
{
	struct timing_opts o;
	struct timing_result r;
	timing_opts_default(&o);
	/* 0.2 s of samples: the more of them, the likelier one undisturbed
	 * sample on a busy machine, the bounds unchanged */
	o.min_time = o.max_time = 0.2;
	o.test_work = 1e-3;
	o.slowdown = 0.5;
	cr_assert_eq(timing_measure(testhook_fake, NULL, &o, &r), 0);
	/* (1 ms reported + 1 to 1.1 ms of work) x 1.5 = 3 to 3.15 ms. The
	 * wrong orders give 2.5 to 2.6 ms (work after the slowdown) or 4.5 ms
	 * and more (the slowdown or the work applied twice); the upper bound
	 * sits between, at 3.75 ms, because on a loaded 2-core machine every
	 * sample of a 50 ms run can be preempted by a few per cent (seen:
	 * min 3.36 ms while compilers ran beside it). */
	cr_assert_geq(r.s.min, 3e-3, "min %g", r.s.min);
	cr_assert_lt(r.s.min, 3.75e-3, "min %g", r.s.min);
	cr_assert_gt(r.s.max, r.s.min, "the work has a spread");
	timing_result_free(&r);
}

Test(testhook, the_program_refuses_a_malformed_spec)
{
	char cmd[512], e[4096];
	snprintf(cmd, sizeof cmd, "%s=1 %s=nosuch:5 %s list", TESTHOOK_ENABLE, TESTHOOK_SLOWDOWN,
		 cli_harness_bin());
	cr_assert_eq(cli_run(cmd, e, sizeof e), 2, "%s", e);
	cr_assert(strstr(e, "nosuch") && strchr(e, '\n') == strrchr(e, '\n'), "%s", e);
}
