/* render_validate.c - a float rendering stage's surface set, distance field and image against the double reference */
#include "render_validate.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../kernels/sph/sph.h"
#include "../core/stats.h"
#include "../../reference/sph_ref.h"

/*
 * Why these tolerances. u = 2^-24 ~ 6e-8 is float's unit roundoff: a
 * rounded x is off by at most u |x|, between half an ulp (x at the top
 * of its binade) and one ulp (at the bottom).
 *
 * RENDER_VALIDATE_COM_BAND (com_off is in units of h). The variant's
 * positions are floats of magnitude up to L ~ 1 m (the paper's tank is
 * 0.96 m long). A float stage that forms com_i as the header writes it,
 * (x_i + sum_j x_j) / (1 + n_i), rounds each partial sum of up to 1 + n_i
 * positions to u times it, so after the division each of the ~27
 * additions leaves ~u L, random in sign: ~sqrt(27) u L ~ 5 u L, or
 * 5 x 6e-8 x (1 m / h) of h: 3e-5 at h = 1 cm, 4e-5 at the 255,600
 * column's h = 8 mm, 9e-5 at 4.2 million's h = 3.2 mm. Summing the
 * differences x_j - x_i, as the reference does, costs only ~u h each.
 * 1e-4 covers the first form down to h ~ 3 mm and is 40 times below the
 * smallest wrong formula (dividing by n_i instead of 1 + n_i moves com_off
 * by 1 / n_i of itself, 4e-3 at the threshold 0.1). The count threshold
 * compares integers, so float rounding changes a count only by moving a
 * pair across h: r^2 / h^2 is uncertain by ~1e-5 (reference/sph_ref.h), hence
 * SPH_H_BAND; such a pair moves the centre of mass too (by up to
 * h / (1 + n_i)), so a particle with one is excused whichever criterion
 * disagrees.
 *
 * RENDER_VALIDATE_FIELD_ULPS. The field is a geometric quantity every
 * stage can compute exactly as the reference does: the float position
 * widened to double, the voxel coordinate lo + i v, the per-axis test,
 * d^2, sqrt, the band and max(d, r_min)^2 in double, in the reference's
 * order and without fused multiply-adds, then one rounding to float; the
 * minimum over particles commutes with that rounding (it is monotone).
 * kernels/render/render_gpu.cu does so and is 0 ulps off in every voxel
 * of every field measured (43 rows of sph-render-table on two GPUs). The
 * bound is 2 ulps of the value rounded to float: one or two ulps of the
 * squared distance, with room for a libm or a device sqrt that is not
 * correctly rounded. A stage that computed in float would
 * not pass: its voxel coordinates alone (lo + i v rounded three times,
 * ~3 u C off, C ~ 1 m the grid's largest coordinate) move d^2 by up to
 * 2 sqrt(3) d 3 u C, some 2000 ulps near r_min, and a plain float
 * rasteriser measured 82 ulps (8x4x16, res 128): the test keeps it as the
 * example of what the bound rejects. A geometric bug (a box one voxel
 * short, a voxel coordinate off by one) moves d^2 by v d, relative
 * v / d > 0.1. A voxel the reference leaves at the maximum is one no
 * particle's box reaches within r_max: the stage's initial value must
 * stay, bit for bit; with the reference's arithmetic a voxel exactly on
 * a box's face falls the same way on both sides.
 *
 * RENDER_VALIDATE_PSNR_DB. 40 dB is an MSE of 1e-4: every channel of
 * every pixel off by 0.01. That is the most the one legitimate float
 * difference in raycasting can do to a pixel: A reaching `opaque` (0.99)
 * one sample earlier or later adds or drops a sample weighted by 1 - A
 * <= 0.01. Sample positions in float (t ~ 1 m, off by ~u t, 1e-5 of a
 * voxel) and the field's errors above move alpha by far less. A missed
 * brick, a wrong normal or transfer function changes whole regions by
 * 0.1 and more: 10 % of the pixels off by 0.2 is 24 dB.
 */

/* ---------------------------------------------------------------- */
/* Surface particles                                                */
/* ---------------------------------------------------------------- */

int render_validate_surface(const struct sph_params *p, const struct render_params *rp,
			    const double *x, size_t n, const unsigned char *var_surface,
			    struct render_surface_check *out)
{
	struct sph_nbr_list nl;
	struct sph_ref_grid g;
	unsigned char *ref = malloc(n ? n : 1);
	int rc = -1;

	memset(out, 0, sizeof *out);
	memset(&nl, 0, sizeof nl);
	memset(&g, 0, sizeof g);
	out->n = n;
	out->worst = n;
	if (!ref || render_ref_surface(p, rp, x, n, ref, &out->ref_count) != 0)
		goto out_free_ref;
	if (n && (sph_ref_neighbours_grid(x, n, p->h, &nl) != 0 ||
		  sph_ref_grid_build(&g, x, n, p->h) != 0))
		goto out_free_lists;
	for (size_t i = 0; i < n; i++) {
		double off;
		size_t nb;

		out->var_count += var_surface[i] == 1;
		if (var_surface[i] == ref[i])
			continue;
		render_ref_surface_criterion(p, x, &nl, i, &off, &nb);
		if (var_surface[i] <= 1 &&
		    (fabs(off - rp->com_threshold) <= RENDER_VALIDATE_COM_BAND ||
		     sph_ref_grid_band_pairs(&g, x, &x[3 * i], i, p->h, SPH_H_BAND) > 0)) {
			out->borderline++;
			continue;
		}
		if (out->mismatches++ == 0)
			out->worst = i;
	}
	out->pass = out->mismatches == 0;
	rc = 0;
out_free_lists:
	sph_ref_grid_free(&g);
	sph_nbr_list_free(&nl);
out_free_ref:
	free(ref);
	return rc;
}

/* ---------------------------------------------------------------- */
/* Distance field                                                   */
/* ---------------------------------------------------------------- */

/* A float's place in the order of all floats: consecutive floats differ
 * by 1, +0 and -0 both 0. */
static int64_t render_validate_float_key(float f)
{
	int32_t i;

	memcpy(&i, &f, sizeof i);
	return i < 0 ? (int64_t)INT32_MIN - i : i;
}

static unsigned long long render_validate_ulps(float a, float b)
{
	const int64_t d = render_validate_float_key(a) - render_validate_float_key(b);

	return (unsigned long long)(d < 0 ? -d : d);
}

/* The bound at a value ref (< max): RENDER_VALIDATE_FIELD_ULPS ulps of
 * ref rounded to float. */
static double render_validate_bound_at(double ref)
{
	const float r = (float)ref;
	const double ulp = (double)nextafterf(fabsf(r), INFINITY) - fabsf(r);

	return RENDER_VALIDATE_FIELD_ULPS * ulp;
}

double render_validate_field_bound(const struct render_field *ref, size_t v)
{
	if (ref->value[v] == ref->max)
		return 0.0;
	return render_validate_bound_at(ref->value[v]);
}

int render_validate_field(const struct render_field *ref, const float *var_values,
			  struct render_field_check *out)
{
	const float fmax_ref = (float)ref->max;

	memset(out, 0, sizeof *out);
	if (!ref->value || !var_values)
		return -1;
	out->voxels = (size_t)ref->dim[0] * ref->dim[1] * ref->dim[2];
	for (size_t v = 0; v < out->voxels; v++) {
		const float var = var_values[v], r = (float)ref->value[v];

		if (!isfinite(var)) {
			out->nonfinite++;
			continue;
		}
		if (ref->value[v] == ref->max) {
			out->max_mismatches += memcmp(&var, &fmax_ref, sizeof var) != 0;
			continue;
		}
		const double ratio = fabs((double)var - r) / render_validate_bound_at(ref->value[v]);
		const unsigned long long ulps = render_validate_ulps(var, r);

		if (ulps > out->max_ulps)
			out->max_ulps = ulps;
		if (ratio > out->worst_ratio) {
			out->worst_ratio = ratio;
			out->worst = v;
		}
		out->max_mismatches += var == fmax_ref && ratio > 1.0;
	}
	out->pass = out->nonfinite == 0 && out->max_mismatches == 0 && out->worst_ratio <= 1.0;
	return 0;
}

/* ---------------------------------------------------------------- */
/* Image                                                            */
/* ---------------------------------------------------------------- */

int render_validate_image(const double *ref_rgb, const double *var_rgb, int width, int height,
			  struct render_image_check *out)
{
	double sum = 0.0;

	memset(out, 0, sizeof *out);
	if (!ref_rgb || !var_rgb || width <= 0 || height <= 0)
		return -1;
	const size_t channels = 3 * (size_t)width * (size_t)height;
	for (size_t q = 0; q < channels; q++) {
		const double d = fabs(var_rgb[q] - ref_rgb[q]);

		if (!isfinite(d)) {
			out->nonfinite++;
			continue;
		}
		sum += d * d;
		if (d > out->max_diff) {
			out->max_diff = d;
			out->worst_x = (int)(q / 3 % (size_t)width);
			out->worst_y = (int)(q / 3 / (size_t)width);
		}
	}
	out->mse = sum / (double)channels;
	out->psnr_db = out->mse > 0.0 ? 10.0 * log10(1.0 / out->mse) : INFINITY;
	if (out->nonfinite)
		out->mse = out->psnr_db = NAN;
	out->pass = out->nonfinite == 0 && out->psnr_db >= RENDER_VALIDATE_PSNR_DB;
	return 0;
}

/* ---------------------------------------------------------------- */
/* Convergence                                                      */
/* ---------------------------------------------------------------- */

double render_image_psnr(const double *a, const double *b, int w, int h)
{
	double sum = 0.0;

	if (!a || !b || w <= 0 || h <= 0)
		return NAN;
	const size_t channels = 3 * (size_t)w * (size_t)h;
	for (size_t q = 0; q < channels; q++) {
		const double d = a[q] - b[q];

		if (!isfinite(d))
			return NAN;
		sum += d * d;
	}
	return sum > 0.0 ? 10.0 * log10((double)channels / sum) : INFINITY;
}

/* The largest channel distance of pixel c from the background; NAN if a
 * channel is not finite. */
static double render_hole_contrast(const double *c, const double bg[3])
{
	double m = 0.0;

	for (int k = 0; k < 3; k++) {
		const double d = fabs(c[k] - bg[k]);

		if (!isfinite(d))
			return NAN;
		m = d > m ? d : m;
	}
	return m;
}

/* Pixel i into out: inside the silhouette where the converged opacity
 * covers it, a hole where the image shows less than RENDER_HOLE_SHOW of
 * the water the converged image shows there (a NaN shows none). */
static void render_hole_tally(const double *conv_alpha, size_t i, double shown, double conv_shown,
			      struct render_holes *out)
{
	if (!(conv_alpha[i] >= RENDER_HOLE_COVERED))
		return;
	out->silhouette++;
	out->holes += !(shown >= RENDER_HOLE_SHOW * conv_shown);
}

static void render_hole_share(struct render_holes *out)
{
	out->share = out->silhouette ? (double)out->holes / (double)out->silhouette : 0.0;
}

int render_image_holes(const double *conv_rgb, const double *conv_alpha, const double *rgb,
		       const double bg[3], int w, int h, struct render_holes *out)
{
	memset(out, 0, sizeof *out);
	if (!conv_rgb || !conv_alpha || !rgb || !bg || w <= 0 || h <= 0)
		return -1;
	const size_t px = (size_t)w * (size_t)h;
	for (size_t i = 0; i < px; i++)
		render_hole_tally(conv_alpha, i, render_hole_contrast(&rgb[3 * i], bg),
				  render_hole_contrast(&conv_rgb[3 * i], bg), out);
	render_hole_share(out);
	return 0;
}

int render_image_holes_opacity(const double *conv_alpha, const double *alpha, int w, int h,
			       struct render_holes *out)
{
	memset(out, 0, sizeof *out);
	if (!conv_alpha || !alpha || w <= 0 || h <= 0)
		return -1;
	const size_t px = (size_t)w * (size_t)h;
	for (size_t i = 0; i < px; i++)
		render_hole_tally(conv_alpha, i, alpha[i], conv_alpha[i], out);
	render_hole_share(out);
	return 0;
}

/* The PSNR of rgb against conv_rgb and the verdict, holes counted. */
static void render_converge_judge(const double *conv_rgb, const double *rgb, int w, int h,
				  struct render_converge_check *out)
{
	out->psnr_db = render_image_psnr(conv_rgb, rgb, w, h);
	out->pass = out->psnr_db >= RENDER_CONVERGE_PSNR_DB &&
		    out->holes.share <= RENDER_CONVERGE_HOLES;
}

int render_validate_converged(const double *conv_rgb, const double *conv_alpha, const double *rgb,
			      const double bg[3], int w, int h, struct render_converge_check *out)
{
	memset(out, 0, sizeof *out);
	if (render_image_holes(conv_rgb, conv_alpha, rgb, bg, w, h, &out->holes) != 0)
		return -1;
	render_converge_judge(conv_rgb, rgb, w, h, out);
	return 0;
}

int render_validate_converged_opacity(const double *conv_rgb, const double *conv_alpha,
				      const double *rgb, const double *alpha, int w, int h,
				      struct render_converge_check *out)
{
	memset(out, 0, sizeof *out);
	if (!conv_rgb || !rgb || render_image_holes_opacity(conv_alpha, alpha, w, h, &out->holes) != 0)
		return -1;
	render_converge_judge(conv_rgb, rgb, w, h, out);
	return 0;
}

/* ---------------------------------------------------------------- */
/* Normals                                                          */
/* ---------------------------------------------------------------- */

#define RENDER_VALIDATE_PI 3.14159265358979323846

int render_validate_normals(const double *normal, const double *truth, size_t px,
			    struct render_normal_check *out)
{
	double *angle = malloc((px ? px : 1) * sizeof *angle);
	size_t within = 0;

	memset(out, 0, sizeof *out);
	if (!normal || !truth || !angle) {
		free(angle);
		return -1;
	}
	for (size_t i = 0; i < px; i++) {
		const double *n = &normal[3 * i], *t = &truth[3 * i];
		const double len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
		double a = 180.0;

		if (isnan(t[0]))
			continue;
		if (len > 0.0 && isfinite(len)) {
			const double c = (n[0] * t[0] + n[1] * t[1] + n[2] * t[2]) / len;

			a = acos(fmin(fmax(c, -1.0), 1.0)) * 180.0 / RENDER_VALIDATE_PI;
		}
		within += a <= RENDER_NORMAL_GOAL_DEG;
		angle[out->pixels++] = a;
	}
	if (out->pixels) {
		out->median_deg = stats_quantile(angle, out->pixels, 0.5);
		out->p90_deg = stats_quantile(angle, out->pixels, 0.9);
		out->p95_deg = stats_quantile(angle, out->pixels, 0.95);
		out->max_deg = stats_quantile(angle, out->pixels, 1.0);
		out->within = (double)within / (double)out->pixels;
	}
	out->pass = out->pixels > 0 && out->within >= RENDER_NORMAL_GOAL_SHARE;
	free(angle);
	return 0;
}

/* Whether pixel i is drawn and has a finite hit. */
static bool render_normals_drawn(const double *hit, const double *opacity, size_t i)
{
	return opacity[i] >= RENDER_HOLE_COVERED && isfinite(hit[3 * i]) &&
	       isfinite(hit[3 * i + 1]) && isfinite(hit[3 * i + 2]);
}

void render_normals_plane_truth(const double *hit, const double *opacity, size_t px,
				const double n[3], const double lo[3], const double hi[3],
				double *truth)
{
	for (size_t i = 0; i < px; i++) {
		bool in = render_normals_drawn(hit, opacity, i);

		for (int k = 0; k < 3 && in; k++)
			in = hit[3 * i + k] >= lo[k] && hit[3 * i + k] <= hi[k];
		for (int k = 0; k < 3; k++)
			truth[3 * i + k] = in ? n[k] : NAN;
	}
}

void render_normals_ball_truth(const double *hit, const double *opacity, size_t px,
			       const double centre[3], const double eye[3], double max_deg,
			       double *truth)
{
	const double min_cos = cos(max_deg * RENDER_VALIDATE_PI / 180.0);

	for (size_t i = 0; i < px; i++) {
		double r[3], v[3], rl = 0.0, vl = 0.0, c = 0.0;
		bool in = render_normals_drawn(hit, opacity, i);

		for (int k = 0; k < 3; k++) {
			r[k] = hit[3 * i + k] - centre[k];
			v[k] = eye[k] - hit[3 * i + k];
			rl += r[k] * r[k];
			vl += v[k] * v[k];
			c += r[k] * v[k];
		}
		in = in && rl > 0.0 && vl > 0.0 && c >= min_cos * sqrt(rl * vl);
		for (int k = 0; k < 3; k++)
			truth[3 * i + k] = in ? r[k] / sqrt(rl) : NAN;
	}
}

/* ---------------------------------------------------------------- */
/* Speckle                                                          */
/* ---------------------------------------------------------------- */

static double render_speckle_luminance(const double *c)
{
	return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
}

/* The median of a[9] (reordered). */
static double render_speckle_median9(double a[9])
{
	for (int i = 1; i < 9; i++)
		for (int j = i; j > 0 && a[j - 1] > a[j]; j--) {
			const double t = a[j];
			a[j] = a[j - 1];
			a[j - 1] = t;
		}
	return a[4];
}

int render_image_speckle(const double *rgb, int w, int h, size_t *count)
{
	*count = 0;
	if (!rgb || w <= 0 || h <= 0)
		return -1;
	for (size_t q = 0; q < 3 * (size_t)w * (size_t)h; q++)
		if (!isfinite(rgb[q]))
			return -1;
	for (int y = 1; y < h - 1; y++)
		for (int x = 1; x < w - 1; x++) {
			double l[9];
			int k = 0;

			for (int dy = -1; dy <= 1; dy++)
				for (int dx = -1; dx <= 1; dx++)
					l[k++] = render_speckle_luminance(
						&rgb[3 * ((size_t)(y + dy) * w + (x + dx))]);
			const double self = l[4];
			*count += fabs(self - render_speckle_median9(l)) > RENDER_SPECKLE_LEVELS / 255.0;
		}
	return 0;
}

int render_converge_params(const struct render_params *rp, const double lo[3], const double hi[3],
			   double max_voxels, struct render_params *conv)
{
	int dim[3];
	double v;
	if (!(max_voxels > 0.0) || max_voxels > RENDER_CONVERGE_MAX_VOXELS)
		max_voxels = RENDER_CONVERGE_MAX_VOXELS;
	*conv = *rp;
	conv->samples_per_unit = rp->samples_per_unit * RENDER_CONVERGE_SAMPLES;
	if (conv->alpha_samples == 0.0)
		conv->alpha_samples = rp->samples_per_unit;
	for (conv->res = rp->res * RENDER_CONVERGE_RES; conv->res > rp->res; conv->res--)
		if (render_field_shape(conv->res, lo, hi, dim, &v) == 0 &&
		    (double)dim[0] * dim[1] * dim[2] <= max_voxels)
			return 0;
	return -1;
}
