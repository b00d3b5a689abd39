/* ic.c - initial conditions: Plummer sphere, uniform cube, circular binary */
#include "ic.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rng.h"

static const char *const ic_names[IC_KIND_COUNT] = {
	[IC_PLUMMER] = "plummer",
	[IC_CUBE] = "cube",
	[IC_TWOBODY] = "twobody",
};

const char *ic_kind_name(enum ic_kind kind)
{
	if ((unsigned)kind >= IC_KIND_COUNT)
		return NULL;
	return ic_names[kind];
}

int ic_kind_parse(const char *name, enum ic_kind *out)
{
	if (!name)
		return -1;
	for (int k = 0; k < IC_KIND_COUNT; k++) {
		if (strcmp(name, ic_names[k]) == 0) {
			*out = (enum ic_kind)k;
			return 0;
		}
	}
	return -1;
}

/* A vector of length len in a uniformly random direction (z uniform in
 * [-1,1] and azimuth uniform is uniform on the sphere). */
static void ic_isotropic(struct rng *r, double len, double out[3])
{
	const double z = 2.0 * rng_uniform(r) - 1.0;
	const double phi = 2.0 * IC_PI * rng_uniform(r);
	const double rho = sqrt(1.0 - z * z);

	out[0] = len * rho * cos(phi);
	out[1] = len * rho * sin(phi);
	out[2] = len * z;
}

/* Plummer radius in units of a: invert the cumulative mass
 * M(<r) = r^3 / (1 + r^2)^(3/2) at a uniform X1, redrawing r > RMAX. */
static double ic_plummer_radius(struct rng *r)
{
	double x1, rad;

	do {
		do
			x1 = rng_uniform(r);
		while (x1 == 0.0);	/* pow(0, -2/3) would be inf */
		rad = 1.0 / sqrt(pow(x1, -2.0 / 3.0) - 1.0);
	} while (rad > IC_PLUMMER_RMAX);
	return rad;
}

/* Speed at radius rad (units a = G = M = 1): the fraction q of the escape
 * speed sqrt(2) (1 + r^2)^(-1/4) has density g(q) = q^2 (1 - q^2)^(7/2),
 * sampled by von Neumann rejection under 0.1 > max g = 0.0922. */
static double ic_plummer_speed(struct rng *r, double rad)
{
	double q, y;

	do {
		q = rng_uniform(r);
		y = 0.1 * rng_uniform(r);
	} while (y > q * q * pow(1.0 - q * q, 3.5));
	return q * sqrt(2.0) * pow(1.0 + rad * rad, -0.25);
}

/* Subtract the mass-weighted mean of v[3n] (equal masses: the plain mean). */
static void ic_remove_mean(double *v, size_t n)
{
	double mean[3] = { 0.0, 0.0, 0.0 };

	for (size_t i = 0; i < n; i++)
		for (int c = 0; c < 3; c++)
			mean[c] += v[3 * i + c];
	for (size_t i = 0; i < n; i++)
		for (int c = 0; c < 3; c++)
			v[3 * i + c] -= mean[c] / (double)n;
}

/* Round the double state to float4 arrays, mass 1/n each. */
static void ic_store(const double *x, const double *v, size_t n,
		     float *pos4, float *vel4)
{
	for (size_t i = 0; i < n; i++) {
		for (int c = 0; c < 3; c++) {
			pos4[4 * i + c] = (float)x[3 * i + c];
			vel4[4 * i + c] = (float)v[3 * i + c];
		}
		pos4[4 * i + 3] = (float)(1.0 / (double)n);
		vel4[4 * i + 3] = 0.0f;
	}
}

/*
 * Aarseth, Henon & Wielen (1974): sample in units G = M = a = 1, then
 * scale to Henon units (a = 3 pi / 16, velocities by sqrt(16 / (3 pi)))
 * and move to the centre-of-mass frame, all in double.
 * Returns 0, or -1 on allocation failure.
 */
static int ic_plummer(size_t n, uint64_t seed, float *pos4, float *vel4)
{
	const double vscale = sqrt(16.0 / (3.0 * IC_PI));
	struct rng r;
	double *x, *v;

	x = malloc(3 * n * sizeof *x);
	v = malloc(3 * n * sizeof *v);
	if (!x || !v)
		goto out_free;

	rng_seed(&r, seed);
	for (size_t i = 0; i < n; i++) {
		const double rad = ic_plummer_radius(&r);
		const double speed = ic_plummer_speed(&r, rad);

		ic_isotropic(&r, rad * IC_PLUMMER_SCALE_A, &x[3 * i]);
		ic_isotropic(&r, speed * vscale, &v[3 * i]);
	}
	ic_remove_mean(x, n);
	ic_remove_mean(v, n);
	ic_store(x, v, n, pos4, vel4);
	free(x);
	free(v);
	return 0;

out_free:
	free(x);
	free(v);
	return -1;
}

/* Positions uniform in [-1,1]^3, at rest. */
static void ic_cube(size_t n, uint64_t seed, float *pos4, float *vel4)
{
	struct rng r;

	rng_seed(&r, seed);
	for (size_t i = 0; i < n; i++) {
		for (int c = 0; c < 3; c++) {
			pos4[4 * i + c] = (float)(2.0 * rng_uniform(&r) - 1.0);
			vel4[4 * i + c] = 0.0f;
		}
		pos4[4 * i + 3] = (float)(1.0 / (double)n);
		vel4[4 * i + 3] = 0.0f;
	}
}

/*
 * Relative orbit of separation d = 1 and total mass 1 has circular speed
 * sqrt(G M / d) = 1, so each body moves at 0.5 about the centre of mass;
 * the period is 2 pi sqrt(d^3 / (G M)) = 2 pi.
 */
static void ic_twobody(float *pos4, float *vel4)
{
	static const float p[8] = { -0.5f, 0.0f, 0.0f, 0.5f,
				    0.5f, 0.0f, 0.0f, 0.5f };
	static const float v[8] = { 0.0f, -0.5f, 0.0f, 0.0f,
				    0.0f, 0.5f, 0.0f, 0.0f };

	memcpy(pos4, p, sizeof p);
	memcpy(vel4, v, sizeof v);
}

int ic_generate(enum ic_kind kind, size_t n, uint64_t seed,
		float *pos4, float *vel4)
{
	if (n < 1)
		return -1;
	switch (kind) {
	case IC_PLUMMER:
		return ic_plummer(n, seed, pos4, vel4);
	case IC_CUBE:
		ic_cube(n, seed, pos4, vel4);
		return 0;
	case IC_TWOBODY:
		if (n != 2)
			return -1;
		ic_twobody(pos4, vel4);
		return 0;
	default:
		return -1;
	}
}
