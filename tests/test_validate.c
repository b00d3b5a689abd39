/* test_validate.c - every CPU variant validates; planted bugs are caught */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../harness/instance.h"
#include "../harness/validate.h"
#include "../kernels/nbody/nbody_cpu.h"
#include "../reference/ic.h"
#include "../reference/nbody_ref.h"

#define TEST_EPS 0.01

/* Runs variant v on a Plummer sphere of n bodies and validates it. */
static struct validation validate_variant(const struct variant *v, size_t n, enum ic_kind ic)
{
	float *pos4 = malloc(4 * n * sizeof(float)), *vel4 = malloc(4 * n * sizeof(float));
	double *acc3 = malloc(3 * n * sizeof(double));
	cr_assert(pos4 && vel4 && acc3);
	cr_assert_eq(ic_generate(ic, n, 1234, pos4, vel4), 0);
	struct instance in;
	char err[256];
	cr_assert_eq(instance_create(&in, v, pos4, vel4, n, TEST_EPS, err, sizeof err), 0, "%s", err);
	cr_assert_eq(instance_accels(&in, acc3), 0);
	struct validation val;
	cr_assert_eq(validate_accels(pos4, n, TEST_EPS, v->precision, acc3, 1234, &val), 0);
	instance_destroy(&in);
	free(pos4);
	free(vel4);
	free(acc3);
	return val;
}

/* ---- every registry variant, at sizes that are not tile multiples ------ */

struct variant_case {
	size_t variant;
	size_t n;
};

static const size_t validate_sizes[] = { 1, 2, 3, 1000, 1024, 4097 };
#define NSIZES (sizeof validate_sizes / sizeof validate_sizes[0])

ParameterizedTestParameters(validate, cpu_variants)
{
	/* The cases come from the registry: a new variant is tested without a
	 * new test. No CUDA call here: availability is decided in the test. */
	static struct variant_case cases[NBODY_VARIANT_COUNT * NSIZES];
	size_t k = 0;
	for (size_t v = 0; v < NBODY_VARIANT_COUNT; v++)
		if (nbody_variants[v].device == VARIANT_CPU)
			for (size_t s = 0; s < NSIZES; s++)
				cases[k++] = (struct variant_case){ v, validate_sizes[s] };
	return cr_make_param_array(struct variant_case, cases, k);
}

ParameterizedTest(struct variant_case *c, validate, cpu_variants)
{
	const struct variant *v = &nbody_variants[c->variant];
	const char *why;
	if (!variant_available(v, &why))
		cr_skip_test("%s: %s", v->name, why);
	struct validation val = validate_variant(v, c->n, c->n == 2 ? IC_TWOBODY : IC_PLUMMER);
	cr_expect(val.pass, "%s N=%zu: max_norm %.3e (tol %.3e), rel_l2 %.3e (tol %.3e)", v->name,
		  c->n, val.max_norm, val.tol.max_norm, val.rel_l2, val.tol.rel_l2);
	cr_expect_eq(val.checked, c->n, "every body is checked at this size");
}

/* ---- planted bugs ------------------------------------------------------ */

/* The chapter's loop, but the j loop stops one body short. */
static void buggy_skip_last(const float *p, float *a, size_t n, float eps2)
{
	for (size_t i = 0; i < n; i++) {
		float ax = 0, ay = 0, az = 0;
		for (size_t j = 0; j + 1 < n; j++) {
			float rx = p[4 * j] - p[4 * i], ry = p[4 * j + 1] - p[4 * i + 1];
			float rz = p[4 * j + 2] - p[4 * i + 2];
			float d2 = rx * rx + ry * ry + rz * rz + eps2;
			float s = p[4 * j + 3] / (d2 * sqrtf(d2));
			ax += rx * s, ay += ry * s, az += rz * s;
		}
		a[4 * i] = ax, a[4 * i + 1] = ay, a[4 * i + 2] = az, a[4 * i + 3] = 0;
	}
}

/* Correct loop, wrong softening: eps where eps^2 belongs. */
static void buggy_softening(const float *p, float *a, size_t n, float eps2)
{
	float wrong = sqrtf(eps2);
	for (size_t i = 0; i < n; i++) {
		float ax = 0, ay = 0, az = 0;
		for (size_t j = 0; j < n; j++) {
			float rx = p[4 * j] - p[4 * i], ry = p[4 * j + 1] - p[4 * i + 1];
			float rz = p[4 * j + 2] - p[4 * i + 2];
			float d2 = rx * rx + ry * ry + rz * rz + wrong;
			float s = p[4 * j + 3] / (d2 * sqrtf(d2));
			ax += rx * s, ay += ry * s, az += rz * s;
		}
		a[4 * i] = ax, a[4 * i + 1] = ay, a[4 * i + 2] = az, a[4 * i + 3] = 0;
	}
}

/* The baseline with one body's result replaced by NaN: non-finite output
 * must never pass, whatever the comparisons with NaN say. */
static void buggy_nan(const float *p, float *a, size_t n, float eps2)
{
	nbody_cpu_portable(p, a, n, eps2);
	a[4 * (n / 2)] = NAN;
}

static struct variant planted(const char *name, nbody_cpu_fn fn)
{
	return (struct variant){ .name = name, .family = "planted", .precision = VARIANT_FP32,
				 .device = VARIANT_CPU, .threads_q = 1, .unroll = 1, .bodies_k = 1,
				 .cpu_forces = fn, .summary = "a planted bug" };
}

/* Validation must reject the planted variant at every size it is run at. */
static void expect_caught(const char *name, nbody_cpu_fn fn)
{
	struct variant v = planted(name, fn);
	const size_t sizes[] = { 2, 3, 1000, 1024, 4097 };
	for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
		struct validation val = validate_variant(&v, sizes[k], IC_PLUMMER);
		cr_expect(!val.pass, "%s passed at N=%zu (max_norm %.3e)", name, sizes[k], val.max_norm);
	}
}

Test(validate, planted_skip_last_body_is_caught)
{
	expect_caught("skip-last", buggy_skip_last);
}

Test(validate, planted_wrong_softening_is_caught)
{
	expect_caught("wrong-softening", buggy_softening);
}

Test(validate, nan_output_fails)
{
	struct variant v = planted("nan", buggy_nan);
	struct validation val = validate_variant(&v, 64, IC_CUBE);
	cr_expect(!val.pass);
	cr_expect(isnan(val.max_norm));
}

/* ---- the comparison and the sample ------------------------------------ */

Test(validate, compare_by_hand)
{
	/* Two bodies checked; reference and variant differ by (3e-6, 4e-6, 0)
	 * on body 1 only: |err| = 5e-6, fsum = 1 -> max_norm 5e-6;
	 * rel_l2 = 5e-6 / sqrt(1 + 1) . */
	double acc[6] = { 1, 0, 0, 0, 1 + 3e-6, 4e-6 };
	double ref[6] = { 1, 0, 0, 0, 1, 0 };
	double fsum[2] = { 1, 1 };
	size_t idx[2] = { 0, 1 };
	struct validation val;
	struct validate_tolerance tol = { 1e-5, 1e-5 };
	validate_compare(acc, idx, 2, ref, fsum, tol, 2, &val);
	cr_assert_float_eq(val.max_norm, 5e-6, 1e-12);
	cr_assert_float_eq(val.rel_l2, 5e-6 / sqrt(2.0), 1e-12);
	cr_assert_eq(val.worst_body, 1);
	cr_assert(val.pass);
	tol.max_norm = 4e-6;
	validate_compare(acc, idx, 2, ref, fsum, tol, 2, &val);
	cr_assert(!val.pass, "5e-6 exceeds a 4e-6 bound");
}

Test(validate, lone_body_must_be_exactly_zero)
{
	double acc[3] = { 1e-30, 0, 0 }, ref[3] = { 0, 0, 0 }, fsum[1] = { 0 };
	size_t idx[1] = { 0 };
	struct validation val;
	validate_compare(acc, idx, 1, ref, fsum, validate_tolerance_for(VARIANT_FP32, 1), 1, &val);
	cr_assert(!val.pass, "a force on a lone body is a bug however small");
}

Test(validate, tolerance_grows_with_sqrt_n_and_precision)
{
	struct validate_tolerance a = validate_tolerance_for(VARIANT_FP32, 1024);
	struct validate_tolerance b = validate_tolerance_for(VARIANT_FP32, 4096);
	struct validate_tolerance d = validate_tolerance_for(VARIANT_FP64, 1024);
	cr_assert_float_eq(a.max_norm, ldexp(1.0, -24) * (64 + 8 * 32), 1e-18);
	cr_assert_gt(b.max_norm, a.max_norm);
	cr_assert_lt(b.max_norm, 2 * a.max_norm);
	cr_assert_lt(d.max_norm, a.max_norm * 1e-8);
}

Test(validate, sample_for_large_n)
{
	size_t n = 1u << 20;
	size_t m = validate_checked_count(n);
	cr_assert_eq(m, VALIDATE_SAMPLE + 2);
	size_t *a = malloc(m * sizeof *a), *b = malloc(m * sizeof *b);
	cr_assert_eq(validate_pick_bodies(n, 9, a), m);
	cr_assert_eq(validate_pick_bodies(n, 9, b), m);
	cr_assert_eq(memcmp(a, b, m * sizeof *a), 0, "the sample is deterministic by seed");
	cr_assert_eq(a[0], 0);
	cr_assert_eq(a[m - 1], n - 1);
	for (size_t k = 1; k < m; k++)
		cr_assert_lt(a[k - 1], a[k], "sorted without repeats");
	validate_pick_bodies(n, 10, b);
	cr_assert_neq(memcmp(a, b, m * sizeof *a), 0, "another seed, another sample");
	free(a);
	free(b);
	cr_assert_eq(validate_checked_count(VALIDATE_FULL_MAX), VALIDATE_FULL_MAX);
}
