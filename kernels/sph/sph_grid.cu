/* sph_grid.cu - SPH on the GPU over sorted cells of side h: grid-radix, grid-count, zindex-cells */
/*
 * Variants (kernels/sph/sph_gpu.h). The three differ only in how they sort
 * the slots into cell order and how a thread finds the slots of a cell:
 *   sph-gpu-grid-radix    linear cell index cx + dx (cy + dy cz) of every
 *                         slot, (cell, slot) sorted by CUB's radix sort on
 *                         the bits the cell count needs, cell_start[]
 *                         filled with a sentinel and a kernel comparing
 *                         each sorted key with its neighbours writing the
 *                         start and end of every occupied cell (Green,
 *                         "Particle Simulation using CUDA", the CUDA
 *                         particles sample).
 *   sph-gpu-grid-count    the same grid by counting sort (Hoetzlein 2014,
 *                         "Fast Fixed-Radius Nearest Neighbors"): an
 *                         atomicAdd per slot counts its cell and gives its
 *                         rank in it, CUB's exclusive scan turns counts
 *                         into cell starts, each slot is scattered to
 *                         start[cell] + rank; the ranks come in whatever
 *                         order the atomics ran, so one thread per cell
 *                         then insertion-sorts its slice by old slot
 *                         (cells hold ~8-20 slots): the order becomes that
 *                         of a stable sort, grid-radix's, and so do the
 *                         results, bit for bit.
 *   sph-gpu-zindex-cells  slots sorted (CUB radix sort) by the 30-bit
 *                         Morton key of their cell (at most 1024 cells a
 *                         side); the occupied cells kept as a compact list
 *                         (head flags, exclusive scan, the distinct keys
 *                         with their first slots), each of a thread's 27
 *                         cells found by binary search in it, first
 *                         narrowed to the keys between its 3 x 3 x 3
 *                         block's smallest and largest corner (Morton
 *                         order is monotone in each axis).
 * What they share is in this file: the reorder into cell order, the walk
 * over the 27 cells around a slot's own (cells z, y, x ascending, slots
 * ascending within a cell), and one density and one force kernel over a
 * method's cell lookups. The context, create and upload, the steps with
 * their events, read, counts, integration, cells and Morton keys and the
 * pair arithmetic are sph_gpu_common's; every formula is sph_physics.h's.
 *
 * Walls: one structure (walls_in_slots). The nb boundary particles are
 * slots n .. n + nb - 1, keyed, sorted and reordered with the fluid every
 * step, so the one 27-cell walk finds fluid and wall neighbours alike (a
 * wall slot has pos.w = -psi / m: sph_gpu_density_pair weighs it |w|,
 * sph_gpu_force_pair takes it as a wall pair). What that costs: walls
 * that never move are re-keyed, re-sorted and gathered every step (nb is
 * 1.8 times n at 16,128 and 3.6 times at 2,016, so the build handles 2.8
 * to 4.6 times the fluid's slots); each wall slot holds a velocity, an
 * acceleration, a density, (p, 1 / 2 rho), ids and the sort's words,
 * which it never uses (~130 bytes with its copy in bnd, all in
 * aux_bytes); its thread in the density and force passes returns at
 * once, and a warp of mixed slots waits for its fluid lanes. Pairs are
 * counted for fluid slots only: (i, j != i) over fluid and wall slots.
 *
 * Grid. Cells of side h (1 + SPH_GPU_GRID_MARGIN) over the box (over the
 * particles' bounds at create on an axis where the box is open), fixed at
 * create (sph_gpu_common). A particle's cell is floor((x - lo) / cell) in
 * double, clamped into the grid, as in sph_ref_grid_cell: a pair that
 * passes the float test r^2 < h^2 is never two cells apart, and clamping
 * (a particle outside the box, a NaN) never moves two cells apart either
 * and keeps every index inside the arrays.
 *
 * Determinism. Each slot's sums run in a fixed order over a fixed
 * ordering of the slots: CUB's radix sort is stable, the counting sort's
 * slices are put in slot order, and a build starts from the last build's
 * order. Atomics only count (integers). So a run gives the same bits
 * every time.
 *
 * Planted bugs (tests/sph/gpu_planted_sph.cu includes this file with
 * SPH_GPU_PLANTED defined): a method instantiated with PLANTED = true
 * leaves one of the 27 cells out of its walk (its planted_cell); this
 * file's own ops instantiate PLANTED = false only, where the test folds
 * away at compile time.
 */
#include "sph_gpu_common.cuh"

#include <algorithm>
#include <cstdio>
#include <cub/cub.cuh>
#include <utility>

/* cell_start[] of an empty cell (grid-radix). */
#define SPH_GRID_EMPTY 0xffffffffu

/* Internal to this file and to the test file that includes it. */
namespace {

/* The methods, as template arguments. */
enum sph_grid_kind { SPH_GRID_RADIX, SPH_GRID_COUNT, SPH_GRID_ZINDEX };

/* A method's context: the common one first, then its arrays. */
struct sph_grid {
	struct sph_gpu s;
	int end_bit; /* bits of the radix-sorted keys */

	/* every method */
	float4 *pos_alt, *vel_alt; /* the reorder's targets, swapped in */
	unsigned *id_alt;
	float2 *prh;	/* (p_j, 1 / (2 rho_j)) of each slot */
	unsigned *key;	/* cell key of each slot before the sort */
	unsigned *skey; /* cell key of each sorted slot */
	unsigned *perm; /* old slot of each sorted slot */
	unsigned char *temp; /* CUB's temporary storage */
	size_t temp_bytes;

	/* grid-radix and zindex-cells: the sort's values, 0 .. slots - 1 */
	unsigned *iota;
	/* grid-radix: ncells each */
	unsigned *cell_start, *cell_end;
	/* grid-count: ncells + 1, ncells + 1, slots */
	unsigned *count, *start, *rank;
	/* zindex-cells: slots each, ustart slots + 1, nu 1 */
	unsigned *flag, *run, *ukey, *ustart, *nu;
};

/* ---- the walk ----------------------------------------------------------- */

/*
 * A method's cell lookups (sph_grid_method<M>::cells): own(i) is the cell
 * of sorted slot i; window(c) is what a slot in cell c computes once
 * before its 27 lookups; range() gives the slots lo .. hi - 1 of cell
 * (x, y, z) (inside the grid) and returns false when it is empty. Every
 * lo, hi is within 0 .. slots.
 */
struct sph_grid_no_window {
};

/* The cell of a slot of grid-radix and grid-count: its linear key; no
 * window. */
struct sph_grid_linear {
	const unsigned *__restrict__ key; /* linear cell of each sorted slot */
	int dim[3];
	typedef sph_grid_no_window window_t;

	__device__ int3 own(unsigned i) const { return sph_gpu_linear_coords(key[i], dim); }
	__device__ window_t window(int3) const { return window_t(); }
};

/*
 * fn(j) for every slot j of the 27 cells around sorted slot i's (i itself
 * included): cells z, y, x ascending, slots ascending within a cell. With
 * SKIP >= 0 (a planted bug) the cell 9 (dz + 1) + 3 (dy + 1) + (dx + 1) =
 * SKIP is left out.
 */
template <int SKIP, class Cells, class Fn>
__device__ __forceinline__ void sph_grid_each_candidate(const Cells &cells, unsigned i, Fn &&fn)
{
	const int3 c = cells.own(i);
	const typename Cells::window_t w = cells.window(c);
	const int z1 = min(c.z + 1, cells.dim[2] - 1), y1 = min(c.y + 1, cells.dim[1] - 1),
		  x1 = min(c.x + 1, cells.dim[0] - 1);

	for (int z = max(c.z - 1, 0); z <= z1; z++)
		for (int y = max(c.y - 1, 0); y <= y1; y++)
			for (int x = max(c.x - 1, 0); x <= x1; x++) {
				unsigned lo, hi;

				if (SKIP >= 0 &&
				    9 * (z - c.z + 1) + 3 * (y - c.y + 1) + (x - c.x + 1) == SKIP)
					continue;
				if (!cells.range(w, x, y, z, lo, hi))
					continue;
				for (unsigned j = lo; j < hi; j++)
					fn(j);
			}
}

/* ---- density and force -------------------------------------------------- */

/* rho, and prh = (p, 1 / (2 rho)), of every fluid slot (wall slots do
 * nothing); with COUNT their candidate and neighbour pairs added to
 * pairs[0], pairs[1]. */
template <bool COUNT, int SKIP, class Cells>
static __global__ void __launch_bounds__(SPH_GPU_BLOCK)
	sph_grid_density_kernel(Cells cells, const float4 *__restrict__ pos, float *__restrict__ rho,
				float2 *__restrict__ prh, int slots, const __grid_constant__ sph_consts cs,
				unsigned long long *__restrict__ pairs)
{
	const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
	sph_gpu_pairs pc = { 0, 0 };

	if (i < (unsigned)slots && !sph_gpu_is_wall(pos[i])) {
		const float4 xi = pos[i];
		float sum = 0.0f, r, p, hinv;

		sph_grid_each_candidate<SKIP>(cells, i, [&](unsigned j) {
			sph_gpu_density_pair<COUNT>(xi, pos[j], j != i, cs.h2, cs.inv_h2, sum, pc);
		});
		sph_eos(sum, cs.c_rho, cs.k, cs.rho0, &r, &p, &hinv);
		rho[i] = r;
		prh[i] = make_float2(p, hinv);
	}
	if (COUNT)
		sph_gpu_add_pairs(pairs, pc);
}

/* Acceleration (ax, ay, az, 0) of every fluid slot (wall slots do
 * nothing). */
template <int SKIP, class Cells>
static __global__ void __launch_bounds__(SPH_GPU_BLOCK)
	sph_grid_force_kernel(Cells cells, const float4 *__restrict__ pos,
			      const float4 *__restrict__ vel, const float *__restrict__ rho,
			      const float2 *__restrict__ prh, float4 *__restrict__ acc, int slots,
			      const __grid_constant__ sph_consts cs)
{
	const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i >= (unsigned)slots)
		return;
	const float4 xi = pos[i];

	if (sph_gpu_is_wall(xi))
		return;
	sph_gpu_force_acc f = sph_gpu_force_start(xi, vel[i], rho[i], cs);

	sph_grid_each_candidate<SKIP>(cells, i, [&](unsigned j) {
		sph_gpu_force_pair(f, pos[j], cs, [&](float4 &vj, float &pj, float &hinv_j) {
			const float2 q = prh[j];

			vj = vel[j];
			pj = q.x;
			hinv_j = q.y;
		});
	});
	acc[i] = sph_gpu_force_end(f, cs);
}

/* The surface criterion of every fluid slot into flag (wall slots 0);
 * SKIP as for the density pass (a planted copy misses a cell). */
template <int SKIP, class Cells>
static __global__ void __launch_bounds__(SPH_GPU_BLOCK)
	sph_grid_surface_kernel(Cells cells, const float4 *__restrict__ pos,
				unsigned char *__restrict__ flag, int slots, float h2,
				sph_gpu_surface_crit crit)
{
	const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i >= (unsigned)slots)
		return;
	const float4 xi = pos[i];
	sph_gpu_surface_sum a = { 0.0f, 0.0f, 0.0f, 0.0f };

	if (!sph_gpu_is_wall(xi))
		sph_grid_each_candidate<SKIP>(cells, i, [&](unsigned j) {
			sph_gpu_surface_pair(xi, pos[j], j != i, h2, a);
		});
	flag[i] = sph_gpu_is_wall(xi) ? 0 : sph_gpu_surface_flag(a, crit);
}

/* ---- build kernels ------------------------------------------------------ */

/* grid-radix: the first and one-past-last sorted slot of every occupied
 * cell, where the sorted key changes. */
static __global__ void sph_grid_radix_bounds_kernel(const unsigned *__restrict__ key,
						    unsigned *__restrict__ start,
						    unsigned *__restrict__ end, int slots)
{
	const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i >= (unsigned)slots)
		return;
	const unsigned c = key[i];

	if (i == 0 || key[i - 1] != c)
		start[c] = i;
	if (i == (unsigned)slots - 1 || key[i + 1] != c)
		end[c] = i + 1;
}

/* grid-count: cell of slot i, its count, and i's rank among the slots of
 * its cell (in atomic order, not deterministic). */
static __global__ void sph_grid_count_kernel(const float4 *__restrict__ pos,
					     const unsigned *__restrict__ id,
					     unsigned *__restrict__ cell, unsigned *__restrict__ rank,
					     unsigned *__restrict__ count, int slots, sph_gpu_grid g,
					     unsigned *__restrict__ bad)
{
	const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i >= (unsigned)slots)
		return;
	const float4 x = pos[i];
	const int3 c = sph_gpu_cell_of(g, x);
	const unsigned k = sph_gpu_linear(c.x, c.y, c.z, g.dim);

	sph_gpu_check_finite(x, id[i], bad);
	cell[i] = k;
	rank[i] = atomicAdd(&count[k], 1u);
}

/* grid-count: slot i to place start[cell] + rank (the ranks of a cell
 * are distinct and below its count, so every place is written once). */
static __global__ void sph_grid_scatter_kernel(const unsigned *__restrict__ cell,
					       const unsigned *__restrict__ rank,
					       const unsigned *__restrict__ start,
					       unsigned *__restrict__ perm, int slots)
{
	const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < (unsigned)slots)
		perm[start[cell[i]] + rank[i]] = i;
}

/* grid-count: each cell's slice of perm sorted ascending (insertion sort,
 * one thread per cell; the slices are disjoint). */
static __global__ void sph_grid_order_kernel(const unsigned *__restrict__ start,
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
static __global__ void sph_grid_heads_kernel(const unsigned *__restrict__ key,
					     unsigned *__restrict__ flag, int slots)
{
	const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < (unsigned)slots)
		flag[i] = i == 0 || key[i - 1] != key[i];
}

/* zindex-cells: with run = exclusive sum of flag, the distinct keys and
 * their first slots at their ranks, *nu = their count, ustart[nu] =
 * slots. */
static __global__ void sph_grid_runs_kernel(const unsigned *__restrict__ key,
					    const unsigned *__restrict__ flag,
					    const unsigned *__restrict__ run,
					    unsigned *__restrict__ ukey, unsigned *__restrict__ ustart,
					    unsigned *__restrict__ nu, int slots)
{
	const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i >= (unsigned)slots)
		return;
	if (flag[i]) {
		ukey[run[i]] = key[i];
		ustart[run[i]] = i;
	}
	if (i == (unsigned)slots - 1) {
		const unsigned count = run[i] + flag[i];

		*nu = count;
		ustart[count] = (unsigned)slots;
	}
}

/* ---- host helpers ------------------------------------------------------- */

/* Bits that hold every value 0 .. max_value (at least 1). */
static int sph_grid_bits(unsigned max_value)
{
	int b = 1;

	while (b < 32 && (max_value >> b) != 0)
		b++;
	return b;
}

/* The arrays every method has, and CUB's temporary storage of bytes.
 * 0, or -1 with s->err. */
static int sph_grid_alloc(struct sph_grid *g, size_t temp_bytes)
{
	struct sph_gpu *s = &g->s;
	const size_t slots = (size_t)s->slots;

	g->temp_bytes = std::max(temp_bytes, (size_t)1);
	return sph_gpu_alloc(s, &g->pos_alt, slots) || sph_gpu_alloc(s, &g->vel_alt, slots) ||
			       sph_gpu_alloc(s, &g->id_alt, slots) || sph_gpu_alloc(s, &g->prh, slots) ||
			       sph_gpu_alloc(s, &g->key, slots) || sph_gpu_alloc(s, &g->skey, slots) ||
			       sph_gpu_alloc(s, &g->perm, slots) ||
			       sph_gpu_alloc(s, &g->temp, g->temp_bytes)
		       ? -1
		       : 0;
}

/* iota[] = 0 .. slots - 1, the radix sort's values. 0 or -1. */
static int sph_grid_iota(struct sph_grid *g)
{
	struct sph_gpu *s = &g->s;

	sph_gpu_iota_kernel<<<sph_gpu_blocks(s->slots), SPH_GPU_BLOCK, 0, s->stream>>>(g->iota,
										       s->slots);
	return SPH_GPU_LAUNCHED(s, "iota kernel");
}

/* The state gathered into sorted order (perm) and swapped in; skey from
 * key too when gather_key. 0 or -1. */
static int sph_grid_reorder(struct sph_grid *g, bool gather_key)
{
	struct sph_gpu *s = &g->s;

	sph_gpu_gather_kernel<<<sph_gpu_blocks(s->slots), SPH_GPU_BLOCK, 0, s->stream>>>(
		g->perm, s->pos, s->vel, s->id, gather_key ? g->key : NULL, g->pos_alt, g->vel_alt,
		g->id_alt, gather_key ? g->skey : NULL, s->slots);
	if (SPH_GPU_LAUNCHED(s, "gather kernel"))
		return -1;
	std::swap(s->pos, g->pos_alt);
	std::swap(s->vel, g->vel_alt);
	std::swap(s->id, g->id_alt);
	return 0;
}

/* (key, iota) sorted into (skey, perm) on end_bit bits. 0 or -1. */
static int sph_grid_radix_sort(struct sph_grid *g)
{
	struct sph_gpu *s = &g->s;
	size_t bytes = g->temp_bytes;

	return SPH_GPU_CHECK(s, cub::DeviceRadixSort::SortPairs(g->temp, bytes, g->key, g->skey,
								 g->iota, g->perm, s->slots, 0,
								 g->end_bit, s->stream));
}

/* The temporary bytes of sph_grid_radix_sort. 0 or -1. */
static int sph_grid_radix_bytes(struct sph_grid *g, size_t *bytes)
{
	struct sph_gpu *s = &g->s;

	*bytes = 0;
	return SPH_GPU_CHECK(s, cub::DeviceRadixSort::SortPairs(NULL, *bytes, g->key, g->skey,
								 g->iota, g->perm, s->slots, 0,
								 g->end_bit, s->stream));
}

/* ---- the methods -------------------------------------------------------- */

/* What method M does differently: its name, its cell lookups, its arrays
 * and its build; planted_cell is the cell its planted copy leaves out. */
template <int M> struct sph_grid_method;

/* grid-radix: start and end of each cell (SPH_GRID_EMPTY if none). */
template <> struct sph_grid_method<SPH_GRID_RADIX> {
	static constexpr const char *name = "sph-gpu-grid-radix";
	static constexpr const char *planted_name = "sph-gpu-grid-radix (planted: cell +x left out)";
	static constexpr int planted_cell = 14; /* (+1, 0, 0) */
	static constexpr int morton_side = 0;

	struct cells : sph_grid_linear {
		const unsigned *__restrict__ start, *__restrict__ end;

		__device__ bool range(const window_t &, int x, int y, int z, unsigned &lo,
				      unsigned &hi) const
		{
			const unsigned c = sph_gpu_linear(x, y, z, dim);

			lo = start[c];
			if (lo == SPH_GRID_EMPTY)
				return false;
			hi = end[c];
			return true;
		}
	};

	static cells cells_of(const struct sph_grid *g)
	{
		const int *d = g->s.grid.dim;

		return cells{ { g->skey, { d[0], d[1], d[2] } }, g->cell_start, g->cell_end };
	}

	static int init(struct sph_gpu *s)
	{
		struct sph_grid *g = (struct sph_grid *)s;
		const size_t slots = (size_t)s->slots, cells = s->grid.ncells;
		size_t bytes;

		g->end_bit = sph_grid_bits(s->grid.ncells - 1);
		return sph_gpu_alloc(s, &g->iota, slots) || sph_gpu_alloc(s, &g->cell_start, cells) ||
				       sph_gpu_alloc(s, &g->cell_end, cells) ||
				       sph_grid_radix_bytes(g, &bytes) || sph_grid_alloc(g, bytes) ||
				       sph_grid_iota(g)
			       ? -1
			       : 0;
	}

	static int build(struct sph_gpu *s)
	{
		struct sph_grid *g = (struct sph_grid *)s;
		const unsigned blocks = sph_gpu_blocks(s->slots);

		sph_gpu_key_kernel<false><<<blocks, SPH_GPU_BLOCK, 0, s->stream>>>(
			s->pos, s->id, g->key, s->slots, s->grid, s->bad);
		if (SPH_GPU_LAUNCHED(s, "key kernel") || sph_grid_radix_sort(g) ||
		    SPH_GPU_CHECK(s, cudaMemsetAsync(g->cell_start, 0xff,
						     (size_t)s->grid.ncells * sizeof(unsigned),
						     s->stream)))
			return -1;
		sph_grid_radix_bounds_kernel<<<blocks, SPH_GPU_BLOCK, 0, s->stream>>>(
			g->skey, g->cell_start, g->cell_end, s->slots);
		if (SPH_GPU_LAUNCHED(s, "cell bounds kernel"))
			return -1;
		return sph_grid_reorder(g, false);
	}
};

/* grid-count: start[] of ncells + 1 entries; cell c holds start[c] ..
 * start[c + 1] - 1. */
template <> struct sph_grid_method<SPH_GRID_COUNT> {
	static constexpr const char *name = "sph-gpu-grid-count";
	static constexpr const char *planted_name = "sph-gpu-grid-count (planted: cell +y left out)";
	static constexpr int planted_cell = 16; /* (0, +1, 0) */
	static constexpr int morton_side = 0;

	struct cells : sph_grid_linear {
		const unsigned *__restrict__ start;

		__device__ bool range(const window_t &, int x, int y, int z, unsigned &lo,
				      unsigned &hi) const
		{
			const unsigned c = sph_gpu_linear(x, y, z, dim);

			lo = start[c];
			hi = start[c + 1];
			return hi > lo;
		}
	};

	static cells cells_of(const struct sph_grid *g)
	{
		const int *d = g->s.grid.dim;

		return cells{ { g->skey, { d[0], d[1], d[2] } }, g->start };
	}

	static int init(struct sph_gpu *s)
	{
		struct sph_grid *g = (struct sph_grid *)s;
		const size_t cells = (size_t)s->grid.ncells + 1;
		size_t bytes = 0;

		return sph_gpu_alloc(s, &g->count, cells) || sph_gpu_alloc(s, &g->start, cells) ||
				       sph_gpu_alloc(s, &g->rank, (size_t)s->slots) ||
				       SPH_GPU_CHECK(s, cub::DeviceScan::ExclusiveSum(
							     NULL, bytes, g->count, g->start,
							     (int)cells, s->stream)) ||
				       sph_grid_alloc(g, bytes)
			       ? -1
			       : 0;
	}

	static int build(struct sph_gpu *s)
	{
		struct sph_grid *g = (struct sph_grid *)s;
		const unsigned blocks = sph_gpu_blocks(s->slots), cells = s->grid.ncells;
		size_t bytes = g->temp_bytes;

		if (SPH_GPU_CHECK(s, cudaMemsetAsync(g->count, 0,
						     ((size_t)cells + 1) * sizeof(unsigned),
						     s->stream)))
			return -1;
		sph_grid_count_kernel<<<blocks, SPH_GPU_BLOCK, 0, s->stream>>>(
			s->pos, s->id, g->key, g->rank, g->count, s->slots, s->grid, s->bad);
		if (SPH_GPU_LAUNCHED(s, "count kernel") ||
		    SPH_GPU_CHECK(s, cub::DeviceScan::ExclusiveSum(g->temp, bytes, g->count, g->start,
								    (int)cells + 1, s->stream)))
			return -1;
		sph_grid_scatter_kernel<<<blocks, SPH_GPU_BLOCK, 0, s->stream>>>(
			g->key, g->rank, g->start, g->perm, s->slots);
		if (SPH_GPU_LAUNCHED(s, "scatter kernel"))
			return -1;
		sph_grid_order_kernel<<<sph_gpu_blocks(cells), SPH_GPU_BLOCK, 0, s->stream>>>(
			g->start, g->perm, cells);
		if (SPH_GPU_LAUNCHED(s, "cell order kernel"))
			return -1;
		return sph_grid_reorder(g, true);
	}
};

/* zindex-cells: the nu distinct Morton keys ukey[0 .. nu - 1], ascending;
 * the cell of ukey[u] holds slots ustart[u] .. ustart[u + 1] - 1. */
template <> struct sph_grid_method<SPH_GRID_ZINDEX> {
	static constexpr const char *name = "sph-gpu-zindex-cells";
	static constexpr const char *planted_name =
		"sph-gpu-zindex-cells (planted: cell -z left out)";
	static constexpr int planted_cell = 4; /* (0, 0, -1) */
	static constexpr int morton_side = SPH_GPU_MORTON_SIDE;

	struct cells {
		const unsigned *__restrict__ key; /* Morton key of each sorted slot */
		const unsigned *__restrict__ ukey, *__restrict__ ustart;
		const unsigned *__restrict__ nu; /* one value, on the device */
		int dim[3];
		struct window_t {
			unsigned lo, hi; /* the keys of the 3 x 3 x 3 block: ukey[lo .. hi - 1] */
		};

		__device__ int3 own(unsigned i) const { return morton_decode3(key[i]); }
		__device__ window_t window(int3 c) const
		{
			const unsigned kmin = morton_encode3(max(c.x - 1, 0), max(c.y - 1, 0),
							     max(c.z - 1, 0));
			const unsigned kmax = morton_encode3(min(c.x + 1, dim[0] - 1),
							     min(c.y + 1, dim[1] - 1),
							     min(c.z + 1, dim[2] - 1));
			window_t w;

			w.lo = sph_gpu_lower_bound(ukey, 0, *nu, kmin);
			w.hi = sph_gpu_lower_bound(ukey, w.lo, *nu, kmax + 1);
			return w;
		}
		__device__ bool range(const window_t &w, int x, int y, int z, unsigned &lo,
				      unsigned &hi) const
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

	static cells cells_of(const struct sph_grid *g)
	{
		const int *d = g->s.grid.dim;

		return cells{ g->skey, g->ukey, g->ustart, g->nu, { d[0], d[1], d[2] } };
	}

	static int init(struct sph_gpu *s)
	{
		struct sph_grid *g = (struct sph_grid *)s;
		const size_t slots = (size_t)s->slots;
		const int *d = s->grid.dim;
		size_t sort_bytes, scan_bytes = 0;

		g->end_bit = 3 * sph_grid_bits((unsigned)std::max(d[0], std::max(d[1], d[2])) - 1);
		return sph_gpu_alloc(s, &g->iota, slots) || sph_gpu_alloc(s, &g->flag, slots) ||
				       sph_gpu_alloc(s, &g->run, slots) ||
				       sph_gpu_alloc(s, &g->ukey, slots) ||
				       sph_gpu_alloc(s, &g->ustart, slots + 1) ||
				       sph_gpu_alloc(s, &g->nu, 1) ||
				       sph_grid_radix_bytes(g, &sort_bytes) ||
				       SPH_GPU_CHECK(s, cub::DeviceScan::ExclusiveSum(
							     NULL, scan_bytes, g->flag, g->run,
							     s->slots, s->stream)) ||
				       sph_grid_alloc(g, std::max(sort_bytes, scan_bytes)) ||
				       sph_grid_iota(g)
			       ? -1
			       : 0;
	}

	static int build(struct sph_gpu *s)
	{
		struct sph_grid *g = (struct sph_grid *)s;
		const unsigned blocks = sph_gpu_blocks(s->slots);
		size_t bytes = g->temp_bytes;

		sph_gpu_key_kernel<true><<<blocks, SPH_GPU_BLOCK, 0, s->stream>>>(
			s->pos, s->id, g->key, s->slots, s->grid, s->bad);
		if (SPH_GPU_LAUNCHED(s, "key kernel") || sph_grid_radix_sort(g))
			return -1;
		sph_grid_heads_kernel<<<blocks, SPH_GPU_BLOCK, 0, s->stream>>>(g->skey, g->flag,
									      s->slots);
		if (SPH_GPU_LAUNCHED(s, "heads kernel") ||
		    SPH_GPU_CHECK(s, cub::DeviceScan::ExclusiveSum(g->temp, bytes, g->flag, g->run,
								    s->slots, s->stream)))
			return -1;
		sph_grid_runs_kernel<<<blocks, SPH_GPU_BLOCK, 0, s->stream>>>(
			g->skey, g->flag, g->run, g->ukey, g->ustart, g->nu, s->slots);
		if (SPH_GPU_LAUNCHED(s, "runs kernel"))
			return -1;
		return sph_grid_reorder(g, false);
	}
};

/* Densities and pressures of method M; the pairs counted into s->pairs
 * when count. */
template <int M, bool PLANTED> static int sph_grid_density(struct sph_gpu *s, bool count)
{
	typedef sph_grid_method<M> method;
	constexpr int skip = PLANTED ? method::planted_cell : -1;
	const struct sph_grid *g = (const struct sph_grid *)s;
	const typename method::cells cells = method::cells_of(g);
	const unsigned blocks = sph_gpu_blocks(s->slots);

	if (count)
		sph_grid_density_kernel<true, skip><<<blocks, SPH_GPU_BLOCK, 0, s->stream>>>(
			cells, s->pos, s->rho, g->prh, s->slots, s->cs, s->pairs);
	else
		sph_grid_density_kernel<false, skip><<<blocks, SPH_GPU_BLOCK, 0, s->stream>>>(
			cells, s->pos, s->rho, g->prh, s->slots, s->cs, s->pairs);
	return SPH_GPU_LAUNCHED(s, "density kernel");
}

template <int M, bool PLANTED> static int sph_grid_force(struct sph_gpu *s)
{
	typedef sph_grid_method<M> method;
	constexpr int skip = PLANTED ? method::planted_cell : -1;
	const struct sph_grid *g = (const struct sph_grid *)s;

	sph_grid_force_kernel<skip><<<sph_gpu_blocks(s->slots), SPH_GPU_BLOCK, 0, s->stream>>>(
		method::cells_of(g), s->pos, s->vel, s->rho, g->prh, s->acc, s->slots, s->cs);
	return SPH_GPU_LAUNCHED(s, "force kernel");
}

template <int M, bool PLANTED>
static int sph_grid_surface(struct sph_gpu *s, const sph_gpu_surface_crit &c)
{
	constexpr int skip = PLANTED ? sph_grid_method<M>::planted_cell : -1;
	const struct sph_grid *g = (const struct sph_grid *)s;

	if (s->m->build(s) != 0)
		return -1;
	sph_grid_surface_kernel<skip><<<sph_gpu_blocks(s->slots), SPH_GPU_BLOCK, 0, s->stream>>>(
		sph_grid_method<M>::cells_of(g), s->pos, s->sflag, s->slots, s->cs.h2, c);
	return SPH_GPU_LAUNCHED(s, "surface kernel");
}

/* create() of method M (its planted copy when PLANTED). */
template <int M, bool PLANTED>
static int sph_grid_create(void **ctx, const struct sph_input *in, const struct sph_params *p,
			   char *err, size_t errlen)
{
	typedef sph_grid_method<M> method;
	static const struct sph_gpu_method m = {
		PLANTED ? method::planted_name : method::name,
		sizeof(struct sph_grid),
		true, /* walls_in_slots */
		true, /* grid */
		method::morton_side,
		NULL, /* check */
		method::init,
		method::build,
		sph_grid_density<M, PLANTED>,
		sph_grid_force<M, PLANTED>,
		sph_grid_surface<M, PLANTED>,
		NULL, /* integrate: sph_gpu_integrate */
		NULL, /* steps: the common loop */
		NULL, /* fini */
		NULL, /* finish */
		0, /* kind: one variant of this code */
	};

	return sph_gpu_create(&m, ctx, in, p, err, errlen);
}

} /* namespace */

#ifndef SPH_GPU_PLANTED
extern "C" const struct sph_ops sph_gpu_grid_radix_ops =
	SPH_GPU_OPS((sph_grid_create<SPH_GRID_RADIX, false>));
extern "C" const struct sph_ops sph_gpu_grid_count_ops =
	SPH_GPU_OPS((sph_grid_create<SPH_GRID_COUNT, false>));
extern "C" const struct sph_ops sph_gpu_zindex_cells_ops =
	SPH_GPU_OPS((sph_grid_create<SPH_GRID_ZINDEX, false>));
#endif
