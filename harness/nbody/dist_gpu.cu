/* dist_gpu.cu - a rank's GPU part of the distributed variants: NCCL, streams, the force kernel
 *
 *   dist-allgather  ncclAllGather of the blocks in place (nccl-tests'
 *                   in-place form), then the rank kernel on the rank's
 *                   bodies against all of them, one stream
 *   dist-ring       the systolic ring: a high-priority stream moves block
 *                   k + 1 (ncclSend to rank r + 1, ncclRecv from r - 1 in
 *                   one group) while the compute stream runs the forces of
 *                   block k, accumulating; events order a buffer's reuse
 *   dist-2d         the rows x cols rank grid: ncclAllGather of the row's
 *                   blocks (the i-block) on the row's communicator and of
 *                   the column's (the j-block) on the column's, the rank
 *                   kernel on the i-block against the j-block, then
 *                   ncclReduceScatter of the partial forces along the row,
 *                   which leaves each rank the forces on its own block
 *
 * One NCCL communicator of all ranks per process, made on first use from a
 * unique id rank 0 broadcasts over MPI (as nccl-tests does); dist-2d's row
 * and column communicators are split from it (ncclCommSplit) on first use;
 * all are destroyed before MPI_Finalize. Every NCCL call's result and the
 * communicators' asynchronous errors are checked.
 */
#include "dist_gpu.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>
#include <nccl.h>
#include <unistd.h>

#include "dist.h"

struct dist_gpu {
	enum dist_scheme scheme;
	nbody_gpu_fn fn;
	struct dist_layout lay;
	size_t alloc;           /* elements of a block buffer: share rounded up to NBODY_GPU_PAD */
	/* all-gather: ranks x share + padding; ring: own block, two buffers;
	 * 2d: the i-block (cols x share, padded), then the j-block (rows x
	 * share + padding) at jofs */
	float4 *d_blocks;
	size_t jofs;
	float4 *d_vel, *d_acc, *d_partial;
	float4 *d_iacc;         /* 2d: the row's partial forces on the i-block */
	unsigned *d_counters;
	cudaStream_t compute, comm;
	cudaEvent_t start, sent[2], used[2];
	struct nbody_gpu_launch launch;
	int skip_last;
	int fault;              /* 0, or DIST_GPU_CORRUPT / DIST_GPU_LOST (HARNESS_DIST_FAULT) */
	float4 *h_record;       /* ring: every block the DIST_RECORD pass delivered, by origin */
	int recorded;           /* the last pass recorded them */
	char error[256];
};

enum { DIST_GPU_CORRUPT = 1, DIST_GPU_LOST };

static ncclComm_t dist_comm, dist_row_comm, dist_col_comm;
static int dist_comm_ready, dist_grid_ready;
/* Why the GPU ranks cannot run in this run ("" when they can). */
static char dist_bind_why[320];

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
	return dist_bind_why[0] ? dist_bind_why : NULL;
}

extern "C" void dist_gpu_bind(void)
{
	int count = 0;
	if (cudaGetDeviceCount(&count) != cudaSuccess)
		count = 0;
	int per_host = dist_local_size(), crowded = count > 0 && per_host > count;
	char msg[sizeof dist_bind_why] = "", host[64] = "this host";
	if (crowded) {
		gethostname(host, sizeof host);
		host[sizeof host - 1] = '\0';
		snprintf(msg, sizeof msg,
			 "%d ranks on host %s would share its %d GPU%s (NCCL needs a GPU per rank): "
			 "start at most %d rank%s per host (mpirun -np %d, or --map-by ppr:%d:node)",
			 per_host, host, count, count > 1 ? "s" : "", count, count > 1 ? "s" : "", count,
			 count);
	}
	if (dist_agree(crowded, msg, sizeof msg) >= 0) {
		snprintf(dist_bind_why, sizeof dist_bind_why, "%s", msg);
		return;
	}
	if (count > 0)
		cudaSetDevice(dist_local_rank());
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
	if (dist_grid_ready) {
		ncclCommDestroy(dist_row_comm);
		ncclCommDestroy(dist_col_comm);
	}
	if (dist_comm_ready)
		ncclCommDestroy(dist_comm);
	dist_comm_ready = dist_grid_ready = 0;
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

/* dist-2d's row and column communicators, split once from the world's
 * (collective; the grid is the same for every instance of a run). */
static int dist_gpu_grid(struct dist_gpu *g)
{
	const struct dist_layout *l = &g->lay;
	if (g->scheme != DIST_2D || dist_grid_ready)
		return 0;
	int failed = NCCL_OK(g, ncclCommSplit(dist_comm, l->row, l->col, &dist_row_comm, NULL));
	if (dist_agree(failed, g->error, sizeof g->error) >= 0)
		return -1;
	failed = NCCL_OK(g, ncclCommSplit(dist_comm, l->col, l->row, &dist_col_comm, NULL));
	if (dist_agree(failed, g->error, sizeof g->error) >= 0) {
		ncclCommDestroy(dist_row_comm);
		return -1;
	}
	dist_grid_ready = 1;
	return 0;
}

/* dist-2d's i-block (the row's blocks, this rank's at slot col) and
 * j-block (the column's, this rank's at slot row). */
static float4 *iblock(const struct dist_gpu *g)
{
	return g->d_blocks;
}

static float4 *jblock(const struct dist_gpu *g)
{
	return g->d_blocks + g->jofs;
}

/* The rank's own block: its slot of the all-gather buffer or of the
 * i-block, or the ring's first buffer. */
static float4 *own_block(const struct dist_gpu *g)
{
	switch (g->scheme) {
	case DIST_ALLGATHER:
		return g->d_blocks + g->lay.first;
	case DIST_2D:
		return iblock(g) + g->lay.share * (size_t)g->lay.col;
	default:
		return g->d_blocks;
	}
}

/* The ring's receive buffer of block k >= 1. */
static float4 *ring_buf(const struct dist_gpu *g, int k)
{
	return g->d_blocks + g->alloc * (size_t)(1 + k % 2);
}

static size_t dist_gpu_padded(size_t n)
{
	return (n + NBODY_GPU_PAD - 1) / NBODY_GPU_PAD * NBODY_GPU_PAD;
}

/* Buffers, streams and events of this rank; 0 or -1 with g->error. */
static int dist_gpu_alloc(struct dist_gpu *g, const float *own4, const float *vel4)
{
	const struct dist_layout *l = &g->lay;
	g->alloc = dist_gpu_padded(l->share);
	/* the elements the force kernel writes: the rank's block, or the
	 * whole i-block for dist-2d */
	size_t n_i = g->scheme == DIST_2D ? (size_t)l->cols * l->share : l->share;
	size_t acc_alloc = dist_gpu_padded(n_i);
	size_t blocks = 3 * g->alloc;
	if (g->scheme == DIST_ALLGATHER)
		blocks = (size_t)l->ranks * l->share + NBODY_GPU_PAD;
	g->jofs = acc_alloc;
	if (g->scheme == DIST_2D)
		blocks = acc_alloc + (size_t)l->rows * l->share + NBODY_GPU_PAD;
	size_t bytes = blocks * sizeof(float4), block = l->share * sizeof(float4);
	if (dist_fault("alloc"))
		bytes = (size_t)1 << 50;
	size_t fit = ((size_t)2 << 30) / (acc_alloc * sizeof(float4));
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
	    CUDA_OK(g, cudaMalloc(&g->d_partial, (size_t)split * acc_alloc * sizeof(float4))) ||
	    CUDA_OK(g, cudaMalloc((void **)&g->d_counters, acc_alloc / 32 * sizeof(unsigned))) ||
	    CUDA_OK(g, cudaMemset(g->d_counters, 0, acc_alloc / 32 * sizeof(unsigned))) ||
	    (g->scheme == DIST_2D &&
	     (CUDA_OK(g, cudaMalloc(&g->d_iacc, acc_alloc * sizeof(float4))) ||
	      CUDA_OK(g, cudaMemset(g->d_iacc, 0, acc_alloc * sizeof(float4))))) ||
	    CUDA_OK(g, cudaMemset(g->d_blocks, 0, bytes)) ||
	    CUDA_OK(g, cudaMemset(g->d_vel, 0, g->alloc * sizeof(float4))) ||
	    CUDA_OK(g, cudaMemset(g->d_acc, 0, g->alloc * sizeof(float4))) ||
	    CUDA_OK(g, cudaMemcpy(own_block(g), own4, block, cudaMemcpyHostToDevice)) ||
	    CUDA_OK(g, cudaMemcpy(g->d_vel, vel4, block, cudaMemcpyHostToDevice)))
		return -1;
	struct nbody_gpu_launch *ln = &g->launch;
	ln->acc = g->scheme == DIST_2D ? g->d_iacc : g->d_acc;
	ln->partial = g->d_partial;
	ln->max_split = split;
	ln->counters = g->d_counters;
	ln->n_alloc = (int)acc_alloc;
	ln->sm_count = sms;
	ln->stream = g->compute;
	ln->pos_i = g->scheme == DIST_2D ? iblock(g) : own_block(g);
	ln->n_i = g->scheme == DIST_2D ? (int)n_i : (int)l->own;
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
	g->fault = dist_fault("corrupt") ? DIST_GPU_CORRUPT : dist_fault("lost") ? DIST_GPU_LOST : 0;
	g->launch.eps2 = eps * eps;
	int failed = 0;
	if (lay->ranks * lay->share > ((size_t)1 << 30) || !fn)
		failed = gpu_fail(g, "set-up", !fn ? "no GPU launcher" : "more than 2^30 bodies");
	else
		failed = dist_gpu_alloc(g, own4, vel4);
	if (failed)
		snprintf(g->error + strlen(g->error), sizeof g->error - strlen(g->error),
			 " (block of %zu bodies)", lay->share);
	if (dist_agree(failed, g->error, sizeof g->error) >= 0 || dist_gpu_comm(g) != 0 ||
	    dist_gpu_grid(g) != 0) {
		snprintf(err, errlen, "%s", g->error);
		dist_gpu_destroy(g);
		return -1;
	}
	*out = g;
	return 0;
}

/* The rank kernel on the i-bodies (the rank's own, or dist-2d's
 * i-block) against n bodies at pos. */
static int dist_gpu_forces_on(struct dist_gpu *g, const float4 *pos, size_t n, int accumulate)
{
	g->launch.pos = pos;
	g->launch.n = (int)n;
	g->launch.accumulate = accumulate;
	return cuda_ok(g, (cudaError_t)g->fn(&g->launch), "force kernel launch");
}

/* The planted "corrupt" fault: one byte of a block changed. */
__global__ void dist_gpu_flip_byte(unsigned char *p)
{
	*p ^= 0x01;
}

/* The planted faults of the exchange (HARNESS_DIST_FAULT): the first
 * block this rank received from another, altered or lost, on stream. */
static int dist_gpu_fault(struct dist_gpu *g, float4 *block, cudaStream_t stream)
{
	if (g->fault == DIST_GPU_LOST)
		return CUDA_OK(g, cudaMemsetAsync(block, 0, g->lay.share * sizeof(float4), stream));
	if (g->fault == DIST_GPU_CORRUPT) {
		dist_gpu_flip_byte<<<1, 1, 0, stream>>>((unsigned char *)block);
		return CUDA_OK(g, cudaGetLastError());
	}
	return 0;
}

/* An in-place all-gather of share-body blocks on comm (members of it),
 * counted as dist.h counts exchanges. */
static int dist_gpu_gather(struct dist_gpu *g, float4 *buf, int member, int members,
			   ncclComm_t comm, cudaStream_t stream)
{
	size_t count = 4 * g->lay.share;
	dist_traffic_collective(members, count * sizeof(float));
	return NCCL_OK(g, ncclAllGather(buf + g->lay.share * (size_t)member, buf, count, ncclFloat,
					comm, stream));
}

/* One pass of the ring; compute unset moves the blocks alone. With
 * record set, every block that arrives is also copied to the host. */
static int dist_gpu_ring(struct dist_gpu *g, bool compute, bool record)
{
	const struct dist_layout *l = &g->lay;
	size_t count = 4 * l->share, bytes = count * sizeof(float);
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
		int origin = (l->rank - k + l->ranks) % l->ranks;
		/* buffer k % 2 was block k - 2's: its forces must be done */
		if (k >= 2 && compute && CUDA_OK(g, cudaStreamWaitEvent(g->comm, g->used[k % 2], 0)))
			return -1;
		dist_traffic_p2p(bytes, bytes);
		if (NCCL_OK(g, ncclGroupStart()) ||
		    NCCL_OK(g, ncclSend(send, count, ncclFloat, next, dist_comm, g->comm)) ||
		    NCCL_OK(g, ncclRecv(ring_buf(g, k), count, ncclFloat, prev, dist_comm, g->comm)) ||
		    NCCL_OK(g, ncclGroupEnd()) || (k == 1 && dist_gpu_fault(g, ring_buf(g, k), g->comm)) ||
		    (record && CUDA_OK(g, cudaMemcpyAsync(g->h_record + l->share * (size_t)origin,
							  ring_buf(g, k), bytes, cudaMemcpyDeviceToHost,
							  g->comm))) ||
		    CUDA_OK(g, cudaEventRecord(g->sent[k % 2], g->comm)))
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
	const struct dist_layout *l = &g->lay;
	return dist_gpu_gather(g, g->d_blocks, l->rank, l->ranks, dist_comm, g->compute) ||
	       (l->ranks > 1 &&
		dist_gpu_fault(g, g->d_blocks + l->share * (size_t)((l->rank + 1) % l->ranks),
			       g->compute));
}

/* dist-2d's exchange of positions: the row's blocks into the i-block, the
 * column's into the j-block (this rank's copied into its slot first). */
static int dist_gpu_2d_gather(struct dist_gpu *g)
{
	const struct dist_layout *l = &g->lay;
	size_t bytes = l->share * sizeof(float4);
	float4 *first_foreign = l->rows > 1 ? jblock(g) + l->share * (size_t)((l->row + 1) % l->rows)
			      : l->cols > 1 ? iblock(g) + l->share * (size_t)((l->col + 1) % l->cols)
					    : NULL;
	return dist_gpu_gather(g, iblock(g), l->col, l->cols, dist_row_comm, g->compute) ||
	       CUDA_OK(g, cudaMemcpyAsync(jblock(g) + l->share * (size_t)l->row, own_block(g), bytes,
					  cudaMemcpyDeviceToDevice, g->compute)) ||
	       dist_gpu_gather(g, jblock(g), l->row, l->rows, dist_col_comm, g->compute) ||
	       (first_foreign && dist_gpu_fault(g, first_foreign, g->compute));
}

/* dist-2d's reduction: the row's partial forces on its i-block summed,
 * each rank receiving those on its own block. */
static int dist_gpu_2d_reduce(struct dist_gpu *g)
{
	size_t count = 4 * g->lay.share;
	dist_traffic_collective(g->lay.cols, count * sizeof(float));
	return NCCL_OK(g, ncclReduceScatter(g->d_iacc, g->d_acc, count, ncclFloat, ncclSum,
					    dist_row_comm, g->compute));
}

static int dist_gpu_forces(struct dist_gpu *g, bool record)
{
	const struct dist_layout *l = &g->lay;
	switch (g->scheme) {
	case DIST_RING:
		if (dist_gpu_ring(g, true, record))
			return -1;
		break;
	case DIST_2D:
		if (dist_gpu_2d_gather(g) ||
		    dist_gpu_forces_on(g, jblock(g), (size_t)l->rows * l->share, 0) ||
		    dist_gpu_2d_reduce(g))
			return -1;
		break;
	default:
		if (dist_gpu_allgather(g) ||
		    dist_gpu_forces_on(g, g->d_blocks, (size_t)l->ranks * l->share, 0))
			return -1;
	}
	if (g->skip_last && l->own > 0 &&
	    CUDA_OK(g, cudaMemsetAsync(g->d_acc + l->own - 1, 0, sizeof(float4), g->compute)))
		return -1;
	return 0;
}

/* The exchange alone, as the forces would run it. */
static int dist_gpu_comm_only(struct dist_gpu *g)
{
	switch (g->scheme) {
	case DIST_RING:
		return dist_gpu_ring(g, false, false);
	case DIST_2D:
		return dist_gpu_2d_gather(g) || dist_gpu_2d_reduce(g);
	default:
		return dist_gpu_allgather(g);
	}
}

static int dist_gpu_step(struct dist_gpu *g, double dt)
{
	int n = (int)g->lay.own;
	if (n > 0 && cuda_ok(g, (cudaError_t)nbody_gpu_kick_drift(own_block(g), g->d_vel, g->d_acc, n,
								  dt, 0, g->compute),
			     "kick-drift"))
		return -1;
	if (dist_gpu_forces(g, false))
		return -1;
	if (n > 0 && cuda_ok(g, (cudaError_t)nbody_gpu_kick(g->d_vel, g->d_acc, n, dt, 0, g->compute),
			     "kick"))
		return -1;
	return 0;
}

/* A communicator's asynchronous error, checked. */
static int dist_gpu_async_ok(struct dist_gpu *g, ncclComm_t comm)
{
	ncclResult_t async;
	return NCCL_OK(g, ncclCommGetAsyncError(comm, &async)) ||
	       nccl_ok(g, async, "NCCL (asynchronous error)");
}

extern "C" int dist_gpu_run(struct dist_gpu *g, enum dist_work work, int reps, double dt)
{
	const struct dist_layout *l = &g->lay;
	bool record = work == DIST_RECORD && g->scheme == DIST_RING;
	if (record && !g->h_record) {
		g->h_record = (float4 *)calloc((size_t)l->ranks * l->share, sizeof(float4));
		if (!g->h_record)
			return gpu_fail(g, "recording the exchange", "out of host memory");
	}
	g->recorded = 0;
	for (int r = 0; r < reps; r++) {
		int rc = work == DIST_FORCES || work == DIST_RECORD ? dist_gpu_forces(g, record)
			 : work == DIST_STEPS ? dist_gpu_step(g, dt)
					      : dist_gpu_comm_only(g);
		if (rc)
			return -1;
	}
	if (CUDA_OK(g, cudaStreamSynchronize(g->compute)) ||
	    CUDA_OK(g, cudaStreamSynchronize(g->comm)) || CUDA_OK(g, cudaGetLastError()) ||
	    dist_gpu_async_ok(g, dist_comm) ||
	    (g->scheme == DIST_2D &&
	     (dist_gpu_async_ok(g, dist_row_comm) || dist_gpu_async_ok(g, dist_col_comm))))
		return -1;
	g->recorded = record;
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

/* Copies block slot of the device buffer base (origin rank origin) into
 * the host list; returns the list's new length, or -1. */
static int dist_gpu_take(struct dist_gpu *g, const float4 *base, size_t slot, int origin,
			 float *blocks4, int *origins, int nb)
{
	size_t share = g->lay.share, bytes = share * sizeof(float4);
	if (nb < 0 || CUDA_OK(g, cudaMemcpy(blocks4 + 4 * share * (size_t)nb, base + share * slot,
					    bytes, cudaMemcpyDeviceToHost)))
		return -1;
	origins[nb] = origin;
	return nb + 1;
}

extern "C" int dist_gpu_received(struct dist_gpu *g, float *blocks4, int *origin)
{
	const struct dist_layout *l = &g->lay;
	size_t share = l->share;
	int nb = 0;
	switch (g->scheme) {
	case DIST_ALLGATHER:
		for (int r = 0; r < l->ranks; r++)
			nb = dist_gpu_take(g, g->d_blocks, (size_t)r, r, blocks4, origin, nb);
		return nb;
	case DIST_2D:
		for (int c = 0; c < l->cols; c++)
			if (c != l->col)
				nb = dist_gpu_take(g, iblock(g), (size_t)c, l->row * l->cols + c, blocks4,
						   origin, nb);
		for (int r = 0; r < l->rows; r++)
			if (r != l->row)
				nb = dist_gpu_take(g, jblock(g), (size_t)r, r * l->cols + l->col, blocks4,
						   origin, nb);
		return nb;
	default:
		break;
	}
	if (g->recorded) {
		for (int k = 1; k < l->ranks; k++, nb++) {
			origin[nb] = (l->rank - k + l->ranks) % l->ranks;
			memcpy(blocks4 + 4 * share * (size_t)nb, g->h_record + share * (size_t)origin[nb],
			       share * sizeof(float4));
		}
		return nb;
	}
	for (int k = l->ranks - 1; k >= 1 && k >= l->ranks - 2; k--)
		nb = dist_gpu_take(g, ring_buf(g, k), 0, (l->rank - k + l->ranks) % l->ranks, blocks4,
				   origin, nb);
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
	cudaFree(g->d_iacc);
	free(g->h_record);
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

/* ---- the collectives alone (bin/harness commbench) --------------------- */

struct dist_gpu_bench {
	struct dist_gpu g; /* its error text and stream; the world communicator */
	void *send, *recv;
};

extern "C" int dist_gpu_bench_create(struct dist_gpu_bench **out, size_t max_bytes, char *err,
				     size_t errlen)
{
	*out = NULL;
	struct dist_gpu_bench *b = (struct dist_gpu_bench *)calloc(1, sizeof *b);
	if (!b)
		dist_fatal("out of host memory");
	struct dist_gpu *g = &b->g;
	int failed = CUDA_OK(g, cudaStreamCreateWithFlags(&g->compute, cudaStreamNonBlocking)) ||
		     CUDA_OK(g, cudaMalloc(&b->send, max_bytes)) ||
		     CUDA_OK(g, cudaMalloc(&b->recv, max_bytes)) ||
		     CUDA_OK(g, cudaMemset(b->send, 0, max_bytes)) ||
		     CUDA_OK(g, cudaMemset(b->recv, 0, max_bytes));
	if (dist_agree(failed, g->error, sizeof g->error) >= 0 || dist_gpu_comm(g) != 0) {
		snprintf(err, errlen, "%s", g->error);
		dist_gpu_bench_destroy(b);
		return -1;
	}
	*out = b;
	return 0;
}

/* One op of bytes (see enum dist_op) on the bench's stream. */
static int dist_gpu_bench_op(struct dist_gpu_bench *b, enum dist_op op, size_t bytes)
{
	struct dist_gpu *g = &b->g;
	int p = dist_size(), rank = dist_rank();
	size_t count = bytes / sizeof(float), part = count / (size_t)p;
	cudaStream_t st = g->compute;
	switch (op) {
	case DIST_OP_ALLGATHER:
		return NCCL_OK(g, ncclAllGather(b->send, b->recv, part, ncclFloat, dist_comm, st));
	case DIST_OP_REDUCE_SCATTER:
		return NCCL_OK(g, ncclReduceScatter(b->send, b->recv, part, ncclFloat, ncclSum, dist_comm,
						    st));
	case DIST_OP_BROADCAST:
		return NCCL_OK(g, ncclBroadcast(b->send, b->recv, count, ncclFloat, 0, dist_comm, st));
	case DIST_OP_REDUCE:
		return NCCL_OK(g, ncclReduce(b->send, b->recv, count, ncclFloat, ncclSum, 0, dist_comm, st));
	case DIST_OP_SENDRECV:
		return NCCL_OK(g, ncclGroupStart()) ||
		       NCCL_OK(g, ncclSend(b->send, count, ncclFloat, (rank + 1) % p, dist_comm, st)) ||
		       NCCL_OK(g, ncclRecv(b->recv, count, ncclFloat, (rank + p - 1) % p, dist_comm, st)) ||
		       NCCL_OK(g, ncclGroupEnd());
	default:
		return gpu_fail(g, "commbench", "unknown collective");
	}
}

extern "C" int dist_gpu_bench_run(struct dist_gpu_bench *b, enum dist_op op, size_t bytes, int reps)
{
	for (int r = 0; r < reps; r++)
		if (dist_gpu_bench_op(b, op, bytes))
			return -1;
	if (CUDA_OK(&b->g, cudaStreamSynchronize(b->g.compute)) || dist_gpu_async_ok(&b->g, dist_comm))
		return -1;
	return 0;
}

extern "C" const char *dist_gpu_bench_error(const struct dist_gpu_bench *b)
{
	return b ? b->g.error : "";
}

extern "C" void dist_gpu_bench_destroy(struct dist_gpu_bench *b)
{
	if (!b)
		return;
	if (b->g.compute) {
		cudaStreamSynchronize(b->g.compute);
		cudaStreamDestroy(b->g.compute);
	}
	cudaFree(b->send);
	cudaFree(b->recv);
	free(b);
}
