/* repetitions.h - a row measured several times independently, and the aggregate that stands for them */
#ifndef HARNESS_REPETITIONS_H
#define HARNESS_REPETITIONS_H

#include <stdio.h>

#include "timing.h"

/* Most repetitions of one row (--repetitions). */
#define REPETITIONS_MAX 1000

/*
 * Measures o->repetitions times (timing_measure on the same ctx, each
 * with its own warm-up and sampling; 0 counts as 1). With one, r is
 * timing_measure's result, nothing else. With R > 1, r->reps holds the R
 * results, in order, and r their aggregate:
 *   samples, count   every repetition's samples, one after the other
 *   reps_per_sample  the first repetition's
 *   s.median         the median of the R medians: the row's figure
 *   s.min, s.max     the fastest and the slowest sample of any repetition
 *   s.mean           the mean of all samples
 *   s.rel_stddev     the larger of the relative standard deviations of
 *                    all samples and of the R medians: never below the
 *                    variation between repetitions (compare's noise_pct)
 *   s.stddev         s.rel_stddev x s.mean
 *   noise_met        100 x s.rel_stddev <= o->max_noise
 *   measured_time    the repetitions' sum
 * Returns 0, or -1 when a repetition failed or memory ran out (r empty).
 */
int repetitions_measure(timing_fn fn, void *ctx, const struct timing_opts *o,
			struct timing_result *r);

/* Predicted seconds repetitions_measure takes over calls of call seconds
 * each (a progress estimate): per repetition a warm-up call, then samples
 * until --max-time (or --min-time, when that is longer) unless the noise
 * target is met sooner; one call when a call is longer. */
double repetitions_predict(const struct timing_opts *o, double call);

/* The spread of the repetitions' medians, (max - min) / the median of
 * medians, in percent; NAN without repetitions. */
double repetitions_range_pct(const struct timing_result *r);

/* The table cell of repetitions_range_pct ("1.23%", "-" without). */
void repetitions_cell(char *buf, size_t len, const struct timing_result *r);

/* The footnote of a table whose rows had nreps repetitions each: what its
 * figure, its range column and its noise are. */
void repetitions_note(FILE *fp, size_t nreps);

#endif
