/* sph_consts.c - the SPH parameters as every float variant uses them */
#include "sph_physics.h"

#include <stdio.h>

/* The smallest float >= v, and the largest <= v (v not NaN; an open
 * side, +-inf, stays infinite, so that a particle flung to infinity is
 * caught as non-finite rather than clamped): the box rounded inward, so
 * a clamped particle is inside the box in double too. */
static float sph_float_at_least(double v)
{
	if (fabs(v) > FLT_MAX)
		return v > 0.0 || isinf(v) ? (float)v : -FLT_MAX;
	const float f = (float)v;
	return (double)f < v ? nextafterf(f, INFINITY) : f;
}

static float sph_float_at_most(double v)
{
	if (fabs(v) > FLT_MAX)
		return v < 0.0 || isinf(v) ? (float)v : FLT_MAX;
	const float f = (float)v;
	return (double)f > v ? nextafterf(f, -INFINITY) : f;
}

int sph_consts_init(struct sph_consts *c, const struct sph_params *p, const char *name,
		    char *err, size_t errlen)
{
	const double h = p->h, h3 = h * h * h;

	if (!(h > 0.0 && isfinite(h) && p->mass > 0.0 && isfinite(p->mass) && p->dt > 0.0 &&
	      isfinite(p->dt))) {
		snprintf(err, errlen, "%s: h = %g, mass = %g, dt = %g: all must be finite and > 0",
			 name, h, p->mass, p->dt);
		return -1;
	}
	for (int d = 0; d < 3; d++) {
		if (!(fabs(p->gravity[d]) <= FLT_MAX) || isnan(p->box_lo[d]) ||
		    isnan(p->box_hi[d]) || p->box_lo[d] > p->box_hi[d]) {
			snprintf(err, errlen, "%s: gravity[%d] = %g, box %g .. %g: gravity must be a "
				 "finite float, the box not NaN and not inverted", name, d,
				 p->gravity[d], p->box_lo[d], p->box_hi[d]);
			return -1;
		}
	}
	c->h = (float)h;
	c->h2 = (float)(h * h);
	c->inv_h2 = (float)(1.0 / (h * h));
	c->c_rho = (float)(p->mass * 315.0 / (64.0 * SPH_REF_PI * h3));
	c->c_force = (float)(p->mass * 45.0 / (SPH_REF_PI * h3 * h3));
	c->mu2 = (float)(2.0 * p->mu);
	c->fw = (float)p->wall_friction;
	c->rho0 = (float)p->rho0;
	c->k = (float)p->k;
	c->dt = (float)p->dt;
	c->e = (float)p->wall_restitution;
	for (int d = 0; d < 3; d++) {
		c->g[d] = (float)p->gravity[d];
		c->g2[d] = (float)(2.0 * p->gravity[d]);
		c->box_lo[d] = sph_float_at_least(p->box_lo[d]);
		c->box_hi[d] = sph_float_at_most(p->box_hi[d]);
	}
	const float all[11] = { c->h,  c->h2, c->inv_h2, c->c_rho, c->c_force, c->mu2,
				c->fw, c->rho0, c->k,	   c->dt,    c->e };
	for (int k = 0; k < 11; k++) {
		if (!isfinite(all[k]) || (k < 5 && !(all[k] > 0.0f)) || all[k] < 0.0f) {
			snprintf(err, errlen, "%s: the parameters (h = %g, mass = %g, k = %g, mu = %g, "
				 "wall friction %g) leave float range or are negative", name, h,
				 p->mass, p->k, p->mu, p->wall_friction);
			return -1;
		}
	}
	return 0;
}

size_t sph_first_nonfinite(const float *pos4, const float *vel4, size_t n)
{
	for (size_t i = 0; i < n; i++)
		for (int d = 0; d < 3; d++)
			if (!isfinite(pos4[4 * i + d]) || (vel4 && !isfinite(vel4[4 * i + d])))
				return i;
	return n;
}
