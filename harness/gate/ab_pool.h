/* ab_pool.h - one side of an A/B run: its rounds' samples pooled into one results table */
#ifndef HARNESS_AB_POOL_H
#define HARNESS_AB_POOL_H

#include <stddef.h>

/*
 * `harness ab` runs the same rows R times with each binary. The R results
 * CSVs of one side (each with its sidecar, which holds the raw samples)
 * become one CSV with the same columns, so `harness compare` reads it as it
 * reads any results file, whatever the schema (N-body, SPH, later ones):
 *
 * - rows are matched by position; every round must have the same header
 *   and the same (variant, n) in every row, and its sidecar one samples
 *   entry per row, in the same order;
 * - a row counts only when it validated and was timed in every round; it
 *   is then written as the first round wrote it, with: samples, min, max
 *   and standard deviation of the pooled seconds per call (time_*_s,
 *   time_*_step_s), noise_pct = their relative standard deviation (so the
 *   spread between runs is in it), noise_met against the run's
 *   --max-noise; the median is the median of the rounds' medians, so that
 *   every run weighs the same (a noisy run takes more samples in its
 *   --max-time, and a whole run can be slowed by a busy machine); the rates
 *   (interactions_per_s, gflop_per_s, steps_per_s, pct_of_ceiling)
 *   rescaled to that median, *_err columns the worst round's,
 *   *_ms phase columns the rounds' mean, SM clocks the lowest and
 *   clock_dropped if any round's dropped;
 * - a row that failed (invalid or untimed) in some round is written as the
 *   first round that failed wrote it: valid = 0 or no timing, so compare
 *   reports it as not compared.
 *
 * The sidecar is the first round's, with argv (ab's), csv and created_utc
 * replaced, the pooled samples, and an "ab" object saying which side,
 * binary and commit, the round files and their order.
 */

/* What the pooled sidecar says about the side. */
struct ab_pool_info {
	const char *side;       /* "base" or "new" */
	const char *binary;     /* the program that ran */
	const char *commit;     /* the commit it was built from, as ab knows it; NULL: unknown */
	const char *order;      /* the run order of the whole A/B run, e.g. "ABBAABBA" */
	int argc;               /* ab's command line */
	char **argv;
};

/* What pooling found. */
struct ab_pool_summary {
	size_t rows;      /* rows in the table */
	size_t failed;    /* of them, invalid or untimed in some round */
	char commit[64];  /* git_commit of the binary, from the rounds' sidecars ("unknown") */
	int dirty;        /* its git_dirty: 1, 0, or -1 when not said */
};

/*
 * Pools the rounds csv[0..nrounds) (nrounds >= 1) into out_csv and its
 * sidecar, each written atomically (sidecar first). Returns 0 with *sum
 * filled, or -1 with one line in err: an unreadable or malformed file, or
 * rounds that disagree on their rows.
 */
int ab_pool(const char *const *csv, size_t nrounds, const char *out_csv,
	    const struct ab_pool_info *info, struct ab_pool_summary *sum, char *err, size_t errlen);

#endif /* HARNESS_AB_POOL_H */
