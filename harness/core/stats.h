/* stats.h - summary statistics of repeated timings */
#ifndef STATS_H
#define STATS_H

#include <stddef.h>

struct stats_summary {
	size_t count;
	double min, max, mean, median;
	double stddev;     /* sample (n - 1) standard deviation; 0 for n == 1 */
	double rel_stddev; /* stddev / |mean|; 0 when mean == 0 */
};

/*
 * Summarizes x[0..n). Returns 0, or -1 (out untouched) when n == 0, when
 * any value is NaN or infinite, or when out of memory. x is not modified.
 */
int stats_summarize(const double *x, size_t n, struct stats_summary *out);

/* The median of x[0..n) (mean of the middle two for even n); NAN when n == 0. */
double stats_median(const double *x, size_t n);

/*
 * The q-quantile of x[0..n), interpolating linearly between order
 * statistics (R's type 7, NumPy's default): with x sorted, position
 * h = (n - 1) q, result x[floor h] + (h - floor h)(x[floor h + 1] - x[floor h]).
 * q = 0 gives the minimum, q = 1 the maximum. Returns NAN when n == 0,
 * when q is not in [0, 1], when any value is NaN, or when out of memory.
 * x is not modified.
 */
double stats_quantile(const double *x, size_t n, double q);

/*
 * Student's t quantile for a two-sided 99 % interval (the 0.995 quantile)
 * with df degrees of freedom: exact to 3 decimals for df <= 30 (the
 * table), interpolated in 1/df above (40, 60, 120, then 2.576 as df grows
 * without bound). NAN when df == 0. The half-width of the 99 % interval
 * of a mean of n values with sample standard deviation s is
 * stats_t995(n - 1) s / sqrt(n).
 */
double stats_t995(size_t df);

#endif /* STATS_H */
