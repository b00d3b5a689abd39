/* sph_registry.c - the SPH variant table built from sph.def, with lookups */
#include "sph_registry.h"

#include <fnmatch.h>
#include <stdio.h>
#include <string.h>

#include "../harness/core/gpu_device.h"
#include "../kernels/sph/sph_cpu.h"
#include "../kernels/sph/sph_gpu.h"

/* CPU lines name their ops; GPU lines will name ops that exist only in
 * builds with nvcc. */
#define SPH_OPS_VARIANT_CPU(ops) &ops
#ifdef HARNESS_HAVE_CUDA
#define SPH_OPS_VARIANT_GPU(ops) &ops
#else
#define SPH_OPS_VARIANT_GPU(ops) NULL
#endif

const struct sph_variant sph_variants[SPH_VARIANT_COUNT] = {
#define SPH_VARIANT(ident, name_, method_, dev, ops_, window_, summary_)            \
	[SPH_V_##ident] = { .name = name_, .method = method_, .device = dev,        \
			    .ops = SPH_OPS_##dev(ops_), .window_steps = window_,        \
			    .summary = summary_ },
#include "sph.def"
#undef SPH_VARIANT
};

size_t sph_variant_match(const char *pattern, bool selected[SPH_VARIANT_COUNT])
{
	size_t matched = 0;
	for (size_t i = 0; i < SPH_VARIANT_COUNT; i++) {
		if (strcmp(sph_variants[i].name, pattern) == 0 ||
		    fnmatch(pattern, sph_variants[i].name, 0) == 0) {
			selected[i] = true;
			matched++;
		}
	}
	return matched;
}

int sph_variant_one(const char *pattern, char *err, size_t errlen)
{
	bool sel[SPH_VARIANT_COUNT] = { false };
	if (sph_variant_match(pattern, sel) != 1) {
		snprintf(err, errlen, "--variant '%s' must name one SPH variant (see 'harness sph list')",
			 pattern);
		return -1;
	}
	for (size_t i = 0; i < SPH_VARIANT_COUNT; i++)
		if (sel[i])
			return (int)i;
	return -1;
}

bool sph_variant_available(const struct sph_variant *v, const char **why)
{
	const char *reason = NULL;
	if (!v->ops)
		reason = v->device == VARIANT_GPU ? gpu_unavailable_reason() : "no implementation";
	else if (v->device == VARIANT_GPU)
		reason = gpu_unavailable_reason();
	if (why)
		*why = reason;
	return reason == NULL;
}

bool sph_variant_planted_drop_wall(const struct sph_variant *v)
{
	return variant_env_names(SPH_VARIANT_PLANT_ENV, v->name);
}
