/* render_gpu.cu - the SPH paper's distance field and raycasting on the GPU: reset, splat, voxels, raycast */
#include "render_gpu.h"

#include <climits>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

/*
 * The kernels, in the order a frame runs them:
 *
 *   render_gpu_reset_kernel    over the bricks the last field touched (its
 *                              list): their voxels back to (float)max, so
 *                              that the whole field is at the maximum;
 *   render_gpu_begin_kernel    this field's touched bricks, occupancy and
 *                              list counts cleared;
 *   render_gpu_splat_kernel    one warp per surface particle: lanes 0..2
 *                              find the box's span on their axis, the warp
 *                              marks the bricks the box touches and those
 *                              the box grown by a voxel touches, then
 *                              walks the box's voxels 32 at a time, each
 *                              lane keeping the minimum with atomicMin on
 *                              the float's bits (non-negative floats order
 *                              as their bits do as ints);
 *   render_gpu_list_kernel     the bricks touched now, and those the grown
 *                              boxes of this field or the last touch,
 *                              compacted into two lists;
 *   render_gpu_voxels_kernel   one block per brick of the second list: its
 *                              voxels' (gx, gy, gz, sqrt) for the raycaster
 *                              from a shared tile of the field, and the
 *                              bricks (and 4^3-brick macro bricks) they
 *                              occupy;
 *   render_gpu_raycast_kernel  one thread per pixel, each warp taking
 *                              tiles of 8 x 4 pixels (nearby rays read
 *                              nearby voxels) from a counter until none
 *                              is left;
 *   render_gpu_count_kernel    voxels below the maximum (untimed).
 *
 * The field is sparse in work, dense in memory. A voxel below the
 * maximum lies in a box, so in a brick the splat marked ("touched"); a
 * voxel's (gradient, distance) differs from empty space's only within one
 * voxel of such a voxel, so inside a brick that a box grown by one voxel
 * touches ("needed"). The voxels pass therefore runs over the bricks
 * needed now (every voxel that is not empty space now) and those needed
 * by the last field (every voxel that was not, written back to empty
 * space's bits); every other voxel holds the maximum and empty space's
 * bits from the field before. At 255,600 particles 3 % of the voxels are near the
 * surface: passes over all 57 million cost 0.5 ms a frame.
 *
 * Exactness of the field. The reference rounds every operation of
 * render_field_span and render_field_splat once, in double, in the order
 * C writes it, and never fuses a multiply and an add (gcc in C11 mode
 * contracts nothing, and x86-64 without -march has no FMA). The splat does
 * the same operations on the same doubles (the float positions widened)
 * through __dadd_rn, __dsub_rn, __dmul_rn, __ddiv_rn and __dsqrt_rn, which
 * nvcc never contracts, so it visits the same voxels and forms the same
 * max(d, r_min)^2 bit for bit; rounding that to float is monotone, so the
 * float minimum over particles is the double minimum rounded: the
 * reference's field rounded to float, exactly.
 *
 * The raycaster works in the field's voxel units (a point p [m] is at
 * (p - lo) / voxel), where a sample's voxel coordinate is the ray's point
 * itself; t and the step scale alike, so the samples are the reference's
 * t_in + s step. Distances, the transfer function and gradients stay in
 * metres. Each voxel's float4 holds sqrt(value) with its sign set where the
 * value is the maximum, so the eight loads of a sample also say whether
 * it is empty space (render_ref.h: it then contributes nothing).
 */

/* Voxels on a side of an occupancy brick (render_ref.h section 3). */
#define RENDER_GPU_BRICK 8
/* Bricks on a side of a macro brick: the raycaster steps over an empty one
 * at once (32 voxels, where the bricks of the tank's length number 90). */
#define RENDER_GPU_MACRO 4
/* The voxels kernel's tile: a brick's voxels (at most 9 on an axis: the
 * last brick holds the last voxel) and their neighbours. */
#define RENDER_GPU_TILE (RENDER_GPU_BRICK + 1 + 2)
/* What render_ref_field and render_ref_raycast accept (render_ref.h). */
#define RENDER_GPU_MIN_RES 2
#define RENDER_GPU_MAX_RES 4096
#define RENDER_GPU_MAX_SIDE 16384
/* up is parallel to the view when the sine between them is below this. */
#define RENDER_GPU_PARALLEL 1e-9
/* A gradient shorter than this [1/m] has no direction: ambient only. */
#define RENDER_GPU_FLAT_GRADIENT 1e-9f
/*
 * Skipping lands this fraction of a step early. The sample index where a
 * ray leaves an empty brick is computed in float from t ~ up to some
 * thousand voxels: its rounding is a few ulps of t, ~2e-4 of a step at
 * 250 samples per box side with the eye three box sides away (t / step ~
 * 750 steps, times a few float epsilons). Landing early costs at most one
 * more sample in the empty brick, which skips again; landing late would
 * skip a sample of the next brick, so the margin is 50 times the rounding.
 */
#define RENDER_GPU_SKIP_MARGIN 1e-2f
/* More samples along a ray than this is no float sampling at all. */
#define RENDER_GPU_MAX_SAMPLES (1 << 30)
#define RENDER_GPU_PI 3.14159265358979323846

#define RENDER_GPU_BLOCK 256		/* threads of the count kernel */
#define RENDER_GPU_BRICK_THREADS 256	/* threads of a block that works on a brick: */
#define RENDER_GPU_BRICK_TZ 4		/* 8 x 8 x 4 */
static_assert(RENDER_GPU_BRICK * RENDER_GPU_BRICK * RENDER_GPU_BRICK_TZ == RENDER_GPU_BRICK_THREADS,
	      "a brick's block is 8 x 8 x RENDER_GPU_BRICK_TZ");
#define RENDER_GPU_BRICK_BLOCKS 6	/* such blocks per SM (the voxels kernel's bound) */
#define RENDER_GPU_SPLAT_WARPS 4	/* particles (a warp each) per block */
#define RENDER_GPU_RAY_X 8		/* pixels of a warp's tile of rays */
#define RENDER_GPU_RAY_Y 4
#define RENDER_GPU_RAY_THREADS 128	/* threads of a raycast block */
static_assert(RENDER_GPU_RAY_X * RENDER_GPU_RAY_Y == 32, "a tile of rays is a warp's");
#define RENDER_GPU_FULL_MASK 0xffffffffu

/* The splat's inputs, the doubles render_ref.c computes with. */
struct render_gpu_grid {
	double lo[3];
	double voxel;
	int dim[3];
	double r, r_min, r_max;
	int short_box;		/* RENDER_GPU_TEST_SHORT_BOX */
};

/* What the raycaster needs, in voxel units unless marked. */
struct render_gpu_view {
	float3 eye;			/* (eye - lo) / voxel */
	float3 fwd, right, up;		/* unit; up on the image plane */
	float half_w, half_h;		/* the image plane's half-extents at distance 1 */
	int width, height;
	int dim[3], bricks[3], macros[3];
	float step;			/* between samples */
	float alpha_max, surface_d, inv_band;	/* transfer function: 1, m, 1/m */
	float alpha_exp;		/* alpha_samples / samples_per_unit; 1: as it is */
	float opaque;
	float3 light, colour, background;
	int paper;			/* RENDER_SHADING_PAPER: the paper's shading */
	float rearm;			/* [m] RENDER_PAPER_REARM surface_d */
	float normal_span;		/* RENDER_PAPER_NORMAL_SPAN surface_d */
};

struct render_gpu {
	struct render_gpu_grid grid;
	float voxel;			/* [m], for the gradient */
	float maxf;			/* (float)(r_max^2): the field's initial value */
	size_t voxels;
	int bricks[3];
	size_t nbricks;
	int macros[3];			/* macro bricks (RENDER_GPU_MACRO^3 bricks) */
	size_t nmacros;
	unsigned list_blocks;		/* blocks of the kernels over a brick list */
	unsigned ray_blocks[2];		/* blocks of the raycast (Phong, paper): all resident */
	int now;			/* the half of touched, list, counts this field uses */
	size_t max_surface;
	int has_camera;
	int no_skip;			/* RENDER_GPU_TEST_NO_SKIP */
	struct render_gpu_view view;

	float *field;			/* voxels values [m^2] */
	float4 *vox;			/* voxels (gx, gy, gz, +-sqrt(value)) [1], [m] */
	unsigned char *occ;		/* nbricks: 1 occupied (the raycaster's) */
	unsigned char *occ2;		/* nmacros: 1 where a brick is occupied */
	unsigned char *touched[2];	/* nbricks: 1 where a box marked the brick; [now],
					 * [!now] the last field's */
	unsigned char *needed[2];	/* nbricks: 1 where a box grown by a voxel marked
					 * the brick (touched[.] within it) */
	unsigned *list[2];		/* the bricks of touched[.], counts[.] of them */
	unsigned *list_u;		/* those of needed[0] or needed[1], counts[2] */
	unsigned *counts;		/* 3 */
	unsigned *next;			/* the raycast's next tile */
	float4 *surface;		/* max_surface positions */
	float *rgb;			/* 3 width height */
	float *opacity;			/* width height: each ray's accumulated alpha */
	unsigned *bad;			/* the first non-finite position, or UINT_MAX */
	unsigned long long *count;	/* render_gpu_voxels_set */
	size_t bytes;

	cudaStream_t stream;
	cudaEvent_t ev[4];		/* field start, end; raycast start, end */
	int nevents;
	struct render_gpu_times times;
	int failed;			/* a CUDA call failed: every call returns -1 */
	char err[256];
};

/* ---- host helpers -------------------------------------------------------- */

/* Records a failed CUDA call and marks r failed. -1 when rc is an error,
 * else 0. The runtime's last error is cleared too, so that a failed
 * allocation is not reported again by the next launch check (of this or
 * another context). */
static int render_gpu_check(struct render_gpu *r, cudaError_t rc, const char *call,
			    const char *file, int line)
{
	if (rc == cudaSuccess)
		return 0;
	snprintf(r->err, sizeof r->err, "render_gpu: %s: %s (%s:%d)", call, cudaGetErrorString(rc),
		 file, line);
	(void)cudaGetLastError();
	r->failed = 1;
	return -1;
}
#define RENDER_GPU_CHECK(r, call) render_gpu_check((r), (call), #call, __FILE__, __LINE__)
/* After each launch: 0, or -1 when it could not be queued. */
#define RENDER_GPU_LAUNCHED(r, what) \
	render_gpu_check((r), cudaGetLastError(), what, __FILE__, __LINE__)

/* A refused argument: one line into err, always -1. */
static int render_gpu_refuse(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int render_gpu_refuse(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(err, errlen, "render_gpu: ");

	if (n < 0 || (size_t)n >= errlen)
		return -1;
	va_start(ap, fmt);
	vsnprintf(err + n, errlen - n, fmt, ap);
	va_end(ap);
	return -1;
}

/* 0 when r can take a call; -1 for NULL or a failed context. */
static int render_gpu_usable(const struct render_gpu *r)
{
	return r && !r->failed ? 0 : -1;
}

template <class T> static int render_gpu_alloc(struct render_gpu *r, T **p, size_t count)
{
	const size_t bytes = (count ? count : 1) * sizeof(T);

	*p = NULL;
	if (RENDER_GPU_CHECK(r, cudaMalloc((void **)p, bytes)))
		return -1;
	r->bytes += bytes;
	return 0;
}

/* Blocks of `threads` covering count, at most 2^20 (the kernels stride). */
static unsigned render_gpu_blocks(size_t count, unsigned threads)
{
	const size_t b = (count + threads - 1) / threads;

	return (unsigned)(b < 1 ? 1 : b > ((size_t)1 << 20) ? (size_t)1 << 20 : b);
}

/*
 * The field's shape over lo .. hi, as render_ref.h section 2 fixes it
 * (voxel = longest side / res, dim[k] = ceil(side / voxel - 1e-9) + 1; the
 * tests compare the whole field with render_ref_field's), and the refusals
 * of render_ref_field. 0, or -1 with err.
 */
static int render_gpu_shape(const struct render_params *rp, const double lo[3],
			    const double hi[3], struct render_gpu_grid *g, char *err,
			    size_t errlen)
{
	double longest = 0.0;

	memset(g, 0, sizeof *g);
	if (rp->res < RENDER_GPU_MIN_RES || rp->res > RENDER_GPU_MAX_RES)
		return render_gpu_refuse(err, errlen, "res %d outside %d .. %d", rp->res,
					 RENDER_GPU_MIN_RES, RENDER_GPU_MAX_RES);
	for (int k = 0; k < 3; k++) {
		if (!std::isfinite(lo[k]) || !std::isfinite(hi[k]) || !(hi[k] > lo[k]))
			return render_gpu_refuse(err, errlen, "box %g .. %g on axis %d is empty or "
						 "not finite", lo[k], hi[k], k);
		longest = fmax(longest, hi[k] - lo[k]);
	}
	g->voxel = longest / rp->res;
	if (!(g->voxel > 0.0) || !std::isfinite(g->voxel))
		return render_gpu_refuse(err, errlen, "voxel size %g not positive", g->voxel);
	for (int k = 0; k < 3; k++) {
		g->dim[k] = (int)ceil((hi[k] - lo[k]) / g->voxel - 1e-9) + 1;
		g->lo[k] = lo[k];
	}
	g->r = rp->r;
	g->r_min = rp->r_min;
	g->r_max = rp->r_max;
	return 0;
}

/* The most voxels a box of radius r can span (floor(2 r / voxel) + 1
 * indices on an axis, one more for rounding, at most the axis). */
static double render_gpu_box_bound(const struct render_gpu_grid *g)
{
	double n = 1.0;

	for (int k = 0; k < 3; k++) {
		double side = floor(2.0 * g->r / g->voxel) + 2.0;

		side = !(side < g->dim[k]) ? g->dim[k] : fmax(side, 0.0);
		n *= side;
	}
	return n;
}

static double render_gpu_dot(const double a[3], const double b[3])
{
	return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static void render_gpu_cross(const double a[3], const double b[3], double c[3])
{
	c[0] = a[1] * b[2] - a[2] * b[1];
	c[1] = a[2] * b[0] - a[0] * b[2];
	c[2] = a[0] * b[1] - a[1] * b[0];
}

/* Scales a to unit length; its length before (0: left as it was). */
static double render_gpu_normalise(double a[3])
{
	const double len = sqrt(render_gpu_dot(a, a));

	if (len > 0.0)
		for (int k = 0; k < 3; k++)
			a[k] /= len;
	return len;
}

static int render_gpu_finite3(const double a[3])
{
	return std::isfinite(a[0]) && std::isfinite(a[1]) && std::isfinite(a[2]);
}

static float3 render_gpu_float3(const double a[3])
{
	return make_float3((float)a[0], (float)a[1], (float)a[2]);
}

/*
 * The raycaster's view of camera c on grid g: the camera frame of
 * render_ref.h (right = view x up, up' = right x view), moved into voxel
 * units, and the refusals of render_ref_raycast. 0, or -1 with err.
 */
static int render_gpu_view_make(const struct render_params *rp, const struct render_gpu_grid *g,
				const struct render_camera *c, struct render_gpu_view *v, char *err,
				size_t errlen)
{
	double eye[3], fwd[3], up[3], right[3], longest = 0.0;

	memset(v, 0, sizeof *v);
	if (c->width <= 0 || c->height <= 0 || c->width > RENDER_GPU_MAX_SIDE ||
	    c->height > RENDER_GPU_MAX_SIDE)
		return render_gpu_refuse(err, errlen, "camera of %d x %d pixels (1 .. %d a side)",
					 c->width, c->height, RENDER_GPU_MAX_SIDE);
	if (!render_gpu_finite3(c->eye) || !render_gpu_finite3(c->at) ||
	    !render_gpu_finite3(c->up) || !(c->fov_deg > 0.0 && c->fov_deg < 180.0))
		return render_gpu_refuse(err, errlen, "camera not finite or field of view %g "
					 "outside (0, 180) degrees", c->fov_deg);
	if (!(rp->samples_per_unit > 0.0) || !(rp->band > 0.0))
		return render_gpu_refuse(err, errlen, "samples_per_unit %g and band %g must be "
					 "positive", rp->samples_per_unit, rp->band);
	for (int k = 0; k < 3; k++) {
		if (g->dim[k] < 2)
			return render_gpu_refuse(err, errlen, "field of %d x %d x %d voxels: a "
						 "raycast needs 2 on every axis", g->dim[0],
						 g->dim[1], g->dim[2]);
		fwd[k] = c->at[k] - c->eye[k];
		up[k] = c->up[k];
		eye[k] = (c->eye[k] - g->lo[k]) / g->voxel;
		longest = fmax(longest, (g->dim[k] - 1) * g->voxel);
	}
	const double fwd_len = render_gpu_normalise(fwd), up_len = render_gpu_normalise(up);
	if (!(fwd_len > 0.0) || !std::isfinite(fwd_len) || !(up_len > 0.0) ||
	    !std::isfinite(up_len))
		return render_gpu_refuse(err, errlen, "camera with eye == at or a zero up");
	render_gpu_cross(fwd, up, right);
	if (!(render_gpu_normalise(right) > RENDER_GPU_PARALLEL))
		return render_gpu_refuse(err, errlen, "camera's up parallel to its view");
	render_gpu_cross(right, fwd, up);

	const double half_h = tan(0.5 * c->fov_deg * RENDER_GPU_PI / 180.0);
	v->eye = render_gpu_float3(eye);
	v->fwd = render_gpu_float3(fwd);
	v->right = render_gpu_float3(right);
	v->up = render_gpu_float3(up);
	v->half_h = (float)half_h;
	v->half_w = (float)(half_h * c->width / c->height);
	v->width = c->width;
	v->height = c->height;
	for (int k = 0; k < 3; k++) {
		v->dim[k] = g->dim[k];
		/* bricks of cells 0 .. dim - 2 */
		v->bricks[k] = (g->dim[k] - 2) / RENDER_GPU_BRICK + 1;
		v->macros[k] = (v->bricks[k] - 1) / RENDER_GPU_MACRO + 1;
	}
	v->step = (float)(longest / rp->samples_per_unit / g->voxel);
	v->alpha_max = (float)rp->alpha_max;
	v->alpha_exp = rp->alpha_samples > 0.0 ? (float)(rp->alpha_samples / rp->samples_per_unit)
					       : 1.0f;
	v->surface_d = (float)rp->surface_d;
	v->inv_band = (float)(1.0 / rp->band);
	v->opaque = (float)rp->opaque;
	v->light = render_gpu_float3(rp->light);
	v->colour = render_gpu_float3(rp->colour);
	v->background = render_gpu_float3(rp->background);
	v->paper = rp->shading == RENDER_SHADING_PAPER;
	v->rearm = (float)(RENDER_PAPER_REARM * rp->surface_d);
	v->normal_span = (float)(RENDER_PAPER_NORMAL_SPAN * rp->surface_d / g->voxel);
	return 0;
}

/* ---- the distance field -------------------------------------------------- */

/* The voxels brick b holds on axis k, lo .. hi: 8 b .. 8 b + 7, the last
 * brick up to the last voxel (bricks cover the cells 0 .. dim - 2). */
static __device__ __forceinline__ void render_gpu_brick_span(int b, int nb, int dim, int *lo,
							     int *hi)
{
	*lo = b * RENDER_GPU_BRICK;
	*hi = b == nb - 1 ? dim - 1 : *lo + RENDER_GPU_BRICK - 1;
}

/* Brick index q's coordinates. */
static __device__ __forceinline__ void render_gpu_brick_at(unsigned q, int3 nb, int b[3])
{
	b[0] = (int)(q % (unsigned)nb.x);
	b[1] = (int)(q / (unsigned)nb.x % (unsigned)nb.y);
	b[2] = (int)(q / ((unsigned)nb.x * nb.y));
}

/* The thread's first voxel of a brick's and the strides: a block of 8 x 8
 * x RENDER_GPU_BRICK_TZ threads walks n[0] x n[1] x n[2] voxels (up to 11
 * on an axis) as for (k = tz; k < n[2]; k += TZ) for (j = ty; ...) .... */
#define RENDER_GPU_BRICK_LOOP(i, j, k, n)                                                   \
	for (int k = threadIdx.z; k < (n)[2]; k += RENDER_GPU_BRICK_TZ)                     \
		for (int j = threadIdx.y; j < (n)[1]; j += RENDER_GPU_BRICK)                 \
			for (int i = threadIdx.x; i < (n)[0]; i += RENDER_GPU_BRICK)

/*
 * One block per brick of list[count] (the bricks the last field touched):
 * their voxels back to the maximum. Those are all the voxels the last
 * field set below it.
 */
static __global__ void __launch_bounds__(RENDER_GPU_BRICK_THREADS)
render_gpu_reset_kernel(float *__restrict__ field, const unsigned *__restrict__ list,
			const unsigned *__restrict__ count, int3 dim, int3 bricks, float maxf)
{
	const unsigned n = *count;

	for (unsigned q = blockIdx.x; q < n; q += gridDim.x) {
		int b[3], lo[3], hi[3], on[3];

		render_gpu_brick_at(list[q], bricks, b);
		render_gpu_brick_span(b[0], bricks.x, dim.x, &lo[0], &hi[0]);
		render_gpu_brick_span(b[1], bricks.y, dim.y, &lo[1], &hi[1]);
		render_gpu_brick_span(b[2], bricks.z, dim.z, &lo[2], &hi[2]);
		for (int a = 0; a < 3; a++)
			on[a] = hi[a] - lo[a] + 1;
		RENDER_GPU_BRICK_LOOP(i, j, k, on)
		field[((size_t)(lo[2] + k) * dim.y + lo[1] + j) * dim.x + lo[0] + i] = maxf;
	}
}

/* This field's touched and needed bricks and the raycaster's occupancy cleared, and
 * the counts of touched[now]'s list and of the union list. */
static __global__ void render_gpu_begin_kernel(unsigned char *__restrict__ touched,
					       unsigned char *__restrict__ needed,
					       unsigned char *__restrict__ occ,
					       unsigned char *__restrict__ occ2, size_t nbricks,
					       size_t nmacros, unsigned *__restrict__ counts,
					       int now)
{
	const size_t first = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	const size_t stride = (size_t)gridDim.x * blockDim.x;

	for (size_t q = first; q < nbricks; q += stride) {
		touched[q] = 0;
		needed[q] = 0;
		occ[q] = 0;
	}
	for (size_t q = first; q < nmacros; q += stride)
		occ2[q] = 0;
	if (first == 0) {
		counts[now] = 0;
		counts[2] = 0;
	}
}

/* The coordinate lo + i voxel of voxel i on axis k, rounded as render_ref.c. */
static __device__ __forceinline__ double render_gpu_coord(const render_gpu_grid &g, int k, int i)
{
	return __dadd_rn(g.lo[k], __dmul_rn((double)i, g.voxel));
}

/*
 * render_ref.c's render_field_span, operation for operation: the voxels
 * a .. b on axis k with |lo + i voxel - p| <= r. Returns 0 when there
 * are none.
 */
static __device__ int render_gpu_span(const render_gpu_grid &g, int k, double p, int *a, int *b)
{
	double u = ceil(__ddiv_rn(__dsub_rn(__dsub_rn(p, g.r), g.lo[k]), g.voxel));
	double w = floor(__ddiv_rn(__dsub_rn(__dadd_rn(p, g.r), g.lo[k]), g.voxel));

	u = fmax(__dsub_rn(u, 1.0), 0.0);
	w = fmin(__dadd_rn(w, 1.0), __dsub_rn((double)g.dim[k], 1.0));
	if (u > w)
		return 0;
	*a = (int)u;
	*b = (int)w;
	while (*a <= *b && !(fabs(__dsub_rn(render_gpu_coord(g, k, *a), p)) <= g.r))
		(*a)++;
	while (*b >= *a && !(fabs(__dsub_rn(render_gpu_coord(g, k, *b), p)) <= g.r))
		(*b)--;
	if (g.short_box && k == 0)
		(*b)--;
	return *a <= *b;
}

/*
 * render_ref.c's render_field_splat at voxel (i, j, k) for the particle
 * at p: false where d > r_max, else max(d, r_min)^2 into *value, rounded
 * once to float.
 */
static __device__ __forceinline__ bool render_gpu_splat_value(const render_gpu_grid &g, int i,
							      int j, int k, double p0, double p1,
							      double p2, float *value)
{
	const double dx = __dsub_rn(render_gpu_coord(g, 0, i), p0);
	const double dy = __dsub_rn(render_gpu_coord(g, 1, j), p1);
	const double dz = __dsub_rn(render_gpu_coord(g, 2, k), p2);
	const double d = __dsqrt_rn(__dadd_rn(__dadd_rn(__dmul_rn(dx, dx), __dmul_rn(dy, dy)),
					      __dmul_rn(dz, dz)));

	if (!(d <= g.r_max))
		return false;
	const double e = fmax(d, g.r_min);

	*value = __double2float_rn(__dmul_rn(e, e));
	return true;
}

/*
 * One warp per surface particle q < m: the box of radius r around it into
 * the field, as render_ref.c's render_field_splat (see the top), and the
 * bricks that hold the box's voxels marked in touched. A non-finite
 * position rasterises nothing and is reported in *bad (the smallest such
 * q).
 */
static __global__ void __launch_bounds__(RENDER_GPU_SPLAT_WARPS * 32)
render_gpu_splat_kernel(const __grid_constant__ render_gpu_grid g, const float4 *__restrict__ pos,
			unsigned m, float *__restrict__ field, unsigned char *__restrict__ touched,
			unsigned char *__restrict__ needed, int3 bricks, unsigned *__restrict__ bad)
{
	const unsigned lane = threadIdx.x % 32;
	const unsigned q = blockIdx.x * RENDER_GPU_SPLAT_WARPS + threadIdx.x / 32;

	if (q >= m)
		return;	/* the whole warp */
	const float4 s = pos[q];
	const double p0 = s.x, p1 = s.y, p2 = s.z;
	int a = 0, b = -1;

	if (lane < 3) {
		const double p = lane == 0 ? p0 : lane == 1 ? p1 : p2;

		if (!isfinite(p))
			atomicMin(bad, q);
		else if (!render_gpu_span(g, lane, p, &a, &b))
			b = a - 1;
	}
	/* lane k's span to every lane: the box is lo .. hi */
	int lo[3], hi[3];

#pragma unroll
	for (int k = 0; k < 3; k++) {
		lo[k] = __shfl_sync(RENDER_GPU_FULL_MASK, a, k);
		hi[k] = __shfl_sync(RENDER_GPU_FULL_MASK, b, k);
		if (hi[k] < lo[k])
			return;	/* the whole warp */
	}
	/* the bricks holding the box's voxels grown by one (the last brick
	 * holds the last voxel): needed; those holding the box's own: touched */
	const int nb[3] = { bricks.x, bricks.y, bricks.z };
	int blo[3], bn[3], tlo[3], thi[3];

#pragma unroll
	for (int k = 0; k < 3; k++) {
		blo[k] = min(max(lo[k] - 1, 0) / RENDER_GPU_BRICK, nb[k] - 1);
		bn[k] = min((hi[k] + 1) / RENDER_GPU_BRICK, nb[k] - 1) - blo[k] + 1;
		tlo[k] = min(lo[k] / RENDER_GPU_BRICK, nb[k] - 1);
		thi[k] = min(hi[k] / RENDER_GPU_BRICK, nb[k] - 1);
	}
	for (int e = lane; e < bn[0] * bn[1] * bn[2]; e += 32) {
		const int b[3] = { blo[0] + e % bn[0], blo[1] + e / bn[0] % bn[1],
				   blo[2] + e / (bn[0] * bn[1]) };
		const size_t at = ((size_t)b[2] * nb[1] + b[1]) * nb[0] + b[0];

		needed[at] = 1;
		if (b[0] >= tlo[0] && b[0] <= thi[0] && b[1] >= tlo[1] && b[1] <= thi[1] &&
		    b[2] >= tlo[2] && b[2] <= thi[2])
			touched[at] = 1;
	}
	/* at most INT_MAX voxels (render_gpu_create checks) */
	const unsigned nx = hi[0] - lo[0] + 1, ny = hi[1] - lo[1] + 1;
	const unsigned count = nx * ny * (hi[2] - lo[2] + 1);

	for (unsigned e = lane; e < count; e += 32) {
		const unsigned row = e / nx;
		const int i = lo[0] + (int)(e - row * nx), j = lo[1] + (int)(row % ny),
			  k = lo[2] + (int)(row / ny);
		float value;

		if (render_gpu_splat_value(g, i, j, k, p0, p1, p2, &value))
			atomicMin((int *)&field[((size_t)k * g.dim[1] + j) * g.dim[0] + i],
				  __float_as_int(value));
	}
}

/* Appends q to list (its length in *count) where the lane's flag is set:
 * one atomicAdd a warp. Every lane of the warp calls it. */
static __device__ __forceinline__ void render_gpu_append(bool flag, unsigned q,
							 unsigned *__restrict__ list,
							 unsigned *__restrict__ count)
{
	const unsigned mask = __ballot_sync(RENDER_GPU_FULL_MASK, flag);
	const unsigned lane = threadIdx.x % 32;
	unsigned base = 0;

	if (!mask)
		return;
	if (lane == (unsigned)__ffs(mask) - 1)
		base = atomicAdd(count, (unsigned)__popc(mask));
	base = __shfl_sync(RENDER_GPU_FULL_MASK, base, __ffs(mask) - 1);
	if (flag)
		list[base + __popc(mask & ((1u << lane) - 1))] = q;
}

/* The bricks of touched_now into list_now (counts[now]), and those of
 * needed_now or needed_last into list_u (counts[2]), in any order. */
static __global__ void render_gpu_list_kernel(const unsigned char *__restrict__ touched_now,
					      const unsigned char *__restrict__ needed_now,
					      const unsigned char *__restrict__ needed_last,
					      unsigned nbricks, unsigned *__restrict__ list_now,
					      unsigned *__restrict__ list_u,
					      unsigned *__restrict__ counts, int now)
{
	/* whole warps go round together (blockDim a multiple of 32) */
	for (unsigned first = blockIdx.x * blockDim.x; first < nbricks;
	     first += gridDim.x * blockDim.x) {
		const unsigned q = first + threadIdx.x;
		const bool t = q < nbricks && touched_now[q];
		const bool u = q < nbricks && (needed_now[q] || needed_last[q]);

		render_gpu_append(t, q, list_now, &counts[now]);
		render_gpu_append(u, q, list_u, &counts[2]);
	}
}

/*
 * One block per brick of list[*count]: for its voxels, vox = (gradient of
 * sqrt(value) by render_ref_gradient's central differences, sqrt(value)),
 * the last negated where the value is the maximum (the top says why those
 * are all the voxels to write); and every brick whose cells or one-voxel
 * rim hold a voxel below the maximum marked occupied, as
 * render_raycast.c's raycast_bricks_make, with its macro brick (occ and
 * occ2 zeroed before). The field's values come through a shared tile of
 * the voxels and their neighbours; the bricks to mark, all next to this
 * one, through 27 shared flags.
 */
static __global__ void __launch_bounds__(RENDER_GPU_BRICK_THREADS, RENDER_GPU_BRICK_BLOCKS)
render_gpu_voxels_kernel(const float *__restrict__ field, float4 *__restrict__ vox,
			 unsigned char *__restrict__ occ, unsigned char *__restrict__ occ2,
			 const unsigned *__restrict__ list, const unsigned *__restrict__ count,
			 int3 dim, int3 bricks, int3 macros, float voxel, float maxf)
{
	__shared__ float tile[RENDER_GPU_TILE * RENDER_GPU_TILE * RENDER_GPU_TILE];
	__shared__ int mark[27];
	const int d[3] = { dim.x, dim.y, dim.z }, nb[3] = { bricks.x, bricks.y, bricks.z };
	const size_t stride[3] = { 1, (size_t)dim.x, (size_t)dim.x * dim.y };
	const int ts[3] = { 1, RENDER_GPU_TILE, RENDER_GPU_TILE * RENDER_GPU_TILE };
	const int me = (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
	const unsigned n = *count;

	for (unsigned q = blockIdx.x; q < n; q += gridDim.x) {
		int b[3], lo[3], on[3], llo[3], ln[3];

		render_gpu_brick_at(list[q], bricks, b);
		for (int a = 0; a < 3; a++) {
			int hi;

			render_gpu_brick_span(b[a], nb[a], d[a], &lo[a], &hi);
			on[a] = hi - lo[a] + 1;
			llo[a] = max(lo[a] - 1, 0);
			ln[a] = min(hi + 1, d[a] - 1) - llo[a] + 1;
		}
		__syncthreads();	/* the last brick's tile and marks are read */
		if (me < 27)
			mark[me] = 0;
		RENDER_GPU_BRICK_LOOP(i, j, k, ln)
		tile[k * ts[2] + j * ts[1] + i] =
			field[(llo[2] + k) * stride[2] + (llo[1] + j) * stride[1] + llo[0] + i];
		__syncthreads();
		RENDER_GPU_BRICK_LOOP(i, j, k, on)
		{
			const int c[3] = { lo[0] + i, lo[1] + j, lo[2] + k };
			const int at_t = (c[2] - llo[2]) * ts[2] + (c[1] - llo[1]) * ts[1] + c[0] - llo[0];
			const size_t at = c[2] * stride[2] + c[1] * stride[1] + c[0];
			const float value = tile[at_t];
			float side[3][2];
			bool empty = !(value < maxf);

			for (int a = 0; a < 3; a++) {
				const int l = c[a] > 0 ? c[a] - 1 : 0;
				const int h = c[a] < d[a] - 1 ? c[a] + 1 : d[a] - 1;

				side[a][0] = tile[at_t - (c[a] - l) * ts[a]];
				side[a][1] = tile[at_t + (h - c[a]) * ts[a]];
				empty = empty && !(side[a][0] < maxf) && !(side[a][1] < maxf);
			}
			/* Empty space: the voxel and its neighbours at the maximum give
			 * a zero gradient, (s - s) / x = +0, and -sqrt(maxf), the same
			 * bits as the general case below without its seven square roots
			 * and three divisions. */
			if (empty) {
				vox[at] = make_float4(0.0f, 0.0f, 0.0f, -sqrtf(maxf));
				continue;
			}
			const float sv = sqrtf(value);
			float g[3];

			for (int a = 0; a < 3; a++) {
				const int l = c[a] > 0 ? c[a] - 1 : 0;
				const int h = c[a] < d[a] - 1 ? c[a] + 1 : d[a] - 1;

				g[a] = d[a] < 2 ? 0.0f
						: (sqrtf(side[a][1]) - sqrtf(side[a][0])) / ((h - l) * voxel);
			}
			vox[at] = make_float4(g[0], g[1], g[2], value < maxf ? sv : -sv);
			if (!(value < maxf))
				continue;
			/* the bricks whose cells or rim hold this voxel: b - 1 .. b + 1 */
			int blo[3], bhi[3];

			for (int a = 0; a < 3; a++) {
				blo[a] = (c[a] > 0 ? (c[a] - 1) / RENDER_GPU_BRICK : 0) - b[a];
				bhi[a] = min((c[a] + 1) / RENDER_GPU_BRICK, nb[a] - 1) - b[a];
			}
			for (int bk = blo[2]; bk <= bhi[2]; bk++)
				for (int bj = blo[1]; bj <= bhi[1]; bj++)
					for (int bi = blo[0]; bi <= bhi[0]; bi++)
						mark[((bk + 1) * 3 + bj + 1) * 3 + bi + 1] = 1;
		}
		__syncthreads();
		if (me < 27 && mark[me]) {
			const int bi = b[0] + me % 3 - 1, bj = b[1] + me / 3 % 3 - 1, bk = b[2] + me / 9 - 1;

			occ[((size_t)bk * nb[1] + bj) * nb[0] + bi] = 1;
			occ2[((size_t)(bk / RENDER_GPU_MACRO) * macros.y + bj / RENDER_GPU_MACRO) *
				     macros.x +
			     bi / RENDER_GPU_MACRO] = 1;
		}
	}
}

/* Every voxel at the maximum and empty space's vox: the field of nothing,
 * written whole once (the passes of a field write only near its bricks). */
static __global__ void render_gpu_clear_kernel(float *__restrict__ field, float4 *__restrict__ vox,
					       size_t n, float maxf)
{
	for (size_t q = blockIdx.x * (size_t)blockDim.x + threadIdx.x; q < n;
	     q += (size_t)gridDim.x * blockDim.x) {
		field[q] = maxf;
		vox[q] = make_float4(0.0f, 0.0f, 0.0f, -sqrtf(maxf));
	}
}

/* Voxels of field[n] below maxf, added to *count. */
static __global__ void render_gpu_count_kernel(const float *__restrict__ field, size_t n,
					       float maxf, unsigned long long *__restrict__ count)
{
	unsigned long long mine = 0;

	for (size_t q = blockIdx.x * (size_t)blockDim.x + threadIdx.x; q < n;
	     q += (size_t)gridDim.x * blockDim.x)
		mine += field[q] < maxf;
	for (int off = 16; off > 0; off /= 2)
		mine += __shfl_down_sync(RENDER_GPU_FULL_MASK, mine, off);
	if (threadIdx.x % 32 == 0 && mine)
		atomicAdd(count, mine);
}

/* ---- raycasting ---------------------------------------------------------- */

/*
 * The slab method of render_raycast.c: the ray o + t dir is inside lo ..
 * hi for t0 <= t <= t1; false when it misses. inv = 1 / dir; an axis the
 * ray is parallel to constrains nothing, or misses if o is outside.
 */
static __device__ __forceinline__ bool render_gpu_slab(float3 o, float3 dir, float3 inv,
						       float3 lo, float3 hi, float *t0, float *t1)
{
	const float os[3] = { o.x, o.y, o.z }, ds[3] = { dir.x, dir.y, dir.z },
		    is[3] = { inv.x, inv.y, inv.z }, ls[3] = { lo.x, lo.y, lo.z },
		    hs[3] = { hi.x, hi.y, hi.z };
	float a = -INFINITY, b = INFINITY;

#pragma unroll
	for (int k = 0; k < 3; k++) {
		if (ds[k] == 0.0f) {
			if (os[k] < ls[k] || os[k] > hs[k])
				return false;
			continue;
		}
		const float ta = (ls[k] - os[k]) * is[k], tb = (hs[k] - os[k]) * is[k];

		a = fmaxf(a, fminf(ta, tb));
		b = fminf(b, fmaxf(ta, tb));
	}
	*t0 = a;
	*t1 = b;
	return a <= b;
}

/* ---- the paper's shading (render_ref.h), in float ------------------------ */

static __device__ __forceinline__ float render_gpu_dot(float3 a, float3 b)
{
	return a.x * b.x + a.y * b.y + a.z * b.z;
}

static __device__ __forceinline__ float3 render_gpu_unit(float3 a)
{
	const float r = rsqrtf(render_gpu_dot(a, a));

	return make_float3(a.x * r, a.y * r, a.z * r);
}

/* render_ref_env: the generated environment in unit direction d. */
static __device__ float3 render_gpu_env(float3 d)
{
	const float3 horizon = make_float3(RENDER_ENV_HORIZON_RGB);
	const float3 zenith = make_float3(RENDER_ENV_ZENITH_RGB);
	const float3 ground = make_float3(RENDER_ENV_GROUND_RGB);
	const float sky_w = __saturatef(0.5f + 0.5f * d.z / (float)RENDER_ENV_BLEND);
	const float h = fmaxf(d.z, 0.0f), f = 2.0f * (float)RENDER_ENV_GROUND_FREQ;
	const float shade = 0.75f + 0.25f * cospif(f * d.x) * cospif(f * d.y);
	const float g = (1.0f - sky_w) * shade;

	return make_float3(sky_w * (horizon.x + (zenith.x - horizon.x) * h) + g * ground.x,
			   sky_w * (horizon.y + (zenith.y - horizon.y) * h) + g * ground.y,
			   sky_w * (horizon.z + (zenith.z - horizon.z) * h) + g * ground.z);
}

/* render_ref_fresnel: Schlick's reflectance between indices n1 and n2. */
static __device__ __forceinline__ float render_gpu_fresnel(float cos_i, float n1, float n2)
{
	const float f0 = (n1 - n2) * (n1 - n2) / ((n1 + n2) * (n1 + n2));
	const float c = 1.0f - __saturatef(cos_i), c2 = c * c;

	return f0 + (1.0f - f0) * c2 * c2 * c;
}

/* render_ref_refract: dir bent at the surface of normal n facing it, from
 * n1 into n2, or reflected past the critical angle (*refracted 0). */
static __device__ float3 render_gpu_refract(float3 dir, float3 n, float n1, float n2,
					    bool *refracted)
{
	const float eta = n1 / n2, cos_i = -render_gpu_dot(n, dir);
	const float k = 1.0f - eta * eta * (1.0f - cos_i * cos_i);

	*refracted = k >= 0.0f;
	if (!*refracted)
		return render_gpu_unit(make_float3(dir.x + 2.0f * cos_i * n.x, dir.y + 2.0f * cos_i * n.y,
						   dir.z + 2.0f * cos_i * n.z));
	const float b = eta * cos_i - sqrtf(k);

	return render_gpu_unit(make_float3(eta * dir.x + b * n.x, eta * dir.y + b * n.y,
					   eta * dir.z + b * n.z));
}

/* The distance [m] at voxel coordinate u, interpolated trilinearly. */
static __device__ float render_gpu_distance_at(const render_gpu_view &v,
					       const float4 *__restrict__ vox, const float u[3])
{
	const size_t sy = (size_t)v.dim[0], sz = sy * v.dim[1];
	int c[3];
	float w[3], d = 0.0f;

#pragma unroll
	for (int k = 0; k < 3; k++) {
		const float uk = fminf(fmaxf(u[k], 0.0f), v.dim[k] - 1.0f);

		c[k] = min((int)floorf(uk), v.dim[k] - 2);
		w[k] = uk - c[k];
	}
	const size_t base = c[2] * sz + c[1] * sy + c[0];
#pragma unroll
	for (int n = 0; n < 8; n++) {
		const int di = n & 1, dj = n >> 1 & 1, dk = n >> 2;
		const float q = __ldg(&vox[base + (dk ? sz : 0) + (dj ? sy : 0) + di]).w;

		d += (di ? w[0] : 1.0f - w[0]) * (dj ? w[1] : 1.0f - w[1]) * (dk ? w[2] : 1.0f - w[2]) *
		     fabsf(q);
	}
	return d;
}

/* render_raycast.c's raycast_wide_normal: the distance's gradient by
 * central differences v.normal_span voxels apart, normalised; false where
 * it has no direction. */
static __device__ bool render_gpu_wide_normal(const render_gpu_view &v,
					      const float4 *__restrict__ vox, const float u[3],
					      float3 *n)
{
	float g[3];

#pragma unroll
	for (int a = 0; a < 3; a++) {
		float q[3] = { u[0], u[1], u[2] };

		q[a] = u[a] + 0.5f * v.normal_span;
		const float hi = render_gpu_distance_at(v, vox, q);
		q[a] = u[a] - 0.5f * v.normal_span;
		g[a] = hi - render_gpu_distance_at(v, vox, q);
	}
	const float len = sqrtf(g[0] * g[0] + g[1] * g[1] + g[2] * g[2]);

	if (!(len > 0.0f))
		return false;
	*n = make_float3(g[0] / len, g[1] / len, g[2] / len);
	return true;
}

/*
 * The sample at voxel coordinate u seen along dir: its alpha (0 for empty
 * space: all eight voxels at the maximum) and, when alpha > 0, its Phong
 * colour (the paper's: with the Fresnel share of the environment it
 * reflects), as render_raycast.c's raycast_sample; its distance [m]
 * (INFINITY for empty space) in *dist. c is u's cell.
 */
template <bool PAPER>
static __device__ __forceinline__ float render_gpu_sample(const render_gpu_view &v,
							  const float4 *__restrict__ vox,
							  const int c[3], const float w[3],
							  float3 dir, float3 *col, float *dist)
{
	const size_t sy = (size_t)v.dim[0], sz = sy * v.dim[1];
	const size_t base = c[2] * sz + c[1] * sy + c[0];
	float4 acc = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
	bool any = false;

#pragma unroll
	for (int n = 0; n < 8; n++) {
		const int di = n & 1, dj = n >> 1 & 1, dk = n >> 2;
		const float4 q = __ldg(&vox[base + (dk ? sz : 0) + (dj ? sy : 0) + di]);
		const float wn = (di ? w[0] : 1.0f - w[0]) * (dj ? w[1] : 1.0f - w[1]) *
				 (dk ? w[2] : 1.0f - w[2]);

		any |= !signbit(q.w);
		acc.x += wn * q.x;
		acc.y += wn * q.y;
		acc.z += wn * q.z;
		acc.w += wn * fabsf(q.w);
	}
	*dist = INFINITY;
	if (!any)
		return 0.0f;
	*dist = acc.w;
	const float x = (acc.w - v.surface_d) * v.inv_band;
	float alpha = v.alpha_max * expf(-x * x);

	/* opacity per length (render_ref.h): 1 at the derived step */
	if (v.alpha_exp != 1.0f)
		alpha = 1.0f - powf(1.0f - alpha, v.alpha_exp);
	const float len = sqrtf(acc.x * acc.x + acc.y * acc.y + acc.z * acc.z);
	float shade = (float)RENDER_PHONG_AMBIENT, spec = 0.0f;
	float3 env = make_float3(0.0f, 0.0f, 0.0f);
	float fr = 0.0f;

	if (len >= RENDER_GPU_FLAT_GRADIENT) {
		const float3 n = make_float3(acc.x / len, acc.y / len, acc.z / len);
		const float ndotl = n.x * v.light.x + n.y * v.light.y + n.z * v.light.z;

		shade += (float)RENDER_PHONG_DIFFUSE * fmaxf(ndotl, 0.0f);
		if (ndotl > 0.0f) {
			/* r = 2 (n.l) n - l; v = -dir; ^32 by five squarings */
			const float rv = -((2.0f * ndotl * n.x - v.light.x) * dir.x +
					   (2.0f * ndotl * n.y - v.light.y) * dir.y +
					   (2.0f * ndotl * n.z - v.light.z) * dir.z);
			float p = fmaxf(rv, 0.0f);

			static_assert(RENDER_PHONG_SHININESS == 32.0, "five squarings are ^32");
			p *= p;
			p *= p;
			p *= p;
			p *= p;
			p *= p;
			spec = (float)RENDER_PHONG_SPECULAR * p;
		}
		if (PAPER) {
			/* the normal facing the ray, the environment it reflects */
			const float nd = render_gpu_dot(n, dir), side = nd > 0.0f ? -1.0f : 1.0f;
			const float cos_i = -side * nd;

			fr = render_gpu_fresnel(cos_i, 1.0f, (float)RENDER_WATER_IOR);
			env = render_gpu_env(make_float3(dir.x + 2.0f * cos_i * side * n.x,
							 dir.y + 2.0f * cos_i * side * n.y,
							 dir.z + 2.0f * cos_i * side * n.z));
		}
	}
	col->x = (1.0f - fr) * __saturatef(v.colour.x * shade + spec) + fr * env.x;
	col->y = (1.0f - fr) * __saturatef(v.colour.y * shade + spec) + fr * env.y;
	col->z = (1.0f - fr) * __saturatef(v.colour.z * shade + spec) + fr * env.z;
	return alpha;
}

/*
 * The first sample index past the exit of the empty cube of side voxels
 * at b side (less RENDER_GPU_SKIP_MARGIN) of the ray eye + t dir sampled
 * at t_in + s step, at least s + 1: render_raycast.c's raycast_brick_exit
 * and skip, for a brick (side 8) or a macro brick (side 32), each clipped
 * to the field's cells.
 */
static __device__ __forceinline__ int render_gpu_brick_exit(const render_gpu_view &v, float3 o,
							    float3 dir, float3 inv, const int b[3],
							    int side, float t_in, int s)
{
	const float3 lo = make_float3(b[0] * side, b[1] * side, b[2] * side);
	const float3 hi = make_float3(fminf(lo.x + side, v.dim[0] - 1.0f),
				      fminf(lo.y + side, v.dim[1] - 1.0f),
				      fminf(lo.z + side, v.dim[2] - 1.0f));
	float t0, t1;

	if (!render_gpu_slab(o, dir, inv, lo, hi, &t0, &t1))
		return s + 1;	/* a miss only by rounding: skip nothing */
	return max(s + 1, (int)ceilf((t1 - t_in) / v.step - RENDER_GPU_SKIP_MARGIN));
}

/*
 * The ray of pixel (px, py): render_raycast.c's raycast_ray in float, in voxel
 * units (see the top). A sample whose cell lies in an empty brick jumps
 * to the first sample index past the brick's exit, less
 * RENDER_GPU_SKIP_MARGIN; in an empty macro brick (every one of its 4^3
 * bricks empty), past the macro brick's exit. Both skip only samples the
 * reference skips: the samples taken are the same. PAPER: the paper's
 * shading (bent rays, Fresnel, the environment), a kernel of its own so
 * that Phong's keeps its registers.
 */
template <bool PAPER>
static __device__ __forceinline__ void
render_gpu_ray(const render_gpu_view &v, const float4 *__restrict__ vox,
	       const unsigned char *__restrict__ occ, const unsigned char *__restrict__ occ2, int px,
	       int py, float *__restrict__ rgb, float *__restrict__ opacity)
{
	if (px >= v.width || py >= v.height)
		return;
	const float x = (2.0f * (px + 0.5f) / v.width - 1.0f) * v.half_w;
	const float y = (1.0f - 2.0f * (py + 0.5f) / v.height) * v.half_h;
	float3 dir = make_float3(v.fwd.x + x * v.right.x + y * v.up.x,
				 v.fwd.y + x * v.right.y + y * v.up.y,
				 v.fwd.z + x * v.right.z + y * v.up.z);
	const float rn = rsqrtf(dir.x * dir.x + dir.y * dir.y + dir.z * dir.z);

	dir = make_float3(dir.x * rn, dir.y * rn, dir.z * rn);
	float3 inv = make_float3(1.0f / dir.x, 1.0f / dir.y, 1.0f / dir.z);
	const float3 top = make_float3(v.dim[0] - 1.0f, v.dim[1] - 1.0f, v.dim[2] - 1.0f);
	float3 o = v.eye;
	float t_in, t_out, acc = 0.0f, prev_d = INFINITY;
	float3 col = make_float3(0.0f, 0.0f, 0.0f);
	int n = -1, s = 0, bends = 0, surfaces = 0, budget = RENDER_GPU_MAX_SAMPLES;
	bool armed = true;

	if (render_gpu_slab(o, dir, inv, make_float3(0.0f, 0.0f, 0.0f), top, &t_in, &t_out)) {
		t_in = fmaxf(t_in, 0.0f);
		if (t_out >= t_in)
			n = (int)fminf(floorf((t_out - t_in) / v.step), (float)budget);
	}
	while (s <= n) {
		const float t = t_in + s * v.step;
		const float u[3] = { o.x + t * dir.x, o.y + t * dir.y, o.z + t * dir.z };
		int c[3];
		float w[3];

		/* the cell and the upper voxels' weights, clamped into the field */
#pragma unroll
		for (int k = 0; k < 3; k++) {
			const float uk = fminf(fmaxf(u[k], 0.0f), v.dim[k] - 1.0f);

			c[k] = min((int)floorf(uk), v.dim[k] - 2);
			w[k] = uk - c[k];
		}
		const int b[3] = { c[0] / RENDER_GPU_BRICK, c[1] / RENDER_GPU_BRICK,
				   c[2] / RENDER_GPU_BRICK };
		const int mb[3] = { b[0] / RENDER_GPU_MACRO, b[1] / RENDER_GPU_MACRO,
				    b[2] / RENDER_GPU_MACRO };

		if (!__ldg(&occ2[(mb[2] * v.macros[1] + mb[1]) * v.macros[0] + mb[0]])) {
			s = min(render_gpu_brick_exit(v, o, dir, inv, mb,
						      RENDER_GPU_BRICK * RENDER_GPU_MACRO, t_in, s),
				n + 1);
			prev_d = INFINITY;
			armed = true;
			continue;
		}
		if (!__ldg(&occ[(b[2] * v.bricks[1] + b[1]) * v.bricks[0] + b[0]])) {
			s = min(render_gpu_brick_exit(v, o, dir, inv, b, RENDER_GPU_BRICK, t_in, s),
				n + 1);
			prev_d = INFINITY;
			armed = true;
			continue;
		}
		float3 cs;
		float d;
		const float alpha = render_gpu_sample<PAPER>(v, vox, c, w, dir, &cs, &d);
		const bool cross = PAPER && armed && d <= v.surface_d && prev_d > v.surface_d &&
				   bends < RENDER_PAPER_MAX_BENDS;

		prev_d = d;
		if (d > v.rearm)
			armed = true;
		if (alpha > 0.0f) {
			col.x += (1.0f - acc) * alpha * cs.x;
			col.y += (1.0f - acc) * alpha * cs.y;
			col.z += (1.0f - acc) * alpha * cs.z;
			acc += (1.0f - acc) * alpha;
			if (acc >= v.opaque)
				break;
		}
		float3 nw;
		if (cross && render_gpu_wide_normal(v, vox, u, &nw)) {
			/* the normal facing the ray; odd surfaces are entered */
			const float side = render_gpu_dot(nw, dir) > 0.0f ? -1.0f : 1.0f;
			const bool entering = ++surfaces % 2 == 1;
			bool refracted;

			nw = make_float3(side * nw.x, side * nw.y, side * nw.z);
			dir = render_gpu_refract(dir, nw,
						 entering ? 1.0f : (float)RENDER_WATER_IOR,
						 entering ? (float)RENDER_WATER_IOR : 1.0f, &refracted);
			if (!refracted)
				surfaces--;	/* reflected: still on this side */
			armed = false;
			bends++;
			/* a new segment from here; the samples left to this ray bound it */
			budget -= s;
			o = make_float3(u[0], u[1], u[2]);
			inv = make_float3(1.0f / dir.x, 1.0f / dir.y, 1.0f / dir.z);
			float t_from;
			t_in = 0.0f;
			n = render_gpu_slab(o, dir, inv, make_float3(0.0f, 0.0f, 0.0f), top, &t_from, &t_out)
				    ? (int)fminf(floorf(fmaxf(t_out, 0.0f) / v.step), (float)max(budget, 0))
				    : 0;
			s = 1;
			continue;
		}
		s++;
	}
	const float3 back = PAPER ? render_gpu_env(dir) : v.background;
	float *out = &rgb[3 * ((size_t)py * v.width + px)];

	out[0] = col.x + (1.0f - acc) * back.x;
	out[1] = col.y + (1.0f - acc) * back.y;
	out[2] = col.z + (1.0f - acc) * back.z;
	opacity[(size_t)py * v.width + px] = acc;
}

/*
 * The rays, a warp's 8 x 4 pixels (a tile) at a time: each warp takes the
 * next tile from *next until none is left. Rays through the water take
 * many more samples than those that miss it, so a fixed grid of blocks
 * leaves SMs idle while the last blocks of long rays finish (30 % of the
 * SMs' cycles at 255,600 particles); taken tile by tile, the work spreads
 * until the end.
 */
template <bool PAPER>
static __global__ void __launch_bounds__(RENDER_GPU_RAY_THREADS)
render_gpu_raycast_kernel(const __grid_constant__ render_gpu_view v,
			  const float4 *__restrict__ vox, const unsigned char *__restrict__ occ,
			  const unsigned char *__restrict__ occ2, float *__restrict__ rgb,
			  float *__restrict__ opacity, unsigned *__restrict__ next)
{
	const unsigned lane = threadIdx.x % 32;
	const unsigned tiles_x = (v.width + RENDER_GPU_RAY_X - 1) / RENDER_GPU_RAY_X;
	const unsigned tiles = tiles_x * ((v.height + RENDER_GPU_RAY_Y - 1) / RENDER_GPU_RAY_Y);

	for (;;) {
		unsigned t = 0;

		if (lane == 0)
			t = atomicAdd(next, 1u);
		t = __shfl_sync(RENDER_GPU_FULL_MASK, t, 0);
		if (t >= tiles)
			break;
		render_gpu_ray<PAPER>(v, vox, occ, occ2,
				      (int)((t % tiles_x) * RENDER_GPU_RAY_X + lane % RENDER_GPU_RAY_X),
				      (int)((t / tiles_x) * RENDER_GPU_RAY_Y + lane / RENDER_GPU_RAY_X),
				      rgb, opacity);
	}
}

/* ---- the API ------------------------------------------------------------- */

/* Queues the field stage's work for the first m surface positions: reset
 * of the last field's bricks, splat, the brick lists, per-voxel data and
 * occupancy. 0, or -1 with r->err. */
static int render_gpu_queue_field(struct render_gpu *r, size_t m)
{
	const struct render_gpu_grid *g = &r->grid;
	const int3 dim = make_int3(g->dim[0], g->dim[1], g->dim[2]);
	const int3 bricks = make_int3(r->bricks[0], r->bricks[1], r->bricks[2]);
	const int3 macros = make_int3(r->macros[0], r->macros[1], r->macros[2]);
	const int last = r->now, now = last ^ 1;
	const unsigned bblocks = render_gpu_blocks(r->nbricks, RENDER_GPU_BLOCK);

	r->now = now;
	const dim3 brick_block(RENDER_GPU_BRICK, RENDER_GPU_BRICK, RENDER_GPU_BRICK_TZ);

	render_gpu_reset_kernel<<<r->list_blocks, brick_block, 0, r->stream>>>(
		r->field, r->list[last], &r->counts[last], dim, bricks, r->maxf);
	if (RENDER_GPU_LAUNCHED(r, "reset kernel"))
		return -1;
	render_gpu_begin_kernel<<<bblocks, RENDER_GPU_BLOCK, 0, r->stream>>>(
		r->touched[now], r->needed[now], r->occ, r->occ2, r->nbricks, r->nmacros, r->counts,
		now);
	if (RENDER_GPU_LAUNCHED(r, "begin kernel"))
		return -1;
	if (m) {
		const unsigned blocks =
			(unsigned)((m + RENDER_GPU_SPLAT_WARPS - 1) / RENDER_GPU_SPLAT_WARPS);

		render_gpu_splat_kernel<<<blocks, RENDER_GPU_SPLAT_WARPS * 32, 0, r->stream>>>(
			*g, r->surface, (unsigned)m, r->field, r->touched[now], r->needed[now], bricks,
			r->bad);
		if (RENDER_GPU_LAUNCHED(r, "splat kernel"))
			return -1;
	}
	render_gpu_list_kernel<<<bblocks, RENDER_GPU_BLOCK, 0, r->stream>>>(
		r->touched[now], r->needed[now], r->needed[last], (unsigned)r->nbricks, r->list[now],
		r->list_u, r->counts, now);
	if (RENDER_GPU_LAUNCHED(r, "list kernel"))
		return -1;
	render_gpu_voxels_kernel<<<r->list_blocks, brick_block, 0, r->stream>>>(
		r->field, r->vox, r->occ, r->occ2, r->list_u, &r->counts[2], dim, bricks, macros,
		r->voxel, r->maxf);
	if (RENDER_GPU_LAUNCHED(r, "voxels kernel"))
		return -1;
	if (!r->no_skip)
		return 0;
	return RENDER_GPU_CHECK(r, cudaMemsetAsync(r->occ, 1, r->nbricks, r->stream)) ||
			       RENDER_GPU_CHECK(r, cudaMemsetAsync(r->occ2, 1, r->nmacros, r->stream))
		       ? -1
		       : 0;
}

/* Allocates r's device side (r's shape set) and writes the field of
 * nothing. 0, or -1 with r->err. */
static int render_gpu_setup(struct render_gpu *r)
{
	int device, sms;

	if (RENDER_GPU_CHECK(r, cudaGetDevice(&device)) ||
	    RENDER_GPU_CHECK(r, cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device)))
		return -1;
	r->list_blocks = (unsigned)(sms > 0 ? sms : 1) * RENDER_GPU_BRICK_BLOCKS;
	for (int k = 0; k < 2; k++) {
		int per_sm = 0;

		if (RENDER_GPU_CHECK(r, cudaOccupancyMaxActiveBlocksPerMultiprocessor(
						&per_sm,
						k ? render_gpu_raycast_kernel<true>
						  : render_gpu_raycast_kernel<false>,
						RENDER_GPU_RAY_THREADS, 0)))
			return -1;
		r->ray_blocks[k] = (unsigned)(sms > 0 ? sms : 1) * (unsigned)(per_sm > 0 ? per_sm : 1);
	}
	if (RENDER_GPU_CHECK(r, cudaStreamCreateWithFlags(&r->stream, cudaStreamNonBlocking)))
		return -1;
	for (; r->nevents < 4; r->nevents++)
		if (RENDER_GPU_CHECK(r, cudaEventCreate(&r->ev[r->nevents])))
			return -1;
	if (render_gpu_alloc(r, &r->field, r->voxels) || render_gpu_alloc(r, &r->vox, r->voxels) ||
	    render_gpu_alloc(r, &r->occ, r->nbricks) || render_gpu_alloc(r, &r->occ2, r->nmacros) ||
	    render_gpu_alloc(r, &r->touched[0], r->nbricks) ||
	    render_gpu_alloc(r, &r->touched[1], r->nbricks) ||
	    render_gpu_alloc(r, &r->needed[0], r->nbricks) ||
	    render_gpu_alloc(r, &r->needed[1], r->nbricks) ||
	    render_gpu_alloc(r, &r->list[0], r->nbricks) ||
	    render_gpu_alloc(r, &r->list[1], r->nbricks) ||
	    render_gpu_alloc(r, &r->list_u, r->nbricks) || render_gpu_alloc(r, &r->counts, 3) ||
	    render_gpu_alloc(r, &r->next, 1) ||
	    render_gpu_alloc(r, &r->surface, r->max_surface) || render_gpu_alloc(r, &r->bad, 1) ||
	    render_gpu_alloc(r, &r->count, 1))
		return -1;
	if (r->has_camera &&
	    (render_gpu_alloc(r, &r->rgb, 3 * (size_t)r->view.width * r->view.height) ||
	     render_gpu_alloc(r, &r->opacity, (size_t)r->view.width * r->view.height)))
		return -1;
	/* a field of nothing until the first render_gpu_field: every voxel at
	 * the maximum, no brick touched or occupied, empty lists */
	render_gpu_clear_kernel<<<render_gpu_blocks(r->voxels, RENDER_GPU_BLOCK), RENDER_GPU_BLOCK, 0,
				  r->stream>>>(r->field, r->vox, r->voxels, r->maxf);
	if (RENDER_GPU_LAUNCHED(r, "clear kernel"))
		return -1;
	r->now = 0;
	return RENDER_GPU_CHECK(r, cudaMemsetAsync(r->occ, 0, r->nbricks, r->stream)) ||
			       RENDER_GPU_CHECK(r, cudaMemsetAsync(r->occ2, 0, r->nmacros, r->stream)) ||
			       RENDER_GPU_CHECK(r, cudaMemsetAsync(r->touched[0], 0, r->nbricks,
								   r->stream)) ||
			       RENDER_GPU_CHECK(r, cudaMemsetAsync(r->touched[1], 0, r->nbricks,
								   r->stream)) ||
			       RENDER_GPU_CHECK(r, cudaMemsetAsync(r->needed[0], 0, r->nbricks,
								   r->stream)) ||
			       RENDER_GPU_CHECK(r, cudaMemsetAsync(r->needed[1], 0, r->nbricks,
								   r->stream)) ||
			       RENDER_GPU_CHECK(r, cudaMemsetAsync(r->counts, 0, 3 * sizeof *r->counts,
								   r->stream)) ||
			       RENDER_GPU_CHECK(r, cudaStreamSynchronize(r->stream))
		       ? -1
		       : 0;
}

int render_gpu_create(struct render_gpu **out, const struct render_params *rp, const double lo[3],
		      const double hi[3], const struct render_camera *c, size_t max_surface,
		      char *err, size_t errlen)
{
	struct render_gpu *r;
	struct render_gpu_grid g;
	struct render_gpu_view v;

	*out = NULL;
	if (errlen)
		err[0] = '\0';
	if (render_gpu_shape(rp, lo, hi, &g, err, errlen) != 0 ||
	    (c && render_gpu_view_make(rp, &g, c, &v, err, errlen) != 0))
		return -1;
	if (max_surface > INT_MAX)
		return render_gpu_refuse(err, errlen, "%zu surface particles, at most %d",
					 max_surface, INT_MAX);
	if (render_gpu_box_bound(&g) > INT_MAX)
		return render_gpu_refuse(err, errlen, "a box of radius r = %g spans more than %d "
					 "voxels of %g", g.r, INT_MAX, g.voxel);
	r = (struct render_gpu *)calloc(1, sizeof *r);
	if (!r)
		return render_gpu_refuse(err, errlen, "no host memory");
	r->grid = g;
	r->voxel = (float)g.voxel;
	r->maxf = (float)(rp->r_max * rp->r_max);
	r->voxels = (size_t)g.dim[0] * g.dim[1] * g.dim[2];
	r->nbricks = 1;
	r->nmacros = 1;
	for (int k = 0; k < 3; k++) {
		r->bricks[k] = g.dim[k] < 2 ? 1 : (g.dim[k] - 2) / RENDER_GPU_BRICK + 1;
		r->macros[k] = (r->bricks[k] - 1) / RENDER_GPU_MACRO + 1;
		r->nbricks *= (size_t)r->bricks[k];
		r->nmacros *= (size_t)r->macros[k];
	}
	r->max_surface = max_surface;
	r->has_camera = c != NULL;
	if (c)
		r->view = v;
	if (render_gpu_setup(r) != 0) {
		snprintf(err, errlen, "%s", r->err);
		render_gpu_destroy(r);
		return -1;
	}
	*out = r;
	return 0;
}

/* 0 when the surface buffer holds m positions, else -1 with r->err. */
static int render_gpu_room(struct render_gpu *r, size_t m)
{
	if (m <= r->max_surface)
		return 0;
	return render_gpu_refuse(r->err, sizeof r->err, "%zu surface positions, room for %zu", m,
				 r->max_surface);
}

void *render_gpu_surface_buffer(struct render_gpu *r)
{
	return r ? r->surface : NULL;
}

int render_gpu_upload_surface(struct render_gpu *r, const float *pos4, size_t m)
{
	if (render_gpu_usable(r) != 0 || render_gpu_room(r, m) != 0)
		return -1;
	return RENDER_GPU_CHECK(r, cudaMemcpyAsync(r->surface, pos4, m * sizeof(float4),
						   cudaMemcpyHostToDevice, r->stream)) ||
			       RENDER_GPU_CHECK(r, cudaStreamSynchronize(r->stream))
		       ? -1
		       : 0;
}

/* Waits for the stage between events start and end; its GPU time into *s. */
static int render_gpu_timed(struct render_gpu *r, int start, int end, double *s)
{
	float ms;

	if (RENDER_GPU_CHECK(r, cudaEventSynchronize(r->ev[end])) ||
	    RENDER_GPU_CHECK(r, cudaEventElapsedTime(&ms, r->ev[start], r->ev[end])))
		return -1;
	*s = 1e-3 * ms;
	return 0;
}

int render_gpu_field(struct render_gpu *r, size_t m)
{
	unsigned bad = UINT_MAX;

	if (render_gpu_usable(r) != 0 || render_gpu_room(r, m) != 0)
		return -1;
	if (RENDER_GPU_CHECK(r, cudaMemsetAsync(r->bad, 0xff, sizeof *r->bad, r->stream)) ||
	    RENDER_GPU_CHECK(r, cudaEventRecord(r->ev[0], r->stream)) ||
	    render_gpu_queue_field(r, m) ||
	    RENDER_GPU_CHECK(r, cudaEventRecord(r->ev[1], r->stream)) ||
	    RENDER_GPU_CHECK(r, cudaMemcpyAsync(&bad, r->bad, sizeof bad, cudaMemcpyDeviceToHost,
						r->stream)) ||
	    RENDER_GPU_CHECK(r, cudaStreamSynchronize(r->stream)) ||
	    render_gpu_timed(r, 0, 1, &r->times.field_s))
		return -1;
	if (bad != UINT_MAX)
		return render_gpu_refuse(r->err, sizeof r->err, "surface position %u is not finite",
					 bad);
	return 0;
}

int render_gpu_raycast(struct render_gpu *r)
{
	if (render_gpu_usable(r) != 0)
		return -1;
	if (!r->has_camera)
		return render_gpu_refuse(r->err, sizeof r->err, "raycast without a camera");
	if (RENDER_GPU_CHECK(r, cudaEventRecord(r->ev[2], r->stream)) ||
	    RENDER_GPU_CHECK(r, cudaMemsetAsync(r->next, 0, sizeof *r->next, r->stream)))
		return -1;
	if (r->view.paper)
		render_gpu_raycast_kernel<true>
			<<<r->ray_blocks[1], RENDER_GPU_RAY_THREADS, 0, r->stream>>>(
				r->view, r->vox, r->occ, r->occ2, r->rgb, r->opacity, r->next);
	else
		render_gpu_raycast_kernel<false>
			<<<r->ray_blocks[0], RENDER_GPU_RAY_THREADS, 0, r->stream>>>(
				r->view, r->vox, r->occ, r->occ2, r->rgb, r->opacity, r->next);
	return RENDER_GPU_LAUNCHED(r, "raycast kernel") ||
		       RENDER_GPU_CHECK(r, cudaEventRecord(r->ev[3], r->stream)) ||
		       render_gpu_timed(r, 2, 3, &r->times.raycast_s)
		       ? -1
		       : 0;
}

/* Copies bytes of device src to host dst and waits. 0 or -1. */
static int render_gpu_download(struct render_gpu *r, void *dst, const void *src, size_t bytes)
{
	return RENDER_GPU_CHECK(r, cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost,
						   r->stream)) ||
			       RENDER_GPU_CHECK(r, cudaStreamSynchronize(r->stream))
		       ? -1
		       : 0;
}

int render_gpu_read_field(struct render_gpu *r, float *values)
{
	if (render_gpu_usable(r) != 0)
		return -1;
	return render_gpu_download(r, values, r->field, r->voxels * sizeof(float));
}

int render_gpu_read_image(struct render_gpu *r, float *rgb)
{
	if (render_gpu_usable(r) != 0)
		return -1;
	if (!r->has_camera)
		return render_gpu_refuse(r->err, sizeof r->err, "no image without a camera");
	return render_gpu_download(r, rgb, r->rgb,
				   3 * (size_t)r->view.width * r->view.height * sizeof(float));
}

int render_gpu_read_opacity(struct render_gpu *r, float *opacity)
{
	if (render_gpu_usable(r) != 0)
		return -1;
	if (!r->has_camera)
		return render_gpu_refuse(r->err, sizeof r->err, "no image without a camera");
	return render_gpu_download(r, opacity, r->opacity,
				   (size_t)r->view.width * r->view.height * sizeof(float));
}

size_t render_gpu_voxels(const struct render_gpu *r)
{
	return r ? r->voxels : 0;
}

int render_gpu_voxels_set(struct render_gpu *r, size_t *count)
{
	unsigned long long n = 0;

	if (render_gpu_usable(r) != 0)
		return -1;
	if (RENDER_GPU_CHECK(r, cudaMemsetAsync(r->count, 0, sizeof *r->count, r->stream)))
		return -1;
	render_gpu_count_kernel<<<render_gpu_blocks(r->voxels, RENDER_GPU_BLOCK), RENDER_GPU_BLOCK,
				  0, r->stream>>>(r->field, r->voxels, r->maxf, r->count);
	if (RENDER_GPU_LAUNCHED(r, "count kernel") ||
	    render_gpu_download(r, &n, r->count, sizeof n))
		return -1;
	*count = (size_t)n;
	return 0;
}

void render_gpu_times(const struct render_gpu *r, struct render_gpu_times *t)
{
	if (r)
		*t = r->times;
	else
		memset(t, 0, sizeof *t);
}

size_t render_gpu_bytes(const struct render_gpu *r)
{
	return r ? r->bytes : 0;
}

const char *render_gpu_error(const struct render_gpu *r)
{
	return r ? r->err : "render_gpu: no context";
}

void render_gpu_destroy(struct render_gpu *r)
{
	if (!r)
		return;
	/* the pointers not allocated are NULL, which cudaFree accepts */
	cudaFree(r->field);
	cudaFree(r->vox);
	cudaFree(r->occ);
	cudaFree(r->occ2);
	for (int k = 0; k < 2; k++) {
		cudaFree(r->touched[k]);
		cudaFree(r->needed[k]);
		cudaFree(r->list[k]);
	}
	cudaFree(r->list_u);
	cudaFree(r->counts);
	cudaFree(r->next);
	cudaFree(r->surface);
	cudaFree(r->rgb);
	cudaFree(r->opacity);
	cudaFree(r->bad);
	cudaFree(r->count);
	for (int k = 0; k < r->nevents; k++)
		cudaEventDestroy(r->ev[k]);
	if (r->stream)
		cudaStreamDestroy(r->stream);
	free(r);
}

void render_gpu_test_mode(struct render_gpu *r, enum render_gpu_test mode)
{
	if (!r)
		return;
	r->grid.short_box = mode == RENDER_GPU_TEST_SHORT_BOX;
	r->no_skip = mode == RENDER_GPU_TEST_NO_SKIP;
}
