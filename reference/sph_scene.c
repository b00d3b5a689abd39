/* sph_scene.c - the dam-break scene: a collapsing water column in a box */
#include "sph_scene.h"

#include <string.h>

#include "rng.h"

/*
 * To add a column, add a line (name = its particle count); keep
 * nz <= 1.25 nx and the list in ascending order.
 */
static const struct sph_column sph_scene_column_table[] = {
	/* Goswami et al. 2010, Tables 1 and 2 */
	{ "16128", 24, 24, 28, 1 },
	{ "75200", 40, 40, 47, 1 },
	{ "129024", 48, 48, 56, 1 },
	{ "255600", 60, 60, 71, 1 },
	/* larger, same shape: 0.5 M; ~1 M (the paper's "1M particles"
	 * comparison with [HKK07b]); 2 M; 4.2 M */
	{ "514064", 76, 76, 89, 0 },
	{ "1032192", 96, 96, 112, 0 },
	{ "2016000", 120, 120, 140, 0 },
	{ "4207500", 150, 150, 187, 0 },
};

const struct sph_column *sph_scene_columns(size_t *count)
{
	*count = sizeof sph_scene_column_table /
		 sizeof sph_scene_column_table[0];
	return sph_scene_column_table;
}

const struct sph_column *sph_scene_column_find(const char *name)
{
	size_t count;
	const struct sph_column *c = sph_scene_columns(&count);

	for (size_t k = 0; name && k < count; k++)
		if (strcmp(c[k].name, name) == 0)
			return &c[k];
	return NULL;
}

size_t sph_scene_particles(int nx, int ny, int nz)
{
	return (size_t)nx * (size_t)ny * (size_t)nz;
}

static int sph_scene_sides_ok(int nx, int ny, int nz)
{
	return nx >= 1 && ny >= 1 && nz >= 1 && nx <= SPH_SCENE_MAX_SIDE &&
	       ny <= SPH_SCENE_MAX_SIDE && nz <= SPH_SCENE_MAX_SIDE;
}

void sph_scene_box(int nx, int ny, int nz, double spacing, double lo[3],
		   double hi[3])
{
	lo[0] = lo[1] = lo[2] = 0.0;
	hi[0] = 4.0 * nx * spacing;
	hi[1] = ny * spacing;
	hi[2] = 2.0 * nz * spacing;
}

int sph_scene_params(int nx, int ny, int nz, struct sph_params *p)
{
	if (!sph_scene_sides_ok(nx, ny, nz) ||
	    nz > SPH_SCENE_MAX_ASPECT * nx)
		return -1;
	sph_params_water(p, SPH_SCENE_WIDTH / nx);
	sph_scene_box(nx, ny, nz, p->spacing, p->box_lo, p->box_hi);
	return 0;
}

int sph_scene_dam_break(int nx, int ny, int nz, uint64_t seed,
			const struct sph_params *p, float *pos4, float *vel4)
{
	const int side[3] = { nx, ny, nz };
	const double d = p->spacing;
	struct rng r;
	size_t i = 0;

	if (!sph_scene_sides_ok(nx, ny, nz) || !(d > 0.0))
		return -1;
	for (int c = 0; c < 3; c++)
		if (!(p->box_lo[c] + side[c] * d <= p->box_hi[c]))
			return -1;

	rng_seed(&r, seed);
	for (int iz = 0; iz < nz; iz++)
	for (int iy = 0; iy < ny; iy++)
	for (int ix = 0; ix < nx; ix++, i++) {
		const int cell[3] = { ix, iy, iz };

		for (int c = 0; c < 3; c++) {
			const double jit = SPH_SCENE_JITTER *
					   (2.0 * rng_uniform(&r) - 1.0);

			pos4[4 * i + c] = (float)(p->box_lo[c] +
						  (cell[c] + 0.5 + jit) * d);
			vel4[4 * i + c] = 0.0f;
		}
		pos4[4 * i + 3] = 0.0f;
		vel4[4 * i + 3] = 0.0f;
	}
	return 0;
}
