/* test_nbody_cpu_simd.c - every code path of cpu-simd (AVX-512, AVX2, scalar) against the reference */
#define _POSIX_C_SOURCE 200809L
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../harness/nbody/validate.h"
#include "../../kernels/nbody/nbody_cpu.h"
#include "../../reference/ic.h"
#include "../../reference/nbody_ref.h"

/*
 * cpu-simd picks its path once per process, from NBODY_CPU_SIMD_ISA when
 * the CPU can run the path named there; Criterion runs each test in a
 * process of its own, so each test sets the variable before the first
 * call and then checks that the path it asked for is the one taken
 * (skipping, with the reason, where the CPU lacks it).
 *
 * Each path is validated as the harness validates a variant (every body,
 * validate_compare with the float tolerance) at softening 0.01 and at
 * softening 0, where the self pair of every body is at zero distance and
 * only the zero-distance mask (vector paths) or the j == i skip (scalar)
 * keeps it from 0 * inf = NaN. The sizes are not multiples of the 64-body
 * blocks nor of the 64-body j-chunks.
 */

/* The paths: what NBODY_CPU_SIMD_ISA names, what nbody_cpu_simd_isa()
 * then says, and the CPU feature the path needs (NULL: none). */
static const struct simd_path {
	const char *isa, *reported, *cpu_flag;
} simd_paths[] = {
	{ "avx512", "avx512", "avx512f" },
	{ "avx2", "avx2+fma", "avx2" },
	{ "scalar", "scalar", NULL },
};

/* A case holds no pointer: Criterion hands it to a fresh process. */
struct simd_case {
	int path;	/* index in simd_paths */
	size_t n;
	double eps;
};

/* Whether this CPU has the feature flag (__builtin_cpu_supports takes
 * only a literal). */
static int simd_cpu_has(const char *flag)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_cpu_init();
	if (strcmp(flag, "avx512f") == 0)
		return __builtin_cpu_supports("avx512f");
	if (strcmp(flag, "avx2") == 0)
		return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#endif
	(void)flag;
	return 0;
}

/* Asks for c's path; skips when this CPU cannot run it. Returns it. */
static const struct simd_path *simd_force_path(const struct simd_case *sc)
{
	const struct simd_path *c = &simd_paths[sc->path];

#if defined(__x86_64__) || defined(__i386__)
	if (c->cpu_flag && !simd_cpu_has(c->cpu_flag))
		cr_skip_test("this CPU has no %s%s: the %s path cannot run here", c->cpu_flag,
			     strcmp(c->cpu_flag, "avx2") == 0 ? " and FMA" : "", c->isa);
#else
	if (c->cpu_flag)
		cr_skip_test("not an x86 CPU: the %s path cannot run here", c->isa);
#endif
	cr_assert_eq(setenv("NBODY_CPU_SIMD_ISA", c->isa, 1), 0);
	cr_assert_str_eq(nbody_cpu_simd_isa(), c->reported, "asked for %s", c->isa);
	return c;
}

/* Plummer bodies (seed 99) and the reference's accelerations of all. */
struct simd_bodies {
	size_t n;
	float *pos4, *vel4;
	double *ref3, *fsum;
	size_t *all;
};

static void simd_bodies_make(struct simd_bodies *b, size_t n, double eps)
{
	b->n = n;
	b->pos4 = malloc(4 * n * sizeof(float));
	b->vel4 = malloc(4 * n * sizeof(float));
	b->ref3 = malloc(3 * n * sizeof(double));
	b->fsum = malloc(n * sizeof(double));
	b->all = malloc(n * sizeof(size_t));
	cr_assert(b->pos4 && b->vel4 && b->ref3 && b->fsum && b->all);
	cr_assert_eq(ic_generate(IC_PLUMMER, n, 99, b->pos4, b->vel4), 0);
	for (size_t i = 0; i < n; i++)
		b->all[i] = i;
	ref_accel_bodies(b->pos4, n, eps, NULL, n, b->ref3, b->fsum);
}

static void simd_bodies_free(struct simd_bodies *b)
{
	free(b->pos4);
	free(b->vel4);
	free(b->ref3);
	free(b->fsum);
	free(b->all);
}

/* acc4 (m bodies from body i0 of b) validated against the reference. */
static struct validation simd_validate(const struct simd_bodies *b, const float *acc4, size_t i0,
				       size_t m)
{
	double *acc3 = malloc(3 * b->n * sizeof(double));
	struct validation val;

	cr_assert(acc3);
	for (size_t k = 0; k < 3 * b->n; k++)
		acc3[k] = NAN;
	for (size_t i = 0; i < m; i++)
		for (int c = 0; c < 3; c++)
			acc3[3 * (i0 + i) + c] = acc4[4 * i + c];
	validate_compare(acc3, b->all + i0, m, b->ref3 + 3 * i0, b->fsum + i0,
			 validate_tolerance_for(VARIANT_FP32, b->n), b->n, &val);
	free(acc3);
	return val;
}

#define SIMD_PATHS(n, eps) { 0, n, eps }, { 1, n, eps }, { 2, n, eps }

ParameterizedTestParameters(nbody_simd, every_path_validates)
{
	static struct simd_case cases[] = {
		SIMD_PATHS(1, 0.0),	SIMD_PATHS(70, 0.01), SIMD_PATHS(70, 0.0),
		SIMD_PATHS(1000, 0.01), SIMD_PATHS(1000, 0.0),
	};
	return cr_make_param_array(struct simd_case, cases, sizeof cases / sizeof *cases);
}

/* Every body of nbody_cpu_simd on each path, softened and not. */
ParameterizedTest(struct simd_case *c, nbody_simd, every_path_validates)
{
	struct simd_bodies b;
	const struct simd_path *path = simd_force_path(c);

	simd_bodies_make(&b, c->n, c->eps);
	float *acc4 = malloc(4 * c->n * sizeof(float));
	cr_assert(acc4);
	nbody_cpu_simd(b.pos4, acc4, c->n, (float)(c->eps * c->eps));
	struct validation v = simd_validate(&b, acc4, 0, c->n);
	cr_expect(v.pass, "%s, N = %zu, eps = %g: max_norm_err %.3e (tol %.3e) at body %zu, "
		  "rel_l2 %.3e", path->isa, c->n, c->eps, v.max_norm, v.tol.max_norm, v.worst_body,
		  v.rel_l2);
	for (size_t i = 0; i < c->n; i++)
		cr_assert_eq(acc4[4 * i + 3], 0.0f, "body %zu: w must be 0", i);
	free(acc4);
	simd_bodies_free(&b);
}

ParameterizedTestParameters(nbody_simd, a_slice_of_the_bodies_accumulates)
{
	static struct simd_case cases[] = { SIMD_PATHS(1000, 0.0), SIMD_PATHS(1000, 0.01) };
	return cr_make_param_array(struct simd_case, cases, sizeof cases / sizeof *cases);
}

/*
 * The distributed ranks' use: the accelerations of bodies 333 .. 532
 * under the pull of all 1000, in two parts of the j-bodies: 0 .. 599,
 * which holds the slice (self = 333: its own pairs masked), then
 * 600 .. 999 (NBODY_CPU_NO_SELF) added to it (accumulate). The sum must
 * validate as a whole evaluation does, and a first call with accumulate
 * set must add to what acc4 held.
 */
ParameterizedTest(struct simd_case *c, nbody_simd, a_slice_of_the_bodies_accumulates)
{
	const size_t i0 = 333, m = 200, split = 600;
	struct simd_bodies b;
	const float eps2 = (float)(c->eps * c->eps);
	const struct simd_path *path = simd_force_path(c);

	simd_bodies_make(&b, c->n, c->eps);
	float *acc4 = malloc(4 * m * sizeof(float)), *again = malloc(4 * m * sizeof(float));
	cr_assert(acc4 && again);
	nbody_cpu_simd_block(b.pos4 + 4 * i0, m, b.pos4, split, i0, acc4, eps2, 0);
	nbody_cpu_simd_block(b.pos4 + 4 * i0, m, b.pos4 + 4 * split, c->n - split, NBODY_CPU_NO_SELF,
			     acc4, eps2, 1);
	struct validation v = simd_validate(&b, acc4, i0, m);
	cr_expect(v.pass, "%s, eps = %g: max_norm_err %.3e (tol %.3e) at body %zu", path->isa, c->eps,
		  v.max_norm, v.tol.max_norm, v.worst_body);
	/* accumulate adds to what is there: 1 + the whole sum */
	for (size_t k = 0; k < 4 * m; k++)
		again[k] = 1.0f;
	nbody_cpu_simd_block(b.pos4 + 4 * i0, m, b.pos4, c->n, i0, again, eps2, 1);
	for (size_t i = 0; i < m; i++)
		for (int d = 0; d < 3; d++)
			cr_expect(fabsf(again[4 * i + d] - 1.0f - acc4[4 * i + d]) <=
					  1e-4f * (1.0f + fabsf(acc4[4 * i + d])),
				  "%s body %zu axis %d: %g after 1 + %g", path->isa, i0 + i, d,
				  again[4 * i + d], acc4[4 * i + d]);
	free(acc4);
	free(again);
	simd_bodies_free(&b);
}
