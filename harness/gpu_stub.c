/* gpu_stub.c - the GPU API in a build without nvcc: no devices, nothing runs */
#include <stdio.h>

#include "../kernels/nbody/nbody_gpu.h"
#include "core/gpu_device.h"
#include "nbody/gpu_instance.h"

static const char gpu_stub_reason[] = "built without CUDA (no nvcc at build time)";

bool gpu_built(void)
{
	return false;
}

int gpu_device_count(void)
{
	return 0;
}

int gpu_device_query(int dev, struct gpu_device_info *info)
{
	(void)dev;
	(void)info;
	return -1;
}

const char *gpu_unavailable_reason(void)
{
	return gpu_stub_reason;
}

nbody_gpu_fn nbody_gpu_launcher(int index)
{
	(void)index;
	return NULL;
}

int gpu_instance_create(struct gpu_instance **out, nbody_gpu_fn fn, int fp64, const float *pos4,
			const float *vel4, size_t n, double eps, char *err, size_t errlen)
{
	(void)fn, (void)fp64, (void)pos4, (void)vel4, (void)n, (void)eps;
	*out = NULL;
	snprintf(err, errlen, "%s", gpu_stub_reason);
	return -1;
}

int gpu_instance_forces(struct gpu_instance *g, int reps, double *seconds)
{
	(void)g, (void)reps, (void)seconds;
	return -1;
}

int gpu_instance_steps(struct gpu_instance *g, int reps, double dt, double *seconds)
{
	(void)g, (void)reps, (void)dt, (void)seconds;
	return -1;
}

int gpu_instance_accels(struct gpu_instance *g, double *acc3)
{
	(void)g, (void)acc3;
	return -1;
}

int gpu_instance_state(struct gpu_instance *g, float *pos4, float *vel4)
{
	(void)g, (void)pos4, (void)vel4;
	return -1;
}

const char *gpu_instance_error(const struct gpu_instance *g)
{
	(void)g;
	return gpu_stub_reason;
}

void gpu_instance_destroy(struct gpu_instance *g)
{
	(void)g;
}
