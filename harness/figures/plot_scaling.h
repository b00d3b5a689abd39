/* plot_scaling.h - the scaling figures: one CSV per number of ranks, merged */
#ifndef HARNESS_PLOT_SCALING_H
#define HARNESS_PLOT_SCALING_H

#include <stddef.h>

#include "plot_curves.h"

/*
 * Reads every dir/<suite>-p<P>.csv (what `mpirun -np P bin/harness run
 * --suite NAME` writes) and fills two sets of curves from their valid,
 * timed rows:
 *   rate  interactions/s, one curve per variant and P, against N (strong
 *         scaling) or against P (weak scaling, N = P x the per-rank N);
 *   eff   the parallel efficiency in %, one curve per distributed variant
 *         (and N, for strong scaling) against P:
 *             E(P) = rate(P) / (P x rate of the one-device run),
 *         the one-device run being the variant's rank kernel (auto,
 *         cpu-simd) at the same N (strong) or at N / P (weak) in the
 *         P = 1 file, else the variant's own P = 1 row.
 * sources gets the files' names; machines, what the rows ran on, for the
 * title: per device name the most GPUs a row used ("4 x NVIDIA H200"; the
 * "gpus" column, else ranks: "AMD EPYC (2 ranks)" for CPU rows), joined
 * with " / ". Returns how many files were read (0: none), or -1 with err
 * for a malformed file.
 */
int plot_scaling_collect(const struct plot_suite *s, const char *dir, struct plot_curves *rate,
			 struct plot_curves *eff, char *sources, size_t srclen, char *machines,
			 size_t machlen, char *err, size_t errlen);

/*
 * The efficiency axis [*lo, *hi] (percent) fitted to the points of eff:
 * from a little below the lowest (a tenth of its distance to the top,
 * rounded down to a whole percent, not below 0) to just above 100 % or the
 * highest point, whichever is higher (a twentieth of the axis, at least
 * 1 %). It spans at least 5 %, so that a run's noise of a few tenths
 * does not read as a fall. Without points: [0, 110].
 */
void plot_efficiency_range(const struct plot_curves *eff, double *lo, double *hi);

#endif
