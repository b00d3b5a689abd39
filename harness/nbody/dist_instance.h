/* dist_instance.h - a distributed variant on the ranks of a run: decomposition, exchange, timing */
#ifndef HARNESS_DIST_INSTANCE_H
#define HARNESS_DIST_INSTANCE_H

#include <stddef.h>
#include <stdint.h>

#include "../../variants/registry.h"
#include "dist.h"
#include "dist_gpu.h"
#include "../core/sysinfo.h"

/*
 * Every function here is collective: all ranks call it together, in the
 * same order, and all get the same return value. A rank that fails where
 * its peers can still hear it (set-up, validation, a check) makes every
 * rank return -1 with the same message naming it (dist_agree); a failure
 * inside an exchange its peers are blocked in ends the job (dist_fatal).
 */

/* The bodies of rank `rank` of `ranks`, and its place in dist-2d's grid:
 * see struct dist_layout. */
void dist_layout_make(struct dist_layout *l, size_t n, int ranks, int rank);

/* dist-2d's grid for P ranks: rows x cols = P with cols the largest
 * divisor of P not above sqrt(P) (4: 2 x 2, 8: 4 x 2, 9: 3 x 3; a prime P
 * is P x 1, which is the all-gather's exchange). */
void dist_grid_make(int ranks, int *rows, int *cols);

/* Bytes every rank sends (and receives) per force evaluation, in the
 * accounting of dist.h's traffic counters, with b = 16 share bytes a
 * block: the all-gather and the ring (P - 1) b, dist-2d (2 (cols - 1) +
 * rows - 1) b. */
double dist_traffic_formula(enum dist_scheme scheme, const struct dist_layout *l);

/* Time of one call across the ranks, from the clock of each (after a
 * barrier): the fastest, the mean and the slowest rank's. */
struct dist_spread {
	double min, avg, max;
};

struct dist_instance;

/* Spreads n bodies over the ranks for distributed variant v: pos4 and
 * vel4 (vel4 may be NULL) are read on rank 0 only, which sends each rank
 * its block; each rank sets up its part (CPU buffers, or its GPU and the
 * NCCL communicator) and the ranks check that they run on one kind of
 * device. Returns 0, or -1 with err (the same on every rank). */
int dist_instance_create(struct dist_instance **out, const struct variant *v, const float *pos4,
			 const float *vel4, size_t n, double eps, char *err, size_t errlen);

/* reps force evaluations (exchange and forces), reps leapfrog steps, or
 * reps exchanges alone, after a barrier; *seconds is the slowest rank's
 * time, on every rank, so that timing_measure decides alike everywhere.
 * Each call also records its spread (dist_instance_spread). 0 or -1. */
int dist_instance_forces(void *d, int reps, double *seconds);
int dist_instance_steps(struct dist_instance *d, int reps, double dt, double *seconds);
int dist_instance_comm(void *d, int reps, double *seconds);

/* The accelerations of the current positions, all n bodies in order, into
 * acc3 (3n doubles) on rank 0 (acc3 is not used elsewhere). Evaluates them
 * first when no evaluation ran yet. 0 or -1. */
int dist_instance_accels(struct dist_instance *d, double *acc3);

/* Positions and velocities of all bodies on rank 0 (4n floats each;
 * vel4 may be NULL). 0 or -1. */
int dist_instance_state(struct dist_instance *d, float *pos4, float *vel4);

/* Checks the blocks the last exchange delivered, as nccl-tests checks its
 * buffers: each against a checksum its owner computed of what it sent.
 * 0, or -1 with err naming the block. */
int dist_instance_verify(struct dist_instance *d, char *err, size_t errlen);

/* The spread of every timed call since the last reset, in order. */
size_t dist_instance_spread(const struct dist_instance *d, const struct dist_spread **calls);
void dist_instance_spread_reset(struct dist_instance *d);

/* Bytes one exchange delivers to every rank (all blocks: ranks x share x
 * 16), the size nccl-tests' bandwidths of an all-gather divide; NAN for
 * dist-2d, whose exchange is no all-gather. */
double dist_instance_exchange_bytes(const struct dist_instance *d);

/* What the exchanges of the first evaluation (dist_instance_accels's, or
 * one run here when none ran yet) moved on every rank, in dist.h's
 * traffic counters: the most and the least any rank sent and received,
 * on every rank. Collective; 0 or -1. */
int dist_instance_traffic(struct dist_instance *d, struct dist_traffic *most,
			  struct dist_traffic *least);

/* Every rank's device, "NAME|NAME|..." in rank order (identical runs
 * folded as "NAME x8" when the list would not fit a CSV cell). */
const char *dist_instance_devices(const struct dist_instance *d);

const struct dist_layout *dist_instance_layout(const struct dist_instance *d);

/* Why the last call failed (the same text on every rank). */
const char *dist_instance_error(const struct dist_instance *d);

void dist_instance_destroy(struct dist_instance *d);

/* Gathers every rank's host and device, and its CPU time since its load
 * mark (the run's own, sysinfo.h), for the sidecar to rank 0, the other
 * ranks marking anew: returns the number of ranks with a malloc'ed array
 * in *out on rank 0 (NULL elsewhere), or -1. */
int dist_rank_facts_gather(struct sysinfo_rank **out);

#endif
