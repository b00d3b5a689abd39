/* timing.c - adaptive sampling of a timed callback until its noise is low */
#define _POSIX_C_SOURCE 200809L
#include "timing.h"

#include "../../reference/rng.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void timing_opts_default(struct timing_opts *o)
{
	o->min_time = 0.2;
	o->max_time = 5.0;
	o->max_noise = 0.5;
	o->sample_time = 0.01;
	o->min_samples = 5;
	o->max_samples = 10000;
	o->repetitions = 1;
	o->test_work = 0.0;
	o->slowdown = 0.0;
}

double timing_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void timing_result_per(struct timing_result *r, double units)
{
	for (size_t k = 0; k < r->nreps; k++)
		timing_result_per(&r->reps[k], units);
	for (size_t i = 0; i < r->count; i++)
		r->samples[i] /= units;
	r->s.min /= units;
	r->s.max /= units;
	r->s.mean /= units;
	r->s.median /= units;
	r->s.stddev /= units;
}

void timing_result_free(struct timing_result *r)
{
	for (size_t k = 0; k < r->nreps; k++)
		timing_result_free(&r->reps[k]);
	free(r->reps);
	free(r->samples);
	memset(r, 0, sizeof *r);
}

/* Appends one per-call time to r, growing the array. 0 or -1 (no memory). */
static int timing_push(struct timing_result *r, size_t *cap, double per_call)
{
	if (r->count == *cap) {
		size_t ncap = *cap ? 2 * *cap : 64;
		double *p = realloc(r->samples, ncap * sizeof *p);
		if (!p)
			return -1;
		r->samples = p;
		*cap = ncap;
	}
	r->samples[r->count++] = per_call;
	return 0;
}

/* Relative spread of the test hook's fixed work: each sample's is drawn
 * uniformly from [1, 1 + TIMING_WORK_SPREAD) times its nominal length. */
#define TIMING_WORK_SPREAD 0.1

/* Busy-waits wait seconds (the CPU stays busy, as real work would keep
 * it) and returns seconds plus the wait as measured: the elapsed time
 * itself is compared, since t0 + wait may round below the sum and the
 * wait must never fall short. */
static double timing_busy_wait(double seconds, double wait)
{
	if (!(wait > 0))
		return seconds;
	double t0 = timing_now(), now;
	do
		now = timing_now();
	while (now - t0 < wait);
	return seconds + (now - t0);
}

double timing_planted_wait(double seconds, double slowdown)
{
	return timing_busy_wait(seconds, slowdown * seconds);
}

/* The test hooks: busy-waits the fixed work of reps calls, then slowdown x
 * the whole, and returns seconds plus the wait as measured. Returns
 * seconds unchanged without hooks. */
static double timing_pad(double seconds, int reps, const struct timing_opts *o, struct rng *jitter)
{
	double work = 0.0;
	if (o->test_work > 0)
		work = reps * o->test_work * (1.0 + TIMING_WORK_SPREAD * rng_uniform(jitter));
	return timing_busy_wait(seconds, work + o->slowdown * (seconds + work));
}

static bool timing_done(const struct timing_result *r, const struct timing_opts *o)
{
	if (r->count >= o->max_samples)
		return true;
	/* never fewer than min_samples, --max-time or not: a row's noise
	 * must be known to be judged */
	if (r->count < o->min_samples)
		return false;
	if (r->measured_time >= o->max_time)
		return true;
	if (r->measured_time < o->min_time)
		return false;
	struct stats_summary s;
	if (stats_summarize(r->samples, r->count, &s) != 0)
		return true;
	return s.rel_stddev * 100.0 <= o->max_noise;
}

int timing_measure(timing_fn fn, void *ctx, const struct timing_opts *o, struct timing_result *r)
{
	memset(r, 0, sizeof *r);
	size_t cap = 0;
	double warm;
	struct rng jitter; /* the test hook's: the same draws in every run */
	rng_seed(&jitter, 42);
	if (fn(ctx, 1, &warm) != 0)
		goto out_fail;
	warm = timing_pad(warm, 1, o, &jitter);

	double reps = warm > 0 ? ceil(o->sample_time / warm) : 1e6;
	r->reps_per_sample = reps < 1 ? 1 : reps > 1e6 ? 1000000 : (int)reps;
	while (!timing_done(r, o)) {
		double t;
		if (fn(ctx, r->reps_per_sample, &t) != 0)
			goto out_fail;
		t = timing_pad(t, r->reps_per_sample, o, &jitter);
		r->measured_time += t;
		if (timing_push(r, &cap, t / r->reps_per_sample) != 0)
			goto out_fail;
	}
	if (stats_summarize(r->samples, r->count, &r->s) != 0)
		goto out_fail;
	r->noise_met = r->count >= 2 && r->s.rel_stddev * 100.0 <= o->max_noise;
	return 0;

out_fail:
	timing_result_free(r);
	return -1;
}
