/* test_gpu_sph.c - every GPU SPH variant of the registry, with walls, validates and repeats itself; planted bugs are caught (suites gpu_sph, gpu_sph_planted) */
#define _POSIX_C_SOURCE 200809L /* setenv, unsetenv */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_sph_run.h"

/*
 * Every test of the suite gpu_sph runs on every GPU line of
 * variants/sph.def, looked up through the registry, so a new variant is
 * tested without a new test; the cases come from the table, without any
 * CUDA call (Criterion generates them in the parent process).
 */
static const char *const gpu_sph_scenes[] = { GPU_SPH_COLUMN, GPU_SPH_UNEVEN };
#define GPU_SPH_NSCENES (sizeof gpu_sph_scenes / sizeof *gpu_sph_scenes)
/* The column of a case (gpu_sph_column: the sanitizers' override). */
#define GPU_SPH_SCENE(c) gpu_sph_column(gpu_sph_scenes[(c)->scene])

struct gpu_sph_case {
	size_t variant; /* index into sph_variants */
	size_t scene;	/* index into gpu_sph_scenes */
};

/* The GPU lines of the registry, each on the first nscenes scenes, into
 * cases; how many. */
static size_t gpu_sph_cases(struct gpu_sph_case *cases, size_t nscenes)
{
	size_t k = 0;

	for (size_t v = 0; v < SPH_VARIANT_COUNT; v++)
		if (sph_variants[v].device == VARIANT_GPU)
			for (size_t s = 0; s < nscenes; s++)
				cases[k++] = (struct gpu_sph_case){ v, s };
	return k;
}

/* The parameters of test (GPU lines times nscenes scenes). */
#define GPU_SPH_PARAMS(test, nscenes)                                                         \
	ParameterizedTestParameters(gpu_sph, test)                                             \
	{                                                                                      \
		static struct gpu_sph_case cases[SPH_VARIANT_COUNT * GPU_SPH_NSCENES];         \
		return cr_make_param_array(struct gpu_sph_case, cases,                         \
					   gpu_sph_cases(cases, nscenes));                     \
	}

/* The case's variant, or the test skipped with the reason it cannot run. */
static const struct sph_variant *gpu_sph_case_variant(const struct gpu_sph_case *c)
{
	const struct sph_variant *v = &sph_variants[c->variant];

	gpu_sph_require(v);
	return v;
}

/* Whether the variant looks at every pair (its candidates are then all
 * n (n + nb - 1) of them). */
static bool gpu_sph_all_pairs(const struct sph_variant *v)
{
	return strcmp(v->method, "brute") == 0;
}

/* ---- validation --------------------------------------------------------- */

/*
 * After 20 steps, densities, accelerations and the neighbour pair count
 * of evaluate(1) match the double reference with the same walls on the
 * same positions and velocities (harness/sph/sph_validate.h), and every fluid
 * particle is finite and inside the box.
 */
GPU_SPH_PARAMS(validates_after_20_steps, GPU_SPH_NSCENES)
ParameterizedTest(struct gpu_sph_case *c, gpu_sph, validates_after_20_steps, .timeout = 120)
{
	const struct sph_variant *v = gpu_sph_case_variant(c);
	const char *scene = GPU_SPH_SCENE(c);
	struct sph_validation val;
	struct gpu_sph_run r;
	size_t bad = 0;

	gpu_sph_stepped(&r, v, scene);
	gpu_sph_validate(&r, &val);
	cr_expect(val.pass,
		  "%s on %s: rho_err %.3e (tol %.0e) at %zu, acc_err %.3e (tol %.0e) at %zu, pairs "
		  "%llu vs reference %llu (+-%llu near h), overflow %d",
		  v->name, scene, val.rho_err, SPH_VALIDATE_RHO_TOL, val.worst_rho, val.acc_err,
		  SPH_VALIDATE_ACC_TOL, val.worst_acc, val.var_pairs, val.ref_pairs, val.near_h,
		  (int)val.overflow);
	cr_expect(gpu_sph_inside(&r, &bad), "%s on %s: particle %zu at (%.9g, %.9g, %.9g) is not "
		  "finite or left the box", v->name, scene, bad, r.pos[4 * bad],
		  r.pos[4 * bad + 1], r.pos[4 * bad + 2]);
	gpu_sph_free(&r);
}

/* The clamp is a last resort: with boundary particles on every wall, 20
 * steps of a column never need it. */
GPU_SPH_PARAMS(no_clamps_after_20_steps, GPU_SPH_NSCENES)
ParameterizedTest(struct gpu_sph_case *c, gpu_sph, no_clamps_after_20_steps, .timeout = 120)
{
	const struct sph_variant *v = gpu_sph_case_variant(c);
	struct gpu_sph_run r;

	gpu_sph_stepped(&r, v, GPU_SPH_SCENE(c));
	cr_expect(r.counts.clamps == 0, "%s on %s: %llu coordinates clamped onto a wall", v->name,
		  GPU_SPH_SCENE(c), r.counts.clamps);
	gpu_sph_free(&r);
}

/* ---- counts -------------------------------------------------------------- */

/* Ordered pairs (fluid i, fluid or wall j != i) whose squared distance,
 * in double from the floats of r's state and walls, is within
 * SPH_H_BAND of h^2: the pairs float rounding may decide either
 * way. */
static unsigned long long gpu_sph_near_h(const struct gpu_sph_run *r)
{
	const size_t n = r->sc.n, nb = r->sc.nb;
	const double h2 = r->sc.p.h * r->sc.p.h;
	unsigned long long band = 0;

	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < n + nb; j++) {
			const float *xj = j < n ? &r->pos[4 * j] : &r->sc.bnd4[4 * (j - n)];
			double r2 = 0.0;

			for (int d = 0; d < 3; d++) {
				const double dx = (double)xj[d] - (double)r->pos[4 * i + d];

				r2 += dx * dx;
			}
			band += j != i && fabs(r2 / h2 - 1.0) < SPH_H_BAND;
		}
	return band;
}

/*
 * After 20 steps, the counts of evaluate(1): memory beyond the state, no
 * overflow, candidates at least the neighbours (all n (n + nb - 1) pairs
 * for brute force, fewer than half of them otherwise: 2 to 6 % in the
 * scenes, 22 % for zindex-blocks' blocks of 1.5 h in a 6x6x7 column),
 * and neighbours (fluid-fluid and fluid-wall) the reference's lists'
 * pairs, but for pairs within float rounding of h.
 */
GPU_SPH_PARAMS(counts_match_the_reference, GPU_SPH_NSCENES)
ParameterizedTest(struct gpu_sph_case *c, gpu_sph, counts_match_the_reference, .timeout = 120)
{
	const struct sph_variant *v = gpu_sph_case_variant(c);
	const char *scene = GPU_SPH_SCENE(c);
	struct sph_ref_state s;
	struct gpu_sph_run r;
	unsigned long long all, ref, band, diff;

	gpu_sph_stepped(&r, v, scene);
	all = (unsigned long long)r.sc.n * (r.sc.n + r.sc.nb - 1);
	cr_assert(sph_ref_state_init(&s, &r.sc.p, r.pos, r.vel, r.sc.n, r.sc.bnd4, r.sc.nb) == 0);
	cr_assert(sph_ref_evaluate(&s, &r.sc.p) == 0);
	ref = (unsigned long long)s.nbrs.pairs + s.bnbrs.pairs;
	band = gpu_sph_near_h(&r);
	diff = r.counts.neighbours > ref ? r.counts.neighbours - ref : ref - r.counts.neighbours;
	cr_expect(r.counts.aux_bytes > 0 && r.counts.overflow == 0, "%s on %s: aux %zu, overflow %d",
		  v->name, scene, r.counts.aux_bytes, r.counts.overflow);
	cr_expect(r.counts.neighbours > 0 && r.counts.candidates >= r.counts.neighbours,
		  "%s on %s: %llu candidates, %llu neighbours", v->name, scene, r.counts.candidates,
		  r.counts.neighbours);
	if (gpu_sph_all_pairs(v))
		cr_expect(r.counts.candidates == all, "%s on %s: %llu candidates, n (n + nb - 1) = %llu",
			  v->name, scene, r.counts.candidates, all);
	else
		cr_expect(r.counts.candidates < all / 2, "%s on %s: %llu candidates of %llu pairs",
			  v->name, scene, r.counts.candidates, all);
	cr_expect(diff <= band, "%s on %s: %llu neighbours, reference %llu (%llu fluid, %zu wall), "
		  "%llu within rounding of h", v->name, scene, r.counts.neighbours, ref,
		  (unsigned long long)s.nbrs.pairs, s.bnbrs.pairs, band);
	sph_ref_state_free(&s);
	gpu_sph_free(&r);
}

/* ---- determinism --------------------------------------------------------- */

/* Two runs from scratch give the same bits: densities (the sums whose
 * order a race or an unordered atomic would change), and with them
 * positions, velocities, accelerations and counts. */
GPU_SPH_PARAMS(is_deterministic, 1)
ParameterizedTest(struct gpu_sph_case *c, gpu_sph, is_deterministic, .timeout = 120)
{
	const struct sph_variant *v = gpu_sph_case_variant(c);
	struct gpu_sph_run a, b;
	size_t n;

	gpu_sph_stepped(&a, v, gpu_sph_column(GPU_SPH_COLUMN));
	gpu_sph_stepped(&b, v, gpu_sph_column(GPU_SPH_COLUMN));
	n = a.sc.n;
	cr_expect(memcmp(a.rho, b.rho, n * sizeof(float)) == 0, "%s: rho differs run to run",
		  v->name);
	cr_expect(memcmp(a.pos, b.pos, 4 * n * sizeof(float)) == 0 &&
			  memcmp(a.vel, b.vel, 4 * n * sizeof(float)) == 0 &&
			  memcmp(a.acc, b.acc, 4 * n * sizeof(float)) == 0,
		  "%s: the state differs run to run", v->name);
	cr_expect(a.counts.candidates == b.counts.candidates &&
			  a.counts.neighbours == b.counts.neighbours &&
			  a.counts.clamps == b.counts.clamps,
		  "%s: counts differ run to run", v->name);
	gpu_sph_free(&b);
	gpu_sph_free(&a);
}

/* ---- what create() refuses ---------------------------------------------- */

/* create() refuses in, p with one line holding want, and no context. */
static void gpu_sph_refused(const struct sph_variant *v, const struct sph_input *in,
			    const struct sph_params *p, const char *want, const char *why)
{
	char err[256] = "";
	void *ctx = (void *)&ctx;

	cr_expect(v->ops->create(&ctx, in, p, err, sizeof err) == -1, "%s: %s accepted", v->name,
		  why);
	cr_expect(ctx == NULL, "%s: %s left a context", v->name, why);
	cr_expect(strstr(err, want) != NULL && !strchr(err, '\n'),
		  "%s: %s: message \"%s\" lacks \"%s\"", v->name, why, err, want);
	if (ctx && ctx != (void *)&ctx)
		v->ops->destroy(ctx);
}

/* No fluid, a NaN fluid position, a NaN boundary position and an
 * inverted box are each refused with a line naming them. */
GPU_SPH_PARAMS(refuses_bad_input, 1)
ParameterizedTest(struct gpu_sph_case *c, gpu_sph, refuses_bad_input, .timeout = 60)
{
	const struct sph_variant *v = gpu_sph_case_variant(c);
	struct gpu_sph_run r;
	struct sph_input in;
	struct sph_params p;

	gpu_sph_scene(&r, v->ops, v->name, gpu_sph_column(GPU_SPH_COLUMN), GPU_SPH_SEED);
	in = (struct sph_input){ r.sc.n, r.sc.pos4, r.sc.vel4, r.sc.nb, r.sc.bnd4 };
	in.n = 0;
	gpu_sph_refused(v, &in, &r.sc.p, "0 fluid", "n = 0");
	in.n = r.sc.n;
	p = r.sc.p;
	p.box_lo[2] = p.box_hi[2] + 1.0;
	gpu_sph_refused(v, &in, &p, "inverted", "an inverted box");
	r.sc.bnd4[4 * 7 + 2] = NAN;
	gpu_sph_refused(v, &in, &r.sc.p, "boundary particle 7", "a NaN boundary position");
	r.sc.bnd4[4 * 7 + 2] = 0.0f;
	r.sc.pos4[4 * 5 + 1] = NAN;
	gpu_sph_refused(v, &in, &r.sc.p, "particle 5", "a NaN position");
	gpu_sph_free(&r);
}

/* ---- state in the caller's order ----------------------------------------- */

/*
 * read() returns the caller's order: right after create (0 steps) and
 * after evaluate(0), which sorts the particles by cell without moving
 * them. Fed in reverse scene order with velocities that tell the
 * particles apart, so the sort is far from the identity; any output may
 * be NULL. Positions and velocities come back as given (x, y, z; w is
 * the variant's), acc's w is 0, rho is 0 before the first evaluation and
 * near rho0 in the middle of the column after it.
 */
GPU_SPH_PARAMS(read_returns_callers_order, 1)
ParameterizedTest(struct gpu_sph_case *c, gpu_sph, read_returns_callers_order, .timeout = 60)
{
	const struct sph_variant *v = gpu_sph_case_variant(c);
	struct gpu_sph_run r;
	float *pos, *vel;
	size_t n, mid;

	gpu_sph_scene(&r, v->ops, v->name, gpu_sph_column(GPU_SPH_COLUMN), GPU_SPH_SEED);
	n = r.sc.n;
	pos = malloc(4 * n * sizeof(float));
	vel = malloc(4 * n * sizeof(float));
	cr_assert(pos && vel);
	for (size_t i = 0; i < n; i++) {
		memcpy(&pos[4 * i], &r.sc.pos4[4 * (n - 1 - i)], 4 * sizeof(float));
		memcpy(&vel[4 * i], &r.sc.vel4[4 * (n - 1 - i)], 4 * sizeof(float));
		vel[4 * i] = 0.001f * (float)i;
	}
	memcpy(r.sc.pos4, pos, 4 * n * sizeof(float));
	memcpy(r.sc.vel4, vel, 4 * n * sizeof(float));
	gpu_sph_create(&r);
	for (int pass = 0; pass < 2; pass++) {
		const char *when = pass ? "evaluate" : "create";

		if (pass == 1)
			cr_assert(v->ops->evaluate(r.ctx, 0) == 0, "%s: evaluate: %s", v->name,
				  v->ops->error(r.ctx));
		memset(r.pos, 0xff, 4 * n * sizeof(float));
		memset(r.vel, 0xff, 4 * n * sizeof(float));
		memset(r.acc, 0xff, 4 * n * sizeof(float));
		memset(r.rho, 0xff, n * sizeof(float));
		cr_assert(v->ops->read(r.ctx, r.pos, r.vel, r.rho, r.acc) == 0, "%s: read: %s",
			  v->name, v->ops->error(r.ctx));
		for (size_t i = 0; i < n; i++) {
			cr_assert(memcmp(&r.pos[4 * i], &pos[4 * i], 3 * sizeof(float)) == 0 &&
					  memcmp(&r.vel[4 * i], &vel[4 * i], 3 * sizeof(float)) == 0,
				  "%s: particle %zu not returned as given after %s", v->name, i, when);
			cr_assert(r.acc[4 * i + 3] == 0.0f && (pass || r.rho[i] == 0.0f),
				  "%s: particle %zu: acc w %g, rho %g after %s", v->name, i,
				  r.acc[4 * i + 3], r.rho[i], when);
		}
	}
	/* the particle at the middle of the column, scene index ix + nx (iy +
	 * ny iz), fed at n - 1 - that */
	mid = n - 1 - (size_t)(r.col.nx / 2 + r.col.nx * (r.col.ny / 2 + r.col.ny * (r.col.nz / 2)));
	cr_expect(fabs(r.rho[mid] - r.sc.p.rho0) < 0.05 * r.sc.p.rho0,
		  "%s: rho of the middle particle %g", v->name, r.rho[mid]);
	cr_expect(v->ops->read(r.ctx, NULL, NULL, r.rho, NULL) == 0);
	cr_expect(v->ops->read(r.ctx, NULL, NULL, NULL, NULL) == 0);
	free(pos);
	free(vel);
	gpu_sph_free(&r);
}

/* ---- without walls ------------------------------------------------------- */

/* A scene without walls or box: n particles at spacing d (positions for
 * the caller to set), water at d with support h_over_d d. */
static void gpu_sph_open(struct gpu_sph_run *r, const struct sph_variant *v, size_t n, double d,
			 double h_over_d)
{
	memset(r, 0, sizeof *r);
	r->name = v->name;
	r->ops = v->ops;
	sph_params_water(&r->sc.p, d, d * (double)(n > 1 ? 14 : 1));
	r->sc.p.h = h_over_d * d;
	r->sc.n = n;
	r->sc.pos4 = calloc(4 * n, sizeof(float));
	r->sc.vel4 = calloc(4 * n, sizeof(float));
	cr_assert(r->sc.pos4 && r->sc.vel4);
	gpu_sph_arrays(r);
}

/* One particle, no walls (every array of one element, a grid of one
 * cell): no pairs, its density its self term m W_poly6(0), free fall. */
GPU_SPH_PARAMS(single_particle, 1)
ParameterizedTest(struct gpu_sph_case *c, gpu_sph, single_particle, .timeout = 60)
{
	const struct sph_variant *v = gpu_sph_case_variant(c);
	struct sph_validation val;
	struct gpu_sph_run r;
	double self;

	gpu_sph_open(&r, v, 1, 0.01, 2.0);
	gpu_sph_create(&r);
	gpu_sph_advance(&r, 5);
	self = r.sc.p.mass * sph_ref_poly6(0.0, r.sc.p.h);
	cr_expect(r.counts.candidates == 0 && r.counts.neighbours == 0,
		  "%s: %llu candidates, %llu neighbours for one particle", v->name,
		  r.counts.candidates, r.counts.neighbours);
	cr_expect(fabs(r.rho[0] - self) <= 1e-6 * self, "%s: rho %.9g, self term %.9g", v->name,
		  r.rho[0], self);
	cr_expect(fabs(r.acc[2] - r.sc.p.gravity[2]) <= 1e-6 * fabs(r.sc.p.gravity[2]) &&
			  r.acc[0] == 0.0f && r.acc[1] == 0.0f,
		  "%s: acceleration (%g, %g, %g)", v->name, r.acc[0], r.acc[1], r.acc[2]);
	gpu_sph_validate(&r, &val);
	cr_expect(val.pass, "%s: rho_err %.3e, acc_err %.3e", v->name, val.rho_err, val.acc_err);
	gpu_sph_free(&r);
}

/*
 * A 14^3 lattice with h = 1.9 d, so no pair is within 5 % of h: the
 * neighbours are exactly the brute-force pairs. No walls, and a drift of
 * (8, 0, -8) m/s for 20 steps carries every particle 2.5 d beyond the
 * bounds the grid was laid over at create: clamped into the edge cells,
 * they must all still be found. The lattice is below rest density (no
 * pressure) and moves as one, so its pairs stay where they were. The
 * edge cells then hold up to 50 particles: grid-buckets' capacity is
 * raised for this test through its hook (SPH_BUCKET_CAPACITY, which the
 * other methods ignore), so that it too must find them all.
 */
GPU_SPH_PARAMS(finds_pairs_beyond_the_grid, 1)
ParameterizedTest(struct gpu_sph_case *c, gpu_sph, finds_pairs_beyond_the_grid, .timeout = 60)
{
	const struct sph_variant *v = gpu_sph_case_variant(c);
	const int side = 14;
	const double d = 0.01;
	struct gpu_sph_run r;
	unsigned long long all;
	size_t i = 0;

	gpu_sph_open(&r, v, (size_t)side * side * side, d, 1.9);
	r.sc.p.dt = 1.6e-4; /* 20 steps at 8 m/s drift 2.56 spacings, whatever the water's step */
	all = (unsigned long long)r.sc.n * (r.sc.n - 1);
	for (int z = 0; z < side; z++)
		for (int y = 0; y < side; y++)
			for (int x = 0; x < side; x++, i++) {
				r.sc.pos4[4 * i + 0] = (float)(x * d);
				r.sc.pos4[4 * i + 1] = (float)(y * d);
				r.sc.pos4[4 * i + 2] = (float)(z * d);
				r.sc.vel4[4 * i + 0] = 8.0f;
				r.sc.vel4[4 * i + 2] = -8.0f;
			}
	cr_assert(setenv("SPH_BUCKET_CAPACITY", "64", 1) == 0);
	gpu_sph_create(&r);
	unsetenv("SPH_BUCKET_CAPACITY");
	for (int pass = 0; pass < 2; pass++) {
		struct sph_ref_state s;
		struct sph_nbr_list nl = { 0 };

		gpu_sph_advance(&r, pass ? 20 : 0);
		cr_assert(sph_ref_state_init(&s, &r.sc.p, r.pos, r.vel, r.sc.n, NULL, 0) == 0);
		cr_assert(sph_ref_neighbours_brute(s.x, r.sc.n, r.sc.p.h, &nl) == 0);
		cr_expect(r.counts.neighbours == nl.pairs,
			  "%s, pass %d: %llu neighbours, brute force %zu", v->name, pass,
			  r.counts.neighbours, nl.pairs);
		if (gpu_sph_all_pairs(v))
			cr_expect(r.counts.candidates == all, "%s, pass %d: %llu candidates",
				  v->name, pass, r.counts.candidates);
		else
			cr_expect(r.counts.candidates >= r.counts.neighbours &&
					  r.counts.candidates < all / 2,
				  "%s, pass %d: %llu candidates", v->name, pass,
				  r.counts.candidates);
		for (size_t k = 0; k < r.sc.n; k++)
			cr_assert(r.rho[k] < r.sc.p.rho0, "%s: rho[%zu] = %g", v->name, k,
				  r.rho[k]);
		sph_nbr_list_free(&nl);
		sph_ref_state_free(&s);
	}
	cr_expect(r.pos[0] > 2.4 * d && r.pos[2] < -2.4 * d, "%s: the lattice did not drift: %g %g",
		  v->name, r.pos[0], r.pos[2]);
	gpu_sph_free(&r);
}

/* ---- grid-radix and grid-count ------------------------------------------- */

/* grid-count puts each cell's slots in the order of a stable sort, as
 * grid-radix's radix sort does, and both walk the same cells in the same
 * order: the two runs are the same bit for bit. (A counting sort that
 * kept its atomic order would differ here, and from run to run.) */
Test(gpu_sph, grid_count_equals_grid_radix_bitwise, .timeout = 120)
{
	const struct sph_variant *vr = gpu_sph_variant("sph-gpu-grid-radix");
	const struct sph_variant *vc = gpu_sph_variant("sph-gpu-grid-count");
	struct gpu_sph_run a, b;
	size_t n;

	gpu_sph_require(vr);
	gpu_sph_require(vc);
	gpu_sph_stepped(&a, vr, gpu_sph_column(GPU_SPH_COLUMN));
	gpu_sph_stepped(&b, vc, gpu_sph_column(GPU_SPH_COLUMN));
	n = a.sc.n;
	cr_expect(memcmp(a.rho, b.rho, n * sizeof(float)) == 0 &&
			  memcmp(a.pos, b.pos, 4 * n * sizeof(float)) == 0 &&
			  memcmp(a.acc, b.acc, 4 * n * sizeof(float)) == 0,
		  "grid-count and grid-radix differ");
	cr_expect(a.counts.candidates == b.counts.candidates &&
		  a.counts.neighbours == b.counts.neighbours);
	gpu_sph_free(&b);
	gpu_sph_free(&a);
}

/* ---- planted bugs --------------------------------------------------------- */

/* The planted copies of tests/sph/gpu_planted_sph.cu; weak, so a build
 * without nvcc links (their addresses are then NULL and the tests skip). */
extern const struct sph_ops sph_planted_grid_radix_ops __attribute__((weak));
extern const struct sph_ops sph_planted_grid_count_ops __attribute__((weak));
extern const struct sph_ops sph_planted_zindex_cells_ops __attribute__((weak));
extern const struct sph_ops sph_planted_zindex_blocks_skip_ops __attribute__((weak));
extern const struct sph_ops sph_planted_zindex_blocks_race_ops __attribute__((weak));
extern const struct sph_ops sph_planted_grid_buckets_ops __attribute__((weak));
extern const struct sph_ops sph_planted_brute_ops __attribute__((weak));
extern const struct sph_ops sph_planted_nlist_ops __attribute__((weak));
extern const struct sph_ops sph_planted_verlet_ops __attribute__((weak));
extern const struct sph_ops sph_planted_verlet_fine_ops __attribute__((weak));

struct gpu_sph_plant {
	const char *what;
	const struct sph_ops *ops;
	bool race; /* a race: also evaluated again and again, compared bit for bit */
};

static const struct gpu_sph_plant gpu_sph_plants[] = {
	{ "grid-radix: the cell at +x left out of the 27", &sph_planted_grid_radix_ops, false },
	{ "grid-count: the cell at +y left out of the 27", &sph_planted_grid_count_ops, false },
	{ "zindex-cells: the cell at -z left out of the 27", &sph_planted_zindex_cells_ops, false },
	{ "zindex-blocks: the neighbouring block at -x left out of the 27",
	  &sph_planted_zindex_blocks_skip_ops, false },
	{ "zindex-blocks: no barrier between a tile's shared-memory copy and its reads",
	  &sph_planted_zindex_blocks_race_ops, true },
	{ "grid-buckets: the cell at +z left out of the 27", &sph_planted_grid_buckets_ops, false },
	{ "brute: the first tile of 256 left out", &sph_planted_brute_ops, false },
	{ "grid-nlist: the cell at +x left out of the list pass", &sph_planted_nlist_ops, false },
	{ "grid-verlet: the cell at +x left out of the list rebuild", &sph_planted_verlet_ops,
	  false },
	{ "grid-verlet-fine: each row of the pruned walk one cell short at +x",
	  &sph_planted_verlet_fine_ops, false },
};
#define GPU_SPH_NPLANTS (sizeof gpu_sph_plants / sizeof *gpu_sph_plants)

/* Evaluations of the same positions a race gets to show itself in. */
#define GPU_SPH_RACE_REPEATS 200

ParameterizedTestParameters(gpu_sph_planted, is_caught)
{
	static size_t ids[GPU_SPH_NPLANTS];

	for (size_t k = 0; k < GPU_SPH_NPLANTS; k++)
		ids[k] = k;
	return cr_make_param_array(size_t, ids, GPU_SPH_NPLANTS);
}

/*
 * Evaluations of r's unchanged positions, GPU_SPH_RACE_REPEATS after a
 * first: the first whose densities or accelerations differ from the
 * first's bit for bit, or one that fails, described into how (appended).
 * Whether there was one.
 */
static bool gpu_sph_repeat_differs(struct gpu_sph_run *r, char *how, size_t len)
{
	const size_t n = r->sc.n, used = strlen(how);
	const char *also = used ? "; and by " : "";
	float *rho = malloc((n + 1) * sizeof(float)), *acc = malloc((4 * n + 4) * sizeof(float));
	bool differs = false;

	cr_assert(rho && acc);
	for (int k = 0; k <= GPU_SPH_RACE_REPEATS && !differs; k++) {
		float *rho_k = k ? rho : r->rho, *acc_k = k ? acc : r->acc;

		if (r->ops->evaluate(r->ctx, 0) != 0 ||
		    r->ops->read(r->ctx, NULL, NULL, rho_k, acc_k) != 0) {
			snprintf(how + used, len - used, "%sa failed evaluation (%d of %d): %s",
				 also, k, GPU_SPH_RACE_REPEATS, r->ops->error(r->ctx));
			differs = true;
		} else if (k && (memcmp(rho, r->rho, n * sizeof(float)) != 0 ||
				 memcmp(acc, r->acc, 4 * n * sizeof(float)) != 0)) {
			snprintf(how + used, len - used, "%sa bit-for-bit repeat (evaluation %d of "
				 "%d of the same positions differs from the first)", also, k,
				 GPU_SPH_RACE_REPEATS);
			differs = true;
		}
	}
	free(rho);
	free(acc);
	return differs;
}

/*
 * A planted bug in each GPU SPH method (tests/sph/gpu_planted_sph.cu) must be
 * caught: by validation after 20 steps of the column (a neighbour cell,
 * block or tile left out moves densities by far more than the tolerance),
 * by the run failing, or for the race by an evaluation of the same
 * positions that differs bit for bit from the first. The log names each
 * plant and what caught it. The race is also what compute-sanitizer's
 * racecheck reports on this test (results/testing.md has the sanitizer commands).
 */
ParameterizedTest(size_t *k, gpu_sph_planted, is_caught, .timeout = 120)
{
	const struct gpu_sph_plant *pl = &gpu_sph_plants[*k];
	const char *no_gpu = gpu_unavailable_reason();
	struct sph_phase_times t = { 0 };
	struct sph_validation val;
	struct gpu_sph_run r;
	char how[640] = "", why[320];
	bool caught = false;

	if (no_gpu)
		cr_skip_test("planted %s: no GPU here: %s", pl->what, no_gpu);
	if (!pl->ops)
		cr_skip_test("planted %s: not in this build (built without nvcc)", pl->what);
	gpu_sph_scene(&r, pl->ops, pl->what, gpu_sph_column(GPU_SPH_COLUMN), GPU_SPH_SEED);
	gpu_sph_create(&r);
	if (gpu_sph_try_advance(&r, GPU_SPH_STEPS, &t, why, sizeof why) != 0) {
		snprintf(how, sizeof how, "the run failing (%s)", why);
		caught = true;
	} else {
		gpu_sph_validate(&r, &val);
		if (!val.pass) {
			snprintf(how, sizeof how, "validation (rho_err %.2e, tol %.0e; acc_err %.2e, "
				 "tol %.0e; pairs %llu, reference %llu +- %llu)", val.rho_err,
				 SPH_VALIDATE_RHO_TOL, val.acc_err, SPH_VALIDATE_ACC_TOL,
				 val.var_pairs, val.ref_pairs, val.near_h);
			caught = true;
		}
		if (pl->race && gpu_sph_repeat_differs(&r, how, sizeof how))
			caught = true;
	}
	fprintf(stderr, "planted %s: %s%s\n", pl->what, caught ? "caught by " : "NOT CAUGHT",
		how);
	cr_expect(caught, "planted %s passed validation%s", pl->what,
		  pl->race ? " and every repeat" : "");
	gpu_sph_free(&r);
}
