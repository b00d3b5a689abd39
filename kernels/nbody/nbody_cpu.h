/* nbody_cpu.h - CPU N-body force kernels (cpu-portable, cpu-simd) */
#ifndef NBODY_CPU_H
#define NBODY_CPU_H

#include <stddef.h>

/*
 * Both kernels compute the all-pairs softened gravitational acceleration of
 * GPU Gems 3 chapter 31 (G = 1):
 *
 *	a_i = sum_j m_j r_ij / (|r_ij|^2 + eps2)^(3/2),   r_ij = x_j - x_i
 *
 * pos4: n bodies of 4 floats (x, y, z, mass), read only.
 * acc4: n x 4 floats, written as (ax, ay, az, 0); must not overlap pos4.
 * n:    any value >= 1 (no multiple of anything is assumed); n == 0 does
 *       nothing.
 * eps2: softening squared, >= 0.
 *
 * The self term (j == i) contributes exactly zero for any eps2 >= 0, so
 * eps2 == 0 never produces a NaN from i == j. Two *distinct* bodies at the
 * same position need eps2 > 0 large enough that m / eps2^(3/2) is finite;
 * otherwise their terms are unspecified (inf or NaN, or zero where cpu-simd
 * happens to mask them).
 *
 * One evaluation performs n * n interactions (20 flops each by the
 * chapter's convention), the self terms included.
 */

/* cpu-portable: the chapter's "portable C" baseline. One thread, scalar
 * float, the arithmetic of Listing 31-1 (distSixth = d*d*d; 1.0f/sqrtf).
 * Meant to be compiled without fast-math or -march flags. */
void nbody_cpu_portable(const float *pos4, float *acc4, size_t n, float eps2);

/* cpu-simd: OpenMP over blocks of i-bodies, vectorised inner loop with a
 * hardware reciprocal square root refined by one Newton-Raphson step, and
 * the sum over j taken in chunks of 64. The instruction set is chosen at
 * run time (see nbody_cpu_simd_isa). Per body, |a - a_ref| stays within a
 * few 1e-7 of sum_j |f_ij| on every path (measured <= 4e-7 up to n = 4097,
 * where cpu-portable's single running sum reaches 2e-6). */
void nbody_cpu_simd(const float *pos4, float *acc4, size_t n, float eps2);

/*
 * cpu-simd on part of the problem, for the ranks of the distributed
 * variants: the accelerations of the n_i bodies pos_i under the pull of
 * the n_j bodies pos_j, written to acc4 (n_i x 4 floats), or added to it
 * when accumulate is set. self is the index in pos_j of pos_i's first body
 * when the i-bodies are among the j-bodies (their own pairs are then
 * masked as in nbody_cpu_simd), else NBODY_CPU_NO_SELF. The pair
 * arithmetic is nbody_cpu_simd's: nbody_cpu_simd(p, a, n, e) is
 * nbody_cpu_simd_block(p, n, p, n, 0, a, e, 0).
 */
#define NBODY_CPU_NO_SELF ((size_t)-1)
void nbody_cpu_simd_block(const float *pos_i, size_t n_i, const float *pos_j, size_t n_j, size_t self,
			  float *acc4, float eps2, int accumulate);

/* Sets the OpenMP threads nbody_cpu_simd uses from now on (threads >= 1):
 * the ranks sharing a host divide its cores. */
void nbody_cpu_simd_set_threads(int threads);

/*
 * The path nbody_cpu_simd takes on this CPU: "avx512" (AVX-512F, 16 lanes,
 * rsqrt14), "avx2+fma" (8 lanes, rsqrt), or "scalar" (plain C, also the
 * only path on non-x86 machines). The best path the CPU supports is used,
 * unless the environment variable NBODY_CPU_SIMD_ISA names another:
 * "avx512", "avx2" or "scalar". A request the CPU cannot honour, or an
 * unknown value, falls back to the best supported path; this function
 * always reports the path actually taken. The choice is made on the first
 * call of nbody_cpu_simd or of this function and kept for the life of the
 * process.
 */
const char *nbody_cpu_simd_isa(void);

/* OpenMP threads nbody_cpu_simd uses (omp_get_max_threads()); 1 when the
 * file was built without OpenMP. */
int nbody_cpu_simd_threads(void);

#endif /* NBODY_CPU_H */
