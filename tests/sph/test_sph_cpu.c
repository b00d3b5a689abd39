/* test_sph_cpu.c - Criterion tests for the sph-cpu-grid variant (suite sph_cpu) */
#define _POSIX_C_SOURCE 200809L
#include <criterion/criterion.h>

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../harness/render/render_validate.h"
#include "../../kernels/sph/sph_cpu.h"
#include "../../kernels/sph/sph_physics.h"
#include "../../reference/sph_ref.h"
#include "../../reference/sph_scene.h"

/*
 * Tolerances against the double reference on the same positions; the
 * variant differs from it by float rounding only (kernels/sph/sph_cpu.c):
 *
 * SPH_CPU_TEST_RHO      density, relative, per particle: a float sum of
 *                       ~30 fluid terms and the walls' (measured 3.3e-7
 *                       on the 12 x 12 x 14 column with its walls).
 * acceleration          per particle, k SPH_CPU_TEST_RHO / h: the pressure
 *                       k (rho - rho0) turns a density rounding of
 *                       eps rho into a pressure error k eps rho, which
 *                       moves a particle whose neighbours do not cancel it
 *                       by up to ~k eps / h; plus SPH_CPU_TEST_ACC of the
 *                       RMS acceleration for the force sums themselves
 *                       (1.3e-6 given the reference's densities). The
 *                       worst particle measured 0.17 of the sum here.
 * SPH_CPU_TEST_ACC_RMS  the RMS of the acceleration error over the RMS
 *                       acceleration (measured 4.2e-5 here).
 * SPH_CPU_TEST_PAIRS    neighbour pairs, relative: only pairs within float
 *                       rounding of h may be decided differently.
 */
#define SPH_CPU_TEST_RHO	1e-6
#define SPH_CPU_TEST_ACC	1e-5
#define SPH_CPU_TEST_ACC_RMS	2e-4
#define SPH_CPU_TEST_PAIRS	1e-4

static const struct sph_ops *const sph_cpu_test_ops = &sph_cpu_grid_ops;

/* One variant's run: its parameters, walls, context and read-back
 * state. */
struct sph_cpu_test_run {
	struct sph_params p;
	size_t n;
	float *pos, *vel, *rho, *acc;
	size_t nb;		/* boundary particles (0: none) */
	float *bnd;		/* 4 nb: (x, y, z, psi / m) */
	void *ctx;
};

/* Zeroed arrays for n particles and no walls, for the caller to fill. */
static void sph_cpu_test_alloc(struct sph_cpu_test_run *r, size_t n)
{
	r->n = n;
	r->pos = calloc(4 * n, sizeof(float));
	r->vel = calloc(4 * n, sizeof(float));
	r->rho = calloc(n, sizeof(float));
	r->acc = calloc(4 * n, sizeof(float));
	r->nb = 0;
	r->bnd = NULL;
	r->ctx = NULL;
	cr_assert(r->pos && r->vel && r->rho && r->acc);
}

/* The column spec (NXxNYxNZ[@L]) with seed 7: its box, fluid and the
 * boundary particles of its walls. */
static void sph_cpu_test_column(struct sph_cpu_test_run *r, const char *spec)
{
	struct sph_column col;
	struct sph_scene sc;
	char err[256] = "";

	cr_assert(sph_scene_column_parse(spec, &col, err, sizeof err) == 0,
		  "%s", err);
	cr_assert(sph_scene_build(&col, 7, &sc, err, sizeof err) == 0, "%s",
		  err);
	r->p = sc.p;
	sph_cpu_test_alloc(r, sc.n);
	memcpy(r->pos, sc.pos4, 4 * sc.n * sizeof(float));
	memcpy(r->vel, sc.vel4, 4 * sc.n * sizeof(float));
	r->nb = sc.nb;
	r->bnd = sc.bnd4;
	sc.bnd4 = NULL;
	sph_scene_free(&sc);
	cr_assert(r->nb > 0);
}

/* A side^3 lattice of spacing d from the origin, every particle moving
 * at velocity v; water parameters at spacing d, no walls. */
static void sph_cpu_test_lattice(struct sph_cpu_test_run *r, int side,
				 double d, const float v[3])
{
	size_t i = 0;

	sph_params_water(&r->p, d, side * d);
	sph_cpu_test_alloc(r, (size_t)side * side * side);
	for (int z = 0; z < side; z++)
		for (int y = 0; y < side; y++)
			for (int x = 0; x < side; x++, i++) {
				r->pos[4 * i + 0] = (float)(x * d);
				r->pos[4 * i + 1] = (float)(y * d);
				r->pos[4 * i + 2] = (float)(z * d);
				memcpy(&r->vel[4 * i], v, 3 * sizeof(float));
			}
}

/* create() on the run's particles and walls with parameters p. */
static int sph_cpu_test_try_create(const struct sph_cpu_test_run *r,
				   const struct sph_params *p, void **ctx,
				   char *err, size_t errlen)
{
	const struct sph_input in = { r->n, r->pos, r->vel, r->nb, r->bnd };

	return sph_cpu_test_ops->create(ctx, &in, p, err, errlen);
}

static void sph_cpu_test_create(struct sph_cpu_test_run *r)
{
	char err[256] = "";

	cr_assert(sph_cpu_test_try_create(r, &r->p, &r->ctx, err,
					  sizeof err) == 0, "create: %s", err);
}

static void sph_cpu_test_read(struct sph_cpu_test_run *r)
{
	cr_assert(sph_cpu_test_ops->read(r->ctx, r->pos, r->vel, r->rho,
					 r->acc) == 0);
}

static void sph_cpu_test_free(struct sph_cpu_test_run *r)
{
	if (r->ctx)
		sph_cpu_test_ops->destroy(r->ctx);
	free(r->pos);
	free(r->vel);
	free(r->rho);
	free(r->acc);
	free(r->bnd);
	memset(r, 0, sizeof *r);
}

/* The reference's state of the run's particles and walls. */
static void sph_cpu_test_ref(const struct sph_cpu_test_run *r,
			     struct sph_ref_state *s)
{
	cr_assert(sph_ref_state_init(s, &r->p, r->pos, r->vel, r->n, r->bnd,
				     r->nb) == 0);
}

/* How far the variant's rho and acc (read back after evaluate) are from
 * the reference's on the same positions and velocities. */
struct sph_cpu_test_errors {
	double rho;		/* worst relative density error */
	double acc;		/* worst |a - a_ref| over its tolerance */
	double acc_rms;		/* RMS |a - a_ref| over the RMS |a_ref| */
	size_t worst;		/* particle of acc */
	size_t ref_pairs;	/* the reference's pairs, fluid and walls */
};

static void sph_cpu_test_compare(const struct sph_cpu_test_run *r,
				 struct sph_cpu_test_errors *e)
{
	struct sph_ref_state s;
	double a2 = 0.0, d2 = 0.0, tol;

	memset(e, 0, sizeof *e);
	sph_cpu_test_ref(r, &s);
	cr_assert(sph_ref_evaluate(&s, &r->p) == 0);
	for (size_t i = 0; i < 3 * r->n; i++)
		a2 += s.acc[i] * s.acc[i];
	a2 /= (double)r->n;
	tol = r->p.k * SPH_CPU_TEST_RHO / r->p.h + SPH_CPU_TEST_ACC * sqrt(a2);
	for (size_t i = 0; i < r->n; i++) {
		const double drho = fabs(r->rho[i] - s.rho[i]) / s.rho[i];
		double di = 0.0;

		for (int c = 0; c < 3; c++) {
			const double d = r->acc[4 * i + c] - s.acc[3 * i + c];

			di += d * d;
		}
		d2 += di;
		/* a NaN counts as the worst error */
		if (!(drho <= e->rho))
			e->rho = isnan(drho) ? INFINITY : drho;
		if (!(sqrt(di) / tol <= e->acc)) {
			e->acc = isnan(di) ? INFINITY : sqrt(di) / tol;
			e->worst = i;
		}
	}
	e->acc_rms = sqrt(d2 / (double)r->n / a2);
	e->ref_pairs = s.nbrs.pairs + s.bnbrs.pairs;
	sph_ref_state_free(&s);
}

/* After 40 steps of a 12 x 12 x 14 dam break in its tank lined with
 * boundary particles (moving, compressed at the bottom, a free surface,
 * against the walls) with wall friction fw, density and acceleration of
 * every particle match the reference on the same state, walls included;
 * the neighbour pairs too, fluid-fluid and fluid-boundary; the
 * last-resort clamp never fired. */
static void sph_cpu_test_after_steps(double fw)
{
	struct sph_cpu_test_run r;
	struct sph_cpu_test_errors e;
	struct sph_counts c;
	double dp;

	sph_cpu_test_column(&r, "12x12x14");
	r.p.wall_friction = fw;
	sph_cpu_test_create(&r);
	cr_assert(sph_cpu_test_ops->steps(r.ctx, 40, NULL) == 0);
	cr_assert(sph_cpu_test_ops->evaluate(r.ctx, 1) == 0);
	sph_cpu_test_read(&r);
	sph_cpu_test_ops->counts(r.ctx, &c);
	sph_cpu_test_compare(&r, &e);
	cr_expect(e.rho <= SPH_CPU_TEST_RHO, "friction %g: density off by %.3g", fw, e.rho);
	cr_expect(e.acc <= 1.0, "friction %g: acceleration of %zu off by %.3g tolerances",
		  fw, e.worst, e.acc);
	cr_expect(e.acc_rms <= SPH_CPU_TEST_ACC_RMS,
		  "friction %g: RMS acceleration error %.3g of RMS", fw, e.acc_rms);
	dp = fabs((double)c.neighbours - (double)e.ref_pairs);
	cr_expect(dp <= SPH_CPU_TEST_PAIRS * (double)e.ref_pairs,
		  "%llu neighbour pairs, reference %zu", c.neighbours,
		  e.ref_pairs);
	cr_expect(c.clamps == 0, "%llu coordinates clamped", c.clamps);
	sph_cpu_test_free(&r);
}

Test(sph_cpu, matches_reference_after_steps)
{
	sph_cpu_test_after_steps(0.0);	/* free-slip walls, the default */
}

/* The wall friction is 0 by default, which multiplies its term away: the
 * committed dam-break runs use 0.1 and 1, so both are held to the
 * reference here. */
Test(sph_cpu, matches_reference_with_wall_friction_0_1)
{
	sph_cpu_test_after_steps(0.1);
}

Test(sph_cpu, matches_reference_with_wall_friction_1)
{
	sph_cpu_test_after_steps(1.0);
}

/* Two particles at the same place in a compressed lattice (pressure
 * > 0): they exert no pressure force on each other, as in the reference,
 * and nothing turns NaN. */
Test(sph_cpu, coincident_particles_match_reference)
{
	const float still[3] = { 0.0f, 0.0f, 0.0f };
	struct sph_cpu_test_run r;
	struct sph_cpu_test_errors e;

	/* particle 87 = (3, 2, 2) onto 86 = (2, 2, 2), inside the lattice;
	 * the water mass of 1 cm on 0.97 cm: 10 % denser than at rest */
	sph_cpu_test_lattice(&r, 6, 0.0097, still);
	sph_params_water(&r.p, 0.01, 0.06);
	memcpy(&r.pos[4 * 87], &r.pos[4 * 86], 3 * sizeof(float));
	sph_cpu_test_create(&r);
	cr_assert(sph_cpu_test_ops->evaluate(r.ctx, 0) == 0);
	sph_cpu_test_read(&r);
	cr_assert(r.rho[86] > 1.05 * r.p.rho0, "no pressure at the pair: %g",
		  r.rho[86]);
	sph_cpu_test_compare(&r, &e);
	cr_expect(e.rho <= SPH_CPU_TEST_RHO, "density off by %.3g", e.rho);
	cr_expect(e.acc <= 1.0, "acceleration of %zu off by %.3g tolerances",
		  e.worst, e.acc);
	sph_cpu_test_free(&r);
}

/* The variant sorts the particles by cell; read() returns them in the
 * caller's order, bit for bit (fed in reverse scene order, so the sort
 * is far from the identity; the walls as built), with w = 0, and any
 * output may be NULL. */
Test(sph_cpu, read_returns_callers_order)
{
	struct sph_cpu_test_run r, fwd;
	float *pos, *vel;
	size_t n;

	sph_cpu_test_column(&fwd, "10x9x11");
	sph_cpu_test_column(&r, "10x9x11");
	n = r.n;
	for (size_t i = 0; i < n; i++) {
		memcpy(&r.pos[4 * i], &fwd.pos[4 * (n - 1 - i)], 16);
		memcpy(&r.vel[4 * i], &fwd.vel[4 * (n - 1 - i)], 16);
		r.vel[4 * i] = 0.01f * (float)i;	/* tell them apart */
	}
	pos = malloc(4 * n * sizeof(float));
	vel = malloc(4 * n * sizeof(float));
	cr_assert(pos && vel);
	memcpy(pos, r.pos, 4 * n * sizeof(float));
	memcpy(vel, r.vel, 4 * n * sizeof(float));
	sph_cpu_test_create(&r);
	sph_cpu_test_create(&fwd);
	cr_assert(sph_cpu_test_ops->evaluate(r.ctx, 0) == 0);
	cr_assert(sph_cpu_test_ops->evaluate(fwd.ctx, 0) == 0);
	memset(r.pos, 0xff, 4 * n * sizeof(float));
	memset(r.vel, 0xff, 4 * n * sizeof(float));
	sph_cpu_test_read(&r);
	sph_cpu_test_read(&fwd);
	cr_expect(memcmp(r.pos, pos, 4 * n * sizeof(float)) == 0,
		  "positions not returned as given");
	cr_expect(memcmp(r.vel, vel, 4 * n * sizeof(float)) == 0,
		  "velocities not returned as given");
	for (size_t i = 0; i < n; i++) {
		const size_t o = n - 1 - i;

		cr_assert(r.acc[4 * i + 3] == 0.0f);
		cr_assert(fabsf(r.rho[i] - fwd.rho[o]) <=
			  SPH_CPU_TEST_RHO * fwd.rho[o],
			  "rho of %zu: %g, same particle fed forward %g", i,
			  r.rho[i], fwd.rho[o]);
	}
	cr_expect(sph_cpu_test_ops->read(r.ctx, NULL, NULL, r.rho, NULL) == 0);
	cr_expect(sph_cpu_test_ops->read(r.ctx, NULL, NULL, NULL, NULL) == 0);
	free(pos);
	free(vel);
	sph_cpu_test_free(&fwd);
	sph_cpu_test_free(&r);
}

/* A wall for the counts test: a plane of boundary particles y = at, on
 * the lattice of spacing d in x and z over [0, (side - 1) d], psi / m
 * from sph_ref_boundary_psi. */
static void sph_cpu_test_plane(struct sph_cpu_test_run *r, int side,
			       double d, double at)
{
	const size_t nb = (size_t)side * side;
	double *xb = malloc(3 * nb * sizeof *xb), *psi = malloc(nb * sizeof *psi);

	r->nb = nb;
	r->bnd = malloc(4 * nb * sizeof *r->bnd);
	cr_assert(xb && psi && r->bnd);
	for (size_t b = 0; b < nb; b++) {
		xb[3 * b] = (float)((double)(b % side) * d);
		xb[3 * b + 1] = (float)at;
		xb[3 * b + 2] = (float)((double)(b / side) * d);
	}
	cr_assert(sph_ref_boundary_psi(&r->p, xb, nb, psi) == 0);
	for (size_t b = 0; b < nb; b++) {
		for (int c = 0; c < 3; c++)
			r->bnd[4 * b + c] = (float)xb[3 * b + c];
		r->bnd[4 * b + 3] = (float)(psi[b] / r->p.mass);
	}
	free(xb);
	free(psi);
}

/*
 * Counts on a lattice with h = 1.9 d beside a wall: a plane of boundary
 * particles 1.5 d from its face y = 0, on the same lattice in x and z,
 * so that no pair, fluid-fluid or fluid-boundary, is within 5 % of h
 * (r^2 / d^2 = 1, 2, 3, 4 and 2.25, 3.25, 4.25 against 3.61): the
 * neighbours are exactly the brute-force pairs of both kinds, the
 * candidates at least as many and far fewer than all pairs (the grid
 * prunes). No gravity, no box, and a drift of (8, 0, -8) m/s along the
 * wall for 20 steps carries every particle 2.5 d beyond the bounds the
 * grid was laid over at create (the lattice's and the wall's), which
 * must still find them all, the wall's half under the moved lattice
 * included. The lattice is below rest density with the wall (no
 * pressure, and the wall is free-slip) and moves as one, so its pairs
 * stay where they were.
 */
Test(sph_cpu, counts_match_brute_force_pairs)
{
	const float drift[3] = { 8.0f, 0.0f, -8.0f };
	struct sph_cpu_test_run r;
	struct sph_nbr_list nl = { 0 }, cross = { 0 };
	struct sph_ref_state s;
	struct sph_counts c;

	sph_cpu_test_lattice(&r, 14, 0.01, drift);
	r.p.h = 1.9 * r.p.spacing;
	r.p.gravity[2] = 0.0;
	r.p.dt = 1.6e-4; /* 20 steps at 8 m/s drift 2.56 spacings, whatever the water's step */
	sph_cpu_test_plane(&r, 14, r.p.spacing, -1.5 * r.p.spacing);
	sph_cpu_test_create(&r);
	sph_cpu_test_ops->counts(r.ctx, &c);
	cr_expect(c.aux_bytes > 0 && c.candidates == 0 && c.neighbours == 0 &&
		  c.overflow == 0);
	for (int pass = 0; pass < 2; pass++) {
		cr_assert(sph_cpu_test_ops->evaluate(r.ctx, 1) == 0);
		sph_cpu_test_read(&r);
		sph_cpu_test_ref(&r, &s);
		cr_assert(sph_ref_neighbours_brute(s.x, r.n, r.p.h, &nl) == 0);
		cr_assert(sph_ref_cross_brute(s.x, r.n, s.xb, r.nb, r.p.h,
					      &cross) == 0);
		sph_cpu_test_ops->counts(r.ctx, &c);
		for (size_t i = 0; i < r.n; i++)
			cr_assert(r.rho[i] < r.p.rho0, "rho[%zu] = %g", i,
				  r.rho[i]);
		/* 5 a particle of the face next to the wall: 924, then
		 * (measured) 529 under the part that has drifted off */
		cr_expect(cross.pairs > 400, "pass %d: only %zu pairs at the "
			  "wall", pass, cross.pairs);
		cr_expect(c.neighbours == nl.pairs + cross.pairs,
			  "pass %d: %llu neighbours, brute force %zu + %zu "
			  "at the wall", pass, c.neighbours, nl.pairs,
			  cross.pairs);
		cr_expect(c.candidates >= c.neighbours &&
			  c.candidates < r.n * (r.n - 1 + r.nb) / 10,
			  "pass %d: %llu candidates", pass, c.candidates);
		sph_nbr_list_free(&nl);
		sph_nbr_list_free(&cross);
		sph_ref_state_free(&s);
		cr_assert(sph_cpu_test_ops->steps(r.ctx, 20, NULL) == 0);
	}
	cr_expect(r.pos[0] > 2.4 * r.p.spacing &&
		  r.pos[2] < -2.4 * r.p.spacing, "lattice did not drift: %g %g",
		  r.pos[0], r.pos[2]);
	sph_cpu_test_free(&r);
}

/* Counts of two particles, 0.5 h apart and 5 h apart: a particle is
 * never its own candidate or neighbour. */
Test(sph_cpu, counts_leave_out_self)
{
	const double gap[2] = { 0.5, 5.0 };	/* times h */
	const unsigned long long want[2] = { 2, 0 };

	for (int k = 0; k < 2; k++) {
		struct sph_cpu_test_run r;
		struct sph_counts c;

		sph_params_water(&r.p, 0.01, 0.1);
		sph_cpu_test_alloc(&r, 2);
		r.pos[4] = (float)(gap[k] * r.p.h);
		sph_cpu_test_create(&r);
		cr_assert(sph_cpu_test_ops->evaluate(r.ctx, 1) == 0);
		sph_cpu_test_ops->counts(r.ctx, &c);
		cr_expect(c.candidates == want[k] && c.neighbours == want[k],
			  "%g h apart: %llu candidates, %llu neighbours",
			  gap[k], c.candidates, c.neighbours);
		sph_cpu_test_free(&r);
	}
}

/* 200 steps of an 8 x 8 x 10 dam break with its walls: every particle
 * finite and inside the box (in double), the last-resort clamp never
 * needed, speeds below free fall's, the phase times add up, and the
 * counts are those of the last evaluate(count = 1), not of the steps or
 * of evaluate(count = 0). */
Test(sph_cpu, dam_break_stays_finite_and_inside)
{
	struct sph_phase_times t = { 100.0, 100.0, 100.0, 100.0 };
	struct sph_cpu_test_run r;
	struct sph_counts c0, c;
	double vmax = 0.0;

	sph_cpu_test_column(&r, "8x8x10");
	sph_cpu_test_create(&r);
	cr_assert(sph_cpu_test_ops->evaluate(r.ctx, 1) == 0);
	sph_cpu_test_ops->counts(r.ctx, &c0);
	cr_assert(sph_cpu_test_ops->steps(r.ctx, 200, &t) == 0);
	cr_assert(sph_cpu_test_ops->evaluate(r.ctx, 0) == 0);
	sph_cpu_test_ops->counts(r.ctx, &c);
	cr_expect(c.candidates == c0.candidates &&
		  c.neighbours == c0.neighbours,
		  "counts changed without evaluate(1): %llu -> %llu",
		  c0.neighbours, c.neighbours);
	cr_assert(sph_cpu_test_ops->evaluate(r.ctx, 1) == 0);
	sph_cpu_test_ops->counts(r.ctx, &c);
	cr_expect(c.neighbours != c0.neighbours, "the fluid did not move");
	cr_expect(c.clamps == 0, "%llu coordinates clamped", c.clamps);
	cr_expect(t.build_s > 100.0 && t.density_s > 100.0 &&
		  t.force_s > 100.0 && t.integrate_s > 100.0 &&
		  t.build_s + t.density_s + t.force_s + t.integrate_s < 460.0,
		  "phase times not added: %g %g %g %g", t.build_s,
		  t.density_s, t.force_s, t.integrate_s);
	sph_cpu_test_read(&r);
	for (size_t i = 0; i < r.n; i++) {
		const float *x = &r.pos[4 * i], *v = &r.vel[4 * i];

		for (int c = 0; c < 3; c++) {
			cr_assert(isfinite(x[c]) && isfinite(v[c]),
				  "particle %zu not finite", i);
			cr_assert(x[c] >= r.p.box_lo[c] && x[c] <= r.p.box_hi[c],
				  "particle %zu at %.9g outside %g .. %g", i,
				  x[c], r.p.box_lo[c], r.p.box_hi[c]);
		}
		vmax = fmax(vmax, sqrt(v[0] * v[0] + v[1] * v[1] +
				       v[2] * v[2]));
	}
	/* free fall from the top of the box: sqrt(2 g 2 H) = 3.4 m/s */
	cr_expect(vmax > 0.1 && vmax < 5.0, "max speed %g m/s", vmax);
	sph_cpu_test_free(&r);
}

/*
 * One step of a 6^3 lattice (d = 0.1 m) in a box 0.5 d larger on every
 * side and no boundary particles, each half thrown at its walls at
 * 40 m/s (0.64 d a step, so the outer layers cross them): positions and
 * velocities match sph_ref_step's, the particles put back on a wall with
 * v_n -> -e v_n included and counted as the reference counts them, and
 * all are inside the box in double. The upper walls 0.55 m and lower -0.05 m
 * are not floats and round outward to nearest, so walls taken as the
 * nearest float would leave particles outside.
 */
Test(sph_cpu, one_step_matches_reference_step)
{
	const float still[3] = { 0.0f, 0.0f, 0.0f };
	struct sph_cpu_test_run r;
	struct sph_ref_state s;
	struct sph_counts c;
	size_t walled = 0;

	sph_cpu_test_lattice(&r, 6, 0.1, still);
	r.p.dt = 1.6e-3;	/* 40 m/s: 0.64 d a step */
	for (int c = 0; c < 3; c++) {
		r.p.box_lo[c] = -0.05;
		r.p.box_hi[c] = 0.55;
		cr_assert((double)(float)r.p.box_hi[c] > r.p.box_hi[c] &&
			  (double)(float)r.p.box_lo[c] < r.p.box_lo[c]);
	}
	for (size_t i = 0; i < r.n; i++)
		for (int c = 0; c < 3; c++)
			r.vel[4 * i + c] = r.pos[4 * i + c] > 0.25f ? 40.0f
								    : -40.0f;
	sph_cpu_test_ref(&r, &s);
	cr_assert(sph_ref_step(&s, &r.p) == 0);
	sph_cpu_test_create(&r);
	cr_assert(sph_cpu_test_ops->steps(r.ctx, 1, NULL) == 0);
	sph_cpu_test_read(&r);
	for (size_t i = 0; i < r.n; i++) {
		for (int c = 0; c < 3; c++) {
			const double x = r.pos[4 * i + c], v = r.vel[4 * i + c];
			const double xr = s.x[3 * i + c], vr = s.v[3 * i + c];

			/* float rounding of x and v, and the acceleration
			 * tolerance over one dt */
			cr_assert(fabs(x - xr) <= 1e-6,
				  "x[%zu][%d] = %.9g, reference %.9g", i, c,
				  x, xr);
			cr_assert(fabs(v - vr) <= 1e-6 * fabs(vr) + r.p.dt *
				  r.p.k * SPH_CPU_TEST_RHO / r.p.h,
				  "v[%zu][%d] = %.9g, reference %.9g", i, c,
				  v, vr);
			cr_assert(x >= r.p.box_lo[c] && x <= r.p.box_hi[c],
				  "x[%zu][%d] = %.9g outside the box", i, c,
				  x);
			walled += fabs(vr) < 30.0;
		}
	}
	cr_expect(walled == 6 * 6 * 6, "%zu coordinates reflected, not %d",
		  walled, 6 * 6 * 6);
	sph_cpu_test_ops->counts(r.ctx, &c);
	cr_expect(c.clamps == s.clamps && s.clamps == walled,
		  "%llu coordinates clamped, reference %zu", c.clamps,
		  s.clamps);
	sph_ref_state_free(&s);
	sph_cpu_test_free(&r);
}

/* A particle flung to infinity (no walls, v = 3e38 m/s, dt = 10 s) makes
 * the next step fail, naming it, instead of sorting a NaN. */
Test(sph_cpu, steps_stop_at_nonfinite_position)
{
	struct sph_cpu_test_run r;
	const char *msg;

	sph_params_water(&r.p, 0.01, 0.1);
	r.p.dt = 10.0;
	sph_cpu_test_alloc(&r, 2);
	r.pos[4] = (float)(5.0 * r.p.h);
	r.vel[4] = 3e38f;
	sph_cpu_test_create(&r);
	cr_assert(sph_cpu_test_ops->steps(r.ctx, 1, NULL) == 0);
	cr_expect(sph_cpu_test_ops->steps(r.ctx, 1, NULL) == -1);
	msg = sph_cpu_test_ops->error(r.ctx);
	cr_expect(msg && strstr(msg, "particle 1"), "error: %s", msg);
	sph_cpu_test_free(&r);
}

/* create() refuses with one line and no context: create r's particles
 * (n of them) and walls with p. */
static void sph_cpu_test_refused(const struct sph_cpu_test_run *r, size_t n,
				 const struct sph_params *p, const char *want,
				 const char *why)
{
	struct sph_cpu_test_run alt = *r;
	char err[256] = "";
	void *ctx = (void *)&ctx;

	alt.n = n;
	cr_expect(sph_cpu_test_try_create(&alt, p, &ctx, err, sizeof err) ==
		  -1, "%s accepted", why);
	cr_expect(ctx == NULL, "%s left a context", why);
	cr_expect(strstr(err, want) != NULL && !strchr(err, '\n'),
		  "%s: message \"%s\" lacks \"%s\"", why, err, want);
	if (ctx)
		sph_cpu_test_ops->destroy(ctx);
}

Test(sph_cpu, create_errors)
{
	struct sph_cpu_test_run r;
	struct sph_params p;

	sph_cpu_test_column(&r, "4x4x5");
	sph_cpu_test_refused(&r, 0, &r.p, "0 fluid", "n = 0");
	p = r.p;
	p.h = 0.0;
	sph_cpu_test_refused(&r, r.n, &p, "h = 0", "h = 0");
	p = r.p;
	p.box_hi[1] = 1e6;	/* 8e6 cells a side */
	sph_cpu_test_refused(&r, r.n, &p, "cells", "a huge box");
	p = r.p;
	p.box_lo[2] = p.box_hi[2] + 1.0;
	sph_cpu_test_refused(&r, r.n, &p, "inverted", "an inverted box");
	r.bnd[4 * 3 + 2] = INFINITY;
	sph_cpu_test_refused(&r, r.n, &r.p, "boundary particle 3",
			     "an infinite boundary position");
	r.bnd[4 * 3 + 2] = 0.0f;
	r.pos[4 * 5 + 1] = NAN;
	sph_cpu_test_refused(&r, r.n, &r.p, "particle 5", "a NaN position");
	sph_cpu_test_free(&r);
}

/* nb > 0 boundary particles with bnd4 == NULL are refused, not read. */
Test(sph_cpu, create_refuses_walls_without_positions)
{
	struct sph_cpu_test_run r;
	float *bnd;

	sph_cpu_test_column(&r, "4x4x5");
	bnd = r.bnd;
	r.bnd = NULL;
	sph_cpu_test_refused(&r, r.n, &r.p, "boundary particle",
			     "boundary particles without positions");
	r.bnd = bnd;
	sph_cpu_test_free(&r);
}

/*
 * Surface extraction (sph.h) after 40 steps of the column: the flags
 * equal the reference's on the positions the variant holds
 * (harness/render/render_validate.h excuses borderline particles), the
 * compacted positions are exactly the flagged particles', and the
 * extraction leaves the trajectory alone (the next steps end bit for bit
 * where they end without it).
 */
Test(sph_cpu, surface_extraction_matches_reference)
{
	struct sph_cpu_test_run r, twin;
	struct render_params rp;
	struct render_surface_check chk;

	sph_cpu_test_column(&r, "12x12x14");
	sph_cpu_test_column(&twin, "12x12x14");
	sph_cpu_test_create(&r);
	sph_cpu_test_create(&twin);
	cr_assert(sph_cpu_test_ops->steps(r.ctx, 40, NULL) == 0);
	cr_assert(sph_cpu_test_ops->steps(twin.ctx, 40, NULL) == 0);
	render_params_default(&rp, &r.p);
	unsigned char *flags = malloc(r.n);
	float *spos = malloc(4 * r.n * sizeof(float));
	double *x = malloc(3 * r.n * sizeof(double));
	cr_assert(flags && spos && x);
	struct sph_surface_request rq = { rp.com_threshold, rp.min_neighbours, spos, flags, 0, 0.0 };
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	cr_assert(sph_cpu_test_ops->surface(r.ctx, &rq) == 0);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	/* its seconds, the extraction time a rendering row reports: within the call */
	const double call = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
	cr_expect(rq.seconds > 0 && rq.seconds <= call, "%g s reported in a call of %g s", rq.seconds,
		  call);
	sph_cpu_test_read(&r);
	for (size_t i = 0; i < r.n; i++)
		for (int d = 0; d < 3; d++)
			x[3 * i + d] = r.pos[4 * i + d];
	cr_assert(render_validate_surface(&r.p, &rp, x, r.n, flags, &chk) == 0);
	cr_expect(chk.pass, "%zu flags differ from the reference (first %zu)", chk.mismatches,
		  chk.worst);
	cr_expect(rq.count == chk.var_count && rq.count > 0 && rq.count < r.n,
		  "%zu compacted, %zu flagged of %zu", rq.count, chk.var_count, r.n);
	/* every compacted position is a flagged particle's, each once */
	size_t matched = 0;
	for (size_t k = 0; k < rq.count; k++)
		for (size_t i = 0; i < r.n; i++)
			if (flags[i] && memcmp(&spos[4 * k], &r.pos[4 * i], 3 * sizeof(float)) == 0) {
				matched++;
				flags[i] = 2; /* taken */
				break;
			}
	cr_expect(matched == rq.count, "%zu of %zu compacted positions are flagged particles'",
		  matched, rq.count);
	cr_assert(sph_cpu_test_ops->steps(r.ctx, 5, NULL) == 0);
	cr_assert(sph_cpu_test_ops->steps(twin.ctx, 5, NULL) == 0);
	sph_cpu_test_read(&r);
	sph_cpu_test_read(&twin);
	cr_expect(memcmp(r.pos, twin.pos, 4 * r.n * sizeof(float)) == 0,
		  "an extraction changed the next steps");
	free(flags);
	free(spos);
	free(x);
	sph_cpu_test_free(&r);
	sph_cpu_test_free(&twin);
}

/*
 * The float clamp every CPU and GPU step uses (sph_advance), at both
 * walls, values exact: v += a dt, x += v dt; past lo or hi the coordinate
 * is put on the wall and an outward velocity becomes -e v (e = 0.5); an
 * inward one is kept. The reference's own clamp is tested in sph_ref.
 */
Test(sph_cpu, the_float_clamp_reflects_at_both_walls)
{
	float x = 0.95f, v = 2.0f;

	cr_expect_eq(sph_advance(&x, &v, 0.0f, 0.25f, 0.5f, 0.0f, 1.0f), 1, "past hi: clamped");
	cr_expect_eq(x, 1.0f);
	cr_expect_eq(v, -1.0f, "outward 2 at the upper wall becomes -1: %g", v);
	x = 0.05f;
	v = -2.0f;
	cr_expect_eq(sph_advance(&x, &v, 0.0f, 0.25f, 0.5f, 0.0f, 1.0f), 1, "past lo: clamped");
	cr_expect_eq(x, 0.0f);
	cr_expect_eq(v, 1.0f, "outward -2 at the lower wall becomes 1: %g", v);
	x = 0.5f;
	v = 1.0f;
	cr_expect_eq(sph_advance(&x, &v, 2.0f, 0.125f, 0.5f, 0.0f, 1.0f), 0, "inside: no clamp");
	cr_expect_eq(v, 1.25f);
	cr_expect_eq(x, 0.5f + 1.25f * 0.125f);
}

/*
 * The float surface criterion every extraction uses (sph_surface_flag),
 * on both of its rules: a particle whose neighbours' centre of mass is
 * off by more than com_h (1 + n) / (1 + n) = com_h is a surface particle,
 * and so is one with fewer than min_n neighbours however centred they
 * are (a lone particle has none).
 */
Test(sph_cpu, the_float_surface_criterion_has_both_rules)
{
	/* com_h 0.1, min_n 5: |s| against 0.1 (1 + n) */
	cr_expect_eq(sph_surface_flag(0.0f, 0.0f, 0.0f, 0.0f, 0.1f, 5.0f), 1, "a lone particle");
	cr_expect_eq(sph_surface_flag(0.0f, 0.0f, 0.0f, 4.0f, 0.1f, 5.0f), 1, "4 centred neighbours");
	cr_expect_eq(sph_surface_flag(0.0f, 0.0f, 0.0f, 5.0f, 0.1f, 5.0f), 0, "5 centred neighbours");
	cr_expect_eq(sph_surface_flag(0.0f, 0.6f, 0.8f, 10.0f, 0.1f, 5.0f), 0, "|s| 1 < 1.1");
	cr_expect_eq(sph_surface_flag(0.0f, 0.9f, 1.2f, 10.0f, 0.1f, 5.0f), 1, "|s| 1.5 > 1.1");
}
