/* render_ref.h - the SPH paper's rendering pipeline in double precision: the oracle */
#ifndef RENDER_REF_H
#define RENDER_REF_H

#include <stddef.h>

#include "sph_ref.h"

/*
 * Goswami et al. 2010, section 4: surface particles are extracted from
 * the simulation's particles (4.1), rasterised into a distance field
 * (4.2), and the field is raycast (4.3). This is the double-precision
 * reference every GPU stage will be validated against, kept simple.
 *
 * 1. Surface particles (4.1, after Zhang, Solenthaler and Pajarola 2008).
 *    The neighbours of fluid particle i are the fluid particles j != i
 *    with |x_j - x_i| < h (the walls' boundary particles are not
 *    neighbours here: water against a wall is drawn, as through glass).
 *    With equal masses the centre of mass of i's neighbourhood, i
 *    included, is com_i = (x_i + sum_j x_j) / (1 + n_i). i is a surface
 *    particle when
 *        |x_i - com_i| > com_threshold h      or      n_i < min_neighbours.
 *    Defaults (render_params_default): com_threshold = 0.1 (an interior
 *    lattice particle has com_i = x_i; one in a flat free surface of the
 *    lattice of spacing d = h / 2 has 17 neighbours and is 0.25 h off),
 *    min_neighbours = 0.6 times the neighbours of an interior particle of
 *    the rest lattice (render_rest_neighbours: 26 at h = 2 d, the pairs
 *    at exactly 2 d = h left out). In a lattice built in floating point
 *    rounding takes some of those 2 d pairs in (measured on 8^3 cubes at
 *    d = 1 cm and 1.37 cm: an interior particle then has 26 to 29
 *    neighbours and is up to 0.058 h off, a face particle 17 to 20 and
 *    0.236 h at least), so 0.1 still separates the outer layer (the
 *    surface) from the second (not).
 *
 * 2. Distance field (4.2). A grid of voxels over the box lo .. hi, the
 *    voxel size v = (longest side) / res (res = 256 by default), dim[k] =
 *    ceil((hi[k] - lo[k]) / v - 1e-9) + 1 voxels on axis k (the 1e-9 voxel
 *    absorbs rounding in the division: the longest side has exactly res +
 *    1), voxel (i, j, k) at lo + (i, j, k) v, each coordinate computed as
 *    lo[k] + i v. Every value starts at the maximum r_max^2. For every
 *    surface particle p, every voxel c with |c_k - p_k| <= r on each axis
 *    (the box of radius r around p, r = 1.5 d by default) and d = |c - p|:
 *        d <= r_max:  value = min(value, max(d, r_min)^2)
 *    with r_max = r sqrt(3) (the box's corner, as the paper has it: a
 *    voxel exactly on a corner is at d = r_max, where rounding decides
 *    the test, but its value is r_max^2, the maximum, either way) and
 *    r_min = 0.25 d (every distance below maps to the transfer function's
 *    value at r_min). Values are squared distances [m^2].
 *    Normals: the gradient by central differences (equation 5) of the
 *    field's distance sqrt(value), one-sided at the grid's faces.
 *
 * 3. Raycasting (4.3). A pinhole camera (eye, look-at point, up, vertical
 *    field of view) shoots one ray per pixel centre; samples every
 *    (longest side) / samples_per_unit metres (250 per unit distance, the
 *    unit being the box's longest side) from where the ray enters the
 *    box to where it leaves it; at each sample the distance field is
 *    interpolated trilinearly (its square root taken per voxel first),
 *    mapped by the transfer function
 *        alpha(d) = alpha_max exp(-((d - surface_d) / band)^2),
 *        colour   = water blue, lit by Phong (ambient + diffuse + specular,
 *                   a directional light) with the normal the normalised
 *                   gradient interpolated trilinearly,
 *    and composited front to back, C += (1 - A) alpha c, A += (1 - A)
 *    alpha, stopping once A >= opaque; the background (white) fills the
 *    rest: pixel = C + (1 - A) background. Empty space is skipped with a
 *    coarse occupancy grid of 8^3-voxel bricks: a brick none of whose
 *    voxels (and the one-voxel rim that interpolation reads) holds a
 *    value below the maximum is stepped over. Defaults: surface_d = 0.5 d
 *    (a particle's radius), band = 0.25 d, alpha_max = 0.6, opaque = 0.99.
 *    Where alpha_samples > 0 and differs from samples_per_unit, each
 *    sample's alpha is then corrected to 1 - (1 - alpha)^(alpha_samples /
 *    samples_per_unit) (opacity per length; see the derivation below).
 *    Precisely, so that a GPU raycaster can match it: the box a ray
 *    crosses is the field's, lo .. lo + (dim - 1) voxel, and the unit is
 *    its longest side; sample s lies at t_in + s step (t_in the entry, or
 *    0 where the eye is inside) for every t <= t_out. A sample whose
 *    eight voxels all hold the maximum is empty space and contributes
 *    nothing (alpha there is below 1e-30 at the defaults), which is what
 *    makes the skipping exact: the image is the same with it or without.
 *    The sample's colour is colour (RENDER_PHONG_AMBIENT + RENDER_PHONG_
 *    DIFFUSE max(n.light, 0)) + RENDER_PHONG_SPECULAR max(r.v, 0)^
 *    RENDER_PHONG_SHININESS (r the light reflected about n, v towards the
 *    eye; no specular where n.light <= 0), each channel clamped to
 *    [0, 1]; where the interpolated gradient is below 1e-9 (no
 *    direction) it is colour RENDER_PHONG_AMBIENT alone.
 */

/* Samples along a ray per unit distance in the paper's parameters (4.3),
 * render_params_default. */
#define RENDER_SAMPLES_PER_UNIT	250.0

/*
 * Parameters that follow the data (render_params_derive). The paper's
 * fixed numbers (res 256, 250 samples per unit) went with its 64^3 field
 * (about 4 samples per voxel) and its small columns: they hold the
 * field's voxel and the ray's step at about 3.8 mm in the 0.96 m tank
 * whatever the particle spacing d, while what is drawn (the band, the
 * box around a particle) shrinks with d. At 4.2 million particles (d =
 * 1.6 mm) a step is ten times the band and a voxel wider than the box
 * around a particle: rays step over the surface (see-through, speckle)
 * and the field aliases (moire). Here every length follows d, so an image
 * at any size is the same picture of its own surface, with the limits
 * the memory and the image set:
 *
 *   voxel  v = max(d / RENDER_VOXELS_PER_SPACING, pixel /
 *          RENDER_VOXELS_PER_PIXEL), then coarser where the field would
 *          exceed RENDER_FIELD_MAX_VOXELS (res = longest side / v, the
 *          largest whole res whose field fits). Three voxels per spacing
 *          put 9 voxels across a particle's box (2 r = 3 d) and resolve
 *          the band (0.25 d) to within the trilinear interpolation's
 *          error of a sphere's distance, v^2 / (8 dist) = d / 36 at the
 *          surface distance 0.5 d, a ninth of the band. A voxel below
 *          half a pixel's footprint adds memory the image cannot show
 *          (pixel: the footprint at the camera's look-at distance,
 *          render_camera_pixel; 0 where no image is given). The memory
 *          cap keeps the field at 2 GiB in double (the reference) and
 *          5 GiB at the GPU's 20 bytes a voxel.
 *   band   band = max(RENDER_BAND_PER_SPACING d, RENDER_BAND_PER_VOXEL v):
 *          0.25 d (the paper's Gaussian around the particle radius) while
 *          a voxel resolves it; where the memory or the image made the
 *          voxel coarser, the band widens to two voxels across (v / 2 a
 *          side) rather than alias into speckle.
 *   box    r = max(RENDER_BOX_PER_SPACING d, RENDER_BOX_PER_VOXEL v):
 *          1.5 d, and at least two voxels, so that every particle's box
 *          holds voxels on both sides of it on every axis.
 *   step   step = min(band, v) / RENDER_STEPS_PER_FEATURE: two samples in
 *          every band and every voxel. The Gaussian's Riemann sum along
 *          a ray is then exact to exp(-pi^2 band^2 / step^2) ~ 1e-17
 *          (Poisson summation), and no trilinear cell is crossed between
 *          two samples. samples_per_unit = longest side / step.
 *   alpha  opacity is defined per step of the derived sampling
 *          (alpha_samples = that samples_per_unit): a raycast at another
 *          step corrects each sample's alpha to 1 - (1 - alpha)^(alpha_
 *          samples / samples_per_unit), the opacity of the same length of
 *          material, so that images at finer steps converge to one
 *          picture instead of growing more opaque. At the derived step
 *          the exponent is exactly 1 and alpha is left as it is.
 *
 * In the 0.96 m tank of the paper's columns (box 0.96 x ~0.25 x 2 nz d)
 * at 1280 x 720 with render_camera_default (a pixel 1.04 mm) this gives
 * (tests/render/test_render_ref.c checks it):
 *     particles   d       res   voxel    band     step     samples/unit
 *     16,128      10 mm   288   3.33 mm  2.5 mm   1.25 mm   768
 *     255,600     4 mm    720   1.33 mm  1.0 mm   0.5 mm   1920
 *     4,207,500   1.6 mm  1192  0.81 mm  0.40 mm  0.20 mm  4768
 * (the last capped by memory: 1193 x 302 x 745 voxels, v = 0.5 d, the
 * band v / 2), where the paper's numbers are res 256 (3.75 mm) and 250
 * (3.84 mm) at every size. --res and --samples override res
 * and samples_per_unit (the band, box and step then follow the voxel
 * asked for; alpha stays defined per the derived step).
 */
#define RENDER_VOXELS_PER_SPACING	3.0
#define RENDER_VOXELS_PER_PIXEL		2.0
#define RENDER_FIELD_MAX_VOXELS		((size_t)1 << 28)
#define RENDER_BAND_PER_SPACING		0.25
#define RENDER_BAND_PER_VOXEL		0.5
#define RENDER_BOX_PER_SPACING		1.5
#define RENDER_BOX_PER_VOXEL		2.0
#define RENDER_STEPS_PER_FEATURE	2.0

/*
 * The paper's shading (4.3: "multiple refractions and Fresnel effects
 * based on the gradient ... environment mapping [mixed] to the color of
 * the samples"), render_params.shading = RENDER_SHADING_PAPER, beside
 * Phong (RENDER_SHADING_PHONG, above). The paper gives no formulas; here:
 *   surface  the ray meets the water's surface where the field's distance
 *            falls through surface_d between two samples (from above,
 *            approaching a layer of surface particles), once per layer: a
 *            ray that has met a surface meets the next only after its
 *            distance has risen above RENDER_PAPER_REARM surface_d (one
 *            particle spacing), clear of the layer's bumps, which it would
 *            otherwise cross again between particles. The normal there is
 *            the gradient of the interpolated distance by central
 *            differences RENDER_PAPER_NORMAL_SPAN surface_d apart (one
 *            particle spacing: the layer's bumps, one a particle, average
 *            out, where the sample's own gradient points at the nearest
 *            particle and would scatter the rays), normalised and turned to
 *            face the ray (n . dir < 0); where it has no direction the ray
 *            goes on unbent. A surface met an odd number of times is
 *            entered (air to water), an even number left.
 *   refraction  at each surface met, the direction bends by Snell's law,
 *            eta = n1 / n2 (1 / RENDER_WATER_IOR entering, RENDER_WATER_IOR
 *            leaving): t = eta dir + (eta cos_i - cos_t) n, cos_i = -n . dir,
 *            cos_t = sqrt(1 - eta^2 (1 - cos_i^2)); where that root would be
 *            of a negative number (total internal reflection) the ray
 *            reflects, r = dir + 2 cos_i n, and stays in its medium. At most
 *            RENDER_PAPER_MAX_BENDS surfaces bend a ray; the path then goes
 *            on straight. Samples continue every step along the bent path
 *            from the sample where it bent, until the ray leaves the field's
 *            box or is opaque.
 *   colour   each sample's colour is (1 - F) phong + F env(reflect(dir, n)),
 *            phong the Phong colour above and F Schlick's Fresnel term,
 *            F = F0 + (1 - F0) (1 - cos_i)^5, F0 = ((1 - n_w) / (1 + n_w))^2
 *            (0.0204 for water), cos_i = |n . dir|; where the gradient has no
 *            direction, phong alone.
 *   background  env(dir) of the ray's last direction instead of the flat
 *            background: what is seen through the water, bent.
 *   env      a generated environment (render_ref_env; no image files): sky
 *            above the horizon, from RENDER_ENV_HORIZON to RENDER_ENV_ZENITH
 *            linearly in z of the unit direction, and below it ground shaded
 *            0.75 + 0.25 cos(2 pi f x) cos(2 pi f y), f =
 *            RENDER_ENV_GROUND_FREQ: stripes whose bending shows the
 *            refraction; sky and ground blend linearly over |z| <
 *            RENDER_ENV_BLEND. The map changes by at most RENDER_ENV_SLOPE
 *            per radian that a direction turns, so that rays a pixel apart
 *            whose bent directions differ little see colours that differ
 *            little: an environment whose detail grows without bound (a
 *            ground plane's stripes, ever finer toward the horizon, or a
 *            sharp horizon) turns the particle-scale differences between
 *            neighbouring rays' directions into isolated bright pixels at
 *            any sampling (measured on the CPU variant, 16,128 particles
 *            at step 1,250, 480 x 270: 1,643 pixels 20 levels brighter
 *            than the median of their 3 x 3 neighbours with the earlier
 *            map of a ground plane's stripes and a horizon 0.02 wide, 672
 *            with this one; Phong's image of the same frame has 210).
 *   shell    the transfer function's band is drawn lighter, alpha_max =
 *            RENDER_PAPER_ALPHA_MAX instead of Phong's 0.6, so that rays
 *            pass through the layer of surface particles (the water's
 *            inside is empty space in the field: only surface particles
 *            are rasterised) and meet the far surface too: at Phong's
 *            alpha a ray is opaque before the distance falls to surface_d
 *            and no ray would ever bend.
 * Compositing, the transfer function's shape and the skipping are
 * Phong's; with no surface met, the path and the samples are Phong's too.
 * render_params_shading sets shading and alpha_max together.
 */
#define RENDER_SHADING_PHONG	0
#define RENDER_SHADING_PAPER	1
#define RENDER_WATER_IOR	1.333
#define RENDER_PAPER_MAX_BENDS	8
#define RENDER_PAPER_REARM	2.0
#define RENDER_PAPER_NORMAL_SPAN	2.0
#define RENDER_PAPER_ALPHA_MAX	0.04
#define RENDER_PHONG_ALPHA_MAX	0.6
#define RENDER_ENV_HORIZON_RGB	0.85, 0.90, 0.95
#define RENDER_ENV_ZENITH_RGB	0.30, 0.50, 0.85
#define RENDER_ENV_GROUND_RGB	0.45, 0.40, 0.35
#define RENDER_ENV_BLEND	0.25
#define RENDER_ENV_GROUND_FREQ	1.0
#define RENDER_ENV_SLOPE	1.6

/* The shadings' names, "phong" and "paper": the name of shading (NULL
 * for another value), and the shading of a name (-1 for another). */
const char *render_shading_name(int shading);
int render_shading_of(const char *name);

/* rp drawn with shading (RENDER_SHADING_PHONG or _PAPER): its alpha_max
 * with it. Returns 0, or -1 (rp unchanged) for another value. */
struct render_params;
int render_params_shading(struct render_params *rp, int shading);

/* The environment seen in unit direction dir, into rgb (each in [0, 1]). */
void render_ref_env(const double dir[3], double rgb[3]);
/* Schlick's Fresnel reflectance for cos_i = |n . dir| in [0, 1] at an
 * interface between indices n1 and n2. */
double render_ref_fresnel(double cos_i, double n1, double n2);
/* The unit direction dir bent at a surface of unit normal n facing it
 * (n . dir <= 0), from index n1 into n2, into out. Returns 1 where it
 * refracted, 0 where it was reflected (total internal reflection). */
int render_ref_refract(const double dir[3], const double n[3], double n1, double n2,
		       double out[3]);

/*
 * Normals (render_params.normals). RENDER_NORMALS_FIELD, the default: the
 * gradient of the distance field above, as the paper has it (its
 * equation 5), and for the paper's shading's bends its gradient over
 * RENDER_PAPER_NORMAL_SPAN surface_d. The field is the distance to the
 * nearest surface particle, so its gradient points away from that one
 * particle: over a flat layer of particles the normal tilts by up to
 * atan(0.71 / 0.5) = 55 degrees between particles (the layer's bumps), and
 * a ray that crosses the layer between particles need not fall through
 * surface_d at all (the paper's shading then does not bend it).
 *
 * RENDER_NORMALS_KERNEL: normals, and for the paper's shading the surface
 * its rays bend at, from a field that does not carry the bumps: the
 * water's smoothed indicator (a colour field; Mueller et al. 2003)
 *     w(c) = sum_j W_poly6(|c - x_j|^2, R) / sph_ref_lattice_sum(d, R)
 * over all the fluid particles x_j (not only the surface ones), with the
 * kernel's radius R = rp->smooth, RENDER_KERNEL_PER_SPACING d by default
 * (2 h): 1 inside the rest lattice, 0 outside, 1/2 on a surface half a
 * spacing outside the outer layer's centres (where the particle radius
 * surface_d puts it). The normals' stage (render_ref_normals) stores per
 * voxel w and minus its gradient (exact, from the kernel's derivative)
 * where a sample can read them: the voxels within one of a voxel below
 * the field's maximum. A sample's normal is that gradient interpolated
 * trilinearly and normalised; the transfer function and the empty-space
 * skipping stay the distance field's, so the image's coverage is the
 * paper's. In the paper's shading a ray starts in air and bends at the
 * first sample (not empty space) whose interpolated w lies on the other
 * side of RENDER_KERNEL_LEVEL than its medium: entering the water where w
 * has risen through the level, leaving it where w has fallen through
 * (a total internal reflection keeps the medium). The medium follows w,
 * not the count of layers crossed, and every ray that crosses the
 * surface bends there; the bend's normal is the sample's.
 * R = 4 d is the smallest multiple of d at which the known surfaces'
 * normals meet the goal (harness/render/render_validate.h: a ball of
 * radius 8.5 d on the lattice had 86 % of its pixels within 5 degrees at
 * 3 d, 100 % at 4 d) and the paper's shading speckles less than Phong's
 * (at 3 d, twice as much on a frame of the 16,128 column); at 5 d the
 * flat top's normals turn within two spacings of its edges
 * (results/render.md, Normals against known surfaces).
 */
#define RENDER_NORMALS_FIELD	0
#define RENDER_NORMALS_KERNEL	1
#define RENDER_KERNEL_PER_SPACING	4.0
#define RENDER_KERNEL_LEVEL	0.5
#define RENDER_NORMALS_PER_VOXEL	4	/* w and -grad w */

/* The normals' names: the name of normals (NULL for another value), and
 * the normals of a name (-1 for another). */
const char *render_normals_name(int normals);
int render_normals_of(const char *name);

/* The Phong model's constants (not parameters: one lighting for all). */
#define RENDER_PHONG_AMBIENT	0.2
#define RENDER_PHONG_DIFFUSE	0.7
#define RENDER_PHONG_SPECULAR	0.3
#define RENDER_PHONG_SHININESS	32.0

struct render_params {
	/* extraction */
	double com_threshold;	/* times h */
	double min_neighbours;	/* fewer: a surface particle */
	/* distance field */
	int res;		/* voxels along the box's longest side */
	double r;		/* half-side of the rasterised box [m] */
	double r_min, r_max;	/* the band [m]; r_max = r sqrt(3) */
	/* raycasting */
	double samples_per_unit;	/* along a ray, per longest side */
	double surface_d, band;	/* transfer function [m] */
	double alpha_max, opaque;
	double alpha_samples;	/* samples_per_unit at which alpha holds as
				 * the transfer function gives it; another
				 * step corrects it (see above); 0: never */
	double light[3];	/* direction towards the light, normalised */
	double colour[3];	/* the water's, in [0, 1] */
	double background[3];	/* Phong's; the paper's shading shows the env */
	int shading;		/* RENDER_SHADING_PHONG or RENDER_SHADING_PAPER */
	int normals;		/* RENDER_NORMALS_FIELD (0) or RENDER_NORMALS_KERNEL */
	double smooth;		/* the kernel normals' radius R [m] */
};

/* Neighbours (r < h, self excluded) of an interior particle of the cubic
 * lattice of spacing p->spacing. */
int render_rest_neighbours(const struct sph_params *p);

/* The paper's parameters for water of parameters p: as listed above,
 * res 256, RENDER_SAMPLES_PER_UNIT, band 0.25 d, r 1.5 d, alpha_samples 0
 * (no correction). Right for the paper's columns at 64^3 .. 256; the
 * harness renders with render_params_derive. */
void render_params_default(struct render_params *rp, const struct sph_params *p);

/* The voxel [m] of the derivation above for spacing d over the box lo ..
 * hi and a pixel footprint pixel [m] (0: no image), before the memory cap;
 * and the res it gives, memory cap applied (2 .. 4096): the largest res
 * not above longest / voxel whose field has at most RENDER_FIELD_MAX_VOXELS
 * voxels. -1 for an empty or non-finite box or d not positive. */
double render_derive_voxel(double d, double pixel);
int render_derive_res(double d, const double lo[3], const double hi[3], double pixel);
/* band, box radius and step [m] for spacing d at voxel v (see above). */
double render_derive_band(double d, double v);
double render_derive_box(double d, double v);
double render_derive_step(double d, double v);

/* The footprint [m] of one pixel of camera c at its look-at distance:
 * 2 |at - eye| tan(fov / 2) / height. */
struct render_camera;
double render_camera_pixel(const struct render_camera *c);

/*
 * The harness's parameters: render_params_default's, then res, band,
 * r, r_max, the step (samples_per_unit) and alpha_samples derived as
 * above for p->spacing over the box lo .. hi and pixel (0: no image).
 * res > 0 forces the field's resolution (band, box and step follow its
 * voxel), samples > 0 the samples per unit; alpha_samples is the derived
 * sampling's either way. Returns 0, or -1 (rp left at the paper's) for an
 * empty or non-finite box, or a forced res outside 2 .. 4096.
 */
int render_params_derive(struct render_params *rp, const struct sph_params *p,
			 const double lo[3], const double hi[3], double pixel, int res,
			 double samples);

/*
 * Surface particles of the n fluid positions x[3n] (boundary particles
 * are not passed). surface[i] = 1 or 0; *count the number of 1s.
 * Neighbours from sph_ref_neighbours_grid. Returns 0, or -1 when the
 * grid cannot be built (memory, a non-finite position).
 */
int render_ref_surface(const struct sph_params *p, const struct render_params *rp,
		       const double *x, size_t n, unsigned char *surface, size_t *count);

/* The criterion's two numbers for particle i, for tests and for judging
 * a float variant's borderline particles: |x_i - com_i| / h and n_i. */
void render_ref_surface_criterion(const struct sph_params *p, const double *x,
				  const struct sph_nbr_list *nl, size_t i,
				  double *com_off, size_t *neighbours);

/* A distance field: value[(k dim[1] + j) dim[0] + i] for voxel (i, j, k). */
struct render_field {
	int dim[3];
	double lo[3];
	double voxel;		/* [m] */
	double max;		/* the initial value, r_max^2 */
	double *value;		/* squared distances [m^2] */
	double *smooth;		/* the kernel normals' field (render_ref_normals):
				 * RENDER_NORMALS_PER_VOXEL a voxel in value's
				 * order, w and -grad w; NULL otherwise, and
				 * read only with RENDER_NORMALS_KERNEL */
};

/* The field's shape over the box lo .. hi at res (as the header says:
 * voxel = longest side / res, dim[k] voxels on axis k). 0, or -1 for res
 * outside 2 .. 4096 or an empty or non-finite box. */
int render_field_shape(int res, const double lo[3], const double hi[3], int dim[3],
		       double *voxel);

/*
 * Allocates the field over the box lo .. hi at rp->res and rasterises the
 * m surface positions s[3m] into it as above. Returns 0, or -1 (field
 * empty) for res < 2 or > 4096, an empty (hi[k] <= lo[k] on an axis) or
 * non-finite box, a non-finite position, or no memory.
 */
int render_ref_field(const struct render_params *rp, const double lo[3], const double hi[3],
		     const double *s, size_t m, struct render_field *f);

/* The gradient of sqrt(value) at voxel (i, j, k) by central differences
 * (one-sided at the faces; 0 on an axis of one voxel), per metre. */
void render_ref_gradient(const struct render_field *f, int i, int j, int k, double g[3]);

void render_field_free(struct render_field *f);

/*
 * The normals' stage: f->smooth (allocated here, freed by
 * render_field_free) for rp->normals (see Normals above) from the field f
 * and the n fluid positions x[3n] of water of parameters p (all of them,
 * not only the surface), within rp->smooth of each. Nothing for
 * RENDER_NORMALS_FIELD (f->smooth NULL). Returns 0, or -1 (f->smooth
 * NULL) for another value, a radius not positive or not finite, a field
 * without values, a non-finite position, or no memory. It holds
 * RENDER_NORMALS_BYTES_PER_VOXEL a voxel besides the field: four doubles
 * and a byte of scratch.
 */
#define RENDER_NORMALS_BYTES_PER_VOXEL 33
int render_ref_normals(const struct render_params *rp, const struct sph_params *p,
		       const double *x, size_t n, struct render_field *f);

/* A pinhole camera. */
struct render_camera {
	double eye[3], at[3], up[3];
	double fov_deg;		/* vertical field of view */
	int width, height;	/* pixels */
};

/* A camera looking at the box lo .. hi from the front (-y side), a
 * little above, framing the whole box, at width x height: z up, a
 * vertical field of view of 40 degrees, looking 20 degrees down at the
 * box's centre from just far enough that every corner projects within
 * 1 / 1.1 of the image's half-width and half-height. */
void render_camera_default(struct render_camera *c, const double lo[3], const double hi[3],
			   int width, int height);

/*
 * Raycasts f through camera c into rgb[3 width height] (row 0 the top,
 * each channel in [0, 1]). Pixel (px, py)'s ray goes from the eye through
 * at + (x right + y up') dist tan(fov / 2), x = (2 (px + 0.5) / width - 1)
 * width / height, y = 1 - 2 (py + 0.5) / height (right = view x up and
 * up' = right x view, normalised; dist = |at - eye|). Returns 0, or -1 for
 * a camera of no pixels or more than 16384 on a side, a degenerate view
 * (eye == at, up parallel to the view, fov outside (0, 180) degrees,
 * anything non-finite), a field of fewer than 2 voxels on an axis or no
 * values, samples_per_unit or band not positive, alpha_samples negative
 * or not finite, normals unknown or RENDER_NORMALS_KERNEL without f->smooth
 * (render_ref_normals), or no memory.
 */
int render_ref_raycast(const struct render_params *rp, const struct render_field *f,
		       const struct render_camera *c, double *rgb);

/* What render_ref_raycast_ex can report besides the image. Each array is
 * NULL (not wanted) or width x height, in the image's order. */
struct render_ray_out {
	double alpha_min;	/* for first: a sample's alpha above this */
	double *first;		/* the distance from the eye of the ray's first
				 * sample of alpha > alpha_min; -1 if none */
	double *opacity;	/* A where the ray stopped */
	long *samples;		/* samples evaluated, skipped ones not counted */
	double *exit_dir;	/* 3 per pixel: the ray's last direction (bent
				 * by the paper's shading; the first otherwise) */
	int *bends;		/* surfaces that bent the ray (paper's shading) */
	double *normal;		/* 3 per pixel: the normal the pixel was shaded
				 * with: the mean of its samples' unit normals,
				 * each weighted by its share of the pixel's
				 * colour, (1 - A) alpha, over the samples
				 * before the ray's first bend, normalised;
				 * (0, 0, 0) where no sample had a normal */
	double *hit;		/* 3 per pixel: where normal was taken: the
				 * mean of the same samples' positions, with
				 * the same weights; NAN where there are none */
	long long skipped;	/* set: the image's samples stepped over */
};

/* render_ref_raycast with the empty-space skipping on (skip != 0, as
 * render_ref_raycast) or off, and what out asks for (out may be NULL).
 * The image is the same either way; the tests compare. */
int render_ref_raycast_ex(const struct render_params *rp, const struct render_field *f,
			  const struct render_camera *c, int skip, double *rgb,
			  struct render_ray_out *out);

#endif /* RENDER_REF_H */
