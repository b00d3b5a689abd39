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
 * Walls (Akinci, Ihmsen, Akinci, Solenthaler and Teschner 2012,
 * "Versatile rigid-fluid coupling for incompressible SPH", SIGGRAPH):
 * static boundary particles b sampled on the walls, each with the
 * volume-based mass
 *   psi_b = rho0 V_b,   V_b = 1 / sum_k W_poly6(x_b - x_k)
 * over the boundary particles k within h (b itself included), so that a
 * densely sampled corner weighs no more than a plane. They add to the
 * density of fluid particles and push them with the pressure of the
 * fluid mirrored onto the boundary particle (the boundary taking the
 * fluid particle's own rho_i), extrapolated hydrostatically to it:
 *   rho_i += sum_b psi_b W_poly6(r_ib)
 *   p_b|i  = max(p_i + 2 rho_i g . (x_b - x_i), 0)
 *   f_i   += - sum_b psi_b (p_i + p_b|i) / (2 rho_i) grad W_spiky(x_i - x_b)
 *          + mu f_w sum_b psi_b (0 - v_i) / rho_i lap W_visc(r_ib)
 * the last line being friction with a wall at rest, the fluid's own
 * viscosity times f_w = wall_friction (0: free slip, 1: as if the wall
 * were fluid at rest). Boundary particles never move and have no
 * density of their own; only fluid-boundary pairs matter.
 * Why the extrapolation: Mueller's symmetric (p_i + p_j) / 2 gives half
 * the pressure gradient (sum_j V_j (p_i + p_j) / 2 grad W = grad p / 2
 * inside the fluid, so still water has grad p = 2 rho g), and a particle
 * next to a wall sees only the fluid half of its neighbourhood: with
 * Akinci's plain mirror p_b = p_i the walls supply no vertical gradient,
 * and the water along a vertical wall lacks ~0.2 g of support, slides
 * down the wall and turns the still water over (measured: the wall layer
 * sank 4 % of the height in 1 s, the interior rose). Extrapolating p_b
 * with the still-water law, as Adami, Hu and Adams (2012, "A generalized
 * wall boundary condition for smoothed particle hydrodynamics", JCP 231)
 * do for their wall pressure, restores most of it (the wall then lacks
 * ~0.03 g); clamping at 0 keeps the walls from pulling, as the clamped
 * equation of state does.
 *
 * Integrator: symplectic (semi-implicit) Euler, one force evaluation per
 * step and nothing carried between steps but x and v:
 *   v += a(x) dt;   x += v dt;   then the clamp.
 * The boundary particles keep the fluid off the walls; as a last resort
 * against tunnelling a coordinate that still passes a wall plane is put
 * back on it and an outward normal velocity v_n replaced by -e v_n
 * (e = wall_restitution). Every such clamp is counted
 * (sph_ref_state.clamps): in the scenes of reference/sph_scene.c, whose
 * walls are lined with boundary particles, it does not fire (tested).
 * Without boundary particles (nb = 0) the clamp is the wall, as in the
 * first version of this harness, whose artefact it was that fluid packs
 * against such walls (a particle there lacks the neighbours the wall
 * stands in for).
 *
 * Positions and velocities come as the float4 arrays the GPU uses,
 * pos4 = (x, y, z, 0) and vel4 = (vx, vy, vz, 0), and are converted to
 * double exactly, as in the N-body reference.
 */

/* pi, spelt out because strict C11 <math.h> has no M_PI. */
#define SPH_REF_PI 3.14159265358979323846

/*
 * Water as sph_params_water sets it (derivation in sph_ref.c):
 *   SPH_WATER_C     numerical speed of sound at least [m/s];
 *   SPH_WATER_MACH  c >= sqrt(2 g H) / this for a column H tall: the
 *                   fastest water, falling from the top, stays at
 *                   Mach 0.1;
 *   SPH_WATER_ALPHA Monaghan's artificial-viscosity coefficient alpha
 *                   that mu reproduces: nu = alpha c (h/2) / 10;
 *   SPH_WATER_CFL   dt = CFL h / c;
 *   SPH_WATER_FRICTION  wall_friction (see the walls above).
 */
#define SPH_WATER_RHO0	1000.0
#define SPH_WATER_G	9.81
#define SPH_WATER_C	25.0
#define SPH_WATER_MACH	0.1
#define SPH_WATER_ALPHA	0.1
#define SPH_WATER_CFL	0.2
#define SPH_WATER_FRICTION 0.0

struct sph_params {
	double spacing;		/* initial particle spacing d [m] */
	double rho0;		/* rest density [kg/m^3] */
	double mass;		/* mass of every fluid particle [kg] */
	double h;		/* support radius [m] */
	double k;		/* p = k max(rho - rho0, 0) [m^2/s^2] */
	double mu;		/* dynamic viscosity [Pa s] */
	double dt;		/* time step [s] */
	double gravity[3];	/* [m/s^2] */
	double box_lo[3];	/* walls [m]; +-HUGE_VAL: no wall */
	double box_hi[3];
	double wall_restitution; /* e in [0, 1]: outward v_n -> -e v_n */
	double wall_friction;	/* f_w >= 0: boundary viscosity / mu */
};

/*
 * sum_n W_poly6(|n| spacing) over the nodes n of the infinite cubic
 * lattice (self included): the density of a lattice of unit masses.
 * Times spacing^3 it is 1.0098 at h = 2 spacing.
 */
double sph_ref_lattice_sum(double spacing, double h);

/*
 * The water parameter set for particle spacing d > 0 and columns up to
 * height > 0 metres tall: rho0 = 1000, h = 2 d, m = rho0 /
 * sph_ref_lattice_sum(d, h) (a lattice of spacing d is at rest density;
 * m = 0.9903 rho0 d^3), k = c^2 with c = max(SPH_WATER_C,
 * sqrt(2 g height) / SPH_WATER_MACH), mu from SPH_WATER_ALPHA, dt =
 * SPH_WATER_CFL h / c, gravity (0, 0, -9.81), restitution 0.5, friction
 * SPH_WATER_FRICTION and no walls (box +-HUGE_VAL: the scene sets them).
 * The numbers and where they come from are in sph_ref.c.
 */
void sph_params_water(struct sph_params *p, double spacing, double height);

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

/* The band around the support radius where float rounding decides which
 * side of h a pair falls on: a float variant computes r^2 / h^2 to about
 * 1e-5, so for pairs with |r^2 / h^2 - 1| <= SPH_H_BAND its neighbour
 * test may differ from the reference's in double (validation forgives
 * exactly those pairs; reasoning in harness/sph/sph_validate.c). */
#define SPH_H_BAND 1e-4

/* Pairs of point xi with the targets y[3 m] that grid g was built over
 * (index self left out; (size_t)-1: none) whose r^2 lies within the band
 * |r^2 / h^2 - 1| <= band: the pairs whose side of h float rounding may
 * decide (SPH_H_BAND above). */
unsigned long long sph_ref_grid_band_pairs(const struct sph_ref_grid *g, const double *y,
					   const double xi[3], size_t self, double h, double band);

/*
 * Build nl with a grid: the candidates of i are the particles in the 27
 * cells around its own. Same lists as sph_ref_neighbours_brute, element
 * for element; nl as there. Returns 0, or -1 as sph_ref_grid_build does
 * (nl then empty).
 */
int sph_ref_neighbours_grid(const double *x, size_t n, double h,
			    struct sph_nbr_list *nl);

/*
 * Cross lists from n fluid particles x[3n] to nb boundary particles
 * xb[3 nb]: the neighbours of fluid particle i are the boundary indices
 * idx[off[i] .. off[i+1]), ascending, every b with |x_b - x_i|^2 < h^2
 * (dx = x_b - x_i, as above). By brute force (tests) or through a grid
 * over the boundary particles. Returns 0, or -1 as the builders above
 * (nl then empty).
 */
int sph_ref_cross_brute(const double *x, size_t n, const double *xb,
			size_t nb, double h, struct sph_nbr_list *nl);
int sph_ref_cross_grid(const double *x, size_t n, const double *xb,
		       size_t nb, double h, struct sph_nbr_list *nl);

/*
 * The boundary particles of the walls: positions xb[3 nb], their
 * volume-based masses psi[nb] (kg, Akinci 2012, see above) and the
 * fluid-boundary neighbour lists of the current fluid positions.
 */
struct sph_ref_wall {
	size_t nb;
	const double *x;
	const double *psi;
	const struct sph_nbr_list *nbrs;
};

/*
 * psi[b] = rho0 / sum_k W_poly6(x_b - x_k) over the nb boundary
 * particles xb (b itself included). Returns 0, or -1 when the grid
 * cannot be built (see sph_ref_grid_build).
 */
int sph_ref_boundary_psi(const struct sph_params *p, const double *xb,
			 size_t nb, double *psi);

/*
 * The distance g from a wall plane of boundary particles on a square
 * lattice of spacing bspacing (psi from sph_ref_boundary_psi for an
 * unbounded plane) at which a half-space of fluid on the cubic lattice
 * of spacing p->spacing, its first layer at g, has rest density in that
 * first layer: rho0 = m (fluid lattice half-sum) + psi (wall sum at g),
 * averaged over the lateral alignments of the two lattices. About 1.16 d
 * at h = 2 d. Scenes put the water that far from their walls so that it
 * starts at rest; a fluid placed nearer is pushed off by the surplus
 * pressure, farther it sinks in.
 */
double sph_ref_wall_gap(const struct sph_params *p, double bspacing);

/* The equation of state: k max(rho - rho0, 0) [Pa]. */
double sph_ref_pressure(const struct sph_params *p, double rho);

/*
 * Densities and pressures of the nl->n fluid particles at x[3n]:
 * rho[i] = m W_poly6(0) + sum over the list of m W_poly6(r_ij)
 *          + sum over wall->nbrs of psi_b W_poly6(r_ib),
 * pres[i] = k max(rho[i] - rho0, 0). wall may be NULL (no boundary).
 * Sums run in list order, so the result is reproducible bit for bit.
 */
void sph_ref_density(const struct sph_params *p, const double *x,
		     const struct sph_nbr_list *nl,
		     const struct sph_ref_wall *wall, double *rho,
		     double *pres);

/*
 * Accelerations acc[3n] = (pressure + viscosity forces of fluid and
 * wall) / rho_i + gravity from positions x, velocities v, and the rho,
 * pres of sph_ref_density. wall may be NULL.
 */
void sph_ref_forces(const struct sph_params *p, const double *x,
		    const double *v, const double *rho, const double *pres,
		    const struct sph_nbr_list *nl,
		    const struct sph_ref_wall *wall, double *acc);

/* Symplectic Euler with the clamp: v += acc dt; x += v dt; then clamp
 * into the box, reflecting outward normal velocities. Returns how many
 * coordinates were clamped. */
size_t sph_ref_integrate(const struct sph_params *p, size_t n,
			 const double *acc, double *x, double *v);

/* A fluid integrated in double, with its walls. rho, pres, acc, nbrs and
 * bnbrs are those of the positions at the start of the last step (what
 * that step used). */
struct sph_ref_state {
	size_t n;
	double *x;		/* 3n */
	double *v;		/* 3n */
	double *rho;		/* n */
	double *pres;		/* n */
	double *acc;		/* 3n */
	struct sph_nbr_list nbrs;	/* fluid-fluid */
	size_t nb;		/* boundary particles */
	double *xb;		/* 3 nb */
	double *psi;		/* nb, from sph_ref_boundary_psi */
	struct sph_nbr_list bnbrs;	/* fluid-boundary */
	size_t clamps;		/* coordinates clamped, all steps so far */
};

/*
 * Convert pos4 (and vel4, or zero velocities when vel4 == NULL) of n
 * fluid particles, and the nb boundary particles bnd4 = (x, y, z, any)
 * (may be NULL when nb == 0), to double into a new state; psi computed
 * here in double from the boundary positions; rho, pres, acc zeroed, no
 * neighbours yet. Returns 0, or -1 on allocation failure or when psi
 * cannot be computed (nothing leaked, *s holds NULL pointers).
 */
int sph_ref_state_init(struct sph_ref_state *s, const struct sph_params *p,
		       const float *pos4, const float *vel4, size_t n,
		       const float *bnd4, size_t nb);

/* Free the arrays of s (safe on a state whose init failed). */
void sph_ref_state_free(struct sph_ref_state *s);

/* Neighbours (grid), densities, pressures and accelerations of the
 * current x, v. Returns 0, or -1 when the grid cannot be built (see
 * sph_ref_grid_build; nbrs is then empty, the rest unchanged). */
int sph_ref_evaluate(struct sph_ref_state *s, const struct sph_params *p);

/* One step: sph_ref_evaluate, then sph_ref_integrate (clamps counted).
 * Returns 0, or -1 as sph_ref_evaluate does (x and v then unchanged). */
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

/* Total momentum m sum_i v_i of the fluid. */
void sph_ref_momentum(const struct sph_ref_state *s,
		      const struct sph_params *p, double mom[3]);

/* Kinetic plus potential energy of the fluid, m sum_i (v_i^2 / 2 - g .
 * x_i) [J]. */
double sph_ref_energy(const struct sph_ref_state *s,
		      const struct sph_params *p);

#endif /* SPH_REF_H */
