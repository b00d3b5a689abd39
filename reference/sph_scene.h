/* sph_scene.h - the dam-break scene: a collapsing water column in a box */
#ifndef SPH_SCENE_H
#define SPH_SCENE_H

#include <stddef.h>
#include <stdint.h>

#include "sph_ref.h"

/*
 * Goswami et al. (2010) time "a water block collapsing due to gravity"
 * (their Figure 7, Tables 1 and 2) at 16,128, 75,200, 129,024 and 255,600
 * particles. Here that block is an nx x ny x nz lattice of spacing d in
 * the corner x, y, z = 0 of a box of 4 nx d x ny d x 2 nz d: four times
 * as long as the column in x, as deep as it in y, twice as high, so the
 * water falls and runs along x to the far wall.
 *
 * Every column is the same physical experiment at a different
 * resolution: the column is SPH_SCENE_WIDTH wide (d = width / nx), so
 * the 16,128 one has d = 1 cm and is 24 x 24 x 28 cm, and the stiffness
 * of sph_params_water (sized for columns up to SPH_WATER_HMAX tall) holds
 * for all of them. Hence nz <= SPH_SCENE_MAX_ASPECT nx.
 */
#define SPH_SCENE_WIDTH		0.24
#define SPH_SCENE_MAX_ASPECT	1.25	/* 0.24 * 1.25 = SPH_WATER_HMAX */
#define SPH_SCENE_MAX_SIDE	4096	/* nx, ny, nz in 1 .. this */
#define SPH_SCENE_JITTER	0.01	/* +- this times d on each coordinate */

/* One column: paper == 1 for the particle counts of Tables 1 and 2. */
struct sph_column {
	const char *name;	/* its particle count, in decimal */
	int nx, ny, nz;
	int paper;
};

/*
 * The columns benchmarked, smallest first: the paper's four, then larger
 * ones of the same shape (nz / nx ~ 7 / 6) up to 4.2 million. Sets *count.
 */
const struct sph_column *sph_scene_columns(size_t *count);

/* The column whose name is name, or NULL. */
const struct sph_column *sph_scene_column_find(const char *name);

/* nx ny nz as a size_t. */
size_t sph_scene_particles(int nx, int ny, int nz);

/* The box of an nx x ny x nz column of spacing d: lo = 0,
 * hi = (4 nx d, ny d, 2 nz d). */
void sph_scene_box(int nx, int ny, int nz, double spacing, double lo[3],
		   double hi[3]);

/*
 * The water parameters (sph_params_water) at the spacing of an
 * nx x ny x nz column, with the walls of its box. Returns 0, or -1
 * (writing nothing) when a side is outside 1 .. SPH_SCENE_MAX_SIDE or
 * nz > SPH_SCENE_MAX_ASPECT nx.
 */
int sph_scene_params(int nx, int ny, int nz, struct sph_params *p);

/*
 * Fill pos4 = (x, y, z, 0) and vel4 = 0, 4 nx ny nz floats each: particle
 * ix + nx (iy + ny iz) at box_lo + ((ix, iy, iz) + 0.5 + jitter) d, the
 * jitter uniform in +-SPH_SCENE_JITTER d, drawn from seed three per
 * particle in index order (the same seed gives the same floats). d and
 * the box come from p. Returns 0, or -1 (writing nothing) when a side is
 * outside 1 .. SPH_SCENE_MAX_SIDE, p->spacing is not > 0, or the column
 * does not fit in p's box.
 */
int sph_scene_dam_break(int nx, int ny, int nz, uint64_t seed,
			const struct sph_params *p, float *pos4, float *vel4);

#endif /* SPH_SCENE_H */
