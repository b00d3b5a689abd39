/* sph_ref.h - double-precision SPH oracle (Mueller, Charypar & Gross 2003) */
#ifndef SPH_REF_H
#define SPH_REF_H

#include <stddef.h>

/*
 * The physics the GPU variants (Goswami et al. 2010, "Interactive SPH
 * Simulation and Rendering on the GPU") are validated against: the
 * standard formulation of Mueller, Charypar & Gross, "Particle-Based Fluid
 * Simulation for Interactive Applications" (SCA 2003), in 3D, SI units,
 * with equal particle masses m and support radius h (every kernel is zero
 * for r >= h):
 *
 *   density    rho_i = sum_j m W_poly6(r_ij)            (self term j = i
 *                                                        included)
 *   pressure   p_i   = k max(rho_i - rho0, 0)
 *   force      f_i   = - sum_{j != i} m (p_i + p_j) / (2 rho_j)
 *                                      grad W_spiky(x_i - x_j)
 *                      + mu sum_{j != i} m (v_j - v_i) / rho_j
 *                                      lap W_visc(r_ij)
 *   accel.     a_i   = f_i / rho_i + g
 *
 *   W_poly6(r)        =  315 / (64 pi h^9) (h^2 - r^2)^3
 *   grad W_spiky(r)   = -45 / (pi h^6) (h - r)^2 r / |r|
 *   lap W_visc(r)     =  45 / (pi h^6) (h - r)
 *
 * The pressure is Mueller's p = k (rho - rho0) clamped at zero, as
 * weakly compressible SPH codes do (SPlisHSPlasH's TimeStepWCSPH.cpp
 * takes max(rho, rho0) before its equation of state). Why: summed
 * density falls to ~rho0/2 at a free surface and at walls for want of
 * neighbours, and with the stiffness weak compressibility needs
 * (k = 625 m^2/s^2) the unclamped p there is a false tension of
 * ~k rho0 / 2 = 3e5 Pa. Measured on a 12 x 12 x 14 dam break (1000
 * steps): unclamped, the surface layer implodes at ~4e4 m/s^2 in the
 * first step, max speed 16.4 m/s and density +47 %; clamped, 4.5 m/s
 * (free fall from the column height gives 2.3) and +7 %.
 * The pair weights (p_i + p_j) / (rho_i rho_j) and (v_j - v_i) /
 * (rho_i rho_j) are symmetric and antisymmetric, so sum_i m a_i = m g N:
 * pressure and viscosity conserve momentum. Two coincident particles
 * exert no pressure force on each other (r / |r| undefined; zero taken).
 *
 * Integrator: symplectic (semi-implicit) Euler, one force evaluation per
 * step and nothing carried between steps but x and v:
 *   v += a(x) dt;   x += v dt;   then the walls.
 * Walls are reflective, not penalty forces: a coordinate past a wall of
 * the box is put back on the wall and an outward normal velocity v_n is
 * replaced by -e v_n (e = wall_restitution). Why: it keeps every particle
 * inside the box whatever its speed, exactly and in float as in double
 * (a spring-damper wall lets fast particles through and adds a stiffness
 * that would limit dt), and it is three lines any GPU variant can copy.
 *
 * Known artefact of walls without boundary particles: next to a wall a
 * particle lacks the neighbours the wall stands in for, so its density
 * is low, its pressure clamped to zero, and the fluid above packs it
 * against the wall. Water at rest in a box that fits it (8^3 particles)
 * settles by ~30 % of its height within 0.5 s, half its particles ending
 * on a wall plane. Tried instead: the wall as a rest-density half-space
 * adding to density and pressure force; it stopped the packing but made
 * energy (+0.16 to +0.22 M g H in that box) and over-counted corners
 * (+16 % density), so the walls stay plain.
 *
 * Positions and velocities come as the float4 arrays the GPU uses,
 * pos4 = (x, y, z, 0) and vel4 = (vx, vy, vz, 0), and are converted to
 * double exactly, as in the N-body reference.
 */

/* pi, spelt out because strict C11 <math.h> has no M_PI. */
#define SPH_REF_PI 3.14159265358979323846

/*
 * Water as sph_params_water sets it (derivation in sph_ref.c):
 *   SPH_WATER_HMAX  the tallest column the stiffness is sized for [m];
 *   SPH_WATER_C     numerical speed of sound, >= 10 sqrt(2 g HMAX) [m/s];
 *   SPH_WATER_ALPHA Monaghan's artificial-viscosity coefficient alpha
 *                   that mu reproduces: nu = alpha c (h/2) / 10;
 *   SPH_WATER_CFL   dt = CFL h / c.
 */
#define SPH_WATER_RHO0	1000.0
#define SPH_WATER_G	9.81
#define SPH_WATER_HMAX	0.3
#define SPH_WATER_C	25.0
#define SPH_WATER_ALPHA	0.1
#define SPH_WATER_CFL	0.2

struct sph_params {
	double spacing;		/* initial particle spacing d [m] */
	double rho0;		/* rest density [kg/m^3] */
	double mass;		/* mass of every particle [kg] */
	double h;		/* support radius [m] */
	double k;		/* p = k max(rho - rho0, 0) [m^2/s^2] */
	double mu;		/* dynamic viscosity [Pa s] */
	double dt;		/* time step [s] */
	double gravity[3];	/* [m/s^2] */
	double box_lo[3];	/* walls [m]; +-HUGE_VAL: no wall */
	double box_hi[3];
	double wall_restitution; /* e in [0, 1]: outward v_n -> -e v_n */
};

/*
 * sum_n W_poly6(|n| spacing) over the nodes n of the infinite cubic
 * lattice (self included): the density of a lattice of unit masses.
 * Times spacing^3 it is 1.0098 at h = 2 spacing.
 */
double sph_ref_lattice_sum(double spacing, double h);

/*
 * The water parameter set for particle spacing d > 0: rho0 = 1000,
 * h = 2 d, m = rho0 / sph_ref_lattice_sum(d, h) (a lattice of spacing d
 * is at rest density; m = 0.9903 rho0 d^3), k = SPH_WATER_C^2, mu from
 * SPH_WATER_ALPHA, dt = SPH_WATER_CFL h / SPH_WATER_C, gravity
 * (0, 0, -9.81), restitution 0.5 and no walls (box +-HUGE_VAL: the scene
 * sets them). The numbers and where they come from are in sph_ref.c.
 */
void sph_params_water(struct sph_params *p, double spacing);

/* W_poly6 at squared distance r2 (zero for r2 >= h^2). */
double sph_ref_poly6(double r2, double h);

/* dW_spiky/dr = -45 / (pi h^6) (h - r)^2 for r < h, else 0; the gradient
 * is this times the unit vector r / |r|. */
double sph_ref_spiky_dwdr(double r, double h);

/* lap W_visc = 45 / (pi h^6) (h - r) for r < h, else 0. */
double sph_ref_visc_lap(double r, double h);

/*
 * Neighbour lists in CSR form: the neighbours of particle i are
 * idx[off[i] .. off[i+1]), in ascending order: every j != i with
 * |x_j - x_i|^2 < h^2, the squared distance computed as
 * dx*dx + dy*dy + dz*dz with dx = x_j - x_i. That one expression decides
 * every pair in both builders below, and it is symmetric bit for bit, so
 * j is a neighbour of i exactly when i is one of j; pairs at r >= h are
 * left out (the kernels are zero there anyway). pairs = off[n] counts
 * ordered pairs: each neighbouring couple twice.
 */
struct sph_nbr_list {
	size_t n;
	size_t pairs;
	size_t *off;		/* n + 1 */
	size_t *idx;		/* pairs */
};

/* Free the arrays of nl (safe on a zeroed or freed list). */
void sph_nbr_list_free(struct sph_nbr_list *nl);

/*
 * Build nl for the n positions x[3n] by checking all n (n - 1) pairs:
 * O(n^2), for tests. Replaces what nl held (it must be zeroed or a valid
 * list). Returns 0, or -1 on allocation failure (nl then empty).
 */
int sph_ref_neighbours_brute(const double *x, size_t n, double h,
			     struct sph_nbr_list *nl);

/*
 * Uniform grid over the bounding box of the particles, cells of side
 * h (1 + SPH_REF_GRID_MARGIN), particles sorted by cell (counting sort,
 * ascending index within a cell). The margin makes the cell a little
 * larger than h so that rounding in floor((x - lo) / cell) cannot put
 * two particles closer than h two cells apart: the computed (x - lo) /
 * cell is off by at most ~2^-51 times the cells per side (at most 2^21),
 * some 1e-9, while two such particles are 1e-6 short of a cell apart.
 */
#define SPH_REF_GRID_MARGIN 1e-6
#define SPH_REF_GRID_MAX_SIDE (1 << 21)
#define SPH_REF_GRID_MAX_CELLS ((size_t)1 << 27)

struct sph_ref_grid {
	double lo[3];		/* smallest coordinates of the particles */
	double cell;		/* side of a cell */
	int dim[3];		/* cells per side */
	size_t ncells;
	size_t *start;		/* ncells + 1: cell c holds */
	size_t *order;		/*   order[start[c] .. start[c+1]) */
};

/*
 * Sort the n positions x[3n] into a grid for support radius h > 0.
 * Returns 0, or -1 (g then empty) when a coordinate is not finite, the
 * grid would need more than SPH_REF_GRID_MAX_SIDE cells a side or
 * SPH_REF_GRID_MAX_CELLS in all, or memory runs out.
 */
int sph_ref_grid_build(struct sph_ref_grid *g, const double *x, size_t n,
		       double h);

/* The cell coordinates of position xi (clamped into the grid). */
void sph_ref_grid_cell(const struct sph_ref_grid *g, const double xi[3],
		       int c[3]);

/* Linear index of cell (cx, cy, cz): cx + dim[0] (cy + dim[1] cz). */
size_t sph_ref_grid_index(const struct sph_ref_grid *g, int cx, int cy,
			  int cz);

/* Free the arrays of g (safe on a zeroed or freed grid). */
void sph_ref_grid_free(struct sph_ref_grid *g);

/*
 * Build nl with a grid: the candidates of i are the particles in the 27
 * cells around its own. Same lists as sph_ref_neighbours_brute, element
 * for element; nl as there. Returns 0, or -1 as sph_ref_grid_build does
 * (nl then empty).
 */
int sph_ref_neighbours_grid(const double *x, size_t n, double h,
			    struct sph_nbr_list *nl);

/*
 * Densities and pressures of the nl->n particles at x[3n]:
 * rho[i] = m W_poly6(0) + sum over the list of m W_poly6(r_ij),
 * pres[i] = k max(rho[i] - rho0, 0). Sums run in list order, so the
 * result is reproducible bit for bit.
 */
void sph_ref_density(const struct sph_params *p, const double *x,
		     const struct sph_nbr_list *nl, double *rho,
		     double *pres);

/*
 * Accelerations acc[3n] = (pressure + viscosity forces) / rho_i + gravity
 * from positions x, velocities v, and the rho, pres of sph_ref_density.
 */
void sph_ref_forces(const struct sph_params *p, const double *x,
		    const double *v, const double *rho, const double *pres,
		    const struct sph_nbr_list *nl, double *acc);

/* Symplectic Euler with reflective walls: v += acc dt; x += v dt; then
 * clamp into the box, reflecting outward normal velocities. */
void sph_ref_integrate(const struct sph_params *p, size_t n,
		       const double *acc, double *x, double *v);

/* A fluid integrated in double. rho, pres, acc and nbrs are those of the
 * positions at the start of the last step (what that step used). */
struct sph_ref_state {
	size_t n;
	double *x;		/* 3n */
	double *v;		/* 3n */
	double *rho;		/* n */
	double *pres;		/* n */
	double *acc;		/* 3n */
	struct sph_nbr_list nbrs;
};

/*
 * Convert pos4 (and vel4, or zero velocities when vel4 == NULL) to double
 * into a new state; rho, pres, acc zeroed, no neighbours yet. Returns 0,
 * or -1 on allocation failure (nothing leaked, *s holds NULL pointers).
 */
int sph_ref_state_init(struct sph_ref_state *s, const float *pos4,
		       const float *vel4, size_t n);

/* Free the arrays of s (safe on a state whose init failed). */
void sph_ref_state_free(struct sph_ref_state *s);

/* Neighbours (grid), densities, pressures and accelerations of the
 * current x, v. Returns 0, or -1 when the grid cannot be built (see
 * sph_ref_grid_build; nbrs is then empty, the rest unchanged). */
int sph_ref_evaluate(struct sph_ref_state *s, const struct sph_params *p);

/* One step: sph_ref_evaluate, then sph_ref_integrate. Returns 0, or -1
 * as sph_ref_evaluate does (x and v then unchanged). */
int sph_ref_step(struct sph_ref_state *s, const struct sph_params *p);

/* What a run is checked by. A free surface lowers rho to ~rho0 / 2 (a
 * lone droplet to 0.2 rho0), so compression, rho_max / rho0 - 1, is the
 * density error to watch. */
struct sph_ref_stats {
	double rho_min, rho_max, rho_mean;	/* of s->rho */
	double speed_max;			/* max |v_i| */
	size_t outside;		/* particles outside the closed box */
	size_t nonfinite;	/* particles with a NaN or inf in x or v */
};

void sph_ref_stats(const struct sph_ref_state *s, const struct sph_params *p,
		   struct sph_ref_stats *st);

/* Total momentum m sum_i v_i. */
void sph_ref_momentum(const struct sph_ref_state *s,
		      const struct sph_params *p, double mom[3]);

#endif /* SPH_REF_H */
