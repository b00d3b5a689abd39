/* sph_scene.c - the dam-break scenes: a water column in a box lined with boundary particles */
#include "sph_scene.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rng.h"

/*
 * To add a column, add a line (name = its particle count, or a name);
 * keep the counted ones in ascending order.
 */
static const struct sph_column sph_scene_column_table[] = {
	/* Goswami et al. 2010, Tables 1 and 2 */
	{ "16128", 24, 24, 28, 1, SPH_SCENE_TANK, SPH_SCENE_JITTER, 0, 0, 0 },
	{ "75200", 40, 40, 47, 1, SPH_SCENE_TANK, SPH_SCENE_JITTER, 0, 0, 0 },
	{ "129024", 48, 48, 56, 1, SPH_SCENE_TANK, SPH_SCENE_JITTER, 0, 0, 0 },
	{ "255600", 60, 60, 71, 1, SPH_SCENE_TANK, SPH_SCENE_JITTER, 0, 0, 0 },
	/* larger, same shape: 0.5 M; ~1 M (the paper's "1M particles"
	 * comparison with [HKK07b]); 2 M; 4.2 M */
	{ "514064", 76, 76, 89, 0, SPH_SCENE_TANK, SPH_SCENE_JITTER, 0, 0, 0 },
	{ "1032192", 96, 96, 112, 0, SPH_SCENE_TANK, SPH_SCENE_JITTER, 0, 0, 0 },
	{ "2016000", 120, 120, 140, 0, SPH_SCENE_TANK, SPH_SCENE_JITTER, 0, 0, 0 },
	{ "4207500", 150, 150, 187, 0, SPH_SCENE_TANK, SPH_SCENE_JITTER, 0, 0, 0 },
	/* Martin and Moyce (1952), n^2 = 2: twice as high as wide, a thin
	 * slab (their tank was a channel), a tank long enough that the
	 * surge does not reach its end before T = t sqrt(2 g / a) = 3.5 */
	{ "martin-moyce", 40, 8, 80, 0, 6.0, SPH_SCENE_JITTER, 0, 0, 0 },
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

/* 0 when column c can be built, else -1 with the reason in err. */
static int sph_scene_check(const struct sph_column *c, char *err,
			   size_t errlen)
{
	if (c->nx < 1 || c->ny < 1 || c->nz < 1 || c->nx > SPH_SCENE_MAX_SIDE ||
	    c->ny > SPH_SCENE_MAX_SIDE || c->nz > SPH_SCENE_MAX_SIDE) {
		snprintf(err, errlen, "column %dx%dx%d: each side must be 1 .. %d",
			 c->nx, c->ny, c->nz, SPH_SCENE_MAX_SIDE);
		return -1;
	}
	if (sph_scene_particles(c->nx, c->ny, c->nz) > SPH_SCENE_MAX_PARTICLES) {
		snprintf(err, errlen, "column %dx%dx%d: more than %zu particles",
			 c->nx, c->ny, c->nz, SPH_SCENE_MAX_PARTICLES);
		return -1;
	}
	if (c->nz > SPH_SCENE_MAX_ASPECT * c->nx) {
		snprintf(err, errlen, "column %dx%dx%d: at most %g times as high as wide",
			 c->nx, c->ny, c->nz, SPH_SCENE_MAX_ASPECT);
		return -1;
	}
	if (!(c->top == 0.0 || (c->top >= 1.0 && c->top <= SPH_SCENE_MAX_TOP))) {
		snprintf(err, errlen, "column %dx%dx%d: walls %g times its height; allowed 1 .. %g",
			 c->nx, c->ny, c->nz, c->top, SPH_SCENE_MAX_TOP);
		return -1;
	}
	if (c->layers < 0 || c->layers > SPH_REF_MAX_LAYERS) {
		snprintf(err, errlen, "column %dx%dx%d: %d wall layers; allowed 1 .. %d",
			 c->nx, c->ny, c->nz, c->layers, SPH_REF_MAX_LAYERS);
		return -1;
	}
	if (!(c->tank == 0.0 || (c->tank >= 1.0 && c->tank <= SPH_SCENE_MAX_TANK))) {
		snprintf(err, errlen, "column %dx%dx%d: tank length %g column widths; "
			 "allowed 0 (fits the column) or 1 .. %g", c->nx, c->ny, c->nz,
			 c->tank, SPH_SCENE_MAX_TANK);
		return -1;
	}
	return 0;
}

int sph_scene_column_parse(const char *spec, struct sph_column *c,
			   char *err, size_t errlen)
{
	const struct sph_column *named = sph_scene_column_find(spec);
	int nx, ny, nz, used = 0;
	double tank = SPH_SCENE_TANK;
	char *end = NULL;

	if (named) {
		*c = *named;
		return 0;
	}
	memset(c, 0, sizeof *c);
	if (spec && strlen(spec) < sizeof c->name &&
	    sscanf(spec, "%dx%dx%d%n", &nx, &ny, &nz, &used) == 3 && spec[used] == '@')
		tank = strtod(spec + used + 1, &end);
	else
		end = spec ? (char *)spec + used : NULL;
	if (!spec || used == 0 || !end || *end != '\0' || end == spec + used + 1) {
		snprintf(err, errlen, "unknown column '%s' (a name from 'harness sph list', "
			 "'paper', 'all', or NXxNYxNZ[@L] with L the tank's length in "
			 "column widths)", spec ? spec : "");
		return -1;
	}
	snprintf(c->name, sizeof c->name, "%s", spec);
	c->nx = nx;
	c->ny = ny;
	c->nz = nz;
	c->tank = tank;
	c->jitter = SPH_SCENE_JITTER;
	return sph_scene_check(c, err, errlen);
}

void sph_scene_free(struct sph_scene *s)
{
	free(s->pos4);
	free(s->vel4);
	free(s->bnd4);
	memset(s, 0, sizeof *s);
}

/*
 * Boundary particles on the plane axis = at, over the rectangle u in
 * [u0, u1], w in [w0, w1] (u, w the other two axes in order), on a
 * lattice of ~d stretched to fit, the lattice indices of u in
 * [ku0, nu - ku1] and of w in [kw0, nw - kw1] (edges owned by another
 * wall are left out). Writes to xb (when not NULL) from *count on.
 */
static void sph_scene_wall(int axis, double at, const double lo[3],
			   const double hi[3], double d, int ku0, int ku1,
			   int kw0, int kw1, double *xb, size_t *count)
{
	const int u = (axis + 1) % 3, w = (axis + 2) % 3;
	const int au = u < w ? u : w, aw = u < w ? w : u;
	const int nu = (int)fmax(1.0, round((hi[au] - lo[au]) / d));
	const int nw = (int)fmax(1.0, round((hi[aw] - lo[aw]) / d));

	for (int kw = kw0; kw <= nw - kw1; kw++)
		for (int ku = ku0; ku <= nu - ku1; ku++, (*count)++) {
			if (!xb)
				continue;
			double *x = &xb[3 * *count];

			x[axis] = at;
			x[au] = lo[au] + (hi[au] - lo[au]) * ku / nu;
			x[aw] = lo[aw] + (hi[aw] - lo[aw]) * kw / nw;
		}
}

/*
 * The floor and four side walls of the box lo .. hi: the floor owns its
 * whole perimeter, the walls x = lo, hi their vertical edges, the walls
 * y = lo, hi what is left. Returns how many (xb may be NULL to count).
 */
static size_t sph_scene_walls(const double box_lo[3], const double box_hi[3],
			      double d, int layers, int lid, double *xb)
{
	size_t count = 0;

	for (int l = 0; l < layers; l++) {
		/* plane l of every wall: the box grown by l d outwards (not
		 * upwards: there is no lid) */
		const double lo[3] = { box_lo[0] - l * d, box_lo[1] - l * d, box_lo[2] - l * d };
		const double hi[3] = { box_hi[0] + l * d, box_hi[1] + l * d, box_hi[2] };

		/* floor z = lo: (x, y) everywhere */
		sph_scene_wall(2, lo[2], lo, hi, d, 0, 0, 0, 0, xb, &count);
		/* x = lo, hi: (y, z) with z above the floor */
		sph_scene_wall(0, lo[0], lo, hi, d, 0, 0, 1, 0, xb, &count);
		sph_scene_wall(0, hi[0], lo, hi, d, 0, 0, 1, 0, xb, &count);
		/* y = lo, hi: (x, z) inside the x walls, above the floor */
		sph_scene_wall(1, lo[1], lo, hi, d, 1, 1, 1, 0, xb, &count);
		sph_scene_wall(1, hi[1], lo, hi, d, 1, 1, 1, 0, xb, &count);
	}
	/* the lid z = hi, inside the side walls' top edges: planes upwards
	 * (the side walls do not rise past the first) */
	for (int l = 0; lid && l < layers; l++) {
		const double hi_l[3] = { box_hi[0], box_hi[1], box_hi[2] + l * d };
		sph_scene_wall(2, hi_l[2], box_lo, hi_l, d, 1, 1, 1, 1, xb, &count);
	}
	return count;
}

int sph_scene_layers(const struct sph_column *c)
{
	return c->layers > 0 ? c->layers : SPH_SCENE_WALL_LAYERS;
}

/* The boundary particles of s's box, layers planes a wall (and a lid
 * when lid), with psi / m in bnd4. 0 or -1. */
static int sph_scene_boundary(struct sph_scene *s, int layers, int lid)
{
	const struct sph_params *p = &s->p;
	const double db = SPH_SCENE_BOUNDARY_SPACING * p->spacing;
	const size_t nb = sph_scene_walls(p->box_lo, p->box_hi, db, layers, lid, NULL);
	double *xb = malloc((3 * nb + 1) * sizeof *xb);
	double *psi = malloc((nb + 1) * sizeof *psi);
	int rc = -1;

	s->bnd4 = malloc((4 * nb + 1) * sizeof *s->bnd4);
	if (!xb || !psi || !s->bnd4)
		goto out_free;
	sph_scene_walls(p->box_lo, p->box_hi, db, layers, lid, xb);
	if (sph_ref_boundary_psi(p, xb, nb, psi) != 0)
		goto out_free;
	for (size_t b = 0; b < nb; b++) {
		for (int c = 0; c < 3; c++)
			s->bnd4[4 * b + c] = (float)xb[3 * b + c];
		s->bnd4[4 * b + 3] = (float)(psi[b] / p->mass);
	}
	s->nb = nb;
	rc = 0;

out_free:
	free(xb);
	free(psi);
	return rc;
}

double sph_scene_box(const struct sph_column *c, struct sph_params *p)
{
	const double d = SPH_SCENE_WIDTH / c->nx;

	sph_params_water(p, d, c->nz * d);
	const double g = sph_ref_wall_gap(p, SPH_SCENE_BOUNDARY_SPACING * d, sph_scene_layers(c));
	for (int k = 0; k < 3; k++)
		p->box_lo[k] = 0.0;
	p->box_hi[0] = c->tank > 0.0 ? c->tank * c->nx * d : 2.0 * g + (c->nx - 1) * d;
	p->box_hi[1] = 2.0 * g + (c->ny - 1) * d;
	p->box_hi[2] = (c->top > 0.0 ? c->top : SPH_SCENE_TOP) * c->nz * d;
	return g;
}

int sph_scene_build(const struct sph_column *c, uint64_t seed,
		    struct sph_scene *s, char *err, size_t errlen)
{
	struct sph_params *p = &s->p;
	struct rng r;
	double d, g;
	size_t i = 0;

	memset(s, 0, sizeof *s);
	if (sph_scene_check(c, err, errlen) != 0)
		return -1;
	d = SPH_SCENE_WIDTH / c->nx;
	g = sph_scene_box(c, p);
	s->gap = g;
	s->width = c->nx * d;
	s->height = c->nz * d;

	s->n = sph_scene_particles(c->nx, c->ny, c->nz);
	s->pos4 = malloc(4 * s->n * sizeof *s->pos4);
	s->vel4 = calloc(4 * s->n, sizeof *s->vel4);
	if (!s->pos4 || !s->vel4 || sph_scene_boundary(s, sph_scene_layers(c),
						       c->lid ? c->lid > 0 : SPH_SCENE_LID) != 0) {
		snprintf(err, errlen, "column %s: out of memory for %zu particles", c->name,
			 s->n);
		sph_scene_free(s);
		return -1;
	}
	rng_seed(&r, seed);
	for (int iz = 0; iz < c->nz; iz++)
	for (int iy = 0; iy < c->ny; iy++)
	for (int ix = 0; ix < c->nx; ix++, i++) {
		const int cell[3] = { ix, iy, iz };

		for (int k = 0; k < 3; k++) {
			const double jit = c->jitter * (2.0 * rng_uniform(&r) - 1.0);

			s->pos4[4 * i + k] = (float)(p->box_lo[k] + g + (cell[k] + jit) * d);
		}
		s->pos4[4 * i + 3] = 0.0f;
	}
	return 0;
}

/* The k-th largest (k >= 1) of the n values v, which it reorders
 * partially; NAN when n < k. */
static double sph_scene_kth_largest(double *v, size_t n, size_t k)
{
	if (n < k || k == 0)
		return NAN;
	/* selection by k passes: k is a row across the tank, small */
	for (size_t a = 0; a < k; a++) {
		size_t best = a;

		for (size_t b = a + 1; b < n; b++)
			if (v[b] > v[best])
				best = b;
		const double t = v[a];
		v[a] = v[best];
		v[best] = t;
	}
	return v[k - 1];
}

void sph_scene_surge(const struct sph_scene *s, const float *pos4,
		     double *front, double *height)
{
	const struct sph_params *p = &s->p;
	const double d = p->spacing, edge = s->gap - 0.5 * d;
	const size_t row = (size_t)fmax(1.0, round((p->box_hi[1] - p->box_lo[1] -
						     2.0 * s->gap) / d + 1.0));
	double *v = malloc((s->n + 1) * sizeof *v);
	size_t m = 0;

	*front = *height = NAN;
	if (!v)
		return;
	for (size_t i = 0; i < s->n; i++)
		v[i] = pos4[4 * i] - p->box_lo[0];
	*front = (sph_scene_kth_largest(v, s->n, row) + 0.5 * d - edge) / s->width;
	for (size_t i = 0; i < s->n; i++)
		if (pos4[4 * i] - p->box_lo[0] < s->gap + d)
			v[m++] = pos4[4 * i + 2] - p->box_lo[2];
	*height = (sph_scene_kth_largest(v, m, row) + 0.5 * d - edge) / s->height;
	free(v);
}
