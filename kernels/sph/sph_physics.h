/* sph_physics.h - the SPH step's float arithmetic, written once for every CPU and GPU variant */
#ifndef KERNELS_SPH_PHYSICS_H
#define KERNELS_SPH_PHYSICS_H

#include <float.h>
#include <math.h>
#include <stddef.h>

#include "../../reference/sph_ref.h"

/*
 * The step of reference/sph_ref.h in float, per fluid particle i (the
 * constants folded in double first, sph_consts_init):
 *
 *   rho_i = c_rho sum_j w_j q_ij^3,  q = 1 - r^2 / h^2, r < h (sph_poly6_q3)
 *           (j over fluid, i itself included, w_j = 1, and boundary
 *           particles, w_b = psi_b / m)
 *   p_i   = k max(rho_i - rho0, 0),  hinv_i = 1 / (2 rho_i) (sph_pressure)
 *   a_i   = c_force / rho_i (P_i + mu2 V_i) + g, where
 *   P_i   = sum_fluid (p_i + p_j) hinv_j (h - r)^2 / r (x_i - x_j)
 *         + sum_wall  w_b (p_i + p_b|i) hinv_i (h - r)^2 / r (x_i - x_b),
 *           p_b|i = max(p_i + 2 rho_i g . (x_b - x_i), 0)
 *   V_i   = sum_fluid (h - r) hinv_j (v_j - v_i)
 *         + sum_wall  w_b f_w (h - r) hinv_i (0 - v_i)
 *
 * with c_rho = m 315 / (64 pi h^3), c_force = m 45 / (pi h^6), mu2 = 2 mu:
 * reference/sph_ref.c's poly6 density, spiky pressure gradient, viscosity
 * Laplacian and Akinci walls with the kernels written out. Then
 * symplectic Euler and the clamp (sph_advance). Every variant calls the
 * functions below for these formulas and differs only in how it finds
 * the pairs; the sums over j are the caller's, in its own order.
 *
 * The functions take scalars, so that CUDA keeps them in registers
 * (a kernel parameter whose address is taken is copied to local memory).
 */

#ifdef __CUDACC__
#define SPH_FN static __host__ __device__ __forceinline__
#else
#define SPH_FN static inline
#endif

/* 1 / sqrt(x): the GPU's rsqrt (one MUFU instruction, ~2 ulp, instead of
 * an IEEE square root and division), the CPU's 1 / sqrtf. */
#ifdef __CUDA_ARCH__
#define SPH_RSQRT(x) rsqrtf(x)
#else
#define SPH_RSQRT(x) (1.0f / sqrtf(x))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* The parameters as the float arithmetic uses them. */
struct sph_consts {
	float h, h2, inv_h2;
	float c_rho;	/* m 315 / (64 pi h^3) */
	float c_force;	/* m 45 / (pi h^6) */
	float mu2;	/* 2 mu */
	float fw;	/* wall_friction */
	float rho0, k, dt, e;
	float g[3];	/* gravity */
	float g2[3];	/* 2 gravity: the walls' hydrostatic extrapolation */
	float box_lo[3], box_hi[3];	/* the box rounded inward to floats */
};

/*
 * The float constants of p for variant name. Returns 0, or -1 with one
 * line in err when h, mass or dt is not finite and > 0, gravity is not
 * a finite float, a box bound is NaN or box_lo > box_hi, or a constant
 * leaves float range.
 */
int sph_consts_init(struct sph_consts *c, const struct sph_params *p, const char *name,
		    char *err, size_t errlen);

/* Index of the first particle with a non-finite coordinate among the
 * first three of each float4 of pos4 and (when not NULL) vel4, or n. */
size_t sph_first_nonfinite(const float *pos4, const float *vel4, size_t n);

#ifdef __cplusplus
}
#endif

/* q^3 = (1 - r^2 / h^2)^3 of a pair with r2 < h^2. */
SPH_FN float sph_poly6_q3(float r2, float inv_h2)
{
	// 1 - r^2 / h^2 [2 FLOPS]
	const float q = 1.0f - r2 * inv_h2;

	// q^3 [2 FLOPS]
	return q * q * q;
}

/* Pressure p = k max(rho - rho0, 0) and hinv = 1 / (2 rho) of a particle
 * of density rho. */
SPH_FN void sph_pressure(float rho, float k, float rho0, float *pres, float *hinv)
{
	// [4 FLOPS]
	*pres = k * fmaxf(rho - rho0, 0.0f);
	*hinv = 0.5f / rho;
}

/* Density rho = c_rho sum of a particle from its poly6 sum, and its
 * pressure and hinv (sph_pressure). */
SPH_FN void sph_eos(float sum, float c_rho, float k, float rho0, float *rho, float *pres,
		    float *hinv)
{
	// rho = c_rho sum [1 FLOP]
	*rho = c_rho * sum;
	sph_pressure(*rho, k, rho0, pres, hinv);
}

/*
 * Weights of a fluid pair (i, j) with r2 = |x_j - x_i|^2 < h^2: the
 * pressure weight (p_i + p_j) hinv_j (h - r)^2 / r (zero at r = 0:
 * coincident particles push nowhere) and the viscosity weight
 * (h - r) hinv_j.
 */
SPH_FN void sph_fluid_weights(float r2, float h, float pi, float pj, float hinv_j, float *wp,
			      float *wv)
{
	// 1 / r and r, r kept above zero [3 FLOPS]
	const float rr = r2 + FLT_MIN, inv_r = SPH_RSQRT(rr), r = rr * inv_r;
	// h - r [1 FLOP]
	const float hr = h - r;

	// (p_i + p_j) hinv_j (h - r)^2 / r [5 FLOPS]
	*wp = r2 > 0.0f ? (pi + pj) * hinv_j * (hr * hr) * inv_r : 0.0f;
	// (h - r) hinv_j [1 FLOP]
	*wv = hr * hinv_j;
}

/*
 * Weights of a wall pair (i, b) with d = x_b - x_i, r2 = |d|^2 < h^2 and
 * w_b = psi_b / m: the pressure weight w_b (p_i + p_b|i) hinv_i
 * (h - r)^2 / r with p_b|i = max(p_i + 2 rho_i g . d, 0) (zero at r = 0),
 * and the friction weight w_b f_w (h - r) hinv_i, which multiplies
 * (0 - v_i).
 */
SPH_FN void sph_wall_weights(float dx, float dy, float dz, float r2, float h, float wb,
			     float pi, float rho_i, float hinv_i, float g2x, float g2y, float g2z,
			     float fw, float *wp, float *wv)
{
	// 1 / r and r, r kept above zero [3 FLOPS]
	const float rr = r2 + FLT_MIN, inv_r = SPH_RSQRT(rr), r = rr * inv_r;
	// h - r [1 FLOP]
	const float hr = h - r;
	// p_b|i = max(p_i + rho_i 2 g . d, 0) [7 FLOPS]
	const float pb = fmaxf(pi + rho_i * (g2x * dx + g2y * dy + g2z * dz), 0.0f);

	// w_b (p_i + p_b) hinv_i (h - r)^2 / r [6 FLOPS]
	*wp = r2 > 0.0f ? wb * (pi + pb) * hinv_i * (hr * hr) * inv_r : 0.0f;
	// w_b f_w (h - r) hinv_i [3 FLOPS]
	*wv = wb * fw * hr * hinv_i;
}

/* One coordinate of acceleration: c_force / rho_i (P + mu2 V) + g. */
SPH_FN float sph_accel(float scale, float P, float mu2, float V, float g)
{
	// [4 FLOPS]
	return scale * (P + mu2 * V) + g;
}

/*
 * The surface criterion of reference/render_ref.h (4.1) in float: i and
 * its n fluid neighbours, whose offsets x_j - x_i sum to (sx, sy, sz),
 * have their centre of mass |s| / (1 + n) from x_i; i is a surface
 * particle when that exceeds com_h (= com_threshold h) or n < min_n.
 */
SPH_FN int sph_surface_flag(float sx, float sy, float sz, float n, float com_h, float min_n)
{
	// |s|^2 > (com_h (1 + n))^2 [7 FLOPS]
	const float lim = com_h * (1.0f + n);

	return sx * sx + sy * sy + sz * sz > lim * lim || n < min_n;
}

/*
 * One coordinate of symplectic Euler with the clamp of
 * sph_ref_integrate: v += a dt; x += v dt; a coordinate past lo or hi
 * put back on it, an outward v replaced by -e v. Returns 1 when it
 * clamped, else 0.
 */
SPH_FN int sph_advance(float *x, float *v, float a, float dt, float e, float lo, float hi)
{
	*v += a * dt;
	*x += *v * dt;
	if (*x < lo) {
		*x = lo;
		if (*v < 0.0f)
			*v *= -e;
		return 1;
	}
	if (*x > hi) {
		*x = hi;
		if (*v > 0.0f)
			*v *= -e;
		return 1;
	}
	return 0;
}

#endif /* KERNELS_SPH_PHYSICS_H */
