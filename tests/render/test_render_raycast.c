/* test_render_raycast.c - tests of the reference raycaster: geometry of a hit, background, skipping, early termination, camera */
#include <criterion/criterion.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../reference/render_ref.h"

/* The scene: a cube of side BOX_SIDE at the origin, 64 voxels a side
 * (dim 65), particles of spacing SPACING (the field is built here by the
 * rule of render_ref.h section 2, not by render_ref_field). */
#define BOX_SIDE 0.32
#define RES 64
#define SPACING 0.02
#define TEST_PI 3.14159265358979323846

/* render_ref.h's defaults for water of spacing d, on this file's grid. */
static void params_set(struct render_params *rp, double d)
{
	struct sph_params p;

	sph_params_water(&p, d, 10 * d);
	render_params_default(rp, &p);
	rp->res = RES;
}

/* An n^3 field over the cube, every voxel at fill; f->max is rp's r_max^2. */
static void field_make(struct render_field *f, const struct render_params *rp, double fill)
{
	const size_t n = (size_t)(RES + 1) * (RES + 1) * (RES + 1);

	for (int k = 0; k < 3; k++) {
		f->dim[k] = RES + 1;
		f->lo[k] = 0.0;
	}
	f->voxel = BOX_SIDE / RES;
	f->max = rp->r_max * rp->r_max;
	f->value = malloc(n * sizeof *f->value);
	cr_assert_not_null(f->value);
	for (size_t i = 0; i < n; i++)
		f->value[i] = fill;
}

static double *field_at(struct render_field *f, int i, int j, int k)
{
	return &f->value[((size_t)k * f->dim[1] + j) * f->dim[0] + i];
}

/* Rasterises the particle p as section 2 says: every voxel within r on
 * each axis, value = min(value, max(dist, r_min)^2) where dist <= r_max. */
static void field_add_particle(struct render_field *f, const struct render_params *rp,
			       const double p[3])
{
	int lo[3], hi[3];

	for (int a = 0; a < 3; a++) {
		lo[a] = (int)ceil((p[a] - rp->r - f->lo[a]) / f->voxel);
		hi[a] = (int)floor((p[a] + rp->r - f->lo[a]) / f->voxel);
		lo[a] = lo[a] < 0 ? 0 : lo[a];
		hi[a] = hi[a] > f->dim[a] - 1 ? f->dim[a] - 1 : hi[a];
	}
	for (int k = lo[2]; k <= hi[2]; k++)
		for (int j = lo[1]; j <= hi[1]; j++)
			for (int i = lo[0]; i <= hi[0]; i++) {
				const double c[3] = { i * f->voxel, j * f->voxel, k * f->voxel };
				double d2 = 0.0, d;

				for (int a = 0; a < 3; a++)
					d2 += (f->lo[a] + c[a] - p[a]) * (f->lo[a] + c[a] - p[a]);
				d = sqrt(d2);
				if (d <= rp->r_max) {
					const double v = fmax(d, rp->r_min) * fmax(d, rp->r_min);

					if (v < *field_at(f, i, j, k))
						*field_at(f, i, j, k) = v;
				}
			}
}

static void camera_set(struct render_camera *c, const double eye[3], const double at[3],
		       double fov, int width, int height)
{
	for (int k = 0; k < 3; k++) {
		c->eye[k] = eye[k];
		c->at[k] = at[k];
		c->up[k] = k == 2 ? 1.0 : 0.0;
	}
	c->fov_deg = fov;
	c->width = width;
	c->height = height;
}

static void normalise(double a[3])
{
	const double len = sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);

	for (int k = 0; k < 3; k++)
		a[k] /= len;
}

/* The camera's unit frame as render_ref.h documents it: forward, right =
 * forward x up, up' = right x forward. */
static void camera_frame(const struct render_camera *c, double fwd[3], double right[3],
			 double up[3])
{
	for (int k = 0; k < 3; k++)
		fwd[k] = c->at[k] - c->eye[k];
	normalise(fwd);
	right[0] = fwd[1] * c->up[2] - fwd[2] * c->up[1];
	right[1] = fwd[2] * c->up[0] - fwd[0] * c->up[2];
	right[2] = fwd[0] * c->up[1] - fwd[1] * c->up[0];
	normalise(right);
	up[0] = right[1] * fwd[2] - right[2] * fwd[1];
	up[1] = right[2] * fwd[0] - right[0] * fwd[2];
	up[2] = right[0] * fwd[1] - right[1] * fwd[0];
}

/* Pixel (px, py)'s unit ray direction by the documented pinhole model. */
static void camera_ray(const struct render_camera *c, int px, int py, double dir[3])
{
	const double th = tan(0.5 * c->fov_deg * TEST_PI / 180.0);
	const double x = (2.0 * (px + 0.5) / c->width - 1.0) * th * c->width / c->height;
	const double y = (1.0 - 2.0 * (py + 0.5) / c->height) * th;
	double fwd[3], right[3], up[3];

	camera_frame(c, fwd, right, up);
	for (int k = 0; k < 3; k++)
		dir[k] = fwd[k] + x * right[k] + y * up[k];
	normalise(dir);
}

/* The distance from p to the ray eye + t dir, t >= 0 (dir unit). */
static double ray_distance(const double eye[3], const double dir[3], const double p[3])
{
	double q[3], t = 0.0, d2 = 0.0;

	for (int k = 0; k < 3; k++)
		t += (p[k] - eye[k]) * dir[k];
	t = fmax(t, 0.0);
	for (int k = 0; k < 3; k++) {
		q[k] = eye[k] + t * dir[k] - p[k];
		d2 += q[k] * q[k];
	}
	return sqrt(d2);
}

static double pixel_diff(const double *a, const double *b)
{
	return fmax(fabs(a[0] - b[0]), fmax(fabs(a[1] - b[1]), fabs(a[2] - b[2])));
}

/*
 * One particle in the middle, the camera straight in front of it: the
 * centre ray meets the shell where geometry says (the first sample of
 * alpha > alpha_max e^-4, i.e. |d - surface_d| < 2 band, lies at eye
 * distance D - (surface_d + 2 band) within one step); rays through the
 * particle are coloured, rays passing far from it are background.
 */
Test(render_raycast, one_particle_hit_where_geometry_says)
{
	struct render_params rp;
	struct render_field f;
	struct render_camera c;
	const double p[3] = { 0.16, 0.16, 0.16 }, eye[3] = { 0.16, -0.5, 0.16 };
	const int w = 41, h = 41, centre = (h / 2) * w + w / 2;
	const double step = BOX_SIDE / 250.0, dist = p[1] - eye[1];
	double *rgb = malloc(3 * w * h * sizeof *rgb), *first = malloc(w * h * sizeof *first),
	       *opacity = malloc(w * h * sizeof *opacity);
	struct render_ray_out out = { .first = first, .opacity = opacity };
	int hit = 0, near = 0, far = 0;

	params_set(&rp, SPACING);
	out.alpha_min = rp.alpha_max * exp(-4.0);
	field_make(&f, &rp, rp.r_max * rp.r_max);
	field_add_particle(&f, &rp, p);
	camera_set(&c, eye, p, 20.0, w, h);
	cr_assert_eq(render_ref_raycast_ex(&rp, &f, &c, 1, rgb, &out), 0);

	const double expect = dist - (rp.surface_d + 2.0 * rp.band);
	cr_expect(first[centre] > expect - 1e-12 && first[centre] <= expect + step + 1e-12,
		  "first sample of alpha > %g at %.9g, expected in (%.9g, %.9g]", out.alpha_min,
		  first[centre], expect, expect + step);
	cr_expect_gt(opacity[centre], 0.5, "centre pixel opacity %g", opacity[centre]);
	cr_expect_gt(pixel_diff(rgb + 3 * centre, rp.background), 0.3);

	for (int py = 0; py < h; py++)
		for (int px = 0; px < w; px++) {
			const int pix = py * w + px;
			double dir[3], rho;

			camera_ray(&c, px, py, dir);
			rho = ray_distance(eye, dir, p);
			if (rho < 0.5 * rp.surface_d) {
				hit++;
				cr_expect_gt(opacity[pix], 0.5, "pixel (%d, %d) at %g: opacity %g",
					     px, py, rho, opacity[pix]);
			} else if (rho > rp.r_max + sqrt(3.0) * f.voxel) {
				/* every sample's voxels at the maximum: exactly background */
				far++;
				cr_expect_eq(opacity[pix], 0.0);
				cr_expect_eq(pixel_diff(rgb + 3 * pix, rp.background), 0.0,
					     "pixel (%d, %d) at %g", px, py, rho);
			} else if (rho > rp.surface_d + 3.0 * rp.band) {
				/* alpha <= alpha_max e^-9 = 7.4e-5 at each sample */
				near++;
				cr_expect_lt(pixel_diff(rgb + 3 * pix, rp.background), 2e-3,
					     "pixel (%d, %d) at %g: %g from the background", px, py,
					     rho, pixel_diff(rgb + 3 * pix, rp.background));
			}
		}
	cr_expect(hit > 0 && near > 0 && far > 0, "cases: %d hit, %d near, %d far", hit, near,
		  far);
	free(f.value);
	free(rgb);
	free(first);
	free(opacity);
}

/* A field at the maximum everywhere is pure background, skipped or not. */
Test(render_raycast, empty_field_is_background)
{
	struct render_params rp;
	struct render_field f;
	struct render_camera c;
	const double lo[3] = { 0, 0, 0 }, hi[3] = { BOX_SIDE, BOX_SIDE, BOX_SIDE };
	const int w = 48, h = 27;
	double *rgb = malloc(3 * w * h * sizeof *rgb);

	params_set(&rp, SPACING);
	rp.background[0] = 0.9;	/* not white: each channel its own */
	rp.background[1] = 0.5;
	rp.background[2] = 0.25;
	field_make(&f, &rp, rp.r_max * rp.r_max);
	render_camera_default(&c, lo, hi, w, h);
	for (int skip = 0; skip <= 1; skip++) {
		cr_assert_eq(render_ref_raycast_ex(&rp, &f, &c, skip, rgb, NULL), 0);
		for (int i = 0; i < w * h; i++)
			cr_assert_eq(pixel_diff(rgb + 3 * i, rp.background), 0.0,
				     "skip %d, pixel %d: (%g, %g, %g)", skip, i, rgb[3 * i],
				     rgb[3 * i + 1], rgb[3 * i + 2]);
	}
	free(f.value);
	free(rgb);
}

/* Renders with skipping and without through c; expects the same images
 * and some samples skipped. */
static void expect_skip_changes_nothing(const struct render_params *rp,
					const struct render_field *f,
					const struct render_camera *c)
{
	const size_t n = (size_t)c->width * c->height;
	double *a = malloc(3 * n * sizeof *a), *b = malloc(3 * n * sizeof *b);
	long *sa = malloc(n * sizeof *sa), *sb = malloc(n * sizeof *sb);
	struct render_ray_out oa = { .samples = sa }, ob = { .samples = sb };
	long long evaluated_a = 0, evaluated_b = 0;
	double worst = 0.0;

	cr_assert_eq(render_ref_raycast_ex(rp, f, c, 1, a, &oa), 0);
	cr_assert_eq(render_ref_raycast_ex(rp, f, c, 0, b, &ob), 0);
	for (size_t i = 0; i < n; i++) {
		worst = fmax(worst, pixel_diff(a + 3 * i, b + 3 * i));
		evaluated_a += sa[i];
		evaluated_b += sb[i];
	}
	cr_expect_leq(worst, 1e-12, "largest difference skipped / not: %g", worst);
	cr_expect_eq(memcmp(a, b, 3 * n * sizeof *a), 0, "images not bit-identical");
	cr_expect_gt(oa.skipped, 0, "nothing was skipped");
	cr_expect_eq(ob.skipped, 0);
	/* the same samples, each either evaluated or skipped, up to the same end */
	cr_expect_eq(evaluated_a + oa.skipped, evaluated_b, "%lld evaluated + %lld skipped != %lld",
		     evaluated_a, oa.skipped, evaluated_b);
	cr_expect_lt(evaluated_a, evaluated_b, "skipping evaluated %lld of %lld samples",
		     evaluated_a, evaluated_b);
	free(a);
	free(b);
	free(sa);
	free(sb);
}

/*
 * Skipping changes nothing: particles scattered through the box, and
 * isolated surface voxels on brick faces (index 8: the rim of brick 0,
 * which its cells 7 read, and brick 1's own), seen from the default
 * camera and along an axis (rays on the voxel planes).
 */
Test(render_raycast, skipping_changes_nothing)
{
	struct render_params rp;
	struct render_field f;
	struct render_camera c;
	const double lo[3] = { 0, 0, 0 }, hi[3] = { BOX_SIDE, BOX_SIDE, BOX_SIDE };
	unsigned long long s = 12345;

	params_set(&rp, SPACING);
	field_make(&f, &rp, rp.r_max * rp.r_max);
	for (int n = 0; n < 24; n++) {
		double p[3];

		for (int k = 0; k < 3; k++) {
			s = s * 6364136223846793005ULL + 1442695040888963407ULL;
			p[k] = BOX_SIDE * (double)(s >> 11) / 9007199254740992.0;
		}
		field_add_particle(&f, &rp, p);
	}
	*field_at(&f, 8, 8, 8) = rp.surface_d * rp.surface_d;
	*field_at(&f, 8, 40, 56) = rp.surface_d * rp.surface_d;
	*field_at(&f, 24, 16, 64) = rp.surface_d * rp.surface_d;

	render_camera_default(&c, lo, hi, 96, 54);
	expect_skip_changes_nothing(&rp, &f, &c);

	const double eye[3] = { 0.2 * BOX_SIDE, -1.0, 0.3 * BOX_SIDE };
	const double at[3] = { 0.2 * BOX_SIDE, 0.5, 0.3 * BOX_SIDE };
	camera_set(&c, eye, at, 30.0, 65, 65);
	expect_skip_changes_nothing(&rp, &f, &c);

	const double eye_in[3] = { 0.1, 0.12, 0.14 }, at_in[3] = { 0.3, 0.2, 0.1 };
	camera_set(&c, eye_in, at_in, 60.0, 40, 30);	/* the eye inside the box */
	expect_skip_changes_nothing(&rp, &f, &c);

	/* Isolated surface voxels alone, each seen from its lower octant, so
	 * that rays cross cells 7 of brick 0 (which read voxel 8 only through
	 * the rim) before reaching it. */
	const int voxels[][3] = { { 8, 8, 8 }, { 16, 24, 40 }, { 8, 56, 32 } };

	for (size_t i = 0; i < f.dim[0] * (size_t)f.dim[1] * f.dim[2]; i++)
		f.value[i] = f.max;
	for (size_t v = 0; v < sizeof voxels / sizeof voxels[0]; v++)
		*field_at(&f, voxels[v][0], voxels[v][1], voxels[v][2]) = 0.0;
	for (size_t v = 0; v < sizeof voxels / sizeof voxels[0]; v++) {
		double at_v[3], eye_v[3];

		for (int k = 0; k < 3; k++) {
			at_v[k] = voxels[v][k] * f.voxel;
			eye_v[k] = at_v[k] - (k == 1 ? 0.5 : 0.2 + 0.1 * k);
		}
		camera_set(&c, eye_v, at_v, 2.0, 15, 15);
		expect_skip_changes_nothing(&rp, &f, &c);
	}
	free(f.value);
}

/*
 * Early termination: in a field at surface_d everywhere each sample has
 * alpha = alpha_max and no gradient (ambient light only), so A = 1 -
 * (1 - alpha_max)^n reaches opaque = 0.99 after exactly 6 samples, and
 * the pixel is ambient colour A + (1 - A) background. With an opaque of 2
 * (never reached) the ray goes on through the box. A slab of it behind
 * empty space stops the ray as well: A in [opaque, 1].
 */
Test(render_raycast, early_termination_at_opaque)
{
	struct render_params rp;
	struct render_field f;
	struct render_camera c;
	const double eye[3] = { 0.16, -0.5, 0.16 }, at[3] = { 0.16, 0.16, 0.16 };
	const int w = 9, h = 9;
	double rgb[3 * 9 * 9], opacity[9 * 9];
	long samples[9 * 9];
	struct render_ray_out out = { .opacity = opacity, .samples = samples };
	const int need = (int)ceil(log(1.0 - 0.99) / log(1.0 - 0.6));

	params_set(&rp, SPACING);
	field_make(&f, &rp, rp.surface_d * rp.surface_d);
	camera_set(&c, eye, at, 10.0, w, h);
	cr_assert_eq(need, 6);
	cr_assert_eq(render_ref_raycast_ex(&rp, &f, &c, 1, rgb, &out), 0);
	for (int i = 0; i < w * h; i++) {
		const double a = 1.0 - pow(0.4, need);

		cr_expect_eq(samples[i], need, "pixel %d: %ld samples", i, samples[i]);
		cr_expect(opacity[i] >= rp.opaque && opacity[i] <= 1.0, "opacity %g", opacity[i]);
		cr_expect_float_eq(opacity[i], a, 1e-12);
		for (int k = 0; k < 3; k++)
			cr_expect_float_eq(rgb[3 * i + k],
					   RENDER_PHONG_AMBIENT * rp.colour[k] * a +
						   (1.0 - a) * rp.background[k], 1e-12);
	}
	rp.opaque = 2.0;
	cr_assert_eq(render_ref_raycast_ex(&rp, &f, &c, 1, rgb, &out), 0);
	for (int i = 0; i < w * h; i++) {
		cr_expect_gt(samples[i], 200, "pixel %d: %ld samples without termination", i,
			     samples[i]);
		cr_expect_leq(opacity[i], 1.0);
	}

	/* A slab of voxels y = 40 .. 48 (0.20 .. 0.24 m) behind empty space: the
	 * ray stops a few samples into it. Without skipping the samples from
	 * y = 0 count; with it, those from brick 4 (cells 32 .., 0.16 m), the
	 * first whose rim holds the slab. Rays are at most 8 degrees off y. */
	rp.opaque = 0.99;
	for (int k = 0; k < f.dim[2]; k++)
		for (int j = 0; j < f.dim[1]; j++)
			for (int i = 0; i < f.dim[0]; i++)
				*field_at(&f, i, j, k) = j >= 40 && j <= 48 ?
								 rp.surface_d * rp.surface_d :
								 rp.r_max * rp.r_max;
	for (int skip = 0; skip <= 1; skip++) {
		const double from = skip ? 0.16 : 0.0, step = BOX_SIDE / 250.0;
		const long limit = (long)((0.20 - from) / step / cos(8.0 * TEST_PI / 180.0)) + 12;

		cr_assert_eq(render_ref_raycast_ex(&rp, &f, &c, skip, rgb, &out), 0);
		for (int i = 0; i < w * h; i++) {
			cr_expect(opacity[i] >= rp.opaque && opacity[i] <= 1.0, "opacity %g",
				  opacity[i]);
			cr_expect_lt(samples[i], limit, "skip %d, pixel %d: %ld samples", skip, i,
				     samples[i]);
		}
	}
	free(f.value);
}

/*
 * A lit pixel's colour, by hand. The field's distance falls linearly
 * along +y (d = surface_d + (32 - j) voxel / 2, voxel j), so its
 * gradient, and with it the surface normal n = (0, -1, 0) (towards the
 * camera at -y), is the same at every sample; the centre ray runs along
 * +y. Every sample then has the same colour, so the pixel is
 * A (colour shade + spec) + (1 - A) background, A its opacity, with the
 * Phong terms of render_ref.h (ambient 0.2, diffuse 0.7, specular 0.3,
 * shininess 32) written out here:
 *   light at the camera  (0, -1, 0):  n.l = 1, r = l, so
 *                        shade = 0.9, spec = 0.3
 *   light behind         (0, +1, 0):  n.l = -1: shade = 0.2, no spec
 *   light above-front    (0, -1, 1)/sqrt 2: n.l = 1/sqrt 2, shade =
 *                        0.2 + 0.7/sqrt 2, spec = 0.3 (1/sqrt 2)^32
 * The water's colour (0.5, 0.3, 0.1) and background (0.2, 0.4, 0.6)
 * differ in every channel, so a channel taken for another shows.
 */
Test(render_raycast, a_lit_pixels_colour_by_hand)
{
	struct render_params rp;
	struct render_field f;
	struct render_camera c;
	const double eye[3] = { 0.16, -0.5, 0.16 }, at[3] = { 0.16, 0.16, 0.16 };
	const double s2 = sqrt(0.5);
	const double lights[3][3] = { { 0, -1, 0 }, { 0, 1, 0 }, { 0, -s2, s2 } };
	const double shade[3] = { 0.9, 0.2, 0.2 + 0.7 * s2 };
	const double spec[3] = { 0.3, 0.0, 0.3 * pow(s2, 32) };
	const double colour[3] = { 0.5, 0.3, 0.1 }, bg[3] = { 0.2, 0.4, 0.6 };
	const int w = 5, h = 5, centre = (h / 2) * w + w / 2;
	double rgb[3 * 5 * 5], opacity[5 * 5];
	struct render_ray_out out = { .opacity = opacity };

	params_set(&rp, SPACING);
	field_make(&f, &rp, 0.0);
	for (int k = 0; k < f.dim[2]; k++)
		for (int j = 0; j < f.dim[1]; j++)
			for (int i = 0; i < f.dim[0]; i++) {
				const double d = fmax(rp.surface_d + (32 - j) * f.voxel * 0.5, 0.0);

				*field_at(&f, i, j, k) = fmin(d * d, f.max);
			}
	for (int k = 0; k < 3; k++) {
		rp.colour[k] = colour[k];
		rp.background[k] = bg[k];
	}
	camera_set(&c, eye, at, 1.0, w, h);
	for (int l = 0; l < 3; l++) {
		for (int k = 0; k < 3; k++)
			rp.light[k] = lights[l][k];
		cr_assert_eq(render_ref_raycast_ex(&rp, &f, &c, 1, rgb, &out), 0);
		const double a = opacity[centre];
		cr_expect(a >= rp.opaque && a <= 1.0, "light %d: opacity %g", l, a);
		for (int k = 0; k < 3; k++) {
			const double want = a * fmin(colour[k] * shade[l] + spec[l], 1.0) +
					    (1.0 - a) * bg[k];
			cr_expect(fabs(rgb[3 * centre + k] - want) <= 1e-9,
				  "light %d, channel %d: %.12f, by hand %.12f (opacity %.6f)", l, k,
				  rgb[3 * centre + k], want, a);
		}
	}
	free(f.value);
}

/*
 * A ray that nothing stops samples the box from its entry to its exit:
 * the centre ray along +y crosses the 0.32 m box, and with 250.5 samples
 * per side the step is 0.32 / 250.5, so it takes floor(250.5) + 1 = 251
 * samples (t = 0 .. 250 steps past the entry), the last within the box.
 * The field is everywhere just below its maximum (0.999 r_max), far from
 * the surface, so nothing is skipped and no sample is opaque enough to
 * stop the ray.
 */
Test(render_raycast, an_unstopped_ray_samples_to_the_exit)
{
	struct render_params rp;
	struct render_field f;
	struct render_camera c;
	const double eye[3] = { 0.16, -0.5, 0.16 }, at[3] = { 0.16, 0.16, 0.16 };
	const int w = 3, h = 3, centre = (h / 2) * w + w / 2;
	double rgb[3 * 3 * 3], opacity[3 * 3];
	long samples[3 * 3];
	struct render_ray_out out = { .opacity = opacity, .samples = samples };

	params_set(&rp, SPACING);
	const double d = 0.999 * rp.r_max;
	const double alpha = rp.alpha_max * exp(-pow((d - rp.surface_d) / rp.band, 2));
	cr_assert_lt(251 * alpha, 0.5 * rp.opaque, "d %g, surface_d %g, band %g: alpha %g stops the ray",
		     d, rp.surface_d, rp.band, alpha);
	field_make(&f, &rp, d * d);
	rp.samples_per_unit = 250.5;
	camera_set(&c, eye, at, 1.0, w, h);
	for (int skip = 0; skip <= 1; skip++) {
		cr_assert_eq(render_ref_raycast_ex(&rp, &f, &c, skip, rgb, &out), 0);
		cr_expect_eq(samples[centre], 251, "skip %d: %ld samples", skip, samples[centre]);
		cr_expect_lt(opacity[centre], rp.opaque);
	}
	free(f.value);
}

/* The default camera frames the whole box: its 8 corners project inside
 * the image, from the front (-y), a little above, and fill it (the
 * farthest corner beyond 0.85 of the half-width or half-height). */
Test(render_raycast, camera_default_frames_the_box)
{
	const double boxes[][2][3] = {
		{ { 0, 0, 0 }, { 1, 1, 1 } },
		{ { 0, 0, 0 }, { 0.584, 0.146, 0.3 } },
		{ { -1, 0, 0 }, { 2, 0.1, 0.5 } },
		{ { 0, -3, 0 }, { 0.2, 3, 0.2 } },
	};
	const int sizes[][2] = { { 320, 180 }, { 180, 320 }, { 64, 64 } };

	for (size_t b = 0; b < sizeof boxes / sizeof boxes[0]; b++)
		for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
			const double *lo = boxes[b][0], *hi = boxes[b][1];
			struct render_camera c;
			double fwd[3], right[3], up[3], th, extent = 0.0;

			render_camera_default(&c, lo, hi, sizes[s][0], sizes[s][1]);
			cr_assert_eq(c.width, sizes[s][0]);
			cr_assert_eq(c.height, sizes[s][1]);
			cr_expect_lt(c.eye[1], lo[1], "box %zu: eye not in front", b);
			cr_expect_gt(c.eye[2], 0.5 * (lo[2] + hi[2]), "box %zu: eye not above", b);
			camera_frame(&c, fwd, right, up);
			th = tan(0.5 * c.fov_deg * TEST_PI / 180.0);
			for (int n = 0; n < 8; n++) {
				const double p[3] = { n & 1 ? hi[0] : lo[0], n & 2 ? hi[1] : lo[1],
						      n & 4 ? hi[2] : lo[2] };
				double q[3], z = 0, x = 0, y = 0;

				for (int k = 0; k < 3; k++) {
					q[k] = p[k] - c.eye[k];
					z += q[k] * fwd[k];
					x += q[k] * right[k];
					y += q[k] * up[k];
				}
				cr_assert_gt(z, 0.0);
				x /= z * th * c.width / c.height;
				y /= z * th;
				cr_expect(fabs(x) <= 1.0 && fabs(y) <= 1.0,
					  "box %zu, %dx%d: corner %d at (%g, %g)", b, c.width,
					  c.height, n, x, y);
				extent = fmax(extent, fmax(fabs(x), fabs(y)));
			}
			cr_expect_gt(extent, 0.85, "box %zu, %dx%d: the box spans only %g", b,
				     c.width, c.height, extent);
		}
}

/* Cameras of no pixels or no view, and fields or parameters a ray cannot
 * be cast with, are refused. */
Test(render_raycast, bad_cameras_refused)
{
	struct render_params rp;
	struct render_field f;
	struct render_camera good, c;
	const double lo[3] = { 0, 0, 0 }, hi[3] = { BOX_SIDE, BOX_SIDE, BOX_SIDE };
	double rgb[3 * 16];

	params_set(&rp, SPACING);
	field_make(&f, &rp, rp.r_max * rp.r_max);
	render_camera_default(&good, lo, hi, 4, 4);
	cr_assert_eq(render_ref_raycast(&rp, &f, &good, rgb), 0);

#define EXPECT_REFUSED(what, change)                                                  \
	do {                                                                          \
		c = good;                                                             \
		change;                                                               \
		cr_expect_eq(render_ref_raycast(&rp, &f, &c, rgb), -1, "%s", what);  \
	} while (0)
	EXPECT_REFUSED("width 0", c.width = 0);
	EXPECT_REFUSED("height 0", c.height = 0);
	EXPECT_REFUSED("negative width", c.width = -3);
	EXPECT_REFUSED("width 16385", c.width = 16385);
	EXPECT_REFUSED("eye == at", memcpy(c.eye, c.at, sizeof c.eye));
	EXPECT_REFUSED("up along the view", for (int k = 0; k < 3; k++) c.up[k] = c.at[k] - c.eye[k]);
	EXPECT_REFUSED("up zero", memset(c.up, 0, sizeof c.up));
	EXPECT_REFUSED("fov 0", c.fov_deg = 0.0);
	EXPECT_REFUSED("fov 180", c.fov_deg = 180.0);
	EXPECT_REFUSED("fov NaN", c.fov_deg = NAN);
	EXPECT_REFUSED("eye infinite", c.eye[0] = INFINITY);
	EXPECT_REFUSED("at NaN", c.at[2] = NAN);
#undef EXPECT_REFUSED

	f.dim[1] = 1;
	cr_expect_eq(render_ref_raycast(&rp, &f, &good, rgb), -1, "field of 1 voxel on y");
	f.dim[1] = RES + 1;
	rp.band = 0.0;
	cr_expect_eq(render_ref_raycast(&rp, &f, &good, rgb), -1, "band 0");
	rp.band = 0.25 * SPACING;
	rp.samples_per_unit = 0.0;
	cr_expect_eq(render_ref_raycast(&rp, &f, &good, rgb), -1, "no samples");
	rp.samples_per_unit = 250.0;
	free(f.value);
	f.value = NULL;
	cr_expect_eq(render_ref_raycast(&rp, &f, &good, rgb), -1, "no values");
}

/*
 * Opacity per length (alpha_samples): through a slab of 8 voxels at a
 * distance where alpha ~ 0.1, the centre ray's opacity at 4 and 16 times
 * the samples of alpha_samples agree once corrected (the same material),
 * while uncorrected the finer sampling grows more opaque. At
 * samples_per_unit == alpha_samples the image is bit for bit the
 * uncorrected one.
 */
Test(render_raycast, alpha_per_length_converges_with_the_samples)
{
	struct render_params rp;
	struct render_field f;
	struct render_camera c;
	const double eye[3] = { 0.16, -0.5, 0.16 }, at[3] = { 0.16, 0.16, 0.16 };
	double rgb[3], rgb0[3], a[3], a_raw, opacity[1];
	struct render_ray_out out = { .opacity = opacity };
	const double base = 50.0;

	params_set(&rp, SPACING);
	rp.opaque = 2.0;	/* no early termination */
	field_make(&f, &rp, rp.r_max * rp.r_max);
	for (int k = 0; k < f.dim[2]; k++)
		for (int j = 40; j < 48; j++)
			for (int i = 0; i < f.dim[0]; i++)
				*field_at(&f, i, j, k) = pow(0.835 * SPACING, 2);
	camera_set(&c, eye, at, 1.0, 1, 1);
	rp.alpha_samples = base;
	for (int q = 0; q < 3; q++) {
		rp.samples_per_unit = base * (q == 0 ? 1 : q == 1 ? 4 : 16);
		cr_assert_eq(render_ref_raycast_ex(&rp, &f, &c, 1, rgb, &out), 0);
		a[q] = opacity[0];
	}
	rp.alpha_samples = 0.0;
	cr_assert_eq(render_ref_raycast_ex(&rp, &f, &c, 1, rgb, &out), 0);
	a_raw = opacity[0];
	cr_expect(a[0] > 0.3 && a[0] < 0.9, "opacity at the base sampling %g", a[0]);
	cr_expect_lt(fabs(a[1] - a[2]), 0.02, "corrected: %g at 4x, %g at 16x", a[1], a[2]);
	cr_expect_lt(fabs(a[0] - a[2]), 0.1, "corrected: %g at 1x, %g at 16x", a[0], a[2]);
	cr_expect_gt(a_raw - a[2], 0.2, "uncorrected at 16x %g, corrected %g", a_raw, a[2]);

	rp.samples_per_unit = 250.0;
	cr_assert_eq(render_ref_raycast_ex(&rp, &f, &c, 1, rgb0, NULL), 0);
	rp.alpha_samples = 250.0;
	cr_assert_eq(render_ref_raycast_ex(&rp, &f, &c, 1, rgb, NULL), 0);
	cr_assert_eq(memcmp(rgb, rgb0, sizeof rgb), 0);
	rp.alpha_samples = -1.0;
	cr_assert_eq(render_ref_raycast_ex(&rp, &f, &c, 1, rgb, NULL), -1);
	rp.alpha_samples = NAN;
	cr_assert_eq(render_ref_raycast_ex(&rp, &f, &c, 1, rgb, NULL), -1);
	free(f.value);
}
