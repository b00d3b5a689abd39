/* nbody_gpu_common.cuh - what the GPU N-body kernels share: the pair arithmetic and launch helpers */
#ifndef KERNELS_NBODY_GPU_COMMON_CUH
#define KERNELS_NBODY_GPU_COMMON_CUH

#include <cuda_runtime.h>

/* One MUFU.RSQ: about 2 ulp, flushes denormals (never seen here: the
 * argument is at least eps^2). */
__device__ __forceinline__ float rsqrt_approx(float x)
{
	float y;
	asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
	return y;
}

__device__ __forceinline__ float fma_(float a, float b, float c)
{
	return fmaf(a, b, c);
}

__device__ __forceinline__ double fma_(double a, double b, double c)
{
	return fma(a, b, c);
}

/* The pair of the newer variants, in float or double: 12 arithmetic
 * instructions and one reciprocal square root (Rsqrt::of), the same 20
 * flops by the chapter's count. */
template <class Rsqrt, class real, class real3, class real4>
__device__ __forceinline__ void pair_add(real3 &a, real3 xi, real4 bj, real eps2)
{
	// r_ij [3 FLOPS]
	real rx = bj.x - xi.x, ry = bj.y - xi.y, rz = bj.z - xi.z;
	// distSqr = EPS^2 + dot(r_ij, r_ij), one FMA chain [6 FLOPS]
	real d2 = fma_(rz, rz, fma_(ry, ry, fma_(rx, rx, eps2)));
	// invDist = 1/sqrt(distSqr) [2 FLOPS (1 sqrt, 1 inv): one rsqrt]
	real inv = Rsqrt::of(d2);
	// s = m_j * invDist^3 [3 FLOPS (2 mul for the cube, 1 for the mass)]
	real s = (bj.w * inv) * (inv * inv);
	// a_i = a_i + s * r_ij [6 FLOPS]
	a.x = fma_(rx, s, a.x);
	a.y = fma_(ry, s, a.y);
	a.z = fma_(rz, s, a.z);
}

/* The SFU's rsqrt, for pair_add. */
struct rsqrt_mufu {
	static __device__ __forceinline__ float of(float x) { return rsqrt_approx(x); }
};

/* ---- launch helpers ----------------------------------------------------- */

static inline int ceil_div(int a, int b)
{
	return (a + b - 1) / b;
}

/* 0 when the launch just queued went well, else the cudaError_t. */
static inline int launch_status(void)
{
	return (int)cudaGetLastError();
}

#define STREAM(l) ((cudaStream_t)(l)->stream)

#endif
