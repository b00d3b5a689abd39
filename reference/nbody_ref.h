/* nbody_ref.h - double-precision all-pairs N-body oracle (GPU Gems 3 ch. 31) */
#ifndef NBODY_REF_H
#define NBODY_REF_H

#include <stddef.h>

/*
 * Conventions shared with the kernels: positions are float4 per body
 * (x, y, z, mass) in pos4[4i..4i+3]; velocities float4 (vx, vy, vz, 0).
 * G = 1. The oracle converts those same floats to double (exactly), so a
 * comparison with a kernel measures the kernel's arithmetic, not the
 * rounding of its inputs.
 *
 * Force law (chapter eq. 31-2 with softening): body j pulls body i with
 *   f_ij = m_j r_ij / (|r_ij|^2 + eps^2)^(3/2),  r_ij = x_j - x_i.
 * A pair with |r_ij|^2 + eps^2 == 0 (the body itself when eps == 0, or two
 * coincident bodies with eps == 0) contributes zero; with eps > 0 the self
 * term is zero by itself, as the chapter notes.
 */

/*
 * Softened accelerations a_i = sum_j f_ij, in double, for each i in
 * idx[0..m) (idx may repeat or be unordered); when idx == NULL, for all
 * i = 0..n-1 in order and m must equal n. Writes acc3[3k..3k+2] for the
 * k-th requested body; when fabs_sum != NULL also writes
 *   fabs_sum[k] = sum_j |f_ij|,
 * the scale against which errors are normalised, so that cancellation in
 * the sum gives no false alarms. The sum over j runs j = 0..n-1 in order,
 * so results are reproducible bit for bit.
 */
void ref_accel_bodies(const float *pos4, size_t n, double eps,
		      const size_t *idx, size_t m,
		      double *acc3, double *fabs_sum);

/* A system integrated in double: x, v, a are 3n (xyz per body), m is n. */
struct ref_state {
	size_t n;
	double *x;
	double *v;
	double *m;
	double *a;
};

/*
 * Convert pos4 (and vel4, or zero velocities when vel4 == NULL) to double
 * into a new state; s->a is zeroed. Returns 0, or -1 on allocation failure
 * (then nothing is leaked and *s holds only NULL pointers).
 */
int ref_state_init(struct ref_state *s, const float *pos4, const float *vel4,
		   size_t n);

/* Free the arrays of s (safe on a state whose init failed). */
void ref_state_free(struct ref_state *s);

/* Fill s->a with the softened accelerations of s->x, s->m. */
void ref_state_accel(struct ref_state *s, double eps);

/* Kinetic energy 1/2 sum_i m_i |v_i|^2. */
double ref_kinetic_energy(const struct ref_state *s);

/* Potential energy -sum_{i<j} m_i m_j / sqrt(|r_ij|^2 + eps^2), the
 * potential whose gradient is the softened force (pairs at zero distance
 * with eps == 0 are skipped, as in the force). */
double ref_potential_energy(const struct ref_state *s, double eps);

/*
 * One kick-drift-kick leapfrog step of length dt (velocity Verlet):
 *   v += a dt/2;  x += v dt;  a = a(x);  v += a dt/2.
 * Precondition: s->a holds the accelerations of s->x (call
 * ref_state_accel once before the first step). Postcondition: the same
 * holds for the new positions, so steps chain at one force call each.
 */
void ref_leapfrog_step(struct ref_state *s, double dt, double eps);

/* Total momentum p = sum_i m_i v_i. */
void ref_total_momentum(const struct ref_state *s, double p[3]);

#endif /* NBODY_REF_H */
