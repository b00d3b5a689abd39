/* sph_gpu.h - GPU SPH variants of the sorted-cells family (kernels/sph/sph_grid.cu) */
#ifndef KERNELS_SPH_GPU_H
#define KERNELS_SPH_GPU_H

#include "sph.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The step of reference/sph_ref.h in float, every phase on the device
 * (nothing goes back to the host inside a step). Each variant rebuilds a
 * neighbour-search structure of cells of side h (1 + 1e-6) every step,
 * reorders the particles by cell, and walks the 27 cells around each
 * particle with one thread per particle, once for densities and once for
 * forces:
 *
 *   sph_gpu_grid_radix_ops    sph-gpu-grid-radix: uniform grid over the
 *                             box, linear cell index, CUB radix sort of
 *                             (cell, slot), cell start/end found by
 *                             comparing neighbouring sorted keys (the CUDA
 *                             "particles" sample's method);
 *   sph_gpu_grid_count_ops    sph-gpu-grid-count: the same grid built by a
 *                             counting sort (atomic count per cell, CUB
 *                             exclusive scan, scatter; Hoetzlein 2014),
 *                             each cell's slice then put in slot order so
 *                             that results are deterministic;
 *   sph_gpu_zindex_cells_ops  sph-gpu-zindex-cells: particles sorted by the
 *                             30-bit Morton key of their cell, occupied
 *                             cells held as a compact sorted list of keys
 *                             searched by binary search.
 *
 * create() refuses (-1, one line in err) n == 0, n > INT_MAX, a parameter
 * that is not finite or not positive where it must be (h, mass, dt), a
 * non-finite position or velocity, a box with lo > hi, a grid of more than
 * 2^27 cells (grid variants) or more than 1024 cells a side (zindex-cells),
 * and CUDA failures (allocation included; nothing is left allocated).
 * steps() and evaluate() return -1 with error() set on a CUDA error or when
 * a position stops being finite; after that every call returns -1.
 * counts(): aux_bytes is every device byte beyond the particle state
 * (float4 position, float4 velocity, float density, float4 acceleration:
 * 52 bytes a particle), CUB's temporary storage included; overflow is
 * always 0. Results are deterministic: the same input gives the same bits
 * run after run.
 */
extern const struct sph_ops sph_gpu_grid_radix_ops;
extern const struct sph_ops sph_gpu_grid_count_ops;
extern const struct sph_ops sph_gpu_zindex_cells_ops;

#ifdef __cplusplus
}
#endif

#endif /* KERNELS_SPH_GPU_H */
