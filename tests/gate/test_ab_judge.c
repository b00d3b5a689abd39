/* test_ab_judge.c - an A/B run's verdicts from its rounds: the resolution, planted slowdowns at twice and half the threshold */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../harness/gate/ab_judge.h"
#include "../../harness/gate/ab_pool.h"
#include "../../harness/nbody/nbody_results.h"
#include "../../harness/core/results.h"
#include "../../harness/core/stats.h"
#include "../cpu_row.h"
#include "../tmp_dir.h"

static char dir[64];

static void make_dir(void)
{
	tmp_dir_make(dir, "ab-judge");
}

static void remove_dir(void)
{
	tmp_dir_remove(dir);
}

TestSuite(ab_judge, .init = make_dir, .fini = remove_dir);

Test(ab_judge, estimate_from_the_rounds)
{
	/* log ratios 0.01 and 0.03: sd 0.01 sqrt(2), t(1) = 63.657, over sqrt(2) */
	struct compare_estimate x =
		ab_judge_estimate((double[]){ exp(0.01), exp(0.03) }, (double[]){ 1e-3, 1e-3 }, 2);
	cr_expect_float_eq(x.ratio, exp(0.02), 1e-12, "the geometric mean");
	cr_expect_float_eq(x.resolution_pct, 100 * (exp(63.657 * 0.01) - 1), 1e-9);
	/* rounds that agree exactly: the samples' spread (0.5 %) is the floor */
	x = ab_judge_estimate((double[]){ 1.02, 1.02, 1.02, 1.02 },
			      (double[]){ 0.005, 0.005, 0.005, 0.005 }, 4);
	cr_expect_float_eq(x.ratio, 1.02, 1e-12);
	cr_expect_float_eq(x.resolution_pct, 100 * (exp(5.841 * 0.005 / 2) - 1), 1e-9);
	/* the floor is the rounds' root mean square */
	x = ab_judge_estimate((double[]){ 1, 1 }, (double[]){ 0.003, 0.004 }, 2);
	cr_expect_float_eq(x.resolution_pct, 100 * (exp(63.657 * sqrt(0.125e-4) / sqrt(2.0)) - 1),
			   1e-9);
	/* a run twice as fast and one twice as slow cancel */
	x = ab_judge_estimate((double[]){ 2, 0.5 }, (double[]){ 0, 0 }, 2);
	cr_expect_float_eq(x.ratio, 1.0, 1e-12);
	cr_expect(isnan(ab_judge_estimate((double[]){ 1 }, (double[]){ 0 }, 1).resolution_pct),
		  "one round: none");
	cr_expect(isnan(ab_judge_estimate((double[]){ 1, 0 }, (double[]){ 0, 0 }, 2).ratio),
		  "a ratio of 0: none");
	/* the same spread over more rounds tells smaller changes apart */
	double r[8], w[8] = { 0 };
	for (int k = 0; k < 8; k++)
		r[k] = exp(k % 2 ? -0.01 : 0.01);
	cr_expect_lt(ab_judge_estimate(r, w, 8).resolution_pct,
		     ab_judge_estimate(r, w, 2).resolution_pct / 10);
}

#define AB_JUDGE_SAMPLES 20

/* One side's round: cpu-portable at N = 1000, AB_JUDGE_SAMPLES samples
 * of seconds * (1 + 0.5 % spread, the same pattern in every round), into
 * DIR/<side>-r<k>.csv with its sidecar. Returns its path (static). */
static int round_samples = AB_JUDGE_SAMPLES; /* samples a round's row has */

static const char *ab_judge_round(const char *side, int k, double seconds)
{
	static char paths[64][160];
	static int next;
	static double samples[64][AB_JUDGE_SAMPLES];
	int slot = next++ % 64;
	for (int i = 0; i < AB_JUDGE_SAMPLES; i++)
		samples[slot][i] = seconds * (1 + 0.005 * sin(1.0 + i * 2.39996));
	struct result_row r = cpu_row_of(&nbody_variants[NBODY_V_cpu_portable], samples[slot],
					 (size_t)round_samples, true);
	snprintf(paths[slot], sizeof paths[slot], "%s/%s-r%d.csv", dir, side, k);
	cpu_rows_write(paths[slot], &r, 1);
	return paths[slot];
}

/*
 * R rounds of one row: BASE takes 1 ms a call times (1 + drift_k), NEW
 * the same times (1 + planted / 100) times (1 + wobble_k), pooled and
 * judged at threshold 2 % (floor 0.5 %). Returns the judged entry's
 * verdict and regression flag, its resolution in *res.
 */
static struct compare_judgement ab_judge_case(const char *name, int rounds, double planted,
					      const double *wobble, double *res)
{
	const char *b[16], *v[16];
	char bout[160], vout[160], err[512];
	for (int k = 0; k < rounds; k++) {
		double drift = 0.03 * (k % 3); /* a machine that slows by a few % now and then */
		char side[64];
		snprintf(side, sizeof side, "%s-base", name);
		b[k] = ab_judge_round(side, k, 1e-3 * (1 + drift));
		snprintf(side, sizeof side, "%s-new", name);
		v[k] = ab_judge_round(side, k, 1e-3 * (1 + drift) * (1 + planted / 100) *
						       (1 + (wobble ? wobble[k] : 0)));
	}
	struct ab_pool_info info = { "base", "bin/harness", NULL, "ABBA", 0, NULL };
	struct ab_pool_summary sum;
	snprintf(bout, sizeof bout, "%s/%s-base.csv", dir, name);
	snprintf(vout, sizeof vout, "%s/%s-new.csv", dir, name);
	cr_assert_eq(ab_pool(b, (size_t)rounds, bout, &info, &sum, err, sizeof err), 0, "%s", err);
	cr_assert_eq(ab_pool(v, (size_t)rounds, vout, &info, &sum, err, sizeof err), 0, "%s", err);
	struct compare_opts o = { .threshold_pct = 2, .min_change_pct = 0.5 };
	struct compare_report r;
	cr_assert_eq(ab_judge(bout, vout, b, v, (size_t)rounds, &o, &r, err, sizeof err), 0, "%s", err);
	cr_assert_eq(r.count, 1);
	cr_assert_eq(r.rounds, rounds);
	struct compare_judgement j = r.entries[0].raw;
	*res = j.resolution_pct;
	compare_report_free(&r);
	return j;
}

/* Rounds on a machine that drifts by up to 6 % between them, both sides
 * alike (as ABBA makes it): the pooled noise is several % and cannot
 * decide at 2 %, but each round's change is steady, so the rounds can.
 * Planted at twice the threshold (4 %): caught; at half (1 %): decided,
 * no regression. */
Test(ab_judge, planted_slowdowns_at_twice_and_half_the_threshold)
{
	double res;
	struct compare_judgement twice = ab_judge_case("twice", 4, 4, NULL, &res);
	cr_expect_eq(twice.verdict, COMPARE_SLOWER);
	cr_expect(twice.regression, "4 %% planted at 2 %%: ratio %g, resolution %g %%", twice.ratio, res);
	cr_expect(res > 0 && res < 1, "resolution %g %%", res);
	cr_expect_gt(twice.noise_pct, 2, "the pooled noise alone (%g %%) could not decide",
		     twice.noise_pct);
	struct compare_judgement half = ab_judge_case("half", 4, 1, NULL, &res);
	cr_expect_eq(half.verdict, COMPARE_SLOWER, "ratio %g, resolution %g %%", half.ratio, res);
	cr_expect_not(half.regression, "1 %% planted at 2 %%: decided, no regression");
	struct compare_judgement none = ab_judge_case("none", 4, 0, NULL, &res);
	cr_expect_eq(none.verdict, COMPARE_SAME);
}

/* NEW's rounds wobble by up to +-2 % against BASE's: two rounds cannot
 * tell a 4 % slowdown from 2 %, and say so; more rounds of the same
 * wobble can. */
Test(ab_judge, rounds_that_disagree_are_inconclusive_until_there_are_enough)
{
	const double wobble[16] = { 0.02, -0.02, 0.01, -0.01, 0.02, -0.02, 0.01, -0.01,
				    0.02, -0.02, 0.01, -0.01, 0.02, -0.02, 0.01, -0.01 };
	double res2, res16;
	struct compare_judgement two = ab_judge_case("two", 2, 4, wobble, &res2);
	cr_expect_eq(two.verdict, COMPARE_INCONCLUSIVE, "resolution %g %%", res2);
	cr_expect_not(two.regression);
	struct compare_judgement many = ab_judge_case("many", 16, 4, wobble, &res16);
	cr_expect_lt(res16, res2 / 20, "%g %% against %g %%", res16, res2);
	cr_expect_eq(many.verdict, COMPARE_SLOWER, "resolution %g %%", res16);
	cr_expect(many.regression);
	/* with one round the rows' noise decides, as in compare */
	double res1;
	struct compare_judgement one = ab_judge_case("one", 1, 4, NULL, &res1);
	cr_expect_float_eq(res1, one.noise_pct, 1e-9);
}

/* Rows of one sample a run (N = 2^20 takes one in a short --max-time): a
 * run alone has no spread (noise unknown, as compare says), but three or
 * more rounds' ratios measure it. Planted 4 % at 2 %: caught with three
 * rounds; 1 %: decided, no regression; with two rounds: inconclusive. */
Test(ab_judge, one_sample_rounds_are_judged_by_the_rounds)
{
	double res;
	round_samples = 1;
	struct compare_judgement twice = ab_judge_case("one-twice", 3, 4, NULL, &res);
	cr_expect_eq(twice.verdict, COMPARE_SLOWER, "resolution %g %%", res);
	cr_expect(twice.regression);
	cr_expect(isfinite(res), "resolution %g %%", res);
	struct compare_judgement half = ab_judge_case("one-half", 3, 1, NULL, &res);
	cr_expect_eq(half.verdict, COMPARE_SLOWER, "resolution %g %%", res);
	cr_expect_not(half.regression);
	const double wobble[3] = { 0.01, -0.01, 0.005 };
	struct compare_judgement wob = ab_judge_case("one-wobble", 3, 4, wobble, &res);
	cr_expect(res > 1 && isfinite(res), "the rounds' spread: %g %%", res);
	cr_expect_eq(wob.verdict, COMPARE_INCONCLUSIVE, "t(2) over +-1 %% rounds: %g %%", res);
	struct compare_judgement two = ab_judge_case("one-two", 2, 4, NULL, &res);
	cr_expect_eq(two.verdict, COMPARE_INCONCLUSIVE, "two rounds of one sample: %g %%", res);
	round_samples = AB_JUDGE_SAMPLES;
}

/*
 * The table's figures and its ratio agree. Rounds in which the machine
 * slowed for BASE's third run: the pooled medians (BASE 1 ms, NEW 1.05
 * ms a call) say NEW is slower, the rounds' ratios (0.95, 0.95, 1.27 in
 * time) that it is faster. The columns show each side's geometric mean
 * of its rounds, whose ratio is the rounds' ratio, never the pooled
 * medians beside it.
 */
Test(ab_judge, the_figures_shown_have_the_ratio_shown)
{
	const double base_s[3] = { 1.0e-3, 1.0e-3, 1.3e-3 }, new_s[3] = { 1.05e-3, 1.05e-3, 1.02e-3 };
	const char *b[3], *v[3];
	char bout[160], vout[160], err[512];
	for (int k = 0; k < 3; k++) {
		b[k] = ab_judge_round("agree-base", k, base_s[k]);
		v[k] = ab_judge_round("agree-new", k, new_s[k]);
	}
	struct ab_pool_info info = { "base", "bin/harness", NULL, "ABA", 0, NULL };
	struct ab_pool_summary sum;
	snprintf(bout, sizeof bout, "%s/agree-base.csv", dir);
	snprintf(vout, sizeof vout, "%s/agree-new.csv", dir);
	cr_assert_eq(ab_pool(b, 3, bout, &info, &sum, err, sizeof err), 0, "%s", err);
	cr_assert_eq(ab_pool(v, 3, vout, &info, &sum, err, sizeof err), 0, "%s", err);
	struct compare_opts o = { .threshold_pct = 2, .min_change_pct = 0.5 };
	struct compare_report pooled, r;
	cr_assert_eq(compare_files(bout, vout, &o, &pooled, err, sizeof err), 0, "%s", err);
	cr_assert_lt(pooled.entries[0].new.value, pooled.entries[0].base.value,
		     "the pooled medians say NEW is slower");
	compare_report_free(&pooled);
	cr_assert_eq(ab_judge(bout, vout, b, v, 3, &o, &r, err, sizeof err), 0, "%s", err);
	const struct compare_entry *e = &r.entries[0];
	cr_expect_gt(e->raw.ratio, 1, "the rounds say NEW is faster: %g", e->raw.ratio);
	cr_expect_float_eq(e->new.value / e->base.value, e->raw.ratio, 1e-12);
	/* interactions/s of a call of t seconds at N = 1000: 1e6 / t */
	double gb = 1e6 / cbrt(base_s[0] * base_s[1] * base_s[2]);
	double gn = 1e6 / cbrt(new_s[0] * new_s[1] * new_s[2]);
	cr_expect_float_eq(e->base.value, gb, 1e-3 * gb, "%g against %g", e->base.value, gb);
	cr_expect_float_eq(e->new.value, gn, 1e-3 * gn, "%g against %g", e->new.value, gn);
	compare_report_free(&r);
}
