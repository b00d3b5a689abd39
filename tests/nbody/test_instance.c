/* test_instance.c - a variant's state: forces, leapfrog steps, accelerations */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>

#include "../../harness/nbody/instance.h"
#include "../../reference/ic.h"
#include "../../reference/nbody_ref.h"

/* The float leapfrog of the CPU instance follows the double reference's
 * kick-drift-kick step by step: after 100 steps of a Plummer sphere the
 * positions agree to float rounding, which a wrong step order (drift
 * before kick, a missing half kick) would break by orders of magnitude. */
Test(instance, steps_follow_the_reference_leapfrog)
{
	enum { N = 64, STEPS = 100 };
	const double eps = 0.05, dt = 1e-3;
	float pos4[4 * N], vel4[4 * N];
	cr_assert_eq(ic_generate(IC_PLUMMER, N, 5, pos4, vel4), 0);
	struct instance in;
	char err[128];
	cr_assert_eq(instance_create(&in, &nbody_variants[NBODY_V_cpu_portable], pos4, vel4, N, eps,
				     err, sizeof err), 0, "%s", err);
	double seconds;
	cr_assert_eq(instance_steps(&in, STEPS, dt, &seconds), 0);
	cr_assert_geq(seconds, 0);

	struct ref_state s;
	cr_assert_eq(ref_state_init(&s, pos4, vel4, N), 0);
	ref_state_accel(&s, eps);
	for (int k = 0; k < STEPS; k++)
		ref_leapfrog_step(&s, dt, eps);
	double worst = 0, moved = 0;
	for (size_t i = 0; i < N; i++)
		for (int c = 0; c < 3; c++) {
			worst = fmax(worst, fabs(in.pos4[4 * i + c] - s.x[3 * i + c]));
			moved = fmax(moved, fabs(s.x[3 * i + c] - pos4[4 * i + c]));
		}
	cr_assert_gt(moved, 1e-3, "the bodies moved (%.3e)", moved);
	cr_assert_lt(worst, 1e-5, "float and double leapfrog differ by %.3e", worst);
	for (size_t i = 0; i < N; i++)
		cr_assert_eq(in.pos4[4 * i + 3], pos4[4 * i + 3], "masses stay");
	ref_state_free(&s);
	instance_destroy(&in);
}

Test(instance, accels_match_forces_output)
{
	enum { N = 33 };
	float pos4[4 * N], vel4[4 * N];
	double acc3[3 * N];
	cr_assert_eq(ic_generate(IC_CUBE, N, 2, pos4, vel4), 0);
	struct instance in;
	char err[128];
	cr_assert_eq(instance_create(&in, &nbody_variants[NBODY_V_cpu_simd], pos4, NULL, N, 0.01, err,
				     sizeof err), 0);
	cr_assert_eq(instance_accels(&in, acc3), 0);
	for (size_t i = 0; i < N; i++)
		for (int c = 0; c < 3; c++)
			cr_assert_eq(acc3[3 * i + c], (double)in.acc4[4 * i + c]);
	double t;
	cr_assert_eq(instance_forces(&in, 3, &t), 0);
	cr_assert_geq(t, 0);
	instance_destroy(&in);
	cr_assert_null(in.pos4, "destroy leaves an empty instance");
}
