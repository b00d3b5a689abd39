/* nbody_ref.c - double-precision all-pairs N-body oracle (GPU Gems 3 ch. 31) */
#include "nbody_ref.h"

#include <math.h>
#include <stdlib.h>

/*
 * Add the pull of a body of mass mj at xj on a body at xi to acc, and its
 * magnitude to *fabs_acc. The one place the force law is written, so the
 * float and double entry points cannot disagree.
 */
static void ref_pair_accel(const double xi[3], const double xj[3], double mj,
			   double eps2, double acc[3], double *fabs_acc)
{
	const double r[3] = { xj[0] - xi[0], xj[1] - xi[1], xj[2] - xi[2] };
	const double d2 = r[0] * r[0] + r[1] * r[1] + r[2] * r[2] + eps2;
	double s;

	if (d2 == 0.0)
		return;		/* self term (or coincidence) with eps == 0 */
	s = mj / (d2 * sqrt(d2));	/* m_j / (r^2 + eps^2)^(3/2) */
	acc[0] += s * r[0];
	acc[1] += s * r[1];
	acc[2] += s * r[2];
	*fabs_acc += s * sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]);
}

/* Acceleration on body i from all n bodies, positions as float4. */
static void ref_accel_one_float(const float *pos4, size_t n, double eps2,
				size_t i, double acc[3], double *fabs_acc)
{
	const double xi[3] = { pos4[4 * i], pos4[4 * i + 1], pos4[4 * i + 2] };

	acc[0] = acc[1] = acc[2] = 0.0;
	*fabs_acc = 0.0;
	for (size_t j = 0; j < n; j++) {
		const double xj[3] = { pos4[4 * j], pos4[4 * j + 1],
				       pos4[4 * j + 2] };

		ref_pair_accel(xi, xj, pos4[4 * j + 3], eps2, acc, fabs_acc);
	}
}

void ref_accel_bodies(const float *pos4, size_t n, double eps,
		      const size_t *idx, size_t m,
		      double *acc3, double *fabs_sum)
{
	const double eps2 = eps * eps;

	/* Each body's sum is its own, in the same order with any number of
	 * threads: the result does not depend on them. (At N = 2^22 the 1026
	 * checked bodies take 40 s on one core.) */
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 1)
#endif
	for (size_t k = 0; k < m; k++) {
		const size_t i = idx ? idx[k] : k;
		double fabs_acc;

		ref_accel_one_float(pos4, n, eps2, i, &acc3[3 * k], &fabs_acc);
		if (fabs_sum)
			fabs_sum[k] = fabs_acc;
	}
}

int ref_state_init(struct ref_state *s, const float *pos4, const float *vel4,
		   size_t n)
{
	s->n = n;
	s->x = calloc(3 * n + 1, sizeof *s->x); /* +1: n == 0 is no failure */
	s->v = calloc(3 * n + 1, sizeof *s->v);
	s->m = calloc(n + 1, sizeof *s->m);
	s->a = calloc(3 * n + 1, sizeof *s->a);
	if (!s->x || !s->v || !s->m || !s->a)
		goto out_free_all;

	for (size_t i = 0; i < n; i++) {
		for (int c = 0; c < 3; c++) {
			s->x[3 * i + c] = pos4[4 * i + c];
			s->v[3 * i + c] = vel4 ? vel4[4 * i + c] : 0.0;
		}
		s->m[i] = pos4[4 * i + 3];
	}
	return 0;

out_free_all:
	ref_state_free(s);
	return -1;
}

void ref_state_free(struct ref_state *s)
{
	free(s->x);
	free(s->v);
	free(s->m);
	free(s->a);
	s->x = s->v = s->m = s->a = NULL;
	s->n = 0;
}

void ref_state_accel(struct ref_state *s, double eps)
{
	const double eps2 = eps * eps;

	for (size_t i = 0; i < s->n; i++) {
		double *acc = &s->a[3 * i];
		double fabs_acc = 0.0;

		acc[0] = acc[1] = acc[2] = 0.0;
		for (size_t j = 0; j < s->n; j++)
			ref_pair_accel(&s->x[3 * i], &s->x[3 * j], s->m[j],
				       eps2, acc, &fabs_acc);
	}
}

double ref_kinetic_energy(const struct ref_state *s)
{
	double t = 0.0;

	for (size_t i = 0; i < s->n; i++) {
		const double *v = &s->v[3 * i];

		t += 0.5 * s->m[i] * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
	}
	return t;
}

double ref_potential_energy(const struct ref_state *s, double eps)
{
	const double eps2 = eps * eps;
	double w = 0.0;

	for (size_t i = 0; i < s->n; i++) {
		const double *xi = &s->x[3 * i];

		for (size_t j = i + 1; j < s->n; j++) {
			const double *xj = &s->x[3 * j];
			const double r[3] = { xj[0] - xi[0], xj[1] - xi[1],
					      xj[2] - xi[2] };
			const double d2 = r[0] * r[0] + r[1] * r[1] +
					  r[2] * r[2] + eps2;

			if (d2 > 0.0)
				w -= s->m[i] * s->m[j] / sqrt(d2);
		}
	}
	return w;
}

/* v += a h for every body. */
static void ref_kick(struct ref_state *s, double h)
{
	for (size_t k = 0; k < 3 * s->n; k++)
		s->v[k] += s->a[k] * h;
}

/* x += v h for every body. */
static void ref_drift(struct ref_state *s, double h)
{
	for (size_t k = 0; k < 3 * s->n; k++)
		s->x[k] += s->v[k] * h;
}

void ref_leapfrog_step(struct ref_state *s, double dt, double eps)
{
	ref_kick(s, 0.5 * dt);
	ref_drift(s, dt);
	ref_state_accel(s, eps);
	ref_kick(s, 0.5 * dt);
}

void ref_total_momentum(const struct ref_state *s, double p[3])
{
	p[0] = p[1] = p[2] = 0.0;
	for (size_t i = 0; i < s->n; i++)
		for (int c = 0; c < 3; c++)
			p[c] += s->m[i] * s->v[3 * i + c];
}
