/* sph_grid.cu - SPH on the GPU over sorted cells: grid-radix, grid-count, zindex-cells
 *
 * Variants (kernels/sph/sph_gpu.h):
 *   sph-gpu-grid-radix    uniform grid of cells of side h over the box,
 *                         linear cell index cx + dx (cy + dy cz); every
 *                         step the (cell, slot) pairs are sorted by CUB's
 *                         radix sort on the bits the cell count needs,
 *                         cell_start[] is filled with a sentinel, and a
 *                         kernel comparing each sorted key with its
 *                         neighbours writes the start and end of every
 *                         occupied cell (Green, "Particle Simulation using
 *                         CUDA", the CUDA particles sample).
 *   sph-gpu-grid-count    the same grid built by counting sort (Hoetzlein
 *                         2014, "Fast Fixed-Radius Nearest Neighbors"): an
 *                         atomicAdd per particle counts its cell and gives
 *                         its rank in it, CUB's exclusive scan turns the
 *                         counts into cell starts, and each slot is
 *                         scattered to start[cell] + rank. The ranks come
 *                         in whatever order the atomics ran, so one thread
 *                         per cell then insertion-sorts the cell's slice
 *                         by old slot (cells hold ~8-30 particles): the
 *                         order becomes that of a stable sort, the same
 *                         as grid-radix's, and so do the results, bit for
 *                         bit.
 *   sph-gpu-zindex-cells  particles sorted (CUB radix sort) by the 30-bit
 *                         Morton key of their cell (morton_encode3: 10
 *                         bits a side, so at most 1024 cells a side). The
 *                         key range (2^30) is far too large for a start
 *                         table, so the occupied cells are kept as a
 *                         compact list: head flags where the sorted key
 *                         changes, an exclusive scan of the flags, and the
 *                         distinct keys with their first slots written at
 *                         their ranks. A thread finds each of its 27 cells
 *                         by binary search in that list, first narrowed to
 *                         the keys between its block's smallest and largest
 *                         corner (Morton order is monotone in each axis).
 *
 * Every variant reorders the particles (position, velocity, original id)
 * into cell order each step, then runs one thread per particle through
 * the 27 cells around its own, in the same cell order (z, y, x outermost
 * to innermost) and, within a cell, in slot order, with one density
 * function and one force function shared by the three (they differ only
 * in how a cell's slots are found). The physics is that of
 * kernels/sph/sph_cpu.c, whose comment derives it; in float, per particle i:
 *   rho_i = m 315 / (64 pi h^3) sum_j (1 - r^2 / h^2)^3   (j = i included)
 *   p_i   = k max(rho_i - rho0, 0)
 *   a_i   = m 45 / (pi h^6) / rho_i sum_j [ (p_i + p_j) / (2 rho_j)
 *             (h - r)^2 / r (x_i - x_j) + 2 mu (h - r) / (2 rho_j)
 *             (v_j - v_i) ] + g
 * then v += a dt; x += v dt and the reflective walls of sph_ref_integrate
 * (the box rounded inward to floats). The force loop includes j = i, whose
 * terms are exactly zero; coincident particles get no pressure force.
 *
 * Grid. Cells of side h (1 + SPH_GPU_GRID_MARGIN) over the box (over the
 * particles' bounds at create on an axis where the box is open), fixed at
 * create. A particle's cell is floor((x - lo) / cell) in double, clamped
 * into the grid, as in sph_ref_grid_cell: two particles that pass the
 * float test r^2 < h^2 are at most ~3e-7 h further apart than h, inside
 * the margin, so they are never two cells apart; clamping (a particle
 * outside the box or the bounds, a NaN) never moves two cells apart
 * either, and keeps every index inside the arrays.
 *
 * Determinism. Each particle's sums run in a fixed order over a fixed
 * ordering of the slots: CUB's radix sort is stable, the counting sort's
 * slices are put in slot order, and the slot order a build starts from is
 * the last build's. Atomics only count (integers): cell sizes and ranks in
 * grid-count, pair counts in evaluate. So a run gives the same bits every
 * time.
 *
 * Timing: CUDA events around each phase of each step (build: cells, sort,
 * cell ranges and the reorder; density; force; integrate), read in
 * batches of SPH_GPU_BATCH steps so the host waits once per batch.
 */
#include "sph_gpu.h"

#include <cfloat>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>
#include <cub/cub.cuh>

/* Cell side = h (1 + margin); see "Grid" above. */
#define SPH_GPU_GRID_MARGIN 1e-6
/* Most cells of the grid variants (4 or 8 bytes each in their tables). */
#define SPH_GPU_MAX_CELLS ((size_t)1 << 27)
/* Morton keys: bits per axis, so cells a side at most. */
#define SPH_GPU_MORTON_BITS 10
#define SPH_GPU_MORTON_SIDE (1 << SPH_GPU_MORTON_BITS)
/* cell_start[] of an empty cell (grid-radix). */
#define SPH_GPU_EMPTY 0xffffffffu
/* Threads per block of every kernel. */
#define SPH_GPU_BLOCK 256
/* Steps whose phase events are queued before the host reads them. */
#define SPH_GPU_BATCH 16
/* Events per step: before build, density, force, integrate, and after. */
#define SPH_GPU_MARKS 5
/* Device arrays a context allocates, at most. */
#define SPH_GPU_MAX_ALLOCS 32

enum sph_gpu_method { SPH_GPU_GRID_RADIX, SPH_GPU_GRID_COUNT, SPH_GPU_ZINDEX_CELLS };

static const char *const sph_gpu_names[] = {
	"sph-gpu-grid-radix",
	"sph-gpu-grid-count",
	"sph-gpu-zindex-cells",
};

/* The parameters as the float kernels use them. */
struct sph_gpu_consts {
	float h, h2, inv_h2;
	float c_rho;   /* m 315 / (64 pi h^3) */
	float c_force; /* m 45 / (pi h^6) */
	float mu2;     /* 2 mu: the viscosity weight uses 1 / (2 rho_j) */
	float rho0, k, dt, e;
	float g[3], box_lo[3], box_hi[3];
};

struct sph_gpu_grid {
	double lo[3]; /* corner of cell (0, 0, 0) */
	double cell;  /* side of a cell */
	int dim[3];   /* cells per side */
	unsigned ncells;
};

/* ---- cells and keys ----------------------------------------------------- */

/* Bits 0..9 of v spread to bits 0, 3, 6, ..., 27. */
__host__ __device__ __forceinline__ unsigned morton_expand10(unsigned v)
{
	v &= 0x3ffu;
	v = (v ^ (v << 16)) & 0xff0000ffu;
	v = (v ^ (v << 8)) & 0x0300f00fu;
	v = (v ^ (v << 4)) & 0x030c30c3u;
	v = (v ^ (v << 2)) & 0x09249249u;
	return v;
}

/* The inverse: bits 0, 3, ..., 27 of v gathered into bits 0..9. */
__host__ __device__ __forceinline__ unsigned morton_compact10(unsigned v)
{
	v &= 0x09249249u;
	v = (v ^ (v >> 2)) & 0x030c30c3u;
	v = (v ^ (v >> 4)) & 0x0300f00fu;
	v = (v ^ (v >> 8)) & 0xff0000ffu;
	v = (v ^ (v >> 16)) & 0x000003ffu;
	return v;
}

/* Morton key of cell (x, y, z), each in 0 .. 1023: x in bit 0. */
__host__ __device__ __forceinline__ unsigned morton_encode3(unsigned x, unsigned y, unsigned z)
{
	return morton_expand10(x) | morton_expand10(y) << 1 | morton_expand10(z) << 2;
}

__host__ __device__ __forceinline__ int3 morton_decode3(unsigned key)
{
	return make_int3((int)morton_compact10(key), (int)morton_compact10(key >> 1),
			 (int)morton_compact10(key >> 2));
}

/* Cell coordinate of x along one axis, clamped into 0 .. dim - 1 (NaN: 0). */
__device__ __forceinline__ int sph_gpu_axis_cell(float x, double lo, double cell, int dim)
{
	const double u = floor(((double)x - lo) / cell);

	return !(u >= 0.0) ? 0 : u >= (double)dim ? dim - 1 : (int)u;
}

__device__ __forceinline__ int3 sph_gpu_cell_of(const sph_gpu_grid &g, float4 x)
{
	return make_int3(sph_gpu_axis_cell(x.x, g.lo[0], g.cell, g.dim[0]),
			 sph_gpu_axis_cell(x.y, g.lo[1], g.cell, g.dim[1]),
			 sph_gpu_axis_cell(x.z, g.lo[2], g.cell, g.dim[2]));
}

__host__ __device__ __forceinline__ unsigned sph_gpu_linear(int x, int y, int z, const int dim[3])
{
	return (unsigned)x + (unsigned)dim[0] * ((unsigned)y + (unsigned)dim[1] * (unsigned)z);
}

__device__ __forceinline__ int3 sph_gpu_linear_coords(unsigned c, const int dim[3])
{
	const unsigned d0 = (unsigned)dim[0], d1 = (unsigned)dim[1];

	return make_int3((int)(c % d0), (int)(c / d0 % d1), (int)(c / (d0 * d1)));
}

/*
 * How the density and force passes find the slots of a cell, one policy
 * per variant. own(i) is the cell of sorted slot i; window(c) is what a
 * particle in cell c computes once before its 27 lookups; range() gives
 * the slots lo .. hi - 1 of cell (x, y, z) (inside the grid) and returns
 * false when it is empty. Every lo, hi is within 0 .. n.
 */
struct sph_gpu_no_window {
};

/* grid-radix: start of each cell (SPH_GPU_EMPTY if none) and its end. */
struct sph_gpu_cells_radix {
	const unsigned *__restrict__ key; /* linear cell of each sorted slot */
	const unsigned *__restrict__ start, *__restrict__ end;
	int dim[3];
	typedef sph_gpu_no_window window_t;

	__device__ int3 own(unsigned i) const { return sph_gpu_linear_coords(key[i], dim); }
	__device__ window_t window(int3) const { return window_t(); }
	__device__ bool range(const window_t &, int x, int y, int z, unsigned &lo, unsigned &hi) const
	{
		const unsigned c = sph_gpu_linear(x, y, z, dim);

		lo = start[c];
		if (lo == SPH_GPU_EMPTY)
			return false;
		hi = end[c];
		return true;
	}
};

/* grid-count: start[] of ncells + 1 entries, cell c holds start[c] ..
 * start[c + 1] - 1. */
struct sph_gpu_cells_count {
	const unsigned *__restrict__ key; /* linear cell of each sorted slot */
	const unsigned *__restrict__ start;
	int dim[3];
	typedef sph_gpu_no_window window_t;

	__device__ int3 own(unsigned i) const { return sph_gpu_linear_coords(key[i], dim); }
	__device__ window_t window(int3) const { return window_t(); }
	__device__ bool range(const window_t &, int x, int y, int z, unsigned &lo, unsigned &hi) const
	{
		const unsigned c = sph_gpu_linear(x, y, z, dim);

		lo = start[c];
		hi = start[c + 1];
		return hi > lo;
	}
};

/* First index in a[lo .. hi - 1] (ascending) whose value is >= v, or hi. */
__device__ __forceinline__ unsigned sph_gpu_lower_bound(const unsigned *__restrict__ a,
							 unsigned lo, unsigned hi, unsigned v)
{
	while (lo < hi) {
		const unsigned mid = lo + (hi - lo) / 2;

		if (a[mid] < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* zindex-cells: the nu distinct Morton keys ukey[0 .. nu - 1], ascending;
 * the cell of ukey[u] holds slots ustart[u] .. ustart[u + 1] - 1. */
struct sph_gpu_cells_zindex {
	const unsigned *__restrict__ key; /* Morton key of each sorted slot */
	const unsigned *__restrict__ ukey, *__restrict__ ustart;
	const unsigned *__restrict__ nu; /* one value, on the device */
	int dim[3];
	struct window_t {
		unsigned lo, hi; /* the keys of the 3 x 3 x 3 block are in ukey[lo .. hi - 1] */
	};

	__device__ int3 own(unsigned i) const { return morton_decode3(key[i]); }
	__device__ window_t window(int3 c) const
	{
		const unsigned kmin = morton_encode3(max(c.x - 1, 0), max(c.y - 1, 0), max(c.z - 1, 0));
		const unsigned kmax = morton_encode3(min(c.x + 1, dim[0] - 1), min(c.y + 1, dim[1] - 1),
						     min(c.z + 1, dim[2] - 1));
		window_t w;

		w.lo = sph_gpu_lower_bound(ukey, 0, *nu, kmin);
		w.hi = sph_gpu_lower_bound(ukey, w.lo, *nu, kmax + 1);
		return w;
	}
	__device__ bool range(const window_t &w, int x, int y, int z, unsigned &lo, unsigned &hi) const
	{
		const unsigned k = morton_encode3(x, y, z);
		const unsigned u = sph_gpu_lower_bound(ukey, w.lo, w.hi, k);

		if (u == w.hi || ukey[u] != k)
			return false;
		lo = ustart[u];
		hi = ustart[u + 1];
		return true;
	}
};

/* fn(j) for every slot j of the 27 cells around sorted slot i's (i itself
 * included): cells z, y, x ascending, slots ascending within a cell. */
template <class Cells, class Fn>
__device__ __forceinline__ void sph_gpu_each_candidate(const Cells &cells, unsigned i, Fn &&fn)
{
	const int3 c = cells.own(i);
	const typename Cells::window_t w = cells.window(c);
	const int z1 = min(c.z + 1, cells.dim[2] - 1), y1 = min(c.y + 1, cells.dim[1] - 1),
		  x1 = min(c.x + 1, cells.dim[0] - 1);

	for (int z = max(c.z - 1, 0); z <= z1; z++)
		for (int y = max(c.y - 1, 0); y <= y1; y++)
			for (int x = max(c.x - 1, 0); x <= x1; x++) {
				unsigned lo, hi;

				if (!cells.range(w, x, y, z, lo, hi))
					continue;
				for (unsigned j = lo; j < hi; j++)
					fn(j);
			}
}

/* ---- physics ------------------------------------------------------------ */

/* Candidate pairs (j != i) and those of them with r^2 < h^2. */
struct sph_gpu_pairs {
	unsigned long long candidates, neighbours;
};

/* sum over the candidates of (1 - r^2 / h^2)^3 for r < h (i included);
 * with COUNT, the pairs of i counted into pc. */
template <bool COUNT, class Cells>
__device__ __forceinline__ float sph_gpu_poly6_sum(const Cells &cells, const float4 *__restrict__ pos,
						   unsigned i, const sph_gpu_consts &cs,
						   sph_gpu_pairs &pc)
{
	const float4 xi = pos[i];
	float sum = 0.0f;

	sph_gpu_each_candidate(cells, i, [&](unsigned j) {
		const float4 xj = pos[j];
		// r_ij [3 FLOPS]
		const float dx = xj.x - xi.x, dy = xj.y - xi.y, dz = xj.z - xi.z;
		// r^2 [5 FLOPS]
		const float r2 = dx * dx + dy * dy + dz * dz;
		// 1 - r^2 / h^2 [2 FLOPS]
		const float q = 1.0f - r2 * cs.inv_h2;
		const bool near = r2 < cs.h2;

		// sum += q^3 where r < h [3 FLOPS]
		if (near)
			sum += q * q * q;
		if (COUNT && j != i) {
			pc.candidates++;
			pc.neighbours += near;
		}
	});
	return sum;
}

/* Pressure and viscosity sums of one particle, before the factor
 * m 45 / (pi h^6). */
struct sph_gpu_force_sum {
	float3 p; /* sum (p_i + p_j) / (2 rho_j) (h - r)^2 / r (x_i - x_j) */
	float3 v; /* sum (h - r) / (2 rho_j) (v_j - v_i) */
};

/* The sums of sorted slot i over its candidates; prh[j] = (p_j,
 * 1 / (2 rho_j)). */
template <class Cells>
__device__ __forceinline__ sph_gpu_force_sum sph_gpu_force_of(const Cells &cells,
							       const float4 *__restrict__ pos,
							       const float4 *__restrict__ vel,
							       const float2 *__restrict__ prh, unsigned i,
							       const sph_gpu_consts &cs)
{
	const float4 xi = pos[i], vi = vel[i];
	const float pi = prh[i].x;
	sph_gpu_force_sum f = { make_float3(0.0f, 0.0f, 0.0f), make_float3(0.0f, 0.0f, 0.0f) };

	sph_gpu_each_candidate(cells, i, [&](unsigned j) {
		const float4 xj = pos[j];
		// r_ij [3 FLOPS]
		const float dx = xj.x - xi.x, dy = xj.y - xi.y, dz = xj.z - xi.z;
		// r^2 [5 FLOPS]
		const float r2 = dx * dx + dy * dy + dz * dz;

		if (!(r2 < cs.h2))
			return;
		const float2 pj = prh[j];
		const float4 vj = vel[j];
		// r, kept above zero [2 FLOPS]
		const float r = sqrtf(r2 + FLT_MIN);
		// h - r [1 FLOP]
		const float hr = cs.h - r;
		// (p_i + p_j) / (2 rho_j) (h - r)^2 / r, zero at r = 0 [5 FLOPS]
		const float wp = r2 > 0.0f ? (pi + pj.x) * pj.y * (hr * hr) / r : 0.0f;
		// (h - r) / (2 rho_j) [1 FLOP]
		const float wv = hr * pj.y;

		// pressure sum += wp (x_i - x_j) [6 FLOPS]
		f.p.x -= wp * dx;
		f.p.y -= wp * dy;
		f.p.z -= wp * dz;
		// viscosity sum += wv (v_j - v_i) [9 FLOPS]
		f.v.x += wv * (vj.x - vi.x);
		f.v.y += wv * (vj.y - vi.y);
		f.v.z += wv * (vj.z - vi.z);
	});
	return f;
}

/* The pairs of a warp added to pairs[0], pairs[1] by its lane 0. Every
 * lane of the warp must call it. */
__device__ __forceinline__ void sph_gpu_add_pairs(unsigned long long *pairs, sph_gpu_pairs pc)
{
	for (int off = 16; off > 0; off >>= 1) {
		pc.candidates += __shfl_down_sync(0xffffffffu, pc.candidates, off);
		pc.neighbours += __shfl_down_sync(0xffffffffu, pc.neighbours, off);
	}
	if ((threadIdx.x & 31) == 0 && (pc.candidates || pc.neighbours)) {
		atomicAdd(&pairs[0], pc.candidates);
		atomicAdd(&pairs[1], pc.neighbours);
	}
}

/* rho, and prh = (p, 1 / (2 rho)), of every sorted slot; with COUNT the
 * candidate and neighbour pairs added to pairs[0], pairs[1]. */
template <bool COUNT, class Cells>
__global__ void __launch_bounds__(SPH_GPU_BLOCK)
	sph_gpu_density_kernel(Cells cells, const float4 *__restrict__ pos, float *__restrict__ rho,
			       float2 *__restrict__ prh, int n, sph_gpu_consts cs,
			       unsigned long long *__restrict__ pairs)
{
	const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
	sph_gpu_pairs pc = { 0, 0 };

	if (i < (unsigned)n) {
		// rho = m 315 / (64 pi h^3) sum [1 FLOP]
		const float r = cs.c_rho * sph_gpu_poly6_sum<COUNT>(cells, pos, i, cs, pc);

		rho[i] = r;
		// p = k max(rho - rho0, 0), 1 / (2 rho) [3 FLOPS]
		prh[i] = make_float2(cs.k * fmaxf(r - cs.rho0, 0.0f), 0.5f / r);
	}
	if (COUNT)
		sph_gpu_add_pairs(pairs, pc);
}

/* Acceleration (ax, ay, az, 0) of every sorted slot. */
template <class Cells>
__global__ void __launch_bounds__(SPH_GPU_BLOCK)
	sph_gpu_force_kernel(Cells cells, const float4 *__restrict__ pos,
			     const float4 *__restrict__ vel, const float *__restrict__ rho,
			     const float2 *__restrict__ prh, float4 *__restrict__ acc, int n,
			     sph_gpu_consts cs)
{
	const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i >= (unsigned)n)
		return;
	const sph_gpu_force_sum f = sph_gpu_force_of(cells, pos, vel, prh, i, cs);
	// m 45 / (pi h^6) / rho_i [1 FLOP]
	const float scale = cs.c_force / rho[i];

	// a = scale (pressure + 2 mu viscosity) + g [12 FLOPS]
	acc[i] = make_float4(scale * (f.p.x + cs.mu2 * f.v.x) + cs.g[0],
			     scale * (f.p.y + cs.mu2 * f.v.y) + cs.g[1],
			     scale * (f.p.z + cs.mu2 * f.v.z) + cs.g[2], 0.0f);
}

/* One coordinate of symplectic Euler with a reflective wall pair, as
 * sph_ref_integrate. */
__device__ __forceinline__ void sph_gpu_advance(float &x, float &v, float a, float dt, float e,
						float lo, float hi)
{
	v += a * dt;
	x += v * dt;
	if (x < lo) {
		x = lo;
		if (v < 0.0f)
			v *= -e;
	} else if (x > hi) {
		x = hi;
		if (v > 0.0f)
			v *= -e;
	}
}

__global__ void sph_gpu_integrate_kernel(float4 *__restrict__ pos, float4 *__restrict__ vel,
					 const float4 *__restrict__ acc, int n, sph_gpu_consts cs)
{
	const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i >= (unsigned)n)
		return;
	float4 x = pos[i], v = vel[i];
	const float4 a = acc[i];

	sph_gpu_advance(x.x, v.x, a.x, cs.dt, cs.e, cs.box_lo[0], cs.box_hi[0]);
	sph_gpu_advance(x.y, v.y, a.y, cs.dt, cs.e, cs.box_lo[1], cs.box_hi[1]);
	sph_gpu_advance(x.z, v.z, a.z, cs.dt, cs.e, cs.box_lo[2], cs.box_hi[2]);
	pos[i] = x;
	vel[i] = v;
}

/* ---- build kernels ------------------------------------------------------ */

/* Smallest original id with a non-finite position into *bad. */
__device__ __forceinline__ void sph_gpu_check_finite(float4 x, unsigned id, unsigned *bad)
{
	if (!isfinite(x.x) || !isfinite(x.y) || !isfinite(x.z))
		atomicMin(bad, id);
}

/* key[i] = cell of slot i: Morton key (MORTON) or linear index. */
template <bool MORTON>
__global__ void sph_gpu_key_kernel(const float4 *__restrict__ pos, const unsigned *__restrict__ id,
				   unsigned *__restrict__ key, int n, sph_gpu_grid g,
				   unsigned *__restrict__ bad)
{
	const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i >= (unsigned)n)
		return;
	const float4 x = pos[i];
	const int3 c = sph_gpu_cell_of(g, x);

	sph_gpu_check_finite(x, id[i], bad);
	key[i] = MORTON ? morton_encode3(c.x, c.y, c.z) : sph_gpu_linear(c.x, c.y, c.z, g.dim);
}

/* grid-radix: the first and one-past-last sorted slot of every occupied
 * cell, where the sorted key changes. */
__global__ void sph_gpu_radix_bounds_kernel(const unsigned *__restrict__ key,
					    unsigned *__restrict__ start, unsigned *__restrict__ end,
					    int n)
{
	const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i >= (unsigned)n)
		return;
	const unsigned c = key[i];

	if (i == 0 || key[i - 1] != c)
		start[c] = i;
	if (i == (unsigned)n - 1 || key[i + 1] != c)
		end[c] = i + 1;
}

/* grid-count: cell of slot i, its count, and i's rank among the slots of
 * its cell (in atomic order, not deterministic). */
__global__ void sph_gpu_count_kernel(const float4 *__restrict__ pos, const unsigned *__restrict__ id,
				     unsigned *__restrict__ cell, unsigned *__restrict__ rank,
				     unsigned *__restrict__ count, int n, sph_gpu_grid g,
				     unsigned *__restrict__ bad)
{
	const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i >= (unsigned)n)
		return;
	const float4 x = pos[i];
	const int3 c = sph_gpu_cell_of(g, x);
	const unsigned k = sph_gpu_linear(c.x, c.y, c.z, g.dim);

	sph_gpu_check_finite(x, id[i], bad);
	cell[i] = k;
	rank[i] = atomicAdd(&count[k], 1u);
}

/* grid-count: slot i to place start[cell] + rank (ranks of a cell are
 * distinct and below its count, so every place is written once). */
__global__ void sph_gpu_count_scatter_kernel(const unsigned *__restrict__ cell,
					     const unsigned *__restrict__ rank,
					     const unsigned *__restrict__ start,
					     unsigned *__restrict__ perm, int n)
{
	const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i >= (unsigned)n)
		return;
	perm[start[cell[i]] + rank[i]] = i;
}

/* grid-count: each cell's slice of perm sorted ascending (insertion sort,
 * one thread per cell; the slices are disjoint). */
__global__ void sph_gpu_count_order_kernel(const unsigned *__restrict__ start,
					   unsigned *__restrict__ perm, unsigned ncells)
{
	const unsigned c = blockIdx.x * blockDim.x + threadIdx.x;

	if (c >= ncells)
		return;
	const unsigned lo = start[c], hi = start[c + 1];

	for (unsigned a = lo + 1; a < hi; a++) {
		const unsigned v = perm[a];
		unsigned b = a;

		for (; b > lo && perm[b - 1] > v; b--)
			perm[b] = perm[b - 1];
		perm[b] = v;
	}
}

/* zindex-cells: flag[i] = 1 where sorted key i starts a run of equal keys. */
__global__ void sph_gpu_zindex_heads_kernel(const unsigned *__restrict__ key,
					    unsigned *__restrict__ flag, int n)
{
	const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i >= (unsigned)n)
		return;
	flag[i] = i == 0 || key[i - 1] != key[i];
}

/* zindex-cells: with run = exclusive sum of flag, the distinct keys and
 * their first slots at their ranks, *nu = their count, ustart[nu] = n. */
__global__ void sph_gpu_zindex_runs_kernel(const unsigned *__restrict__ key,
					   const unsigned *__restrict__ flag,
					   const unsigned *__restrict__ run, unsigned *__restrict__ ukey,
					   unsigned *__restrict__ ustart, unsigned *__restrict__ nu,
					   int n)
{
	const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i >= (unsigned)n)
		return;
	if (flag[i]) {
		ukey[run[i]] = key[i];
		ustart[run[i]] = i;
	}
	if (i == (unsigned)n - 1) {
		const unsigned count = run[i] + flag[i];

		*nu = count;
		ustart[count] = (unsigned)n;
	}
}

/* The state of old slot perm[i] to new slot i; key too when key_in is
 * not NULL. */
__global__ void sph_gpu_gather_kernel(const unsigned *__restrict__ perm,
				      const float4 *__restrict__ pos_in,
				      const float4 *__restrict__ vel_in,
				      const unsigned *__restrict__ id_in,
				      const unsigned *__restrict__ key_in, float4 *__restrict__ pos_out,
				      float4 *__restrict__ vel_out, unsigned *__restrict__ id_out,
				      unsigned *__restrict__ key_out, int n)
{
	const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i >= (unsigned)n)
		return;
	const unsigned old = perm[i];

	pos_out[i] = pos_in[old];
	vel_out[i] = vel_in[old];
	id_out[i] = id_in[old];
	if (key_in)
		key_out[i] = key_in[old];
}

/* a[i] = i. */
__global__ void sph_gpu_iota_kernel(unsigned *__restrict__ a, int n)
{
	const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < (unsigned)n)
		a[i] = i;
}

/* ---- the context -------------------------------------------------------- */

struct sph_gpu {
	enum sph_gpu_method method;
	const char *name;
	int n;
	struct sph_gpu_consts cs;
	struct sph_gpu_grid grid;
	int end_bit; /* bits of the radix-sorted keys */

	/* particle state, in slot order (cell order after a build) */
	float4 *pos, *vel, *acc;
	float *rho;
	unsigned *id; /* caller's index of each slot */

	/* scratch of every variant */
	float4 *pos_alt, *vel_alt; /* the reorder's targets, swapped in */
	unsigned *id_alt;
	float2 *prh;     /* (p_j, 1 / (2 rho_j)) */
	unsigned *key;   /* cell key of each slot before the sort */
	unsigned *skey;  /* cell key of each sorted slot */
	unsigned *perm;  /* old slot of each sorted slot */
	unsigned *bad;   /* smallest id with a non-finite position, or UINT_MAX */
	unsigned long long *pairs; /* candidates, neighbours */
	unsigned char *temp; /* CUB's temporary storage */
	size_t temp_bytes;

	/* grid-radix and zindex-cells: the sort's values, 0 .. n - 1 */
	unsigned *iota;
	/* grid-radix: ncells each */
	unsigned *cell_start, *cell_end;
	/* grid-count: ncells + 1 each, and n */
	unsigned *count, *start, *rank;
	/* zindex-cells: n each, ustart n + 1, nu 1 */
	unsigned *flag, *run, *ukey, *ustart, *nu;

	void *allocs[SPH_GPU_MAX_ALLOCS]; /* every device array, to free */
	int nallocs;
	size_t aux_bytes;

	cudaStream_t stream;
	cudaEvent_t ev[SPH_GPU_BATCH][SPH_GPU_MARKS];
	int nevents; /* created, in ev[0][0], ev[0][1], ... order */

	unsigned long long candidates, neighbours;
	int failed; /* a call failed: the state is lost, every call fails */
	char err[256];
};

/* Records a failed CUDA call in s->err. Returns -1 when rc is an error. */
static int sph_gpu_check(struct sph_gpu *s, cudaError_t rc, const char *call, const char *file,
			 int line)
{
	if (rc == cudaSuccess)
		return 0;
	snprintf(s->err, sizeof s->err, "%s: %s: %s (%s:%d)", s->name, call, cudaGetErrorString(rc),
		 file, line);
	s->failed = 1;
	return -1;
}

#define SPH_GPU_CHECK(s, call) sph_gpu_check((s), (call), #call, __FILE__, __LINE__)
/* After each launch: 0, or -1 when it could not be queued. */
#define SPH_GPU_LAUNCHED(s, what) sph_gpu_check((s), cudaGetLastError(), what, __FILE__, __LINE__)

static unsigned sph_gpu_blocks(size_t count)
{
	return (unsigned)((count + SPH_GPU_BLOCK - 1) / SPH_GPU_BLOCK);
}

/* count elements of T on the device into *p, counted in aux_bytes unless
 * state. 0, or -1 with s->err. */
template <class T> static int sph_gpu_alloc(struct sph_gpu *s, T **p, size_t count, bool state)
{
	const size_t bytes = count * sizeof(T);

	if (s->nallocs == SPH_GPU_MAX_ALLOCS) {
		snprintf(s->err, sizeof s->err, "%s: too many device arrays", s->name);
		return -1;
	}
	if (SPH_GPU_CHECK(s, cudaMalloc((void **)p, bytes)))
		return -1;
	s->allocs[s->nallocs++] = *p;
	if (!state)
		s->aux_bytes += bytes;
	return 0;
}

/* ---- build -------------------------------------------------------------- */

/* Gather the state into sorted order (perm) and swap it in; skey from key
 * too when gather_key. */
static int sph_gpu_reorder(struct sph_gpu *s, bool gather_key)
{
	const int n = s->n;

	sph_gpu_gather_kernel<<<sph_gpu_blocks(n), SPH_GPU_BLOCK, 0, s->stream>>>(
		s->perm, s->pos, s->vel, s->id, gather_key ? s->key : NULL, s->pos_alt, s->vel_alt,
		s->id_alt, gather_key ? s->skey : NULL, n);
	if (SPH_GPU_LAUNCHED(s, "gather kernel"))
		return -1;
	std::swap(s->pos, s->pos_alt);
	std::swap(s->vel, s->vel_alt);
	std::swap(s->id, s->id_alt);
	return 0;
}

/* Sort (key, slot) into (skey, perm) on end_bit bits. */
static int sph_gpu_radix_sort(struct sph_gpu *s)
{
	size_t bytes = s->temp_bytes;

	return SPH_GPU_CHECK(s, cub::DeviceRadixSort::SortPairs(s->temp, bytes, s->key, s->skey,
								 s->iota, s->perm, s->n, 0,
								 s->end_bit, s->stream));
}

static int sph_gpu_build_radix(struct sph_gpu *s)
{
	const int n = s->n;
	const unsigned blocks = sph_gpu_blocks(n);

	sph_gpu_key_kernel<false><<<blocks, SPH_GPU_BLOCK, 0, s->stream>>>(s->pos, s->id, s->key, n,
									   s->grid, s->bad);
	if (SPH_GPU_LAUNCHED(s, "key kernel") || sph_gpu_radix_sort(s) ||
	    SPH_GPU_CHECK(s, cudaMemsetAsync(s->cell_start, 0xff,
					     (size_t)s->grid.ncells * sizeof(unsigned), s->stream)))
		return -1;
	sph_gpu_radix_bounds_kernel<<<blocks, SPH_GPU_BLOCK, 0, s->stream>>>(s->skey, s->cell_start,
									     s->cell_end, n);
	if (SPH_GPU_LAUNCHED(s, "cell bounds kernel"))
		return -1;
	return sph_gpu_reorder(s, false);
}

static int sph_gpu_build_count(struct sph_gpu *s)
{
	const int n = s->n;
	const unsigned blocks = sph_gpu_blocks(n), cells = s->grid.ncells;
	size_t bytes = s->temp_bytes;

	if (SPH_GPU_CHECK(s, cudaMemsetAsync(s->count, 0, ((size_t)cells + 1) * sizeof(unsigned),
					     s->stream)))
		return -1;
	sph_gpu_count_kernel<<<blocks, SPH_GPU_BLOCK, 0, s->stream>>>(s->pos, s->id, s->key, s->rank,
								      s->count, n, s->grid, s->bad);
	if (SPH_GPU_LAUNCHED(s, "count kernel") ||
	    SPH_GPU_CHECK(s, cub::DeviceScan::ExclusiveSum(s->temp, bytes, s->count, s->start,
							    (int)cells + 1, s->stream)))
		return -1;
	sph_gpu_count_scatter_kernel<<<blocks, SPH_GPU_BLOCK, 0, s->stream>>>(s->key, s->rank,
									      s->start, s->perm, n);
	if (SPH_GPU_LAUNCHED(s, "scatter kernel"))
		return -1;
	sph_gpu_count_order_kernel<<<sph_gpu_blocks(cells), SPH_GPU_BLOCK, 0, s->stream>>>(
		s->start, s->perm, cells);
	if (SPH_GPU_LAUNCHED(s, "cell order kernel"))
		return -1;
	return sph_gpu_reorder(s, true);
}

static int sph_gpu_build_zindex(struct sph_gpu *s)
{
	const int n = s->n;
	const unsigned blocks = sph_gpu_blocks(n);
	size_t bytes = s->temp_bytes;

	sph_gpu_key_kernel<true><<<blocks, SPH_GPU_BLOCK, 0, s->stream>>>(s->pos, s->id, s->key, n,
									  s->grid, s->bad);
	if (SPH_GPU_LAUNCHED(s, "key kernel") || sph_gpu_radix_sort(s))
		return -1;
	sph_gpu_zindex_heads_kernel<<<blocks, SPH_GPU_BLOCK, 0, s->stream>>>(s->skey, s->flag, n);
	if (SPH_GPU_LAUNCHED(s, "heads kernel") ||
	    SPH_GPU_CHECK(s, cub::DeviceScan::ExclusiveSum(s->temp, bytes, s->flag, s->run, n,
							    s->stream)))
		return -1;
	sph_gpu_zindex_runs_kernel<<<blocks, SPH_GPU_BLOCK, 0, s->stream>>>(
		s->skey, s->flag, s->run, s->ukey, s->ustart, s->nu, n);
	if (SPH_GPU_LAUNCHED(s, "runs kernel"))
		return -1;
	return sph_gpu_reorder(s, false);
}

/* The variant's structure for the current positions, the state reordered
 * into it. 0 or -1. */
static int sph_gpu_build(struct sph_gpu *s)
{
	switch (s->method) {
	case SPH_GPU_GRID_RADIX:
		return sph_gpu_build_radix(s);
	case SPH_GPU_GRID_COUNT:
		return sph_gpu_build_count(s);
	case SPH_GPU_ZINDEX_CELLS:
		return sph_gpu_build_zindex(s);
	}
	return -1;
}

/* ---- passes ------------------------------------------------------------- */

/* fn(cells) with the variant's cell policy over the current build. */
template <class Fn> static int sph_gpu_with_cells(struct sph_gpu *s, Fn &&fn)
{
	const int *dim = s->grid.dim;

	switch (s->method) {
	case SPH_GPU_GRID_RADIX: {
		const sph_gpu_cells_radix c = { s->skey, s->cell_start, s->cell_end,
						{ dim[0], dim[1], dim[2] } };
		return fn(c);
	}
	case SPH_GPU_GRID_COUNT: {
		const sph_gpu_cells_count c = { s->skey, s->start, { dim[0], dim[1], dim[2] } };
		return fn(c);
	}
	case SPH_GPU_ZINDEX_CELLS: {
		const sph_gpu_cells_zindex c = { s->skey, s->ukey, s->ustart, s->nu,
						 { dim[0], dim[1], dim[2] } };
		return fn(c);
	}
	}
	return -1;
}

/* Densities and pressures; the pairs counted into s->pairs when count. */
static int sph_gpu_density(struct sph_gpu *s, bool count)
{
	return sph_gpu_with_cells(s, [&](const auto &cells) {
		typedef typename std::decay<decltype(cells)>::type cells_t;
		const unsigned blocks = sph_gpu_blocks(s->n);

		if (count)
			sph_gpu_density_kernel<true, cells_t><<<blocks, SPH_GPU_BLOCK, 0, s->stream>>>(
				cells, s->pos, s->rho, s->prh, s->n, s->cs, s->pairs);
		else
			sph_gpu_density_kernel<false, cells_t><<<blocks, SPH_GPU_BLOCK, 0, s->stream>>>(
				cells, s->pos, s->rho, s->prh, s->n, s->cs, s->pairs);
		return SPH_GPU_LAUNCHED(s, "density kernel");
	});
}

static int sph_gpu_force(struct sph_gpu *s)
{
	return sph_gpu_with_cells(s, [&](const auto &cells) {
		typedef typename std::decay<decltype(cells)>::type cells_t;

		sph_gpu_force_kernel<cells_t><<<sph_gpu_blocks(s->n), SPH_GPU_BLOCK, 0, s->stream>>>(
			cells, s->pos, s->vel, s->rho, s->prh, s->acc, s->n, s->cs);
		return SPH_GPU_LAUNCHED(s, "force kernel");
	});
}

static int sph_gpu_integrate(struct sph_gpu *s)
{
	sph_gpu_integrate_kernel<<<sph_gpu_blocks(s->n), SPH_GPU_BLOCK, 0, s->stream>>>(
		s->pos, s->vel, s->acc, s->n, s->cs);
	return SPH_GPU_LAUNCHED(s, "integrate kernel");
}

/* Waits for the queued work; -1 with s->err when it failed or a position
 * was not finite. */
static int sph_gpu_finish(struct sph_gpu *s)
{
	unsigned bad = UINT_MAX;

	if (SPH_GPU_CHECK(s, cudaMemcpyAsync(&bad, s->bad, sizeof bad, cudaMemcpyDeviceToHost,
					     s->stream)) ||
	    SPH_GPU_CHECK(s, cudaStreamSynchronize(s->stream)))
		return -1;
	if (bad != UINT_MAX) {
		snprintf(s->err, sizeof s->err, "%s: particle %u has a non-finite position", s->name,
			 bad);
		s->failed = 1;
		return -1;
	}
	return 0;
}

/* ---- the ops ------------------------------------------------------------ */

/* One step, its phases between the events of marks. */
static int sph_gpu_step(struct sph_gpu *s, cudaEvent_t marks[SPH_GPU_MARKS])
{
	return SPH_GPU_CHECK(s, cudaEventRecord(marks[0], s->stream)) || sph_gpu_build(s) ||
	       SPH_GPU_CHECK(s, cudaEventRecord(marks[1], s->stream)) || sph_gpu_density(s, false) ||
	       SPH_GPU_CHECK(s, cudaEventRecord(marks[2], s->stream)) || sph_gpu_force(s) ||
	       SPH_GPU_CHECK(s, cudaEventRecord(marks[3], s->stream)) || sph_gpu_integrate(s) ||
	       SPH_GPU_CHECK(s, cudaEventRecord(marks[4], s->stream))
		       ? -1
		       : 0;
}

/* Waits for the last of the first steps queued steps of the batch and adds
 * their phase times to t (may be NULL). 0 or -1. */
static int sph_gpu_collect(struct sph_gpu *s, int steps, struct sph_phase_times *t)
{
	if (SPH_GPU_CHECK(s, cudaEventSynchronize(s->ev[steps - 1][SPH_GPU_MARKS - 1])))
		return -1;
	for (int q = 0; q < steps && t; q++) {
		float ms[SPH_GPU_MARKS - 1];

		for (int p = 0; p < SPH_GPU_MARKS - 1; p++)
			if (SPH_GPU_CHECK(s, cudaEventElapsedTime(&ms[p], s->ev[q][p], s->ev[q][p + 1])))
				return -1;
		t->build_s += 1e-3 * ms[0];
		t->density_s += 1e-3 * ms[1];
		t->force_s += 1e-3 * ms[2];
		t->integrate_s += 1e-3 * ms[3];
	}
	return 0;
}

static int sph_gpu_steps(void *ctx, int reps, struct sph_phase_times *t)
{
	struct sph_gpu *s = (struct sph_gpu *)ctx;

	if (s->failed)
		return -1;
	for (int rep = 0; rep < reps; rep++) {
		const int b = rep % SPH_GPU_BATCH;

		if (sph_gpu_step(s, s->ev[b]) != 0)
			return -1;
		if ((b == SPH_GPU_BATCH - 1 || rep == reps - 1) && sph_gpu_collect(s, b + 1, t) != 0)
			return -1;
	}
	return sph_gpu_finish(s);
}

static int sph_gpu_evaluate(void *ctx, int count)
{
	struct sph_gpu *s = (struct sph_gpu *)ctx;
	unsigned long long pairs[2];

	if (s->failed)
		return -1;
	if ((count && SPH_GPU_CHECK(s, cudaMemsetAsync(s->pairs, 0, 2 * sizeof *s->pairs,
						       s->stream))) ||
	    sph_gpu_build(s) || sph_gpu_density(s, count != 0) || sph_gpu_force(s))
		return -1;
	if (count && SPH_GPU_CHECK(s, cudaMemcpyAsync(pairs, s->pairs, sizeof pairs,
						      cudaMemcpyDeviceToHost, s->stream)))
		return -1;
	if (sph_gpu_finish(s) != 0)
		return -1;
	if (count) {
		s->candidates = pairs[0];
		s->neighbours = pairs[1];
	}
	return 0;
}

/* Copies the n elements of size bytes of the slot array src into host
 * buffer stage and waits. 0 or -1. */
static int sph_gpu_download(struct sph_gpu *s, void *stage, const void *src, size_t size)
{
	return SPH_GPU_CHECK(s, cudaMemcpyAsync(stage, src, (size_t)s->n * size,
						cudaMemcpyDeviceToHost, s->stream)) ||
			       SPH_GPU_CHECK(s, cudaStreamSynchronize(s->stream))
		       ? -1
		       : 0;
}

/* out[id[k]] = slot array src[k], for arrays of float4 (out 4n floats). */
static int sph_gpu_read4(struct sph_gpu *s, float4 *stage, const unsigned *id, const float4 *src,
			 float *out)
{
	if (!out)
		return 0;
	if (sph_gpu_download(s, stage, src, sizeof(float4)) != 0)
		return -1;
	for (size_t k = 0; k < (size_t)s->n; k++)
		memcpy(&out[4 * (size_t)id[k]], &stage[k], sizeof(float4));
	return 0;
}

static int sph_gpu_read(void *ctx, float *pos4, float *vel4, float *rho, float *acc4)
{
	struct sph_gpu *s = (struct sph_gpu *)ctx;
	const size_t n = (size_t)s->n;
	unsigned *id = NULL;
	float4 *stage = NULL;
	int rc = -1;

	if (s->failed)
		return -1;
	id = (unsigned *)malloc(n * sizeof *id);
	stage = (float4 *)malloc(n * sizeof *stage);
	if (!id || !stage) {
		snprintf(s->err, sizeof s->err, "%s: out of host memory reading %zu particles",
			 s->name, n);
		goto out_free;
	}
	if (sph_gpu_download(s, id, s->id, sizeof *id) != 0 ||
	    sph_gpu_read4(s, stage, id, s->pos, pos4) != 0 ||
	    sph_gpu_read4(s, stage, id, s->vel, vel4) != 0 ||
	    sph_gpu_read4(s, stage, id, s->acc, acc4) != 0)
		goto out_free;
	if (rho) {
		const float *r = (const float *)stage;

		if (sph_gpu_download(s, stage, s->rho, sizeof(float)) != 0)
			goto out_free;
		for (size_t k = 0; k < n; k++)
			rho[id[k]] = r[k];
	}
	rc = 0;

out_free:
	free(stage);
	free(id);
	return rc;
}

static void sph_gpu_counts(void *ctx, struct sph_counts *c)
{
	const struct sph_gpu *s = (const struct sph_gpu *)ctx;

	c->aux_bytes = s->aux_bytes;
	c->candidates = s->candidates;
	c->neighbours = s->neighbours;
	c->overflow = 0;
}

static const char *sph_gpu_error(void *ctx)
{
	return ((const struct sph_gpu *)ctx)->err;
}

static void sph_gpu_destroy(void *ctx)
{
	struct sph_gpu *s = (struct sph_gpu *)ctx;

	if (!s)
		return;
	if (s->stream)
		cudaStreamSynchronize(s->stream);
	for (int k = 0; k < s->nallocs; k++)
		cudaFree(s->allocs[k]);
	for (int k = 0; k < s->nevents; k++)
		cudaEventDestroy(s->ev[k / SPH_GPU_MARKS][k % SPH_GPU_MARKS]);
	if (s->stream)
		cudaStreamDestroy(s->stream);
	free(s);
}

/* ---- create ------------------------------------------------------------- */

/* The smallest float >= v, and the largest <= v (v not NaN; beyond the
 * floats' range, an infinity). */
static float sph_gpu_float_at_least(double v)
{
	if (fabs(v) > FLT_MAX)
		return v > 0.0 ? INFINITY : -FLT_MAX;
	const float f = (float)v;
	return (double)f < v ? nextafterf(f, INFINITY) : f;
}

static float sph_gpu_float_at_most(double v)
{
	if (fabs(v) > FLT_MAX)
		return v < 0.0 ? -INFINITY : FLT_MAX;
	const float f = (float)v;
	return (double)f > v ? nextafterf(f, -INFINITY) : f;
}

/* The float constants of p; -1 with a message when one is not finite or
 * h, mass, dt are not positive. */
static int sph_gpu_consts_init(struct sph_gpu_consts *c, const struct sph_params *p,
			       const char *name, char *err, size_t errlen)
{
	const double h = p->h, h3 = h * h * h;

	if (!(h > 0.0 && std::isfinite(h) && p->mass > 0.0 && p->dt > 0.0)) {
		snprintf(err, errlen, "%s: h = %g, mass = %g, dt = %g: all must be finite and > 0",
			 name, h, p->mass, p->dt);
		return -1;
	}
	for (int d = 0; d < 3; d++) {
		if (!(fabs(p->gravity[d]) <= FLT_MAX) || std::isnan(p->box_lo[d]) ||
		    std::isnan(p->box_hi[d])) {
			snprintf(err, errlen, "%s: gravity[%d] = %g, box %g .. %g: gravity must be a "
				 "finite float, the box not NaN", name, d, p->gravity[d],
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
		c->box_lo[d] = sph_gpu_float_at_least(p->box_lo[d]);
		c->box_hi[d] = sph_gpu_float_at_most(p->box_hi[d]);
	}
	const float all[10] = { c->h,	c->h2, c->inv_h2, c->c_rho, c->c_force,
				c->mu2, c->rho0, c->k,	  c->dt,    c->e };
	for (int k = 0; k < 10; k++) {
		if (!std::isfinite(all[k]) || (k < 5 && !(all[k] > 0.0f))) {
			snprintf(err, errlen, "%s: the parameters (h = %g, mass = %g, k = %g, "
				 "mu = %g) leave float range", name, h, p->mass, p->k, p->mu);
			return -1;
		}
	}
	return 0;
}

/*
 * The grid over the box, or over the particles' bounds on an axis where
 * the box is open. -1 with a message when the box is inverted, or the grid
 * needs more than SPH_GPU_MAX_CELLS cells (grid variants) or more than
 * SPH_GPU_MORTON_SIDE a side (zindex-cells).
 */
static int sph_gpu_grid_init(struct sph_gpu_grid *g, enum sph_gpu_method method,
			     const struct sph_params *p, const float *pos4, size_t n,
			     const char *name, char *err, size_t errlen)
{
	const bool morton = method == SPH_GPU_ZINDEX_CELLS;
	double cells = 1.0;

	g->cell = p->h * (1.0 + SPH_GPU_GRID_MARGIN);
	for (int d = 0; d < 3; d++) {
		double lo = p->box_lo[d], hi = p->box_hi[d];

		if (lo > hi) {
			snprintf(err, errlen, "%s: box_lo[%d] = %g > box_hi[%d] = %g", name, d, lo,
				 d, hi);
			return -1;
		}
		if (!std::isfinite(lo) || !std::isfinite(hi)) {
			double plo = pos4[d], phi = pos4[d];

			for (size_t i = 1; i < n; i++) {
				plo = fmin(plo, pos4[4 * i + d]);
				phi = fmax(phi, pos4[4 * i + d]);
			}
			lo = std::isfinite(lo) ? lo : plo;
			hi = std::isfinite(hi) ? fmax(hi, lo) : fmax(phi, lo);
		}
		const double side = floor((hi - lo) / g->cell) + 1.0;

		if (morton && !(side <= SPH_GPU_MORTON_SIDE)) {
			snprintf(err, errlen, "%s: the box needs %.0f cells of %g m along axis %d; "
				 "Morton keys take at most %d", name, side, g->cell, d,
				 SPH_GPU_MORTON_SIDE);
			return -1;
		}
		cells *= side;
		if (!morton && !(cells <= (double)SPH_GPU_MAX_CELLS)) {
			snprintf(err, errlen, "%s: a grid of cells of %g m over the box needs more "
				 "than %zu cells", name, g->cell, SPH_GPU_MAX_CELLS);
			return -1;
		}
		g->lo[d] = lo;
		g->dim[d] = (int)side;
	}
	g->ncells = (unsigned)cells;
	return 0;
}

/* Bits that hold every value 0 .. max_value (at least 1). */
static int sph_gpu_bits(unsigned max_value)
{
	int b = 1;

	while (b < 32 && (max_value >> b) != 0)
		b++;
	return b;
}

/* Every device array of s for its method, and CUB's temporary storage.
 * 0, or -1 with s->err. */
static int sph_gpu_alloc_all(struct sph_gpu *s)
{
	const size_t n = (size_t)s->n, cells = s->grid.ncells;
	size_t sort_bytes = 0, scan_bytes = 0;

	if (sph_gpu_alloc(s, &s->pos, n, true) || sph_gpu_alloc(s, &s->vel, n, true) ||
	    sph_gpu_alloc(s, &s->acc, n, true) || sph_gpu_alloc(s, &s->rho, n, true) ||
	    sph_gpu_alloc(s, &s->id, n, false) || sph_gpu_alloc(s, &s->pos_alt, n, false) ||
	    sph_gpu_alloc(s, &s->vel_alt, n, false) || sph_gpu_alloc(s, &s->id_alt, n, false) ||
	    sph_gpu_alloc(s, &s->prh, n, false) || sph_gpu_alloc(s, &s->key, n, false) ||
	    sph_gpu_alloc(s, &s->skey, n, false) || sph_gpu_alloc(s, &s->perm, n, false) ||
	    sph_gpu_alloc(s, &s->bad, 1, false) || sph_gpu_alloc(s, &s->pairs, 2, false))
		return -1;
	switch (s->method) {
	case SPH_GPU_GRID_RADIX:
		if (sph_gpu_alloc(s, &s->iota, n, false) ||
		    sph_gpu_alloc(s, &s->cell_start, cells, false) ||
		    sph_gpu_alloc(s, &s->cell_end, cells, false) ||
		    SPH_GPU_CHECK(s, cub::DeviceRadixSort::SortPairs(NULL, sort_bytes, s->key, s->skey,
								      s->iota, s->perm, s->n, 0,
								      s->end_bit, s->stream)))
			return -1;
		break;
	case SPH_GPU_GRID_COUNT:
		if (sph_gpu_alloc(s, &s->count, cells + 1, false) ||
		    sph_gpu_alloc(s, &s->start, cells + 1, false) ||
		    sph_gpu_alloc(s, &s->rank, n, false) ||
		    SPH_GPU_CHECK(s, cub::DeviceScan::ExclusiveSum(NULL, scan_bytes, s->count, s->start,
								    (int)cells + 1, s->stream)))
			return -1;
		break;
	case SPH_GPU_ZINDEX_CELLS:
		if (sph_gpu_alloc(s, &s->iota, n, false) || sph_gpu_alloc(s, &s->flag, n, false) ||
		    sph_gpu_alloc(s, &s->run, n, false) || sph_gpu_alloc(s, &s->ukey, n, false) ||
		    sph_gpu_alloc(s, &s->ustart, n + 1, false) || sph_gpu_alloc(s, &s->nu, 1, false) ||
		    SPH_GPU_CHECK(s, cub::DeviceRadixSort::SortPairs(NULL, sort_bytes, s->key, s->skey,
								      s->iota, s->perm, s->n, 0,
								      s->end_bit, s->stream)) ||
		    SPH_GPU_CHECK(s, cub::DeviceScan::ExclusiveSum(NULL, scan_bytes, s->flag, s->run,
								    s->n, s->stream)))
			return -1;
		break;
	}
	s->temp_bytes = sort_bytes > scan_bytes ? sort_bytes : scan_bytes;
	if (s->temp_bytes == 0)
		s->temp_bytes = 1;
	return sph_gpu_alloc(s, &s->temp, s->temp_bytes, false);
}

/* The caller's particles on the device (w = 0), ids 0 .. n - 1, density
 * and acceleration zero until the first evaluation. 0 or -1. */
static int sph_gpu_upload(struct sph_gpu *s, const float *pos4, const float *vel4)
{
	const size_t n = (size_t)s->n;
	float4 *stage = (float4 *)malloc(2 * n * sizeof *stage);
	int rc = -1;

	if (!stage) {
		snprintf(s->err, sizeof s->err, "%s: out of host memory for %zu particles", s->name,
			 n);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		stage[i] = make_float4(pos4[4 * i], pos4[4 * i + 1], pos4[4 * i + 2], 0.0f);
		stage[n + i] = make_float4(vel4[4 * i], vel4[4 * i + 1], vel4[4 * i + 2], 0.0f);
	}
	if (SPH_GPU_CHECK(s, cudaMemcpyAsync(s->pos, stage, n * sizeof *stage,
					     cudaMemcpyHostToDevice, s->stream)) ||
	    SPH_GPU_CHECK(s, cudaMemcpyAsync(s->vel, stage + n, n * sizeof *stage,
					     cudaMemcpyHostToDevice, s->stream)) ||
	    SPH_GPU_CHECK(s, cudaMemsetAsync(s->rho, 0, n * sizeof *s->rho, s->stream)) ||
	    SPH_GPU_CHECK(s, cudaMemsetAsync(s->acc, 0, n * sizeof *s->acc, s->stream)) ||
	    SPH_GPU_CHECK(s, cudaMemsetAsync(s->bad, 0xff, sizeof *s->bad, s->stream)) ||
	    SPH_GPU_CHECK(s, cudaMemsetAsync(s->pairs, 0, 2 * sizeof *s->pairs, s->stream)))
		goto out_free;
	sph_gpu_iota_kernel<<<sph_gpu_blocks(n), SPH_GPU_BLOCK, 0, s->stream>>>(s->id, s->n);
	if (SPH_GPU_LAUNCHED(s, "iota kernel"))
		goto out_free;
	if (s->iota) {
		sph_gpu_iota_kernel<<<sph_gpu_blocks(n), SPH_GPU_BLOCK, 0, s->stream>>>(s->iota, s->n);
		if (SPH_GPU_LAUNCHED(s, "iota kernel"))
			goto out_free;
	}
	rc = SPH_GPU_CHECK(s, cudaStreamSynchronize(s->stream));

out_free:
	free(stage);
	return rc;
}

/* Index of the first particle with a non-finite coordinate in pos4 or
 * vel4, or n. */
static size_t sph_gpu_first_nonfinite(const float *pos4, const float *vel4, size_t n)
{
	for (size_t i = 0; i < n; i++)
		for (int c = 0; c < 3; c++)
			if (!std::isfinite(pos4[4 * i + c]) || !std::isfinite(vel4[4 * i + c]))
				return i;
	return n;
}

/* Stream, events, arrays and particles of s. 0, or -1 with s->err. */
static int sph_gpu_start(struct sph_gpu *s, const float *pos4, const float *vel4)
{
	if (SPH_GPU_CHECK(s, cudaStreamCreateWithFlags(&s->stream, cudaStreamNonBlocking)))
		return -1;
	for (; s->nevents < SPH_GPU_BATCH * SPH_GPU_MARKS; s->nevents++)
		if (SPH_GPU_CHECK(s, cudaEventCreate(&s->ev[s->nevents / SPH_GPU_MARKS]
							   [s->nevents % SPH_GPU_MARKS])))
			return -1;
	if (sph_gpu_alloc_all(s) != 0)
		return -1;
	return sph_gpu_upload(s, pos4, vel4);
}

static int sph_gpu_create(enum sph_gpu_method method, void **ctx, const float *pos4,
			  const float *vel4, size_t n, const struct sph_params *p, char *err,
			  size_t errlen)
{
	const char *name = sph_gpu_names[method];
	struct sph_gpu *s;
	size_t bad;

	*ctx = NULL;
	if (n == 0 || n > (size_t)INT_MAX) {
		snprintf(err, errlen, "%s: n = %zu particles; allowed 1 .. %d", name, n, INT_MAX);
		return -1;
	}
	bad = sph_gpu_first_nonfinite(pos4, vel4, n);
	if (bad < n) {
		snprintf(err, errlen, "%s: particle %zu has a non-finite position or velocity", name,
			 bad);
		return -1;
	}
	s = (struct sph_gpu *)calloc(1, sizeof *s);
	if (!s) {
		snprintf(err, errlen, "%s: out of host memory", name);
		return -1;
	}
	s->method = method;
	s->name = name;
	s->n = (int)n;
	if (sph_gpu_consts_init(&s->cs, p, name, err, errlen) != 0 ||
	    sph_gpu_grid_init(&s->grid, method, p, pos4, n, name, err, errlen) != 0)
		goto out_destroy;
	s->end_bit = method == SPH_GPU_ZINDEX_CELLS
			     ? 3 * sph_gpu_bits((unsigned)std::max(
					   s->grid.dim[0], std::max(s->grid.dim[1], s->grid.dim[2])) -
				       1)
			     : sph_gpu_bits(s->grid.ncells - 1);
	if (sph_gpu_start(s, pos4, vel4) != 0) {
		snprintf(err, errlen, "%s", s->err);
		goto out_destroy;
	}
	*ctx = s;
	return 0;

out_destroy:
	sph_gpu_destroy(s);
	return -1;
}

static int sph_gpu_create_grid_radix(void **ctx, const float *pos4, const float *vel4, size_t n,
				     const struct sph_params *p, char *err, size_t errlen)
{
	return sph_gpu_create(SPH_GPU_GRID_RADIX, ctx, pos4, vel4, n, p, err, errlen);
}

static int sph_gpu_create_grid_count(void **ctx, const float *pos4, const float *vel4, size_t n,
				     const struct sph_params *p, char *err, size_t errlen)
{
	return sph_gpu_create(SPH_GPU_GRID_COUNT, ctx, pos4, vel4, n, p, err, errlen);
}

static int sph_gpu_create_zindex_cells(void **ctx, const float *pos4, const float *vel4, size_t n,
				       const struct sph_params *p, char *err, size_t errlen)
{
	return sph_gpu_create(SPH_GPU_ZINDEX_CELLS, ctx, pos4, vel4, n, p, err, errlen);
}

#define SPH_GPU_OPS(create_fn)                                                                 \
	{                                                                                      \
		create_fn, sph_gpu_steps, sph_gpu_evaluate, sph_gpu_read, sph_gpu_counts,      \
			sph_gpu_error, sph_gpu_destroy                                         \
	}

extern "C" const struct sph_ops sph_gpu_grid_radix_ops = SPH_GPU_OPS(sph_gpu_create_grid_radix);
extern "C" const struct sph_ops sph_gpu_grid_count_ops = SPH_GPU_OPS(sph_gpu_create_grid_count);
extern "C" const struct sph_ops sph_gpu_zindex_cells_ops =
	SPH_GPU_OPS(sph_gpu_create_zindex_cells);
