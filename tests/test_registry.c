/* test_registry.c - the variant table: unique names, lookups, globs */
#include <criterion/criterion.h>
#include <string.h>

#include "../variants/registry.h"

Test(registry, names_unique_and_fields_sane)
{
	for (size_t i = 0; i < NBODY_VARIANT_COUNT; i++) {
		const struct variant *v = &nbody_variants[i];
		cr_assert_not_null(v->name, "slot %zu is empty: two lines share an identifier?", i);
		cr_assert(v->family && v->summary && v->summary[0]);
		cr_assert_geq(v->threads_q, 1);
		cr_assert_geq(v->unroll, 1);
		cr_assert_geq(v->bodies_k, 1);
		cr_assert_geq(v->tile_p, 0);
		cr_assert(strspn(v->name, "abcdefghijklmnopqrstuvwxyz0123456789-") == strlen(v->name),
			  "'%s': names are lower-case words joined by '-' (CSV- and shell-safe)", v->name);
		for (size_t j = 0; j < i; j++)
			cr_assert_str_neq(v->name, nbody_variants[j].name);
		if (v->device == VARIANT_CPU && !v->dist)
			cr_assert_not_null(v->cpu_forces, "%s has no CPU function", v->name);
		if (v->device == VARIANT_CPU && v->dist)
			cr_assert_not_null(v->cpu_block, "%s has no CPU block function", v->name);
	}
}

/* A distributed line names a one-device rank kernel of its own device,
 * and on the GPU one that honours pos_i / n_i / accumulate (auto and the
 * kbody family; the chapter's kernels would silently compute the whole
 * problem). */
Test(registry, distributed_lines_name_a_usable_rank_kernel)
{
	size_t ndist = 0;
	for (size_t i = 0; i < NBODY_VARIANT_COUNT; i++) {
		const struct variant *v = &nbody_variants[i];
		if (!v->dist)
			continue;
		ndist++;
		cr_assert_lt((size_t)v->rank_kernel, (size_t)NBODY_VARIANT_COUNT);
		const struct variant *k = &nbody_variants[v->rank_kernel];
		cr_expect_eq(k->dist, 0, "%s: rank kernel %s is distributed", v->name, k->name);
		cr_expect_eq(k->device, v->device, "%s: rank kernel %s on another device", v->name,
			     k->name);
		cr_expect_eq(k->precision, v->precision);
		if (v->device == VARIANT_GPU) {
			const char *ok[] = { "auto", "rsqrt", "bodies-per-thread", "j-split", "fp64" };
			bool fine = false;
			for (size_t f = 0; f < sizeof ok / sizeof *ok; f++)
				fine = fine || strcmp(k->family, ok[f]) == 0;
			cr_expect(fine, "%s: rank kernel %s (family %s) ignores pos_i", v->name, k->name,
				  k->family);
		}
	}
	cr_expect_geq(ndist, 4, "dist-allgather, dist-ring and their CPU forms");
}

Test(registry, find_and_match)
{
	cr_assert_eq(variant_find("cpu-portable"), &nbody_variants[NBODY_V_cpu_portable]);
	cr_assert_null(variant_find("cpu-portabl"));
	bool sel[NBODY_VARIANT_COUNT] = { 0 };
	cr_assert_eq(variant_match("cpu-simd", sel), 1);
	cr_assert(sel[NBODY_V_cpu_simd] && !sel[NBODY_V_cpu_portable]);
	bool all[NBODY_VARIANT_COUNT] = { 0 };
	cr_assert_eq(variant_match("*", all), NBODY_VARIANT_COUNT);
	bool none[NBODY_VARIANT_COUNT] = { 0 };
	cr_assert_eq(variant_match("zz*", none), 0);
}

Test(registry, cpu_variants_always_available)
{
	for (size_t i = 0; i < NBODY_VARIANT_COUNT; i++) {
		const char *why = "unset";
		if (nbody_variants[i].device != VARIANT_CPU || nbody_variants[i].dist)
			continue;
		cr_assert(variant_device_available(&nbody_variants[i], &why));
		cr_assert_null(why);
	}
	cr_assert_str_eq(variant_precision_name(VARIANT_FP64), "fp64");
	cr_assert_str_eq(variant_precision_name(VARIANT_TF32), "tf32");
	cr_assert_str_eq(variant_device_name(VARIANT_GPU), "gpu");
}
