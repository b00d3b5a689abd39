/* gpu_instance.h - a GPU variant's device state, launches and CUDA-event timing */
#ifndef HARNESS_GPU_INSTANCE_H
#define HARNESS_GPU_INSTANCE_H

#include <stddef.h>

#include "../../kernels/nbody/nbody_gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

struct gpu_instance;

/* Uploads n bodies (padded with zero-mass bodies to a multiple of
 * NBODY_GPU_PAD) for launcher fn in float (fp64 == 0) or double. vel4 may
 * be NULL. eps must be > 0: the GPU kernels rely on eps^2 > 0 to make the
 * self term zero, as the chapter does. Returns 0, or -1 with err. */
int gpu_instance_create(struct gpu_instance **out, nbody_gpu_fn fn, int fp64, const float *pos4,
			const float *vel4, size_t n, double eps, char *err, size_t errlen);

/* reps force evaluations between two CUDA events on the instance's stream;
 * *seconds is the elapsed time between them. 0, or -1 on a CUDA error. */
int gpu_instance_forces(struct gpu_instance *g, int reps, double *seconds);

/* reps leapfrog steps (kick-drift, forces, kick), timed the same way. */
int gpu_instance_steps(struct gpu_instance *g, int reps, double dt, double *seconds);

/* Accelerations of the current positions (3n doubles); evaluates them
 * first when no evaluation ran yet. 0 or -1. */
int gpu_instance_accels(struct gpu_instance *g, double *acc3);

/* Current positions (4n floats) and velocities (4n floats, may be NULL). */
int gpu_instance_state(struct gpu_instance *g, float *pos4, float *vel4);

/* The last CUDA error as text ("" when none). */
const char *gpu_instance_error(const struct gpu_instance *g);

void gpu_instance_destroy(struct gpu_instance *g);

#ifdef __cplusplus
}
#endif

#endif
