/* nbody_tc.cuh - the tensor-core force evaluation (tc-*), a template the library and the planted tests instantiate
 *
 * The formulation and its error argument are described in nbody_tc.cu;
 * this header holds the code so that tests/nbody/gpu_planted.cu can
 * build broken copies of it (the centre shifted on one side only, or on
 * neither) without a second copy of the kernel.
 */
#ifndef KERNELS_NBODY_TC_CUH
#define KERNELS_NBODY_TC_CUH

#include <cfloat>
#include <cstdint>
#include <cub/device/device_radix_sort.cuh>
#include <cuda_runtime.h>

#include "../sph/morton.cuh"
#include "nbody_gpu.h"
#include "nbody_gpu_common.cuh"

/* Where a warp's centre is subtracted: from both sides (the formulation);
 * the planted tests also build it subtracted from the i side only, and
 * from neither (the plain |x|^2 expansion about the origin). */
enum tc_shift { TC_SHIFT_BOTH, TC_SHIFT_I_ONLY, TC_SHIFT_NONE };

/* Which products are split into TF32 high and low parts (3xTF32): D =
 * r^2 + eps^2 (TC_SPLIT_D: hh + hl + lh, else hh alone: one product where
 * the split takes two) and the weights W in S = W B2 (TC_SPLIT_W: Wh B2 +
 * Wl B2, else W as the tensor cores read it, its low 13 bits cut: one
 * product where the split takes two). TC_SPLIT_BOTH is the formulation
 * that validates within the float bound; the others trade accuracy for
 * speed (the tf32 variants). */
enum tc_split { TC_SPLIT_NONE = 0, TC_SPLIT_D = 1, TC_SPLIT_W = 2, TC_SPLIT_BOTH = 3 };

#define TC_WARPS 4 /* warps per block, each on its own group of bodies */

/* A pair is near, and computed in FP32 instead (pair_add), when
 * r^2 + eps^2 < TC_NEAR R^2, R the radius of the warp's group about its
 * centre: every other pair has r^2 + eps^2 >= R^2 / 16, which bounds the
 * cancellation of the expanded r^2 (see nbody_tc.cu). */
#define TC_NEAR 0.0625f

#define TC_ALIGN 256 /* bytes, for each piece of the scratch */

/* j-blocks of 8 bodies summed on their own before they join a warp's
 * total. One FP32 sum over every block along the Morton order carries an
 * error that grows with N, not as its square root: the blocks come
 * sorted in space, so the running sum holds the pull of a whole side at
 * once and each addition rounds against that. Measured on the H200
 * (tc-3x-p64, one sum): max_norm 4.2e-6 at 2^14, 1.1e-4 at 2^20, 3.6e-4
 * at 2^22, which would cross the tolerance past 2^23. A CPU emulation of
 * the sums alone (tests/nbody/emulation/tc_sums.c, its output in
 * results/dev-cpu/tc-sum-emulation.txt: exact block sums, float running
 * sums, Plummer, 80 bodies checked) gives 2.7e-6, 3.8e-5 and 2.3e-4 with one sum; with
 * chunks of 128 blocks 0.4e-6, 1.1e-6 and 3.7e-6 (32 blocks: 0.8e-6,
 * 1.6e-6 at 2^20). */
#define TC_CHUNK 128

/* The pieces of sort_scratch: Morton keys and the order, each twice (the
 * radix sort's input and output), the sorted bodies, their bounding box
 * (lo[3], hi[3]) and the radix sort's own scratch. */
struct tc_scratch {
	unsigned *key[2], *order[2];
	float4 *sorted;
	float *box;
	void *cub;
	size_t cub_bytes;
};

static inline size_t tc_align(size_t bytes)
{
	return (bytes + TC_ALIGN - 1) / TC_ALIGN * TC_ALIGN;
}

/* The radix sort's scratch for up to n_alloc 30-bit keys; 0 when the
 * query fails. Asked once per n_alloc. */
static size_t tc_cub_bytes(int n_alloc)
{
	static int asked = -1;
	static size_t bytes;
	if (asked != n_alloc) {
		bytes = 0;
		if (cub::DeviceRadixSort::SortPairs(NULL, bytes, (const unsigned *)NULL, (unsigned *)NULL,
						    (const unsigned *)NULL, (unsigned *)NULL, n_alloc, 0,
						    30) != cudaSuccess)
			bytes = 0;
		asked = n_alloc;
	}
	return bytes;
}

/* Lays the pieces out from base (which may be 0: sizes only) and returns
 * the bytes they take. */
static size_t tc_scratch_carve(uintptr_t base, int n_alloc, size_t cub_bytes, struct tc_scratch *s)
{
	const size_t idx = tc_align((size_t)n_alloc * sizeof(unsigned));
	size_t off = 0;
	for (int k = 0; k < 2; k++) {
		s->key[k] = (unsigned *)(base + off);
		off += idx;
		s->order[k] = (unsigned *)(base + off);
		off += idx;
	}
	s->sorted = (float4 *)(base + off);
	off += tc_align((size_t)n_alloc * sizeof(float4));
	s->box = (float *)(base + off);
	off += TC_ALIGN;
	s->cub = (void *)(base + off);
	s->cub_bytes = cub_bytes;
	return off + tc_align(cub_bytes);
}

/* ---- sorting ------------------------------------------------------------- */

__device__ __forceinline__ float tc_warp_min(float v)
{
	for (int o = 16; o; o >>= 1)
		v = fminf(v, __shfl_xor_sync(0xffffffffu, v, o));
	return v;
}

__device__ __forceinline__ float tc_warp_max(float v)
{
	for (int o = 16; o; o >>= 1)
		v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
	return v;
}

/* The bounding box of the n bodies at pos into box (lo[3], hi[3]); one
 * block of 1024 threads (32 warps). */
static __global__ void __launch_bounds__(1024) tc_box_kernel(const float4 *__restrict__ pos, int n,
						      float *__restrict__ box)
{
	__shared__ float part[6][32];
	float v[6] = { FLT_MAX, FLT_MAX, FLT_MAX, -FLT_MAX, -FLT_MAX, -FLT_MAX };
	for (int i = threadIdx.x; i < n; i += blockDim.x) {
		float4 p = pos[i];
		v[0] = fminf(v[0], p.x), v[1] = fminf(v[1], p.y), v[2] = fminf(v[2], p.z);
		v[3] = fmaxf(v[3], p.x), v[4] = fmaxf(v[4], p.y), v[5] = fmaxf(v[5], p.z);
	}
	const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
	for (int k = 0; k < 6; k++) {
		v[k] = k < 3 ? tc_warp_min(v[k]) : tc_warp_max(v[k]);
		if (lane == 0)
			part[k][warp] = v[k];
	}
	__syncthreads();
	if (warp != 0)
		return;
	for (int k = 0; k < 6; k++) {
		float x = part[k][lane];
		x = k < 3 ? tc_warp_min(x) : tc_warp_max(x);
		if (lane == 0)
			box[k] = x;
	}
}

/* Each body's Morton key on a grid of 1024^3 cubic cells over the box's
 * longest side, and the identity order to sort along with the keys. */
static __global__ void tc_key_kernel(const float4 *__restrict__ pos, int n, const float *__restrict__ box,
			      unsigned *__restrict__ key, unsigned *__restrict__ order)
{
	const int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	const float side = fmaxf(fmaxf(box[3] - box[0], box[4] - box[1]), box[5] - box[2]);
	const float scale = side > 0.0f ? 1024.0f / side : 0.0f;
	const float4 p = pos[i];
	const float x[3] = { p.x, p.y, p.z };
	unsigned c[3];
	for (int k = 0; k < 3; k++) {
		float u = (x[k] - box[k]) * scale;
		c[k] = u >= 1023.0f ? 1023u : u > 0.0f ? (unsigned)u : 0u;
	}
	key[i] = morton_encode3(c[0], c[1], c[2]);
	order[i] = (unsigned)i;
}

/* sorted[k] = pos[order[k]] for k < n, then zero-mass bodies at the
 * origin up to n8 (the last j-block's padding contributes exactly 0). */
static __global__ void tc_gather_kernel(const float4 *__restrict__ pos, const unsigned *__restrict__ order,
				 int n, int n8, float4 *__restrict__ sorted)
{
	const int k = blockIdx.x * blockDim.x + threadIdx.x;
	if (k < n8)
		sorted[k] = k < n ? pos[order[k]] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
}

/* ---- the tensor-core pieces --------------------------------------------- */

/* x rounded to TF32 (10 mantissa bits, to nearest, ties away from zero),
 * as cvt.rna.tf32.f32 rounds a finite x (an infinity stays one) but in two
 * integer instructions where cvt adds a test for infinity: the tensor
 * cores then read it exactly. A low part x - tf32_round(x) is passed as
 * it is: the tensor cores read its 19 high bits, which loses at most
 * 2^-11 of it, 2^-23 of x. */
__device__ __forceinline__ float tf32_round(float x)
{
	return __uint_as_float((__float_as_uint(x) + 0x1000u) & 0xffffe000u);
}

/* d = a b + c on one 16 x 8 x 8 TF32 tile of the warp, in the PTX ISA's
 * fragment layout (g = lane / 4, t = lane % 4): a = A(g, t), A(g + 8, t),
 * A(g, t + 4), A(g + 8, t + 4); b = B(t, g), B(t + 4, g); c and d =
 * C(g, 2t), C(g, 2t + 1), C(g + 8, 2t), C(g + 8, 2t + 1). */
__device__ __forceinline__ void mma_tf32(float d[4], const float a[4], const float b[2], const float c[4])
{
	asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 "
	    "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};"
	    : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
	    : "r"(__float_as_uint(a[0])), "r"(__float_as_uint(a[1])), "r"(__float_as_uint(a[2])),
	      "r"(__float_as_uint(a[3])), "r"(__float_as_uint(b[0])), "r"(__float_as_uint(b[1])),
	      "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3]));
}

/* Component k (0..2) of v; 0 for k = 3. */
__device__ __forceinline__ float tc_component(float3 v, int k)
{
	return k == 0 ? v.x : k == 1 ? v.y : k == 2 ? v.z : 0.0f;
}

/* The centre of the warp's group (the middle of the bounding box of its
 * real bodies, rows i0 .. i0 + rows - 1 below n) and the largest squared
 * distance of one of them from it. */
template <int ROWS>
__device__ void tc_group_centre(const float4 *__restrict__ sorted, int i0, int n, int lane,
				float3 *centre, float *r2)
{
	const int per_lane = (ROWS + 31) / 32;
	float4 p[per_lane];
	bool real[per_lane];
	float lo[3] = { FLT_MAX, FLT_MAX, FLT_MAX }, hi[3] = { -FLT_MAX, -FLT_MAX, -FLT_MAX };
	for (int k = 0; k < per_lane; k++) {
		const int r = lane + 32 * k;
		real[k] = r < ROWS && i0 + r < n;
		p[k] = real[k] ? sorted[i0 + r] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
		if (real[k]) {
			lo[0] = fminf(lo[0], p[k].x), lo[1] = fminf(lo[1], p[k].y), lo[2] = fminf(lo[2], p[k].z);
			hi[0] = fmaxf(hi[0], p[k].x), hi[1] = fmaxf(hi[1], p[k].y), hi[2] = fmaxf(hi[2], p[k].z);
		}
	}
	float c[3];
	for (int d = 0; d < 3; d++)
		c[d] = 0.5f * tc_warp_min(lo[d]) + 0.5f * tc_warp_max(hi[d]);
	float m = 0.0f;
	for (int k = 0; k < per_lane; k++) {
		const float dx = p[k].x - c[0], dy = p[k].y - c[1], dz = p[k].z - c[2];
		if (real[k])
			m = fmaxf(m, fmaf(dz, dz, fmaf(dy, dy, dx * dx)));
	}
	*centre = make_float3(c[0], c[1], c[2]);
	*r2 = tc_warp_max(m);
}

/*
 * One warp per group of 16 M sorted bodies (M tiles of 16 rows sharing
 * one centre and the j side's fragments); j in blocks of 8 over 0 .. n8.
 * Per tile and j-block, in the layout of mma_tf32 (row g, column j):
 *
 *   D = r^2 + eps^2 as two products over k = 0..15 (x' = x - centre,
 *       h and l the TF32 high and low parts, q = |x'_j|^2 + eps^2):
 *         A(i) = [-2x'h -2y'h -2z'h 1 | -2x'h -2y'h -2z'h 1 ]  B(j) = [x'h y'h z'h qh | x'l y'l z'l ql]
 *         A(i) = [-2x'l -2y'l -2z'l 0 | nh nl 0 0 ]            B(j) = [x'h y'h z'h qh | 1 1 1 1]
 *       with n = |x'_i|^2: the three cross terms hh + hl + lh, both norms
 *       to 22 bits. Thread t's B values are those of body g, component t
 *       (q at t = 3): two TF32 roundings for both products.
 *   W = D^(-3/2) elementwise (one rsqrt, two multiplies), 0 for near
 *       pairs (and the self term), which pair_add computes in FP32.
 *   S = W B2 with B2 row j = [m x'h, m y'h, m z'h, m h | the same, low]
 *       (the low parts in columns 4..7, so Wh B2 + Wl B2 is hh + hl + lh
 *       + ll), the k index permuted (k = t: j = 2t; k = t + 4: j = 2t + 1)
 *       so that W's C fragment is already the A fragment. Each j-block's
 *       S is added to FP32 accumulators outside the tensor cores (whose
 *       own accumulation rounds toward zero).
 *   a_i = S_xyz - x'_i S_m, at the end, after the four column groups are
 *       gathered with shuffles.
 * Without TC_SPLIT_D, D is the one product A(i) = [-2x'h -2y'h -2z'h 1 |
 * nh nl 0 0] B(j) = [x'h y'h z'h qh | 1 1 1 1]; without TC_SPLIT_W, S is
 * W B2 in one product.
 */
template <int M, int SHIFT, int SPLIT>
__global__ void __launch_bounds__(32 * TC_WARPS)
	tc_kernel(const float4 *__restrict__ sorted, const unsigned *__restrict__ order,
		  float4 *__restrict__ acc, int n, int n8, float eps2)
{
	const int lane = threadIdx.x & 31, g = lane >> 2, t = lane & 3;
	const int i0 = (blockIdx.x * TC_WARPS + (threadIdx.x >> 5)) * 16 * M;
	if (i0 >= n)
		return;
	float3 centre;
	float r2;
	tc_group_centre<16 * M>(sorted, i0, n, lane, &centre, &r2);
	const float thr = TC_NEAR * r2;
	const float3 zero = make_float3(0.0f, 0.0f, 0.0f);
	const float3 ci = SHIFT == TC_SHIFT_NONE ? zero : centre;
	const float3 cj = SHIFT == TC_SHIFT_BOTH ? centre : zero;

	/* i side: rows g and g + 8 of each tile (past n: the centre itself) */
	float3 xi[M][2];
	float a1[M][4], a2[M][4];
#pragma unroll
	for (int m = 0; m < M; m++)
#pragma unroll
		for (int h = 0; h < 2; h++) {
			const int row = i0 + 16 * m + g + 8 * h;
			const float4 p = row < n ? sorted[row] : make_float4(centre.x, centre.y, centre.z, 0.0f);
			xi[m][h] = make_float3(p.x, p.y, p.z);
			const float3 d = make_float3(p.x - ci.x, p.y - ci.y, p.z - ci.z);
			const float nn = fmaf(d.z, d.z, fmaf(d.y, d.y, d.x * d.x));
			const float v = tc_component(d, t), vh = tf32_round(v), vl = v - vh;
			const float nh = tf32_round(nn), nl = nn - nh;
			a1[m][h] = a1[m][2 + h] = t < 3 ? -2.0f * vh : 1.0f;
			a2[m][h] = t < 3 ? -2.0f * vl : 0.0f;
			a2[m][2 + h] = t == 0 ? nh : t == 1 ? nl : 0.0f;
		}

	/* j side: what this thread reads of B2 (column g: component g % 4,
	 * the high part for g < 4, the low part for g >= 4) */
	const int comp = g & 3;
	const bool low = g >= 4;
	const float scale = comp < 3 ? 1.0f : 0.0f, offset = comp < 3 ? -tc_component(cj, comp) : 1.0f;

	float sum[M][4];
	float3 near_sum[M][2];
#pragma unroll
	for (int m = 0; m < M; m++) {
#pragma unroll
		for (int e = 0; e < 4; e++)
			sum[m][e] = 0.0f;
#pragma unroll
		for (int h = 0; h < 2; h++)
			near_sum[m][h] = zero;
	}
	const float zero4[4] = { 0.0f, 0.0f, 0.0f, 0.0f };

	/* Two levels: each chunk of TC_CHUNK j-blocks is summed on its own,
	 * then added to sum. Along the Morton order one FP32 sum of every
	 * block's S drifts (its running value is large: all of one side of
	 * the body comes first), by an error that grows with N; see TC_CHUNK. */
	for (int jc = 0; jc < n8; jc += 8 * TC_CHUNK) {
		float part[M][4];
#pragma unroll
		for (int m = 0; m < M; m++)
#pragma unroll
			for (int e = 0; e < 4; e++)
				part[m][e] = 0.0f;
		const int jend = min(n8, jc + 8 * TC_CHUNK);
		for (int jb = jc; jb < jend; jb += 8) {
			/* B of the first product: body jb + g, component t, or q */
			const float4 pg = sorted[jb + g];
			const float3 dj = make_float3(pg.x - cj.x, pg.y - cj.y, pg.z - cj.z);
			const float q = fmaf(dj.z, dj.z, fmaf(dj.y, dj.y, fmaf(dj.x, dj.x, eps2)));
			const float v = t < 3 ? tc_component(dj, t) : q;
			const float vh = tf32_round(v);
			const float b1[2] = { vh, v - vh }, b2[2] = { vh, 1.0f };
			/* B2: bodies jb + 2t (k = t) and jb + 2t + 1 (k = t + 4) */
			float bs[2];
#pragma unroll
			for (int e = 0; e < 2; e++) {
				const float *pj = (const float *)&sorted[jb + 2 * t + e];
				const float mass = pj[3];
				const float val = fmaf(pj[comp], scale, offset) * mass; /* m x'_comp, or m */
				const float valh = tf32_round(val);
				bs[e] = low ? val - valh : valh;
			}

#pragma unroll
			for (int m = 0; m < M; m++) {
				float d[4];
				if (SPLIT & TC_SPLIT_D) {
					mma_tf32(d, a1[m], b1, zero4);
					mma_tf32(d, a2[m], b2, d);
				} else {
					const float a0[4] = { a1[m][0], a1[m][1], a2[m][2], a2[m][3] };
					mma_tf32(d, a0, b2, zero4);
				}
				/* W = D^(-3/2); near pairs and self terms: 0 here, FP32 there */
				float w[4];
#pragma unroll
				for (int e = 0; e < 4; e++) {
					const float y = rsqrt_approx(d[e]);
					w[e] = (y * y) * y;
				}
				const float dmin = fminf(fminf(d[0], d[1]), fminf(d[2], d[3]));
				const int off = jb - i0 - 16 * m;
				const bool own = off == 0 || off == 8; /* the same for the whole warp */
				if (own || __any_sync(0xffffffffu, dmin < thr)) {
					const float4 pj[2] = { sorted[jb + 2 * t], sorted[jb + 2 * t + 1] };
#pragma unroll
					for (int e = 0; e < 4; e++) {
						const bool self = own && g + 8 * (e >> 1) == 2 * t + (e & 1) + off;
						if (d[e] < thr || self) {
							pair_add<rsqrt_mufu>(near_sum[m][e >> 1], xi[m][e >> 1], pj[e & 1], eps2);
							w[e] = 0.0f;
						}
					}
				}
				/* split, and W's C fragment read as the A fragment: C(g, 2t + 1) is A(g, t + 4) */
				float wh[4], wl[4];
#pragma unroll
				for (int e = 0; e < 4; e++) {
					const int k = (e & 1) * 2 + (e >> 1);
					wh[k] = SPLIT & TC_SPLIT_W ? tf32_round(w[e]) : w[e];
					wl[k] = w[e] - wh[k];
				}
				float s[4];
				mma_tf32(s, wh, bs, zero4);
				if (SPLIT & TC_SPLIT_W)
					mma_tf32(s, wl, bs, s);
#pragma unroll
				for (int e = 0; e < 4; e++)
					part[m][e] += s[e];
			}
		}
#pragma unroll
		for (int m = 0; m < M; m++)
#pragma unroll
			for (int e = 0; e < 4; e++)
				sum[m][e] += part[m][e];
	}

	/* Columns 2t, 2t + 1 of rows g, g + 8 -> (Sx, Sy, Sz, Sm) of both rows */
#pragma unroll
	for (int m = 0; m < M; m++) {
		float s[4], o[4];
#pragma unroll
		for (int e = 0; e < 4; e++)
			s[e] = sum[m][e] + __shfl_xor_sync(0xffffffffu, sum[m][e], 2);
#pragma unroll
		for (int e = 0; e < 4; e++)
			o[e] = __shfl_xor_sync(0xffffffffu, s[e], 1);
#pragma unroll
		for (int h = 0; h < 2; h++) {
			float f[3] = { near_sum[m][h].x, near_sum[m][h].y, near_sum[m][h].z };
#pragma unroll
			for (int c = 0; c < 3; c++) {
				f[c] += __shfl_xor_sync(0xffffffffu, f[c], 1);
				f[c] += __shfl_xor_sync(0xffffffffu, f[c], 2);
			}
			const bool odd = t & 1; /* holds columns 2, 3 (z, m) itself */
			const float sx = odd ? o[2 * h] : s[2 * h], sy = odd ? o[2 * h + 1] : s[2 * h + 1];
			const float sz = odd ? s[2 * h] : o[2 * h], sm = odd ? s[2 * h + 1] : o[2 * h + 1];
			const int row = i0 + 16 * m + g + 8 * h;
			if (t != h || row >= n)
				continue;
			const float3 x = make_float3(xi[m][h].x - ci.x, xi[m][h].y - ci.y, xi[m][h].z - ci.z);
			acc[order[row]] = make_float4(fmaf(-x.x, sm, sx) + f[0], fmaf(-x.y, sm, sy) + f[1],
						      fmaf(-x.z, sm, sz) + f[2], 0.0f);
		}
	}
}

/* Sorts the bodies of l along the Morton curve into the scratch, then
 * runs tc_kernel<M, SHIFT, SPLIT> on them; accelerations land in the
 * caller's order. Returns 0 or a cudaError_t value. */
template <int M, int SHIFT, int SPLIT = TC_SPLIT_BOTH> static int tc_launch(const struct nbody_gpu_launch *l)
{
	if (l->pos_i || !l->sort_scratch || !(l->eps2 >= 1e-24))
		return (int)cudaErrorInvalidValue;
	const size_t cub_bytes = tc_cub_bytes(l->n_alloc);
	if (!cub_bytes)
		return (int)cudaErrorInvalidValue;
	struct tc_scratch s;
	tc_scratch_carve((uintptr_t)l->sort_scratch, l->n_alloc, cub_bytes, &s);
	const float4 *pos = (const float4 *)l->pos;
	const int n = l->n, n8 = ceil_div(n, 8) * 8;
	cudaStream_t st = STREAM(l);
	tc_box_kernel<<<1, 1024, 0, st>>>(pos, n, s.box);
	tc_key_kernel<<<ceil_div(n, 256), 256, 0, st>>>(pos, n, s.box, s.key[0], s.order[0]);
	size_t bytes = s.cub_bytes;
	cudaError_t rc = cub::DeviceRadixSort::SortPairs(s.cub, bytes, s.key[0], s.key[1], s.order[0],
							 s.order[1], n, 0, 30, st);
	if (rc != cudaSuccess)
		return (int)rc;
	tc_gather_kernel<<<ceil_div(n8, 256), 256, 0, st>>>(pos, s.order[1], n, n8, s.sorted);
	const int groups = ceil_div(n, 16 * M);
	tc_kernel<M, SHIFT, SPLIT><<<ceil_div(groups, TC_WARPS), 32 * TC_WARPS, 0, st>>>(
		s.sorted, s.order[1], (float4 *)l->acc, n, n8, (float)l->eps2);
	return launch_status();
}

#endif
