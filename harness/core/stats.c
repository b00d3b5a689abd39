/* stats.c - summary statistics of repeated timings */
#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int stats_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Returns a sorted malloc'd copy of x[0..n) (n > 0), or NULL. */
static double *stats_sorted_copy(const double *x, size_t n)
{
	double *s = malloc(n * sizeof(*s));

	if (!s)
		return NULL;
	memcpy(s, x, n * sizeof(*s));
	qsort(s, n, sizeof(*s), stats_cmp_double);
	return s;
}

/*
 * The q-quantile of sorted s[0..n), n > 0, q in [0, 1]. The weighted sum
 * cannot overflow as b - a could for values of opposite sign near
 * DBL_MAX, and equal neighbours give back exactly their value.
 */
static double stats_sorted_quantile(const double *s, size_t n, double q)
{
	double h = (double)(n - 1) * q;
	size_t lo = (size_t)floor(h);
	double f = h - (double)lo;
	double a, b;

	if (lo >= n - 1)
		return s[n - 1];
	a = s[lo];
	b = s[lo + 1];
	if (f == 0.0 || a == b)
		return a;
	return (1.0 - f) * a + f * b;
}

int stats_summarize(const double *x, size_t n, struct stats_summary *out)
{
	double sum = 0.0, sq = 0.0, mean, *s;

	if (n == 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (!isfinite(x[i]))
			return -1;
		sum += x[i];
	}
	s = stats_sorted_copy(x, n);
	if (!s)
		return -1;
	/* Two passes: the deviations are summed about the mean itself. */
	mean = sum / (double)n;
	for (size_t i = 0; i < n; i++)
		sq += (x[i] - mean) * (x[i] - mean);
	out->count = n;
	out->min = s[0];
	out->max = s[n - 1];
	out->mean = mean;
	out->median = stats_sorted_quantile(s, n, 0.5);
	out->stddev = n > 1 ? sqrt(sq / (double)(n - 1)) : 0.0;
	out->rel_stddev = mean != 0.0 ? out->stddev / fabs(mean) : 0.0;
	free(s);
	return 0;
}

double stats_median(const double *x, size_t n)
{
	return stats_quantile(x, n, 0.5);
}

double stats_quantile(const double *x, size_t n, double q)
{
	double *s, r;

	if (n == 0 || !(q >= 0.0 && q <= 1.0))
		return NAN;
	for (size_t i = 0; i < n; i++) {
		if (isnan(x[i]))
			return NAN;
	}
	s = stats_sorted_copy(x, n);
	if (!s)
		return NAN;
	r = stats_sorted_quantile(s, n, q);
	free(s);
	return r;
}

double stats_t995(size_t df)
{
	static const double table[] = {
		NAN,   63.657, 9.925, 5.841, 4.604, 4.032, 3.707, 3.499, 3.355, 3.250, 3.169,
		3.106, 3.055,  3.012, 2.977, 2.947, 2.921, 2.898, 2.878, 2.861, 2.845,
		2.831, 2.819,  2.807, 2.797, 2.787, 2.779, 2.771, 2.763, 2.756, 2.750,
	};
	static const struct {
		double df, t;
	} tail[] = { { 30, 2.750 }, { 40, 2.704 }, { 60, 2.660 }, { 120, 2.617 }, { INFINITY, 2.576 } };
	if (df < sizeof table / sizeof *table)
		return table[df];
	double inv = 1.0 / (double)df;
	size_t k = 0;
	while ((double)df > tail[k + 1].df)
		k++;
	double a = 1.0 / tail[k].df, b = 1.0 / tail[k + 1].df; /* 1 / inf = 0 */
	return tail[k].t + (inv - a) / (b - a) * (tail[k + 1].t - tail[k].t);
}
