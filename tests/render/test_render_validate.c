/* test_render_validate.c - the rendering stages' comparisons with the reference must pass right and fail wrong (suite render_validate) */
#include <criterion/criterion.h>
#include <criterion/logging.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../harness/render/render_validate.h"
#include "../../harness/sph/sph_validate.h"
#include "../../reference/sph_scene.h"

/* A small column (jittered lattice, walls not needed) and its positions
 * in double, as a variant's floats widened. */
struct rv_case {
	struct sph_scene sc;
	struct render_params rp;
	size_t n;
	double *x;
	unsigned char *surf;	/* the reference's flags */
	size_t m;		/* surface particles */
	double *s;		/* their positions */
	struct render_field f;	/* the reference's field of s */
};

static void rv_make(struct rv_case *c, const char *spec, int res)
{
	struct sph_column col;
	char err[256] = "";

	memset(c, 0, sizeof *c);
	cr_assert_eq(sph_scene_column_parse(spec, &col, err, sizeof err), 0, "%s", err);
	cr_assert_eq(sph_scene_build(&col, 5, &c->sc, err, sizeof err), 0, "%s", err);
	c->n = c->sc.n;
	c->x = malloc(3 * c->n * sizeof *c->x);
	c->surf = malloc(c->n);
	cr_assert(c->x && c->surf);
	for (size_t i = 0; i < c->n; i++)
		for (int d = 0; d < 3; d++)
			c->x[3 * i + d] = c->sc.pos4[4 * i + d];
	render_params_default(&c->rp, &c->sc.p);
	c->rp.res = res;
	cr_assert_eq(render_ref_surface(&c->sc.p, &c->rp, c->x, c->n, c->surf, &c->m), 0);
	cr_assert_gt(c->m, 0);
	c->s = malloc(3 * c->m * sizeof *c->s);
	cr_assert(c->s);
	for (size_t i = 0, k = 0; i < c->n; i++)
		if (c->surf[i])
			memcpy(&c->s[3 * k++], &c->x[3 * i], 3 * sizeof *c->s);
	cr_assert_eq(render_ref_field(&c->rp, c->sc.p.box_lo, c->sc.p.box_hi, c->s, c->m, &c->f), 0);
}

static void rv_free(struct rv_case *c)
{
	render_field_free(&c->f);
	free(c->x);
	free(c->surf);
	free(c->s);
	sph_scene_free(&c->sc);
}

static size_t rv_voxels(const struct render_field *f)
{
	return (size_t)f->dim[0] * f->dim[1] * f->dim[2];
}

/* ------------------------------------------------------------------ */
/* Surface particles                                                   */
/* ------------------------------------------------------------------ */

/* The extraction as a float stage would write it: positions as floats,
 * the pair test r^2 < h^2 in float, com from absolute positions summed
 * in float (the header's formula, the less accurate form). */
static void rv_float_surface(const struct rv_case *c, unsigned char *out)
{
	const float h = (float)c->sc.p.h, h2 = h * h;
	const float *x = c->sc.pos4;

	for (size_t i = 0; i < c->n; i++) {
		float sum[3] = { x[4 * i], x[4 * i + 1], x[4 * i + 2] };
		size_t nb = 0;

		for (size_t j = 0; j < c->n; j++) {
			const float dx = x[4 * j] - x[4 * i], dy = x[4 * j + 1] - x[4 * i + 1],
				    dz = x[4 * j + 2] - x[4 * i + 2];

			if (j == i || !(dx * dx + dy * dy + dz * dz < h2))
				continue;
			nb++;
			for (int d = 0; d < 3; d++)
				sum[d] += x[4 * j + d];
		}
		float off2 = 0.0f;
		for (int d = 0; d < 3; d++) {
			const float e = sum[d] / (float)(1 + nb) - x[4 * i + d];
			off2 += e * e;
		}
		out[i] = sqrtf(off2) / h > (float)c->rp.com_threshold ||
			 (float)nb < (float)c->rp.min_neighbours;
	}
}

/* Whether particle i has a pair within SPH_H_BAND of h. */
static bool rv_near_h(const struct rv_case *c, size_t i)
{
	const double h2 = c->sc.p.h * c->sc.p.h;

	for (size_t j = 0; j < c->n; j++) {
		double r2 = 0.0;

		for (int d = 0; d < 3; d++)
			r2 += (c->x[3 * j + d] - c->x[3 * i + d]) * (c->x[3 * j + d] - c->x[3 * i + d]);
		if (j != i && fabs(r2 / h2 - 1.0) < SPH_H_BAND)
			return true;
	}
	return false;
}

/* Particle i's criterion on c->x now. */
static void rv_criterion(const struct rv_case *c, size_t i, double *off, size_t *nb, double sv[3])
{
	struct sph_nbr_list nl;

	memset(&nl, 0, sizeof nl);
	cr_assert_eq(sph_ref_neighbours_grid(c->x, c->n, c->sc.p.h, &nl), 0);
	render_ref_surface_criterion(&c->sc.p, c->x, &nl, i, off, nb);
	for (int d = 0; d < 3; d++)
		sv[d] = 0.0;
	for (size_t k = nl.off[i]; k < nl.off[i + 1]; k++)
		for (int d = 0; d < 3; d++)
			sv[d] += (c->x[3 * nl.idx[k] + d] - c->x[3 * i + d]) / (double)(1 + *nb);
	sph_nbr_list_free(&nl);
}

/* Moves an interior particle (>= 20 neighbours, com_off < 0.05, no pair
 * near h) so that its com_off is exactly target, its neighbours and the
 * absence of pairs near h kept: com - x_i moves by -n/(1+n) of the step.
 * Returns the particle, the reference's flags recomputed in c->surf. */
static size_t rv_place(struct rv_case *c, double target)
{
	for (size_t i = 0; i < c->n; i++) {
		double off, sv[3], keep[3];
		size_t nb, nb0;

		rv_criterion(c, i, &off, &nb0, sv);
		if (nb0 < 20 || off > 0.05 || rv_near_h(c, i))
			continue;
		memcpy(keep, &c->x[3 * i], sizeof keep);
		for (int it = 0; it < 4; it++) {
			const double len = sqrt(sv[0] * sv[0] + sv[1] * sv[1] + sv[2] * sv[2]);
			const double e[3] = { len > 0 ? sv[0] / len : 1, len > 0 ? sv[1] / len : 0,
					      len > 0 ? sv[2] / len : 0 };
			const double step = (len - target * c->sc.p.h) * (1 + nb0) / nb0;

			for (int d = 0; d < 3; d++)
				c->x[3 * i + d] += e[d] * step;
			rv_criterion(c, i, &off, &nb, sv);
			if (nb != nb0)
				break;
		}
		if (nb == nb0 && fabs(off - target) < 1e-9 && !rv_near_h(c, i)) {
			cr_assert_eq(render_ref_surface(&c->sc.p, &c->rp, c->x, c->n, c->surf, &c->m), 0);
			return i;
		}
		memcpy(&c->x[3 * i], keep, sizeof keep);
	}
	cr_assert_fail("no particle could be placed at com_off %g", target);
	return 0;
}

static struct render_surface_check rv_surface(struct rv_case *c, const unsigned char *var)
{
	struct render_surface_check v;

	cr_assert_eq(render_validate_surface(&c->sc.p, &c->rp, c->x, c->n, var, &v), 0);
	return v;
}

Test(render_validate, surface_the_reference_passes_itself)
{
	struct rv_case c;

	rv_make(&c, "8x4x16@4", 64);
	struct render_surface_check v = rv_surface(&c, c.surf);
	cr_expect(v.pass);
	cr_expect_eq(v.ref_count, c.m);
	cr_expect_eq(v.var_count, c.m);
	cr_expect_eq(v.mismatches + v.borderline, 0);
	cr_expect_eq(v.worst, c.n);
	cr_expect(c.m > c.n / 4 && c.m < c.n, "%zu of %zu on the surface", c.m, c.n);
	rv_free(&c);
}

Test(render_validate, surface_a_float_extraction_passes)
{
	struct rv_case c;
	const char *specs[2] = { "8x4x16@4", "8x8x8@0" };

	for (int s = 0; s < 2; s++) {
		rv_make(&c, specs[s], 64);
		unsigned char *var = malloc(c.n);
		cr_assert(var);
		rv_float_surface(&c, var);
		struct render_surface_check v = rv_surface(&c, var);
		cr_log_info("surface %s: float extraction %zu, reference %zu, borderline %zu, mismatches %zu",
			    specs[s], v.var_count, v.ref_count, v.borderline, v.mismatches);
		cr_expect(v.pass, "%s: %zu mismatches, first %zu", specs[s], v.mismatches, v.worst);
		free(var);
		rv_free(&c);
	}
}

Test(render_validate, surface_a_flag_flipped_far_from_both_thresholds_fails)
{
	struct rv_case c;
	size_t far = 0;
	bool found = false;

	rv_make(&c, "8x4x16@4", 64);
	for (size_t i = 0; i < c.n && !found; i++) {
		double off, sv[3];
		size_t nb;

		rv_criterion(&c, i, &off, &nb, sv);
		found = fabs(off - c.rp.com_threshold) > 0.02 &&
			fabs((double)nb - c.rp.min_neighbours) > 2 && !rv_near_h(&c, i);
		far = i;
	}
	cr_assert(found);
	c.surf[far] ^= 1;
	struct render_surface_check v = rv_surface(&c, c.surf);
	cr_expect(!v.pass);
	cr_expect_eq(v.mismatches, 1);
	cr_expect_eq(v.borderline, 0);
	cr_expect_eq(v.worst, far);
	rv_free(&c);
}

/* A particle placed by construction 0.5 band above the threshold may
 * disagree (borderline); 1.8 band above it may not. The band, 1e-4
 * (RENDER_VALIDATE_COM_BAND), is restated here as a number. */
Test(render_validate, surface_a_flip_within_the_band_is_borderline_beyond_it_fails)
{
	const double k[2] = { 0.5, 1.8 };

	for (int q = 0; q < 2; q++) {
		struct rv_case c;

		rv_make(&c, "8x4x16@4", 64);
		const size_t i = rv_place(&c, c.rp.com_threshold + k[q] * 1e-4);
		cr_assert_eq(c.surf[i], 1, "above the threshold: a surface particle");
		c.surf[i] = 0;
		struct render_surface_check v = rv_surface(&c, c.surf);
		if (q == 0) {
			cr_expect(v.pass, "0.5 band: %zu mismatches", v.mismatches);
			cr_expect_eq(v.borderline, 1);
		} else {
			cr_expect(!v.pass, "1.8 band passed");
			cr_expect_eq(v.mismatches, 1);
			cr_expect_eq(v.worst, i);
		}
		rv_free(&c);
	}
}

Test(render_validate, surface_a_flag_neither_0_nor_1_fails)
{
	struct rv_case c;

	rv_make(&c, "8x8x8@0", 64);
	for (size_t i = 0; i < c.n; i++)
		if (c.surf[i]) {
			c.surf[i] = 2;
			break;
		}
	struct render_surface_check v = rv_surface(&c, c.surf);
	cr_expect(!v.pass);
	cr_expect_eq(v.mismatches, 1);
	rv_free(&c);
}

Test(render_validate, surface_a_nan_position_fails)
{
	struct rv_case c;
	struct render_surface_check v;

	rv_make(&c, "8x8x8@0", 64);
	c.x[3 * 7 + 1] = NAN;
	cr_expect_eq(render_validate_surface(&c.sc.p, &c.rp, c.x, c.n, c.surf, &v), -1);
	cr_expect(!v.pass);
	rv_free(&c);
}

/* ------------------------------------------------------------------ */
/* Distance field                                                      */
/* ------------------------------------------------------------------ */

/* The field as a float stage would rasterise it: float positions, float
 * voxel coordinates lo + i v, float arithmetic; the box's voxels found
 * in double (loosely) and tested in float. */
static float *rv_float_field(const struct rv_case *c)
{
	const struct render_field *f = &c->f;
	const size_t nv = rv_voxels(f);
	float *val = malloc(nv * sizeof *val);
	const float lo[3] = { (float)f->lo[0], (float)f->lo[1], (float)f->lo[2] };
	const float v = (float)f->voxel, r = (float)c->rp.r, rmax = (float)c->rp.r_max,
		    rmin = (float)c->rp.r_min;

	cr_assert(val);
	for (size_t q = 0; q < nv; q++)
		val[q] = (float)f->max;
	for (size_t q = 0; q < c->m; q++) {
		const float p[3] = { (float)c->s[3 * q], (float)c->s[3 * q + 1], (float)c->s[3 * q + 2] };
		int a[3], b[3];

		for (int k = 0; k < 3; k++) {
			a[k] = (int)fmax(0.0, floor((p[k] - c->rp.r - f->lo[k]) / f->voxel) - 1);
			b[k] = (int)fmin(f->dim[k] - 1.0, ceil((p[k] + c->rp.r - f->lo[k]) / f->voxel) + 1);
		}
		for (int k = a[2]; k <= b[2]; k++)
		for (int j = a[1]; j <= b[1]; j++)
		for (int i = a[0]; i <= b[0]; i++) {
			const float dx = lo[0] + i * v - p[0], dy = lo[1] + j * v - p[1],
				    dz = lo[2] + k * v - p[2];

			if (!(fabsf(dx) <= r && fabsf(dy) <= r && fabsf(dz) <= r))
				continue;
			const float d2 = dx * dx + dy * dy + dz * dz;
			if (!(sqrtf(d2) <= rmax))
				continue;
			const float e2 = sqrtf(d2) < rmin ? rmin * rmin : d2;
			float *out = &val[((size_t)k * f->dim[1] + j) * f->dim[0] + i];
			*out = fminf(*out, e2);
		}
	}
	return val;
}

static float *rv_rounded_field(const struct render_field *f)
{
	float *val = malloc(rv_voxels(f) * sizeof *val);

	cr_assert(val);
	for (size_t q = 0; q < rv_voxels(f); q++)
		val[q] = (float)f->value[q];
	return val;
}

/* A voxel holding a value near r_min (where the bound is tightest). */
static size_t rv_valued_voxel(const struct render_field *f)
{
	size_t best = 0;

	for (size_t q = 0; q < rv_voxels(f); q++)
		if (f->value[q] < f->value[best])
			best = q;
	cr_assert_lt(f->value[best], f->max);
	return best;
}

static struct render_field_check rv_field(const struct rv_case *c, const float *var)
{
	struct render_field_check v;

	cr_assert_eq(render_validate_field(&c->f, var, &v), 0);
	return v;
}

Test(render_validate, field_the_reference_rounded_to_float_passes)
{
	struct rv_case c;

	rv_make(&c, "8x4x16@4", 128);
	float *var = rv_rounded_field(&c.f);
	struct render_field_check v = rv_field(&c, var);
	cr_expect(v.pass);
	cr_expect_eq(v.max_ulps, 0);
	cr_expect_eq(v.worst_ratio, 0.0);
	cr_expect_eq(v.max_mismatches + v.nonfinite, 0);
	cr_expect_eq(v.voxels, rv_voxels(&c.f));
	free(var);
	rv_free(&c);
}

/* A plain float rasteriser fails: its float voxel coordinates put it
 * tens of ulps from the reference, which is why the GPU stage computes
 * each distance as the reference does (render_validate.c). */
Test(render_validate, field_a_float_rasteriser_fails_the_bound)
{
	struct rv_case c;

	rv_make(&c, "8x4x16@4", 128);
	float *var = rv_float_field(&c);
	struct render_field_check v = rv_field(&c, var);
	cr_log_info("field 8x4x16@4 res 128: float rasteriser %llu ulps at most, %.1f bounds",
		    v.max_ulps, v.worst_ratio);
	cr_expect(!v.pass, "a float rasteriser %llu ulps off passed", v.max_ulps);
	cr_expect_gt(v.max_ulps, 4 * RENDER_VALIDATE_FIELD_ULPS);
	free(var);
	rv_free(&c);
}

/* v moved by k ulps (k > 0 up, k < 0 down). */
static float rv_ulps_from(float v, int k)
{
	for (int i = 0; i < (k < 0 ? -k : k); i++)
		v = nextafterf(v, k < 0 ? -INFINITY : INFINITY);
	return v;
}

/* The bound is 2 ulps (RENDER_VALIDATE_FIELD_ULPS, restated here as a
 * number so that the test does not move with it): one voxel off by 1 ulp
 * (half the bound) passes, by 4 (twice it) fails, either way; a bound
 * doubled to 4 ulps, or a ratio test loosened to 2, would pass it. */
Test(render_validate, field_an_error_of_twice_the_bound_fails_half_passes)
{
	const int k[2] = { 1, 4 };
	struct rv_case c;

	rv_make(&c, "8x4x16@4", 128);
	const size_t q = rv_valued_voxel(&c.f);
	cr_assert_gt(render_validate_field_bound(&c.f, q), 0.0);
	for (int s = 0; s < 2; s++)
		for (int sign = -1; sign <= 1; sign += 2) {
			float *var = rv_rounded_field(&c.f);
			var[q] = rv_ulps_from(var[q], sign * k[s]);
			struct render_field_check v = rv_field(&c, var);
			cr_expect_eq(v.worst, q);
			cr_expect_eq(v.max_ulps, (unsigned long long)k[s]);
			cr_expect_eq(v.pass, s == 0, "%+d ulps: pass %d (ratio %.3f)", sign * k[s],
				     v.pass, v.worst_ratio);
			free(var);
		}
	rv_free(&c);
}

Test(render_validate, field_a_voxel_left_at_the_maximum_fails)
{
	struct rv_case c;

	rv_make(&c, "8x4x16@4", 128);
	float *var = rv_rounded_field(&c.f);
	var[rv_valued_voxel(&c.f)] = (float)c.f.max;
	struct render_field_check v = rv_field(&c, var);
	cr_expect(!v.pass);
	cr_expect_eq(v.max_mismatches, 1);
	free(var);
	rv_free(&c);
}

Test(render_validate, field_a_value_where_the_reference_is_at_the_maximum_fails)
{
	struct rv_case c;

	rv_make(&c, "8x4x16@4", 128);
	float *var = rv_rounded_field(&c.f);
	size_t q = 0;
	while (c.f.value[q] != c.f.max)
		q++;
	var[q] = nextafterf((float)c.f.max, 0.0f);	/* one ulp off */
	struct render_field_check v = rv_field(&c, var);
	cr_expect(!v.pass);
	cr_expect_eq(v.max_mismatches, 1);
	free(var);
	rv_free(&c);
}

Test(render_validate, field_nan_in_one_voxel_fails)
{
	const int at[2] = { 0, 1 };	/* a voxel at the maximum, one with a value */
	struct rv_case c;

	rv_make(&c, "8x4x16@4", 128);
	for (int s = 0; s < 2; s++) {
		float *var = rv_rounded_field(&c.f);
		size_t q = 0;
		if (at[s])
			q = rv_valued_voxel(&c.f);
		else
			while (c.f.value[q] != c.f.max)
				q++;
		var[q] = NAN;
		struct render_field_check v = rv_field(&c, var);
		cr_expect(!v.pass);
		cr_expect_eq(v.nonfinite, 1);
		free(var);
	}
	rv_free(&c);
}

/* ------------------------------------------------------------------ */
/* Image                                                               */
/* ------------------------------------------------------------------ */

#define RV_W 64
#define RV_H 48

static double *rv_image(const struct rv_case *c, const struct render_field *f)
{
	struct render_camera cam;
	double *rgb = malloc(3 * RV_W * RV_H * sizeof *rgb);

	cr_assert(rgb);
	render_camera_default(&cam, c->sc.p.box_lo, c->sc.p.box_hi, RV_W, RV_H);
	cr_assert_eq(render_ref_raycast(&c->rp, f, &cam, rgb), 0);
	return rgb;
}

static struct render_image_check rv_compare(const double *ref, const double *var)
{
	struct render_image_check v;

	cr_assert_eq(render_validate_image(ref, var, RV_W, RV_H, &v), 0);
	return v;
}

Test(render_validate, image_the_reference_rounded_to_float_passes)
{
	struct rv_case c;

	rv_make(&c, "8x4x16@4", 128);
	double *ref = rv_image(&c, &c.f), *var = malloc(3 * RV_W * RV_H * sizeof *var);
	cr_assert(var);
	struct render_image_check same = rv_compare(ref, ref);
	cr_expect(same.pass && isinf(same.psnr_db) && same.psnr_db > 0 && same.max_diff == 0.0);
	for (size_t q = 0; q < 3 * RV_W * RV_H; q++)
		var[q] = (float)ref[q];
	struct render_image_check v = rv_compare(ref, var);
	cr_log_info("image 8x4x16@4 %dx%d: rounded to float %.1f dB, largest difference %.2e",
		    RV_W, RV_H, v.psnr_db, v.max_diff);
	cr_expect(v.pass);
	cr_expect_gt(v.psnr_db, 120.0, "float rounding only: %.1f dB", v.psnr_db);
	free(ref);
	free(var);
	rv_free(&c);
}

/* The image the reference raycaster makes of a float rasteriser's field:
 * what the field's float errors do to the picture. */
Test(render_validate, image_of_a_float_field_passes)
{
	struct rv_case c;

	rv_make(&c, "8x4x16@4", 128);
	float *vf = rv_float_field(&c);
	struct render_field g = c.f;
	g.value = malloc(rv_voxels(&g) * sizeof *g.value);
	cr_assert(g.value);
	for (size_t q = 0; q < rv_voxels(&g); q++)
		g.value[q] = vf[q];
	double *ref = rv_image(&c, &c.f), *var = rv_image(&c, &g);
	struct render_image_check v = rv_compare(ref, var);
	cr_log_info("image 8x4x16@4 %dx%d of the float field: %.1f dB, largest difference %.2e at (%d, %d)",
		    RV_W, RV_H, v.psnr_db, v.max_diff, v.worst_x, v.worst_y);
	cr_expect(v.pass, "%.1f dB", v.psnr_db);
	free(g.value);
	free(vf);
	free(ref);
	free(var);
	rv_free(&c);
}

/* Noise of known MSE a^2 (+-a, alternating): 38 dB (MSE 1.6 times the
 * bound's 1e-4) fails, 43 dB (0.5 times) passes. */
Test(render_validate, image_noise_at_38_db_fails_43_db_passes)
{
	const double db[2] = { 43.0, 38.0 };
	struct rv_case c;

	rv_make(&c, "8x4x16@4", 128);
	double *ref = rv_image(&c, &c.f), *var = malloc(3 * RV_W * RV_H * sizeof *var);
	cr_assert(var);
	for (int s = 0; s < 2; s++) {
		const double a = pow(10.0, -db[s] / 20.0);
		for (size_t q = 0; q < 3 * RV_W * RV_H; q++)
			var[q] = ref[q] + (q % 2 ? a : -a);
		struct render_image_check v = rv_compare(ref, var);
		cr_expect(fabs(v.psnr_db - db[s]) < 1e-6, "%.6f dB", v.psnr_db);
		cr_expect(fabs(v.max_diff - a) < 1e-12);
		cr_expect_eq(v.pass, s == 0, "%.0f dB: pass %d", db[s], v.pass);
	}
	free(ref);
	free(var);
	rv_free(&c);
}

Test(render_validate, image_the_worst_pixel_is_found)
{
	struct rv_case c;

	rv_make(&c, "8x8x8@0", 64);
	double *ref = rv_image(&c, &c.f), *var = malloc(3 * RV_W * RV_H * sizeof *var);
	cr_assert(var);
	memcpy(var, ref, 3 * RV_W * RV_H * sizeof *var);
	var[3 * (17 * RV_W + 41) + 2] = ref[3 * (17 * RV_W + 41) + 2] > 0.5 ? 0.0 : 1.0;
	struct render_image_check v = rv_compare(ref, var);
	cr_expect_eq(v.worst_x, 41);
	cr_expect_eq(v.worst_y, 17);
	cr_expect_gt(v.max_diff, 0.49);
	free(ref);
	free(var);
	rv_free(&c);
}

Test(render_validate, image_nan_in_one_channel_fails)
{
	struct rv_case c;

	rv_make(&c, "8x8x8@0", 64);
	double *ref = rv_image(&c, &c.f), *var = malloc(3 * RV_W * RV_H * sizeof *var);
	cr_assert(var);
	memcpy(var, ref, 3 * RV_W * RV_H * sizeof *var);
	var[100] = NAN;
	struct render_image_check v = rv_compare(ref, var);
	cr_expect(!v.pass);
	cr_expect_eq(v.nonfinite, 1);
	cr_expect(isnan(v.psnr_db));
	free(ref);
	free(var);
	rv_free(&c);
}

Test(render_validate, image_empty_is_refused)
{
	const double px[3] = { 0.0, 0.0, 0.0 };
	struct render_image_check v;

	cr_expect_eq(render_validate_image(px, px, 0, 1, &v), -1);
	cr_expect(!v.pass);
	cr_expect_eq(render_validate_image(px, NULL, 1, 1, &v), -1);
}

/* ---------------------------------------------------------------- */
/* Convergence: PSNR and holes with known answers                   */
/* ---------------------------------------------------------------- */

#define CV_W 200
#define CV_H 100

/* A converged image of known content: a disc of water (opacity 1, the
 * colour varying across it) over a white background; returns the
 * silhouette's pixel count. */
static size_t cv_disc(double *rgb, double *alpha)
{
	size_t in = 0;

	for (int y = 0; y < CV_H; y++)
		for (int x = 0; x < CV_W; x++) {
			const size_t i = (size_t)y * CV_W + x;
			const double dx = x - 100.5, dy = y - 50.5;
			const int disc = dx * dx + dy * dy < 40.0 * 40.0;

			alpha[i] = disc ? 1.0 : 0.0;
			rgb[3 * i + 0] = disc ? 0.1 + 0.002 * x : 1.0;
			rgb[3 * i + 1] = disc ? 0.4 : 1.0;
			rgb[3 * i + 2] = disc ? 0.6 + 0.002 * y : 1.0;
			in += disc;
		}
	return in;
}

Test(render_validate, psnr_of_a_known_offset)
{
	static double a[3 * CV_W * CV_H], b[3 * CV_W * CV_H], alpha[CV_W * CV_H];

	cv_disc(a, alpha);
	memcpy(b, a, sizeof a);
	cr_assert(isinf(render_image_psnr(a, b, CV_W, CV_H)));
	for (size_t q = 0; q < 3 * CV_W * CV_H; q++)
		b[q] = a[q] + (q % 3 ? 0.01 : -0.01);
	cr_assert(fabs(render_image_psnr(a, b, CV_W, CV_H) - 40.0) < 1e-9);
	b[7] = NAN;
	cr_assert(isnan(render_image_psnr(a, b, CV_W, CV_H)));
	cr_assert(isnan(render_image_psnr(a, NULL, CV_W, CV_H)));
	cr_assert(isnan(render_image_psnr(a, b, 0, CV_H)));
}

/* Noise of MSE twice the bound's fails, half of it passes (no holes). */
Test(render_validate, converge_psnr_at_twice_the_bound_fails_half_passes)
{
	static double a[3 * CV_W * CV_H], b[3 * CV_W * CV_H], alpha[CV_W * CV_H];
	const double bg[3] = { 1.0, 1.0, 1.0 };
	const double mse = pow(10.0, -RENDER_CONVERGE_PSNR_DB / 10.0);

	cv_disc(a, alpha);
	for (int s = 0; s < 2; s++) {
		const double e = sqrt((s ? 2.0 : 0.5) * mse);
		struct render_converge_check v;

		/* +-e alternating, inwards on the background's channels at 1 */
		for (size_t q = 0; q < 3 * CV_W * CV_H; q++)
			b[q] = a[q] == 1.0 ? 1.0 - e : a[q] + (q % 2 ? e : -e);
		cr_assert_eq(render_validate_converged(a, alpha, b, bg, CV_W, CV_H, &v), 0);
		cr_expect_eq(v.holes.holes, 0);
		cr_expect(fabs(v.psnr_db - (RENDER_CONVERGE_PSNR_DB + (s ? -1 : 1) *
					    10.0 * log10(2.0))) < 1e-9, "%.6f dB", v.psnr_db);
		cr_expect_eq(v.pass, s == 0, "MSE %g times the bound: pass %d", s ? 2.0 : 0.5,
			     v.pass);
	}
}

/* Background in twice the bound's share of the silhouette fails, in half
 * of it passes; a pixel of 55 % water over the background is not a hole,
 * one of 40 % is; pixels outside the silhouette never count. */
Test(render_validate, converge_holes_at_twice_the_bound_fail_half_pass)
{
	static double a[3 * CV_W * CV_H], b[3 * CV_W * CV_H], alpha[CV_W * CV_H];
	static double own[CV_W * CV_H];
	const double bg[3] = { 1.0, 1.0, 1.0 };
	const size_t in = cv_disc(a, alpha);
	struct render_holes hl;

	cr_assert_gt(in, 4000);
	/* the holes made twice: as the background's colour (judged by
	 * contrast) and as an opacity of 0.3 (judged by opacity) */
	for (int s = 0; s < 2; s++) {
		const size_t want = (size_t)llround((s ? 2.0 : 0.5) * RENDER_CONVERGE_HOLES * in);
		struct render_converge_check v, o;
		size_t made = 0;

		memcpy(b, a, sizeof a);
		memcpy(own, alpha, sizeof own);
		for (size_t i = 0; i < (size_t)CV_W * CV_H && made < want; i++)
			if (alpha[i] == 1.0 && i % 7 == 0) {
				for (int k = 0; k < 3; k++)
					b[3 * i + k] = bg[k];
				own[i] = 0.3;
				made++;
			}
		cr_assert_eq(made, want);
		cr_assert_eq(render_validate_converged(a, alpha, b, bg, CV_W, CV_H, &v), 0);
		cr_assert_eq(render_validate_converged_opacity(a, alpha, a, own, CV_W, CV_H, &o), 0);
		cr_expect_eq(v.holes.silhouette, in);
		cr_expect_eq(v.holes.holes, want);
		cr_expect_eq(o.holes.silhouette, in);
		cr_expect_eq(o.holes.holes, want);
		if (s == 0)
			cr_expect(v.psnr_db >= RENDER_CONVERGE_PSNR_DB, "%.2f dB", v.psnr_db);
		cr_expect_eq(v.holes.share > RENDER_CONVERGE_HOLES, s == 1);
		cr_expect_eq(v.pass, s == 0, "holes %zu of %zu: pass %d", want, in, v.pass);
		cr_expect_eq(o.pass, s == 0, "by opacity, holes %zu of %zu: pass %d", want, in, o.pass);
	}

	/* one pixel mixed with the background: 55 % water is no hole, 40 % is */
	const size_t c = (size_t)50 * CV_W + 100;
	memcpy(b, a, sizeof a);
	for (int k = 0; k < 3; k++)
		b[3 * c + k] = 0.55 * a[3 * c + k] + 0.45 * bg[k];
	cr_assert_eq(render_image_holes(a, alpha, b, bg, CV_W, CV_H, &hl), 0);
	cr_expect_eq(hl.holes, 0);
	for (int k = 0; k < 3; k++)
		b[3 * c + k] = 0.4 * a[3 * c + k] + 0.6 * bg[k];
	cr_assert_eq(render_image_holes(a, alpha, b, bg, CV_W, CV_H, &hl), 0);
	cr_expect_eq(hl.holes, 1);
	/* a pixel outside the silhouette never counts; NaN inside is a hole */
	memcpy(b, a, sizeof a);
	for (int k = 0; k < 3; k++)
		b[k] = 0.0;
	b[3 * c] = NAN;
	cr_assert_eq(render_image_holes(a, alpha, b, bg, CV_W, CV_H, &hl), 0);
	cr_expect_eq(hl.holes, 1);
	cr_assert_eq(render_image_holes(a, alpha, b, bg, 0, CV_H, &hl), -1);
	cr_assert_eq(render_image_holes(a, NULL, b, bg, CV_W, CV_H, &hl), -1);
}

/* Holes by opacity, pixel by pixel: a silhouette pixel whose opacity is
 * below half the converged one's is a hole (0.4 of 1 is, 0.55 is not);
 * outside the silhouette nothing counts; a NaN opacity is a hole. (The
 * shares at twice and half the bound: the test above.) */
Test(render_validate, converge_holes_by_opacity_pixel_by_pixel)
{
	static double a[3 * CV_W * CV_H], alpha[CV_W * CV_H], own[CV_W * CV_H];
	struct render_holes hl;

	cr_assert_gt(cv_disc(a, alpha), 4000);
	const size_t c = (size_t)50 * CV_W + 100;
	cr_assert_eq(alpha[c], 1.0);
	memcpy(own, alpha, sizeof own);
	own[c] = 0.55;
	cr_assert_eq(render_image_holes_opacity(alpha, own, CV_W, CV_H, &hl), 0);
	cr_expect_eq(hl.holes, 0);
	own[c] = 0.4;
	cr_assert_eq(render_image_holes_opacity(alpha, own, CV_W, CV_H, &hl), 0);
	cr_expect_eq(hl.holes, 1);
	memcpy(own, alpha, sizeof own);
	own[0] = 0.0;	/* outside the disc */
	own[c] = NAN;
	cr_assert_eq(render_image_holes_opacity(alpha, own, CV_W, CV_H, &hl), 0);
	cr_expect_eq(hl.holes, 1);
	cr_assert_eq(render_image_holes_opacity(alpha, NULL, CV_W, CV_H, &hl), -1);
}

/* The converged setting: twice the field's resolution and four times the
 * samples where that fits, opacity kept per the image's own step; where
 * twice would pass RENDER_CONVERGE_MAX_VOXELS, the largest res that fits
 * (the derived 4.2 million field, res 1192, gets res < 2384 within 2^31
 * voxels); where nothing finer fits, refused. */
Test(render_validate, converge_params_double_the_field_within_the_cap)
{
	const double lo[3] = { 0, 0, 0 }, hi[3] = { 0.96, 0.243, 0.6 };
	struct render_params rp = { 0 }, conv;
	int dim[3];
	double v;

	rp.res = 300;
	rp.samples_per_unit = 800.0;
	rp.alpha_samples = 0.0;
	cr_assert_eq(render_converge_params(&rp, lo, hi, 0.0, &conv), 0);
	cr_expect_eq(conv.res, 600);
	cr_expect_eq(conv.samples_per_unit, 3200.0);
	cr_expect_eq(conv.alpha_samples, 800.0, "opacity per the image's own step");
	rp.res = 1192;
	cr_assert_eq(render_converge_params(&rp, lo, hi, 0.0, &conv), 0);
	cr_assert_eq(render_field_shape(conv.res, lo, hi, dim, &v), 0);
	cr_expect((double)dim[0] * dim[1] * dim[2] <= RENDER_CONVERGE_MAX_VOXELS);
	cr_assert_eq(render_field_shape(conv.res + 1, lo, hi, dim, &v), 0);
	cr_expect((double)dim[0] * dim[1] * dim[2] > RENDER_CONVERGE_MAX_VOXELS);
	cr_expect(conv.res > 1192 && conv.res < 2384, "res %d", conv.res);
	rp.res = 4096;
	cr_expect_eq(render_converge_params(&rp, lo, hi, 0.0, &conv), -1);
	/* a smaller cap (a smaller GPU): the largest res within it */
	rp.res = 300;
	cr_assert_eq(render_field_shape(450, lo, hi, dim, &v), 0);
	const double cap = (double)dim[0] * dim[1] * dim[2];
	cr_assert_eq(render_converge_params(&rp, lo, hi, cap, &conv), 0);
	cr_expect_eq(conv.res, 450, "res %d within %.0f voxels", conv.res, cap);
	cr_expect_eq(render_converge_params(&rp, lo, hi, 1000.0, &conv), -1,
		     "no field finer than res 300 in 1000 voxels");
	/* at the edge: a cap that only the image's own res fits is no finer
	 * field; one voxel less than res 301 needs, neither; exactly what it
	 * needs, res 301 */
	cr_assert_eq(render_field_shape(300, lo, hi, dim, &v), 0);
	const double own = (double)dim[0] * dim[1] * dim[2];
	cr_assert_eq(render_field_shape(301, lo, hi, dim, &v), 0);
	const double next = (double)dim[0] * dim[1] * dim[2];
	cr_assert_lt(own, next);
	cr_expect_eq(render_converge_params(&rp, lo, hi, own, &conv), -1,
		     "res %d in the %.0f voxels of res 300 itself", conv.res, own);
	cr_expect_eq(render_converge_params(&rp, lo, hi, next - 1, &conv), -1, "res %d", conv.res);
	cr_assert_eq(render_converge_params(&rp, lo, hi, next, &conv), 0);
	cr_expect_eq(conv.res, 301);
	/* a cap beyond RENDER_CONVERGE_MAX_VOXELS is held to it */
	rp.res = 1192;
	struct render_params held;
	cr_assert_eq(render_converge_params(&rp, lo, hi, 0.0, &held), 0);
	cr_assert_eq(render_converge_params(&rp, lo, hi, 2 * RENDER_CONVERGE_MAX_VOXELS, &conv), 0);
	cr_expect_eq(conv.res, held.res);
}

/*
 * The converged check on a real surface, through the reference: the
 * 8 x 4 x 16 column's surface particles drawn at render_ref.h's
 * defaults (res 64, a step of half the band) against their converged
 * setting pass; drawn at a 32nd of the samples (alpha kept per length: a
 * step of 16 bands, as the paper's fixed step is 9.6 bands at 4.2 million
 * particles) rays step over the surface and the check fails.
 */
Test(render_validate, converge_a_coarse_step_fails_a_fine_one_passes, .timeout = 120)
{
	enum { W = 160, H = 90 };
	const size_t px = (size_t)W * H;
	struct sph_column col;
	struct sph_scene sc;
	struct render_params rp, conv;
	struct render_camera cam;
	char err[256];
	unsigned char *surf;
	double *x, *s, *rgb[3], *alpha[3];
	size_t m;

	cr_assert_eq(sph_scene_column_parse("8x4x16@4", &col, err, sizeof err), 0);
	cr_assert_eq(sph_scene_build(&col, 5, &sc, err, sizeof err), 0, "%s", err);
	render_params_default(&rp, &sc.p);
	rp.res = 64;
	rp.alpha_samples = rp.samples_per_unit;
	x = malloc(3 * sc.n * sizeof *x);
	surf = malloc(sc.n);
	cr_assert(x && surf);
	for (size_t i = 0; i < sc.n; i++)
		for (int k = 0; k < 3; k++)
			x[3 * i + k] = sc.pos4[4 * i + k];
	cr_assert_eq(render_ref_surface(&sc.p, &rp, x, sc.n, surf, &m), 0);
	cr_assert_not_null(s = malloc(3 * m * sizeof *s));
	for (size_t i = 0, q = 0; i < sc.n; i++)
		if (surf[i])
			memcpy(&s[3 * q++], &x[3 * i], 3 * sizeof *s);
	cr_assert_eq(render_converge_params(&rp, sc.p.box_lo, sc.p.box_hi, 0.0, &conv), 0);
	render_camera_default(&cam, sc.p.box_lo, sc.p.box_hi, W, H);
	for (int k = 0; k < 3; k++) {
		struct render_params q = k == 0 ? conv : rp;
		struct render_field f = { 0 };

		if (k == 2)
			q.samples_per_unit = rp.samples_per_unit / 32.0;
		rgb[k] = malloc(3 * px * sizeof *rgb[k]);
		alpha[k] = malloc(px * sizeof *alpha[k]);
		struct render_ray_out out = { .opacity = alpha[k] };
		cr_assert(rgb[k] && alpha[k]);
		cr_assert_eq(render_ref_field(&q, sc.p.box_lo, sc.p.box_hi, s, m, &f), 0);
		cr_assert_eq(render_ref_raycast_ex(&q, &f, &cam, 1, rgb[k], &out), 0);
		render_field_free(&f);
	}
	struct render_converge_check ok, coarse;
	cr_assert_eq(render_validate_converged_opacity(rgb[0], alpha[0], rgb[1], alpha[1], W, H, &ok),
		     0);
	cr_assert_eq(render_validate_converged_opacity(rgb[0], alpha[0], rgb[2], alpha[2], W, H,
						       &coarse), 0);
	cr_log_info("8x4x16@4, %zu surface particles: res %d at %.0f samples/unit %.1f dB, holes %zu "
		    "of %zu; at %.1f: %.1f dB, holes %zu (converged res %d, %.0f)",
		    m, rp.res, rp.samples_per_unit, ok.psnr_db, ok.holes.holes, ok.holes.silhouette,
		    rp.samples_per_unit / 32.0, coarse.psnr_db, coarse.holes.holes, conv.res,
		    conv.samples_per_unit);
	cr_expect_gt(ok.holes.silhouette, px / 50, "the silhouette is nearly empty");
	cr_expect(ok.pass, "the defaults: %.1f dB, holes %.2f %%", ok.psnr_db, 100.0 * ok.holes.share);
	cr_expect(!coarse.pass, "a 32nd of the samples: %.1f dB, holes %.2f %%", coarse.psnr_db,
		  100.0 * coarse.holes.share);
	for (int k = 0; k < 3; k++) {
		free(rgb[k]);
		free(alpha[k]);
	}
	free(x);
	free(surf);
	free(s);
	sph_scene_free(&sc);
}
