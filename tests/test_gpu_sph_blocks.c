/* test_gpu_sph_blocks.c - Criterion tests for kernels/sph/sph_blocks.cu: zindex-blocks, grid-buckets, brute (suite gpu_sph_blocks) */
#define _POSIX_C_SOURCE 200809L /* setenv, unsetenv */
#include <criterion/criterion.h>

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../harness/gpu_device.h"
#include "../harness/sph_validate.h"
#include "../kernels/sph/sph.h"
#include "../reference/sph_scene.h"

/* The variants under test (kernels/sph/sph_gpu2.h) and grid-radix
 * (kernels/sph/sph_gpu.h) to compare memory with; weak, so a build without
 * nvcc links: their addresses are then NULL and the tests skip. */
extern const struct sph_ops sph_gpu_zindex_blocks_ops __attribute__((weak));
extern const struct sph_ops sph_gpu_grid_buckets_ops __attribute__((weak));
extern const struct sph_ops sph_gpu_brute_ops __attribute__((weak));
extern const struct sph_ops sph_gpu_grid_radix_ops __attribute__((weak));

/* The scene: a 12 x 12 x 14 dam break (2016 particles, not a multiple of
 * 64 or 256), seed 7, run for 20 steps. */
#define BLK_NX 12
#define BLK_NY 12
#define BLK_NZ 14
#define BLK_SEED 7
#define BLK_STEPS 20

/* The compressed lattice: BLK_LATTICE^3 particles at 0.75 d with h = 2 d:
 * up to 3 x 3 x 3 = 27 in a cell of side h, no pair within 5 % of h. */
#define BLK_LATTICE 12
#define BLK_LATTICE_D 0.01
#define BLK_LATTICE_STEP 0.75

/* The variant's ops, or the test skipped with the reason it cannot run. */
static const struct sph_ops *blk_require(const struct sph_ops *ops, const char *name)
{
	const char *why = gpu_unavailable_reason();

	if (why)
		cr_skip_test("%s: no GPU here: %s", name, why);
	if (!ops)
		cr_skip_test("%s: not in this build (built without nvcc)", name);
	return ops;
}

/* One run of a variant: parameters, context and read-back state. */
struct blk_run {
	const struct sph_ops *ops;
	const char *name;
	struct sph_params p;
	size_t n;
	float *pos, *vel, *rho, *acc;
	struct sph_counts counts;
	void *ctx;
};

/* Arrays for n particles in r, no context yet. */
static void blk_alloc(struct blk_run *r, const struct sph_ops *ops, const char *name, size_t n)
{
	memset(r, 0, sizeof *r);
	r->ops = ops;
	r->name = name;
	r->n = n;
	r->pos = calloc(4 * n, sizeof(float));
	r->vel = calloc(4 * n, sizeof(float));
	r->rho = calloc(n, sizeof(float));
	r->acc = calloc(4 * n, sizeof(float));
	cr_assert(r->pos && r->vel && r->rho && r->acc);
}

/* The BLK_NX x BLK_NY x BLK_NZ dam break in r. */
static void blk_column(struct blk_run *r, const struct sph_ops *ops, const char *name)
{
	struct sph_params p;

	cr_assert(sph_scene_params(BLK_NX, BLK_NY, BLK_NZ, &p) == 0);
	blk_alloc(r, ops, name, sph_scene_particles(BLK_NX, BLK_NY, BLK_NZ));
	r->p = p;
	cr_assert(sph_scene_dam_break(BLK_NX, BLK_NY, BLK_NZ, BLK_SEED, &r->p, r->pos, r->vel) ==
		  0);
}

/* The compressed lattice in r, at rest, no walls. */
static void blk_lattice(struct blk_run *r, const struct sph_ops *ops, const char *name)
{
	const int side = BLK_LATTICE;
	const double a = BLK_LATTICE_STEP * BLK_LATTICE_D;
	size_t i = 0;

	blk_alloc(r, ops, name, (size_t)side * side * side);
	sph_params_water(&r->p, BLK_LATTICE_D);
	for (int z = 0; z < side; z++)
		for (int y = 0; y < side; y++)
			for (int x = 0; x < side; x++, i++) {
				r->pos[4 * i + 0] = (float)(x * a);
				r->pos[4 * i + 1] = (float)(y * a);
				r->pos[4 * i + 2] = (float)(z * a);
			}
}

/* create(); 0 or -1, the message in err. */
static int blk_try_create(struct blk_run *r, char *err, size_t errlen)
{
	return r->ops->create(&r->ctx, r->pos, r->vel, r->n, &r->p, err, errlen);
}

static void blk_create(struct blk_run *r)
{
	char err[256] = "";

	cr_assert(blk_try_create(r, err, sizeof err) == 0, "%s: create: %s", r->name, err);
}

/* steps steps, evaluate(count = 1), the state read back and the counts. */
static void blk_advance(struct blk_run *r, int steps)
{
	struct sph_phase_times t = { 0 };

	cr_assert(r->ops->steps(r->ctx, steps, &t) == 0, "%s: steps: %s", r->name,
		  r->ops->error(r->ctx));
	cr_assert(r->ops->evaluate(r->ctx, 1) == 0, "%s: evaluate: %s", r->name,
		  r->ops->error(r->ctx));
	cr_assert(r->ops->read(r->ctx, r->pos, r->vel, r->rho, r->acc) == 0, "%s: read: %s",
		  r->name, r->ops->error(r->ctx));
	r->ops->counts(r->ctx, &r->counts);
	if (steps > 0)
		cr_expect(t.build_s > 0.0 && t.density_s > 0.0 && t.force_s > 0.0 &&
				  t.integrate_s > 0.0,
			  "%s: phase times %g %g %g %g s", r->name, t.build_s, t.density_s,
			  t.force_s, t.integrate_s);
}

static void blk_free(struct blk_run *r)
{
	if (r->ctx)
		r->ops->destroy(r->ctx);
	free(r->pos);
	free(r->vel);
	free(r->rho);
	free(r->acc);
	memset(r, 0, sizeof *r);
}

/* The dam break after BLK_STEPS steps, in a fresh context. */
static void blk_dam_break(struct blk_run *r, const struct sph_ops *ops, const char *name)
{
	blk_column(r, ops, name);
	blk_create(r);
	blk_advance(r, BLK_STEPS);
}

/*
 * After the steps, densities, accelerations and the pair count of
 * evaluate(1) match the double reference; every particle is finite and
 * in the box; no overflow; candidates at least the neighbours, and all
 * n (n - 1) ordered pairs exactly when all_pairs (brute force), far fewer
 * otherwise.
 */
static void blk_check_validates(const struct sph_ops *ops, const char *name, int all_pairs)
{
	struct blk_run r;
	struct sph_validation v;
	unsigned long long pairs;

	blk_require(ops, name);
	blk_dam_break(&r, ops, name);
	pairs = (unsigned long long)r.n * (r.n - 1);
	cr_assert(sph_validate(&r.p, r.pos, r.vel, r.rho, r.acc, r.n, &r.counts, &v) == 0);
	cr_expect(v.pass,
		  "%s: rho_err %.3e (tol %.0e) at %zu, acc_err %.3e (tol %.0e) at %zu, pairs %llu "
		  "vs reference %llu (+-%llu near h), overflow %d",
		  name, v.rho_err, SPH_VALIDATE_RHO_TOL, v.worst_rho, v.acc_err,
		  SPH_VALIDATE_ACC_TOL, v.worst_acc, v.var_pairs, v.ref_pairs, v.near_h,
		  (int)v.overflow);
	cr_expect(r.counts.overflow == 0 && r.counts.aux_bytes > 0, "%s: overflow %d, aux %zu",
		  name, r.counts.overflow, r.counts.aux_bytes);
	cr_expect(r.counts.neighbours > 0 && r.counts.candidates >= r.counts.neighbours,
		  "%s: %llu candidates, %llu neighbours", name, r.counts.candidates,
		  r.counts.neighbours);
	if (all_pairs)
		cr_expect(r.counts.candidates == pairs, "%s: %llu candidates, n (n - 1) = %llu",
			  name, r.counts.candidates, pairs);
	else
		cr_expect(r.counts.candidates < pairs / 4, "%s: %llu candidates of %llu pairs",
			  name, r.counts.candidates, pairs);
	for (size_t i = 0; i < r.n; i++)
		for (int c = 0; c < 3; c++)
			cr_assert(isfinite(r.pos[4 * i + c]) && r.pos[4 * i + c] >= r.p.box_lo[c] &&
					  r.pos[4 * i + c] <= r.p.box_hi[c],
				  "%s: particle %zu at %.9g, box %g .. %g", name, i,
				  r.pos[4 * i + c], r.p.box_lo[c], r.p.box_hi[c]);
	blk_free(&r);
}

/* Two runs from scratch give the same bits. */
static void blk_check_deterministic(const struct sph_ops *ops, const char *name)
{
	struct blk_run a, b;

	blk_require(ops, name);
	blk_dam_break(&a, ops, name);
	blk_dam_break(&b, ops, name);
	cr_expect(memcmp(a.rho, b.rho, a.n * sizeof(float)) == 0, "%s: rho differs run to run",
		  name);
	cr_expect(memcmp(a.pos, b.pos, 4 * a.n * sizeof(float)) == 0 &&
			  memcmp(a.vel, b.vel, 4 * a.n * sizeof(float)) == 0 &&
			  memcmp(a.acc, b.acc, 4 * a.n * sizeof(float)) == 0,
		  "%s: the state differs run to run", name);
	cr_expect(a.counts.candidates == b.counts.candidates &&
			  a.counts.neighbours == b.counts.neighbours,
		  "%s: counts differ run to run", name);
	blk_free(&b);
	blk_free(&a);
}

/*
 * read() returns the caller's order, bit for bit, right after create (0
 * steps) and after evaluate(0). Fed in reverse scene order with
 * velocities that tell the particles apart, so any sort is far from the
 * identity; the middle particle's density lands on it.
 */
static void blk_check_read_order(const struct sph_ops *ops, const char *name)
{
	struct blk_run r;
	float *pos, *vel;
	size_t n, mid;

	blk_require(ops, name);
	blk_column(&r, ops, name);
	n = r.n;
	pos = malloc(4 * n * sizeof(float));
	vel = malloc(4 * n * sizeof(float));
	cr_assert(pos && vel);
	for (size_t i = 0; i < n; i++) {
		memcpy(&pos[4 * i], &r.pos[4 * (n - 1 - i)], 4 * sizeof(float));
		memcpy(&vel[4 * i], &r.vel[4 * (n - 1 - i)], 4 * sizeof(float));
		vel[4 * i] = 0.001f * (float)i;
	}
	memcpy(r.pos, pos, 4 * n * sizeof(float));
	memcpy(r.vel, vel, 4 * n * sizeof(float));
	blk_create(&r);
	for (int pass = 0; pass < 2; pass++) {
		if (pass == 1)
			cr_assert(ops->evaluate(r.ctx, 0) == 0, "%s: evaluate: %s", name,
				  ops->error(r.ctx));
		memset(r.pos, 0xff, 4 * n * sizeof(float));
		memset(r.vel, 0xff, 4 * n * sizeof(float));
		memset(r.acc, 0xff, 4 * n * sizeof(float));
		cr_assert(ops->read(r.ctx, r.pos, r.vel, r.rho, r.acc) == 0, "%s: read: %s", name,
			  ops->error(r.ctx));
		cr_expect(memcmp(r.pos, pos, 4 * n * sizeof(float)) == 0 &&
				  memcmp(r.vel, vel, 4 * n * sizeof(float)) == 0,
			  "%s: state not returned as given after %s", name,
			  pass ? "evaluate" : "create");
		for (size_t i = 0; i < n; i++)
			cr_assert(r.acc[4 * i + 3] == 0.0f && (pass || r.rho[i] == 0.0f),
				  "%s: particle %zu: acc w %g, rho %g after %s", name, i,
				  r.acc[4 * i + 3], r.rho[i], pass ? "evaluate" : "create");
	}
	mid = n - 1 - (BLK_NX / 2 + BLK_NX * (BLK_NY / 2 + BLK_NY * (BLK_NZ / 2)));
	cr_expect(fabs(r.rho[mid] - r.p.rho0) < 0.1 * r.p.rho0, "%s: rho of the middle particle %g",
		  name, r.rho[mid]);
	cr_expect(ops->read(r.ctx, NULL, NULL, NULL, NULL) == 0);
	free(pos);
	free(vel);
	blk_free(&r);
}

/* One particle: no pairs, density its self term, free fall. */
static void blk_check_single_particle(const struct sph_ops *ops, const char *name)
{
	struct blk_run r;
	double self;

	blk_require(ops, name);
	blk_alloc(&r, ops, name, 1);
	sph_params_water(&r.p, BLK_LATTICE_D);
	blk_create(&r);
	blk_advance(&r, 5);
	self = r.p.mass * sph_ref_poly6(0.0, r.p.h);
	cr_expect(r.counts.candidates == 0 && r.counts.neighbours == 0,
		  "%s: %llu candidates, %llu neighbours for one particle", name,
		  r.counts.candidates, r.counts.neighbours);
	cr_expect(fabs(r.rho[0] - self) <= 1e-6 * self, "%s: rho %.9g, self term %.9g", name,
		  r.rho[0], self);
	cr_expect(fabs(r.acc[2] - r.p.gravity[2]) <= 1e-6 * fabs(r.p.gravity[2]) &&
			  r.acc[0] == 0.0f && r.acc[1] == 0.0f,
		  "%s: acceleration (%g, %g, %g)", name, r.acc[0], r.acc[1], r.acc[2]);
	blk_free(&r);
}

/* On the compressed lattice (27 particles in the fullest cells, no pair
 * near h) the neighbour count is exactly the brute-force reference's. */
static void blk_check_lattice_pairs(const struct sph_ops *ops, const char *name)
{
	struct blk_run r;
	struct sph_ref_state s;
	struct sph_nbr_list nl = { 0 };

	blk_require(ops, name);
	blk_lattice(&r, ops, name);
	blk_create(&r);
	blk_advance(&r, 0);
	cr_assert(sph_ref_state_init(&s, r.pos, r.vel, r.n) == 0);
	cr_assert(sph_ref_neighbours_brute(s.x, r.n, r.p.h, &nl) == 0);
	cr_expect(r.counts.overflow == 0 && r.counts.neighbours == nl.pairs,
		  "%s: overflow %d, %llu neighbours, brute force %zu", name, r.counts.overflow,
		  r.counts.neighbours, nl.pairs);
	sph_nbr_list_free(&nl);
	sph_ref_state_free(&s);
	blk_free(&r);
}

Test(gpu_sph_blocks, zindex_blocks_validates_after_20_steps)
{
	blk_check_validates(&sph_gpu_zindex_blocks_ops, "sph-gpu-zindex-blocks", 0);
}

Test(gpu_sph_blocks, zindex_blocks_is_deterministic)
{
	blk_check_deterministic(&sph_gpu_zindex_blocks_ops, "sph-gpu-zindex-blocks");
}

Test(gpu_sph_blocks, zindex_blocks_read_returns_callers_order)
{
	blk_check_read_order(&sph_gpu_zindex_blocks_ops, "sph-gpu-zindex-blocks");
}

Test(gpu_sph_blocks, zindex_blocks_single_particle)
{
	blk_check_single_particle(&sph_gpu_zindex_blocks_ops, "sph-gpu-zindex-blocks");
}

Test(gpu_sph_blocks, zindex_blocks_lattice_pairs_exact)
{
	blk_check_lattice_pairs(&sph_gpu_zindex_blocks_ops, "sph-gpu-zindex-blocks");
}

Test(gpu_sph_blocks, grid_buckets_validates_after_20_steps)
{
	blk_check_validates(&sph_gpu_grid_buckets_ops, "sph-gpu-grid-buckets", 0);
}

Test(gpu_sph_blocks, grid_buckets_is_deterministic)
{
	blk_check_deterministic(&sph_gpu_grid_buckets_ops, "sph-gpu-grid-buckets");
}

Test(gpu_sph_blocks, grid_buckets_read_returns_callers_order)
{
	blk_check_read_order(&sph_gpu_grid_buckets_ops, "sph-gpu-grid-buckets");
}

Test(gpu_sph_blocks, grid_buckets_single_particle)
{
	blk_check_single_particle(&sph_gpu_grid_buckets_ops, "sph-gpu-grid-buckets");
}

Test(gpu_sph_blocks, grid_buckets_lattice_pairs_exact)
{
	blk_check_lattice_pairs(&sph_gpu_grid_buckets_ops, "sph-gpu-grid-buckets");
}

Test(gpu_sph_blocks, brute_validates_after_20_steps)
{
	blk_check_validates(&sph_gpu_brute_ops, "sph-gpu-brute", 1);
}

Test(gpu_sph_blocks, brute_is_deterministic)
{
	blk_check_deterministic(&sph_gpu_brute_ops, "sph-gpu-brute");
}

Test(gpu_sph_blocks, brute_read_returns_callers_order)
{
	blk_check_read_order(&sph_gpu_brute_ops, "sph-gpu-brute");
}

Test(gpu_sph_blocks, brute_single_particle)
{
	blk_check_single_particle(&sph_gpu_brute_ops, "sph-gpu-brute");
}

Test(gpu_sph_blocks, brute_lattice_pairs_exact)
{
	blk_check_lattice_pairs(&sph_gpu_brute_ops, "sph-gpu-brute");
}

/*
 * The compressed lattice puts 27 particles in the fullest cells: buckets of
 * capacity 16 (SPH_BUCKET_CAPACITY, read by create) cannot hold them, and
 * the step must say so: steps() fails naming the overflow, counts() has
 * overflow = 1, and later calls fail too. (The default capacity, 32, holds
 * them: grid_buckets_lattice_pairs_exact.)
 */
Test(gpu_sph_blocks, grid_buckets_reports_overflow)
{
	const char *name = "sph-gpu-grid-buckets";
	struct sph_phase_times t = { 0 };
	struct blk_run r;

	blk_require(&sph_gpu_grid_buckets_ops, name);
	blk_lattice(&r, &sph_gpu_grid_buckets_ops, name);
	cr_assert(setenv("SPH_BUCKET_CAPACITY", "16", 1) == 0);
	blk_create(&r);
	unsetenv("SPH_BUCKET_CAPACITY");
	cr_expect(r.ops->steps(r.ctx, 1, &t) == -1, "%s: steps passed with full buckets", name);
	r.ops->counts(r.ctx, &r.counts);
	cr_expect(r.counts.overflow == 1, "%s: overflow %d", name, r.counts.overflow);
	cr_expect(strstr(r.ops->error(r.ctx), "overflow") != NULL, "%s: error \"%s\"", name,
		  r.ops->error(r.ctx));
	cr_expect(r.ops->evaluate(r.ctx, 1) == -1, "%s: evaluate passed after an overflow", name);
	blk_free(&r);
}

/* A capacity that is not a number in 1 .. 4096 is refused by create. */
Test(gpu_sph_blocks, grid_buckets_refuses_bad_capacity)
{
	const char *name = "sph-gpu-grid-buckets";
	const char *bad[] = { "0", "-3", "4097", "12x", "many" };
	struct blk_run r;

	blk_require(&sph_gpu_grid_buckets_ops, name);
	blk_lattice(&r, &sph_gpu_grid_buckets_ops, name);
	for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
		char err[256] = "";

		cr_assert(setenv("SPH_BUCKET_CAPACITY", bad[k], 1) == 0);
		cr_expect(blk_try_create(&r, err, sizeof err) == -1 && r.ctx == NULL,
			  "%s: capacity \"%s\" accepted", name, bad[k]);
		cr_expect(strstr(err, "SPH_BUCKET_CAPACITY") != NULL, "%s: message \"%s\"", name,
			  err);
		r.ctx = NULL;
	}
	unsetenv("SPH_BUCKET_CAPACITY");
	blk_free(&r);
}

/* The bucket array (cells x 32 x 4 bytes) is in aux_bytes: more than the
 * cells times the capacity on the dam-break box. */
Test(gpu_sph_blocks, grid_buckets_counts_the_bucket_array)
{
	const char *name = "sph-gpu-grid-buckets";
	struct blk_run r;
	double cells = 1.0;

	blk_require(&sph_gpu_grid_buckets_ops, name);
	blk_column(&r, &sph_gpu_grid_buckets_ops, name);
	blk_create(&r);
	r.ops->counts(r.ctx, &r.counts);
	for (int c = 0; c < 3; c++)
		cells *= floor((r.p.box_hi[c] - r.p.box_lo[c]) / (r.p.h * (1.0 + 1e-6))) + 1.0;
	cr_expect((double)r.counts.aux_bytes >= cells * 32.0 * 4.0,
		  "%s: aux %zu bytes for %.0f cells of 32 entries", name, r.counts.aux_bytes,
		  cells);
	blk_free(&r);
}

/* The paper's memory claim: zindex-blocks holds fewer bytes a particle
 * beyond the state than grid-radix (sorted cells with start/end tables). */
Test(gpu_sph_blocks, zindex_blocks_uses_less_memory_than_grid_radix)
{
	struct blk_run z, g;

	blk_require(&sph_gpu_zindex_blocks_ops, "sph-gpu-zindex-blocks");
	blk_require(&sph_gpu_grid_radix_ops, "sph-gpu-grid-radix");
	blk_column(&z, &sph_gpu_zindex_blocks_ops, "sph-gpu-zindex-blocks");
	blk_column(&g, &sph_gpu_grid_radix_ops, "sph-gpu-grid-radix");
	blk_create(&z);
	blk_create(&g);
	z.ops->counts(z.ctx, &z.counts);
	g.ops->counts(g.ctx, &g.counts);
	cr_expect(z.counts.aux_bytes > 0 && z.counts.aux_bytes < g.counts.aux_bytes,
		  "aux bytes a particle: zindex-blocks %.1f, grid-radix %.1f",
		  (double)z.counts.aux_bytes / (double)z.n, (double)g.counts.aux_bytes / (double)g.n);
	cr_log_info("aux bytes a particle: zindex-blocks %.1f, grid-radix %.1f",
		    (double)z.counts.aux_bytes / (double)z.n,
		    (double)g.counts.aux_bytes / (double)g.n);
	blk_free(&g);
	blk_free(&z);
}

/* Brute force refuses more than 2,000,000 particles with one line. */
Test(gpu_sph_blocks, brute_refuses_large_n)
{
	const char *name = "sph-gpu-brute";
	const size_t n = 2000001;
	char err[256] = "";
	struct blk_run r;

	blk_require(&sph_gpu_brute_ops, name);
	blk_alloc(&r, &sph_gpu_brute_ops, name, n);
	sph_params_water(&r.p, BLK_LATTICE_D);
	cr_expect(blk_try_create(&r, err, sizeof err) == -1 && r.ctx == NULL,
		  "%s: accepted n = %zu", name, n);
	cr_expect(strstr(err, "2000000") != NULL, "%s: message \"%s\"", name, err);
	r.ctx = NULL;
	blk_free(&r);
}
