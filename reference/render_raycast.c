/* render_raycast.c - the SPH paper's raycasting (4.3) in double precision: camera, transfer function, Phong, compositing, empty-space skipping */
#include "render_ref.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define RAYCAST_PI 3.14159265358979323846

/* Voxels on a side of an occupancy brick. */
#define RAYCAST_BRICK 8
/* The largest image side render_ref_raycast accepts. */
#define RAYCAST_MAX_SIDE 16384
/* A gradient shorter than this [1/1] has no direction: ambient only. */
#define RAYCAST_FLAT_GRADIENT 1e-9
/* up is parallel to the view when the sine between them is below this. */
#define RAYCAST_PARALLEL 1e-9
/* Skipping lands this fraction of a step early, so that a sample lying on
 * a brick's exit face (up to rounding) is evaluated, never skipped. */
#define RAYCAST_SKIP_MARGIN 1e-6
/* render_camera_default: vertical field of view [deg], elevation of the
 * eye above the box's centre [deg], and the room left around the box. */
#define RAYCAST_DEFAULT_FOV 40.0
#define RAYCAST_DEFAULT_ELEVATION 20.0
#define RAYCAST_DEFAULT_MARGIN 1.1

static double dot3(const double a[3], const double b[3])
{
	return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static void cross3(const double a[3], const double b[3], double c[3])
{
	c[0] = a[1] * b[2] - a[2] * b[1];
	c[1] = a[2] * b[0] - a[0] * b[2];
	c[2] = a[0] * b[1] - a[1] * b[0];
}

/* Scales a to unit length; returns its length before (0: left as it was). */
static double normalise3(double a[3])
{
	const double len = sqrt(dot3(a, a));

	if (len > 0.0)
		for (int k = 0; k < 3; k++)
			a[k] /= len;
	return len;
}

static int finite3(const double a[3])
{
	return isfinite(a[0]) && isfinite(a[1]) && isfinite(a[2]);
}

void render_ref_env(const double dir[3], double rgb[3])
{
	const double horizon[3] = { RENDER_ENV_HORIZON_RGB }, zenith[3] = { RENDER_ENV_ZENITH_RGB };
	const double ground[3] = { RENDER_ENV_GROUND_RGB };
	const double z = dir[2], sky_w = fmin(fmax(0.5 + 0.5 * z / RENDER_ENV_BLEND, 0.0), 1.0);
	const double h = fmax(z, 0.0);
	const double shade = 0.75 + 0.25 * cos(2.0 * RAYCAST_PI * RENDER_ENV_GROUND_FREQ * dir[0]) *
					   cos(2.0 * RAYCAST_PI * RENDER_ENV_GROUND_FREQ * dir[1]);

	for (int k = 0; k < 3; k++) {
		const double sky = horizon[k] + (zenith[k] - horizon[k]) * h;

		rgb[k] = sky_w * sky + (1.0 - sky_w) * ground[k] * shade;
	}
}

double render_ref_fresnel(double cos_i, double n1, double n2)
{
	const double f0 = (n1 - n2) * (n1 - n2) / ((n1 + n2) * (n1 + n2));
	const double c = 1.0 - fmin(fmax(cos_i, 0.0), 1.0);

	return f0 + (1.0 - f0) * c * c * c * c * c;
}

int render_ref_refract(const double dir[3], const double n[3], double n1, double n2,
		       double out[3])
{
	const double eta = n1 / n2, cos_i = -dot3(n, dir);
	const double k = 1.0 - eta * eta * (1.0 - cos_i * cos_i);

	if (k < 0.0) {
		for (int a = 0; a < 3; a++)
			out[a] = dir[a] + 2.0 * cos_i * n[a];
		normalise3(out);
		return 0;
	}
	for (int a = 0; a < 3; a++)
		out[a] = eta * dir[a] + (eta * cos_i - sqrt(k)) * n[a];
	normalise3(out);
	return 1;
}

double render_camera_pixel(const struct render_camera *c)
{
	double dist = 0.0;

	for (int k = 0; k < 3; k++)
		dist += (c->at[k] - c->eye[k]) * (c->at[k] - c->eye[k]);
	return 2.0 * sqrt(dist) * tan(0.5 * c->fov_deg * RAYCAST_PI / 180.0) / c->height;
}

void render_camera_default(struct render_camera *c, const double lo[3], const double hi[3],
			   int width, int height)
{
	const double elev = RAYCAST_DEFAULT_ELEVATION * RAYCAST_PI / 180.0;
	const double tan_v = tan(0.5 * RAYCAST_DEFAULT_FOV * RAYCAST_PI / 180.0);
	const double aspect = width > 0 && height > 0 ? (double)width / height : 1.0;
	const double tan_h = tan_v * aspect;
	/* towards the scene, and the image's right and up */
	const double fwd[3] = { 0.0, cos(elev), -sin(elev) };
	const double right[3] = { 1.0, 0.0, 0.0 };
	const double up[3] = { 0.0, sin(elev), cos(elev) };
	double dist = 0.0;

	/* The eye backs off from the centre along -fwd until every corner
	 * projects within 1 / margin of the image's centre on both axes:
	 * a corner at (a, b) across the view and c deeper than the centre
	 * needs dist + c >= margin max(|a| / tan_h, |b| / tan_v). */
	for (int k = 0; k < 3; k++)
		c->at[k] = 0.5 * (lo[k] + hi[k]);
	for (int n = 0; n < 8; n++) {
		const double p[3] = { n & 1 ? hi[0] : lo[0], n & 2 ? hi[1] : lo[1],
				      n & 4 ? hi[2] : lo[2] };
		double q[3];

		for (int k = 0; k < 3; k++)
			q[k] = p[k] - c->at[k];
		dist = fmax(dist, RAYCAST_DEFAULT_MARGIN * fmax(fabs(dot3(q, right)) / tan_h,
								fabs(dot3(q, up)) / tan_v) -
					  dot3(q, fwd));
	}
	if (!(dist > 0.0))
		dist = 1.0;	/* an empty box: any view of its point */
	for (int k = 0; k < 3; k++)
		c->eye[k] = c->at[k] - dist * fwd[k];
	c->up[0] = 0.0;
	c->up[1] = 0.0;
	c->up[2] = 1.0;
	c->fov_deg = RAYCAST_DEFAULT_FOV;
	c->width = width;
	c->height = height;
}

/* The camera's frame: the eye, unit vectors forward, right and up (on the
 * image plane), and the half-extents of the image plane at distance 1. */
struct raycast_view {
	double eye[3], fwd[3], right[3], up[3];
	double half_w, half_h;
};

/* Builds v from c. Returns 0, or -1 for a camera render_ref_raycast refuses. */
static int raycast_view_make(const struct render_camera *c, struct raycast_view *v)
{
	double up_len, right_len, fwd_len;

	if (c->width <= 0 || c->height <= 0 || c->width > RAYCAST_MAX_SIDE ||
	    c->height > RAYCAST_MAX_SIDE)
		return -1;
	if (!finite3(c->eye) || !finite3(c->at) || !finite3(c->up) ||
	    !(c->fov_deg > 0.0 && c->fov_deg < 180.0))
		return -1;
	for (int k = 0; k < 3; k++) {
		v->eye[k] = c->eye[k];
		v->fwd[k] = c->at[k] - c->eye[k];
		v->up[k] = c->up[k];
	}
	fwd_len = normalise3(v->fwd);
	up_len = normalise3(v->up);
	if (!(fwd_len > 0.0) || !isfinite(fwd_len) || !(up_len > 0.0) || !isfinite(up_len))
		return -1;
	cross3(v->fwd, v->up, v->right);
	right_len = normalise3(v->right);
	if (!(right_len > RAYCAST_PARALLEL))
		return -1;	/* up parallel to the view */
	cross3(v->right, v->fwd, v->up);
	v->half_h = tan(0.5 * c->fov_deg * RAYCAST_PI / 180.0);
	v->half_w = v->half_h * c->width / c->height;
	return 0;
}

/* The unit direction of pixel (px, py)'s ray, through the pixel's centre. */
static void raycast_view_ray(const struct raycast_view *v, int width, int height,
			     int px, int py, double dir[3])
{
	const double x = (2.0 * (px + 0.5) / width - 1.0) * v->half_w;
	const double y = (1.0 - 2.0 * (py + 0.5) / height) * v->half_h;

	for (int k = 0; k < 3; k++)
		dir[k] = v->fwd[k] + x * v->right[k] + y * v->up[k];
	normalise3(dir);
}

/*
 * Slab method: the parameters t0 <= t1 where the ray o + t dir is inside
 * the box lo .. hi. Returns 1, or 0 when the line misses the box. An axis
 * the ray is parallel to constrains nothing, or misses if o is outside.
 */
static int raycast_slab(const double o[3], const double dir[3], const double lo[3],
			const double hi[3], double *t0, double *t1)
{
	double a = -HUGE_VAL, b = HUGE_VAL;

	for (int k = 0; k < 3; k++) {
		if (dir[k] == 0.0) {
			if (o[k] < lo[k] || o[k] > hi[k])
				return 0;
			continue;
		}
		double ta = (lo[k] - o[k]) / dir[k], tb = (hi[k] - o[k]) / dir[k];

		if (ta > tb) {
			double s = ta;
			ta = tb;
			tb = s;
		}
		a = fmax(a, ta);
		b = fmin(b, tb);
	}
	*t0 = a;
	*t1 = b;
	return a <= b;
}

/* Everything a ray needs: the inputs, the field's box, the step and the
 * occupancy of the bricks (NULL: no skipping). */
struct raycast {
	const struct render_params *rp;
	const struct render_field *f;
	struct raycast_view view;
	double hi[3];
	double step;
	double alpha_exp;	/* alpha_samples / samples_per_unit; 1: none */
	int bricks[3];
	unsigned char *occupied;	/* bricks[0] bricks[1] bricks[2] */
};

static size_t raycast_index(const struct render_field *f, int i, int j, int k)
{
	return ((size_t)k * f->dim[1] + j) * f->dim[0] + i;
}

/* The distance (the square root of the value) at voxel (i, j, k). */
static double raycast_dist(const struct render_field *f, int i, int j, int k)
{
	return sqrt(f->value[raycast_index(f, i, j, k)]);
}

/* The gradient of the distance at voxel (i, j, k) per metre: central
 * differences, one-sided at the grid's faces (as render_ref_gradient). */
static void raycast_voxel_gradient(const struct render_field *f, int i, int j, int k,
				   double g[3])
{
	const int c[3] = { i, j, k };

	for (int a = 0; a < 3; a++) {
		int lo[3] = { i, j, k }, hi[3] = { i, j, k };

		lo[a] = c[a] > 0 ? c[a] - 1 : 0;
		hi[a] = c[a] < f->dim[a] - 1 ? c[a] + 1 : f->dim[a] - 1;
		g[a] = (raycast_dist(f, hi[0], hi[1], hi[2]) - raycast_dist(f, lo[0], lo[1], lo[2])) /
		       ((hi[a] - lo[a]) * f->voxel);
	}
}

/* Where the point p falls: the cell (its lowest voxel, each c[k] in 0 ..
 * dim[k] - 2) and the weights w[k] in [0, 1] of the upper voxels. Points
 * outside the field (by rounding) are clamped to its faces. */
static void raycast_locate(const struct render_field *f, const double p[3], int c[3],
			   double w[3])
{
	for (int k = 0; k < 3; k++) {
		double u = (p[k] - f->lo[k]) / f->voxel;

		u = fmin(fmax(u, 0.0), f->dim[k] - 1.0);
		c[k] = (int)floor(u);
		if (c[k] > f->dim[k] - 2)
			c[k] = f->dim[k] - 2;
		w[k] = u - c[k];
	}
}

/* Trilinear weight of corner (di, dj, dk) of the cell. */
static double raycast_weight(const double w[3], int di, int dj, int dk)
{
	return (di ? w[0] : 1.0 - w[0]) * (dj ? w[1] : 1.0 - w[1]) * (dk ? w[2] : 1.0 - w[2]);
}

/* The distance at p, interpolated trilinearly (its square root per voxel
 * first, as a sample takes it). */
static double raycast_distance_at(const struct render_field *f, const double p[3])
{
	double w[3], d = 0.0;
	int c[3];

	raycast_locate(f, p, c, w);
	for (int n = 0; n < 8; n++)
		d += raycast_weight(w, n & 1, n >> 1 & 1, n >> 2) *
		     raycast_dist(f, c[0] + (n & 1), c[1] + (n >> 1 & 1), c[2] + (n >> 2));
	return d;
}

/* The paper's shading's normal where a ray bends: the distance's gradient
 * by central differences span apart, normalised into n. Returns 0 where it
 * has no direction. */
static int raycast_wide_normal(const struct render_field *f, const double p[3], double span,
			       double n[3])
{
	for (int a = 0; a < 3; a++) {
		double q[3] = { p[0], p[1], p[2] }, hi, lo;

		q[a] = p[a] + 0.5 * span;
		hi = raycast_distance_at(f, q);
		q[a] = p[a] - 0.5 * span;
		lo = raycast_distance_at(f, q);
		n[a] = (hi - lo) / span;
	}
	return normalise3(n) >= RAYCAST_FLAT_GRADIENT;
}

/* What a sample is besides its alpha and colour: the interpolated
 * distance (HUGE_VAL for empty space) and the unit normal (has_n 0 where
 * the gradient has no direction). */
struct raycast_point {
	double d;
	double n[3];
	int has_n;
	double level;		/* the water's field w interpolated (kernel normals) */
};

/*
 * The sample at cell c, weights w, seen along dir: its alpha (0 for empty
 * space: all eight voxels at the maximum) and, when alpha > 0, its colour
 * in col (Phong, or the paper's: Phong with the environment reflected by
 * the Fresnel term); its distance and normal in *pt.
 */
static double raycast_sample(const struct raycast *rc, const int c[3], const double w[3],
			     const double dir[3], double col[3], struct raycast_point *pt)
{
	const struct render_params *rp = rc->rp;
	const struct render_field *f = rc->f;
	double d = 0.0, g[3] = { 0.0, 0.0, 0.0 }, alpha, shade, spec = 0.0;
	int empty = 1;

	pt->d = HUGE_VAL;
	pt->n[0] = pt->n[1] = pt->n[2] = 0.0;
	pt->has_n = 0;
	pt->level = 0.0;
	for (int n = 0; n < 8; n++)
		if (f->value[raycast_index(f, c[0] + (n & 1), c[1] + (n >> 1 & 1),
					   c[2] + (n >> 2))] < f->max)
			empty = 0;
	if (empty)
		return 0.0;
	for (int n = 0; n < 8; n++) {
		const int i = c[0] + (n & 1), j = c[1] + (n >> 1 & 1), k = c[2] + (n >> 2);
		const double wn = raycast_weight(w, n & 1, n >> 1 & 1, n >> 2);
		double gn[3];

		d += wn * raycast_dist(f, i, j, k);
		if (rp->normals == RENDER_NORMALS_FIELD) {
			raycast_voxel_gradient(f, i, j, k, gn);
		} else {
			const double *sv = &f->smooth[RENDER_NORMALS_PER_VOXEL * raycast_index(f, i, j, k)];

			pt->level += wn * sv[0];
			memcpy(gn, sv + 1, sizeof gn);
		}
		for (int a = 0; a < 3; a++)
			g[a] += wn * gn[a];
	}
	alpha = rp->alpha_max * exp(-pow((d - rp->surface_d) / rp->band, 2));
	if (rc->alpha_exp != 1.0)
		alpha = 1.0 - pow(1.0 - alpha, rc->alpha_exp);
	pt->d = d;
	if (normalise3(g) < RAYCAST_FLAT_GRADIENT) {
		shade = RENDER_PHONG_AMBIENT;
	} else {
		pt->has_n = 1;
		memcpy(pt->n, g, sizeof g);
		const double ndotl = dot3(g, rp->light);

		shade = RENDER_PHONG_AMBIENT + RENDER_PHONG_DIFFUSE * fmax(ndotl, 0.0);
		if (ndotl > 0.0) {
			double r[3];

			/* r = 2 (n.l) n - l; v = -dir */
			for (int a = 0; a < 3; a++)
				r[a] = 2.0 * ndotl * g[a] - rp->light[a];
			spec = RENDER_PHONG_SPECULAR *
			       pow(fmax(-dot3(r, dir), 0.0), RENDER_PHONG_SHININESS);
		}
	}
	for (int a = 0; a < 3; a++)
		col[a] = fmin(fmax(rp->colour[a] * shade + spec, 0.0), 1.0);
	if (rp->shading == RENDER_SHADING_PAPER && pt->has_n) {
		/* the normal facing the ray, the environment it reflects */
		const double side = dot3(g, dir) > 0.0 ? -1.0 : 1.0;
		const double cos_i = -side * dot3(g, dir);
		const double fr = render_ref_fresnel(cos_i, 1.0, RENDER_WATER_IOR);
		double r[3], env[3];

		for (int a = 0; a < 3; a++)
			r[a] = dir[a] + 2.0 * cos_i * side * g[a];
		render_ref_env(r, env);
		for (int a = 0; a < 3; a++)
			col[a] = (1.0 - fr) * col[a] + fr * env[a];
	}
	return alpha;
}

/* The normal where the paper's shading bends a ray at p, whose sample is
 * pt: the distance's gradient over RENDER_PAPER_NORMAL_SPAN surface_d
 * (raycast_wide_normal) with the field's normals, the sample's own normal
 * with the others (already smooth). Returns 0 where it has no direction. */
static int raycast_bend_normal(const struct raycast *rc, const double p[3],
			       const struct raycast_point *pt, double n[3])
{
	if (rc->rp->normals == RENDER_NORMALS_FIELD)
		return raycast_wide_normal(rc->f, p, RENDER_PAPER_NORMAL_SPAN * rc->rp->surface_d, n);
	memcpy(n, pt->n, sizeof pt->n);
	return pt->has_n;
}

/* The brick holding cell c. */
static size_t raycast_brick_of(const struct raycast *rc, const int c[3])
{
	return ((size_t)(c[2] / RAYCAST_BRICK) * rc->bricks[1] + c[1] / RAYCAST_BRICK) *
	       rc->bricks[0] + c[0] / RAYCAST_BRICK;
}

/* The parameter t where the ray o + t dir leaves the brick holding cell c. */
static double raycast_brick_exit(const struct raycast *rc, const double o[3], const double dir[3],
				 const int c[3])
{
	const struct render_field *f = rc->f;
	double lo[3], hi[3], t0, t1;

	for (int k = 0; k < 3; k++) {
		const int b = c[k] / RAYCAST_BRICK * RAYCAST_BRICK;
		const int e = b + RAYCAST_BRICK < f->dim[k] - 1 ? b + RAYCAST_BRICK : f->dim[k] - 1;

		lo[k] = f->lo[k] + b * f->voxel;
		hi[k] = f->lo[k] + e * f->voxel;
	}
	if (!raycast_slab(o, dir, lo, hi, &t0, &t1))
		return -HUGE_VAL;	/* only by rounding: skip nothing */
	return t1;
}

/* What one ray gives. */
struct raycast_result {
	double rgb[3];
	double opacity;
	double first;
	double hit[3];		/* where normal was taken (render_ray_out.hit) */
	double normal[3];	/* the shading's normal (render_ray_out.normal) */
	long samples;
	long long skipped;
	double exit_dir[3];
	int bends;
};

/*
 * Casts the ray from the eye along dir0 through the field, compositing
 * front to back until opaque, and skipping empty bricks when rc->occupied
 * is set. A skipped sample is one whose cell lies in an empty brick (its
 * voxels and rim all at the maximum), so that it would contribute
 * nothing: skipping leaves the result as it is. The path is one straight
 * segment (Phong), or, with the paper's shading, bends where it meets the
 * surface: a new segment starts at the sample where it bent, its samples
 * every step from there to where it leaves the box.
 */
static void raycast_ray(const struct raycast *rc, const double dir0[3], double alpha_min,
			struct raycast_result *res)
{
	const struct render_params *rp = rc->rp;
	const struct render_field *f = rc->f;
	const int paper = rp->shading == RENDER_SHADING_PAPER;
	double o[3], dir[3], t_in, t_out, acc = 0.0, col[3] = { 0.0, 0.0, 0.0 };
	double travelled = 0.0, prev_d = HUGE_VAL, back[3], nsum[3] = { 0.0, 0.0, 0.0 };
	double psum[3] = { 0.0, 0.0, 0.0 }, wsum = 0.0;
	const int kernel = rp->normals == RENDER_NORMALS_KERNEL;
	int surfaces = 0, armed = 1, inside = 0;
	long n = -1, s = 0;

	memcpy(o, rc->view.eye, sizeof o);
	memcpy(dir, dir0, sizeof dir);
	res->first = -1.0;
	res->samples = 0;
	res->skipped = 0;
	res->bends = 0;
	if (raycast_slab(o, dir, f->lo, rc->hi, &t_in, &t_out)) {
		t_in = fmax(t_in, 0.0);
		if (t_out >= t_in)
			n = (long)floor((t_out - t_in) / rc->step);
	}
	while (s <= n) {
		const double t = t_in + s * rc->step;
		double p[3], w[3], c_s[3], alpha, wide[3];
		struct raycast_point pt;
		int c[3];

		for (int k = 0; k < 3; k++)
			p[k] = o[k] + t * dir[k];
		raycast_locate(f, p, c, w);
		if (rc->occupied && !rc->occupied[raycast_brick_of(rc, c)]) {
			const double t_exit = raycast_brick_exit(rc, o, dir, c);
			long next = (long)ceil((t_exit - t_in) / rc->step - RAYCAST_SKIP_MARGIN);

			if (next <= s)
				next = s + 1;
			if (next > n + 1)
				next = n + 1;
			res->skipped += next - s;
			s = next;
			prev_d = HUGE_VAL;
			armed = 1;
			continue;
		}
		res->samples++;
		alpha = raycast_sample(rc, c, w, dir, c_s, &pt);
		const int bend = paper && pt.has_n && res->bends < RENDER_PAPER_MAX_BENDS &&
				 (kernel ? (pt.level >= RENDER_KERNEL_LEVEL) != inside
					 : armed && pt.d <= rp->surface_d && prev_d > rp->surface_d);

		prev_d = pt.d;
		if (pt.d > RENDER_PAPER_REARM * rp->surface_d)
			armed = 1;	/* clear of the layer: the next is a new surface */
		if (alpha > 0.0) {
			if (alpha > alpha_min && res->first < 0.0)
				res->first = travelled + t;
			if (res->bends == 0) {
				wsum += (1.0 - acc) * alpha;
				for (int k = 0; k < 3; k++) {
					nsum[k] += (1.0 - acc) * alpha * pt.n[k];
					psum[k] += (1.0 - acc) * alpha * p[k];
				}
			}
			for (int k = 0; k < 3; k++)
				col[k] += (1.0 - acc) * alpha * c_s[k];
			acc += (1.0 - acc) * alpha;
			if (acc >= rp->opaque)
				break;
		}
		if (bend && raycast_bend_normal(rc, p, &pt, wide)) {
			/* the normal facing the ray; odd surfaces are entered (the
			 * kernel normals: the water is entered from air) */
			const double side = dot3(wide, dir) > 0.0 ? -1.0 : 1.0;
			const int entering = kernel ? !inside : ++surfaces % 2 == 1;
			double nf[3], bent[3];

			for (int k = 0; k < 3; k++)
				nf[k] = side * wide[k];
			if (!render_ref_refract(dir, nf, entering ? 1.0 : RENDER_WATER_IOR,
						entering ? RENDER_WATER_IOR : 1.0, bent))
				surfaces--;	/* reflected: still on this side */
			else
				inside = !inside;
			armed = 0;
			travelled += t;
			memcpy(o, p, sizeof o);
			memcpy(dir, bent, sizeof dir);
			res->bends++;
			t_in = 0.0;
			n = raycast_slab(o, dir, f->lo, rc->hi, &t_in, &t_out) && t_out > 0.0
				    ? (long)floor(t_out / rc->step)
				    : 0;
			t_in = 0.0;
			s = 1;
			continue;
		}
		s++;
	}
	if (paper)
		render_ref_env(dir, back);
	else
		memcpy(back, rp->background, sizeof back);
	for (int k = 0; k < 3; k++)
		res->rgb[k] = col[k] + (1.0 - acc) * back[k];
	res->opacity = acc;
	memcpy(res->exit_dir, dir, sizeof dir);
	normalise3(nsum);
	memcpy(res->normal, nsum, sizeof nsum);
	for (int k = 0; k < 3; k++)
		res->hit[k] = wsum > 0.0 ? psum[k] / wsum : NAN;
}

/*
 * The occupancy of the bricks: brick (bi, bj, bk) covers the cells 8 bi ..
 * 8 bi + 7 (and so on); it is occupied when a voxel of it or of its
 * one-voxel rim (8 bi - 1 .. 8 bi + 8, within the field) is below the
 * maximum. Returns the array (malloc'd), or NULL when out of memory.
 */
static unsigned char *raycast_bricks_make(const struct render_field *f, const int nb[3])
{
	unsigned char *occ = calloc((size_t)nb[0] * nb[1] * nb[2], 1);

	if (!occ)
		return NULL;
	for (int k = 0; k < f->dim[2]; k++)
		for (int j = 0; j < f->dim[1]; j++)
			for (int i = 0; i < f->dim[0]; i++) {
				const int v[3] = { i, j, k };
				int lo[3], hi[3];

				if (!(f->value[raycast_index(f, i, j, k)] < f->max))
					continue;
				/* The bricks whose cells or rim hold voxel v. */
				for (int a = 0; a < 3; a++) {
					lo[a] = v[a] > 0 ? (v[a] - 1) / RAYCAST_BRICK : 0;
					hi[a] = (v[a] + 1) / RAYCAST_BRICK;
					if (hi[a] > nb[a] - 1)
						hi[a] = nb[a] - 1;
				}
				for (int bk = lo[2]; bk <= hi[2]; bk++)
					for (int bj = lo[1]; bj <= hi[1]; bj++)
						for (int bi = lo[0]; bi <= hi[0]; bi++)
							occ[((size_t)bk * nb[1] + bj) * nb[0] + bi] = 1;
			}
	return occ;
}

/* Checks what render_ref_raycast refuses in the parameters and the field. */
static int raycast_inputs_ok(const struct render_params *rp, const struct render_field *f)
{
	if (rp->shading != RENDER_SHADING_PHONG && rp->shading != RENDER_SHADING_PAPER)
		return 0;
	if (!render_normals_name(rp->normals) || (rp->normals != RENDER_NORMALS_FIELD && !f->smooth))
		return 0;
	if (!(rp->samples_per_unit > 0.0) || !(rp->band > 0.0) || !(rp->alpha_samples >= 0.0) ||
	    !isfinite(rp->alpha_samples) || !f->value ||
	    !(f->voxel > 0.0) || !isfinite(f->voxel) || !finite3(f->lo))
		return 0;
	for (int k = 0; k < 3; k++)
		if (f->dim[k] < 2)
			return 0;
	return 1;
}

int render_ref_raycast_ex(const struct render_params *rp, const struct render_field *f,
			  const struct render_camera *c, int skip, double *rgb,
			  struct render_ray_out *out)
{
	struct raycast rc = { .rp = rp, .f = f, .occupied = NULL };
	const double alpha_min = out ? out->alpha_min : 0.0;
	double longest = 0.0;
	long long skipped = 0;

	if (!raycast_inputs_ok(rp, f) || raycast_view_make(c, &rc.view) != 0)
		return -1;
	for (int k = 0; k < 3; k++) {
		rc.hi[k] = f->lo[k] + (f->dim[k] - 1) * f->voxel;
		longest = fmax(longest, (f->dim[k] - 1) * f->voxel);
		rc.bricks[k] = (f->dim[k] - 2) / RAYCAST_BRICK + 1;	/* cells 0 .. dim - 2 */
	}
	rc.step = longest / rp->samples_per_unit;
	rc.alpha_exp = rp->alpha_samples > 0.0 ? rp->alpha_samples / rp->samples_per_unit : 1.0;
	if (skip) {
		rc.occupied = raycast_bricks_make(f, rc.bricks);
		if (!rc.occupied)
			return -1;
	}

	/* Pixels are independent: the image is the same with any thread count. */
	#pragma omp parallel for schedule(dynamic, 1) reduction(+:skipped)
	for (int py = 0; py < c->height; py++) {
		for (int px = 0; px < c->width; px++) {
			const size_t pix = (size_t)py * c->width + px;
			struct raycast_result res;
			double dir[3];

			raycast_view_ray(&rc.view, c->width, c->height, px, py, dir);
			raycast_ray(&rc, dir, alpha_min, &res);
			memcpy(rgb + 3 * pix, res.rgb, sizeof res.rgb);
			skipped += res.skipped;
			if (out && out->first)
				out->first[pix] = res.first;
			if (out && out->opacity)
				out->opacity[pix] = res.opacity;
			if (out && out->samples)
				out->samples[pix] = res.samples;
			if (out && out->exit_dir)
				memcpy(out->exit_dir + 3 * pix, res.exit_dir, sizeof res.exit_dir);
			if (out && out->bends)
				out->bends[pix] = res.bends;
			if (out && out->normal)
				memcpy(out->normal + 3 * pix, res.normal, sizeof res.normal);
			if (out && out->hit)
				memcpy(out->hit + 3 * pix, res.hit, sizeof res.hit);
		}
	}
	if (out)
		out->skipped = skipped;
	free(rc.occupied);
	return 0;
}

int render_ref_raycast(const struct render_params *rp, const struct render_field *f,
		       const struct render_camera *c, double *rgb)
{
	return render_ref_raycast_ex(rp, f, c, 1, rgb, NULL);
}
