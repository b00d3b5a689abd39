/* morton.cuh - Morton (Z-order) keys of 10-bit cell coordinates, on the host and the device */
#ifndef KERNELS_SPH_MORTON_CUH
#define KERNELS_SPH_MORTON_CUH

#include <cuda_runtime.h>

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

#endif
