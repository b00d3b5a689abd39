/* leapfrog.c - the kick-drift-kick halves on bodies in host arrays */
#include "leapfrog.h"

void leapfrog_kick4(float *vel4, const float *acc4, size_t n, float half_dt)
{
	for (size_t i = 0; i < 4 * n; i += 4) {
		vel4[i + 0] += acc4[i + 0] * half_dt;
		vel4[i + 1] += acc4[i + 1] * half_dt;
		vel4[i + 2] += acc4[i + 2] * half_dt;
	}
}

void leapfrog_drift4(float *pos4, const float *vel4, size_t n, float dt)
{
	for (size_t i = 0; i < 4 * n; i += 4) {
		pos4[i + 0] += vel4[i + 0] * dt;
		pos4[i + 1] += vel4[i + 1] * dt;
		pos4[i + 2] += vel4[i + 2] * dt;
	}
}
