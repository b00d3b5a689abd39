/* test_sph_validate.c - the SPH comparison with the reference must pass right and fail wrong */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../harness/sph_validate.h"
#include "../reference/sph_scene.h"

/* A small column's state as the double reference evaluates it, rounded to
 * float: what a perfect float variant would return. */
struct sv_case {
	struct sph_params p;
	size_t n;
	float *pos4, *vel4, *rho, *acc4;
	struct sph_counts counts;
};

static void sv_make(struct sv_case *c)
{
	const int nx = 8, ny = 8, nz = 10;
	memset(c, 0, sizeof *c);
	cr_assert_eq(sph_scene_params(nx, ny, nz, &c->p), 0);
	c->n = sph_scene_particles(nx, ny, nz);
	c->pos4 = malloc(4 * c->n * sizeof(float));
	c->vel4 = malloc(4 * c->n * sizeof(float));
	c->rho = malloc(c->n * sizeof(float));
	c->acc4 = calloc(4 * c->n, sizeof(float));
	cr_assert(c->pos4 && c->vel4 && c->rho && c->acc4);
	cr_assert_eq(sph_scene_dam_break(nx, ny, nz, 3, &c->p, c->pos4, c->vel4), 0);
	/* Move the lattice off its rest state: a few reference steps. */
	struct sph_ref_state s;
	cr_assert_eq(sph_ref_state_init(&s, c->pos4, c->vel4, c->n), 0);
	for (int k = 0; k < 30; k++)
		cr_assert_eq(sph_ref_step(&s, &c->p), 0);
	for (size_t i = 0; i < 3 * c->n; i++) {
		c->pos4[4 * (i / 3) + i % 3] = (float)s.x[i];
		c->vel4[4 * (i / 3) + i % 3] = (float)s.v[i];
	}
	sph_ref_state_free(&s);
	cr_assert_eq(sph_ref_state_init(&s, c->pos4, c->vel4, c->n), 0);
	cr_assert_eq(sph_ref_evaluate(&s, &c->p), 0);
	for (size_t i = 0; i < c->n; i++) {
		c->rho[i] = (float)s.rho[i];
		for (int d = 0; d < 3; d++)
			c->acc4[4 * i + d] = (float)s.acc[3 * i + d];
	}
	c->counts.neighbours = s.nbrs.pairs;
	c->counts.candidates = s.nbrs.pairs;
	sph_ref_state_free(&s);
}

static void sv_free(struct sv_case *c)
{
	free(c->pos4);
	free(c->vel4);
	free(c->rho);
	free(c->acc4);
}

static struct sph_validation sv_run(struct sv_case *c)
{
	struct sph_validation v;
	cr_assert_eq(sph_validate(&c->p, c->pos4, c->vel4, c->rho, c->acc4, c->n, &c->counts, &v), 0);
	return v;
}

Test(sph_validate, the_reference_rounded_to_float_passes)
{
	struct sv_case c;
	sv_make(&c);
	struct sph_validation v = sv_run(&c);
	cr_expect(v.pass, "rho %.3e acc %.3e pairs %llu/%llu", v.rho_err, v.acc_err, v.var_pairs,
		  v.ref_pairs);
	cr_expect_lt(v.rho_err, 1e-6, "float rounding only");
	cr_expect_gt(v.ref_pairs, 10 * c.n, "a collapsing column has ~20+ neighbours each");
	sv_free(&c);
}

Test(sph_validate, a_density_off_by_a_part_in_ten_thousand_fails)
{
	struct sv_case c;
	sv_make(&c);
	c.rho[c.n / 2] *= 1.0001f;
	struct sph_validation v = sv_run(&c);
	cr_expect(!v.pass);
	cr_expect_eq(v.worst_rho, c.n / 2);
	sv_free(&c);
}

Test(sph_validate, a_wrong_acceleration_fails)
{
	struct sv_case c;
	sv_make(&c);
	c.acc4[4 * 7 + 1] += 0.1f * 9.81f;
	struct sph_validation v = sv_run(&c);
	cr_expect(!v.pass);
	cr_expect_eq(v.worst_acc, 7);
	sv_free(&c);
}

Test(sph_validate, missing_neighbour_pairs_fail)
{
	struct sv_case c;
	sv_make(&c);
	c.counts.neighbours -= 40; /* what a skipped cell would lose, and more */
	struct sph_validation v = sv_run(&c);
	cr_expect(!v.pairs_ok);
	cr_expect(!v.pass);
	sv_free(&c);
}

Test(sph_validate, overflow_and_nan_fail)
{
	struct sv_case c;
	sv_make(&c);
	c.counts.overflow = 1;
	cr_expect(!sv_run(&c).pass, "a dropped particle is a failed run");
	c.counts.overflow = 0;
	c.rho[3] = NAN;
	struct sph_validation v = sv_run(&c);
	cr_expect(!v.pass);
	cr_expect(isnan(v.rho_err));
	sv_free(&c);
}
