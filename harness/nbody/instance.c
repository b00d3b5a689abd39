/* instance.c - one variant set up on one set of bodies: forces, steps, results */
#include "instance.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/timing.h"
#include "dist.h"
#include "dist_gpu.h"
#include "leapfrog.h"

/* The registry's test hook (variant_planted_skip_body): a copy of the
 * bodies whose middle body weighs nothing, so every other body's force
 * sum skips it. Returns the copy (caller frees), or NULL with err. */
static float *instance_plant_skip_body(const struct variant *v, const float *pos4, size_t n,
				       char *err, size_t errlen)
{
	float *copy = malloc(4 * n * sizeof(float));
	if (!copy) {
		snprintf(err, errlen, "variant '%s': out of memory for N = %zu", v->name, n);
		return NULL;
	}
	memcpy(copy, pos4, 4 * n * sizeof(float));
	copy[4 * (n / 2) + 3] = 0.0f;
	return copy;
}

bool variant_available(const struct variant *v, const char **why)
{
	const char *reason = NULL;
	if (variant_device_available(v, &reason) && v->dist) {
		reason = dist_unavailable_reason();
		if (!reason && v->device == VARIANT_GPU)
			reason = dist_gpu_unavailable_reason();
	}
	if (why)
		*why = reason;
	return reason == NULL;
}

int instance_create(struct instance *in, const struct variant *v, const float *pos4,
		    const float *vel4, size_t n, double eps, char *err, size_t errlen)
{
	memset(in, 0, sizeof *in);
	const char *why;
	if (!variant_available(v, &why)) {
		snprintf(err, errlen, "variant '%s' is not available: %s", v->name, why);
		return -1;
	}
	float *planted = NULL;
	if (variant_planted_skip_body(v) && n > 0) {
		planted = instance_plant_skip_body(v, pos4, n, err, errlen);
		if (!planted)
			return -1;
		pos4 = planted;
	}
	int rc = 0;
	if (v->dist) {
		in->v = v;
		in->n = n;
		in->eps2 = (float)(eps * eps);
		rc = dist_instance_create(&in->dist, v, pos4, vel4, n, eps, err, errlen);
		goto out_free_planted;
	}
	if (v->device == VARIANT_GPU) {
		rc = instance_create_gpu(in, v, nbody_gpu_launcher((int)(v - nbody_variants)), pos4,
					 vel4, n, eps, err, errlen);
		goto out_free_planted;
	}
	in->v = v;
	in->n = n;
	in->eps2 = (float)(eps * eps);
	in->pos4 = malloc(4 * n * sizeof(float));
	in->vel4 = calloc(4 * n, sizeof(float));
	in->acc4 = calloc(4 * n, sizeof(float));
	if (!in->pos4 || !in->vel4 || !in->acc4) {
		snprintf(err, errlen, "variant '%s': out of memory for N = %zu", v->name, n);
		instance_destroy(in);
		rc = -1;
		goto out_free_planted;
	}
	memcpy(in->pos4, pos4, 4 * n * sizeof(float));
	if (vel4)
		memcpy(in->vel4, vel4, 4 * n * sizeof(float));
out_free_planted:
	free(planted);
	return rc;
}

int instance_create_gpu(struct instance *in, const struct variant *v, nbody_gpu_fn fn,
			const float *pos4, const float *vel4, size_t n, double eps, char *err,
			size_t errlen)
{
	memset(in, 0, sizeof *in);
	in->v = v;
	in->n = n;
	in->eps2 = (float)(eps * eps);
	if (!fn) {
		snprintf(err, errlen, "variant '%s' has no GPU launcher", v->name);
		return -1;
	}
	char why[256];
	if (gpu_instance_create(&in->gpu, fn, v->precision == VARIANT_FP64, pos4, vel4, n, eps, why,
				sizeof why) != 0) {
		snprintf(err, errlen, "variant '%s': %s", v->name, why);
		return -1;
	}
	return 0;
}

int instance_forces(void *ctx, int reps, double *seconds)
{
	struct instance *in = ctx;
	if (in->dist)
		return dist_instance_forces(in->dist, reps, seconds);
	if (in->gpu)
		return gpu_instance_forces(in->gpu, reps, seconds);
	double t0 = timing_now();
	for (int r = 0; r < reps; r++)
		in->v->cpu_forces(in->pos4, in->acc4, in->n, in->eps2);
	*seconds = timing_now() - t0;
	in->have_acc = 1;
	return 0;
}

int instance_steps(struct instance *in, int reps, double dt, double *seconds)
{
	if (in->dist)
		return dist_instance_steps(in->dist, reps, dt, seconds);
	if (in->gpu)
		return gpu_instance_steps(in->gpu, reps, dt, seconds);
	double ignored;
	if (!in->have_acc && instance_forces(in, 1, &ignored) != 0)
		return -1;
	float fdt = (float)dt, half = (float)(0.5 * dt);
	double t0 = timing_now();
	for (int r = 0; r < reps; r++) {
		leapfrog_kick4(in->vel4, in->acc4, in->n, half);
		leapfrog_drift4(in->pos4, in->vel4, in->n, fdt);
		in->v->cpu_forces(in->pos4, in->acc4, in->n, in->eps2);
		leapfrog_kick4(in->vel4, in->acc4, in->n, half);
	}
	*seconds = timing_now() - t0;
	return 0;
}

int instance_accels(struct instance *in, double *acc3)
{
	if (in->dist)
		return dist_instance_accels(in->dist, acc3);
	if (in->gpu)
		return gpu_instance_accels(in->gpu, acc3);
	double ignored;
	if (!in->have_acc && instance_forces(in, 1, &ignored) != 0)
		return -1;
	for (size_t i = 0; i < in->n; i++)
		for (int c = 0; c < 3; c++)
			acc3[3 * i + c] = in->acc4[4 * i + c];
	return 0;
}

void instance_destroy(struct instance *in)
{
	dist_instance_destroy(in->dist);
	gpu_instance_destroy(in->gpu);
	free(in->pos4);
	free(in->vel4);
	free(in->acc4);
	memset(in, 0, sizeof *in);
}
