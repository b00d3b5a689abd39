/* nbody_run.h - bin/harness list, run, check and forces: the N-body command's parts */
#ifndef HARNESS_NBODY_RUN_H
#define HARNESS_NBODY_RUN_H

#include <stdbool.h>
#include <stddef.h>

#include "../../variants/registry.h"
#include "../core/keep.h"

struct bodies;
struct cli_options;
struct gpu_device_info;
struct progress;
struct result_row;
struct skips;

/* The commands, each with the parsed options of its command line (argv:
 * the whole command line, for the sidecar). Each returns the exit status:
 * CLI_OK, CLI_FAILED or CLI_USAGE. */
int main_list(const struct cli_options *o);
int main_run(int argc, char **argv, const struct cli_options *o);
int main_suites(int argc, char **argv, const struct cli_options *o);
int main_forces(const struct cli_options *o);

/* The parts the commands share (nbody_run.c, nbody_measure.c). */

/*
 * What an interruption of run, check or a suite keeps (core/keep.h): the
 * finished rows, with the sidecar of an incomplete run. rows changes (a
 * suite's table grows) only under interrupt_lock.
 */
struct main_keep {
	struct keep k;
	int argc;
	char **argv;
	const struct cli_options *o;
	struct result_row **rows;
	const struct skips *skipped;
};

/* The one-device accelerations the distributed rows at one N must equal
 * (their rank kernel's), on rank 0: kept from that kernel's own row when
 * the sweep ran it, else computed once per N. */
struct main_single {
	int kernel; /* variant index; -1: none yet */
	double *acc3;
};

/* Set when a distributed row failed (nbody_measure.c). */
extern bool main_aborted;

size_t main_pick_variants(const struct cli_options *o, bool run[NBODY_VARIANT_COUNT],
			  struct skips *skipped, char *err, size_t errlen);
void main_say_skipped(const struct cli_options *o, const char *suite,
		      const struct skips *skipped);
int main_bodies(const struct cli_options *o, const struct bodies *file, size_t n,
		float *pos4, float *vel4);
int main_check_sizes(const struct cli_options *o, const struct bodies *file, char *err,
		     size_t errlen);
void main_keep_init(struct main_keep *m, int argc, char **argv, const struct cli_options *o,
		    const char *out, struct result_row **rows, const size_t *nrows,
		    const struct skips *skipped);
void main_plan_sweep(const struct cli_options *o, const bool run[NBODY_VARIANT_COUNT],
		     const size_t *n_list, size_t n_count, struct progress *pg, struct keep *keep);
int main_sweep(const struct cli_options *o, const bool run[NBODY_VARIANT_COUNT],
	       const size_t *n_list, size_t n_count, const struct bodies *file,
	       struct result_row *rows, size_t *nrows, const char *suite, struct progress *pg);
int main_finish(int argc, char **argv, const struct cli_options *o, const char *out,
		struct result_row *rows, size_t nrows, const struct skips *skipped, int status,
		struct keep *keep);
void main_measure(const struct cli_options *o, const struct variant *v, const float *pos4,
		  const float *vel4, size_t n, const size_t *idx, size_t m,
		  const double *ref3, const double *fsum, double *acc3,
		  const struct gpu_device_info *gpu, struct main_single *single,
		  struct result_row *row);
void main_measure_dist(const struct cli_options *o, const struct variant *v,
		       const float *pos4, const float *vel4, size_t n, const size_t *idx,
		       size_t m, const double *ref3, const double *fsum, double *acc3,
		       const struct gpu_device_info *gpu, struct main_single *single,
		       struct result_row *row);

#endif
