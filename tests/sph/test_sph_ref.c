/* test_sph_ref.c - Criterion tests for the double SPH oracle (suite sph_ref) */
#include <criterion/criterion.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../reference/rng.h"
#include "../../reference/sph_ref.h"
#include "../../reference/sph_scene.h"

/* 4 pi int_0^h r^2 W(r) dr by composite Simpson on 2000 intervals, with
 * r2w(r) = r^2 W(r) (so kernels singular at 0 can be written finite). */
static double sph_test_sphere_integral(double (*r2w)(double, double),
				       double h)
{
	const int m = 2000;
	const double dr = h / m;
	double sum = r2w(0.0, h) + r2w(h, h);

	for (int k = 1; k < m; k++)
		sum += (k % 2 ? 4.0 : 2.0) * r2w(k * dr, h);
	return 4.0 * SPH_REF_PI * sum * dr / 3.0;
}

static double sph_test_r2_poly6(double r, double h)
{
	return r * r * sph_ref_poly6(r * r, h);
}

/* Mueller 2003, eq. 21: W_spiky = 15 / (pi h^6) (h - r)^3. */
static double sph_test_spiky(double r, double h)
{
	return r < h ? 15.0 / (SPH_REF_PI * pow(h, 6)) * pow(h - r, 3) : 0.0;
}

static double sph_test_r2_spiky(double r, double h)
{
	return r * r * sph_test_spiky(r, h);
}

/* Mueller 2003, eq. 22: W_visc = 15 / (2 pi h^3)
 * (-r^3 / (2 h^3) + r^2 / h^2 + h / (2 r) - 1). */
static double sph_test_visc(double r, double h)
{
	return 15.0 / (2.0 * SPH_REF_PI * pow(h, 3)) *
	       (-pow(r, 3) / (2.0 * pow(h, 3)) + r * r / (h * h) +
		h / (2.0 * r) - 1.0);
}

/* r^2 W_visc with the 1/r term multiplied out (finite at r = 0). */
static double sph_test_r2_visc(double r, double h)
{
	return 15.0 / (2.0 * SPH_REF_PI * pow(h, 3)) *
	       (-pow(r, 5) / (2.0 * pow(h, 3)) + pow(r, 4) / (h * h) +
		h * r / 2.0 - r * r);
}

/* All three kernels are normalised: int W dV = 1 (Mueller's constants
 * 315/64, 15 and 15/2 over pi h^n). A wrong constant in sph_ref_poly6
 * shows here directly; the spiky and viscosity kernels are not in the
 * oracle (only their derivatives), so they are checked here to vouch for
 * the definitions the derivative tests below differentiate. */
Test(sph_ref, kernels_integrate_to_one)
{
	const double hs[2] = { 0.02, 1.0 };

	for (int k = 0; k < 2; k++) {
		double p6 = sph_test_sphere_integral(sph_test_r2_poly6, hs[k]);
		double sp = sph_test_sphere_integral(sph_test_r2_spiky, hs[k]);
		double vi = sph_test_sphere_integral(sph_test_r2_visc, hs[k]);

		cr_assert(fabs(p6 - 1.0) < 1e-10, "h %g: int W_poly6 = %.15g",
			  hs[k], p6);
		cr_assert(fabs(sp - 1.0) < 1e-10, "h %g: int W_spiky = %.15g",
			  hs[k], sp);
		cr_assert(fabs(vi - 1.0) < 1e-9, "h %g: int W_visc = %.15g",
			  hs[k], vi);
	}
}

/* dW_spiky/dr of the oracle equals a central difference of W_spiky
 * (step 1e-6 h: truncation ~1e-12, rounding ~1e-10 relative). */
Test(sph_ref, spiky_gradient_is_derivative_of_kernel)
{
	const double h = 0.02, step = 1e-6 * h;

	for (int k = 1; k < 20; k++) {
		const double r = k * h / 20.0;
		const double fd = (sph_test_spiky(r + step, h) -
				   sph_test_spiky(r - step, h)) / (2.0 * step);
		const double got = sph_ref_spiky_dwdr(r, h);

		cr_assert(fabs(got - fd) <= 1e-7 * fabs(fd),
			  "r = %g h: dW/dr %.12g, finite difference %.12g",
			  r / h, got, fd);
	}
}

/* lap W_visc of the oracle equals W'' + 2 W' / r of W_visc by central
 * differences (step 1e-4 h: errors ~1e-8 relative). */
Test(sph_ref, viscosity_laplacian_is_laplacian_of_kernel)
{
	const double h = 0.02, step = 1e-4 * h;

	for (int k = 1; k < 20; k++) {
		const double r = k * h / 20.0;
		const double wp = sph_test_visc(r + step, h),
			     w0 = sph_test_visc(r, h),
			     wm = sph_test_visc(r - step, h);
		const double lap = (wp - 2.0 * w0 + wm) / (step * step) +
				   2.0 / r * (wp - wm) / (2.0 * step);
		const double got = sph_ref_visc_lap(r, h);

		cr_assert(fabs(got - lap) <= 1e-5 * fabs(lap),
			  "r = %g h: lap %.12g, finite difference %.12g",
			  r / h, got, lap);
	}
}

/* Compact support: every kernel is zero at r = h and beyond, positive
 * (poly6, visc) or negative (spiky slope) just inside. */
Test(sph_ref, kernels_vanish_at_support_radius)
{
	const double h = 0.02, in = h * (1.0 - 1e-6);

	cr_assert(sph_ref_poly6(h * h, h) == 0.0);
	cr_assert(sph_ref_poly6(4.0 * h * h, h) == 0.0);
	cr_assert(sph_ref_spiky_dwdr(h, h) == 0.0);
	cr_assert(sph_ref_spiky_dwdr(2.0 * h, h) == 0.0);
	cr_assert(sph_ref_visc_lap(h, h) == 0.0);
	cr_assert(sph_ref_visc_lap(2.0 * h, h) == 0.0);
	cr_assert(sph_ref_poly6(in * in, h) > 0.0);
	cr_assert(sph_ref_spiky_dwdr(in, h) < 0.0);
	cr_assert(sph_ref_visc_lap(in, h) > 0.0);
}

/* An n x n x n lattice of spacing d (no jitter) starting at 0; x is 3n^3. */
static double *sph_test_lattice(int n, double d)
{
	double *x = malloc(3 * (size_t)n * n * n * sizeof *x);
	size_t i = 0;

	cr_assert(x, "out of memory");
	for (int a = 0; a < n; a++)
		for (int b = 0; b < n; b++)
			for (int c = 0; c < n; c++, i++) {
				x[3 * i] = c * d;
				x[3 * i + 1] = b * d;
				x[3 * i + 2] = a * d;
			}
	return x;
}

/* Density and pressure of particle `which` of positions x[3n]. */
static double sph_test_density_of(const struct sph_params *p, const double *x,
				  size_t n, size_t which, double *pres_out)
{
	struct sph_nbr_list nl = { 0 };
	double *rho = malloc((n + 1) * sizeof *rho);
	double *pres = malloc((n + 1) * sizeof *pres);
	double r;

	cr_assert(rho && pres, "out of memory");
	cr_assert(sph_ref_neighbours_grid(x, n, p->h, &nl) == 0);
	sph_ref_density(p, x, &nl, NULL, rho, pres);
	r = rho[which];
	if (pres_out)
		*pres_out = pres[which];
	sph_nbr_list_free(&nl);
	free(rho), free(pres);
	return r;
}

/*
 * The centre of a 7^3 lattice of spacing d sees the whole infinite
 * lattice (h = 2 d). With the water mass it is at rest density (to
 * rounding); with the plain m = rho0 d^3 it is 1.0098 rho0, the lattice
 * sum the parameter comments quote: within a few percent either way.
 */
Test(sph_ref, lattice_interior_is_at_rest_density)
{
	const double d = 0.01;
	const size_t centre = 3 + 7 * (3 + 7 * 3);
	double *x = sph_test_lattice(7, d);
	struct sph_params p;
	double rho, pres;

	sph_params_water(&p, d, 7 * d);
	rho = sph_test_density_of(&p, x, 343, centre, &pres);
	cr_assert(fabs(rho / p.rho0 - 1.0) < 1e-12, "rho = %.15g", rho);
	cr_assert(pres >= 0.0 && pres < 1e-6 * p.k * p.rho0, "p = %g", pres);
	rho = sph_ref_lattice_sum(d, 2 * d) * d * d * d;
	cr_assert(fabs(rho - 1.0098) < 1e-4, "lattice sum %.6f", rho);

	p.mass = p.rho0 * d * d * d;
	rho = sph_test_density_of(&p, x, 343, centre, NULL);
	cr_assert(fabs(rho / p.rho0 - 1.0098) < 1e-4 &&
		  fabs(rho / p.rho0 - 1.0) < 0.02, "plain mass: rho = %g", rho);
	free(x);
}

/* Pressure is k (rho - rho0) when compressed, 0 when not: a corner of
 * the lattice (7 of 26 neighbours) is under-dense and gets p = 0; the
 * centre of a lattice squeezed to 0.95 d gets the stiff-fluid pressure. */
Test(sph_ref, pressure_follows_equation_of_state)
{
	const double d = 0.01;
	double *x = sph_test_lattice(7, 0.95 * d);
	struct sph_params p;
	double rho, pres;

	sph_params_water(&p, d, 7 * d);
	rho = sph_test_density_of(&p, x, 343, 0, &pres);
	cr_assert(rho < 0.7 * p.rho0 && pres == 0.0, "corner rho %g p %g",
		  rho, pres);
	rho = sph_test_density_of(&p, x, 343, 3 + 7 * (3 + 7 * 3), &pres);
	cr_assert(rho > 1.1 * p.rho0, "squeezed rho %g", rho);
	cr_assert(fabs(pres - p.k * (rho - p.rho0)) <= 1e-12 * pres,
		  "p = %.15g, k (rho - rho0) = %.15g", pres,
		  p.k * (rho - p.rho0));
	free(x);
}

/* Random positions: n uniform in [0, side)^3, then `near` pairs (of the
 * n) placed at distances within 1e-12 relative of h in random directions,
 * so that pairs straddling r = h are many. */
static double *sph_test_random_points(size_t n, size_t near, double side,
				      double h, uint64_t seed)
{
	double *x = malloc(3 * n * sizeof *x);
	struct rng r;

	cr_assert(x && 2 * near <= n, "out of memory");
	rng_seed(&r, seed);
	for (size_t i = 0; i < 3 * n; i++)
		x[i] = side * rng_uniform(&r);
	for (size_t k = 0; k < near; k++) {
		double *a = &x[6 * k], *b = &x[6 * k + 3], u[3], len;

		do {
			for (int c = 0; c < 3; c++)
				u[c] = 2.0 * rng_uniform(&r) - 1.0;
			len = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
		} while (len < 0.1 || len > 1.0);
		len = h * (1.0 + 1e-12 * (2.0 * rng_uniform(&r) - 1.0)) / len;
		for (int c = 0; c < 3; c++)
			b[c] = a[c] + len * u[c];
	}
	return x;
}

/* Index of the first particle whose neighbour row differs between a and
 * b, or (size_t)-1 when the lists are equal element for element. */
static size_t sph_test_first_mismatch(const struct sph_nbr_list *a,
				      const struct sph_nbr_list *b)
{
	if (a->n != b->n)
		return 0;
	for (size_t i = 0; i < a->n; i++) {
		const size_t len = a->off[i + 1] - a->off[i];

		if (b->off[i + 1] - b->off[i] != len ||
		    memcmp(&a->idx[a->off[i]], &b->idx[b->off[i]],
			   len * sizeof *a->idx) != 0)
			return i;
	}
	return (size_t)-1;
}

/* Every listed pair is within h by the documented predicate, no row holds
 * i itself, rows ascend, and the relation is symmetric. */
static void sph_test_check_list(const struct sph_nbr_list *nl,
				const double *x, double h)
{
	for (size_t i = 0; i < nl->n; i++) {
		for (size_t k = nl->off[i]; k < nl->off[i + 1]; k++) {
			const size_t j = nl->idx[k];
			const double dx = x[3 * j] - x[3 * i],
				     dy = x[3 * j + 1] - x[3 * i + 1],
				     dz = x[3 * j + 2] - x[3 * i + 2];
			int back = 0;

			cr_assert(j != i && j < nl->n, "row %zu: %zu", i, j);
			cr_assert(dx * dx + dy * dy + dz * dz < h * h);
			cr_assert(k == nl->off[i] || nl->idx[k - 1] < j);
			for (size_t q = nl->off[j]; q < nl->off[j + 1]; q++)
				back |= nl->idx[q] == i;
			cr_assert(back, "%zu lists %zu but not back", i, j);
		}
	}
	cr_assert(nl->pairs == nl->off[nl->n]);
}

/* Build both lists for x and require them equal; returns the pair count. */
static size_t sph_test_grid_equals_brute(const double *x, size_t n, double h)
{
	struct sph_nbr_list brute = { 0 }, grid = { 0 };
	size_t bad, pairs;

	cr_assert(sph_ref_neighbours_brute(x, n, h, &brute) == 0);
	cr_assert(sph_ref_neighbours_grid(x, n, h, &grid) == 0);
	sph_test_check_list(&brute, x, h);
	bad = sph_test_first_mismatch(&brute, &grid);
	cr_assert(bad == (size_t)-1, "particle %zu: brute %zu neighbours, "
		  "grid %zu", bad, brute.off[bad + 1] - brute.off[bad],
		  grid.off[bad + 1] - grid.off[bad]);
	cr_assert(grid.pairs == brute.pairs);
	pairs = brute.pairs;
	sph_nbr_list_free(&brute);
	sph_nbr_list_free(&grid);
	return pairs;
}

/*
 * Random points (~50 neighbours each) with 1000 pairs within 1e-12 of h:
 * both builders decide a pair by the same expression, so they must agree
 * pair for pair; what the grid could get wrong is which cells it looks
 * in, and the pairs at the edge of the support are where a cell too
 * small or a rounding in the cell index would lose one.
 */
Test(sph_ref, grid_matches_brute_on_random_points)
{
	const size_t n = 3000;
	const double h = 0.08;
	double *x = sph_test_random_points(n, 1000, 0.5, h, 11);
	size_t pairs = sph_test_grid_equals_brute(x, n, h);

	cr_assert(pairs > 40 * n, "only %zu pairs", pairs);
	free(x);
}

/*
 * Lattices with neighbours at exactly h: with d = 0.25, h = 0.5 (binary
 * exact) a pair 2 d apart has r^2 == h^2 exactly and is left out, so the
 * interior has the 26 of its 3x3x3 block. With d = 0.01, h = 0.02 the
 * coordinates are rounded and r^2 of those pairs lands on either side
 * of h^2: the builders must still agree.
 */
Test(sph_ref, grid_matches_brute_on_lattices)
{
	double *x = sph_test_lattice(9, 0.25);
	struct sph_nbr_list nl = { 0 };
	const size_t centre = 4 + 9 * (4 + 9 * 4);

	sph_test_grid_equals_brute(x, 729, 0.5);
	cr_assert(sph_ref_neighbours_grid(x, 729, 0.5, &nl) == 0);
	cr_assert(nl.off[centre + 1] - nl.off[centre] == 26, "%zu neighbours",
		  nl.off[centre + 1] - nl.off[centre]);
	sph_nbr_list_free(&nl);
	free(x);

	x = sph_test_lattice(9, 0.01);
	sph_test_grid_equals_brute(x, 729, 0.02);
	free(x);
}

/* Neighbours of i seen through every cell of the 3x3x3 block except the
 * (+1, +1, +1) corner: the planted bug of a grid search. */
static size_t sph_test_skipping_row(const struct sph_ref_grid *g,
				    const double *x, double h, size_t i,
				    size_t *out)
{
	size_t cnt = 0;
	int c[3];

	sph_ref_grid_cell(g, &x[3 * i], c);
	for (int dz = -1; dz <= 1; dz++)
	for (int dy = -1; dy <= 1; dy++)
	for (int dx = -1; dx <= 1; dx++) {
		const int cx = c[0] + dx, cy = c[1] + dy, cz = c[2] + dz;
		size_t cell;

		if ((dx == 1 && dy == 1 && dz == 1) || cx < 0 || cy < 0 ||
		    cz < 0 || cx >= g->dim[0] || cy >= g->dim[1] ||
		    cz >= g->dim[2])
			continue;
		cell = sph_ref_grid_index(g, cx, cy, cz);
		for (size_t k = g->start[cell]; k < g->start[cell + 1]; k++) {
			const size_t j = g->order[k];
			const double ddx = x[3 * j] - x[3 * i],
				     ddy = x[3 * j + 1] - x[3 * i + 1],
				     ddz = x[3 * j + 2] - x[3 * i + 2];

			if (j == i || !(ddx * ddx + ddy * ddy + ddz * ddz <
					h * h))
				continue;
			if (out)
				out[cnt] = j;
			cnt++;
		}
	}
	return cnt;
}

static int sph_test_cmp_size(const void *a, const void *b)
{
	const size_t u = *(const size_t *)a, v = *(const size_t *)b;

	return (u > v) - (u < v);
}

/* CSR lists built with sph_test_skipping_row. */
static void sph_test_neighbours_skipping(const double *x, size_t n, double h,
					 struct sph_nbr_list *nl)
{
	struct sph_ref_grid g;

	cr_assert(sph_ref_grid_build(&g, x, n, h) == 0);
	nl->n = n;
	nl->off = calloc(n + 1, sizeof *nl->off);
	cr_assert(nl->off);
	for (size_t i = 0; i < n; i++)
		nl->off[i + 1] = nl->off[i] +
				 sph_test_skipping_row(&g, x, h, i, NULL);
	nl->pairs = nl->off[n];
	nl->idx = malloc((nl->pairs + 1) * sizeof *nl->idx);
	cr_assert(nl->idx);
	for (size_t i = 0; i < n; i++) {
		size_t *row = &nl->idx[nl->off[i]];

		qsort(row, sph_test_skipping_row(&g, x, h, i, row),
		      sizeof *row, sph_test_cmp_size);
	}
	sph_ref_grid_free(&g);
}

/* The comparison used above catches a grid that skips one neighbour
 * cell: the planted bug makes lists that differ from brute force. */
Test(sph_ref, planted_skipped_cell_is_caught)
{
	const size_t n = 3000;
	const double h = 0.08;
	double *x = sph_test_random_points(n, 1000, 0.5, h, 11);
	struct sph_nbr_list brute = { 0 }, buggy = { 0 };

	cr_assert(sph_ref_neighbours_brute(x, n, h, &brute) == 0);
	sph_test_neighbours_skipping(x, n, h, &buggy);
	cr_assert(sph_test_first_mismatch(&brute, &buggy) != (size_t)-1,
		  "a grid skipping a cell went unnoticed");
	cr_assert(buggy.pairs < brute.pairs);
	sph_nbr_list_free(&brute);
	sph_nbr_list_free(&buggy);
	free(x);
}

/* Positions that cannot be gridded are refused, leaving an empty list. */
Test(sph_ref, grid_refuses_nonfinite_and_huge_extents)
{
	double x[6] = { 0.0, 0.0, 0.0, 1.0, NAN, 0.0 };
	struct sph_nbr_list nl = { 0 };

	cr_assert(sph_ref_neighbours_grid(x, 2, 0.1, &nl) == -1);
	cr_assert(nl.off == NULL && nl.idx == NULL && nl.n == 0);
	x[4] = 1e30;
	cr_assert(sph_ref_neighbours_grid(x, 2, 0.1, &nl) == -1);
	x[3] = x[4] = 0.05;	/* now 0.0707 apart: neighbours */
	cr_assert(sph_ref_neighbours_grid(x, 2, 0.1, &nl) == 0);
	cr_assert(nl.pairs == 2 && nl.idx[0] == 1 && nl.idx[1] == 0);
	sph_nbr_list_free(&nl);
}

/* A jittered lattice squeezed to 0.9 d (so p > 0 everywhere inside) with
 * random velocities in +-0.5 m/s: a state where pressure and viscosity
 * both act. x, v are 3 * 512. */
static void sph_test_squeezed_block(double d, double *x, double *v)
{
	struct rng r;

	rng_seed(&r, 5);
	for (size_t i = 0; i < 512; i++) {
		const int cell[3] = { (int)(i % 8), (int)(i / 8 % 8),
				      (int)(i / 64) };

		for (int c = 0; c < 3; c++) {
			x[3 * i + c] = 0.9 * d * (cell[c] + 0.2 *
				       (rng_uniform(&r) - 0.5));
			v[3 * i + c] = rng_uniform(&r) - 0.5;
		}
	}
}

/* |sum_i m a_i| / sum_i m |a_i|. */
static double sph_test_net_force(const double *acc, size_t n)
{
	double net[3] = { 0, 0, 0 }, scale = 0.0;

	for (size_t i = 0; i < n; i++) {
		const double *a = &acc[3 * i];

		for (int c = 0; c < 3; c++)
			net[c] += a[c];
		scale += sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
	}
	return sqrt(net[0] * net[0] + net[1] * net[1] + net[2] * net[2]) /
	       scale;
}

/* Turn the pressure term of pair (i, j) in acc_i from the symmetrised
 * (p_i + p_j) / 2 into p_i alone: the planted bug below. */
static void sph_test_add_asymmetry(const struct sph_params *p,
				   const double *x, const double *rho,
				   const double *pres, size_t i, size_t j,
				   double acc_i[3])
{
	const double *xi = &x[3 * i], *xj = &x[3 * j];
	const double d[3] = { xi[0] - xj[0], xi[1] - xj[1], xi[2] - xj[2] };
	const double r = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
	const double s = -p->mass * (pres[i] - pres[j]) / (2.0 * rho[j]) *
			 sph_ref_spiky_dwdr(r, p->h) / r / rho[i];

	for (int c = 0; c < 3; c++)
		acc_i[c] += s * d[c];
}

/*
 * Newton's third law for pressure + viscosity: without gravity or walls,
 * sum_i m a_i = 0 up to rounding (~1e-16 per term). The planted bug, the
 * unsymmetrised pressure force -m p_i / rho_j grad W, leaves a net force
 * of order 1e-2: the check would see a lost symmetrisation.
 */
Test(sph_ref, pressure_and_viscosity_conserve_momentum)
{
	const double d = 0.01;
	double x[3 * 512], v[3 * 512], rho[512], pres[512], acc[3 * 512];
	struct sph_nbr_list nl = { 0 };
	struct sph_params p;
	double res;

	sph_params_water(&p, d, 8 * d);
	p.gravity[2] = 0.0;
	sph_test_squeezed_block(d, x, v);
	cr_assert(sph_ref_neighbours_grid(x, 512, p.h, &nl) == 0);
	sph_ref_density(&p, x, &nl, NULL, rho, pres);
	sph_ref_forces(&p, x, v, rho, pres, &nl, NULL, acc);
	res = sph_test_net_force(acc, 512);
	cr_assert(res < 1e-12, "net force / sum |f| = %.3g", res);

	/* planted: pressure p_i alone instead of (p_i + p_j) / 2 */
	for (size_t i = 0; i < 512; i++)
		for (size_t k = nl.off[i]; k < nl.off[i + 1]; k++)
			sph_test_add_asymmetry(&p, x, rho, pres, i, nl.idx[k],
					       &acc[3 * i]);
	res = sph_test_net_force(acc, 512);
	cr_assert(res > 1e-6, "planted asymmetry unseen: %.3g", res);
	sph_nbr_list_free(&nl);
}

/* A state of the 512 particles of sph_test_squeezed_block, no walls. */
static void sph_test_squeezed_state(const struct sph_params *p, double d,
				    struct sph_ref_state *s)
{
	float pos4[4 * 512], vel4[4 * 512];
	double x[3 * 512], v[3 * 512];

	sph_test_squeezed_block(d, x, v);
	for (size_t i = 0; i < 512; i++) {
		for (int c = 0; c < 3; c++) {
			pos4[4 * i + c] = (float)x[3 * i + c];
			vel4[4 * i + c] = (float)v[3 * i + c];
		}
		pos4[4 * i + 3] = vel4[4 * i + 3] = 0.0f;
	}
	cr_assert(sph_ref_state_init(s, p, pos4, vel4, 512, NULL, 0) == 0);
}

/*
 * The same law over whole steps, through sph_ref_momentum: the squeezed
 * block, no walls, flies apart for 200 steps under its pressure, and the
 * total momentum changes by exactly M g t (gravity, the only external
 * force): |P(t) - P(0) - M g t| stays below 1e-12 of M times the RMS
 * speed at the start (rounding of 512 velocity updates a step: measured
 * 2.8e-15 over the 200; one particle's pressure force left unpaired for
 * one step would move P by ~1e-3 of it).
 */
Test(sph_ref, steps_change_momentum_by_gravity_alone)
{
	const double d = 0.01;
	const int steps = 200;
	struct sph_ref_state s;
	struct sph_params p;
	double p0[3], p1[3], scale = 0.0, worst = 0.0;

	sph_params_water(&p, d, 8 * d);
	sph_test_squeezed_state(&p, d, &s);
	for (size_t k = 0; k < 3 * s.n; k++)
		scale += s.v[k] * s.v[k];
	scale = p.mass * (double)s.n * sqrt(scale / (double)s.n);
	sph_ref_momentum(&s, &p, p0);
	for (int k = 1; k <= steps; k++) {
		cr_assert(sph_ref_step(&s, &p) == 0);
		sph_ref_momentum(&s, &p, p1);
		for (int c = 0; c < 3; c++) {
			const double want = p0[c] + p.mass * (double)s.n *
					    p.gravity[c] * p.dt * k;

			worst = fmax(worst, fabs(p1[c] - want) / scale);
		}
	}
	cr_assert(s.clamps == 0 && s.nb == 0);
	cr_assert(worst < 1e-12, "momentum off M g t by %.3g of M v_rms",
		  worst);
	sph_ref_state_free(&s);
}

/* Two particles at the same point exert no pressure force (no 0/0), and
 * gravity alone remains. */
Test(sph_ref, coincident_particles_give_finite_forces)
{
	const float pos4[8] = { 0.5f, 0.5f, 0.5f, 0, 0.5f, 0.5f, 0.5f, 0 };
	struct sph_ref_state s;
	struct sph_params p;

	sph_params_water(&p, 0.01, 0.1);
	p.mass *= 10.0;		/* two particles over rest density: p > 0 */
	cr_assert(sph_ref_state_init(&s, &p, pos4, NULL, 2, NULL, 0) == 0);
	cr_assert(sph_ref_evaluate(&s, &p) == 0);
	cr_assert(s.pres[0] > 0.0 && s.nbrs.pairs == 2 && s.bnbrs.pairs == 0);
	for (int k = 0; k < 6; k++)
		cr_assert(s.acc[k] == p.gravity[k % 3], "acc[%d] = %g", k,
			  s.acc[k]);
	sph_ref_state_free(&s);
	cr_assert(s.x == NULL && s.n == 0);
}

/* Walls: a particle crossing one is put on it and its normal velocity
 * reversed and scaled by e; tangential velocity is kept. Values exact. */
Test(sph_ref, walls_clamp_and_reflect)
{
	struct sph_params p;
	double x[6] = { 0.01, 0.5, 0.5, 0.99, 0.5, 0.5 };
	double v[6] = { -2.0, 1.0, 0.0, 2.0, 0.0, 0.0 };
	const double acc[6] = { 0 };

	sph_params_water(&p, 0.01, 0.1);
	p.dt = 0.0078125;	/* 2^-7: x - 2 dt lands past the wall */
	p.wall_restitution = 0.5;
	for (int c = 0; c < 3; c++) {
		p.box_lo[c] = 0.0;
		p.box_hi[c] = 1.0;
	}
	cr_assert(sph_ref_integrate(&p, 2, acc, x, v) == 2);
	cr_assert(x[0] == 0.0 && v[0] == 1.0, "x %g v %g", x[0], v[0]);
	cr_assert(x[1] == 0.5 + 0.0078125 && v[1] == 1.0);
	cr_assert(x[3] == 1.0 && v[3] == -1.0, "x %g v %g", x[3], v[3]);
}

/* float4 positions and velocities are converted exactly, momentum is
 * m sum v, and vel4 == NULL gives a fluid at rest. Boundary positions
 * are converted exactly too (their w ignored), and psi is Akinci's
 * rho0 / sum_k W_poly6(x_b - x_k): for two boundary particles 0.5 h
 * apart, rho0 / (W(0) + W(0.5 h)) each. */
Test(sph_ref, state_init_converts_float4)
{
	const float pos4[8] = { 0.1f, 0.2f, 0.3f, 0, 1.5f, -2.25f, 3.0f, 0 };
	const float vel4[8] = { 1.0f, 0.1f, -0.5f, 0, 0, 0, 7.0f, 0 };
	const float bnd4[8] = { 0.5f, 0.5f, 0.0f, 7.0f, 0.51f, 0.5f, 0.0f, 9.0f };
	struct sph_ref_state s;
	struct sph_params p;
	double mom[3], r2, psi;

	sph_params_water(&p, 0.01, 0.1);
	cr_assert(sph_ref_state_init(&s, &p, pos4, vel4, 2, NULL, 0) == 0);
	for (int k = 0; k < 3; k++) {
		cr_assert(s.x[k] == (double)pos4[k]);
		cr_assert(s.x[3 + k] == (double)pos4[4 + k]);
		cr_assert(s.v[k] == (double)vel4[k]);
		cr_assert(s.v[3 + k] == (double)vel4[4 + k]);
	}
	sph_ref_momentum(&s, &p, mom);
	for (int k = 0; k < 3; k++)
		cr_assert(mom[k] == p.mass * (double)vel4[k] +
				    p.mass * (double)vel4[4 + k]);
	sph_ref_state_free(&s);
	cr_assert(sph_ref_state_init(&s, &p, pos4, NULL, 2, bnd4, 2) == 0);
	for (int k = 0; k < 6; k++)
		cr_assert(s.v[k] == 0.0);
	cr_assert(s.nb == 2);
	for (int k = 0; k < 3; k++) {
		cr_assert(s.xb[k] == (double)bnd4[k]);
		cr_assert(s.xb[3 + k] == (double)bnd4[4 + k]);
	}
	r2 = ((double)bnd4[4] - bnd4[0]) * ((double)bnd4[4] - bnd4[0]);
	psi = p.rho0 / (sph_ref_poly6(0.0, p.h) + sph_ref_poly6(r2, p.h));
	cr_assert(fabs(s.psi[0] - psi) <= 1e-14 * psi &&
		  fabs(s.psi[1] - psi) <= 1e-14 * psi, "psi %.15g %.15g, "
		  "want %.15g", s.psi[0], s.psi[1], psi);
	sph_ref_state_free(&s);
}

/* Column spec (NXxNYxNZ[@L]) of the scene with walls, built with seed
 * and lattice jitter (times d), and the reference's state of it. */
static void sph_test_column(const char *spec, uint64_t seed, double jitter,
			    struct sph_scene *sc, struct sph_ref_state *s)
{
	struct sph_column col;
	char err[256] = "";

	cr_assert(sph_scene_column_parse(spec, &col, err, sizeof err) == 0,
		  "%s", err);
	col.jitter = jitter;
	cr_assert(sph_scene_build(&col, seed, sc, err, sizeof err) == 0, "%s",
		  err);
	cr_assert(sc->nb > 0, "%s: no walls", spec);
	cr_assert(sph_ref_state_init(s, &sc->p, sc->pos4, sc->vel4, sc->n,
				     sc->bnd4, sc->nb) == 0);
}

/* Kinetic plus gravitational energy, m sum (v^2 / 2 - g . x), as the
 * test reads the formulation; sph_ref_energy must say the same. */
static double sph_test_mech_energy(const struct sph_ref_state *s,
				   const struct sph_params *p)
{
	double e = 0.0;

	for (size_t i = 0; i < s->n; i++) {
		const double *v = &s->v[3 * i], *x = &s->x[3 * i];

		e += p->mass * (0.5 * (v[0] * v[0] + v[1] * v[1] +
				       v[2] * v[2]) -
				(p->gravity[0] * x[0] + p->gravity[1] * x[1] +
				 p->gravity[2] * x[2]));
	}
	cr_assert(fabs(sph_ref_energy(s, p) - e) <= 1e-12 * fabs(e),
		  "sph_ref_energy %.15g, m sum (v^2 / 2 - g . x) %.15g",
		  sph_ref_energy(s, p), e);
	return e;
}

/*
 * Run `steps` steps and require, after every one: all finite, all inside
 * the box, the last-resort clamp never needed (the boundary particles
 * hold the water: sph_ref.h), and kinetic + gravitational energy never
 * above its start by more than 1e-3 M g H (H the column height): the
 * clamped pressure only stores energy, viscosity only takes it, and
 * walls at rest give back at most what the water stored against them,
 * so a rise means the scheme is making energy, the signature of an
 * instability. Returns the largest density and speed seen.
 */
static void sph_test_run_stable(struct sph_ref_state *s,
				const struct sph_params *p, int steps,
				double height, double *rho_max,
				double *speed_max)
{
	const double scale = p->mass * (double)s->n * SPH_WATER_G * height;
	const double e0 = sph_test_mech_energy(s, p);
	struct sph_ref_stats st;

	*rho_max = *speed_max = 0.0;
	for (int k = 0; k < steps; k++) {
		double e;

		cr_assert(sph_ref_step(s, p) == 0, "step %d failed", k);
		sph_ref_stats(s, p, &st);
		e = (sph_test_mech_energy(s, p) - e0) / scale;
		cr_assert(st.nonfinite == 0 && st.outside == 0,
			  "step %d: %zu not finite, %zu outside", k,
			  st.nonfinite, st.outside);
		cr_assert(s->clamps == 0, "step %d: %zu coordinates clamped",
			  k, s->clamps);
		cr_assert(e < 1e-3, "step %d: energy rose by %.3g M g H", k, e);
		*rho_max = fmax(*rho_max, st.rho_max);
		*speed_max = fmax(*speed_max, st.speed_max);
	}
}

/*
 * Water at rest in a box that just fits it (column 8x8x8@0, no jitter:
 * the lattice at the walls' gap from the floor and the four side walls),
 * relaxed by 3 s of kinetic damping, then for one second of simulated
 * time (2,084 steps of 0.48 ms): it must stay where it is.
 *   height   the mean height of the particles that started in the top
 *            layer (the free surface), within 1 % of H of where it
 *            was after relaxing, after every step;
 *   density  every particle at most 1 % above rho0 (compression, which
 *            the free surface does not hide; still water needs
 *            2 g H / c^2 = 0.75 % at the floor, the symmetric pressure
 *            gradient being half of grad p: sph_ref.h), and every
 *            particle more than h below that surface at most 1 % below
 *            rho0 (the surface itself is at ~0.8 rho0 for want of
 *            neighbours).
 * The bounds were set before measuring, not fitted to a measurement. Why relax:
 * the lattice at uniform density is not the discrete rest state. Its
 * free surface reads ~0.5 rho0, has no pressure under the clamped
 * equation of state and settles into the layers below: started on the
 * lattice, the surface sank -2.9 % H in the first second, still going
 * (-5.0 % by 2.5 s, then still, i.e. ~0.4 d), rho_max 1.021 rho0 as the
 * column dropped. Relaxed, measured: surface -0.43 % H at worst,
 * rho_max 1.0085 rho0, the least density below the surface 1.0007 rho0
 * (cr_log_info prints them). Four seconds of flow in double precision
 * take 53 s alone on two cores, and make test runs two tests at once:
 * the time limit only catches a hang.
 */
Test(sph_ref, water_at_rest_keeps_height_and_density, .timeout = 180)
{
	struct sph_scene sc;
	struct sph_ref_state s;
	struct sph_ref_stats st;
	const struct sph_params *p;
	size_t layer, top0;
	double z0 = 0.0, dz_worst = 0.0, rho_hi = 0.0, rho_lo = HUGE_VAL;
	double t_dz = 0.0, t_hi = 0.0, t_lo = 0.0;
	int steps;

	sph_test_column("8x8x8@0", 1, 0.0, &sc, &s);
	p = &sc.p;
	/* Relax first: 3 s of kinetic damping, velocities zeroed every 0.05 s
	 * (as `harness sph physics` does; why in harness/sph/sph_physics.h). */
	for (int c = 0; c < 60; c++) {
		for (long k = lround(0.05 / p->dt); k > 0; k--)
			cr_assert(sph_ref_step(&s, p) == 0);
		memset(s.v, 0, 3 * s.n * sizeof *s.v);
	}
	cr_assert(s.clamps == 0, "relaxing clamped %zu coordinates", s.clamps);
	steps = (int)ceil(1.0 / p->dt);
	layer = 8 * 8;
	top0 = sc.n - layer;
	for (size_t i = top0; i < sc.n; i++)
		z0 += s.x[3 * i + 2] / (double)layer;
	for (int k = 1; k <= steps; k++) {
		double z = 0.0, dz;

		cr_assert(sph_ref_step(&s, p) == 0, "step %d failed", k);
		cr_assert(sph_ref_evaluate(&s, p) == 0);
		sph_ref_stats(&s, p, &st);
		cr_assert(st.nonfinite == 0 && st.outside == 0 &&
			  s.clamps == 0, "step %d: %zu not finite, %zu "
			  "outside, %zu clamped", k, st.nonfinite, st.outside,
			  s.clamps);
		for (size_t i = top0; i < sc.n; i++)
			z += s.x[3 * i + 2] / (double)layer;
		dz = (z - z0) / sc.height;
		if (fabs(dz) > fabs(dz_worst))
			dz_worst = dz, t_dz = k * p->dt;
		if (st.rho_max > rho_hi)
			rho_hi = st.rho_max, t_hi = k * p->dt;
		for (size_t i = 0; i < sc.n; i++)
			if (s.x[3 * i + 2] < z - p->h && s.rho[i] < rho_lo)
				rho_lo = s.rho[i], t_lo = k * p->dt;
	}
	cr_log_info("water at rest, relaxed: surface %+.4f H (t = %.3f s), rho_max %.5f rho0 "
		    "(t = %.3f s), below the surface rho_min %.5f rho0 (t = %.3f s)\n", dz_worst,
		    t_dz, rho_hi / p->rho0, t_hi, rho_lo / p->rho0, t_lo);
	cr_expect(fabs(dz_worst) <= 0.01, "the surface moved by %+.4f H "
		  "(t = %.3f s)", dz_worst, t_dz);
	cr_expect(rho_hi <= 1.01 * p->rho0, "rho_max %.5f rho0 (t = %.3f s)",
		  rho_hi / p->rho0, t_hi);
	cr_expect(rho_lo >= 0.99 * p->rho0, "below the surface rho_min "
		  "%.5f rho0 (t = %.3f s)", rho_lo / p->rho0, t_lo);
	sph_ref_state_free(&s);
	sph_scene_free(&sc);
}

/*
 * The dam break for 1000 steps at 10 x 10 x 12 (1200 fluid particles in
 * a tank 4 widths long, 5,216 boundary particles, 0.38 s of flow;
 * measured: +8.0 % density, 3.4 m/s, energy at most 2.5e-4 M g H above
 * its start, no clamp). The 16,128 column takes too long for 1000 steps
 * here for a unit test: that run belongs to the benchmark.
 */
Test(sph_ref, dam_break_1000_steps_stays_bounded, .timeout = 60)
{
	struct sph_scene sc;
	struct sph_ref_state s;
	double rho_max, speed_max;

	sph_test_column("10x10x12", 42, SPH_SCENE_JITTER, &sc, &s);
	sph_test_run_stable(&s, &sc.p, 1000, sc.height, &rho_max, &speed_max);
	cr_assert(rho_max < 1.2 * sc.p.rho0, "rho_max %g", rho_max);
	cr_assert(speed_max < 0.5 * SPH_WATER_C, "speed %g", speed_max);
	sph_ref_state_free(&s);
	sph_scene_free(&sc);
}

/* Steps are reproducible bit for bit (threads only split the particle
 * loops, and every sum runs in list order; 2744 particles are enough for
 * the threads to start), and the physics on brute-force lists, fluid and
 * walls, is the physics on grid lists. */
Test(sph_ref, steps_are_deterministic)
{
	struct sph_scene sa, sb;
	struct sph_ref_state a, b;
	struct sph_nbr_list brute = { 0 }, cross = { 0 };
	struct sph_ref_wall wall;
	double *rho, *pres, *acc;

	sph_test_column("14x14x14", 3, SPH_SCENE_JITTER, &sa, &a);
	sph_test_column("14x14x14", 3, SPH_SCENE_JITTER, &sb, &b);
	for (int k = 0; k < 20; k++) {
		cr_assert(sph_ref_step(&a, &sa.p) == 0);
		cr_assert(sph_ref_step(&b, &sb.p) == 0);
	}
	cr_assert(memcmp(a.x, b.x, 3 * a.n * sizeof *a.x) == 0);
	cr_assert(memcmp(a.v, b.v, 3 * a.n * sizeof *a.v) == 0);

	rho = malloc(a.n * sizeof *rho);
	pres = malloc(a.n * sizeof *pres);
	acc = malloc(3 * a.n * sizeof *acc);
	cr_assert(rho && pres && acc);
	cr_assert(sph_ref_evaluate(&a, &sa.p) == 0);
	cr_assert(a.bnbrs.pairs > 0, "no particle near a wall");
	cr_assert(sph_ref_neighbours_brute(a.x, a.n, sa.p.h, &brute) == 0);
	cr_assert(sph_ref_cross_brute(a.x, a.n, a.xb, a.nb, sa.p.h, &cross) ==
		  0);
	cr_assert(cross.pairs == a.bnbrs.pairs &&
		  memcmp(cross.off, a.bnbrs.off, (a.n + 1) * sizeof *cross.off)
		  == 0 && memcmp(cross.idx, a.bnbrs.idx, cross.pairs *
				 sizeof *cross.idx) == 0,
		  "fluid-boundary lists: brute %zu pairs, grid %zu",
		  cross.pairs, a.bnbrs.pairs);
	wall = (struct sph_ref_wall){ a.nb, a.xb, a.psi, &cross };
	sph_ref_density(&sa.p, a.x, &brute, &wall, rho, pres);
	sph_ref_forces(&sa.p, a.x, a.v, rho, pres, &brute, &wall, acc);
	cr_assert(memcmp(rho, a.rho, a.n * sizeof *rho) == 0);
	cr_assert(memcmp(acc, a.acc, 3 * a.n * sizeof *acc) == 0);
	sph_nbr_list_free(&brute);
	sph_nbr_list_free(&cross);
	free(rho), free(pres), free(acc);
	sph_ref_state_free(&a);
	sph_ref_state_free(&b);
	sph_scene_free(&sa);
	sph_scene_free(&sb);
}

/*
 * The wall terms of one fluid particle i at the origin and one boundary
 * particle b at (0, 0, -0.5), written out with literal numbers (h = 1,
 * m = 1, mu = 2, psi_b = 3, rho_i = 1000): the spiky gradient
 * -45 / pi (h - r)^2 = -11.25 / pi and the viscosity Laplacian
 * 45 / pi (h - r) = 22.5 / pi at r = 0.5.
 *   friction (f_w = 0.5, v_i = (1, 0, -2), no pressure, no gravity):
 *     a = -mu f_w psi_b v_i lap / rho_i^2 = -(3 / 1e6) (22.5 / pi) v_i
 *   pressure (p_i = 100, g = (0, 0, -10), v_i = 0): the wall's pressure
 *     p_b = p_i + 2 rho_i g . (x_b - x_i) = 100 + 10000 = 10100, so
 *     a_z = -psi_b (p_i + p_b) / (2 rho_i) (-11.25 / pi) / r * 0.5 / rho_i + g_z
 *   the same with g = (0, 0, +10): p_b = 100 - 10000 < 0 is taken as 0.
 * Parameters whose default is 0 (the friction) are set non-zero here, so
 * a wrong factor on them cannot hide behind a zero.
 */
static void sph_ref_one_wall(const struct sph_params *p, const double v[3], double pres,
			     double acc[3])
{
	const double x[3] = { 0.0, 0.0, 0.0 }, xb[3] = { 0.0, 0.0, -0.5 }, psi = 3.0;
	const double rho = 1000.0;
	size_t off0[2] = { 0, 0 }, off1[2] = { 0, 1 }, idx1[1] = { 0 };
	const struct sph_nbr_list fluid = { .n = 1, .off = off0, .idx = NULL, .pairs = 0 };
	const struct sph_nbr_list walls = { .n = 1, .off = off1, .idx = idx1, .pairs = 1 };
	const struct sph_ref_wall wall = { 1, xb, &psi, &walls };

	sph_ref_forces(p, x, v, &rho, &pres, &fluid, &wall, acc);
}

Test(sph_ref, wall_friction_and_wall_pressure_by_hand)
{
	struct sph_params p;
	double acc[3];

	memset(&p, 0, sizeof p);
	p.h = 1.0;
	p.mass = 1.0;
	p.mu = 2.0;
	p.rho0 = 1000.0;
	p.wall_friction = 0.5;
	const double v[3] = { 1.0, 0.0, -2.0 }, still[3] = { 0.0, 0.0, 0.0 };
	sph_ref_one_wall(&p, v, 0.0, acc);
	for (int c = 0; c < 3; c++)
		cr_expect(fabs(acc[c] - -3e-6 * (22.5 / SPH_REF_PI) * v[c]) <= 1e-15,
			  "friction: acc[%d] = %.9g, by hand %.9g", c, acc[c],
			  -3e-6 * (22.5 / SPH_REF_PI) * v[c]);
	cr_expect(acc[0] < 0.0 && acc[2] > 0.0, "friction opposes the motion");

	p.wall_friction = 0.0;
	p.gravity[2] = -10.0;
	sph_ref_one_wall(&p, still, 100.0, acc);
	const double up = -3.0 * (100.0 + 10100.0) / 2000.0 * (-11.25 / SPH_REF_PI) / 0.5 * 0.5 / 1000.0;
	cr_expect(acc[0] == 0.0 && acc[1] == 0.0);
	cr_expect(fabs(acc[2] - (up - 10.0)) <= 1e-12, "pressure: a_z = %.12g, by hand %.12g",
		  acc[2], up - 10.0);
	cr_expect(up > 0.0, "the wall pushes the particle away from it");

	p.gravity[2] = 10.0;
	sph_ref_one_wall(&p, still, 100.0, acc);
	const double clamped = -3.0 * (100.0 + 0.0) / 2000.0 * (-11.25 / SPH_REF_PI) / 0.5 * 0.5 / 1000.0;
	cr_expect(fabs(acc[2] - (clamped + 10.0)) <= 1e-12,
		  "a negative wall pressure counts as 0: a_z = %.12g, by hand %.12g", acc[2],
		  clamped + 10.0);
}
