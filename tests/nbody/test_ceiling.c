/* test_ceiling.c - the per-architecture ceiling on fixed device descriptions */
#include <criterion/criterion.h>
#include <math.h>

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
