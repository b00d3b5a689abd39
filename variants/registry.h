/* registry.h - the variant table (from nbody.def) and lookups by name or glob */
#ifndef VARIANTS_REGISTRY_H
#define VARIANTS_REGISTRY_H

#include <stdbool.h>
#include <stddef.h>

enum variant_precision { VARIANT_FP32, VARIANT_FP64, VARIANT_TF32 };
enum variant_device { VARIANT_CPU, VARIANT_GPU };

/* A CPU force kernel: pos4 holds n bodies as (x, y, z, mass); acc4 receives
 * (ax, ay, az, 0) for each body; eps2 is the softening squared. */
typedef void (*nbody_cpu_fn)(const float *pos4, float *acc4, size_t n, float eps2);

/* A CPU kernel on part of the problem (a rank's share): see
 * nbody_cpu_simd_block in kernels/nbody/nbody_cpu.h. */
typedef void (*nbody_cpu_block_fn)(const float *pos_i, size_t n_i, const float *pos_j, size_t n_j,
				   size_t self, float *acc4, float eps2, int accumulate);

/* The exchange schemes of the distributed lines (NBODY_DIST_VARIANT in
 * nbody.def; harness/nbody/dist_gpu.h runs them). */
enum dist_scheme { DIST_NONE = 0, DIST_ALLGATHER, DIST_RING, DIST_2D };

struct variant {
	const char *name;
	const char *family;
	enum variant_precision precision;
	enum variant_device device;
	int tile_p;    /* bodies per tile (p); 0 when the variant does not tile */
	int threads_q; /* threads per body (q) */
	int unroll;    /* inner-loop unroll factor */
	int bodies_k;  /* bodies per thread (k) */
	nbody_cpu_fn cpu_forces; /* set when device == VARIANT_CPU (not distributed) */
	const char *summary;
	int dist;                /* enum dist_scheme: 0 runs on one device */
	int rank_kernel;         /* distributed: the one-device variant each rank runs */
	nbody_cpu_block_fn cpu_block; /* distributed on CPU ranks: its kernel */
};

enum nbody_variant_id {
#define NBODY_VARIANT(ident, ...) NBODY_V_##ident,
#define NBODY_DIST_VARIANT(ident, ...) NBODY_V_##ident,
#include "nbody.def"
#undef NBODY_VARIANT
#undef NBODY_DIST_VARIANT
	NBODY_VARIANT_COUNT
};

extern const struct variant nbody_variants[NBODY_VARIANT_COUNT];

const char *variant_precision_name(enum variant_precision p); /* "fp32", "fp64", "tf32" */
const char *variant_device_name(enum variant_device d);       /* "cpu", "gpu" */

/* The variant called exactly name, or NULL. */
const struct variant *variant_find(const char *name);

/* Marks in selected[NBODY_VARIANT_COUNT] every variant whose name matches
 * pattern (exact name or fnmatch(3) glob). Returns how many matched. */
size_t variant_match(const char *pattern, bool selected[NBODY_VARIANT_COUNT]);

/* Whether this build and machine have v's device (a CPU implementation,
 * or a GPU); when not, *why (if why is not NULL) points to a static reason
 * such as "built without CUDA". A distributed variant needs more (MPI, a
 * GPU per rank): variant_available in harness/nbody/instance.h asks both. */
bool variant_device_available(const struct variant *v, const char **why);

/* A test hook, read from the environment on every call: whether
 * $HARNESS_PLANT_SKIP_BODY names v (a name or glob). Such a variant is run
 * on bodies whose middle body has lost its mass, so its forces skip that
 * body, a subtle bug that validation must catch (instance_create plants
 * it). Unset in normal use. */
#define VARIANT_PLANT_ENV "HARNESS_PLANT_SKIP_BODY"
bool variant_planted_skip_body(const struct variant *v);

/* Whether the environment variable env is set to name or to a glob that
 * matches it (the planted-bug hooks of the N-body and SPH registries). */
bool variant_env_names(const char *env, const char *name);

#endif
