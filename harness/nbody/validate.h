/* validate.h - variant accelerations against the double-precision reference */
#ifndef HARNESS_VALIDATE_H
#define HARNESS_VALIDATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../variants/registry.h"

/* Up to this N every body is checked against all N; above it a sample of
 * VALIDATE_SAMPLE bodies, drawn with the run's seed, plus the first and the
 * last body (edge bugs live there), each against all N. The reference costs
 * O(checked x N) in double, so this keeps N = 2^20 at a few seconds. */
#define VALIDATE_FULL_MAX 16384
#define VALIDATE_SAMPLE 1024

struct validate_tolerance {
	double max_norm; /* bound on max_i |a_i - a_ref_i| / sum_j |f_ij| */
	double rel_l2;   /* bound on sqrt(sum |a - a_ref|^2 / sum |a_ref|^2) */
};

/* The tolerance for a variant of precision p at N bodies (see validate.c
 * for the reasoning). */
struct validate_tolerance validate_tolerance_for(enum variant_precision p, size_t n);

/* The bound within which a distributed variant's accelerations must equal
 * those of its rank kernel on one device, as max |a - a_one| / sum_j
 * |f_ij| (see validate.c for the reasoning). */
double validate_single_bound(enum variant_precision p, size_t n);

/* max over the m bodies idx[k] of |a - b| / fsum[k] (acc3 and one3 hold
 * all bodies, fsum the checked ones); NAN when any value is not finite. */
double validate_single_diff(const double *acc3, const double *one3, const size_t *idx, size_t m,
			    const double *fsum);

struct validation {
	size_t checked;      /* bodies compared */
	bool sampled;        /* checked < n */
	double rel_l2;       /* relative L2 error over the checked bodies */
	double max_norm;     /* worst per-body error normalised by sum_j |f_ij| */
	size_t worst_body;   /* index of that body */
	struct validate_tolerance tol;
	bool pass;           /* both errors finite and within tol */
};

/* How many bodies validation checks at N = n. */
size_t validate_checked_count(size_t n);

/* Chooses the bodies to check: all n (written in order) when n <=
 * VALIDATE_FULL_MAX, else a sorted sample without repeats that always
 * holds 0 and n-1. idx must have room for validate_checked_count(n).
 * Returns how many were written. */
size_t validate_pick_bodies(size_t n, uint64_t seed, size_t *idx);

/* Compares acc3 (3n doubles: the variant's accelerations of pos4) with the
 * reference at the bodies validate_pick_bodies(n, seed) chooses, and fills
 * *out. Returns 0, or -1 when memory ran out. */
int validate_accels(const float *pos4, size_t n, double eps, enum variant_precision p,
		    const double *acc3, uint64_t seed, struct validation *out);

/* The comparison itself, for callers that already hold the reference:
 * ref3 and fsum are the reference accelerations and sum_j |f_ij| of the m
 * bodies idx[0..m), acc3 the variant's accelerations of all bodies. */
void validate_compare(const double *acc3, const size_t *idx, size_t m, const double *ref3,
		      const double *fsum, struct validate_tolerance tol, size_t n,
		      struct validation *out);

#endif
