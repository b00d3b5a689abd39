/* sph_render.h - bin/harness sph render: frames of an SPH run through the rendering reference */
#ifndef HARNESS_SPH_RENDER_H
#define HARNESS_SPH_RENDER_H

/*
 * `harness sph render --variant V --column C --at STEPS --out DIR` runs
 * one SPH variant on one column and, at each step of --at, renders its
 * fluid with the double-precision pipeline of reference/render_ref.h
 * (surface particles, distance field, raycasting) into
 * DIR/<variant>-<column>-<step>.png. Each file is written atomically;
 * bad input (a resolution of 0 or beyond the limits, an unwritable
 * directory, an unknown variant) gets one line and exit 2 before anything
 * runs. argv[0] is "sph", argv[1] "render". Returns the exit status.
 */
int sph_render_command(int argc, char **argv);

#endif
