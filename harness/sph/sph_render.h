/* sph_render.h - bin/harness sph render: frames of an SPH run through the rendering reference */
#ifndef HARNESS_SPH_RENDER_H
#define HARNESS_SPH_RENDER_H

#include <stddef.h>

/*
 * `harness sph render --variant V --column C --at STEPS --out DIR` runs
 * one SPH variant on one column and, at each step of --at, renders its
 * fluid with the double-precision pipeline of reference/render_ref.h
 * (surface particles, distance field, raycasting) into
 * DIR/<variant>-<column>-<step>.png. Each file is written atomically;
 * bad input (a resolution of 0 or beyond the limits, an unwritable
 * directory, an unknown variant, a render larger than the memory
 * available) gets one line and exit 2 before anything runs. argv[0] is "sph", argv[1] "render". Returns the exit status.
 */
int sph_render_command(int argc, char **argv);

/*
 * What `sph render` holds in host memory, for its check before any work
 * (the render code's own reckoning, so that it needs nothing of the SPH
 * command's). Per fluid particle: the scene's positions and velocities
 * (32 bytes) and its share of the boundary particles (16), the CPU
 * variant's state (108), the positions read back (16) and, per frame, in
 * double (24), the surface flags (1) and the surface positions (at most
 * 24): 221, rounded up. Per voxel of the distance field: one double. Per
 * pixel: the image in double and, from the GPU, in float.
 */
#define SPH_RENDER_BYTES_PER_PARTICLE 256
#define SPH_RENDER_BYTES_PER_VOXEL 8
#define SPH_RENDER_BYTES_PER_PIXEL 36

/* Whether a render of particles, voxels (0 while the box is not known)
 * and pixels fits in this machine's memory (sysinfo_check_memory_plus);
 * 0, or -1 with one line in err naming what, both amounts and the most
 * particles that would fit. */
int sph_render_check_memory(const char *what, size_t particles, double voxels, double pixels,
			    char *err, size_t errlen);

#endif
