/* gpu_instance_stub.c - the N-body GPU instance in a build without nvcc: nothing runs, and
 * every call says why */
#include <stdio.h>

#include "../core/gpu_device.h"
#include "gpu_instance.h"

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
	snprintf(err, errlen, "%s", gpu_unavailable_reason());
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
	return gpu_unavailable_reason();
}

void gpu_instance_destroy(struct gpu_instance *g)
{
	(void)g;
}
