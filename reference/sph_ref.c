/* sph_ref.c - double-precision SPH oracle (Mueller, Charypar & Gross 2003) */
#include "sph_ref.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

double sph_ref_poly6(double r2, double h)
{
	const double h2 = h * h, h9 = h2 * h2 * h2 * h2 * h;
	const double q = h2 - r2;

	if (r2 >= h2)
		return 0.0;
	return 315.0 / (64.0 * SPH_REF_PI * h9) * q * q * q;
}

double sph_ref_spiky_dwdr(double r, double h)
{
	const double h3 = h * h * h;

	if (r >= h)
		return 0.0;
	return -45.0 / (SPH_REF_PI * h3 * h3) * (h - r) * (h - r);
}

double sph_ref_visc_lap(double r, double h)
{
	const double h3 = h * h * h;

	if (r >= h)
		return 0.0;
	return 45.0 / (SPH_REF_PI * h3 * h3) * (h - r);
}

double sph_ref_lattice_sum(double spacing, double h)
{
	const int reach = (int)ceil(h / spacing);
	double sum = 0.0;

	for (int a = -reach; a <= reach; a++)
		for (int b = -reach; b <= reach; b++)
			for (int c = -reach; c <= reach; c++)
				sum += sph_ref_poly6((double)(a * a + b * b +
							      c * c) *
						     spacing * spacing, h);
	return sum;
}

/*
 * The water parameter set, for particle spacing d (the 16,128 column of
 * sph_scene.c has d = 1 cm):
 *
 * - h = 2 d: on the initial lattice each particle has the 26 neighbours
 *   of its 3x3x3 block (the 6 at exactly 2 d = h are left out; the
 *   jitter brings some in); 4/3 pi (h/d)^3 = 33.5 in a disordered
 *   fluid. Kelager's set (m = 0.02, rho0 = 998.29, h = 0.0457) gives
 *   h = 1.68 d and ~20.
 * - rho0 = 1000 kg/m^3 and m = rho0 / S, S = sum_n W_poly6(|n| d) over
 *   the cubic lattice: the mass that gives the lattice exactly rest
 *   density, so the column starts at rest with p = 0 inside. The plain
 *   m = rho0 d^3 (each particle carrying its lattice cube; Kelager 2006,
 *   "Lagrangian Fluid Dynamics Using Smoothed Particle Hydrodynamics",
 *   sec. 4.1, m = rho0 V / N) differs by 1 %: S d^3 = 1.0098 at h = 2 d,
 *   and with clamped pressure that 1 % over-pressure would push the
 *   whole column outward at the start.
 * - k = c^2, the weakly compressible choice (Monaghan 1994, "Simulating
 *   free surface flows with SPH": a speed of sound ten times the fastest
 *   flow keeps density within ~1 %): the fastest water falling from a
 *   column H tall moves at sqrt(2 g H); c = max(25 m/s, 10 sqrt(2 g H))
 *   keeps the density variation, ~(v / c)^2 + g H / c^2, near 1 %. For
 *   the paper's columns (H = 0.28 m, 2.3 m/s) c = 25 m/s, k = 625 m^2/s^2;
 *   Mueller's k = 3 m^2/s^2 (Kelager's) would let such a column compress
 *   by g H / k ~ 100 %.
 * - mu = rho0 nu with nu = alpha c (h/2) / 10, alpha = 0.1: the shear
 *   viscosity that Monaghan's artificial viscosity of strength alpha
 *   amounts to in 3D (Monaghan 2005, "Smoothed particle hydrodynamics",
 *   Rep. Prog. Phys. 68: nu = alpha h c / (2 (dim + 2)), his h being
 *   half our support radius). For d = 1 cm: mu = 2.5 Pa s, near
 *   Kelager's 3.5. It damps the sound waves of the start, no more:
 *   Mueller's lap W_visc is a consistent Laplacian (its second moment
 *   (1/6) int r^2 lap W_visc = 1), so mu is the fluid's real viscosity.
 * - dt = 0.2 h / c, a CFL number of 0.4 on Monaghan's h (= h/2 here),
 *   within the 0.25-0.4 usual in weakly compressible SPH: 1.6e-4 s for
 *   d = 1 cm. 0.2 rather than the upper end because semi-implicit Euler
 *   with the stiff clamped pressure is what has to stay stable.
 *   The viscous limit 0.125 h^2 / nu = 25 h / c and the force limit
 *   0.25 sqrt(h / g) (0.011 s at d = 1 cm) are far larger.
 * - Restitution e = 0.5 at the walls: half the normal speed comes back.
 *
 * Measured with these numbers, 1000 steps: the 16,128 column stays
 * within +7.1 % of rho0 at 2.5 m/s at most; 10 x 10 x 12 columns, five
 * seeds, within +7 to +13 % and 2.7 to 6.9 m/s, the fastest being
 * particles squeezed up a vertical edge where two walls meet; nobody
 * outside the box, and kinetic + potential energy never above its start
 * by more than 2e-4 M g H.
 */
void sph_params_water(struct sph_params *p, double spacing, double height)
{
	const double d = spacing;
	const double c = fmax(SPH_WATER_C,
			      sqrt(2.0 * SPH_WATER_G * height) / SPH_WATER_MACH);

	memset(p, 0, sizeof *p);
	p->spacing = d;
	p->rho0 = SPH_WATER_RHO0;
	p->h = 2.0 * d;
	p->mass = p->rho0 / sph_ref_lattice_sum(d, p->h);
	p->k = c * c;
	p->mu = p->rho0 * SPH_WATER_ALPHA * c * (0.5 * p->h) / 10.0;
	p->dt = SPH_WATER_CFL * p->h / c;
	p->gravity[2] = -SPH_WATER_G;
	for (int c = 0; c < 3; c++) {
		p->box_lo[c] = -HUGE_VAL;
		p->box_hi[c] = HUGE_VAL;
	}
	p->wall_restitution = 0.5;
	p->wall_friction = SPH_WATER_FRICTION;
}

/*
 * The loop over particles i < n that follows runs on OpenMP threads when
 * built with -fopenmp and n >= SPH_REF_PARALLEL_MIN; below that the
 * threads' start-up costs more than they save (and tests, run side by
 * side as processes, do not oversubscribe the cores). Each i writes only
 * its own outputs, so the results do not depend on the threads.
 */
#define SPH_REF_PARALLEL_MIN 2048
#ifdef _OPENMP
#define SPH_REF_PARALLEL_FOR_N \
	_Pragma("omp parallel for if (n >= SPH_REF_PARALLEL_MIN)")
#define SPH_REF_PRAGMA(text) _Pragma(#text)
#define SPH_REF_PARALLEL_FOR_N_OF(count) \
	SPH_REF_PRAGMA(omp parallel for if ((count) >= SPH_REF_PARALLEL_MIN))
#else
#define SPH_REF_PARALLEL_FOR_N
#define SPH_REF_PARALLEL_FOR_N_OF(count)
#endif

/* |x_j - x_i|^2, the one expression that decides who is a neighbour. */
static double sph_ref_dist2(const double *xi, const double *xj)
{
	const double dx = xj[0] - xi[0], dy = xj[1] - xi[1],
		     dz = xj[2] - xi[2];

	return dx * dx + dy * dy + dz * dz;
}

void sph_nbr_list_free(struct sph_nbr_list *nl)
{
	free(nl->off);
	free(nl->idx);
	memset(nl, 0, sizeof *nl);
}

/*
 * With the neighbour count of each i in off[i + 1], turn the counts into
 * offsets and allocate idx. Returns 0, or -1 on allocation failure (nl
 * then empty).
 */
static int sph_ref_nbr_alloc(struct sph_nbr_list *nl)
{
	for (size_t i = 0; i < nl->n; i++)
		nl->off[i + 1] += nl->off[i];
	nl->pairs = nl->off[nl->n];
	nl->idx = malloc((nl->pairs + 1) * sizeof *nl->idx);
	if (!nl->idx) {
		sph_nbr_list_free(nl);
		return -1;
	}
	return 0;
}

/* Start a list for n particles with off[] zeroed. Returns 0 or -1. */
static int sph_ref_nbr_start(struct sph_nbr_list *nl, size_t n)
{
	sph_nbr_list_free(nl);
	nl->off = calloc(n + 1, sizeof *nl->off);
	if (!nl->off)
		return -1;
	nl->n = n;
	return 0;
}

/* Neighbours of i among all n, written to out (when not NULL) in
 * ascending order; returns how many. */
static size_t sph_ref_brute_row(const double *x, size_t n, double h2,
				size_t i, size_t *out)
{
	size_t cnt = 0;

	for (size_t j = 0; j < n; j++) {
		if (j == i || !(sph_ref_dist2(&x[3 * i], &x[3 * j]) < h2))
			continue;
		if (out)
			out[cnt] = j;
		cnt++;
	}
	return cnt;
}

int sph_ref_neighbours_brute(const double *x, size_t n, double h,
			     struct sph_nbr_list *nl)
{
	const double h2 = h * h;

	if (sph_ref_nbr_start(nl, n) != 0)
		return -1;
	SPH_REF_PARALLEL_FOR_N
	for (size_t i = 0; i < n; i++)
		nl->off[i + 1] = sph_ref_brute_row(x, n, h2, i, NULL);
	if (sph_ref_nbr_alloc(nl) != 0)
		return -1;
	SPH_REF_PARALLEL_FOR_N
	for (size_t i = 0; i < n; i++)
		sph_ref_brute_row(x, n, h2, i, &nl->idx[nl->off[i]]);
	return 0;
}

void sph_ref_grid_free(struct sph_ref_grid *g)
{
	free(g->start);
	free(g->order);
	memset(g, 0, sizeof *g);
}

/* Bounding box lo, hi of the positions; -1 if a coordinate is not
 * finite, else 0 (n == 0 gives lo = hi = 0). */
static int sph_ref_bounds(const double *x, size_t n, double lo[3],
			  double hi[3])
{
	for (int c = 0; c < 3; c++)
		lo[c] = hi[c] = n ? x[c] : 0.0;
	for (size_t i = 0; i < 3 * n; i++) {
		if (!isfinite(x[i]))
			return -1;
		lo[i % 3] = fmin(lo[i % 3], x[i]);
		hi[i % 3] = fmax(hi[i % 3], x[i]);
	}
	return 0;
}

void sph_ref_grid_cell(const struct sph_ref_grid *g, const double xi[3],
		       int c[3])
{
	for (int k = 0; k < 3; k++) {
		double u = floor((xi[k] - g->lo[k]) / g->cell);

		c[k] = u < 0.0 ? 0 : u >= g->dim[k] ? g->dim[k] - 1 : (int)u;
	}
}

size_t sph_ref_grid_index(const struct sph_ref_grid *g, int cx, int cy,
			  int cz)
{
	return (size_t)cx + (size_t)g->dim[0] *
	       ((size_t)cy + (size_t)g->dim[1] * (size_t)cz);
}

unsigned long long sph_ref_grid_band_pairs(const struct sph_ref_grid *g, const double *y,
					   const double xi[3], size_t self, double h, double band)
{
	const double lo = h * h * (1.0 - band), hi = h * h * (1.0 + band);
	unsigned long long count = 0;
	int c[3];
	sph_ref_grid_cell(g, xi, c);
	for (int dz = -1; dz <= 1; dz++)
		for (int dy = -1; dy <= 1; dy++)
			for (int dx = -1; dx <= 1; dx++) {
				int cx = c[0] + dx, cy = c[1] + dy, cz = c[2] + dz;
				if (cx < 0 || cy < 0 || cz < 0 || cx >= g->dim[0] || cy >= g->dim[1] ||
				    cz >= g->dim[2])
					continue;
				size_t cell = sph_ref_grid_index(g, cx, cy, cz);
				for (size_t k = g->start[cell]; k < g->start[cell + 1]; k++) {
					size_t j = g->order[k];
					double r2 = 0;
					for (int d = 0; d < 3; d++)
						r2 += (xi[d] - y[3 * j + d]) * (xi[d] - y[3 * j + d]);
					count += j != self && r2 >= lo && r2 <= hi;
				}
			}
	return count;
}

/* Cell index of particle i. */
static size_t sph_ref_grid_of(const struct sph_ref_grid *g, const double *x,
			      size_t i)
{
	int c[3];

	sph_ref_grid_cell(g, &x[3 * i], c);
	return sph_ref_grid_index(g, c[0], c[1], c[2]);
}

/* Fill g->lo, cell, dim, ncells for the bounds; -1 if too many cells. */
static int sph_ref_grid_shape(struct sph_ref_grid *g, const double lo[3],
			      const double hi[3], double h)
{
	g->cell = h * (1.0 + SPH_REF_GRID_MARGIN);
	g->ncells = 1;
	for (int c = 0; c < 3; c++) {
		double side = floor((hi[c] - lo[c]) / g->cell) + 1.0;

		if (!(side <= SPH_REF_GRID_MAX_SIDE))
			return -1;
		g->lo[c] = lo[c];
		g->dim[c] = (int)side;
		g->ncells *= (size_t)g->dim[c];
	}
	return g->ncells <= SPH_REF_GRID_MAX_CELLS ? 0 : -1;
}

int sph_ref_grid_build(struct sph_ref_grid *g, const double *x, size_t n,
		       double h)
{
	double lo[3], hi[3];
	size_t *cell_of = NULL, *next = NULL;

	memset(g, 0, sizeof *g);
	if (!(h > 0.0) || sph_ref_bounds(x, n, lo, hi) != 0 ||
	    sph_ref_grid_shape(g, lo, hi, h) != 0)
		goto out_empty;
	g->start = calloc(g->ncells + 1, sizeof *g->start);
	g->order = malloc((n + 1) * sizeof *g->order);
	cell_of = malloc((n + 1) * sizeof *cell_of);
	next = malloc((g->ncells + 1) * sizeof *next);
	if (!g->start || !g->order || !cell_of || !next)
		goto out_free_scratch;

	/* counting sort: count, prefix sums, place in ascending i */
	for (size_t i = 0; i < n; i++) {
		cell_of[i] = sph_ref_grid_of(g, x, i);
		g->start[cell_of[i] + 1]++;
	}
	for (size_t c = 0; c < g->ncells; c++)
		g->start[c + 1] += g->start[c];
	memcpy(next, g->start, g->ncells * sizeof *next);
	for (size_t i = 0; i < n; i++)
		g->order[next[cell_of[i]]++] = i;
	free(next);
	free(cell_of);
	return 0;

out_free_scratch:
	free(next);
	free(cell_of);
out_empty:
	sph_ref_grid_free(g);
	return -1;
}

static int sph_ref_cmp_size(const void *a, const void *b)
{
	const size_t u = *(const size_t *)a, v = *(const size_t *)b;

	return (u > v) - (u < v);
}

/* Neighbours of i from the 27 cells around its own, written to out (when
 * not NULL) and then sorted ascending; returns how many. */
static size_t sph_ref_grid_row(const struct sph_ref_grid *g, const double *x,
			       double h2, size_t i, size_t *out)
{
	size_t cnt = 0;
	int c[3];

	sph_ref_grid_cell(g, &x[3 * i], c);
	for (int dz = -1; dz <= 1; dz++)
	for (int dy = -1; dy <= 1; dy++)
	for (int dx = -1; dx <= 1; dx++) {
		const int cx = c[0] + dx, cy = c[1] + dy, cz = c[2] + dz;
		size_t cell;

		if (cx < 0 || cy < 0 || cz < 0 || cx >= g->dim[0] ||
		    cy >= g->dim[1] || cz >= g->dim[2])
			continue;
		cell = sph_ref_grid_index(g, cx, cy, cz);
		for (size_t k = g->start[cell]; k < g->start[cell + 1]; k++) {
			const size_t j = g->order[k];

			if (j == i ||
			    !(sph_ref_dist2(&x[3 * i], &x[3 * j]) < h2))
				continue;
			if (out)
				out[cnt] = j;
			cnt++;
		}
	}
	if (out)
		qsort(out, cnt, sizeof *out, sph_ref_cmp_size);
	return cnt;
}

int sph_ref_neighbours_grid(const double *x, size_t n, double h,
			    struct sph_nbr_list *nl)
{
	const double h2 = h * h;
	struct sph_ref_grid g;
	int rc = -1;

	sph_nbr_list_free(nl);
	if (sph_ref_grid_build(&g, x, n, h) != 0)
		return -1;
	if (sph_ref_nbr_start(nl, n) != 0)
		goto out_free_grid;
	SPH_REF_PARALLEL_FOR_N
	for (size_t i = 0; i < n; i++)
		nl->off[i + 1] = sph_ref_grid_row(&g, x, h2, i, NULL);
	if (sph_ref_nbr_alloc(nl) != 0)
		goto out_free_grid;
	SPH_REF_PARALLEL_FOR_N
	for (size_t i = 0; i < n; i++)
		sph_ref_grid_row(&g, x, h2, i, &nl->idx[nl->off[i]]);
	rc = 0;

out_free_grid:
	sph_ref_grid_free(&g);
	return rc;
}

/* Boundary neighbours of fluid particle xi among all nb, ascending, to out
 * (when not NULL); returns how many. */
static size_t sph_ref_cross_brute_row(const double *xi, const double *xb,
				      size_t nb, double h2, size_t *out)
{
	size_t cnt = 0;

	for (size_t b = 0; b < nb; b++) {
		if (!(sph_ref_dist2(xi, &xb[3 * b]) < h2))
			continue;
		if (out)
			out[cnt] = b;
		cnt++;
	}
	return cnt;
}

int sph_ref_cross_brute(const double *x, size_t n, const double *xb,
			size_t nb, double h, struct sph_nbr_list *nl)
{
	const double h2 = h * h;

	if (sph_ref_nbr_start(nl, n) != 0)
		return -1;
	SPH_REF_PARALLEL_FOR_N
	for (size_t i = 0; i < n; i++)
		nl->off[i + 1] = sph_ref_cross_brute_row(&x[3 * i], xb, nb, h2,
							 NULL);
	if (sph_ref_nbr_alloc(nl) != 0)
		return -1;
	SPH_REF_PARALLEL_FOR_N
	for (size_t i = 0; i < n; i++)
		sph_ref_cross_brute_row(&x[3 * i], xb, nb, h2,
					&nl->idx[nl->off[i]]);
	return 0;
}

/* Boundary neighbours of fluid particle xi from the 27 cells of the
 * boundary grid g around it, sorted ascending into out (when not NULL);
 * returns how many. A fluid particle outside the grid is clamped into
 * it, which never moves its cell away from a boundary particle's. */
static size_t sph_ref_cross_grid_row(const struct sph_ref_grid *g,
				     const double *xb, const double *xi,
				     double h2, size_t *out)
{
	size_t cnt = 0;
	int c[3];

	sph_ref_grid_cell(g, xi, c);
	for (int dz = -1; dz <= 1; dz++)
	for (int dy = -1; dy <= 1; dy++)
	for (int dx = -1; dx <= 1; dx++) {
		const int cx = c[0] + dx, cy = c[1] + dy, cz = c[2] + dz;
		size_t cell;

		if (cx < 0 || cy < 0 || cz < 0 || cx >= g->dim[0] ||
		    cy >= g->dim[1] || cz >= g->dim[2])
			continue;
		cell = sph_ref_grid_index(g, cx, cy, cz);
		for (size_t k = g->start[cell]; k < g->start[cell + 1]; k++) {
			const size_t b = g->order[k];

			if (!(sph_ref_dist2(xi, &xb[3 * b]) < h2))
				continue;
			if (out)
				out[cnt] = b;
			cnt++;
		}
	}
	if (out)
		qsort(out, cnt, sizeof *out, sph_ref_cmp_size);
	return cnt;
}

int sph_ref_cross_grid(const double *x, size_t n, const double *xb,
		       size_t nb, double h, struct sph_nbr_list *nl)
{
	const double h2 = h * h;
	struct sph_ref_grid g;
	int rc = -1;

	sph_nbr_list_free(nl);
	if (sph_ref_grid_build(&g, xb, nb, h) != 0)
		return -1;
	for (size_t i = 0; i < 3 * n; i++)
		if (!isfinite(x[i]))
			goto out_free_grid;
	if (sph_ref_nbr_start(nl, n) != 0)
		goto out_free_grid;
	SPH_REF_PARALLEL_FOR_N
	for (size_t i = 0; i < n; i++)
		nl->off[i + 1] = nb ? sph_ref_cross_grid_row(&g, xb, &x[3 * i],
							     h2, NULL) : 0;
	if (sph_ref_nbr_alloc(nl) != 0)
		goto out_free_grid;
	SPH_REF_PARALLEL_FOR_N
	for (size_t i = 0; i < n; i++)
		if (nb)
			sph_ref_cross_grid_row(&g, xb, &x[3 * i], h2,
					       &nl->idx[nl->off[i]]);
	rc = 0;

out_free_grid:
	sph_ref_grid_free(&g);
	return rc;
}

int sph_ref_boundary_psi(const struct sph_params *p, const double *xb,
			 size_t nb, double *psi)
{
	struct sph_nbr_list nl = { 0 };

	if (sph_ref_neighbours_grid(xb, nb, p->h, &nl) != 0)
		return -1;
	SPH_REF_PARALLEL_FOR_N_OF(nb)
	for (size_t b = 0; b < nb; b++) {
		double sum = sph_ref_poly6(0.0, p->h);	/* b itself */

		for (size_t k = nl.off[b]; k < nl.off[b + 1]; k++)
			sum += sph_ref_poly6(sph_ref_dist2(&xb[3 * b],
						&xb[3 * nl.idx[k]]), p->h);
		psi[b] = p->rho0 / sum;
	}
	sph_nbr_list_free(&nl);
	return 0;
}

/* Lateral alignments of fluid and wall lattices averaged over, a side. */
#define SPH_REF_GAP_OFFSETS 4

/*
 * The wall's density at a fluid particle a height z above the plane,
 * lateral offset (ox, oy) from a boundary particle, in units of psi:
 * sum over the plane's lattice nodes of W_poly6.
 */
static double sph_ref_plane_sum(double d, double h, double z, double ox,
				double oy)
{
	const int reach = (int)ceil(h / d) + 2;
	double sum = 0.0;

	for (int a = -reach; a <= reach; a++)
		for (int b = -reach; b <= reach; b++) {
			const double dx = a * d - ox, dy = b * d - oy;

			sum += sph_ref_poly6(dx * dx + dy * dy + z * z, h);
		}
	return sum;
}

double sph_ref_wall_gap(const struct sph_params *p, double bspacing)
{
	const double d = p->spacing, h = p->h, db = bspacing;
	const int reach = (int)ceil(h / d), offs = SPH_REF_GAP_OFFSETS;
	/* the plane's psi: rho0 over its own lattice sum (Akinci) */
	const double psi = p->rho0 / sph_ref_plane_sum(db, h, 0.0, 0.0, 0.0);
	double half = 0.0, lo = 0.25 * d, hi = 2.0 * d;

	/* the first layer's density from the fluid half-space alone */
	for (int a = -reach; a <= reach; a++)
		for (int b = -reach; b <= reach; b++)
			for (int c = 0; c <= reach; c++)
				half += p->mass * sph_ref_poly6((double)(a * a +
						b * b + c * c) * d * d, h);
	/* bisect: the wall's share falls with the height z */
	for (int it = 0; it < 60; it++) {
		const double z = 0.5 * (lo + hi);
		double wall = 0.0;

		for (int k = 0; k < offs * offs; k++)
			wall += psi * sph_ref_plane_sum(db, h, z, db * (k % offs) / offs,
							db * (k / offs) / offs);
		if (half + wall / (offs * offs) > p->rho0)
			lo = z;
		else
			hi = z;
	}
	return 0.5 * (lo + hi);
}

double sph_ref_pressure(const struct sph_params *p, double rho)
{
	return p->k * fmax(rho - p->rho0, 0.0);
}

void sph_ref_density(const struct sph_params *p, const double *x,
		     const struct sph_nbr_list *nl,
		     const struct sph_ref_wall *wall, double *rho,
		     double *pres)
{
	const double m = p->mass, h = p->h;
	const size_t n = nl->n;

	SPH_REF_PARALLEL_FOR_N
	for (size_t i = 0; i < n; i++) {
		double r = m * sph_ref_poly6(0.0, h);	/* self term */

		for (size_t k = nl->off[i]; k < nl->off[i + 1]; k++)
			r += m * sph_ref_poly6(sph_ref_dist2(&x[3 * i],
						&x[3 * nl->idx[k]]), h);
		for (size_t k = wall ? wall->nbrs->off[i] : 0;
		     wall && k < wall->nbrs->off[i + 1]; k++) {
			const size_t b = wall->nbrs->idx[k];

			r += wall->psi[b] * sph_ref_poly6(sph_ref_dist2(
					&x[3 * i], &wall->x[3 * b]), h);
		}
		rho[i] = r;
		pres[i] = sph_ref_pressure(p, r);
	}
}

/*
 * Force density on particle i from neighbour j (Mueller 2003): pressure
 * -m (p_i + p_j) / (2 rho_j) grad W_spiky(x_i - x_j) plus viscosity
 * mu m (v_j - v_i) / rho_j lap W_visc, added to f.
 */
static void sph_ref_pair_force(const struct sph_params *p, const double *x,
			       const double *v, const double *rho,
			       const double *pres, size_t i, size_t j,
			       double f[3])
{
	const double r = sqrt(sph_ref_dist2(&x[3 * i], &x[3 * j]));
	const double lap = sph_ref_visc_lap(r, p->h);
	double fp = 0.0;	/* pressure force along (x_i - x_j) / r */

	if (r > 0.0)
		fp = -p->mass * (pres[i] + pres[j]) / (2.0 * rho[j]) *
		     sph_ref_spiky_dwdr(r, p->h) / r;
	for (int c = 0; c < 3; c++)
		f[c] += fp * (x[3 * i + c] - x[3 * j + c]) +
			p->mu * p->mass * (v[3 * j + c] - v[3 * i + c]) /
			rho[j] * lap;
}

/*
 * Force density on fluid particle i from boundary particle b (Akinci
 * 2012): the mirrored pressure -psi_b p_i / rho_i grad W_spiky(x_i - x_b)
 * plus friction mu f_w psi_b (0 - v_i) / rho_i lap W_visc, added to f.
 */
static void sph_ref_wall_force(const struct sph_params *p, const double *xi,
			       const double *vi, double rho_i, double pres_i,
			       const double *xb, double psi_b, double f[3])
{
	const double r = sqrt(sph_ref_dist2(xi, xb));
	const double lap = sph_ref_visc_lap(r, p->h);
	double pres_b = pres_i, fp = 0.0; /* fp: pressure force along (x_i - x_b) / r */

	for (int c = 0; c < 3; c++)
		pres_b += 2.0 * rho_i * p->gravity[c] * (xb[c] - xi[c]);
	pres_b = fmax(pres_b, 0.0);
	if (r > 0.0)
		fp = -psi_b * (pres_i + pres_b) / (2.0 * rho_i) *
		     sph_ref_spiky_dwdr(r, p->h) / r;
	for (int c = 0; c < 3; c++)
		f[c] += fp * (xi[c] - xb[c]) -
			p->mu * p->wall_friction * psi_b * vi[c] / rho_i * lap;
}

void sph_ref_forces(const struct sph_params *p, const double *x,
		    const double *v, const double *rho, const double *pres,
		    const struct sph_nbr_list *nl,
		    const struct sph_ref_wall *wall, double *acc)
{
	const size_t n = nl->n;

	SPH_REF_PARALLEL_FOR_N
	for (size_t i = 0; i < n; i++) {
		double f[3] = { 0.0, 0.0, 0.0 };

		for (size_t k = nl->off[i]; k < nl->off[i + 1]; k++)
			sph_ref_pair_force(p, x, v, rho, pres, i, nl->idx[k],
					   f);
		for (size_t k = wall ? wall->nbrs->off[i] : 0;
		     wall && k < wall->nbrs->off[i + 1]; k++) {
			const size_t b = wall->nbrs->idx[k];

			sph_ref_wall_force(p, &x[3 * i], &v[3 * i], rho[i],
					   pres[i], &wall->x[3 * b],
					   wall->psi[b], f);
		}
		for (int c = 0; c < 3; c++)
			acc[3 * i + c] = f[c] / rho[i] + p->gravity[c];
	}
}

size_t sph_ref_integrate(const struct sph_params *p, size_t n,
			 const double *acc, double *x, double *v)
{
	size_t clamps = 0;

	for (size_t k = 0; k < 3 * n; k++) {
		const int c = (int)(k % 3);

		v[k] += acc[k] * p->dt;
		x[k] += v[k] * p->dt;
		if (x[k] < p->box_lo[c]) {
			x[k] = p->box_lo[c];
			clamps++;
			if (v[k] < 0.0)
				v[k] *= -p->wall_restitution;
		} else if (x[k] > p->box_hi[c]) {
			x[k] = p->box_hi[c];
			clamps++;
			if (v[k] > 0.0)
				v[k] *= -p->wall_restitution;
		}
	}
	return clamps;
}

int sph_ref_state_init(struct sph_ref_state *s, const struct sph_params *p,
		       const float *pos4, const float *vel4, size_t n,
		       const float *bnd4, size_t nb)
{
	memset(s, 0, sizeof *s);
	s->n = n;
	s->nb = nb;
	s->x = calloc(3 * n + 1, sizeof *s->x);	/* +1: n == 0 is fine */
	s->v = calloc(3 * n + 1, sizeof *s->v);
	s->rho = calloc(n + 1, sizeof *s->rho);
	s->pres = calloc(n + 1, sizeof *s->pres);
	s->acc = calloc(3 * n + 1, sizeof *s->acc);
	s->xb = calloc(3 * nb + 1, sizeof *s->xb);
	s->psi = calloc(nb + 1, sizeof *s->psi);
	if (!s->x || !s->v || !s->rho || !s->pres || !s->acc || !s->xb ||
	    !s->psi)
		goto out_free;
	for (size_t i = 0; i < n; i++) {
		for (int c = 0; c < 3; c++) {
			s->x[3 * i + c] = pos4[4 * i + c];
			s->v[3 * i + c] = vel4 ? vel4[4 * i + c] : 0.0;
		}
	}
	for (size_t b = 0; b < nb; b++)
		for (int c = 0; c < 3; c++)
			s->xb[3 * b + c] = bnd4[4 * b + c];
	if (nb && sph_ref_boundary_psi(p, s->xb, nb, s->psi) != 0)
		goto out_free;
	return 0;

out_free:
	sph_ref_state_free(s);
	return -1;
}

void sph_ref_state_free(struct sph_ref_state *s)
{
	free(s->x);
	free(s->v);
	free(s->rho);
	free(s->pres);
	free(s->acc);
	free(s->xb);
	free(s->psi);
	sph_nbr_list_free(&s->nbrs);
	sph_nbr_list_free(&s->bnbrs);
	memset(s, 0, sizeof *s);
}

int sph_ref_evaluate(struct sph_ref_state *s, const struct sph_params *p)
{
	const struct sph_ref_wall wall = { s->nb, s->xb, s->psi, &s->bnbrs };

	if (sph_ref_neighbours_grid(s->x, s->n, p->h, &s->nbrs) != 0 ||
	    sph_ref_cross_grid(s->x, s->n, s->xb, s->nb, p->h,
			       &s->bnbrs) != 0)
		return -1;
	sph_ref_density(p, s->x, &s->nbrs, &wall, s->rho, s->pres);
	sph_ref_forces(p, s->x, s->v, s->rho, s->pres, &s->nbrs, &wall,
		       s->acc);
	return 0;
}

int sph_ref_step(struct sph_ref_state *s, const struct sph_params *p)
{
	if (sph_ref_evaluate(s, p) != 0)
		return -1;
	s->clamps += sph_ref_integrate(p, s->n, s->acc, s->x, s->v);
	return 0;
}

void sph_ref_stats(const struct sph_ref_state *s, const struct sph_params *p,
		   struct sph_ref_stats *st)
{
	memset(st, 0, sizeof *st);
	st->rho_min = s->n ? s->rho[0] : 0.0;
	st->rho_max = st->rho_min;
	for (size_t i = 0; i < s->n; i++) {
		const double *x = &s->x[3 * i], *v = &s->v[3 * i];
		const double speed = sqrt(v[0] * v[0] + v[1] * v[1] +
					  v[2] * v[2]);
		int out = 0;

		st->rho_min = fmin(st->rho_min, s->rho[i]);
		st->rho_max = fmax(st->rho_max, s->rho[i]);
		st->rho_mean += s->rho[i] / (double)s->n;
		if (!isfinite(speed) || !isfinite(x[0] + x[1] + x[2])) {
			st->nonfinite++;
			continue;
		}
		st->speed_max = fmax(st->speed_max, speed);
		for (int c = 0; c < 3; c++)
			out |= !(x[c] >= p->box_lo[c] && x[c] <= p->box_hi[c]);
		st->outside += (size_t)out;
	}
}

void sph_ref_momentum(const struct sph_ref_state *s,
		      const struct sph_params *p, double mom[3])
{
	mom[0] = mom[1] = mom[2] = 0.0;
	for (size_t i = 0; i < s->n; i++)
		for (int c = 0; c < 3; c++)
			mom[c] += p->mass * s->v[3 * i + c];
}

double sph_ref_energy(const struct sph_ref_state *s,
		      const struct sph_params *p)
{
	double e = 0.0;

	for (size_t i = 0; i < s->n; i++)
		for (int c = 0; c < 3; c++)
			e += p->mass * (0.5 * s->v[3 * i + c] * s->v[3 * i + c] -
					p->gravity[c] * s->x[3 * i + c]);
	return e;
}
