/* sph_blocks.cu - SPH on the GPU: zindex-blocks (Goswami et al. 2010), grid-buckets, brute force
 *
 * Variants (kernels/sph/sph_gpu2.h):
 *   sph-gpu-zindex-blocks  the paper's section 3 as written. A virtual grid
 *                          of 1024^3 cubic cells over the box (cell side
 *                          L / 1024, L the longest side of the box, at
 *                          least h); each particle's 30-bit Morton key
 *                          (morton_encode3) is sorted with CUB's radix sort
 *                          (all 30 bits, stable). A "block" is the aligned
 *                          Morton block of S^3 virtual cells whose keys
 *                          share their top 3 (10 - log2 S) bits, S the
 *                          smallest power of two with S cells >= h: its
 *                          particles are contiguous after the sort. The
 *                          occupied blocks become a compact list (head
 *                          flags, exclusive scan: block key and first
 *                          slot), each block is split into chunks of at
 *                          most 64 particles (a scan of the chunk counts),
 *                          and each chunk gets a CUDA block of 64 threads
 *                          (Figure 4): threads 0..26 find the 27
 *                          neighbouring blocks by binary search in the
 *                          list, then the 64 threads copy the neighbours'
 *                          particles through shared memory, 64 at a time,
 *                          while each thread sums over them for one
 *                          particle of its own chunk. Density and force
 *                          passes both run this way; the force pass forms
 *                          p_j and 1 / (2 rho_j) when it copies particle j
 *                          (the paper's "inverse density in shared
 *                          memory"), so no per-particle pressure array is
 *                          kept. Memory: besides the particle state, an
 *                          original id and four n-word arrays (the radix
 *                          sort's double buffers), reused within a build
 *                          for the block list, the chunk counts and their
 *                          scan (the paper keeps the blocks in the sort's
 *                          array too); the reorder gathers position and
 *                          velocity through the acceleration array, which
 *                          is dead between a build and the force pass.
 *   sph-gpu-grid-buckets   the older bucket grid: cells of side h over the
 *                          box, each with a bucket of a fixed capacity B
 *                          (32: at h = 2 d a lattice puts ~8 particles in a
 *                          cell, a compressed one some more; B = 32 leaves
 *                          4x headroom), filled by atomicAdd. A particle
 *                          that does not fit raises an overflow flag; the
 *                          step reports it (never drops neighbours
 *                          silently). Each bucket is then insertion-sorted
 *                          by particle index, so the order atomics gave
 *                          does not reach the sums. Particles are not
 *                          reordered; one thread per particle walks the 27
 *                          buckets around its cell. aux_bytes includes the
 *                          whole ncells x B x 4-byte bucket array, the
 *                          memory the paper criticises.
 *   sph-gpu-brute          all n^2 pairs, tiled through shared memory in
 *                          tiles of 256 particles as the N-body kernel; a
 *                          baseline and a check for small n (create()
 *                          refuses n > 2,000,000). Its build phase is the
 *                          check that positions are finite.
 *
 * Physics and arithmetic are those of kernels/sph/sph_grid.cu (whose comment
 * derives them): the pair functions below repeat its float expressions
 * term by term. They are copies, not a shared header: sph_grid.cu is left
 * untouched. Within a particle's sum the order is fixed (neighbour blocks
 * or cells z, y, x ascending, slots ascending within each; brute: j
 * ascending), so every variant is deterministic; atomics only count.
 *
 * Timing: CUDA events around each phase of each step (build: structure
 * and reorder; density; force; integrate), read in batches.
 */
#include "sph_gpu2.h"

#include <algorithm>
#include <cfloat>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>
#include <cub/cub.cuh>

/* Cell or block side >= h (1 + margin): float r^2 < h^2 pairs fit. */
#define SPH_GPU2_MARGIN 1e-6
/* Virtual grid of zindex-blocks: bits a side, cells a side. */
#define SPH_GPU2_MORTON_BITS 10
#define SPH_GPU2_MORTON_SIDE (1 << SPH_GPU2_MORTON_BITS)
/* Particles of a chunk, threads of a zindex-blocks CUDA block. */
#define SPH_GPU2_CHUNK 64
/* Resident 64-thread CUDA blocks per SM the chunk kernels are launched
 * with (they loop over the chunks). */
#define SPH_GPU2_CHUNK_BLOCKS_PER_SM 32
/* Brute force: threads per block and particles per tile. */
#define SPH_GPU2_TILE 256
/* Threads per block of the per-particle and per-cell kernels. */
#define SPH_GPU2_BLOCK 256
/* Most cells of the bucket grid. */
#define SPH_GPU2_MAX_CELLS ((size_t)1 << 27)
/* Bucket capacity, and the range SPH_BUCKET_CAPACITY may set. */
#define SPH_GPU2_BUCKET_DEFAULT 32
#define SPH_GPU2_BUCKET_MAX 4096
/* Largest n brute force accepts. */
#define SPH_GPU2_BRUTE_MAX_N 2000000
/* Steps whose phase events are queued before the host reads them. */
#define SPH_GPU2_BATCH 16
/* Events per step: before build, density, force, integrate, and after. */
#define SPH_GPU2_MARKS 5
#define SPH_GPU2_MAX_ALLOCS 24

enum sph_gpu2_method { SPH_GPU2_ZINDEX_BLOCKS, SPH_GPU2_GRID_BUCKETS, SPH_GPU2_BRUTE };

static const char *const sph_gpu2_names[] = {
	"sph-gpu-zindex-blocks",
	"sph-gpu-grid-buckets",
	"sph-gpu-brute",
};

/* The parameters as the float kernels use them (as in sph_grid.cu). */
struct sph_gpu2_consts {
	float h, h2, inv_h2;
	float c_rho;   /* m 315 / (64 pi h^3) */
	float c_force; /* m 45 / (pi h^6) */
	float mu2;     /* 2 mu */
	float rho0, k, dt, e;
	float g[3], box_lo[3], box_hi[3];
};

/* A grid of cubic cells: dim[d] a side from lo. zindex-blocks: dim 1024
 * each, block = S = 2^sbits cells a side. */
struct sph_gpu2_grid {
	double lo[3];
	double cell;
	int dim[3];
	unsigned ncells; /* grid-buckets */
	int sbits;       /* zindex-blocks */
};

/* ---- cells and keys ----------------------------------------------------- */

/* Bits 0..9 of v spread to bits 0, 3, ..., 27. */
static __host__ __device__ __forceinline__ unsigned sph_gpu2_expand10(unsigned v)
{
	v &= 0x3ffu;
	v = (v ^ (v << 16)) & 0xff0000ffu;
	v = (v ^ (v << 8)) & 0x0300f00fu;
	v = (v ^ (v << 4)) & 0x030c30c3u;
	v = (v ^ (v << 2)) & 0x09249249u;
	return v;
}

/* Bits 0, 3, ..., 27 of v gathered into bits 0..9. */
static __host__ __device__ __forceinline__ unsigned sph_gpu2_compact10(unsigned v)
{
	v &= 0x09249249u;
	v = (v ^ (v >> 2)) & 0x030c30c3u;
	v = (v ^ (v >> 4)) & 0x0300f00fu;
	v = (v ^ (v >> 8)) & 0xff0000ffu;
	v = (v ^ (v >> 16)) & 0x000003ffu;
	return v;
}

/* Morton key of (x, y, z), each 0 .. 1023, x in bit 0. */
static __host__ __device__ __forceinline__ unsigned sph_gpu2_morton3(unsigned x, unsigned y,
								     unsigned z)
{
	return sph_gpu2_expand10(x) | sph_gpu2_expand10(y) << 1 | sph_gpu2_expand10(z) << 2;
}

static __device__ __forceinline__ int3 sph_gpu2_unmorton3(unsigned key)
{
	return make_int3((int)sph_gpu2_compact10(key), (int)sph_gpu2_compact10(key >> 1),
			 (int)sph_gpu2_compact10(key >> 2));
}

/* Cell of x along one axis, clamped into 0 .. dim - 1 (NaN: 0). */
static __device__ __forceinline__ int sph_gpu2_axis_cell(float x, double lo, double cell, int dim)
{
	const double u = floor(((double)x - lo) / cell);

	return !(u >= 0.0) ? 0 : u >= (double)dim ? dim - 1 : (int)u;
}

static __device__ __forceinline__ int3 sph_gpu2_cell_of(const sph_gpu2_grid &g, float4 x)
{
	return make_int3(sph_gpu2_axis_cell(x.x, g.lo[0], g.cell, g.dim[0]),
			 sph_gpu2_axis_cell(x.y, g.lo[1], g.cell, g.dim[1]),
			 sph_gpu2_axis_cell(x.z, g.lo[2], g.cell, g.dim[2]));
}

static __device__ __forceinline__ unsigned sph_gpu2_linear(int x, int y, int z, const int dim[3])
{
	return (unsigned)x + (unsigned)dim[0] * ((unsigned)y + (unsigned)dim[1] * (unsigned)z);
}

/* First index in a[lo .. hi - 1] (ascending) whose value is >= v, or hi. */
static __device__ __forceinline__ unsigned sph_gpu2_lower_bound(const unsigned *__restrict__ a,
								 unsigned lo, unsigned hi,
								 unsigned v)
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

/* ---- physics: one pair, as sph_grid.cu ------------------------------------ */

struct sph_gpu2_pairs {
	unsigned long long candidates, neighbours;
};

struct sph_gpu2_force_sum {
	float3 p; /* sum (p_i + p_j) / (2 rho_j) (h - r)^2 / r (x_i - x_j) */
	float3 v; /* sum (h - r) / (2 rho_j) (v_j - v_i) */
};

/* sum += (1 - r^2 / h^2)^3 where r < h; with COUNT and other (j != i),
 * the pair counted. */
template <bool COUNT>
static __device__ __forceinline__ void sph_gpu2_poly6_pair(float4 xi, float4 xj, bool other,
							   const sph_gpu2_consts &cs, float &sum,
							   sph_gpu2_pairs &pc)
{
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
	if (COUNT && other) {
		pc.candidates++;
		pc.neighbours += near;
	}
}

/* The pressure and viscosity terms of pair (i, j) added to f; pj = p_j,
 * inv2j = 1 / (2 rho_j). */
static __device__ __forceinline__ void sph_gpu2_force_pair(float4 xi, float4 vi, float pi, float4 xj,
							   float4 vj, float pj, float inv2j,
							   const sph_gpu2_consts &cs,
							   sph_gpu2_force_sum &f)
{
	// r_ij [3 FLOPS]
	const float dx = xj.x - xi.x, dy = xj.y - xi.y, dz = xj.z - xi.z;
	// r^2 [5 FLOPS]
	const float r2 = dx * dx + dy * dy + dz * dz;

	if (!(r2 < cs.h2))
		return;
	// r, kept above zero [2 FLOPS]
	const float r = sqrtf(r2 + FLT_MIN);
	// h - r [1 FLOP]
	const float hr = cs.h - r;
	// (p_i + p_j) / (2 rho_j) (h - r)^2 / r, zero at r = 0 [5 FLOPS]
	const float wp = r2 > 0.0f ? (pi + pj) * inv2j * (hr * hr) / r : 0.0f;
	// (h - r) / (2 rho_j) [1 FLOP]
	const float wv = hr * inv2j;

	// pressure sum += wp (x_i - x_j) [6 FLOPS]
	f.p.x -= wp * dx;
	f.p.y -= wp * dy;
	f.p.z -= wp * dz;
	// viscosity sum += wv (v_j - v_i) [9 FLOPS]
	f.v.x += wv * (vj.x - vi.x);
	f.v.y += wv * (vj.y - vi.y);
	f.v.z += wv * (vj.z - vi.z);
}

/* p = k max(rho - rho0, 0) and 1 / (2 rho), as sph_grid.cu's prh [3 FLOPS]. */
static __device__ __forceinline__ float2 sph_gpu2_prh(float rho, const sph_gpu2_consts &cs)
{
	return make_float2(cs.k * fmaxf(rho - cs.rho0, 0.0f), 0.5f / rho);
}

/* a = m 45 / (pi h^6) / rho_i (pressure + 2 mu viscosity) + g [13 FLOPS]. */
static __device__ __forceinline__ float4 sph_gpu2_accel(const sph_gpu2_force_sum &f, float rho,
							const sph_gpu2_consts &cs)
{
	const float scale = cs.c_force / rho;

	return make_float4(scale * (f.p.x + cs.mu2 * f.v.x) + cs.g[0],
			   scale * (f.p.y + cs.mu2 * f.v.y) + cs.g[1],
			   scale * (f.p.z + cs.mu2 * f.v.z) + cs.g[2], 0.0f);
}

/* The pairs of a warp added to pairs[0], pairs[1]; every lane calls it. */
static __device__ __forceinline__ void sph_gpu2_add_pairs(unsigned long long *pairs,
							  sph_gpu2_pairs pc)
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

/* Smallest original id with a non-finite position into flags[0]. */
static __device__ __forceinline__ void sph_gpu2_check_finite(float4 x, unsigned id,
							     unsigned *flags)
{
	if (!isfinite(x.x) || !isfinite(x.y) || !isfinite(x.z))
		atomicMin(&flags[0], id);
}

/* ---- integration and small kernels --------------------------------------- */

/* One coordinate of symplectic Euler with reflective walls (sph_ref_integrate). */
static __device__ __forceinline__ void sph_gpu2_advance(float &x, float &v, float a, float dt,
							float e, float lo, float hi)
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

static __global__ void sph_gpu2_integrate_kernel(float4 *__restrict__ pos, float4 *__restrict__ vel,
						 const float4 *__restrict__ acc, int n,
						 sph_gpu2_consts cs)
{
	const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i >= (unsigned)n)
		return;
	float4 x = pos[i], v = vel[i];
	const float4 a = acc[i];

	sph_gpu2_advance(x.x, v.x, a.x, cs.dt, cs.e, cs.box_lo[0], cs.box_hi[0]);
	sph_gpu2_advance(x.y, v.y, a.y, cs.dt, cs.e, cs.box_lo[1], cs.box_hi[1]);
	sph_gpu2_advance(x.z, v.z, a.z, cs.dt, cs.e, cs.box_lo[2], cs.box_hi[2]);
	pos[i] = x;
	vel[i] = v;
}

/* a[i] = i. */
static __global__ void sph_gpu2_iota_kernel(unsigned *__restrict__ a, int n)
{
	const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < (unsigned)n)
		a[i] = i;
}

/* out[i] = in[perm[i]] for float4 (pos, vel) or unsigned (id). */
template <class T>
static __global__ void sph_gpu2_gather_kernel(const unsigned *__restrict__ perm,
					      const T *__restrict__ in, T *__restrict__ out, int n)
{
	const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < (unsigned)n)
		out[i] = in[perm[i]];
}

/* brute force's build: every position finite. */
static __global__ void sph_gpu2_finite_kernel(const float4 *__restrict__ pos, int n,
					      unsigned *__restrict__ flags)
{
	const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < (unsigned)n)
		sph_gpu2_check_finite(pos[i], i, flags);
}

/* ---- zindex-blocks: build ------------------------------------------------ */

/* key[i] = Morton key of slot i's virtual cell. */
static __global__ void sph_gpu2_zkey_kernel(const float4 *__restrict__ pos,
					    const unsigned *__restrict__ id,
					    unsigned *__restrict__ key, int n, sph_gpu2_grid g,
					    unsigned *__restrict__ flags)
{
	const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i >= (unsigned)n)
		return;
	const float4 x = pos[i];
	const int3 c = sph_gpu2_cell_of(g, x);

	sph_gpu2_check_finite(x, id[i], flags);
	key[i] = sph_gpu2_morton3(c.x, c.y, c.z);
}

/* flag[i] = 1 where sorted slot i starts a block (its key >> shift differs
 * from slot i - 1's). */
static __global__ void sph_gpu2_zheads_kernel(const unsigned *__restrict__ skey,
					      unsigned *__restrict__ flag, int n, int shift)
{
	const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < (unsigned)n)
		flag[i] = i == 0 || (skey[i - 1] >> shift) != (skey[i] >> shift);
}

/* With run = exclusive scan of the head flags: the compact block list,
 * ukey[u] = block key (key >> shift), ustart[u] = its first slot, and
 * scal[0] = nu, the number of blocks. Heads are recomputed from skey, so
 * ukey may take the flag array's place. */
static __global__ void sph_gpu2_zruns_kernel(const unsigned *__restrict__ skey,
					     const unsigned *__restrict__ run,
					     unsigned *__restrict__ ukey,
					     unsigned *__restrict__ ustart,
					     unsigned *__restrict__ scal, int n, int shift)
{
	const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i >= (unsigned)n)
		return;
	const unsigned b = skey[i] >> shift;
	const bool head = i == 0 || (skey[i - 1] >> shift) != b;

	if (head) {
		ukey[run[i]] = b;
		ustart[run[i]] = i;
	}
	if (i == (unsigned)n - 1)
		scal[0] = run[i] + head;
}

/* One past the last slot of block u (< nu). */
static __device__ __forceinline__ unsigned sph_gpu2_block_end(const unsigned *__restrict__ ustart,
							      unsigned u, unsigned nu, int n)
{
	return u + 1 < nu ? ustart[u + 1] : (unsigned)n;
}

/* nch[u] = chunks of block u (ceil(count / 64)) for u < nu, 0 beyond. */
static __global__ void sph_gpu2_zchunks_kernel(const unsigned *__restrict__ ustart,
					       const unsigned *__restrict__ scal,
					       unsigned *__restrict__ nch, int n)
{
	const unsigned u = blockIdx.x * blockDim.x + threadIdx.x;

	if (u >= (unsigned)n)
		return;
	const unsigned nu = scal[0];

	nch[u] = u < nu ? (sph_gpu2_block_end(ustart, u, nu, n) - ustart[u] + SPH_GPU2_CHUNK - 1) /
				  SPH_GPU2_CHUNK
			: 0u;
}

/* scal[1] = total chunks = coff[n - 1] + nch[n - 1]. */
static __global__ void sph_gpu2_ztotal_kernel(const unsigned *__restrict__ coff,
					      const unsigned *__restrict__ nch,
					      unsigned *__restrict__ scal, int n)
{
	if (blockIdx.x == 0 && threadIdx.x == 0)
		scal[1] = coff[n - 1] + nch[n - 1];
}

/* ---- zindex-blocks: the chunk walk (Figure 4) ------------------------------ */

/* The compact block list of the current build. */
struct sph_gpu2_blocks {
	const unsigned *__restrict__ ukey;   /* block keys, ascending, nu of them */
	const unsigned *__restrict__ ustart; /* first slot of each block */
	const unsigned *__restrict__ coff;   /* first chunk of each block */
	const unsigned *__restrict__ scal;   /* nu, total chunks */
	int n;
	int side; /* blocks a side: 1024 / S */
};

/* The shared state of one chunk: its slots first .. first + count - 1,
 * and its 27 neighbouring blocks (z, y, x ascending; an absent one with no
 * particles) laid end to end: neighbour r holds candidates off[r] ..
 * off[r + 1] - 1, from slot lo[r] on. */
struct sph_gpu2_chunk {
	unsigned first, count;
	unsigned lo[27];
	unsigned off[28];
};

/*
 * Fills ch for chunk c (< total chunks); every thread of the CUDA block
 * calls it, and it ends with the block synchronised. Thread 0 finds the
 * chunk's block; threads 0..26 find one neighbouring block each.
 */
static __device__ void sph_gpu2_chunk_setup(const sph_gpu2_blocks &b, unsigned c,
					    sph_gpu2_chunk &ch, unsigned &own)
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
		const unsigned start = b.ustart[lo] + (c - b.coff[lo]) * SPH_GPU2_CHUNK;

		own = lo;
		ch.first = start;
		ch.count = min((unsigned)SPH_GPU2_CHUNK, sph_gpu2_block_end(b.ustart, lo, nu, b.n) - start);
	}
	__syncthreads();
	if (t < 27) {
		const int3 o = sph_gpu2_unmorton3(b.ukey[own]);
		const int x = o.x + (int)(t % 3) - 1, y = o.y + (int)(t / 3 % 3) - 1,
			  z = o.z + (int)(t / 9) - 1;
		unsigned lo = 0, cnt = 0;

		if (x >= 0 && y >= 0 && z >= 0 && x < b.side && y < b.side && z < b.side) {
			const unsigned k = sph_gpu2_morton3(x, y, z);
			const unsigned u = sph_gpu2_lower_bound(b.ukey, 0, nu, k);

			if (u < nu && b.ukey[u] == k) {
				lo = b.ustart[u];
				cnt = sph_gpu2_block_end(b.ustart, u, nu, b.n) - lo;
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
static __device__ __forceinline__ unsigned sph_gpu2_chunk_slot(const sph_gpu2_chunk &ch, unsigned q)
{
	int r = 0;

	while (q >= ch.off[r + 1])
		r++;
	return ch.lo[r] + (q - ch.off[r]);
}

/* rho of every sorted slot, chunk by chunk; with COUNT the pairs added to
 * pairs[0], pairs[1]. */
template <bool COUNT>
static __global__ void __launch_bounds__(SPH_GPU2_CHUNK)
	sph_gpu2_zdensity_kernel(sph_gpu2_blocks b, const float4 *__restrict__ pos,
				 float *__restrict__ rho, sph_gpu2_consts cs,
				 unsigned long long *__restrict__ pairs)
{
	__shared__ sph_gpu2_chunk ch;
	__shared__ unsigned own;
	__shared__ float4 tx[SPH_GPU2_CHUNK];
	__shared__ unsigned tslot[SPH_GPU2_CHUNK];
	const unsigned t = threadIdx.x, chunks = b.scal[1];
	sph_gpu2_pairs pc = { 0, 0 };

	for (unsigned c = blockIdx.x; c < chunks; c += gridDim.x) {
		sph_gpu2_chunk_setup(b, c, ch, own);
		const bool mine = t < ch.count;
		const unsigned i = ch.first + t, total = ch.off[27];
		const float4 xi = mine ? pos[i] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
		float sum = 0.0f;

		for (unsigned base = 0; base < total; base += SPH_GPU2_CHUNK) {
			if (base + t < total) {
				const unsigned j = sph_gpu2_chunk_slot(ch, base + t);

				tx[t] = pos[j];
				tslot[t] = j;
			}
			__syncthreads();
			const unsigned m = min((unsigned)SPH_GPU2_CHUNK, total - base);

			if (mine)
				for (unsigned k = 0; k < m; k++)
					sph_gpu2_poly6_pair<COUNT>(xi, tx[k], tslot[k] != i, cs, sum, pc);
			__syncthreads();
		}
		// rho = m 315 / (64 pi h^3) sum [1 FLOP]
		if (mine)
			rho[i] = cs.c_rho * sum;
		__syncthreads(); /* ch is rewritten for the next chunk */
	}
	if (COUNT)
		sph_gpu2_add_pairs(pairs, pc);
}

/* Acceleration of every sorted slot, chunk by chunk; p_j and 1 / (2 rho_j)
 * formed as particle j is copied into shared memory. */
static __global__ void __launch_bounds__(SPH_GPU2_CHUNK)
	sph_gpu2_zforce_kernel(sph_gpu2_blocks b, const float4 *__restrict__ pos,
			       const float4 *__restrict__ vel, const float *__restrict__ rho,
			       float4 *__restrict__ acc, sph_gpu2_consts cs)
{
	__shared__ sph_gpu2_chunk ch;
	__shared__ unsigned own;
	__shared__ float4 tx[SPH_GPU2_CHUNK], tv[SPH_GPU2_CHUNK];
	__shared__ float2 tp[SPH_GPU2_CHUNK];
	const unsigned t = threadIdx.x, chunks = b.scal[1];

	for (unsigned c = blockIdx.x; c < chunks; c += gridDim.x) {
		sph_gpu2_chunk_setup(b, c, ch, own);
		const bool mine = t < ch.count;
		const unsigned i = ch.first + t, total = ch.off[27];
		const float4 zero = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
		const float4 xi = mine ? pos[i] : zero, vi = mine ? vel[i] : zero;
		const float rhoi = mine ? rho[i] : 1.0f;
		const float pi = sph_gpu2_prh(rhoi, cs).x;
		sph_gpu2_force_sum f = { make_float3(0.0f, 0.0f, 0.0f), make_float3(0.0f, 0.0f, 0.0f) };

		for (unsigned base = 0; base < total; base += SPH_GPU2_CHUNK) {
			if (base + t < total) {
				const unsigned j = sph_gpu2_chunk_slot(ch, base + t);

				tx[t] = pos[j];
				tv[t] = vel[j];
				tp[t] = sph_gpu2_prh(rho[j], cs);
			}
			__syncthreads();
			const unsigned m = min((unsigned)SPH_GPU2_CHUNK, total - base);

			if (mine)
				for (unsigned k = 0; k < m; k++)
					sph_gpu2_force_pair(xi, vi, pi, tx[k], tv[k], tp[k].x, tp[k].y,
							    cs, f);
			__syncthreads();
		}
		if (mine)
			acc[i] = sph_gpu2_accel(f, rhoi, cs);
		__syncthreads(); /* ch is rewritten for the next chunk */
	}
}

/* ---- grid-buckets --------------------------------------------------------- */

/* Slot i into a free place of its cell's bucket; a particle that finds the
 * bucket full raises flags[1] to its cell's count so far. */
static __global__ void sph_gpu2_bucket_fill_kernel(const float4 *__restrict__ pos,
						   unsigned *__restrict__ count,
						   unsigned *__restrict__ bucket, int n, int cap,
						   sph_gpu2_grid g, unsigned *__restrict__ flags)
{
	const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i >= (unsigned)n)
		return;
	const float4 x = pos[i];
	const int3 c = sph_gpu2_cell_of(g, x);
	const unsigned cell = sph_gpu2_linear(c.x, c.y, c.z, g.dim);
	const unsigned r = atomicAdd(&count[cell], 1u);

	sph_gpu2_check_finite(x, i, flags);
	if (r < (unsigned)cap)
		bucket[(size_t)cell * (unsigned)cap + r] = i;
	else
		atomicMax(&flags[1], r + 1);
}

/* Each bucket's entries in ascending order (insertion sort, one thread a
 * cell), so the sums do not depend on the order atomics ran in. */
static __global__ void sph_gpu2_bucket_order_kernel(const unsigned *__restrict__ count,
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

/* fn(j) for every entry j of the 27 buckets around slot x's cell: cells z,
 * y, x ascending, entries ascending. */
template <class Fn>
static __device__ __forceinline__ void sph_gpu2_each_bucketed(const sph_gpu2_grid &g,
							      const unsigned *__restrict__ count,
							      const unsigned *__restrict__ bucket,
							      int cap, float4 x, Fn &&fn)
{
	const int3 c = sph_gpu2_cell_of(g, x);
	const int z1 = min(c.z + 1, g.dim[2] - 1), y1 = min(c.y + 1, g.dim[1] - 1),
		  x1 = min(c.x + 1, g.dim[0] - 1);

	for (int z = max(c.z - 1, 0); z <= z1; z++)
		for (int y = max(c.y - 1, 0); y <= y1; y++)
			for (int xx = max(c.x - 1, 0); xx <= x1; xx++) {
				const unsigned cell = sph_gpu2_linear(xx, y, z, g.dim);
				const unsigned m = min(count[cell], (unsigned)cap);
				const unsigned *e = bucket + (size_t)cell * (unsigned)cap;

				for (unsigned k = 0; k < m; k++)
					fn(e[k]);
			}
}

template <bool COUNT>
static __global__ void __launch_bounds__(SPH_GPU2_BLOCK)
	sph_gpu2_bdensity_kernel(sph_gpu2_grid g, const unsigned *__restrict__ count,
				 const unsigned *__restrict__ bucket, int cap,
				 const float4 *__restrict__ pos, float *__restrict__ rho,
				 float2 *__restrict__ prh, int n, sph_gpu2_consts cs,
				 unsigned long long *__restrict__ pairs)
{
	const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
	sph_gpu2_pairs pc = { 0, 0 };

	if (i < (unsigned)n) {
		const float4 xi = pos[i];
		float sum = 0.0f;

		sph_gpu2_each_bucketed(g, count, bucket, cap, xi, [&](unsigned j) {
			sph_gpu2_poly6_pair<COUNT>(xi, pos[j], j != i, cs, sum, pc);
		});
		// rho = m 315 / (64 pi h^3) sum [1 FLOP]
		const float r = cs.c_rho * sum;

		rho[i] = r;
		prh[i] = sph_gpu2_prh(r, cs);
	}
	if (COUNT)
		sph_gpu2_add_pairs(pairs, pc);
}

static __global__ void __launch_bounds__(SPH_GPU2_BLOCK)
	sph_gpu2_bforce_kernel(sph_gpu2_grid g, const unsigned *__restrict__ count,
			       const unsigned *__restrict__ bucket, int cap,
			       const float4 *__restrict__ pos, const float4 *__restrict__ vel,
			       const float *__restrict__ rho, const float2 *__restrict__ prh,
			       float4 *__restrict__ acc, int n, sph_gpu2_consts cs)
{
	const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i >= (unsigned)n)
		return;
	const float4 xi = pos[i], vi = vel[i];
	const float pi = prh[i].x;
	sph_gpu2_force_sum f = { make_float3(0.0f, 0.0f, 0.0f), make_float3(0.0f, 0.0f, 0.0f) };

	sph_gpu2_each_bucketed(g, count, bucket, cap, xi, [&](unsigned j) {
		const float2 pj = prh[j];

		sph_gpu2_force_pair(xi, vi, pi, pos[j], vel[j], pj.x, pj.y, cs, f);
	});
	acc[i] = sph_gpu2_accel(f, rho[i], cs);
}

/* ---- brute force ------------------------------------------------------------ */

template <bool COUNT>
static __global__ void __launch_bounds__(SPH_GPU2_TILE)
	sph_gpu2_brute_density_kernel(const float4 *__restrict__ pos, float *__restrict__ rho, int n,
				      sph_gpu2_consts cs, unsigned long long *__restrict__ pairs)
{
	__shared__ float4 tx[SPH_GPU2_TILE];
	const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
	const bool mine = i < (unsigned)n;
	const float4 xi = mine ? pos[i] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
	sph_gpu2_pairs pc = { 0, 0 };
	float sum = 0.0f;

	for (unsigned base = 0; base < (unsigned)n; base += SPH_GPU2_TILE) {
		if (base + threadIdx.x < (unsigned)n)
			tx[threadIdx.x] = pos[base + threadIdx.x];
		__syncthreads();
		const unsigned m = min((unsigned)SPH_GPU2_TILE, (unsigned)n - base);

		if (mine)
			for (unsigned k = 0; k < m; k++)
				sph_gpu2_poly6_pair<COUNT>(xi, tx[k], base + k != i, cs, sum, pc);
		__syncthreads();
	}
	// rho = m 315 / (64 pi h^3) sum [1 FLOP]
	if (mine)
		rho[i] = cs.c_rho * sum;
	if (COUNT)
		sph_gpu2_add_pairs(pairs, pc);
}

static __global__ void __launch_bounds__(SPH_GPU2_TILE)
	sph_gpu2_brute_force_kernel(const float4 *__restrict__ pos, const float4 *__restrict__ vel,
				    const float *__restrict__ rho, float4 *__restrict__ acc, int n,
				    sph_gpu2_consts cs)
{
	__shared__ float4 tx[SPH_GPU2_TILE], tv[SPH_GPU2_TILE];
	__shared__ float2 tp[SPH_GPU2_TILE];
	const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
	const bool mine = i < (unsigned)n;
	const float4 zero = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
	const float4 xi = mine ? pos[i] : zero, vi = mine ? vel[i] : zero;
	const float rhoi = mine ? rho[i] : 1.0f;
	const float pi = sph_gpu2_prh(rhoi, cs).x;
	sph_gpu2_force_sum f = { make_float3(0.0f, 0.0f, 0.0f), make_float3(0.0f, 0.0f, 0.0f) };

	for (unsigned base = 0; base < (unsigned)n; base += SPH_GPU2_TILE) {
		const unsigned j = base + threadIdx.x;

		if (j < (unsigned)n) {
			tx[threadIdx.x] = pos[j];
			tv[threadIdx.x] = vel[j];
			tp[threadIdx.x] = sph_gpu2_prh(rho[j], cs);
		}
		__syncthreads();
		const unsigned m = min((unsigned)SPH_GPU2_TILE, (unsigned)n - base);

		if (mine)
			for (unsigned k = 0; k < m; k++)
				sph_gpu2_force_pair(xi, vi, pi, tx[k], tv[k], tp[k].x, tp[k].y, cs, f);
		__syncthreads();
	}
	if (mine)
		acc[i] = sph_gpu2_accel(f, rhoi, cs);
}

/* ---- the context ------------------------------------------------------------ */

struct sph_gpu2 {
	enum sph_gpu2_method method;
	const char *name;
	int n;
	struct sph_gpu2_consts cs;
	struct sph_gpu2_grid grid;

	/* particle state; zindex-blocks keeps it in sorted order after a build */
	float4 *pos, *vel, *acc;
	float *rho;
	unsigned *id; /* zindex-blocks: caller's index of each slot; else NULL */

	unsigned *flags; /* [0] smallest id with a non-finite position (or
			    UINT_MAX), [1] largest overflowing bucket count (or 0) */
	unsigned long long *pairs; /* candidates, neighbours */
	unsigned char *temp;       /* CUB's temporary storage */
	size_t temp_bytes;

	/* zindex-blocks: four n-word scratch arrays (the sort's double buffers,
	 * then the block list), nu and total chunks, and the list's roles */
	unsigned *buf[4];
	unsigned *scal;
	sph_gpu2_blocks blocks;
	unsigned chunk_grid; /* CUDA blocks the chunk kernels are launched with */

	/* grid-buckets */
	int cap;
	unsigned *count, *bucket;
	float2 *prh;

	void *allocs[SPH_GPU2_MAX_ALLOCS];
	int nallocs;
	size_t aux_bytes;

	cudaStream_t stream;
	cudaEvent_t ev[SPH_GPU2_BATCH][SPH_GPU2_MARKS];
	int nevents;

	unsigned long long candidates, neighbours;
	int overflow;
	int failed;
	char err[256];
};

/* Records a failed CUDA call in s->err. Returns -1 when rc is an error. */
static int sph_gpu2_check(struct sph_gpu2 *s, cudaError_t rc, const char *call, const char *file,
			  int line)
{
	if (rc == cudaSuccess)
		return 0;
	snprintf(s->err, sizeof s->err, "%s: %s: %s (%s:%d)", s->name, call, cudaGetErrorString(rc),
		 file, line);
	s->failed = 1;
	return -1;
}

#define SPH_GPU2_CHECK(s, call) sph_gpu2_check((s), (call), #call, __FILE__, __LINE__)
/* After each launch: 0, or -1 when it could not be queued. */
#define SPH_GPU2_LAUNCHED(s, what) sph_gpu2_check((s), cudaGetLastError(), what, __FILE__, __LINE__)

static unsigned sph_gpu2_blocks_for(size_t count, unsigned per_block)
{
	return (unsigned)((count + per_block - 1) / per_block);
}

static unsigned sph_gpu2_nblocks(size_t count)
{
	return sph_gpu2_blocks_for(count, SPH_GPU2_BLOCK);
}

/* count elements of T on the device into *p, counted in aux_bytes unless
 * state. 0, or -1 with s->err. */
template <class T> static int sph_gpu2_alloc(struct sph_gpu2 *s, T **p, size_t count, bool state)
{
	const size_t bytes = (count ? count : 1) * sizeof(T);

	if (s->nallocs == SPH_GPU2_MAX_ALLOCS) {
		snprintf(s->err, sizeof s->err, "%s: too many device arrays", s->name);
		return -1;
	}
	if (SPH_GPU2_CHECK(s, cudaMalloc((void **)p, bytes)))
		return -1;
	s->allocs[s->nallocs++] = *p;
	if (!state)
		s->aux_bytes += bytes;
	return 0;
}

/* ---- build ------------------------------------------------------------------ */

/* out = in[perm] into the array *spare, which then takes in's place. */
template <class T>
static int sph_gpu2_permute(struct sph_gpu2 *s, const unsigned *perm, T **in, T **spare)
{
	sph_gpu2_gather_kernel<T><<<sph_gpu2_nblocks(s->n), SPH_GPU2_BLOCK, 0, s->stream>>>(
		perm, *in, *spare, s->n);
	if (SPH_GPU2_LAUNCHED(s, "gather kernel"))
		return -1;
	std::swap(*in, *spare);
	return 0;
}

/*
 * zindex-blocks: keys, radix sort, reorder, block list, chunks. The four
 * scratch arrays take these roles in turn:
 *   keys, keys', slots, slots'   -> sort: sorted keys S, perm P, free F1, F2
 *   id gathered into F1          -> the old id array is free: F3
 *   head flags in F3, scan in F2 -> ukey in F3, ustart in P
 *   chunk counts in F2, scan in S (coff)
 * and position and velocity are gathered through acc (rewritten by the
 * force pass before anything reads it).
 */
static int sph_gpu2_build_zindex(struct sph_gpu2 *s)
{
	const int n = s->n, shift = 3 * s->grid.sbits;
	const unsigned blocks = sph_gpu2_nblocks(n);
	cub::DoubleBuffer<unsigned> keys(s->buf[0], s->buf[1]), slots(s->buf[2], s->buf[3]);
	size_t bytes = s->temp_bytes;

	sph_gpu2_iota_kernel<<<blocks, SPH_GPU2_BLOCK, 0, s->stream>>>(slots.Current(), n);
	if (SPH_GPU2_LAUNCHED(s, "iota kernel"))
		return -1;
	sph_gpu2_zkey_kernel<<<blocks, SPH_GPU2_BLOCK, 0, s->stream>>>(s->pos, s->id, keys.Current(),
								       n, s->grid, s->flags);
	if (SPH_GPU2_LAUNCHED(s, "key kernel") ||
	    SPH_GPU2_CHECK(s, cub::DeviceRadixSort::SortPairs(s->temp, bytes, keys, slots, n, 0,
							      3 * SPH_GPU2_MORTON_BITS, s->stream)))
		return -1;
	unsigned *skey = keys.Current(), *perm = slots.Current();
	unsigned *f1 = keys.Alternate(), *f2 = slots.Alternate(), *f3;

	if (sph_gpu2_permute(s, perm, &s->pos, &s->acc) || sph_gpu2_permute(s, perm, &s->vel, &s->acc))
		return -1;
	f3 = s->id;
	sph_gpu2_gather_kernel<unsigned><<<blocks, SPH_GPU2_BLOCK, 0, s->stream>>>(perm, f3, f1, n);
	if (SPH_GPU2_LAUNCHED(s, "gather kernel"))
		return -1;
	s->id = f1;
	sph_gpu2_zheads_kernel<<<blocks, SPH_GPU2_BLOCK, 0, s->stream>>>(skey, f3, n, shift);
	bytes = s->temp_bytes;
	if (SPH_GPU2_LAUNCHED(s, "heads kernel") ||
	    SPH_GPU2_CHECK(s, cub::DeviceScan::ExclusiveSum(s->temp, bytes, f3, f2, n, s->stream)))
		return -1;
	sph_gpu2_zruns_kernel<<<blocks, SPH_GPU2_BLOCK, 0, s->stream>>>(skey, f2, f3, perm, s->scal,
									n, shift);
	if (SPH_GPU2_LAUNCHED(s, "runs kernel"))
		return -1;
	sph_gpu2_zchunks_kernel<<<blocks, SPH_GPU2_BLOCK, 0, s->stream>>>(perm, s->scal, f2, n);
	bytes = s->temp_bytes;
	if (SPH_GPU2_LAUNCHED(s, "chunks kernel") ||
	    SPH_GPU2_CHECK(s, cub::DeviceScan::ExclusiveSum(s->temp, bytes, f2, skey, n, s->stream)))
		return -1;
	sph_gpu2_ztotal_kernel<<<1, 1, 0, s->stream>>>(skey, f2, s->scal, n);
	if (SPH_GPU2_LAUNCHED(s, "total kernel"))
		return -1;
	s->buf[0] = skey;
	s->buf[1] = f3;
	s->buf[2] = perm;
	s->buf[3] = f2;
	s->blocks.ukey = f3;
	s->blocks.ustart = perm;
	s->blocks.coff = skey;
	return 0;
}

static int sph_gpu2_build_buckets(struct sph_gpu2 *s)
{
	const unsigned cells = s->grid.ncells;

	if (SPH_GPU2_CHECK(s, cudaMemsetAsync(s->count, 0, (size_t)cells * sizeof(unsigned),
					      s->stream)))
		return -1;
	sph_gpu2_bucket_fill_kernel<<<sph_gpu2_nblocks(s->n), SPH_GPU2_BLOCK, 0, s->stream>>>(
		s->pos, s->count, s->bucket, s->n, s->cap, s->grid, s->flags);
	if (SPH_GPU2_LAUNCHED(s, "bucket fill kernel"))
		return -1;
	sph_gpu2_bucket_order_kernel<<<sph_gpu2_nblocks(cells), SPH_GPU2_BLOCK, 0, s->stream>>>(
		s->count, s->bucket, cells, s->cap);
	return SPH_GPU2_LAUNCHED(s, "bucket order kernel");
}

static int sph_gpu2_build(struct sph_gpu2 *s)
{
	switch (s->method) {
	case SPH_GPU2_ZINDEX_BLOCKS:
		return sph_gpu2_build_zindex(s);
	case SPH_GPU2_GRID_BUCKETS:
		return sph_gpu2_build_buckets(s);
	case SPH_GPU2_BRUTE:
		sph_gpu2_finite_kernel<<<sph_gpu2_nblocks(s->n), SPH_GPU2_BLOCK, 0, s->stream>>>(
			s->pos, s->n, s->flags);
		return SPH_GPU2_LAUNCHED(s, "finite kernel");
	}
	return -1;
}

/* ---- passes ----------------------------------------------------------------- */

/* Densities; the pairs counted into s->pairs when count. */
static int sph_gpu2_density(struct sph_gpu2 *s, bool count)
{
	const int n = s->n;

	switch (s->method) {
	case SPH_GPU2_ZINDEX_BLOCKS:
		if (count)
			sph_gpu2_zdensity_kernel<true><<<s->chunk_grid, SPH_GPU2_CHUNK, 0, s->stream>>>(
				s->blocks, s->pos, s->rho, s->cs, s->pairs);
		else
			sph_gpu2_zdensity_kernel<false><<<s->chunk_grid, SPH_GPU2_CHUNK, 0, s->stream>>>(
				s->blocks, s->pos, s->rho, s->cs, s->pairs);
		break;
	case SPH_GPU2_GRID_BUCKETS:
		if (count)
			sph_gpu2_bdensity_kernel<true><<<sph_gpu2_nblocks(n), SPH_GPU2_BLOCK, 0,
							 s->stream>>>(s->grid, s->count, s->bucket,
								      s->cap, s->pos, s->rho, s->prh,
								      n, s->cs, s->pairs);
		else
			sph_gpu2_bdensity_kernel<false><<<sph_gpu2_nblocks(n), SPH_GPU2_BLOCK, 0,
							  s->stream>>>(s->grid, s->count, s->bucket,
								       s->cap, s->pos, s->rho, s->prh,
								       n, s->cs, s->pairs);
		break;
	case SPH_GPU2_BRUTE:
		if (count)
			sph_gpu2_brute_density_kernel<true>
				<<<sph_gpu2_blocks_for(n, SPH_GPU2_TILE), SPH_GPU2_TILE, 0, s->stream>>>(
					s->pos, s->rho, n, s->cs, s->pairs);
		else
			sph_gpu2_brute_density_kernel<false>
				<<<sph_gpu2_blocks_for(n, SPH_GPU2_TILE), SPH_GPU2_TILE, 0, s->stream>>>(
					s->pos, s->rho, n, s->cs, s->pairs);
		break;
	}
	return SPH_GPU2_LAUNCHED(s, "density kernel");
}

static int sph_gpu2_force(struct sph_gpu2 *s)
{
	const int n = s->n;

	switch (s->method) {
	case SPH_GPU2_ZINDEX_BLOCKS:
		sph_gpu2_zforce_kernel<<<s->chunk_grid, SPH_GPU2_CHUNK, 0, s->stream>>>(
			s->blocks, s->pos, s->vel, s->rho, s->acc, s->cs);
		break;
	case SPH_GPU2_GRID_BUCKETS:
		sph_gpu2_bforce_kernel<<<sph_gpu2_nblocks(n), SPH_GPU2_BLOCK, 0, s->stream>>>(
			s->grid, s->count, s->bucket, s->cap, s->pos, s->vel, s->rho, s->prh, s->acc,
			n, s->cs);
		break;
	case SPH_GPU2_BRUTE:
		sph_gpu2_brute_force_kernel<<<sph_gpu2_blocks_for(n, SPH_GPU2_TILE), SPH_GPU2_TILE, 0,
					      s->stream>>>(s->pos, s->vel, s->rho, s->acc, n, s->cs);
		break;
	}
	return SPH_GPU2_LAUNCHED(s, "force kernel");
}

static int sph_gpu2_integrate(struct sph_gpu2 *s)
{
	sph_gpu2_integrate_kernel<<<sph_gpu2_nblocks(s->n), SPH_GPU2_BLOCK, 0, s->stream>>>(
		s->pos, s->vel, s->acc, s->n, s->cs);
	return SPH_GPU2_LAUNCHED(s, "integrate kernel");
}

/* Waits for the queued work; -1 with s->err when it failed, a position was
 * not finite, or a bucket overflowed (then s->overflow is set). */
static int sph_gpu2_finish(struct sph_gpu2 *s)
{
	unsigned flags[2] = { UINT_MAX, 0 };

	if (SPH_GPU2_CHECK(s, cudaMemcpyAsync(flags, s->flags, sizeof flags, cudaMemcpyDeviceToHost,
					      s->stream)) ||
	    SPH_GPU2_CHECK(s, cudaStreamSynchronize(s->stream)))
		return -1;
	if (flags[1] != 0) {
		snprintf(s->err, sizeof s->err, "%s: bucket overflow: a cell held %u particles, "
			 "capacity %d (SPH_BUCKET_CAPACITY); neighbours were dropped, the run is "
			 "invalid", s->name, flags[1], s->cap);
		s->overflow = 1;
		s->failed = 1;
		return -1;
	}
	if (flags[0] != UINT_MAX) {
		snprintf(s->err, sizeof s->err, "%s: particle %u has a non-finite position", s->name,
			 flags[0]);
		s->failed = 1;
		return -1;
	}
	return 0;
}

/* ---- the ops ---------------------------------------------------------------- */

static int sph_gpu2_step(struct sph_gpu2 *s, cudaEvent_t marks[SPH_GPU2_MARKS])
{
	return SPH_GPU2_CHECK(s, cudaEventRecord(marks[0], s->stream)) || sph_gpu2_build(s) ||
	       SPH_GPU2_CHECK(s, cudaEventRecord(marks[1], s->stream)) ||
	       sph_gpu2_density(s, false) ||
	       SPH_GPU2_CHECK(s, cudaEventRecord(marks[2], s->stream)) || sph_gpu2_force(s) ||
	       SPH_GPU2_CHECK(s, cudaEventRecord(marks[3], s->stream)) || sph_gpu2_integrate(s) ||
	       SPH_GPU2_CHECK(s, cudaEventRecord(marks[4], s->stream))
		       ? -1
		       : 0;
}

/* Waits for the first steps steps of the batch and adds their phase times
 * to t (may be NULL). 0 or -1. */
static int sph_gpu2_collect(struct sph_gpu2 *s, int steps, struct sph_phase_times *t)
{
	if (SPH_GPU2_CHECK(s, cudaEventSynchronize(s->ev[steps - 1][SPH_GPU2_MARKS - 1])))
		return -1;
	for (int q = 0; q < steps && t; q++) {
		float ms[SPH_GPU2_MARKS - 1];

		for (int p = 0; p < SPH_GPU2_MARKS - 1; p++)
			if (SPH_GPU2_CHECK(s, cudaEventElapsedTime(&ms[p], s->ev[q][p],
								   s->ev[q][p + 1])))
				return -1;
		t->build_s += 1e-3 * ms[0];
		t->density_s += 1e-3 * ms[1];
		t->force_s += 1e-3 * ms[2];
		t->integrate_s += 1e-3 * ms[3];
	}
	return 0;
}

static int sph_gpu2_steps(void *ctx, int reps, struct sph_phase_times *t)
{
	struct sph_gpu2 *s = (struct sph_gpu2 *)ctx;

	if (s->failed)
		return -1;
	for (int rep = 0; rep < reps; rep++) {
		const int b = rep % SPH_GPU2_BATCH;

		if (sph_gpu2_step(s, s->ev[b]) != 0)
			return -1;
		if ((b == SPH_GPU2_BATCH - 1 || rep == reps - 1) && sph_gpu2_collect(s, b + 1, t) != 0)
			return -1;
	}
	return sph_gpu2_finish(s);
}

static int sph_gpu2_evaluate(void *ctx, int count)
{
	struct sph_gpu2 *s = (struct sph_gpu2 *)ctx;
	unsigned long long pairs[2];

	if (s->failed)
		return -1;
	if ((count && SPH_GPU2_CHECK(s, cudaMemsetAsync(s->pairs, 0, 2 * sizeof *s->pairs,
							s->stream))) ||
	    sph_gpu2_build(s) || sph_gpu2_density(s, count != 0) || sph_gpu2_force(s))
		return -1;
	if (count && SPH_GPU2_CHECK(s, cudaMemcpyAsync(pairs, s->pairs, sizeof pairs,
						       cudaMemcpyDeviceToHost, s->stream)))
		return -1;
	if (sph_gpu2_finish(s) != 0)
		return -1;
	if (count) {
		s->candidates = pairs[0];
		s->neighbours = pairs[1];
	}
	return 0;
}

/* n elements of size bytes from device array src into host buffer dst,
 * waited for. 0 or -1. */
static int sph_gpu2_download(struct sph_gpu2 *s, void *dst, const void *src, size_t size)
{
	return SPH_GPU2_CHECK(s, cudaMemcpyAsync(dst, src, (size_t)s->n * size,
						 cudaMemcpyDeviceToHost, s->stream)) ||
			       SPH_GPU2_CHECK(s, cudaStreamSynchronize(s->stream))
		       ? -1
		       : 0;
}

/* out[id[k]] = slot array src[k] (elements of size bytes); without id the
 * slots are already in the caller's order. */
static int sph_gpu2_read_array(struct sph_gpu2 *s, void *stage, const unsigned *id,
			       const void *src, size_t size, void *out)
{
	if (!out)
		return 0;
	if (!id)
		return sph_gpu2_download(s, out, src, size);
	if (sph_gpu2_download(s, stage, src, size) != 0)
		return -1;
	for (size_t k = 0; k < (size_t)s->n; k++)
		memcpy((char *)out + size * id[k], (const char *)stage + size * k, size);
	return 0;
}

static int sph_gpu2_read(void *ctx, float *pos4, float *vel4, float *rho, float *acc4)
{
	struct sph_gpu2 *s = (struct sph_gpu2 *)ctx;
	const size_t n = (size_t)s->n;
	unsigned *id = NULL;
	float4 *stage = NULL;
	int rc = -1;

	if (s->failed)
		return -1;
	if (s->id) {
		id = (unsigned *)malloc(n * sizeof *id);
		stage = (float4 *)malloc(n * sizeof *stage);
		if (!id || !stage) {
			snprintf(s->err, sizeof s->err,
				 "%s: out of host memory reading %zu particles", s->name, n);
			goto out_free;
		}
		if (sph_gpu2_download(s, id, s->id, sizeof *id) != 0)
			goto out_free;
	}
	if (sph_gpu2_read_array(s, stage, id, s->pos, sizeof(float4), pos4) != 0 ||
	    sph_gpu2_read_array(s, stage, id, s->vel, sizeof(float4), vel4) != 0 ||
	    sph_gpu2_read_array(s, stage, id, s->acc, sizeof(float4), acc4) != 0 ||
	    sph_gpu2_read_array(s, stage, id, s->rho, sizeof(float), rho) != 0)
		goto out_free;
	rc = 0;

out_free:
	free(stage);
	free(id);
	return rc;
}

static void sph_gpu2_counts(void *ctx, struct sph_counts *c)
{
	const struct sph_gpu2 *s = (const struct sph_gpu2 *)ctx;

	c->aux_bytes = s->aux_bytes;
	c->candidates = s->candidates;
	c->neighbours = s->neighbours;
	c->overflow = s->overflow;
}

static const char *sph_gpu2_error(void *ctx)
{
	return ((const struct sph_gpu2 *)ctx)->err;
}

static void sph_gpu2_destroy(void *ctx)
{
	struct sph_gpu2 *s = (struct sph_gpu2 *)ctx;

	if (!s)
		return;
	if (s->stream)
		cudaStreamSynchronize(s->stream);
	for (int k = 0; k < s->nallocs; k++)
		cudaFree(s->allocs[k]);
	for (int k = 0; k < s->nevents; k++)
		cudaEventDestroy(s->ev[k / SPH_GPU2_MARKS][k % SPH_GPU2_MARKS]);
	if (s->stream)
		cudaStreamDestroy(s->stream);
	free(s);
}

/* ---- create ----------------------------------------------------------------- */

/* The smallest float >= v, and the largest <= v (as sph_grid.cu). */
static float sph_gpu2_float_at_least(double v)
{
	if (fabs(v) > FLT_MAX)
		return v > 0.0 ? INFINITY : -FLT_MAX;
	const float f = (float)v;
	return (double)f < v ? nextafterf(f, INFINITY) : f;
}

static float sph_gpu2_float_at_most(double v)
{
	if (fabs(v) > FLT_MAX)
		return v < 0.0 ? -INFINITY : FLT_MAX;
	const float f = (float)v;
	return (double)f > v ? nextafterf(f, -INFINITY) : f;
}

/* The float constants of p, as sph_grid.cu; -1 with a message when one is
 * not finite or h, mass, dt are not positive. */
static int sph_gpu2_consts_init(struct sph_gpu2_consts *c, const struct sph_params *p,
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
		c->box_lo[d] = sph_gpu2_float_at_least(p->box_lo[d]);
		c->box_hi[d] = sph_gpu2_float_at_most(p->box_hi[d]);
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

/* The extent of the box along axis d, or of the particles' bounds where
 * the box is open; -1 with a message when the box is inverted. */
static int sph_gpu2_extent(const struct sph_params *p, const float *pos4, size_t n, int d,
			   double *lo_out, double *hi_out, const char *name, char *err,
			   size_t errlen)
{
	double lo = p->box_lo[d], hi = p->box_hi[d];

	if (lo > hi) {
		snprintf(err, errlen, "%s: box_lo[%d] = %g > box_hi[%d] = %g", name, d, lo, d, hi);
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
	*lo_out = lo;
	*hi_out = hi;
	return 0;
}

/*
 * The grid of method: grid-buckets, cells of side h (1 + margin), at most
 * SPH_GPU2_MAX_CELLS; zindex-blocks, 1024^3 cubic cells of side L / 1024
 * (L the longest extent, at least h (1 + margin)) and the block side
 * S = 2^sbits cells, the smallest power of two with S cells >= h (1 +
 * margin) (S <= 1024 since 1024 cells >= h (1 + margin)). -1 with a
 * message on a bad box.
 */
static int sph_gpu2_grid_init(struct sph_gpu2_grid *g, enum sph_gpu2_method method,
			      const struct sph_params *p, const float *pos4, size_t n,
			      const char *name, char *err, size_t errlen)
{
	const double reach = p->h * (1.0 + SPH_GPU2_MARGIN);
	double lo[3], hi[3], cells = 1.0, longest = reach;

	memset(g, 0, sizeof *g);
	for (int d = 0; d < 3; d++) {
		if (sph_gpu2_extent(p, pos4, n, d, &lo[d], &hi[d], name, err, errlen) != 0)
			return -1;
		g->lo[d] = lo[d];
		longest = fmax(longest, hi[d] - lo[d]);
	}
	if (method == SPH_GPU2_ZINDEX_BLOCKS) {
		if (!std::isfinite(longest)) {
			snprintf(err, errlen, "%s: the box is not finite", name);
			return -1;
		}
		g->cell = longest / SPH_GPU2_MORTON_SIDE;
		while (g->sbits < SPH_GPU2_MORTON_BITS && (double)(1 << g->sbits) * g->cell < reach)
			g->sbits++;
		g->dim[0] = g->dim[1] = g->dim[2] = SPH_GPU2_MORTON_SIDE;
		return 0;
	}
	g->cell = reach;
	for (int d = 0; d < 3; d++) {
		const double side = floor((hi[d] - lo[d]) / g->cell) + 1.0;

		cells *= side;
		if (!(cells <= (double)SPH_GPU2_MAX_CELLS)) {
			snprintf(err, errlen, "%s: a grid of cells of %g m over the box needs more "
				 "than %zu cells", name, g->cell, SPH_GPU2_MAX_CELLS);
			return -1;
		}
		g->dim[d] = (int)side;
	}
	g->ncells = (unsigned)cells;
	return 0;
}

/* The bucket capacity: SPH_BUCKET_CAPACITY when set (a test hook), else
 * SPH_GPU2_BUCKET_DEFAULT; -1 with a message when it is not 1 .. 4096. */
static int sph_gpu2_capacity(int *cap, const char *name, char *err, size_t errlen)
{
	const char *env = getenv("SPH_BUCKET_CAPACITY");
	char *end;
	long v;

	*cap = SPH_GPU2_BUCKET_DEFAULT;
	if (!env || !*env)
		return 0;
	v = strtol(env, &end, 10);
	if (*end || v < 1 || v > SPH_GPU2_BUCKET_MAX) {
		snprintf(err, errlen, "%s: SPH_BUCKET_CAPACITY = \"%s\"; allowed 1 .. %d", name, env,
			 SPH_GPU2_BUCKET_MAX);
		return -1;
	}
	*cap = (int)v;
	return 0;
}

/* Every device array of s for its method, CUB's temporary storage, and
 * the chunk kernels' launch size. 0, or -1 with s->err. */
static int sph_gpu2_alloc_all(struct sph_gpu2 *s)
{
	const size_t n = (size_t)s->n;
	size_t sort_bytes = 0, scan_bytes = 0;
	int dev = 0, sms = 0;

	if (sph_gpu2_alloc(s, &s->pos, n, true) || sph_gpu2_alloc(s, &s->vel, n, true) ||
	    sph_gpu2_alloc(s, &s->acc, n, true) || sph_gpu2_alloc(s, &s->rho, n, true) ||
	    sph_gpu2_alloc(s, &s->flags, 2, false) || sph_gpu2_alloc(s, &s->pairs, 2, false))
		return -1;
	switch (s->method) {
	case SPH_GPU2_ZINDEX_BLOCKS: {
		for (int k = 0; k < 4; k++)
			if (sph_gpu2_alloc(s, &s->buf[k], n, false))
				return -1;
		if (sph_gpu2_alloc(s, &s->id, n, false) || sph_gpu2_alloc(s, &s->scal, 2, false))
			return -1;
		cub::DoubleBuffer<unsigned> keys(s->buf[0], s->buf[1]), slots(s->buf[2], s->buf[3]);

		if (SPH_GPU2_CHECK(s, cub::DeviceRadixSort::SortPairs(NULL, sort_bytes, keys, slots,
								      s->n, 0,
								      3 * SPH_GPU2_MORTON_BITS,
								      s->stream)) ||
		    SPH_GPU2_CHECK(s, cub::DeviceScan::ExclusiveSum(NULL, scan_bytes, s->buf[0],
								    s->buf[1], s->n, s->stream)) ||
		    SPH_GPU2_CHECK(s, cudaGetDevice(&dev)) ||
		    SPH_GPU2_CHECK(s, cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount,
							     dev)))
			return -1;
		/* at most nu + n / 64 <= n + n / 64 chunks */
		s->chunk_grid = (unsigned)std::min(n + n / SPH_GPU2_CHUNK + 1,
						   (size_t)std::max(sms, 1) *
							   SPH_GPU2_CHUNK_BLOCKS_PER_SM);
		s->blocks.scal = s->scal;
		s->blocks.n = s->n;
		s->blocks.side = SPH_GPU2_MORTON_SIDE >> s->grid.sbits;
		break;
	}
	case SPH_GPU2_GRID_BUCKETS:
		if (sph_gpu2_alloc(s, &s->count, s->grid.ncells, false) ||
		    sph_gpu2_alloc(s, &s->bucket, (size_t)s->grid.ncells * (size_t)s->cap, false) ||
		    sph_gpu2_alloc(s, &s->prh, n, false))
			return -1;
		break;
	case SPH_GPU2_BRUTE:
		break;
	}
	s->temp_bytes = std::max(std::max(sort_bytes, scan_bytes), (size_t)1);
	return sph_gpu2_alloc(s, &s->temp, s->temp_bytes, false);
}

/* The caller's particles on the device (w = 0), ids 0 .. n - 1, density
 * and acceleration zero until the first evaluation. 0 or -1. */
static int sph_gpu2_upload(struct sph_gpu2 *s, const float *pos4, const float *vel4)
{
	const size_t n = (size_t)s->n;
	float4 *stage = (float4 *)malloc(2 * n * sizeof *stage);
	const unsigned flags[2] = { UINT_MAX, 0 };
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
	if (SPH_GPU2_CHECK(s, cudaMemcpyAsync(s->pos, stage, n * sizeof *stage,
					      cudaMemcpyHostToDevice, s->stream)) ||
	    SPH_GPU2_CHECK(s, cudaMemcpyAsync(s->vel, stage + n, n * sizeof *stage,
					      cudaMemcpyHostToDevice, s->stream)) ||
	    SPH_GPU2_CHECK(s, cudaMemcpyAsync(s->flags, flags, sizeof flags,
					      cudaMemcpyHostToDevice, s->stream)) ||
	    SPH_GPU2_CHECK(s, cudaMemsetAsync(s->rho, 0, n * sizeof *s->rho, s->stream)) ||
	    SPH_GPU2_CHECK(s, cudaMemsetAsync(s->acc, 0, n * sizeof *s->acc, s->stream)) ||
	    SPH_GPU2_CHECK(s, cudaMemsetAsync(s->pairs, 0, 2 * sizeof *s->pairs, s->stream)))
		goto out_free;
	if (s->id) {
		sph_gpu2_iota_kernel<<<sph_gpu2_nblocks(n), SPH_GPU2_BLOCK, 0, s->stream>>>(s->id,
											    s->n);
		if (SPH_GPU2_LAUNCHED(s, "iota kernel"))
			goto out_free;
	}
	rc = SPH_GPU2_CHECK(s, cudaStreamSynchronize(s->stream));

out_free:
	free(stage);
	return rc;
}

/* Index of the first particle with a non-finite coordinate, or n. */
static size_t sph_gpu2_first_nonfinite(const float *pos4, const float *vel4, size_t n)
{
	for (size_t i = 0; i < n; i++)
		for (int c = 0; c < 3; c++)
			if (!std::isfinite(pos4[4 * i + c]) || !std::isfinite(vel4[4 * i + c]))
				return i;
	return n;
}

/* Stream, events, arrays and particles of s. 0, or -1 with s->err. */
static int sph_gpu2_start(struct sph_gpu2 *s, const float *pos4, const float *vel4)
{
	if (SPH_GPU2_CHECK(s, cudaStreamCreateWithFlags(&s->stream, cudaStreamNonBlocking)))
		return -1;
	for (; s->nevents < SPH_GPU2_BATCH * SPH_GPU2_MARKS; s->nevents++)
		if (SPH_GPU2_CHECK(s, cudaEventCreate(&s->ev[s->nevents / SPH_GPU2_MARKS]
							    [s->nevents % SPH_GPU2_MARKS])))
			return -1;
	if (sph_gpu2_alloc_all(s) != 0)
		return -1;
	return sph_gpu2_upload(s, pos4, vel4);
}

static int sph_gpu2_create(enum sph_gpu2_method method, void **ctx, const float *pos4,
			   const float *vel4, size_t n, const struct sph_params *p, char *err,
			   size_t errlen)
{
	const char *name = sph_gpu2_names[method];
	const size_t max_n = method == SPH_GPU2_BRUTE ? SPH_GPU2_BRUTE_MAX_N : (size_t)INT_MAX;
	struct sph_gpu2 *s;
	size_t bad;

	*ctx = NULL;
	if (n == 0 || n > max_n) {
		snprintf(err, errlen, "%s: n = %zu particles; allowed 1 .. %zu%s", name, n, max_n,
			 method == SPH_GPU2_BRUTE ? " (all pairs: O(n^2))" : "");
		return -1;
	}
	bad = sph_gpu2_first_nonfinite(pos4, vel4, n);
	if (bad < n) {
		snprintf(err, errlen, "%s: particle %zu has a non-finite position or velocity", name,
			 bad);
		return -1;
	}
	s = (struct sph_gpu2 *)calloc(1, sizeof *s);
	if (!s) {
		snprintf(err, errlen, "%s: out of host memory", name);
		return -1;
	}
	s->method = method;
	s->name = name;
	s->n = (int)n;
	if (sph_gpu2_consts_init(&s->cs, p, name, err, errlen) != 0 ||
	    sph_gpu2_grid_init(&s->grid, method, p, pos4, n, name, err, errlen) != 0 ||
	    (method == SPH_GPU2_GRID_BUCKETS && sph_gpu2_capacity(&s->cap, name, err, errlen) != 0))
		goto out_destroy;
	if (sph_gpu2_start(s, pos4, vel4) != 0) {
		snprintf(err, errlen, "%s", s->err);
		goto out_destroy;
	}
	*ctx = s;
	return 0;

out_destroy:
	sph_gpu2_destroy(s);
	return -1;
}

static int sph_gpu2_create_zindex_blocks(void **ctx, const float *pos4, const float *vel4,
					 size_t n, const struct sph_params *p, char *err,
					 size_t errlen)
{
	return sph_gpu2_create(SPH_GPU2_ZINDEX_BLOCKS, ctx, pos4, vel4, n, p, err, errlen);
}

static int sph_gpu2_create_grid_buckets(void **ctx, const float *pos4, const float *vel4,
					size_t n, const struct sph_params *p, char *err,
					size_t errlen)
{
	return sph_gpu2_create(SPH_GPU2_GRID_BUCKETS, ctx, pos4, vel4, n, p, err, errlen);
}

static int sph_gpu2_create_brute(void **ctx, const float *pos4, const float *vel4, size_t n,
				 const struct sph_params *p, char *err, size_t errlen)
{
	return sph_gpu2_create(SPH_GPU2_BRUTE, ctx, pos4, vel4, n, p, err, errlen);
}

#define SPH_GPU2_OPS(create_fn)                                                                \
	{                                                                                      \
		create_fn, sph_gpu2_steps, sph_gpu2_evaluate, sph_gpu2_read, sph_gpu2_counts,  \
			sph_gpu2_error, sph_gpu2_destroy                                       \
	}

extern "C" const struct sph_ops sph_gpu_zindex_blocks_ops =
	SPH_GPU2_OPS(sph_gpu2_create_zindex_blocks);
extern "C" const struct sph_ops sph_gpu_grid_buckets_ops =
	SPH_GPU2_OPS(sph_gpu2_create_grid_buckets);
extern "C" const struct sph_ops sph_gpu_brute_ops = SPH_GPU2_OPS(sph_gpu2_create_brute);
