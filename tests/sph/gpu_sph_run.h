/* gpu_sph_run.h - one SPH variant run on a scene with walls, for the GPU SPH tests */
#ifndef TESTS_GPU_SPH_RUN_H
#define TESTS_GPU_SPH_RUN_H

#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../harness/core/gpu_device.h"
#include "../../harness/sph/sph_validate.h"
#include "../../kernels/sph/sph.h"
#include "../../reference/sph_scene.h"
#include "../../variants/sph_registry.h"

/*
 * The scenes (reference/sph_scene.h): a 12 x 12 x 14 column (2,016 fluid
 * and 7,303 boundary particles, a multiple of neither 64 nor 256) and an
 * uneven 11 x 7 x 13 one in a tank 3 widths long (1,001 and 4,390), seed
 * 7, run for 20 steps: moving, compressed at the bottom, with a free
 * surface, and against every wall. SPH_GPU_TEST_COLUMN (a column spec)
 * replaces both, for the sanitizers, which want a smaller one: 6x6x7
 * (252 and 1,959) is the smallest whose 27 neighbouring cells or blocks
 * still leave out most of the box, as the counts test wants.
 */
#define GPU_SPH_COLUMN "12x12x14"
#define GPU_SPH_UNEVEN "11x7x13@3"
#define GPU_SPH_SEED 7
#define GPU_SPH_STEPS 20

/* spec, or $SPH_GPU_TEST_COLUMN when that is set. */
static inline const char *gpu_sph_column(const char *spec)
{
	const char *env = getenv("SPH_GPU_TEST_COLUMN");

	return env && *env ? env : spec;
}

/* One run of a variant: its input, context and read-back state. */
struct gpu_sph_run {
	const char *name;
	const struct sph_ops *ops;
	struct sph_column col;		/* the column of sc (empty for other scenes) */
	struct sph_scene sc;		/* parameters, fluid and walls as created */
	float *pos, *vel, *rho, *acc;	/* read back: fluid, the caller's order */
	struct sph_counts counts;
	void *ctx;
};

/* The registry's line called name (the test fails when there is none). */
static inline const struct sph_variant *gpu_sph_variant(const char *name)
{
	for (size_t k = 0; k < SPH_VARIANT_COUNT; k++)
		if (strcmp(sph_variants[k].name, name) == 0)
			return &sph_variants[k];
	cr_assert_fail("no variant %s in variants/sph.def", name);
	return NULL;
}

/* Skips the calling test, with the reason, when v cannot run here. */
static inline void gpu_sph_require(const struct sph_variant *v)
{
	const char *why;

	if (!sph_variant_available(v, &why))
		cr_skip_test("%s cannot run here: %s", v->name, why);
}

/* Zeroed read-back arrays for r->sc.n particles. */
static inline void gpu_sph_arrays(struct gpu_sph_run *r)
{
	const size_t n = r->sc.n;

	r->pos = calloc(4 * n + 4, sizeof(float));
	r->vel = calloc(4 * n + 4, sizeof(float));
	r->rho = calloc(n + 1, sizeof(float));
	r->acc = calloc(4 * n + 4, sizeof(float));
	cr_assert(r->pos && r->vel && r->rho && r->acc);
}

/* Scene spec (a column name or NXxNYxNZ[@L]) with seed for ops, no
 * context yet. */
static inline void gpu_sph_scene(struct gpu_sph_run *r, const struct sph_ops *ops,
				 const char *name, const char *spec, uint64_t seed)
{
	char err[256] = "";

	memset(r, 0, sizeof *r);
	r->name = name;
	r->ops = ops;
	cr_assert(sph_scene_column_parse(spec, &r->col, err, sizeof err) == 0, "%s", err);
	cr_assert(sph_scene_build(&r->col, seed, &r->sc, err, sizeof err) == 0, "%s", err);
	gpu_sph_arrays(r);
}

/* create() on the scene: 0, or -1 with the message in err. */
static inline int gpu_sph_try_create(struct gpu_sph_run *r, char *err, size_t errlen)
{
	const struct sph_input in = { r->sc.n, r->sc.pos4, r->sc.vel4, r->sc.nb, r->sc.bnd4 };

	return r->ops->create(&r->ctx, &in, &r->sc.p, err, errlen);
}

static inline void gpu_sph_create(struct gpu_sph_run *r)
{
	char err[256] = "";

	cr_assert(gpu_sph_try_create(r, err, sizeof err) == 0, "%s: create: %s", r->name, err);
}

/* steps steps, evaluate(count = 1), the state read back and the counts,
 * the phase times added to *t: 0, or -1 with the failing call's error in
 * why. */
static inline int gpu_sph_try_advance(struct gpu_sph_run *r, int steps, struct sph_phase_times *t,
				      char *why, size_t len)
{
	const char *call = r->ops->steps(r->ctx, steps, t) != 0		      ? "steps"
			   : r->ops->evaluate(r->ctx, 1) != 0		      ? "evaluate"
			   : r->ops->read(r->ctx, r->pos, r->vel, r->rho, r->acc) ? "read"
										  : NULL;

	if (call) {
		snprintf(why, len, "%s: %s", call, r->ops->error(r->ctx));
		return -1;
	}
	r->ops->counts(r->ctx, &r->counts);
	return 0;
}

/* gpu_sph_try_advance, which must pass; each phase took time when steps
 * > 0. */
static inline void gpu_sph_advance(struct gpu_sph_run *r, int steps)
{
	struct sph_phase_times t = { 0 };
	char why[320];

	cr_assert(gpu_sph_try_advance(r, steps, &t, why, sizeof why) == 0, "%s: %s", r->name, why);
	if (steps > 0)
		cr_expect(t.build_s > 0.0 && t.density_s > 0.0 && t.force_s > 0.0 &&
				  t.integrate_s > 0.0,
			  "%s: phase times %g %g %g %g s", r->name, t.build_s, t.density_s,
			  t.force_s, t.integrate_s);
}

/* The scene spec after GPU_SPH_STEPS steps, in a fresh context of v. */
static inline void gpu_sph_stepped(struct gpu_sph_run *r, const struct sph_variant *v,
				   const char *spec)
{
	gpu_sph_scene(r, v->ops, v->name, spec, GPU_SPH_SEED);
	gpu_sph_create(r);
	gpu_sph_advance(r, GPU_SPH_STEPS);
}

static inline void gpu_sph_free(struct gpu_sph_run *r)
{
	if (r->ctx)
		r->ops->destroy(r->ctx);
	sph_scene_free(&r->sc);
	free(r->pos);
	free(r->vel);
	free(r->rho);
	free(r->acc);
	memset(r, 0, sizeof *r);
}

/*
 * The run's state (read back after evaluate) against the double
 * reference with the same walls (harness/sph/sph_validate.h). The one place
 * that calls sph_validate: adapt it here if its signature moves.
 */
static inline void gpu_sph_validate(const struct gpu_sph_run *r, struct sph_validation *v)
{
	cr_assert(sph_validate(&r->sc.p, r->pos, r->vel, r->rho, r->acc, r->sc.n, r->sc.bnd4,
			       r->sc.nb, &r->counts, v) == 0,
		  "%s: the reference could not run", r->name);
}

/* Whether every fluid particle of r is finite and inside the box; the
 * first that is not into *bad. */
static inline int gpu_sph_inside(const struct gpu_sph_run *r, size_t *bad)
{
	const struct sph_params *p = &r->sc.p;

	for (size_t i = 0; i < r->sc.n; i++)
		for (int c = 0; c < 3; c++) {
			const float x = r->pos[4 * i + c];

			if (!(x >= p->box_lo[c] && x <= p->box_hi[c]) || !isfinite(r->vel[4 * i + c])) {
				*bad = i;
				return 0;
			}
		}
	return 1;
}

#endif /* TESTS_GPU_SPH_RUN_H */
