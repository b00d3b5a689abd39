/* test_gpu_sph_surface.c - every GPU SPH variant's surface extraction and the rendering pipeline on its state validate; a planted missed neighbour is caught (suite gpu_sph_surface) */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../harness/render/render_run.h"
#include "../../kernels/render/render_gpu.h"
#include "../sph/gpu_sph_run.h"

/* A small image and field: the pipeline's checks, not its speed. */
static const struct render_run_opts gpu_surface_opts = { .width = 160, .height = 90, .res = 64 };

/* The GPU lines of the registry. */
static size_t gpu_surface_cases(size_t *cases)
{
	size_t k = 0;

	for (size_t v = 0; v < SPH_VARIANT_COUNT; v++)
		if (sph_variants[v].device == VARIANT_GPU)
			cases[k++] = v;
	return k;
}

/* The parameters of test: every GPU line of the registry. */
#define GPU_SURFACE_PARAMS(test)                                                        \
	ParameterizedTestParameters(gpu_sph_surface, test)                              \
	{                                                                               \
		static size_t cases[SPH_VARIANT_COUNT];                                 \
		return cr_make_param_array(size_t, cases, gpu_surface_cases(cases));    \
	}

GPU_SURFACE_PARAMS(pipeline_validates)

/*
 * After 20 steps of the column: the variant's surface flags equal the
 * reference's (borderline particles excused and counted), the GPU field
 * of its surface particles equals the reference's within the bound, and
 * the image's PSNR against the reference raycaster is >= 40 dB.
 */
ParameterizedTest(size_t *k, gpu_sph_surface, pipeline_validates, .timeout = 120)
{
	const struct sph_variant *v = &sph_variants[*k];
	const char *scene = gpu_sph_column(GPU_SPH_COLUMN);
	struct render_run_result res;
	struct gpu_sph_run r;
	char err[256] = "";

	gpu_sph_require(v);
	gpu_sph_stepped(&r, v, scene);
	cr_assert(render_run(v->ops, r.ctx, true, &r.sc.p, r.sc.n, &gpu_surface_opts, RENDER_RUN_VALIDATE, &res, err,
			     sizeof err) == 0,
		  "%s: %s", v->name, err);
	cr_log_info("%s on %s: %zu surface particles of %zu (%zu borderline), field max %llu ulps "
		    "(%.3f of the bound), image PSNR %.1f dB, max diff %.4f",
		    v->name, scene, res.surface_count, r.sc.n, res.surface.borderline,
		    res.field.max_ulps, res.field.worst_ratio, res.image.psnr_db, res.image.max_diff);
	cr_expect(res.surface.pass, "%s: %zu surface flags differ from the reference (first %zu)",
		  v->name, res.surface.mismatches, res.surface.worst);
	cr_expect(res.surface_count > 0 && res.surface_count < r.sc.n, "%s: %zu surface particles",
		  v->name, res.surface_count);
	cr_expect(res.field.pass, "%s: field %.3f of its bound, %zu at-max mismatches", v->name,
		  res.field.worst_ratio, res.field.max_mismatches);
	cr_expect(res.image.pass, "%s: image PSNR %.1f dB", v->name, res.image.psnr_db);
	gpu_sph_free(&r);
}

GPU_SURFACE_PARAMS(leaves_the_trajectory_alone)

/* Extraction builds the variant's structure on the current positions as
 * a step would: 20 steps, an extraction, 5 steps end bit for bit where 25
 * steps do. */
ParameterizedTest(size_t *k, gpu_sph_surface, leaves_the_trajectory_alone, .timeout = 120)
{
	const struct sph_variant *v = &sph_variants[*k];
	const char *scene = gpu_sph_column(GPU_SPH_COLUMN);
	struct gpu_sph_run a, b;
	struct sph_phase_times t = { 0 };
	struct render_params rp;
	struct render_camera cam;
	struct render_gpu *rg = NULL;
	char err[256] = "";

	gpu_sph_require(v);
	gpu_sph_stepped(&a, v, scene);
	gpu_sph_stepped(&b, v, scene);
	/* a render context only for its device buffer of surface positions */
	render_params_default(&rp, &a.sc.p);
	render_camera_default(&cam, a.sc.p.box_lo, a.sc.p.box_hi, 16, 9);
	cr_assert(render_gpu_create(&rg, &rp, a.sc.p.box_lo, a.sc.p.box_hi, &cam, a.sc.n, err,
				    sizeof err) == 0,
		  "%s", err);
	struct sph_surface_request rq = { rp.com_threshold, rp.min_neighbours,
					  render_gpu_surface_buffer(rg), NULL, 0, 0.0 };
	cr_assert(v->ops->surface(a.ctx, &rq) == 0, "%s: %s", v->name, v->ops->error(a.ctx));
	cr_assert(v->ops->steps(a.ctx, 5, &t) == 0 && v->ops->steps(b.ctx, 5, &t) == 0);
	cr_assert(v->ops->read(a.ctx, a.pos, a.vel, NULL, NULL) == 0 &&
		  v->ops->read(b.ctx, b.pos, b.vel, NULL, NULL) == 0);
	cr_expect(memcmp(a.pos, b.pos, 4 * a.sc.n * sizeof(float)) == 0 &&
			  memcmp(a.vel, b.vel, 4 * a.sc.n * sizeof(float)) == 0,
		  "%s: an extraction changed the next steps", v->name);
	render_gpu_destroy(rg);
	gpu_sph_free(&a);
	gpu_sph_free(&b);
}

/* The planted copy of grid-radix (tests/sph/gpu_planted_sph.cu) leaves the
 * cell at +x out of its walk, in extraction too: a missed neighbour. */
extern const struct sph_ops sph_planted_grid_radix_ops __attribute__((weak));

Test(gpu_sph_surface, planted_missed_neighbour_is_caught, .timeout = 120)
{
	const struct sph_variant *v = gpu_sph_variant("sph-gpu-grid-radix");
	struct render_run_result res;
	struct gpu_sph_run r;
	char err[256] = "";

	gpu_sph_require(v);
	if (!&sph_planted_grid_radix_ops)
		cr_skip_test("the planted copies are not in this build");
	gpu_sph_scene(&r, &sph_planted_grid_radix_ops, "planted grid-radix",
		      gpu_sph_column(GPU_SPH_COLUMN), GPU_SPH_SEED);
	gpu_sph_create(&r);
	gpu_sph_advance(&r, GPU_SPH_STEPS);
	cr_assert(render_run(r.ops, r.ctx, true, &r.sc.p, r.sc.n, &gpu_surface_opts, RENDER_RUN_VALIDATE, &res, err,
			     sizeof err) == 0,
		  "%s", err);
	cr_log_info("planted missed neighbour (grid-radix, cell +x): %zu surface flags differ",
		    res.surface.mismatches);
	cr_expect(!res.surface.pass && !res.valid,
		  "a missed neighbour cell in extraction went unnoticed");
	gpu_sph_free(&r);
}
