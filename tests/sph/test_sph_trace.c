/* test_sph_trace.c - one particle looked at closely: its neighbourhood and the terms of its acceleration */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../harness/sph/sph_trace.h"
#include "../../reference/sph_ref.h"
#include "../../reference/sph_scene.h"

static void scene(struct sph_scene *sc)
{
	struct sph_column col;
	char err[256];
	cr_assert_eq(sph_scene_column_parse("6x6x7@4", &col, err, sizeof err), 0, "%s", err);
	cr_assert_eq(sph_scene_build(&col, 42, sc, err, sizeof err), 0, "%s", err);
}

static double norm(const double *v)
{
	return sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
}

/* The terms add up to the acceleration, and that is the reference's own
 * for the whole scene: the neighbourhood of 2 h (3 h of walls) loses
 * nothing, for a particle at the floor and one at the free surface. */
Test(sph_trace, the_terms_add_up_to_the_reference_acceleration_of_the_whole_scene)
{
	struct sph_scene sc;
	scene(&sc);
	struct sph_ref_state s;
	cr_assert_eq(sph_ref_state_init(&s, &sc.p, sc.pos4, sc.vel4, sc.n, sc.bnd4, sc.nb), 0);
	cr_assert_eq(sph_ref_evaluate(&s, &sc.p), 0);
	const size_t picks[] = { 0, sc.n / 2, sc.n - 1 };
	for (size_t k = 0; k < 3; k++) {
		const size_t i = picks[k];
		struct sph_trace tr;
		cr_assert_eq(sph_trace_particle(&sc.p, sc.pos4, sc.vel4, sc.n, sc.bnd4, sc.nb, i, &tr), 0);
		cr_expect_eq(tr.i, i);
		double sum[3] = { 0 };
		for (int t = 0; t < SPH_TRACE_TERMS; t++)
			for (int a = 0; a < 3; a++)
				sum[a] += tr.acc[t][a];
		const double scale = fmax(norm(&s.acc[3 * i]), 1.0);
		for (int a = 0; a < 3; a++) {
			cr_expect_leq(fabs(sum[a] - tr.acc_total[a]), 1e-9 * scale, "particle %zu axis %d", i, a);
			cr_expect_leq(fabs(tr.acc_total[a] - s.acc[3 * i + a]), 1e-9 * scale,
				      "particle %zu axis %d: %.17g against the whole scene's %.17g", i, a,
				      tr.acc_total[a], s.acc[3 * i + a]);
		}
		cr_expect_leq(fabs(tr.rho_rel - s.rho[i] / sc.p.rho0), 1e-12, "particle %zu", i);
		cr_expect_eq(tr.acc[SPH_TRACE_GRAVITY][2], sc.p.gravity[2]);
	}
	sph_ref_state_free(&s);
	sph_scene_free(&sc);
}

/* A particle alone at rest 0.3 h above the floor: no fluid term, no
 * wall friction (it does not move), one wall near, its distances known. */
Test(sph_trace, a_particle_alone_at_rest_above_the_floor)
{
	struct sph_scene sc;
	scene(&sc);
	const double h = sc.p.h;
	float pos4[4] = { (float)(0.5 * (sc.p.box_lo[0] + sc.p.box_hi[0])),
			  (float)(0.5 * (sc.p.box_lo[1] + sc.p.box_hi[1])),
			  (float)(sc.p.box_lo[2] + 0.3 * h), 0.0f };
	float vel4[4] = { 0 };
	struct sph_trace tr;
	cr_assert_eq(sph_trace_particle(&sc.p, pos4, vel4, 1, sc.bnd4, sc.nb, 0, &tr), 0);
	cr_expect_leq(fabs(tr.wall_h - 0.3), 1e-5, "%g", tr.wall_h);
	cr_expect_eq(tr.walls_near, 1);
	cr_expect_eq(tr.fluid_nbrs, 0);
	cr_expect(isinf(tr.fluid_h));
	cr_expect_geq(tr.boundary_h, 0.3 - 1e-5);
	cr_expect_gt(tr.boundary_nbrs, 0);
	for (int a = 0; a < 3; a++) {
		cr_expect_eq(tr.acc[SPH_TRACE_FLUID_PRESSURE][a], 0.0);
		cr_expect_eq(tr.acc[SPH_TRACE_FLUID_VISCOSITY][a], 0.0);
		cr_expect_eq(tr.acc[SPH_TRACE_WALL_VISCOSITY][a], 0.0);
	}
	/* the floor pushes up, if at all */
	cr_expect_geq(tr.acc[SPH_TRACE_WALL_PRESSURE][2], 0.0);
	sph_scene_free(&sc);
}

/* Two particles in mid-air moving apart, 0.5 h from each other and far
 * from every wall: no wall term, viscosity pulls each toward the other's
 * velocity; in a corner three walls are near. */
Test(sph_trace, viscosity_in_mid_air_and_three_walls_in_a_corner)
{
	struct sph_scene sc;
	scene(&sc);
	const double h = sc.p.h;
	const float cx = (float)(0.5 * (sc.p.box_lo[0] + sc.p.box_hi[0]));
	const float cy = (float)(0.5 * (sc.p.box_lo[1] + sc.p.box_hi[1]));
	const float cz = (float)(sc.p.box_lo[2] + 4.0 * h);
	float pos4[8] = { cx, cy, cz, 0, cx + (float)(0.5 * h), cy, cz, 0 };
	float vel4[8] = { -1.0f, 0, 0, 0, 1.0f, 0, 0, 0 };
	struct sph_trace tr;
	cr_assert_eq(sph_trace_particle(&sc.p, pos4, vel4, 2, sc.bnd4, sc.nb, 0, &tr), 0);
	cr_expect_eq(tr.walls_near, 0);
	cr_expect_eq(tr.fluid_nbrs, 1);
	cr_expect_leq(fabs(tr.fluid_h - 0.5), 1e-5, "%g", tr.fluid_h);
	cr_expect_eq(tr.boundary_nbrs, 0);
	for (int a = 0; a < 3; a++) {
		cr_expect_eq(tr.acc[SPH_TRACE_WALL_PRESSURE][a], 0.0);
		cr_expect_eq(tr.acc[SPH_TRACE_WALL_VISCOSITY][a], 0.0);
	}
	/* v_j - v_i = +2 along x */
	cr_expect_gt(tr.acc[SPH_TRACE_FLUID_VISCOSITY][0], 0.0);
	cr_expect_eq(tr.acc[SPH_TRACE_FLUID_VISCOSITY][1], 0.0);
	cr_expect_eq(tr.dominant == SPH_TRACE_FLUID_VISCOSITY || tr.dominant == SPH_TRACE_GRAVITY, 1);
	float corner[4] = { (float)(sc.p.box_lo[0] + 0.4 * h), (float)(sc.p.box_lo[1] + 0.4 * h),
			    (float)(sc.p.box_lo[2] + 0.4 * h), 0 };
	cr_assert_eq(sph_trace_particle(&sc.p, corner, vel4, 1, sc.bnd4, sc.nb, 0, &tr), 0);
	cr_expect_eq(tr.walls_near, 3);
	cr_expect_leq(fabs(tr.wall_h - 0.4), 1e-5, "%g", tr.wall_h);
	sph_scene_free(&sc);
}
