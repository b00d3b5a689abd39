/* sph_validate.h - an SPH variant's densities and accelerations against the double reference */
#ifndef HARNESS_SPH_VALIDATE_H
#define HARNESS_SPH_VALIDATE_H

#include <stdbool.h>
#include <stddef.h>

#include "../../kernels/sph/sph.h"

/*
 * Tolerances for float variants (reasoning in sph_validate.c):
 *   density:      max_i |rho_i - rho_ref_i| / rho0
 *   acceleration: max_i |a_i - a_ref_i| / rms_i |a_ref_i|
 *   neighbours:   the variant's pair count equals the reference's, except
 *                 for pairs whose |r^2 / h^2 - 1| < SPH_H_BAND (reference/sph_ref.h),
 *                 which float rounding may put on either side of h.
 */
#define SPH_VALIDATE_RHO_TOL 1e-5
#define SPH_VALIDATE_ACC_TOL 1e-3

struct sph_validation {
	size_t n;
	double rho_err, acc_err;      /* as defined above */
	size_t worst_rho, worst_acc;  /* particle indices */
	unsigned long long ref_pairs; /* ordered (i, j != i) pairs with r < h, reference, walls included */
	unsigned long long near_h;    /* ordered pairs in the band around h */
	unsigned long long var_pairs; /* the variant's count */
	bool pairs_ok, overflow, pass;
};

/* Compares a variant's state (pos4, vel4, rho, acc4 of its n fluid
 * particles in original order, as its read() gives them after evaluate)
 * and pair count with the reference evaluated on the same positions and
 * velocities, with the same nb boundary particles bnd4 (NULL when nb ==
 * 0). Pairs count fluid-fluid and fluid-boundary. Returns 0, or -1 when
 * the reference could not run (memory, a non-finite position). */
int sph_validate(const struct sph_params *p, const float *pos4, const float *vel4,
		 const float *rho, const float *acc4, size_t n, const float *bnd4, size_t nb,
		 const struct sph_counts *counts, struct sph_validation *out);

#endif
