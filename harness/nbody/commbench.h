/* commbench.h - bin/harness commbench: the collectives of the distributed variants, timed alone */
#ifndef HARNESS_COMMBENCH_H
#define HARNESS_COMMBENCH_H

#include "dist_gpu.h"

/* The names of enum dist_op in the CSV's op column. */
extern const char *const commbench_op_names[DIST_OP_COUNT];

/* nccl-tests' factor from algorithm to bus bandwidth: (P - 1) / P for an
 * all-gather or a reduce-scatter, 1 for a broadcast, a reduce and a
 * send/recv. */
double commbench_bus_factor(enum dist_op op, int ranks);

/* `bin/harness commbench ...` (argv[0] is "commbench"), on every rank of
 * the run. Returns the exit status. */
int commbench_command(int argc, char **argv);

#endif
