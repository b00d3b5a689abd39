/* ceiling.h - the interactions/s a GPU's arithmetic pipes allow, per architecture */
#ifndef HARNESS_CEILING_H
#define HARNESS_CEILING_H

#include "../../variants/registry.h"

/* Lanes per multiprocessor of one architecture (compute capability). */
struct ceiling_arch {
	int cc_major, cc_minor;
	const char *name;
	int fp32_lanes; /* FP32 instructions per clock per SM */
	int fp64_lanes; /* FP64 instructions per clock per SM */
	int sfu_lanes;  /* special-function (rsqrt) results per clock per SM */
};

/* Instructions one interaction needs in the model: 12 arithmetic (3 sub,
 * 3 FMA for the distance, 3 mul for m / r^3, 3 FMA for the sum) in the
 * variant's precision, plus one reciprocal square root on the SFU. */
#define CEILING_ARITH_PER_INTERACTION 12

/* The table entry of a compute capability, or NULL when unknown. */
const struct ceiling_arch *ceiling_arch_find(int cc_major, int cc_minor);

/* Interactions/s allowed by the slower of the two pipes:
 * sms x clock x min(lanes / 12, sfu / 1), lanes of the variant's precision.
 * For fp64 the SFU term is left out (its rsqrt is arithmetic plus a seed).
 * Returns NAN for an unknown architecture or a non-positive input. */
double ceiling_interactions_per_s(int cc_major, int cc_minor, int sm_count, double clock_mhz,
				  enum variant_precision p);

/* A formulation whose limit is not the FP32 pipe (the tensor-core
 * variants): its j-loop issues `instructions` warp instructions per
 * iteration of `interactions` interactions (the near-pair path left out),
 * counted in its SASS on cc_major.cc_minor at `commit`. */
struct ceiling_sass_count {
	const char *variant;
	int cc_major, cc_minor;
	int instructions, interactions;
	const char *commit;
};

/* The entry of variant on that architecture, or NULL. */
const struct ceiling_sass_count *ceiling_sass_count_find(const char *variant, int cc_major,
							int cc_minor);

/* The ceiling of variant v's rows: for a formulation with an entry, what
 * issue allows (4 schedulers x interactions / instructions per SM and
 * clock, each scheduler issuing one warp instruction a clock), capped by
 * the SFU (one rsqrt per interaction); for one without, where the variant
 * is of the tensor-core family, NAN (no model); else the classic
 * ceiling_interactions_per_s. */
double ceiling_variant_interactions_per_s(const struct variant *v, int cc_major, int cc_minor,
					  int sm_count, double clock_mhz);

#endif
