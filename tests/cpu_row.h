/* cpu_row.h - a made-up results row of a CPU variant, and a results file of such rows, for tests */
#ifndef TESTS_CPU_ROW_H
#define TESTS_CPU_ROW_H

#include <criterion/criterion.h>
#include <math.h>
#include <stdbool.h>

#include "../harness/nbody/nbody_results.h"
#include "../harness/core/results.h"
#include "../harness/core/stats.h"

/* Variant v at N = 1000 on "Test CPU", timed with these samples (seconds
 * per call, 3 calls a sample) when valid, else failed validation (max
 * error 0.5) and not timed. samples must outlive the row. */
static inline struct result_row cpu_row_of(const struct variant *v, double *samples, size_t count,
					   bool valid)
{
	struct result_row r = { 0 };
	r.v = v;
	r.device_name = "Test CPU";
	r.n = 1000;
	r.ic = "plummer";
	r.seed = 42;
	r.eps = 0.01;
	r.val = (struct validation){ .checked = 1000, .rel_l2 = 1e-7, .max_norm = valid ? 2e-7 : 0.5,
				     .tol = { 3e-5, 3e-5 }, .pass = valid };
	r.timed = valid;
	r.t.samples = samples;
	r.t.count = count;
	r.t.reps_per_sample = 3;
	cr_assert_eq(stats_summarize(samples, count, &r.t.s), 0);
	r.clock_start_mhz = r.clock_end_mhz = r.ceiling = NAN;
	return r;
}

/* Writes rows[0..n) to path with a sidecar, as `harness run` would with
 * the default timing options. */
static inline void cpu_rows_write(const char *path, const struct result_row *rows, size_t n)
{
	char err[512], *argv[] = { "harness", "run" };
	struct timing_opts t;
	timing_opts_default(&t);
	struct results_meta meta = { .argc = 2, .argv = argv, .timing = &t };
	cr_assert_eq(results_write(path, rows, n, &meta, err, sizeof err), 0, "%s", err);
}

#endif /* TESTS_CPU_ROW_H */
