/* test_ic.c - Criterion tests for reference/ic.c (suite ic) */
#include <criterion/criterion.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../reference/ic.h"
#include "../../reference/nbody_ref.h"

#define IC_TEST_BIG_N 10000

/* Two zeroed 4n-float arrays; the test fails if they cannot be had. */
static void ic_test_alloc(size_t n, float **pos4, float **vel4)
{
	*pos4 = calloc(4 * n, sizeof **pos4);
	*vel4 = calloc(4 * n, sizeof **vel4);
	cr_assert(*pos4 && *vel4, "out of memory for n = %zu", n);
}

/* Generate a Plummer sphere of n bodies from seed, failing on error. */
static void ic_test_plummer(size_t n, uint64_t seed, float **pos4,
			    float **vel4)
{
	ic_test_alloc(n, pos4, vel4);
	cr_assert(ic_generate(IC_PLUMMER, n, seed, *pos4, *vel4) == 0);
}

/* |x| of body i of a float4 array, in double. */
static double ic_test_norm3(const float *p4, size_t i)
{
	const double x = p4[4 * i], y = p4[4 * i + 1], z = p4[4 * i + 2];

	return sqrt(x * x + y * y + z * z);
}

static int ic_test_cmp_double(const void *a, const void *b)
{
	const double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

Test(ic, kind_names_round_trip)
{
	static const char *const names[] = { "plummer", "cube", "twobody" };
	static const enum ic_kind kinds[] = { IC_PLUMMER, IC_CUBE, IC_TWOBODY };
	enum ic_kind got = IC_CUBE;

	for (int k = 0; k < 3; k++) {
		cr_assert_str_eq(ic_kind_name(kinds[k]), names[k]);
		cr_assert(ic_kind_parse(names[k], &got) == 0, "%s", names[k]);
		cr_assert(got == kinds[k], "%s parsed to %d", names[k], got);
	}
	got = IC_CUBE;
	cr_assert(ic_kind_parse("Plummer", &got) == -1);
	cr_assert(ic_kind_parse("", &got) == -1);
	cr_assert(ic_kind_parse(NULL, &got) == -1);
	cr_assert(got == IC_CUBE, "a failed parse changed *out");
	cr_assert(ic_kind_name((enum ic_kind)99) == NULL);
}

Test(ic, same_seed_same_bytes_different_seed_different)
{
	static const enum ic_kind kinds[] = { IC_PLUMMER, IC_CUBE };
	const size_t n = 777;

	for (int k = 0; k < 2; k++) {
		float *p1, *v1, *p2, *v2, *p3, *v3;

		ic_test_alloc(n, &p1, &v1);
		ic_test_alloc(n, &p2, &v2);
		ic_test_alloc(n, &p3, &v3);
		cr_assert(ic_generate(kinds[k], n, 99, p1, v1) == 0);
		cr_assert(ic_generate(kinds[k], n, 99, p2, v2) == 0);
		cr_assert(ic_generate(kinds[k], n, 100, p3, v3) == 0);
		cr_assert(memcmp(p1, p2, 16 * n) == 0, "%s positions differ",
			  ic_kind_name(kinds[k]));
		cr_assert(memcmp(v1, v2, 16 * n) == 0, "%s velocities differ",
			  ic_kind_name(kinds[k]));
		cr_assert(memcmp(p1, p3, 16 * n) != 0,
			  "%s: seeds 99 and 100 give the same bodies",
			  ic_kind_name(kinds[k]));
		free(p1), free(v1), free(p2), free(v2), free(p3), free(v3);
	}
}

/* Uniform in [-1,1]: every coordinate inside, and <x^2> = 1/3 with
 * sigma sqrt(4/45 / 3n) = 0.0017 for n = 10^4 (0.01 is 6 sigma). */
Test(ic, cube_inside_unit_cube_at_rest)
{
	const size_t n = IC_TEST_BIG_N;
	float *p, *v;
	double sum2 = 0.0;

	ic_test_alloc(n, &p, &v);
	cr_assert(ic_generate(IC_CUBE, n, 1, p, v) == 0);
	for (size_t i = 0; i < n; i++) {
		for (int c = 0; c < 3; c++) {
			cr_assert(p[4 * i + c] >= -1.0f && p[4 * i + c] <= 1.0f,
				  "body %zu coordinate %d = %g", i, c,
				  p[4 * i + c]);
			cr_assert(v[4 * i + c] == 0.0f);
			sum2 += (double)p[4 * i + c] * p[4 * i + c];
		}
		cr_assert(p[4 * i + 3] == (float)(1.0 / n), "mass %g",
			  p[4 * i + 3]);
	}
	cr_assert(fabs(sum2 / (3.0 * n) - 1.0 / 3.0) < 0.01, "<x^2> = %.4f",
		  sum2 / (3.0 * n));
	free(p), free(v);
}

Test(ic, rejects_bad_n)
{
	float p[16] = { 0 }, v[16] = { 0 };
	const float zero[16] = { 0 };

	cr_assert(ic_generate(IC_TWOBODY, 1, 0, p, v) == -1);
	cr_assert(ic_generate(IC_TWOBODY, 3, 0, p, v) == -1);
	cr_assert(ic_generate(IC_TWOBODY, 0, 0, p, v) == -1);
	cr_assert(ic_generate(IC_PLUMMER, 0, 0, p, v) == -1);
	cr_assert(ic_generate(IC_CUBE, 0, 0, p, v) == -1);
	cr_assert(ic_generate((enum ic_kind)99, 2, 0, p, v) == -1);
	cr_assert(memcmp(p, zero, sizeof p) == 0 &&
		  memcmp(v, zero, sizeof v) == 0, "a rejected call wrote");
}

/* One body: Plummer puts it at the centre of mass (origin, at rest). */
Test(ic, single_body_plummer_and_cube)
{
	float p[4], v[4];

	cr_assert(ic_generate(IC_PLUMMER, 1, 5, p, v) == 0);
	for (int c = 0; c < 3; c++)
		cr_assert(p[c] == 0.0f && v[c] == 0.0f, "coordinate %d", c);
	cr_assert(p[3] == 1.0f && v[3] == 0.0f);
	cr_assert(ic_generate(IC_CUBE, 1, 5, p, v) == 0);
	cr_assert(p[3] == 1.0f);
	cr_assert(fabsf(p[0]) <= 1.0f && fabsf(p[1]) <= 1.0f &&
		  fabsf(p[2]) <= 1.0f);
}

/* Circular: each body's centripetal need v^2 / r equals the pull
 * m_other / d^2 (G = 1, eps = 0), both worked out from the arrays. */
Test(ic, twobody_is_circular)
{
	float p[8], v[8];
	double d, r, speed2, pull;

	cr_assert(ic_generate(IC_TWOBODY, 2, 0, p, v) == 0);
	cr_assert(p[3] == 0.5f && p[7] == 0.5f, "masses %g %g", p[3], p[7]);
	cr_assert(p[0] == -0.5f && p[4] == 0.5f);
	d = hypot(p[4] - p[0], hypot(p[5] - p[1], p[6] - p[2]));
	for (int b = 0; b < 2; b++) {
		const float *x = &p[4 * b], *u = &v[4 * b];

		r = hypot(x[0], hypot(x[1], x[2]));
		speed2 = (double)u[0] * u[0] + (double)u[1] * u[1] +
			 (double)u[2] * u[2];
		pull = p[4 * (1 - b) + 3] / (d * d);
		cr_assert(fabs(speed2 / r - pull) < 1e-15,
			  "body %d: v^2/r = %g, pull = %g", b, speed2 / r, pull);
		cr_assert(x[0] * u[0] + x[1] * u[1] + x[2] * u[2] == 0.0f,
			  "body %d velocity not perpendicular to radius", b);
	}
	cr_assert(v[1] + v[5] == 0.0f, "net momentum");
}

/* Centre of mass at the origin, at rest, total mass 1: the floats hold the
 * double shift up to rounding (~1e-7 relative of r ~ 1), while an unshifted
 * sample would be off by r_rms / sqrt(n) ~ 1e-2. */
Test(ic, plummer_centre_of_mass_frame_total_mass)
{
	const size_t n = IC_TEST_BIG_N;
	float *p, *v;
	double mass = 0.0, mx[3] = { 0 }, mv[3] = { 0 };

	ic_test_plummer(n, 2024, &p, &v);
	for (size_t i = 0; i < n; i++) {
		mass += p[4 * i + 3];
		for (int c = 0; c < 3; c++) {
			mx[c] += (double)p[4 * i + 3] * p[4 * i + c];
			mv[c] += (double)p[4 * i + 3] * v[4 * i + c];
		}
		cr_assert(v[4 * i + 3] == 0.0f);
	}
	cr_assert(fabs(mass - 1.0) < 1e-6, "total mass %.9f", mass);
	for (int c = 0; c < 3; c++) {
		cr_assert(fabs(mx[c]) < 1e-6, "centre of mass [%d] = %g", c,
			  mx[c]);
		cr_assert(fabs(mv[c]) < 1e-6, "momentum [%d] = %g", c, mv[c]);
	}
	free(p), free(v);
}

/*
 * Half-mass radius. Untruncated Plummer: r_h = a / sqrt(2^(2/3) - 1) =
 * 1.3048 a. Redrawing r > 10 a keeps the fraction f = (1 + 1/100)^(-3/2)
 * of the mass, so the median is at M(<r)/M = f/2: r_h = 1.2875 a.
 * The sample median of n radii has sigma sqrt(1/4n) / pdf(r_h) where
 * pdf(r) = 3 r^2 (1 + r^2)^(-5/2) / f (units of a): 0.0114 a for
 * n = 10^4, 0.89 %; the 3.5 % band is 4 sigma. Bugs it catches are far
 * larger: a missing 3 pi / 16 scaling moves r_h by 70 %, a wrong exponent
 * in the inversion of M(<r) by tens of per cent.
 */
Test(ic, plummer_half_mass_radius)
{
	const size_t n = IC_TEST_BIG_N;
	const double f = pow(1.0 + 1.0 / (IC_PLUMMER_RMAX * IC_PLUMMER_RMAX),
			     -1.5);
	const double rh_want = 1.0 / sqrt(pow(0.5 * f, -2.0 / 3.0) - 1.0);
	float *p, *v;
	double *r, rh;

	cr_assert(fabs(rh_want - 1.2875) < 1e-4, "expectation %.5f", rh_want);
	ic_test_plummer(n, 2024, &p, &v);
	r = malloc(n * sizeof *r);
	cr_assert(r);
	for (size_t i = 0; i < n; i++) {
		r[i] = ic_test_norm3(p, i) / IC_PLUMMER_SCALE_A;
		/* the centre-of-mass shift moves radii by ~1e-2 at most */
		cr_assert(r[i] < IC_PLUMMER_RMAX + 0.1, "body %zu at %g a",
			  i, r[i]);
	}
	qsort(r, n, sizeof *r, ic_test_cmp_double);
	rh = 0.5 * (r[n / 2 - 1] + r[n / 2]);
	cr_assert(fabs(rh / rh_want - 1.0) < 0.035,
		  "half-mass radius %.4f a, want %.4f a", rh, rh_want);
	/* and, as users quote it, close to the untruncated model's 1.305 a */
	cr_assert(fabs(rh / 1.3048 - 1.0) < 0.035, "half-mass radius %.4f a, not ~1.305 a", rh);
	free(r), free(p), free(v);
}

/*
 * Virial ratio and energy, eps = 0. An untruncated Plummer sphere in Henon
 * units has 2T/|W| = 1 and E = -1/4. Truncation at 10 a (the sample is
 * renormalised to mass 1, velocities still drawn for the full potential)
 * gives, by quadrature of the truncated model, 2T/|W| = 0.9868 and
 * E = -0.2601. Over 40 seeds at n = 10^4 the sample values scatter with
 * sigma 0.008 and 0.0038; the bands are 5 sigma. A wrong velocity scale
 * (sqrt(2), sqrt(16/3pi), the (1+r^2)^(-1/4) law) is off by 20 % or more.
 */
Test(ic, plummer_virial_ratio_and_energy)
{
	const size_t n = IC_TEST_BIG_N;
	struct ref_state s;
	float *p, *v;
	double t, w;

	ic_test_plummer(n, 2024, &p, &v);
	cr_assert(ref_state_init(&s, p, v, n) == 0);
	t = ref_kinetic_energy(&s);
	w = ref_potential_energy(&s, 0.0);
	cr_assert(fabs(2.0 * t / -w - 0.9868) < 0.04, "2T/|W| = %.4f",
		  2.0 * t / -w);
	cr_assert(fabs(t + w + 0.2601) < 0.019, "E = %.4f", t + w);
	ref_state_free(&s);
	free(p), free(v);
}
