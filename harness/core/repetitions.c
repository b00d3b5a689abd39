/* repetitions.c - a row measured several times independently, and the aggregate that stands for them */
#include "repetitions.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The aggregate of r->reps into r (repetitions.h). 0, or -1 when out of
 * memory or a summary fails. */
static int repetitions_aggregate(struct timing_result *r, const struct timing_opts *o)
{
	size_t total = 0, R = r->nreps;
	for (size_t k = 0; k < R; k++)
		total += r->reps[k].count;
	double *medians = malloc(R * sizeof *medians);
	r->samples = malloc(total * sizeof *r->samples);
	if (!medians || !r->samples) {
		free(medians);
		return -1;
	}
	for (size_t k = 0; k < R; k++) {
		const struct timing_result *one = &r->reps[k];
		memcpy(r->samples + r->count, one->samples, one->count * sizeof *one->samples);
		r->count += one->count;
		r->measured_time += one->measured_time;
		medians[k] = one->s.median;
	}
	r->reps_per_sample = r->reps[0].reps_per_sample;
	struct stats_summary between;
	int rc = stats_summarize(r->samples, r->count, &r->s) != 0 ||
		 stats_summarize(medians, R, &between) != 0 ? -1 : 0;
	free(medians);
	if (rc != 0)
		return -1;
	r->s.median = between.median;
	if (between.rel_stddev > r->s.rel_stddev)
		r->s.rel_stddev = between.rel_stddev;
	r->s.stddev = r->s.rel_stddev * fabs(r->s.mean);
	r->noise_met = 100.0 * r->s.rel_stddev <= o->max_noise;
	return 0;
}

int repetitions_measure(timing_fn fn, void *ctx, const struct timing_opts *o,
			struct timing_result *r)
{
	size_t R = o->repetitions > 1 ? o->repetitions : 1;
	if (R == 1)
		return timing_measure(fn, ctx, o, r);
	memset(r, 0, sizeof *r);
	r->reps = calloc(R, sizeof *r->reps);
	if (!r->reps)
		return -1;
	for (; r->nreps < R; r->nreps++)
		if (timing_measure(fn, ctx, o, &r->reps[r->nreps]) != 0)
			goto out_fail;
	if (repetitions_aggregate(r, o) == 0)
		return 0;
out_fail:
	timing_result_free(r);
	return -1;
}

double repetitions_predict(const struct timing_opts *o, double call)
{
	double limit = o->max_time > o->min_time ? o->max_time : o->min_time;
	double samples = (double)o->min_samples * call; /* taken past the limit too */
	return (double)(o->repetitions > 1 ? o->repetitions : 1) *
	       (call + (samples > limit ? samples : limit));
}

double repetitions_range_pct(const struct timing_result *r)
{
	if (r->nreps < 2 || !(r->s.median > 0))
		return NAN;
	double lo = r->reps[0].s.median, hi = lo;
	for (size_t k = 1; k < r->nreps; k++) {
		lo = fmin(lo, r->reps[k].s.median);
		hi = fmax(hi, r->reps[k].s.median);
	}
	return 100.0 * (hi - lo) / r->s.median;
}

void repetitions_cell(char *buf, size_t len, const struct timing_result *r)
{
	double pct = repetitions_range_pct(r);
	if (isnan(pct))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.2f%%", pct);
}

void repetitions_note(FILE *fp, size_t nreps)
{
	fprintf(fp, "%zu repetitions a row (--repetitions): median = the median of their medians; "
		    "reps range = (max - min) of those medians / median; noise (noise_pct) = the larger of the "
		    "relative standard deviations of the samples and of the medians\n",
		nreps);
}
