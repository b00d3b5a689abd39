/* test_render_ref.c - Criterion tests for the rendering oracle's surface particles and distance field (suite render_ref) */
#include <criterion/criterion.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../reference/render_ref.h"
#include "../../reference/rng.h"
#include "../../reference/sph_ref.h"
#include "../../reference/sph_scene.h"

/* ------------------------------------------------------------------ */
/* Surface particles                                                   */
/* ------------------------------------------------------------------ */

/* An n^3 lattice of spacing d with its corner at off; returns x[3 n^3]. */
static double *render_test_cube(int n, double d, double off)
{
	double *x = malloc(3 * (size_t)n * n * n * sizeof *x);
	size_t q = 0;

	cr_assert(x != NULL);
	for (int k = 0; k < n; k++)
	for (int j = 0; j < n; j++)
	for (int i = 0; i < n; i++, q++) {
		x[3 * q + 0] = off + i * d;
		x[3 * q + 1] = off + j * d;
		x[3 * q + 2] = off + k * d;
	}
	return x;
}

/* Lattice index q's distance, in layers, from the cube's outside (0: the
 * outer layer) and how many of its coordinates are on a face. */
static int render_test_depth(size_t q, int n, int *faces)
{
	const int a[3] = { (int)(q % n), (int)(q / n % n), (int)(q / n / n) };
	int depth = n;

	*faces = 0;
	for (int c = 0; c < 3; c++) {
		const int e = a[c] < n - 1 - a[c] ? a[c] : n - 1 - a[c];

		depth = e < depth ? e : depth;
		*faces += e == 0;
	}
	return depth;
}

/* At h = 2 d an interior lattice particle has the 6 + 12 + 8 nodes at
 * |n|^2 = 1, 2, 3 as neighbours; the 6 at |n| = 2 are at r = h exactly,
 * not < h. The defaults are those the header lists. */
Test(render_ref, rest_neighbours_and_defaults)
{
	const double ds[3] = { 0.01, 1.0 / 64, 0.0137 };
	struct sph_params p;
	struct render_params rp;

	for (int q = 0; q < 3; q++) {
		const double d = ds[q];
		double len = 0.0;

		sph_params_water(&p, d, 0.3);
		cr_assert_eq(render_rest_neighbours(&p), 26, "d %g", d);
		render_params_default(&rp, &p);
		cr_assert_eq(rp.com_threshold, 0.1);
		cr_assert_eq(rp.min_neighbours, 0.6 * 26);
		cr_assert_eq(rp.res, 256);
		cr_assert_eq(rp.r, 1.5 * d);
		cr_assert_eq(rp.r_min, 0.25 * d);
		cr_assert_eq(rp.r_max, 1.5 * d * sqrt(3.0));
		cr_assert_eq(rp.samples_per_unit, 250.0);
		cr_assert_eq(rp.surface_d, 0.5 * d);
		cr_assert_eq(rp.band, 0.25 * d);
		cr_assert_eq(rp.alpha_max, 0.6);
		cr_assert_eq(rp.opaque, 0.99);
		for (int c = 0; c < 3; c++) {
			len += rp.light[c] * rp.light[c];
			cr_assert(rp.colour[c] >= 0.0 && rp.colour[c] <= 1.0);
			cr_assert_eq(rp.background[c], 1.0);
		}
		cr_assert(fabs(len - 1.0) < 1e-15, "|light|^2 = %.17g", len);
	}
	/* a wider support: nodes with |n|^2 < 9 at h = 3 d (|n|^2 = 1, 2, 3,
	 * 4, 5, 6, 8: 6 + 12 + 8 + 6 + 24 + 24 + 12) */
	sph_params_water(&p, 1.0 / 64, 0.3);	/* exact: no pair rounds */
	p.h = 3.0 * p.spacing;
	cr_assert_eq(render_rest_neighbours(&p), 92);
}

/*
 * The surface of an 8^3 lattice cube is exactly its outer layer (296 of
 * 512), at spacings whose lattice is exact in binary (1/64) and not (1 cm,
 * 1.37 cm, off the origin). Measured criterion (com offset / h, n):
 *   exact lattice:   interior and second layer 0, 26;  face 0.25, 17;
 *                    edge 0.354, 11;  corner 0.433, 7
 *   rounded lattice: interior and second layer 0 .. 0.058, 26 .. 29
 *                    (pairs at exactly 2 d = h taken in or not by
 *                    rounding);  face 0.236 .. 0.289, 17 .. 20;  edges
 *                    and corners 0.335 .. 0.472, 7 .. 14
 * so com_threshold 0.1 lies between 0.058 and 0.236 with room either side.
 */
Test(render_ref, lattice_cube_surface_is_its_outer_layer)
{
	const double ds[4] = { 1.0 / 64, 0.01, 0.01, 0.0137 };
	const double offs[4] = { 0.0, 0.0, 0.2412345, 0.3 };
	const int n = 8, total = n * n * n;

	for (int t = 0; t < 4; t++) {
		struct sph_params p;
		struct render_params rp;
		struct sph_nbr_list nl;
		double *x = render_test_cube(n, ds[t], offs[t]);
		unsigned char *s = malloc(total);
		size_t count, outer = 0;

		sph_params_water(&p, ds[t], n * ds[t]);
		render_params_default(&rp, &p);
		cr_assert(render_ref_surface(&p, &rp, x, total, s, &count) == 0);
		memset(&nl, 0, sizeof nl);
		cr_assert(sph_ref_neighbours_grid(x, total, p.h, &nl) == 0);
		for (int q = 0; q < total; q++) {
			int faces;
			const int depth = render_test_depth(q, n, &faces);
			double off;
			size_t nb;

			render_ref_surface_criterion(&p, x, &nl, q, &off, &nb);
			outer += depth == 0;
			cr_assert_eq(s[q], depth == 0,
				     "d %g: particle %d (depth %d) surface %d: "
				     "com off %.4f h, %zu neighbours",
				     ds[t], q, depth, s[q], off, nb);
			if (depth == 1)
				cr_assert(off < 0.07 && nb >= 26,
					  "second layer: %.4f h, %zu", off, nb);
			if (depth == 0 && faces == 1)
				cr_assert(off > 0.2 && nb >= 17 && nb <= 20,
					  "face: %.4f h, %zu", off, nb);
		}
		cr_assert_eq(count, outer);
		cr_assert_eq(outer, 296);
		sph_nbr_list_free(&nl);
		free(s);
		free(x);
	}
}

/* Too few neighbours: a lone particle (com_i = x_i, offset 0) and a pair
 * (each 0.5 r / h off, small for a close pair) are surface particles. */
Test(render_ref, lone_particle_and_pair_are_surface)
{
	struct sph_params p;
	struct render_params rp;
	const double one[3] = { 0.1, 0.2, 0.3 };
	const double two[6] = { 0.1, 0.2, 0.3, 0.1 + 0.001, 0.2, 0.3 };
	unsigned char s[2] = { 7, 7 };
	size_t count = 99;

	sph_params_water(&p, 0.01, 0.3);
	render_params_default(&rp, &p);
	cr_assert(render_ref_surface(&p, &rp, one, 1, s, &count) == 0);
	cr_assert(s[0] == 1 && count == 1);
	cr_assert(render_ref_surface(&p, &rp, two, 2, s, &count) == 0);
	cr_assert(s[0] == 1 && s[1] == 1 && count == 2);
	/* the pair is one below the threshold on com alone: n decides */
	{
		struct sph_nbr_list nl;
		double off;
		size_t nb;

		memset(&nl, 0, sizeof nl);
		cr_assert(sph_ref_neighbours_grid(two, 2, p.h, &nl) == 0);
		render_ref_surface_criterion(&p, two, &nl, 0, &off, &nb);
		cr_assert(nb == 1 && off < rp.com_threshold, "%g %zu", off, nb);
		sph_nbr_list_free(&nl);
	}
	cr_assert(render_ref_surface(&p, &rp, one, 0, s, &count) == 0);
	cr_assert_eq(count, 0);
}

/* The criterion written out by brute force over all pairs, summing in
 * ascending j as the oracle does, so that it agrees bit for bit. */
static void render_test_surface_brute(const struct sph_params *p,
				      const struct render_params *rp,
				      const double *x, size_t n,
				      unsigned char *s)
{
	for (size_t i = 0; i < n; i++) {
		double sum[3] = { 0.0, 0.0, 0.0 }, off;
		size_t nb = 0;

		for (size_t j = 0; j < n; j++) {
			double dd[3];

			for (int c = 0; c < 3; c++)
				dd[c] = x[3 * j + c] - x[3 * i + c];
			if (j == i || !(dd[0] * dd[0] + dd[1] * dd[1] +
					dd[2] * dd[2] < p->h * p->h))
				continue;
			for (int c = 0; c < 3; c++)
				sum[c] += dd[c];
			nb++;
		}
		for (int c = 0; c < 3; c++)
			sum[c] /= (double)(1 + nb);
		off = sqrt(sum[0] * sum[0] + sum[1] * sum[1] + sum[2] * sum[2]) /
		      p->h;
		s[i] = off > rp->com_threshold ||
		       (double)nb < rp->min_neighbours;
	}
}

/*
 * Planted bug: an extraction with its own grid that visits the 26 cells
 * "around" a particle's cell, counting from 0 to 26 exclusive, and so
 * never the 27th, (+1, +1, +1). Otherwise as the oracle.
 */
static int render_test_surface_26_cells(const struct sph_params *p,
					const struct render_params *rp,
					const double *x, size_t n,
					unsigned char *s)
{
	struct sph_ref_grid g;

	if (sph_ref_grid_build(&g, x, n, p->h) != 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		double sum[3] = { 0.0, 0.0, 0.0 }, off;
		size_t nb = 0;
		int c0[3];

		sph_ref_grid_cell(&g, &x[3 * i], c0);
		for (int cell = 0; cell < 26; cell++) {
			const int cx = c0[0] + cell % 3 - 1;
			const int cy = c0[1] + cell / 3 % 3 - 1;
			const int cz = c0[2] + cell / 9 - 1;
			size_t ci;

			if (cx < 0 || cy < 0 || cz < 0 || cx >= g.dim[0] ||
			    cy >= g.dim[1] || cz >= g.dim[2])
				continue;
			ci = sph_ref_grid_index(&g, cx, cy, cz);
			for (size_t k = g.start[ci]; k < g.start[ci + 1]; k++) {
				const size_t j = g.order[k];
				double dd[3];

				for (int c = 0; c < 3; c++)
					dd[c] = x[3 * j + c] - x[3 * i + c];
				if (j == i || !(dd[0] * dd[0] + dd[1] * dd[1] +
						dd[2] * dd[2] < p->h * p->h))
					continue;
				for (int c = 0; c < 3; c++)
					sum[c] += dd[c];
				nb++;
			}
		}
		for (int c = 0; c < 3; c++)
			sum[c] /= (double)(1 + nb);
		off = sqrt(sum[0] * sum[0] + sum[1] * sum[1] + sum[2] * sum[2]) /
		      p->h;
		s[i] = off > rp->com_threshold ||
		       (double)nb < rp->min_neighbours;
	}
	sph_ref_grid_free(&g);
	return 0;
}

/* A ball of radius 5 d cut from a lattice jittered by +-0.3 d, and a
 * spray of 40 loose particles around it: many particles near both
 * thresholds. Returns x, *n set. */
static double *render_test_blob(double d, size_t *n)
{
	double *x = malloc(3 * (11 * 11 * 11 + 40) * sizeof *x);
	struct rng r;
	size_t q = 0;

	cr_assert(x != NULL);
	rng_seed(&r, 20100503);
	for (int k = -5; k <= 5; k++)
	for (int j = -5; j <= 5; j++)
	for (int i = -5; i <= 5; i++) {
		if (i * i + j * j + k * k > 25)
			continue;
		x[3 * q + 0] = 0.5 + (i + 0.6 * (rng_uniform(&r) - 0.5)) * d;
		x[3 * q + 1] = 0.5 + (j + 0.6 * (rng_uniform(&r) - 0.5)) * d;
		x[3 * q + 2] = 0.5 + (k + 0.6 * (rng_uniform(&r) - 0.5)) * d;
		q++;
	}
	for (int t = 0; t < 40; t++, q++)
		for (int c = 0; c < 3; c++)
			x[3 * q + c] = 0.5 + 14.0 * d * (rng_uniform(&r) - 0.5);
	*n = q;
	return x;
}

/* Particles whose flags differ. */
static size_t render_test_flag_diff(const unsigned char *a,
				    const unsigned char *b, size_t n)
{
	size_t diff = 0;

	for (size_t i = 0; i < n; i++)
		diff += a[i] != b[i];
	return diff;
}

/*
 * The oracle's flags agree with the brute-force criterion on every
 * particle of a jittered ball with spray; an extraction that misses one
 * of the 27 cells is caught by the same comparison (measured: 5 of 555
 * particles flip), though it passes the lattice cube (a missing
 * neighbour moves an interior particle's com by at most 0.033 h there).
 */
Test(render_ref, surface_matches_brute_force_and_catches_a_missing_cell)
{
	struct sph_params p;
	struct render_params rp;
	size_t n, count, brute_count = 0;
	double *x;
	unsigned char *s, *ref, *plant;

	sph_params_water(&p, 0.01, 0.3);
	render_params_default(&rp, &p);
	x = render_test_blob(p.spacing, &n);
	s = malloc(n);
	ref = malloc(n);
	plant = malloc(n);
	cr_assert(s && ref && plant);
	render_test_surface_brute(&p, &rp, x, n, ref);
	cr_assert(render_ref_surface(&p, &rp, x, n, s, &count) == 0);
	for (size_t i = 0; i < n; i++)
		brute_count += ref[i];
	cr_assert_eq(render_test_flag_diff(s, ref, n), 0);
	cr_assert_eq(count, brute_count);
	/* neither all nor none: the comparison has something to compare */
	cr_assert(count > n / 5 && count < n - n / 5, "%zu of %zu", count, n);

	cr_assert(render_test_surface_26_cells(&p, &rp, x, n, plant) == 0);
	cr_assert(render_test_flag_diff(plant, ref, n) > 0,
		  "the planted 26-cell extraction went unnoticed");
	free(plant);
	free(ref);
	free(s);
	free(x);
}

/* A non-finite position is refused. */
Test(render_ref, surface_refuses_non_finite_positions)
{
	struct sph_params p;
	struct render_params rp;
	double x[6] = { 0.1, 0.2, 0.3, 0.1, NAN, 0.3 };
	unsigned char s[2];
	size_t count;

	sph_params_water(&p, 0.01, 0.3);
	render_params_default(&rp, &p);
	cr_assert(render_ref_surface(&p, &rp, x, 2, s, &count) == -1);
	x[4] = INFINITY;
	cr_assert(render_ref_surface(&p, &rp, x, 2, s, &count) == -1);
}

/* ------------------------------------------------------------------ */
/* Distance field                                                      */
/* ------------------------------------------------------------------ */

/* What one particle p alone leaves in voxel (i, j, k) of f, by the
 * header's definition. */
static double render_test_expected(const struct render_params *rp,
				   const struct render_field *f,
				   const double p[3], int i, int j, int k)
{
	const int at[3] = { i, j, k };
	double dd[3], d, e;

	for (int c = 0; c < 3; c++) {
		dd[c] = f->lo[c] + at[c] * f->voxel - p[c];
		if (!(fabs(dd[c]) <= rp->r))
			return f->max;
	}
	d = sqrt(dd[0] * dd[0] + dd[1] * dd[1] + dd[2] * dd[2]);
	if (!(d <= rp->r_max))
		return f->max;
	e = fmax(d, rp->r_min);
	return e * e;
}

/* Voxels of f (all of them) that differ from the min over the m
 * particles s of render_test_expected; *touched counts those below max. */
static size_t render_test_field_diff(const struct render_params *rp,
				     const struct render_field *f,
				     const double *s, size_t m, size_t *touched)
{
	size_t diff = 0;

	*touched = 0;
	for (int k = 0; k < f->dim[2]; k++)
	for (int j = 0; j < f->dim[1]; j++)
	for (int i = 0; i < f->dim[0]; i++) {
		double want = f->max;

		for (size_t q = 0; q < m; q++)
			want = fmin(want, render_test_expected(rp, f, &s[3 * q],
							       i, j, k));
		diff += f->value[((size_t)k * f->dim[1] + j) * f->dim[0] + i] !=
			want;
		*touched += want < f->max;
	}
	return diff;
}

/* Planted bugs in the rasterisation, each a copy of the oracle's loop
 * with one change. */
enum render_test_plant {
	RENDER_PLANT_HIGH_SHORT,	/* x loop i < last: one voxel short */
	RENDER_PLANT_FLOOR_PLUS_1,	/* first = floor(..) + 1, not ceil */
	RENDER_PLANT_OVERWRITE,		/* value = new, no min with old */
};

static void render_test_splat_planted(const struct render_params *rp,
				      struct render_field *f, const double p[3],
				      enum render_test_plant plant)
{
	int a[3], b[3];

	for (int c = 0; c < 3; c++) {
		double u = plant == RENDER_PLANT_FLOOR_PLUS_1 ?
			   floor((p[c] - rp->r - f->lo[c]) / f->voxel) + 1.0 :
			   ceil((p[c] - rp->r - f->lo[c]) / f->voxel);
		double w = floor((p[c] + rp->r - f->lo[c]) / f->voxel);

		u = fmax(u, 0.0);
		w = fmin(w, f->dim[c] - 1.0);
		if (u > w)
			return;
		a[c] = (int)u;
		b[c] = (int)w;
	}
	for (int k = a[2]; k <= b[2]; k++)
	for (int j = a[1]; j <= b[1]; j++)
	for (int i = a[0];
	     plant == RENDER_PLANT_HIGH_SHORT ? i < b[0] : i <= b[0]; i++) {
		const double dx = f->lo[0] + i * f->voxel - p[0];
		const double dy = f->lo[1] + j * f->voxel - p[1];
		const double dz = f->lo[2] + k * f->voxel - p[2];
		const double d = sqrt(dx * dx + dy * dy + dz * dz);
		double *val = &f->value[((size_t)k * f->dim[1] + j) *
					f->dim[0] + i];
		double e;

		if (!(d <= rp->r_max))
			continue;
		e = fmax(d, rp->r_min);
		*val = plant == RENDER_PLANT_OVERWRITE ? e * e :
		       fmin(*val, e * e);
	}
}

/* The field of the m positions s as a planted rasteriser makes it: the
 * oracle's grid with no particles, then the planted splats. */
static void render_test_field_planted(const struct render_params *rp,
				      const double lo[3], const double hi[3],
				      const double *s, size_t m,
				      enum render_test_plant plant,
				      struct render_field *f)
{
	cr_assert(render_ref_field(rp, lo, hi, s, 0, f) == 0);
	for (size_t q = 0; q < m; q++)
		render_test_splat_planted(rp, f, &s[3 * q], plant);
}

/* The unit box at res 64 (v = 1/64) with d = 1/32 (r = 3 v exactly,
 * r_min = v / 2): all exact in binary, so voxels at |c_k - p_k| = r
 * exactly exist for a particle on a voxel. */
static void render_test_unit_setup(struct render_params *rp, double lo[3],
				   double hi[3])
{
	struct sph_params p;

	sph_params_water(&p, 1.0 / 32, 0.3);
	render_params_default(rp, &p);
	rp->res = 64;
	for (int c = 0; c < 3; c++) {
		lo[c] = 0.0;
		hi[c] = 1.0;
	}
}

/*
 * One particle's field is max(d, r_min)^2 in every voxel of its box with
 * d <= r_max and the maximum everywhere else, every voxel checked: on a
 * voxel (box faces exactly at r), off the grid, and cut by a grid face.
 * The same check catches a box one voxel short on one side, and a first
 * index of floor() + 1 where ceil() belongs (that one only on the voxel,
 * where the box face falls exactly on voxels: why that case is here).
 */
Test(render_ref, field_of_one_particle_is_its_distance, .timeout = 60)
{
	struct render_params rp;
	double lo[3], hi[3];
	const double ps[4][3] = {
		{ 20.0 / 64, 33.0 / 64, 41.0 / 64 },	/* on a voxel */
		{ 0.3141, 0.5772, 0.6931 },		/* off the grid */
		{ 1.0 / 128, 0.5, 1.0 - 1.0 / 256 },	/* at two faces */
		{ -3.0 / 64, 0.5, 0.5 },		/* outside, x = 0 at r */
	};

	render_test_unit_setup(&rp, lo, hi);
	for (int t = 0; t < 4; t++) {
		struct render_field f;
		size_t touched, diff;

		cr_assert(render_ref_field(&rp, lo, hi, ps[t], 1, &f) == 0);
		cr_assert(f.dim[0] == 65 && f.dim[1] == 65 && f.dim[2] == 65);
		cr_assert_eq(f.max, rp.r_max * rp.r_max);
		diff = render_test_field_diff(&rp, &f, ps[t], 1, &touched);
		cr_assert_eq(diff, 0, "particle %d: %zu voxels differ", t, diff);
		/* the whole 7^3 box but its 8 corners, which are at d =
		 * r_max exactly and so hold the maximum */
		if (t == 0)
			cr_assert_eq(touched, 7 * 7 * 7 - 8, "%zu", touched);
		/* one plane of the box inside, x = 0 at r: 7^2 less 4
		 * corners */
		if (t == 3)
			cr_assert_eq(touched, 7 * 7 - 4, "%zu", touched);
		cr_assert(touched > 0);
		render_field_free(&f);
		cr_assert(f.value == NULL);

		if (t > 1)
			continue;
		render_test_field_planted(&rp, lo, hi, ps[t], 1,
					  RENDER_PLANT_HIGH_SHORT, &f);
		diff = render_test_field_diff(&rp, &f, ps[t], 1, &touched);
		/* on the voxel: the plane x = p + r less its 4 corners */
		cr_assert(t == 0 ? diff == 7 * 7 - 4 : diff > 0,
			  "particle %d: box one voxel short: %zu differ", t, diff);
		render_field_free(&f);
		render_test_field_planted(&rp, lo, hi, ps[t], 1,
					  RENDER_PLANT_FLOOR_PLUS_1, &f);
		diff = render_test_field_diff(&rp, &f, ps[t], 1, &touched);
		if (t == 0)
			cr_assert_eq(diff, 7 * 7 * 7 - 6 * 6 * 6 - 7,
				     "floor + 1 should lose the box's three "
				     "low planes (but for their corners), "
				     "lost %zu", diff);
		else	/* indistinguishable off the grid */
			cr_assert_eq(diff, 0);
		render_field_free(&f);
	}
}

/* Two particles whose boxes overlap: every voxel holds the smaller of
 * their values. Overwriting instead of taking the min is caught. */
Test(render_ref, field_of_two_particles_is_the_min, .timeout = 60)
{
	struct render_params rp;
	struct render_field f;
	double lo[3], hi[3];
	const double s[6] = { 0.40, 0.50, 0.50, 0.40 + 1.3 / 32, 0.51, 0.49 };
	size_t touched, diff, one;

	render_test_unit_setup(&rp, lo, hi);
	cr_assert(render_ref_field(&rp, lo, hi, s, 2, &f) == 0);
	cr_assert_eq(render_test_field_diff(&rp, &f, s, 2, &touched), 0);
	render_test_field_diff(&rp, &f, s, 1, &one);
	cr_assert(touched > one, "%zu voxels, %zu of the first alone",
		  touched, one);
	render_field_free(&f);

	render_test_field_planted(&rp, lo, hi, s, 2, RENDER_PLANT_OVERWRITE, &f);
	diff = render_test_field_diff(&rp, &f, s, 2, &touched);
	cr_assert(diff > 0, "overwriting went unnoticed");
	render_field_free(&f);
}

/*
 * Away from the particle and inside its box (so that every neighbour the
 * central difference reads holds |c - p| itself), the gradient of one
 * particle's field points from it with magnitude 1 (central differences
 * of |x| are off by O(v^2 / |x|^2): <= 1 % at 4 voxels). At the grid's
 * faces it is the one-sided difference.
 */
Test(render_ref, gradient_points_away_from_the_particle)
{
	struct sph_params sp;
	struct render_params rp;
	struct render_field f;
	const double lo[3] = { 0.0, 0.0, 0.0 }, hi[3] = { 0.25, 0.25, 0.125 };
	const double p[3] = { 0.1234, 0.1111, 0.0625 };
	size_t checked = 0;
	double worst = 0.0;

	sph_params_water(&sp, 1.0 / 32, 0.3);
	render_params_default(&rp, &sp);	/* r = 3/64 */
	cr_assert(render_ref_field(&rp, lo, hi, p, 1, &f) == 0);
	cr_assert(f.voxel == 1.0 / 1024 && f.dim[0] == 257 && f.dim[2] == 129);
	for (int k = 0; k < f.dim[2]; k++)
	for (int j = 0; j < f.dim[1]; j++)
	for (int i = 0; i < f.dim[0]; i++) {
		const int at[3] = { i, j, k };
		double dd[3], d, g[3], gl, dot = 0.0;
		int inside = 1;

		for (int c = 0; c < 3; c++) {
			dd[c] = lo[c] + at[c] * f.voxel - p[c];
			inside &= fabs(dd[c]) + f.voxel <= rp.r;
		}
		d = sqrt(dd[0] * dd[0] + dd[1] * dd[1] + dd[2] * dd[2]);
		if (!inside || d < rp.r_min + 4.0 * f.voxel)
			continue;
		render_ref_gradient(&f, i, j, k, g);
		gl = sqrt(g[0] * g[0] + g[1] * g[1] + g[2] * g[2]);
		for (int c = 0; c < 3; c++)
			dot += g[c] * dd[c] / (gl * d);
		cr_assert(fabs(gl - 1.0) < 0.01 && dot > 0.9999,
			  "voxel %d %d %d: |g| %.6f, cos %.8f", i, j, k, gl, dot);
		worst = fmax(worst, fabs(gl - 1.0));
		checked++;
	}
	cr_assert(checked > 10000, "%zu voxels checked", checked);
	cr_assert(worst > 0.0);

	/* faces: one-sided; far from the particle the field is flat */
	{
		double g[3];
		const int i = 0, j = 5, k = f.dim[2] - 1;
		const size_t row = f.dim[0];
		const size_t at = ((size_t)k * f.dim[1] + j) * row + i;

		f.value[at + 1] = 4.0 * f.value[at];	/* a step on x */
		render_ref_gradient(&f, i, j, k, g);
		cr_assert_eq(g[0], (sqrt(f.value[at + 1]) - sqrt(f.value[at])) /
			     f.voxel);
		cr_assert(g[1] == 0.0 && g[2] == 0.0, "%g %g", g[1], g[2]);
	}
	render_field_free(&f);
}

/* Grids are refused for res outside 2 .. 4096 and for inverted, empty or
 * non-finite boxes, and for a non-finite position; the field is left
 * empty. The extremes are accepted, and the longest side has exactly
 * res + 1 voxels also where its division by v rounds. */
Test(render_ref, field_bounds)
{
	struct sph_params p;
	struct render_params rp;
	struct render_field f;
	const double lo[3] = { 0.0, 0.0, 0.0 }, hi[3] = { 0.3, 0.2, 0.1 };
	const double s[3] = { 0.1, 0.1, 0.05 };

	sph_params_water(&p, 0.01, 0.3);
	render_params_default(&rp, &p);
	rp.res = 1;
	cr_assert(render_ref_field(&rp, lo, hi, s, 1, &f) == -1);
	cr_assert(f.value == NULL && f.dim[0] == 0);
	rp.res = 4097;
	cr_assert(render_ref_field(&rp, lo, hi, s, 1, &f) == -1);
	cr_assert(f.value == NULL);
	rp.res = 0;
	cr_assert(render_ref_field(&rp, lo, hi, s, 1, &f) == -1);
	rp.res = -5;
	cr_assert(render_ref_field(&rp, lo, hi, s, 1, &f) == -1);

	rp.res = 2;
	cr_assert(render_ref_field(&rp, lo, hi, s, 1, &f) == 0);
	cr_assert(f.dim[0] == 3 && f.dim[1] == 3 && f.dim[2] == 2,
		  "%d %d %d", f.dim[0], f.dim[1], f.dim[2]);
	render_field_free(&f);
	{	/* res 4096 on a thin box */
		const double thin[3] = { 1.0, 1e-4, 1e-4 };

		rp.res = 4096;
		cr_assert(render_ref_field(&rp, lo, thin, s, 1, &f) == 0);
		cr_assert(f.dim[0] == 4097 && f.dim[1] == 2 && f.dim[2] == 2);
		render_field_free(&f);
	}

	for (int c = 0; c < 3; c++) {
		double bad[3] = { hi[0], hi[1], hi[2] };
		const double bads[4] = { -0.1, 0.0, NAN, INFINITY };

		rp.res = 64;
		for (int b = 0; b < 4; b++) {
			bad[c] = bads[b];
			cr_assert(render_ref_field(&rp, lo, bad, s, 1, &f) == -1,
				  "axis %d hi %g accepted", c, bads[b]);
			cr_assert(f.value == NULL);
			cr_assert(render_ref_field(&rp, bad, hi, s, 1, &f) == -1 ||
				  bads[b] < hi[c],
				  "axis %d lo %g accepted", c, bads[b]);
			render_field_free(&f);
		}
		{
			double ninf[3] = { lo[0], lo[1], lo[2] };

			ninf[c] = -INFINITY;
			cr_assert(render_ref_field(&rp, ninf, hi, s, 1, &f) == -1);
		}
	}
	{
		const double nan_s[6] = { 0.1, 0.1, 0.05, 0.1, NAN, 0.05 };

		cr_assert(render_ref_field(&rp, lo, hi, nan_s, 2, &f) == -1);
		cr_assert(f.value == NULL);
	}

	/* the longest side gets res + 1 voxels, the others ceil + 1 (a
	 * plain ceil((hi - lo) / v) + 1 gives res + 2 on 4.6 % of such
	 * boxes, measured over 100,000: the division rounds up) */
	{
		struct rng r;

		rng_seed(&r, 7);
		for (int t = 0; t < 1000; t++) {
			const double side = 1e-3 + rng_uniform(&r);
			const double box_lo[3] = { rng_uniform(&r) - 0.5, 0, 0 };
			const double box_hi[3] = { box_lo[0] + side,
						   0.5 * side, 0.05 * side };

			rp.res = 2 + (int)rng_below(&r, 299);
			cr_assert(render_ref_field(&rp, box_lo, box_hi, s, 0, &f) == 0);
			cr_assert_eq(f.dim[0], rp.res + 1, "side %.17g res %d",
				     side, rp.res);
			cr_assert(f.dim[1] == (rp.res + 1) / 2 + 1 ||
				  f.dim[1] == rp.res / 2 + 1);
			cr_assert(f.lo[0] + (f.dim[0] - 1) * f.voxel >=
				  box_hi[0] - 1e-12 * side);
			cr_assert(f.lo[1] + (f.dim[1] - 1) * f.voxel >=
				  box_hi[1] - 1e-12 * side);
			render_field_free(&f);
		}
	}
}

/*
 * The derived parameters (render_ref.h) at three of the paper's columns
 * framed at 1280 x 720: the table the header prints, and each relation
 * (voxel <= d / 3 unless the memory cap binds, step <= band / 2 and
 * <= voxel / 2, box >= 1.5 d and >= 2 voxels, the field within the cap).
 */
Test(render_ref, derived_parameters_follow_the_spacing, .timeout = 60)
{
	const char *cols[3] = { "16128", "255600", "4207500" };
	const int res[3] = { 288, 720, 1192 };
	const double spu[3] = { 768.0, 1920.0, 4768.0 };

	for (int q = 0; q < 3; q++) {
		struct sph_column c;
		struct sph_params p;
		struct render_params rp;
		struct render_camera cam;
		char err[256];
		int dim[3];
		double v, lo[3] = { 0.0, 0.0, 0.0 }, hi[3];

		cr_assert_eq(sph_scene_column_parse(cols[q], &c, err, sizeof err), 0);
		/* the scene's box without building the scene */
		sph_scene_box(&c, &p);
		for (int k = 0; k < 3; k++)
			hi[k] = p.box_hi[k];
		render_camera_default(&cam, lo, hi, 1280, 720);
		cr_assert(fabs(render_camera_pixel(&cam) - 1.04e-3) < 0.01e-3, "pixel %g",
			  render_camera_pixel(&cam));
		cr_assert_eq(render_params_derive(&rp, &p, lo, hi, render_camera_pixel(&cam), 0, 0.0),
			     0);
		cr_assert_eq(rp.res, res[q], "%s: res %d", cols[q], rp.res);
		cr_assert(fabs(rp.samples_per_unit - spu[q]) < 1.0, "%s: %g", cols[q],
			  rp.samples_per_unit);
		cr_assert_eq(rp.alpha_samples, rp.samples_per_unit);
		cr_assert_eq(render_field_shape(rp.res, lo, hi, dim, &v), 0);
		cr_assert_leq((double)dim[0] * dim[1] * dim[2], (double)RENDER_FIELD_MAX_VOXELS);
		if (q < 2) {
			cr_assert_leq(v, p.spacing / 3.0 * (1 + 1e-12));
			cr_assert_eq(rp.band, 0.25 * p.spacing);
		} else {	/* capped: the band widens to v / 2 */
			cr_assert_gt(v, p.spacing / 3.0);
			cr_assert_eq(rp.band, 0.5 * v);
			cr_assert_gt((double)(dim[0] + 1) * (dim[1] + 1) * (dim[2] + 1),
				     (double)RENDER_FIELD_MAX_VOXELS);
		}
		const double step = hi[0] / rp.samples_per_unit;
		cr_assert_leq(step, 0.5 * rp.band * (1 + 1e-12));
		cr_assert_leq(step, 0.5 * v * (1 + 1e-12));
		cr_assert_geq(rp.r, 1.5 * p.spacing);
		cr_assert_geq(rp.r, 2.0 * v * (1 - 1e-12));
		cr_assert_eq(rp.r_max, rp.r * sqrt(3.0));
		/* the paper's fixed numbers are left for render_params_default */
		cr_assert_eq(rp.surface_d, 0.5 * p.spacing);
		cr_assert_eq(rp.r_min, 0.25 * p.spacing);

		/* overrides: the band, box and step follow the voxel asked for;
		 * alpha stays defined by the derived sampling */
		const double own = rp.alpha_samples;
		cr_assert_eq(render_params_derive(&rp, &p, lo, hi, render_camera_pixel(&cam), 64,
						  0.0), 0);
		cr_assert_eq(rp.res, 64);
		cr_assert_eq(rp.band, 0.5 * hi[0] / 64);
		cr_assert_eq(rp.r, 2.0 * hi[0] / 64);
		cr_assert_eq(rp.alpha_samples, own);
		cr_assert_eq(render_params_derive(&rp, &p, lo, hi, 0.0, 0, 1000.0), 0);
		cr_assert_eq(rp.samples_per_unit, 1000.0);
		cr_assert_eq(render_params_derive(&rp, &p, lo, hi, 0.0, 5000, 0.0), -1);
		cr_assert_eq(rp.res, 256, "refused: the paper's");
	}
}

/* A coarse image sets the voxel (half a pixel); an empty box is refused. */
Test(render_ref, derived_voxel_follows_the_image_and_refuses_empty_boxes)
{
	const double lo[3] = { 0.0, 0.0, 0.0 }, hi[3] = { 1.0, 0.5, 0.5 }, flat[3] = { 1.0, 0.0, 0.5 };

	cr_assert_eq(render_derive_voxel(0.01, 0.0), 0.01 / 3.0);
	cr_assert_eq(render_derive_voxel(0.01, 0.01), 0.005);
	cr_assert_eq(render_derive_res(0.01, lo, hi, 0.0), 300);
	cr_assert_eq(render_derive_res(0.01, lo, hi, 0.01), 200);
	cr_assert_eq(render_derive_res(0.01, lo, flat, 0.0), -1);
	cr_assert_eq(render_derive_res(0.0, lo, hi, 0.0), -1);
	cr_assert_eq(render_derive_res(NAN, lo, hi, 0.0), -1);
	/* 1e-4 would want res 30,000: the cap gives the largest that fits */
	const int r = render_derive_res(1e-4, lo, hi, 0.0);
	int dim[3];
	double v;

	cr_assert_eq(render_field_shape(r, lo, hi, dim, &v), 0);
	cr_assert_leq((double)dim[0] * dim[1] * dim[2], (double)RENDER_FIELD_MAX_VOXELS);
	cr_assert_eq(render_field_shape(r + 1, lo, hi, dim, &v), 0);
	cr_assert_gt((double)dim[0] * dim[1] * dim[2], (double)RENDER_FIELD_MAX_VOXELS);
}
