/* test_timing.c - the adaptive sampler, driven by a fake clock */
#include <criterion/criterion.h>
#include <math.h>

#include "../harness/core/timing.h"

/* A timed callback that reports made-up durations: per_call seconds for
 * each call, alternating with per_call * (1 + wobble) when wobble != 0. */
struct fake {
	double per_call;
	double wobble;
	int calls;
	int fail_after; /* fail on this call (0: never) */
};

static int fake_fn(void *ctx, int reps, double *seconds)
{
	struct fake *f = ctx;
	f->calls++;
	if (f->fail_after && f->calls >= f->fail_after)
		return -1;
	double factor = (f->wobble != 0 && f->calls % 2) ? 1 + f->wobble : 1;
	*seconds = reps * f->per_call * factor;
	return 0;
}

static struct timing_opts opts(void)
{
	struct timing_opts o;
	timing_opts_default(&o);
	return o;
}

Test(timing, steady_work_stops_at_min_time_with_noise_met)
{
	struct fake f = { .per_call = 1e-3 };
	struct timing_opts o = opts();
	struct timing_result r;
	cr_assert_eq(timing_measure(fake_fn, &f, &o, &r), 0);
	cr_assert_eq(r.reps_per_sample, 10, "10 ms samples from 1 ms calls");
	/* 0.2 s of 10 ms samples: 20 of them */
	cr_assert_eq(r.count, 20);
	cr_assert_float_eq(r.s.median, 1e-3, 1e-15);
	cr_assert_float_eq(r.s.rel_stddev, 0.0, 1e-12);
	cr_assert(r.noise_met);
	timing_result_free(&r);
}

Test(timing, noisy_work_stops_at_max_time_unmet)
{
	/* Samples alternate between 10 ms and 11 ms: about 4.9 % relative
	 * standard deviation, far above 0.5 %, so only the 5 s cap stops it. */
	struct fake f = { .per_call = 1e-3, .wobble = 0.1 };
	struct timing_opts o = opts();
	struct timing_result r;
	cr_assert_eq(timing_measure(fake_fn, &f, &o, &r), 0);
	cr_assert_geq(r.measured_time, o.max_time);
	cr_assert_lt(r.measured_time, o.max_time + 0.02);
	cr_assert(!r.noise_met);
	cr_assert_float_eq(r.s.min, 1e-3, 1e-15);
	cr_assert_float_eq(r.s.max, 1.1e-3, 1e-15);
	timing_result_free(&r);
}

Test(timing, loose_target_is_met_early)
{
	struct fake f = { .per_call = 1e-3, .wobble = 0.1 };
	struct timing_opts o = opts();
	o.max_noise = 10;
	struct timing_result r;
	cr_assert_eq(timing_measure(fake_fn, &f, &o, &r), 0);
	cr_assert(r.noise_met);
	cr_assert_lt(r.measured_time, 0.25);
	timing_result_free(&r);
}

/* A call longer than --max-time still gets --min-samples samples, one
 * call each, after the warm-up: a row of one sample has no noise and can
 * never be judged. */
Test(timing, call_longer_than_cap_still_takes_min_samples)
{
	struct fake f = { .per_call = 7.0, .wobble = 0.01 };
	struct timing_opts o = opts();
	struct timing_result r;
	cr_assert_eq(timing_measure(fake_fn, &f, &o, &r), 0);
	cr_assert_eq(r.count, o.min_samples, "%zu samples", r.count);
	cr_assert_eq((size_t)f.calls, 1 + o.min_samples, "the warm-up, then a call a sample");
	cr_assert_eq(r.reps_per_sample, 1);
	cr_assert_gt(r.s.rel_stddev, 0, "the noise is known");
	cr_assert_float_eq(r.s.median, 7.0, 0.1);
	timing_result_free(&r);
	/* one sample fewer asked: one fewer taken, no more */
	o.min_samples = 2;
	f.calls = 0;
	cr_assert_eq(timing_measure(fake_fn, &f, &o, &r), 0);
	cr_assert_eq(r.count, 2);
	cr_assert_eq(f.calls, 3);
	timing_result_free(&r);
}

Test(timing, failure_is_reported_and_leaves_nothing)
{
	struct fake f = { .per_call = 1e-3, .fail_after = 3 };
	struct timing_opts o = opts();
	struct timing_result r;
	cr_assert_eq(timing_measure(fake_fn, &f, &o, &r), -1);
	cr_assert_null(r.samples);
	cr_assert_eq(r.count, 0);
}

Test(timing, clock_is_monotonic)
{
	double a = timing_now(), b = timing_now();
	cr_assert_geq(b, a);
}
