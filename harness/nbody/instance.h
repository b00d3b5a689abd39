/* instance.h - one variant set up on one set of bodies: forces, steps, results */
#ifndef HARNESS_INSTANCE_H
#define HARNESS_INSTANCE_H

#include <stddef.h>

#include "../../kernels/nbody/nbody_gpu.h"
#include "../../variants/registry.h"
#include "dist_instance.h"
#include "gpu_instance.h"

/* The state of a variant running on n bodies. CPU variants work on the
 * host arrays here; GPU variants keep theirs on the device (gpu);
 * distributed variants spread them over the ranks (dist), and every rank
 * makes the same calls (see dist_instance.h): bodies and results live on
 * rank 0. */
struct instance {
	const struct variant *v;
	struct gpu_instance *gpu; /* GPU variants only */
	struct dist_instance *dist; /* distributed variants only */
	size_t n;
	float eps2;
	float *pos4; /* n x (x, y, z, mass) */
	float *vel4; /* n x (vx, vy, vz, 0) */
	float *acc4; /* n x (ax, ay, az, 0) of the current positions */
	int have_acc;
};

/* Whether this build and machine can run v: its device
 * (variant_device_available) and, for a distributed variant, MPI and a GPU
 * for each rank of a host (dist_unavailable_reason,
 * dist_gpu_unavailable_reason). When not, *why (if why is not NULL)
 * points to a static reason such as "built without CUDA". */
bool variant_available(const struct variant *v, const char **why);

/* Copies the bodies into a new instance of v. vel4 may be NULL (at rest).
 * Returns 0, or -1 with a message in err (no memory, variant unavailable). */
int instance_create(struct instance *in, const struct variant *v, const float *pos4,
		    const float *vel4, size_t n, double eps, char *err, size_t errlen);

/* Evaluates all accelerations reps times; *seconds is the total time.
 * Matches timing_fn, so timing_measure can drive it. 0 or -1. */
int instance_forces(void *in, int reps, double *seconds);

/* Advances reps kick-drift-kick leapfrog steps of size dt (forces and
 * integration together); *seconds is the total time. 0 or -1. */
int instance_steps(struct instance *in, int reps, double dt, double *seconds);

/* Copies the accelerations of the current positions (computing them if no
 * force evaluation ran yet) into acc3 (3n doubles). 0 or -1. */
int instance_accels(struct instance *in, double *acc3);

/* The same for a GPU launcher that is not in the registry (the planted
 * kernels of the tests), with the precision it computes in. */
int instance_create_gpu(struct instance *in, const struct variant *v, nbody_gpu_fn fn,
			const float *pos4, const float *vel4, size_t n, double eps, char *err,
			size_t errlen);

void instance_destroy(struct instance *in);

#endif
