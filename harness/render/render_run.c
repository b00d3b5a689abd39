/* render_run.c - the SPH paper's rendering pipeline on an SPH variant's state: validated, then timed frame by frame */
#include "render_run.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../kernels/render/render_gpu.h"
#include "../core/gpu_device.h"
#include "../core/stats.h"
#include "../core/timing.h"

/* The surface positions the variant flagged, as doubles, in the
 * caller's order (the reference's input). */
static double *render_run_surface_of(const float *pos4, const unsigned char *flags, size_t n,
				     size_t *m)
{
	size_t count = 0;
	for (size_t i = 0; i < n; i++)
		count += flags[i] == 1;
	double *s = malloc((count ? 3 * count : 1) * sizeof *s);
	if (!s)
		return NULL;
	for (size_t i = 0, k = 0; i < n; i++)
		if (flags[i] == 1) {
			for (int d = 0; d < 3; d++)
				s[3 * k + d] = pos4[4 * i + d];
			k++;
		}
	*m = count;
	return s;
}

/* One extraction into rg's buffer: directly for a GPU variant; for a CPU
 * one into host, then uploaded (the upload not timed). 0 or -1. */
static int render_run_extract(const struct sph_ops *ops, void *ctx, struct render_gpu *rg,
			      float *host, struct sph_surface_request *rq, char *err, size_t errlen)
{
	rq->pos4 = host ? host : render_gpu_surface_buffer(rg);
	if (ops->surface(ctx, rq) != 0) {
		snprintf(err, errlen, "surface extraction failed: %s", ops->error(ctx));
		return -1;
	}
	if (host && render_gpu_upload_surface(rg, host, rq->count) != 0) {
		snprintf(err, errlen, "%s", render_gpu_error(rg));
		return -1;
	}
	return 0;
}

/* The m surface positions spos4 rasterised and raycast on the GPU at rp
 * in a context of their own (camera cam): the image rgb[3 px] and each
 * pixel's opacity[px], widened to double. 0, or -1 with err. */
static int render_run_gpu_image(const struct render_params *rp, const struct sph_params *p,
				const struct render_camera *cam, const float *spos4, size_t m,
				double *rgb, double *opacity, char *err, size_t errlen)
{
	struct render_gpu *g = NULL;
	const size_t px = (size_t)cam->width * (size_t)cam->height;
	float *img = malloc(4 * px * sizeof *img);
	int rc = -1;
	if (!img) {
		snprintf(err, errlen, "out of memory for the image check");
		goto out;
	}
	if (render_gpu_create(&g, rp, p->box_lo, p->box_hi, cam, m ? m : 1, err, errlen) != 0)
		goto out;
	if (render_gpu_upload_surface(g, spos4, m) != 0 || render_gpu_field(g, m) != 0 ||
	    render_gpu_raycast(g) != 0 || render_gpu_read_image(g, img) != 0 ||
	    render_gpu_read_opacity(g, img + 3 * px) != 0) {
		snprintf(err, errlen, "%s", render_gpu_error(g));
		goto out;
	}
	for (size_t k = 0; k < 3 * px; k++)
		rgb[k] = img[k];
	for (size_t k = 0; k < px; k++)
		opacity[k] = img[3 * px + k];
	rc = 0;
out:
	render_gpu_destroy(g);
	free(img);
	return rc;
}

/* The image checks: the m surface positions the variant flagged (spos4)
 * rasterised and raycast on the GPU at the check size, against the
 * reference's raycast of the reference field of the same particles (ic),
 * and against the GPU's own raycast of them at the converged setting
 * conv (cc; the GPU's images are the reference's, ic says, so this
 * measures how far rp is from converged, not the implementation). */
static int render_run_image(const struct render_params *rp, const struct render_params *conv,
			    const struct sph_params *p, const struct render_field *ref,
			    const float *spos4, size_t m, struct render_image_check *ic,
			    struct render_converge_check *cc, char *err, size_t errlen)
{
	struct render_camera cam;
	const size_t px = (size_t)RENDER_RUN_CHECK_W * RENDER_RUN_CHECK_H;
	double *ref_rgb = malloc(3 * px * sizeof *ref_rgb), *var_rgb = malloc(3 * px * sizeof *var_rgb);
	double *conv_rgb = malloc(3 * px * sizeof *conv_rgb), *var_a = malloc(px * sizeof *var_a);
	double *conv_a = malloc(px * sizeof *conv_a);
	int rc = -1;
	render_camera_default(&cam, p->box_lo, p->box_hi, RENDER_RUN_CHECK_W, RENDER_RUN_CHECK_H);
	if (!ref_rgb || !var_rgb || !conv_rgb || !var_a || !conv_a) {
		snprintf(err, errlen, "out of memory for the image check");
		goto out;
	}
	if (render_run_gpu_image(rp, p, &cam, spos4, m, var_rgb, var_a, err, errlen) != 0)
		goto out;
	if (render_ref_raycast(rp, ref, &cam, ref_rgb) != 0) {
		snprintf(err, errlen, "the reference raycaster refused the field");
		goto out;
	}
	render_validate_image(ref_rgb, var_rgb, RENDER_RUN_CHECK_W, RENDER_RUN_CHECK_H, ic);
	if (render_run_gpu_image(conv, p, &cam, spos4, m, conv_rgb, conv_a, err, errlen) != 0)
		goto out;
	render_validate_converged_opacity(conv_rgb, conv_a, var_rgb, var_a, RENDER_RUN_CHECK_W,
					  RENDER_RUN_CHECK_H, cc);
	rc = 0;
out:
	free(ref_rgb);
	free(var_rgb);
	free(conv_rgb);
	free(var_a);
	free(conv_a);
	return rc;
}

/* Validation of the three stages on the current state (see the header). */
static int render_run_validate(const struct sph_ops *ops, void *ctx, const struct sph_params *p,
			       const struct render_params *rp, const struct render_params *conv,
			       size_t n, struct render_gpu *rg,
			       float *host, struct render_run_result *out, char *err,
			       size_t errlen)
{
	struct sph_surface_request rq = { rp->com_threshold, rp->min_neighbours, NULL, NULL, 0, 0.0 };
	struct render_field ref = { 0 };
	unsigned char *flags = malloc(n);
	float *pos4 = malloc(4 * n * sizeof *pos4), *spos4 = NULL, *values = NULL;
	double *x = malloc(3 * n * sizeof *x), *s = NULL;
	size_t m = 0;
	int rc = -1;
	if (!flags || !pos4 || !x) {
		snprintf(err, errlen, "out of memory for %zu particles", n);
		goto out;
	}
	rq.flags = flags;
	if (render_run_extract(ops, ctx, rg, host, &rq, err, errlen) != 0)
		goto out;
	if (ops->read(ctx, pos4, NULL, NULL, NULL) != 0) {
		snprintf(err, errlen, "reading the state failed: %s", ops->error(ctx));
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		for (int d = 0; d < 3; d++)
			x[3 * i + d] = pos4[4 * i + d];
	out->surface_count = rq.count;
	if (render_validate_surface(p, rp, x, n, flags, &out->surface) != 0) {
		snprintf(err, errlen, "the reference could not extract the surface");
		goto out;
	}
	/* The field and the image from the particles the variant flagged:
	 * each stage judged on its own input. */
	if (!(s = render_run_surface_of(pos4, flags, n, &m)) ||
	    !(spos4 = malloc((m ? 4 * m : 4) * sizeof *spos4))) {
		snprintf(err, errlen, "out of memory for the surface particles");
		goto out;
	}
	if (m != rq.count) {
		snprintf(err, errlen, "the variant flagged %zu surface particles but compacted %zu", m,
			 rq.count);
		goto out;
	}
	for (size_t k = 0; k < m; k++) {
		for (int d = 0; d < 3; d++)
			spos4[4 * k + d] = (float)s[3 * k + d];
		spos4[4 * k + 3] = 1.0f;
	}
	out->voxels = render_gpu_voxels(rg);
	if (render_gpu_field(rg, rq.count) != 0 || render_gpu_voxels_set(rg, &out->voxels_set) != 0 ||
	    !(values = malloc(out->voxels * sizeof *values)) || render_gpu_read_field(rg, values) != 0) {
		snprintf(err, errlen, "distance field: %s", render_gpu_error(rg));
		goto out;
	}
	if (render_ref_field(rp, p->box_lo, p->box_hi, s, m, &ref) != 0) {
		snprintf(err, errlen, "the reference could not build the distance field");
		goto out;
	}
	render_validate_field(&ref, values, &out->field);
	if (render_run_image(rp, conv, p, &ref, spos4, m, &out->image, &out->converge, err,
			     errlen) != 0)
		goto out;
	out->valid = out->surface.pass && out->field.pass && out->image.pass && out->converge.pass;
	rc = 0;
out:
	render_field_free(&ref);
	free(flags);
	free(pos4);
	free(spos4);
	free(values);
	free(x);
	free(s);
	return rc;
}

/* RENDER_RUN_FRAMES frames: step, extraction, field, raycast; medians. */
static int render_run_time(const struct sph_ops *ops, void *ctx, const struct render_params *rp,
			   const struct render_run_opts *o, struct render_gpu *rg, float *host,
			   struct render_run_result *out, char *err, size_t errlen)
{
	double *ex = malloc(RENDER_RUN_FRAMES * sizeof *ex);
	double *fi = malloc(RENDER_RUN_FRAMES * sizeof *fi);
	double *ra = malloc(RENDER_RUN_FRAMES * sizeof *ra);
	double *all = malloc(RENDER_RUN_FRAMES * sizeof *all);
	size_t f = 0;
	int rc = -1;
	if (!ex || !fi || !ra || !all) {
		snprintf(err, errlen, "out of memory for the frame times");
		goto out;
	}
	while (f < RENDER_RUN_FRAMES) {
		struct sph_phase_times ph = { 0 };
		struct sph_surface_request rq = { rp->com_threshold, rp->min_neighbours, NULL, NULL,
						  0, 0.0 };
		struct render_gpu_times t;
		if (ops->steps(ctx, 1, &ph) != 0) {
			snprintf(err, errlen, "frame %zu: %s", f, ops->error(ctx));
			goto out;
		}
		if (render_run_extract(ops, ctx, rg, host, &rq, err, errlen) != 0)
			goto out;
		if (render_gpu_field(rg, rq.count) != 0 || render_gpu_raycast(rg) != 0) {
			snprintf(err, errlen, "frame %zu: %s", f, render_gpu_error(rg));
			goto out;
		}
		render_gpu_times(rg, &t);
		ex[f] = timing_planted_wait(rq.seconds, o->slowdown);
		fi[f] = timing_planted_wait(t.field_s, o->slowdown);
		ra[f] = timing_planted_wait(t.raycast_s, o->slowdown);
		all[f] = ex[f] + fi[f] + ra[f];
		f++;
	}
	struct stats_summary sum;
	stats_summarize(all, f, &sum);
	out->frames = f;
	out->extraction_s = stats_median(ex, f);
	out->field_s = stats_median(fi, f);
	out->raycast_s = stats_median(ra, f);
	out->frame_noise_pct = 100.0 * sum.rel_stddev;
	out->timed = true;
	rc = 0;
out:
	free(ex);
	free(fi);
	free(ra);
	free(all);
	return rc;
}

struct render_fps render_run_fps(const struct render_run_result *r, double step_s)
{
	const double render = r->field_s + r->raycast_s;
	struct render_fps f = { 1.0 / step_s, 1.0 / r->extraction_s, 1.0 / render,
				1.0 / (step_s + r->extraction_s + render) };
	return f;
}

int render_run(const struct sph_ops *ops, void *ctx, bool on_gpu, const struct sph_params *p,
	       size_t n, const struct render_run_opts *o, int what, struct render_run_result *out,
	       char *err, size_t errlen)
{
	struct render_params rp;
	struct render_camera cam;
	struct render_gpu *rg = NULL;
	float *host = NULL;
	int rc = -1;
	if (what & RENDER_RUN_VALIDATE) {
		memset(out, 0, sizeof *out);
		out->width = o->width;
		out->height = o->height;
		out->res = o->res;
		out->shading = o->shading;
	} else if (!out->done || !out->valid) {
		snprintf(err, errlen, "the pipeline is timed only once it has validated");
		return -1;
	}
	if (!ops->surface) {
		snprintf(err, errlen, "this variant has no surface extraction");
		return -1;
	}
	render_camera_default(&cam, p->box_lo, p->box_hi, out->width, out->height);
	if (render_params_derive(&rp, p, p->box_lo, p->box_hi, render_camera_pixel(&cam), out->res,
				 o->samples_per_unit) != 0) {
		snprintf(err, errlen, "no rendering parameters for this box at --res %d", out->res);
		return -1;
	}
	out->res = rp.res;
	/* the converged setting: finer than the derived parameters, whatever
	 * --res and --samples asked, its field within RENDER_RUN_CONVERGE_MEM
	 * of the GPU's memory */
	struct render_params base, conv;
	struct gpu_device_info gi;
	const double conv_voxels = gpu_device_query(gpu_device_current(), &gi) == 0
					   ? RENDER_RUN_CONVERGE_MEM * (double)gi.total_mem /
						     RENDER_GPU_BYTES_PER_VOXEL
					   : 0.0;
	if (render_params_derive(&base, p, p->box_lo, p->box_hi, render_camera_pixel(&cam), 0, 0.0) !=
		    0 ||
	    render_converge_params(&base, p->box_lo, p->box_hi, conv_voxels, &conv) != 0) {
		snprintf(err, errlen, "no converged rendering parameters for this box");
		return -1;
	}
	out->converge_res = conv.res;
	out->converge_samples = conv.samples_per_unit;
	if (render_params_shading(&rp, o->shading) != 0 ||
	    render_params_shading(&conv, o->shading) != 0) {
		snprintf(err, errlen, "no such shading (%d)", o->shading);
		return -1;
	}
	if (!on_gpu && !(host = malloc((n ? 4 * n : 4) * sizeof *host))) {
		snprintf(err, errlen, "out of memory for %zu surface positions", n);
		return -1;
	}
	if (render_gpu_create(&rg, &rp, p->box_lo, p->box_hi, &cam, n, err, errlen) != 0)
		goto out;
	if (what & RENDER_RUN_VALIDATE) {
		if (render_run_validate(ops, ctx, p, &rp, &conv, n, rg, host, out, err, errlen) != 0)
			goto out;
		out->done = true;
	}
	if ((what & RENDER_RUN_TIME) && out->valid &&
	    render_run_time(ops, ctx, &rp, o, rg, host, out, err, errlen) != 0)
		goto out;
	rc = 0;
out:
	render_gpu_destroy(rg);
	free(host);
	return rc;
}
