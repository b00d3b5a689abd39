/* nbody_gpu.cu - GPU all-pairs N-body force kernels: the chapter's and newer ones
 *
 * Variants (each one line of variants/nbody.def, which instantiates the
 * launcher template it names with the line's p, q, unroll and k):
 *   naive         one thread per body, every j read from global memory
 *   tiled-p*      Listings 31-1..31-3: tiles of p bodies in shared memory
 *   unrolled-u*   tiled p = 256 with the tile loop unrolled u times
 *   tpb-q*        q threads share one body's row, partial sums combined in
 *                 shared memory (Figure 31-8)
 *   rsqrt         rsqrt.approx with eps^2 folded into the FMA chain
 *   kbody-k*      rsqrt, k bodies per thread: one shared load serves k pairs
 *   jsplit-k*s    the same with one of the k bodies on a software rsqrt
 *                 (an experiment: the SFU is not the limit, see pair_fast_f32)
 *   jsplit-k*     the j-range split over blocks so that small N fills every
 *                 SM and large N has no wave tail; the last block of each
 *                 i-tile sums the slices in a fixed order (deterministic)
 *   shuffle       j-bodies broadcast from registers by warp shuffles
 *   auto          picks one of the above for the device and N
 *   dist-*        (the distributed variants) auto on each rank's share,
 *                 through pos_i / n_i / accumulate of the launch
 *   fp64-tiled    double, precise rsqrt
 *   fp64-fast     double, k = 2, j-split, rsqrt from a float seed refined
 *   tc-3x-p*      the tensor-core formulation (nbody_tc.cu); its launcher
 *                 template is here with the others
 *
 * The chapter's families keep Listing 31-1's arithmetic (1.0f/sqrtf of
 * distSqr^3) as written; a modern nvcc compiles it to an IEEE square root
 * and division, which is part of what the newer variants improve on.
 * Every kernel reads and writes only inside the padded arrays (n_alloc, a
 * multiple of NBODY_GPU_PAD); padding bodies have zero mass.
 */
#include "nbody_gpu.h"
#include "nbody_gpu_common.cuh"

#include <climits>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

#include "../../variants/registry.h"

/* ---- pair interactions -------------------------------------------------- */

/* Listing 31-1, unchanged: the force of body j on body i added to ai. */
__device__ __forceinline__ float3 body_body_chapter(float4 bi, float4 bj, float3 ai, float eps2)
{
	float3 r;
	// r_ij [3 FLOPS]
	r.x = bj.x - bi.x;
	r.y = bj.y - bi.y;
	r.z = bj.z - bi.z;
	// distSqr = dot(r_ij, r_ij) + EPS^2 [6 FLOPS]
	float distSqr = r.x * r.x + r.y * r.y + r.z * r.z + eps2;
	// invDistCube = 1/distSqr^(3/2) [4 FLOPS (2 mul, 1 sqrt, 1 inv)]
	float distSixth = distSqr * distSqr * distSqr;
	float invDistCube = 1.0f / sqrtf(distSixth);
	// s = m_j * invDistCube [1 FLOP]
	float s = bj.w * invDistCube;
	// a_i = a_i + s * r_ij [6 FLOPS]
	ai.x += r.x * s;
	ai.y += r.y * s;
	ai.z += r.z * s;
	return ai;
}

/* rsqrt on the FMA pipe instead of the SFU: the integer estimate of
 * Lomont's "fast inverse square root" (relative error < 3.5e-2) refined by
 * three Newton steps (< 1e-7, float rounding): 2 integer and 10 FP32
 * instructions where rsqrt_approx takes one MUFU. */
__device__ __forceinline__ float rsqrt_soft(float x)
{
	float y = __int_as_float(0x5f375a86 - (__float_as_int(x) >> 1));
	float hx = 0.5f * x;
#pragma unroll
	for (int it = 0; it < 3; it++)
		y = fmaf(y, fmaf(-hx * y, y, 0.5f), y); /* y (1.5 - x y^2 / 2) */
	return y;
}

struct double3_ {
	double x, y, z;
};

/* (x, y, z, m) in double; CUDA 13 deprecates double4 for its ambiguous
 * alignment, so the layout is spelled out: 32 bytes, 32-byte aligned. */
struct __align__(32) double4_ {
	double x, y, z, w;
};

/* Loads that bypass L1, for partial sums other blocks wrote. */
__device__ __forceinline__ float4 load_cg(const float4 *p)
{
	return __ldcg(p);
}

__device__ __forceinline__ double4_ load_cg(const double4_ *p)
{
	double2 lo = __ldcg((const double2 *)p), hi = __ldcg((const double2 *)p + 1);
	double4_ r = { lo.x, lo.y, hi.x, hi.y };
	return r;
}

/* The other reciprocal square roots the pairs use (rsqrt_mufu: nbody_gpu_common.cuh). */
struct rsqrt_fma_pipe {
	static __device__ __forceinline__ float of(float x) { return rsqrt_soft(x); }
};
struct rsqrt_library_f64 {
	static __device__ __forceinline__ double of(double x) { return rsqrt(x); }
};
/* From a float seed y0 (relative error e0 < 2e-7): with e = 1 - d2 y0^2,
 * y = y0 (1 + e/2 + 3e^2/8) leaves an error of order e0^3 < 1e-20, below
 * double rounding, for 5 double operations instead of the library's
 * iterations. */
struct rsqrt_seeded_f64 {
	static __device__ __forceinline__ double of(double d2)
	{
		double y0 = (double)rsqrt_approx((float)d2);
		double e = fma(-d2 * y0, y0, 1.0);
		return fma(y0, e * fma(e, 0.375, 0.5), y0);
	}
};

/* fp32 pairs. SOFT takes the rsqrt on the FMA pipe instead of the SFU.
 * That would pay if the SFU were the limit; on the H200 it is not (Nsight
 * Compute on jsplit-k4: issue slots 84 % busy, FMA pipe 76 %, SFU 51 %),
 * so the jsplit-k*s variants are 7-13 % slower: they stay as the
 * measurement that shows it. */
struct pair_fast_f32 {
	typedef float real;
	typedef float4 real4;
	template <bool SOFT = false>
	static __device__ __forceinline__ void add(float3 &a, float3 xi, float4 bj, float eps2)
	{
		if (SOFT)
			pair_add<rsqrt_fma_pipe>(a, xi, bj, eps2);
		else
			pair_add<rsqrt_mufu>(a, xi, bj, eps2);
	}
};

/* Double precision with the library's rsqrt (fp64-tiled). */
struct pair_precise_f64 {
	typedef double real;
	typedef double4_ real4;
	template <bool SOFT = false>
	static __device__ __forceinline__ void add(double3_ &a, double3_ xi, double4_ bj, double eps2)
	{
		pair_add<rsqrt_library_f64>(a, xi, bj, eps2);
	}
};

/* Double precision with the seeded rsqrt (fp64-fast). */
struct pair_fast_f64 {
	typedef double real;
	typedef double4_ real4;
	template <bool SOFT = false>
	static __device__ __forceinline__ void add(double3_ &a, double3_ xi, double4_ bj, double eps2)
	{
		pair_add<rsqrt_seeded_f64>(a, xi, bj, eps2);
	}
};

/* Accumulator and position types of each precision. */
template <class T> struct vec3_of;
template <> struct vec3_of<float> {
	typedef float3 type;
};
template <> struct vec3_of<double> {
	typedef double3_ type;
};

/* ---- naive ---------------------------------------------------------------- */

__global__ void naive_kernel(const float4 *__restrict__ pos, float4 *__restrict__ acc, int n,
			     float eps2)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	float4 bi = pos[i];
	float3 a = make_float3(0.0f, 0.0f, 0.0f);
	for (int j = 0; j < n; j++)
		a = body_body_chapter(bi, pos[j], a, eps2);
	acc[i] = make_float4(a.x, a.y, a.z, 0.0f);
}

template <int P, int Q, int U, int K> int nbody_gpu_naive(const struct nbody_gpu_launch *l)
{
	naive_kernel<<<ceil_div(l->n, 256), 256, 0, STREAM(l)>>>(
		(const float4 *)l->pos, (float4 *)l->acc, l->n, (float)l->eps2);
	return launch_status();
}

/* ---- tiled and unrolled (Listings 31-2 and 31-3) -------------------------- */

template <int P, int U>
__global__ void __launch_bounds__(P)
	tiled_kernel(const float4 *__restrict__ pos, float4 *__restrict__ acc, int ntiles, float eps2)
{
	__shared__ float4 shPosition[P];
	int gtid = blockIdx.x * P + threadIdx.x;
	float4 myPosition = pos[gtid];
	float3 a = make_float3(0.0f, 0.0f, 0.0f);
	for (int tile = 0; tile < ntiles; tile++) {
		shPosition[threadIdx.x] = pos[tile * P + threadIdx.x];
		__syncthreads();
#pragma unroll U
		for (int j = 0; j < P; j++)
			a = body_body_chapter(myPosition, shPosition[j], a, eps2);
		__syncthreads();
	}
	acc[gtid] = make_float4(a.x, a.y, a.z, 0.0f);
}

template <int P, int Q, int U, int K> int nbody_gpu_tiled(const struct nbody_gpu_launch *l)
{
	int ntiles = ceil_div(l->n, P);
	tiled_kernel<P, U><<<ntiles, P, 0, STREAM(l)>>>((const float4 *)l->pos, (float4 *)l->acc,
							 ntiles, (float)l->eps2);
	return launch_status();
}

/* ---- several threads per body (Figure 31-8) ------------------------------- */

/* Block of P x Q threads: thread t works on body t / Q of the block and on
 * segment t % Q of each tile of P x Q bodies, reading the tile interleaved
 * (j * Q + segment) so that a warp's Q segments hit Q consecutive slots. */
template <int P, int Q, int U>
__global__ void __launch_bounds__(P *Q)
	multi_kernel(const float4 *__restrict__ pos, float4 *__restrict__ acc, int ntiles, float eps2)
{
	__shared__ float4 tile[P * Q];
	__shared__ float3 part[P * Q];
	const int body = threadIdx.x / Q, seg = threadIdx.x % Q;
	const int i = blockIdx.x * P + body;
	float4 bi = pos[i];
	float3 a = make_float3(0.0f, 0.0f, 0.0f);
	for (int t = 0; t < ntiles; t++) {
		tile[threadIdx.x] = pos[t * P * Q + threadIdx.x];
		__syncthreads();
#pragma unroll U
		for (int j = 0; j < P; j++)
			a = body_body_chapter(bi, tile[j * Q + seg], a, eps2);
		__syncthreads();
	}
	part[threadIdx.x] = a;
	__syncthreads();
	if (seg == 0) {
		float3 sum = part[body * Q];
		for (int s = 1; s < Q; s++) {
			float3 p = part[body * Q + s];
			sum.x += p.x;
			sum.y += p.y;
			sum.z += p.z;
		}
		acc[i] = make_float4(sum.x, sum.y, sum.z, 0.0f);
	}
}

template <int P, int Q, int U, int K> int nbody_gpu_multi(const struct nbody_gpu_launch *l)
{
	multi_kernel<P, Q, U><<<ceil_div(l->n, P), P * Q, 0, STREAM(l)>>>(
		(const float4 *)l->pos, (float4 *)l->acc, ceil_div(l->n, P * Q), (float)l->eps2);
	return launch_status();
}

/* ---- k bodies per thread, optional j-split (the newer variants) ----------- */

/* Block b.x owns bodies b.x * P * K + threadIdx.x + r * P (r < K); block
 * b.y owns j-slice b.y of nsplit. With nsplit == 1 the block writes acc;
 * otherwise it writes its slice's partial sums, and the last block of the
 * i-tile to finish (counted with an atomic after a fence) adds the slices
 * in order 0..nsplit-1, so the result does not depend on block timing. */
/* Blocks per SM the compiler must make room for (registers); 1 leaves it
 * free. Tuning knob: make NVCCFLAGS+=-DKBODY_MIN_BLOCKS=8. */
#ifndef KBODY_MIN_BLOCKS
#define KBODY_MIN_BLOCKS 1
#endif

template <class Pair, int P, int K, int U, int S>
__global__ void __launch_bounds__(P, KBODY_MIN_BLOCKS) kbody_kernel(const typename Pair::real4 *__restrict__ pos_i,
						  const typename Pair::real4 *__restrict__ pos,
						  typename Pair::real4 *__restrict__ acc,
						  typename Pair::real4 *__restrict__ partial,
						  unsigned *__restrict__ counters, int ntiles,
						  int nsplit, int n_alloc,
						  typename Pair::real eps2, int accumulate)
{
	typedef typename Pair::real real;
	typedef typename Pair::real4 real4;
	typedef typename vec3_of<real>::type real3;
	__shared__ real4 tile[P];
	__shared__ unsigned arrived;
	const int base = blockIdx.x * P * K + threadIdx.x;
	real3 xi[K], ai[K];
#pragma unroll
	for (int r = 0; r < K; r++) {
		real4 p = pos_i[base + r * P];
		xi[r].x = p.x, xi[r].y = p.y, xi[r].z = p.z;
		ai[r].x = 0, ai[r].y = 0, ai[r].z = 0;
	}
	const int s = blockIdx.y;
	const int t0 = (int)((long long)ntiles * s / nsplit);
	const int t1 = (int)((long long)ntiles * (s + 1) / nsplit);
	for (int t = t0; t < t1; t++) {
		tile[threadIdx.x] = pos[t * P + threadIdx.x];
		__syncthreads();
#pragma unroll U
		for (int j = 0; j < P; j++) {
			real4 bj = tile[j];
#pragma unroll
			for (int r = 0; r < K - S; r++)
				Pair::template add<false>(ai[r], xi[r], bj, eps2);
#pragma unroll
			for (int r = K - S; r < K; r++)
				Pair::template add<true>(ai[r], xi[r], bj, eps2);
		}
		__syncthreads();
	}
	if (nsplit == 1) {
#pragma unroll
		for (int r = 0; r < K; r++) {
			real4 o = accumulate ? acc[base + r * P] : real4();
			o.x += ai[r].x, o.y += ai[r].y, o.z += ai[r].z, o.w = 0;
			acc[base + r * P] = o;
		}
		return;
	}
	real4 *mine = partial + (size_t)s * n_alloc;
#pragma unroll
	for (int r = 0; r < K; r++) {
		real4 o;
		o.x = ai[r].x, o.y = ai[r].y, o.z = ai[r].z, o.w = 0;
		mine[base + r * P] = o;
	}
	__threadfence();
	__syncthreads();
	if (threadIdx.x == 0)
		arrived = atomicAdd(&counters[blockIdx.x], 1u);
	__syncthreads();
	if (arrived != (unsigned)nsplit - 1)
		return;
#pragma unroll
	for (int r = 0; r < K; r++) {
		real3 sum;
		sum.x = 0, sum.y = 0, sum.z = 0;
		if (accumulate) {
			real4 p = acc[base + r * P];
			sum.x = p.x, sum.y = p.y, sum.z = p.z;
		}
		for (int q = 0; q < nsplit; q++) {
			real4 p = load_cg(&partial[(size_t)q * n_alloc + base + r * P]);
			sum.x += p.x, sum.y += p.y, sum.z += p.z;
		}
		real4 o;
		o.x = sum.x, o.y = sum.y, o.z = sum.z, o.w = 0;
		acc[base + r * P] = o;
	}
	if (threadIdx.x == 0)
		counters[blockIdx.x] = 0; /* ready for the next launch */
}

/* How many j-slices to cut. Blocks run in waves of `resident` (blocks per
 * SM x SMs), and an SM that runs out of blocks idles while the others
 * finish theirs. Measured on the H200, a grid of one or two waves loses
 * 5-10 % that way, and more, smaller blocks balance better, so a launch
 * wants at least min_waves waves (8; NBODY_GPU_MIN_WAVES overrides it for
 * tuning). Among the slice counts that give them, the one with the least
 * estimated time (waves x tiles per block, plus a tenth of a tile per slice
 * for the partial sums) wins. When N is too small for that many waves,
 * every tile becomes its own slice (up to the scratch's room). */
static int split_min_waves(void)
{
	static int waves = -1;
	if (waves < 0) {
		const char *env = getenv("NBODY_GPU_MIN_WAVES");
		waves = env && atoi(env) > 0 ? atoi(env) : 8;
	}
	return waves;
}

static int split_choose(int itiles, int ntiles, int resident, int max_split, int min_waves)
{
	int limit = ntiles < max_split ? ntiles : max_split;
	int best = limit;
	double best_cost = 1e300;
	for (int split = 1; split <= limit; split++) {
		long long blocks = (long long)itiles * split;
		long long waves = (blocks + resident - 1) / resident;
		if (blocks < (long long)min_waves * resident)
			continue;
		double cost = (double)waves * ceil_div(ntiles, split) + (split > 1 ? 0.1 * split : 0.0);
		if (cost < best_cost) {
			best_cost = cost;
			best = split;
		}
	}
	return best < 1 ? 1 : best;
}

template <class Pair, int P, int K, int U, int S>
static int kbody_split(const struct nbody_gpu_launch *l, int itiles, int ntiles)
{
	static int resident_per_sm = -1;
	if (resident_per_sm < 0 &&
	    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident_per_sm,
							  kbody_kernel<Pair, P, K, U, S>, P, 0) != cudaSuccess)
		resident_per_sm = 1;
	if (resident_per_sm < 1)
		resident_per_sm = 1;
	return split_choose(itiles, ntiles, resident_per_sm * l->sm_count, l->max_split,
			    split_min_waves());
}

template <class Pair, int P, int K, int U, int S = 0>
static int kbody_launch(const struct nbody_gpu_launch *l, bool split)
{
	typedef typename Pair::real4 real4;
	const void *pos_i = l->pos_i ? l->pos_i : l->pos;
	int n_i = l->pos_i ? l->n_i : l->n;
	if (n_i < 1)
		return 0;
	int itiles = ceil_div(n_i, P * K), ntiles = ceil_div(l->n, P);
	int nsplit = split ? kbody_split<Pair, P, K, U, S>(l, itiles, ntiles) : 1;
	dim3 grid(itiles, nsplit);
	kbody_kernel<Pair, P, K, U, S><<<grid, P, 0, STREAM(l)>>>(
		(const real4 *)pos_i, (const real4 *)l->pos, (real4 *)l->acc, (real4 *)l->partial,
		l->counters, ntiles, nsplit, l->n_alloc, (typename Pair::real)l->eps2, l->accumulate);
	return launch_status();
}

template <int P, int Q, int U, int K> int nbody_gpu_kbody(const struct nbody_gpu_launch *l)
{
	return kbody_launch<pair_fast_f32, P, K, U>(l, false);
}

template <int P, int Q, int U, int K> int nbody_gpu_jsplit(const struct nbody_gpu_launch *l)
{
	return kbody_launch<pair_fast_f32, P, K, U>(l, true);
}

/* j-split with one of the k bodies on the software rsqrt (see pair_fast_f32). */
template <int P, int Q, int U, int K> int nbody_gpu_jsplit_soft(const struct nbody_gpu_launch *l)
{
	return kbody_launch<pair_fast_f32, P, K, U, 1>(l, true);
}

template <int P, int Q, int U, int K> int nbody_gpu_fp64_tiled(const struct nbody_gpu_launch *l)
{
	return kbody_launch<pair_precise_f64, P, K, U>(l, false);
}

template <int P, int Q, int U, int K> int nbody_gpu_fp64_fast(const struct nbody_gpu_launch *l)
{
	return kbody_launch<pair_fast_f64, P, K, U>(l, true);
}

/* ---- warp shuffle ------------------------------------------------------- */

/* Each warp walks the bodies 32 at a time: lane L loads body jbase + L,
 * then the warp visits the 32 by broadcasting each lane's registers with
 * shuffles. No shared memory and no block barrier. */
template <int K, int U>
__global__ void shuffle_kernel(const float4 *__restrict__ pos, float4 *__restrict__ acc, int n32,
			       float eps2)
{
	const int lane = threadIdx.x & 31;
	const int warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
	const int base = warp * 32 * K + lane;
	float3 xi[K], ai[K];
#pragma unroll
	for (int r = 0; r < K; r++) {
		float4 p = pos[base + r * 32];
		xi[r] = make_float3(p.x, p.y, p.z);
		ai[r] = make_float3(0.0f, 0.0f, 0.0f);
	}
	for (int jb = 0; jb < n32; jb += 32) {
		float4 mine = pos[jb + lane];
#pragma unroll U
		for (int j = 0; j < 32; j++) {
			float4 bj;
			bj.x = __shfl_sync(0xffffffffu, mine.x, j);
			bj.y = __shfl_sync(0xffffffffu, mine.y, j);
			bj.z = __shfl_sync(0xffffffffu, mine.z, j);
			bj.w = __shfl_sync(0xffffffffu, mine.w, j);
#pragma unroll
			for (int r = 0; r < K; r++)
				pair_fast_f32::add(ai[r], xi[r], bj, eps2);
		}
	}
#pragma unroll
	for (int r = 0; r < K; r++)
		acc[base + r * 32] = make_float4(ai[r].x, ai[r].y, ai[r].z, 0.0f);
}

template <int P, int Q, int U, int K> int nbody_gpu_shuffle(const struct nbody_gpu_launch *l)
{
	int bodies_per_block = P * K;
	shuffle_kernel<K, U><<<ceil_div(l->n, bodies_per_block), P, 0, STREAM(l)>>>(
		(const float4 *)l->pos, (float4 *)l->acc, ceil_div(l->n, 32) * 32, (float)l->eps2);
	return launch_status();
}

/* ---- tensor cores (nbody_tc.cu) -------------------------------------------- */

/* p bodies per warp sharing one centre, both products split (3xTF32) */
template <int P, int Q, int U, int K> int nbody_gpu_tc(const struct nbody_gpu_launch *l)
{
	return nbody_tc_forces(l, P, 1, 1);
}

/* the tf32 variants: r^2 + eps^2 (d), the weights (w) or both in one
 * TF32 product, unsplit */
template <int P, int Q, int U, int K> int nbody_gpu_tc_1xd(const struct nbody_gpu_launch *l)
{
	return nbody_tc_forces(l, P, 0, 1);
}

template <int P, int Q, int U, int K> int nbody_gpu_tc_1xw(const struct nbody_gpu_launch *l)
{
	return nbody_tc_forces(l, P, 1, 0);
}

template <int P, int Q, int U, int K> int nbody_gpu_tc_1x(const struct nbody_gpu_launch *l)
{
	return nbody_tc_forces(l, P, 0, 0);
}

/* ---- auto --------------------------------------------------------------- */

/* The best variant measured for each N range on the H200 (the baseline
 * sweep, results/h200/baseline.csv): k = 1 keeps the most threads busy up
 * to N = 4096; from 8192 on k = 4 is best (by 0.5-5 % over k = 1 and k = 8).
 * Other devices use the same table. */
static const struct {
	int max_n;
	int variant;
} auto_table[] = {
	{ 1 << 12, NBODY_V_jsplit_k1 },
	{ INT_MAX, NBODY_V_jsplit_k4 },
};

/* The table's pick, unless it cannot take the launch: the tensor-core
 * family sorts every body it works on, so it takes no part of a problem
 * (pos_i, the ranks of the distributed variants, whose launches also
 * have no sort_scratch); jsplit-k4 of the kbody family does that. */
static int auto_pick(int variant, const struct nbody_gpu_launch *l)
{
	bool sorts = strcmp(nbody_variants[variant].family, "tensor-core") == 0;
	return sorts && (l->pos_i || !l->sort_scratch) ? NBODY_V_jsplit_k4 : variant;
}

template <int P, int Q, int U, int K> int nbody_gpu_auto(const struct nbody_gpu_launch *l)
{
	/* On part of the problem (a rank's share) the i-bodies decide: they
	 * set the blocks of the grid, which is what the table trades off. */
	int n = l->pos_i ? l->n_i : l->n;
	for (size_t k = 0; k < sizeof auto_table / sizeof auto_table[0]; k++)
		if (n <= auto_table[k].max_n)
			return nbody_gpu_launcher(auto_pick(auto_table[k].variant, l))(l);
	return (int)cudaErrorInvalidValue;
}

/* ---- the registry's launchers ------------------------------------------- */

#define GPU_LAUNCHER_VARIANT_CPU(impl, p, q, u, k) NULL
#define GPU_LAUNCHER_VARIANT_GPU(impl, p, q, u, k) &impl<p, q, u, k>

extern "C" nbody_gpu_fn nbody_gpu_launcher(int index)
{
	switch (index) {
#define NBODY_VARIANT(ident, name, family, prec, dev, p, q, u, k, impl, summary) \
	case NBODY_V_##ident:                                                    \
		return GPU_LAUNCHER_##dev(impl, p, q, u, k);
/* A distributed GPU line's launcher is its ranks' kernel. */
#define NBODY_DIST_VARIANT(ident, name, family, prec, dev, scheme, rank, impl, summary) \
	case NBODY_V_##ident:                                                           \
		return GPU_LAUNCHER_##dev(impl, 0, 1, 1, 1);
#include "../../variants/nbody.def"
#undef NBODY_VARIANT
#undef NBODY_DIST_VARIANT
	}
	return NULL;
}

/* ---- leapfrog ----------------------------------------------------------- */

template <class T4>
__global__ void kick_drift_kernel(T4 *pos, T4 *vel, const T4 *acc, int n, double dt)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	typedef decltype(pos->x) real;
	real h = (real)(0.5 * dt), d = (real)dt;
	T4 p = pos[i], v = vel[i], a = acc[i];
	v.x += a.x * h, v.y += a.y * h, v.z += a.z * h;
	p.x += v.x * d, p.y += v.y * d, p.z += v.z * d;
	pos[i] = p;
	vel[i] = v;
}

template <class T4> __global__ void kick_kernel(T4 *vel, const T4 *acc, int n, double dt)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	typedef decltype(vel->x) real;
	real h = (real)(0.5 * dt);
	T4 v = vel[i], a = acc[i];
	v.x += a.x * h, v.y += a.y * h, v.z += a.z * h;
	vel[i] = v;
}

extern "C" int nbody_gpu_kick_drift(void *pos, void *vel, const void *acc, int n, double dt,
				    int double_prec, void *stream)
{
	cudaStream_t st = (cudaStream_t)stream;
	if (double_prec)
		kick_drift_kernel<<<ceil_div(n, 256), 256, 0, st>>>((double4_ *)pos, (double4_ *)vel,
								    (const double4_ *)acc, n, dt);
	else
		kick_drift_kernel<<<ceil_div(n, 256), 256, 0, st>>>((float4 *)pos, (float4 *)vel,
								    (const float4 *)acc, n, dt);
	return launch_status();
}

extern "C" int nbody_gpu_kick(void *vel, const void *acc, int n, double dt, int double_prec,
			      void *stream)
{
	cudaStream_t st = (cudaStream_t)stream;
	if (double_prec)
		kick_kernel<<<ceil_div(n, 256), 256, 0, st>>>((double4_ *)vel, (const double4_ *)acc, n, dt);
	else
		kick_kernel<<<ceil_div(n, 256), 256, 0, st>>>((float4 *)vel, (const float4 *)acc, n, dt);
	return launch_status();
}
