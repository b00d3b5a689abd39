/* sph_registry.h - the SPH variant table (from sph.def) and its lookups */
#ifndef VARIANTS_SPH_REGISTRY_H
#define VARIANTS_SPH_REGISTRY_H

#include <stdbool.h>
#include <stddef.h>

#include "../kernels/sph/sph.h"
#include "registry.h"

struct sph_variant {
	const char *name;
	const char *method;
	enum variant_device device;
	const struct sph_ops *ops; /* NULL when this build lacks it (a GPU line without nvcc) */
	int window_steps;          /* of its timed window; 0: its device's default */
	const char *summary;
};

enum sph_variant_id {
#define SPH_VARIANT(ident, ...) SPH_V_##ident,
#include "sph.def"
#undef SPH_VARIANT
	SPH_VARIANT_COUNT
};

extern const struct sph_variant sph_variants[SPH_VARIANT_COUNT];

/* Marks in selected[] the SPH variants whose name matches pattern (name
 * or fnmatch(3) glob); returns how many matched. */
size_t sph_variant_match(const char *pattern, bool selected[SPH_VARIANT_COUNT]);

/* The index of the one SPH variant pattern names, or -1 with one line in
 * err when it names none or several (commands that run one variant). */
int sph_variant_one(const char *pattern, char *err, size_t errlen);

/* Whether v can run here; *why (may be NULL) gets the reason when not. */
bool sph_variant_available(const struct sph_variant *v, const char **why);

/* A test hook, read from the environment on every call: whether
 * $HARNESS_PLANT_DROP_WALL names v (a name or glob). `sph check` and
 * `sph run` then hand such a variant the scene's walls less one boundary
 * particle, the one nearest the first fluid particle (an off-by-one in a
 * wall count), while validation keeps them all: a subtle bug that must
 * fail validation on any device. Unset in normal use. */
#define SPH_VARIANT_PLANT_ENV "HARNESS_PLANT_DROP_WALL"
bool sph_variant_planted_drop_wall(const struct sph_variant *v);

#endif
