/* test_gpu_sph_blocks.c - what only kernels/sph/sph_blocks.cu's methods do: bucket overflow, brute's limit, zindex-blocks' memory (suite gpu_sph_blocks) */
#define _POSIX_C_SOURCE 200809L /* setenv, unsetenv */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_sph_run.h"

/* A cell of the column holds up to ~20 slots, walls included: buckets of
 * 4 overflow at once, the default 32 never does (the validation tests). */
#define BLK_SMALL_CAPACITY "4"

/* The registry's line called name, skipped when it cannot run here. */
static const struct sph_variant *blk_variant(const char *name)
{
	const struct sph_variant *v = gpu_sph_variant(name);

	gpu_sph_require(v);
	return v;
}

/*
 * Buckets of capacity 4 (SPH_BUCKET_CAPACITY, read by create) cannot hold
 * the column's cells, and the step must say so: steps() fails with a line
 * naming the overflow, the count a cell held and the capacity;
 * counts().overflow is 1; and every later call fails too.
 */
Test(gpu_sph_blocks, grid_buckets_reports_overflow, .timeout = 60)
{
	const struct sph_variant *v = blk_variant("sph-gpu-grid-buckets");
	struct sph_phase_times t = { 0 };
	struct gpu_sph_run r;
	const char *err, *held;
	unsigned count = 0;

	gpu_sph_scene(&r, v->ops, v->name, gpu_sph_column(GPU_SPH_COLUMN), GPU_SPH_SEED);
	cr_assert(setenv("SPH_BUCKET_CAPACITY", BLK_SMALL_CAPACITY, 1) == 0);
	gpu_sph_create(&r);
	unsetenv("SPH_BUCKET_CAPACITY");
	cr_expect(r.ops->steps(r.ctx, 1, &t) == -1, "%s: steps passed with full buckets", v->name);
	r.ops->counts(r.ctx, &r.counts);
	cr_expect(r.counts.overflow == 1, "%s: overflow %d", v->name, r.counts.overflow);
	err = r.ops->error(r.ctx);
	held = strstr(err, "held ");
	cr_expect(strstr(err, "overflow") && strstr(err, "capacity " BLK_SMALL_CAPACITY) && held &&
			  sscanf(held, "held %u", &count) == 1 && count > 4 && count <= 64 &&
			  !strchr(err, '\n'),
		  "%s: error \"%s\" (count %u)", v->name, err, count);
	cr_expect(r.ops->evaluate(r.ctx, 1) == -1, "%s: evaluate passed after an overflow",
		  v->name);
	gpu_sph_free(&r);
}

/* A capacity that is not a number in 1 .. 4096 is refused by create. */
Test(gpu_sph_blocks, grid_buckets_refuses_bad_capacity, .timeout = 60)
{
	const struct sph_variant *v = blk_variant("sph-gpu-grid-buckets");
	const char *bad[] = { "0", "-3", "4097", "12x", "many" };
	struct gpu_sph_run r;

	gpu_sph_scene(&r, v->ops, v->name, gpu_sph_column(GPU_SPH_COLUMN), GPU_SPH_SEED);
	for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
		char err[256] = "";

		cr_assert(setenv("SPH_BUCKET_CAPACITY", bad[k], 1) == 0);
		cr_expect(gpu_sph_try_create(&r, err, sizeof err) == -1 && r.ctx == NULL,
			  "%s: capacity \"%s\" accepted", v->name, bad[k]);
		cr_expect(strstr(err, "SPH_BUCKET_CAPACITY") != NULL, "%s: message \"%s\"", v->name,
			  err);
		if (r.ctx)
			r.ops->destroy(r.ctx);
		r.ctx = NULL;
	}
	unsetenv("SPH_BUCKET_CAPACITY");
	gpu_sph_free(&r);
}

/* The bucket array (cells x 32 x 4 bytes) is in aux_bytes. */
Test(gpu_sph_blocks, grid_buckets_counts_the_bucket_array, .timeout = 60)
{
	const struct sph_variant *v = blk_variant("sph-gpu-grid-buckets");
	struct gpu_sph_run r;
	double cells = 1.0;

	gpu_sph_scene(&r, v->ops, v->name, gpu_sph_column(GPU_SPH_COLUMN), GPU_SPH_SEED);
	gpu_sph_create(&r);
	r.ops->counts(r.ctx, &r.counts);
	for (int c = 0; c < 3; c++)
		cells *= floor((r.sc.p.box_hi[c] - r.sc.p.box_lo[c]) / (r.sc.p.h * (1.0 + 1e-6))) +
			 1.0;
	cr_expect((double)r.counts.aux_bytes >= cells * 32.0 * 4.0,
		  "%s: aux %zu bytes for %.0f cells of 32 entries", v->name, r.counts.aux_bytes,
		  cells);
	gpu_sph_free(&r);
}

/*
 * The paper's memory claim: zindex-blocks holds fewer bytes beyond the
 * state than the sorted grid with its cell table (grid-count), on the
 * small column and on the paper's smallest, walls included.
 */
Test(gpu_sph_blocks, zindex_blocks_uses_less_memory_than_grid_count, .timeout = 60)
{
	const struct sph_variant *vz = blk_variant("sph-gpu-zindex-blocks");
	const struct sph_variant *vg = blk_variant("sph-gpu-grid-count");
	const char *scenes[] = { GPU_SPH_COLUMN, "16128" };

	for (size_t k = 0; k < sizeof scenes / sizeof *scenes; k++) {
		struct gpu_sph_run z, g;
		double per_z, per_g;

		gpu_sph_scene(&z, vz->ops, vz->name, scenes[k], GPU_SPH_SEED);
		gpu_sph_scene(&g, vg->ops, vg->name, scenes[k], GPU_SPH_SEED);
		gpu_sph_create(&z);
		gpu_sph_create(&g);
		z.ops->counts(z.ctx, &z.counts);
		g.ops->counts(g.ctx, &g.counts);
		per_z = (double)z.counts.aux_bytes / (double)z.sc.n;
		per_g = (double)g.counts.aux_bytes / (double)g.sc.n;
		cr_expect(z.counts.aux_bytes > 0 && z.counts.aux_bytes < g.counts.aux_bytes,
			  "column %s: aux bytes a fluid particle: zindex-blocks %.1f, grid-count %.1f",
			  scenes[k], per_z, per_g);
		cr_log_info("column %s: aux bytes a fluid particle: zindex-blocks %.1f, grid-count "
			    "%.1f", scenes[k], per_z, per_g);
		gpu_sph_free(&g);
		gpu_sph_free(&z);
	}
}

/* Brute force: n fluid and nb boundary particles, all at the origin, no
 * box; create()'s verdict, its message in err. */
static int blk_brute_create(const struct sph_variant *v, size_t n, size_t nb, char *err,
			    size_t errlen)
{
	float *pos = calloc(4 * n + 4, sizeof(float)), *vel = calloc(4 * n + 4, sizeof(float));
	float *bnd = calloc(4 * nb + 4, sizeof(float));
	const struct sph_input in = { n, pos, vel, nb, bnd };
	struct sph_params p;
	void *ctx = NULL;
	int rc;

	cr_assert(pos && vel && bnd);
	for (size_t b = 0; b < nb; b++)
		bnd[4 * b + 3] = 1.0f;
	sph_params_water(&p, 0.01, 0.1);
	rc = v->ops->create(&ctx, &in, &p, err, errlen);
	cr_expect((rc == 0) == (ctx != NULL), "%s: create returned %d, context %p", v->name, rc,
		  ctx);
	if (ctx)
		v->ops->destroy(ctx);
	free(pos);
	free(vel);
	free(bnd);
	return rc;
}

/* Brute force takes at most 2,000,000 particles, fluid and walls
 * together, and refuses one more with one line naming the limit. */
Test(gpu_sph_blocks, brute_refuses_more_than_2000000, .timeout = 120)
{
	const struct sph_variant *v = blk_variant("sph-gpu-brute");
	const size_t cases[][3] = {
		/* fluid, boundary, accepted */
		{ 2000001, 0, 0 },
		{ 1000000, 1000001, 0 },
		{ 1000000, 1000000, 1 },
	};

	for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
		char err[256] = "";
		const int rc = blk_brute_create(v, cases[k][0], cases[k][1], err, sizeof err);

		if (cases[k][2])
			cr_expect(rc == 0, "%s: %zu + %zu particles refused: %s", v->name,
				  cases[k][0], cases[k][1], err);
		else
			cr_expect(rc == -1 && strstr(err, "2000000") && !strchr(err, '\n'),
				  "%s: %zu + %zu particles: %d, \"%s\"", v->name, cases[k][0],
				  cases[k][1], rc, err);
	}
}
