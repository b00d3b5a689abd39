/* test_nbody_ref.c - Criterion tests for the double oracle (suite nbody_ref) */
#include <criterion/criterion.h>

#include <math.h>
#include <stdlib.h>

#include "../../reference/ic.h"
#include "../../reference/nbody_ref.h"
#include "../../reference/rng.h"

/* |a - b| <= tol * |b| (tol relative; b == 0 needs a == 0). */
static int ref_test_close(double a, double b, double tol)
{
	return fabs(a - b) <= tol * fabs(b);
}

static double ref_test_norm3(const double v[3])
{
	return sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
}

/* Plummer bodies (seed 1) whose masses are then redrawn in [0.5, 1.5)/n,
 * so that tests of mass weighting are not blind to m_i / m_j mix-ups. */
static float *ref_test_bodies(size_t n)
{
	float *p = malloc(4 * n * sizeof *p), *v = malloc(4 * n * sizeof *v);
	struct rng r;

	cr_assert(p && v, "out of memory");
	cr_assert(ic_generate(IC_PLUMMER, n, 1, p, v) == 0);
	rng_seed(&r, 77);
	for (size_t i = 0; i < n; i++)
		p[4 * i + 3] = (float)((0.5 + rng_uniform(&r)) / (double)n);
	free(v);
	return p;
}

/*
 * Two bodies, separation (1, 2, 2) of length d = 3 (floats exact):
 *   a_0 = m_1 (1,2,2) / (d^2 + eps^2)^(3/2),  a_1 = -m_0 (1,2,2) / (...).
 */
static void ref_test_two_body(double eps)
{
	const float pos4[8] = { 0.25f, -0.5f, 1.0f, 0.25f,
				1.25f, 1.5f, 3.0f, 0.75f };
	const double dir[3] = { 1.0, 2.0, 2.0 };
	const double inv = 1.0 / pow(9.0 + eps * eps, 1.5);
	double acc[6], fsum[2];

	ref_accel_bodies(pos4, 2, eps, NULL, 2, acc, fsum);
	for (int c = 0; c < 3; c++) {
		cr_assert(ref_test_close(acc[c], 0.75 * dir[c] * inv, 1e-14),
			  "eps %g: a_0[%d] = %.17g", eps, c, acc[c]);
		cr_assert(ref_test_close(acc[3 + c], -0.25 * dir[c] * inv,
					 1e-14),
			  "eps %g: a_1[%d] = %.17g", eps, c, acc[3 + c]);
	}
	cr_assert(ref_test_close(fsum[0], 0.75 * 3.0 * inv, 1e-14));
	cr_assert(ref_test_close(fsum[1], 0.25 * 3.0 * inv, 1e-14));
}

Test(nbody_ref, two_body_analytic_unsoftened)
{
	ref_test_two_body(0.0);
}

Test(nbody_ref, two_body_analytic_softened)
{
	ref_test_two_body(0.5);
}

/* A lone body feels nothing, also with eps = 0 (no 0/0). */
Test(nbody_ref, self_term_is_zero_without_softening)
{
	const float pos4[4] = { 0.3f, -0.2f, 0.1f, 1.0f };
	double acc[3], fsum;

	ref_accel_bodies(pos4, 1, 0.0, NULL, 1, acc, &fsum);
	cr_assert(acc[0] == 0.0 && acc[1] == 0.0 && acc[2] == 0.0 &&
		  fsum == 0.0, "a = (%g, %g, %g), fabs %g", acc[0], acc[1],
		  acc[2], fsum);
}

/*
 * Masses 1, 2, 3 at (0,0,0), (3,0,0), (0,4,0), eps = 0: a 3-4-5 triangle.
 *   a_0 = 2 (3,0,0)/27 + 3 (0,4,0)/64          = (2/9, 3/16, 0)
 *   a_1 = 1 (-3,0,0)/27 + 3 (-3,4,0)/125        = (-1/9 - 9/125, 12/125, 0)
 *   a_2 = 1 (0,-4,0)/64 + 2 (3,-4,0)/125        = (6/125, -1/16 - 8/125, 0)
 *   fabs = (2/9 + 3/16, 1/9 + 3/25, 1/16 + 2/25)
 */
Test(nbody_ref, three_body_hand_values)
{
	const float pos4[12] = { 0, 0, 0, 1, 3, 0, 0, 2, 0, 4, 0, 3 };
	const double want_a[9] = { 2.0 / 9, 3.0 / 16, 0,
				   -1.0 / 9 - 9.0 / 125, 12.0 / 125, 0,
				   6.0 / 125, -1.0 / 16 - 8.0 / 125, 0 };
	const double want_f[3] = { 2.0 / 9 + 3.0 / 16, 1.0 / 9 + 3.0 / 25,
				   1.0 / 16 + 2.0 / 25 };
	double acc[9], fsum[3];

	ref_accel_bodies(pos4, 3, 0.0, NULL, 3, acc, fsum);
	for (int k = 0; k < 9; k++)
		cr_assert(ref_test_close(acc[k], want_a[k], 1e-15),
			  "a[%d] = %.17g, want %.17g", k, acc[k], want_a[k]);
	for (int i = 0; i < 3; i++) {
		cr_assert(ref_test_close(fsum[i], want_f[i], 1e-15),
			  "fabs[%d] = %.17g, want %.17g", i, fsum[i],
			  want_f[i]);
		cr_assert(fsum[i] >= ref_test_norm3(&acc[3 * i]));
	}
}

/* Same 3-body system: W = -(1*2/3 + 1*3/4 + 2*3/5) = -157/60; with
 * velocities (1,0,0), (0,2,0), (0,0,-1): T = (1 + 2*4 + 3*1)/2 = 6 and
 * p = (1, 4, -3). vel4 == NULL gives a system at rest. */
Test(nbody_ref, three_body_energies_and_momentum)
{
	const float pos4[12] = { 0, 0, 0, 1, 3, 0, 0, 2, 0, 4, 0, 3 };
	const float vel4[12] = { 1, 0, 0, 0, 0, 2, 0, 0, 0, 0, -1, 0 };
	struct ref_state s;
	double p[3];

	cr_assert(ref_state_init(&s, pos4, vel4, 3) == 0);
	cr_assert(ref_test_close(ref_potential_energy(&s, 0.0),
				 -157.0 / 60.0, 1e-15));
	cr_assert(ref_kinetic_energy(&s) == 6.0);
	ref_total_momentum(&s, p);
	cr_assert(p[0] == 1.0 && p[1] == 4.0 && p[2] == -3.0);
	ref_state_free(&s);
	cr_assert(s.x == NULL && s.n == 0);

	cr_assert(ref_state_init(&s, pos4, NULL, 3) == 0);
	cr_assert(ref_kinetic_energy(&s) == 0.0);
	cr_assert(s.m[2] == 3.0 && s.x[3] == 3.0 && s.x[7] == 4.0);
	ref_state_free(&s);
}

/* |a_i| <= sum_j |f_ij| for every body (triangle inequality), up to the
 * rounding of the two sums. */
Test(nbody_ref, fabs_sum_bounds_acceleration)
{
	const size_t n = 500;
	float *p = ref_test_bodies(n);
	double *acc = malloc(3 * n * sizeof *acc), *fsum = malloc(n * sizeof *fsum);

	cr_assert(acc && fsum);
	ref_accel_bodies(p, n, 0.01, NULL, n, acc, fsum);
	for (size_t i = 0; i < n; i++) {
		double a = ref_test_norm3(&acc[3 * i]);

		cr_assert(fsum[i] > 0.0 && a <= fsum[i] * (1.0 + 1e-12),
			  "body %zu: |a| = %.17g, fabs_sum = %.17g", i, a,
			  fsum[i]);
	}
	free(acc), free(fsum), free(p);
}

/* A subset, unordered and with a repeat, gives bit for bit the numbers the
 * full computation gives for those bodies; fabs_sum == NULL is allowed. */
Test(nbody_ref, index_subset_matches_full)
{
	const size_t n = 1000, idx[5] = { 999, 3, 0, 3, 512 };
	float *p = ref_test_bodies(n);
	double *acc = malloc(3 * n * sizeof *acc), *fsum = malloc(n * sizeof *fsum);
	double sub_a[15], sub_f[5], nof_a[15];

	cr_assert(acc && fsum);
	ref_accel_bodies(p, n, 0.01, NULL, n, acc, fsum);
	ref_accel_bodies(p, n, 0.01, idx, 5, sub_a, sub_f);
	ref_accel_bodies(p, n, 0.01, idx, 5, nof_a, NULL);
	for (size_t k = 0; k < 5; k++) {
		for (int c = 0; c < 3; c++) {
			cr_assert(sub_a[3 * k + c] == acc[3 * idx[k] + c],
				  "idx[%zu] = %zu, component %d", k, idx[k], c);
			cr_assert(nof_a[3 * k + c] == sub_a[3 * k + c]);
		}
		cr_assert(sub_f[k] == fsum[idx[k]], "fabs of idx[%zu]", k);
	}
	free(acc), free(fsum), free(p);
}

/* The double-state path and the float4 path compute the same sums. */
Test(nbody_ref, state_accel_matches_float_path)
{
	const size_t n = 300;
	float *p = ref_test_bodies(n);
	double *acc = malloc(3 * n * sizeof *acc);
	struct ref_state s;

	cr_assert(acc && ref_state_init(&s, p, NULL, n) == 0);
	ref_accel_bodies(p, n, 0.05, NULL, n, acc, NULL);
	ref_state_accel(&s, 0.05);
	for (size_t k = 0; k < 3 * n; k++)
		cr_assert(s.a[k] == acc[k], "component %zu", k);
	ref_state_free(&s);
	free(acc), free(p);
}

/* |sum_i m_i a_i| / sum_i m_i |a_i| for accelerations acc3 of bodies p. */
static double ref_test_momentum_residual(const float *p, size_t n,
					 const double *acc3)
{
	double net[3] = { 0, 0, 0 }, scale = 0.0;

	for (size_t i = 0; i < n; i++) {
		for (int c = 0; c < 3; c++)
			net[c] += p[4 * i + 3] * acc3[3 * i + c];
		scale += p[4 * i + 3] * ref_test_norm3(&acc3[3 * i]);
	}
	return ref_test_norm3(net) / scale;
}

/*
 * Newton's third law: sum_i m_i a_i = 0. In double the residual is
 * rounding, ~1e-16 * sqrt(n); 1e-12 is far above that yet far below what
 * single-precision accelerations leave (~1e-8), which the planted rounding
 * to float shows, as would an m_i / m_j mix-up (masses are unequal here).
 */
Test(nbody_ref, momentum_conservation)
{
	const size_t n = 1000;
	float *p = ref_test_bodies(n);
	double *acc = malloc(3 * n * sizeof *acc);
	double res;

	cr_assert(acc);
	ref_accel_bodies(p, n, 0.01, NULL, n, acc, NULL);
	res = ref_test_momentum_residual(p, n, acc);
	cr_assert(res < 1e-12, "relative net force %.3g", res);
	for (size_t k = 0; k < 3 * n; k++)
		acc[k] = (float)acc[k];		/* planted: float results */
	res = ref_test_momentum_residual(p, n, acc);
	cr_assert(res > 1e-12, "float-rounded accelerations pass (%.3g)", res);
	free(acc), free(p);
}

/*
 * Shifting every body by (0.5, -0.25, 1) changes no acceleration. The
 * coordinates are multiples of 2^-10 in [-1, 1], so the shifted floats
 * are exact and any difference would come from the oracle itself.
 */
Test(nbody_ref, translation_invariance)
{
	const size_t n = 400;
	const float shift[3] = { 0.5f, -0.25f, 1.0f };
	float *p = malloc(4 * n * sizeof *p), *q = malloc(4 * n * sizeof *q);
	double *a = malloc(3 * n * sizeof *a), *b = malloc(3 * n * sizeof *b);
	double *fsum = malloc(n * sizeof *fsum);
	struct rng r;

	cr_assert(p && q && a && b && fsum);
	rng_seed(&r, 21);
	for (size_t i = 0; i < n; i++) {
		for (int c = 0; c < 3; c++) {
			p[4 * i + c] = ((float)rng_below(&r, 2049) - 1024.0f) /
				       1024.0f;
			q[4 * i + c] = p[4 * i + c] + shift[c];
			cr_assert((double)q[4 * i + c] ==
				  (double)p[4 * i + c] + shift[c]);
		}
		p[4 * i + 3] = q[4 * i + 3] = (float)(0.5 + rng_uniform(&r));
	}
	ref_accel_bodies(p, n, 0.01, NULL, n, a, fsum);
	ref_accel_bodies(q, n, 0.01, NULL, n, b, NULL);
	for (size_t k = 0; k < 3 * n; k++)
		cr_assert(fabs(a[k] - b[k]) <= 1e-12 * fsum[k / 3],
			  "component %zu: %.17g vs %.17g", k, a[k], b[k]);
	free(p), free(q), free(a), free(b), free(fsum);
}

/*
 * The potential is the one of the softened force: -dW/dx_i = m_i a_i,
 * checked by central differences (h = 1e-5: truncation ~h^2 = 1e-10,
 * cancellation ~1e-16/h = 1e-11, both far below the 1e-7 band; dropping
 * eps from W would be off by ~eps^2 = 1e-2).
 */
Test(nbody_ref, potential_gradient_is_force)
{
	const size_t n = 6;
	const double eps = 0.1, h = 1e-5;
	float *p = ref_test_bodies(n);
	struct ref_state s;

	cr_assert(ref_state_init(&s, p, NULL, n) == 0);
	ref_state_accel(&s, eps);
	for (size_t k = 0; k < 3 * n; k++) {
		const double x0 = s.x[k];
		double wp, wm, grad, force;

		s.x[k] = x0 + h;
		wp = ref_potential_energy(&s, eps);
		s.x[k] = x0 - h;
		wm = ref_potential_energy(&s, eps);
		s.x[k] = x0;
		grad = (wp - wm) / (2.0 * h);
		force = s.m[k / 3] * s.a[k];
		cr_assert(fabs(-grad - force) <= 1e-7 * s.m[k / 3] *
			  ref_test_norm3(&s.a[3 * (k / 3)]) + 1e-12,
			  "coordinate %zu: -dW/dx = %.12g, m a = %.12g", k,
			  -grad, force);
	}
	ref_state_free(&s);
	free(p);
}

/* A first-order step (kick then drift, full dt): the planted bug that the
 * energy bound must catch. Same contract as ref_leapfrog_step. */
static void ref_test_euler_step(struct ref_state *s, double dt, double eps)
{
	for (size_t k = 0; k < 3 * s->n; k++)
		s->v[k] += s->a[k] * dt;
	for (size_t k = 0; k < 3 * s->n; k++)
		s->x[k] += s->v[k] * dt;
	ref_state_accel(s, eps);
}

#define REF_TEST_EPS 0.05	/* softening, Henon units */
#define REF_TEST_DT 0.005	/* 1000 steps = 5 time units ~ 1.8 t_cross */
#define REF_TEST_STEPS 1000
#define REF_TEST_DE_BOUND 1e-4

/* Largest |E/E0 - 1| (sampled every 10 steps) over REF_TEST_STEPS steps
 * of a Plummer sphere of 256 bodies; *dp gets |p - p0| / sum m|v0|. */
static double ref_test_energy_error(void (*step)(struct ref_state *, double,
						 double), double *dp)
{
	const size_t n = 256;
	float *p = malloc(4 * n * sizeof *p), *v = malloc(4 * n * sizeof *v);
	struct ref_state s;
	double e0, worst = 0.0, p0[3], p1[3], pscale = 0.0;

	cr_assert(p && v && ic_generate(IC_PLUMMER, n, 3, p, v) == 0);
	cr_assert(ref_state_init(&s, p, v, n) == 0);
	ref_state_accel(&s, REF_TEST_EPS);
	e0 = ref_kinetic_energy(&s) + ref_potential_energy(&s, REF_TEST_EPS);
	ref_total_momentum(&s, p0);
	for (size_t i = 0; i < n; i++)
		pscale += s.m[i] * ref_test_norm3(&s.v[3 * i]);
	for (int k = 1; k <= REF_TEST_STEPS; k++) {
		step(&s, REF_TEST_DT, REF_TEST_EPS);
		if (k % 10 == 0) {
			double e = ref_kinetic_energy(&s) +
				   ref_potential_energy(&s, REF_TEST_EPS);

			worst = fmax(worst, fabs(e / e0 - 1.0));
		}
	}
	ref_total_momentum(&s, p1);
	for (int c = 0; c < 3; c++)
		p1[c] -= p0[c];
	*dp = ref_test_norm3(p1) / pscale;
	ref_state_free(&s);
	free(p), free(v);
	return worst;
}

/*
 * Leapfrog is symplectic: its energy error oscillates, bounded, at
 * O(dt^2) and does not drift. For N = 256, eps = 0.05, dt = 0.005 the
 * largest |dE/E0| over 1000 steps is 1.0e-5 to 1.2e-5 (seeds 1-4); the
 * bound 1e-4 leaves a factor 8, while a first-order step gives ~1e-3
 * (next test). Momentum is conserved to rounding.
 */
Test(nbody_ref, leapfrog_energy_plummer)
{
	double dp, de = ref_test_energy_error(ref_leapfrog_step, &dp);

	cr_assert(de < REF_TEST_DE_BOUND, "max |dE/E0| = %.3g", de);
	cr_assert(dp < 1e-12, "relative momentum change %.3g", dp);
}

Test(nbody_ref, energy_bound_catches_first_order_step)
{
	double dp, de = ref_test_energy_error(ref_test_euler_step, &dp);

	cr_assert(de > REF_TEST_DE_BOUND,
		  "planted first-order step passes (max |dE/E0| = %.3g)", de);
}

/* Distance from the starting positions after one period 2 pi of the
 * circular binary (eps = 0), integrated in the given number of steps. */
static double ref_test_orbit_error(int steps)
{
	float p[8], v[8];
	struct ref_state s;
	double err2 = 0.0;

	cr_assert(ic_generate(IC_TWOBODY, 2, 0, p, v) == 0);
	cr_assert(ref_state_init(&s, p, v, 2) == 0);
	ref_state_accel(&s, 0.0);
	for (int k = 0; k < steps; k++)
		ref_leapfrog_step(&s, 2.0 * IC_PI / steps, 0.0);
	for (int b = 0; b < 2; b++)
		for (int c = 0; c < 3; c++) {
			double d = s.x[3 * b + c] - p[4 * b + c];

			err2 += d * d;
		}
	ref_state_free(&s);
	return sqrt(err2);
}

/*
 * One period in 1000 steps returns both bodies to within 5.85e-5 of their
 * start (separation 1): the leapfrog phase error, O(dt^2). The bound 1e-4
 * is tight on purpose: the run is deterministic, and a wrong speed or
 * period shows up at 1e-2 or worse.
 */
Test(nbody_ref, twobody_returns_after_one_period)
{
	double err = ref_test_orbit_error(1000);

	cr_assert(err < 1e-4, "position error after one period %.3g", err);
}

/* Kick-drift-kick is second order: halving dt divides the error by 4
 * (measured 4.00; a first-order step would give 2). */
Test(nbody_ref, leapfrog_is_second_order)
{
	double ratio = ref_test_orbit_error(500) / ref_test_orbit_error(1000);

	cr_assert(ratio > 3.6 && ratio < 4.4, "error ratio %.3f", ratio);
}
