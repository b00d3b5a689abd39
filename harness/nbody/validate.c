/* validate.c - variant accelerations against the double-precision reference */
#include "validate.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../reference/nbody_ref.h"
#include "../../reference/rng.h"

/*
 * Tolerances, in one place.
 *
 * Each pair term m_j r / (r^2 + eps^2)^(3/2) in a working precision with
 * unit roundoff u carries a relative error of a few u (about ten rounded
 * operations: subtraction, squares, sqrt or rsqrt, reciprocal, products).
 * Summing N such terms adds rounding errors of random sign whose total,
 * relative to sum_j |f_ij|, grows like sqrt(N) u (the worst case, N u, needs
 * every rounding to point the same way). Normalising by sum_j |f_ij| rather
 * than by |a_i| keeps bodies whose forces cancel (the centre of a sphere)
 * from looking wrong. The bound allows 64 u per term and 8 sqrt(N) u for
 * the sum: at N = 1024 in fp32 that is 2.0e-5, at N = 2^20 5.2e-4, while a
 * missing body, a wrong softening or a race moves errors to 1e-3 .. 1.
 * The relative L2 error gets the same bound: it averages over bodies, but
 * divides by |a| where the max error divides by sum_j |f_ij|, which
 * cancellation can make several times larger.
 *
 * A tf32 variant computes its terms through plain TF32 matrix products
 * (10 mantissa bits: u = 2^-11) and sums them in FP32: its per-term part
 * takes TF32's u, its sum part FP32's. (At N = 1000: 3.1e-2; 64 u is
 * generous there too, the measured error of a term is a few u.)
 */
static double validate_term_u(enum variant_precision p)
{
	return p == VARIANT_FP64 ? ldexp(1.0, -53) : p == VARIANT_TF32 ? ldexp(1.0, -11) : ldexp(1.0, -24);
}

static double validate_sum_u(enum variant_precision p)
{
	return p == VARIANT_FP64 ? ldexp(1.0, -53) : ldexp(1.0, -24);
}

struct validate_tolerance validate_tolerance_for(enum variant_precision p, size_t n)
{
	double bound = 64.0 * validate_term_u(p) + 8.0 * sqrt((double)n) * validate_sum_u(p);
	return (struct validate_tolerance){ .max_norm = bound, .rel_l2 = bound };
}

/*
 * A distributed variant against its rank kernel on one device. Each rank
 * runs the same kernel (same pair arithmetic, same rsqrt) on the same
 * float positions, so every pair term f_ij is bit for bit the one the
 * single device computes: the per-term part of the bound above (64 u)
 * does not apply. What differs is the order of the sum over j: the
 * all-gather puts padding bodies (exact zeros) between the ranks' blocks
 * and so moves the kernel's tile and slice boundaries; the ring adds P
 * partial sums, one per block, in ring order. Each result is the exact
 * sum plus N rounding errors of at most u/2 times a partial sum (bounded
 * by sum_j |f_ij|), of random sign: the difference of two orderings has a
 * standard deviation of at most sqrt(2N) u / (2 sqrt 3) ~ 0.41 sqrt(N) u
 * of sum_j |f_ij|. The bound, 8 sqrt(N) u, is the sum part of the
 * validation tolerance without its per-term part: about 20 such
 * deviations, far beyond the worst of 4 million bodies (about 5.3), while
 * a body left out or a block counted twice moves a body's acceleration by
 * 1e-3 .. 1 of sum_j |f_ij|. (fp32: 1.5e-5 at N = 1000, 9.8e-4 at 2^22.)
 */
double validate_single_bound(enum variant_precision p, size_t n)
{
	return 8.0 * sqrt((double)n) * validate_sum_u(p);
}

double validate_single_diff(const double *acc3, const double *one3, const size_t *idx, size_t m,
			    const double *fsum)
{
	double worst = 0;
	for (size_t k = 0; k < m; k++) {
		const double *a = &acc3[3 * idx[k]], *b = &one3[3 * idx[k]];
		double e = sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) +
				(a[2] - b[2]) * (a[2] - b[2]));
		double norm = fsum[k] > 0 ? e / fsum[k] : (e > 0 ? INFINITY : 0.0);
		if (!isfinite(e))
			return NAN;
		worst = norm > worst ? norm : worst;
	}
	return worst;
}

static int validate_cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	return (x > y) - (x < y);
}

size_t validate_checked_count(size_t n)
{
	return n <= VALIDATE_FULL_MAX ? n : VALIDATE_SAMPLE + 2;
}

size_t validate_pick_bodies(size_t n, uint64_t seed, size_t *idx)
{
	if (n <= VALIDATE_FULL_MAX) {
		for (size_t i = 0; i < n; i++)
			idx[i] = i;
		return n;
	}
	/* Draw until VALIDATE_SAMPLE distinct interior bodies: n is far larger
	 * than the sample, so repeats are rare and the loop short. */
	struct rng r;
	rng_seed(&r, seed ^ 0x76616c6964617465ULL); /* "validate": own stream */
	size_t m = 0;
	idx[m++] = 0;
	idx[m++] = n - 1;
	while (m < VALIDATE_SAMPLE + 2) {
		size_t cand = 1 + rng_below(&r, n - 2);
		bool seen = false;
		for (size_t k = 0; k < m && !seen; k++)
			seen = idx[k] == cand;
		if (!seen)
			idx[m++] = cand;
	}
	qsort(idx, m, sizeof *idx, validate_cmp_size);
	return m;
}

void validate_compare(const double *acc3, const size_t *idx, size_t m, const double *ref3,
		      const double *fsum, struct validate_tolerance tol, size_t n,
		      struct validation *out)
{
	memset(out, 0, sizeof *out);
	out->checked = m;
	out->sampled = m < n;
	out->tol = tol;
	double err2 = 0, ref2 = 0, worst = 0;
	bool finite = true;
	for (size_t k = 0; k < m; k++) {
		const double *a = &acc3[3 * idx[k]], *r = &ref3[3 * k];
		double dx = a[0] - r[0], dy = a[1] - r[1], dz = a[2] - r[2];
		double e2 = dx * dx + dy * dy + dz * dz;
		if (!isfinite(e2))
			finite = false;
		err2 += e2;
		ref2 += r[0] * r[0] + r[1] * r[1] + r[2] * r[2];
		/* A lone body (no other mass) has fsum 0 and must get exactly 0. */
		double norm = fsum[k] > 0 ? sqrt(e2) / fsum[k] : (e2 > 0 ? INFINITY : 0.0);
		if (!(norm <= worst)) {
			worst = norm;
			out->worst_body = idx[k];
		}
	}
	out->max_norm = worst;
	out->rel_l2 = ref2 > 0 ? sqrt(err2 / ref2) : (err2 > 0 ? INFINITY : 0.0);
	if (!finite) {
		out->max_norm = NAN;
		out->rel_l2 = NAN;
	}
	/* Written so that NaN fails: comparisons with NaN are false. */
	out->pass = finite && out->max_norm <= tol.max_norm && out->rel_l2 <= tol.rel_l2;
}

int validate_accels(const float *pos4, size_t n, double eps, enum variant_precision p,
		    const double *acc3, uint64_t seed, struct validation *out)
{
	size_t cap = validate_checked_count(n);
	int rc = -1;
	size_t *idx = malloc(cap * sizeof *idx);
	double *ref3 = malloc(3 * cap * sizeof *ref3);
	double *fsum = malloc(cap * sizeof *fsum);
	if (!idx || !ref3 || !fsum)
		goto out_free;
	size_t m = validate_pick_bodies(n, seed, idx);
	ref_accel_bodies(pos4, n, eps, idx, m, ref3, fsum);
	validate_compare(acc3, idx, m, ref3, fsum, validate_tolerance_for(p, n), n, out);
	rc = 0;
out_free:
	free(idx);
	free(ref3);
	free(fsum);
	return rc;
}
