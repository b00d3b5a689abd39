/* test_render_normals.c - the reference raycaster's normals against surfaces whose normals are known, its speckle, and planted bugs caught (suite render_normals) */
#include <criterion/criterion.h>
#include <criterion/logging.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../harness/render/render_validate.h"
#include "../../reference/sph_scene.h"

/*
 * Two surfaces whose normals are known, each rendered by the reference at
 * its derived parameters (render_params_derive) with the normal buffer:
 *   flat  the column 20 x 20 x 10 at rest (step 0, the scene's jitter of
 *         0.01 d), d = 1.2 cm, seen from 50 degrees above its top face:
 *         the normal (0, 0, 1) on the top face less two spacings at its
 *         edges, where it turns into the sides (two: the kernel normals'
 *         rounding of the right-angled edge is below 5 degrees there,
 *         4.5 at most);
 *   ball  the nodes of the cubic lattice of spacing d = 1 cm within
 *         NT_BALL_R d of a node: the radial direction from that node,
 *         over the pixels whose radial normal faces the eye within
 *         NT_BALL_RIM degrees (the rim seen edge on, where a pixel spans
 *         a long way of surface, left out: 12 % of the ball's disc).
 * 8.5 d: no node at exactly R, so no lone particle at the poles.
 */
#define NT_FLAT_COLUMN	"20x20x10@0"
#define NT_FLAT_BORDER	2.0	/* spacings */
#define NT_FLAT_W	96
#define NT_FLAT_H	72
#define NT_BALL_R	8.5	/* spacings */
#define NT_BALL_D	0.01
#define NT_BALL_RIM	70.0
#define NT_BALL_W	96

struct nt_scene {
	struct sph_params p;
	double *x;		/* every fluid particle */
	size_t n;
	double *s;		/* the surface particles */
	size_t m;
	double lo[3], hi[3];	/* the field's box */
	struct render_camera cam;
	int ball;
	double top_lo[3], top_hi[3];	/* flat: where the top face's pixels' hits lie */
	double centre[3];	/* ball */
};

/* The planted bugs, each in the kernel normals' field after the normals'
 * stage built it, so that the raycaster shades with them as with the
 * real one: the normal taken from one particle's position (the nearest
 * surface particle's, pointing from it to the voxel) instead of the
 * water's field, and the normal's sign flipped. */
enum nt_plant { NT_NONE, NT_ONE_PARTICLE, NT_SIGN };

static void nt_surface(struct nt_scene *sc)
{
	struct render_params rp;
	unsigned char *surf = malloc(sc->n);

	render_params_default(&rp, &sc->p);
	cr_assert_not_null(surf);
	cr_assert_eq(render_ref_surface(&sc->p, &rp, sc->x, sc->n, surf, &sc->m), 0);
	sc->s = malloc(3 * sc->m * sizeof *sc->s);
	cr_assert_not_null(sc->s);
	for (size_t i = 0, k = 0; i < sc->n; i++)
		if (surf[i])
			memcpy(&sc->s[3 * k++], &sc->x[3 * i], 3 * sizeof *sc->s);
	free(surf);
}

static void nt_flat(struct nt_scene *sc)
{
	struct sph_column col;
	struct sph_scene scene;
	char err[256] = "";
	double top = -HUGE_VAL, xy_lo[2] = { HUGE_VAL, HUGE_VAL }, xy_hi[2] = { -HUGE_VAL, -HUGE_VAL };

	memset(sc, 0, sizeof *sc);
	cr_assert_eq(sph_scene_column_parse(NT_FLAT_COLUMN, &col, err, sizeof err), 0, "%s", err);
	cr_assert_eq(sph_scene_build(&col, 42, &scene, err, sizeof err), 0, "%s", err);
	sc->p = scene.p;
	sc->n = scene.n;
	sc->x = malloc(3 * sc->n * sizeof *sc->x);
	cr_assert_not_null(sc->x);
	for (size_t i = 0; i < sc->n; i++) {
		for (int k = 0; k < 3; k++)
			sc->x[3 * i + k] = scene.pos4[4 * i + k];
		top = fmax(top, sc->x[3 * i + 2]);
		for (int k = 0; k < 2; k++) {
			xy_lo[k] = fmin(xy_lo[k], sc->x[3 * i + k]);
			xy_hi[k] = fmax(xy_hi[k], sc->x[3 * i + k]);
		}
	}
	memcpy(sc->lo, scene.p.box_lo, sizeof sc->lo);
	memcpy(sc->hi, scene.p.box_hi, sizeof sc->hi);
	sph_scene_free(&scene);
	const double d = sc->p.spacing, el = 50.0 * 3.14159265358979323846 / 180.0;
	const double dist = 2.0 * (xy_hi[0] - xy_lo[0]);
	for (int k = 0; k < 2; k++) {
		sc->top_lo[k] = xy_lo[k] + NT_FLAT_BORDER * d;
		sc->top_hi[k] = xy_hi[k] - NT_FLAT_BORDER * d;
		sc->cam.at[k] = 0.5 * (xy_lo[k] + xy_hi[k]);
	}
	sc->top_lo[2] = top;	/* the top layer's samples lie above its centres */
	sc->top_hi[2] = top + 2.0 * d;
	sc->cam.at[2] = top;
	sc->cam.eye[0] = sc->cam.at[0];
	sc->cam.eye[1] = sc->cam.at[1] - dist * cos(el);
	sc->cam.eye[2] = sc->cam.at[2] + dist * sin(el);
	sc->cam.up[2] = 1.0;
	sc->cam.fov_deg = 32.0;
	sc->cam.width = NT_FLAT_W;
	sc->cam.height = NT_FLAT_H;
	nt_surface(sc);
}

static void nt_ball(struct nt_scene *sc)
{
	const double d = NT_BALL_D, view[3] = { -0.35, -0.85, 0.4 };
	const int r = (int)ceil(NT_BALL_R);
	const double vl = sqrt(view[0] * view[0] + view[1] * view[1] + view[2] * view[2]);

	memset(sc, 0, sizeof *sc);
	sc->ball = 1;
	sph_params_water(&sc->p, d, 2.0 * NT_BALL_R * d);
	sc->x = malloc(3 * (size_t)(2 * r + 1) * (2 * r + 1) * (2 * r + 1) * sizeof *sc->x);
	cr_assert_not_null(sc->x);
	for (int k = -r; k <= r; k++)
		for (int j = -r; j <= r; j++)
			for (int i = -r; i <= r; i++)
				if (i * i + j * j + k * k <= NT_BALL_R * NT_BALL_R) {
					sc->x[3 * sc->n] = 0.5 + i * d;
					sc->x[3 * sc->n + 1] = 0.5 + j * d;
					sc->x[3 * sc->n + 2] = 0.5 + k * d;
					sc->n++;
				}
	for (int k = 0; k < 3; k++) {
		sc->centre[k] = 0.5;
		sc->lo[k] = 0.5 - (NT_BALL_R + 4.0) * d;
		sc->hi[k] = 0.5 + (NT_BALL_R + 4.0) * d;
		sc->cam.at[k] = 0.5;
		sc->cam.eye[k] = 0.5 + view[k] / vl * 4.0 * NT_BALL_R * d;
	}
	sc->cam.up[2] = 1.0;
	sc->cam.fov_deg = 2.0 * atan(1.15 / 4.0) * 180.0 / 3.14159265358979323846;
	sc->cam.width = sc->cam.height = NT_BALL_W;
	nt_surface(sc);
}

static void nt_free(struct nt_scene *sc)
{
	free(sc->x);
	free(sc->s);
}

/* The voxel (i, j, k)'s position. */
static void nt_voxel(const struct render_field *f, size_t v, double c[3])
{
	const size_t i = v % f->dim[0], j = v / f->dim[0] % f->dim[1], k = v / f->dim[0] / f->dim[1];

	c[0] = f->lo[0] + i * f->voxel;
	c[1] = f->lo[1] + j * f->voxel;
	c[2] = f->lo[2] + k * f->voxel;
}

static void nt_plant(const struct nt_scene *sc, struct render_field *f, enum nt_plant plant)
{
	const size_t nvox = (size_t)f->dim[0] * f->dim[1] * f->dim[2];

	for (size_t v = 0; plant != NT_NONE && v < nvox; v++) {
		double *g = &f->smooth[RENDER_NORMALS_PER_VOXEL * v + 1], c[3], best = HUGE_VAL;
		size_t near = 0;

		if (plant == NT_SIGN) {
			for (int k = 0; k < 3; k++)
				g[k] = -g[k];
			continue;
		}
		if (f->smooth[RENDER_NORMALS_PER_VOXEL * v] == 0.0)
			continue;	/* a voxel no sample reads */
		nt_voxel(f, v, c);
		for (size_t q = 0; q < sc->m; q++) {
			double r2 = 0.0;

			for (int k = 0; k < 3; k++)
				r2 += (c[k] - sc->s[3 * q + k]) * (c[k] - sc->s[3 * q + k]);
			if (r2 < best) {
				best = r2;
				near = q;
			}
		}
		for (int k = 0; k < 3; k++)
			g[k] = best > 0.0 ? (c[k] - sc->s[3 * near + k]) / sqrt(best) : 0.0;
	}
}

/* What a render of a scene gives. */
struct nt_image {
	int w, h;
	double *rgb, *normal, *hit, *opacity;
	struct render_params rp;
};

static void nt_image_free(struct nt_image *im)
{
	free(im->rgb);
	free(im->normal);
	free(im->hit);
	free(im->opacity);
}

/* sc rendered at its derived parameters with normals and shading, the
 * plant applied to the kernel normals' field. */
static void nt_render(const struct nt_scene *sc, int normals, int shading, enum nt_plant plant,
		      struct nt_image *im)
{
	struct render_field f;
	const size_t px = (size_t)sc->cam.width * sc->cam.height;

	im->w = sc->cam.width;
	im->h = sc->cam.height;
	im->rgb = malloc(3 * px * sizeof *im->rgb);
	im->normal = malloc(3 * px * sizeof *im->normal);
	im->hit = malloc(3 * px * sizeof *im->hit);
	im->opacity = malloc(px * sizeof *im->opacity);
	cr_assert(im->rgb && im->normal && im->hit && im->opacity);
	cr_assert_eq(render_params_derive(&im->rp, &sc->p, sc->lo, sc->hi,
					  render_camera_pixel(&sc->cam), 0, 0.0), 0);
	cr_assert_eq(render_params_shading(&im->rp, shading), 0);
	im->rp.normals = normals;
	cr_assert_eq(render_ref_field(&im->rp, sc->lo, sc->hi, sc->s, sc->m, &f), 0);
	cr_assert_eq(render_ref_normals(&im->rp, &sc->p, sc->x, sc->n, &f), 0);
	if (plant != NT_NONE)
		nt_plant(sc, &f, plant);
	struct render_ray_out out = { .normal = im->normal, .hit = im->hit, .opacity = im->opacity };
	cr_assert_eq(render_ref_raycast_ex(&im->rp, &f, &sc->cam, 1, im->rgb, &out), 0);
	render_field_free(&f);
}

/* The normal check of sc drawn in Phong's shading with normals and plant. */
static void nt_check(const struct nt_scene *sc, int normals, enum nt_plant plant,
		     struct render_normal_check *c)
{
	struct nt_image im;
	const size_t px = (size_t)sc->cam.width * sc->cam.height;
	double *truth = malloc(3 * px * sizeof *truth);
	const double up[3] = { 0.0, 0.0, 1.0 };

	cr_assert_not_null(truth);
	nt_render(sc, normals, RENDER_SHADING_PHONG, plant, &im);
	if (sc->ball)
		render_normals_ball_truth(im.hit, im.opacity, px, sc->centre, sc->cam.eye, NT_BALL_RIM,
					  truth);
	else
		render_normals_plane_truth(im.hit, im.opacity, px, up, sc->top_lo, sc->top_hi, truth);
	cr_assert_eq(render_validate_normals(im.normal, truth, px, c), 0);
	cr_log_info("%s, %s normals%s: %zu pixels, median %.2f, 90th %.2f, 95th %.2f, max %.2f deg, "
		    "%.1f %% within %g deg",
		    sc->ball ? "ball" : "flat top", render_normals_name(normals),
		    plant == NT_ONE_PARTICLE ? " (planted: one particle's)"
		    : plant == NT_SIGN	     ? " (planted: sign flipped)"
					     : "",
		    c->pixels, c->median_deg, c->p90_deg, c->p95_deg, c->max_deg, 100.0 * c->within,
		    RENDER_NORMAL_GOAL_DEG);
	nt_image_free(&im);
	free(truth);
}

/* ---- the normal check ---------------------------------------------------- */

/* Angles by hand: equal, 90 degrees, opposite, no normal (180), a longer
 * normal than unit, pixels off the surface left out. */
Test(render_normals, angles_by_hand)
{
	const double n[] = { 0, 0, 1, 1, 0, 0, 0, 0, -1, 0, 0, 0, 0, 0, 3, 0, 1, 0 };
	const double t[] = { 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1, NAN, NAN, NAN };
	struct render_normal_check c;

	cr_assert_eq(render_validate_normals(n, t, 6, &c), 0);
	cr_expect_eq(c.pixels, 5);
	cr_expect_float_eq(c.median_deg, 90.0, 1e-9);	/* 0 0 90 180 180 */
	cr_expect_float_eq(c.max_deg, 180.0, 1e-9);
	cr_expect_float_eq(c.within, 2.0 / 5.0, 1e-12);
	cr_expect(!c.pass);
	/* within 5 degrees: 4.9 passes, 5.1 does not */
	const double a = 4.9 * 3.14159265358979323846 / 180.0, b = 5.1 * 3.14159265358979323846 / 180.0;
	const double m[] = { sin(a), 0, cos(a), sin(b), 0, cos(b) }, u[] = { 0, 0, 1, 0, 0, 1 };
	cr_assert_eq(render_validate_normals(m, u, 2, &c), 0);
	cr_expect_float_eq(c.within, 0.5, 1e-12);
	cr_assert_eq(render_validate_normals(m, u, 1, &c), 0);
	cr_expect(c.pass);
	cr_expect_eq(render_validate_normals(NULL, u, 1, &c), -1);
	cr_assert_eq(render_validate_normals(m, t + 15, 1, &c), 0);
	cr_expect(c.pixels == 0 && !c.pass, "no surface pixel passes nothing");
}

/* The truths: the plane's box and coverage, the ball's rim. */
Test(render_normals, truths_select_their_pixels)
{
	const double hit[] = { 0.5, 0.5, 1.0, 2.0, 0.5, 1.0, 0.5, 0.5, 1.0, NAN, NAN, NAN };
	const double op[] = { 0.9, 0.9, 0.4, 0.9 };
	const double n[3] = { 0, 0, 1 }, lo[3] = { 0, 0, 0.9 }, hi[3] = { 1, 1, 1.1 };
	double t[12];

	render_normals_plane_truth(hit, op, 4, n, lo, hi, t);
	cr_expect(t[2] == 1.0 && isnan(t[3]) && isnan(t[6]) && isnan(t[9]),
		  "in the box and covered only");
	/* a ball at the origin seen from +z: the pole faces the eye, a point
	 * on the equator is seen edge on */
	const double bh[] = { 0, 0, 1, 1, 0, 0 }, bo[] = { 1, 1 }, c[3] = { 0, 0, 0 },
		     eye[3] = { 0, 0, 10 };
	render_normals_ball_truth(bh, bo, 2, c, eye, 70.0, t);
	cr_expect(t[2] == 1.0 && isnan(t[3]), "pole %g, equator %g", t[2], t[3]);
}

/* ---- the normal buffer --------------------------------------------------- */

/* The buffer is the normal the pixel was shaded with: in a field whose
 * distance falls linearly along +y (the normal (0, -1, 0) everywhere),
 * every pixel's; asking for it changes nothing in the image. */
Test(render_normals, buffer_holds_the_shading_normal_and_changes_no_image)
{
	struct sph_params p;
	struct render_params rp;
	struct render_field f = { .dim = { 65, 65, 65 }, .voxel = 0.005 };
	struct render_camera c = { .eye = { 0.16, -0.5, 0.16 }, .at = { 0.16, 0.16, 0.16 },
				   .up = { 0, 0, 1 }, .fov_deg = 10.0, .width = 9, .height = 9 };
	double rgb[3 * 81], plain[3 * 81], normal[3 * 81], hit[3 * 81], op[81];
	struct render_ray_out out = { .normal = normal, .hit = hit, .opacity = op };

	sph_params_water(&p, 0.02, 0.2);
	render_params_default(&rp, &p);
	rp.res = 64;
	f.max = rp.r_max * rp.r_max;
	f.value = malloc(65 * 65 * 65 * sizeof *f.value);
	cr_assert_not_null(f.value);
	for (int k = 0; k < 65; k++)
		for (int j = 0; j < 65; j++)
			for (int i = 0; i < 65; i++) {
				const double d = fmax(rp.surface_d + (32 - j) * f.voxel / 2.0, rp.r_min);

				f.value[((size_t)k * 65 + j) * 65 + i] = fmin(d * d, f.max);
			}
	for (int shading = RENDER_SHADING_PHONG; shading <= RENDER_SHADING_PAPER; shading++) {
		render_params_shading(&rp, shading);
		cr_assert_eq(render_ref_raycast_ex(&rp, &f, &c, 1, rgb, &out), 0);
		cr_assert_eq(render_ref_raycast(&rp, &f, &c, plain), 0);
		cr_expect_eq(memcmp(plain, rgb, sizeof rgb), 0, "%s shading: the image moved",
			     render_shading_name(shading));
	}
	render_params_shading(&rp, RENDER_SHADING_PHONG);
	cr_assert_eq(render_ref_raycast_ex(&rp, &f, &c, 1, rgb, &out), 0);
	for (int i = 0; i < 81; i++) {
		cr_expect_float_eq(normal[3 * i + 1], -1.0, 1e-12, "pixel %d: (%g, %g, %g)", i,
				   normal[3 * i], normal[3 * i + 1], normal[3 * i + 2]);
		/* its samples' weighted mean lies in front of where d = surface_d
		 * (voxel j = 32, y = 0.16), within two bands (the distance falls
		 * by 1/2 a metre along y: a band is 2 band of y): the ray turns
		 * opaque inside the band's near half */
		cr_expect(hit[3 * i + 1] < 0.16 && hit[3 * i + 1] > 0.16 - 4.0 * rp.band,
			  "pixel %d: hit at y %g", i, hit[3 * i + 1]);
	}
	/* a ray that meets nothing: no normal, no hit */
	for (size_t v = 0; v < 65 * 65 * 65; v++)
		f.value[v] = f.max;
	cr_assert_eq(render_ref_raycast_ex(&rp, &f, &c, 1, rgb, &out), 0);
	cr_expect(normal[0] == 0.0 && normal[1] == 0.0 && normal[2] == 0.0 && isnan(hit[0]));
	free(f.value);
}

/* With the scenes' own fields too, and with the kernel normals, asking
 * for the buffer changes nothing in the image, in either shading. */
Test(render_normals, buffer_changes_no_image_of_either_normals, .timeout = 60)
{
	struct nt_scene sc;
	struct nt_image im;

	nt_flat(&sc);
	for (int normals = RENDER_NORMALS_FIELD; normals <= RENDER_NORMALS_KERNEL; normals++)
		for (int shading = RENDER_SHADING_PHONG; shading <= RENDER_SHADING_PAPER; shading++) {
			struct render_field f;
			const size_t px = (size_t)sc.cam.width * sc.cam.height;
			double *plain = malloc(3 * px * sizeof *plain);

			cr_assert_not_null(plain);
			nt_render(&sc, normals, shading, NT_NONE, &im);
			cr_assert_eq(render_ref_field(&im.rp, sc.lo, sc.hi, sc.s, sc.m, &f), 0);
			cr_assert_eq(render_ref_normals(&im.rp, &sc.p, sc.x, sc.n, &f), 0);
			cr_assert_eq(render_ref_raycast(&im.rp, &f, &sc.cam, plain), 0);
			cr_expect_eq(memcmp(plain, im.rgb, 3 * px * sizeof *plain), 0,
				     "%s normals, %s shading: the image moved",
				     render_normals_name(normals), render_shading_name(shading));
			render_field_free(&f);
			nt_image_free(&im);
			free(plain);
		}
	nt_free(&sc);
}

/* ---- the kernel normals' stage ------------------------------------------- */

/* The water's field: 1 at a node of the rest lattice farther than R from
 * its faces, minus its gradient 0 there (every voxel read: the field
 * below its maximum everywhere); over the still column, 1/2 half a
 * spacing above the top layer (within a tenth of a spacing), minus its
 * gradient pointing up there, and 0 in the voxels no sample reads. */
Test(render_normals, kernel_field_is_one_inside_half_on_the_surface, .timeout = 60)
{
	struct sph_params p;
	struct render_params rp;
	struct render_field f;
	const double d = 0.01, lo[3] = { 0, 0, 0 }, hi[3] = { 16 * d, 16 * d, 16 * d };
	double *x = malloc(3 * 12 * 12 * 12 * sizeof *x);
	size_t n = 0;

	cr_assert_not_null(x);
	sph_params_water(&p, d, 0.16);
	for (int k = 0; k < 12; k++)
		for (int j = 0; j < 12; j++)
			for (int i = 0; i < 12; i++) {
				x[3 * n] = (i + 2) * d;
				x[3 * n + 1] = (j + 2) * d;
				x[3 * n + 2] = (k + 2) * d;
				n++;
			}
	render_params_default(&rp, &p);
	rp.res = 48;	/* voxel d / 3: the nodes are voxels */
	rp.normals = RENDER_NORMALS_KERNEL;
	cr_assert_eq(render_ref_field(&rp, lo, hi, x, 0, &f), 0);
	for (size_t v = 0; v < (size_t)f.dim[0] * f.dim[1] * f.dim[2]; v++)
		f.value[v] = 0.0;
	cr_assert_eq(render_ref_normals(&rp, &p, x, n, &f), 0);
	const size_t mid = ((size_t)24 * f.dim[1] + 24) * f.dim[0] + 24;	/* node (6, 6, 6) at 8 d */
	const double *w = &f.smooth[RENDER_NORMALS_PER_VOXEL * mid];
	cr_expect_float_eq(w[0], 1.0, 1e-12, "w at an inner node %.15g", w[0]);
	for (int k = 1; k <= 3; k++)
		cr_expect_lt(fabs(w[k]), 1e-9 / d, "gradient %g", w[k]);
	render_field_free(&f);
	free(x);

	struct nt_scene sc;
	nt_flat(&sc);
	render_params_derive(&rp, &sc.p, sc.lo, sc.hi, render_camera_pixel(&sc.cam), 0, 0.0);
	rp.normals = RENDER_NORMALS_KERNEL;
	cr_assert_eq(render_ref_field(&rp, sc.lo, sc.hi, sc.s, sc.m, &f), 0);
	cr_assert_eq(render_ref_normals(&rp, &sc.p, sc.x, sc.n, &f), 0);
	const double top = sc.top_lo[2], sd = sc.p.spacing;
	const int i = (int)lround((sc.cam.at[0] - f.lo[0]) / f.voxel);
	const int j = (int)lround((sc.cam.at[1] - f.lo[1]) / f.voxel);
	double cross = NAN, prev = NAN, prev_z = NAN;

	for (int k = 0; k < f.dim[2]; k++) {
		const size_t v = ((size_t)k * f.dim[1] + j) * f.dim[0] + i;
		const double z = f.lo[2] + k * f.voxel, wv = f.smooth[RENDER_NORMALS_PER_VOXEL * v];

		if (z > top && wv < RENDER_KERNEL_LEVEL && prev >= RENDER_KERNEL_LEVEL && isnan(cross))
			cross = prev_z + (prev - RENDER_KERNEL_LEVEL) / (prev - wv) * (z - prev_z);
		if (z > top - sd && z < top + 2.0 * sd && wv > 0.05)
			cr_expect_gt(f.smooth[RENDER_NORMALS_PER_VOXEL * v + 3], 0.0,
				     "the normal at z %g points down", z);
		prev = wv;
		prev_z = z;
	}
	cr_log_info("kernel field: the level crossed %.3f d above the top layer", (cross - top) / sd);
	cr_expect(fabs(cross - top - 0.5 * sd) < 0.1 * sd, "level %g d above the top layer",
		  (cross - top) / sd);
	const size_t far = (size_t)(f.dim[2] - 1) * f.dim[1] * f.dim[0];
	for (int k = 0; k < RENDER_NORMALS_PER_VOXEL; k++)
		cr_expect_eq(f.smooth[RENDER_NORMALS_PER_VOXEL * far + k], 0.0);
	render_field_free(&f);
	nt_free(&sc);
}

/* Refused: a scale not positive or finite, an unknown mode, a raycast of
 * kernel normals without their field; the field's normals need no stage. */
Test(render_normals, bad_input_is_refused)
{
	struct nt_scene sc;
	struct render_params rp;
	struct render_field f;
	double rgb[3 * 16];
	struct render_camera cam;

	nt_ball(&sc);
	render_params_derive(&rp, &sc.p, sc.lo, sc.hi, 0.0, 48, 0.0);
	cr_assert_eq(render_ref_field(&rp, sc.lo, sc.hi, sc.s, sc.m, &f), 0);
	cr_expect_eq(render_ref_normals(&rp, &sc.p, sc.x, sc.n, &f), 0);
	cr_expect_null(f.smooth, "the field's normals built a field");
	rp.normals = RENDER_NORMALS_KERNEL;
	rp.smooth = 0.0;
	cr_expect_eq(render_ref_normals(&rp, &sc.p, sc.x, sc.n, &f), -1);
	rp.smooth = NAN;
	cr_expect_eq(render_ref_normals(&rp, &sc.p, sc.x, sc.n, &f), -1);
	rp.smooth = 0.04;
	rp.normals = 7;
	cr_expect_eq(render_ref_normals(&rp, &sc.p, sc.x, sc.n, &f), -1);
	cr_expect_null(f.smooth);
	rp.normals = RENDER_NORMALS_KERNEL;
	render_camera_default(&cam, sc.lo, sc.hi, 4, 4);
	cr_expect_eq(render_ref_raycast(&rp, &f, &cam, rgb), -1, "kernel normals without their field");
	cr_expect_eq(render_normals_of("kernel"), RENDER_NORMALS_KERNEL);
	cr_expect_eq(render_normals_of("field"), RENDER_NORMALS_FIELD);
	cr_expect_eq(render_normals_of("smooth"), -1);
	cr_expect_null(render_normals_name(2));
	render_field_free(&f);
	nt_free(&sc);
}

/* With kernel normals, in the paper's shading, whose rays bend at the
 * water's field: skipping empty bricks still changes nothing. */
Test(render_normals, kernel_skipping_changes_nothing, .timeout = 60)
{
	struct nt_scene sc;
	struct render_params rp;
	struct render_field f;

	nt_ball(&sc);
	sc.cam.width = sc.cam.height = 48;
	render_params_derive(&rp, &sc.p, sc.lo, sc.hi, render_camera_pixel(&sc.cam), 0, 0.0);
	render_params_shading(&rp, RENDER_SHADING_PAPER);
	rp.normals = RENDER_NORMALS_KERNEL;
	cr_assert_eq(render_ref_field(&rp, sc.lo, sc.hi, sc.s, sc.m, &f), 0);
	cr_assert_eq(render_ref_normals(&rp, &sc.p, sc.x, sc.n, &f), 0);
	const size_t px = 48 * 48;
	double *a = malloc(3 * px * sizeof *a), *b = malloc(3 * px * sizeof *b);
	int *bends = malloc(px * sizeof *bends);
	struct render_ray_out oa = { .bends = bends }, ob = { 0 };
	long long bent = 0;

	cr_assert(a && b && bends);
	cr_assert_eq(render_ref_raycast_ex(&rp, &f, &sc.cam, 1, a, &oa), 0);
	cr_assert_eq(render_ref_raycast_ex(&rp, &f, &sc.cam, 0, b, &ob), 0);
	cr_expect_eq(memcmp(a, b, 3 * px * sizeof *a), 0, "skipping moved the image");
	cr_expect_gt(oa.skipped, 0);
	for (size_t i = 0; i < px; i++)
		bent += bends[i];
	cr_expect_gt(bent, 0, "no ray bent");
	free(a);
	free(b);
	free(bends);
	render_field_free(&f);
	nt_free(&sc);
}

/* The paper's shading with kernel normals: rays through the still
 * column, a slab, bend by Snell's law into it at the top face and out of
 * it at the bottom one, leaving parallel to how they came (to within 2
 * degrees: the water's normals there are within a degree of the faces'),
 * as through an exact slab: 8 x 8 rays over a patch of the top face two
 * spacings wide. With the field's normals some rays cross a layer of
 * particles between them without falling through surface_d: they do not
 * bend there (a finding, recorded: at least one of the 64). */
Test(render_normals, kernel_bends_by_snell_through_the_still_column, .timeout = 60)
{
	struct nt_scene sc;
	struct render_params rp;
	struct render_field f;
	enum { W = 8 };

	nt_flat(&sc);
	const double dist = sqrt(pow(sc.cam.at[1] - sc.cam.eye[1], 2) + pow(sc.cam.at[2] - sc.cam.eye[2], 2));
	sc.cam.width = sc.cam.height = W;
	sc.cam.fov_deg = 2.0 * atan(sc.p.spacing / dist) * 180.0 / 3.14159265358979323846;
	render_params_derive(&rp, &sc.p, sc.lo, sc.hi, 0.0, 0, 0.0);
	render_params_shading(&rp, RENDER_SHADING_PAPER);
	/* the rays' own directions: their exit through an empty field */
	double way_in[3 * W * W], rgb[3 * W * W];
	struct render_ray_out straight = { .exit_dir = way_in };
	cr_assert_eq(render_ref_field(&rp, sc.lo, sc.hi, sc.s, 0, &f), 0);
	cr_assert_eq(render_ref_raycast_ex(&rp, &f, &sc.cam, 1, rgb, &straight), 0);
	render_field_free(&f);
	for (int normals = RENDER_NORMALS_FIELD; normals <= RENDER_NORMALS_KERNEL; normals++) {
		double exit_dir[3 * W * W], worst = 1.0;
		int bends[W * W], twice = 0;
		struct render_ray_out out = { .exit_dir = exit_dir, .bends = bends };

		rp.normals = normals;
		cr_assert_eq(render_ref_field(&rp, sc.lo, sc.hi, sc.s, sc.m, &f), 0);
		cr_assert_eq(render_ref_normals(&rp, &sc.p, sc.x, sc.n, &f), 0);
		cr_assert_eq(render_ref_raycast_ex(&rp, &f, &sc.cam, 1, rgb, &out), 0);
		for (int i = 0; i < W * W; i++) {
			const double *v = &way_in[3 * i];
			const double c = exit_dir[3 * i] * v[0] + exit_dir[3 * i + 1] * v[1] +
					 exit_dir[3 * i + 2] * v[2];

			twice += bends[i] == 2;
			if (bends[i] == 2)
				worst = fmin(worst, c);
		}
		cr_log_info("%s normals: %d of %d rays bent twice, leaving at most %.2f deg off the way in",
			    render_normals_name(normals), twice, W * W,
			    acos(fmin(worst, 1.0)) * 180.0 / 3.14159265358979323846);
		if (normals == RENDER_NORMALS_KERNEL) {
			cr_expect_eq(twice, W * W);
			cr_expect_gt(worst, cos(2.0 * 3.14159265358979323846 / 180.0));
		} else {
			cr_expect_lt(twice, W * W, "the field's normals bend every ray twice now: "
				     "update results/render.md");
		}
		render_field_free(&f);
	}
	nt_free(&sc);
}

/* ---- the known surfaces -------------------------------------------------- */

/* A scene built by make: its surface's normal check with the kernel
 * normals meets the goal over at least min_pixels. */
static void nt_expect_goal(void (*make)(struct nt_scene *), size_t min_pixels)
{
	struct nt_scene sc;
	struct render_normal_check c;

	make(&sc);
	nt_check(&sc, RENDER_NORMALS_KERNEL, NT_NONE, &c);
	cr_expect_gt(c.pixels, min_pixels, "the surface covers %zu pixels", c.pixels);
	cr_expect(c.pass, "%.1f %% within %g degrees", 100.0 * c.within, RENDER_NORMAL_GOAL_DEG);
	nt_free(&sc);
}

/* The record of the field's normals on the scene make builds: the median
 * and the 95th percentile below theirs, the goal unmet. */
static void nt_expect_record(void (*make)(struct nt_scene *), size_t min_pixels,
			     double median_deg, double p95_deg)
{
	struct nt_scene sc;
	struct render_normal_check c;

	make(&sc);
	nt_check(&sc, RENDER_NORMALS_FIELD, NT_NONE, &c);
	cr_expect_gt(c.pixels, min_pixels);
	cr_expect_lt(c.median_deg, median_deg);
	cr_expect_lt(c.p95_deg, p95_deg);
	cr_expect(!c.pass, "the field's normals meet the goal now (%.1f %% within %g degrees): "
		  "update results/render.md and this record", 100.0 * c.within,
		  RENDER_NORMAL_GOAL_DEG);
	nt_free(&sc);
}

/* plant in the kernel normals fails the check on both surfaces, each
 * median above median_deg. */
static void nt_expect_caught(enum nt_plant plant, double median_deg)
{
	void (*make[2])(struct nt_scene *) = { nt_flat, nt_ball };

	for (int b = 0; b < 2; b++) {
		struct nt_scene sc;
		struct render_normal_check c;

		make[b](&sc);
		nt_check(&sc, RENDER_NORMALS_KERNEL, plant, &c);
		cr_expect(!c.pass && c.median_deg > median_deg, "%s: the planted bug went unnoticed",
			  b ? "ball" : "flat top");
		nt_free(&sc);
	}
}

/* The kernel normals meet the goal on the flat top: at least 95 % of its
 * pixels within 5 degrees of (0, 0, 1) (measured: all of them, the median
 * 0.08 and the largest 4.5 degrees, at its border two spacings in). */
Test(render_normals, flat_top_kernel_normals_meet_the_goal, .timeout = 120)
{
	nt_expect_goal(nt_flat, 1000);
}

/*
 * The distance field's normals on the flat top, as recorded. Over a flat
 * layer the field's gradient points away from the nearest particle,
 * tilting by up to 55 degrees between particles (reference/render_ref.h);
 * a pixel's normal averages its samples across the band. Measured: median
 * 14.7, 95th percentile 23.2, largest 27.1 degrees, 3.3 % of the pixels
 * within 5: the goal is not met, which is the finding. The record holds
 * the median under 20 and the 95th percentile under 30 degrees, so that
 * a regression (a sign flipped: 180; a gradient from elsewhere) fails,
 * and the goal unmet, so that a change to the default normals comes back
 * here and to results/render.md.
 */
Test(render_normals, flat_top_field_normals_as_recorded, .timeout = 120)
{
	nt_expect_record(nt_flat, 1000, 20.0, 30.0);
}

/* The kernel normals meet the goal on the ball (measured: all its pixels
 * within 5 degrees of the radial direction, median 1.9, largest 4.3). */
Test(render_normals, ball_kernel_normals_meet_the_goal, .timeout = 120)
{
	nt_expect_goal(nt_ball, 4000);
}

/*
 * The distance field's normals on the ball, as recorded. On the lattice a
 * ball's surface is terraces (a layer's flat top, a step of one spacing
 * down to the next) of spheres of particles, and the field's normal
 * follows each particle's sphere and each step's riser: measured median
 * 29.4, 95th percentile 62.6, largest 92.4 degrees (a riser seen past its
 * edge), 1.8 % within 5. The record: median under 35, 95th percentile
 * under 70 degrees, the goal unmet (as for the flat top).
 */
Test(render_normals, ball_field_normals_as_recorded, .timeout = 120)
{
	nt_expect_record(nt_ball, 4000, 35.0, 70.0);
}

/* Planted: the normal taken from one particle's position (the nearest
 * surface particle's direction) instead of the water's field fails both
 * checks (measured: 4.7 % and 1.3 % within 5 degrees, medians 23.6 and
 * 34.5). */
Test(render_normals, planted_one_particle_normal_is_caught, .timeout = 120)
{
	nt_expect_caught(NT_ONE_PARTICLE, 10.0);
}

/* Planted: the normal's sign flipped fails both checks (every pixel near
 * 180 degrees). */
Test(render_normals, planted_sign_flip_is_caught, .timeout = 120)
{
	nt_expect_caught(NT_SIGN, 170.0);
}

/* ---- speckle ------------------------------------------------------------- */

/* The metric by hand: a uniform image and a smooth ramp have none; one
 * pixel 21 levels brighter (or darker) is one, 19 levels none; an edge
 * between two halves none; a pixel on the border is not judged; a
 * non-finite channel is refused. */
Test(render_normals, speckle_by_hand)
{
	enum { W = 9, H = 7 };
	double rgb[3 * W * H];
	size_t n;

	for (int i = 0; i < 3 * W * H; i++)
		rgb[i] = 0.5;
	cr_assert_eq(render_image_speckle(rgb, W, H, &n), 0);
	cr_expect_eq(n, 0);
	for (int i = 0; i < W * H; i++)
		for (int k = 0; k < 3; k++)
			rgb[3 * i + k] = 0.2 + 0.6 * (i % W) / (W - 1.0);	/* 19 levels a pixel */
	cr_assert_eq(render_image_speckle(rgb, W, H, &n), 0);
	cr_expect_eq(n, 0, "a ramp: %zu", n);
	for (int i = 0; i < W * H; i++)
		for (int k = 0; k < 3; k++)
			rgb[3 * i + k] = i % W < W / 2 ? 0.1 : 0.9;
	cr_assert_eq(render_image_speckle(rgb, W, H, &n), 0);
	cr_expect_eq(n, 0, "an edge: %zu", n);
	for (int i = 0; i < 3 * W * H; i++)
		rgb[i] = 0.5;
	for (int k = 0; k < 3; k++) {
		rgb[3 * (2 * W + 3) + k] = 0.5 + 21.0 / 255.0;
		rgb[3 * (4 * W + 6) + k] = 0.5 - 21.0 / 255.0;
		rgb[3 * (3 * W + 4) + k] = 0.5 + 19.0 / 255.0;
		rgb[3 * (0 * W + 4) + k] = 1.0;	/* the border */
	}
	cr_assert_eq(render_image_speckle(rgb, W, H, &n), 0);
	cr_expect_eq(n, 2);
	rgb[5] = NAN;
	cr_expect_eq(render_image_speckle(rgb, W, H, &n), -1);
	cr_expect_eq(render_image_speckle(NULL, W, H, &n), -1);
}

/* The speckles of sc's frame in both shadings with normals and plant. */
static void nt_speckle(const struct nt_scene *sc, int normals, enum nt_plant plant, size_t sp[2])
{
	for (int shading = RENDER_SHADING_PHONG; shading <= RENDER_SHADING_PAPER; shading++) {
		struct nt_image im;

		nt_render(sc, normals, shading, plant, &im);
		cr_assert_eq(render_image_speckle(im.rgb, im.w, im.h, &sp[shading]), 0);
		nt_image_free(&im);
	}
	cr_log_info("ball, %s normals%s: speckle %zu in Phong's shading, %zu in the paper's",
		    render_normals_name(normals), plant == NT_ONE_PARTICLE ? " (planted: one particle's)" : "",
		    sp[RENDER_SHADING_PHONG], sp[RENDER_SHADING_PAPER]);
}

/*
 * The paper's shading must not speckle more than Phong's on the same
 * frame: the ball at 96 x 96 (a particle some 4 pixels across, as in the
 * 16,128 column's frames at 480 x 270). With the kernel normals it holds
 * (measured: 10 against Phong's 26); with the field's it does not (248
 * against 64: rays bent by each particle's normal, or not bent at all
 * between particles, land on different parts of the environment), the
 * finding, recorded as for the normals.
 */
Test(render_normals, speckle_paper_not_above_phong_with_kernel_normals, .timeout = 120)
{
	struct nt_scene sc;
	size_t kernel[2], field[2];

	nt_ball(&sc);
	nt_speckle(&sc, RENDER_NORMALS_KERNEL, NT_NONE, kernel);
	cr_expect_leq(kernel[RENDER_SHADING_PAPER], kernel[RENDER_SHADING_PHONG]);
	nt_speckle(&sc, RENDER_NORMALS_FIELD, NT_NONE, field);
	cr_expect_gt(field[RENDER_SHADING_PAPER], field[RENDER_SHADING_PHONG],
		     "the field's normals pass the speckle check now: update results/render.md "
		     "and this record");
	nt_free(&sc);
}

/* Planted: the normal from one particle's position speckles the paper's
 * shading beyond Phong's (measured: 368 against 121). */
Test(render_normals, planted_one_particle_speckle_is_caught, .timeout = 120)
{
	struct nt_scene sc;
	size_t sp[2];

	nt_ball(&sc);
	nt_speckle(&sc, RENDER_NORMALS_KERNEL, NT_ONE_PARTICLE, sp);
	cr_expect_gt(sp[RENDER_SHADING_PAPER], sp[RENDER_SHADING_PHONG],
		     "the planted normal went unnoticed");
	nt_free(&sc);
}
