/* sph_nlist.cu - SPH on the GPU over neighbour lists: sph-gpu-nlist, sph-gpu-verlet, sph-gpu-verlet-fine
 *
 * Variants (kernels/sph/sph_gpu.h):
 *   sph-gpu-nlist   every step: a counting-sort grid of cells of side h,
 *                   the fluid reordered by cell, and one pass that walks
 *                   the 27 cells around each particle once, summing its
 *                   density and writing the list of its neighbours
 *                   (r < h); the force pass then reads only that list (no
 *                   distance test wasted on the ~6 candidates per
 *                   neighbour a cell walk makes, and no warp waiting on a
 *                   lane that found a neighbour), and integrates in the
 *                   same pass.
 *   sph-gpu-verlet  the same with Verlet lists: cells of side h + skin,
 *                   lists of the pairs within h + skin, kept over several
 *                   steps; each step's density pass filters them to r < h.
 *                   They are rebuilt (sort, reorder, lists) on the device,
 *                   in the step after some particle has moved more than
 *                   skin / 2 since the last build: two particles then
 *                   within h were within h + skin at the build, so the
 *                   neighbour set is exactly a fresh search's.
 *   sph-gpu-verlet-fine  sph-gpu-verlet whose list pass walks cells of half
 *                   the side, (h + skin) / 2: the 5 x 5 rows of 5 cells
 *                   around a particle, each row cut to the cells the
 *                   sphere of radius h + skin can reach from the
 *                   particle's own position (a row the sphere misses is
 *                   skipped), so that a rebuild tests ~2.5 candidates per
 *                   list entry instead of 27 cells' ~6.
 *
 * Walls. The boundary particles never move, so they are sorted by the
 * same cells once, at create, into a second, static structure (its own
 * cell starts); every walk visits the 27 cells in both. A list entry is a
 * fluid slot, or a wall index with bit 31 set.
 *
 * Threads per particle. T threads (T = 1, 2, 4 or 8, more at small N:
 * see sph_nlist_threads) share a particle: thread t walks the cell rows
 * t, t + T, ... of the 18 (9 rows of 3 contiguous cells in each
 * structure) and keeps its own sub-list; density and force sums are added
 * across the T lanes by shuffles in a fixed order. At 16,128 particles a
 * thread per particle gives 63 blocks for 132 SMs, each thread a serial
 * walk of ~250 candidates; T = 8 gives 8x the threads and 1/8 the walk.
 *
 * The step is one CUDA graph: a batch of SPH_GPU_BATCH steps is captured
 * once and replayed, with event nodes between the phases. The density
 * pass writes what the force pass reads of each particle as two float4,
 * (x, y, z, p) and (vx, vy, vz, 1 / (2 rho)), so a neighbour costs two
 * loads, and the force pass integrates in place (it never reads
 * positions or velocities). sph-gpu-verlet's rebuild is the body of a
 * conditional (IF) node of that graph, set by a one-thread kernel from
 * the device flag `need`, so a replay between rebuilds skips it whole;
 * outside the graph every rebuild kernel starts by reading `need` and
 * returns at once when it is clear. The sort's
 * scan is written here (three small kernels) rather than CUB's, so that
 * it can skip too.
 *
 * Determinism. The counting sort's ranks come from atomics, so each
 * cell's slice is then put in slot order (as grid-count does); lists are
 * written in walk order; sums run in list order; lanes are added in a
 * fixed order. Same input, same bits.
 *
 * Planted bugs (tests/sph/gpu_planted_sph.cu includes this file with
 * SPH_GPU_PLANTED defined, which leaves this file's ops out): a context
 * whose name says "planted" walks each row one cell short at +x (R = 1:
 * the cell at +x left out of the 27; R = 2: the farthest cell the reach
 * allows). The harness's objects instantiate PLANT = 0 only.
 *
 * Phases (the CSV's columns): build = sort and reorder (and, for
 * sph-gpu-verlet, the list pass); density = the list pass of sph-gpu-nlist
 * (cell walk, density, lists) or the density pass over the lists of
 * sph-gpu-verlet; force = forces and integration together; integrate = 0.
 */
#include "sph_gpu_common.cuh"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <type_traits>
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>

/* The pruned walk of sph-gpu-verlet-fine reaches a hair beyond the list
 * radius (relative, and 8 float ulps of the position), so that no float
 * rounding of a cell's bounds or of the reach drops a cell holding a
 * pair; it only adds candidates. */
#define SPH_NLIST_PRUNE_MARGIN 1e-3f
#define SPH_NLIST_PRUNE_ULPS 1e-6f
/* Bit 31 of a list entry: a wall index, not a fluid slot. */
#define SPH_NLIST_WALL 0x80000000u
/* List entries per particle (all its threads together), by variant. */
#define SPH_NLIST_CAP 128
#define SPH_VERLET_CAP 224
/* The skin of sph-gpu-verlet, times h (SPH_VERLET_SKIN overrides). Swept
 * on the H200 at 16,128, 255,600 and 4.2 million particles (0.05 .. 0.3):
 * 0.1 is best or within 2 % of it at each; longer lists cost more in the
 * density and force passes than the rarer rebuilds save. */
#define SPH_VERLET_SKIN 0.1
/* The own scan: threads per block and items per thread. */
#define SPH_NLIST_SCAN_THREADS 256
#define SPH_NLIST_SCAN_ITEMS 4
#define SPH_NLIST_SCAN_TILE (SPH_NLIST_SCAN_THREADS * SPH_NLIST_SCAN_ITEMS)

/* The variants this file builds (struct sph_gpu_method's kind): lists
 * rebuilt every step, Verlet lists kept while no particle has moved half
 * the skin, and those walked by pruned cell rows. */
enum sph_nlist_kind { SPH_NLIST_LISTS, SPH_NLIST_VERLET, SPH_NLIST_VERLET_FINE };

struct sph_nlist {
	struct sph_gpu base;
	int verlet;	/* 0: sph-gpu-nlist, 1: sph-gpu-verlet(-fine) */
	int reach;	/* cells a side the walk reaches: 1, or 2 (sph-gpu-verlet-fine) */
	int plant;	/* the tests' planted copy (SPH_GPU_PLANTED builds only) */
	int threads;	/* T */
	int cap;	/* list entries per thread */
	float skin;	/* list radius - h [m] */
	struct sph_gpu_grid grid; /* cells of side (h + skin) / reach */

	/* fluid: the sort's targets, the positions at the last build, and
	 * what the force pass reads of each slot: (x, y, z, p) and
	 * (vx, vy, vz, 1 / (2 rho)) */
	float4 *spos, *svel, *pos_ref, *xp, *vh;
	unsigned *sid;
	/* the counting sort */
	unsigned *cell, *rank, *count, *start, *perm, *tile_sum;
	unsigned ntiles;
	/* the walls, sorted once: (x, y, z, -psi / m), cell starts */
	float4 *wall;
	unsigned *wstart;
	/* the lists: r < h (sph-gpu-nlist) or r < h + skin (sph-gpu-verlet) */
	unsigned *list, *lcount;
	int *need;	/* rebuild at the next step */
	int *overflow;	/* a sub-list was full */

	cudaGraphExec_t graph;	/* a batch of steps */
	cudaStream_t body;	/* sph-gpu-verlet: captures the rebuild's body */
};

/* ---- the counting sort ---------------------------------------------------- */

/* Nothing to do at this step (sph-gpu-verlet between rebuilds). */
__device__ __forceinline__ bool sph_nlist_skip(const int *need)
{
	return need && !*need;
}

/* Cell of fluid slot i, its rank in the cell; a non-finite position
 * reported in bad. */
static __global__ void sph_nlist_count_kernel(const float4 *__restrict__ pos,
					      const unsigned *__restrict__ id,
					      unsigned *__restrict__ cell, unsigned *__restrict__ rank,
					      unsigned *__restrict__ count, int n, sph_gpu_grid g,
					      unsigned *__restrict__ bad, const int *need)
{
	const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;

	if (sph_nlist_skip(need) || i >= (unsigned)n)
		return;
	const float4 x = pos[i];
	const int3 c = sph_gpu_cell_of(g, x);
	const unsigned k = sph_gpu_linear(c.x, c.y, c.z, g.dim);

	sph_gpu_check_finite(x, id[i], bad);
	cell[i] = k;
	rank[i] = atomicAdd(&count[k], 1u);
}

/* tile_sum[b] = the sum of count[] over tile b (count has m entries). */
static __global__ void __launch_bounds__(SPH_NLIST_SCAN_THREADS)
	sph_nlist_scan_tiles_kernel(const unsigned *__restrict__ count, unsigned *__restrict__ tile_sum,
				    unsigned m, const int *need)
{
	typedef cub::BlockReduce<unsigned, SPH_NLIST_SCAN_THREADS> reduce_t;
	__shared__ typename reduce_t::TempStorage tmp;
	const unsigned base = blockIdx.x * SPH_NLIST_SCAN_TILE;
	unsigned sum = 0;

	if (sph_nlist_skip(need))
		return;
	for (int k = 0; k < SPH_NLIST_SCAN_ITEMS; k++) {
		const unsigned j = base + k * SPH_NLIST_SCAN_THREADS + threadIdx.x;

		sum += j < m ? count[j] : 0u;
	}
	sum = reduce_t(tmp).Sum(sum);
	if (threadIdx.x == 0)
		tile_sum[blockIdx.x] = sum;
}

/* Running prefix of the single-block scan over the tile sums. */
struct sph_nlist_prefix {
	unsigned total;
	__device__ unsigned operator()(unsigned block_sum)
	{
		const unsigned old = total;

		total += block_sum;
		return old;
	}
};

/* The tile sums turned into their exclusive prefix sums, in place (one
 * block). */
static __global__ void __launch_bounds__(SPH_NLIST_SCAN_THREADS)
	sph_nlist_scan_sums_kernel(unsigned *__restrict__ tile_sum, unsigned ntiles, const int *need)
{
	typedef cub::BlockScan<unsigned, SPH_NLIST_SCAN_THREADS> scan_t;
	__shared__ typename scan_t::TempStorage tmp;
	sph_nlist_prefix prefix = { 0u };

	if (sph_nlist_skip(need))
		return;
	for (unsigned base = 0; base < ntiles; base += SPH_NLIST_SCAN_THREADS) {
		const unsigned j = base + threadIdx.x;
		unsigned v = j < ntiles ? tile_sum[j] : 0u;

		scan_t(tmp).ExclusiveSum(v, v, prefix);
		__syncthreads();
		if (j < ntiles)
			tile_sum[j] = v;
	}
}

/* start[j] = tile_sum[tile] + the exclusive sum of count[] within the
 * tile: the cell starts (start[m - 1] = the total when count[m - 1] = 0). */
static __global__ void __launch_bounds__(SPH_NLIST_SCAN_THREADS)
	sph_nlist_scan_apply_kernel(const unsigned *__restrict__ count,
				    const unsigned *__restrict__ tile_sum, unsigned *__restrict__ start,
				    unsigned m, const int *need)
{
	typedef cub::BlockScan<unsigned, SPH_NLIST_SCAN_THREADS> scan_t;
	__shared__ typename scan_t::TempStorage tmp;
	const unsigned base = blockIdx.x * SPH_NLIST_SCAN_TILE + threadIdx.x * SPH_NLIST_SCAN_ITEMS;
	unsigned v[SPH_NLIST_SCAN_ITEMS];

	if (sph_nlist_skip(need))
		return;
	for (int k = 0; k < SPH_NLIST_SCAN_ITEMS; k++)
		v[k] = base + k < m ? count[base + k] : 0u;
	scan_t(tmp).ExclusiveSum(v, v);
	for (int k = 0; k < SPH_NLIST_SCAN_ITEMS; k++)
		if (base + k < m)
			start[base + k] = tile_sum[blockIdx.x] + v[k];
}

/* Slot i to place start[cell] + rank (the ranks of a cell are distinct and
 * below its count, so every place is written once). */
static __global__ void sph_nlist_scatter_kernel(const unsigned *__restrict__ cell,
						const unsigned *__restrict__ rank,
						const unsigned *__restrict__ start,
						unsigned *__restrict__ perm, int n, const int *need)
{
	const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;

	if (sph_nlist_skip(need) || i >= (unsigned)n)
		return;
	perm[start[cell[i]] + rank[i]] = i;
}

/* Each cell's slice of perm put in ascending old slot (insertion sort, one
 * thread per cell), and its count zeroed for the next build. */
static __global__ void sph_nlist_order_kernel(const unsigned *__restrict__ start,
					      unsigned *__restrict__ perm,
					      unsigned *__restrict__ count, unsigned ncells,
					      const int *need)
{
	const unsigned c = blockIdx.x * blockDim.x + threadIdx.x;

	if (sph_nlist_skip(need) || c >= ncells)
		return;
	const unsigned lo = start[c], hi = start[c + 1];

	count[c] = 0u;
	for (unsigned a = lo + 1; a < hi; a++) {
		const unsigned v = perm[a];
		unsigned b = a;

		for (; b > lo && perm[b - 1] > v; b--)
			perm[b] = perm[b - 1];
		perm[b] = v;
	}
}

/* The state of old slot perm[i] to sorted slot i of the sort's buffers. */
static __global__ void sph_nlist_gather_kernel(const unsigned *__restrict__ perm,
					       const float4 *__restrict__ pos,
					       const float4 *__restrict__ vel,
					       const unsigned *__restrict__ id, float4 *__restrict__ spos,
					       float4 *__restrict__ svel, unsigned *__restrict__ sid,
					       int n, const int *need)
{
	const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;

	if (sph_nlist_skip(need) || i >= (unsigned)n)
		return;
	const unsigned old = perm[i];

	spos[i] = pos[old];
	svel[i] = vel[old];
	sid[i] = id[old];
}

/* ---- lists ---------------------------------------------------------------- */

/* The cells of one structure a walk visits. */
struct sph_nlist_cells {
	const float4 *__restrict__ x;
	const unsigned *__restrict__ start;
};

/* The shuffle mask of the T lanes of this thread's group. */
template <int T> __device__ __forceinline__ unsigned sph_nlist_group_mask()
{
	return T == 32 ? 0xffffffffu : ((1u << T) - 1u) << ((threadIdx.x & 31u) & ~(unsigned)(T - 1));
}

/* v summed over the T lanes of the group, the same on every lane (a fixed
 * butterfly, so the same bits every run). */
template <int T> __device__ __forceinline__ float sph_nlist_group_sum(float v, unsigned mask)
{
	for (int off = T / 2; off > 0; off >>= 1)
		v += __shfl_xor_sync(mask, v, off, T);
	return v;
}

/*
 * Index of entry k of thread t of slot i: entry k of every lane side by
 * side, so that a warp reading its lists in step reads whole sectors.
 * (Each thread's entries contiguous instead made the list and density
 * passes 3 times slower at 4.2 million particles, measured.)
 */
template <int T> __device__ __forceinline__ size_t sph_nlist_at(unsigned k, unsigned i, unsigned t,
								 int n)
{
	return ((size_t)k * (size_t)n + i) * T + t;
}

/* The first and last cell (x0, x1) of row (y, z), R cells from xi's own,
 * that a sphere of radius rp around xi can reach; false when it misses
 * the row. R = 1: the whole row of three. R = 2 (cells of side rp / 2 or
 * more): the row's gap to xi in y and z, a lower bound of any of its
 * particles' (edge cells hold the particles clamped into them, which are
 * only farther), leaves a reach in x of sqrt(rp^2 - gap^2). */
template <int R, int PLANT>
__device__ __forceinline__ bool sph_nlist_row(const sph_gpu_grid &g, float4 xi, int3 c, int y,
					      int z, float rp, int &x0, int &x1)
{
	if (R == 1) {
		x0 = max(c.x - 1, 0);
		x1 = min(PLANT ? c.x : c.x + 1, g.dim[0] - 1);
		return true;
	}
	const float gy = y > c.y ? (float)(g.lo[1] + y * g.cell) - xi.y
			 : y < c.y ? xi.y - (float)(g.lo[1] + (y + 1) * g.cell) : 0.0f;
	const float gz = z > c.z ? (float)(g.lo[2] + z * g.cell) - xi.z
			 : z < c.z ? xi.z - (float)(g.lo[2] + (z + 1) * g.cell) : 0.0f;
	const float ay = fmaxf(gy, 0.0f), az = fmaxf(gz, 0.0f);
	const float rpi = rp + SPH_NLIST_PRUNE_ULPS * (fabsf(xi.x) + fabsf(xi.y) + fabsf(xi.z));
	const float e2 = rpi * rpi - ay * ay - az * az;

	if (!(e2 > 0.0f))
		return false;
	const float ext = sqrtf(e2);

	x0 = max(sph_gpu_axis_cell(xi.x - ext, g.lo[0], g.cell, g.dim[0]), c.x - R);
	x1 = min(sph_gpu_axis_cell(xi.x + ext, g.lo[0], g.cell, g.dim[0]), c.x + R);
	if (PLANT && x1 > c.x)
		x1--;
	return true;
}

/*
 * The list pass of a sorted slot i and its thread t (of T): walks cell
 * rows t, t + T, ... of the 2 (2R + 1)^2 (fluid rows first, then the
 * walls', each row 2R + 1 contiguous cells, cut by sph_nlist_row) with
 * list radius^2 r2_list, writing every pair
 * j != i with r^2 < r2_list to its sub-list. Thread 0 copies the slot
 * from the sort's buffers to the state (and pos_ref). With DENSITY
 * (sph-gpu-nlist, r2_list = h^2) the density sum too (i itself
 * included), and what the force pass reads of the slot: rho, xp =
 * (x, y, z, p) and vh = (vx, vy, vz, 1 / (2 rho)).
 */
template <int T, int R, bool DENSITY, bool COUNT, int PLANT>
static __global__ void __launch_bounds__(SPH_GPU_BLOCK)
	sph_nlist_list_kernel(sph_nlist_cells fluid, sph_nlist_cells walls,
			      const float4 *__restrict__ svel, const unsigned *__restrict__ sid,
			      float4 *__restrict__ pos, float4 *__restrict__ vel,
			      unsigned *__restrict__ id, float4 *__restrict__ pos_ref,
			      unsigned *__restrict__ list, unsigned *__restrict__ lcount, int cap,
			      float r2_list, float *__restrict__ rho, float4 *__restrict__ xp,
			      float4 *__restrict__ vh, int n, sph_gpu_grid g,
			      const __grid_constant__ sph_consts cs,
			      unsigned long long *__restrict__ pairs, int *__restrict__ overflow,
			      const int *need, float rp)
{
	constexpr unsigned SIDE = 2 * R + 1, ROWS = SIDE * SIDE;

	const unsigned gtid = blockIdx.x * blockDim.x + threadIdx.x;
	const unsigned i = gtid / T, t = gtid % T;
	const unsigned mask = sph_nlist_group_mask<T>();
	sph_gpu_pairs pc = { 0, 0 };
	float sum = 0.0f;
	unsigned k = 0;

	if (sph_nlist_skip(need))
		return;
	if (i < (unsigned)n) {
		const float4 xi = fluid.x[i];
		const int3 c = sph_gpu_cell_of(g, xi);

		for (unsigned r = t; r < 2 * ROWS; r += T) {
			const bool wall = r >= ROWS;
			const int y = c.y + (int)(r % ROWS % SIDE) - R, z = c.z + (int)(r % ROWS / SIDE) - R;
			int x0, x1;

			if (y < 0 || z < 0 || y >= g.dim[1] || z >= g.dim[2] ||
			    !sph_nlist_row<R, PLANT>(g, xi, c, y, z, rp, x0, x1) || x0 > x1)
				continue;
			const float4 *__restrict__ X = wall ? walls.x : fluid.x;
			const unsigned *__restrict__ S = wall ? walls.start : fluid.start;
			const unsigned row = sph_gpu_linear(0, y, z, g.dim);
			const unsigned lo = S[row + x0], hi = S[row + x1 + 1];

			for (unsigned j = lo; j < hi; j++) {
				const float4 xj = X[j];
				// r_ij, r^2 [8 FLOPS]
				const float dx = xj.x - xi.x, dy = xj.y - xi.y, dz = xj.z - xi.z;
				const float r2 = dx * dx + dy * dy + dz * dz;
				const bool other = wall || j != i;

				// sum += |w_j| q^3 where r < h [6 FLOPS]
				if (DENSITY && r2 < cs.h2)
					sum += fabsf(xj.w) * sph_poly6_q3(r2, cs.inv_h2);
				if (COUNT && other) {
					pc.candidates++;
					pc.neighbours += r2 < cs.h2;
				}
				if (!other || !(r2 < r2_list))
					continue;
				if (k < (unsigned)cap)
					list[sph_nlist_at<T>(k, i, t, n)] = wall ? j | SPH_NLIST_WALL : j;
				k++;
			}
		}
		lcount[(size_t)i * T + t] = min(k, (unsigned)cap);
		if (k > (unsigned)cap)
			*overflow = 1;
		if (DENSITY)
			sum = sph_nlist_group_sum<T>(sum, mask);
		if (t == 0) {
			const float4 v = svel[i];

			pos[i] = xi;
			vel[i] = v;
			id[i] = sid[i];
			pos_ref[i] = xi;
			if (DENSITY) {
				float r, p, hinv;

				sph_eos(sum, cs.c_rho, cs.k, cs.rho0, &r, &p, &hinv);
				rho[i] = r;
				xp[i] = make_float4(xi.x, xi.y, xi.z, p);
				vh[i] = make_float4(v.x, v.y, v.z, hinv);
			}
		}
	}
	if (COUNT)
		sph_gpu_add_pairs(pairs, pc);
}

/* The list entry e as a position: a wall's (w < 0) or a fluid slot's
 * from x (pos: w = 1; xp: w = its pressure, >= 0). */
__device__ __forceinline__ float4 sph_nlist_entry_pos(unsigned e, const float4 *__restrict__ x,
						      const float4 *__restrict__ wall)
{
	return e & SPH_NLIST_WALL ? wall[e & ~SPH_NLIST_WALL] : x[e];
}

/* sph-gpu-verlet: density of every slot from its Verlet list (i itself
 * included; an entry counts where r < h), and rho, xp, vh as the list
 * pass of sph-gpu-nlist writes them; pairs counted with COUNT (a
 * candidate: a list entry). */
template <int T, bool COUNT>
static __global__ void __launch_bounds__(SPH_GPU_BLOCK)
	sph_nlist_density_kernel(const float4 *__restrict__ pos, const float4 *__restrict__ vel,
				 const float4 *__restrict__ wall, const unsigned *__restrict__ list,
				 const unsigned *__restrict__ lcount, float *__restrict__ rho,
				 float4 *__restrict__ xp, float4 *__restrict__ vh, int n,
				 const __grid_constant__ sph_consts cs,
				 unsigned long long *__restrict__ pairs)
{
	const unsigned gtid = blockIdx.x * blockDim.x + threadIdx.x;
	const unsigned i = gtid / T, t = gtid % T;
	const unsigned mask = sph_nlist_group_mask<T>();
	sph_gpu_pairs pc = { 0, 0 };

	if (i < (unsigned)n) {
		const float4 xi = pos[i];
		const unsigned m = lcount[(size_t)i * T + t];
		// i itself: q = 1 [0 FLOPS]
		float sum = t == 0 ? 1.0f : 0.0f;

		for (unsigned k = 0; k < m; k++) {
			const unsigned e = list[sph_nlist_at<T>(k, i, t, n)];
			/* a fluid slot's pos.w is its weight, 1 */
			const float4 xj = sph_nlist_entry_pos(e, pos, wall);

			sph_gpu_density_pair<COUNT>(xi, xj, true, cs.h2, cs.inv_h2, sum, pc);
		}
		sum = sph_nlist_group_sum<T>(sum, mask);
		if (t == 0) {
			const float4 v = vel[i];
			float r, p, hinv;

			sph_eos(sum, cs.c_rho, cs.k, cs.rho0, &r, &p, &hinv);
			rho[i] = r;
			xp[i] = make_float4(xi.x, xi.y, xi.z, p);
			vh[i] = make_float4(v.x, v.y, v.z, hinv);
		}
	}
	if (COUNT)
		sph_gpu_add_pairs(pairs, pc);
}

/* The surface criterion of every slot from its list (an entry counts
 * where it is a fluid slot with r < h), into flag. */
template <int T>
static __global__ void __launch_bounds__(SPH_GPU_BLOCK)
	sph_nlist_surface_kernel(const float4 *__restrict__ pos, const unsigned *__restrict__ list,
				 const unsigned *__restrict__ lcount, unsigned char *__restrict__ flag,
				 int n, float h2, sph_gpu_surface_crit crit)
{
	const unsigned gtid = blockIdx.x * blockDim.x + threadIdx.x;
	const unsigned i = gtid / T, t = gtid % T;
	const unsigned mask = sph_nlist_group_mask<T>();

	if (i >= (unsigned)n)
		return;
	const float4 xi = pos[i];
	const unsigned m = lcount[(size_t)i * T + t];
	sph_gpu_surface_sum a = { 0.0f, 0.0f, 0.0f, 0.0f };

	for (unsigned k = 0; k < m; k++) {
		const unsigned e = list[sph_nlist_at<T>(k, i, t, n)];

		if (!(e & SPH_NLIST_WALL))
			sph_gpu_surface_pair(xi, pos[e], true, h2, a);
	}
	a.dx = sph_nlist_group_sum<T>(a.dx, mask);
	a.dy = sph_nlist_group_sum<T>(a.dy, mask);
	a.dz = sph_nlist_group_sum<T>(a.dz, mask);
	a.n = sph_nlist_group_sum<T>(a.n, mask);
	if (t == 0)
		flag[i] = sph_gpu_surface_flag(a, crit);
}

/*
 * Forces of every slot from its list, reading xp and vh (two loads a
 * neighbour); with INTEGRATE, symplectic Euler too, the new state
 * written to pos and vel in place (no thread of this pass reads them),
 * and need raised when the slot has moved more than half_skin from
 * pos_ref (need NULL: no check).
 */
template <int T, bool INTEGRATE>
static __global__ void __launch_bounds__(SPH_GPU_BLOCK)
	sph_nlist_force_kernel(const float4 *__restrict__ xp, const float4 *__restrict__ vh,
			       const float4 *__restrict__ wall, const float *__restrict__ rho,
			       const unsigned *__restrict__ list, const unsigned *__restrict__ lcount,
			       float4 *__restrict__ acc, float4 *__restrict__ pos,
			       float4 *__restrict__ vel, const float4 *__restrict__ pos_ref,
			       float half_skin2, int n, const __grid_constant__ sph_consts cs,
			       unsigned long long *__restrict__ clamps, int *need)
{
	const unsigned gtid = blockIdx.x * blockDim.x + threadIdx.x;
	const unsigned i = gtid / T, t = gtid % T;
	const unsigned mask = sph_nlist_group_mask<T>();

	if (i >= (unsigned)n)
		return; /* whole groups leave together: T divides the block */
	sph_gpu_force_acc f = sph_gpu_force_start(xp[i], vh[i], rho[i], cs);
	const unsigned m = lcount[(size_t)i * T + t];

	for (unsigned k = 0; k < m; k++) {
		const unsigned e = list[sph_nlist_at<T>(k, i, t, n)];
		const float4 xj = sph_nlist_entry_pos(e, xp, wall);

		sph_gpu_force_pair(f, xj, cs, [&](float4 &vj, float &pj, float &hinv_j) {
			vj = vh[e];
			pj = xj.w;
			hinv_j = vj.w;
		});
	}
	f.P.x = sph_nlist_group_sum<T>(f.P.x, mask);
	f.P.y = sph_nlist_group_sum<T>(f.P.y, mask);
	f.P.z = sph_nlist_group_sum<T>(f.P.z, mask);
	f.V.x = sph_nlist_group_sum<T>(f.V.x, mask);
	f.V.y = sph_nlist_group_sum<T>(f.V.y, mask);
	f.V.z = sph_nlist_group_sum<T>(f.V.z, mask);
	if (t != 0)
		return;
	const float4 a = sph_gpu_force_end(f, cs);

	acc[i] = a;
	if (!INTEGRATE)
		return;
	float4 x = make_float4(f.x.x, f.x.y, f.x.z, 1.0f), v = make_float4(f.v.x, f.v.y, f.v.z, 0.0f);
	const int c = sph_gpu_advance4(x, v, a, cs);

	pos[i] = x;
	vel[i] = v;
	if (c)
		atomicAdd(clamps, (unsigned long long)c);
	if (need) {
		const float4 r = pos_ref[i];
		// |x - x_ref|^2 [8 FLOPS]
		const float dx = x.x - r.x, dy = x.y - r.y, dz = x.z - r.z;

		if (!(dx * dx + dy * dy + dz * dz <= half_skin2))
			*need = 1;
	}
}

/* need = 0: the rebuild kernels of this step ran; a force pass may set
 * it again. */
static __global__ void sph_nlist_clear_kernel(int *need)
{
	*need = 0;
}

/* In the graph of sph-gpu-verlet: run the rebuild's body (a conditional
 * node) only when need is set. */
static __global__ void sph_nlist_cond_kernel(cudaGraphConditionalHandle handle, const int *need)
{
	cudaGraphSetConditional(handle, *need ? 1u : 0u);
}

/* ---- host ------------------------------------------------------------------ */

static inline struct sph_nlist *sph_nlist_of(struct sph_gpu *s)
{
	return (struct sph_nlist *)s;
}

/* Threads per particle for n particles (SPH_NLIST_THREADS overrides):
 * measured best on the H200, T = 8 at 16,128 (T = 4: -3 %), T = 2 at
 * 255,600 (T = 1: -5 %, T = 4: -23 %), T = 1 at 4.2 million (T = 2:
 * -9 %). */
static int sph_nlist_threads(int n)
{
	const char *env = getenv("SPH_NLIST_THREADS");

	if (env && (!strcmp(env, "1") || !strcmp(env, "2") || !strcmp(env, "4") ||
		    !strcmp(env, "8")))
		return atoi(env);
	return n <= 65536 ? 8 : n <= 1048576 ? 2 : 1;
}

/* The device flag pointer the rebuild kernels skip on (NULL: always). */
static const int *sph_nlist_need(const struct sph_nlist *q)
{
	return q->verlet ? q->need : NULL;
}

/* Launches f<T>() for the context's T. */
template <class F> static int sph_nlist_with_threads(struct sph_nlist *q, F &&f)
{
	switch (q->threads) {
	case 1: return f(std::integral_constant<int, 1>());
	case 2: return f(std::integral_constant<int, 2>());
	case 4: return f(std::integral_constant<int, 4>());
	default: return f(std::integral_constant<int, 8>());
	}
}

static unsigned sph_nlist_group_blocks(const struct sph_nlist *q)
{
	return sph_gpu_blocks((size_t)q->base.n * (size_t)q->threads);
}

/* Sort and reorder into the sort's buffers (skipped between rebuilds). */
static int sph_nlist_sort(struct sph_gpu *s)
{
	struct sph_nlist *q = sph_nlist_of(s);
	const int n = s->n;
	const unsigned blocks = sph_gpu_blocks(n), m = q->grid.ncells + 1;
	const int *need = sph_nlist_need(q);

	sph_nlist_count_kernel<<<blocks, SPH_GPU_BLOCK, 0, s->stream>>>(
		s->pos, s->id, q->cell, q->rank, q->count, n, q->grid, s->bad, need);
	sph_nlist_scan_tiles_kernel<<<q->ntiles, SPH_NLIST_SCAN_THREADS, 0, s->stream>>>(
		q->count, q->tile_sum, m, need);
	sph_nlist_scan_sums_kernel<<<1, SPH_NLIST_SCAN_THREADS, 0, s->stream>>>(q->tile_sum,
										q->ntiles, need);
	sph_nlist_scan_apply_kernel<<<q->ntiles, SPH_NLIST_SCAN_THREADS, 0, s->stream>>>(
		q->count, q->tile_sum, q->start, m, need);
	sph_nlist_scatter_kernel<<<blocks, SPH_GPU_BLOCK, 0, s->stream>>>(q->cell, q->rank, q->start,
									  q->perm, n, need);
	sph_nlist_order_kernel<<<sph_gpu_blocks(q->grid.ncells), SPH_GPU_BLOCK, 0, s->stream>>>(
		q->start, q->perm, q->count, q->grid.ncells, need);
	sph_nlist_gather_kernel<<<blocks, SPH_GPU_BLOCK, 0, s->stream>>>(
		q->perm, s->pos, s->vel, s->id, q->spos, q->svel, q->sid, n, need);
	return SPH_GPU_LAUNCHED(s, "sort kernels");
}

/* The list pass (with density and pair counts for sph-gpu-nlist). */
static int sph_nlist_lists(struct sph_gpu *s, bool count)
{
	struct sph_nlist *q = sph_nlist_of(s);
	const float r = s->cs.h + q->skin;
	/* sph-gpu-verlet keeps pairs a hair beyond h + skin: float rounding
	 * of the distances cannot then drop one the skin covers */
	const float r2 = q->verlet ? r * r * (1.0f + 1e-5f) : s->cs.h2;
	const sph_nlist_cells fluid = { q->spos, q->start }, walls = { q->wall, q->wstart };
	const float rp = sqrtf(r2) * (1.0f + SPH_NLIST_PRUNE_MARGIN);

	return sph_nlist_with_threads(q, [&](auto tc) {
		constexpr int T = decltype(tc)::value;
		const unsigned blocks = sph_nlist_group_blocks(q);
		const int *need = sph_nlist_need(q);

#define SPH_NLIST_LIST_ARGS                                                                        \
	fluid, walls, q->svel, q->sid, s->pos, s->vel, s->id, q->pos_ref, q->list, q->lcount, q->cap, \
		r2, s->rho, q->xp, q->vh, s->n, q->grid, s->cs, s->pairs, q->overflow, need, rp
		auto launch = [&](auto pc) {
			constexpr int P = decltype(pc)::value;

			if (q->verlet && q->reach == 2)
				sph_nlist_list_kernel<T, 2, false, false, P>
					<<<blocks, SPH_GPU_BLOCK, 0, s->stream>>>(SPH_NLIST_LIST_ARGS);
			else if (q->verlet)
				sph_nlist_list_kernel<T, 1, false, false, P>
					<<<blocks, SPH_GPU_BLOCK, 0, s->stream>>>(SPH_NLIST_LIST_ARGS);
			else if (count)
				sph_nlist_list_kernel<T, 1, true, true, P>
					<<<blocks, SPH_GPU_BLOCK, 0, s->stream>>>(SPH_NLIST_LIST_ARGS);
			else
				sph_nlist_list_kernel<T, 1, true, false, P>
					<<<blocks, SPH_GPU_BLOCK, 0, s->stream>>>(SPH_NLIST_LIST_ARGS);
		};
#ifdef SPH_GPU_PLANTED
		if (q->plant)
			launch(std::integral_constant<int, 1>());
		else
#endif
			launch(std::integral_constant<int, 0>());
#undef SPH_NLIST_LIST_ARGS
		return SPH_GPU_LAUNCHED(s, "list kernel");
	});
}

static int sph_nlist_build(struct sph_gpu *s)
{
	struct sph_nlist *q = sph_nlist_of(s);

	if (sph_nlist_sort(s) != 0)
		return -1;
	if (!q->verlet)
		return 0; /* the list pass is the density phase */
	if (sph_nlist_lists(s, false) != 0)
		return -1;
	sph_nlist_clear_kernel<<<1, 1, 0, s->stream>>>(q->need);
	return SPH_GPU_LAUNCHED(s, "clear kernel");
}

static int sph_nlist_density(struct sph_gpu *s, bool count)
{
	struct sph_nlist *q = sph_nlist_of(s);

	if (!q->verlet)
		return sph_nlist_lists(s, count);
	return sph_nlist_with_threads(q, [&](auto tc) {
		constexpr int T = decltype(tc)::value;
		const unsigned blocks = sph_nlist_group_blocks(q);

#define SPH_NLIST_DENSITY_ARGS                                                                 \
	s->pos, s->vel, q->wall, q->list, q->lcount, s->rho, q->xp, q->vh, s->n, s->cs, s->pairs
		if (count)
			sph_nlist_density_kernel<T, true>
				<<<blocks, SPH_GPU_BLOCK, 0, s->stream>>>(SPH_NLIST_DENSITY_ARGS);
		else
			sph_nlist_density_kernel<T, false>
				<<<blocks, SPH_GPU_BLOCK, 0, s->stream>>>(SPH_NLIST_DENSITY_ARGS);
#undef SPH_NLIST_DENSITY_ARGS
		return SPH_GPU_LAUNCHED(s, "density kernel");
	});
}

/* Forces, and with integrate the step's integration in place. */
static int sph_nlist_forces(struct sph_gpu *s, bool integrate)
{
	struct sph_nlist *q = sph_nlist_of(s);
	const float hs = 0.5f * q->skin * (1.0f - 1e-5f);

	return sph_nlist_with_threads(q, [&](auto tc) {
		constexpr int T = decltype(tc)::value;
		const unsigned blocks = sph_nlist_group_blocks(q);

		if (integrate)
			sph_nlist_force_kernel<T, true><<<blocks, SPH_GPU_BLOCK, 0, s->stream>>>(
				q->xp, q->vh, q->wall, s->rho, q->list, q->lcount, s->acc, s->pos,
				s->vel, q->pos_ref, hs * hs, s->n, s->cs, s->clamps,
				q->verlet ? q->need : NULL);
		else
			sph_nlist_force_kernel<T, false><<<blocks, SPH_GPU_BLOCK, 0, s->stream>>>(
				q->xp, q->vh, q->wall, s->rho, q->list, q->lcount, s->acc, s->pos,
				s->vel, q->pos_ref, hs * hs, s->n, s->cs, s->clamps, NULL);
		return SPH_GPU_LAUNCHED(s, "force kernel");
	});
}

/* The step's build (sph-gpu-verlet: only when some particle has moved
 * more than skin / 2, else its lists are reused as they are), then
 * sph-gpu-nlist's list pass as the step's density phase runs it, and the
 * criterion over the lists. */
static int sph_nlist_surface(struct sph_gpu *s, const sph_gpu_surface_crit &c)
{
	struct sph_nlist *q = sph_nlist_of(s);

	if (sph_nlist_build(s) != 0 || (!q->verlet && sph_nlist_lists(s, false) != 0))
		return -1;
	return sph_nlist_with_threads(q, [&](auto tc) {
		constexpr int T = decltype(tc)::value;

		sph_nlist_surface_kernel<T><<<sph_nlist_group_blocks(q), SPH_GPU_BLOCK, 0, s->stream>>>(
			s->pos, q->list, q->lcount, s->sflag, s->n, s->cs.h2, c);
		return SPH_GPU_LAUNCHED(s, "surface kernel");
	});
}

static int sph_nlist_force_only(struct sph_gpu *s)
{
	return sph_nlist_forces(s, false);
}

/* Integration happens in the force pass. */
static int sph_nlist_no_integrate(struct sph_gpu *s)
{
	(void)s;
	return 0;
}

/* sph-gpu-verlet's build while its graph is captured: a kernel sets a
 * conditional handle from need, and the rebuild kernels are the body of
 * an IF node after it, captured on a second stream. Between rebuilds the
 * graph then runs one one-thread kernel instead of nine launches that
 * each read need and return (measured in the README). 0 or -1. */
static int sph_nlist_build_captured(struct sph_gpu *s)
{
	struct sph_nlist *q = sph_nlist_of(s);
	cudaStreamCaptureStatus status;
	cudaGraph_t graph = NULL, body = NULL;
	const cudaGraphNode_t *deps = NULL;
	size_t ndeps = 0;
	cudaGraphConditionalHandle handle;
	cudaGraphNode_t node;
	cudaGraphNodeParams np = {};

	if (SPH_GPU_CHECK(s, cudaStreamGetCaptureInfo(s->stream, &status, NULL, &graph, NULL, NULL,
						       NULL)) ||
	    SPH_GPU_CHECK(s, cudaGraphConditionalHandleCreate(&handle, graph, 0,
							      cudaGraphCondAssignDefault)))
		return -1;
	sph_nlist_cond_kernel<<<1, 1, 0, s->stream>>>(handle, q->need);
	if (SPH_GPU_LAUNCHED(s, "conditional kernel") ||
	    SPH_GPU_CHECK(s, cudaStreamGetCaptureInfo(s->stream, &status, NULL, &graph, &deps, NULL,
						       &ndeps)))
		return -1;
	np.type = cudaGraphNodeTypeConditional;
	np.conditional.handle = handle;
	np.conditional.type = cudaGraphCondTypeIf;
	np.conditional.size = 1;
	if (SPH_GPU_CHECK(s, cudaGraphAddNode(&node, graph, deps, NULL, ndeps, &np)))
		return -1;
	body = np.conditional.phGraph_out[0];
	if (SPH_GPU_CHECK(s, cudaStreamBeginCaptureToGraph(q->body, body, NULL, NULL, 0,
							    cudaStreamCaptureModeThreadLocal)))
		return -1;
	cudaStream_t main_stream = s->stream;

	s->stream = q->body;
	int rc = sph_nlist_build(s);

	s->stream = main_stream;
	/* end the body's capture whatever happened */
	if (SPH_GPU_CHECK(s, cudaStreamEndCapture(q->body, &body)) || rc != 0)
		return -1;
	return SPH_GPU_CHECK(s, cudaStreamUpdateCaptureDependencies(
					s->stream, &node, NULL, 1, cudaStreamSetCaptureDependencies));
}

/* One step with its phase events; flags cudaEventRecordExternal while
 * capturing, so that the graph records them when it runs. */
static int sph_nlist_step(struct sph_gpu *s, cudaEvent_t marks[SPH_GPU_MARKS], unsigned flags)
{
	struct sph_nlist *q = sph_nlist_of(s);
	cudaStream_t st = s->stream;
	const bool captured = q->verlet && flags == cudaEventRecordExternal;

	return SPH_GPU_CHECK(s, cudaEventRecordWithFlags(marks[0], st, flags)) ||
	       (captured ? sph_nlist_build_captured(s) : sph_nlist_build(s)) ||
	       SPH_GPU_CHECK(s, cudaEventRecordWithFlags(marks[1], st, flags)) ||
	       sph_nlist_density(s, false) ||
	       SPH_GPU_CHECK(s, cudaEventRecordWithFlags(marks[2], st, flags)) ||
	       sph_nlist_forces(s, true) ||
	       SPH_GPU_CHECK(s, cudaEventRecordWithFlags(marks[3], st, flags)) ||
	       SPH_GPU_CHECK(s, cudaEventRecordWithFlags(marks[4], st, flags))
		       ? -1
		       : 0;
}

/* The graph of a whole batch of steps, captured on first use. 0 or -1. */
static int sph_nlist_graph(struct sph_gpu *s)
{
	struct sph_nlist *q = sph_nlist_of(s);
	cudaGraph_t graph = NULL;
	int rc = 0;

	if (q->graph)
		return 0;
	if (SPH_GPU_CHECK(s, cudaStreamBeginCapture(s->stream, cudaStreamCaptureModeThreadLocal)))
		return -1;
	for (int b = 0; b < SPH_GPU_BATCH && rc == 0; b++)
		rc = sph_nlist_step(s, s->ev[b], cudaEventRecordExternal);
	/* end the capture whatever happened, so the stream is usable */
	if (SPH_GPU_CHECK(s, cudaStreamEndCapture(s->stream, &graph)) || rc != 0) {
		if (graph)
			cudaGraphDestroy(graph);
		return -1;
	}
	rc = SPH_GPU_CHECK(s, cudaGraphInstantiate(&q->graph, graph, 0));
	cudaGraphDestroy(graph);
	return rc;
}

/* Full batches replay the graph; the remainder runs launch by launch. */
static int sph_nlist_steps(struct sph_gpu *s, int reps, struct sph_phase_times *t)
{
	struct sph_nlist *q = sph_nlist_of(s);

	while (reps >= SPH_GPU_BATCH) {
		if (sph_nlist_graph(s) != 0 || SPH_GPU_CHECK(s, cudaGraphLaunch(q->graph, s->stream)) ||
		    sph_gpu_collect(s, SPH_GPU_BATCH, t) != 0)
			return -1;
		reps -= SPH_GPU_BATCH;
	}
	for (int rep = 0; rep < reps; rep++)
		if (sph_nlist_step(s, s->ev[rep], cudaEventRecordDefault) != 0)
			return -1;
	return reps ? sph_gpu_collect(s, reps, t) : 0;
}

/* The walls sorted by the grid's cells on the host, with their starts,
 * uploaded once. 0 or -1. */
static int sph_nlist_walls(struct sph_gpu *s)
{
	struct sph_nlist *q = sph_nlist_of(s);
	const struct sph_gpu_grid *g = &q->grid;
	const size_t nb = (size_t)s->nb, cells = (size_t)g->ncells;
	float4 *in = (float4 *)malloc((nb + 1) * sizeof *in), *out = (float4 *)malloc((nb + 1) * sizeof *out);
	unsigned *start = (unsigned *)calloc(cells + 1, sizeof *start);
	unsigned *cell = (unsigned *)malloc((nb + 1) * sizeof *cell);
	int rc = -1;

	if (!in || !out || !start || !cell) {
		snprintf(s->err, sizeof s->err, "%s: out of host memory for the walls", s->name);
		goto out_free;
	}
	if (SPH_GPU_CHECK(s, cudaMemcpy(in, s->bnd, nb * sizeof *in, cudaMemcpyDeviceToHost)))
		goto out_free;
	for (size_t b = 0; b < nb; b++) {
		int c[3];
		const float x[3] = { in[b].x, in[b].y, in[b].z };

		for (int d = 0; d < 3; d++) {
			const double u = floor(((double)x[d] - g->lo[d]) / g->cell);

			c[d] = !(u >= 0.0) ? 0 : u >= g->dim[d] ? g->dim[d] - 1 : (int)u;
		}
		cell[b] = sph_gpu_linear(c[0], c[1], c[2], g->dim);
		start[cell[b] + 1]++;
	}
	for (size_t c = 0; c < cells; c++)
		start[c + 1] += start[c];
	{
		unsigned *next = (unsigned *)malloc((cells + 1) * sizeof *next);

		if (!next) {
			snprintf(s->err, sizeof s->err, "%s: out of host memory for the walls", s->name);
			goto out_free;
		}
		memcpy(next, start, (cells + 1) * sizeof *next);
		for (size_t b = 0; b < nb; b++)
			out[next[cell[b]]++] = make_float4(in[b].x, in[b].y, in[b].z, -in[b].w);
		free(next);
	}
	if (sph_gpu_alloc(s, &q->wall, nb) || sph_gpu_alloc(s, &q->wstart, cells + 1) ||
	    SPH_GPU_CHECK(s, cudaMemcpy(q->wall, out, nb * sizeof *out, cudaMemcpyHostToDevice)) ||
	    SPH_GPU_CHECK(s, cudaMemcpy(q->wstart, start, (cells + 1) * sizeof *start,
					cudaMemcpyHostToDevice)))
		goto out_free;
	rc = 0;

out_free:
	free(in);
	free(out);
	free(start);
	free(cell);
	return rc;
}

/* The grid of cells of side (h + skin)(1 + margin) / reach over the box
 * (or the particles' bounds). 0, or -1 with s->err. */
static int sph_nlist_grid(struct sph_gpu *s)
{
	struct sph_nlist *q = sph_nlist_of(s);
	const struct sph_gpu_grid *g0 = &s->grid;
	struct sph_gpu_grid *g = &q->grid;
	double cells = 1.0;

	g->cell = ((double)s->cs.h + (double)q->skin) * (1.0 + SPH_GPU_GRID_MARGIN) / q->reach;
	for (int d = 0; d < 3; d++) {
		const double hi = g0->lo[d] + g0->dim[d] * g0->cell;

		g->lo[d] = g0->lo[d];
		g->dim[d] = (int)std::max(1.0, ceil((hi - g->lo[d]) / g->cell));
		cells *= g->dim[d];
	}
	if (!(cells <= (double)SPH_GPU_MAX_CELLS)) {
		snprintf(s->err, sizeof s->err, "%s: the grid needs more than %zu cells", s->name,
			 SPH_GPU_MAX_CELLS);
		return -1;
	}
	g->ncells = (unsigned)cells;
	return 0;
}

/* List entries a thread for `per_particle` entries a particle shared by
 * T threads: a thread walks 2 or 3 of the 18 cell rows at T = 8, which
 * are not equally full, so each gets twice its share, and at least half
 * a particle's. */
static int sph_nlist_cap(int per_particle, int threads)
{
	return threads == 1 ? per_particle : std::max(2 * per_particle / threads, per_particle / 2);
}

static int sph_nlist_init(struct sph_gpu *s)
{
	struct sph_nlist *q = sph_nlist_of(s);
	const size_t n = (size_t)s->n;
	const char *env = getenv("SPH_VERLET_SKIN");
	double skin = env ? atof(env) : SPH_VERLET_SKIN;

	if (!(skin >= 0.0 && skin <= 1.0))
		skin = SPH_VERLET_SKIN;
	q->verlet = s->m->kind != SPH_NLIST_LISTS;
	q->reach = s->m->kind == SPH_NLIST_VERLET_FINE ? 2 : 1;
	q->plant = strstr(s->name, "(planted") != NULL;
	q->threads = sph_nlist_threads(s->n);
	q->skin = q->verlet ? (float)(skin * s->cs.h) : 0.0f;
	q->cap = sph_nlist_cap(q->verlet ? SPH_VERLET_CAP : SPH_NLIST_CAP, q->threads);
	if (sph_nlist_grid(s) != 0)
		return -1;
	const size_t m = (size_t)q->grid.ncells + 1;

	q->ntiles = (unsigned)((m + SPH_NLIST_SCAN_TILE - 1) / SPH_NLIST_SCAN_TILE);
	if (sph_gpu_alloc(s, &q->xp, n) || sph_gpu_alloc(s, &q->vh, n) ||
	    sph_gpu_alloc(s, &q->spos, n) || sph_gpu_alloc(s, &q->svel, n) ||
	    sph_gpu_alloc(s, &q->pos_ref, n) || sph_gpu_alloc(s, &q->sid, n) ||
	    sph_gpu_alloc(s, &q->cell, n) ||
	    sph_gpu_alloc(s, &q->rank, n) || sph_gpu_alloc(s, &q->perm, n) ||
	    sph_gpu_alloc(s, &q->count, m) || sph_gpu_alloc(s, &q->start, m) ||
	    sph_gpu_alloc(s, &q->tile_sum, q->ntiles) ||
	    sph_gpu_alloc(s, &q->list, n * (size_t)q->threads * (size_t)q->cap) ||
	    sph_gpu_alloc(s, &q->lcount, n * (size_t)q->threads) || sph_gpu_alloc(s, &q->need, 1) ||
	    sph_gpu_alloc(s, &q->overflow, 1) || sph_nlist_walls(s) != 0 ||
	    (q->verlet && SPH_GPU_CHECK(s, cudaStreamCreateWithFlags(&q->body,
								      cudaStreamNonBlocking))) ||
	    SPH_GPU_CHECK(s, cudaMemsetAsync(q->count, 0, m * sizeof *q->count, s->stream)) ||
	    SPH_GPU_CHECK(s, cudaMemsetAsync(q->overflow, 0, sizeof *q->overflow, s->stream)) ||
	    SPH_GPU_CHECK(s, cudaMemsetAsync(q->lcount, 0, n * q->threads * sizeof *q->lcount,
					     s->stream)))
		return -1;
	/* the first step builds */
	const int one = 1;

	if (SPH_GPU_CHECK(s, cudaMemcpyAsync(q->need, &one, sizeof one, cudaMemcpyHostToDevice,
					     s->stream)) ||
	    SPH_GPU_CHECK(s, cudaStreamSynchronize(s->stream)))
		return -1;
	return 0;
}

static void sph_nlist_fini(struct sph_gpu *s)
{
	struct sph_nlist *q = sph_nlist_of(s);

	if (q->graph)
		cudaGraphExecDestroy(q->graph);
	if (q->body)
		cudaStreamDestroy(q->body);
}

/* After the queued work (sph_gpu_finish): a list that overflowed fails
 * the run, named in the error. */
static int sph_nlist_finish(struct sph_gpu *s)
{
	struct sph_nlist *q = sph_nlist_of(s);
	int over = 0;

	if (SPH_GPU_CHECK(s, cudaMemcpy(&over, q->overflow, sizeof over, cudaMemcpyDeviceToHost)))
		return -1;
	if (over) {
		snprintf(s->err, sizeof s->err, "%s: a neighbour list overflowed its %d entries per "
			 "thread (%d threads per particle): results would be wrong", s->name,
			 q->cap, q->threads);
		s->overflow = 1;
		return -1;
	}
	return 0;
}

/* evaluate's build: a rebuild forced. */
static int sph_nlist_build_now(struct sph_gpu *s)
{
	struct sph_nlist *q = sph_nlist_of(s);
	const int one = 1;

	if (q->verlet && SPH_GPU_CHECK(s, cudaMemcpyAsync(q->need, &one, sizeof one,
						       cudaMemcpyHostToDevice, s->stream)))
		return -1;
	return sph_nlist_build(s);
}

/* The method table of each variant, kind one of enum sph_nlist_kind (the
 * tests' planted copies build theirs too, under names of their own). */
#define SPH_NLIST_METHOD(ident, name, kind)                                                    \
	static const struct sph_gpu_method ident = {                                           \
		name, sizeof(struct sph_nlist), false, true, 0, NULL, sph_nlist_init,           \
		sph_nlist_build_now, sph_nlist_density, sph_nlist_force_only, sph_nlist_surface, \
		sph_nlist_no_integrate, sph_nlist_steps, sph_nlist_fini, sph_nlist_finish, kind \
	};                                                                                     \
	static int ident##_create(void **ctx, const struct sph_input *in,                      \
				  const struct sph_params *p, char *err, size_t errlen)         \
	{                                                                                      \
		return sph_gpu_create(&ident, ctx, in, p, err, errlen);                        \
	}

#ifndef SPH_GPU_PLANTED
SPH_NLIST_METHOD(sph_nlist_method, "sph-gpu-nlist", SPH_NLIST_LISTS)
SPH_NLIST_METHOD(sph_verlet_method, "sph-gpu-verlet", SPH_NLIST_VERLET)
SPH_NLIST_METHOD(sph_verlet_fine_method, "sph-gpu-verlet-fine", SPH_NLIST_VERLET_FINE)

extern "C" const struct sph_ops sph_gpu_nlist_ops = SPH_GPU_OPS(sph_nlist_method_create);
extern "C" const struct sph_ops sph_gpu_verlet_ops = SPH_GPU_OPS(sph_verlet_method_create);
extern "C" const struct sph_ops sph_gpu_verlet_fine_ops =
	SPH_GPU_OPS(sph_verlet_fine_method_create);
#endif
