/* gpu_planted.cu - deliberately broken GPU kernels the tests must catch */
#include <cuda_runtime.h>

#include "../../kernels/nbody/nbody_gpu.h"
#include "../../kernels/nbody/nbody_tc.cuh"

#define PLANTED_P 256

/* Listing 31-1's pair, in the newer form (the bug is elsewhere). */
__device__ __forceinline__ float3 planted_pair(float4 bi, float4 bj, float3 a, float eps2)
{
	float rx = bj.x - bi.x, ry = bj.y - bi.y, rz = bj.z - bi.z;
	float d2 = rx * rx + ry * ry + rz * rz + eps2;
	float inv = rsqrtf(d2);
	float s = bj.w * inv * inv * inv;
	a.x += rx * s, a.y += ry * s, a.z += rz * s;
	return a;
}

/* The bugs, one per mode of planted_kernel. */
enum planted_mode {
	PLANTED_MISSING_BARRIER = 1,  /* no barrier between loading a tile and reading it (read-after-write race) */
	PLANTED_OFF_BY_ONE_TILE = 2,  /* the tile loop stops one tile early */
	PLANTED_NO_TRAILING_BARRIER = 3, /* no barrier after reading a tile: the next tile's load
					  * overwrites shared memory while slower warps still read it
					  * (write-after-read race) */
	PLANTED_OFF_BY_ONE_IN_TILE = 4,  /* the loop over a tile stops one body short: the last
					  * body of every tile is skipped */
};

/* The tiled kernel (Listings 31-1 to 31-3, p = 256) with the bug of mode. */
__global__ void planted_kernel(const float4 *pos, float4 *acc, int ntiles, float eps2, int mode)
{
	__shared__ float4 tile[PLANTED_P];
	int i = blockIdx.x * PLANTED_P + threadIdx.x;
	float4 bi = pos[i];
	float3 a = make_float3(0.0f, 0.0f, 0.0f);
	int last = mode == PLANTED_OFF_BY_ONE_TILE ? ntiles - 1 : ntiles;
	int per_tile = mode == PLANTED_OFF_BY_ONE_IN_TILE ? PLANTED_P - 1 : PLANTED_P;
	for (int t = 0; t < last; t++) {
		tile[threadIdx.x] = pos[t * PLANTED_P + threadIdx.x];
		if (mode != PLANTED_MISSING_BARRIER)
			__syncthreads();
		for (int j = 0; j < per_tile; j++)
			a = planted_pair(bi, tile[j], a, eps2);
		if (mode != PLANTED_NO_TRAILING_BARRIER)
			__syncthreads();
	}
	acc[i] = make_float4(a.x, a.y, a.z, 0.0f);
}

static int planted_launch(const struct nbody_gpu_launch *l, int mode)
{
	int ntiles = (l->n + PLANTED_P - 1) / PLANTED_P;
	planted_kernel<<<ntiles, PLANTED_P, 0, (cudaStream_t)l->stream>>>(
		(const float4 *)l->pos, (float4 *)l->acc, ntiles, (float)l->eps2, mode);
	return (int)cudaGetLastError();
}

extern "C" int planted_missing_barrier(const struct nbody_gpu_launch *l)
{
	return planted_launch(l, PLANTED_MISSING_BARRIER);
}

extern "C" int planted_off_by_one_tile(const struct nbody_gpu_launch *l)
{
	return planted_launch(l, PLANTED_OFF_BY_ONE_TILE);
}

extern "C" int planted_no_trailing_barrier(const struct nbody_gpu_launch *l)
{
	return planted_launch(l, PLANTED_NO_TRAILING_BARRIER);
}

extern "C" int planted_off_by_one_in_tile(const struct nbody_gpu_launch *l)
{
	return planted_launch(l, PLANTED_OFF_BY_ONE_IN_TILE);
}

/* ---- the tensor-core formulation, broken (kernels/nbody/nbody_tc.cuh) ---- */

/* The warp's centre subtracted from the i side only: the expansion's
 * terms no longer describe r_ij, and every weight is wrong. */
extern "C" int planted_tc_one_side_shift(const struct nbody_gpu_launch *l)
{
	return tc_launch<1, TC_SHIFT_I_ONLY>(l);
}

/* No centre at all: the plain expansion |x_i|^2 + |x_j|^2 - 2 x_i . x_j
 * about the origin, whose terms grow with the distance from it (a
 * measurement of what the shift buys, with the same near pairs). */
extern "C" int planted_tc_unshifted(const struct nbody_gpu_launch *l)
{
	return tc_launch<1, TC_SHIFT_NONE>(l);
}
