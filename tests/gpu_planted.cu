/* gpu_planted.cu - deliberately broken GPU kernels the tests must catch */
#include <cuda_runtime.h>

#include "../kernels/nbody/nbody_gpu.h"

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

/* The tiled kernel with a bug chosen by mode:
 * 1: no barrier between loading a tile and reading it (a race);
 * 2: the tile loop stops one tile early (an off-by-one tile index). */
__global__ void planted_kernel(const float4 *pos, float4 *acc, int ntiles, float eps2, int mode)
{
	__shared__ float4 tile[PLANTED_P];
	int i = blockIdx.x * PLANTED_P + threadIdx.x;
	float4 bi = pos[i];
	float3 a = make_float3(0.0f, 0.0f, 0.0f);
	int last = mode == 2 ? ntiles - 1 : ntiles;
	for (int t = 0; t < last; t++) {
		tile[threadIdx.x] = pos[t * PLANTED_P + threadIdx.x];
		if (mode != 1)
			__syncthreads();
		for (int j = 0; j < PLANTED_P; j++)
			a = planted_pair(bi, tile[j], a, eps2);
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
	return planted_launch(l, 1);
}

extern "C" int planted_off_by_one_tile(const struct nbody_gpu_launch *l)
{
	return planted_launch(l, 2);
}
