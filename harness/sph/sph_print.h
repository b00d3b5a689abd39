/* sph_print.h - bin/harness sph's rows printed and written: what its command line asks of them */
#ifndef HARNESS_SPH_PRINT_H
#define HARNESS_SPH_PRINT_H

#include <stdbool.h>
#include <stddef.h>

#include "../core/results.h"
#include "../core/skips.h"
#include "sph_row.h"

/* The one line that names what a run or suite skipped (unless quiet). */
void sph_say_skipped(const struct sph_options *o, const char *suite,
		     const struct skips *skipped);

/* Prints the table (unless quiet) and writes out with its sidecar (inc:
 * an interrupted run's; NULL: a whole one). 0, or -1 with err. */
int sph_write(int argc, char **argv, const struct sph_options *o, const char *out,
	      const struct sph_row *rows, size_t nrows, const struct skips *skipped, bool render,
	      const struct results_incomplete *inc, char *err, size_t errlen);

#endif /* HARNESS_SPH_PRINT_H */
