/* registry.c - the variant table built from nbody.def, with lookups */
#include "registry.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "../kernels/nbody/nbody_cpu.h"
#include "../harness/core/gpu_device.h"

/* A line's impl is a CPU function for CPU variants; for GPU variants it
 * names a launcher template that kernels/nbody/nbody_gpu.cu instantiates with the
 * line's parameters, so C sees only the CPU ones. */
#define REGISTRY_CPU_FN_VARIANT_CPU(f) f
#define REGISTRY_CPU_FN_VARIANT_GPU(f) NULL

#define NBODY_VARIANT(ident, name_, family_, prec, dev, p, q, unroll_, k, impl, summary_) \
	[NBODY_V_##ident] = {                                                          \
		.name = name_,                                                         \
		.family = family_,                                                     \
		.precision = prec,                                                     \
		.device = dev,                                                         \
		.tile_p = p,                                                           \
		.threads_q = q,                                                        \
		.unroll = unroll_,                                                     \
		.bodies_k = k,                                                         \
		.cpu_forces = REGISTRY_CPU_FN_##dev(impl),                                                 \
		.summary = summary_,                                                   \
	},
/* A distributed line: the chapter's parameters are those of auto (the
 * rank kernel chooses its own); CPU lines name their block kernel. */
#define NBODY_DIST_VARIANT(ident, name_, family_, prec, dev, scheme, rank, impl, summary_) \
	[NBODY_V_##ident] = {                                                               \
		.name = name_,                                                              \
		.family = family_,                                                          \
		.precision = prec,                                                          \
		.device = dev,                                                              \
		.tile_p = 0,                                                                \
		.threads_q = 1,                                                             \
		.unroll = 1,                                                                \
		.bodies_k = 1,                                                              \
		.summary = summary_,                                                        \
		.dist = scheme,                                                             \
		.rank_kernel = NBODY_V_##rank,                                              \
		.cpu_block = REGISTRY_CPU_FN_##dev(impl),                                   \
	},
const struct variant nbody_variants[NBODY_VARIANT_COUNT] = {
#include "nbody.def"
};
#undef NBODY_VARIANT
#undef NBODY_DIST_VARIANT

/* Every line of the table must have filled its slot: a hole would mean two
 * lines share an identifier. */
_Static_assert(sizeof nbody_variants / sizeof nbody_variants[0] == NBODY_VARIANT_COUNT,
	       "nbody.def and the variant enum disagree");

const char *variant_precision_name(enum variant_precision p)
{
	return p == VARIANT_FP64 ? "fp64" : p == VARIANT_TF32 ? "tf32" : "fp32";
}

const char *variant_device_name(enum variant_device d)
{
	return d == VARIANT_GPU ? "gpu" : "cpu";
}

const struct variant *variant_find(const char *name)
{
	for (size_t i = 0; i < NBODY_VARIANT_COUNT; i++)
		if (strcmp(nbody_variants[i].name, name) == 0)
			return &nbody_variants[i];
	return NULL;
}

size_t variant_match(const char *pattern, bool selected[NBODY_VARIANT_COUNT])
{
	size_t matched = 0;
	for (size_t i = 0; i < NBODY_VARIANT_COUNT; i++) {
		if (strcmp(nbody_variants[i].name, pattern) == 0 ||
		    fnmatch(pattern, nbody_variants[i].name, 0) == 0) {
			selected[i] = true;
			matched++;
		}
	}
	return matched;
}

bool variant_device_available(const struct variant *v, const char **why)
{
	const char *reason = NULL;
	if (v->device == VARIANT_CPU && v->cpu_forces == NULL && v->cpu_block == NULL)
		reason = "no CPU implementation";
	else if (v->device == VARIANT_GPU)
		reason = gpu_unavailable_reason();

	if (why)
		*why = reason;
	return reason == NULL;
}

bool variant_env_names(const char *env, const char *name)
{
	const char *pat = getenv(env);
	return pat && pat[0] && (strcmp(pat, name) == 0 || fnmatch(pat, name, 0) == 0);
}

bool variant_planted_skip_body(const struct variant *v)
{
	return variant_env_names(VARIANT_PLANT_ENV, v->name);
}
