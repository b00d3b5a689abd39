/* dist_gpu.cu - a rank's GPU part of the distributed variants: NCCL, streams, the force kernel
 *
 *   dist-allgather  ncclAllGather of the blocks in place (nccl-tests'
 *                   in-place form), then the rank kernel on the rank's
 *                   bodies against all of them, one stream
 *   dist-ring       the systolic ring: a high-priority stream moves block
 *                   k + 1 (ncclSend to rank r + 1, ncclRecv from r - 1 in
 *                   one group) while the compute stream runs the forces of
 *                   block k, accumulating; events order a buffer's reuse
 *
 * One NCCL communicator per process, made on first use from a unique id
 * rank 0 broadcasts over MPI (as nccl-tests does), destroyed before
 * MPI_Finalize. Every NCCL call's result and the communicator's
 * asynchronous error are checked.
 */
#include "dist_gpu.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>
#include <nccl.h>

#include "dist.h"

struct dist_gpu {
	enum dist_scheme scheme;
	nbody_gpu_fn fn;
	struct dist_layout lay;
	size_t alloc;           /* elements of a block buffer: share rounded up to NBODY_GPU_PAD */
	float4 *d_blocks;       /* all-gather: ranks x share + padding; ring: own block, two buffers */
	float4 *d_vel, *d_acc, *d_partial;
	unsigned *d_counters;
	cudaStream_t compute, comm;
	cudaEvent_t start, sent[2], used[2];
	struct nbody_gpu_launch launch;
	int skip_last;
	char error[256];
};

static ncclComm_t dist_comm;
static int dist_comm_ready;

static int gpu_fail(struct dist_gpu *g, const char *what, const char *why)
{
	snprintf(g->error, sizeof g->error, "%s: %s", what, why);
	return -1;
}

static int cuda_ok(struct dist_gpu *g, cudaError_t rc, const char *what)
{
	return rc == cudaSuccess ? 0 : gpu_fail(g, what, cudaGetErrorString(rc));
}

static int nccl_ok(struct dist_gpu *g, ncclResult_t rc, const char *what)
{
	return rc == ncclSuccess ? 0 : gpu_fail(g, what, ncclGetErrorString(rc));
}

#define CUDA_OK(g, call) cuda_ok((g), (call), #call)
#define NCCL_OK(g, call) nccl_ok((g), (call), #call)

extern "C" const char *dist_gpu_unavailable_reason(void)
{
	return NULL;
}

extern "C" int dist_gpu_select(int local_rank)
{
	int count = 0;
	if (cudaGetDeviceCount(&count) != cudaSuccess || count < 1)
		return -1;
	return cudaSetDevice(local_rank % count) == cudaSuccess ? 0 : -1;
}

extern "C" void dist_gpu_device(char *name, size_t namelen, char *bus, size_t buslen)
{
	int dev;
	cudaDeviceProp p;
	name[0] = bus[0] = '\0';
	if (cudaGetDevice(&dev) != cudaSuccess || cudaGetDeviceProperties(&p, dev) != cudaSuccess)
		return;
	snprintf(name, namelen, "%s", p.name);
	cudaDeviceGetPCIBusId(bus, (int)buslen, dev);
}

extern "C" void dist_gpu_shutdown(void)
{
	if (dist_comm_ready)
		ncclCommDestroy(dist_comm);
	dist_comm_ready = 0;
}

/* The communicator of all ranks, made once (collective). 0 or -1. */
static int dist_gpu_comm(struct dist_gpu *g)
{
	if (dist_comm_ready)
		return 0;
	ncclUniqueId id;
	int failed = dist_rank() == 0 && NCCL_OK(g, ncclGetUniqueId(&id));
	if (dist_agree(failed, g->error, sizeof g->error) >= 0)
		return -1;
	if (dist_bcast(&id, sizeof id, 0) != 0)
		dist_fatal("MPI_Bcast of the NCCL id failed");
	failed = NCCL_OK(g, ncclCommInitRank(&dist_comm, dist_size(), id, dist_rank()));
	if (dist_agree(failed, g->error, sizeof g->error) >= 0)
		return -1;
	dist_comm_ready = 1;
	return 0;
}

/* The rank's own block: its slot of the all-gather buffer, or the ring's
 * first buffer. */
static float4 *own_block(const struct dist_gpu *g)
{
	return g->scheme == DIST_ALLGATHER ? g->d_blocks + g->lay.first : g->d_blocks;
}

/* The ring's receive buffer of block k >= 1. */
static float4 *ring_buf(const struct dist_gpu *g, int k)
{
	return g->d_blocks + g->alloc * (size_t)(1 + k % 2);
}

/* Buffers, streams and events of this rank; 0 or -1 with g->error. */
static int dist_gpu_alloc(struct dist_gpu *g, const float *own4, const float *vel4)
{
	const struct dist_layout *l = &g->lay;
	g->alloc = (l->share + NBODY_GPU_PAD - 1) / NBODY_GPU_PAD * NBODY_GPU_PAD;
	size_t blocks = g->scheme == DIST_ALLGATHER ? (size_t)l->ranks * l->share + NBODY_GPU_PAD
						    : 3 * g->alloc;
	size_t bytes = blocks * sizeof(float4), block = l->share * sizeof(float4);
	if (dist_fault("alloc"))
		bytes = (size_t)1 << 50;
	size_t fit = ((size_t)2 << 30) / (g->alloc * sizeof(float4));
	int split = fit < 1 ? 1 : fit > NBODY_GPU_MAX_SPLIT ? NBODY_GPU_MAX_SPLIT : (int)fit;
	int lo, hi, sms, dev;
	if (CUDA_OK(g, cudaGetDevice(&dev)) ||
	    CUDA_OK(g, cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev)) ||
	    CUDA_OK(g, cudaDeviceGetStreamPriorityRange(&lo, &hi)) ||
	    CUDA_OK(g, cudaStreamCreateWithFlags(&g->compute, cudaStreamNonBlocking)) ||
	    CUDA_OK(g, cudaStreamCreateWithPriority(&g->comm, cudaStreamNonBlocking, hi)) ||
	    CUDA_OK(g, cudaEventCreateWithFlags(&g->start, cudaEventDisableTiming)) ||
	    CUDA_OK(g, cudaEventCreateWithFlags(&g->sent[0], cudaEventDisableTiming)) ||
	    CUDA_OK(g, cudaEventCreateWithFlags(&g->sent[1], cudaEventDisableTiming)) ||
	    CUDA_OK(g, cudaEventCreateWithFlags(&g->used[0], cudaEventDisableTiming)) ||
	    CUDA_OK(g, cudaEventCreateWithFlags(&g->used[1], cudaEventDisableTiming)) ||
	    CUDA_OK(g, cudaMalloc(&g->d_blocks, bytes)) ||
	    CUDA_OK(g, cudaMalloc(&g->d_vel, g->alloc * sizeof(float4))) ||
	    CUDA_OK(g, cudaMalloc(&g->d_acc, g->alloc * sizeof(float4))) ||
	    CUDA_OK(g, cudaMalloc(&g->d_partial, (size_t)split * g->alloc * sizeof(float4))) ||
	    CUDA_OK(g, cudaMalloc((void **)&g->d_counters, g->alloc / 32 * sizeof(unsigned))) ||
	    CUDA_OK(g, cudaMemset(g->d_counters, 0, g->alloc / 32 * sizeof(unsigned))) ||
	    CUDA_OK(g, cudaMemset(g->d_blocks, 0, bytes)) ||
	    CUDA_OK(g, cudaMemset(g->d_vel, 0, g->alloc * sizeof(float4))) ||
	    CUDA_OK(g, cudaMemset(g->d_acc, 0, g->alloc * sizeof(float4))) ||
	    CUDA_OK(g, cudaMemcpy(own_block(g), own4, block, cudaMemcpyHostToDevice)) ||
	    CUDA_OK(g, cudaMemcpy(g->d_vel, vel4, block, cudaMemcpyHostToDevice)))
		return -1;
	struct nbody_gpu_launch *ln = &g->launch;
	ln->acc = g->d_acc;
	ln->partial = g->d_partial;
	ln->max_split = split;
	ln->counters = g->d_counters;
	ln->n_alloc = (int)g->alloc;
	ln->sm_count = sms;
	ln->stream = g->compute;
	ln->pos_i = own_block(g);
	ln->n_i = (int)l->own;
	return 0;
}

extern "C" int dist_gpu_create(struct dist_gpu **out, enum dist_scheme scheme, nbody_gpu_fn fn,
			       const struct dist_layout *lay, const float *own4, const float *vel4,
			       double eps, char *err, size_t errlen)
{
	*out = NULL;
	struct dist_gpu *g = (struct dist_gpu *)calloc(1, sizeof *g);
	if (!g)
		dist_fatal("out of host memory");
	g->scheme = scheme;
	g->fn = fn;
	g->lay = *lay;
	g->skip_last = dist_fault("skip-last");
	g->launch.eps2 = eps * eps;
	int failed = 0;
	if (lay->ranks * lay->share > ((size_t)1 << 30) || !fn)
		failed = gpu_fail(g, "set-up", !fn ? "no GPU launcher" : "more than 2^30 bodies");
	else
		failed = dist_gpu_alloc(g, own4, vel4);
	if (failed)
		snprintf(g->error + strlen(g->error), sizeof g->error - strlen(g->error),
			 " (block of %zu bodies)", lay->share);
	if (dist_agree(failed, g->error, sizeof g->error) >= 0 || dist_gpu_comm(g) != 0) {
		snprintf(err, errlen, "%s", g->error);
		dist_gpu_destroy(g);
		return -1;
	}
	*out = g;
	return 0;
}

/* The rank kernel on this rank's bodies against n bodies at pos. */
static int dist_gpu_forces_on(struct dist_gpu *g, const float4 *pos, size_t n, int accumulate)
{
	g->launch.pos = pos;
	g->launch.n = (int)n;
	g->launch.accumulate = accumulate;
	return cuda_ok(g, (cudaError_t)g->fn(&g->launch), "force kernel launch");
}

/* One pass of the ring; compute unset moves the blocks alone. */
static int dist_gpu_ring(struct dist_gpu *g, bool compute)
{
	const struct dist_layout *l = &g->lay;
	size_t count = 4 * l->share;
	int next = (l->rank + 1) % l->ranks, prev = (l->rank + l->ranks - 1) % l->ranks;
	/* Transfers start after what the compute stream did before (a step's
	 * kick-drift, the last pass's forces on the buffers). */
	if (CUDA_OK(g, cudaEventRecord(g->start, g->compute)) ||
	    CUDA_OK(g, cudaStreamWaitEvent(g->comm, g->start, 0)))
		return -1;
	if (compute && dist_gpu_forces_on(g, own_block(g), l->share, 0))
		return -1;
	for (int k = 1; k < l->ranks; k++) {
		const float4 *send = k == 1 ? own_block(g) : ring_buf(g, k - 1);
		/* buffer k % 2 was block k - 2's: its forces must be done */
		if (k >= 2 && compute && CUDA_OK(g, cudaStreamWaitEvent(g->comm, g->used[k % 2], 0)))
			return -1;
		if (NCCL_OK(g, ncclGroupStart()) ||
		    NCCL_OK(g, ncclSend(send, count, ncclFloat, next, dist_comm, g->comm)) ||
		    NCCL_OK(g, ncclRecv(ring_buf(g, k), count, ncclFloat, prev, dist_comm, g->comm)) ||
		    NCCL_OK(g, ncclGroupEnd()) || CUDA_OK(g, cudaEventRecord(g->sent[k % 2], g->comm)))
			return -1;
		if (!compute)
			continue;
		if (CUDA_OK(g, cudaStreamWaitEvent(g->compute, g->sent[k % 2], 0)) ||
		    dist_gpu_forces_on(g, ring_buf(g, k), l->share, 1) ||
		    CUDA_OK(g, cudaEventRecord(g->used[k % 2], g->compute)))
			return -1;
	}
	/* The compute stream carries on only once the last transfer is in. */
	if (CUDA_OK(g, cudaEventRecord(g->start, g->comm)) ||
	    CUDA_OK(g, cudaStreamWaitEvent(g->compute, g->start, 0)))
		return -1;
	return 0;
}

static int dist_gpu_allgather(struct dist_gpu *g)
{
	return NCCL_OK(g, ncclAllGather(own_block(g), g->d_blocks, 4 * g->lay.share, ncclFloat,
					dist_comm, g->compute));
}

static int dist_gpu_forces(struct dist_gpu *g)
{
	const struct dist_layout *l = &g->lay;
	if (g->scheme == DIST_RING) {
		if (dist_gpu_ring(g, true))
			return -1;
	} else if (dist_gpu_allgather(g) ||
		   dist_gpu_forces_on(g, g->d_blocks, (size_t)l->ranks * l->share, 0)) {
		return -1;
	}
	if (g->skip_last && l->own > 0 &&
	    CUDA_OK(g, cudaMemsetAsync(g->d_acc + l->own - 1, 0, sizeof(float4), g->compute)))
		return -1;
	return 0;
}

static int dist_gpu_step(struct dist_gpu *g, double dt)
{
	int n = (int)g->lay.own;
	if (n > 0 && cuda_ok(g, (cudaError_t)nbody_gpu_kick_drift(own_block(g), g->d_vel, g->d_acc, n,
								  dt, 0, g->compute),
			     "kick-drift"))
		return -1;
	if (dist_gpu_forces(g))
		return -1;
	if (n > 0 && cuda_ok(g, (cudaError_t)nbody_gpu_kick(g->d_vel, g->d_acc, n, dt, 0, g->compute),
			     "kick"))
		return -1;
	return 0;
}

extern "C" int dist_gpu_run(struct dist_gpu *g, enum dist_work work, int reps, double dt)
{
	for (int r = 0; r < reps; r++) {
		int rc = work == DIST_FORCES ? dist_gpu_forces(g)
			 : work == DIST_STEPS ? dist_gpu_step(g, dt)
			 : g->scheme == DIST_RING ? dist_gpu_ring(g, false)
						  : dist_gpu_allgather(g);
		if (rc)
			return -1;
	}
	ncclResult_t async;
	if (CUDA_OK(g, cudaStreamSynchronize(g->compute)) ||
	    CUDA_OK(g, cudaStreamSynchronize(g->comm)) || CUDA_OK(g, cudaGetLastError()) ||
	    NCCL_OK(g, ncclCommGetAsyncError(dist_comm, &async)) ||
	    nccl_ok(g, async, "NCCL (asynchronous error)"))
		return -1;
	return 0;
}

extern "C" int dist_gpu_own(struct dist_gpu *g, float *acc4, float *pos4, float *vel4)
{
	size_t bytes = g->lay.share * sizeof(float4);
	if ((acc4 && CUDA_OK(g, cudaMemcpy(acc4, g->d_acc, bytes, cudaMemcpyDeviceToHost))) ||
	    (pos4 && CUDA_OK(g, cudaMemcpy(pos4, own_block(g), bytes, cudaMemcpyDeviceToHost))) ||
	    (vel4 && CUDA_OK(g, cudaMemcpy(vel4, g->d_vel, bytes, cudaMemcpyDeviceToHost))))
		return -1;
	return 0;
}

extern "C" int dist_gpu_received(struct dist_gpu *g, float *blocks4, int *origin)
{
	const struct dist_layout *l = &g->lay;
	size_t bytes = l->share * sizeof(float4);
	if (g->scheme == DIST_ALLGATHER) {
		if (CUDA_OK(g, cudaMemcpy(blocks4, g->d_blocks, bytes * (size_t)l->ranks,
					  cudaMemcpyDeviceToHost)))
			return -1;
		for (int r = 0; r < l->ranks; r++)
			origin[r] = r;
		return l->ranks;
	}
	int nb = 0;
	for (int k = l->ranks - 1; k >= 1 && k >= l->ranks - 2; k--, nb++) {
		if (CUDA_OK(g, cudaMemcpy(blocks4 + 4 * l->share * (size_t)nb, ring_buf(g, k), bytes,
					  cudaMemcpyDeviceToHost)))
			return -1;
		origin[nb] = ((l->rank - k) % l->ranks + l->ranks) % l->ranks;
	}
	return nb;
}

extern "C" const char *dist_gpu_error(const struct dist_gpu *g)
{
	return g ? g->error : "";
}

extern "C" void dist_gpu_destroy(struct dist_gpu *g)
{
	if (!g)
		return;
	if (g->compute)
		cudaStreamSynchronize(g->compute);
	if (g->comm)
		cudaStreamSynchronize(g->comm);
	cudaFree(g->d_blocks);
	cudaFree(g->d_vel);
	cudaFree(g->d_acc);
	cudaFree(g->d_partial);
	cudaFree(g->d_counters);
	cudaEvent_t *ev[] = { &g->start, &g->sent[0], &g->sent[1], &g->used[0], &g->used[1] };
	for (size_t i = 0; i < sizeof ev / sizeof *ev; i++)
		if (*ev[i])
			cudaEventDestroy(*ev[i]);
	if (g->compute)
		cudaStreamDestroy(g->compute);
	if (g->comm)
		cudaStreamDestroy(g->comm);
	free(g);
}
