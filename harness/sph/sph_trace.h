/* sph_trace.h - one particle of a flow looked at closely: where it is against the walls, its neighbours, which force drives it */
#ifndef HARNESS_SPH_TRACE_H
#define HARNESS_SPH_TRACE_H

#include <stddef.h>

#include "../../reference/sph_ref.h"

/*
 * What drives particle i of a flow (the leak check's fastest particle at
 * a look): its place against the box's walls and corners, its nearest
 * fluid and boundary particles, its neighbours, and its acceleration
 * split into the terms of reference/sph_ref.h, each evaluated in double
 * by the reference on the particles within 2 h of it (its neighbours'
 * densities need theirs) and the boundary particles within 3 h (their
 * psi needs theirs):
 *
 *   fluid pressure and fluid viscosity: sph_ref_forces without the wall
 *   with mu = 0, and the rest of it; wall pressure (the boundary's
 *   repulsion) and wall viscosity (its friction): the wall's share, with
 *   mu = 0 and the rest; gravity.
 *
 * Distances are in units of h, the support radius.
 */
enum { SPH_TRACE_FLUID_PRESSURE, SPH_TRACE_FLUID_VISCOSITY, SPH_TRACE_WALL_PRESSURE,
       SPH_TRACE_WALL_VISCOSITY, SPH_TRACE_GRAVITY, SPH_TRACE_TERMS };

struct sph_trace {
	size_t i;		/* the particle */
	double x[3], speed;	/* its position [m] and speed [m/s] */
	double wall_h;		/* to the nearest face of the box, / h */
	int walls_near;		/* faces within h: 0 bulk, 1 a wall, 2 an edge, 3 a corner */
	double fluid_h, boundary_h; /* to the nearest fluid and boundary particle, / h */
	size_t fluid_nbrs, boundary_nbrs; /* within h */
	double rho_rel;		/* its density / rho0 */
	double acc[SPH_TRACE_TERMS][3]; /* each term's share of its acceleration [m/s^2] */
	double acc_total[3];	/* their sum: the reference's acceleration */
	int dominant;		/* the term of the largest magnitude */
};

/* Names of the terms ("fluid_pressure", ...), for rows. */
extern const char *const sph_trace_term_names[SPH_TRACE_TERMS];

/* Traces particle i of the n fluid particles pos4, vel4 among the nb
 * boundary particles bnd4 under p. 0, or -1 when memory ran out or the
 * reference could not run. */
int sph_trace_particle(const struct sph_params *p, const float *pos4, const float *vel4, size_t n,
		       const float *bnd4, size_t nb, size_t i, struct sph_trace *out);

#endif
