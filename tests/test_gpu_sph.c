/* test_gpu_sph.c - Criterion tests for the GPU SPH variants of kernels/sph/sph_grid.cu (suite gpu_sph) */
#include <criterion/criterion.h>

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../harness/gpu_device.h"
#include "../harness/sph_validate.h"
#include "../kernels/sph/sph.h"
#include "../reference/sph_scene.h"

/* The variants under test (kernels/sph/sph_gpu.h); weak, so a build without
 * nvcc links: their addresses are then NULL and the tests skip. */
extern const struct sph_ops sph_gpu_grid_radix_ops __attribute__((weak));
extern const struct sph_ops sph_gpu_grid_count_ops __attribute__((weak));
extern const struct sph_ops sph_gpu_zindex_cells_ops __attribute__((weak));

/* The scene: a 12 x 12 x 14 dam break (2016 particles, not a multiple of
 * a block), seed 7, run for 20 steps: moving, compressed at the bottom,
 * with a free surface. */
#define GPU_SPH_NX 12
#define GPU_SPH_NY 12
#define GPU_SPH_NZ 14
#define GPU_SPH_SEED 7
#define GPU_SPH_STEPS 20

/* The variant's ops, or the test skipped with the reason it cannot run. */
static const struct sph_ops *gpu_sph_require(const struct sph_ops *ops, const char *name)
{
	const char *why = gpu_unavailable_reason();

	if (why)
		cr_skip_test("%s: no GPU here: %s", name, why);
	if (!ops)
		cr_skip_test("%s: not in this build (built without nvcc)", name);
	return ops;
}

/* One run of a variant: parameters, context and read-back state. */
struct gpu_sph_run {
	const struct sph_ops *ops;
	const char *name;
	struct sph_params p;
	size_t n;
	float *pos, *vel, *rho, *acc;
	struct sph_counts counts;
	void *ctx;
};

/* The nx x ny x nz dam break (GPU_SPH_SEED) in r, no context yet. */
static void gpu_sph_column(struct gpu_sph_run *r, const struct sph_ops *ops, const char *name,
			   int nx, int ny, int nz)
{
	memset(r, 0, sizeof *r);
	r->ops = ops;
	r->name = name;
	cr_assert(sph_scene_params(nx, ny, nz, &r->p) == 0);
	r->n = sph_scene_particles(nx, ny, nz);
	r->pos = calloc(4 * r->n, sizeof(float));
	r->vel = calloc(4 * r->n, sizeof(float));
	r->rho = calloc(r->n, sizeof(float));
	r->acc = calloc(4 * r->n, sizeof(float));
	cr_assert(r->pos && r->vel && r->rho && r->acc);
	cr_assert(sph_scene_dam_break(nx, ny, nz, GPU_SPH_SEED, &r->p, r->pos, r->vel) == 0);
}

static void gpu_sph_create(struct gpu_sph_run *r)
{
	char err[256] = "";

	cr_assert(r->ops->create(&r->ctx, r->pos, r->vel, r->n, &r->p, err, sizeof err) == 0,
		  "%s: create: %s", r->name, err);
}

/* steps steps, evaluate(count = 1), then the state read back and the
 * counts. */
static void gpu_sph_advance(struct gpu_sph_run *r, int steps)
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

static void gpu_sph_free(struct gpu_sph_run *r)
{
	if (r->ctx)
		r->ops->destroy(r->ctx);
	free(r->pos);
	free(r->vel);
	free(r->rho);
	free(r->acc);
	memset(r, 0, sizeof *r);
}

/* The dam break after GPU_SPH_STEPS steps, in a fresh context. */
static void gpu_sph_dam_break(struct gpu_sph_run *r, const struct sph_ops *ops, const char *name)
{
	gpu_sph_column(r, ops, name, GPU_SPH_NX, GPU_SPH_NY, GPU_SPH_NZ);
	gpu_sph_create(r);
	gpu_sph_advance(r, GPU_SPH_STEPS);
}

/*
 * After the steps, densities, accelerations and the neighbour pair count
 * of evaluate(1) match the double reference on the same positions and
 * velocities (harness/sph_validate.h); every particle is finite and in the
 * box, and the counts are plausible.
 */
static void gpu_sph_check_validates(const struct sph_ops *ops, const char *name)
{
	struct gpu_sph_run r;
	struct sph_validation v;

	gpu_sph_require(ops, name);
	gpu_sph_dam_break(&r, ops, name);
	cr_assert(sph_validate(&r.p, r.pos, r.vel, r.rho, r.acc, r.n, &r.counts, &v) == 0);
	cr_expect(v.pass,
		  "%s: rho_err %.3e (tol %.0e) at %zu, acc_err %.3e (tol %.0e) at %zu, pairs %llu "
		  "vs reference %llu (+-%llu near h), overflow %d",
		  name, v.rho_err, SPH_VALIDATE_RHO_TOL, v.worst_rho, v.acc_err,
		  SPH_VALIDATE_ACC_TOL, v.worst_acc, v.var_pairs, v.ref_pairs, v.near_h,
		  (int)v.overflow);
	cr_expect(r.counts.overflow == 0 && r.counts.aux_bytes > 0, "%s: overflow %d, aux %zu",
		  name, r.counts.overflow, r.counts.aux_bytes);
	cr_expect(r.counts.neighbours > 0 && r.counts.candidates >= r.counts.neighbours &&
			  r.counts.candidates < (unsigned long long)r.n * (r.n - 1) / 4,
		  "%s: %llu candidates, %llu neighbours", name, r.counts.candidates,
		  r.counts.neighbours);
	for (size_t i = 0; i < r.n; i++)
		for (int c = 0; c < 3; c++)
			cr_assert(isfinite(r.pos[4 * i + c]) && r.pos[4 * i + c] >= r.p.box_lo[c] &&
					  r.pos[4 * i + c] <= r.p.box_hi[c],
				  "%s: particle %zu at %.9g, box %g .. %g", name, i,
				  r.pos[4 * i + c], r.p.box_lo[c], r.p.box_hi[c]);
	gpu_sph_free(&r);
}

/* Two runs from scratch give the same bits: densities (the sums whose
 * order a race or an unordered atomic would change), and with them
 * positions, velocities, accelerations and counts. */
static void gpu_sph_check_deterministic(const struct sph_ops *ops, const char *name)
{
	struct gpu_sph_run a, b;

	gpu_sph_require(ops, name);
	gpu_sph_dam_break(&a, ops, name);
	gpu_sph_dam_break(&b, ops, name);
	cr_expect(memcmp(a.rho, b.rho, a.n * sizeof(float)) == 0, "%s: rho differs run to run",
		  name);
	cr_expect(memcmp(a.pos, b.pos, 4 * a.n * sizeof(float)) == 0 &&
			  memcmp(a.vel, b.vel, 4 * a.n * sizeof(float)) == 0 &&
			  memcmp(a.acc, b.acc, 4 * a.n * sizeof(float)) == 0,
		  "%s: the state differs run to run", name);
	cr_expect(a.counts.candidates == b.counts.candidates &&
			  a.counts.neighbours == b.counts.neighbours,
		  "%s: counts differ run to run", name);
	gpu_sph_free(&b);
	gpu_sph_free(&a);
}

/*
 * read() returns the caller's order, bit for bit: right after create (0
 * steps) and after evaluate(0), which sorts the particles by cell without
 * moving them. Fed in reverse scene order with velocities that tell the
 * particles apart, so the sort is far from the identity; any output may be
 * NULL, and w comes back 0.
 */
static void gpu_sph_check_read_order(const struct sph_ops *ops, const char *name)
{
	struct gpu_sph_run r;
	float *pos, *vel;
	size_t n;

	gpu_sph_require(ops, name);
	gpu_sph_column(&r, ops, name, GPU_SPH_NX, GPU_SPH_NY, GPU_SPH_NZ);
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
	gpu_sph_create(&r);
	for (int pass = 0; pass < 2; pass++) {
		if (pass == 1)
			cr_assert(ops->evaluate(r.ctx, 0) == 0, "%s: evaluate: %s", name,
				  ops->error(r.ctx));
		memset(r.pos, 0xff, 4 * n * sizeof(float));
		memset(r.vel, 0xff, 4 * n * sizeof(float));
		memset(r.acc, 0xff, 4 * n * sizeof(float));
		cr_assert(ops->read(r.ctx, r.pos, r.vel, r.rho, r.acc) == 0, "%s: read: %s", name,
			  ops->error(r.ctx));
		cr_expect(memcmp(r.pos, pos, 4 * n * sizeof(float)) == 0,
			  "%s: positions not returned as given after %s", name,
			  pass ? "evaluate" : "create");
		cr_expect(memcmp(r.vel, vel, 4 * n * sizeof(float)) == 0,
			  "%s: velocities not returned as given after %s", name,
			  pass ? "evaluate" : "create");
		for (size_t i = 0; i < n; i++)
			cr_assert(r.acc[4 * i + 3] == 0.0f && (pass || r.rho[i] == 0.0f),
				  "%s: particle %zu: acc w %g, rho %g after %s", name, i,
				  r.acc[4 * i + 3], r.rho[i], pass ? "evaluate" : "create");
	}
	/* after evaluate, densities are in the caller's order too: the
	 * particle at the middle of the column (scene index ix + nx (iy +
	 * ny iz), fed at n - 1 - that) is near rest density, where one on a
	 * face or an edge would have 1/2 to 1/4 of it */
	{
		const size_t mid = n - 1 - (GPU_SPH_NX / 2 + GPU_SPH_NX * (GPU_SPH_NY / 2 +
						GPU_SPH_NY * (GPU_SPH_NZ / 2)));

		cr_expect(fabs(r.rho[mid] - r.p.rho0) < 0.1 * r.p.rho0,
			  "%s: rho of the middle particle %g", name, r.rho[mid]);
	}
	cr_expect(ops->read(r.ctx, NULL, NULL, r.rho, NULL) == 0);
	cr_expect(ops->read(r.ctx, NULL, NULL, NULL, NULL) == 0);
	free(pos);
	free(vel);
	gpu_sph_free(&r);
}

/* One particle (every array of one element, a grid of one cell): it has
 * no pairs, its density is its self term m W_poly6(0), it falls freely,
 * and it validates. */
static void gpu_sph_check_single_particle(const struct sph_ops *ops, const char *name)
{
	struct gpu_sph_run r;
	struct sph_validation v;
	double self;

	gpu_sph_require(ops, name);
	gpu_sph_column(&r, ops, name, 1, 1, 1);
	gpu_sph_create(&r);
	gpu_sph_advance(&r, 5);
	self = r.p.mass * sph_ref_poly6(0.0, r.p.h);
	cr_expect(r.counts.candidates == 0 && r.counts.neighbours == 0,
		  "%s: %llu candidates, %llu neighbours for one particle", name,
		  r.counts.candidates, r.counts.neighbours);
	cr_expect(fabs(r.rho[0] - self) <= 1e-6 * self, "%s: rho %.9g, self term %.9g", name,
		  r.rho[0], self);
	cr_expect(fabs(r.acc[2] - r.p.gravity[2]) <= 1e-6 * fabs(r.p.gravity[2]) &&
			  r.acc[0] == 0.0f && r.acc[1] == 0.0f,
		  "%s: acceleration (%g, %g, %g)", name, r.acc[0], r.acc[1], r.acc[2]);
	cr_assert(sph_validate(&r.p, r.pos, r.vel, r.rho, r.acc, r.n, &r.counts, &v) == 0);
	cr_expect(v.pass, "%s: rho_err %.3e, acc_err %.3e", name, v.rho_err, v.acc_err);
	gpu_sph_free(&r);
}

/*
 * Counts on a lattice with h = 1.9 d, so no pair is within 5 % of h: the
 * neighbours are exactly the brute-force pairs. No walls, and a drift of
 * (8, 0, -8) m/s for 20 steps carries every particle 2.5 d beyond the
 * bounds the grid was laid over at create: clamped into the edge cells,
 * they must all still be found. The lattice is below rest density (no
 * pressure) and moves as one, so its pairs stay where they were.
 */
static void gpu_sph_check_beyond_the_grid(const struct sph_ops *ops, const char *name)
{
	const int side = 14;
	const double d = 0.01;
	struct gpu_sph_run r;
	size_t i = 0;

	gpu_sph_require(ops, name);
	memset(&r, 0, sizeof r);
	r.ops = ops;
	r.name = name;
	sph_params_water(&r.p, d);
	r.p.h = 1.9 * d;
	r.n = (size_t)side * side * side;
	r.pos = calloc(4 * r.n, sizeof(float));
	r.vel = calloc(4 * r.n, sizeof(float));
	r.rho = calloc(r.n, sizeof(float));
	r.acc = calloc(4 * r.n, sizeof(float));
	cr_assert(r.pos && r.vel && r.rho && r.acc);
	for (int z = 0; z < side; z++)
		for (int y = 0; y < side; y++)
			for (int x = 0; x < side; x++, i++) {
				r.pos[4 * i + 0] = (float)(x * d);
				r.pos[4 * i + 1] = (float)(y * d);
				r.pos[4 * i + 2] = (float)(z * d);
				r.vel[4 * i + 0] = 8.0f;
				r.vel[4 * i + 2] = -8.0f;
			}
	gpu_sph_create(&r);
	for (int pass = 0; pass < 2; pass++) {
		struct sph_ref_state s;
		struct sph_nbr_list nl = { 0 };

		gpu_sph_advance(&r, pass ? 20 : 0);
		cr_assert(sph_ref_state_init(&s, r.pos, r.vel, r.n) == 0);
		cr_assert(sph_ref_neighbours_brute(s.x, r.n, r.p.h, &nl) == 0);
		cr_expect(r.counts.neighbours == nl.pairs,
			  "%s, pass %d: %llu neighbours, brute force %zu", name, pass,
			  r.counts.neighbours, nl.pairs);
		cr_expect(r.counts.candidates >= r.counts.neighbours &&
				  r.counts.candidates < r.n * (r.n - 1) / 10,
			  "%s, pass %d: %llu candidates", name, pass, r.counts.candidates);
		for (size_t k = 0; k < r.n; k++)
			cr_assert(r.rho[k] < r.p.rho0, "%s: rho[%zu] = %g", name, k, r.rho[k]);
		sph_nbr_list_free(&nl);
		sph_ref_state_free(&s);
	}
	cr_expect(r.pos[0] > 2.4 * d && r.pos[2] < -2.4 * d, "%s: lattice did not drift: %g %g",
		  name, r.pos[0], r.pos[2]);
	gpu_sph_free(&r);
}

/* create() refuses with one line and no context: create with p. */
static void gpu_sph_refused(const struct sph_ops *ops, const char *name, const float *pos,
			    const float *vel, size_t n, const struct sph_params *p,
			    const char *want, const char *why)
{
	char err[256] = "";
	void *ctx = (void *)&ctx;

	cr_expect(ops->create(&ctx, pos, vel, n, p, err, sizeof err) == -1, "%s: %s accepted",
		  name, why);
	cr_expect(ctx == NULL, "%s: %s left a context", name, why);
	cr_expect(strstr(err, want) != NULL && !strchr(err, '\n'),
		  "%s: %s: message \"%s\" lacks \"%s\"", name, why, err, want);
	if (ctx)
		ops->destroy(ctx);
}

/* What create() refuses: no particles, h = 0, a box of too many cells
 * (2^27 in all for the grids, 1024 a side for Morton keys), an inverted
 * box, a NaN position. */
static void gpu_sph_check_refuses(const struct sph_ops *ops, const char *name)
{
	struct gpu_sph_run r;
	struct sph_params p;

	gpu_sph_require(ops, name);
	gpu_sph_column(&r, ops, name, 4, 4, 5);
	gpu_sph_refused(ops, name, r.pos, r.vel, 0, &r.p, "n = 0", "n = 0");
	p = r.p;
	p.h = 0.0;
	gpu_sph_refused(ops, name, r.pos, r.vel, r.n, &p, "h = 0", "h = 0");
	p = r.p;
	p.box_hi[1] = 1e6;	/* 8e6 cells a side */
	gpu_sph_refused(ops, name, r.pos, r.vel, r.n, &p, "cells", "a huge box");
	p = r.p;
	p.box_lo[2] = p.box_hi[2] + 1.0;
	gpu_sph_refused(ops, name, r.pos, r.vel, r.n, &p, "box_lo[2]", "an inverted box");
	r.pos[4 * 5 + 1] = NAN;
	gpu_sph_refused(ops, name, r.pos, r.vel, r.n, &r.p, "particle 5", "a NaN position");
	gpu_sph_free(&r);
}

Test(gpu_sph, grid_radix_validates_after_20_steps)
{
	gpu_sph_check_validates(&sph_gpu_grid_radix_ops, "sph-gpu-grid-radix");
}

Test(gpu_sph, grid_radix_is_deterministic)
{
	gpu_sph_check_deterministic(&sph_gpu_grid_radix_ops, "sph-gpu-grid-radix");
}

Test(gpu_sph, grid_radix_read_returns_callers_order)
{
	gpu_sph_check_read_order(&sph_gpu_grid_radix_ops, "sph-gpu-grid-radix");
}

Test(gpu_sph, grid_radix_single_particle)
{
	gpu_sph_check_single_particle(&sph_gpu_grid_radix_ops, "sph-gpu-grid-radix");
}

Test(gpu_sph, grid_radix_finds_pairs_beyond_the_grid)
{
	gpu_sph_check_beyond_the_grid(&sph_gpu_grid_radix_ops, "sph-gpu-grid-radix");
}

Test(gpu_sph, grid_radix_create_refuses_bad_input)
{
	gpu_sph_check_refuses(&sph_gpu_grid_radix_ops, "sph-gpu-grid-radix");
}

Test(gpu_sph, grid_count_validates_after_20_steps)
{
	gpu_sph_check_validates(&sph_gpu_grid_count_ops, "sph-gpu-grid-count");
}

Test(gpu_sph, grid_count_is_deterministic)
{
	gpu_sph_check_deterministic(&sph_gpu_grid_count_ops, "sph-gpu-grid-count");
}

Test(gpu_sph, grid_count_read_returns_callers_order)
{
	gpu_sph_check_read_order(&sph_gpu_grid_count_ops, "sph-gpu-grid-count");
}

Test(gpu_sph, grid_count_single_particle)
{
	gpu_sph_check_single_particle(&sph_gpu_grid_count_ops, "sph-gpu-grid-count");
}

Test(gpu_sph, grid_count_finds_pairs_beyond_the_grid)
{
	gpu_sph_check_beyond_the_grid(&sph_gpu_grid_count_ops, "sph-gpu-grid-count");
}

Test(gpu_sph, grid_count_create_refuses_bad_input)
{
	gpu_sph_check_refuses(&sph_gpu_grid_count_ops, "sph-gpu-grid-count");
}

Test(gpu_sph, zindex_cells_validates_after_20_steps)
{
	gpu_sph_check_validates(&sph_gpu_zindex_cells_ops, "sph-gpu-zindex-cells");
}

Test(gpu_sph, zindex_cells_is_deterministic)
{
	gpu_sph_check_deterministic(&sph_gpu_zindex_cells_ops, "sph-gpu-zindex-cells");
}

Test(gpu_sph, zindex_cells_read_returns_callers_order)
{
	gpu_sph_check_read_order(&sph_gpu_zindex_cells_ops, "sph-gpu-zindex-cells");
}

Test(gpu_sph, zindex_cells_single_particle)
{
	gpu_sph_check_single_particle(&sph_gpu_zindex_cells_ops, "sph-gpu-zindex-cells");
}

Test(gpu_sph, zindex_cells_finds_pairs_beyond_the_grid)
{
	gpu_sph_check_beyond_the_grid(&sph_gpu_zindex_cells_ops, "sph-gpu-zindex-cells");
}

Test(gpu_sph, zindex_cells_create_refuses_bad_input)
{
	gpu_sph_check_refuses(&sph_gpu_zindex_cells_ops, "sph-gpu-zindex-cells");
}

/* grid-count puts each cell's slots in the order of a stable sort, as
 * grid-radix's radix sort does, and both walk the same cells in the same
 * order: the two runs are the same bit for bit. (A counting sort that kept
 * its atomic order would differ here, and from run to run.) */
Test(gpu_sph, grid_count_equals_grid_radix_bitwise)
{
	struct gpu_sph_run a, b;

	gpu_sph_require(&sph_gpu_grid_radix_ops, "sph-gpu-grid-radix");
	gpu_sph_require(&sph_gpu_grid_count_ops, "sph-gpu-grid-count");
	gpu_sph_dam_break(&a, &sph_gpu_grid_radix_ops, "sph-gpu-grid-radix");
	gpu_sph_dam_break(&b, &sph_gpu_grid_count_ops, "sph-gpu-grid-count");
	cr_expect(memcmp(a.rho, b.rho, a.n * sizeof(float)) == 0 &&
			  memcmp(a.pos, b.pos, 4 * a.n * sizeof(float)) == 0 &&
			  memcmp(a.acc, b.acc, 4 * a.n * sizeof(float)) == 0,
		  "grid-count and grid-radix differ");
	cr_expect(a.counts.candidates == b.counts.candidates &&
		  a.counts.neighbours == b.counts.neighbours);
	gpu_sph_free(&b);
	gpu_sph_free(&a);
}
