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
		if (v->device == VARIANT_CPU)
			cr_assert_not_null(v->cpu_forces, "%s has no CPU function", v->name);
	}
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
		if (nbody_variants[i].device != VARIANT_CPU)
			continue;
		cr_assert(variant_available(&nbody_variants[i], &why));
		cr_assert_null(why);
	}
	cr_assert_str_eq(variant_precision_name(VARIANT_FP64), "fp64");
	cr_assert_str_eq(variant_device_name(VARIANT_GPU), "gpu");
}
