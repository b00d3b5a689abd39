/* sph_render.c - bin/harness sph render: frames of an SPH run through the rendering reference */
#define _GNU_SOURCE
#include "sph_render.h"

#include <getopt.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../reference/render_ref.h"
#include "../../reference/sph_scene.h"
#include "../../variants/sph_registry.h"
#include "../core/atomic_file.h"
#include "../cli.h"
#include "../core/progress.h"
#include "../core/sysinfo.h"
#include "../core/timing.h"
#include "../../kernels/render/render_gpu.h"
#include "../render/png_out.h"
#include "../render/render_run.h"
#include "../core/interrupt.h"
#include "sph_checkpoint.h"

#define RENDER_MAX_FIELD_BYTES	((size_t)4 << 30)
/* What rendering a frame costs, for the progress estimate, in steps. */
#define SPH_RENDER_FRAME_STEPS	50.0

struct render_options {
	int variant;
	struct sph_column col;
	struct cli_moments at_m;	/* --at as given */
	unsigned long at[CLI_MAX_MOMENTS]; /* its steps, once the scene's dt is known */
	size_t nat;
	int width, height, res;
	double samples;	/* per unit distance (0: the default) */
	uint64_t seed;
	const char *out;
	int shading;	/* RENDER_SHADING_PHONG or RENDER_SHADING_PAPER */
	int normals;	/* RENDER_NORMALS_FIELD or RENDER_NORMALS_KERNEL */
	int gpu;	/* --gpu INDEX; -1: not given */
	bool quiet, help, converge;
	const char *checkpoint;	/* --checkpoint FILE: the state after every frame */
	const char *restart;	/* --restart FILE */
};

/* --at's moments as ascending steps of dt (cli.h's CLI_MOMENTS_RULE),
 * else err. */
static int render_at_steps(struct render_options *o, double dt, char *err, size_t errlen)
{
	return cli_moments_steps("--at", &o->at_m, dt, CLI_MOMENT_MAX_STEPS, true, o->at, err,
				 errlen);
}

static void render_help(void)
{
	printf("usage: harness sph render --variant NAME --column C --at STEPS --out DIR\n"
	       "                          [--width W] [--height H] [--res R] [--samples S]\n"
	       "                          [--shading phong|paper] [--normals field|kernel]\n"
	       "                          [--seed S] [--converge]\n\n"
	       "Runs one SPH variant on one column and renders its water at each step of\n"
	       "--at through the SPH paper's rendering pipeline into\n"
	       "DIR/<variant>-<column>-<step>.png: a GPU variant extracts the surface with\n"
	       "its own neighbour search and renders on the GPU (kernels/render/render_gpu.h),\n"
	       "the CPU variant through the double reference (reference/render_ref.h), its\n"
	       "line naming each reference stage's time and the frame's speckle\n"
	       "(harness/render/render_validate.h).\n\n"
	       "  --variant, -v NAME  one SPH variant (see harness sph list)\n"
	       "  --column C          a named column or NXxNYxNZ[@L] (16128)\n"
	       "  --at LIST           ascending steps, comma-separated, at most %d; a value\n"
	       "                      ending in s is seconds of flow (0.1s: the nearest step);\n"
	       "                      each " CLI_MOMENTS_STEPS " or\n"
	       "                      " CLI_MOMENTS_SECONDS "\n"
	       "  --out, -o DIR       where the frames go (created)\n"
	       "  --width W, --height H  pixels (%d x %d; at most %d a side)\n"
	       "  --res R             distance-field voxels along the box's longest side\n"
	       "                      (derived from the particle spacing, the box and the\n"
	       "                      image: reference/render_ref.h; 2 .. %d)\n"
	       "  --samples S         ray samples per unit distance, the box's longest side\n"
	       "                      (derived)\n"
	       "  --shading phong|paper  Phong lighting (the default), or the paper's: rays\n"
	       "                      bent at the surface by Snell's law, a Fresnel term and\n"
	       "                      a generated environment (reference/render_ref.h)\n"
	       "  --normals field|kernel  the CPU variant only: the distance field's\n"
	       "                      gradient (the paper's, the default), or the gradient of\n"
	       "                      the water's kernel-smoothed field, smooth at the particle\n"
	       "                      spacing, whose surface also bends the paper's rays\n"
	       "                      (reference/render_ref.h)\n"
	       "  --converge          the CPU variant only: also render each frame converged\n"
	       "                      (%dx the field's resolution, %gx the samples) and with the\n"
	       "                      paper's res 256 and 250 samples, and print the PSNR and the\n"
	       "                      holes of both the frame and the paper's against it\n"
	       "                      (harness/render/render_validate.h)\n"
	       "  --seed S            jitter of the lattice (42)\n"
	       "  --checkpoint FILE   after every frame, the run's state there (atomically,\n"
	       "                      FILE.json beside it); the variant is then made again\n"
	       "                      from it, as a restart makes it\n"
	       "  --restart FILE      go on from such a checkpoint of the same binary, variant\n"
	       "                      and options: the frames after it, bit for bit as an\n"
	       "                      unbroken run with --checkpoint renders them\n"
	       "  --gpu INDEX         the GPU to use among those visible, as for 'harness sph run'\n"
	       "  --quiet, -q         no progress lines\n"
	       "Exit status: 0 every frame written, 1 a failure, 2 bad input.\n",
	       CLI_MAX_MOMENTS, RENDER_RUN_WIDTH, RENDER_RUN_HEIGHT, RENDER_RUN_MAX_SIDE,
	       RENDER_RUN_MAX_RES, RENDER_CONVERGE_RES, RENDER_CONVERGE_SAMPLES);
}

static int render_parse(int argc, char **argv, struct render_options *o, char *err, size_t errlen)
{
	enum { OPT_COLUMN = 300, OPT_AT, OPT_WIDTH, OPT_HEIGHT, OPT_RES, OPT_SEED, OPT_SAMPLES,
	       OPT_CONVERGE, OPT_SHADING, OPT_NORMALS, OPT_GPU, OPT_CHECKPOINT, OPT_RESTART };
	static const struct option longopts[] = {
		{ "variant", required_argument, NULL, 'v' },
		{ "column", required_argument, NULL, OPT_COLUMN },
		{ "at", required_argument, NULL, OPT_AT },
		{ "out", required_argument, NULL, 'o' },
		{ "width", required_argument, NULL, OPT_WIDTH },
		{ "height", required_argument, NULL, OPT_HEIGHT },
		{ "res", required_argument, NULL, OPT_RES },
		{ "samples", required_argument, NULL, OPT_SAMPLES },
		{ "seed", required_argument, NULL, OPT_SEED },
		{ "converge", no_argument, NULL, OPT_CONVERGE },
		{ "shading", required_argument, NULL, OPT_SHADING },
		{ "normals", required_argument, NULL, OPT_NORMALS },
		{ "gpu", required_argument, NULL, OPT_GPU },
		{ "checkpoint", required_argument, NULL, OPT_CHECKPOINT },
		{ "restart", required_argument, NULL, OPT_RESTART },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	memset(o, 0, sizeof *o);
	o->variant = -1;
	o->gpu = -1;
	o->width = RENDER_RUN_WIDTH;
	o->height = RENDER_RUN_HEIGHT;
	o->res = RENDER_RUN_RES;
	o->seed = 42;
	if (sph_scene_column_parse("16128", &o->col, err, errlen) != 0)
		return CLI_USAGE;
	int rc = CLI_OK, c;
	optind = 0;
	opterr = 0;
	while (rc == CLI_OK && (c = getopt_long(argc, argv, ":v:o:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'v':
			if ((o->variant = sph_variant_one(optarg, err, errlen)) < 0)
				rc = CLI_USAGE;
			break;
		case OPT_COLUMN:
			if (sph_scene_column_parse(optarg, &o->col, err, errlen) != 0)
				rc = CLI_USAGE;
			break;
		case OPT_AT:
			rc = cli_parse_moments("--at", optarg, &o->at_m, err, errlen);
			o->nat = o->at_m.n;
			break;
		case 'o': o->out = optarg; break;
		case OPT_WIDTH: rc = cli_parse_int("--width", optarg, 1, RENDER_RUN_MAX_SIDE, &o->width, err, errlen); break;
		case OPT_HEIGHT: rc = cli_parse_int("--height", optarg, 1, RENDER_RUN_MAX_SIDE, &o->height, err, errlen); break;
		case OPT_RES: rc = cli_parse_int("--res", optarg, 2, RENDER_RUN_MAX_RES, &o->res, err, errlen); break;
		case OPT_SEED: rc = cli_parse_u64("--seed", optarg, &o->seed, err, errlen); break;
		case OPT_SAMPLES:
			rc = cli_parse_double("--samples", optarg, 1, RENDER_RUN_MAX_SAMPLES, &o->samples,
					      err, errlen);
			break;
		case OPT_CONVERGE: o->converge = true; break;
		case OPT_GPU: rc = cli_parse_gpu(optarg, &o->gpu, err, errlen); break;
		case OPT_SHADING:
			if ((o->shading = render_shading_of(optarg)) < 0) {
				snprintf(err, errlen, "--shading '%s': phong or paper", optarg);
				rc = CLI_USAGE;
			}
			break;
		case OPT_NORMALS:
			if ((o->normals = render_normals_of(optarg)) < 0) {
				snprintf(err, errlen, "--normals '%s': field or kernel", optarg);
				rc = CLI_USAGE;
			}
			break;
		case OPT_CHECKPOINT: o->checkpoint = optarg; break;
		case OPT_RESTART: o->restart = optarg; break;
		case 'q': o->quiet = true; break;
		case 'h': o->help = true; break;
		default: rc = cli_getopt_error(c, argv[optind - 1], "sph render", err, errlen); break;
		}
	}
	if (rc == CLI_OK && optind < argc) {
		snprintf(err, errlen, "unexpected argument '%s'", argv[optind]);
		rc = CLI_USAGE;
	}
	if (rc == CLI_OK && !o->help && (o->variant < 0 || o->nat == 0 || !o->out)) {
		snprintf(err, errlen, "render needs --variant NAME, --at STEPS and --out DIR");
		rc = CLI_USAGE;
	}
	return rc;
}

/* What an interruption says: the frames written, and the checkpoint
 * that goes on (core/interrupt.h's keeper; set under its lock). */
static char render_said[1400];

static void render_keeper(void *ctx, int sig, char *said, size_t len)
{
	(void)ctx;
	(void)sig;
	snprintf(said, len, "%s", render_said[0] ? render_said : "no frame was written");
}

/* The options that change the frames, as text: a checkpoint goes on only
 * under the same. */
static void render_options_text(const struct render_options *o, char *out, size_t len)
{
	int at = snprintf(out, len, "column=%s seed=%llu at=", o->col.name,
			  (unsigned long long)o->seed);
	for (size_t k = 0; k < o->nat && at > 0 && (size_t)at < len; k++)
		at += snprintf(out + at, len - (size_t)at, "%s%lu", k ? "," : "", o->at[k]);
	if (at > 0 && (size_t)at < len)
		snprintf(out + at, len - (size_t)at,
			 " width=%d height=%d res=%d samples=%.17g shading=%d normals=%d converge=%d",
			 o->width, o->height, o->res, o->samples, o->shading, o->normals, o->converge);
}

/*
 * After frame next - 1 at step: the variant's particles (pos4, vel4, read
 * for the frame) into a checkpoint
 * (--checkpoint, when given) whose progress is the next frame, and the
 * variant made again from them, as a restart from it makes it, so that
 * the frames after a restart are the unbroken run's bit for bit.
 */
static int render_checkpoint(const struct render_options *o, const struct sph_variant *v,
			     const struct sph_scene *sc, const char *options, size_t next,
			     unsigned long step, float *pos4, float *vel4, void **ctx)
{
	char err[1400];
	if (o->checkpoint) {
		uint64_t progress = next;
		struct sph_checkpoint ck = { .progress = (unsigned char *)&progress,
					     .progress_len = sizeof progress };
		snprintf(ck.command, sizeof ck.command, "sph render");
		snprintf(ck.options, sizeof ck.options, "%s", options);
		sph_state_meta_of(&ck.state, &o->col, o->seed, sc, step, v->name);
		if (sph_checkpoint_write(o->checkpoint, &ck, pos4, vel4, err, sizeof err) != 0) {
			fprintf(stderr, "harness: sph render: %s\n", err);
			return -1;
		}
		interrupt_lock();
		const size_t at = strlen(render_said);
		snprintf(render_said + at, sizeof render_said - at,
			 "; its last checkpoint, %s, holds step %lu: the same command with --restart "
			 "%s goes on from there", o->checkpoint, step, o->checkpoint);
		interrupt_unlock();
		interrupt_row_finished(); /* the test hook counts checkpoints */
	}
	v->ops->destroy(*ctx);
	*ctx = NULL;
	const struct sph_input in = { sc->n, pos4, vel4, sc->nb, sc->bnd4 };
	if (v->ops->create(ctx, &in, &sc->p, err, sizeof err) != 0) {
		fprintf(stderr, "harness: sph render: %s: %s\n", v->name, err);
		return -1;
	}
	return 0;
}

/* The field's voxels for a box at resolution res (render_field_shape),
 * or 0 for a shape the reference refuses. */
static double render_field_voxels(const double lo[3], const double hi[3], int res)
{
	int dim[3];
	double v;
	if (render_field_shape(res, lo, hi, dim, &v) != 0)
		return 0.0;
	return (double)dim[0] * dim[1] * dim[2];
}

/* One frame of a variant with surface extraction (the GPU variants):
 * extraction with its own search, then kernels/render/render_gpu.h. */
static int render_frame_gpu(const struct sph_ops *ops, void *ctx, struct render_gpu *rg,
			    const struct render_params *rp, int width, int height,
			    const char *path, size_t *surface_count)
{
	char err[256];
	struct sph_surface_request rq = { rp->com_threshold, rp->min_neighbours,
					  render_gpu_surface_buffer(rg), NULL, 0, 0.0 };
	const size_t px = (size_t)width * (size_t)height;
	float *img = malloc(3 * px * sizeof *img);
	double *rgb = malloc(3 * px * sizeof *rgb);
	int rc = -1;
	if (!img || !rgb) {
		fprintf(stderr, "harness: sph render: out of memory for a %d x %d image\n", width, height);
		goto out;
	}
	if (ops->surface(ctx, &rq) != 0) {
		fprintf(stderr, "harness: sph render: surface extraction failed: %s\n", ops->error(ctx));
		goto out;
	}
	if (render_gpu_field(rg, rq.count) != 0 || render_gpu_raycast(rg) != 0 ||
	    render_gpu_read_image(rg, img) != 0) {
		fprintf(stderr, "harness: sph render: %s\n", render_gpu_error(rg));
		goto out;
	}
	for (size_t k = 0; k < 3 * px; k++)
		rgb[k] = img[k];
	if (png_out_write(path, rgb, width, height, err, sizeof err) != 0) {
		fprintf(stderr, "harness: sph render: %s\n", err);
		goto out;
	}
	*surface_count = rq.count;
	rc = 0;
out:
	free(img);
	free(rgb);
	return rc;
}

/* A CPU frame's particles: the m surface positions s and all n fluid
 * positions x (the kernel normals' input). */
struct render_cpu_input {
	const double *s;
	size_t m;
	const double *x;
	size_t n;
};

/* The wall-clock seconds of the reference's stages for one image. */
struct render_cpu_times {
	double surface, field, normals, raycast;
};

/* Renders the field of in's surface positions at rp into rgb, with the
 * normals rp asks for; with opacity non-NULL, each pixel's opacity too;
 * with t non-NULL, the stages' times (surface left as it is). 0, or -1
 * (memory). */
static int render_image(const struct render_params *rp, const struct sph_params *p,
			const struct render_camera *cam, const struct render_cpu_input *in,
			double *rgb, double *opacity, struct render_cpu_times *t)
{
	struct render_field f = { 0 };
	struct render_ray_out out = { .opacity = opacity };
	const double t0 = timing_now();
	double t1 = t0, t2 = t0;
	int rc = -1;

	if (render_ref_field(rp, p->box_lo, p->box_hi, in->s, in->m, &f) == 0 &&
	    (t1 = timing_now(), render_ref_normals(rp, p, in->x, in->n, &f) == 0) &&
	    (t2 = timing_now(), render_ref_raycast_ex(rp, &f, cam, 1, rgb, &out) == 0))
		rc = 0;
	if (t) {
		t->field = t1 - t0;
		t->normals = t2 - t1;
		t->raycast = timing_now() - t2;
	}
	render_field_free(&f);
	return rc;
}

/* --converge: the frame rgb (at rp) and the paper's parameters against the
 * converged image, one line each. 0, or -1 (memory). */
static int render_converge(const struct render_params *rp, const struct sph_params *p,
			   const struct render_camera *cam, const struct render_cpu_input *in,
			   const double *rgb, const char *path)
{
	const size_t px = (size_t)cam->width * (size_t)cam->height;
	struct render_params conv = *rp, paper;
	double *crgb = malloc(3 * px * sizeof *crgb), *alpha = malloc(px * sizeof *alpha);
	double *prgb = malloc(3 * px * sizeof *prgb);
	int rc = -1;

	render_params_default(&paper, p);
	paper.normals = rp->normals;
	if (render_converge_params(rp, p->box_lo, p->box_hi, 0.0, &conv) != 0) {
		fprintf(stderr, "harness: sph render: no finer field than res %d fits\n", rp->res);
		goto out;
	}
	if (!crgb || !alpha || !prgb || render_image(&conv, p, cam, in, crgb, alpha, NULL) != 0 ||
	    render_image(&paper, p, cam, in, prgb, NULL, NULL) != 0)
		goto out;
	for (int q = 0; q < 2; q++) {
		const struct render_params *r = q ? &paper : rp;
		struct render_converge_check v;

		render_validate_converged(crgb, alpha, q ? prgb : rgb, rp->background, cam->width,
					  cam->height, &v);
		printf("%s: %s res %d, %.0f samples/unit: %.2f dB, holes %zu of %zu silhouette "
		       "pixels (%.3f %%) against res %d, %.0f samples/unit: %s\n",
		       path, q ? "paper's" : "derived", r->res, r->samples_per_unit, v.psnr_db,
		       v.holes.holes, v.holes.silhouette, 100.0 * v.holes.share, conv.res,
		       conv.samples_per_unit, v.pass ? "converged" : "NOT converged");
	}
	rc = 0;
out:
	free(crgb);
	free(alpha);
	free(prgb);
	return rc;
}


/* Takes steps more steps of v's ctx; on the CPU, where a step costs
 * most, in up to 20 pieces, each reported on pg as a part of the item
 * under way (the steps, then the frame's SPH_RENDER_FRAME_STEPS of cost),
 * so that a long way to the first frame shows progress. A CPU variant's
 * pieces are the same steps as one call (the GPU ones batch steps into
 * graphs: they take one call). 0, or -1 when the variant failed. */
static int sph_render_advance(const struct sph_variant *v, void *ctx, unsigned long steps,
			      struct progress *pg)
{
	const struct sph_ops *ops = v->ops;
	unsigned long piece = v->device == VARIANT_GPU ? steps : steps / 20 ? steps / 20 : 1;
	unsigned long done = 0;
	while (done < steps) {
		struct sph_phase_times t = { 0 };
		unsigned long n = steps - done < piece ? steps - done : piece;
		if (ops->steps(ctx, (int)n, &t) != 0)
			return -1;
		done += n;
		progress_part(pg, (double)done / ((double)steps + SPH_RENDER_FRAME_STEPS));
	}
	return 0;
}

/* One frame: the fluid positions pos4 (n) rendered at rp into path; the
 * reference's stage times and the frame's speckle (render_image_speckle)
 * into *t and *speckle. */
static int render_frame(const struct render_options *o, const struct sph_scene *sc,
			const struct render_params *rp, const float *pos4, const char *path,
			size_t *surface_count, struct render_cpu_times *t, size_t *speckle)
{
	char err[256];
	struct render_camera cam;
	const struct sph_params *p = &sc->p;
	const size_t n = sc->n;
	int rc = -1;
	double *x = malloc(3 * n * sizeof *x), *s = NULL, *rgb = NULL;
	unsigned char *surf = malloc(n);
	size_t m = 0;
	if (!x || !surf)
		goto out;
	for (size_t i = 0; i < n; i++)
		for (int d = 0; d < 3; d++)
			x[3 * i + d] = pos4[4 * i + d];
	const double t0 = timing_now();
	if (render_ref_surface(p, rp, x, n, surf, &m) != 0)
		goto out;
	t->surface = timing_now() - t0;
	s = malloc((m ? 3 * m : 1) * sizeof *s);
	if (!s)
		goto out;
	for (size_t i = 0, k = 0; i < n; i++)
		if (surf[i])
			memcpy(&s[3 * k++], &x[3 * i], 3 * sizeof *s);
	const struct render_cpu_input in = { s, m, x, n };
	render_camera_default(&cam, p->box_lo, p->box_hi, o->width, o->height);
	rgb = malloc(3 * (size_t)o->width * (size_t)o->height * sizeof *rgb);
	if (!rgb || render_image(rp, p, &cam, &in, rgb, NULL, t) != 0 ||
	    render_image_speckle(rgb, o->width, o->height, speckle) != 0)
		goto out;
	if (o->converge && render_converge(rp, p, &cam, &in, rgb, path) != 0)
		goto out;
	if (png_out_write(path, rgb, o->width, o->height, err, sizeof err) != 0) {
		fprintf(stderr, "harness: sph render: %s\n", err);
		goto out_quiet;
	}
	*surface_count = m;
	rc = 0;
	goto out_quiet;
out:
	fprintf(stderr, "harness: sph render: %s: out of memory or a non-finite position\n", path);
out_quiet:
	free(x);
	free(surf);
	free(s);
	free(rgb);
	return rc;
}

int sph_render_check_memory(const char *what, size_t particles, double voxels, double pixels,
			    char *err, size_t errlen)
{
	return sysinfo_check_memory_plus(what, particles, SPH_RENDER_BYTES_PER_PARTICLE,
					 voxels * SPH_RENDER_BYTES_PER_VOXEL +
						 pixels * SPH_RENDER_BYTES_PER_PIXEL,
					 "particles", err, errlen);
}

int sph_render_command(int argc, char **argv)
{
	struct render_options o;
	char err[512];
	if (render_parse(argc - 1, argv + 1, &o, err, sizeof err) != CLI_OK)
		return cli_usage_error("sph render", err);
	if (o.help) {
		render_help();
		return CLI_OK;
	}
	const struct sph_variant *v = &sph_variants[o.variant];
	const char *why;
	if (o.normals != RENDER_NORMALS_FIELD && v->device == VARIANT_GPU) {
		snprintf(err, sizeof err, "--normals %s renders through the double reference: "
			 "a CPU variant only (sph-cpu-grid)", render_normals_name(o.normals));
		return cli_usage_error("sph render", err);
	}
	if (o.gpu >= 0 && cli_use_gpu(o.gpu, v->device == VARIANT_GPU, err, sizeof err) != CLI_OK)
		return cli_usage_error("sph render", err);
	if (!sph_variant_available(v, &why)) {
		snprintf(err, sizeof err, "%s cannot run here: %s", v->name, why);
		return cli_usage_error("sph render", err);
	}
	if (!png_out_available()) {
		snprintf(err, sizeof err, "this build has no libpng (make installs libpng-dev)");
		return cli_usage_error("sph render", err);
	}
	/* Memory, before the scene is built (its particles and the image),
	 * then with the field over the scene's box. */
	char what[160], res_s[16] = "derived";
	const double pixels = (double)o.width * o.height;
	if (o.res > 0)
		snprintf(res_s, sizeof res_s, "%d", o.res);
	snprintf(what, sizeof what, "--column %s at --res %s, %d x %d", o.col.name, res_s, o.width,
		 o.height);
	if (sph_render_check_memory(what, sph_scene_particles(o.col.nx, o.col.ny, o.col.nz), 0.0,
				    pixels, err, sizeof err) != 0)
		return cli_usage_error("sph render", err);
	struct sph_scene sc;
	if (sph_scene_build(&o.col, o.seed, &sc, err, sizeof err) != 0)
		return cli_usage_error("sph render", err);
	if (render_at_steps(&o, sc.p.dt, err, sizeof err) != 0) {
		sph_scene_free(&sc);
		return cli_usage_error("sph render", err);
	}
	/* The parameters: derived for this box and image unless --res or
	 * --samples say otherwise (reference/render_ref.h). */
	struct render_params rp;
	struct render_camera cam;
	render_camera_default(&cam, sc.p.box_lo, sc.p.box_hi, o.width, o.height);
	if (render_params_derive(&rp, &sc.p, sc.p.box_lo, sc.p.box_hi, render_camera_pixel(&cam),
				 o.res, o.samples) != 0) {
		snprintf(err, sizeof err, "--column %s: no rendering parameters for its box", o.col.name);
		sph_scene_free(&sc);
		return cli_usage_error("sph render", err);
	}
	render_params_shading(&rp, o.shading);
	rp.normals = o.normals;
	if (o.converge && v->device == VARIANT_GPU) {
		snprintf(err, sizeof err, "--converge renders through the double reference: "
			 "a CPU variant only (sph-cpu-grid)");
		sph_scene_free(&sc);
		return cli_usage_error("sph render", err);
	}
	snprintf(what, sizeof what, "--column %s at --res %d, %d x %d", o.col.name, rp.res, o.width,
		 o.height);
	/* --converge holds one field at a time, the converged one the largest,
	 * and three images more */
	struct render_params conv;
	const int res_field =
		o.converge && render_converge_params(&rp, sc.p.box_lo, sc.p.box_hi, 0.0, &conv) == 0
			? conv.res
			: rp.res;
	/* in voxels of the field alone: the normals' stage holds more a voxel */
	const double voxels = render_field_voxels(sc.p.box_lo, sc.p.box_hi, res_field) *
			      (o.normals == RENDER_NORMALS_FIELD
				       ? 1.0
				       : 1.0 + RENDER_NORMALS_BYTES_PER_VOXEL / (double)sizeof(double));
	const double bytes = voxels * sizeof(double) +
			     (o.converge ? 10.0 : 3.0) * o.width * (double)o.height * sizeof(double);
	if (bytes > (double)RENDER_MAX_FIELD_BYTES) {
		snprintf(err, sizeof err, "--res %d at %d x %d needs %.1f GiB (at most %zu GiB)",
			 res_field, o.width, o.height, bytes / (1 << 30), RENDER_MAX_FIELD_BYTES >> 30);
		sph_scene_free(&sc);
		return cli_usage_error("sph render", err);
	}
	if (sph_render_check_memory(what, sc.n, voxels, pixels, err, sizeof err) != 0) {
		sph_scene_free(&sc);
		return cli_usage_error("sph render", err);
	}
	/* The directory is made here, last, and taken back if it cannot hold
	 * the frames: bad input leaves nothing behind. */
	char probe[1200];
	const bool made = access(o.out, F_OK) != 0;
	atomic_mkdir_p(o.out);
	atomic_path_in(probe, sizeof probe, o.out, "%s-%s-%lu.png", v->name, o.col.name, o.at[0]);
	if (atomic_path_writable(probe, err, sizeof err) != 0) {
		if (made)
			rmdir(o.out);
		sph_scene_free(&sc);
		return cli_usage_error("sph render", err);
	}

	int status = CLI_FAILED;
	void *ctx = NULL;
	float *pos4 = malloc(4 * sc.n * sizeof *pos4), *vel4 = malloc(4 * sc.n * sizeof *vel4);
	struct sph_input in = { sc.n, sc.pos4, sc.vel4, sc.nb, sc.bnd4 };
	/* a restart: the checkpoint's particles, its step, the next frame */
	struct sph_checkpoint ck = { 0 };
	char options[SPH_CHECKPOINT_OPTIONS_LEN];
	render_options_text(&o, options, sizeof options);
	size_t first = 0;
	unsigned long done = 0;
	if (!pos4 || !vel4) {
		fprintf(stderr, "harness: sph render: out of memory for %zu particles\n", sc.n);
		goto out;
	}
	if (o.restart) {
		struct sph_state_meta want;
		sph_state_meta_of(&want, &o.col, o.seed, &sc, 0, v->name);
		int bad = sph_checkpoint_read(o.restart, &ck, err, sizeof err) != 0 ||
			  sph_checkpoint_check(&ck, o.restart, "sph render", v->name, options, &want,
					       err, sizeof err) != 0;
		if (!bad && ck.progress_len != sizeof(uint64_t)) {
			snprintf(err, sizeof err, "%s: its progress is not that of sph render", o.restart);
			bad = 1;
		}
		if (bad) {
			fprintf(stderr, "harness: sph render: %s\n", err);
			status = CLI_USAGE;
			goto out;
		}
		uint64_t next;
		memcpy(&next, ck.progress, sizeof next);
		first = (size_t)next;
		done = ck.state.step;
		in.pos4 = ck.pos4;
		in.vel4 = ck.vel4;
	}
	if (v->ops->create(&ctx, &in, &sc.p, err, sizeof err) != 0) {
		fprintf(stderr, "harness: sph render: %s: %s\n", v->name, err);
		goto out;
	}
	/* Progress: each frame costs its steps and a picture, reckoned as
	 * SPH_RENDER_FRAME_STEPS steps. */
	struct progress pg;
	progress_init(&pg, "sph render", o.quiet);
	for (size_t k = 0; k < o.nat; k++)
		progress_plan(&pg, (double)(o.at[k] - (k ? o.at[k - 1] : 0)) + SPH_RENDER_FRAME_STEPS,
			      0);
	/* GPU variants render on the GPU (their own extraction, then
	 * render_gpu); the others through the reference. */
	struct render_gpu *rg = NULL;
	if (v->device == VARIANT_GPU) {
		if (render_gpu_create(&rg, &rp, sc.p.box_lo, sc.p.box_hi, &cam, sc.n, err,
				      sizeof err) != 0) {
			fprintf(stderr, "harness: sph render: %s\n", err);
			goto out_destroy;
		}
	}
	interrupt_set_keeper(render_keeper, NULL);
	for (size_t k = 0; k < first; k++) { /* the frames the checkpoint's run wrote */
		progress_begin(&pg, (double)(o.at[k] - (k ? o.at[k - 1] : 0)) + SPH_RENDER_FRAME_STEPS,
			       0, "frame at step %lu", o.at[k]);
		progress_end(&pg);
	}
	for (size_t k = first; k < o.nat; k++) {
		progress_begin(&pg, (double)(o.at[k] - done) + SPH_RENDER_FRAME_STEPS, 0,
			       "frame at step %lu", o.at[k]);
		if ((o.at[k] > done && sph_render_advance(v, ctx, o.at[k] - done, &pg) != 0) ||
		    v->ops->read(ctx, pos4, vel4, NULL, NULL) != 0) {
			fprintf(stderr, "harness: sph render: %s failed: %s\n", v->name, v->ops->error(ctx));
			goto out_destroy;
		}
		done = o.at[k];
		char path[1200];
		size_t m = 0, speckle = 0;
		struct render_cpu_times t = { 0 };
		atomic_path_in(path, sizeof path, o.out, "%s-%s-%lu.png", v->name, o.col.name, done);
		if (rg ? render_frame_gpu(v->ops, ctx, rg, &rp, o.width, o.height, path, &m) != 0
		       : render_frame(&o, &sc, &rp, pos4, path, &m, &t, &speckle) != 0)
			goto out_destroy;
		progress_end(&pg);
		if (!o.quiet && rg)
			printf("wrote %s: step %lu (t = %.4f s), %zu of %zu particles on the surface\n",
			       path, done, done * sc.p.dt, m, sc.n);
		else if (!o.quiet)
			printf("wrote %s: step %lu (t = %.4f s), %zu of %zu particles on the surface; "
			       "reference %s normals: surface %.3f s, field %.3f s, normals %.3f s, "
			       "raycast %.3f s; speckle %zu pixels\n",
			       path, done, done * sc.p.dt, m, sc.n, render_normals_name(rp.normals),
			       t.surface, t.field, t.normals, t.raycast, speckle);
		interrupt_lock();
		snprintf(render_said, sizeof render_said, "the frames up to step %lu are in %s", done,
			 o.out);
		interrupt_unlock();
		if ((o.checkpoint || o.restart) && k + 1 < o.nat &&
		    render_checkpoint(&o, v, &sc, options, k + 1, done, pos4, vel4, &ctx) != 0)
			goto out_destroy;
	}
	status = CLI_OK;
out_destroy:
	interrupt_set_keeper(NULL, NULL);
	progress_finish(&pg);
	render_gpu_destroy(rg);
	v->ops->destroy(ctx);
out:
	free(pos4);
	free(vel4);
	sph_checkpoint_free(&ck);
	sph_scene_free(&sc);
	return status;
}
