/* test_render_normals.c - the normal checks against known normals and the speckle metric, by hand (suite render_normals) */
#include <criterion/criterion.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../harness/render/render_validate.h"
#include "../../reference/render_ref.h"

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
