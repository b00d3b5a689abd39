/* sph_physics_checks.c - the checks of sph physics: the dam break against Martin and Moyce, water at rest, leaks through the walls */
#define _GNU_SOURCE
#include "sph_physics_rows.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* Adds the experimental points of one quantity: each against the curve
 * at its T minus shift (the row's T, judged when judge and in [T_LO,
 * T_HI]). */
static int dam_points(struct phys_rows *rs, const struct phys_row *proto, const char *quantity,
		      const struct sph_physics_point *pts, size_t npts, const double *curve,
		      const struct dam_state *d, size_t m, double shift, bool judge, bool *all_pass)
{
	for (size_t k = 0; k < npts; k++) {
		const double T = pts[k].T - shift;
		if (phys_add_judged(rs, proto, quantity, T, T / d->scale,
				    sph_physics_interp(d->T, curve, m, T), pts[k].value,
				    SPH_PHYSICS_SURGE_TOL,
				    judge && T >= SPH_PHYSICS_T_LO && T <= SPH_PHYSICS_T_HI, all_pass) != 0)
			return -1;
	}
	return 0;
}

double sph_physics_slope(const double *x, const double *y, size_t n, double lo, double hi)
{
	double sx = 0, sy = 0, sxx = 0, sxy = 0, k = 0;
	for (size_t i = 0; i < n; i++) {
		if (!(x[i] >= lo && x[i] <= hi) || !isfinite(y[i]))
			continue;
		sx += x[i];
		sy += y[i];
		sxx += x[i] * x[i];
		sxy += x[i] * y[i];
		k++;
	}
	double den = k * sxx - sx * sx;
	return k >= 2 && den > 0 ? (k * sxy - sx * sy) / den : NAN;
}

void sph_physics_front_speed(const double *T, const double *front, size_t m,
			     const struct sph_physics_point *pts, size_t npts, double *sim,
			     double *meas)
{
	double x[64], ye[64], ys[64];
	size_t n = npts < 64 ? npts : 64;
	for (size_t k = 0; k < n; k++) {
		x[k] = pts[k].T;
		ye[k] = pts[k].value;
		ys[k] = sph_physics_interp(T, front, m, pts[k].T);
	}
	*meas = sph_physics_slope(x, ye, n, SPH_PHYSICS_SPEED_T_LO, SPH_PHYSICS_T_HI);
	*sim = sph_physics_slope(x, ys, n, SPH_PHYSICS_SPEED_T_LO, SPH_PHYSICS_T_HI);
}

/* The front's speed as one judged row (T and t empty: it is a window). */
static int dam_speed(struct phys_rows *rs, const struct phys_row *proto,
		     const struct sph_physics_point *pts, size_t npts, const struct dam_state *d,
		     size_t m, bool *all_pass)
{
	double sim, meas;
	sph_physics_front_speed(d->T, d->front, m, pts, npts, &sim, &meas);
	return phys_add_judged(rs, proto, "surge_speed", NAN, NAN, sim, meas, SPH_PHYSICS_SURGE_TOL,
			       true, all_pass);
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

int phys_dambreak(const struct phys_options *o, struct phys_rows *rs, bool *all_pass)
{
	char err[256];
	struct sph_scene sc;
	rs->check = PHYS_CHECK_DAMBREAK;
	if (phys_restored(rs, rs->check))
		return 0;
	if (sph_scene_build(&o->dam_col, o->seed, &sc, err, sizeof err) != 0) {
		fprintf(stderr, "harness: sph physics: %s\n", err);
		return -1;
	}
	sc.p.wall_friction = o->friction;
	phys_scene_apply(o, &sc);
	phys_begin(rs, &o->dam_col, &sc);
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
	phys_doing("the dam break", o->dam_col.name);
	rs->steps_done = 0;
	rs->steps_total = (long)samples * every;
	struct phys_series ser = { .count = 3, .v = { d.T, d.front, d.height } };
	if (phys_run(rs, &sc, every, samples, dam_sample, &d, &ser, &clamps) != 0)
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
	size_t m = samples + 1;
	if (dam_points(rs, &proto, "surge_front", f, nf, d.front, &d, m, SPH_PHYSICS_TIME_CORRECTION,
		       true, all_pass) != 0 ||
	    dam_points(rs, &proto, "surge_front_uncorrected", f, nf, d.front, &d, m, 0, false,
		       all_pass) != 0 ||
	    dam_speed(rs, &proto, f, nf, &d, m, all_pass) != 0 ||
	    dam_points(rs, &proto, "residual_height", h, nh, d.height, &d, m, 0, true, all_pass) != 0)
		goto out;
	phys_check_done(rs, "dambreak", o->dam_col.name);
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
	double *height, *bulk, *densest; /* at each look */
	double relaxed;	      /* the relaxed height over the lattice's */
	double relax_clamps;  /* the clamps while relaxing */
};

/* A rest row: sim against meas, relative, within REST_TOL when judged. */
static int rest_row(struct rest_state *st, const char *quantity, double t, double sim, double meas,
		    bool judged)
{
	return phys_add_judged(st->rs, st->proto, quantity, NAN, t, sim, meas, SPH_PHYSICS_REST_TOL,
			       judged, st->all_pass);
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
	(void)t;
	st->height[k] = height;
	st->bulk[k] = bulk ? sum / (double)bulk : NAN;
	st->densest[k] = rho_max;
	return 0;
}

/* The rows of the looks of st, samples + 1 of them every steps apart:
 * the height over its value at the first, the bulk's and the densest
 * particle's density over rho0. */
static int rest_rows(struct rest_state *st, size_t samples, long every)
{
	for (size_t k = 0; k <= samples; k++) {
		const double t = (double)k * (double)every * st->sc->p.dt; /* as phys_run's */
		if (rest_row(st, "rest_height", t, st->height[k], st->height[0], true) != 0 ||
		    rest_row(st, "rest_density_bulk", t, st->bulk[k], st->sc->p.rho0, true) != 0 ||
		    rest_row(st, "rest_density_max", t, st->densest[k], st->sc->p.rho0, false) != 0)
			return -1;
	}
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

int phys_rest(const struct phys_options *o, struct phys_rows *rs, bool *all_pass)
{
	char err[256];
	struct sph_scene sc;
	rs->check = PHYS_CHECK_REST;
	if (phys_restored(rs, rs->check))
		return 0;
	if (sph_scene_build(&o->rest_col, o->seed, &sc, err, sizeof err) != 0) {
		fprintf(stderr, "harness: sph physics: %s\n", err);
		return -1;
	}
	phys_scene_apply(o, &sc);
	phys_begin(rs, &o->rest_col, &sc);
	long every, cycle;
	int cycles;
	size_t samples;
	phys_rest_schedule(&sc, &cycle, &cycles, &every, &samples);
	struct phys_row proto = { .check = "rest", .n = sc.n, .nb = sc.nb };
	snprintf(proto.column, sizeof proto.column, "%s", o->rest_col.name);
	struct rest_state st = { &sc, rs, &proto, all_pass, calloc(samples + 1, sizeof(double)),
				 calloc(samples + 1, sizeof(double)), calloc(samples + 1, sizeof(double)),
				 NAN, 0 };
	int rc = -1;
	if (!st.height || !st.bulk || !st.densest) {
		fprintf(stderr, "harness: sph physics: out of memory for %zu looks\n", samples + 1);
		goto out;
	}
	if (!o->quiet)
		fprintf(stderr, "sph physics: water at rest in %s (%zu + %zu boundary particles), "
				"%ld steps relaxing, %zu judged\n",
			o->rest_col.name, sc.n, sc.nb, cycle * cycles, samples * (size_t)every);
	size_t first = rs->n;
	unsigned long long clamps = 0, relax_clamps = 0;
	rs->steps_done = 0;
	rs->steps_total = cycle * cycles + (long)samples * every;
	progress_begin(rs->pg, (double)(sc.n + sc.nb) * (double)rs->steps_total, 0,
		       "water at rest in %s", o->rest_col.name);
	phys_doing("water at rest", o->rest_col.name);
	if (rs->resume && rs->resume->check == rs->check) {
		phys_advance(rs, cycle * cycles); /* relaxed before the checkpoint */
	} else {
		double front, lattice_height, relaxed_height;
		sph_scene_surge(&sc, sc.pos4, &front, &lattice_height);
		if (phys_relax(rs, &sc, cycle, cycles, &relax_clamps) != 0)
			goto out;
		/* what relaxing did, shown and not judged: the free surface settles */
		sph_scene_surge(&sc, sc.pos4, &front, &relaxed_height);
		st.relaxed = relaxed_height / lattice_height;
		st.relax_clamps = (double)relax_clamps;
	}
	struct phys_series ser = { .count = 3, .v = { st.height, st.bulk, st.densest },
				   .nextra = 2, .extra = { &st.relaxed, &st.relax_clamps } };
	if (phys_run(rs, &sc, every, samples, rest_sample, &st, &ser, &clamps) != 0)
		goto out;
	progress_end(rs->pg);
	struct phys_row *row = phys_add(rs);
	if (!row)
		goto out;
	*row = proto;
	row->quantity = "rest_relaxed_height";
	row->t = 0.0;
	row->T = row->meas = row->rel = row->tol = NAN;
	row->sim = st.relaxed;
	if (rest_rows(&st, samples, every) != 0)
		goto out;
	clamps += (unsigned long long)st.relax_clamps;
	for (size_t r = first; r < rs->n; r++)
		rs->r[r].clamps = clamps;
	phys_check_done(rs, "rest", o->rest_col.name);
	rc = 0;
out:
	free(st.height);
	free(st.bulk);
	free(st.densest);
	sph_scene_free(&sc);
	return rc;
}

/* ---- leaks through the walls ------------------------------------------- */

/* What the leak check saw at each look k: the curves drawn, and their
 * worst, judged. */
enum { LEAK_CENTRE, LEAK_CLAMPS, LEAK_OUTSIDE, LEAK_CFL, LEAK_FORCE, LEAK_CURVES };
static const char *const leak_curve_names[LEAK_CURVES] = {
	"leak_centre_curve", "leak_clamps_curve", "leak_outside_curve", "leak_cfl_curve",
	"leak_force_curve"
};

const char *const trace_curve_names[TRACE_CURVES] = {
	"trace_particle", "trace_x", "trace_y", "trace_z", "trace_speed", "trace_cfl_number",
	"trace_wall_h", "trace_walls_near", "trace_fluid_h", "trace_boundary_h",
	"trace_fluid_neighbours", "trace_boundary_neighbours", "trace_density",
	"trace_acc_fluid_pressure", "trace_acc_fluid_viscosity", "trace_acc_wall_pressure",
	"trace_acc_wall_viscosity", "trace_acc_gravity", "trace_acc_reference", "trace_acc_variant",
	"trace_dominant",
};

struct leak_state {
	const struct sph_scene *sc;
	const struct phys_rows *rs;
	double *t;		   /* seconds of flow at each look */
	double *curve[LEAK_CURVES]; /* each look's value */
	double *trace[TRACE_CURVES]; /* --trace: each look's fastest particle, else NULL */
	double outside;		   /* most particles outside the box at one look */
	double vmax, amax; /* the fastest and the most accelerated particle's, at the looks */
};

static double trace_norm(const double *v)
{
	return sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
}

/* --trace at look k: particle i, the fastest, closely (sph_trace.h). */
static int leak_trace(struct leak_state *l, size_t k, size_t i, const float *pos4)
{
	const struct sph_scene *sc = l->sc;
	struct sph_trace tr;
	if (sph_trace_particle(&sc->p, pos4, l->rs->vel4, sc->n, sc->bnd4, sc->nb, i, &tr) != 0) {
		fprintf(stderr, "harness: sph physics: the trace of particle %zu failed\n", i);
		return -1;
	}
	double **c = l->trace;
	const float *a = &l->rs->acc4[4 * i];
	const double av[3] = { a[0], a[1], a[2] };
	c[TRACE_PARTICLE][k] = (double)i;
	c[TRACE_X][k] = tr.x[0];
	c[TRACE_Y][k] = tr.x[1];
	c[TRACE_Z][k] = tr.x[2];
	c[TRACE_SPEED][k] = tr.speed;
	c[TRACE_CFL][k] = sc->p.dt * (sqrt(sc->p.k) + tr.speed) / (0.5 * sc->p.h);
	c[TRACE_WALL_H][k] = tr.wall_h;
	c[TRACE_WALLS_NEAR][k] = tr.walls_near;
	c[TRACE_FLUID_H][k] = tr.fluid_h;
	c[TRACE_BOUNDARY_H][k] = tr.boundary_h;
	c[TRACE_FLUID_NBRS][k] = (double)tr.fluid_nbrs;
	c[TRACE_BOUNDARY_NBRS][k] = (double)tr.boundary_nbrs;
	c[TRACE_DENSITY][k] = tr.rho_rel;
	for (int t = 0; t < SPH_TRACE_TERMS; t++)
		c[TRACE_ACC + t][k] = trace_norm(tr.acc[t]);
	c[TRACE_ACC_REFERENCE][k] = trace_norm(tr.acc_total);
	c[TRACE_ACC_VARIANT][k] = trace_norm(av);
	c[TRACE_DOMINANT][k] = tr.dominant;
	return 0;
}

/*
 * Look k: particles outside the box (or not finite); the clamps so far;
 * the water's centre along the tank (its mean x over the box's length,
 * from the back wall: the surge to the far wall and the slosh back); the
 * CFL and force numbers of this look's fastest and most accelerated
 * particle, on the smoothing length h / 2.
 */
static int leak_sample(void *arg, size_t k, double t, const float *pos4, const float *rho)
{
	(void)rho;
	struct leak_state *l = arg;
	const struct sph_params *p = &l->sc->p;
	size_t out = 0;
	double xsum = 0, vmax = 0, amax = 0;
	for (size_t i = 0; i < l->sc->n; i++) {
		bool in = true;
		for (int a = 0; a < 3; a++)
			in = in && pos4[4 * i + a] >= p->box_lo[a] && pos4[4 * i + a] <= p->box_hi[a];
		out += !in;
		xsum += pos4[4 * i];
	}
	if ((double)out > l->outside)
		l->outside = (double)out;
	size_t fastest = 0;
	for (size_t i = 0; l->rs->vel4 && l->rs->acc4 && i < l->sc->n; i++) {
		const float *v = &l->rs->vel4[4 * i], *a = &l->rs->acc4[4 * i];
		const double v2 = (double)v[0] * v[0] + (double)v[1] * v[1] + (double)v[2] * v[2];
		const double a2 = (double)a[0] * a[0] + (double)a[1] * a[1] + (double)a[2] * a[2];
		if (sqrt(v2) > vmax)
			fastest = i;
		vmax = fmax(vmax, sqrt(v2));
		amax = fmax(amax, sqrt(a2));
	}
	if (l->trace[0] && leak_trace(l, k, fastest, pos4) != 0)
		return -1;
	l->vmax = fmax(l->vmax, vmax);
	l->amax = fmax(l->amax, amax);
	const double h = 0.5 * p->h;
	l->t[k] = t;
	l->curve[LEAK_CENTRE][k] =
		(xsum / (double)l->sc->n - p->box_lo[0]) / (p->box_hi[0] - p->box_lo[0]);
	l->curve[LEAK_CLAMPS][k] = (double)l->rs->clamps_now;
	l->curve[LEAK_OUTSIDE][k] = (double)out;
	l->curve[LEAK_CFL][k] = p->dt * (sqrt(p->k) + vmax) / h;
	l->curve[LEAK_FORCE][k] = p->dt * sqrt(amax / h);
	return 0;
}

/* The curves of l, samples + 1 looks, as rows after proto. */
static int leak_curve_rows(struct phys_rows *rs, const struct phys_row *proto,
			   const struct leak_state *l, size_t samples)
{
	const int nq = LEAK_CURVES + (l->trace[0] ? TRACE_CURVES : 0);
	for (int q = 0; q < nq; q++)
		for (size_t k = 0; k <= samples; k++) {
			struct phys_row *row = phys_add(rs);
			if (!row)
				return -1;
			*row = *proto;
			row->quantity = q < LEAK_CURVES ? leak_curve_names[q]
							: trace_curve_names[q - LEAK_CURVES];
			row->T = row->meas = row->rel = row->tol = NAN;
			row->t = l->t[k];
			row->sim = q < LEAK_CURVES ? l->curve[q][k] : l->trace[q - LEAK_CURVES][k];
		}
	return 0;
}

/* The leak check's looks at sc: every *every steps, samples + 1 of them,
 * over seconds of flow. */
static void phys_leak_schedule(const struct sph_scene *sc, double seconds, long *every,
			       size_t *samples)
{
	*every = lround(SPH_PHYSICS_LEAK_DT / sc->p.dt);
	*every = *every < 1 ? 1 : *every;
	*samples = (size_t)ceil(seconds / sc->p.dt / (double)*every);
}

/* A judged count whose known answer is 0 (no ratio: rel empty). */
static int leak_row(struct phys_rows *rs, const struct phys_row *proto, const char *quantity,
		    double count, double seconds, bool *all_pass)
{
	bool ratio_pass = true; /* count / 0 is no ratio: judged below instead */
	if (phys_add_judged(rs, proto, quantity, NAN, seconds, count, 0, 0, true, &ratio_pass) != 0)
		return -1;
	struct phys_row *row = &rs->r[rs->n - 1];
	row->rel = NAN;
	row->pass = count == 0;
	if (!row->pass)
		*all_pass = false;
	return 0;
}

/* A judged number whose known answer is at most limit. */
static int leak_within(struct phys_rows *rs, const struct phys_row *proto, const char *quantity,
		       double value, double limit, double seconds, bool *all_pass)
{
	bool unused = true;
	if (phys_add_judged(rs, proto, quantity, NAN, seconds, value, limit, 0, true, &unused) != 0)
		return -1;
	struct phys_row *row = &rs->r[rs->n - 1];
	row->rel = NAN;
	row->pass = value <= limit; /* false for NaN: a flow that blew up */
	if (!row->pass)
		*all_pass = false;
	return 0;
}

/* The dam break of each leak column through the impact on the far wall
 * and the slosh back: no coordinate may need the last-resort clamp
 * (leak_clamps) and no particle may be outside the box at a look
 * (leak_outside). */
int phys_leak(const struct phys_options *o, struct phys_rows *rs, bool *all_pass)
{
	for (size_t c = 0; c < o->nleak; c++) {
		char err[256];
		struct sph_scene sc;
		rs->check = PHYS_CHECK_LEAK + (int)c;
		if (phys_restored(rs, rs->check))
			continue;
		if (sph_scene_build(&o->leak_cols[c], o->seed, &sc, err, sizeof err) != 0) {
			fprintf(stderr, "harness: sph physics: %s\n", err);
			return -1;
		}
		sc.p.wall_friction = o->friction;
		phys_scene_apply(o, &sc);
		phys_begin(rs, &o->leak_cols[c], &sc);
		long every;
		size_t samples;
		phys_leak_schedule(&sc, o->leak_s, &every, &samples);
		if (!o->quiet)
			fprintf(stderr, "sph physics: leaks of %s (%zu + %zu boundary particles), %zu steps\n",
				o->leak_cols[c].name, sc.n, sc.nb, samples * (size_t)every);
		progress_begin(rs->pg, (double)(sc.n + sc.nb) * (double)(samples * (size_t)every), 0,
			       "leaks of %s", o->leak_cols[c].name);
		phys_doing("the leak check", o->leak_cols[c].name);
		rs->steps_done = 0;
		rs->steps_total = (long)samples * every;
		struct leak_state l = { .sc = &sc, .rs = rs, .t = calloc(samples + 1, sizeof *l.t) };
		bool have = l.t != NULL;
		for (int q = 0; q < LEAK_CURVES; q++)
			have = (l.curve[q] = calloc(samples + 1, sizeof *l.curve[q])) != NULL && have;
		for (int q = 0; o->trace && q < TRACE_CURVES; q++)
			have = (l.trace[q] = calloc(samples + 1, sizeof *l.trace[q])) != NULL && have;
		unsigned long long clamps = 0;
		rs->want_motion = true;
		struct phys_series ser = { .count = 1 + LEAK_CURVES, .v = { l.t },
					   .nextra = 3, .extra = { &l.outside, &l.vmax, &l.amax } };
		for (int q = 0; q < LEAK_CURVES; q++)
			ser.v[1 + q] = l.curve[q];
		for (int q = 0; o->trace && q < TRACE_CURVES; q++)
			ser.v[ser.count++] = l.trace[q];
		int rc = have ? phys_run(rs, &sc, every, samples, leak_sample, &l,
					 &ser, &clamps) : -1;
		if (!have)
			fprintf(stderr, "harness: sph physics: out of memory for %zu looks\n", samples + 1);
		rs->want_motion = false;
		progress_end(rs->pg);
		struct phys_row proto = { .check = "leak", .n = sc.n, .nb = sc.nb, .clamps = clamps };
		snprintf(proto.column, sizeof proto.column, "%s", o->leak_cols[c].name);
		double seconds = (double)samples * (double)every * sc.p.dt;
		/* the time step against the fastest and the most accelerated
		 * particle seen at a look, on the smoothing length h / 2:
		 * within SPH_PHYSICS_CFL_LIMIT and _FORCE_LIMIT */
		const double h = 0.5 * sc.p.h, c = sqrt(sc.p.k);
		const double cfl = sc.p.dt * (c + l.vmax) / h, force = sc.p.dt * sqrt(l.amax / h);
		sph_scene_free(&sc);
		rc = rc != 0 || leak_row(rs, &proto, "leak_clamps", (double)clamps, seconds, all_pass) != 0 ||
		     leak_row(rs, &proto, "leak_outside", (double)l.outside, seconds, all_pass) != 0 ||
		     leak_within(rs, &proto, "leak_cfl_number", cfl, SPH_PHYSICS_CFL_LIMIT, seconds,
				 all_pass) != 0 ||
		     leak_within(rs, &proto, "leak_force_number", force, SPH_PHYSICS_FORCE_LIMIT, seconds,
				 all_pass) != 0 ||
		     leak_curve_rows(rs, &proto, &l, samples) != 0;
		free(l.t);
		for (int q = 0; q < LEAK_CURVES; q++)
			free(l.curve[q]);
		for (int q = 0; q < TRACE_CURVES; q++)
			free(l.trace[q]);
		if (rc)
			return -1;
		phys_check_done(rs, "leak", proto.column);
	}
	return 0;
}

/* The checks of o on pg, each costing its particles times its steps,
 * and by label on keep. */
void phys_plan(const struct phys_options *o, struct progress *pg, struct keep *keep)
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
		keep_plan(keep, "dambreak on %s", o->dam_col.name);
		sph_scene_free(&sc);
	}
	if (o->rest && sph_scene_build(&o->rest_col, o->seed, &sc, err, sizeof err) == 0) {
		phys_rest_schedule(&sc, &cycle, &cycles, &every, &samples);
		progress_plan(pg, (double)(sc.n + sc.nb) * (double)(cycle * cycles + (long)samples * every),
			      0);
		keep_plan(keep, "rest on %s", o->rest_col.name);
		sph_scene_free(&sc);
	}
	for (size_t c = 0; o->leak && c < o->nleak; c++)
		if (sph_scene_build(&o->leak_cols[c], o->seed, &sc, err, sizeof err) == 0) {
			phys_leak_schedule(&sc, o->leak_s, &every, &samples);
			progress_plan(pg, (double)(sc.n + sc.nb) * (double)(samples * (size_t)every), 0);
			keep_plan(keep, "leak on %s", o->leak_cols[c].name);
			sph_scene_free(&sc);
		}
}
