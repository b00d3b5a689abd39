/* sph_gpu.h - the GPU SPH variants: one ops table each (kernels/sph/sph_*.cu) */
#ifndef KERNELS_SPH_GPU_H
#define KERNELS_SPH_GPU_H

#include "sph.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Every GPU variant runs the step of kernels/sph/sph_physics.h in float,
 * every phase on the device (nothing goes back to the host inside a
 * step), on the host plumbing of kernels/sph/sph_gpu_common.cuh; the
 * files differ only in how pairs are found:
 *
 *   sph_grid.cu     sph-gpu-grid-radix, sph-gpu-grid-count,
 *                   sph-gpu-zindex-cells: sorted cells of side h;
 *   sph_blocks.cu   sph-gpu-zindex-blocks (the paper's Z-index blocks),
 *                   sph-gpu-grid-buckets (fixed-capacity cells),
 *                   sph-gpu-brute (all pairs);
 *   sph_nlist.cu    sph-gpu-nlist, sph-gpu-verlet(-fine): neighbour lists from a
 *                   counting-sort grid, several threads per particle, the
 *                   whole step one CUDA graph.
 *
 * create() refuses (-1, one line in err, *ctx NULL) n == 0 or too many
 * particles for the method, parameters sph_consts_init refuses, a
 * non-finite position or velocity, a structure too large for the method,
 * and CUDA failures (allocation included; nothing is left allocated).
 * steps() and evaluate() return -1 with error() set on a CUDA error, when
 * a position stops being finite, or when a fixed-capacity structure
 * overflows (counts().overflow is then 1); after that every call returns
 * -1. counts(): aux_bytes is every device byte beyond the fluid state
 * (float4 position, velocity, acceleration, float density: 52 bytes a
 * particle), boundary particles, CUB's temporary storage and every index
 * included. Results are deterministic: the same input gives the same
 * bits run after run.
 */
extern const struct sph_ops sph_gpu_grid_radix_ops;
extern const struct sph_ops sph_gpu_grid_count_ops;
extern const struct sph_ops sph_gpu_zindex_cells_ops;
extern const struct sph_ops sph_gpu_zindex_blocks_ops;
extern const struct sph_ops sph_gpu_grid_buckets_ops;
extern const struct sph_ops sph_gpu_brute_ops;
extern const struct sph_ops sph_gpu_nlist_ops;
extern const struct sph_ops sph_gpu_verlet_ops;
extern const struct sph_ops sph_gpu_verlet_fine_ops;

#ifdef __cplusplus
}
#endif

#endif /* KERNELS_SPH_GPU_H */
