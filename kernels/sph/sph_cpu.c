/* sph_cpu.c - sph-cpu-grid: float SPH on the CPU over a counting-sort grid */

/*
 * Variants in this file:
 *   sph-cpu-grid  the step of kernels/sph/sph_physics.h on the CPU,
 *                 OpenMP over fluid particles, neighbours from a uniform
 *                 grid of cells of side h rebuilt by counting sort every
 *                 step; the walls' boundary particles in a second grid
 *                 over the same cells, sorted once at create.
 *
 * Layout. Fluid particles are held as float4 (x, y, z, 0) positions and
 * velocities in cell order: every build sorts them by cell (count per
 * cell, exclusive prefix sum, stable scatter of slot numbers, gather into
 * second buffers that are swapped in) and id[] remembers each one's place
 * in the caller's order. Cells are numbered x fastest, so the three cells
 * cx - 1 .. cx + 1 of a row are contiguous and the 27 cells around a
 * particle are 9 contiguous ranges of slots, in each grid. Each
 * particle's sums are its own, in slot order, so results do not depend
 * on the number of threads.
 *
 * Grid. Cells of side h (1 + SPH_CPU_GRID_MARGIN) over the box (over the
 * fluid's and walls' bounds at create on an axis where the box is open),
 * fixed at create: a particle's cell is floor((x - lo) / cell) computed
 * in double and clamped into the grid, as sph_ref_grid_cell does;
 * clamping never moves two particles' cells further apart, so a particle
 * outside the box still finds all its neighbours. A pair that passes the
 * float test r^2 < h^2 is at most ~3e-7 h longer than h, inside the
 * margin, so it is never two cells apart.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime with -std=c11 */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sph_cpu.h"
#include "sph_physics.h"

/* Cell side = h (1 + margin); see "Grid" above. */
#define SPH_CPU_GRID_MARGIN 1e-6
/* At most this many cells (4 bytes each in each start[]). */
#define SPH_CPU_MAX_CELLS ((size_t)1 << 27)

/*
 * Particle loops run on OpenMP threads (when built with -fopenmp) for
 * n >= SPH_CPU_PARALLEL_MIN; below that, starting the threads costs more
 * than they save, and tests run side by side as processes do not
 * oversubscribe the cores (as in reference/sph_ref.c).
 */
#define SPH_CPU_PARALLEL_MIN 2048
#ifdef _OPENMP
#define SPH_CPU_PRAGMA(text) _Pragma(#text)
#define SPH_CPU_PARALLEL_FOR(n) SPH_CPU_PRAGMA(omp parallel for \
	schedule(static) if ((n) >= SPH_CPU_PARALLEL_MIN))
#else
#define SPH_CPU_PARALLEL_FOR(n)
#endif

struct sph_cpu_grid {
	double lo[3];		/* corner of cell (0, 0, 0) */
	double cell;		/* side of a cell */
	int dim[3];		/* cells per side */
	uint32_t ncells;
};

/* A sorted set of particles: float4 positions by cell, and where each
 * cell's slots start (ncells + 1 entries). */
struct sph_cpu_set {
	size_t n;
	float *x;		/* 4n */
	uint32_t *start;
};

struct sph_cpu {
	size_t n, nb;
	struct sph_cpu_grid grid;
	struct sph_consts c;

	/* fluid state, slot order (sorted by cell after a build) */
	struct sph_cpu_set fluid;
	float *v, *acc;		/* 4n each */
	float *rho, *pres, *hinv;	/* n each */
	uint32_t *id;		/* caller's index of each slot */

	/* walls: sorted once, psi / m in x[4 b + 3] */
	struct sph_cpu_set wall;

	/* build scratch */
	uint32_t *cell_of, *perm, *ids;
	float *xs, *vs;

	size_t aux_bytes;
	unsigned long long candidates, neighbours, clamps;
	char err[256];
};

/* The 27 cells around a cell as 9 contiguous slot ranges of one set. */
struct sph_cpu_rows {
	int count;
	uint32_t lo[9], hi[9];
};

static double sph_cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Cell index of position x (x, y, z), clamped into the grid (NaN: 0). */
static uint32_t sph_cpu_cell_of(const struct sph_cpu_grid *g, const float *x)
{
	int c[3];

	for (int k = 0; k < 3; k++) {
		const double u = floor(((double)x[k] - g->lo[k]) / g->cell);

		c[k] = !(u >= 0.0) ? 0 : u >= g->dim[k] ? g->dim[k] - 1 : (int)u;
	}
	return (uint32_t)c[0] + (uint32_t)g->dim[0] *
	       ((uint32_t)c[1] + (uint32_t)g->dim[1] * (uint32_t)c[2]);
}

/* The non-empty slot ranges of set in the 27 cells around cell. */
static void sph_cpu_rows_at(const struct sph_cpu_grid *g, const struct sph_cpu_set *set,
			    uint32_t cell, struct sph_cpu_rows *r)
{
	const int d0 = g->dim[0], d1 = g->dim[1], d2 = g->dim[2];
	const int cx = (int)(cell % (uint32_t)d0), cy = (int)(cell / (uint32_t)d0 % (uint32_t)d1);
	const int cz = (int)(cell / ((uint32_t)d0 * (uint32_t)d1));
	const int x0 = cx > 0 ? cx - 1 : 0, x1 = cx < d0 - 1 ? cx + 1 : cx;

	r->count = 0;
	for (int z = cz - 1; z <= cz + 1; z++) {
		for (int y = cy - 1; y <= cy + 1; y++) {
			if (z < 0 || z >= d2 || y < 0 || y >= d1)
				continue;
			const uint32_t row = (uint32_t)d0 * ((uint32_t)y + (uint32_t)d1 * (uint32_t)z);
			const uint32_t lo = set->start[row + (uint32_t)x0];
			const uint32_t hi = set->start[row + (uint32_t)x1 + 1];

			if (hi > lo) {
				r->lo[r->count] = lo;
				r->hi[r->count] = hi;
				r->count++;
			}
		}
	}
}

/*
 * Counting sort of the n float4 of x by cell: start[] of the set, and
 * perm[new slot] = old slot (stable). cell_of is scratch of n.
 */
static void sph_cpu_sort(const struct sph_cpu_grid *g, const float *x, size_t n,
			 uint32_t *start, uint32_t *cell_of, uint32_t *perm)
{
	SPH_CPU_PARALLEL_FOR(n)
	for (size_t k = 0; k < n; k++)
		cell_of[k] = sph_cpu_cell_of(g, &x[4 * k]);
	memset(start, 0, ((size_t)g->ncells + 1) * sizeof *start);
	for (size_t k = 0; k < n; k++)
		start[cell_of[k] + 1]++;
	for (uint32_t c = 0; c < g->ncells; c++)
		start[c + 1] += start[c];
	for (size_t k = 0; k < n; k++)
		perm[start[cell_of[k]]++] = (uint32_t)k;
	/* the scatter advanced start[c] to the end of cell c */
	memmove(start + 1, start, (size_t)g->ncells * sizeof *start);
	start[0] = 0;
}

/* Swap two float pointers. */
static void sph_cpu_swap(float **a, float **b)
{
	float *t = *a;

	*a = *b;
	*b = t;
}

/* Sort the fluid by cell. Returns 0, or -1 (err set, nothing moved) when
 * a position is not finite. */
static int sph_cpu_build(struct sph_cpu *s)
{
	const size_t n = s->n;
	const size_t bad = sph_first_nonfinite(s->fluid.x, NULL, n);

	if (bad < n) {
		snprintf(s->err, sizeof s->err, "sph-cpu-grid: particle %u has a non-finite position",
			 s->id[bad]);
		return -1;
	}
	sph_cpu_sort(&s->grid, s->fluid.x, n, s->fluid.start, s->cell_of, s->perm);
	SPH_CPU_PARALLEL_FOR(n)
	for (size_t k = 0; k < n; k++) {
		const uint32_t old = s->perm[k];

		memcpy(&s->xs[4 * k], &s->fluid.x[4 * old], 4 * sizeof(float));
		memcpy(&s->vs[4 * k], &s->v[4 * old], 4 * sizeof(float));
		s->ids[k] = s->id[old];
	}
	sph_cpu_swap(&s->fluid.x, &s->xs);
	sph_cpu_swap(&s->v, &s->vs);
	uint32_t *t = s->id;
	s->id = s->ids;
	s->ids = t;
	return 0;
}

/* Density, pressure and hinv of fluid slot i; its candidate and
 * neighbour pairs added to *cand, *nbr. */
static void sph_cpu_density_of(struct sph_cpu *s, size_t i, unsigned long long *cand,
			       unsigned long long *nbr)
{
	const float *xi = &s->fluid.x[4 * i];
	const uint32_t cell = sph_cpu_cell_of(&s->grid, xi);
	const struct sph_cpu_set *sets[2] = { &s->fluid, &s->wall };
	float sum[2] = { 0.0f, 0.0f };

	for (int w = 0; w < 2; w++) {
		struct sph_cpu_rows r;

		sph_cpu_rows_at(&s->grid, sets[w], cell, &r);
		for (int q = 0; q < r.count; q++)
			for (uint32_t j = r.lo[q]; j < r.hi[q]; j++) {
				const float *xj = &sets[w]->x[4 * j];
				// r_ij, r^2 [8 FLOPS]
				const float dx = xj[0] - xi[0], dy = xj[1] - xi[1], dz = xj[2] - xi[2];
				const float r2 = dx * dx + dy * dy + dz * dz;
				const int self = w == 0 && j == i;

				*cand += !self;
				if (!(r2 < s->c.h2))
					continue;
				*nbr += !self;
				// sum += w_j q^3 [5 FLOPS]
				sum[w] += (w ? xj[3] : 1.0f) * sph_poly6_q3(r2, s->c.inv_h2);
			}
	}
	sph_eos(sum[0] + sum[1], s->c.c_rho, s->c.k, s->c.rho0, &s->rho[i], &s->pres[i],
		&s->hinv[i]);
}

/* Acceleration of fluid slot i from the densities of this step. */
static void sph_cpu_accel_of(struct sph_cpu *s, size_t i)
{
	const struct sph_consts *c = &s->c;
	const float *xi = &s->fluid.x[4 * i], *vi = &s->v[4 * i];
	const uint32_t cell = sph_cpu_cell_of(&s->grid, xi);
	const float pi = s->pres[i], rho_i = s->rho[i], hinv_i = s->hinv[i];
	float P[3] = { 0.0f, 0.0f, 0.0f }, V[3] = { 0.0f, 0.0f, 0.0f };
	struct sph_cpu_rows r;

	sph_cpu_rows_at(&s->grid, &s->fluid, cell, &r);
	for (int q = 0; q < r.count; q++)
		for (uint32_t j = r.lo[q]; j < r.hi[q]; j++) {
			const float *xj = &s->fluid.x[4 * j], *vj = &s->v[4 * j];
			const float d[3] = { xj[0] - xi[0], xj[1] - xi[1], xj[2] - xi[2] };
			const float r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
			float wp, wv;

			if (!(r2 < c->h2))
				continue;
			sph_fluid_weights(r2, c->h, pi, s->pres[j], s->hinv[j], &wp, &wv);
			for (int k = 0; k < 3; k++) {
				P[k] -= wp * d[k];
				V[k] += wv * (vj[k] - vi[k]);
			}
		}
	sph_cpu_rows_at(&s->grid, &s->wall, cell, &r);
	for (int q = 0; q < r.count; q++)
		for (uint32_t b = r.lo[q]; b < r.hi[q]; b++) {
			const float *xb = &s->wall.x[4 * b];
			const float d[3] = { xb[0] - xi[0], xb[1] - xi[1], xb[2] - xi[2] };
			const float r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
			float wp, wv;

			if (!(r2 < c->h2))
				continue;
			sph_wall_weights(d[0], d[1], d[2], r2, c->h, xb[3], pi, rho_i, hinv_i,
					 c->g2[0], c->g2[1], c->g2[2], c->fw, &wp, &wv);
			for (int k = 0; k < 3; k++) {
				P[k] -= wp * d[k];
				V[k] -= wv * vi[k];
			}
		}
	const float scale = c->c_force / rho_i;
	for (int k = 0; k < 3; k++)
		s->acc[4 * i + k] = sph_accel(scale, P[k], c->mu2, V[k], c->g[k]);
	s->acc[4 * i + 3] = 0.0f;
}

/* Densities (counting pairs when count), then accelerations. */
static void sph_cpu_forces(struct sph_cpu *s, int count)
{
	const size_t n = s->n;
	unsigned long long cand = 0, nbr = 0;

#ifdef _OPENMP
#pragma omp parallel for schedule(static) reduction(+ : cand, nbr) if (n >= SPH_CPU_PARALLEL_MIN)
#endif
	for (size_t i = 0; i < n; i++)
		sph_cpu_density_of(s, i, &cand, &nbr);
	if (count) {
		s->candidates = cand;
		s->neighbours = nbr;
	}
	SPH_CPU_PARALLEL_FOR(n)
	for (size_t i = 0; i < n; i++)
		sph_cpu_accel_of(s, i);
}

static void sph_cpu_integrate(struct sph_cpu *s)
{
	const struct sph_consts *c = &s->c;
	const size_t n = s->n;
	unsigned long long clamps = 0;

#ifdef _OPENMP
#pragma omp parallel for schedule(static) reduction(+ : clamps) if (n >= SPH_CPU_PARALLEL_MIN)
#endif
	for (size_t i = 0; i < n; i++)
		for (int k = 0; k < 3; k++)
			clamps += (unsigned long long)sph_advance(&s->fluid.x[4 * i + k],
								  &s->v[4 * i + k],
								  s->acc[4 * i + k], c->dt, c->e,
								  c->box_lo[k], c->box_hi[k]);
	s->clamps += clamps;
}

static int sph_cpu_steps(void *ctx, int reps, struct sph_phase_times *t)
{
	struct sph_cpu *s = ctx;

	for (int rep = 0; rep < reps; rep++) {
		const double t0 = sph_cpu_now();

		if (sph_cpu_build(s) != 0)
			return -1;
		const double t1 = sph_cpu_now();
		const size_t n = s->n;
		unsigned long long cand = 0, nbr = 0;

#ifdef _OPENMP
#pragma omp parallel for schedule(static) reduction(+ : cand, nbr) if (n >= SPH_CPU_PARALLEL_MIN)
#endif
		for (size_t i = 0; i < n; i++)
			sph_cpu_density_of(s, i, &cand, &nbr);
		const double t2 = sph_cpu_now();
		SPH_CPU_PARALLEL_FOR(n)
		for (size_t i = 0; i < n; i++)
			sph_cpu_accel_of(s, i);
		const double t3 = sph_cpu_now();
		sph_cpu_integrate(s);
		const double t4 = sph_cpu_now();
		if (t) {
			t->build_s += t1 - t0;
			t->density_s += t2 - t1;
			t->force_s += t3 - t2;
			t->integrate_s += t4 - t3;
		}
	}
	return 0;
}

static int sph_cpu_evaluate(void *ctx, int count)
{
	struct sph_cpu *s = ctx;

	if (sph_cpu_build(s) != 0)
		return -1;
	sph_cpu_forces(s, count);
	return 0;
}

static int sph_cpu_read(void *ctx, float *pos4, float *vel4, float *rho, float *acc4)
{
	struct sph_cpu *s = ctx;

	for (size_t k = 0; k < s->n; k++) {
		const size_t i = s->id[k];

		if (pos4)
			memcpy(&pos4[4 * i], &s->fluid.x[4 * k], 4 * sizeof(float));
		if (vel4)
			memcpy(&vel4[4 * i], &s->v[4 * k], 4 * sizeof(float));
		if (rho)
			rho[i] = s->rho[k];
		if (acc4)
			memcpy(&acc4[4 * i], &s->acc[4 * k], 4 * sizeof(float));
	}
	return 0;
}

static void sph_cpu_counts(void *ctx, struct sph_counts *c)
{
	const struct sph_cpu *s = ctx;

	memset(c, 0, sizeof *c);
	c->aux_bytes = s->aux_bytes;
	c->candidates = s->candidates;
	c->neighbours = s->neighbours;
	c->clamps = s->clamps;
}

static const char *sph_cpu_error(void *ctx)
{
	return ((const struct sph_cpu *)ctx)->err;
}

static void sph_cpu_destroy(void *ctx)
{
	struct sph_cpu *s = ctx;

	if (!s)
		return;
	free(s->fluid.x);
	free(s->fluid.start);
	free(s->v);
	free(s->acc);
	free(s->rho);
	free(s->pres);
	free(s->hinv);
	free(s->id);
	free(s->wall.x);
	free(s->wall.start);
	free(s->cell_of);
	free(s->perm);
	free(s->ids);
	free(s->xs);
	free(s->vs);
	free(s);
}

/*
 * The grid over the box, or over the fluid's and walls' bounds on an
 * axis where the box is open. -1 with a message when the grid would
 * need more than SPH_CPU_MAX_CELLS cells.
 */
static int sph_cpu_grid_init(struct sph_cpu_grid *g, const struct sph_params *p,
			     const struct sph_input *in, char *err, size_t errlen)
{
	double cells = 1.0;

	g->cell = p->h * (1.0 + SPH_CPU_GRID_MARGIN);
	for (int d = 0; d < 3; d++) {
		double lo = p->box_lo[d], hi = p->box_hi[d];

		if (!isfinite(lo) || !isfinite(hi)) {
			double plo = in->pos4[d], phi = in->pos4[d];

			for (size_t i = 1; i < in->n; i++) {
				plo = fmin(plo, in->pos4[4 * i + d]);
				phi = fmax(phi, in->pos4[4 * i + d]);
			}
			for (size_t b = 0; b < in->nb; b++) {
				plo = fmin(plo, in->bnd4[4 * b + d]);
				phi = fmax(phi, in->bnd4[4 * b + d]);
			}
			lo = isfinite(lo) ? lo : plo;
			hi = isfinite(hi) ? fmax(hi, lo) : fmax(phi, lo);
		}
		g->lo[d] = lo;
		g->dim[d] = (int)fmin(floor((hi - lo) / g->cell) + 1.0, 1e9);
		cells *= g->dim[d];
	}
	if (!(cells <= (double)SPH_CPU_MAX_CELLS)) {
		snprintf(err, errlen, "sph-cpu-grid: a grid of cells of %g m over the box needs more "
			 "than %zu cells", g->cell, SPH_CPU_MAX_CELLS);
		return -1;
	}
	g->ncells = (uint32_t)cells;
	return 0;
}

/* Allocate every array of s (0, or -1 when memory runs out), counting
 * what is beyond the particle state in aux_bytes. */
static int sph_cpu_alloc(struct sph_cpu *s)
{
	const size_t n = s->n, nb = s->nb, cells = (size_t)s->grid.ncells + 1;
	const size_t f4 = 4 * sizeof(float);

	s->fluid.x = malloc(n * f4);
	s->v = malloc(n * f4);
	s->acc = calloc(n, f4);
	s->rho = calloc(n, sizeof(float));
	s->pres = malloc(n * sizeof(float));
	s->hinv = malloc(n * sizeof(float));
	s->id = malloc(n * sizeof(uint32_t));
	s->fluid.start = malloc(cells * sizeof(uint32_t));
	s->wall.x = malloc((nb + 1) * f4);
	s->wall.start = malloc(cells * sizeof(uint32_t));
	s->cell_of = malloc((n > nb ? n : nb) * sizeof(uint32_t) + 1);
	s->perm = malloc((n > nb ? n : nb) * sizeof(uint32_t) + 1);
	s->ids = malloc(n * sizeof(uint32_t));
	s->xs = malloc(n * f4);
	s->vs = malloc(n * f4);
	s->aux_bytes = n * (2 * sizeof(float) + 3 * sizeof(uint32_t) + 2 * f4) +
		       2 * cells * sizeof(uint32_t) + (nb + 1) * f4;
	return s->fluid.x && s->v && s->acc && s->rho && s->pres && s->hinv && s->id &&
			       s->fluid.start && s->wall.x && s->wall.start && s->cell_of &&
			       s->perm && s->ids && s->xs && s->vs
		       ? 0
		       : -1;
}

static int sph_cpu_create(void **ctx, const struct sph_input *in, const struct sph_params *p,
			  char *err, size_t errlen)
{
	struct sph_cpu *s;
	size_t bad;

	*ctx = NULL;
	if (in->n == 0 || in->n > UINT32_MAX || in->nb > UINT32_MAX) {
		snprintf(err, errlen, "sph-cpu-grid: %zu fluid and %zu boundary particles; allowed "
			 "1 .. %u fluid, 0 .. %u boundary", in->n, in->nb, UINT32_MAX, UINT32_MAX);
		return -1;
	}
	bad = sph_first_nonfinite(in->pos4, in->vel4, in->n);
	if (bad < in->n) {
		snprintf(err, errlen, "sph-cpu-grid: particle %zu has a non-finite position or "
			 "velocity", bad);
		return -1;
	}
	if (in->nb && !in->bnd4) {
		snprintf(err, errlen, "sph-cpu-grid: %zu boundary particles without positions", in->nb);
		return -1;
	}
	bad = sph_first_nonfinite(in->bnd4, NULL, in->nb);
	if (bad < in->nb) {
		snprintf(err, errlen, "sph-cpu-grid: boundary particle %zu has a non-finite position",
			 bad);
		return -1;
	}
	s = calloc(1, sizeof *s);
	if (!s) {
		snprintf(err, errlen, "sph-cpu-grid: out of memory");
		return -1;
	}
	s->n = in->n;
	s->nb = in->nb;
	if (sph_consts_init(&s->c, p, "sph-cpu-grid", err, errlen) != 0 ||
	    sph_cpu_grid_init(&s->grid, p, in, err, errlen) != 0)
		goto out_destroy;
	if (sph_cpu_alloc(s) != 0) {
		snprintf(err, errlen, "sph-cpu-grid: out of memory for %zu particles", s->n);
		goto out_destroy;
	}
	for (size_t i = 0; i < s->n; i++) {
		for (int d = 0; d < 3; d++) {
			s->fluid.x[4 * i + d] = in->pos4[4 * i + d];
			s->v[4 * i + d] = in->vel4[4 * i + d];
		}
		s->fluid.x[4 * i + 3] = s->v[4 * i + 3] = 0.0f;
		s->id[i] = (uint32_t)i;
	}
	/* the walls, sorted once by cell through the build scratch */
	s->wall.n = s->nb;
	sph_cpu_sort(&s->grid, in->bnd4, s->nb, s->wall.start, s->cell_of, s->perm);
	for (size_t k = 0; k < s->nb; k++)
		memcpy(&s->wall.x[4 * k], &in->bnd4[4 * (size_t)s->perm[k]], 4 * sizeof(float));
	*ctx = s;
	return 0;

out_destroy:
	sph_cpu_destroy(s);
	return -1;
}

/* Surface extraction (sph.h) over the same grid: built on the current
 * positions, each fluid slot's fluid neighbours summed as the criterion
 * wants, the flagged positions compacted into rq->pos4 in slot order. */
static int sph_cpu_surface(void *ctx, struct sph_surface_request *rq)
{
	struct sph_cpu *s = ctx;
	const size_t n = s->n;
	const float com_h = (float)(rq->com_threshold * s->c.h), min_n = (float)rq->min_neighbours;
	const double t0 = sph_cpu_now();
	unsigned char *flag = s->n ? malloc(n) : NULL;

	rq->count = 0;
	if (!flag) {
		snprintf(s->err, sizeof s->err, "sph-cpu-grid: out of memory for %zu flags", n);
		return -1;
	}
	if (sph_cpu_build(s) != 0) {
		free(flag);
		return -1;
	}
	SPH_CPU_PARALLEL_FOR(n)
	for (size_t i = 0; i < n; i++) {
		const float *xi = &s->fluid.x[4 * i];
		struct sph_cpu_rows r;
		float sx = 0.0f, sy = 0.0f, sz = 0.0f, cnt = 0.0f;

		sph_cpu_rows_at(&s->grid, &s->fluid, sph_cpu_cell_of(&s->grid, xi), &r);
		for (int q = 0; q < r.count; q++)
			for (uint32_t j = r.lo[q]; j < r.hi[q]; j++) {
				const float *xj = &s->fluid.x[4 * j];
				const float dx = xj[0] - xi[0], dy = xj[1] - xi[1], dz = xj[2] - xi[2];

				if (j != i && dx * dx + dy * dy + dz * dz < s->c.h2) {
					sx += dx;
					sy += dy;
					sz += dz;
					cnt += 1.0f;
				}
			}
		flag[i] = (unsigned char)sph_surface_flag(sx, sy, sz, cnt, com_h, min_n);
	}
	for (size_t i = 0; i < n; i++) {
		if (!flag[i])
			continue;
		memcpy(&rq->pos4[4 * rq->count], &s->fluid.x[4 * i], 3 * sizeof(float));
		rq->pos4[4 * rq->count + 3] = 1.0f;
		rq->count++;
	}
	rq->seconds = sph_cpu_now() - t0;
	if (rq->flags)
		for (size_t i = 0; i < n; i++)
			rq->flags[s->id[i]] = flag[i];
	free(flag);
	return 0;
}

const struct sph_ops sph_cpu_grid_ops = {
	.surface = sph_cpu_surface,
	.create = sph_cpu_create,
	.steps = sph_cpu_steps,
	.evaluate = sph_cpu_evaluate,
	.read = sph_cpu_read,
	.counts = sph_cpu_counts,
	.error = sph_cpu_error,
	.destroy = sph_cpu_destroy,
};
