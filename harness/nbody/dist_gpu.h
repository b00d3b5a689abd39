/* dist_gpu.h - a rank's GPU part of the distributed variants: NCCL, streams, the force kernel */
#ifndef HARNESS_DIST_GPU_H
#define HARNESS_DIST_GPU_H

#include <stddef.h>

#include "../../kernels/nbody/nbody_gpu.h"
#include "../../variants/registry.h"

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
	/* dist-2d's rank grid: rows x cols = ranks, rank = row x cols + col;
	 * cols is the largest divisor of ranks not above its square root
	 * (a prime number of ranks is a ranks x 1 grid). Row `row` holds
	 * blocks row x cols .. row x cols + cols - 1 (its i-block), column
	 * `col` blocks col, cols + col, ... (its j-block). */
	int rows, cols, row, col;
};

/* What one dist_gpu_run call repeats. DIST_RECORD is one force evaluation
 * that also keeps every block the exchange delivered (the ring reuses two
 * buffers, so without it only the last two are left to check). */
enum dist_work { DIST_FORCES, DIST_STEPS, DIST_COMM, DIST_RECORD };

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
 * blocks of share bodies into blocks4 (room for ranks blocks), origin[b]
 * the rank block b came from. Returns nblocks (ranks for an all-gather;
 * the ring: every block of the last DIST_RECORD pass, else the last two;
 * dist-2d: the other members' blocks of its row and of its column), or
 * -1. */
int dist_gpu_received(struct dist_gpu *g, float *blocks4, int *origin);

/* This rank's GPU, as "NAME" and its PCI bus id; "" when none. */
void dist_gpu_device(char *name, size_t namelen, char *bus, size_t buslen);

const char *dist_gpu_error(const struct dist_gpu *g);
void dist_gpu_destroy(struct dist_gpu *g);

/* The collectives the distributed variants are made of, for timing them
 * alone (bin/harness commbench). Sizes follow nccl-tests: an all-gather's
 * bytes are the whole gathered buffer, a reduce-scatter's the whole
 * buffer each rank reduces, a broadcast's and a reduce's (to rank 0) the
 * buffer, a send/recv's what each rank sends to the next and receives from
 * the previous one (the ring's step). */
enum dist_op {
	DIST_OP_ALLGATHER,
	DIST_OP_REDUCE_SCATTER,
	DIST_OP_BROADCAST,
	DIST_OP_REDUCE,
	DIST_OP_SENDRECV,
	DIST_OP_COUNT
};

struct dist_gpu_bench;

/* Buffers of max_bytes on this rank's GPU and the communicator of all
 * ranks (collective). 0, or -1 with err (the same on every rank). */
int dist_gpu_bench_create(struct dist_gpu_bench **out, size_t max_bytes, char *err, size_t errlen);
/* reps of op on bytes, then waits for them. 0, or -1 with
 * dist_gpu_bench_error set. */
int dist_gpu_bench_run(struct dist_gpu_bench *b, enum dist_op op, size_t bytes, int reps);
const char *dist_gpu_bench_error(const struct dist_gpu_bench *b);
void dist_gpu_bench_destroy(struct dist_gpu_bench *b);

/* NULL when the GPU ranks can run here, else why not (also when the
 * ranks of a host outnumber its GPUs: see dist_gpu_bind). */
const char *dist_gpu_unavailable_reason(void);

/* Gives each rank of a run of several its own GPU, before any other CUDA
 * call: the rank's index among the ranks of its host (dist_local_rank,
 * from MPI_Comm_split_type, so several nodes map alike), never its world
 * rank. Where a host has more ranks than GPUs, no rank is bound and the
 * GPU ranks are unavailable on every rank, with one line saying why and
 * what to do (NCCL refuses two ranks on one GPU). Collective. */
void dist_gpu_bind(void);

/* Destroys the NCCL communicator (before MPI_Finalize). */
void dist_gpu_shutdown(void);

#ifdef __cplusplus
}
#endif

#endif
