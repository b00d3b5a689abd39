/* test_sph_scene.c - Criterion tests for the dam-break scene (sph_scene) */
#include <criterion/criterion.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sph_ref.h"
#include "sph_scene.h"

/* Goswami et al. 2010, Tables 1 and 2: the collapsing water column. */
static const size_t sph_test_paper_counts[4] = { 16128, 75200, 129024,
						 255600 };

/* The table holds exactly the paper's four counts, flagged as such, each
 * named by its count; every column's name is its count; the list ascends
 * and reaches 4.2 million. */
Test(sph_scene, columns_have_the_papers_counts)
{
	size_t count, paper = 0;
	const struct sph_column *c = sph_scene_columns(&count);

	cr_assert(count >= 5);
	for (size_t k = 0; k < count; k++) {
		const size_t n = sph_scene_particles(c[k].nx, c[k].ny, c[k].nz);

		cr_assert(strtoull(c[k].name, NULL, 10) == n,
			  "%s has %zu particles", c[k].name, n);
		cr_assert(k == 0 || n > sph_scene_particles(c[k - 1].nx,
			  c[k - 1].ny, c[k - 1].nz), "%s out of order",
			  c[k].name);
		if (c[k].paper) {
			cr_assert(paper < 4 &&
				  n == sph_test_paper_counts[paper],
				  "paper column %s", c[k].name);
			paper++;
		}
	}
	cr_assert(paper == 4, "%zu paper columns", paper);
	cr_assert(sph_scene_particles(c[count - 1].nx, c[count - 1].ny,
				      c[count - 1].nz) >= 4200000);
}

Test(sph_scene, find_by_name)
{
	const struct sph_column *c = sph_scene_column_find("255600");

	cr_assert(c && c->nx == 60 && c->ny == 60 && c->nz == 71 && c->paper);
	cr_assert(sph_scene_column_find("16128")->nz == 28);
	cr_assert(sph_scene_column_find("16000") == NULL);
	cr_assert(sph_scene_column_find("") == NULL);
	cr_assert(sph_scene_column_find(NULL) == NULL);
}

/* Every column gets water parameters at d = 0.24 m / nx, a box of
 * 4 W x W x 2 H, and is no taller than the stiffness is sized for. */
Test(sph_scene, every_column_has_parameters_and_box)
{
	size_t count;
	const struct sph_column *c = sph_scene_columns(&count);

	for (size_t k = 0; k < count; k++) {
		struct sph_params p;
		double d;

		cr_assert(sph_scene_params(c[k].nx, c[k].ny, c[k].nz, &p) == 0,
			  "%s refused", c[k].name);
		d = SPH_SCENE_WIDTH / c[k].nx;
		cr_assert(p.spacing == d && p.h == 2.0 * d);
		cr_assert(c[k].nz * d <= SPH_WATER_HMAX, "%s too tall",
			  c[k].name);
		cr_assert(p.box_lo[0] == 0.0 && p.box_lo[1] == 0.0 &&
			  p.box_lo[2] == 0.0);
		cr_assert(p.box_hi[0] == 4.0 * c[k].nx * d &&
			  p.box_hi[1] == c[k].ny * d &&
			  p.box_hi[2] == 2.0 * c[k].nz * d, "box of %s",
			  c[k].name);
	}
}

/* The documented numbers for the 16,128 column (d = 1 cm). */
Test(sph_scene, water_parameters_of_the_16128_column)
{
	struct sph_params p;

	cr_assert(sph_scene_params(24, 24, 28, &p) == 0);
	cr_assert(fabs(p.spacing - 0.01) < 1e-15);
	cr_assert(p.rho0 == 1000.0 && p.k == 625.0);
	cr_assert(fabs(p.mass / (p.rho0 * 1e-6) - 1.0 / 1.0098) < 1e-4,
		  "m = %g", p.mass);
	cr_assert(fabs(p.mu - 2.5) < 1e-12, "mu = %g", p.mu);
	cr_assert(fabs(p.dt - 1.6e-4) < 1e-15, "dt = %g", p.dt);
	cr_assert(p.gravity[0] == 0.0 && p.gravity[2] == -9.81);
}

Test(sph_scene, bad_columns_are_refused)
{
	struct sph_params p;
	float pos4[16], vel4[16];	/* room for 4, should one slip by */

	cr_assert(sph_scene_params(0, 4, 4, &p) == -1);
	cr_assert(sph_scene_params(4, -1, 4, &p) == -1);
	cr_assert(sph_scene_params(SPH_SCENE_MAX_SIDE + 1, 4, 4, &p) == -1);
	cr_assert(sph_scene_params(4, 4, 6, &p) == -1);	/* 1.5 : 1 */
	cr_assert(sph_scene_params(4, 4, 5, &p) == 0);		/* 1.25 : 1 */

	cr_assert(sph_scene_dam_break(0, 1, 1, 1, &p, pos4, vel4) == -1);
	p.box_hi[1] = 3.5 * p.spacing;	/* 4 rows do not fit */
	cr_assert(sph_scene_dam_break(1, 4, 1, 1, &p, pos4, vel4) == -1);
	p.spacing = 0.0;
	cr_assert(sph_scene_dam_break(1, 1, 1, 1, &p, pos4, vel4) == -1);
}

/* A column: params and floats, 4n each. */
static void sph_test_make(int nx, int ny, int nz, uint64_t seed,
			  struct sph_params *p, float **pos4, float **vel4)
{
	const size_t n = sph_scene_particles(nx, ny, nz);

	*pos4 = malloc(4 * n * sizeof **pos4);
	*vel4 = malloc(4 * n * sizeof **vel4);
	cr_assert(*pos4 && *vel4, "out of memory");
	cr_assert(sph_scene_params(nx, ny, nz, p) == 0);
	cr_assert(sph_scene_dam_break(nx, ny, nz, seed, p, *pos4, *vel4) == 0);
}

/* Particle ix + nx (iy + ny iz) lies within the jitter of its lattice
 * node, inside the box; w = 0 and the fluid is at rest. Sides of
 * different lengths catch a transposed index. */
Test(sph_scene, lattice_layout_in_the_corner)
{
	const int nx = 7, ny = 5, nz = 8;
	struct sph_params p;
	float *pos4, *vel4;
	size_t i = 0;

	sph_test_make(nx, ny, nz, 9, &p, &pos4, &vel4);
	for (int iz = 0; iz < nz; iz++)
	for (int iy = 0; iy < ny; iy++)
	for (int ix = 0; ix < nx; ix++, i++) {
		const int cell[3] = { ix, iy, iz };

		for (int c = 0; c < 3; c++) {
			const double node = (cell[c] + 0.5) * p.spacing;
			const double off = pos4[4 * i + c] - node;

			cr_assert(fabs(off) <= SPH_SCENE_JITTER * p.spacing *
				  (1.0 + 1e-5), "particle %zu coord %d off by "
				  "%g d", i, c, off / p.spacing);
			cr_assert(pos4[4 * i + c] > p.box_lo[c] &&
				  pos4[4 * i + c] < p.box_hi[c]);
			cr_assert(vel4[4 * i + c] == 0.0f);
		}
		cr_assert(pos4[4 * i + 3] == 0.0f && vel4[4 * i + 3] == 0.0f);
	}
	free(pos4), free(vel4);
}

/* The same seed gives the same floats; another seed other jitter. */
Test(sph_scene, deterministic_by_seed)
{
	const size_t n = sph_scene_particles(24, 24, 28);
	struct sph_params p;
	float *a, *va, *b, *vb, *c, *vc;

	sph_test_make(24, 24, 28, 42, &p, &a, &va);
	sph_test_make(24, 24, 28, 42, &p, &b, &vb);
	sph_test_make(24, 24, 28, 43, &p, &c, &vc);
	cr_assert(memcmp(a, b, 4 * n * sizeof *a) == 0);
	cr_assert(memcmp(va, vb, 4 * n * sizeof *va) == 0);
	cr_assert(memcmp(a, c, 4 * n * sizeof *a) != 0);
	free(a), free(va), free(b), free(vb), free(c), free(vc);
}

/* The start is at rest density: every particle two layers or more inside
 * the column (a full neighbourhood) has |rho / rho0 - 1| < 2 %; what is
 * left is the jitter's doing (measured ~1 %). */
Test(sph_scene, interior_starts_at_rest_density)
{
	const int nx = 12, ny = 12, nz = 14;
	const size_t n = sph_scene_particles(nx, ny, nz);
	struct sph_params p;
	struct sph_ref_state s;
	float *pos4, *vel4;
	size_t inner = 0;

	sph_test_make(nx, ny, nz, 7, &p, &pos4, &vel4);
	cr_assert(sph_ref_state_init(&s, pos4, vel4, n) == 0);
	cr_assert(sph_ref_evaluate(&s, &p) == 0);
	for (size_t i = 0; i < n; i++) {
		const int cell[3] = { (int)(i % nx), (int)(i / nx % ny),
				      (int)(i / ((size_t)nx * ny)) };
		const int side[3] = { nx, ny, nz };
		int deep = 1;

		for (int c = 0; c < 3; c++)
			deep &= cell[c] >= 2 && cell[c] < side[c] - 2;
		if (!deep)
			continue;
		inner++;
		cr_assert(fabs(s.rho[i] / p.rho0 - 1.0) < 0.02,
			  "particle %zu: rho %g", i, s.rho[i]);
	}
	cr_assert(inner == 8 * 8 * 10);
	sph_ref_state_free(&s);
	free(pos4), free(vel4);
}
