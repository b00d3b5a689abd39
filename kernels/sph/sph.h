/* sph.h - what an SPH variant provides: one whole step, phase by phase */
#ifndef KERNELS_SPH_H
#define KERNELS_SPH_H

#include <stddef.h>

#include "../../reference/sph_ref.h"

/*
 * An SPH variant runs the step of reference/sph_ref.h in float on its own
 * copy of the particles, with the arithmetic of sph_physics.h: build its
 * neighbour-search structure over fluid and boundary particles, density
 * (poly6) and pressure (clamped at zero), forces (spiky pressure gradient,
 * viscosity Laplacian, the walls' boundary particles, gravity), then
 * symplectic Euler with the clamp. It may reorder particles internally;
 * everything it returns is in the caller's original order, fluid only.
 */

/* What a variant is created from (reference/sph_scene.h builds it). */
struct sph_input {
	size_t n;		/* fluid particles */
	const float *pos4, *vel4;	/* 4n each: (x, y, z, any) */
	size_t nb;		/* boundary particles, static */
	const float *bnd4;	/* 4nb: (x, y, z, psi_b / m) */
};

/* Seconds spent in each phase, added up over the steps run. */
struct sph_phase_times {
	double build_s, density_s, force_s, integrate_s;
};

/* What the last evaluate(count = 1) saw, and what the variant holds. */
struct sph_counts {
	size_t aux_bytes;               /* memory beyond pos, vel, rho, acc (n each) */
	unsigned long long candidates;  /* (i, j != i) pairs whose distance was computed in the density pass */
	unsigned long long neighbours;  /* of those, pairs with |x_i - x_j|^2 < h^2 */
	int overflow;                   /* a fixed-capacity structure dropped particles: the run is invalid */
	unsigned long long clamps;      /* coordinates the last-resort clamp put back on a wall, since create */
};

/*
 * Surface extraction (reference/render_ref.h, 4.1) with the variant's own
 * neighbour search, on the current positions: the structure is built on
 * them as a step would build it (a step after it finds the same state),
 * each fluid particle's fluid neighbours (j != i, r < h; walls are not
 * neighbours here) are counted and their offsets summed in float, and
 * the particles that meet the criterion are compacted (CUB's select on a
 * GPU) into pos4 in the variant's order.
 */
struct sph_surface_request {
	double com_threshold;	/* in: times h */
	double min_neighbours;	/* in: fewer is a surface particle */
	float *pos4;		/* out: 4 floats (x, y, z, 1) per surface particle, room
				 * for n; device memory for a GPU variant, host memory
				 * for a CPU one */
	unsigned char *flags;	/* out (NULL: not wanted), host, n bytes: 1 for a
				 * surface particle, in the caller's order */
	size_t count;		/* out: surface particles */
	double seconds;		/* out: the build, the criterion and the compaction
				 * (CUDA events on a GPU) */
};

struct sph_ops {
	/* Copies the particles and the parameters. 0, or -1 with one line
	 * in err (and *ctx NULL). */
	int (*create)(void **ctx, const struct sph_input *in, const struct sph_params *p,
		      char *err, size_t errlen);
	/* reps whole steps; each phase's time is added to *t. 0 or -1. */
	int (*steps)(void *ctx, int reps, struct sph_phase_times *t);
	/* Build, density and forces on the current positions, without moving
	 * them, counting candidate and neighbour pairs (fluid-fluid and
	 * fluid-boundary, i != j) when count != 0. */
	int (*evaluate)(void *ctx, int count);
	/* Current state in the original particle order; any pointer may be
	 * NULL. rho: n floats; the others 4n. */
	int (*read)(void *ctx, float *pos4, float *vel4, float *rho, float *acc4);
	void (*counts)(void *ctx, struct sph_counts *c);
	/* The last error as text. */
	const char *(*error)(void *ctx);
	void (*destroy)(void *ctx);
	/* Surface particles of the current positions (see above). 0 or -1. */
	int (*surface)(void *ctx, struct sph_surface_request *rq);
};

#endif
