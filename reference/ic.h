/* ic.h - initial conditions: Plummer sphere, uniform cube, circular binary */
#ifndef IC_H
#define IC_H

#include <stddef.h>
#include <stdint.h>

enum ic_kind {
	IC_PLUMMER,	/* Plummer sphere, Henon units (G = M = 1, E = -1/4) */
	IC_CUBE,	/* uniform in [-1,1]^3, at rest */
	IC_TWOBODY,	/* equal-mass circular binary, separation 1, period 2 pi */
	IC_KIND_COUNT
};

/* pi, spelt out because strict C11 <math.h> has no M_PI. */
#define IC_PI 3.14159265358979323846

/* Plummer scale length a in standard (Henon) units: 3 pi / 16. */
#define IC_PLUMMER_SCALE_A (3.0 * IC_PI / 16.0)

/*
 * Radii beyond this many scale lengths are rejected and redrawn, as is
 * customary (Aarseth's codes) to avoid a few absurdly distant bodies; it
 * removes 1 - (1 + 1/10^2)^(-3/2) = 1.48 % of the mass distribution, which
 * moves the half-mass radius from 1.3048 a to 1.2875 a.
 */
#define IC_PLUMMER_RMAX 10.0

/*
 * Fill pos4 (x, y, z, mass) and vel4 (vx, vy, vz, 0), 4n floats each,
 * deterministically from seed; total mass is 1 and each mass is 1/n.
 *   plummer: Aarseth, Henon & Wielen (1974) sampling, centre-of-mass frame.
 *   cube:    positions uniform in [-1,1]^3, zero velocities.
 *   twobody: masses 0.5 at (-0.5,0,0) and (0.5,0,0), velocities (0,-0.5,0)
 *            and (0,0.5,0): a circular orbit for eps = 0 (seed unused).
 *            With softening eps the circular speed would be
 *            0.5 (1 + eps^2)^(-3/4); this kind stays the eps = 0 orbit.
 * Returns 0, or -1 (writing nothing) when n is not allowed for the kind
 * (every kind needs n >= 1, twobody needs n == 2), kind is unknown, or
 * (plummer) scratch memory cannot be allocated.
 */
int ic_generate(enum ic_kind kind, size_t n, uint64_t seed,
		float *pos4, float *vel4);

/* "plummer", "cube", "twobody"; NULL for an unknown kind. */
const char *ic_kind_name(enum ic_kind kind);

/* Set *out to the kind named name (as ic_kind_name spells it).
 * Returns 0, or -1 (leaving *out alone) for an unknown or NULL name. */
int ic_kind_parse(const char *name, enum ic_kind *out);

#endif /* IC_H */
