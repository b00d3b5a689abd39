/* ceiling.c - the interactions/s a GPU's arithmetic pipes allow, per architecture */
#include "ceiling.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

/* From the CUDA C Programming Guide's table of arithmetic instruction
 * throughput (results per clock per multiprocessor) and, for the G80, the
 * chapter: 8 scalar processors and 2 SFUs per multiprocessor. */
static const struct ceiling_arch ceiling_archs[] = {
	{ 1, 0, "G80 (GeForce 8800 GTX)", 8, 0, 2 },
	{ 7, 0, "Volta", 64, 32, 16 },
	{ 7, 5, "Turing", 64, 2, 16 },
	{ 8, 0, "Ampere A100", 64, 32, 16 },
	{ 8, 6, "Ampere GA10x", 128, 2, 16 },
	{ 8, 7, "Ampere Orin", 128, 2, 16 },
	{ 8, 9, "Ada", 128, 2, 16 },
	{ 9, 0, "Hopper", 128, 64, 16 },
	{ 10, 0, "Blackwell B200", 128, 64, 16 },
	{ 12, 0, "Blackwell GB20x", 128, 2, 16 },
};

const struct ceiling_arch *ceiling_arch_find(int cc_major, int cc_minor)
{
	for (size_t i = 0; i < sizeof ceiling_archs / sizeof ceiling_archs[0]; i++)
		if (ceiling_archs[i].cc_major == cc_major && ceiling_archs[i].cc_minor == cc_minor)
			return &ceiling_archs[i];
	return NULL;
}

/* Counted by tests/nbody/tc_sass_count.py in `make sass` (cuobjdump -sass
 * of build/kernels/nbody/nbody_tc.cu.o, CUDA 13.0, -O3): the instructions
 * of tc_kernel's j-loop on its main path (the near-pair code that a warp
 * skips when none of its lanes has a near pair left out), one iteration
 * of 8 j-bodies against the warp's p bodies, for the kernel as of the
 * commit named (a kernel changed since is counted anew; until then its
 * rows carry the older count's ceiling). */
static const struct ceiling_sass_count ceiling_sass_counts[] = {
	{ "tc-3x-p16", 9, 0, 94, 16 * 8, "38bd4c7" },
	{ "tc-3x-p32", 9, 0, 140, 32 * 8, "38bd4c7" },
	{ "tc-3x-p64", 9, 0, 237, 64 * 8, "38bd4c7" },
	{ "tc-1xd-p32", 9, 0, 129, 32 * 8, "38bd4c7" },
	{ "tc-1xw-p32", 9, 0, 111, 32 * 8, "38bd4c7" },
	{ "tc-1x-p32", 9, 0, 100, 32 * 8, "38bd4c7" },
};

const struct ceiling_sass_count *ceiling_sass_count_find(const char *variant, int cc_major, int cc_minor)
{
	for (size_t i = 0; i < sizeof ceiling_sass_counts / sizeof ceiling_sass_counts[0]; i++)
		if (strcmp(ceiling_sass_counts[i].variant, variant) == 0 &&
		    ceiling_sass_counts[i].cc_major == cc_major && ceiling_sass_counts[i].cc_minor == cc_minor)
			return &ceiling_sass_counts[i];
	return NULL;
}

#define CEILING_SCHEDULERS_PER_SM 4

double ceiling_variant_interactions_per_s(const struct variant *v, int cc_major, int cc_minor,
					  int sm_count, double clock_mhz)
{
	const struct ceiling_sass_count *e = ceiling_sass_count_find(v->name, cc_major, cc_minor);
	if (!e)
		return strcmp(v->family, "tensor-core") == 0
			       ? NAN
			       : ceiling_interactions_per_s(cc_major, cc_minor, sm_count, clock_mhz,
							    v->precision);
	const struct ceiling_arch *a = ceiling_arch_find(cc_major, cc_minor);
	if (!a || sm_count <= 0 || !(clock_mhz > 0))
		return NAN;
	double per_clock = CEILING_SCHEDULERS_PER_SM * (double)e->interactions / e->instructions;
	if (a->sfu_lanes < per_clock)
		per_clock = a->sfu_lanes;
	return sm_count * clock_mhz * 1e6 * per_clock;
}

double ceiling_interactions_per_s(int cc_major, int cc_minor, int sm_count, double clock_mhz,
				  enum variant_precision p)
{
	const struct ceiling_arch *a = ceiling_arch_find(cc_major, cc_minor);
	if (!a || sm_count <= 0 || !(clock_mhz > 0))
		return NAN;
	double per_clock;
	if (p == VARIANT_FP64) {
		per_clock = (double)a->fp64_lanes / CEILING_ARITH_PER_INTERACTION;
	} else {
		per_clock = (double)a->fp32_lanes / CEILING_ARITH_PER_INTERACTION;
		if (a->sfu_lanes < per_clock)
			per_clock = a->sfu_lanes;
	}
	return sm_count * clock_mhz * 1e6 * per_clock;
}
