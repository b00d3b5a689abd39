/* sph_gpu2.h - GPU SPH variants of kernels/sph/sph_blocks.cu: zindex-blocks, grid-buckets, brute force */
#ifndef KERNELS_SPH_GPU2_H
#define KERNELS_SPH_GPU2_H

#include "sph.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The step of reference/sph_ref.h in float, every phase on the device, with
 * the density and force arithmetic of kernels/sph/sph_grid.cu:
 *
 *   sph_gpu_zindex_blocks_ops  sph-gpu-zindex-blocks: the method of Goswami
 *                              et al. (2010) section 3: 30-bit Morton keys
 *                              on a 1024^3 virtual grid, CUB radix sort,
 *                              aligned Morton blocks of side S >= h (S a
 *                              power of two) kept as a compact list, blocks
 *                              split into chunks of <= 64, one CUDA block
 *                              of 64 threads per chunk copying the 27
 *                              neighbouring blocks through shared memory;
 *   sph_gpu_grid_buckets_ops   sph-gpu-grid-buckets: cells of side h, each
 *                              a bucket of fixed capacity (32, or the
 *                              environment variable SPH_BUCKET_CAPACITY,
 *                              1 .. 4096, read by create()), filled by
 *                              atomicAdd; particles are not reordered;
 *   sph_gpu_brute_ops          sph-gpu-brute: all pairs, tiles of 256
 *                              particles through shared memory; create()
 *                              refuses n > 2,000,000.
 *
 * create() refuses (-1, one line in err) n == 0, n > INT_MAX, a parameter
 * that is not finite or not positive where it must be, a non-finite
 * position or velocity, a box with lo > hi, a bucket grid of more than
 * 2^27 cells or an invalid SPH_BUCKET_CAPACITY, and CUDA failures.
 * steps() and evaluate() return -1 with error() set on a CUDA error, when a
 * position stops being finite, or (grid-buckets) when a cell held more
 * particles than its bucket: then counts().overflow is 1, error() names the
 * count and the capacity, and every later call returns -1.
 * counts(): aux_bytes is every device byte beyond the particle state
 * (float4 position, velocity, acceleration, float density), CUB's
 * temporary storage and the whole bucket array included. Results are
 * deterministic.
 */
extern const struct sph_ops sph_gpu_zindex_blocks_ops;
extern const struct sph_ops sph_gpu_grid_buckets_ops;
extern const struct sph_ops sph_gpu_brute_ops;

#ifdef __cplusplus
}
#endif

#endif /* KERNELS_SPH_GPU2_H */
