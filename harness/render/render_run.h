/* render_run.h - the SPH paper's rendering pipeline on an SPH variant's state: validated, then timed frame by frame */
#ifndef HARNESS_RENDER_RUN_H
#define HARNESS_RENDER_RUN_H

#include <stdbool.h>
#include <stddef.h>

#include "../../kernels/sph/sph.h"
#include "../../reference/render_ref.h"
#include "render_validate.h"

/*
 * A frame of the paper's Tables 1 and 2 (Goswami et al. 2010, section 4):
 * one physics step, surface extraction with the variant's own neighbour
 * search (sph_ops.surface), the distance field and the raycast
 * (kernels/render/render_gpu.h). Every stage is validated once against
 * the double reference before anything is timed, on the state the
 * variant reached:
 *   surface  the variant's flags against render_ref_surface on the
 *            positions it holds (render_validate_surface);
 *   field    the GPU field of the variant's surface particles against
 *            render_ref_field of the same particles;
 *   image    the GPU raycast of that field at RENDER_RUN_CHECK_W x
 *            RENDER_RUN_CHECK_H against render_ref_raycast (a small
 *            image: the double raycaster is the slow part);
 *   converged  that image against the GPU's raycast of the same
 *            particles at the converged setting of the derived
 *            parameters (render_converge_params: twice the field's
 *            resolution, four times the samples), by PSNR and holes
 *            (render_validate_converged_opacity): an image drawn too
 *            coarse to show the surface fails here though it matches the
 *            reference at its own setting.
 * Then RENDER_RUN_FRAMES frames run from that state, each a step, an
 * extraction, a field and a raycast, and the median of each stage's GPU
 * time is kept. The count is the same for every variant, so every
 * variant times the same stretch of flow: what a frame costs depends on
 * the surface drawn, and a count set by a time budget would draw a later
 * flow for a faster variant.
 */
#define RENDER_RUN_CHECK_W	320
#define RENDER_RUN_CHECK_H	180
#define RENDER_RUN_FRAMES	100
/* The command line's limits: pixels a side, voxels along the longest side. */
/* The defaults of `sph render` and `sph run --render`: the image (the
 * paper does not state its resolution) and the field's voxels along the
 * box's longest side (0: derived from the particle spacing, the box and
 * the image, render_params_derive). */
#define RENDER_RUN_WIDTH	1280
#define RENDER_RUN_HEIGHT	720
#define RENDER_RUN_RES		0
#define RENDER_RUN_MAX_SIDE	8192
#define RENDER_RUN_MAX_RES	1024
#define RENDER_RUN_MAX_SAMPLES	10000
/* The share of the GPU's memory the converged image's field may take
 * (the SPH state and the row's own fields take the rest: at 4.2 million
 * particles the converged field is then 2^31 voxels, 43 GB, on an H200
 * and 1.6 x 10^9 voxels on an 80 GB H100). */
#define RENDER_RUN_CONVERGE_MEM	0.4

struct render_run_opts {
	int width, height, res;	/* the timed image and the field's resolution (0: derived) */
	double samples_per_unit;	/* along a ray (render_params; 0: derived) */
	int shading;		/* RENDER_SHADING_PHONG (0) or RENDER_SHADING_PAPER */
	double slowdown;	/* test hook (core/testhook.h): every stage of a timed
				 * frame this fraction longer, busy-waited; 0 */
};

struct render_run_result {
	bool done;		/* the pipeline ran (validated, maybe timed) */
	bool valid;		/* every stage's check passed */
	bool timed;
	int shading;		/* render_run_opts's */
	struct render_surface_check surface;
	struct render_field_check field;
	struct render_image_check image;
	struct render_converge_check converge;
	int converge_res;	/* the converged setting's field resolution */
	double converge_samples;	/* and samples per unit */
	size_t surface_count;	/* surface particles at the validated state */
	size_t voxels, voxels_set;	/* the field's, and those below the maximum */
	int width, height, res;
	size_t frames;
	/* medians over the frames [s] */
	double extraction_s, field_s, raycast_s;
	double frame_noise_pct;	/* relative standard deviation of extraction + field + raycast */
};

/* The paper's four rates (Tables 1 and 2) of a timed result whose
 * physics step takes step_s: physics = 1 / step; extraction =
 * 1 / extraction; rendering = 1 / (field + raycast); overall = 1 / (one
 * step + extraction + field + raycast). */
struct render_fps {
	double physics, extraction, rendering, overall;
};
struct render_fps render_run_fps(const struct render_run_result *r, double step_s);

/* What render_run does: validate (first, on the state the variant's SPH
 * validation saw), time (later, after the SPH timing), or both. */
enum { RENDER_RUN_VALIDATE = 1, RENDER_RUN_TIME = 2 };

/*
 * Runs the pipeline on variant ops/ctx (already warmed up and validated
 * as a physics variant; on_gpu: a GPU variant, whose extraction writes
 * device memory; a CPU one extracts into host memory, uploaded untimed)
 * whose scene has parameters p and n fluid particles. With
 * RENDER_RUN_VALIDATE *out is reset and filled with the checks; with
 * RENDER_RUN_TIME alone the frame times are added to what an earlier
 * validation left there (timing a pipeline that failed its checks is
 * refused). Returns 0 (out->valid tells the verdict), or -1 with one
 * line in err when something could not run (CUDA, memory).
 */
int render_run(const struct sph_ops *ops, void *ctx, bool on_gpu, const struct sph_params *p,
	       size_t n, const struct render_run_opts *o, int what, struct render_run_result *out,
	       char *err, size_t errlen);

#endif
