/* sph_physics_checks.h - the checks of sph physics: the SPH water against experiment and known answers */
#ifndef HARNESS_SPH_PHYSICS_CHECKS_H
#define HARNESS_SPH_PHYSICS_CHECKS_H

#include <stddef.h>

/*
 * Two checks of what an SPH variant's water does over time (the
 * validation of `sph check` judges one step's arithmetic; these judge the
 * physics it adds up to):
 *
 *   dambreak  the column of Martin and Moyce (1952), height 2 x width,
 *             collapses; its surge front Z = z / a and residual height
 *             H / (n^2 a) against T = t sqrt(2 g / a) are compared with
 *             their tabulated points (results/published/
 *             martin_moyce1952.csv), as published validations compare
 *             them:
 *             - surge_front: the simulated front at T against the
 *               experiment at T + SPH_PHYSICS_TIME_CORRECTION (the
 *               experiment's release was not instantaneous; the constant
 *               is that of the Martin and Moyce example of the VOF code
 *               Lethe, results/published/lethe_dambreak.csv, never
 *               fitted to a run), within SPH_PHYSICS_SURGE_TOL for
 *               simulated T in [1, 3];
 *             - surge_speed: the least-squares slope of Z against T over
 *               the experiment's points with T in [SPH_PHYSICS_SPEED_T_LO,
 *               SPH_PHYSICS_T_HI] and of the simulated front at the same
 *               T, within SPH_PHYSICS_SURGE_TOL of each other;
 *             - residual_height: at the experiment's T, within
 *               SPH_PHYSICS_SURGE_TOL for T in [1, 3];
 *             - surge_front_uncorrected: the front at the experiment's T,
 *               shown (the lead the correction accounts for), not judged.
 *   rest      water at rest in a box that fits it (no jitter) for one
 *             second: its height within SPH_PHYSICS_REST_TOL of the start
 *             and the mean density of its bulk within SPH_PHYSICS_REST_TOL
 *             of rho0, at every sample (the densest particle is shown,
 *             not judged: the floor's hydrostatic compression, sph_physics.c
 *             rest_sample). The second
 *             starts from the column relaxed by kinetic damping (runs of
 *             SPH_PHYSICS_RELAX_CYCLE_S, each from the positions the last
 *             reached at zero velocity, SPH_PHYSICS_RELAX_S in all): the
 *             lattice at uniform density is not the discrete rest state.
 *             Its free surface lacks neighbours above, reads ~0.5 rho0,
 *             has no pressure under the clamped equation of state and
 *             settles into the layers below until they carry it: by
 *             ~0.4 d (measured in the reference on 8 x 8 x 8: -5 % of H
 *             over 2.5 s, then still), while the column is compressed
 *             by 2 g H / c^2 at the floor (Mueller's symmetric pressure
 *             force carries half the gradient, sph_ref.h). The relaxed
 *             height over the lattice's is a row of its own
 *             (rest_relaxed_height), shown, not judged.
 *   leak      the dam break of each of the leak columns (the paper's
 *             16,128, 75,200 and 255,600 by default) through the impact
 *             on the far wall and the slosh back, at least
 *             SPH_PHYSICS_LEAK_MIN_S seconds of flow: walls that hold
 *             need no last-resort clamp (leak_clamps, the coordinates it
 *             put back, 0) and keep every particle in the box at every
 *             look, each SPH_PHYSICS_LEAK_DT s (leak_outside, the most
 *             outside at one look, 0), with a time step within Monaghan's
 *             conditions for the fastest and the most accelerated
 *             particle seen at a look: the CFL number dt (c + v) / (h / 2)
 *             at most 0.4 and the force number dt sqrt(a / (h / 2)) at
 *             most 0.25 (h / 2 the smoothing length). Each look is also
 *             a row per curve (leak_*_curve: the water's centre along the
 *             tank, the clamps so far, the particles outside, the two
 *             step numbers), drawn by plots/sph-leak.gp. Options: --leak-columns, --lid, a
 *             box closed by boundary particles; --wall-height, the walls'
 *             height over the column's; --wall-layers, planes per wall.
 */
#define SPH_PHYSICS_RELAX_S		3.0
#define SPH_PHYSICS_RELAX_CYCLE_S	0.05
#define SPH_PHYSICS_SURGE_TOL	0.10
#define SPH_PHYSICS_REST_TOL	0.01
#define SPH_PHYSICS_LEAK_MIN_S	3.0	/* seconds of flow, at least */
#define SPH_PHYSICS_T_LO	1.0	/* the judged range of T */
#define SPH_PHYSICS_T_HI	3.0
#define SPH_PHYSICS_SPEED_T_LO	1.5	/* the front's speed: slope over [1.5, 3] */
#define SPH_PHYSICS_TIME_CORRECTION 0.175 /* added to the simulated T (Lethe) */

/* One experimental point: T = t sqrt(2 g / a) and the value there. */
struct sph_physics_point {
	double T, value;
};

/* The points of Martin and Moyce (1952), n^2 = 2, as in
 * results/published/martin_moyce1952.csv: surge front Z (Table 2) and
 * residual height H / (n^2 a) (Table 6, its tau = t sqrt(g / a) times
 * sqrt 2). Sets *count. */
const struct sph_physics_point *sph_physics_mm_front(size_t *count);
const struct sph_physics_point *sph_physics_mm_height(size_t *count);

/* The simulated curve (T[k], y[k]), k < m, T ascending, at T: linear
 * interpolation; NAN outside [T[0], T[m - 1]]. */
double sph_physics_interp(const double *T, const double *y, size_t m, double at);

/* The least-squares slope of y against x over the n points whose x lies
 * in [lo, hi] and whose y is finite; NAN with fewer than two such points
 * or no spread in x. */
double sph_physics_slope(const double *x, const double *y, size_t n, double lo, double hi);

/* The front's speed check: the slope of the experiment's points pts (T
 * in [SPH_PHYSICS_SPEED_T_LO, SPH_PHYSICS_T_HI]) into *meas and that of
 * the simulated front (T[k], front[k]), k < m, at the same T into *sim. */
void sph_physics_front_speed(const double *T, const double *front, size_t m,
			     const struct sph_physics_point *pts, size_t npts, double *sim,
			     double *meas);

#endif
