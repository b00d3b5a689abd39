/* render_validate.h - a float rendering stage's surface set, distance field and image against the double reference */
#ifndef HARNESS_RENDER_VALIDATE_H
#define HARNESS_RENDER_VALIDATE_H

#include <stdbool.h>
#include <stddef.h>

#include "../../reference/render_ref.h"

/*
 * Each stage of the rendering pipeline (reference/render_ref.h) is
 * checked on its own, element by element, against the double reference
 * given the same input: the surface set on the positions the variant
 * used, the distance field on the same surface particles, the image on
 * the same field and camera. Tolerances (reasoning in render_validate.c):
 *
 *   surface: the variant's flag equals the reference's for every
 *            particle, except where the particle's criterion lies within
 *            float rounding of a threshold: |com_off - com_threshold| <=
 *            RENDER_VALIDATE_COM_BAND (com_off in units of h), or the
 *            particle has a pair with |r^2 / h^2 - 1| < SPH_H_BAND
 *            (its neighbour set, hence its count and centre of mass, may
 *            differ in float);
 *   field:   every voxel's value within RENDER_VALIDATE_FIELD_ULPS ulps
 *            (render_validate_field_bound()) of the reference's rounded to
 *            float: the GPU stage computes each squared distance as the
 *            reference does, in double, and rounds once; a voxel the
 *            reference leaves at its maximum must hold exactly (float)max;
 *   image:   PSNR over all channels >= RENDER_VALIDATE_PSNR_DB.
 */
#define RENDER_VALIDATE_COM_BAND	1e-4
#define RENDER_VALIDATE_FIELD_ULPS	2
#define RENDER_VALIDATE_PSNR_DB		40.0

struct render_surface_check {
	size_t n;
	size_t ref_count, var_count;	/* surface particles */
	size_t mismatches;	/* disagreements not excused */
	size_t borderline;	/* disagreements excused (see above) */
	size_t worst;		/* the first mismatch not excused; n if none */
	bool pass;		/* mismatches == 0 */
};

/*
 * Compares the variant's surface flags var_surface[n] (1 or 0; anything
 * else is a mismatch) with the reference extraction (render_ref_surface
 * with p and rp) on the positions x[3n] the variant used. Returns 0, or
 * -1 (out->pass false) when the reference cannot run: a non-finite
 * position, or no memory.
 */
int render_validate_surface(const struct sph_params *p, const struct render_params *rp,
			    const double *x, size_t n, const unsigned char *var_surface,
			    struct render_surface_check *out);

struct render_field_check {
	size_t voxels;
	unsigned long long max_ulps;	/* largest ulp distance from (float)ref,
					 * over voxels where the reference holds
					 * a value below its maximum */
	double worst_ratio;	/* largest |var - (float)ref| / bound */
	size_t worst;		/* its voxel index */
	size_t max_mismatches;	/* reference at max, variant not exactly
				 * (float)max; or variant at (float)max beyond
				 * the bound of a reference value */
	size_t nonfinite;	/* variant values that are NaN or infinite */
	bool pass;		/* worst_ratio <= 1, none of the two above */
};

/* The largest |var - (float)ref| allowed at voxel v of ref (see above). */
double render_validate_field_bound(const struct render_field *ref, size_t v);

/*
 * Compares var_values (one float per voxel, ref's order and shape) with
 * the reference field ref. Returns 0, or -1 (out->pass false) for a
 * field without values.
 */
int render_validate_field(const struct render_field *ref, const float *var_values,
			  struct render_field_check *out);

struct render_image_check {
	double mse;		/* over every channel of every pixel, [0, 1] scale */
	double psnr_db;		/* 10 log10(1 / mse); +inf for identical images */
	double max_diff;	/* the largest channel difference */
	int worst_x, worst_y;	/* its pixel (row 0 the top) */
	size_t nonfinite;	/* variant channels that are NaN or infinite */
	bool pass;		/* psnr_db >= RENDER_VALIDATE_PSNR_DB, all finite */
};

/*
 * Compares two images of width x height pixels, rgb[3 width height] in
 * render_ref_raycast's layout, each channel in [0, 1]: the reference's
 * and the variant's widened to double (a float image as it is, an 8-bit
 * one divided by 255). Returns 0, or -1 (out->pass false) for an empty
 * image or a NULL array.
 */
int render_validate_image(const double *ref_rgb, const double *var_rgb, int width, int height,
			  struct render_image_check *out);

/*
 * Convergence of an image against a converged one of the same scene
 * (finer field and sampling, reference/render_ref.h), both in
 * render_ref_raycast's layout:
 *   PSNR   over every channel of every pixel (render_image_psnr), at least
 *          RENDER_CONVERGE_PSNR_DB;
 *   holes  of the pixels inside the fluid's silhouette (the converged
 *          opacity >= RENDER_HOLE_COVERED), the share that show the
 *          background: the image's largest channel distance from the
 *          background below RENDER_HOLE_SHOW times the converged image's
 *          (more than half of the background shows where the converged
 *          image shows water); at most RENDER_CONVERGE_HOLES.
 * 30 dB is an RMS error of 0.03 a channel: shading that moves with a
 * finer field's normals, edges a pixel off. Background in one silhouette
 * pixel of ten, the water's blue (0.15, 0.45, 0.85) against white, alone
 * costs an MSE of 0.1 x (0.85^2 + 0.55^2 + 0.15^2) / 3 = 0.035 times the
 * share of the image the fluid covers: 20.6 dB where it covers a quarter. 1 % of the silhouette allows a few edge pixels of a closed
 * surface. Measured in results/render.md (Convergence of the image).
 */
#define RENDER_CONVERGE_PSNR_DB	30.0
#define RENDER_CONVERGE_HOLES	0.01
#define RENDER_HOLE_COVERED	0.5
#define RENDER_HOLE_SHOW	0.5

/* PSNR [dB] of b against a (w x h RGB, [0, 1]): 10 log10(1 / MSE) over
 * every channel; +inf for identical images; NAN for a non-finite channel,
 * an empty image or a NULL array. */
double render_image_psnr(const double *a, const double *b, int w, int h);

struct render_holes {
	size_t silhouette;	/* pixels with converged opacity >= RENDER_HOLE_COVERED */
	size_t holes;		/* of those, the ones that show the background */
	double share;		/* holes / silhouette; 0 for an empty silhouette */
};

/* The holes (above) of rgb against the converged conv_rgb and its opacity
 * conv_alpha (w x h), over background bg. 0, or -1 for an empty image or
 * a NULL array. */
int render_image_holes(const double *conv_rgb, const double *conv_alpha, const double *rgb,
		       const double bg[3], int w, int h, struct render_holes *out);

struct render_converge_check {
	double psnr_db;
	struct render_holes holes;
	bool pass;		/* psnr_db >= RENDER_CONVERGE_PSNR_DB, share <= RENDER_CONVERGE_HOLES */
};

/* Both checks of rgb against the converged image; 0, or -1 (pass false)
 * as render_image_holes. */
int render_validate_converged(const double *conv_rgb, const double *conv_alpha, const double *rgb,
			      const double bg[3], int w, int h, struct render_converge_check *out);

/* The holes where both images' opacities are known (the GPU raycaster's,
 * render_gpu_read_opacity): a pixel of the silhouette whose opacity is
 * below RENDER_HOLE_SHOW times the converged one's, which is what the
 * contrast above measures for a uniform material; it holds for any
 * shading, the paper's environment behind the water included. */
int render_image_holes_opacity(const double *conv_alpha, const double *alpha, int w, int h,
			       struct render_holes *out);
int render_validate_converged_opacity(const double *conv_rgb, const double *conv_alpha,
				      const double *rgb, const double *alpha, int w, int h,
				      struct render_converge_check *out);

/*
 * Normals against surfaces whose normals are known. The raycaster reports
 * for each pixel the normal it shaded with and the point it belongs to
 * (render_ray_out.normal and .hit: the mean over the pixel's samples,
 * weighted as their colours are); truth[3 px] holds the true unit normal
 * of each pixel of the surface measured and NAN elsewhere (the truth
 * functions below). A pixel's error is the angle between the two, 180
 * degrees where the pixel had no normal. The goal: at least
 * RENDER_NORMAL_GOAL_SHARE of the surface's pixels within
 * RENDER_NORMAL_GOAL_DEG, a surface smooth at the particle spacing; the
 * layer of particles' bumps tilt the distance field's normals by tens of
 * degrees (results/render.md, Normals against known surfaces).
 */
#define RENDER_NORMAL_GOAL_DEG		5.0
#define RENDER_NORMAL_GOAL_SHARE	0.95

struct render_normal_check {
	size_t pixels;		/* of the surface measured */
	double median_deg, p90_deg, p95_deg, max_deg;	/* the angles' distribution */
	double within;		/* share within RENDER_NORMAL_GOAL_DEG */
	bool pass;		/* pixels > 0, within >= RENDER_NORMAL_GOAL_SHARE */
};

/* The angles of normal[3 px] against truth[3 px] (see above). 0, or -1
 * (out zeroed, pass false) for a NULL array or no memory. */
int render_validate_normals(const double *normal, const double *truth, size_t px,
			    struct render_normal_check *out);

/* The truth of a plane of unit normal n: every pixel of opacity[px] >=
 * RENDER_HOLE_COVERED whose hit[3 px] lies in the box lo .. hi gets n,
 * the others NAN. */
void render_normals_plane_truth(const double *hit, const double *opacity, size_t px,
				const double n[3], const double lo[3], const double hi[3],
				double *truth);

/* The truth of a ball about centre seen from eye: every pixel of opacity
 * >= RENDER_HOLE_COVERED gets the unit radial direction of its hit point,
 * where that faces the eye within max_deg (the rim, seen edge on, left
 * out), the others NAN. */
void render_normals_ball_truth(const double *hit, const double *opacity, size_t px,
			       const double centre[3], const double eye[3], double max_deg,
			       double *truth);

/*
 * Speckle: isolated pixels, the grain a surface's particle-scale bumps
 * leave in an image. A pixel off the image's border is a speckle when its
 * luminance (Rec. 709: 0.2126 R + 0.7152 G + 0.0722 B) lies more than
 * RENDER_SPECKLE_LEVELS / 255 (levels of an 8-bit image) above or below
 * the median of the nine luminances of its 3 x 3 neighbourhood, itself
 * included: a pixel unlike most of its neighbours, where an edge (half of
 * the neighbourhood on each side) or a smooth gradient moves the median
 * with it. 20 levels are 8 % of the range: above a frame's own shading
 * from pixel to pixel (Phong's highlight changes a few levels a pixel),
 * below what a bump's normal does (a normal tilted by 30 degrees moves
 * Phong's diffuse term by some 40 levels).
 */
#define RENDER_SPECKLE_LEVELS	20.0

/* The speckles of rgb (w x h, render_ref_raycast's layout) into *count.
 * 0, or -1 for an empty image, a NULL array or a non-finite channel. */
int render_image_speckle(const double *rgb, int w, int h, size_t *count);

/*
 * The converged setting of an image drawn at rp in the box lo .. hi:
 * RENDER_CONVERGE_RES times the field's resolution (less where the field
 * would pass max_voxels, or RENDER_CONVERGE_MAX_VOXELS where that is
 * larger or max_voxels <= 0, down to the largest res that fits, still
 * finer than rp's) and RENDER_CONVERGE_SAMPLES times the samples, opacity
 * per length kept (alpha_samples). 0, or -1 where no finer field fits.
 */
#define RENDER_CONVERGE_RES		2
#define RENDER_CONVERGE_SAMPLES		4.0
#define RENDER_CONVERGE_MAX_VOXELS	2147483648.0	/* 2^31: 43 GB at the GPU's 20 bytes a voxel */
int render_converge_params(const struct render_params *rp, const double lo[3], const double hi[3],
			   double max_voxels, struct render_params *conv);

#endif
