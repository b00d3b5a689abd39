/* sph_gpu_common.cuh - what every GPU SPH variant shares: the context, its host plumbing, the pair arithmetic on the device */
#ifndef KERNELS_SPH_GPU_COMMON_CUH
#define KERNELS_SPH_GPU_COMMON_CUH

#include <cfloat>
#include <climits>
#include <cstddef>
#include <cuda_runtime.h>

#include "morton.cuh"
#include "sph_gpu.h"
#include "sph_physics.h"

/*
 * A GPU variant is a `struct sph_gpu_method` (its build, density and
 * force passes, and what it allocates) plus the common code of
 * sph_gpu_common.cu, which validates the input, uploads it, runs steps
 * with CUDA events around each phase, reads the state back in the
 * caller's order, counts, and frees. The ops tables of sph_gpu.h are
 * SPH_GPU_OPS(create function) over it.
 *
 * Slots. The particle arrays pos, vel, acc, rho and id hold `slots`
 * particles in the method's order (cell order after a build); id[k] is
 * the caller's index of slot k. Methods that keep the walls in the same
 * structure as the fluid (`walls_in_slots`) get the nb boundary
 * particles as slots too, with ids n .. n + nb - 1; the others keep
 * them in `bnd` only. A slot's pos.w tells what it is: 1 for fluid,
 * -psi_b / m for a boundary particle (a wall slot never moves, has no
 * density of its own, and its vel is zero), so one load gives both the
 * weight |w| of a pair and whether it is a wall pair.
 *
 * Timing: CUDA events around each phase of each step (build, density,
 * force, integrate), read in batches of SPH_GPU_BATCH steps so the host
 * waits once per batch.
 */

/* Cell side = h (1 + margin): a pair that passes the float test r^2 < h^2
 * is at most ~3e-7 h longer than h, so never two cells apart. */
#define SPH_GPU_GRID_MARGIN 1e-6
/* Most cells of a grid (4 or 8 bytes each in the tables of its methods). */
#define SPH_GPU_MAX_CELLS ((size_t)1 << 27)
/* Morton keys: bits per axis, so cells a side at most. */
#define SPH_GPU_MORTON_BITS 10
#define SPH_GPU_MORTON_SIDE (1 << SPH_GPU_MORTON_BITS)
/* Threads per block of the per-slot kernels. */
#define SPH_GPU_BLOCK 256
/* Steps whose phase events are queued before the host reads them. */
#define SPH_GPU_BATCH 16
/* Events per step: before build, density, force, integrate, and after. */
#define SPH_GPU_MARKS 5
/* Device arrays a context allocates, at most. */
#define SPH_GPU_MAX_ALLOCS 48

/* A grid of cubic cells of side `cell` from lo, dim[d] a side. */
struct sph_gpu_grid {
	double lo[3];
	double cell;
	int dim[3];
	unsigned ncells;
};

struct sph_gpu;

/* The surface criterion in float: |sum of offsets| > com_h (1 + n) or
 * n < min_n, com_h = com_threshold h (see sph_gpu_surface_flag). */
struct sph_gpu_surface_crit {
	float com_h, min_n;
};

struct sph_gpu_method {
	const char *name;
	size_t ctx_size;	/* sizeof the method's context, a struct sph_gpu first */
	bool walls_in_slots;	/* boundary particles are slots (see above) */
	bool grid;		/* a grid of cells of side h is set up (s->grid) */
	int morton_side;	/* the grid at most this many cells a side (0: any) */
	/* Extra refusals of the input (n too large, ...): 0, or -1 with err. */
	int (*check)(const struct sph_input *in, const char *name, char *err, size_t errlen);
	/* Method arrays and static structures, after the state is on the
	 * device: 0, or -1 with s->err. */
	int (*init)(struct sph_gpu *s);
	int (*build)(struct sph_gpu *s);
	/* Densities (and whatever the force pass reads of them); with count
	 * the candidate and neighbour pairs added to s->pairs[0], [1]. */
	int (*density)(struct sph_gpu *s, bool count);
	int (*force)(struct sph_gpu *s);
	/* The surface criterion (sph.h) of every fluid slot into s->sflag
	 * (slot order; 1 or 0, wall slots 0) on the current positions, with
	 * sph_gpu_surface_sum over the method's own walk: it first builds
	 * what that walk needs, as the next step's build would (so that the
	 * step finds the same state), and no more (Verlet lists still valid
	 * are reused). */
	int (*surface)(struct sph_gpu *s, const struct sph_gpu_surface_crit &c);
	/* NULL: sph_gpu_integrate (symplectic Euler on every fluid slot). */
	int (*integrate)(struct sph_gpu *s);
	/* NULL: the common loop of build, density, force, integrate with
	 * events between them; a method may replace it (CUDA graphs). */
	int (*steps)(struct sph_gpu *s, int reps, struct sph_phase_times *t);
	/* Releases what init made beyond sph_gpu_alloc (graphs); may be NULL. */
	void (*fini)(struct sph_gpu *s);
	/* After the queued work is done (sph_gpu_finish): the method's own
	 * device flags, such as a fixed-capacity structure that overflowed.
	 * 0, or -1 with s->err (and s->overflow = 1 for an overflow). May be
	 * NULL. */
	int (*finish)(struct sph_gpu *s);
};

struct sph_gpu {
	const struct sph_gpu_method *m;
	const char *name;
	int n, nb;		/* fluid and boundary particles */
	int slots;		/* n, or n + nb with walls_in_slots */
	struct sph_consts cs;
	/* What a grid spans: the box, or on an axis where the box is open the
	 * bounds of the particles (fluid and walls) at create. */
	double span_lo[3], span_hi[3];
	struct sph_gpu_grid grid;	/* when m->grid */

	/* particle state, slot order */
	float4 *pos, *vel, *acc;
	float *rho;
	unsigned *id;
	/* the boundary particles (x, y, z, psi / m) in the caller's order */
	float4 *bnd;

	unsigned *bad;			/* smallest id with a non-finite position, or UINT_MAX */
	unsigned long long *pairs;	/* candidates, neighbours of the last count */
	unsigned long long *clamps;	/* coordinates clamped, since create */

	void *allocs[SPH_GPU_MAX_ALLOCS]; /* every device array, to free */
	int nallocs;
	size_t aux_bytes;

	cudaStream_t stream;
	cudaEvent_t ev[SPH_GPU_BATCH][SPH_GPU_MARKS];
	int nevents;

	/* surface extraction, allocated on first use (not in aux_bytes:
	 * they are the rendering's, not the step's) */
	unsigned char *sflag, *sflag_id;	/* per slot; per fluid particle by id */
	unsigned *scount;
	void *stemp;
	size_t stemp_bytes;
	cudaEvent_t sev[2];
	int nsev;

	unsigned long long candidates, neighbours;
	int overflow;		/* a fixed-capacity structure overflowed */
	int failed;		/* a call failed: the state is lost, every call fails */
	char err[256];
};

/* ---- host helpers (sph_gpu_common.cu) ----------------------------------- */

/* Records a failed CUDA call in s->err and marks s failed. Returns -1
 * when rc is an error, else 0. */
int sph_gpu_check(struct sph_gpu *s, cudaError_t rc, const char *call, const char *file, int line);
#define SPH_GPU_CHECK(s, call) sph_gpu_check((s), (call), #call, __FILE__, __LINE__)
/* After each launch: 0, or -1 when it could not be queued. */
#define SPH_GPU_LAUNCHED(s, what) sph_gpu_check((s), cudaGetLastError(), what, __FILE__, __LINE__)

/* Blocks of SPH_GPU_BLOCK threads covering count. */
unsigned sph_gpu_blocks(size_t count);

/* bytes on the device into *p, counted in aux_bytes unless state; freed
 * with the context. 0, or -1 with s->err. */
int sph_gpu_alloc_bytes(struct sph_gpu *s, void **p, size_t bytes, bool state);
template <class T> static inline int sph_gpu_alloc(struct sph_gpu *s, T **p, size_t count,
						    bool state = false)
{
	return sph_gpu_alloc_bytes(s, (void **)p, count * sizeof(T), state);
}

/* Symplectic Euler on every fluid slot (wall slots stay), clamps counted. */
int sph_gpu_integrate(struct sph_gpu *s);

/* The common create, on method m: 0 and *ctx, or -1 with err. */
int sph_gpu_create(const struct sph_gpu_method *m, void **ctx, const struct sph_input *in,
		   const struct sph_params *p, char *err, size_t errlen);

/* The ops every variant shares (they dispatch through s->m). */
int sph_gpu_ops_steps(void *ctx, int reps, struct sph_phase_times *t);
int sph_gpu_ops_evaluate(void *ctx, int count);
int sph_gpu_ops_read(void *ctx, float *pos4, float *vel4, float *rho, float *acc4);
int sph_gpu_ops_surface(void *ctx, struct sph_surface_request *rq);
void sph_gpu_ops_counts(void *ctx, struct sph_counts *c);
const char *sph_gpu_ops_error(void *ctx);
void sph_gpu_ops_destroy(void *ctx);

/* Waits for the queued work; -1 with s->err when it failed or a position
 * was not finite. */
int sph_gpu_finish(struct sph_gpu *s);

/* Adds the phase times of the first `steps` steps of the event batch to
 * t (may be NULL) after waiting for the last of them. 0 or -1. */
int sph_gpu_collect(struct sph_gpu *s, int steps, struct sph_phase_times *t);

#define SPH_GPU_OPS(create_fn)                                                                  \
	{                                                                                       \
		create_fn, sph_gpu_ops_steps, sph_gpu_ops_evaluate, sph_gpu_ops_read,            \
			sph_gpu_ops_counts, sph_gpu_ops_error, sph_gpu_ops_destroy,              \
			sph_gpu_ops_surface                                                      \
	}

/* ---- device helpers ------------------------------------------------------ */

/* Cell coordinate of x along one axis, clamped into 0 .. dim - 1 (NaN: 0),
 * computed in double as sph_ref_grid_cell does. */
__device__ __forceinline__ int sph_gpu_axis_cell(float x, double lo, double cell, int dim)
{
	const double u = floor(((double)x - lo) / cell);

	return !(u >= 0.0) ? 0 : u >= (double)dim ? dim - 1 : (int)u;
}

__device__ __forceinline__ int3 sph_gpu_cell_of(const sph_gpu_grid &g, float4 x)
{
	return make_int3(sph_gpu_axis_cell(x.x, g.lo[0], g.cell, g.dim[0]),
			 sph_gpu_axis_cell(x.y, g.lo[1], g.cell, g.dim[1]),
			 sph_gpu_axis_cell(x.z, g.lo[2], g.cell, g.dim[2]));
}

/* Linear index of cell (x, y, z): x fastest. */
__host__ __device__ __forceinline__ unsigned sph_gpu_linear(int x, int y, int z, const int dim[3])
{
	return (unsigned)x + (unsigned)dim[0] * ((unsigned)y + (unsigned)dim[1] * (unsigned)z);
}

__device__ __forceinline__ int3 sph_gpu_linear_coords(unsigned c, const int dim[3])
{
	const unsigned d0 = (unsigned)dim[0], d1 = (unsigned)dim[1];

	return make_int3((int)(c % d0), (int)(c / d0 % d1), (int)(c / (d0 * d1)));
}

/* First index in a[lo .. hi - 1] (ascending) whose value is >= v, or hi. */
__device__ __forceinline__ unsigned sph_gpu_lower_bound(const unsigned *__restrict__ a, unsigned lo,
							 unsigned hi, unsigned v)
{
	while (lo < hi) {
		const unsigned mid = lo + (hi - lo) / 2;

		if (a[mid] < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Smallest original id with a non-finite position into *bad. */
__device__ __forceinline__ void sph_gpu_check_finite(float4 x, unsigned id, unsigned *bad)
{
	if (!isfinite(x.x) || !isfinite(x.y) || !isfinite(x.z))
		atomicMin(bad, id);
}

/* key[i] = the cell of slot i in grid g: its Morton key (MORTON, every
 * dim at most 1024) or its linear index; a non-finite position's id into
 * *bad. */
template <bool MORTON>
static __global__ void sph_gpu_key_kernel(const float4 *__restrict__ pos,
					  const unsigned *__restrict__ id, unsigned *__restrict__ key,
					  int slots, sph_gpu_grid g, unsigned *__restrict__ bad)
{
	const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i >= (unsigned)slots)
		return;
	const float4 x = pos[i];
	const int3 c = sph_gpu_cell_of(g, x);

	sph_gpu_check_finite(x, id[i], bad);
	key[i] = MORTON ? morton_encode3(c.x, c.y, c.z) : sph_gpu_linear(c.x, c.y, c.z, g.dim);
}

/* Candidate pairs (j != i) and those of them with r^2 < h^2. */
struct sph_gpu_pairs {
	unsigned long long candidates, neighbours;
};

/* The pairs of a warp added to pairs[0], pairs[1] by its lane 0. Every
 * lane of the warp must call it. */
__device__ __forceinline__ void sph_gpu_add_pairs(unsigned long long *pairs, sph_gpu_pairs pc)
{
	for (int off = 16; off > 0; off >>= 1) {
		pc.candidates += __shfl_down_sync(0xffffffffu, pc.candidates, off);
		pc.neighbours += __shfl_down_sync(0xffffffffu, pc.neighbours, off);
	}
	if ((threadIdx.x & 31) == 0 && (pc.candidates || pc.neighbours)) {
		atomicAdd(&pairs[0], pc.candidates);
		atomicAdd(&pairs[1], pc.neighbours);
	}
}

/* A slot's pos.w: a wall slot has w < 0 (its weight is -w = psi_b / m). */
__device__ __forceinline__ bool sph_gpu_is_wall(float4 x)
{
	return x.w < 0.0f;
}

/*
 * The density sum of slot xi over candidate xj: |w_j| q^3 where r < h.
 * With COUNT and other (j is not i), the pair counted into pc.
 */
template <bool COUNT>
__device__ __forceinline__ void sph_gpu_density_pair(float4 xi, float4 xj, bool other, float h2,
						      float inv_h2, float &sum, sph_gpu_pairs &pc)
{
	// r_ij [3 FLOPS]
	const float dx = xj.x - xi.x, dy = xj.y - xi.y, dz = xj.z - xi.z;
	// r^2 [5 FLOPS]
	const float r2 = dx * dx + dy * dy + dz * dz;
	const bool near = r2 < h2;

	// sum += |w_j| q^3 where r < h [6 FLOPS]
	if (near)
		sum += fabsf(xj.w) * sph_poly6_q3(r2, inv_h2);
	if (COUNT && other) {
		pc.candidates++;
		pc.neighbours += near;
	}
}

/*
 * The surface criterion's sums of fluid slot xi (reference/render_ref.h,
 * 4.1): over its candidates xj, the fluid neighbours (not i itself, not a
 * wall, r^2 < h^2) counted and their offsets x_j - x_i summed. Offsets,
 * not positions, so that float keeps the digits that matter.
 */
struct sph_gpu_surface_sum {
	float dx, dy, dz, n;
};

__device__ __forceinline__ void sph_gpu_surface_pair(float4 xi, float4 xj, bool other, float h2,
						      sph_gpu_surface_sum &a)
{
	const float dx = xj.x - xi.x, dy = xj.y - xi.y, dz = xj.z - xi.z;

	if (other && !sph_gpu_is_wall(xj) && dx * dx + dy * dy + dz * dz < h2) {
		a.dx += dx;
		a.dy += dy;
		a.dz += dz;
		a.n += 1.0f;
	}
}

/* 1 for a surface particle (sph_surface_flag of sph_physics.h). */
__device__ __forceinline__ unsigned char sph_gpu_surface_flag(const sph_gpu_surface_sum &a,
							       const sph_gpu_surface_crit &c)
{
	return (unsigned char)sph_surface_flag(a.dx, a.dy, a.dz, a.n, c.com_h, c.min_n);
}

/* What the force pass of a fluid slot i carries: its state and its sums. */
struct sph_gpu_force_acc {
	float4 x, v;
	float p, rho, hinv;
	float3 P, V; /* see sph_physics.h */
};

/* The acc of fluid slot i with position x, velocity v and density rho. */
__device__ __forceinline__ sph_gpu_force_acc sph_gpu_force_start(float4 x, float4 v, float rho,
								  const sph_consts &cs)
{
	sph_gpu_force_acc f;

	f.x = x;
	f.v = v;
	f.rho = rho;
	sph_pressure(rho, cs.k, cs.rho0, &f.p, &f.hinv);
	f.P = make_float3(0.0f, 0.0f, 0.0f);
	f.V = make_float3(0.0f, 0.0f, 0.0f);
	return f;
}

/*
 * Candidate j at xj added to the force sums of f: a wall pair when
 * xj.w < 0, else a fluid pair with vj = its velocity and pj, hinv_j its
 * pressure and 1 / (2 rho_j) (read only for fluid pairs within h, so a
 * caller may pass loaders). Nothing when r >= h.
 */
template <class FluidLoad>
__device__ __forceinline__ void sph_gpu_force_pair(sph_gpu_force_acc &f, float4 xj,
						    const sph_consts &cs, FluidLoad &&load)
{
	// r_ij [3 FLOPS]
	const float dx = xj.x - f.x.x, dy = xj.y - f.x.y, dz = xj.z - f.x.z;
	// r^2 [5 FLOPS]
	const float r2 = dx * dx + dy * dy + dz * dz;
	float wp, wv;

	if (!(r2 < cs.h2))
		return;
	if (sph_gpu_is_wall(xj)) {
		sph_wall_weights(dx, dy, dz, r2, cs.h, -xj.w, f.p, f.rho, f.hinv, cs.g2[0], cs.g2[1],
				 cs.g2[2], cs.fw, &wp, &wv);
		// P -= wp d, V -= wv v_i [12 FLOPS]
		f.P.x -= wp * dx;
		f.P.y -= wp * dy;
		f.P.z -= wp * dz;
		f.V.x -= wv * f.v.x;
		f.V.y -= wv * f.v.y;
		f.V.z -= wv * f.v.z;
		return;
	}
	float4 vj;
	float pj, hinv_j;

	load(vj, pj, hinv_j);
	sph_fluid_weights(r2, cs.h, f.p, pj, hinv_j, &wp, &wv);
	// P -= wp d [6 FLOPS]
	f.P.x -= wp * dx;
	f.P.y -= wp * dy;
	f.P.z -= wp * dz;
	// V += wv (v_j - v_i) [9 FLOPS]
	f.V.x += wv * (vj.x - f.v.x);
	f.V.y += wv * (vj.y - f.v.y);
	f.V.z += wv * (vj.z - f.v.z);
}

/* The acceleration (ax, ay, az, 0) of f's sums. */
__device__ __forceinline__ float4 sph_gpu_force_end(const sph_gpu_force_acc &f, const sph_consts &cs)
{
	// c_force / rho_i [1 FLOP]
	const float scale = cs.c_force / f.rho;

	return make_float4(sph_accel(scale, f.P.x, cs.mu2, f.V.x, cs.g[0]),
			   sph_accel(scale, f.P.y, cs.mu2, f.V.y, cs.g[1]),
			   sph_accel(scale, f.P.z, cs.mu2, f.V.z, cs.g[2]), 0.0f);
}

/* Symplectic Euler with the clamp on x, v (sph_advance per coordinate);
 * returns the coordinates clamped. */
__device__ __forceinline__ int sph_gpu_advance4(float4 &x, float4 &v, float4 a, const sph_consts &cs)
{
	return sph_advance(&x.x, &v.x, a.x, cs.dt, cs.e, cs.box_lo[0], cs.box_hi[0]) +
	       sph_advance(&x.y, &v.y, a.y, cs.dt, cs.e, cs.box_lo[1], cs.box_hi[1]) +
	       sph_advance(&x.z, &v.z, a.z, cs.dt, cs.e, cs.box_lo[2], cs.box_hi[2]);
}

/* a[i] = i. */
static __global__ void sph_gpu_iota_kernel(unsigned *__restrict__ a, int n)
{
	const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < (unsigned)n)
		a[i] = i;
}

/* The state of old slot perm[i] to new slot i (pos, vel, id), and key_in
 * to key_out when key_in is not NULL. */
static __global__ void sph_gpu_gather_kernel(const unsigned *__restrict__ perm,
					     const float4 *__restrict__ pos_in,
					     const float4 *__restrict__ vel_in,
					     const unsigned *__restrict__ id_in,
					     const unsigned *__restrict__ key_in,
					     float4 *__restrict__ pos_out, float4 *__restrict__ vel_out,
					     unsigned *__restrict__ id_out,
					     unsigned *__restrict__ key_out, int n)
{
	const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i >= (unsigned)n)
		return;
	const unsigned old = perm[i];

	pos_out[i] = pos_in[old];
	vel_out[i] = vel_in[old];
	id_out[i] = id_in[old];
	if (key_in)
		key_out[i] = key_in[old];
}

#endif /* KERNELS_SPH_GPU_COMMON_CUH */
