/* sph_physics.c - bin/harness sph physics: the dam break against Martin and Moyce, water at rest */
#define _GNU_SOURCE
#include "sph_physics.h"

#include <getopt.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../reference/sph_scene.h"
#include "../../variants/sph_registry.h"
#include "../core/atomic_file.h"
#include "../cli.h"
#include "../core/gpu_device.h"
#include "../core/json_out.h"
#include "../core/progress.h"
#include "../results.h"
#include "../core/sysinfo.h"

/*
 * Martin and Moyce (1952), "An experimental study of the collapse of
 * liquid columns on a rigid horizontal plane", Phil. Trans. R. Soc. A
 * 244, 312-324: the square-based column of n^2 = 2, a = 2.25 in.
 * Table 2: the surge front Z against T = t sqrt(2 g / a); Table 6: the
 * residual height H / (n^2 a) against tau = t sqrt(g / a), here T =
 * sqrt(2) tau. The file results/published/martin_moyce1952.csv holds the
 * same numbers with their tables; tests/sph/test_sph_physics.c checks that
 * the two agree.
 */
static const struct sph_physics_point sph_mm_front[] = {
	{ 0.41, 1.11 }, { 0.84, 1.22 }, { 1.19, 1.44 }, { 1.43, 1.67 }, { 1.63, 1.89 },
	{ 1.83, 2.11 }, { 1.98, 2.33 }, { 2.20, 2.56 }, { 2.32, 2.78 }, { 2.51, 3.00 },
	{ 2.65, 3.22 }, { 2.83, 3.44 }, { 2.98, 3.67 }, { 3.11, 3.89 }, { 3.33, 4.11 },
};
static const double sph_mm_tau[] = { 0.56, 0.77, 0.93, 1.08, 1.28, 1.46, 1.66, 1.84, 2.00,
				     2.21, 2.45, 2.70, 3.06, 3.44, 4.20, 5.25, 7.40 };
static const double sph_mm_h[] = { 0.94, 0.89, 0.83, 0.78, 0.72, 0.67, 0.61, 0.56, 0.50,
				   0.44, 0.39, 0.33, 0.28, 0.22, 0.17, 0.11, 0.06 };
#define SPH_MM_NH (sizeof sph_mm_h / sizeof sph_mm_h[0])

const struct sph_physics_point *sph_physics_mm_front(size_t *count)
{
	*count = sizeof sph_mm_front / sizeof sph_mm_front[0];
	return sph_mm_front;
}

const struct sph_physics_point *sph_physics_mm_height(size_t *count)
{
	static struct sph_physics_point pts[SPH_MM_NH];
	for (size_t k = 0; k < SPH_MM_NH; k++)
		pts[k] = (struct sph_physics_point){ sqrt(2.0) * sph_mm_tau[k], sph_mm_h[k] };
	*count = SPH_MM_NH;
	return pts;
}

double sph_physics_interp(const double *T, const double *y, size_t m, double at)
{
	if (m == 0 || !(at >= T[0] && at <= T[m - 1]))
		return NAN;
	size_t k = 1;
	while (k < m - 1 && T[k] < at)
		k++;
	if (m == 1 || T[k] == T[k - 1])
		return y[k - 1];
	const double w = (at - T[k - 1]) / (T[k] - T[k - 1]);
	return (1.0 - w) * y[k - 1] + w * y[k];
}

/* How long and how finely each check runs. */
#define SPH_PHYSICS_DAM_T_END	3.4	/* past the last point of Table 2 */
#define SPH_PHYSICS_DAM_DT	0.02	/* samples of the curve, in T */
#define SPH_PHYSICS_REST_S	1.0	/* seconds of water at rest */
#define SPH_PHYSICS_REST_DT	0.01	/* a sample every this many seconds */
#define SPH_PHYSICS_REST_COLUMN	"16x16x16@0"

struct phys_options {
	int variant; /* index into sph_variants */
	bool dambreak, rest, quiet;
	struct sph_column dam_col, rest_col;
	uint64_t seed;
	double friction; /* the dam break's wall_friction */
	const char *out;
};

/* One output row. */
struct phys_row {
	const char *check, *quantity;
	char column[48];
	size_t n, nb;
	double T, t, sim, meas, rel, tol;
	bool judged, pass;
	unsigned long long clamps;
};

struct phys_rows {
	struct phys_row *r;
	size_t n, cap;
	const struct sph_variant *v;
	const char *device_name;
	double friction;	/* the dam break's wall friction, for the sidecar */
	struct progress *pg;	/* one item per check, its part the steps done */
	long steps_done, steps_total; /* of the check under way */
};

/* steps more of the check under way are done. */
static void phys_advance(struct phys_rows *rs, long steps)
{
	rs->steps_done += steps;
	if (rs->steps_total > 0)
		progress_part(rs->pg, (double)rs->steps_done / (double)rs->steps_total);
}

static struct phys_row *phys_add(struct phys_rows *rs)
{
	if (rs->n == rs->cap) {
		size_t cap = rs->cap ? 2 * rs->cap : 256;
		struct phys_row *g = realloc(rs->r, cap * sizeof *g);
		if (!g)
			return NULL;
		rs->r = g;
		rs->cap = cap;
	}
	struct phys_row *row = &rs->r[rs->n++];
	memset(row, 0, sizeof *row);
	row->sim = row->meas = row->rel = row->tol = NAN;
	return row;
}

/* Steps a variant runs between two progress updates: the GPU variants'
 * batch of 16 steps, about 3.5 s for the CPU variant at 255,600 particles
 * on 2 cores (64 steps, measured: 14 to 23 s between lines). */
#define PHYS_STEPS_CHUNK 16

/* Runs v on sc for samples + 1 samples, every `every` steps apart; at each
 * the callback gets the positions and densities (evaluated there). */
typedef int (*phys_sample_fn)(void *arg, size_t k, double t, const float *pos4, const float *rho);

static int phys_run(struct phys_rows *rs, const struct sph_scene *sc, long every,
		    size_t samples, phys_sample_fn fn, void *arg, unsigned long long *clamps)
{
	const struct sph_variant *v = rs->v;
	char err[256];
	void *ctx = NULL;
	int rc = -1;
	float *pos4 = malloc(4 * sc->n * sizeof *pos4), *rho = malloc(sc->n * sizeof *rho);
	const struct sph_input in = { sc->n, sc->pos4, sc->vel4, sc->nb, sc->bnd4 };
	if (!pos4 || !rho) {
		fprintf(stderr, "harness: sph physics: out of memory for %zu particles\n", sc->n);
		goto out;
	}
	if (v->ops->create(&ctx, &in, &sc->p, err, sizeof err) != 0) {
		fprintf(stderr, "harness: sph physics: %s: %s\n", v->name, err);
		goto out;
	}
	for (size_t k = 0; k <= samples; k++) {
		struct sph_phase_times t = { 0 };
		int failed = 0;
		/* the steps between two looks in chunks, each counted as done, so
		 * that a slow variant's progress moves between looks minutes apart */
		for (long done = 0; k > 0 && done < every && !failed; done += PHYS_STEPS_CHUNK) {
			const long chunk = every - done < PHYS_STEPS_CHUNK ? every - done : PHYS_STEPS_CHUNK;
			failed = v->ops->steps(ctx, (int)chunk, &t) != 0;
			phys_advance(rs, chunk);
		}
		if (failed || v->ops->evaluate(ctx, 0) != 0 || v->ops->read(ctx, pos4, NULL, rho, NULL) != 0) {
			fprintf(stderr, "harness: sph physics: %s failed at step %ld: %s\n", v->name,
				(long)k * every, v->ops->error(ctx));
			goto out_destroy;
		}
		if (fn(arg, k, (double)k * (double)every * sc->p.dt, pos4, rho) != 0)
			goto out_destroy;
	}
	struct sph_counts c;
	v->ops->counts(ctx, &c);
	*clamps = c.clamps;
	rc = 0;
out_destroy:
	v->ops->destroy(ctx);
out:
	free(pos4);
	free(rho);
	return rc;
}

/* ---- the dam break ------------------------------------------------------- */

struct dam_state {
	const struct sph_scene *sc;
	double *T, *front, *height;
	double scale; /* T per second: sqrt(2 g / a) */
};

static int dam_sample(void *arg, size_t k, double t, const float *pos4, const float *rho)
{
	(void)rho;
	struct dam_state *d = arg;
	d->T[k] = t * d->scale;
	sph_scene_surge(d->sc, pos4, &d->front[k], &d->height[k]);
	return isfinite(d->front[k]) && isfinite(d->height[k]) ? 0 : -1;
}

/* Adds the experimental points of one quantity, judged in [T_LO, T_HI]. */
static int dam_points(struct phys_rows *rs, const struct phys_row *proto, const char *quantity,
		      const struct sph_physics_point *pts, size_t npts, const struct dam_state *d,
		      size_t m, bool *all_pass)
{
	for (size_t k = 0; k < npts; k++) {
		struct phys_row *row = phys_add(rs);
		if (!row)
			return -1;
		*row = *proto;
		row->quantity = quantity;
		row->T = pts[k].T;
		row->t = pts[k].T / d->scale;
		row->meas = pts[k].value;
		row->sim = sph_physics_interp(d->T, strcmp(quantity, "surge_front") == 0 ? d->front
											  : d->height,
					      m, pts[k].T);
		row->rel = row->sim / row->meas - 1.0;
		row->tol = SPH_PHYSICS_SURGE_TOL;
		row->judged = pts[k].T >= SPH_PHYSICS_T_LO && pts[k].T <= SPH_PHYSICS_T_HI;
		row->pass = isfinite(row->rel) && fabs(row->rel) <= row->tol;
		if (row->judged && !row->pass)
			*all_pass = false;
	}
	return 0;
}

/* The dam break's sampling on sc: *every steps apart, samples + 1 samples
 * to T_END; *scale is T per second. */
static void phys_dam_schedule(const struct sph_scene *sc, double *scale, long *every,
			      size_t *samples)
{
	*scale = sqrt(2.0 * SPH_WATER_G / sc->width);
	*every = lround(SPH_PHYSICS_DAM_DT / *scale / sc->p.dt);
	*every = *every < 1 ? 1 : *every;
	*samples = (size_t)ceil(SPH_PHYSICS_DAM_T_END / *scale / sc->p.dt / (double)*every);
}

static int phys_dambreak(const struct phys_options *o, struct phys_rows *rs, bool *all_pass)
{
	char err[256];
	struct sph_scene sc;
	if (sph_scene_build(&o->dam_col, o->seed, &sc, err, sizeof err) != 0) {
		fprintf(stderr, "harness: sph physics: %s\n", err);
		return -1;
	}
	sc.p.wall_friction = o->friction;
	struct dam_state d = { .sc = &sc };
	long every;
	size_t samples;
	phys_dam_schedule(&sc, &d.scale, &every, &samples);
	d.T = malloc((samples + 1) * sizeof *d.T);
	d.front = malloc((samples + 1) * sizeof *d.front);
	d.height = malloc((samples + 1) * sizeof *d.height);
	int rc = -1;
	unsigned long long clamps = 0;
	if (!d.T || !d.front || !d.height) {
		fprintf(stderr, "harness: sph physics: out of memory\n");
		goto out;
	}
	if (!o->quiet)
		fprintf(stderr, "sph physics: dam break of %s (%zu + %zu boundary particles), %zu steps\n",
			o->dam_col.name, sc.n, sc.nb, samples * (size_t)every);
	progress_begin(rs->pg, (double)(sc.n + sc.nb) * (double)(samples * (size_t)every), 0,
		       "dam break of %s", o->dam_col.name);
	rs->steps_done = 0;
	rs->steps_total = (long)samples * every;
	if (phys_run(rs, &sc, every, samples, dam_sample, &d, &clamps) != 0)
		goto out;
	progress_end(rs->pg);
	struct phys_row proto = { .check = "dambreak", .n = sc.n, .nb = sc.nb, .clamps = clamps };
	snprintf(proto.column, sizeof proto.column, "%s", o->dam_col.name);
	for (size_t k = 0; k <= samples; k++) {
		for (int q = 0; q < 2; q++) {
			struct phys_row *row = phys_add(rs);
			if (!row)
				goto out;
			*row = proto;
			row->quantity = q ? "residual_height_curve" : "surge_front_curve";
			row->T = d.T[k];
			row->t = d.T[k] / d.scale;
			row->sim = q ? d.height[k] : d.front[k];
			row->meas = row->rel = row->tol = NAN;
		}
	}
	size_t nf, nh;
	const struct sph_physics_point *f = sph_physics_mm_front(&nf), *h = sph_physics_mm_height(&nh);
	if (dam_points(rs, &proto, "surge_front", f, nf, &d, samples + 1, all_pass) != 0 ||
	    dam_points(rs, &proto, "residual_height", h, nh, &d, samples + 1, all_pass) != 0)
		goto out;
	rc = 0;
out:
	free(d.T);
	free(d.front);
	free(d.height);
	sph_scene_free(&sc);
	return rc;
}

/* ---- water at rest ------------------------------------------------------ */

struct rest_state {
	const struct sph_scene *sc;
	struct phys_rows *rs;
	const struct phys_row *proto;
	bool *all_pass;
	double height0; /* residual height at the start of the judged second */
};

/* A rest row: sim against meas, relative, within REST_TOL when judged. */
static int rest_row(struct rest_state *st, const char *quantity, double t, double sim, double meas,
		    bool judged)
{
	struct phys_row *row = phys_add(st->rs);
	if (!row)
		return -1;
	*row = *st->proto;
	row->quantity = quantity;
	row->t = t;
	row->T = NAN;
	row->sim = sim;
	row->meas = meas;
	row->rel = sim / meas - 1.0;
	row->tol = SPH_PHYSICS_REST_TOL;
	row->judged = judged;
	row->pass = isfinite(row->rel) && fabs(row->rel) <= row->tol;
	if (judged && !row->pass)
		*st->all_pass = false;
	return 0;
}

/*
 * Height: sph_scene_surge's residual height (the top of the water at the
 * back wall), over its value at the start of the judged second. Bulk density: the mean over the
 * particles more than h below the highest one (those nearer the free
 * surface lack neighbours above and read low by design): the water's
 * density, judged. Densest: the largest density, shown and not judged:
 * it is the hydrostatic compression at the floor, which weak
 * compressibility sets by design (2 g H / c^2 with Mueller's symmetric
 * pressure force, 0.75 % for the default column, and 1 % for any column
 * over 0.32 m, where c = sqrt(2 g H) / 0.1), plus ~0.35 % in the bottom
 * corners where three walls meet: +1.1 % measured on 16 x 16 x 16.
 */
static int rest_sample(void *arg, size_t k, double t, const float *pos4, const float *rho)
{
	(void)k;
	struct rest_state *st = arg;
	const struct sph_scene *sc = st->sc;
	double front, height, top = -HUGE_VAL, sum = 0, rho_max = 0;
	size_t bulk = 0;
	sph_scene_surge(sc, pos4, &front, &height);
	for (size_t i = 0; i < sc->n; i++)
		top = fmax(top, pos4[4 * i + 2]);
	for (size_t i = 0; i < sc->n; i++) {
		rho_max = fmax(rho_max, rho[i]);
		if (pos4[4 * i + 2] < top - sc->p.h) {
			sum += rho[i];
			bulk++;
		}
	}
	double mean = bulk ? sum / (double)bulk : NAN;
	if (k == 0)
		st->height0 = height;
	if (rest_row(st, "rest_height", t, height, st->height0, true) != 0 ||
	    rest_row(st, "rest_density_bulk", t, mean, sc->p.rho0, true) != 0 ||
	    rest_row(st, "rest_density_max", t, rho_max, sc->p.rho0, false) != 0)
		return -1;
	return 0;
}

/*
 * Kinetic damping: `cycles` runs of `every` steps, each started from the
 * positions the last one reached with every velocity zero; sc->pos4
 * ends as the relaxed positions. Clamps are added to *clamps.
 */
static int phys_relax(struct phys_rows *rs, struct sph_scene *sc, long every, int cycles,
		      unsigned long long *clamps)
{
	const struct sph_variant *v = rs->v;
	char err[256];
	float *pos4 = malloc(4 * sc->n * sizeof *pos4);
	int rc = pos4 ? 0 : -1;
	for (int c = 0; c < cycles && rc == 0; c++) {
		void *ctx = NULL;
		struct sph_phase_times t = { 0 };
		struct sph_counts cn;
		const struct sph_input in = { sc->n, sc->pos4, sc->vel4, sc->nb, sc->bnd4 };
		if (v->ops->create(&ctx, &in, &sc->p, err, sizeof err) != 0) {
			fprintf(stderr, "harness: sph physics: %s: %s\n", v->name, err);
			rc = -1;
			break;
		}
		if (v->ops->steps(ctx, (int)every, &t) != 0 ||
		    v->ops->read(ctx, pos4, NULL, NULL, NULL) != 0) {
			fprintf(stderr, "harness: sph physics: %s failed relaxing: %s\n", v->name,
				v->ops->error(ctx));
			rc = -1;
		}
		v->ops->counts(ctx, &cn);
		*clamps += cn.clamps;
		v->ops->destroy(ctx);
		phys_advance(rs, every);
		for (size_t i = 0; rc == 0 && i < sc->n; i++) {
			memcpy(&sc->pos4[4 * i], &pos4[4 * i], 3 * sizeof *pos4);
			sc->pos4[4 * i + 3] = 0.0f;
		}
	}
	if (!pos4)
		fprintf(stderr, "harness: sph physics: out of memory for %zu particles\n", sc->n);
	free(pos4);
	return rc;
}

/* Water at rest on sc: relaxing for *cycles runs of *cycle steps, then
 * samples + 1 samples *every steps apart. */
static void phys_rest_schedule(const struct sph_scene *sc, long *cycle, int *cycles, long *every,
			       size_t *samples)
{
	*every = lround(SPH_PHYSICS_REST_DT / sc->p.dt);
	*every = *every < 1 ? 1 : *every;
	*samples = (size_t)ceil(SPH_PHYSICS_REST_S / sc->p.dt / (double)*every);
	*cycle = lround(SPH_PHYSICS_RELAX_CYCLE_S / sc->p.dt);
	*cycle = *cycle < 1 ? 1 : *cycle;
	*cycles = (int)lround(SPH_PHYSICS_RELAX_S / SPH_PHYSICS_RELAX_CYCLE_S);
}

static int phys_rest(const struct phys_options *o, struct phys_rows *rs, bool *all_pass)
{
	char err[256];
	struct sph_scene sc;
	if (sph_scene_build(&o->rest_col, o->seed, &sc, err, sizeof err) != 0) {
		fprintf(stderr, "harness: sph physics: %s\n", err);
		return -1;
	}
	long every, cycle;
	int cycles;
	size_t samples;
	phys_rest_schedule(&sc, &cycle, &cycles, &every, &samples);
	struct phys_row proto = { .check = "rest", .n = sc.n, .nb = sc.nb };
	snprintf(proto.column, sizeof proto.column, "%s", o->rest_col.name);
	struct rest_state st = { &sc, rs, &proto, all_pass, NAN };
	if (!o->quiet)
		fprintf(stderr, "sph physics: water at rest in %s (%zu + %zu boundary particles), "
				"%ld steps relaxing, %zu judged\n",
			o->rest_col.name, sc.n, sc.nb, cycle * cycles, samples * (size_t)every);
	size_t first = rs->n;
	unsigned long long clamps = 0, relax_clamps = 0;
	double front, lattice_height;
	sph_scene_surge(&sc, sc.pos4, &front, &lattice_height);
	rs->steps_done = 0;
	rs->steps_total = cycle * cycles + (long)samples * every;
	progress_begin(rs->pg, (double)(sc.n + sc.nb) * (double)rs->steps_total, 0,
		       "water at rest in %s", o->rest_col.name);
	if (phys_relax(rs, &sc, cycle, cycles, &relax_clamps) != 0) {
		sph_scene_free(&sc);
		return -1;
	}
	/* what relaxing did, shown and not judged: the free surface settles */
	double relaxed_height;
	sph_scene_surge(&sc, sc.pos4, &front, &relaxed_height);
	struct phys_row *row = phys_add(rs);
	if (!row) {
		sph_scene_free(&sc);
		return -1;
	}
	*row = proto;
	row->quantity = "rest_relaxed_height";
	row->t = 0.0;
	row->T = row->meas = row->rel = row->tol = NAN;
	row->sim = relaxed_height / lattice_height;
	int rc = phys_run(rs, &sc, every, samples, rest_sample, &st, &clamps);
	progress_end(rs->pg);
	clamps += relax_clamps;
	for (size_t r = first; r < rs->n; r++)
		rs->r[r].clamps = clamps;
	sph_scene_free(&sc);
	return rc;
}

/* The checks of o on pg, each costing its particles times its steps. */
static void phys_plan(const struct phys_options *o, struct progress *pg)
{
	char err[256];
	struct sph_scene sc;
	long every, cycle;
	int cycles;
	size_t samples;
	double scale;
	if (o->dambreak && sph_scene_build(&o->dam_col, o->seed, &sc, err, sizeof err) == 0) {
		phys_dam_schedule(&sc, &scale, &every, &samples);
		progress_plan(pg, (double)(sc.n + sc.nb) * (double)(samples * (size_t)every), 0);
		sph_scene_free(&sc);
	}
	if (o->rest && sph_scene_build(&o->rest_col, o->seed, &sc, err, sizeof err) == 0) {
		phys_rest_schedule(&sc, &cycle, &cycles, &every, &samples);
		progress_plan(pg, (double)(sc.n + sc.nb) * (double)(cycle * cycles + (long)samples * every),
			      0);
		sph_scene_free(&sc);
	}
}

/* ---- output ------------------------------------------------------------- */

static const char *const phys_columns[] = {
	"variant", "device_name", "check", "column", "n", "boundary_particles", "clamps",
	"quantity", "T", "time_s", "simulated", "measured", "rel_err", "tol", "judged", "pass",
};
#define PHYS_NCOLS (sizeof phys_columns / sizeof phys_columns[0])

static void phys_num(char *cell, double v, const char *fmt)
{
	if (isnan(v))
		cell[0] = '\0';
	else
		snprintf(cell, 64, fmt, v);
}

static void phys_format(const void *ctx, size_t r, char (*c)[RESULTS_CELL])
{
	const struct phys_rows *rs = ctx;
	const struct phys_row *row = &rs->r[r];
	size_t i = 0;
	snprintf(c[i++], 64, "%s", rs->v->name);
	snprintf(c[i++], 64, "%s", rs->device_name);
	snprintf(c[i++], 64, "%s", row->check);
	snprintf(c[i++], 64, "%s", row->column);
	snprintf(c[i++], 64, "%zu", row->n);
	snprintf(c[i++], 64, "%zu", row->nb);
	snprintf(c[i++], 64, "%llu", row->clamps);
	snprintf(c[i++], 64, "%s", row->quantity);
	phys_num(c[i++], row->T, "%.4f");
	phys_num(c[i++], row->t, "%.6g");
	phys_num(c[i++], row->sim, "%.6g");
	phys_num(c[i++], row->meas, "%.6g");
	phys_num(c[i++], row->rel, "%.4f");
	phys_num(c[i++], row->tol, "%.2f");
	bool curve = isnan(row->meas);
	snprintf(c[i++], 64, "%s", curve ? "" : row->judged ? "1" : "0");
	snprintf(c[i++], 64, "%s", curve ? "" : row->pass ? "1" : "0");
}

static void phys_json(struct json_out *j, const void *ctx)
{
	const struct phys_rows *rs = ctx;
	json_kv_double(j, "dambreak_wall_friction", rs->friction);
	json_key(j, "checks");
	json_begin_object(j);
	json_kv_string(j, "dambreak",
		       "Martin and Moyce (1952), n^2 = 2: surge front Z = z / a and residual height "
		       "H / (n^2 a) against T = t sqrt(2 g / a); *_curve rows are the simulation "
		       "sampled, the others its linear interpolation at each tabulated point "
		       "(results/published/martin_moyce1952.csv), judged for T in [1, 3] at |rel_err| <= 0.10");
	json_kv_string(j, "rest",
		       "water at rest, no jitter, box that fits it, relaxed by 3 s of kinetic damping "
		       "(rest_relaxed_height: its height over the lattice's, not judged), then 1 s: "
		       "residual height over its start and mean density of the particles more than h "
		       "below the top, each within 0.01 of 1 or rho0 at every sample; the largest "
		       "density shown, not judged (the floor's hydrostatic compression)");
	json_end_object(j);
	json_kv_string(j, "physics", "reference/sph_ref.h: Mueller 2003, clamped pressure, walls of boundary particles (Akinci 2012), symplectic Euler");
}

/* ---- the command ---------------------------------------------------------- */

static void phys_help(void)
{
	printf("usage: harness sph physics [--variant NAME] [--check dambreak|rest|all]\n"
	       "                           [--column C] [--rest-column C] [--out FILE.csv]\n\n"
	       "What a variant's water does over time, against experiment and known answers:\n"
	       "  dambreak  the column of Martin and Moyce (1952), 2 x as high as wide,\n"
	       "            collapses; surge front and residual height against their\n"
	       "            tables, within 10 %% for T = t sqrt(2g/a) in [1, 3]\n"
	       "  rest      water at rest, relaxed first (3 s of kinetic damping), for\n"
	       "            1 s: its height and the mean density of its bulk within\n"
	       "            1 %% at every sample (the densest particle shown, not judged)\n\n"
	       "  --variant, -v NAME  one SPH variant (sph-gpu-verlet where a GPU is, else\n"
	       "                      sph-cpu-grid)\n"
	       "  --check C           dambreak, rest or all (all)\n"
	       "  --column C          the dam break's column (martin-moyce), a name or\n"
	       "                      NXxNYxNZ[@L]\n"
	       "  --rest-column C     the still water's column (%s; jitter 0)\n"
	       "  --seed S            jitter of the dam break's lattice (42)\n"
	       "  --wall-friction F   the dam break's walls: 0 free slip (the default),\n"
	       "                      1 as if the wall were fluid at rest (0 .. 10)\n"
	       "  --out, -o FILE.csv  every sample and point (results/local/sph-physics-<UTC>.csv)\n"
	       "  --quiet, -q         no table\n"
	       "Exit status: 0 every judged value within its bound, 1 one outside or a\n"
	       "failure, 2 bad input.\n",
	       SPH_PHYSICS_REST_COLUMN);
}

static int phys_default_variant(void)
{
	static const char *const pref[] = { "sph-gpu-verlet", "sph-cpu-grid" };
	for (size_t p = 0; p < 2; p++)
		for (size_t i = 0; i < SPH_VARIANT_COUNT; i++)
			if (strcmp(sph_variants[i].name, pref[p]) == 0 &&
			    sph_variant_available(&sph_variants[i], NULL))
				return (int)i;
	return -1;
}

static int phys_parse(int argc, char **argv, struct phys_options *o, bool *help, char *err,
		      size_t errlen)
{
	enum { OPT_CHECK = 300, OPT_COLUMN, OPT_REST_COLUMN, OPT_SEED, OPT_FRICTION };
	static const struct option longopts[] = {
		{ "variant", required_argument, NULL, 'v' },
		{ "check", required_argument, NULL, OPT_CHECK },
		{ "column", required_argument, NULL, OPT_COLUMN },
		{ "rest-column", required_argument, NULL, OPT_REST_COLUMN },
		{ "seed", required_argument, NULL, OPT_SEED },
		{ "wall-friction", required_argument, NULL, OPT_FRICTION },
		{ "out", required_argument, NULL, 'o' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	memset(o, 0, sizeof *o);
	o->variant = -1;
	o->dambreak = o->rest = true;
	o->seed = 42;
	o->friction = SPH_WATER_FRICTION;
	*help = false;
	if (sph_scene_column_parse("martin-moyce", &o->dam_col, err, errlen) != 0 ||
	    sph_scene_column_parse(SPH_PHYSICS_REST_COLUMN, &o->rest_col, err, errlen) != 0)
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
		case OPT_CHECK:
			o->dambreak = strcmp(optarg, "dambreak") == 0 || strcmp(optarg, "all") == 0;
			o->rest = strcmp(optarg, "rest") == 0 || strcmp(optarg, "all") == 0;
			if (!o->dambreak && !o->rest) {
				snprintf(err, errlen, "unknown check '%s' (dambreak, rest or all)", optarg);
				rc = CLI_USAGE;
			}
			break;
		case OPT_COLUMN:
			if (sph_scene_column_parse(optarg, &o->dam_col, err, errlen) != 0)
				rc = CLI_USAGE;
			break;
		case OPT_REST_COLUMN:
			if (sph_scene_column_parse(optarg, &o->rest_col, err, errlen) != 0)
				rc = CLI_USAGE;
			break;
		case OPT_SEED: rc = cli_parse_u64("--seed", optarg, &o->seed, err, errlen); break;
		case OPT_FRICTION:
			rc = cli_parse_double("--wall-friction", optarg, 0, 10, &o->friction, err, errlen);
			break;
		case 'o': o->out = optarg; break;
		case 'q': o->quiet = true; break;
		case 'h': *help = true; break;
		default: rc = cli_getopt_error(c, argv[optind - 1], "sph physics", err, errlen); break;
		}
	}
	if (rc == CLI_OK && optind < argc) {
		snprintf(err, errlen, "unexpected argument '%s'", argv[optind]);
		rc = CLI_USAGE;
	}
	o->rest_col.jitter = 0.0;
	return rc;
}

/* The judged rows, worst first per quantity, as a short table. */
static void phys_print(const struct phys_rows *rs)
{
	static const char *const qs[] = { "surge_front", "residual_height", "rest_height",
					  "rest_density_bulk", "rest_density_max" };
	printf("%-20s %-18s %7s %9s %9s %9s %6s %s\n", "check", "quantity", "judged", "worst_T/t",
	       "rel_err", "tol", "pass", "clamps");
	for (size_t q = 0; q < sizeof qs / sizeof qs[0]; q++) {
		const struct phys_row *worst = NULL;
		size_t judged = 0, failed = 0;
		for (size_t r = 0; r < rs->n; r++) {
			const struct phys_row *row = &rs->r[r];
			if (strcmp(row->quantity, qs[q]) != 0 || !row->judged)
				continue;
			judged++;
			failed += !row->pass;
			if (!worst || !(fabs(row->rel) <= fabs(worst->rel)))
				worst = row;
		}
		if (!worst)
			continue;
		printf("%-20s %-18s %7zu %9.3g %+9.4f %9.2f %6s %llu\n", worst->check, qs[q], judged,
		       isnan(worst->T) ? worst->t : worst->T, worst->rel, worst->tol,
		       failed ? "FAIL" : "ok", worst->clamps);
	}
}

int sph_physics_command(int argc, char **argv)
{
	struct phys_options o;
	char err[512];
	bool help;
	if (phys_parse(argc - 1, argv + 1, &o, &help, err, sizeof err) != CLI_OK)
		return cli_usage_error("sph physics", err);
	if (help) {
		phys_help();
		return CLI_OK;
	}
	if (o.variant < 0 && (o.variant = phys_default_variant()) < 0)
		return cli_usage_error("sph physics", "no SPH variant can run here");
	const struct sph_variant *v = &sph_variants[o.variant];
	const char *why;
	if (!sph_variant_available(v, &why)) {
		snprintf(err, sizeof err, "%s cannot run here: %s", v->name, why);
		return cli_usage_error("sph physics", err);
	}
	static char def[128];
	const char *out = o.out;
	if (!out) {
		char stamp[32];
		sysinfo_utc_stamp(stamp, sizeof stamp);
		snprintf(def, sizeof def, "results/local/sph-physics-%s.csv", stamp);
		out = def;
		atomic_mkdir_p("results/local");
	}
	if (atomic_path_writable(out, err, sizeof err) != 0)
		return cli_usage_error("sph physics", err);

	static struct sysinfo_host host;
	static struct gpu_device_info gpu;
	sysinfo_host_read(&host);
	struct phys_rows rs = { .v = v, .device_name = host.cpu_model, .friction = o.friction };
	if (v->device == VARIANT_GPU && gpu_device_query(0, &gpu) == 0)
		rs.device_name = gpu.name;
	bool all_pass = true;
	int status = CLI_OK;
	struct progress pg;
	progress_init(&pg, "sph physics", o.quiet);
	phys_plan(&o, &pg);
	rs.pg = &pg;
	if ((o.dambreak && phys_dambreak(&o, &rs, &all_pass) != 0) ||
	    (o.rest && phys_rest(&o, &rs, &all_pass) != 0)) {
		progress_finish(&pg);
		free(rs.r);
		return CLI_FAILED; /* nothing written: the run did not finish */
	}
	progress_finish(&pg);
	if (!all_pass)
		status = CLI_FAILED;
	if (!o.quiet)
		phys_print(&rs);
	struct results_table t = { .schema = "sph-harness-physics/1", .columns = phys_columns,
				   .ncols = PHYS_NCOLS, .nrows = rs.n, .rows = &rs,
				   .format = phys_format, .json = phys_json, .ctx = &rs };
	struct results_meta meta = { argc, argv, NULL, NULL, 0, NULL };
	if (results_write_table(out, &t, &meta, err, sizeof err) != 0) {
		fprintf(stderr, "harness: sph physics: %s\n", err);
		status = CLI_FAILED;
	} else if (!o.quiet) {
		printf("wrote %s%s\n", out, all_pass ? "" : " (a judged value is outside its bound)");
	}
	free(rs.r);
	return status;
}
