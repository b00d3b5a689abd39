/* sph_blocks.cu - SPH on the GPU by Z-index blocks, fixed buckets and all pairs: zindex-blocks, grid-buckets, brute */
/*
 * Variants (kernels/sph/sph_gpu.h), and what each does differently:
 *   sph-gpu-zindex-blocks  the paper's section 3 as written (Goswami et
 *                          al. 2010). A virtual grid of 1024^3 cubic cells
 *                          over the box (cell side L / 1024, L the box's
 *                          longest side, at least h); each slot's 30-bit
 *                          Morton key (morton_encode3) sorted with CUB's
 *                          radix sort (all 30 bits, stable). A "block" is
 *                          the aligned Morton block of S^3 virtual cells
 *                          whose keys share their top 3 (10 - log2 S)
 *                          bits, S the smallest power of two with S cells
 *                          >= h: its slots are contiguous after the sort.
 *                          The occupied blocks become a compact list (head
 *                          flags, exclusive scan: block key and first
 *                          slot), each block is split into chunks of at
 *                          most 64 slots (a scan of the chunk counts), and
 *                          each chunk gets a CUDA block of 64 threads
 *                          (Figure 4): threads 0..26 find the 27
 *                          neighbouring blocks by binary search in the
 *                          list, then the 64 threads copy the neighbours'
 *                          particles through shared memory, 64 at a time,
 *                          while each thread sums over them for one slot
 *                          of its own chunk. The force pass forms p_j and
 *                          1 / (2 rho_j) as it copies particle j (the
 *                          paper's "inverse density in shared memory"), so
 *                          no per-slot pressure array is kept. Memory:
 *                          besides the state, an id and four slot-sized
 *                          words (the radix sort's double buffers, reused
 *                          within a build for the block list, the chunk
 *                          counts and their scan: the paper keeps the
 *                          blocks in the sort's array too); position and
 *                          velocity are gathered through the acceleration
 *                          array, dead between a build and the force pass.
 *   sph-gpu-grid-buckets   the older bucket grid: cells of side h over the
 *                          box, each with a bucket of a fixed capacity B
 *                          (32: a cell of the scenes holds up to ~20
 *                          slots, walls included, at rest), filled by
 *                          atomicAdd. A slot that does not fit raises the
 *                          largest overflowing count; steps() and
 *                          evaluate() then fail, naming it and B
 *                          (counts().overflow = 1): neighbours are never
 *                          dropped silently. Each bucket is then
 *                          insertion-sorted by slot, so the order the
 *                          atomics ran in does not reach the sums. Slots
 *                          are not reordered; one thread per slot walks
 *                          the 27 buckets around its cell. aux_bytes
 *                          holds the whole ncells x B x 4-byte bucket
 *                          array, the memory the paper criticises.
 *   sph-gpu-brute          all pairs, tiled through shared memory in tiles
 *                          of 256 slots as the N-body kernel, one thread
 *                          per fluid slot; a baseline and a check for
 *                          small n (create() refuses more than 2,000,000
 *                          particles, fluid and walls). Its build is the
 *                          check that positions are finite.
 * The context, create and upload, steps and their events, read, counts,
 * integration, cells and Morton keys and the pair arithmetic are
 * sph_gpu_common's; every formula is sph_physics.h's. Within a slot's sum
 * the order is fixed (neighbouring blocks or cells z, y, x ascending,
 * slots ascending within each; brute: slots ascending), so every variant
 * is deterministic; atomics only count.
 *
 * Walls: one structure (walls_in_slots) in all three. The nb boundary
 * particles are slots n .. n + nb - 1 (pos.w = -psi / m): zindex-blocks
 * keys, sorts and chunks them with the fluid every step, grid-buckets
 * puts them in its buckets every step, brute tiles over them; one
 * neighbour search finds fluid and walls, and sph_gpu_density_pair and
 * sph_gpu_force_pair tell a wall pair by its w. What that costs: walls
 * that never move are re-keyed, re-sorted (zindex-blocks) or re-bucketed
 * (grid-buckets) every step, so the build handles 2.8 to 4.6 times the
 * fluid's slots in the scenes (nb = 1.8 n at 16,128, 3.6 n at 2,016);
 * each wall slot holds a state it never uses (with its copy in bnd, ~90
 * bytes in zindex-blocks, ~80 in grid-buckets, ~70 in brute, all in
 * aux_bytes); its threads return at once, or idle through a chunk's
 * tiles (zindex-blocks' chunks mix fluid and wall slots), and brute's
 * tiles carry every wall. Pairs are counted for fluid slots only:
 * (i, j != i) over fluid and wall slots.
 *
 * Planted bugs (tests/sph/gpu_planted_sph.cu includes this file with
 * SPH_GPU_PLANTED defined): each method instantiated with PLANT =
 * SPH_BLOCKS_PLANT_SKIP leaves a neighbour out (zindex-blocks the block
 * at -x, grid-buckets the cell at +z, brute its first tile), and
 * zindex-blocks with SPH_BLOCKS_PLANT_RACE drops the barrier between the
 * shared-memory copy and its reads. This file's own ops instantiate
 * SPH_BLOCKS_PLANT_NONE only, where every plant folds away at compile
 * time.
 */
#include "sph_gpu_common.cuh"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cub/cub.cuh>
#include <utility>

/* Slots of a chunk, threads of a zindex-blocks CUDA block. */
#define SPH_ZBLOCKS_CHUNK 64
/* Resident 64-thread CUDA blocks per SM the chunk kernels are launched
 * with (they loop over the chunks). */
#define SPH_ZBLOCKS_PER_SM 32
/* Brute force: threads per block and slots per tile. */
#define SPH_BRUTE_TILE 256
/* Most particles, fluid and walls, brute force accepts. */
#define SPH_BRUTE_MAX 2000000
/* Bucket capacity, and the range SPH_BUCKET_CAPACITY may set. */
#define SPH_BUCKETS_DEFAULT 32
#define SPH_BUCKETS_MAX 4096

/* Internal to this file and to the test file that includes it. */
namespace {

/* The planted bugs a method may be instantiated with (tests only). */
enum sph_blocks_plant {
	SPH_BLOCKS_PLANT_NONE,
	SPH_BLOCKS_PLANT_SKIP, /* a neighbouring block, cell or tile left out */
	SPH_BLOCKS_PLANT_RACE, /* zindex-blocks: no barrier after the shared copy */
};

/* zindex-blocks' planted skip: neighbour 9 (dz + 1) + 3 (dy + 1) + (dx +
 * 1) = 12, the block at -x. grid-buckets': the cell at +z. */
#define SPH_ZBLOCKS_PLANTED_BLOCK 12
#define SPH_BUCKETS_PLANTED_CELL 22

/* ==== the force tiles of zindex-blocks and brute force ==================== */

/*
 * Slot j into place t of a force tile in shared memory: its position,
 * velocity, and (p_j, 1 / (2 rho_j)) formed from rho_j as it is copied
 * (the paper's "inverse density in shared memory"); a wall's (0, 0),
 * never read.
 */
__device__ __forceinline__ void sph_blocks_copy(unsigned t, unsigned j,
						const float4 *__restrict__ pos,
						const float4 *__restrict__ vel,
						const float *__restrict__ rho, const sph_consts &cs,
						float4 *tx, float4 *tv, float2 *tp)
{
	const float4 xj = pos[j], vj = vel[j];

	tx[t] = xj;
	tv[t] = vj;
	if (sph_gpu_is_wall(xj)) {
		tp[t] = make_float2(0.0f, 0.0f);
	} else {
		const sph_gpu_force_acc fj = sph_gpu_force_start(xj, vj, rho[j], cs);

		tp[t] = make_float2(fj.p, fj.hinv);
	}
}

/* The first m candidates of a force tile added to the sums of f. */
__device__ __forceinline__ void sph_blocks_force_tile(sph_gpu_force_acc &f, unsigned m,
						      const float4 *tx, const float4 *tv,
						      const float2 *tp, const sph_consts &cs)
{
	for (unsigned k = 0; k < m; k++)
		sph_gpu_force_pair(f, tx[k], cs, [&](float4 &vj, float &pj, float &hinv_j) {
			vj = tv[k];
			pj = tp[k].x;
			hinv_j = tp[k].y;
		});
}

/* ==== zindex-blocks ====================================================== */

/* The compact block list of the current build. */
struct sph_zblocks_list {
	const unsigned *__restrict__ ukey;   /* block keys, ascending, nu of them */
	const unsigned *__restrict__ ustart; /* first slot of each block */
	const unsigned *__restrict__ coff;   /* first chunk of each block */
	const unsigned *__restrict__ scal;   /* nu, total chunks */
	int slots;
	int side; /* blocks a side: 1024 / S */
};

struct sph_zblocks {
	struct sph_gpu s;
	struct sph_gpu_grid vgrid; /* 1024^3 virtual cells from span_lo */
	int sbits;		   /* a block is 2^sbits virtual cells a side */
	unsigned *buf[4];	   /* slots words each: the sort's double buffers, then the list */
	unsigned *scal;		   /* [0] blocks nu, [1] chunks */
	struct sph_zblocks_list list;
	unsigned chunk_grid; /* CUDA blocks the chunk kernels are launched with */
	unsigned char *temp; /* CUB's temporary storage */
	size_t temp_bytes;
};

/* flag[i] = 1 where sorted slot i starts a block (its key >> shift
 * differs from slot i - 1's). */
static __global__ void sph_zblocks_heads_kernel(const unsigned *__restrict__ skey,
						unsigned *__restrict__ flag, int slots, int shift)
{
	const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < (unsigned)slots)
		flag[i] = i == 0 || (skey[i - 1] >> shift) != (skey[i] >> shift);
}

/* With run = exclusive scan of the head flags: the compact block list,
 * ukey[u] = block key (key >> shift), ustart[u] = its first slot, and
 * scal[0] = nu, the number of blocks. Heads are recomputed from skey, so
 * ukey may take the flag array's place. */
static __global__ void sph_zblocks_runs_kernel(const unsigned *__restrict__ skey,
					       const unsigned *__restrict__ run,
					       unsigned *__restrict__ ukey,
					       unsigned *__restrict__ ustart,
					       unsigned *__restrict__ scal, int slots, int shift)
{
	const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i >= (unsigned)slots)
		return;
	const unsigned b = skey[i] >> shift;
	const bool head = i == 0 || (skey[i - 1] >> shift) != b;

	if (head) {
		ukey[run[i]] = b;
		ustart[run[i]] = i;
	}
	if (i == (unsigned)slots - 1)
		scal[0] = run[i] + head;
}

/* One past the last slot of block u (< nu). */
__device__ __forceinline__ unsigned sph_zblocks_end(const unsigned *__restrict__ ustart,
						    unsigned u, unsigned nu, int slots)
{
	return u + 1 < nu ? ustart[u + 1] : (unsigned)slots;
}

/* nch[u] = chunks of block u (ceil(count / 64)) for u < nu, 0 beyond. */
static __global__ void sph_zblocks_chunks_kernel(const unsigned *__restrict__ ustart,
						 const unsigned *__restrict__ scal,
						 unsigned *__restrict__ nch, int slots)
{
	const unsigned u = blockIdx.x * blockDim.x + threadIdx.x;

	if (u >= (unsigned)slots)
		return;
	const unsigned nu = scal[0];

	nch[u] = u < nu ? (sph_zblocks_end(ustart, u, nu, slots) - ustart[u] + SPH_ZBLOCKS_CHUNK -
			   1) / SPH_ZBLOCKS_CHUNK
			: 0u;
}

/* scal[1] = total chunks = coff[slots - 1] + nch[slots - 1]. */
static __global__ void sph_zblocks_total_kernel(const unsigned *__restrict__ coff,
						const unsigned *__restrict__ nch,
						unsigned *__restrict__ scal, int slots)
{
	if (blockIdx.x == 0 && threadIdx.x == 0)
		scal[1] = coff[slots - 1] + nch[slots - 1];
}

/* out[i] = in[perm[i]] for float4 (pos, vel) or unsigned (id). */
template <class T>
static __global__ void sph_zblocks_gather_kernel(const unsigned *__restrict__ perm,
						 const T *__restrict__ in, T *__restrict__ out,
						 int slots)
{
	const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < (unsigned)slots)
		out[i] = in[perm[i]];
}

/* The shared state of one chunk: its slots first .. first + count - 1,
 * and its 27 neighbouring blocks (z, y, x ascending; an absent one with
 * no slots) laid end to end: neighbour r holds candidates off[r] ..
 * off[r + 1] - 1, from slot lo[r] on. */
struct sph_zblocks_chunk {
	unsigned first, count;
	unsigned lo[27];
	unsigned off[28];
};

/*
 * Fills ch for chunk c (< total chunks); every thread of the CUDA block
 * calls it, and it ends with the block synchronised. Thread 0 finds the
 * chunk's block; threads 0..26 find one neighbouring block each (with
 * PLANT == SPH_BLOCKS_PLANT_SKIP, SPH_ZBLOCKS_PLANTED_BLOCK finds none).
 */
template <int PLANT>
__device__ void sph_zblocks_setup(const sph_zblocks_list &b, unsigned c, sph_zblocks_chunk &ch,
				  unsigned &own)
{
	const unsigned nu = b.scal[0];
	const unsigned t = threadIdx.x;

	if (t == 0) {
		/* the last block whose first chunk is <= c */
		unsigned lo = 0, hi = nu;

		while (hi - lo > 1) {
			const unsigned mid = lo + (hi - lo) / 2;

			if (b.coff[mid] <= c)
				lo = mid;
			else
				hi = mid;
		}
		const unsigned start = b.ustart[lo] + (c - b.coff[lo]) * SPH_ZBLOCKS_CHUNK;

		own = lo;
		ch.first = start;
		ch.count = min((unsigned)SPH_ZBLOCKS_CHUNK,
			       sph_zblocks_end(b.ustart, lo, nu, b.slots) - start);
	}
	__syncthreads();
	if (t < 27) {
		const int3 o = morton_decode3(b.ukey[own]);
		const int x = o.x + (int)(t % 3) - 1, y = o.y + (int)(t / 3 % 3) - 1,
			  z = o.z + (int)(t / 9) - 1;
		unsigned lo = 0, cnt = 0;

		if (x >= 0 && y >= 0 && z >= 0 && x < b.side && y < b.side && z < b.side &&
		    !(PLANT == SPH_BLOCKS_PLANT_SKIP && t == SPH_ZBLOCKS_PLANTED_BLOCK)) {
			const unsigned k = morton_encode3(x, y, z);
			const unsigned u = sph_gpu_lower_bound(b.ukey, 0, nu, k);

			if (u < nu && b.ukey[u] == k) {
				lo = b.ustart[u];
				cnt = sph_zblocks_end(b.ustart, u, nu, b.slots) - lo;
			}
		}
		ch.lo[t] = lo;
		ch.off[t + 1] = cnt;
	}
	__syncthreads();
	if (t == 0) {
		ch.off[0] = 0;
		for (int r = 1; r <= 27; r++)
			ch.off[r] += ch.off[r - 1];
	}
	__syncthreads();
}

/* Slot of candidate q (< off[27]) of the chunk. */
__device__ __forceinline__ unsigned sph_zblocks_slot(const sph_zblocks_chunk &ch, unsigned q)
{
	int r = 0;

	while (q >= ch.off[r + 1])
		r++;
	return ch.lo[r] + (q - ch.off[r]);
}

/* The barrier between a tile's shared-memory copy and its reads; the
 * planted race leaves it out. */
template <int PLANT> __device__ __forceinline__ void sph_zblocks_copied()
{
	if (PLANT != SPH_BLOCKS_PLANT_RACE)
		__syncthreads();
}

/*
 * The walk the density pass and the surface extraction share: chunk by
 * chunk, the candidates of the chunk's 27 blocks copied tile by tile into
 * shared memory; for the chunk's slot i of this thread (a fluid slot:
 * `mine`), start(xi) before its candidates, pair(xj, j != i) for each, and
 * end(i, xi) after them.
 */
template <int PLANT, class Start, class Pair, class End>
__device__ __forceinline__ void sph_zblocks_sweep(const sph_zblocks_list &b,
						  const float4 *__restrict__ pos, Start &&start,
						  Pair &&pair, End &&end)
{
	__shared__ sph_zblocks_chunk ch;
	__shared__ unsigned own;
	__shared__ float4 tx[SPH_ZBLOCKS_CHUNK];
	__shared__ unsigned tslot[SPH_ZBLOCKS_CHUNK];
	const unsigned t = threadIdx.x, chunks = b.scal[1];

	for (unsigned c = blockIdx.x; c < chunks; c += gridDim.x) {
		sph_zblocks_setup<PLANT>(b, c, ch, own);
		const unsigned i = ch.first + t, total = ch.off[27];
		const bool in_chunk = t < ch.count;
		const float4 xi = in_chunk ? pos[i] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
		const bool mine = in_chunk && !sph_gpu_is_wall(xi);

		start(xi);
		for (unsigned base = 0; base < total; base += SPH_ZBLOCKS_CHUNK) {
			if (base + t < total) {
				const unsigned j = sph_zblocks_slot(ch, base + t);

				tx[t] = pos[j];
				tslot[t] = j;
			}
			sph_zblocks_copied<PLANT>();
			const unsigned m = min((unsigned)SPH_ZBLOCKS_CHUNK, total - base);

			if (mine)
				for (unsigned k = 0; k < m; k++)
					pair(xi, tx[k], tslot[k] != i);
			__syncthreads();
		}
		if (mine)
			end(i, xi);
		__syncthreads(); /* ch is rewritten for the next chunk */
	}
}

/* rho of every sorted fluid slot (a wall slot's thread copies but sums
 * nothing); with COUNT the pairs added to pairs[0], pairs[1]. */
template <bool COUNT, int PLANT>
static __global__ void __launch_bounds__(SPH_ZBLOCKS_CHUNK)
	sph_zblocks_density_kernel(sph_zblocks_list b, const float4 *__restrict__ pos,
				   float *__restrict__ rho, const __grid_constant__ sph_consts cs,
				   unsigned long long *__restrict__ pairs)
{
	sph_gpu_pairs pc = { 0, 0 };
	float sum = 0.0f;

	sph_zblocks_sweep<PLANT>(
		b, pos, [&](float4) { sum = 0.0f; },
		[&](float4 xi, float4 xj, bool other) {
			sph_gpu_density_pair<COUNT>(xi, xj, other, cs.h2, cs.inv_h2, sum, pc);
		},
		[&](unsigned i, float4) {
			float r, p, hinv;

			sph_eos(sum, cs.c_rho, cs.k, cs.rho0, &r, &p, &hinv);
			rho[i] = r;
		});
	if (COUNT)
		sph_gpu_add_pairs(pairs, pc);
}

/* The surface criterion of every sorted fluid slot into flag; a wall
 * slot's 0 is written by the caller's memset. */
static __global__ void __launch_bounds__(SPH_ZBLOCKS_CHUNK)
	sph_zblocks_surface_kernel(sph_zblocks_list b, const float4 *__restrict__ pos,
				   unsigned char *__restrict__ flag, float h2,
				   sph_gpu_surface_crit crit)
{
	sph_gpu_surface_sum a;

	sph_zblocks_sweep<SPH_BLOCKS_PLANT_NONE>(
		b, pos, [&](float4) { a = sph_gpu_surface_sum{ 0.0f, 0.0f, 0.0f, 0.0f }; },
		[&](float4 xi, float4 xj, bool other) { sph_gpu_surface_pair(xi, xj, other, h2, a); },
		[&](unsigned i, float4) { flag[i] = sph_gpu_surface_flag(a, crit); });
}

/* Acceleration of every sorted fluid slot, chunk by chunk, over tiles
 * copied by sph_blocks_copy. */
template <int PLANT>
static __global__ void __launch_bounds__(SPH_ZBLOCKS_CHUNK)
	sph_zblocks_force_kernel(sph_zblocks_list b, const float4 *__restrict__ pos,
				 const float4 *__restrict__ vel, const float *__restrict__ rho,
				 float4 *__restrict__ acc, const __grid_constant__ sph_consts cs)
{
	__shared__ sph_zblocks_chunk ch;
	__shared__ unsigned own;
	__shared__ float4 tx[SPH_ZBLOCKS_CHUNK], tv[SPH_ZBLOCKS_CHUNK];
	__shared__ float2 tp[SPH_ZBLOCKS_CHUNK];
	const unsigned t = threadIdx.x, chunks = b.scal[1];

	for (unsigned c = blockIdx.x; c < chunks; c += gridDim.x) {
		sph_zblocks_setup<PLANT>(b, c, ch, own);
		const unsigned i = ch.first + t, total = ch.off[27];
		const bool in_chunk = t < ch.count;
		const float4 zero = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
		const float4 xi = in_chunk ? pos[i] : zero;
		const bool mine = in_chunk && !sph_gpu_is_wall(xi);
		sph_gpu_force_acc f = sph_gpu_force_start(xi, mine ? vel[i] : zero,
							  mine ? rho[i] : 1.0f, cs);

		for (unsigned base = 0; base < total; base += SPH_ZBLOCKS_CHUNK) {
			if (base + t < total)
				sph_blocks_copy(t, sph_zblocks_slot(ch, base + t), pos, vel, rho, cs,
						tx, tv, tp);
			sph_zblocks_copied<PLANT>();
			if (mine)
				sph_blocks_force_tile(f, min((unsigned)SPH_ZBLOCKS_CHUNK, total - base),
						      tx, tv, tp, cs);
			__syncthreads();
		}
		if (mine)
			acc[i] = sph_gpu_force_end(f, cs);
		__syncthreads(); /* ch is rewritten for the next chunk */
	}
}

/* out = in[perm] into the array *spare, which then takes in's place. */
template <class T>
static int sph_zblocks_permute(struct sph_gpu *s, const unsigned *perm, T **in, T **spare)
{
	sph_zblocks_gather_kernel<T><<<sph_gpu_blocks(s->slots), SPH_GPU_BLOCK, 0, s->stream>>>(
		perm, *in, *spare, s->slots);
	if (SPH_GPU_LAUNCHED(s, "gather kernel"))
		return -1;
	std::swap(*in, *spare);
	return 0;
}

/*
 * Keys, radix sort, reorder, block list, chunks. The four scratch arrays
 * and the id array take these roles in turn:
 *   keys, keys', slots, slots'    -> sort: sorted keys S, perm P, free F1, F2
 *   id gathered into F1           -> the old id array is free: F3
 *   head flags in F3, scan in F2  -> ukey in F3, ustart in P
 *   chunk counts in F2, scan in S (coff)
 * and position and velocity are gathered through acc (rewritten by the
 * force pass before anything reads it; a wall slot's acc is never read).
 */
static int sph_zblocks_build(struct sph_gpu *s)
{
	struct sph_zblocks *z = (struct sph_zblocks *)s;
	const int slots = s->slots, shift = 3 * z->sbits;
	const unsigned blocks = sph_gpu_blocks(slots);
	cub::DoubleBuffer<unsigned> keys(z->buf[0], z->buf[1]), vals(z->buf[2], z->buf[3]);
	size_t bytes = z->temp_bytes;

	sph_gpu_iota_kernel<<<blocks, SPH_GPU_BLOCK, 0, s->stream>>>(vals.Current(), slots);
	if (SPH_GPU_LAUNCHED(s, "iota kernel"))
		return -1;
	sph_gpu_key_kernel<true><<<blocks, SPH_GPU_BLOCK, 0, s->stream>>>(
		s->pos, s->id, keys.Current(), slots, z->vgrid, s->bad);
	if (SPH_GPU_LAUNCHED(s, "key kernel") ||
	    SPH_GPU_CHECK(s, cub::DeviceRadixSort::SortPairs(z->temp, bytes, keys, vals, slots, 0,
							     3 * SPH_GPU_MORTON_BITS, s->stream)))
		return -1;
	unsigned *skey = keys.Current(), *perm = vals.Current();
	unsigned *f1 = keys.Alternate(), *f2 = vals.Alternate(), *f3;

	if (sph_zblocks_permute(s, perm, &s->pos, &s->acc) ||
	    sph_zblocks_permute(s, perm, &s->vel, &s->acc) ||
	    sph_zblocks_permute(s, perm, &s->id, &f1))
		return -1;
	f3 = f1; /* the old id array, swapped out */
	sph_zblocks_heads_kernel<<<blocks, SPH_GPU_BLOCK, 0, s->stream>>>(skey, f3, slots, shift);
	bytes = z->temp_bytes;
	if (SPH_GPU_LAUNCHED(s, "heads kernel") ||
	    SPH_GPU_CHECK(s, cub::DeviceScan::ExclusiveSum(z->temp, bytes, f3, f2, slots, s->stream)))
		return -1;
	sph_zblocks_runs_kernel<<<blocks, SPH_GPU_BLOCK, 0, s->stream>>>(skey, f2, f3, perm, z->scal,
									 slots, shift);
	if (SPH_GPU_LAUNCHED(s, "runs kernel"))
		return -1;
	sph_zblocks_chunks_kernel<<<blocks, SPH_GPU_BLOCK, 0, s->stream>>>(perm, z->scal, f2, slots);
	bytes = z->temp_bytes;
	if (SPH_GPU_LAUNCHED(s, "chunks kernel") ||
	    SPH_GPU_CHECK(s, cub::DeviceScan::ExclusiveSum(z->temp, bytes, f2, skey, slots,
							    s->stream)))
		return -1;
	sph_zblocks_total_kernel<<<1, 1, 0, s->stream>>>(skey, f2, z->scal, slots);
	if (SPH_GPU_LAUNCHED(s, "total kernel"))
		return -1;
	z->buf[0] = skey;
	z->buf[1] = f3;
	z->buf[2] = perm;
	z->buf[3] = f2;
	z->list.ukey = f3;
	z->list.ustart = perm;
	z->list.coff = skey;
	return 0;
}

/*
 * The virtual grid over span_lo .. span_hi: 1024^3 cubic cells of side
 * L / 1024, L the longest extent and at least h (1 + margin), and the
 * block side S = 2^sbits cells, the smallest power of two with S cells >=
 * h (1 + margin) (S <= 1024, since 1024 cells >= h (1 + margin)). Then the
 * four scratch arrays, the counters, CUB's temporary storage and the
 * chunk kernels' launch size. 0, or -1 with s->err.
 */
static int sph_zblocks_init(struct sph_gpu *s)
{
	struct sph_zblocks *z = (struct sph_zblocks *)s;
	/* (double)(float)h is within 6e-8 h of h: the margin still covers
	 * every pair the float test r^2 < h^2 lets through */
	const double reach = (double)s->cs.h * (1.0 + SPH_GPU_GRID_MARGIN);
	const size_t slots = (size_t)s->slots;
	double longest = reach;
	size_t sort_bytes = 0, scan_bytes = 0;
	int dev = 0, sms = 0;

	for (int d = 0; d < 3; d++) {
		z->vgrid.lo[d] = s->span_lo[d];
		z->vgrid.dim[d] = SPH_GPU_MORTON_SIDE;
		longest = fmax(longest, s->span_hi[d] - s->span_lo[d]);
	}
	if (!std::isfinite(longest)) {
		snprintf(s->err, sizeof s->err, "%s: the box is not finite", s->name);
		return -1;
	}
	z->vgrid.cell = longest / SPH_GPU_MORTON_SIDE;
	z->vgrid.ncells = 0; /* no table of cells */
	z->sbits = 0;
	while (z->sbits < SPH_GPU_MORTON_BITS && (double)(1 << z->sbits) * z->vgrid.cell < reach)
		z->sbits++;
	for (int k = 0; k < 4; k++)
		if (sph_gpu_alloc(s, &z->buf[k], slots))
			return -1;
	cub::DoubleBuffer<unsigned> keys(z->buf[0], z->buf[1]), vals(z->buf[2], z->buf[3]);

	if (sph_gpu_alloc(s, &z->scal, 2) ||
	    SPH_GPU_CHECK(s, cub::DeviceRadixSort::SortPairs(NULL, sort_bytes, keys, vals, s->slots,
							     0, 3 * SPH_GPU_MORTON_BITS,
							     s->stream)) ||
	    SPH_GPU_CHECK(s, cub::DeviceScan::ExclusiveSum(NULL, scan_bytes, z->buf[0], z->buf[1],
							    s->slots, s->stream)) ||
	    SPH_GPU_CHECK(s, cudaGetDevice(&dev)) ||
	    SPH_GPU_CHECK(s, cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev)))
		return -1;
	z->temp_bytes = std::max(std::max(sort_bytes, scan_bytes), (size_t)1);
	/* at most nu + slots / 64 <= slots + slots / 64 chunks */
	z->chunk_grid = (unsigned)std::min(slots + slots / SPH_ZBLOCKS_CHUNK + 1,
					   (size_t)std::max(sms, 1) * SPH_ZBLOCKS_PER_SM);
	z->list.scal = z->scal;
	z->list.slots = s->slots;
	z->list.side = SPH_GPU_MORTON_SIDE >> z->sbits;
	return sph_gpu_alloc(s, &z->temp, z->temp_bytes);
}

template <int PLANT> static int sph_zblocks_density(struct sph_gpu *s, bool count)
{
	const struct sph_zblocks *z = (const struct sph_zblocks *)s;

	if (count)
		sph_zblocks_density_kernel<true, PLANT>
			<<<z->chunk_grid, SPH_ZBLOCKS_CHUNK, 0, s->stream>>>(z->list, s->pos, s->rho,
									     s->cs, s->pairs);
	else
		sph_zblocks_density_kernel<false, PLANT>
			<<<z->chunk_grid, SPH_ZBLOCKS_CHUNK, 0, s->stream>>>(z->list, s->pos, s->rho,
									     s->cs, s->pairs);
	return SPH_GPU_LAUNCHED(s, "density kernel");
}

static int sph_zblocks_surface(struct sph_gpu *s, const sph_gpu_surface_crit &c)
{
	const struct sph_zblocks *z = (const struct sph_zblocks *)s;

	if (s->m->build(s) != 0 ||
	    SPH_GPU_CHECK(s, cudaMemsetAsync(s->sflag, 0, (size_t)s->slots, s->stream)))
		return -1;
	sph_zblocks_surface_kernel<<<z->chunk_grid, SPH_ZBLOCKS_CHUNK, 0, s->stream>>>(
		z->list, s->pos, s->sflag, s->cs.h2, c);
	return SPH_GPU_LAUNCHED(s, "surface kernel");
}

template <int PLANT> static int sph_zblocks_force(struct sph_gpu *s)
{
	const struct sph_zblocks *z = (const struct sph_zblocks *)s;

	sph_zblocks_force_kernel<PLANT><<<z->chunk_grid, SPH_ZBLOCKS_CHUNK, 0, s->stream>>>(
		z->list, s->pos, s->vel, s->rho, s->acc, s->cs);
	return SPH_GPU_LAUNCHED(s, "force kernel");
}

template <int PLANT>
static int sph_zblocks_create(void **ctx, const struct sph_input *in, const struct sph_params *p,
			      char *err, size_t errlen)
{
	static const struct sph_gpu_method m = {
		PLANT == SPH_BLOCKS_PLANT_NONE	 ? "sph-gpu-zindex-blocks"
		: PLANT == SPH_BLOCKS_PLANT_SKIP ? "sph-gpu-zindex-blocks (planted: block -x left out)"
						 : "sph-gpu-zindex-blocks (planted: no barrier after "
						   "the shared-memory copy)",
		sizeof(struct sph_zblocks),
		true,  /* walls_in_slots */
		false, /* grid: its own virtual grid */
		0,     /* morton_side */
		NULL,  /* check */
		sph_zblocks_init,
		sph_zblocks_build,
		sph_zblocks_density<PLANT>,
		sph_zblocks_force<PLANT>,
		sph_zblocks_surface,
		NULL, /* integrate: sph_gpu_integrate */
		NULL, /* steps: the common loop */
		NULL, /* fini */
		NULL, /* finish */
		0, /* kind: one variant of this code */
	};

	return sph_gpu_create(&m, ctx, in, p, err, errlen);
}

/* ==== grid-buckets ======================================================= */

struct sph_buckets {
	struct sph_gpu s;
	int cap;		/* slots a bucket holds */
	unsigned *count;	/* ncells: slots that fell in each cell */
	unsigned *bucket;	/* ncells x cap: the slots of each cell, ascending */
	float2 *prh;		/* (p_j, 1 / (2 rho_j)) of each slot */
	unsigned *fullest;	/* the largest count of a cell that overflowed, or 0 */
};

/* Slot i into a free place of its cell's bucket; a slot that finds the
 * bucket full raises *fullest to its cell's count so far. Slots are never
 * reordered, so slot i is the caller's particle i. */
static __global__ void sph_buckets_fill_kernel(const float4 *__restrict__ pos,
					       unsigned *__restrict__ count,
					       unsigned *__restrict__ bucket, int slots, int cap,
					       sph_gpu_grid g, unsigned *__restrict__ fullest,
					       unsigned *__restrict__ bad)
{
	const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i >= (unsigned)slots)
		return;
	const float4 x = pos[i];
	const int3 c = sph_gpu_cell_of(g, x);
	const unsigned cell = sph_gpu_linear(c.x, c.y, c.z, g.dim);
	const unsigned r = atomicAdd(&count[cell], 1u);

	sph_gpu_check_finite(x, i, bad);
	if (r < (unsigned)cap)
		bucket[(size_t)cell * (unsigned)cap + r] = i;
	else
		atomicMax(fullest, r + 1);
}

/* Each bucket's entries in ascending order (insertion sort, one thread a
 * cell), so the sums do not depend on the order the atomics ran in. */
static __global__ void sph_buckets_order_kernel(const unsigned *__restrict__ count,
						unsigned *__restrict__ bucket, unsigned ncells,
						int cap)
{
	const unsigned c = blockIdx.x * blockDim.x + threadIdx.x;

	if (c >= ncells)
		return;
	unsigned *e = bucket + (size_t)c * (unsigned)cap;
	const unsigned m = min(count[c], (unsigned)cap);

	for (unsigned a = 1; a < m; a++) {
		const unsigned v = e[a];
		unsigned k = a;

		for (; k > 0 && e[k - 1] > v; k--)
			e[k] = e[k - 1];
		e[k] = v;
	}
}

/* fn(j) for every entry j of the 27 buckets around the cell of x: cells
 * z, y, x ascending, entries ascending (with PLANT == SPH_BLOCKS_PLANT_SKIP
 * the cell SPH_BUCKETS_PLANTED_CELL = 9 (dz + 1) + 3 (dy + 1) + (dx + 1)
 * left out). */
template <int PLANT, class Fn>
__device__ __forceinline__ void sph_buckets_each(const sph_gpu_grid &g,
						 const unsigned *__restrict__ count,
						 const unsigned *__restrict__ bucket, int cap,
						 float4 x, Fn &&fn)
{
	const int3 c = sph_gpu_cell_of(g, x);
	const int z1 = min(c.z + 1, g.dim[2] - 1), y1 = min(c.y + 1, g.dim[1] - 1),
		  x1 = min(c.x + 1, g.dim[0] - 1);

	for (int z = max(c.z - 1, 0); z <= z1; z++)
		for (int y = max(c.y - 1, 0); y <= y1; y++)
			for (int xx = max(c.x - 1, 0); xx <= x1; xx++) {
				if (PLANT == SPH_BLOCKS_PLANT_SKIP &&
				    9 * (z - c.z + 1) + 3 * (y - c.y + 1) + (xx - c.x + 1) ==
					    SPH_BUCKETS_PLANTED_CELL)
					continue;
				const unsigned cell = sph_gpu_linear(xx, y, z, g.dim);
				const unsigned m = min(count[cell], (unsigned)cap);
				const unsigned *e = bucket + (size_t)cell * (unsigned)cap;

				for (unsigned k = 0; k < m; k++)
					fn(e[k]);
			}
}

/* rho and prh of every fluid slot (wall slots do nothing); with COUNT the
 * pairs added to pairs[0], pairs[1]. */
template <bool COUNT, int PLANT>
static __global__ void __launch_bounds__(SPH_GPU_BLOCK)
	sph_buckets_density_kernel(sph_gpu_grid g, const unsigned *__restrict__ count,
				   const unsigned *__restrict__ bucket, int cap,
				   const float4 *__restrict__ pos, float *__restrict__ rho,
				   float2 *__restrict__ prh, int slots,
				   const __grid_constant__ sph_consts cs,
				   unsigned long long *__restrict__ pairs)
{
	const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
	sph_gpu_pairs pc = { 0, 0 };

	if (i < (unsigned)slots && !sph_gpu_is_wall(pos[i])) {
		const float4 xi = pos[i];
		float sum = 0.0f, r, p, hinv;

		sph_buckets_each<PLANT>(g, count, bucket, cap, xi, [&](unsigned j) {
			sph_gpu_density_pair<COUNT>(xi, pos[j], j != i, cs.h2, cs.inv_h2, sum, pc);
		});
		sph_eos(sum, cs.c_rho, cs.k, cs.rho0, &r, &p, &hinv);
		rho[i] = r;
		prh[i] = make_float2(p, hinv);
	}
	if (COUNT)
		sph_gpu_add_pairs(pairs, pc);
}

/* Acceleration of every fluid slot (wall slots do nothing). */
template <int PLANT>
static __global__ void __launch_bounds__(SPH_GPU_BLOCK)
	sph_buckets_force_kernel(sph_gpu_grid g, const unsigned *__restrict__ count,
				 const unsigned *__restrict__ bucket, int cap,
				 const float4 *__restrict__ pos, const float4 *__restrict__ vel,
				 const float *__restrict__ rho, const float2 *__restrict__ prh,
				 float4 *__restrict__ acc, int slots,
				 const __grid_constant__ sph_consts cs)
{
	const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i >= (unsigned)slots)
		return;
	const float4 xi = pos[i];

	if (sph_gpu_is_wall(xi))
		return;
	sph_gpu_force_acc f = sph_gpu_force_start(xi, vel[i], rho[i], cs);

	sph_buckets_each<PLANT>(g, count, bucket, cap, xi, [&](unsigned j) {
		sph_gpu_force_pair(f, pos[j], cs, [&](float4 &vj, float &pj, float &hinv_j) {
			const float2 q = prh[j];

			vj = vel[j];
			pj = q.x;
			hinv_j = q.y;
		});
	});
	acc[i] = sph_gpu_force_end(f, cs);
}

/* The bucket capacity: SPH_BUCKET_CAPACITY when set (a test hook), else
 * SPH_BUCKETS_DEFAULT. 0, or -1 with a message when it is not 1 .. 4096. */
static int sph_buckets_capacity(int *cap, const char *name, char *err, size_t errlen)
{
	const char *env = getenv("SPH_BUCKET_CAPACITY");
	char *end;
	long v;

	*cap = SPH_BUCKETS_DEFAULT;
	if (!env || !*env)
		return 0;
	v = strtol(env, &end, 10);
	if (*end || v < 1 || v > SPH_BUCKETS_MAX) {
		snprintf(err, errlen, "%s: SPH_BUCKET_CAPACITY = \"%s\"; allowed 1 .. %d", name, env,
			 SPH_BUCKETS_MAX);
		return -1;
	}
	*cap = (int)v;
	return 0;
}

/* create()'s refusal of a bad SPH_BUCKET_CAPACITY, before any CUDA call. */
static int sph_buckets_check(const struct sph_input *in, const char *name, char *err,
			     size_t errlen)
{
	int cap;

	(void)in;
	return sph_buckets_capacity(&cap, name, err, errlen);
}

static int sph_buckets_init(struct sph_gpu *s)
{
	struct sph_buckets *b = (struct sph_buckets *)s;
	const size_t cells = s->grid.ncells;

	if (sph_buckets_capacity(&b->cap, s->name, s->err, sizeof s->err) != 0)
		return -1;
	return sph_gpu_alloc(s, &b->count, cells) ||
			       sph_gpu_alloc(s, &b->bucket, cells * (size_t)b->cap) ||
			       sph_gpu_alloc(s, &b->prh, (size_t)s->slots) ||
			       sph_gpu_alloc(s, &b->fullest, 1) ||
			       SPH_GPU_CHECK(s, cudaMemsetAsync(b->fullest, 0, sizeof *b->fullest,
								s->stream))
		       ? -1
		       : 0;
}

static int sph_buckets_build(struct sph_gpu *s)
{
	struct sph_buckets *b = (struct sph_buckets *)s;
	const unsigned cells = s->grid.ncells;

	if (SPH_GPU_CHECK(s, cudaMemsetAsync(b->count, 0, (size_t)cells * sizeof(unsigned),
					     s->stream)))
		return -1;
	sph_buckets_fill_kernel<<<sph_gpu_blocks(s->slots), SPH_GPU_BLOCK, 0, s->stream>>>(
		s->pos, b->count, b->bucket, s->slots, b->cap, s->grid, b->fullest, s->bad);
	if (SPH_GPU_LAUNCHED(s, "bucket fill kernel"))
		return -1;
	sph_buckets_order_kernel<<<sph_gpu_blocks(cells), SPH_GPU_BLOCK, 0, s->stream>>>(
		b->count, b->bucket, cells, b->cap);
	return SPH_GPU_LAUNCHED(s, "bucket order kernel");
}

template <int PLANT> static int sph_buckets_density(struct sph_gpu *s, bool count)
{
	const struct sph_buckets *b = (const struct sph_buckets *)s;
	const unsigned blocks = sph_gpu_blocks(s->slots);

	if (count)
		sph_buckets_density_kernel<true, PLANT><<<blocks, SPH_GPU_BLOCK, 0, s->stream>>>(
			s->grid, b->count, b->bucket, b->cap, s->pos, s->rho, b->prh, s->slots,
			s->cs, s->pairs);
	else
		sph_buckets_density_kernel<false, PLANT><<<blocks, SPH_GPU_BLOCK, 0, s->stream>>>(
			s->grid, b->count, b->bucket, b->cap, s->pos, s->rho, b->prh, s->slots,
			s->cs, s->pairs);
	return SPH_GPU_LAUNCHED(s, "density kernel");
}

/* The surface criterion of every fluid slot into flag (wall slots 0). */
static __global__ void __launch_bounds__(SPH_GPU_BLOCK)
	sph_buckets_surface_kernel(sph_gpu_grid g, const unsigned *__restrict__ count,
				   const unsigned *__restrict__ bucket, int cap,
				   const float4 *__restrict__ pos, unsigned char *__restrict__ flag,
				   int slots, float h2, sph_gpu_surface_crit crit)
{
	const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i >= (unsigned)slots)
		return;
	const float4 xi = pos[i];
	sph_gpu_surface_sum a = { 0.0f, 0.0f, 0.0f, 0.0f };

	if (sph_gpu_is_wall(xi)) {
		flag[i] = 0;
		return;
	}
	sph_buckets_each<SPH_BLOCKS_PLANT_NONE>(g, count, bucket, cap, xi, [&](unsigned j) {
		sph_gpu_surface_pair(xi, pos[j], j != i, h2, a);
	});
	flag[i] = sph_gpu_surface_flag(a, crit);
}

static int sph_buckets_surface(struct sph_gpu *s, const sph_gpu_surface_crit &c)
{
	const struct sph_buckets *b = (const struct sph_buckets *)s;

	if (s->m->build(s) != 0)
		return -1;
	sph_buckets_surface_kernel<<<sph_gpu_blocks(s->slots), SPH_GPU_BLOCK, 0, s->stream>>>(
		s->grid, b->count, b->bucket, b->cap, s->pos, s->sflag, s->slots, s->cs.h2, c);
	return SPH_GPU_LAUNCHED(s, "surface kernel");
}

template <int PLANT> static int sph_buckets_force(struct sph_gpu *s)
{
	const struct sph_buckets *b = (const struct sph_buckets *)s;

	sph_buckets_force_kernel<PLANT><<<sph_gpu_blocks(s->slots), SPH_GPU_BLOCK, 0, s->stream>>>(
		s->grid, b->count, b->bucket, b->cap, s->pos, s->vel, s->rho, b->prh, s->acc,
		s->slots, s->cs);
	return SPH_GPU_LAUNCHED(s, "force kernel");
}

/* After the queued work: a bucket that overflowed since create fails the
 * run, naming the count and the capacity. */
static int sph_buckets_finish(struct sph_gpu *s)
{
	struct sph_buckets *b = (struct sph_buckets *)s;
	unsigned fullest = 0;

	if (SPH_GPU_CHECK(s, cudaMemcpyAsync(&fullest, b->fullest, sizeof fullest,
					     cudaMemcpyDeviceToHost, s->stream)) ||
	    SPH_GPU_CHECK(s, cudaStreamSynchronize(s->stream)))
		return -1;
	if (fullest == 0)
		return 0;
	snprintf(s->err, sizeof s->err, "%s: bucket overflow: a cell held %u particles, capacity %d "
		 "(SPH_BUCKET_CAPACITY); neighbours were dropped, the run is invalid", s->name,
		 fullest, b->cap);
	s->overflow = 1;
	return -1;
}

template <int PLANT>
static int sph_buckets_create(void **ctx, const struct sph_input *in, const struct sph_params *p,
			      char *err, size_t errlen)
{
	static const struct sph_gpu_method m = {
		PLANT == SPH_BLOCKS_PLANT_NONE ? "sph-gpu-grid-buckets"
					       : "sph-gpu-grid-buckets (planted: cell +z left out)",
		sizeof(struct sph_buckets),
		true, /* walls_in_slots */
		true, /* grid */
		0,    /* morton_side */
		sph_buckets_check,
		sph_buckets_init,
		sph_buckets_build,
		sph_buckets_density<PLANT>,
		sph_buckets_force<PLANT>,
		sph_buckets_surface,
		NULL, /* integrate: sph_gpu_integrate */
		NULL, /* steps: the common loop */
		NULL, /* fini */
		sph_buckets_finish,
		0, /* kind: one variant of this code */
	};

	return sph_gpu_create(&m, ctx, in, p, err, errlen);
}

/* ==== brute force ======================================================== */

/* The first tile brute force reads: 0, or the second with the planted
 * skip. */
template <int PLANT> __device__ __forceinline__ unsigned sph_brute_first()
{
	return PLANT == SPH_BLOCKS_PLANT_SKIP ? SPH_BRUTE_TILE : 0u;
}

/* Every fluid slot's position finite (slots are the caller's order). */
static __global__ void sph_brute_finite_kernel(const float4 *__restrict__ pos, int n,
					       unsigned *__restrict__ bad)
{
	const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < (unsigned)n)
		sph_gpu_check_finite(pos[i], i, bad);
}

/* The walk the density pass and the surface extraction share: every slot
 * (fluid and walls) copied tile by tile into shared memory, and for fluid
 * slot i < n of this thread (`mine`) pair(xj, j != i) for each. */
template <int PLANT, class Pair>
__device__ __forceinline__ void sph_brute_sweep(const float4 *__restrict__ pos, int slots, bool mine,
						unsigned i, float4 xi, Pair &&pair)
{
	__shared__ float4 tx[SPH_BRUTE_TILE];

	for (unsigned base = sph_brute_first<PLANT>(); base < (unsigned)slots;
	     base += SPH_BRUTE_TILE) {
		if (base + threadIdx.x < (unsigned)slots)
			tx[threadIdx.x] = pos[base + threadIdx.x];
		__syncthreads();
		const unsigned m = min((unsigned)SPH_BRUTE_TILE, (unsigned)slots - base);

		if (mine)
			for (unsigned k = 0; k < m; k++)
				pair(xi, tx[k], base + k != i);
		__syncthreads();
	}
}

/* rho of fluid slot i < n over every slot (fluid and walls) in tiles; with
 * COUNT the pairs added to pairs[0], pairs[1]. */
template <bool COUNT, int PLANT>
static __global__ void __launch_bounds__(SPH_BRUTE_TILE)
	sph_brute_density_kernel(const float4 *__restrict__ pos, float *__restrict__ rho, int n,
				 int slots, const __grid_constant__ sph_consts cs,
				 unsigned long long *__restrict__ pairs)
{
	const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
	const bool mine = i < (unsigned)n;
	sph_gpu_pairs pc = { 0, 0 };
	float sum = 0.0f;

	sph_brute_sweep<PLANT>(pos, slots, mine, i,
			       mine ? pos[i] : make_float4(0.0f, 0.0f, 0.0f, 0.0f),
			       [&](float4 xi, float4 xj, bool other) {
				       sph_gpu_density_pair<COUNT>(xi, xj, other, cs.h2, cs.inv_h2,
								   sum, pc);
			       });
	if (mine) {
		float r, p, hinv;

		sph_eos(sum, cs.c_rho, cs.k, cs.rho0, &r, &p, &hinv);
		rho[i] = r;
	}
	if (COUNT)
		sph_gpu_add_pairs(pairs, pc);
}

/* Acceleration of fluid slot i < n over every slot in tiles copied by
 * sph_blocks_copy. */
template <int PLANT>
static __global__ void __launch_bounds__(SPH_BRUTE_TILE)
	sph_brute_force_kernel(const float4 *__restrict__ pos, const float4 *__restrict__ vel,
			       const float *__restrict__ rho, float4 *__restrict__ acc, int n,
			       int slots, const __grid_constant__ sph_consts cs)
{
	__shared__ float4 tx[SPH_BRUTE_TILE], tv[SPH_BRUTE_TILE];
	__shared__ float2 tp[SPH_BRUTE_TILE];
	const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
	const bool mine = i < (unsigned)n;
	const float4 zero = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
	sph_gpu_force_acc f = sph_gpu_force_start(mine ? pos[i] : zero, mine ? vel[i] : zero,
						  mine ? rho[i] : 1.0f, cs);

	for (unsigned base = sph_brute_first<PLANT>(); base < (unsigned)slots;
	     base += SPH_BRUTE_TILE) {
		if (base + threadIdx.x < (unsigned)slots)
			sph_blocks_copy(threadIdx.x, base + threadIdx.x, pos, vel, rho, cs, tx, tv, tp);
		__syncthreads();
		if (mine)
			sph_blocks_force_tile(f, min((unsigned)SPH_BRUTE_TILE, (unsigned)slots - base),
					      tx, tv, tp, cs);
		__syncthreads();
	}
	if (mine)
		acc[i] = sph_gpu_force_end(f, cs);
}

/* create()'s refusal of more particles than all pairs can take. */
static int sph_brute_check(const struct sph_input *in, const char *name, char *err,
			   size_t errlen)
{
	if (in->n + in->nb <= SPH_BRUTE_MAX)
		return 0;
	snprintf(err, errlen, "%s: %zu fluid and %zu boundary particles, %zu in all; allowed at most "
		 "%d in all (all pairs: O(n^2))", name, in->n, in->nb, in->n + in->nb, SPH_BRUTE_MAX);
	return -1;
}

static int sph_brute_build(struct sph_gpu *s)
{
	sph_brute_finite_kernel<<<sph_gpu_blocks(s->n), SPH_GPU_BLOCK, 0, s->stream>>>(s->pos, s->n,
										       s->bad);
	return SPH_GPU_LAUNCHED(s, "finite kernel");
}

/* CUDA blocks of brute force's passes: one thread per fluid slot. */
static unsigned sph_brute_blocks(const struct sph_gpu *s)
{
	return (unsigned)(((size_t)s->n + SPH_BRUTE_TILE - 1) / SPH_BRUTE_TILE);
}

template <int PLANT> static int sph_brute_density(struct sph_gpu *s, bool count)
{
	if (count)
		sph_brute_density_kernel<true, PLANT>
			<<<sph_brute_blocks(s), SPH_BRUTE_TILE, 0, s->stream>>>(s->pos, s->rho, s->n,
										s->slots, s->cs,
										s->pairs);
	else
		sph_brute_density_kernel<false, PLANT>
			<<<sph_brute_blocks(s), SPH_BRUTE_TILE, 0, s->stream>>>(s->pos, s->rho, s->n,
										s->slots, s->cs,
										s->pairs);
	return SPH_GPU_LAUNCHED(s, "density kernel");
}

/* The surface criterion of fluid slot i < n over every slot in tiles
 * (slots n .. are walls: flag 0). */
static __global__ void __launch_bounds__(SPH_BRUTE_TILE)
	sph_brute_surface_kernel(const float4 *__restrict__ pos, unsigned char *__restrict__ flag,
				 int n, int slots, float h2, sph_gpu_surface_crit crit)
{
	const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
	const bool mine = i < (unsigned)n;
	sph_gpu_surface_sum a = { 0.0f, 0.0f, 0.0f, 0.0f };

	sph_brute_sweep<SPH_BLOCKS_PLANT_NONE>(
		pos, slots, mine, i, mine ? pos[i] : make_float4(0.0f, 0.0f, 0.0f, 0.0f),
		[&](float4 xi, float4 xj, bool other) { sph_gpu_surface_pair(xi, xj, other, h2, a); });
	if (mine)
		flag[i] = sph_gpu_surface_flag(a, crit);
	else if (i < (unsigned)slots)
		flag[i] = 0;
}

static int sph_brute_surface(struct sph_gpu *s, const sph_gpu_surface_crit &c)
{
	const unsigned blocks = (unsigned)(((size_t)s->slots + SPH_BRUTE_TILE - 1) / SPH_BRUTE_TILE);

	if (s->m->build(s) != 0)
		return -1;
	sph_brute_surface_kernel<<<blocks, SPH_BRUTE_TILE, 0, s->stream>>>(s->pos, s->sflag, s->n,
									    s->slots, s->cs.h2, c);
	return SPH_GPU_LAUNCHED(s, "surface kernel");
}

template <int PLANT> static int sph_brute_force(struct sph_gpu *s)
{
	sph_brute_force_kernel<PLANT><<<sph_brute_blocks(s), SPH_BRUTE_TILE, 0, s->stream>>>(
		s->pos, s->vel, s->rho, s->acc, s->n, s->slots, s->cs);
	return SPH_GPU_LAUNCHED(s, "force kernel");
}

template <int PLANT>
static int sph_brute_create(void **ctx, const struct sph_input *in, const struct sph_params *p,
			    char *err, size_t errlen)
{
	static const struct sph_gpu_method m = {
		PLANT == SPH_BLOCKS_PLANT_NONE ? "sph-gpu-brute"
					       : "sph-gpu-brute (planted: first tile left out)",
		sizeof(struct sph_gpu),
		true,  /* walls_in_slots */
		false, /* grid */
		0,     /* morton_side */
		sph_brute_check,
		NULL, /* init */
		sph_brute_build,
		sph_brute_density<PLANT>,
		sph_brute_force<PLANT>,
		sph_brute_surface,
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
extern "C" const struct sph_ops sph_gpu_zindex_blocks_ops =
	SPH_GPU_OPS(sph_zblocks_create<SPH_BLOCKS_PLANT_NONE>);
extern "C" const struct sph_ops sph_gpu_grid_buckets_ops =
	SPH_GPU_OPS(sph_buckets_create<SPH_BLOCKS_PLANT_NONE>);
extern "C" const struct sph_ops sph_gpu_brute_ops = SPH_GPU_OPS(sph_brute_create<SPH_BLOCKS_PLANT_NONE>);
#endif
