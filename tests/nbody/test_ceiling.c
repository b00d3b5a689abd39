/* test_ceiling.c - the per-architecture ceiling on fixed device descriptions */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "../../harness/nbody/ceiling.h"

Test(ceiling, h200_fp32_is_about_2_8e12)
{
	/* 132 SMs x 1980 MHz x 128 lanes / 12 = 2.788e12 */
	double c = ceiling_interactions_per_s(9, 0, 132, 1980, VARIANT_FP32);
	cr_assert_float_eq(c, 132 * 1980e6 * 128 / 12.0, 1);
	cr_assert(c > 2.7e12 && c < 2.9e12);
}

Test(ceiling, h200_fp64_is_half)
{
	double c = ceiling_interactions_per_s(9, 0, 132, 1980, VARIANT_FP64);
	cr_assert_float_eq(c, 132 * 1980e6 * 64 / 12.0, 1);
}

Test(ceiling, g80_matches_the_chapter_hardware)
{
	/* 16 multiprocessors of 8 processors at 1350 MHz: 128 x 1.35e9 / 12
	 * = 1.44e10, against the chapter's observed ~1e10 interactions/s. */
	double c = ceiling_interactions_per_s(1, 0, 16, 1350, VARIANT_FP32);
	cr_assert_float_eq(c, 1.44e10, 1e3);
}

Test(ceiling, unknown_architectures_and_bad_inputs)
{
	cr_assert_null(ceiling_arch_find(3, 5));
	cr_assert(isnan(ceiling_interactions_per_s(3, 5, 10, 1000, VARIANT_FP32)));
	cr_assert(isnan(ceiling_interactions_per_s(9, 0, 0, 1000, VARIANT_FP32)));
	cr_assert(isnan(ceiling_interactions_per_s(9, 0, 132, 0, VARIANT_FP32)));
}

Test(ceiling, turing_fp64_is_tiny)
{
	double f32 = ceiling_interactions_per_s(7, 5, 40, 1500, VARIANT_FP32);
	double f64 = ceiling_interactions_per_s(7, 5, 40, 1500, VARIANT_FP64);
	cr_assert_float_eq(f32 / f64, 32.0, 1e-9);
}

/* The tensor-core rows have their own ceiling: what issue allows for the
 * instructions counted in their SASS (tc-3x-p64 on the H200: 4 x 512 /
 * 237 = 8.64 interactions per SM and clock, 2.26e12; tc-1x-p32, the
 * fewest instructions, 4 x 256 / 100 = 10.2, 2.68e12), not the FP32
 * pipe's 2.79e12; a tc variant without a count has none (NAN), and the
 * other variants keep the classic one. */
Test(ceiling, tensor_core_rows_have_their_own)
{
	const struct variant *p64 = variant_find("tc-3x-p64"), *u4 = variant_find("unrolled-u4");
	cr_assert_not_null(p64);
	cr_assert_not_null(u4);
	double c = ceiling_variant_interactions_per_s(p64, 9, 0, 132, 1980);
	cr_assert_float_eq(c, 132 * 1980e6 * 4 * 512 / 237.0, 1);
	cr_assert(c > 2.2e12 && c < 2.3e12, "%g", c);
	const struct variant *x1 = variant_find("tc-1x-p32");
	cr_assert_not_null(x1);
	cr_assert_float_eq(ceiling_variant_interactions_per_s(x1, 9, 0, 132, 1980),
			   132 * 1980e6 * 4 * 256 / 100.0, 1);
	cr_assert_float_eq(ceiling_variant_interactions_per_s(u4, 9, 0, 132, 1980),
			   ceiling_interactions_per_s(9, 0, 132, 1980, VARIANT_FP32), 1);
	cr_assert_null(ceiling_sass_count_find("tc-3x-p64", 8, 0), "counted on sm_90 only");
	cr_assert(isnan(ceiling_variant_interactions_per_s(p64, 8, 0, 108, 1410)));
	for (size_t i = 0; i < NBODY_VARIANT_COUNT; i++) {
		const struct variant *v = &nbody_variants[i];
		if (strcmp(v->family, "tensor-core") == 0 && !ceiling_sass_count_find(v->name, 9, 0))
			cr_expect(isnan(ceiling_variant_interactions_per_s(v, 9, 0, 132, 1980)), "%s", v->name);
	}
}
