/* test_render_paper.c - the paper's shading in the reference raycaster: environment, Fresnel, Snell's law, bent rays */
#include <criterion/criterion.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../reference/render_ref.h"

#define TEST_PI 3.14159265358979323846
/* The scene: a cube of side BOX at the origin, RES voxels a side. */
#define BOX 0.32
#define RES 64

static double deg(double a)
{
	return a * TEST_PI / 180.0;
}

Test(render_paper, fresnel_is_f0_head_on_and_one_at_grazing)
{
	const double f0 = pow((1.0 - RENDER_WATER_IOR) / (1.0 + RENDER_WATER_IOR), 2);

	cr_expect_float_eq(render_ref_fresnel(1.0, 1.0, RENDER_WATER_IOR), f0, 1e-15);
	cr_expect_float_eq(f0, 0.0204, 1e-4);
	cr_expect_float_eq(render_ref_fresnel(0.0, 1.0, RENDER_WATER_IOR), 1.0, 1e-15);
	/* Schlick between: (1 - cos_i)^5 */
	for (double c = 0.1; c < 1.0; c += 0.2)
		cr_expect_float_eq(render_ref_fresnel(c, 1.0, RENDER_WATER_IOR),
				   f0 + (1.0 - f0) * pow(1.0 - c, 5.0), 1e-15, "cos_i %g", c);
	/* the same from either side, and growing towards grazing */
	cr_expect_float_eq(render_ref_fresnel(0.5, RENDER_WATER_IOR, 1.0),
			   render_ref_fresnel(0.5, 1.0, RENDER_WATER_IOR), 1e-15);
	cr_expect_lt(render_ref_fresnel(0.9, 1.0, RENDER_WATER_IOR),
		     render_ref_fresnel(0.3, 1.0, RENDER_WATER_IOR));
}

/* A ray at angle a from the normal -z, bent from n1 into n2 at a surface of
 * normal +z: sin(out) = n1 / n2 sin(a), or the mirror ray past the
 * critical angle. */
Test(render_paper, refraction_follows_snell_and_reflects_past_the_critical_angle)
{
	const double n[3] = { 0.0, 0.0, 1.0 };
	const double angles[] = { 0.0, 10.0, 30.0, 45.0, 48.0, 60.0, 85.0 };

	for (size_t i = 0; i < sizeof angles / sizeof *angles; i++)
		for (int into_water = 0; into_water < 2; into_water++) {
			const double a = deg(angles[i]);
			const double dir[3] = { sin(a), 0.0, -cos(a) };
			const double n1 = into_water ? 1.0 : RENDER_WATER_IOR;
			const double n2 = into_water ? RENDER_WATER_IOR : 1.0;
			const double s = n1 / n2 * sin(a);
			double out[3];
			const int refracted = render_ref_refract(dir, n, n1, n2, out);

			cr_expect_float_eq(out[0] * out[0] + out[1] * out[1] + out[2] * out[2], 1.0, 1e-12);
			if (s <= 1.0) {
				cr_assert_eq(refracted, 1, "%g deg, n1 %g", angles[i], n1);
				cr_expect_float_eq(out[0], s, 1e-12, "%g deg, n1 %g", angles[i], n1);
				cr_expect_lt(out[2], 0.0);
				cr_expect_float_eq(out[1], 0.0, 1e-15);
			} else {
				cr_assert_eq(refracted, 0, "%g deg from water: past the critical angle",
					     angles[i]);
				cr_expect_float_eq(out[0], dir[0], 1e-12);
				cr_expect_float_eq(out[2], -dir[2], 1e-12);
			}
		}
}

/* The environment changes by at most RENDER_ENV_SLOPE per radian a
 * direction turns, and that figure is not loose (the steepest turn found
 * is more than half of it): random directions, each turned by 1e-5 rad. */
Test(render_paper, environment_changes_at_most_its_slope)
{
	unsigned long long s = 42;
	double steepest = 0.0;

	for (int i = 0; i < 200000; i++) {
		double v[3], p[3], w[3], a[3], b[3], d = 0.0, nv = 0.0, np = 0.0;
		const double e = 1e-5;

		for (int k = 0; k < 3; k++) {
			s = s * 6364136223846793005ULL + 1442695040888963407ULL;
			v[k] = (double)(s >> 11) / 9007199254740992.0 - 0.5;
			s = s * 6364136223846793005ULL + 1442695040888963407ULL;
			p[k] = (double)(s >> 11) / 9007199254740992.0 - 0.5;
			nv += v[k] * v[k];
		}
		for (int k = 0; k < 3; k++)
			v[k] /= sqrt(nv);
		for (int k = 0; k < 3; k++)
			d += p[k] * v[k];
		for (int k = 0; k < 3; k++) {
			p[k] -= d * v[k];
			np += p[k] * p[k];
		}
		if (np < 1e-6)
			continue;
		for (int k = 0; k < 3; k++)
			w[k] = v[k] * cos(e) + p[k] / sqrt(np) * sin(e);
		render_ref_env(v, a);
		render_ref_env(w, b);
		for (int k = 0; k < 3; k++)
			steepest = fmax(steepest, fabs(a[k] - b[k]) / e);
	}
	cr_expect_leq(steepest, RENDER_ENV_SLOPE, "the environment turns %g per radian", steepest);
	cr_expect_geq(steepest, 0.5 * RENDER_ENV_SLOPE, "RENDER_ENV_SLOPE is loose: %g", steepest);
}

Test(render_paper, environment_is_sky_above_ground_below_and_continuous)
{
	const double zenith[3] = { RENDER_ENV_ZENITH_RGB }, ground[3] = { RENDER_ENV_GROUND_RGB };
	const double up[3] = { 0.0, 0.0, 1.0 };
	double rgb[3], a[3], b[3];

	render_ref_env(up, rgb);
	for (int k = 0; k < 3; k++)
		cr_expect_float_eq(rgb[k], zenith[k], 1e-12);
	/* straight down: u = v = 0, the stripes' brightest */
	const double down[3] = { 0.0, 0.0, -1.0 };
	render_ref_env(down, rgb);
	for (int k = 0; k < 3; k++)
		cr_expect_float_eq(rgb[k], ground[k], 1e-12);
	/* every direction in range; no jump at the horizon or anywhere else */
	for (int i = 0; i <= 2000; i++) {
		const double el = deg(-90.0 + 180.0 * i / 2000.0), az = deg(37.0);
		const double el2 = deg(-90.0 + 180.0 * (i + 1e-3) / 2000.0);
		const double d1[3] = { cos(el) * cos(az), cos(el) * sin(az), sin(el) };
		const double d2[3] = { cos(el2) * cos(az), cos(el2) * sin(az), sin(el2) };

		render_ref_env(d1, a);
		render_ref_env(d2, b);
		for (int k = 0; k < 3; k++) {
			cr_assert(a[k] >= 0.0 && a[k] <= 1.0, "elevation step %d: %g", i, a[k]);
			cr_assert_lt(fabs(a[k] - b[k]), 2e-3, "a jump at elevation step %d", i);
		}
	}
}

/* Water between the planes z = z_top and z = z_bot across the whole cube,
 * as a distance field of surface particles on both planes would give it:
 * the distance to the nearer plane, floored at r_min, empty past r_max. */
static void slab_field(struct render_field *f, const struct render_params *rp, double z_top,
		       double z_bot)
{
	const size_t n = (size_t)(RES + 1) * (RES + 1) * (RES + 1);

	for (int k = 0; k < 3; k++) {
		f->dim[k] = RES + 1;
		f->lo[k] = 0.0;
	}
	f->voxel = BOX / RES;
	f->max = rp->r_max * rp->r_max;
	f->value = malloc(n * sizeof *f->value);
	cr_assert_not_null(f->value);
	for (int k = 0; k <= RES; k++) {
		const double z = k * f->voxel;
		const double d = z_bot < z_top ? fmin(fabs(z - z_top), fabs(z - z_bot)) : fabs(z - z_top);
		const double v = d > rp->r_max ? f->max : fmax(d, rp->r_min) * fmax(d, rp->r_min);

		for (size_t ij = 0; ij < (size_t)(RES + 1) * (RES + 1); ij++)
			f->value[(size_t)k * (RES + 1) * (RES + 1) + ij] = v;
	}
}

static void params_set(struct render_params *rp)
{
	struct sph_params p;

	sph_params_water(&p, 0.02, 0.2);
	render_params_default(rp, &p);
	rp->res = RES;
	rp->shading = RENDER_SHADING_PAPER;
}

/* One ray, at angle a from straight down, through the cube's centre. */
static void one_ray(double a, struct render_camera *c)
{
	const double at[3] = { 0.5 * BOX, 0.5 * BOX, 0.5 * BOX }, dist = 0.5;

	c->at[0] = at[0], c->at[1] = at[1], c->at[2] = at[2];
	c->eye[0] = at[0] - dist * sin(a);
	c->eye[1] = at[1];
	c->eye[2] = at[2] + dist * cos(a);
	c->up[0] = 0.0, c->up[1] = 1.0, c->up[2] = 0.0;
	c->fov_deg = 1.0;
	c->width = c->height = 1;
}

/* The ray's last direction and the surfaces that bent it. */
static void cast(const struct render_params *rp, const struct render_field *f,
		 const struct render_camera *c, double exit_dir[3], int *bends, double rgb[3])
{
	struct render_ray_out out = { .exit_dir = exit_dir, .bends = bends };

	cr_assert_eq(render_ref_raycast_ex(rp, f, c, 1, rgb, &out), 0);
}

/* Into a deep pool (the bottom below the cube): bent once, by Snell. */
Test(render_paper, a_ray_into_still_water_bends_by_snells_law)
{
	struct render_params rp;
	struct render_field f;
	struct render_camera c;
	double dir[3], rgb[3];
	int bends;

	params_set(&rp);
	rp.alpha_max = 0.05; /* light enough that no ray is opaque before the surface */
	slab_field(&f, &rp, 0.2, 1.0);
	for (double a = 10.0; a <= 60.0; a += 25.0) {
		one_ray(deg(a), &c);
		cast(&rp, &f, &c, dir, &bends, rgb);
		cr_expect_eq(bends, 1, "%g deg", a);
		cr_expect_float_eq(dir[0], sin(deg(a)) / RENDER_WATER_IOR, 1e-9, "%g deg: %g", a, dir[0]);
		cr_expect_float_eq(dir[1], 0.0, 1e-12);
	}
	free(f.value);
}

/* Through a slab with parallel faces: bent twice, out parallel to the way
 * in; Phong's ray goes straight and sees the flat background. */
Test(render_paper, a_ray_through_a_slab_leaves_it_parallel)
{
	struct render_params rp;
	struct render_field f;
	struct render_camera c;
	double dir[3], rgb[3], env[3];
	int bends;

	params_set(&rp);
	rp.alpha_max = 0.05; /* light enough that the ray comes through */
	slab_field(&f, &rp, 0.2, 0.1);
	one_ray(deg(30.0), &c);
	cast(&rp, &f, &c, dir, &bends, rgb);
	cr_expect_eq(bends, 2);
	cr_expect_float_eq(dir[0], sin(deg(30.0)), 1e-9, "%g", dir[0]);
	cr_expect_float_eq(dir[2], -cos(deg(30.0)), 1e-9, "%g", dir[2]);
	/* what is seen through it is the environment the ray meets */
	render_ref_env(dir, env);
	cr_expect_neq(rgb[0], rp.background[0]);

	rp.shading = RENDER_SHADING_PHONG;
	cast(&rp, &f, &c, dir, &bends, rgb);
	cr_expect_eq(bends, 0);
	cr_expect_float_eq(dir[0], sin(deg(30.0)), 1e-12);
	free(f.value);
}

/* No water: every pixel is the environment in its own direction. */
Test(render_paper, an_empty_field_shows_the_environment)
{
	struct render_params rp;
	struct render_field f;
	struct render_camera c;
	double rgb[3 * 16 * 12], dir[3 * 16 * 12], env[3];
	int bends[16 * 12];
	struct render_ray_out out = { .exit_dir = dir, .bends = bends };

	params_set(&rp);
	slab_field(&f, &rp, 10.0, 20.0); /* both planes far outside: all empty */
	for (size_t i = 0; i < (size_t)(RES + 1) * (RES + 1) * (RES + 1); i++)
		cr_assert_eq(f.value[i], f.max);
	one_ray(deg(50.0), &c);
	c.fov_deg = 60.0;
	c.width = 16;
	c.height = 12;
	cr_assert_eq(render_ref_raycast_ex(&rp, &f, &c, 1, rgb, &out), 0);
	for (int p = 0; p < 16 * 12; p++) {
		cr_expect_eq(bends[p], 0);
		render_ref_env(dir + 3 * p, env);
		for (int k = 0; k < 3; k++)
			cr_expect_float_eq(rgb[3 * p + k], env[k], 1e-15, "pixel %d", p);
	}
	free(f.value);
}

Test(render_paper, an_unknown_shading_is_refused)
{
	struct render_params rp;
	struct render_field f;
	struct render_camera c;
	double rgb[3];

	params_set(&rp);
	slab_field(&f, &rp, 0.2, 0.1);
	one_ray(0.3, &c);
	rp.shading = 2;
	cr_expect_eq(render_ref_raycast(&rp, &f, &c, rgb), -1);
	free(f.value);
}

/*
 * The colour of a sample by hand: the camera looks along +y at a field
 * whose distance falls along (0, 1, 1), so the normal n = -(0, 1, 1) / sqrt 2
 * meets the ray at 45 degrees (cos_i = 1 / sqrt 2). Lit along -y (from the
 * eye's side): n.l = 1 / sqrt 2, shade 0.2 + 0.7 / sqrt 2, and the light's
 * reflection (0, 0, -1) is square to the view: no specular. The ray's
 * reflection dir + 2 cos_i n is (0, 0, -1), straight down: env = the
 * ground at its brightest. Each sample is (1 - F) phong + F ground, F =
 * Schlick at 45 degrees. At the default alpha the ray is opaque before
 * the distance falls to surface_d: never bent, what little comes through
 * is env(+y).
 */
Test(render_paper, a_samples_colour_by_hand)
{
	struct render_params rp;
	struct render_field f;
	struct render_camera c;
	const double colour[3] = { 0.5, 0.3, 0.1 }, light[3] = { 0.0, -1.0, 0.0 };
	const double ground[3] = { RENDER_ENV_GROUND_RGB }, s2 = sqrt(0.5);
	const double dir[3] = { 0.0, 1.0, 0.0 };
	const double f0 = pow((1.0 - RENDER_WATER_IOR) / (1.0 + RENDER_WATER_IOR), 2);
	const double fr = f0 + (1.0 - f0) * pow(1.0 - s2, 5.0);
	double rgb[3], opacity, env_t[3], exit_dir[3];
	int bends;
	struct render_ray_out out = { .opacity = &opacity, .exit_dir = exit_dir, .bends = &bends };

	params_set(&rp);
	slab_field(&f, &rp, 10.0, 20.0);
	for (int k = 0; k <= RES; k++)
		for (int j = 0; j <= RES; j++)
			for (int i = 0; i <= RES; i++) {
				const double d = fmax(rp.surface_d + (64 - j - k) * f.voxel * 0.5, 0.0);

				f.value[((size_t)k * (RES + 1) + j) * (RES + 1) + i] = fmin(d * d, f.max);
			}
	for (int k = 0; k < 3; k++) {
		rp.colour[k] = colour[k];
		rp.light[k] = light[k];
	}
	c.eye[0] = 0.16, c.eye[1] = -0.5, c.eye[2] = 0.16;
	c.at[0] = 0.16, c.at[1] = 0.16, c.at[2] = 0.16;
	c.up[0] = 0.0, c.up[1] = 0.0, c.up[2] = 1.0;
	c.fov_deg = 1.0;
	c.width = c.height = 1;
	cr_assert_eq(render_ref_raycast_ex(&rp, &f, &c, 1, rgb, &out), 0);
	cr_expect_eq(bends, 0);
	for (int k = 0; k < 3; k++)
		cr_expect_float_eq(exit_dir[k], dir[k], 1e-15, "exit direction %d", k);
	render_ref_env(dir, env_t);
	cr_expect(opacity >= rp.opaque && opacity <= 1.0, "opacity %g", opacity);
	for (int k = 0; k < 3; k++) {
		const double phong = fmin(colour[k] * (0.2 + 0.7 * s2), 1.0);
		const double want = opacity * ((1.0 - fr) * phong + fr * ground[k]) + (1.0 - opacity) * env_t[k];

		cr_expect(fabs(rgb[k] - want) <= 1e-9, "channel %d: %.12f, by hand %.12f", k, rgb[k], want);
	}
	free(f.value);
}

Test(render_paper, shadings_by_name)
{
	struct render_params rp;

	cr_expect_str_eq(render_shading_name(RENDER_SHADING_PHONG), "phong");
	cr_expect_str_eq(render_shading_name(RENDER_SHADING_PAPER), "paper");
	cr_expect_null(render_shading_name(2));
	cr_expect_eq(render_shading_of("phong"), RENDER_SHADING_PHONG);
	cr_expect_eq(render_shading_of("paper"), RENDER_SHADING_PAPER);
	cr_expect_eq(render_shading_of("Paper"), -1);
	cr_expect_eq(render_shading_of(""), -1);
	params_set(&rp);
	cr_assert_eq(render_params_shading(&rp, RENDER_SHADING_PHONG), 0);
	cr_expect_eq(rp.alpha_max, RENDER_PHONG_ALPHA_MAX);
	cr_assert_eq(render_params_shading(&rp, RENDER_SHADING_PAPER), 0);
	cr_expect_eq(rp.alpha_max, RENDER_PAPER_ALPHA_MAX);
	cr_expect_eq(render_params_shading(&rp, 7), -1);
	cr_expect_eq(rp.shading, RENDER_SHADING_PAPER);
}

/* Skipping empty bricks leaves the paper's image as it is, bit for bit:
 * a bent ray skips from where it is along where it goes. */
Test(render_paper, skipping_changes_nothing)
{
	struct render_params rp;
	struct render_field f;
	struct render_camera c;
	enum { W = 24, H = 18 };
	double with[3 * W * H], without[3 * W * H];
	long long skipped = 0;
	int bends[W * H], most = 0;
	struct render_ray_out out = { .bends = bends };

	params_set(&rp);
	slab_field(&f, &rp, 0.2, 0.1);
	one_ray(deg(40.0), &c);
	c.fov_deg = 50.0;
	c.width = W;
	c.height = H;
	cr_assert_eq(render_ref_raycast_ex(&rp, &f, &c, 1, with, &out), 0);
	skipped = out.skipped;
	for (int p = 0; p < W * H; p++)
		most = bends[p] > most ? bends[p] : most;
	cr_assert_eq(render_ref_raycast_ex(&rp, &f, &c, 0, without, NULL), 0);
	cr_expect_gt(skipped, 0, "nothing was skipped: the test shows nothing");
	cr_expect_geq(most, 1, "no ray bent: the test shows nothing");
	cr_expect(memcmp(with, without, sizeof with) == 0, "the image changes when nothing is skipped");
	free(f.value);
}
