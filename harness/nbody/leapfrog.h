/* leapfrog.h - the kick-drift-kick halves on bodies in host arrays */
#ifndef HARNESS_LEAPFROG_H
#define HARNESS_LEAPFROG_H

#include <stddef.h>

/* The leapfrog halves on n bodies of 4 floats: v += a dt/2 (kick), and
 * x += v dt (drift; the mass in pos4[4i + 3] stays). */
void leapfrog_kick4(float *vel4, const float *acc4, size_t n, float half_dt);
void leapfrog_drift4(float *pos4, const float *vel4, size_t n, float dt);

#endif
