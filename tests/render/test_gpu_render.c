/* test_gpu_render.c - the GPU distance field and raycaster against the double reference; a planted bug is caught; bad input refused (suite gpu_render) */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../harness/core/gpu_device.h"
#include "../../harness/render/render_validate.h"
#include "../../kernels/render/render_gpu.h"
#include "../../reference/render_ref.h"
#include "../../reference/rng.h"
#include "../../reference/sph_scene.h"

/* The CUDA runtime's free-memory query (cuda_runtime_api.h, C linkage,
 * not on this file's include path); weak, so a build without nvcc links
 * (the tests skip before calling it). */
extern int cudaMemGetInfo(size_t *free_bytes, size_t *total_bytes) __attribute__((weak));

/* The cloud: GR_CLOUD random particles in GR_LO .. GR_HI and up to 2 r
 * beyond it (boxes cut by every face), spacing GR_D at GR_RES voxels on
 * the longest side: r = 1.5 d = 1.9 voxels, so boxes overlap in places
 * and leave voxels at the maximum in others. */
#define GR_CLOUD 2000
#define GR_D 0.008
#define GR_RES 64
#define GR_SEED 11
static const double gr_lo[3] = { 0.1, -0.2, 0.05 }, gr_hi[3] = { 0.42, 0.04, 0.45 };

/* The image: a small column's surface at GR_W x GR_H. */
#define GR_COLUMN "8x4x16@4"
#define GR_W 160
#define GR_H 90

/* Skips the calling test, with the reason, when no GPU can run here. */
static void gr_require_gpu(void)
{
	const char *why = gpu_unavailable_reason();

	if (why)
		cr_skip_test("no GPU here: %s", why);
}

/* Surface positions: pos4 (x, y, z, 0) floats for the GPU, s the same
 * widened to double for the reference. */
struct gr_surface {
	size_t m;
	float *pos4;
	double *s;
};

static void gr_surface_alloc(struct gr_surface *g, size_t m)
{
	g->m = m;
	g->pos4 = calloc(4 * m + 4, sizeof *g->pos4);
	g->s = calloc(3 * m + 3, sizeof *g->s);
	cr_assert(g->pos4 && g->s);
}

static void gr_surface_set(struct gr_surface *g, size_t q, const float x[3])
{
	for (int k = 0; k < 3; k++) {
		g->pos4[4 * q + k] = x[k];
		g->s[3 * q + k] = x[k];
	}
}

static void gr_surface_free(struct gr_surface *g)
{
	free(g->pos4);
	free(g->s);
}

/* render_ref.h's defaults for spacing GR_D at GR_RES. */
static void gr_params(struct render_params *rp)
{
	struct sph_params p;

	sph_params_water(&p, GR_D, 0.3);
	render_params_default(rp, &p);
	rp->res = GR_RES;
}

/* The cloud of m particles (see GR_CLOUD). */
static void gr_cloud(struct gr_surface *g, const struct render_params *rp, size_t m)
{
	struct rng r;

	gr_surface_alloc(g, m);
	rng_seed(&r, GR_SEED);
	for (size_t q = 0; q < m; q++) {
		float x[3];

		for (int k = 0; k < 3; k++)
			x[k] = (float)(gr_lo[k] - 2.0 * rp->r +
				       (gr_hi[k] - gr_lo[k] + 4.0 * rp->r) * rng_uniform(&r));
		gr_surface_set(g, q, x);
	}
}

/* A float's place in the order of all non-negative floats. */
static int64_t gr_bits(float f)
{
	int32_t i;

	memcpy(&i, &f, sizeof i);
	return i;
}

/* How the GPU field var compares with the reference's rounded to float. */
struct gr_field_diff {
	size_t differ;		/* voxels not bit for bit (float)ref */
	int64_t max_ulps;
	size_t set;		/* voxels of (float)ref below (float)max */
};

static struct gr_field_diff gr_field_diff(const struct render_field *f, const float *var)
{
	const size_t n = (size_t)f->dim[0] * f->dim[1] * f->dim[2];
	const float maxf = (float)f->max;
	struct gr_field_diff d = { 0, 0, 0 };

	for (size_t v = 0; v < n; v++) {
		const float r = (float)f->value[v];
		const int64_t u = llabs(gr_bits(r) - gr_bits(var[v]));

		d.differ += memcmp(&r, &var[v], sizeof r) != 0;
		d.max_ulps = u > d.max_ulps ? u : d.max_ulps;
		d.set += r < maxf;
	}
	return d;
}

/* The GPU field of g (no camera), read back into a new array (and its
 * count of voxels set); the context stays in *rg for the caller. */
static float *gr_gpu_field(struct render_gpu **rg, const struct render_params *rp,
			   const struct gr_surface *g, enum render_gpu_test mode, size_t *set)
{
	char err[256] = "";
	float *values;

	cr_assert(render_gpu_create(rg, rp, gr_lo, gr_hi, NULL, g->m, err, sizeof err) == 0, "%s",
		  err);
	render_gpu_test_mode(*rg, mode);
	values = malloc(render_gpu_voxels(*rg) * sizeof *values);
	cr_assert(values);
	cr_assert(render_gpu_upload_surface(*rg, g->pos4, g->m) == 0 &&
			  render_gpu_field(*rg, g->m) == 0 &&
			  render_gpu_read_field(*rg, values) == 0 &&
			  render_gpu_voxels_set(*rg, set) == 0,
		  "%s", render_gpu_error(*rg));
	return values;
}

/* The GPU field of g equals the reference's rounded to float in every
 * voxel, and passes render_validate_field; what it means to say. */
static void gr_expect_exact(const struct gr_surface *g, const char *what)
{
	struct render_params rp;
	struct render_field f;
	struct render_field_check fc;
	struct render_gpu_times t;
	struct render_gpu *rg = NULL;
	size_t set = 0;

	gr_params(&rp);
	cr_assert(render_ref_field(&rp, gr_lo, gr_hi, g->s, g->m, &f) == 0);
	float *values = gr_gpu_field(&rg, &rp, g, RENDER_GPU_TEST_OFF, &set);
	const size_t n = (size_t)f.dim[0] * f.dim[1] * f.dim[2];
	const struct gr_field_diff d = gr_field_diff(&f, values);

	render_gpu_times(rg, &t);
	cr_assert_eq(render_gpu_voxels(rg), n, "%s: %zu voxels, the reference %zu", what,
		     render_gpu_voxels(rg), n);
	cr_assert_eq(render_validate_field(&f, values, &fc), 0);
	cr_log_info("%s: %zu voxels (%zu set), %zu differ from the reference rounded to float, "
		    "max %lld ulps; GPU time %.3f ms",
		    what, n, d.set, d.differ, (long long)d.max_ulps, 1e3 * t.field_s);
	cr_expect(d.set > 0 && d.set < n, "%s: %zu of %zu voxels set: not a test", what, d.set, n);
	cr_expect_eq(d.differ, 0, "%s: %zu voxels differ, max %lld ulps", what, d.differ,
		     (long long)d.max_ulps);
	cr_expect(fc.pass, "%s: validation: %.3f of the bound, %zu at-max mismatches", what,
		  fc.worst_ratio, fc.max_mismatches);
	cr_expect_eq(set, d.set, "%s: render_gpu_voxels_set %zu, the reference %zu", what, set,
		     d.set);
	cr_expect(t.field_s > 0.0, "%s: field time %g s", what, t.field_s);
	free(values);
	render_gpu_destroy(rg);
	render_field_free(&f);
}

/* ---- (a) the field, bit for bit ----------------------------------------- */

Test(gpu_render, field_of_a_cloud_is_the_reference_bit_for_bit, .timeout = 60)
{
	struct render_params rp;
	struct gr_surface g;

	gr_require_gpu();
	gr_params(&rp);
	gr_cloud(&g, &rp, GR_CLOUD);
	gr_expect_exact(&g, "cloud of 2000");
	gr_surface_free(&g);
}

/* One particle off the lattice of voxels: its box alone, every value the
 * reference's own distance. */
Test(gpu_render, field_of_one_particle_is_the_reference_bit_for_bit, .timeout = 60)
{
	const float x[3] = { 0.2337f, -0.0411f, 0.2623f };
	struct gr_surface g;

	gr_require_gpu();
	gr_surface_alloc(&g, 1);
	gr_surface_set(&g, 0, x);
	gr_expect_exact(&g, "one particle");
	gr_surface_free(&g);
}

/* ---- (b) the image ------------------------------------------------------- */

/* The column's surface particles (the reference's extraction) and its
 * render parameters at res. */
static void gr_column(struct gr_surface *g, struct sph_scene *sc, struct render_params *rp,
		      int res)
{
	struct sph_column col;
	char err[256] = "";
	unsigned char *surf;
	double *x;
	size_t m;

	cr_assert_eq(sph_scene_column_parse(GR_COLUMN, &col, err, sizeof err), 0, "%s", err);
	cr_assert_eq(sph_scene_build(&col, 5, sc, err, sizeof err), 0, "%s", err);
	render_params_default(rp, &sc->p);
	rp->res = res;
	x = malloc(3 * sc->n * sizeof *x);
	surf = malloc(sc->n);
	cr_assert(x && surf);
	for (size_t i = 0; i < sc->n; i++)
		for (int k = 0; k < 3; k++)
			x[3 * i + k] = sc->pos4[4 * i + k];
	cr_assert_eq(render_ref_surface(&sc->p, rp, x, sc->n, surf, &m), 0);
	gr_surface_alloc(g, m);
	for (size_t i = 0, q = 0; i < sc->n; i++)
		if (surf[i])
			gr_surface_set(g, q++, &sc->pos4[4 * i]);
	free(x);
	free(surf);
}

/* The GPU image of g through camera cam, with skipping or without. */
static float *gr_gpu_image(const struct render_params *rp, const struct sph_scene *sc,
			   const struct render_camera *cam, const struct gr_surface *g,
			   enum render_gpu_test mode)
{
	struct render_gpu *rg = NULL;
	float *rgb = malloc(3 * (size_t)cam->width * cam->height * sizeof *rgb);
	char err[256] = "";
	struct render_gpu_times t;

	cr_assert(rgb);
	cr_assert(render_gpu_create(&rg, rp, sc->p.box_lo, sc->p.box_hi, cam, g->m, err,
				    sizeof err) == 0,
		  "%s", err);
	render_gpu_test_mode(rg, mode);
	cr_assert(render_gpu_upload_surface(rg, g->pos4, g->m) == 0 &&
			  render_gpu_field(rg, g->m) == 0 && render_gpu_raycast(rg) == 0 &&
			  render_gpu_read_image(rg, rgb) == 0,
		  "%s", render_gpu_error(rg));
	render_gpu_times(rg, &t);
	cr_expect(t.raycast_s > 0.0, "raycast time %g s", t.raycast_s);
	render_gpu_destroy(rg);
	return rgb;
}

/*
 * The column's image matches render_ref_raycast's of the reference field
 * (PSNR >= 40 dB), and is the same bit for bit with every brick occupied:
 * skipping empty bricks skips nothing that counts. The reference image
 * shows water (a blank one would pass anything).
 */
/* The GPU's image in shading against the reference's, with and without
 * the skipping; "water" counts the reference's channels that differ by
 * more than 0.1 from its image of the same field emptied (the background,
 * or the paper's environment). */
static void gr_image_check(int shading)
{
	const size_t channels = 3 * (size_t)GR_W * GR_H;
	struct render_params rp;
	struct render_camera cam;
	struct render_field f;
	struct render_image_check ic;
	struct sph_scene sc;
	struct gr_surface g;
	double *ref = malloc(channels * sizeof *ref), *var = malloc(channels * sizeof *var);
	double *bare = malloc(channels * sizeof *bare);
	size_t water = 0;

	gr_require_gpu();
	cr_assert(ref && var && bare);
	gr_column(&g, &sc, &rp, GR_RES);
	cr_assert_eq(render_params_shading(&rp, shading), 0);
	render_camera_default(&cam, sc.p.box_lo, sc.p.box_hi, GR_W, GR_H);
	cr_assert_eq(render_ref_field(&rp, sc.p.box_lo, sc.p.box_hi, g.s, g.m, &f), 0);
	cr_assert_eq(render_ref_raycast(&rp, &f, &cam, ref), 0);
	float *img = gr_gpu_image(&rp, &sc, &cam, &g, RENDER_GPU_TEST_OFF);
	float *all = gr_gpu_image(&rp, &sc, &cam, &g, RENDER_GPU_TEST_NO_SKIP);
	const size_t nvox = (size_t)f.dim[0] * f.dim[1] * f.dim[2];
	double *kept = f.value;
	cr_assert_not_null(f.value = malloc(nvox * sizeof *f.value));
	for (size_t q = 0; q < nvox; q++)
		f.value[q] = f.max;
	cr_assert_eq(render_ref_raycast(&rp, &f, &cam, bare), 0);
	free(f.value);
	f.value = kept;

	for (size_t q = 0; q < channels; q++) {
		var[q] = img[q];
		water += fabs(ref[q] - bare[q]) > 0.1;
	}
	cr_assert_eq(render_validate_image(ref, var, GR_W, GR_H, &ic), 0);
	cr_log_info("%s shading, %s at res %d, %zu surface particles, %dx%d: PSNR %.1f dB, max diff "
		    "%.2e at (%d, %d); %zu of %zu reference channels off the empty field's by > 0.1",
		    shading == RENDER_SHADING_PAPER ? "paper's" : "Phong", GR_COLUMN, GR_RES, g.m, GR_W,
		    GR_H, ic.psnr_db, ic.max_diff, ic.worst_x, ic.worst_y, water, channels);
	cr_expect(water > channels / 100, "the reference image is nearly blank (%zu channels)",
		  water);
	cr_expect(ic.pass, "PSNR %.1f dB (at least %.0f), max diff %.3g at (%d, %d)", ic.psnr_db,
		  RENDER_VALIDATE_PSNR_DB, ic.max_diff, ic.worst_x, ic.worst_y);
	cr_expect(memcmp(img, all, channels * sizeof *img) == 0,
		  "the image changes when no brick is skipped");
	free(img);
	free(all);
	free(ref);
	free(var);
	free(bare);
	render_field_free(&f);
	gr_surface_free(&g);
	sph_scene_free(&sc);
}

Test(gpu_render, image_matches_the_reference_and_skipping_changes_nothing, .timeout = 60)
{
	gr_image_check(RENDER_SHADING_PHONG);
}

Test(gpu_render, paper_shading_matches_the_reference_and_skipping_changes_nothing, .timeout = 60)
{
	gr_image_check(RENDER_SHADING_PAPER);
}

/* The GPU's image of g at q through cam, widened into rgb[3 px] and its
 * opacity into alpha[px] (either may be NULL). */
static void gr_gpu_image_opacity(const struct render_params *q, const struct sph_scene *sc,
				 const struct render_camera *cam, const struct gr_surface *g,
				 double *rgb, double *alpha)
{
	const size_t px = (size_t)cam->width * cam->height;
	float *img = malloc(4 * px * sizeof *img);
	struct render_gpu *rg = NULL;
	char err[256] = "";

	cr_assert(img);
	cr_assert(render_gpu_create(&rg, q, sc->p.box_lo, sc->p.box_hi, cam, g->m, err,
				    sizeof err) == 0,
		  "%s", err);
	cr_assert(render_gpu_upload_surface(rg, g->pos4, g->m) == 0 &&
			  render_gpu_field(rg, g->m) == 0 && render_gpu_raycast(rg) == 0 &&
			  render_gpu_read_image(rg, img) == 0 &&
			  render_gpu_read_opacity(rg, img + 3 * px) == 0,
		  "%s", render_gpu_error(rg));
	render_gpu_destroy(rg);
	for (size_t i = 0; rgb && i < 3 * px; i++)
		rgb[i] = img[i];
	for (size_t i = 0; alpha && i < px; i++)
		alpha[i] = img[3 * px + i];
	free(img);
}

/*
 * Each pixel's opacity, and the opacity per length at another step: the
 * column's GPU image and opacity against the reference's, in shading, at
 * the default step and at four times its samples with alpha defined at
 * the default (each sample's alpha corrected to 1 - (1 - alpha)^(1/4)):
 * PSNR >= 40 dB and the opacity within 1e-3 at all but 0.1 % of the
 * pixels (in the paper's shading a ray refracted at a grazing angle may
 * leave the water at the next sample in float and the one before in
 * double: one pixel of 14,400 differed by 3.3e-3 at 4x the samples). The
 * GPU's 4x opacity is also far from the reference's uncorrected one at
 * 4x the samples (the correction ran).
 */
static void gr_opacity_check(int shading)
{
	const size_t px = (size_t)GR_W * GR_H;
	struct render_params rp;
	struct render_camera cam;
	struct render_field f;
	struct sph_scene sc;
	struct gr_surface g;
	double *ref = malloc(3 * px * sizeof *ref), *var = malloc(3 * px * sizeof *var);
	double *ref_a = malloc(px * sizeof *ref_a);
	double *var_a = malloc(px * sizeof *var_a);

	gr_require_gpu();
	cr_assert(ref && var && ref_a && var_a);
	gr_column(&g, &sc, &rp, GR_RES);
	cr_assert_eq(render_params_shading(&rp, shading), 0);
	render_camera_default(&cam, sc.p.box_lo, sc.p.box_hi, GR_W, GR_H);
	cr_assert_eq(render_ref_field(&rp, sc.p.box_lo, sc.p.box_hi, g.s, g.m, &f), 0);
	for (int fine = 0; fine < 2; fine++) {
		struct render_params q = rp;
		struct render_ray_out out = { .opacity = ref_a };
		struct render_image_check ic;
		double worst = 0.0;
		size_t off = 0;

		if (fine) {
			q.alpha_samples = rp.samples_per_unit;
			q.samples_per_unit = 4.0 * rp.samples_per_unit;
		}
		cr_assert_eq(render_ref_raycast_ex(&q, &f, &cam, 1, ref, &out), 0);
		gr_gpu_image_opacity(&q, &sc, &cam, &g, var, var_a);
		for (size_t k = 0; k < px; k++) {
			worst = fmax(worst, fabs(var_a[k] - ref_a[k]));
			off += fabs(var_a[k] - ref_a[k]) > 1e-3;
		}
		cr_assert_eq(render_validate_image(ref, var, GR_W, GR_H, &ic), 0);
		cr_log_info("%s shading, %s samples: PSNR %.1f dB, opacity within %.2e, "
			    "%zu of %zu pixels off by > 1e-3",
			    shading == RENDER_SHADING_PAPER ? "paper's" : "Phong",
			    fine ? "4x the" : "the default", ic.psnr_db, worst, off, px);
		cr_expect(ic.pass, "%s samples: PSNR %.1f dB", fine ? "4x" : "1x", ic.psnr_db);
		cr_expect_leq(off, px / 1000, "%s samples: %zu pixels' opacity off by > 1e-3",
			      fine ? "4x" : "1x", off);
		if (fine) {
			struct render_params u = q;
			struct render_ray_out uo = { .opacity = ref_a };
			double far = 0.0;

			u.alpha_samples = 0.0;
			cr_assert_eq(render_ref_raycast_ex(&u, &f, &cam, 1, ref, &uo), 0);
			for (size_t k = 0; k < px; k++)
				far = fmax(far, ref_a[k] - var_a[k]);
			cr_expect_gt(far, 0.05,
				     "4x the samples drew the uncorrected opacity (at most %g "
				     "above the GPU's): no correction ran",
				     far);
		}
	}
	free(ref);
	free(var);
	free(ref_a);
	free(var_a);
	render_field_free(&f);
	gr_surface_free(&g);
	sph_scene_free(&sc);
}

Test(gpu_render, opacity_and_its_step_correction_match_the_reference, .timeout = 60)
{
	gr_opacity_check(RENDER_SHADING_PHONG);
	gr_opacity_check(RENDER_SHADING_PAPER);
}

/*
 * The converged check as rendering rows run it (render_converge_params,
 * render_validate_converged_opacity) on the column at its own default
 * step passes; drawn at a 32nd of the samples (a step of 16 bands: rays
 * step over the surface) it fails, on holes or PSNR, as the reference's
 * does (render_validate::converge_a_coarse_step_fails_a_fine_one_passes).
 */
Test(gpu_render, a_coarse_step_fails_the_converged_check, .timeout = 60)
{
	const size_t px = (size_t)GR_W * GR_H;
	struct render_params rp, conv;
	struct render_camera cam;
	struct sph_scene sc;
	struct gr_surface g;
	double *rgb[3], *alpha[3];

	gr_require_gpu();
	gr_column(&g, &sc, &rp, GR_RES);
	rp.alpha_samples = rp.samples_per_unit;
	cr_assert_eq(render_converge_params(&rp, sc.p.box_lo, sc.p.box_hi, 0.0, &conv), 0);
	cr_assert_eq(conv.res, 2 * rp.res);
	render_camera_default(&cam, sc.p.box_lo, sc.p.box_hi, GR_W, GR_H);
	for (int k = 0; k < 3; k++) {
		struct render_params q = k == 0 ? conv : rp;

		if (k == 2)
			q.samples_per_unit = rp.samples_per_unit / 32.0;
		rgb[k] = malloc(3 * px * sizeof *rgb[k]);
		alpha[k] = malloc(px * sizeof *alpha[k]);
		cr_assert(rgb[k] && alpha[k]);
		gr_gpu_image_opacity(&q, &sc, &cam, &g, rgb[k], alpha[k]);
	}
	struct render_converge_check ok, coarse;
	cr_assert_eq(render_validate_converged_opacity(rgb[0], alpha[0], rgb[1], alpha[1], GR_W,
						       GR_H, &ok), 0);
	cr_assert_eq(render_validate_converged_opacity(rgb[0], alpha[0], rgb[2], alpha[2], GR_W,
						       GR_H, &coarse), 0);
	cr_log_info("converged check on %s: default step %.1f dB, holes %zu of %zu; a 32nd of "
		    "the samples %.1f dB, holes %zu",
		    GR_COLUMN, ok.psnr_db, ok.holes.holes, ok.holes.silhouette, coarse.psnr_db,
		    coarse.holes.holes);
	cr_expect_gt(ok.holes.silhouette, px / 50, "the silhouette is nearly empty");
	cr_expect(ok.pass, "the default step: %.1f dB, holes %.2f %%", ok.psnr_db,
		  100.0 * ok.holes.share);
	cr_expect(!coarse.pass, "a 32nd of the samples passed: %.1f dB, holes %.2f %%",
		  coarse.psnr_db, 100.0 * coarse.holes.share);
	for (int k = 0; k < 3; k++) {
		free(rgb[k]);
		free(alpha[k]);
	}
	gr_surface_free(&g);
	sph_scene_free(&sc);
}

/* Surface g through rg: its field and image read back into field, img. */
static void gr_draw(struct render_gpu *rg, const struct gr_surface *g, float *field, float *img)
{
	cr_assert(render_gpu_upload_surface(rg, g->pos4, g->m) == 0 &&
			  render_gpu_field(rg, g->m) == 0 && render_gpu_raycast(rg) == 0 &&
			  render_gpu_read_image(rg, img) == 0 && render_gpu_read_field(rg, field) == 0,
		  "%s", render_gpu_error(rg));
}

/*
 * A context draws each field afresh whatever it drew before: the reset
 * runs over the bricks the last field touched and the voxels kernel over
 * those touched now or then, and nothing else is written, so the
 * column's surface, then the same surface moved a tenth of the box along
 * x, then the first again, each give the field and the image a fresh
 * context gives, bit for bit.
 */
Test(gpu_render, each_field_is_drawn_afresh_after_another, .timeout = 60)
{
	const size_t px = (size_t)GR_W * GR_H;
	struct render_params rp;
	struct render_camera cam;
	struct sph_scene sc;
	struct gr_surface g, moved;
	struct render_gpu *rg = NULL, *fresh = NULL;
	char err[256] = "";

	gr_require_gpu();
	gr_column(&g, &sc, &rp, GR_RES);
	render_camera_default(&cam, sc.p.box_lo, sc.p.box_hi, GR_W, GR_H);
	gr_surface_alloc(&moved, g.m);
	const float dx = (float)(0.1 * (sc.p.box_hi[0] - sc.p.box_lo[0]));
	for (size_t q = 0; q < g.m; q++) {
		const float x[3] = { g.pos4[4 * q] + dx, g.pos4[4 * q + 1], g.pos4[4 * q + 2] };
		gr_surface_set(&moved, q, x);
	}
	cr_assert(render_gpu_create(&rg, &rp, sc.p.box_lo, sc.p.box_hi, &cam, g.m, err,
				    sizeof err) == 0,
		  "%s", err);
	const size_t nvox = render_gpu_voxels(rg);
	float *field = malloc(nvox * sizeof *field), *field0 = malloc(nvox * sizeof *field0);
	float *img = malloc(3 * px * sizeof *img), *img0 = malloc(3 * px * sizeof *img0);
	cr_assert(field && field0 && img && img0);
	const struct gr_surface *order[3] = { &g, &moved, &g };
	for (int k = 0; k < 3; k++) {
		gr_draw(rg, order[k], field, img);
		cr_assert(render_gpu_create(&fresh, &rp, sc.p.box_lo, sc.p.box_hi, &cam, g.m, err,
					    sizeof err) == 0,
			  "%s", err);
		gr_draw(fresh, order[k], field0, img0);
		render_gpu_destroy(fresh);
		cr_expect(memcmp(field, field0, nvox * sizeof *field) == 0,
			  "field %d differs from a fresh context's", k);
		cr_expect(memcmp(img, img0, 3 * px * sizeof *img) == 0,
			  "image %d differs from a fresh context's", k);
	}
	render_gpu_destroy(rg);
	free(field);
	free(field0);
	free(img);
	free(img0);
	gr_surface_free(&moved);
	gr_surface_free(&g);
	sph_scene_free(&sc);
}

/* ---- (c) a planted bug --------------------------------------------------- */

/* Every box rasterised one voxel short at +x: validation must fail. */
Test(gpu_render, planted_short_box_is_caught, .timeout = 60)
{
	struct render_params rp;
	struct render_field f;
	struct render_field_check fc;
	struct render_gpu *rg = NULL;
	struct gr_surface g;
	size_t set;

	gr_require_gpu();
	gr_params(&rp);
	gr_cloud(&g, &rp, GR_CLOUD);
	cr_assert(render_ref_field(&rp, gr_lo, gr_hi, g.s, g.m, &f) == 0);
	float *values = gr_gpu_field(&rg, &rp, &g, RENDER_GPU_TEST_SHORT_BOX, &set);

	cr_assert_eq(render_validate_field(&f, values, &fc), 0);
	cr_log_info("planted short box: %s (%.3g of the bound, %zu at-max mismatches)",
		    fc.pass ? "NOT CAUGHT" : "caught by validation", fc.worst_ratio,
		    fc.max_mismatches);
	cr_expect(!fc.pass, "a box one voxel short at +x passed validation");
	free(values);
	render_gpu_destroy(rg);
	render_field_free(&f);
	gr_surface_free(&g);
}

/* ---- (d) bad input ------------------------------------------------------- */

/* Free device memory, after the context exists. */
static size_t gr_free_bytes(void)
{
	size_t free_bytes = 0, total = 0;

	cr_assert(cudaMemGetInfo && cudaMemGetInfo(&free_bytes, &total) == 0);
	return free_bytes;
}

/* A create that must fail: -1, *r NULL, a message containing what. */
static void gr_expect_refused(const struct render_params *rp, const double lo[3],
			      const double hi[3], const struct render_camera *cam, size_t m,
			      const char *what)
{
	struct render_gpu *rg = (struct render_gpu *)&rg;	/* any non-NULL: create must clear it */
	char err[256] = "";

	cr_expect_eq(render_gpu_create(&rg, rp, lo, hi, cam, m, err, sizeof err), -1,
		     "%s: accepted", what);
	cr_expect_null(rg, "%s: a context returned", what);
	cr_expect(strstr(err, what) != NULL, "%s: the message is \"%s\"", what, err);
	if (rg && rg != (struct render_gpu *)&rg)
		render_gpu_destroy(rg);
}

/*
 * res 0, a camera of no pixels, a band of 0 and too many surface
 * particles are refused before anything is allocated; a field too large
 * for the device (a cube whose values fit and whose per-voxel data do
 * not) fails in cudaMalloc and frees what it had. Device memory is the
 * same after as before.
 */
Test(gpu_render, bad_input_is_refused_and_nothing_leaks, .timeout = 60)
{
	struct render_params rp, bad;
	struct render_camera cam, none;
	struct render_gpu *rg = NULL;
	char err[256] = "";

	gr_require_gpu();
	gr_params(&rp);
	render_camera_default(&cam, gr_lo, gr_hi, 16, 9);
	/* a first context, so the CUDA context's own memory is already taken */
	cr_assert(render_gpu_create(&rg, &rp, gr_lo, gr_hi, &cam, 1, err, sizeof err) == 0, "%s",
		  err);
	render_gpu_destroy(rg);
	const size_t before = gr_free_bytes();

	bad = rp;
	bad.res = 0;
	gr_expect_refused(&bad, gr_lo, gr_hi, &cam, 1, "res 0");
	none = cam;
	none.width = none.height = 0;
	gr_expect_refused(&rp, gr_lo, gr_hi, &none, 1, "0 x 0 pixels");
	bad = rp;
	bad.band = 0.0;
	gr_expect_refused(&bad, gr_lo, gr_hi, &cam, 1, "band 0");
	gr_expect_refused(&rp, gr_lo, gr_hi, &cam, (size_t)1 << 40, "surface particles");

	/* values (4 bytes a voxel) fit in a third of the free memory, the
	 * float4 per voxel do not */
	const double side = cbrt((double)before / 12.0);
	const double lo[3] = { 0.0, 0.0, 0.0 }, hi[3] = { 1.0, 1.0, 1.0 };
	bad = rp;
	bad.res = (int)side - 1;
	if (bad.res <= 4096) {
		cr_expect_eq(render_gpu_create(&rg, &bad, lo, hi, NULL, 1, err, sizeof err), -1,
			     "a field of %d^3 voxels fit", bad.res + 1);
		cr_expect_null(rg);
		cr_log_info("a field of %d^3 voxels: %s", bad.res + 1, err);
		cr_expect(strstr(err, "cudaMalloc") != NULL, "the message is \"%s\"", err);
	}
	const size_t after = gr_free_bytes();
	cr_expect(after + ((size_t)16 << 20) >= before,
		  "device memory free before %zu, after the failures %zu bytes", before, after);
}
