/* test_stats.c - tests of stats: summaries, medians and quantiles of small known data */
#include <criterion/criterion.h>

#include <float.h>
#include <math.h>
#include <string.h>

#include "../harness/core/stats.h"

TestSuite(stats);

Test(stats, summary_of_textbook_data)
{
	/* Mean 5; squared deviations 9+1+1+1+0+0+4+16 = 32; 32/7 under the root. */
	const double x[] = { 2, 4, 4, 4, 5, 5, 7, 9 };
	struct stats_summary s;

	cr_assert_eq(stats_summarize(x, 8, &s), 0);
	cr_assert_eq(s.count, 8);
	cr_assert_eq(s.min, 2.0);
	cr_assert_eq(s.max, 9.0);
	cr_assert_eq(s.mean, 5.0);
	cr_assert_eq(s.median, 4.5);
	cr_assert_float_eq(s.stddev, 2.1380899352993950, 1e-15);
	cr_assert_float_eq(s.rel_stddev, 2.1380899352993950 / 5.0, 1e-15);
}

Test(stats, summary_of_unsorted_odd_count_leaves_input_alone)
{
	double x[] = { 9.0, 1.0, 5.0, 3.0, 7.0 };
	const double copy[] = { 9.0, 1.0, 5.0, 3.0, 7.0 };
	struct stats_summary s;

	cr_assert_eq(stats_summarize(x, 5, &s), 0);
	cr_assert_eq(s.min, 1.0);
	cr_assert_eq(s.max, 9.0);
	cr_assert_eq(s.median, 5.0);
	cr_assert_eq(s.mean, 5.0);
	/* Deviations 4,-4,0,-2,2: squares sum to 40, over 4 gives 10. */
	cr_assert_float_eq(s.stddev, sqrt(10.0), 1e-15);
	cr_assert_eq(memcmp(x, copy, sizeof(x)), 0, "input was modified");
}

Test(stats, single_value_has_zero_spread)
{
	const double x[] = { 7.25 };
	struct stats_summary s;

	cr_assert_eq(stats_summarize(x, 1, &s), 0);
	cr_assert_eq(s.count, 1);
	cr_assert_eq(s.min, 7.25);
	cr_assert_eq(s.max, 7.25);
	cr_assert_eq(s.median, 7.25);
	cr_assert_eq(s.stddev, 0.0);
	cr_assert_eq(s.rel_stddev, 0.0);
}

Test(stats, zero_mean_gives_zero_rel_stddev)
{
	const double x[] = { -1.0, 1.0 };
	struct stats_summary s;

	cr_assert_eq(stats_summarize(x, 2, &s), 0);
	cr_assert_eq(s.mean, 0.0);
	cr_assert_float_eq(s.stddev, sqrt(2.0), 1e-15);
	cr_assert_eq(s.rel_stddev, 0.0);
}

Test(stats, summarize_rejects_empty_and_non_finite)
{
	const double nan_in[] = { 1.0, NAN, 3.0 };
	const double inf_in[] = { 1.0, 2.0, -INFINITY };
	struct stats_summary s = { .count = 99 };

	cr_assert_eq(stats_summarize(nan_in, 0, &s), -1);
	cr_assert_eq(stats_summarize(nan_in, 3, &s), -1);
	cr_assert_eq(stats_summarize(inf_in, 3, &s), -1);
	cr_assert_eq(s.count, 99, "out written on failure");
}

Test(stats, median_of_even_and_odd_counts)
{
	const double even[] = { 4.0, 1.0, 3.0, 2.0 };
	const double odd[] = { 3.0, 1.0, 2.0 };
	const double big[] = { DBL_MAX, DBL_MAX / 2 };

	cr_assert_eq(stats_median(even, 4), 2.5);
	cr_assert_eq(stats_median(odd, 3), 2.0);
	cr_assert_eq(stats_median(odd, 1), 3.0);
	/* (a + b) / 2 would overflow to infinity; the median is 0.75 DBL_MAX. */
	cr_assert(isfinite(stats_median(big, 2)), "overflow in the midpoint");
	cr_assert_float_eq(stats_median(big, 2) / DBL_MAX, 0.75, 1e-15);
	cr_assert(isnan(stats_median(even, 0)));
}

Test(stats, quantiles_interpolate_between_order_statistics)
{
	/* Sorted 1,2,3,4: position h = 3q. */
	const double x[] = { 3.0, 1.0, 4.0, 2.0 };
	const double copy[] = { 3.0, 1.0, 4.0, 2.0 };

	cr_assert_eq(stats_quantile(x, 4, 0.0), 1.0);
	cr_assert_eq(stats_quantile(x, 4, 1.0), 4.0);
	cr_assert_eq(stats_quantile(x, 4, 0.5), 2.5);
	cr_assert_float_eq(stats_quantile(x, 4, 0.25), 1.75, 1e-15);
	cr_assert_float_eq(stats_quantile(x, 4, 0.9), 3.7, 1e-15);
	cr_assert_eq(stats_quantile(x, 4, 1.0 / 3.0), 2.0);
	cr_assert_eq(memcmp(x, copy, sizeof(x)), 0, "input was modified");
}

Test(stats, quantile_of_equal_values_is_exact)
{
	const double x[] = { 0.1, 0.1, 0.1 };

	/* Weights 0.82 and 0.18 rejoined would give 0.10000000000000002. */
	cr_assert_eq(stats_quantile(x, 3, 0.09), 0.1);
	cr_assert_eq(stats_quantile(x, 3, 0.77), 0.1);
}

Test(stats, quantile_rejects_bad_arguments)
{
	const double x[] = { 1.0, 2.0 };
	const double with_nan[] = { 1.0, NAN };

	cr_assert(isnan(stats_quantile(x, 0, 0.5)));
	cr_assert(isnan(stats_quantile(x, 2, -0.01)));
	cr_assert(isnan(stats_quantile(x, 2, 1.01)));
	cr_assert(isnan(stats_quantile(x, 2, NAN)));
	cr_assert(isnan(stats_quantile(with_nan, 2, 0.5)));
}

/* Tables of Student's t (0.995): 63.657 at 1, 4.604 at 4, 2.750 at 30,
 * 2.704 at 40, 2.660 at 60, 2.617 at 120, 2.576 in the limit. Between
 * table entries the value lies between its neighbours. */
Test(stats, t995_matches_the_tables)
{
	cr_expect(isnan(stats_t995(0)));
	cr_expect_float_eq(stats_t995(1), 63.657, 1e-9);
	cr_expect_float_eq(stats_t995(4), 4.604, 1e-9);
	cr_expect_float_eq(stats_t995(30), 2.750, 1e-9);
	cr_expect_float_eq(stats_t995(40), 2.704, 1e-9);
	cr_expect_float_eq(stats_t995(60), 2.660, 1e-9);
	cr_expect_float_eq(stats_t995(120), 2.617, 1e-9);
	/* t(50) = 2.678, t(99) = 2.626, t(1000) = 2.581 */
	cr_expect_float_eq(stats_t995(50), 2.678, 2e-3);
	cr_expect_float_eq(stats_t995(99), 2.626, 2e-3);
	cr_expect_float_eq(stats_t995(1000), 2.581, 2e-3);
	for (size_t df = 1; df < 200; df++)
		cr_expect_gt(stats_t995(df), stats_t995(df + 1), "falls with df at %zu", df);
}
