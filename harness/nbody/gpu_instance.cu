/* gpu_instance.cu - a GPU variant's device state, launches and CUDA-event timing */
#include "gpu_instance.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

struct gpu_instance {
	nbody_gpu_fn fn;
	int fp64;
	size_t esize; /* bytes per body: 16 (float4) or 32 (double4) */
	struct nbody_gpu_launch launch;
	void *d_pos, *d_vel, *d_acc, *d_partial, *d_sort;
	unsigned *d_counters;
	cudaStream_t stream;
	cudaEvent_t start, stop;
	int have_acc;
	char error[160];
};

/* Records a failed CUDA call in g->error. Returns -1 when rc is an error. */
static int gpu_check(struct gpu_instance *g, cudaError_t rc, const char *what)
{
	if (rc == cudaSuccess)
		return 0;
	snprintf(g->error, sizeof g->error, "%s: %s", what, cudaGetErrorString(rc));
	return -1;
}

#define GPU_CHECK(g, call) gpu_check((g), (call), #call)

/* Host copy of n bodies in the device layout, zero-padded to n_alloc. */
static void *gpu_pack(const float *src4, size_t n, size_t n_alloc, int fp64)
{
	size_t esize = fp64 ? 4 * sizeof(double) : 4 * sizeof(float);
	void *buf = calloc(n_alloc, esize);
	if (!buf || !src4)
		return buf;
	if (fp64) {
		double *d = (double *)buf;
		for (size_t i = 0; i < 4 * n; i++)
			d[i] = src4[i];
	} else {
		memcpy(buf, src4, 4 * n * sizeof(float));
	}
	return buf;
}

/* Scratch for j-split variants: as many slices as fit in 2 GiB, at most
 * NBODY_GPU_MAX_SPLIT. */
static int gpu_max_split(size_t n_alloc, size_t esize)
{
	size_t fit = ((size_t)2 << 30) / (n_alloc * esize);
	return fit < 1 ? 1 : fit > NBODY_GPU_MAX_SPLIT ? NBODY_GPU_MAX_SPLIT : (int)fit;
}

/* The scratch of the variants that sort the bodies (tc-*), for any
 * variant (the launcher does not say whether it sorts): about 48 bytes a
 * body, against at least 16 of partial. Where the radix sort's scratch
 * cannot be sized, none: those variants then refuse to run. */
static int gpu_alloc_sort(struct gpu_instance *g, size_t n_alloc)
{
	size_t bytes = nbody_gpu_sort_scratch_bytes((int)n_alloc);
	return bytes ? GPU_CHECK(g, cudaMalloc(&g->d_sort, bytes)) : 0;
}

static int gpu_upload(struct gpu_instance *g, void *dst, const float *src4, size_t n)
{
	void *buf = gpu_pack(src4, n, (size_t)g->launch.n_alloc, g->fp64);
	if (!buf) {
		snprintf(g->error, sizeof g->error, "out of host memory");
		return -1;
	}
	int rc = GPU_CHECK(g, cudaMemcpy(dst, buf, g->launch.n_alloc * g->esize, cudaMemcpyHostToDevice));
	free(buf);
	return rc;
}

extern "C" int gpu_instance_create(struct gpu_instance **out, nbody_gpu_fn fn, int fp64,
				   const float *pos4, const float *vel4, size_t n, double eps,
				   char *err, size_t errlen)
{
	*out = NULL;
	if (!(eps > 0)) {
		snprintf(err, errlen, "GPU variants need --eps > 0 (the chapter's kernels rely on eps^2 > 0 for the self term)");
		return -1;
	}
	if (n < 1 || n > (size_t)1 << 30) {
		snprintf(err, errlen, "GPU variants take 1 <= N <= 2^30, not %zu", n);
		return -1;
	}
	struct gpu_instance *g = (struct gpu_instance *)calloc(1, sizeof *g);
	if (!g) {
		snprintf(err, errlen, "out of host memory");
		return -1;
	}
	g->fn = fn;
	g->fp64 = fp64;
	g->esize = fp64 ? 4 * sizeof(double) : 4 * sizeof(float);
	size_t n_alloc = (n + NBODY_GPU_PAD - 1) / NBODY_GPU_PAD * NBODY_GPU_PAD;
	int dev = 0, sms = 0;
	struct nbody_gpu_launch *l = &g->launch;
	l->n = (int)n;
	l->n_alloc = (int)n_alloc;
	l->max_split = gpu_max_split(n_alloc, g->esize);
	l->eps2 = eps * eps;
	if (GPU_CHECK(g, cudaGetDevice(&dev)) ||
	    GPU_CHECK(g, cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev)) ||
	    GPU_CHECK(g, cudaStreamCreateWithFlags(&g->stream, cudaStreamNonBlocking)) ||
	    GPU_CHECK(g, cudaEventCreate(&g->start)) || GPU_CHECK(g, cudaEventCreate(&g->stop)) ||
	    GPU_CHECK(g, cudaMalloc(&g->d_pos, n_alloc * g->esize)) ||
	    GPU_CHECK(g, cudaMalloc(&g->d_vel, n_alloc * g->esize)) ||
	    GPU_CHECK(g, cudaMalloc(&g->d_acc, n_alloc * g->esize)) ||
	    GPU_CHECK(g, cudaMalloc(&g->d_partial, (size_t)l->max_split * n_alloc * g->esize)) ||
	    GPU_CHECK(g, cudaMalloc((void **)&g->d_counters, n_alloc / 32 * sizeof(unsigned))) ||
	    GPU_CHECK(g, cudaMemset(g->d_counters, 0, n_alloc / 32 * sizeof(unsigned))) ||
	    gpu_alloc_sort(g, n_alloc) ||
	    GPU_CHECK(g, cudaMemset(g->d_acc, 0, n_alloc * g->esize)) ||
	    gpu_upload(g, g->d_pos, pos4, n) || gpu_upload(g, g->d_vel, vel4, n)) {
		snprintf(err, errlen, "N = %zu on the GPU: %s", n, g->error);
		gpu_instance_destroy(g);
		return -1;
	}
	l->pos = g->d_pos;
	l->acc = g->d_acc;
	l->partial = g->d_partial;
	l->counters = g->d_counters;
	l->sort_scratch = g->d_sort;
	l->sm_count = sms;
	l->stream = g->stream;
	*out = g;
	return 0;
}

/* Queues reps repetitions of forces (and, when steps, the leapfrog halves)
 * between the two events and waits for them. */
static int gpu_timed(struct gpu_instance *g, int reps, int steps, double dt, double *seconds)
{
	struct nbody_gpu_launch *l = &g->launch;
	if (GPU_CHECK(g, cudaEventRecord(g->start, g->stream)))
		return -1;
	for (int r = 0; r < reps; r++) {
		if (steps && gpu_check(g, (cudaError_t)nbody_gpu_kick_drift(g->d_pos, g->d_vel, g->d_acc,
									    l->n, dt, g->fp64, g->stream),
				       "kick-drift"))
			return -1;
		if (gpu_check(g, (cudaError_t)g->fn(l), "force kernel launch"))
			return -1;
		if (steps && gpu_check(g, (cudaError_t)nbody_gpu_kick(g->d_vel, g->d_acc, l->n, dt,
								      g->fp64, g->stream),
				       "kick"))
			return -1;
	}
	float ms = 0;
	if (GPU_CHECK(g, cudaEventRecord(g->stop, g->stream)) ||
	    GPU_CHECK(g, cudaEventSynchronize(g->stop)) ||
	    GPU_CHECK(g, cudaEventElapsedTime(&ms, g->start, g->stop)) ||
	    GPU_CHECK(g, cudaGetLastError()))
		return -1;
	*seconds = 1e-3 * ms;
	g->have_acc = 1;
	return 0;
}

extern "C" int gpu_instance_forces(struct gpu_instance *g, int reps, double *seconds)
{
	return gpu_timed(g, reps, 0, 0.0, seconds);
}

extern "C" int gpu_instance_steps(struct gpu_instance *g, int reps, double dt, double *seconds)
{
	double ignored;
	if (!g->have_acc && gpu_timed(g, 1, 0, 0.0, &ignored))
		return -1;
	return gpu_timed(g, reps, 1, dt, seconds);
}

/* Copies the first n device elements of src into host doubles, 4 per body. */
static int gpu_download4(struct gpu_instance *g, const void *src, double *out4)
{
	size_t n = (size_t)g->launch.n;
	void *buf = malloc(n * g->esize);
	if (!buf) {
		snprintf(g->error, sizeof g->error, "out of host memory");
		return -1;
	}
	int rc = GPU_CHECK(g, cudaMemcpy(buf, src, n * g->esize, cudaMemcpyDeviceToHost));
	for (size_t i = 0; rc == 0 && i < 4 * n; i++)
		out4[i] = g->fp64 ? ((double *)buf)[i] : ((float *)buf)[i];
	free(buf);
	return rc;
}

extern "C" int gpu_instance_accels(struct gpu_instance *g, double *acc3)
{
	double ignored;
	if (!g->have_acc && gpu_timed(g, 1, 0, 0.0, &ignored))
		return -1;
	size_t n = (size_t)g->launch.n;
	double *a4 = (double *)malloc(4 * n * sizeof(double));
	if (!a4)
		return -1;
	int rc = gpu_download4(g, g->d_acc, a4);
	for (size_t i = 0; rc == 0 && i < n; i++)
		for (int c = 0; c < 3; c++)
			acc3[3 * i + c] = a4[4 * i + c];
	free(a4);
	return rc;
}

extern "C" int gpu_instance_state(struct gpu_instance *g, float *pos4, float *vel4)
{
	size_t n = (size_t)g->launch.n;
	double *b4 = (double *)malloc(4 * n * sizeof(double));
	if (!b4)
		return -1;
	int rc = gpu_download4(g, g->d_pos, b4);
	for (size_t i = 0; rc == 0 && i < 4 * n; i++)
		pos4[i] = (float)b4[i];
	if (rc == 0 && vel4) {
		rc = gpu_download4(g, g->d_vel, b4);
		for (size_t i = 0; rc == 0 && i < 4 * n; i++)
			vel4[i] = (float)b4[i];
	}
	free(b4);
	return rc;
}

extern "C" const char *gpu_instance_error(const struct gpu_instance *g)
{
	return g ? g->error : "";
}

extern "C" void gpu_instance_destroy(struct gpu_instance *g)
{
	if (!g)
		return;
	if (g->stream)
		cudaStreamSynchronize(g->stream);
	cudaFree(g->d_pos);
	cudaFree(g->d_vel);
	cudaFree(g->d_acc);
	cudaFree(g->d_partial);
	cudaFree(g->d_counters);
	cudaFree(g->d_sort);
	if (g->start)
		cudaEventDestroy(g->start);
	if (g->stop)
		cudaEventDestroy(g->stop);
	if (g->stream)
		cudaStreamDestroy(g->stream);
	free(g);
}
