/* test_repetitions.c - a row measured several times: the aggregate of the repetitions, on a fake clock */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "../harness/core/repetitions.h"
#include "../harness/core/stats.h"

/* A timed callback whose calls take per_call[k] seconds in its k-th
 * repetition: a repetition starts with timing_measure's warm-up, the only
 * call of one rep (the calls are far shorter than a sample). */
struct fake {
	double per_call[4];
	int warmups;   /* warm-up calls seen: the repetition now is warmups - 1 */
	int calls;
	int fail_in;   /* fail every call of this repetition (1-based; 0: never) */
	double wobble; /* every other sample lasts 1 + wobble times as long */
};

static int fake_fn(void *ctx, int reps, double *seconds)
{
	struct fake *f = ctx;
	f->calls++;
	f->warmups += reps == 1;
	if (f->fail_in && f->warmups == f->fail_in)
		return -1;
	*seconds = reps * f->per_call[f->warmups - 1] * (reps > 1 && f->calls % 2 ? 1 + f->wobble : 1);
	return 0;
}

static struct timing_opts opts(size_t repetitions)
{
	struct timing_opts o;
	timing_opts_default(&o);
	o.repetitions = repetitions;
	return o;
}

Test(repetitions, one_is_timing_measure_itself)
{
	struct fake a = { .per_call = { 1e-3 } }, b = a;
	struct timing_opts o = opts(1);
	struct timing_result r, t;
	cr_assert_eq(repetitions_measure(fake_fn, &a, &o, &r), 0);
	cr_assert_eq(timing_measure(fake_fn, &b, &o, &t), 0);
	cr_expect_null(r.reps);
	cr_expect_eq(r.nreps, 0);
	cr_expect_eq(r.count, t.count);
	cr_expect_eq(a.calls, b.calls);
	cr_expect(memcmp(&r.s, &t.s, sizeof r.s) == 0);
	cr_expect(isnan(repetitions_range_pct(&r)));
	timing_result_free(&r);
	timing_result_free(&t);
}

Test(repetitions, three_give_the_median_of_their_medians)
{
	/* steady calls within each repetition, another length in each */
	struct fake f = { .per_call = { 1.0e-3, 1.2e-3, 1.05e-3 } };
	struct timing_opts o = opts(3);
	struct timing_result r;
	cr_assert_eq(repetitions_measure(fake_fn, &f, &o, &r), 0);
	cr_assert_eq(f.warmups, 3, "three independent measurements, each warmed up");
	cr_assert_eq(r.nreps, 3);
	size_t total = 0;
	for (size_t k = 0; k < 3; k++) {
		cr_expect_float_eq(r.reps[k].s.median, f.per_call[k], 1e-15);
		cr_expect(memcmp(r.samples + total, r.reps[k].samples,
				 r.reps[k].count * sizeof *r.samples) == 0,
			  "repetition %zu's samples follow the one before's", k);
		total += r.reps[k].count;
	}
	cr_expect_eq(r.count, total, "every repetition's samples are kept");
	cr_expect_float_eq(r.s.median, 1.05e-3, 1e-15, "the median of the medians");
	cr_expect_float_eq(r.s.min, 1.0e-3, 1e-15);
	cr_expect_float_eq(r.s.max, 1.2e-3, 1e-15);
	/* the medians 1, 1.2 and 1.05 ms: their standard deviation over
	 * their mean is the noise, above the pooled samples' */
	double med[3] = { 1.0e-3, 1.2e-3, 1.05e-3 };
	struct stats_summary between, pooled;
	cr_assert_eq(stats_summarize(med, 3, &between), 0);
	cr_assert_eq(stats_summarize(r.samples, r.count, &pooled), 0);
	cr_assert_gt(between.rel_stddev, pooled.rel_stddev, "the case where the medians decide");
	cr_expect_float_eq(r.s.rel_stddev, between.rel_stddev, 1e-12);
	cr_expect_float_eq(r.s.stddev, between.rel_stddev * pooled.mean, 1e-15);
	cr_expect(!r.noise_met, "%g %% is above the 0.5 %% target", 100 * r.s.rel_stddev);
	cr_expect_float_eq(repetitions_range_pct(&r), 100.0 * 0.2 / 1.05, 1e-9);
	char cell[32];
	repetitions_cell(cell, sizeof cell, &r);
	cr_expect_str_eq(cell, "19.05%");
	timing_result_free(&r);
	cr_expect_null(r.reps);
}

Test(repetitions, noise_within_repetitions_is_kept_when_larger)
{
	/* close medians, samples that alternate by 10 % within each
	 * repetition: the samples' spread is the larger */
	struct fake f = { .per_call = { 1e-3, 1.001e-3 }, .wobble = 0.1 };
	struct timing_opts o = opts(2);
	o.max_noise = 10; /* met early, after min_samples */
	struct timing_result r;
	cr_assert_eq(repetitions_measure(fake_fn, &f, &o, &r), 0);
	double med[2] = { r.reps[0].s.median, r.reps[1].s.median };
	struct stats_summary pooled, between;
	cr_assert_eq(stats_summarize(r.samples, r.count, &pooled), 0);
	cr_assert_eq(stats_summarize(med, 2, &between), 0);
	cr_assert_gt(pooled.rel_stddev, between.rel_stddev, "the case where the samples decide");
	cr_expect_float_eq(r.s.rel_stddev, pooled.rel_stddev, 1e-15);
	cr_expect(r.noise_met, "%g %% is within 10 %%", 100 * r.s.rel_stddev);
	timing_result_free(&r);
}

Test(repetitions, a_failed_repetition_leaves_nothing)
{
	struct fake f = { .per_call = { 1e-3, 1e-3, 1e-3 }, .fail_in = 2 };
	struct timing_opts o = opts(3);
	struct timing_result r;
	cr_assert_eq(repetitions_measure(fake_fn, &f, &o, &r), -1);
	cr_expect_null(r.samples);
	cr_expect_null(r.reps);
	cr_expect_eq(r.count, 0);
	cr_expect_eq(r.nreps, 0);
}

Test(repetitions, the_prediction_counts_every_repetition)
{
	struct timing_opts one = opts(1), three = opts(3);
	cr_expect_float_eq(repetitions_predict(&one, 1e-3), 1e-3 + 5.0, 1e-12);
	cr_expect_float_eq(repetitions_predict(&three, 1e-3), 3 * (1e-3 + 5.0), 1e-12);
	/* a call past --max-time: the warm-up and --min-samples (5) calls */
	cr_expect_float_eq(repetitions_predict(&one, 7.0), 6 * 7.0, 1e-12, "a call past --max-time");
	/* a call whose five samples outlast the 5 s cap: them, not the cap */
	cr_expect_float_eq(repetitions_predict(&one, 1.5), 1.5 + 5 * 1.5, 1e-12);
}
