/* test_compare_judge.c - compare's one rule: a change against its resolution and the threshold */
#include <criterion/criterion.h>
#include <math.h>

#include "../../harness/gate/compare.h"

/* ---- the rule ----------------------------------------------------------- */

/* Noises of 0.6 and 0.8 % make a resolution of exactly 1 %. */
#define NB 0.6
#define NV 0.8

Test(compare, judge_rule)
{
	/* 3 % slower, noise sqrt(2^2 + 2^2) = 2.83 %: 3 +- 2.83 straddles 5 */
	struct compare_judgement j = compare_judge(100, 2, 97, 2, 5, 0);
	cr_expect_eq(j.verdict, COMPARE_INCONCLUSIVE);
	cr_expect_not(j.regression);
	cr_expect_float_eq(j.noise_pct, sqrt(8.0), 1e-12);
	cr_expect_float_eq(j.resolution_pct, sqrt(8.0), 1e-12, "compare's resolution is the noise");
	cr_expect_float_eq(j.ratio, 0.97, 1e-12);
	/* a regression needs threshold + resolution: 8 % slower with 2.83 % and 5 % */
	cr_expect(compare_judge(100, 2, 92, 2, 5, 0).regression);
	cr_expect_eq(compare_judge(100, 2, 92, 2, 5, 0).verdict, COMPARE_SLOWER);
	cr_expect_eq(compare_judge(100, 2, 93, 2, 5, 0).verdict, COMPARE_INCONCLUSIVE,
		     "7 %% < 5 %% + 2.83 %%, and 7 - 2.83 %% > 5 %%: neither");
	cr_expect_not(compare_judge(100, 0, 80, 0, 25, 0).regression, "--threshold 25");
	cr_expect_eq(compare_judge(100, 0, 80, 0, 25, 0).verdict, COMPARE_SLOWER);
	cr_expect_not(compare_judge(100, 0, 200, 0, 5, 0).regression, "faster is never one");
	/* within the resolution either way, decided when it is under the threshold */
	cr_expect_eq(compare_judge(100, NB, 99.5, NV, 5, 0).verdict, COMPARE_SAME);
	cr_expect_eq(compare_judge(100, NB, 100.5, NV, 5, 0).verdict, COMPARE_SAME);
	cr_expect_eq(compare_judge(100, 0, 100, 0, 5, 0).verdict, COMPARE_SAME);
	cr_expect_eq(compare_judge(100, NB, 110, NV, 5, 0).verdict, COMPARE_FASTER);
	/* nothing to compare */
	cr_expect_eq(compare_judge(NAN, 1, 100, 1, 5, 0).verdict, COMPARE_UNCOMPARED);
	cr_expect_eq(compare_judge(100, 1, 0, 1, 5, 0).verdict, COMPARE_UNCOMPARED);
	cr_expect_eq(compare_decide(100, 100, NAN, 5, 0).verdict, COMPARE_UNCOMPARED);
}

/* Slowdowns planted at twice and half the threshold (5 %), resolution 1 %:
 * caught at twice, decided "no regression" at half; with a resolution
 * above the threshold neither can be told. */
Test(compare, planted_slowdowns_at_twice_and_half_the_threshold)
{
	struct compare_judgement twice = compare_judge(100, NB, 100 / 1.10, NV, 5, 1);
	cr_expect_eq(twice.verdict, COMPARE_SLOWER);
	cr_expect(twice.regression, "a 10 %% slowdown at 5 %% +- 1 %%");
	struct compare_judgement half = compare_judge(100, NB, 100 / 1.025, NV, 5, 1);
	cr_expect_eq(half.verdict, COMPARE_SLOWER);
	cr_expect_not(half.regression, "2.4 %% + 1 %% is under 5 %%: decided, no regression");
	/* the same slowdowns with a resolution of 6 % (noises 3.6 and 4.8 %) */
	cr_expect_eq(compare_judge(100, 6 * NB, 100 / 1.025, 6 * NV, 5, 1).verdict,
		     COMPARE_INCONCLUSIVE, "2.4 +- 6 %% straddles 5 %%");
	cr_expect_eq(compare_judge(100, 6 * NB, 100 / 1.10, 6 * NV, 5, 1).verdict,
		     COMPARE_INCONCLUSIVE, "9.1 +- 6 %% straddles 5 %%");
	cr_expect_eq(compare_judge(100, 6 * NB, 100 / 1.30, 6 * NV, 5, 1).verdict, COMPARE_SLOWER,
		     "23 - 6 %% is over 5 %%");
	/* no change at all is inconclusive once the resolution exceeds the
	 * threshold: 4 % decides at 5 %, 6 % does not (the 44.8 %-noise case) */
	cr_expect_eq(compare_decide(100, 100, 4, 5, 1).verdict, COMPARE_SAME);
	cr_expect_eq(compare_decide(100, 100, 6, 5, 1).verdict, COMPARE_INCONCLUSIVE);
	cr_expect_eq(compare_decide(100, 74.4, 44.8, 5, 1).verdict, COMPARE_INCONCLUSIVE);
	cr_expect_eq(compare_decide(100, 110, 20, 5, 1).verdict, COMPARE_INCONCLUSIVE,
		     "faster, but not surely by enough to rule out a 5 %% slowdown");
	/* compare_decide takes the resolution as given */
	struct compare_judgement d = compare_decide(100, 100 / 1.10, 1, 5, 1);
	cr_expect(d.regression);
	cr_expect_float_eq(d.resolution_pct, 1.0, 1e-12);
	cr_expect(isnan(d.noise_pct));
}
