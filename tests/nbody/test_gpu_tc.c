/* test_gpu_tc.c - the tensor-core variants on bodies that stress the expanded r^2: far from the origin, a tight cluster, planted bugs */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../harness/core/gpu_device.h"
#include "../../harness/nbody/instance.h"
#include "../../harness/nbody/validate.h"
#include "../../reference/ic.h"
#include "../../reference/rng.h"
#include "../gpu_require.h"

/* Launchers of tests/nbody/gpu_planted.cu; weak, so a build without nvcc
 * links (its GPU tests skip before they could call them). */
int planted_tc_one_side_shift(const struct nbody_gpu_launch *l) __attribute__((weak));
int planted_tc_unshifted(const struct nbody_gpu_launch *l) __attribute__((weak));

#define TC_EPS 0.01
#define TC_SEED 77

/* Plummer bodies (seed TC_SEED) moved by (shift, shift, shift). */
static float *tc_plummer(size_t n, double shift)
{
	float *pos4 = malloc(4 * n * sizeof(float)), *vel4 = malloc(4 * n * sizeof(float));
	cr_assert(pos4 && vel4);
	cr_assert_eq(ic_generate(IC_PLUMMER, n, TC_SEED, pos4, vel4), 0);
	for (size_t i = 0; i < n; i++)
		for (int c = 0; c < 3; c++)
			pos4[4 * i + c] = (float)(pos4[4 * i + c] + shift);
	free(vel4);
	return pos4;
}

/* n - 1 bodies within 1e-3 of (1, 1, 1), far closer than eps, and one at
 * (1000, 1, 1) in the middle of the array; masses 1/n. */
static float *tc_cluster(size_t n)
{
	float *pos4 = malloc(4 * n * sizeof(float));
	cr_assert(pos4);
	struct rng r;
	rng_seed(&r, TC_SEED);
	for (size_t i = 0; i < n; i++) {
		for (int c = 0; c < 3; c++)
			pos4[4 * i + c] = (float)(1.0 + 1e-3 * (2.0 * rng_uniform(&r) - 1.0));
		pos4[4 * i + 3] = (float)(1.0 / (double)n);
	}
	pos4[4 * (n / 2)] = 1000.0f;
	return pos4;
}

/* The validation of v (or of the planted launcher fn) on the bodies. */
static struct validation tc_validate(const struct variant *v, nbody_gpu_fn fn, const float *pos4,
				     size_t n)
{
	double *acc3 = malloc(3 * n * sizeof(double));
	cr_assert_not_null(acc3);
	struct instance in;
	char err[256];
	int rc = fn ? instance_create_gpu(&in, v, fn, pos4, NULL, n, TC_EPS, err, sizeof err)
		    : instance_create(&in, v, pos4, NULL, n, TC_EPS, err, sizeof err);
	cr_assert_eq(rc, 0, "%s", err);
	cr_assert_eq(instance_accels(&in, acc3), 0, "%s N=%zu: %s", v->name, n,
		     gpu_instance_error(in.gpu));
	struct validation val;
	cr_assert_eq(validate_accels(pos4, n, TC_EPS, v->precision, acc3, TC_SEED, &val), 0);
	instance_destroy(&in);
	free(acc3);
	return val;
}

/* stderr, not cr_log_info: the log shows the margins without --verbose. */
static void tc_log(const char *what, const char *name, size_t n, const struct validation *val)
{
	fprintf(stderr, "tc %s: %s N=%zu: validation %s (max_norm %.3e, rel_l2 %.3e, tol %.3e)\n", what,
		name, n, val->pass ? "passed" : "FAILED", val->max_norm, val->rel_l2, val->tol.max_norm);
}

static bool is_tc(const struct variant *v)
{
	return v->device == VARIANT_GPU && strcmp(v->family, "tensor-core") == 0;
}

/* Every tensor-core variant of the registry must pass on the bodies. */
static void expect_every_tc_passes(const char *what, const float *pos4, size_t n)
{
	size_t seen = 0;
	for (size_t k = 0; k < NBODY_VARIANT_COUNT; k++) {
		const struct variant *v = &nbody_variants[k];
		if (!is_tc(v))
			continue;
		struct validation val = tc_validate(v, NULL, pos4, n);
		tc_log(what, v->name, n, &val);
		cr_expect(val.pass, "%s %s N=%zu: max_norm %.3e (tol %.3e) at body %zu", what, v->name, n,
			  val.max_norm, val.tol.max_norm, val.worst_body);
		seen++;
	}
	cr_assert_gt(seen, 0, "no tensor-core variant in the registry");
}

/* The error, as a share of the tolerance (which grows as sqrt(N)), may
 * not grow more than twice from N = 2^14 to 2^20: an error that grows as
 * N is a bias or a drifting sum. One FP32 sum over every Morton-ordered
 * j-block grew 3.5 times (max_norm 4.2e-6 of 6.5e-5, 1.1e-4 of 4.9e-4 for
 * tc-3x-p64 on the H200); summed in chunks (TC_CHUNK) the CPU emulation
 * of the sums falls with N. */
Test(gpu_tc, the_error_grows_no_faster_than_the_bound, .timeout = 300)
{
	require_gpu();
	size_t seen = 0;
	float *small = tc_plummer((size_t)1 << 14, 0.0), *large = tc_plummer((size_t)1 << 20, 0.0);
	for (size_t k = 0; k < NBODY_VARIANT_COUNT; k++) {
		const struct variant *v = &nbody_variants[k];
		if (!is_tc(v))
			continue;
		struct validation a = tc_validate(v, NULL, small, (size_t)1 << 14);
		struct validation b = tc_validate(v, NULL, large, (size_t)1 << 20);
		const double ra = a.max_norm / a.tol.max_norm, rb = b.max_norm / b.tol.max_norm;
		tc_log("growth", v->name, (size_t)1 << 14, &a);
		tc_log("growth", v->name, (size_t)1 << 20, &b);
		cr_expect(rb <= 2.0 * ra, "%s: max_norm %.3g of the tolerance at 2^20, %.3g at 2^14 (%.2fx)",
			  v->name, rb, ra, rb / ra);
		seen++;
	}
	cr_assert_gt(seen, 0, "no tensor-core variant in the registry");
	free(small);
	free(large);
}

/* Far from the origin the expansion's terms are as large as there: only
 * the centre's shift, on both sides, keeps r^2 from cancelling away. */
Test(gpu_tc, far_from_the_origin, .timeout = 300)
{
	require_gpu();
	const double shifts[] = { 1e3, 1e4 };
	const size_t sizes[] = { 1000, 4097 };
	for (size_t s = 0; s < 2; s++)
		for (size_t k = 0; k < 2; k++) {
			float *pos4 = tc_plummer(sizes[k], shifts[s]);
			char what[64];
			snprintf(what, sizeof what, "plummer+%g", shifts[s]);
			expect_every_tc_passes(what, pos4, sizes[k]);
			free(pos4);
		}
}

/* A cluster much smaller than eps and one body a million clusters away:
 * the warp that holds the far body spans 1000 units, so every pair of
 * the cluster in it is near (FP32), the rest of the cluster is tight. */
Test(gpu_tc, tight_cluster_and_a_far_body, .timeout = 300)
{
	require_gpu();
	const size_t sizes[] = { 1000, 4097 };
	for (size_t k = 0; k < 2; k++) {
		float *pos4 = tc_cluster(sizes[k]);
		expect_every_tc_passes("cluster", pos4, sizes[k]);
		free(pos4);
	}
}

/* Two bodies share a warp with 14 padding rows; their self terms go the
 * FP32 way, which adds exactly 0. */
Test(gpu_tc, two_bodies_near_and_far_from_the_origin, .timeout = 120)
{
	require_gpu();
	const double shifts[] = { 0.0, 1e4 };
	for (size_t s = 0; s < 2; s++) {
		float pos4[8], vel4[8];
		cr_assert_eq(ic_generate(IC_TWOBODY, 2, TC_SEED, pos4, vel4), 0);
		for (int i = 0; i < 2; i++)
			for (int c = 0; c < 3; c++)
				pos4[4 * i + c] = (float)(pos4[4 * i + c] + shifts[s]);
		char what[64];
		snprintf(what, sizeof what, "twobody+%g", shifts[s]);
		expect_every_tc_passes(what, pos4, 2);
	}
}

/* The centre subtracted from the i side only must fail validation. */
Test(gpu_tc, planted_one_side_shift_is_caught, .timeout = 120)
{
	require_gpu();
	const struct variant *v = &nbody_variants[NBODY_V_tc_3x_p16];
	const double shifts[] = { 0.0, 1e3 };
	const size_t sizes[] = { 1000, 4097 };
	for (size_t s = 0; s < 2; s++)
		for (size_t k = 0; k < 2; k++) {
			float *pos4 = tc_plummer(sizes[k], shifts[s]);
			struct validation val = tc_validate(v, planted_tc_one_side_shift, pos4, sizes[k]);
			char what[64];
			snprintf(what, sizeof what, "planted one-side-shift plummer+%g", shifts[s]);
			tc_log(what, v->name, sizes[k], &val);
			cr_expect(!val.pass, "%s passed at N=%zu (max_norm %.3e)", what, sizes[k],
				  val.max_norm);
			free(pos4);
		}
}

/* What the shift buys: the unshifted expansion on the same bodies at the
 * origin and moved away, beside tc-3x-p16. Logged; it must fail where the
 * terms reach 1e4^2, and tc-3x-p16 must pass there. */
Test(gpu_tc, unshifted_expansion_fails_far_from_the_origin, .timeout = 120)
{
	require_gpu();
	const struct variant *v = &nbody_variants[NBODY_V_tc_3x_p16];
	const double shifts[] = { 0.0, 1e1, 1e2, 1e3, 1e4 };
	const size_t n = 4097;
	for (size_t s = 0; s < sizeof shifts / sizeof *shifts; s++) {
		float *pos4 = tc_plummer(n, shifts[s]);
		struct validation plain = tc_validate(v, planted_tc_unshifted, pos4, n);
		struct validation shifted = tc_validate(v, NULL, pos4, n);
		char what[64];
		snprintf(what, sizeof what, "unshifted plummer+%g", shifts[s]);
		tc_log(what, "(planted)", n, &plain);
		snprintf(what, sizeof what, "shifted plummer+%g", shifts[s]);
		tc_log(what, v->name, n, &shifted);
		cr_expect(shifted.pass, "%s N=%zu: max_norm %.3e", what, n, shifted.max_norm);
		if (shifts[s] == 1e4)
			cr_expect(!plain.pass, "the unshifted expansion passed 1e4 from the origin (max_norm %.3e)",
				  plain.max_norm);
		free(pos4);
	}
}

/* The family sorts every body it works on: a part of a problem (a
 * rank's share) is refused, not computed wrong. */
Test(gpu_tc, a_part_of_the_problem_is_refused)
{
	require_gpu();
	float pos4[8] = { 0, 0, 0, 1, 1, 0, 0, 1 };
	struct nbody_gpu_launch l = { 0 };
	l.pos = pos4;
	l.pos_i = pos4;
	l.sort_scratch = pos4; /* present, so that pos_i alone is refused */
	l.n = 2;
	l.n_i = 1;
	l.n_alloc = NBODY_GPU_PAD;
	l.eps2 = 1e-4;
	for (size_t k = 0; k < NBODY_VARIANT_COUNT; k++)
		if (is_tc(&nbody_variants[k]))
			cr_expect_neq(nbody_gpu_launcher((int)k)(&l), 0, "%s took pos_i",
				      nbody_variants[k].name);
}
