/* nbody_cpu_simd.c - cpu-simd: OpenMP + AVX-512 / AVX2+FMA / scalar all-pairs forces, chosen at run time */
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "nbody_cpu.h"

/*
 * Layout of the work. The i-bodies are taken in blocks of NBODY_SIMD_BLOCK
 * and transposed into small aligned structure-of-arrays buffers on the
 * stack: each vector lane holds one i-body and accumulates its
 * acceleration, so no horizontal sum is needed. Each j-body is broadcast
 * straight from pos4 and meets every i-lane of the block; the j-loop runs
 * over exactly n bodies, so nothing past the arrays is read and no
 * j-padding exists. Lanes of the last block past n repeat a real body and
 * their results are dropped. OpenMP shares the blocks among threads in
 * static chunks (every block costs the same, n interactions per lane).
 * NBODY_*_IVECS i-vectors share one j broadcast (register blocking), which
 * spreads the per-j work (broadcasts, mass scaling) over more lanes; the
 * defaults were the fastest measured on a Zen 4 core (AVX-512: 4 vectors
 * about 3% ahead of 2; AVX2: 2 vectors about 15% ahead of 1).
 *
 * Inverse distance cubed. The hardware estimate y ~ 1/sqrt(r2) has
 * relative error e < 2^-14 (AVX-512 rsqrt14) or < 1.5 * 2^-12 (the AVX2
 * path's rsqrt). With t = r2 y^2 = (1 + e)^2, the exact value is
 * r2^(-3/2) = y^3 t^(-3/2), and t^(-3/2) is expanded about t = 1:
 *	AVX-512: (5 - 3t) / 2                  first order; this is one
 *	         Newton-Raphson step y' = y (3 - t) / 2, cubed to first order
 *	AVX2:    (35 - 42t + 15t^2) / 8        second order, for the coarser
 *	         estimate (a Householder step of order 2)
 * The dropped terms are about 7.5 e^2 and 17.5 e^3: below 3e-8 and 1e-9,
 * under float rounding. The mass is folded into the polynomial's
 * coefficients once per j-body, so s = m_j / r^3 costs one multiply less
 * per lane than refining y, cubing it and scaling by m_j.
 *
 * Summation. Each lane sums NBODY_SIMD_JCHUNK terms into a fresh partial
 * sum and then adds that to its total. Float rounding in the sum over j,
 * not the arithmetic of one pair, dominates the error of a long sum; the
 * two levels cut it about fivefold (N = 1000: 1.5e-7 instead of 7.5e-7 of
 * sum_j |f_ij|) for three adds per chunk, which cost no measurable time.
 *
 * The self term. A pair at zero distance would give 0 * inf = NaN when
 * eps2 == 0 (or so small that eps2^(-3/2) overflows), so the j-range of
 * the block's own bodies runs with a mask that zeroes such pairs; the rest
 * of the j-loop, where i != j always holds, runs without it.
 */

#ifndef NBODY_AVX512_IVECS
#define NBODY_AVX512_IVECS 4 /* i-vectors of 16 lanes per j broadcast */
#endif
#ifndef NBODY_AVX2_IVECS
#define NBODY_AVX2_IVECS 2 /* i-vectors of 8 lanes per j broadcast */
#endif
#ifndef NBODY_SIMD_BLOCK
#define NBODY_SIMD_BLOCK 64 /* i-bodies per block (a multiple of both vector groups) */
#endif
#ifndef NBODY_SIMD_JCHUNK
#define NBODY_SIMD_JCHUNK 64 /* j-bodies summed into one partial sum */
#endif
#define NBODY_SIMD_ALIGN 64

_Static_assert(NBODY_SIMD_BLOCK % (16 * NBODY_AVX512_IVECS) == 0, "AVX-512 blocking must divide the block");
_Static_assert(NBODY_SIMD_BLOCK % (8 * NBODY_AVX2_IVECS) == 0, "AVX2 blocking must divide the block");

#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
#define NBODY_SIMD_X86 1
#include <immintrin.h>
#else
#define NBODY_SIMD_X86 0
#endif

/* The code paths, in order: a CPU that can run one can run those before it. */
enum nbody_simd_path {
	NBODY_SIMD_UNSET = 0,
	NBODY_SIMD_SCALAR,
	NBODY_SIMD_AVX2,
	NBODY_SIMD_AVX512,
};

/* One call's work: the i-bodies whose accelerations are wanted, the
 * j-bodies that pull on them, and where the i-bodies sit among the
 * j-bodies (self, or NBODY_CPU_NO_SELF). */
struct nbody_simd_job {
	const float *pos_i;
	size_t n_i;
	const float *pos_j;
	size_t n_j;
	size_t self;
	float *acc4;
	float eps2;
	int accumulate;
};

/* Bodies in the block starting at i0: NBODY_SIMD_BLOCK, or fewer at the end. */
static size_t nbody_simd_block_count(size_t n, size_t i0)
{
	return n - i0 < NBODY_SIMD_BLOCK ? n - i0 : NBODY_SIMD_BLOCK;
}

/* The j-range [*g0, *g1) that may hold the block's own bodies (and so
 * needs the zero-distance guard), within [0, n_j]: empty when the
 * i-bodies are not among the j-bodies. */
static void nbody_simd_guard_range(const struct nbody_simd_job *w, size_t i0, size_t i1, size_t *g0,
				   size_t *g1)
{
	if (w->self == NBODY_CPU_NO_SELF) {
		*g0 = *g1 = w->n_j;
		return;
	}
	*g0 = w->self + i0 < w->n_j ? w->self + i0 : w->n_j;
	*g1 = w->self + i1 < w->n_j ? w->self + i1 : w->n_j;
}

/* Stores a block's result: a = v, or a += v when accumulating. */
static void nbody_simd_store(const struct nbody_simd_job *w, size_t i, float ax, float ay, float az)
{
	float *a = &w->acc4[4 * i];

	if (w->accumulate) {
		ax += a[0];
		ay += a[1];
		az += a[2];
	}
	a[0] = ax;
	a[1] = ay;
	a[2] = az;
	a[3] = 0.0f;
}

/* Scalar path: the block's i-bodies one at a time with 1/sqrtf, summed in
 * chunks as the vector paths are; used on CPUs without AVX2 and on non-x86
 * machines. Skips j == i as cpu-portable does. */
static void nbody_simd_block_scalar(const struct nbody_simd_job *w, size_t i0)
{
	size_t count = nbody_simd_block_count(w->n_i, i0), n = w->n_j;
	float eps2 = w->eps2;

	for (size_t i = i0; i < i0 + count; i++) {
		const float *bi = &w->pos_i[4 * i];
		size_t self = w->self == NBODY_CPU_NO_SELF ? n : w->self + i;
		float ax = 0.0f, ay = 0.0f, az = 0.0f;

		for (size_t jc = 0; jc < n; jc += NBODY_SIMD_JCHUNK) {
			size_t je = n - jc < NBODY_SIMD_JCHUNK ? n : jc + NBODY_SIMD_JCHUNK;
			float px = 0.0f, py = 0.0f, pz = 0.0f; /* this chunk's partial sums */

			for (size_t j = jc; j < je; j++) {
				const float *bj = &w->pos_j[4 * j];

				if (j == self)
					continue;
				// r_ij [3 FLOPS]
				float rx = bj[0] - bi[0];
				float ry = bj[1] - bi[1];
				float rz = bj[2] - bi[2];
				// distSqr = dot(r_ij, r_ij) + EPS^2 [6 FLOPS]
				float r2 = rx * rx + ry * ry + rz * rz + eps2;
				// invDistCube = 1/distSqr^(3/2) [4 FLOPS (1 sqrt, 1 inv, 2 mul)]
				float rinv = 1.0f / sqrtf(r2);
				float invDistCube = rinv * rinv * rinv;
				// s = m_j * invDistCube [1 FLOP]
				float s = bj[3] * invDistCube;
				// a_i = a_i + s * r_ij [6 FLOPS]
				px += rx * s;
				py += ry * s;
				pz += rz * s;
			}
			ax += px;
			ay += py;
			az += pz;
		}
		nbody_simd_store(w, i, ax, ay, az);
	}
}

#if NBODY_SIMD_X86

/* The i-bodies of one block in structure-of-arrays form. */
struct nbody_simd_iblock {
	_Alignas(NBODY_SIMD_ALIGN) float x[NBODY_SIMD_BLOCK];
	_Alignas(NBODY_SIMD_ALIGN) float y[NBODY_SIMD_BLOCK];
	_Alignas(NBODY_SIMD_ALIGN) float z[NBODY_SIMD_BLOCK];
};

/* The accelerations of one block, one lane per i-body. */
struct nbody_simd_ablock {
	_Alignas(NBODY_SIMD_ALIGN) float x[NBODY_SIMD_BLOCK];
	_Alignas(NBODY_SIMD_ALIGN) float y[NBODY_SIMD_BLOCK];
	_Alignas(NBODY_SIMD_ALIGN) float z[NBODY_SIMD_BLOCK];
};

/* Transposes bodies i0.. of pos4 into blk; lanes past n repeat the last
 * body, so they compute finite values that are never stored. */
static void nbody_simd_load_block(const float *pos4, size_t n, size_t i0, struct nbody_simd_iblock *blk)
{
	size_t count = nbody_simd_block_count(n, i0);

	for (size_t l = 0; l < NBODY_SIMD_BLOCK; l++) {
		const float *p = &pos4[4 * (i0 + (l < count ? l : count - 1))];

		blk->x[l] = p[0];
		blk->y[l] = p[1];
		blk->z[l] = p[2];
	}
}

/* Writes the valid lanes of acc back to the job's acc4 as (ax, ay, az, 0). */
static void nbody_simd_store_block(const struct nbody_simd_ablock *acc, const struct nbody_simd_job *w,
				   size_t i0)
{
	size_t count = nbody_simd_block_count(w->n_i, i0);

	for (size_t l = 0; l < count; l++)
		nbody_simd_store(w, i0 + l, acc->x[l], acc->y[l], acc->z[l]);
}

/* The AVX-512 path's i-vectors: positions and accumulators, 16 lanes each. */
struct nbody_simd_avx512_lanes {
	__m512 x[NBODY_AVX512_IVECS], y[NBODY_AVX512_IVECS], z[NBODY_AVX512_IVECS];
	__m512 ax[NBODY_AVX512_IVECS], ay[NBODY_AVX512_IVECS], az[NBODY_AVX512_IVECS];
};

/* Adds to every lane of li the pull of bodies j0..j1-1. guard (a constant
 * after inlining) masks pairs at zero distance to contribute zero. */
__attribute__((target("avx512f"), always_inline))
static inline void nbody_simd_avx512_jrange(const float *pos4, size_t j0, size_t j1, float eps2,
					    struct nbody_simd_avx512_lanes *li, int guard)
{
	const __m512 veps2 = _mm512_set1_ps(eps2);

	for (size_t jc = j0; jc < j1; jc += NBODY_SIMD_JCHUNK) {
		size_t je = j1 - jc < NBODY_SIMD_JCHUNK ? j1 : jc + NBODY_SIMD_JCHUNK;
		/* this chunk's partial sums */
		__m512 px[NBODY_AVX512_IVECS], py[NBODY_AVX512_IVECS], pz[NBODY_AVX512_IVECS];

		for (int v = 0; v < NBODY_AVX512_IVECS; v++)
			px[v] = py[v] = pz[v] = _mm512_setzero_ps();
		for (size_t j = jc; j < je; j++) {
			const __m512 xj = _mm512_set1_ps(pos4[4 * j + 0]);
			const __m512 yj = _mm512_set1_ps(pos4[4 * j + 1]);
			const __m512 zj = _mm512_set1_ps(pos4[4 * j + 2]);
			/* m_j (5 - 3t) / 2 = m25 - m15 t */
			const __m512 m25 = _mm512_set1_ps(2.5f * pos4[4 * j + 3]);
			const __m512 m15 = _mm512_set1_ps(1.5f * pos4[4 * j + 3]);

			for (int v = 0; v < NBODY_AVX512_IVECS; v++) {
				// r_ij [3 FLOPS]
				__m512 rx = _mm512_sub_ps(xj, li->x[v]);
				__m512 ry = _mm512_sub_ps(yj, li->y[v]);
				__m512 rz = _mm512_sub_ps(zj, li->z[v]);
				// distSqr = dot(r_ij, r_ij) + EPS^2 [6 FLOPS]
				__m512 r2 = _mm512_fmadd_ps(rx, rx, _mm512_fmadd_ps(ry, ry, _mm512_fmadd_ps(rz, rz, veps2)));
				// invDistCube = 1/distSqr^(3/2) [4 FLOPS]: estimate y, its cube, t = r2 y^2
				__m512 y = _mm512_rsqrt14_ps(r2);
				__m512 y2 = _mm512_mul_ps(y, y);
				__m512 y3 = _mm512_mul_ps(y2, y);
				__m512 t = _mm512_mul_ps(r2, y2);
				// s = m_j * invDistCube [1 FLOP]: y^3 m_j (5 - 3t) / 2, the Newton step
				__m512 s = _mm512_mul_ps(y3, _mm512_fnmadd_ps(m15, t, m25));
				if (guard) {
					__m512 d2 = _mm512_fmadd_ps(rx, rx, _mm512_fmadd_ps(ry, ry, _mm512_mul_ps(rz, rz)));
					__mmask16 apart = _mm512_cmp_ps_mask(d2, _mm512_setzero_ps(), _CMP_NEQ_UQ);

					s = _mm512_maskz_mov_ps(apart, s);
				}
				// a_i = a_i + s * r_ij [6 FLOPS]
				px[v] = _mm512_fmadd_ps(rx, s, px[v]);
				py[v] = _mm512_fmadd_ps(ry, s, py[v]);
				pz[v] = _mm512_fmadd_ps(rz, s, pz[v]);
			}
		}
		for (int v = 0; v < NBODY_AVX512_IVECS; v++) {
			li->ax[v] = _mm512_add_ps(li->ax[v], px[v]);
			li->ay[v] = _mm512_add_ps(li->ay[v], py[v]);
			li->az[v] = _mm512_add_ps(li->az[v], pz[v]);
		}
	}
}

/* AVX-512F path for the block of i-bodies starting at i0. */
__attribute__((target("avx512f")))
static void nbody_simd_block_avx512(const struct nbody_simd_job *w, size_t i0)
{
	enum { L = 16, V = NBODY_AVX512_IVECS };
	size_t i1 = i0 + nbody_simd_block_count(w->n_i, i0), g0, g1;
	struct nbody_simd_iblock blk;
	struct nbody_simd_ablock acc;

	nbody_simd_guard_range(w, i0, i1, &g0, &g1);
	nbody_simd_load_block(w->pos_i, w->n_i, i0, &blk);
	for (size_t b = 0; b < NBODY_SIMD_BLOCK; b += L * V) {
		struct nbody_simd_avx512_lanes li;

		for (int v = 0; v < V; v++) {
			li.x[v] = _mm512_load_ps(&blk.x[b + L * v]);
			li.y[v] = _mm512_load_ps(&blk.y[b + L * v]);
			li.z[v] = _mm512_load_ps(&blk.z[b + L * v]);
			li.ax[v] = li.ay[v] = li.az[v] = _mm512_setzero_ps();
		}
		nbody_simd_avx512_jrange(w->pos_j, 0, g0, w->eps2, &li, 0);
		nbody_simd_avx512_jrange(w->pos_j, g0, g1, w->eps2, &li, 1);
		nbody_simd_avx512_jrange(w->pos_j, g1, w->n_j, w->eps2, &li, 0);
		for (int v = 0; v < V; v++) {
			_mm512_store_ps(&acc.x[b + L * v], li.ax[v]);
			_mm512_store_ps(&acc.y[b + L * v], li.ay[v]);
			_mm512_store_ps(&acc.z[b + L * v], li.az[v]);
		}
	}
	nbody_simd_store_block(&acc, w, i0);
}

/* The AVX2 path's i-vectors: positions and accumulators, 8 lanes each. */
struct nbody_simd_avx2_lanes {
	__m256 x[NBODY_AVX2_IVECS], y[NBODY_AVX2_IVECS], z[NBODY_AVX2_IVECS];
	__m256 ax[NBODY_AVX2_IVECS], ay[NBODY_AVX2_IVECS], az[NBODY_AVX2_IVECS];
};

/* As nbody_simd_avx512_jrange, with AVX2+FMA and the second-order step. */
__attribute__((target("avx2,fma"), always_inline))
static inline void nbody_simd_avx2_jrange(const float *pos4, size_t j0, size_t j1, float eps2,
					  struct nbody_simd_avx2_lanes *li, int guard)
{
	const __m256 veps2 = _mm256_set1_ps(eps2);

	for (size_t jc = j0; jc < j1; jc += NBODY_SIMD_JCHUNK) {
		size_t je = j1 - jc < NBODY_SIMD_JCHUNK ? j1 : jc + NBODY_SIMD_JCHUNK;
		/* this chunk's partial sums */
		__m256 px[NBODY_AVX2_IVECS], py[NBODY_AVX2_IVECS], pz[NBODY_AVX2_IVECS];

		for (int v = 0; v < NBODY_AVX2_IVECS; v++)
			px[v] = py[v] = pz[v] = _mm256_setzero_ps();
		for (size_t j = jc; j < je; j++) {
			const __m256 xj = _mm256_broadcast_ss(&pos4[4 * j + 0]);
			const __m256 yj = _mm256_broadcast_ss(&pos4[4 * j + 1]);
			const __m256 zj = _mm256_broadcast_ss(&pos4[4 * j + 2]);
			/* m_j (35 - 42t + 15t^2) / 8 = (m2 t + m1) t + m0 */
			const __m256 m0 = _mm256_set1_ps(4.375f * pos4[4 * j + 3]);
			const __m256 m1 = _mm256_set1_ps(-5.25f * pos4[4 * j + 3]);
			const __m256 m2 = _mm256_set1_ps(1.875f * pos4[4 * j + 3]);

			for (int v = 0; v < NBODY_AVX2_IVECS; v++) {
				// r_ij [3 FLOPS]
				__m256 rx = _mm256_sub_ps(xj, li->x[v]);
				__m256 ry = _mm256_sub_ps(yj, li->y[v]);
				__m256 rz = _mm256_sub_ps(zj, li->z[v]);
				// distSqr = dot(r_ij, r_ij) + EPS^2 [6 FLOPS]
				__m256 r2 = _mm256_fmadd_ps(rx, rx, _mm256_fmadd_ps(ry, ry, _mm256_fmadd_ps(rz, rz, veps2)));
				// invDistCube = 1/distSqr^(3/2) [4 FLOPS]: estimate y, its cube, t = r2 y^2
				__m256 y = _mm256_rsqrt_ps(r2);
				__m256 y2 = _mm256_mul_ps(y, y);
				__m256 y3 = _mm256_mul_ps(y2, y);
				__m256 t = _mm256_mul_ps(r2, y2);
				// s = m_j * invDistCube [1 FLOP]: y^3 m_j (35 - 42t + 15t^2) / 8
				__m256 s = _mm256_mul_ps(y3, _mm256_fmadd_ps(_mm256_fmadd_ps(m2, t, m1), t, m0));
				if (guard) {
					__m256 d2 = _mm256_fmadd_ps(rx, rx, _mm256_fmadd_ps(ry, ry, _mm256_mul_ps(rz, rz)));

					s = _mm256_and_ps(_mm256_cmp_ps(d2, _mm256_setzero_ps(), _CMP_NEQ_UQ), s);
				}
				// a_i = a_i + s * r_ij [6 FLOPS]
				px[v] = _mm256_fmadd_ps(rx, s, px[v]);
				py[v] = _mm256_fmadd_ps(ry, s, py[v]);
				pz[v] = _mm256_fmadd_ps(rz, s, pz[v]);
			}
		}
		for (int v = 0; v < NBODY_AVX2_IVECS; v++) {
			li->ax[v] = _mm256_add_ps(li->ax[v], px[v]);
			li->ay[v] = _mm256_add_ps(li->ay[v], py[v]);
			li->az[v] = _mm256_add_ps(li->az[v], pz[v]);
		}
	}
}

/* AVX2+FMA path for the block of i-bodies starting at i0. */
__attribute__((target("avx2,fma")))
static void nbody_simd_block_avx2(const struct nbody_simd_job *w, size_t i0)
{
	enum { L = 8, V = NBODY_AVX2_IVECS };
	size_t i1 = i0 + nbody_simd_block_count(w->n_i, i0), g0, g1;
	struct nbody_simd_iblock blk;
	struct nbody_simd_ablock acc;

	nbody_simd_guard_range(w, i0, i1, &g0, &g1);
	nbody_simd_load_block(w->pos_i, w->n_i, i0, &blk);
	for (size_t b = 0; b < NBODY_SIMD_BLOCK; b += L * V) {
		struct nbody_simd_avx2_lanes li;

		for (int v = 0; v < V; v++) {
			li.x[v] = _mm256_load_ps(&blk.x[b + L * v]);
			li.y[v] = _mm256_load_ps(&blk.y[b + L * v]);
			li.z[v] = _mm256_load_ps(&blk.z[b + L * v]);
			li.ax[v] = li.ay[v] = li.az[v] = _mm256_setzero_ps();
		}
		nbody_simd_avx2_jrange(w->pos_j, 0, g0, w->eps2, &li, 0);
		nbody_simd_avx2_jrange(w->pos_j, g0, g1, w->eps2, &li, 1);
		nbody_simd_avx2_jrange(w->pos_j, g1, w->n_j, w->eps2, &li, 0);
		for (int v = 0; v < V; v++) {
			_mm256_store_ps(&acc.x[b + L * v], li.ax[v]);
			_mm256_store_ps(&acc.y[b + L * v], li.ay[v]);
			_mm256_store_ps(&acc.z[b + L * v], li.az[v]);
		}
	}
	nbody_simd_store_block(&acc, w, i0);
}

#endif /* NBODY_SIMD_X86 */

/* The best path this CPU supports. */
static enum nbody_simd_path nbody_simd_best_path(void)
{
#if NBODY_SIMD_X86
	__builtin_cpu_init();
	if (__builtin_cpu_supports("avx512f"))
		return NBODY_SIMD_AVX512;
	if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
		return NBODY_SIMD_AVX2;
#endif
	return NBODY_SIMD_SCALAR;
}

/* The path NBODY_CPU_SIMD_ISA asks for, or NBODY_SIMD_UNSET when it is
 * absent or unknown. */
static enum nbody_simd_path nbody_simd_requested_path(void)
{
	const char *want = getenv("NBODY_CPU_SIMD_ISA");

	if (!want)
		return NBODY_SIMD_UNSET;
	if (strcmp(want, "avx512") == 0)
		return NBODY_SIMD_AVX512;
	if (strcmp(want, "avx2") == 0 || strcmp(want, "avx2+fma") == 0)
		return NBODY_SIMD_AVX2;
	if (strcmp(want, "scalar") == 0)
		return NBODY_SIMD_SCALAR;
	return NBODY_SIMD_UNSET;
}

/* The path to run: the requested one when the CPU can run it (every path
 * up to the best supported one can), otherwise the best. Chosen once; the
 * relaxed atomic makes a race between first calls harmless (both store
 * the same value). */
static enum nbody_simd_path nbody_simd_path(void)
{
	static atomic_int chosen = NBODY_SIMD_UNSET;
	int path = atomic_load_explicit(&chosen, memory_order_relaxed);

	if (path == NBODY_SIMD_UNSET) {
		enum nbody_simd_path best = nbody_simd_best_path();
		enum nbody_simd_path want = nbody_simd_requested_path();

		path = (want != NBODY_SIMD_UNSET && want <= best) ? want : best;
		atomic_store_explicit(&chosen, path, memory_order_relaxed);
	}
	return (enum nbody_simd_path)path;
}

const char *nbody_cpu_simd_isa(void)
{
	switch (nbody_simd_path()) {
	case NBODY_SIMD_AVX512:
		return "avx512";
	case NBODY_SIMD_AVX2:
		return "avx2+fma";
	default:
		return "scalar";
	}
}

int nbody_cpu_simd_threads(void)
{
#ifdef _OPENMP
	return omp_get_max_threads();
#else
	return 1;
#endif
}

/* See nbody_cpu.h. Threads share the i-blocks; one block runs alone. */
void nbody_cpu_simd_block(const float *pos_i, size_t n_i, const float *pos_j, size_t n_j, size_t self,
			  float *acc4, float eps2, int accumulate)
{
	void (*block)(const struct nbody_simd_job *, size_t) = nbody_simd_block_scalar;
	const struct nbody_simd_job w = { pos_i, n_i, pos_j, n_j, self, acc4, eps2, accumulate };
	size_t nblocks = (n_i + NBODY_SIMD_BLOCK - 1) / NBODY_SIMD_BLOCK;

#if NBODY_SIMD_X86
	switch (nbody_simd_path()) {
	case NBODY_SIMD_AVX512:
		block = nbody_simd_block_avx512;
		break;
	case NBODY_SIMD_AVX2:
		block = nbody_simd_block_avx2;
		break;
	default:
		break;
	}
#endif
#ifdef _OPENMP
#pragma omp parallel for schedule(static) if (nblocks > 1)
#endif
	for (size_t b = 0; b < nblocks; b++)
		block(&w, b * NBODY_SIMD_BLOCK);
}

void nbody_cpu_simd(const float *pos4, float *acc4, size_t n, float eps2)
{
	nbody_cpu_simd_block(pos4, n, pos4, n, 0, acc4, eps2, 0);
}

void nbody_cpu_simd_set_threads(int threads)
{
#ifdef _OPENMP
	if (threads > 0)
		omp_set_num_threads(threads);
#else
	(void)threads;
#endif
}
