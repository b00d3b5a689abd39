/* test_gpu_sph_stability.c - 1000 steps of the paper's 16,128 column, with its walls, stay sane for every SPH variant (suite sph_stability) */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <math.h>
#include <stdlib.h>

#include "gpu_sph_run.h"

#define STAB_CHUNKS 10		/* reads, every STAB_STEPS steps */
#define STAB_STEPS 100
#define STAB_SEED 42

ParameterizedTestParameters(sph_stability, thousand_steps_of_16128)
{
	/* every line of the registry, without any CUDA call */
	static size_t ids[SPH_VARIANT_COUNT];

	for (size_t i = 0; i < SPH_VARIANT_COUNT; i++)
		ids[i] = i;
	return cr_make_param_array(size_t, ids, SPH_VARIANT_COUNT);
}

/*
 * The dam break of the paper's smallest column (16,128 fluid and 28,815
 * boundary particles) for 1000 steps (0.11 s of flow, the surge still
 * short of the far wall): every particle finite and inside the box, and
 * the density never far above rest. The bound, 1.2 rho0, is the
 * reference's own (weak compressibility with c = 25 m/s keeps the peak
 * within a few per cent). The last-resort clamp's count is logged
 * (--verbose): whether it ever fires. A step takes well under a
 * millisecond on the GPU and some on the CPU, so the timeout only
 * catches a hang.
 */
ParameterizedTest(size_t *id, sph_stability, thousand_steps_of_16128, .timeout = 300)
{
	const struct sph_variant *v = &sph_variants[*id];
	struct gpu_sph_run r;
	double rho_max = 0.0;
	size_t bad = 0;

	gpu_sph_require(v);
	gpu_sph_scene(&r, v->ops, v->name, "16128", STAB_SEED);
	gpu_sph_create(&r);
	for (int chunk = 1; chunk <= STAB_CHUNKS; chunk++) {
		struct sph_phase_times t = { 0 };

		cr_assert(r.ops->steps(r.ctx, STAB_STEPS, &t) == 0, "%s: %s", v->name,
			  r.ops->error(r.ctx));
		cr_assert(r.ops->read(r.ctx, r.pos, r.vel, r.rho, NULL) == 0, "%s: read: %s",
			  v->name, r.ops->error(r.ctx));
		cr_assert(gpu_sph_inside(&r, &bad), "%s: particle %zu not finite or out of the box "
			  "after %d steps", v->name, bad, STAB_STEPS * chunk);
		for (size_t i = 0; i < r.sc.n; i++)
			rho_max = fmax(rho_max, r.rho[i]);
	}
	r.ops->counts(r.ctx, &r.counts);
	cr_log_info("%s: %llu coordinates clamped onto a wall in %d steps", v->name,
		    r.counts.clamps, STAB_CHUNKS * STAB_STEPS);
	cr_expect_lt(rho_max, 1.2 * r.sc.p.rho0, "%s: density reached %.1f", v->name, rho_max);
	cr_expect_gt(rho_max, 0.9 * r.sc.p.rho0, "%s: densities were computed", v->name);
	gpu_sph_free(&r);
}
