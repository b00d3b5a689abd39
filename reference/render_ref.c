/* render_ref.c - the SPH paper's surface particles and distance field in double: the oracle */
#include "render_ref.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int render_rest_neighbours(const struct sph_params *p)
{
	const double h2 = p->h * p->h;
	const int reach = (int)ceil(p->h / p->spacing);
	int cnt = 0;

	/* the pair test of sph_ref_neighbours_*: dx*dx + dy*dy + dz*dz < h^2 */
	for (int k = -reach; k <= reach; k++)
	for (int j = -reach; j <= reach; j++)
	for (int i = -reach; i <= reach; i++) {
		const double dx = i * p->spacing, dy = j * p->spacing,
			     dz = k * p->spacing;

		if ((i || j || k) && dx * dx + dy * dy + dz * dz < h2)
			cnt++;
	}
	return cnt;
}

void render_params_default(struct render_params *rp, const struct sph_params *p)
{
	const double d = p->spacing;
	const double light[3] = { -0.4, -0.8, 0.45 };
	const double norm = sqrt(light[0] * light[0] + light[1] * light[1] +
				 light[2] * light[2]);
	const double colour[3] = { 0.15, 0.45, 0.85 };

	memset(rp, 0, sizeof *rp);
	rp->com_threshold = 0.1;
	rp->min_neighbours = 0.6 * render_rest_neighbours(p);
	rp->res = 256;
	rp->r = 1.5 * d;
	rp->r_min = 0.25 * d;
	rp->r_max = rp->r * sqrt(3.0);
	rp->samples_per_unit = RENDER_SAMPLES_PER_UNIT;
	rp->surface_d = 0.5 * d;
	rp->band = 0.25 * d;
	rp->alpha_max = RENDER_PHONG_ALPHA_MAX;
	rp->opaque = 0.99;
	for (int k = 0; k < 3; k++) {
		rp->light[k] = light[k] / norm;
		rp->colour[k] = colour[k];
		rp->background[k] = 1.0;
	}
	rp->shading = RENDER_SHADING_PHONG;
	rp->normals = RENDER_NORMALS_FIELD;
	rp->smooth = RENDER_KERNEL_PER_SPACING * d;
}

const char *render_shading_name(int shading)
{
	return shading == RENDER_SHADING_PHONG ? "phong" : shading == RENDER_SHADING_PAPER ? "paper" : NULL;
}

int render_shading_of(const char *name)
{
	for (int s = RENDER_SHADING_PHONG; s <= RENDER_SHADING_PAPER; s++)
		if (strcmp(name, render_shading_name(s)) == 0)
			return s;
	return -1;
}

int render_params_shading(struct render_params *rp, int shading)
{
	if (shading != RENDER_SHADING_PHONG && shading != RENDER_SHADING_PAPER)
		return -1;
	rp->shading = shading;
	rp->alpha_max = shading == RENDER_SHADING_PAPER ? RENDER_PAPER_ALPHA_MAX
							: RENDER_PHONG_ALPHA_MAX;
	return 0;
}

double render_derive_voxel(double d, double pixel)
{
	return fmax(d / RENDER_VOXELS_PER_SPACING, pixel / RENDER_VOXELS_PER_PIXEL);
}

/* Voxels of the field over lo .. hi at res; 0 for a shape refused. */
static double render_derive_voxels(int res, const double lo[3], const double hi[3])
{
	int dim[3];
	double v;

	if (render_field_shape(res, lo, hi, dim, &v) != 0)
		return 0.0;
	return (double)dim[0] * dim[1] * dim[2];
}

int render_derive_res(double d, const double lo[3], const double hi[3], double pixel)
{
	const double v = render_derive_voxel(d, pixel);
	double longest = 0.0, want;
	int a, b;

	if (!(d > 0.0) || !isfinite(d) || !(pixel >= 0.0) || !isfinite(pixel))
		return -1;
	for (int k = 0; k < 3; k++) {
		if (!isfinite(lo[k]) || !isfinite(hi[k]) || !(hi[k] > lo[k]))
			return -1;
		longest = fmax(longest, hi[k] - lo[k]);
	}
	/* res voxels of at most v: ceil(longest / v), within 2 .. 4096 */
	want = ceil(longest / v - 1e-9);
	b = want < 2.0 ? 2 : want > 4096.0 ? 4096 : (int)want;
	if (render_derive_voxels(b, lo, hi) <= (double)RENDER_FIELD_MAX_VOXELS)
		return b;
	/* the largest res in 2 .. b whose field fits (voxels grow with res) */
	a = 2;
	while (b - a > 1) {
		const int m = a + (b - a) / 2;

		if (render_derive_voxels(m, lo, hi) <= (double)RENDER_FIELD_MAX_VOXELS)
			a = m;
		else
			b = m;
	}
	return a;
}

double render_derive_band(double d, double v)
{
	return fmax(RENDER_BAND_PER_SPACING * d, RENDER_BAND_PER_VOXEL * v);
}

double render_derive_box(double d, double v)
{
	return fmax(RENDER_BOX_PER_SPACING * d, RENDER_BOX_PER_VOXEL * v);
}

double render_derive_step(double d, double v)
{
	return fmin(render_derive_band(d, v), v) / RENDER_STEPS_PER_FEATURE;
}

int render_params_derive(struct render_params *rp, const struct sph_params *p,
			 const double lo[3], const double hi[3], double pixel, int res,
			 double samples)
{
	const double d = p->spacing;
	const int own = render_derive_res(d, lo, hi, pixel);
	double longest = 0.0, v;

	render_params_default(rp, p);
	if (own < 0 || (res > 0 && (res < 2 || res > 4096)))
		return -1;
	for (int k = 0; k < 3; k++)
		longest = fmax(longest, hi[k] - lo[k]);
	/* the derived sampling defines alpha; then the resolution used */
	rp->alpha_samples = longest / render_derive_step(d, longest / own);
	rp->res = res > 0 ? res : own;
	v = longest / rp->res;
	rp->band = render_derive_band(d, v);
	rp->r = render_derive_box(d, v);
	rp->r_max = rp->r * sqrt(3.0);
	rp->samples_per_unit = samples > 0.0 ? samples : longest / render_derive_step(d, v);
	return 0;
}

/*
 * com_i - x_i = sum_j (x_j - x_i) / (1 + n_i): the header's
 * (x_i + sum_j x_j) / (1 + n_i) - x_i without the cancellation of
 * subtracting two nearly equal absolute positions.
 */
void render_ref_surface_criterion(const struct sph_params *p, const double *x,
				  const struct sph_nbr_list *nl, size_t i,
				  double *com_off, size_t *neighbours)
{
	const double *xi = &x[3 * i];
	const size_t n = nl->off[i + 1] - nl->off[i];
	double s[3] = { 0.0, 0.0, 0.0 };

	for (size_t k = nl->off[i]; k < nl->off[i + 1]; k++) {
		const double *xj = &x[3 * nl->idx[k]];

		for (int c = 0; c < 3; c++)
			s[c] += xj[c] - xi[c];
	}
	for (int c = 0; c < 3; c++)
		s[c] /= (double)(1 + n);
	*com_off = sqrt(s[0] * s[0] + s[1] * s[1] + s[2] * s[2]) / p->h;
	*neighbours = n;
}

int render_ref_surface(const struct sph_params *p, const struct render_params *rp,
		       const double *x, size_t n, unsigned char *surface, size_t *count)
{
	struct sph_nbr_list nl;

	memset(&nl, 0, sizeof nl);
	*count = 0;
	if (sph_ref_neighbours_grid(x, n, p->h, &nl) != 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		double off;
		size_t nb;

		render_ref_surface_criterion(p, x, &nl, i, &off, &nb);
		surface[i] = off > rp->com_threshold ||
			     (double)nb < rp->min_neighbours;
		*count += surface[i];
	}
	sph_nbr_list_free(&nl);
	return 0;
}

void render_field_free(struct render_field *f)
{
	free(f->value);
	free(f->smooth);
	memset(f, 0, sizeof *f);
}

/*
 * Voxels per axis for a side of length side at voxel size v: ceil(side /
 * v - 1e-9) + 1. side / v <= res <= 4096 is off by some 1e-12 at most,
 * so the 1e-9 keeps rounding from adding a voxel (the longest side gets
 * exactly res + 1) while a side longer than a whole number of voxels by
 * more than that gets the voxel that covers it.
 */
static int render_field_axis(double side, double v)
{
	return (int)ceil(side / v - 1e-9) + 1;
}

int render_field_shape(int res, const double lo[3], const double hi[3], int dim[3],
		       double *voxel)
{
	double longest = 0.0;

	if (res < 2 || res > 4096)
		return -1;
	for (int k = 0; k < 3; k++) {
		if (!isfinite(lo[k]) || !isfinite(hi[k]) || !(hi[k] > lo[k]))
			return -1;
		longest = fmax(longest, hi[k] - lo[k]);
	}
	*voxel = longest / res;
	if (!(*voxel > 0.0) || !isfinite(*voxel))
		return -1;
	for (int k = 0; k < 3; k++)
		dim[k] = render_field_axis(hi[k] - lo[k], *voxel);
	return 0;
}

/* Field shape and storage for the box lo .. hi; -1 (f empty) if refused. */
static int render_field_alloc(const struct render_params *rp, const double lo[3],
			      const double hi[3], struct render_field *f)
{
	size_t nvox = 1;

	memset(f, 0, sizeof *f);
	if (render_field_shape(rp->res, lo, hi, f->dim, &f->voxel) != 0) {
		memset(f, 0, sizeof *f);
		return -1;
	}
	for (int k = 0; k < 3; k++) {
		f->lo[k] = lo[k];
		nvox *= (size_t)f->dim[k];
	}
	f->max = rp->r_max * rp->r_max;
	f->value = malloc(nvox * sizeof *f->value);
	if (!f->value) {
		memset(f, 0, sizeof *f);
		return -1;
	}
	for (size_t v = 0; v < nvox; v++)
		f->value[v] = f->max;
	return 0;
}

/*
 * The voxel indices a .. b (inclusive, within 0 .. dim - 1) on axis k
 * with |lo + i v - p| <= r: floor and ceil bound them, the test itself
 * (evaluated exactly as the header writes it) decides the ends.
 * Returns 0 when the range is empty.
 */
static int render_field_span(const struct render_field *f, int k, double p,
			     double r, int *a, int *b)
{
	double u = ceil((p - r - f->lo[k]) / f->voxel);
	double w = floor((p + r - f->lo[k]) / f->voxel);

	/* clamp in double first: the particle may be far outside the grid */
	u = fmax(u - 1.0, 0.0);
	w = fmin(w + 1.0, f->dim[k] - 1.0);
	if (u > w)
		return 0;
	*a = (int)u;
	*b = (int)w;
	while (*a <= *b && !(fabs(f->lo[k] + *a * f->voxel - p) <= r))
		(*a)++;
	while (*b >= *a && !(fabs(f->lo[k] + *b * f->voxel - p) <= r))
		(*b)--;
	return *a <= *b;
}

/* Rasterise the box of radius rp->r around p into f. */
static void render_field_splat(const struct render_params *rp,
			       struct render_field *f, const double p[3])
{
	int a[3], b[3];

	for (int k = 0; k < 3; k++)
		if (!render_field_span(f, k, p[k], rp->r, &a[k], &b[k]))
			return;
	for (int k = a[2]; k <= b[2]; k++)
	for (int j = a[1]; j <= b[1]; j++)
	for (int i = a[0]; i <= b[0]; i++) {
		const double dx = f->lo[0] + i * f->voxel - p[0];
		const double dy = f->lo[1] + j * f->voxel - p[1];
		const double dz = f->lo[2] + k * f->voxel - p[2];
		const double d = sqrt(dx * dx + dy * dy + dz * dz);
		double *val = &f->value[((size_t)k * f->dim[1] + j) *
					f->dim[0] + i];
		double e;

		if (!(d <= rp->r_max))
			continue;
		e = fmax(d, rp->r_min);
		*val = fmin(*val, e * e);
	}
}

int render_ref_field(const struct render_params *rp, const double lo[3], const double hi[3],
		     const double *s, size_t m, struct render_field *f)
{
	if (render_field_alloc(rp, lo, hi, f) != 0)
		return -1;
	for (size_t q = 0; q < 3 * m; q++) {
		if (!isfinite(s[q])) {
			render_field_free(f);
			return -1;
		}
	}
	for (size_t q = 0; q < m; q++)
		render_field_splat(rp, f, &s[3 * q]);
	return 0;
}

/* sqrt of the value at voxel (i, j, k). */
static double render_field_dist(const struct render_field *f, int i, int j, int k)
{
	return sqrt(f->value[((size_t)k * f->dim[1] + j) * f->dim[0] + i]);
}

void render_ref_gradient(const struct render_field *f, int i, int j, int k, double g[3])
{
	const int at[3] = { i, j, k };

	for (int c = 0; c < 3; c++) {
		int lo[3] = { i, j, k }, hi[3] = { i, j, k };

		if (f->dim[c] < 2) {
			g[c] = 0.0;
			continue;
		}
		lo[c] = at[c] > 0 ? at[c] - 1 : 0;
		hi[c] = at[c] < f->dim[c] - 1 ? at[c] + 1 : f->dim[c] - 1;
		g[c] = (render_field_dist(f, hi[0], hi[1], hi[2]) -
			render_field_dist(f, lo[0], lo[1], lo[2])) /
		       ((hi[c] - lo[c]) * f->voxel);
	}
}
