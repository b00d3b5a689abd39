/* nbody_cpu_portable.c - cpu-portable: the chapter's serial C baseline (Listing 31-1 in a double loop) */
#include <math.h>

#include "nbody_cpu.h"

/* One body-body interaction, Listing 31-1 line for line: adds to ai the
 * acceleration of body i (bi) caused by body j (bj). 20 flops. */
static void nbody_cpu_body_body(const float *bi, const float *bj, float eps2, float ai[3])
{
	float r[3];

	// r_ij [3 FLOPS]
	r[0] = bj[0] - bi[0];
	r[1] = bj[1] - bi[1];
	r[2] = bj[2] - bi[2];
	// distSqr = dot(r_ij, r_ij) + EPS^2 [6 FLOPS]
	float distSqr = r[0] * r[0] + r[1] * r[1] + r[2] * r[2] + eps2;
	// invDistCube = 1/distSqr^(3/2) [4 FLOPS (2 mul, 1 sqrt, 1 inv)]
	float distSixth = distSqr * distSqr * distSqr;
	float invDistCube = 1.0f / sqrtf(distSixth);
	// s = m_j * invDistCube [1 FLOP]
	float s = bj[3] * invDistCube;
	// a_i = a_i + s * r_ij [6 FLOPS]
	ai[0] += r[0] * s;
	ai[1] += r[1] * s;
	ai[2] += r[2] * s;
}

/* See nbody_cpu.h. The self term (j == i) is skipped: it adds exactly zero
 * when eps2 > 0, and would be 0 * inf = NaN when eps2 == 0. */
void nbody_cpu_portable(const float *pos4, float *acc4, size_t n, float eps2)
{
	for (size_t i = 0; i < n; i++) {
		float ai[3] = { 0.0f, 0.0f, 0.0f };

		for (size_t j = 0; j < n; j++) {
			if (j == i)
				continue;
			nbody_cpu_body_body(&pos4[4 * i], &pos4[4 * j], eps2, ai);
		}
		acc4[4 * i + 0] = ai[0];
		acc4[4 * i + 1] = ai[1];
		acc4[4 * i + 2] = ai[2];
		acc4[4 * i + 3] = 0.0f;
	}
}
