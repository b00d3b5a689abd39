/* ab_judge.h - an A/B run's verdicts: the pooled sides compared, each row's resolution from its rounds */
#ifndef HARNESS_AB_JUDGE_H
#define HARNESS_AB_JUDGE_H

#include <stddef.h>

#include "compare.h"

/*
 * `harness ab` runs the same rows in R rounds, each round one run of BASE
 * and one of NEW next to each other, so each round gives each row a
 * change of its own, d_k = 100 (new_k / base_k - 1) %. The rows' own
 * noise (what compare takes) says how much one run's samples scatter; it
 * does not shrink as rounds are added, while what is known about the
 * change does. So for R >= 2 a row's resolution is the half-width of the
 * 95 % interval of the mean of its rounds' changes:
 *
 *   u = t_0.975(R - 1) * max(sd(d_1..d_R), w) / sqrt(R)
 *
 * where sd is their sample standard deviation and w the spread one
 * round's change has from its samples alone, sqrt(se_base^2 + se_new^2)
 * with se = 1.2533 noise_pct / sqrt(samples) (the standard error of a
 * median), root-mean-squared over the rounds: rounds that happen to agree
 * closely never claim more than their samples can. With one round, the
 * rows' noise decides as in compare. The change judged is that of the
 * pooled files (median of the rounds' medians), by compare's rule.
 */

/* The resolution above from the changes d[0..r) (percent) and the
 * per-round spreads w[0..r) (percent); NAN when r < 2. */
double ab_judge_resolution(const double *d, const double *w, size_t r);

/*
 * Compares the pooled base_csv and new_csv (compare_files with o), then
 * judges every joined row again with its resolution from the rounds
 * base_rounds[k] against new_rounds[k], k < nrounds. Returns 0 with *out
 * filled (free with compare_report_free), or -1 with one line in err.
 */
int ab_judge(const char *base_csv, const char *new_csv, const char *const *base_rounds,
	     const char *const *new_rounds, size_t nrounds, const struct compare_opts *o,
	     struct compare_report *out, char *err, size_t errlen);

#endif /* HARNESS_AB_JUDGE_H */
