/* ab_judge.h - an A/B run's verdicts: the pooled sides compared, each row's change and resolution from its rounds */
#ifndef HARNESS_AB_JUDGE_H
#define HARNESS_AB_JUDGE_H

#include <stddef.h>

#include "compare.h"

/*
 * `harness ab` runs the same rows in R rounds, each round one run of BASE
 * and one of NEW next to each other, so each round gives each row a ratio
 * of its own, r_k = new_k / base_k (of the round's medians), in which a
 * drift of the machine between rounds cancels. The rows' own noise (what
 * compare takes) says how much one run's samples scatter; it does not
 * shrink as rounds are added, while what is known about the change does.
 * So for R >= 2 a row is judged on the rounds' log ratios l_k = ln r_k
 * (a run twice as fast and one twice as slow weigh alike):
 *
 *   new/base = exp(mean l)                    (the geometric mean of r_k)
 *   h        = t_0.995(R - 1) max(sd(l), w) / sqrt(R)
 *   u        = 100 (exp(h) - 1) %             the resolution
 *
 * the 99 % interval of the mean (99 %, not 95 %: a gate judges many rows
 * at once, and a false regression costs more than another round), where
 * sd is the log ratios' sample standard deviation and w the spread one
 * round's ratio has from its samples alone, sqrt(se_base^2 + se_new^2)
 * with se = 1.2533 noise / sqrt(samples) (the standard error of a median,
 * noise as a fraction), root-mean-squared over the rounds: rounds that
 * happen to agree never claim more than their samples can. That ratio
 * and u go through compare's rule. With one round, the pooled files and
 * the rows' noise decide, as in compare.
 */

/* The estimate above from the rounds' ratios r[0..n) and per-round
 * spreads w[0..n) (fractions); NANs when n < 2 or a ratio is not > 0. */
struct compare_estimate ab_judge_estimate(const double *r, const double *w, size_t n);

/*
 * Compares the pooled base_csv and new_csv (compare_files with o), then
 * judges every joined row again with its estimate from the rounds
 * base_rounds[k] against new_rounds[k], k < nrounds. Returns 0 with *out
 * filled (free with compare_report_free), or -1 with one line in err.
 */
int ab_judge(const char *base_csv, const char *new_csv, const char *const *base_rounds,
	     const char *const *new_rounds, size_t nrounds, const struct compare_opts *o,
	     struct compare_report *out, char *err, size_t errlen);

#endif /* HARNESS_AB_JUDGE_H */
