/* sph_cpu.h - CPU SPH variants (sph-cpu-grid) */
#ifndef KERNELS_SPH_CPU_H
#define KERNELS_SPH_CPU_H

#include "sph.h"

/*
 * sph-cpu-grid: the step of reference/sph_ref.h in float on the CPU,
 * OpenMP over particles (single-threaded when built without -fopenmp, or
 * below 2048 particles), SSE2 on x86-64. A uniform grid of cells of side
 * h (1 + 1e-6) over the box (over the particles' bounds at create on an
 * axis where the box is open) is rebuilt every step by counting sort,
 * and the particles themselves are reordered by cell; read() returns
 * them in the caller's order. Results do not depend on the thread count.
 *
 * create() refuses (-1, one line in err, *ctx = NULL) n == 0,
 * n > UINT32_MAX, h, mass or dt not finite and > 0, constants that leave
 * float range, gravity not finite or a box bound NaN, box_lo > box_hi,
 * a grid of more than 2^27 cells, a non-finite position or velocity,
 * and allocation failure. steps() and evaluate() return -1 (error()
 * names the particle) when a position has stopped being finite.
 * counts(): aux_bytes is every byte held beyond the particle state
 * (positions, velocities, densities, accelerations, stored as structure
 * of arrays, 40 bytes a particle): grid, sort buffers, pressures, ids,
 * padding: 52 bytes a particle, 4 a cell and ~200 KB.
 */
extern const struct sph_ops sph_cpu_grid_ops;

#endif /* KERNELS_SPH_CPU_H */
