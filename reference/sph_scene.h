/* sph_scene.h - the dam-break scenes: a water column in a box lined with boundary particles */
#ifndef SPH_SCENE_H
#define SPH_SCENE_H

#include <stddef.h>
#include <stdint.h>

#include "sph_ref.h"

/*
 * Goswami et al. (2010) time "a water block collapsing due to gravity"
 * (their Figure 7, Tables 1 and 2) at 16,128, 75,200, 129,024 and 255,600
 * particles. Here that block is an nx x ny x nz lattice of spacing d in
 * the corner x, y, z = 0 of a box (tank) that is `tank` times the
 * column's width a = nx d long in x (4 for the paper's columns), exactly
 * as deep as the column in y and 2 nz d high: the water falls and runs
 * along x to the far wall.
 *
 * Every column is the same physical experiment at a different
 * resolution: the column is SPH_SCENE_WIDTH wide (d = width / nx), so
 * the 16,128 one has d = 1 cm and is 24 x 24 x 28 cm; the stiffness of
 * sph_params_water is sized for the column's height nz d.
 *
 * Walls. The floor, the four side walls and the lid (SPH_SCENE_LID: a
 * column's lid field opens it; without a lid the dam break's splashes
 * rise over the walls to the box's top, where the last-resort clamp
 * catches them: 176 coordinates over 3 s of flow at 16,128, none with
 * it, results/dev-cpu/sph-leak) are lined with boundary particles (Akinci 2012, reference/sph_ref.h), in
 * sph_scene_layers(c) parallel planes SPH_SCENE_BOUNDARY_SPACING d apart
 * (the first on the box's face, the others outside it, each plane's
 * rectangle grown to close the corners), each on a square
 * lattice of spacing ~SPH_SCENE_BOUNDARY_SPACING d in each wall plane
 * (stretched so that a whole number of it spans the wall exactly; psi
 * absorbs the difference), edges and corners sampled once. Why 0.75 d:
 * the wall's density at the water's first layer varies with the lateral
 * alignment of the two lattices, by +-0.5 % of rho0 at spacing d (enough
 * pressure, k 0.005 rho0, to stir still water more than its weight
 * does), +-0.1 % at 0.75 d and +-0.02 % at 0.5 d (measured with
 * sph_ref_wall_gap's sums); 0.75 d costs 1.8 times the particles of d. The water's first layer
 * sits sph_ref_wall_gap() (~1.22 d) from each wall, where the walls give
 * it rest density, so that the column starts at rest: particle (ix, iy,
 * iz) at box_lo + g + (ix, iy, iz) d + jitter, the jitter uniform in
 * +- c->jitter d (SPH_SCENE_JITTER for every column parsed: enough to
 * break the lattice's symmetry; 0 for water truly at rest, since a
 * jitter of 0.01 d alone spreads densities by +-0.8 %).
 *
 * Columns are named by their particle count (the paper's and larger
 * ones of the same shape, `martin-moyce` for the experiment of Martin
 * and Moyce 1952 with height = 2 x width), or given as NXxNYxNZ[@L]
 * (L: the tank's length in column widths, default 4; @0: a tank that
 * just fits the column, water at rest).
 */
#define SPH_SCENE_WIDTH		0.24
#define SPH_SCENE_MAX_SIDE	4096	/* nx, ny, nz in 1 .. this */
#define SPH_SCENE_MAX_PARTICLES	((size_t)1 << 27)	/* fluid, at most */
#define SPH_SCENE_MAX_ASPECT	8.0	/* nz <= this times nx */
#define SPH_SCENE_MAX_TANK	64.0	/* tank <= this many widths */
#define SPH_SCENE_JITTER	0.01	/* +- this times d on each coordinate */
#define SPH_SCENE_TANK		4.0	/* the paper's columns: 4 widths */
#ifndef SPH_SCENE_LID
#define SPH_SCENE_LID		1	/* 1: a lid of boundary particles closes the box */
#endif
#ifndef SPH_SCENE_TOP
#define SPH_SCENE_TOP		2.0	/* the walls rise this many times the column's height */
#endif
#define SPH_SCENE_MAX_TOP	8.0
#ifndef SPH_SCENE_BOUNDARY_SPACING
#define SPH_SCENE_BOUNDARY_SPACING 0.75	/* of the walls' lattice, times d */
#endif
#ifndef SPH_SCENE_WALL_LAYERS
#define SPH_SCENE_WALL_LAYERS	1	/* planes of boundary particles per wall */
#endif

/* One column: paper == 1 for the particle counts of Tables 1 and 2. */
struct sph_column {
	char name[48];		/* its particle count, a name, or NXxNYxNZ@L */
	int nx, ny, nz;
	int paper;
	double tank;		/* box length / (nx d); 0: the box fits */
	double jitter;		/* lattice jitter, +- this times d */
	int layers;		/* planes of boundary particles per wall,
				 * 1 .. SPH_REF_MAX_LAYERS; 0: SPH_SCENE_WALL_LAYERS */
	int lid;		/* 1: boundary particles close the box's top;
				 * -1: they do not; 0: SPH_SCENE_LID */
	double top;		/* the box's height over the column's,
				 * 1 .. SPH_SCENE_MAX_TOP; 0: SPH_SCENE_TOP */
};

/* The planes per wall column c has (its layers, or the default). */
int sph_scene_layers(const struct sph_column *c);

/*
 * The named columns, smallest first: the paper's four, larger ones of
 * the same shape (nz / nx ~ 7 / 6) up to 4.2 million, then
 * `martin-moyce`. Sets *count.
 */
const struct sph_column *sph_scene_columns(size_t *count);

/* The named column name, or NULL. */
const struct sph_column *sph_scene_column_find(const char *name);

/*
 * A column from its name or NXxNYxNZ[@L] into *c. Returns 0, or -1 with
 * one line in err naming what is allowed (an unknown name, a side
 * outside 1 .. SPH_SCENE_MAX_SIDE, more than SPH_SCENE_MAX_PARTICLES
 * particles, nz > SPH_SCENE_MAX_ASPECT nx, a tank shorter than the
 * column or longer than SPH_SCENE_MAX_TANK widths).
 */
int sph_scene_column_parse(const char *spec, struct sph_column *c,
			   char *err, size_t errlen);

/* nx ny nz as a size_t. */
size_t sph_scene_particles(int nx, int ny, int nz);

/* A built scene: what a variant is created from. */
struct sph_scene {
	struct sph_params p;	/* water and the box's walls */
	size_t n;		/* fluid particles */
	float *pos4, *vel4;	/* 4n each: (x, y, z, 0), zero velocity */
	size_t nb;		/* boundary particles */
	float *bnd4;		/* 4nb: (x, y, z, psi / m) */
	double gap;		/* wall to the first layer of water [m] */
	double width, height;	/* the water's extent a, H at rest [m] */
};

/*
 * The water's parameters and the box of column c into *p, as
 * sph_scene_build sets them, without the particles; returns the gap
 * from each wall to the first layer of water. c must be a column
 * sph_scene_column_parse accepts.
 */
double sph_scene_box(const struct sph_column *c, struct sph_params *p);

/*
 * Build column c with lattice jitter from seed (the same seed gives the
 * same floats): parameters, box, fluid and boundary particles with psi
 * (computed in double by sph_ref_boundary_psi, stored relative to m).
 * Returns 0, or -1 with one line in err (a column sph_scene_column_parse
 * would refuse, or out of memory); *s is then empty.
 */
int sph_scene_build(const struct sph_column *c, uint64_t seed,
		    struct sph_scene *s, char *err, size_t errlen);

/* Free the arrays of s (safe on an empty scene). */
void sph_scene_free(struct sph_scene *s);

/*
 * The surge of a collapsing column (Martin and Moyce 1952): the front,
 * the distance from the column's back wall to the leading edge of the
 * water along x, and the residual height at the back wall, each
 * measured from the water's edge at rest (gap - d / 2 from the wall) and
 * divided by the water's width a and height H at rest, so both start at
 * 1. The leading edge is that of the ny-th particle from the front (one
 * row across the tank: a few droplets ahead do not count), plus d / 2;
 * the height that of the ny-th highest particle within d of the back
 * wall's first layer, plus d / 2.
 */
void sph_scene_surge(const struct sph_scene *s, const float *pos4,
		     double *front, double *height);

#endif /* SPH_SCENE_H */
