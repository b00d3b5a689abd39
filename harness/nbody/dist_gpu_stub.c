/* dist_gpu_stub.c - the GPU ranks in a build without NCCL (or CUDA): listed, never run */
#include <stdio.h>

#include "dist_gpu.h"
#include "../core/gpu_device.h"

const char *dist_gpu_unavailable_reason(void)
{
	if (!gpu_built())
		return gpu_unavailable_reason();
	return "built without NCCL (nccl.h and libnccl not found at build time)";
}

void dist_gpu_bind(void)
{
}

void dist_gpu_device(char *name, size_t namelen, char *bus, size_t buslen)
{
	snprintf(name, namelen, "%s", "");
	snprintf(bus, buslen, "%s", "");
}

void dist_gpu_shutdown(void)
{
}

int dist_gpu_create(struct dist_gpu **out, enum dist_scheme scheme, nbody_gpu_fn fn,
		    const struct dist_layout *lay, const float *own4, const float *vel4, double eps,
		    char *err, size_t errlen)
{
	(void)scheme, (void)fn, (void)lay, (void)own4, (void)vel4, (void)eps;
	*out = NULL;
	snprintf(err, errlen, "%s", dist_gpu_unavailable_reason());
	return -1;
}

int dist_gpu_run(struct dist_gpu *g, enum dist_work work, int reps, double dt)
{
	(void)g, (void)work, (void)reps, (void)dt;
	return -1;
}

int dist_gpu_own(struct dist_gpu *g, float *acc4, float *pos4, float *vel4)
{
	(void)g, (void)acc4, (void)pos4, (void)vel4;
	return -1;
}

int dist_gpu_received(struct dist_gpu *g, float *blocks4, int *origin)
{
	(void)g, (void)blocks4, (void)origin;
	return -1;
}

const char *dist_gpu_error(const struct dist_gpu *g)
{
	(void)g;
	return dist_gpu_unavailable_reason();
}

void dist_gpu_destroy(struct dist_gpu *g)
{
	(void)g;
}

int dist_gpu_bench_create(struct dist_gpu_bench **out, size_t max_bytes, char *err, size_t errlen)
{
	(void)max_bytes;
	*out = NULL;
	snprintf(err, errlen, "%s", dist_gpu_unavailable_reason());
	return -1;
}

int dist_gpu_bench_run(struct dist_gpu_bench *b, enum dist_op op, size_t bytes, int reps)
{
	(void)b, (void)op, (void)bytes, (void)reps;
	return -1;
}

const char *dist_gpu_bench_error(const struct dist_gpu_bench *b)
{
	(void)b;
	return dist_gpu_unavailable_reason();
}

void dist_gpu_bench_destroy(struct dist_gpu_bench *b)
{
	(void)b;
}
