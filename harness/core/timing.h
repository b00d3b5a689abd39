/* timing.h - adaptive sampling of a timed callback until its noise is low */
#ifndef HARNESS_TIMING_H
#define HARNESS_TIMING_H

#include <stdbool.h>
#include <stddef.h>

#include "stats.h"

/* Runs reps evaluations of whatever ctx holds and stores their total time
 * in *seconds (wall clock on the CPU, CUDA events on the GPU). Returns 0,
 * or -1 when the work failed (the measurement then stops). */
typedef int (*timing_fn)(void *ctx, int reps, double *seconds);

struct timing_opts {
	double min_time;    /* measure at least this long (s) once warmed up */
	double max_time;    /* stop here even when the noise target is missed (s) */
	double max_noise;   /* target relative standard deviation of samples (%) */
	double sample_time; /* a sample repeats the call until it lasts this long (s) */
	size_t min_samples; /* never decide on fewer samples than this */
	size_t max_samples; /* hard cap on samples */
	size_t repetitions; /* independent measurements of a row (repetitions.h); 1 */
	double test_work;   /* test hook (testhook.h): seconds of busy-wait added to every call; 0 */
	double slowdown;    /* test hook: then lengthen every sample by this fraction; 0 */
};

/* Defaults: min_time 0.2 s, max_time 5 s, max_noise 0.5 %, sample_time 10 ms,
 * min_samples 5, max_samples 10000, one repetition, no test hooks. */
void timing_opts_default(struct timing_opts *o);

struct timing_result {
	double *samples;       /* seconds per single call, one per sample (owned) */
	size_t count;
	int reps_per_sample;   /* calls folded into one sample */
	struct stats_summary s;/* over samples (seconds per call) */
	bool noise_met;        /* s.rel_stddev * 100 <= max_noise */
	double measured_time;  /* seconds spent in samples, warm-up excluded */
	struct timing_result *reps; /* with repetitions (repetitions.h): each one's own
				     * result, nreps of them (owned); NULL otherwise */
	size_t nreps;
};

/* Warms up with one call, chooses reps so that a sample lasts about
 * sample_time, then takes samples until count >= min_samples and then
 * (measured >= min_time and noise <= max_noise) or measured >= max_time,
 * or count == max_samples. A row never has fewer than min_samples
 * samples (max_samples permitting): a call longer than max_time is taken
 * min_samples times, one call a sample, so that its noise is known.
 * The test hooks (testhook.h) lengthen a sample of reps calls that took t
 * (the warm-up too) by a busy-wait of w + slowdown x (t + w), as measured,
 * where w = reps x test_work x (1 + 0.1 u), u uniform in [0, 1) from a
 * fixed seed: fixed work with a known spread (2.9 % relative standard
 * deviation, so the noise estimate is never nil), then a planted
 * regression.
 * Returns 0, or -1 when fn failed or memory ran out (r is then empty). */
int timing_measure(timing_fn fn, void *ctx, const struct timing_opts *o, struct timing_result *r);

/* r's seconds per call made seconds per unit of a call that does units of
 * work (a window of steps: seconds per step): the samples, the summary
 * and the repetitions' divided by units; the relative spread, the counts
 * and measured_time (the seconds spent) unchanged. */
void timing_result_per(struct timing_result *r, double units);

/* The planted slowdown (testhook.h) of a stage that took seconds, for
 * timings that do not go through timing_measure (the rendering's
 * frames): busy-waits slowdown x seconds and returns seconds plus the
 * wait as measured; seconds unchanged when slowdown is 0. */
double timing_planted_wait(double seconds, double slowdown);

/* Frees the samples and the repetitions, and empties r. */
void timing_result_free(struct timing_result *r);

/* Monotonic wall-clock seconds. */
double timing_now(void);

#endif
