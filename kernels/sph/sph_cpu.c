/* sph_cpu.c - sph-cpu-grid: float SPH on the CPU over a counting-sort grid */

/*
 * Variants in this file:
 *   sph-cpu-grid  the step of reference/sph_ref.c in float, OpenMP over
 *                 particles, neighbours from a uniform grid rebuilt by
 *                 counting sort every step.
 *
 * Layout. The particles are held as structure of arrays (x, y, z, vx,
 * vy, vz, rho, ax, ay, az) in cell order: every build sorts them by cell
 * (count per cell, exclusive prefix sum, stable scatter of slot numbers,
 * then a parallel gather into second buffers that are swapped in) and
 * id[] remembers each one's place in the caller's order. Cells are
 * numbered x fastest, so the three cells cx - 1 .. cx + 1 of one row are
 * contiguous in the sorted arrays and the 27 cells around a particle are
 * 9 contiguous ranges of slots, read four at a time into SSE2 lanes
 * (plain C loops off x86-64). OpenMP shares the particles in contiguous
 * blocks; each particle's sums are its own, in lane order, so results do
 * not depend on the number of threads.
 *
 * Grid. Cells of side h (1 + SPH_CPU_GRID_MARGIN) over the box, fixed at
 * create: a particle's cell is floor((x - lo) / cell) computed in double
 * (off by ~1e-9 of a cell at most) and clamped into the grid, as
 * sph_ref_grid_cell does; clamping never moves two particles' cells
 * further apart, so a particle outside the box (or beyond the particles'
 * bounds on an open axis) still finds all its neighbours. A pair that
 * passes the float test r^2 < h^2 is at most ~3e-7 h longer than h, well
 * inside the margin, so such a pair is never two cells apart.
 *
 * Physics, per particle i, in float (constants folded in double first):
 *   rho_i = m 315 / (64 pi h^3) sum_j (1 - r^2 / h^2)^3   (j = i included)
 *   p_i   = k max(rho_i - rho0, 0)
 *   a_i   = m 45 / (pi h^6) / rho_i sum_j [ (p_i + p_j) / (2 rho_j)
 *             (h - r)^2 / r (x_i - x_j) + 2 mu (h - r) / (2 rho_j)
 *             (v_j - v_i) ] + g
 * which is sph_ref_density and sph_ref_forces with the kernels written
 * out. The force loop runs over every candidate, i itself included:
 * weights are zeroed beyond h, the pressure weight is zeroed at r = 0
 * (coincident particles, as in the reference), and the viscosity term of
 * i itself is exactly zero (v_i - v_i). The walls are the box rounded
 * inward to floats, so a clamped particle is inside the box in double.
 *
 * Accuracy against the reference on the same positions: densities within
 * ~3e-7 relative (float sums of ~30 terms). Accelerations are within
 * ~2e-6 of their RMS given the reference's densities, but the pressure
 * k (rho - rho0) turns a density rounding of eps rho into a pressure
 * error k eps rho, which moves a particle whose neighbours do not cancel
 * it (at the surface) by up to ~k eps / h: measured, 1.6e-4 of the RMS
 * acceleration at worst and 3e-5 RMS (16,128 column, d = 1 cm, after 50
 * steps). Any float density has this; a double one would not.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime with -std=c11 */

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sph_cpu.h"

/* SSE2 lanes on x86-64 (-DSPH_CPU_NO_SIMD: the plain C loops instead). */
#if defined(__SSE2__) && !defined(SPH_CPU_NO_SIMD)
#define SPH_CPU_SSE 1
#include <emmintrin.h>
#else
#define SPH_CPU_SSE 0
#endif

/* The per-group helpers go inline into their loops at any -O, so that
 * their vectors stay in registers. */
#define SPH_CPU_INLINE static inline __attribute__((always_inline))

/* Cell side = h (1 + margin); see "Grid" above. */
#define SPH_CPU_GRID_MARGIN 1e-6
/* At most this many cells (4 bytes each in start[]). */
#define SPH_CPU_MAX_CELLS ((size_t)1 << 27)
/* Zeroed floats after slot n - 1 of the arrays a group of 4 lanes reads
 * (x, v, pres, hir), so the last group of the last cell stays inside. */
#define SPH_CPU_PAD 4

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

/* The parameters as the float loops use them. */
struct sph_cpu_consts {
	float h, h2, inv_h2;
	float c_rho;		/* m 315 / (64 pi h^3) */
	float c_force;		/* m 45 / (pi h^6) */
	float mu2;		/* 2 mu: the viscosity weight uses 1 / (2 rho_j) */
	float rho0, k, dt, e;
	float g[3], box_lo[3], box_hi[3];
};

struct sph_cpu {
	size_t n;
	struct sph_cpu_grid grid;
	struct sph_cpu_consts c;

	/* particle state, slot order (sorted by cell after a build) */
	float *x[3], *v[3], *rho, *a[3];
	uint32_t *id;		/* caller's index of each slot */

	/* scratch */
	float *pres;		/* p_j */
	float *hir;		/* 1 / (2 rho_j) */
	uint32_t *cell;		/* cell of each slot */
	uint32_t *start;	/* ncells + 1: cell c holds slots start[c] .. */
	uint32_t *cell_new;	/* build: cell of each slot before the sort */
	uint32_t *perm;		/* build: old slot of each new slot */
	float *xs[3], *vs[3];	/* build: the reordered state */
	uint32_t *ids;

	void *arena;		/* every array above, from one allocation */
	size_t aux_bytes;
	unsigned long long candidates, neighbours;
	char err[256];
};

/* The 27 cells around cell as contiguous slot ranges. */
struct sph_cpu_rows {
	uint32_t cell;		/* UINT32_MAX: none yet */
	int count;
	uint32_t lo[9], hi[9];
};

static double sph_cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Cell index of position (x, y, z), clamped into the grid (NaN: 0). */
static uint32_t sph_cpu_cell_of(const struct sph_cpu_grid *g, float x,
				float y, float z)
{
	const float xi[3] = { x, y, z };
	int c[3];

	for (int k = 0; k < 3; k++) {
		const double u = floor(((double)xi[k] - g->lo[k]) / g->cell);

		c[k] = !(u >= 0.0) ? 0 : u >= g->dim[k] ? g->dim[k] - 1
							 : (int)u;
	}
	return (uint32_t)c[0] +
	       (uint32_t)g->dim[0] * ((uint32_t)c[1] +
				      (uint32_t)g->dim[1] * (uint32_t)c[2]);
}

/* Make r the slot ranges of the (up to) 27 cells around cell, empty
 * ones left out; nothing to do when r already holds them. */
static void sph_cpu_rows_at(const struct sph_cpu *s, uint32_t cell,
			    struct sph_cpu_rows *r)
{
	const int d0 = s->grid.dim[0], d1 = s->grid.dim[1],
		  d2 = s->grid.dim[2];
	int cx, cy, cz, x0, x1;

	if (r->cell == cell)
		return;
	cx = (int)(cell % (uint32_t)d0);
	cy = (int)(cell / (uint32_t)d0 % (uint32_t)d1);
	cz = (int)(cell / ((uint32_t)d0 * (uint32_t)d1));
	x0 = cx > 0 ? cx - 1 : 0;
	x1 = cx < d0 - 1 ? cx + 1 : cx;
	r->cell = cell;
	r->count = 0;
	for (int z = cz - 1; z <= cz + 1; z++) {
		for (int y = cy - 1; y <= cy + 1; y++) {
			uint32_t row, lo, hi;

			if (z < 0 || z >= d2 || y < 0 || y >= d1)
				continue;
			row = (uint32_t)d0 * ((uint32_t)y + (uint32_t)d1 *
					      (uint32_t)z);
			lo = s->start[row + (uint32_t)x0];
			hi = s->start[row + (uint32_t)x1 + 1];
			if (hi > lo) {
				r->lo[r->count] = lo;
				r->hi[r->count] = hi;
				r->count++;
			}
		}
	}
}

/*
 * Sort the particles by cell: cell_new of every slot (and a check that
 * positions are finite), counts, prefix sums, a stable scatter of slot
 * numbers, and a gather of the state into the second buffers, which
 * become the state. Returns 0, or -1 when a position is not finite
 * (nothing moved).
 */
static int sph_cpu_build(struct sph_cpu *s)
{
	const size_t n = s->n;
	const uint32_t ncells = s->grid.ncells;
	uint32_t *start = s->start;
	size_t bad = SIZE_MAX;	/* smallest caller index with a NaN or inf */

#ifdef _OPENMP
#pragma omp parallel for schedule(static) reduction(min : bad) \
	if (n >= SPH_CPU_PARALLEL_MIN)
#endif
	for (size_t k = 0; k < n; k++) {
		const float x = s->x[0][k], y = s->x[1][k], z = s->x[2][k];

		if (!isfinite(x) || !isfinite(y) || !isfinite(z))
			bad = bad < s->id[k] ? bad : s->id[k];
		s->cell_new[k] = sph_cpu_cell_of(&s->grid, x, y, z);
	}
	if (bad != SIZE_MAX) {
		snprintf(s->err, sizeof s->err,
			 "sph-cpu-grid: particle %zu has a non-finite position",
			 bad);
		return -1;
	}

	memset(start, 0, ((size_t)ncells + 1) * sizeof *start);
	for (size_t k = 0; k < n; k++)
		start[s->cell_new[k] + 1]++;
	for (uint32_t c = 0; c < ncells; c++)
		start[c + 1] += start[c];
	for (size_t k = 0; k < n; k++)
		s->perm[start[s->cell_new[k]]++] = (uint32_t)k;
	/* the scatter advanced start[c] to the end of cell c */
	memmove(start + 1, start, (size_t)ncells * sizeof *start);
	start[0] = 0;

	SPH_CPU_PARALLEL_FOR(n)
	for (size_t k = 0; k < n; k++) {
		const uint32_t old = s->perm[k];

		for (int c = 0; c < 3; c++) {
			s->xs[c][k] = s->x[c][old];
			s->vs[c][k] = s->v[c][old];
		}
		s->ids[k] = s->id[old];
		s->cell[k] = s->cell_new[old];
	}
	for (int c = 0; c < 3; c++) {
		float *t = s->x[c];

		s->x[c] = s->xs[c];
		s->xs[c] = t;
		t = s->v[c];
		s->v[c] = s->vs[c];
		s->vs[c] = t;
	}
	{
		uint32_t *t = s->id;

		s->id = s->ids;
		s->ids = t;
	}
	return 0;
}

/* Pressure and viscosity sums of one particle, before the factor
 * m 45 / (pi h^6). */
struct sph_cpu_force_sum {
	float px, py, pz;	/* sum (p_i + p_j) / (2 rho_j) (h - r)^2 / r
				 *     (x_i - x_j) */
	float vx, vy, vz;	/* sum (h - r) / (2 rho_j) (v_j - v_i) */
};

#if SPH_CPU_SSE

/*
 * SSE2 (every x86-64 CPU): slots j .. j + 3 in the four lanes. A range's
 * last group reads past its end, into the next cells or the padding
 * after slot n - 1 (SPH_CPU_PAD zeros), and masks those lanes off; every
 * weight is also masked, so lanes beyond h add exact zeros. sqrt and
 * divide are the correctly rounded SSE instructions, as in scalar code.
 * Vectors are named x, y, z, never indexed, so that they stay in
 * registers at -O2 too (which does not unroll loops over components).
 */

/* Three components, one per lane group. */
struct sph_cpu_v3 {
	__m128 x, y, z;
};

/* Lanes 0 .. k - 1 set, for a group of min(k, 4) live slots. */
static const uint32_t sph_cpu_live_bits[5][4] = {
	{ 0, 0, 0, 0 },
	{ 0xffffffffu, 0, 0, 0 },
	{ 0xffffffffu, 0xffffffffu, 0, 0 },
	{ 0xffffffffu, 0xffffffffu, 0xffffffffu, 0 },
	{ 0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu },
};

SPH_CPU_INLINE __m128 sph_cpu_live(uint32_t k)
{
	return _mm_loadu_ps((const float *)sph_cpu_live_bits[k < 4 ? k : 4]);
}

SPH_CPU_INLINE float sph_cpu_hsum(__m128 v)
{
	const __m128 t = _mm_add_ps(v, _mm_movehl_ps(v, v));

	return _mm_cvtss_f32(_mm_add_ss(t, _mm_shuffle_ps(t, t, 1)));
}

/* Element i of the three arrays a[3] in all four lanes. */
SPH_CPU_INLINE struct sph_cpu_v3 sph_cpu_broadcast(float *const a[3],
						   size_t i)
{
	const struct sph_cpu_v3 v = { _mm_set1_ps(a[0][i]),
				      _mm_set1_ps(a[1][i]),
				      _mm_set1_ps(a[2][i]) };

	return v;
}

/* r^2 from xi to slots j .. j + 3, and x_j - x_i in *d. */
SPH_CPU_INLINE __m128 sph_cpu_dist2_4(const struct sph_cpu *s, uint32_t j,
				      const struct sph_cpu_v3 *xi,
				      struct sph_cpu_v3 *d)
{
	// r_ij [3 FLOPS]
	d->x = _mm_sub_ps(_mm_loadu_ps(&s->x[0][j]), xi->x);
	d->y = _mm_sub_ps(_mm_loadu_ps(&s->x[1][j]), xi->y);
	d->z = _mm_sub_ps(_mm_loadu_ps(&s->x[2][j]), xi->z);
	// r^2 [5 FLOPS]
	return _mm_add_ps(_mm_add_ps(_mm_mul_ps(d->x, d->x),
				     _mm_mul_ps(d->y, d->y)),
			  _mm_mul_ps(d->z, d->z));
}

/* (1 - r^2 / h^2)^3 from xi to slots j .. j + 3, zero beyond h and in
 * the lanes not in lanes. */
SPH_CPU_INLINE __m128 sph_cpu_poly6_4(const struct sph_cpu *s, uint32_t j,
				      const struct sph_cpu_v3 *xi,
				      __m128 lanes)
{
	struct sph_cpu_v3 d;
	const __m128 r2 = sph_cpu_dist2_4(s, j, xi, &d);
	const __m128 in = _mm_and_ps(lanes,
				     _mm_cmplt_ps(r2, _mm_set1_ps(s->c.h2)));
	// 1 - r^2 / h^2 [2 FLOPS]
	const __m128 q = _mm_sub_ps(_mm_set1_ps(1.0f),
				    _mm_mul_ps(r2, _mm_set1_ps(s->c.inv_h2)));

	// q^3 where r < h [2 FLOPS]
	return _mm_and_ps(in, _mm_mul_ps(_mm_mul_ps(q, q), q));
}

/* sum over the rows of (1 - r^2 / h^2)^3 for r < h (i itself included). */
static float sph_cpu_poly6_sum(const struct sph_cpu *s,
			       const struct sph_cpu_rows *r, size_t i)
{
	const struct sph_cpu_v3 xi = sph_cpu_broadcast(s->x, i);
	__m128 sum = _mm_setzero_ps();

	// sum += q^3 [1 FLOP]
	for (int k = 0; k < r->count; k++)
		for (uint32_t j = r->lo[k]; j < r->hi[k]; j += 4)
			sum = _mm_add_ps(sum, sph_cpu_poly6_4(s, j, &xi,
					 sph_cpu_live(r->hi[k] - j)));
	return sph_cpu_hsum(sum);
}

/* How many of slots j .. j + 3 in lanes are within h of xi. */
SPH_CPU_INLINE unsigned sph_cpu_near_4(const struct sph_cpu *s, uint32_t j,
				       const struct sph_cpu_v3 *xi,
				       __m128 lanes)
{
	struct sph_cpu_v3 d;
	const __m128 r2 = sph_cpu_dist2_4(s, j, xi, &d);
	const int bits = _mm_movemask_ps(_mm_and_ps(lanes,
				_mm_cmplt_ps(r2, _mm_set1_ps(s->c.h2))));

	return (unsigned)((bits & 1) + (bits >> 1 & 1) + (bits >> 2 & 1) +
			  (bits >> 3 & 1));
}

/* Slots of the rows with r^2 < h^2 (i itself included). */
static unsigned sph_cpu_count_near(const struct sph_cpu *s,
				   const struct sph_cpu_rows *r, size_t i)
{
	const struct sph_cpu_v3 xi = sph_cpu_broadcast(s->x, i);
	unsigned count = 0;

	for (int k = 0; k < r->count; k++)
		for (uint32_t j = r->lo[k]; j < r->hi[k]; j += 4)
			count += sph_cpu_near_4(s, j, &xi,
						sph_cpu_live(r->hi[k] - j));
	return count;
}

/* The six sums of sph_cpu_force_sum, one per lane, and what they need
 * of particle i. */
struct sph_cpu_force_acc {
	struct sph_cpu_v3 p, v;
	struct sph_cpu_v3 xi, vi;
	__m128 pi;
};

/* Add the pairs of i with slots j .. j + 3 (those in lanes) to acc. */
SPH_CPU_INLINE void sph_cpu_force_4(const struct sph_cpu *s, uint32_t j,
				    __m128 lanes, struct sph_cpu_force_acc *acc)
{
	const __m128 h = _mm_set1_ps(s->c.h), h2 = _mm_set1_ps(s->c.h2);
	struct sph_cpu_v3 d;
	__m128 r2, in, r, hr, hir, wp, wv;

	r2 = sph_cpu_dist2_4(s, j, &acc->xi, &d);
	in = _mm_and_ps(lanes, _mm_cmplt_ps(r2, h2));
	if (!_mm_movemask_ps(in))
		return;
	// r [1 FLOP]
	r = _mm_sqrt_ps(r2);
	// h - r where r < h [1 FLOP]
	hr = _mm_and_ps(in, _mm_sub_ps(h, r));
	hir = _mm_loadu_ps(&s->hir[j]);
	// (p_i + p_j) / (2 rho_j) (h - r)^2 / r where 0 < r < h: the
	// division by r = 0 gives inf or NaN, masked to 0 [5 FLOPS]
	wp = _mm_div_ps(_mm_mul_ps(_mm_mul_ps(_mm_add_ps(acc->pi,
			_mm_loadu_ps(&s->pres[j])), hir), _mm_mul_ps(hr, hr)), r);
	wp = _mm_and_ps(_mm_and_ps(in, _mm_cmpgt_ps(r2, _mm_setzero_ps())),
			wp);
	// (h - r) / (2 rho_j) [1 FLOP]
	wv = _mm_mul_ps(hr, hir);
	// pressure sum += wp (x_i - x_j) [6 FLOPS]
	acc->p.x = _mm_sub_ps(acc->p.x, _mm_mul_ps(wp, d.x));
	acc->p.y = _mm_sub_ps(acc->p.y, _mm_mul_ps(wp, d.y));
	acc->p.z = _mm_sub_ps(acc->p.z, _mm_mul_ps(wp, d.z));
	// viscosity sum += wv (v_j - v_i) [9 FLOPS]
	acc->v.x = _mm_add_ps(acc->v.x, _mm_mul_ps(wv, _mm_sub_ps(
			_mm_loadu_ps(&s->v[0][j]), acc->vi.x)));
	acc->v.y = _mm_add_ps(acc->v.y, _mm_mul_ps(wv, _mm_sub_ps(
			_mm_loadu_ps(&s->v[1][j]), acc->vi.y)));
	acc->v.z = _mm_add_ps(acc->v.z, _mm_mul_ps(wv, _mm_sub_ps(
			_mm_loadu_ps(&s->v[2][j]), acc->vi.z)));
}

/* The pressure and viscosity sums of i over the rows. */
static void sph_cpu_force_sum(const struct sph_cpu *s,
			      const struct sph_cpu_rows *r, size_t i,
			      struct sph_cpu_force_sum *f)
{
	const __m128 zero = _mm_setzero_ps();
	struct sph_cpu_force_acc acc = {
		.p = { zero, zero, zero },
		.v = { zero, zero, zero },
		.xi = sph_cpu_broadcast(s->x, i),
		.vi = sph_cpu_broadcast(s->v, i),
		.pi = _mm_set1_ps(s->pres[i]),
	};

	for (int k = 0; k < r->count; k++)
		for (uint32_t j = r->lo[k]; j < r->hi[k]; j += 4)
			sph_cpu_force_4(s, j, sph_cpu_live(r->hi[k] - j),
					&acc);
	f->px = sph_cpu_hsum(acc.p.x);
	f->py = sph_cpu_hsum(acc.p.y);
	f->pz = sph_cpu_hsum(acc.p.z);
	f->vx = sph_cpu_hsum(acc.v.x);
	f->vy = sph_cpu_hsum(acc.v.y);
	f->vz = sph_cpu_hsum(acc.v.z);
}

#else /* !SPH_CPU_SSE */

/* Plain C, one slot at a time, for CPUs other than x86-64 (and with
 * -DSPH_CPU_NO_SIMD): the same arithmetic per pair as the SSE lanes, one
 * running sum per particle instead of four. */

/* r^2 from particle i to slot j, and x_j - x_i in d[3]. */
SPH_CPU_INLINE float sph_cpu_dist2(const struct sph_cpu *s, size_t i,
				   uint32_t j, float d[3])
{
	// r_ij [3 FLOPS]
	for (int c = 0; c < 3; c++)
		d[c] = s->x[c][j] - s->x[c][i];
	// r^2 [5 FLOPS]
	return d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
}

static float sph_cpu_poly6_sum(const struct sph_cpu *s,
			       const struct sph_cpu_rows *r, size_t i)
{
	float sum = 0.0f;

	for (int k = 0; k < r->count; k++) {
		for (uint32_t j = r->lo[k]; j < r->hi[k]; j++) {
			float d[3];
			const float r2 = sph_cpu_dist2(s, i, j, d);
			// 1 - r^2 / h^2 [2 FLOPS]
			const float q = 1.0f - r2 * s->c.inv_h2;

			// sum += q^3 where r < h [3 FLOPS]
			if (r2 < s->c.h2)
				sum += q * q * q;
		}
	}
	return sum;
}

static unsigned sph_cpu_count_near(const struct sph_cpu *s,
				   const struct sph_cpu_rows *r, size_t i)
{
	unsigned count = 0;

	for (int k = 0; k < r->count; k++) {
		for (uint32_t j = r->lo[k]; j < r->hi[k]; j++) {
			float d[3];

			count += sph_cpu_dist2(s, i, j, d) < s->c.h2;
		}
	}
	return count;
}

static void sph_cpu_force_sum(const struct sph_cpu *s,
			      const struct sph_cpu_rows *r, size_t i,
			      struct sph_cpu_force_sum *f)
{
	const float h = s->c.h, pi = s->pres[i];
	float p[3] = { 0.0f, 0.0f, 0.0f }, v[3] = { 0.0f, 0.0f, 0.0f };

	for (int k = 0; k < r->count; k++) {
		for (uint32_t j = r->lo[k]; j < r->hi[k]; j++) {
			float d[3], rr, hr, wp, wv;
			const float r2 = sph_cpu_dist2(s, i, j, d);

			if (!(r2 < s->c.h2))
				continue;
			// r [1 FLOP]
			rr = sqrtf(r2);
			// h - r [1 FLOP]
			hr = h - rr;
			// (p_i + p_j) / (2 rho_j) (h - r)^2 / r [5 FLOPS]
			wp = r2 > 0.0f ? (pi + s->pres[j]) * s->hir[j] *
					 (hr * hr) / rr : 0.0f;
			// (h - r) / (2 rho_j) [1 FLOP]
			wv = hr * s->hir[j];
			for (int c = 0; c < 3; c++) {
				// pressure sum += wp (x_i - x_j) [2 FLOPS]
				p[c] -= wp * d[c];
				// viscosity sum += wv (v_j - v_i) [3 FLOPS]
				v[c] += wv * (s->v[c][j] - s->v[c][i]);
			}
		}
	}
	f->px = p[0];
	f->py = p[1];
	f->pz = p[2];
	f->vx = v[0];
	f->vy = v[1];
	f->vz = v[2];
}

#endif /* SPH_CPU_SSE */

/* Density, pressure and 1 / (2 rho) of particle i. */
static void sph_cpu_density_of(struct sph_cpu *s,
			       const struct sph_cpu_rows *r, size_t i)
{
	const struct sph_cpu_consts *c = &s->c;
	const float rho = c->c_rho * sph_cpu_poly6_sum(s, r, i);

	s->rho[i] = rho;
	s->pres[i] = c->k * fmaxf(rho - c->rho0, 0.0f);
	s->hir[i] = 0.5f / rho;
}

/* Acceleration of particle i from the densities and pressures. */
static void sph_cpu_accel_of(struct sph_cpu *s, const struct sph_cpu_rows *r,
			     size_t i)
{
	const struct sph_cpu_consts *c = &s->c;
	struct sph_cpu_force_sum f;
	float scale;

	sph_cpu_force_sum(s, r, i, &f);
	scale = c->c_force / s->rho[i];
	s->a[0][i] = scale * (f.px + c->mu2 * f.vx) + c->g[0];
	s->a[1][i] = scale * (f.py + c->mu2 * f.vy) + c->g[1];
	s->a[2][i] = scale * (f.pz + c->mu2 * f.vz) + c->g[2];
}

/*
 * Run one of the two functions above on every particle, OpenMP sharing
 * the slots in contiguous blocks. Slots are sorted by cell, so each
 * thread finds the cell ranges again only when the cell changes.
 */
static void sph_cpu_each(struct sph_cpu *s,
			 void (*fn)(struct sph_cpu *,
				    const struct sph_cpu_rows *, size_t))
{
#ifdef _OPENMP
#pragma omp parallel if (s->n >= SPH_CPU_PARALLEL_MIN)
#endif
	{
		struct sph_cpu_rows r = { .cell = UINT32_MAX };

#ifdef _OPENMP
#pragma omp for schedule(static)
#endif
		for (size_t i = 0; i < s->n; i++) {
			sph_cpu_rows_at(s, s->cell[i], &r);
			fn(s, &r, i);
		}
	}
}

/* Symplectic Euler and reflective walls, as sph_ref_integrate. */
static void sph_cpu_integrate(struct sph_cpu *s)
{
	const struct sph_cpu_consts *c = &s->c;

	SPH_CPU_PARALLEL_FOR(s->n)
	for (size_t i = 0; i < s->n; i++) {
		for (int d = 0; d < 3; d++) {
			float *x = &s->x[d][i], *v = &s->v[d][i];

			*v += s->a[d][i] * c->dt;
			*x += *v * c->dt;
			if (*x < c->box_lo[d]) {
				*x = c->box_lo[d];
				if (*v < 0.0f)
					*v *= -c->e;
			} else if (*x > c->box_hi[d]) {
				*x = c->box_hi[d];
				if (*v > 0.0f)
					*v *= -c->e;
			}
		}
	}
}

/* Candidate pairs (i, j != i) the density pass visits, and those of them
 * within h by the same float test. */
static void sph_cpu_count_pairs(struct sph_cpu *s)
{
	unsigned long long cand = 0, nbrs = 0;

#ifdef _OPENMP
#pragma omp parallel reduction(+ : cand, nbrs) \
	if (s->n >= SPH_CPU_PARALLEL_MIN)
#endif
	{
		struct sph_cpu_rows r = { .cell = UINT32_MAX };

#ifdef _OPENMP
#pragma omp for schedule(static)
#endif
		for (size_t i = 0; i < s->n; i++) {
			sph_cpu_rows_at(s, s->cell[i], &r);
			for (int k = 0; k < r.count; k++)
				cand += r.hi[k] - r.lo[k];
			nbrs += sph_cpu_count_near(s, &r, i);
		}
	}
	/* every particle met itself once, at r = 0 */
	s->candidates = cand - s->n;
	s->neighbours = nbrs - s->n;
}

static int sph_cpu_steps(void *ctx, int reps, struct sph_phase_times *t)
{
	struct sph_cpu *s = ctx;

	for (int rep = 0; rep < reps; rep++) {
		const double t0 = sph_cpu_now();
		double t1, t2, t3, t4;

		if (sph_cpu_build(s) != 0)
			return -1;
		t1 = sph_cpu_now();
		sph_cpu_each(s, sph_cpu_density_of);
		t2 = sph_cpu_now();
		sph_cpu_each(s, sph_cpu_accel_of);
		t3 = sph_cpu_now();
		sph_cpu_integrate(s);
		t4 = sph_cpu_now();
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
	sph_cpu_each(s, sph_cpu_density_of);
	sph_cpu_each(s, sph_cpu_accel_of);
	if (count)
		sph_cpu_count_pairs(s);
	return 0;
}

static int sph_cpu_read(void *ctx, float *pos4, float *vel4, float *rho,
			float *acc4)
{
	const struct sph_cpu *s = ctx;

	for (size_t k = 0; k < s->n; k++) {
		const size_t o = s->id[k];

		for (int c = 0; c < 4; c++) {
			if (pos4)
				pos4[4 * o + c] = c < 3 ? s->x[c][k] : 0.0f;
			if (vel4)
				vel4[4 * o + c] = c < 3 ? s->v[c][k] : 0.0f;
			if (acc4)
				acc4[4 * o + c] = c < 3 ? s->a[c][k] : 0.0f;
		}
		if (rho)
			rho[o] = s->rho[k];
	}
	return 0;
}

static void sph_cpu_counts(void *ctx, struct sph_counts *c)
{
	const struct sph_cpu *s = ctx;

	c->aux_bytes = s->aux_bytes;
	c->candidates = s->candidates;
	c->neighbours = s->neighbours;
	c->overflow = 0;
}

static const char *sph_cpu_error(void *ctx)
{
	const struct sph_cpu *s = ctx;

	return s->err;
}

static void sph_cpu_destroy(void *ctx)
{
	struct sph_cpu *s = ctx;

	if (!s)
		return;
	free(s->arena);
	free(s);
}

/* The smallest float >= v, and the largest <= v (v not NaN). */
static float sph_cpu_float_at_least(double v)
{
	float f;

	if (v > FLT_MAX)
		return INFINITY;
	if (v < -FLT_MAX)
		return isinf(v) ? -INFINITY : -FLT_MAX;
	f = (float)v;
	return (double)f < v ? nextafterf(f, INFINITY) : f;
}

static float sph_cpu_float_at_most(double v)
{
	float f;

	if (v < -FLT_MAX)
		return -INFINITY;
	if (v > FLT_MAX)
		return isinf(v) ? INFINITY : FLT_MAX;
	f = (float)v;
	return (double)f > v ? nextafterf(f, -INFINITY) : f;
}

/* Whether the scalar constants are finite floats, those that divide or
 * scale every sum also non-zero. */
static int sph_cpu_consts_in_range(const struct sph_cpu_consts *c)
{
	const float all[10] = { c->h, c->h2, c->inv_h2, c->c_rho, c->c_force,
				c->mu2, c->rho0, c->k, c->dt, c->e };

	for (int k = 0; k < 10; k++)
		if (!isfinite(all[k]) || (k < 5 && !(all[k] > 0.0f)))
			return 0;
	return 1;
}

/* The float constants of p; -1 with a message when one is not finite or
 * h, mass, dt are not positive. */
static int sph_cpu_consts_init(struct sph_cpu_consts *c,
			       const struct sph_params *p, char *err,
			       size_t errlen)
{
	const double h = p->h, h3 = h * h * h;

	if (!(h > 0.0 && isfinite(h) && p->mass > 0.0 && p->dt > 0.0)) {
		snprintf(err, errlen, "sph-cpu-grid: h = %g, mass = %g, "
			 "dt = %g: all must be finite and > 0", h, p->mass,
			 p->dt);
		return -1;
	}
	for (int d = 0; d < 3; d++) {
		if (!(fabs(p->gravity[d]) <= FLT_MAX) ||
		    isnan(p->box_lo[d]) || isnan(p->box_hi[d])) {
			snprintf(err, errlen, "sph-cpu-grid: gravity[%d] = %g, "
				 "box %g .. %g: gravity must be a finite float, "
				 "the box not NaN", d, p->gravity[d],
				 p->box_lo[d], p->box_hi[d]);
			return -1;
		}
	}
	c->h = (float)h;
	c->h2 = (float)(h * h);
	c->inv_h2 = (float)(1.0 / (h * h));
	c->c_rho = (float)(p->mass * 315.0 / (64.0 * SPH_REF_PI * h3));
	c->c_force = (float)(p->mass * 45.0 / (SPH_REF_PI * h3 * h3));
	c->mu2 = (float)(2.0 * p->mu);
	c->rho0 = (float)p->rho0;
	c->k = (float)p->k;
	c->dt = (float)p->dt;
	c->e = (float)p->wall_restitution;
	for (int d = 0; d < 3; d++) {
		c->g[d] = (float)p->gravity[d];
		c->box_lo[d] = sph_cpu_float_at_least(p->box_lo[d]);
		c->box_hi[d] = sph_cpu_float_at_most(p->box_hi[d]);
	}
	if (!sph_cpu_consts_in_range(c)) {
		snprintf(err, errlen, "sph-cpu-grid: the parameters (h = %g, "
			 "mass = %g, k = %g, mu = %g) leave float range", h,
			 p->mass, p->k, p->mu);
		return -1;
	}
	return 0;
}

/*
 * The grid over the box, or over the particles' bounds on a side where
 * the box is open. -1 with a message when the box is inverted or needs
 * more than SPH_CPU_MAX_CELLS cells.
 */
static int sph_cpu_grid_init(struct sph_cpu_grid *g,
			     const struct sph_params *p, const float *pos4,
			     size_t n, char *err, size_t errlen)
{
	double cells = 1.0;

	g->cell = p->h * (1.0 + SPH_CPU_GRID_MARGIN);
	for (int d = 0; d < 3; d++) {
		double lo = p->box_lo[d], hi = p->box_hi[d], side;

		if (lo > hi) {
			snprintf(err, errlen, "sph-cpu-grid: box_lo[%d] = %g "
				 "> box_hi[%d] = %g", d, lo, d, hi);
			return -1;
		}
		if (!isfinite(lo) || !isfinite(hi)) {
			double plo = pos4[d], phi = pos4[d];

			for (size_t i = 1; i < n; i++) {
				plo = fmin(plo, pos4[4 * i + d]);
				phi = fmax(phi, pos4[4 * i + d]);
			}
			lo = isfinite(lo) ? lo : plo;
			hi = isfinite(hi) ? fmax(hi, lo) : fmax(phi, lo);
		}
		side = floor((hi - lo) / g->cell) + 1.0;
		cells *= side;
		if (!(cells <= (double)SPH_CPU_MAX_CELLS)) {
			snprintf(err, errlen, "sph-cpu-grid: a grid of cells "
				 "of %g m over the box needs more than %zu "
				 "cells", g->cell, SPH_CPU_MAX_CELLS);
			return -1;
		}
		g->lo[d] = lo;
		g->dim[d] = (int)side;
	}
	g->ncells = (uint32_t)cells;
	return 0;
}

/*
 * Where the k-th array starts: at a page boundary plus k * 128 bytes (k
 * taken mod 32), then cursor moves past its bytes. Why: arrays that all
 * began at the same offset in a page would put element j of the 8 to 17
 * streams a loop reads and writes in the same L1 set (64 sets of 8 ways)
 * and suffer 4K aliasing between loads and stores.
 */
static char *sph_cpu_carve(char **cursor, size_t bytes, int k)
{
	const uintptr_t page = 4096;
	char *at = (char *)(((uintptr_t)*cursor + page - 1) & ~(page - 1)) +
		   128 * (k % 32);

	*cursor = at + bytes;
	return at;
}

/* Bytes sph_cpu_carve may use for arrays of these sizes, at most. */
#define SPH_CPU_CARVE_SLACK (2 * 4096)

/*
 * Carve every array of s for s->n particles and s->grid out of one
 * zeroed allocation (the padding after x, v, pres, hir must read as
 * zero), and count the bytes beyond the state's 40 a particle in
 * s->aux_bytes. Returns 0, or -1 when memory runs out.
 */
static int sph_cpu_alloc(struct sph_cpu *s)
{
	const size_t n = s->n, fp = (n + SPH_CPU_PAD) * sizeof(float),
		     fn = n * sizeof(float), un = n * sizeof(uint32_t),
		     starts = ((size_t)s->grid.ncells + 1) * sizeof(uint32_t);
	/* 18 float arrays (x, v, xs, vs, a: 3 each; pres, hir, rho) and
	 * 6 index arrays */
	const size_t total = 14 * fp + 4 * fn + 5 * un + starts +
			     24 * SPH_CPU_CARVE_SLACK;
	char *cursor;
	int k = 0;

	s->arena = calloc(1, total);
	if (!s->arena)
		return -1;
	cursor = s->arena;
	for (int c = 0; c < 3; c++) {
		s->x[c] = (float *)sph_cpu_carve(&cursor, fp, k++);
		s->v[c] = (float *)sph_cpu_carve(&cursor, fp, k++);
	}
	s->pres = (float *)sph_cpu_carve(&cursor, fp, k++);
	s->hir = (float *)sph_cpu_carve(&cursor, fp, k++);
	s->rho = (float *)sph_cpu_carve(&cursor, fn, k++);
	for (int c = 0; c < 3; c++)
		s->a[c] = (float *)sph_cpu_carve(&cursor, fn, k++);
	s->cell = (uint32_t *)sph_cpu_carve(&cursor, un, k++);
	s->id = (uint32_t *)sph_cpu_carve(&cursor, un, k++);
	s->perm = (uint32_t *)sph_cpu_carve(&cursor, un, k++);
	s->start = (uint32_t *)sph_cpu_carve(&cursor, starts, k++);
	/* the build's second buffers, staggered against the first */
	for (int c = 0; c < 3; c++) {
		s->xs[c] = (float *)sph_cpu_carve(&cursor, fp, k++);
		s->vs[c] = (float *)sph_cpu_carve(&cursor, fp, k++);
	}
	s->ids = (uint32_t *)sph_cpu_carve(&cursor, un, k++);
	s->cell_new = (uint32_t *)sph_cpu_carve(&cursor, un, k++);
	s->aux_bytes = total - 40 * n;
	return 0;
}

/* Index of the first particle with a non-finite coordinate in pos4 or
 * vel4, or n. */
static size_t sph_cpu_first_nonfinite(const float *pos4, const float *vel4,
				      size_t n)
{
	for (size_t i = 0; i < n; i++)
		for (int c = 0; c < 3; c++)
			if (!isfinite(pos4[4 * i + c]) ||
			    !isfinite(vel4[4 * i + c]))
				return i;
	return n;
}

static int sph_cpu_create(void **ctx, const float *pos4, const float *vel4,
			  size_t n, const struct sph_params *p, char *err,
			  size_t errlen)
{
	struct sph_cpu *s;
	size_t bad;

	*ctx = NULL;
	if (n == 0 || n > UINT32_MAX) {
		snprintf(err, errlen, "sph-cpu-grid: n = %zu particles; "
			 "allowed 1 .. %lu", n, (unsigned long)UINT32_MAX);
		return -1;
	}
	bad = sph_cpu_first_nonfinite(pos4, vel4, n);
	if (bad < n) {
		snprintf(err, errlen, "sph-cpu-grid: particle %zu has a "
			 "non-finite position or velocity", bad);
		return -1;
	}
	s = calloc(1, sizeof *s);
	if (!s)
		goto out_nomem;
	s->n = n;
	if (sph_cpu_consts_init(&s->c, p, err, errlen) != 0 ||
	    sph_cpu_grid_init(&s->grid, p, pos4, n, err, errlen) != 0)
		goto out_free;
	if (sph_cpu_alloc(s) != 0)
		goto out_nomem;
	for (size_t i = 0; i < n; i++) {
		for (int c = 0; c < 3; c++) {
			s->x[c][i] = pos4[4 * i + c];
			s->v[c][i] = vel4[4 * i + c];
		}
		s->id[i] = (uint32_t)i;
	}
	*ctx = s;
	return 0;

out_nomem:
	snprintf(err, errlen, "sph-cpu-grid: out of memory for %zu "
		 "particles", n);
out_free:
	sph_cpu_destroy(s);
	return -1;
}

const struct sph_ops sph_cpu_grid_ops = {
	.create = sph_cpu_create,
	.steps = sph_cpu_steps,
	.evaluate = sph_cpu_evaluate,
	.read = sph_cpu_read,
	.counts = sph_cpu_counts,
	.error = sph_cpu_error,
	.destroy = sph_cpu_destroy,
};
