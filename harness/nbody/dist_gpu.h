/* dist_gpu.h - a rank's GPU part of the distributed variants: NCCL, streams, the force kernel */
#ifndef HARNESS_DIST_GPU_H
#define HARNESS_DIST_GPU_H

#include <stddef.h>

#include "../../kernels/nbody/nbody_gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How the bodies are spread: rank r owns bodies [r * share, r * share +
 * own(r)) of n, share = ceil(n / ranks); the last ranks may own fewer (or
 * none). Every rank's block is share bodies long, the missing ones zero
 * mass at the origin (they add exactly zero for eps > 0). */
struct dist_layout {
	size_t n;     /* all bodies */
	int ranks;
	int rank;     /* this process */
	size_t share; /* block length, ceil(n / ranks) */
	size_t first; /* this rank's first body, rank * share */
	size_t own;   /* this rank's real bodies, 0 .. share */
};

/* The exchange schemes of the registry (nbody.def). */
enum dist_scheme { DIST_NONE = 0, DIST_ALLGATHER, DIST_RING };

/* What one dist_gpu_run call repeats. */
enum dist_work { DIST_FORCES, DIST_STEPS, DIST_COMM };

struct dist_gpu;

/* Sets this rank's GPU up for scheme: uploads its block (own4 and vel4,
 * share bodies each, vel4 may be NULL), allocates the exchange buffers and
 * joins the NCCL communicator of all ranks (made on first use from an id
 * rank 0 broadcasts over MPI; every rank must call this together). fn is
 * the per-rank force launcher; it must honour pos_i, n_i and accumulate
 * (auto and the kbody family do). Returns 0, or -1 with err. */
int dist_gpu_create(struct dist_gpu **out, enum dist_scheme scheme, nbody_gpu_fn fn,
		    const struct dist_layout *lay, const float *own4, const float *vel4, double eps,
		    char *err, size_t errlen);

/* Runs reps force evaluations, leapfrog steps of dt, or exchanges alone
 * (the collective timed without the computation), and waits for them.
 * 0, or -1 with dist_gpu_error set. */
int dist_gpu_run(struct dist_gpu *g, enum dist_work work, int reps, double dt);

/* Downloads this rank's block (share bodies; any pointer may be NULL). */
int dist_gpu_own(struct dist_gpu *g, float *acc4, float *pos4, float *vel4);

/* The positions the last exchange delivered, for checking them: nblocks
 * blocks of share bodies into blocks4, origin[b] the rank block b came
 * from. Returns nblocks (ranks for an all-gather, up to 2 for the ring),
 * or -1. */
int dist_gpu_received(struct dist_gpu *g, float *blocks4, int *origin);

/* This rank's GPU, as "NAME" and its PCI bus id; "" when none. */
void dist_gpu_device(char *name, size_t namelen, char *bus, size_t buslen);

const char *dist_gpu_error(const struct dist_gpu *g);
void dist_gpu_destroy(struct dist_gpu *g);

/* NULL when the GPU ranks can run here, else why not. */
const char *dist_gpu_unavailable_reason(void);

/* Binds this process to GPU local_rank modulo the GPUs present (before any
 * other CUDA call). 0, or -1 when there is no GPU. */
int dist_gpu_select(int local_rank);

/* Destroys the NCCL communicator (before MPI_Finalize). */
void dist_gpu_shutdown(void);

#ifdef __cplusplus
}
#endif

#endif
