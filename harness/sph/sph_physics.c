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
#include "../core/interrupt.h"
#include "../core/keep.h"
#include "../cli.h"
#include "../core/gpu_device.h"
#include "../core/json_out.h"
#include "../core/progress.h"
#include "../core/results.h"
#include "../core/sysinfo.h"
#include "../core/timing.h"
#include "sph_checkpoint.h"
#include "sph_trace.h"

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
#define SPH_PHYSICS_LEAK_DT	0.05	/* seconds between the leak check's looks */
#define SPH_PHYSICS_LEAK_COLUMNS "16128,75200,255600"
#define SPH_PHYSICS_LEAK_MAX_COLUMNS 8
/* The time step against the flow, on the smoothing length h / 2 (half
 * the support radius h of sph_ref.h, the h of Monaghan and of
 * DualSPHysics): Monaghan's CFL condition dt (c + v) / (h / 2) <= 0.4 and
 * force condition dt sqrt(a / (h / 2)) <= 0.25 for the fastest and the
 * most accelerated particle (Monaghan 1992, "Smoothed particle
 * hydrodynamics", ARA&A 30; DualSPHysics asks 0.2 of both), judged in the
 * leak check at its looks. */
#define SPH_PHYSICS_CFL_LIMIT	0.4
#define SPH_PHYSICS_FORCE_LIMIT	0.25

struct phys_options {
	int variant; /* index into sph_variants */
	bool dambreak, rest, leak, quiet;
	struct sph_column dam_col, rest_col;
	struct sph_column leak_cols[SPH_PHYSICS_LEAK_MAX_COLUMNS];
	size_t nleak;
	double leak_s; /* seconds of flow the leak check runs */
	int layers;    /* --wall-layers; 0: the scene's default */
	int lid;       /* --lid */
	double top;    /* --wall-height; 0: the scene's default */
	uint64_t seed;
	double friction; /* the dam break's wall_friction */
	double cfl;	 /* --cfl: dt = cfl h / c; 0: the scene's (SPH_WATER_CFL) */
	int gpu;	 /* --gpu INDEX; -1: not given */
	const char *out;
	const char *checkpoint; /* --checkpoint FILE: where checkpoints go */
	double ck_every_s;	/* --checkpoint-every S s: at the first look this long after the last */
	long ck_every_steps;	/* --checkpoint-every STEPS: ... this many steps after */
	const char *restart;	/* --restart FILE */
	bool trace;		/* --trace: the leak check's fastest particle at each look, closely */
};

/* The checks in the order they run: the dam break, water at rest, then
 * one leak check per leak column (PHYS_CHECK_LEAK + c). */
enum { PHYS_CHECK_DAMBREAK, PHYS_CHECK_REST, PHYS_CHECK_LEAK, PHYS_CHECKS = PHYS_CHECK_LEAK + SPH_PHYSICS_LEAK_MAX_COLUMNS };

/* What a check keeps from look to look, so that a checkpoint holds it:
 * arrays of a value per look (samples + 1 each) and scalars. */
#define PHYS_MAX_SERIES 32
#define PHYS_MAX_EXTRAS 4
struct phys_series {
	size_t count, nextra;
	double *v[PHYS_MAX_SERIES];
	double *extra[PHYS_MAX_EXTRAS];
};

/* A restart: the checkpoint, and what it says of the check under way. */
struct phys_resume {
	const char *path;
	struct sph_checkpoint ck; /* the particles at look k */
	int check;
	size_t k, samples;
	long every;
	unsigned long long clamps; /* the check's, from its start to look k */
	size_t nser, nextra;
	double *ser[PHYS_MAX_SERIES]; /* k + 1 values each */
	double extra[PHYS_MAX_EXTRAS];
};

/* The state a check ended on: its last look's particles' hash. */
struct phys_end {
	int check;
	unsigned long step;
	uint64_t fnv;
};

/* The options' changes to a scene just built: the time step. */
static void phys_scene_apply(const struct phys_options *o, struct sph_scene *sc)
{
	if (o->cfl > 0.0)
		sc->p.dt = o->cfl * sc->p.h / sqrt(sc->p.k);
}

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
	double cfl;		/* dt = cfl h / c, for the sidecar */
	struct progress *pg;	/* one item per check, its part the steps done */
	long steps_done, steps_total; /* of the check under way */
	float *vel4, *acc4;	/* set by phys_run for the check under way when
				 * it wants the motion: each look's velocities
				 * and accelerations (else NULL) */
	bool want_motion;
	unsigned long long clamps_now; /* set by phys_run at each look: since create */
	/* what an interruption keeps (core/keep.h): the rows of the checks
	 * finished, and their labels; changed under interrupt_lock */
	size_t kept, checks_done;
	char done[SPH_PHYSICS_LEAK_MAX_COLUMNS + 2][KEEP_LABEL];
	/* checkpoints and restarts (sph_checkpoint.h) */
	const struct phys_options *o;
	char options[SPH_CHECKPOINT_OPTIONS_LEN]; /* phys_options_text */
	int check;			  /* the check under way (PHYS_CHECK_*) */
	struct sph_state_meta start;	  /* its scene as built (phys_begin), step 0 */
	struct phys_resume *resume;	  /* the restart's, NULL when none */
	double ck_last_s;		  /* when the last checkpoint was written */
	long ck_steps;			  /* steps run since */
	size_t checkpoints;		  /* written */
	struct keep *keep;		  /* whose `later` names the last checkpoint */
	struct phys_end ends[PHYS_CHECKS];
	size_t nends;
	char *names;			  /* the restored rows' check and quantity names */
};

/* For the line an interruption prints: check on column is under way. */
static void phys_doing(const char *check, const char *column)
{
	char doing[KEEP_LABEL + 32];
	snprintf(doing, sizeof doing, "%s of %s", check, column);
	interrupt_set_doing(doing);
}

/* The check under way is finished, its rows complete: an interruption
 * from now on keeps them. label as phys_plan planned it. */
static void phys_check_done(struct phys_rows *rs, const char *check, const char *column)
{
	interrupt_lock();
	rs->kept = rs->n;
	snprintf(rs->done[rs->checks_done++], KEEP_LABEL, "%s on %s", check, column);
	interrupt_unlock();
	interrupt_set_doing(NULL);
	interrupt_row_finished();
}

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
		interrupt_lock();
		struct phys_row *g = realloc(rs->r, cap * sizeof *g);
		if (g) {
			rs->r = g;
			rs->cap = cap;
		}
		interrupt_unlock();
		if (!g)
			return NULL;
	}
	struct phys_row *row = &rs->r[rs->n++];
	memset(row, 0, sizeof *row);
	row->sim = row->meas = row->rel = row->tol = NAN;
	return row;
}

/* A row like proto for quantity at T (or NAN) and t seconds, sim against
 * meas: rel = sim / meas - 1 and tol as given; judged rows outside it
 * clear *all_pass. 0, or -1 when memory ran out. */
static int phys_add_judged(struct phys_rows *rs, const struct phys_row *proto, const char *quantity,
			   double T, double t, double sim, double meas, double tol, bool judged,
			   bool *all_pass)
{
	struct phys_row *row = phys_add(rs);
	if (!row)
		return -1;
	*row = *proto;
	row->quantity = quantity;
	row->T = T;
	row->t = t;
	row->sim = sim;
	row->meas = meas;
	row->rel = sim / meas - 1.0;
	row->tol = tol;
	row->judged = judged;
	row->pass = isfinite(row->rel) && fabs(row->rel) <= tol;
	if (judged && !row->pass)
		*all_pass = false;
	return 0;
}

/* Steps a variant runs between two progress updates: the GPU variants'
 * batch of 16 steps, about 3.5 s for the CPU variant at 255,600 particles
 * on 2 cores (64 steps, measured: 14 to 23 s between lines). */
#define PHYS_STEPS_CHUNK 16

/* Runs v on sc for samples + 1 looks, every `every` steps apart; at each
 * the callback gets the positions and densities (evaluated there) and
 * keeps what it needs in ser. */
typedef int (*phys_sample_fn)(void *arg, size_t k, double t, const float *pos4, const float *rho);

/* ---- checkpoints ----------------------------------------------------------- */

/* The options that change what sph physics computes, as text: a
 * checkpoint goes on only under the same (sph_checkpoint_check). */
static void phys_options_text(const struct phys_options *o, char *out, size_t len)
{
	int at = snprintf(out, len, "checks=%s%s%s column=%s rest-column=%s leak-columns=",
			  o->dambreak ? "dambreak," : "", o->rest ? "rest," : "", o->leak ? "leak" : "",
			  o->dam_col.name, o->rest_col.name);
	for (size_t c = 0; c < o->nleak && at > 0 && (size_t)at < len; c++)
		at += snprintf(out + at, len - (size_t)at, "%s%s", c ? "," : "", o->leak_cols[c].name);
	if (at > 0 && (size_t)at < len)
		snprintf(out + at, len - (size_t)at,
			 " leak-seconds=%.17g wall-layers=%d lid=%d wall-height=%.17g seed=%llu "
			 "wall-friction=%.17g cfl=%.17g trace=%d",
			 o->leak_s, o->layers, o->lid, o->top, (unsigned long long)o->seed, o->friction,
			 o->cfl, o->trace);
}

/* Whether a checkpoint is due at a look: --checkpoint given, and its
 * steps or seconds since the last one have passed. */
static bool phys_checkpoint_due(const struct phys_rows *rs)
{
	const struct phys_options *o = rs->o;
	if (!o->checkpoint)
		return false;
	if (o->ck_every_steps > 0)
		return rs->ck_steps >= o->ck_every_steps;
	return timing_now() - rs->ck_last_s >= o->ck_every_s;
}

/* A finished row into w: names in fixed widths, numbers as they are. */
static void phys_put_row(struct sph_checkpoint_buf *w, const struct phys_row *r)
{
	sph_checkpoint_put_str(w, r->check, 16);
	sph_checkpoint_put_str(w, r->quantity, 40);
	sph_checkpoint_put_str(w, r->column, sizeof r->column);
	sph_checkpoint_put_u64(w, r->n);
	sph_checkpoint_put_u64(w, r->nb);
	const double d[6] = { r->T, r->t, r->sim, r->meas, r->rel, r->tol };
	for (int i = 0; i < 6; i++)
		sph_checkpoint_put_f64(w, d[i]);
	sph_checkpoint_put_u64(w, r->judged);
	sph_checkpoint_put_u64(w, r->pass);
	sph_checkpoint_put_u64(w, r->clamps);
}

/*
 * Writes the checkpoint of look k of the check under way (its particles
 * pos4, vel4 on sc; the check's clamps so far; what ser holds up to k)
 * with the rows and ends of the checks finished, under the interrupt
 * lock so that an interruption waits for it, and names it in what an
 * interruption says.
 */
static int phys_checkpoint(struct phys_rows *rs, size_t k, size_t samples, long every,
			   const float *pos4, const float *vel4, unsigned long long clamps,
			   const struct phys_series *ser)
{
	const struct phys_options *o = rs->o;
	struct sph_checkpoint_buf w = { 0 };
	sph_checkpoint_put_u64(&w, (uint64_t)rs->check);
	sph_checkpoint_put_u64(&w, k);
	sph_checkpoint_put_u64(&w, samples);
	sph_checkpoint_put_u64(&w, (uint64_t)every);
	sph_checkpoint_put_u64(&w, clamps);
	sph_checkpoint_put_u64(&w, ser->count);
	for (size_t q = 0; q < ser->count; q++)
		sph_checkpoint_put(&w, ser->v[q], (k + 1) * sizeof *ser->v[q]);
	sph_checkpoint_put_u64(&w, ser->nextra);
	for (size_t q = 0; q < ser->nextra; q++)
		sph_checkpoint_put_f64(&w, *ser->extra[q]);
	sph_checkpoint_put_u64(&w, rs->kept);
	for (size_t r = 0; r < rs->kept; r++)
		phys_put_row(&w, &rs->r[r]);
	sph_checkpoint_put_u64(&w, rs->checks_done);
	for (size_t c = 0; c < rs->checks_done; c++)
		sph_checkpoint_put_str(&w, rs->done[c], KEEP_LABEL);
	sph_checkpoint_put_u64(&w, rs->nends);
	for (size_t e = 0; e < rs->nends; e++) {
		sph_checkpoint_put_u64(&w, (uint64_t)rs->ends[e].check);
		sph_checkpoint_put_u64(&w, rs->ends[e].step);
		sph_checkpoint_put_u64(&w, rs->ends[e].fnv);
	}
	struct sph_checkpoint ck = { .progress = w.b, .progress_len = w.len };
	snprintf(ck.command, sizeof ck.command, "sph physics");
	snprintf(ck.options, sizeof ck.options, "%s", rs->options);
	ck.state = rs->start;
	ck.state.step = (unsigned long)(k * (size_t)every);
	ck.state.time_s = (double)ck.state.step * ck.state.dt; /* as sph_state_meta_of */
	ck.state.clamps = clamps;
	char err[512];
	int rc = -1;
	interrupt_lock();
	if (w.failed)
		snprintf(err, sizeof err, "out of memory for the checkpoint %s", o->checkpoint);
	else
		rc = sph_checkpoint_write(o->checkpoint, &ck, pos4, vel4, err, sizeof err);
	if (rc == 0 && rs->keep)
		snprintf(rs->keep->later, sizeof rs->keep->later,
			 "its last checkpoint, %s, holds step %lu of the %s check of %s: the same "
			 "command with --restart %s goes on from there",
			 o->checkpoint, ck.state.step, rs->check == PHYS_CHECK_DAMBREAK ? "dambreak"
			 : rs->check == PHYS_CHECK_REST ? "rest" : "leak",
			 rs->start.col.name, o->checkpoint);
	interrupt_unlock();
	free(w.b);
	if (rc != 0) {
		fprintf(stderr, "harness: sph physics: %s\n", err);
		return -1;
	}
	rs->checkpoints++;
	rs->ck_steps = 0;
	rs->ck_last_s = timing_now();
	interrupt_row_finished(); /* the test hook counts checkpoints as rows */
	return 0;
}

/* Reads the restart's checkpoint (o->restart) into res: the check under
 * way, its looks so far, and the rows and ends of the checks before it
 * added to rs. 0, or -1 with one line in err. */
static int phys_resume_read(struct phys_rows *rs, struct phys_resume *res, char *err, size_t errlen)
{
	const struct phys_options *o = rs->o;
	memset(res, 0, sizeof *res);
	res->path = o->restart;
	if (sph_checkpoint_read(o->restart, &res->ck, err, errlen) != 0)
		return -1;
	struct sph_checkpoint_buf r = { .b = res->ck.progress, .len = res->ck.progress_len };
	res->check = (int)sph_checkpoint_get_u64(&r);
	res->k = (size_t)sph_checkpoint_get_u64(&r);
	res->samples = (size_t)sph_checkpoint_get_u64(&r);
	res->every = (long)sph_checkpoint_get_u64(&r);
	res->clamps = sph_checkpoint_get_u64(&r);
	res->nser = (size_t)sph_checkpoint_get_u64(&r);
	bool bad = r.failed || res->check < 0 || res->check >= PHYS_CHECKS || res->k > res->samples ||
		   res->nser > PHYS_MAX_SERIES;
	for (size_t q = 0; !bad && q < res->nser; q++) {
		res->ser[q] = malloc((res->k + 1) * sizeof *res->ser[q]);
		bad = !res->ser[q];
		if (!bad)
			sph_checkpoint_get(&r, res->ser[q], (res->k + 1) * sizeof *res->ser[q]);
	}
	res->nextra = bad ? 0 : (size_t)sph_checkpoint_get_u64(&r);
	bad = bad || r.failed || res->nextra > PHYS_MAX_EXTRAS;
	for (size_t q = 0; !bad && q < res->nextra; q++)
		res->extra[q] = sph_checkpoint_get_f64(&r);
	const size_t nrows = bad ? 0 : (size_t)sph_checkpoint_get_u64(&r);
	bad = bad || r.failed || nrows > (r.len - r.at) / 64;
	if (!bad && nrows && !(rs->names = malloc(nrows * 56)))
		bad = true;
	for (size_t i = 0; !bad && i < nrows; i++) {
		struct phys_row *row = phys_add(rs);
		if (!row) {
			bad = true;
			break;
		}
		char *check = rs->names + 56 * i, *quantity = check + 16;
		sph_checkpoint_get_str(&r, check, 16);
		sph_checkpoint_get_str(&r, quantity, 40);
		row->check = check;
		row->quantity = quantity;
		sph_checkpoint_get_str(&r, row->column, sizeof row->column);
		row->n = (size_t)sph_checkpoint_get_u64(&r);
		row->nb = (size_t)sph_checkpoint_get_u64(&r);
		double *d[6] = { &row->T, &row->t, &row->sim, &row->meas, &row->rel, &row->tol };
		for (int j = 0; j < 6; j++)
			*d[j] = sph_checkpoint_get_f64(&r);
		row->judged = sph_checkpoint_get_u64(&r) != 0;
		row->pass = sph_checkpoint_get_u64(&r) != 0;
		row->clamps = sph_checkpoint_get_u64(&r);
	}
	const size_t ndone = bad ? 0 : (size_t)sph_checkpoint_get_u64(&r);
	bad = bad || r.failed || ndone > SPH_PHYSICS_LEAK_MAX_COLUMNS + 2;
	for (size_t c = 0; !bad && c < ndone; c++)
		sph_checkpoint_get_str(&r, rs->done[c], KEEP_LABEL);
	const size_t nends = bad ? 0 : (size_t)sph_checkpoint_get_u64(&r);
	bad = bad || r.failed || nends > PHYS_CHECKS;
	for (size_t e = 0; !bad && e < nends; e++) {
		rs->ends[e].check = (int)sph_checkpoint_get_u64(&r);
		rs->ends[e].step = (unsigned long)sph_checkpoint_get_u64(&r);
		rs->ends[e].fnv = sph_checkpoint_get_u64(&r);
	}
	if (bad || r.failed || r.at != r.len) {
		snprintf(err, errlen, "%s: its progress is not that of sph physics: the file is damaged "
			 "or of another build", o->restart);
		return -1;
	}
	rs->nends = nends;
	rs->checks_done = ndone;
	rs->kept = rs->n;
	return 0;
}

static void phys_resume_free(struct phys_resume *res)
{
	for (size_t q = 0; q < res->nser; q++)
		free(res->ser[q]);
	sph_checkpoint_free(&res->ck);
}

/* Whether check is before the restart's: finished, its rows restored. */
static bool phys_restored(const struct phys_rows *rs, int check)
{
	return rs->resume && check < rs->resume->check;
}

/* The check under way starts on sc, built from col and not yet changed
 * (water at rest relaxes it first): what its checkpoints say of its
 * scene. */
static void phys_begin(struct phys_rows *rs, const struct sph_column *col, const struct sph_scene *sc)
{
	sph_state_meta_of(&rs->start, col, rs->o->seed, sc, 0, rs->v->name);
}

/*
 * The restart's state, when it is of the check under way: checked
 * against the checkpoint (one line of refusal in err, -1), and its looks
 * so far copied into ser. 0 with *res NULL when the check starts from its
 * beginning.
 */
static int phys_resume_take(struct phys_rows *rs, size_t samples, long every,
			    struct phys_series *ser, const struct phys_resume **res, char *err,
			    size_t errlen)
{
	struct phys_resume *r = rs->resume;
	*res = NULL;
	if (!r || r->check != rs->check)
		return 0;
	if (sph_checkpoint_check(&r->ck, r->path, "sph physics", rs->v->name, rs->options, &rs->start,
				 err, errlen) != 0)
		return -1;
	if (r->samples != samples || r->every != every || r->nser != ser->count ||
	    r->nextra != ser->nextra || r->ck.state.step != r->k * (size_t)every) {
		snprintf(err, errlen, "%s: its looks are not this check's (%zu every %ld steps, not "
			 "%zu every %ld)", r->path, r->samples, r->every, samples, every);
		return -1;
	}
	for (size_t q = 0; q < ser->count; q++)
		memcpy(ser->v[q], r->ser[q], (r->k + 1) * sizeof *ser->v[q]);
	for (size_t q = 0; q < ser->nextra; q++)
		*ser->extra[q] = r->extra[q];
	*res = r;
	return 0;
}

/* The check under way ended on the particles pos4, vel4 at step. */
static void phys_ended(struct phys_rows *rs, unsigned long step, const float *pos4,
		       const float *vel4, size_t n)
{
	if (rs->nends < PHYS_CHECKS)
		rs->ends[rs->nends++] = (struct phys_end){ rs->check, step,
							   sph_state_payload_hash(pos4, vel4, n) };
}

/* Makes v's state from pos4, vel4 on sc into *ctx. 0, or -1 said. */
static int phys_create(const struct sph_variant *v, const struct sph_scene *sc, const float *pos4,
		       const float *vel4, void **ctx)
{
	char err[256];
	const struct sph_input in = { sc->n, pos4, vel4, sc->nb, sc->bnd4 };
	if (v->ops->create(ctx, &in, &sc->p, err, sizeof err) != 0) {
		fprintf(stderr, "harness: sph physics: %s: %s\n", v->name, err);
		return -1;
	}
	return 0;
}

/*
 * The looks of a check: from its start, or from the restart's look when
 * the restart is of this check. Between two looks the variant is made
 * again from the particles of the look, as a restart from a checkpoint
 * of that look makes it: the GPU variants keep their particles in the
 * order of their last sort and their Verlet lists from their last
 * rebuild, which a variant made fresh from the same particles does not
 * share, so that only this makes a restarted run end bit for bit where
 * an unbroken one does, at whatever look it was cut.
 */
static int phys_run(struct phys_rows *rs, const struct sph_scene *sc, long every, size_t samples, phys_sample_fn fn, void *arg,
		    struct phys_series *ser, unsigned long long *clamps)
{
	const struct sph_variant *v = rs->v;
	char err[512];
	void *ctx = NULL;
	int rc = -1;
	float *pos4 = malloc(4 * sc->n * sizeof *pos4), *rho = malloc(sc->n * sizeof *rho);
	float *vel4 = malloc(4 * sc->n * sizeof *vel4);
	float *acc4 = rs->want_motion ? malloc(4 * sc->n * sizeof *acc4) : NULL;
	rs->vel4 = vel4;
	rs->acc4 = acc4;
	const struct phys_resume *res = NULL;
	if (!pos4 || !rho || !vel4 || (rs->want_motion && !acc4)) {
		fprintf(stderr, "harness: sph physics: out of memory for %zu particles\n", sc->n);
		goto out;
	}
	if (phys_resume_take(rs, samples, every, ser, &res, err, sizeof err) != 0) {
		fprintf(stderr, "harness: sph physics: %s\n", err);
		goto out;
	}
	/* the clamps of the variants made before the one stepping now */
	unsigned long long before = res ? res->clamps : 0;
	const size_t k0 = res ? res->k : 0;
	if (phys_create(v, sc, res ? res->ck.pos4 : sc->pos4, res ? res->ck.vel4 : sc->vel4, &ctx) != 0)
		goto out;
	if (res)
		phys_advance(rs, (long)k0 * every);
	struct sph_counts now = { 0 };
	for (size_t k = k0; k <= samples; k++) {
		const bool look = !res || k > k0; /* the restart's look k0 was taken */
		if (look) {
			struct sph_phase_times t = { 0 };
			int failed = 0;
			/* the steps between two looks in chunks, each counted as done, so
			 * that a slow variant's progress moves between looks minutes apart */
			for (long done = 0; k > 0 && done < every && !failed; done += PHYS_STEPS_CHUNK) {
				const long chunk = every - done < PHYS_STEPS_CHUNK ? every - done : PHYS_STEPS_CHUNK;
				failed = v->ops->steps(ctx, (int)chunk, &t) != 0;
				phys_advance(rs, chunk);
				rs->ck_steps += chunk;
			}
			if (failed || v->ops->evaluate(ctx, 0) != 0 ||
			    v->ops->read(ctx, pos4, vel4, rho, acc4) != 0) {
				fprintf(stderr, "harness: sph physics: %s failed at step %ld: %s\n", v->name,
					(long)k * every, v->ops->error(ctx));
				goto out_destroy;
			}
			v->ops->counts(ctx, &now);
			rs->clamps_now = before + now.clamps;
			if (fn(arg, k, (double)k * (double)every * sc->p.dt, pos4, rho) != 0)
				goto out_destroy;
		}
		if (k == samples) {
			phys_ended(rs, (unsigned long)(k * (size_t)every), pos4, vel4, sc->n);
			break;
		}
		if (!look)
			continue;
		before += now.clamps;
		v->ops->destroy(ctx);
		ctx = NULL;
		if (phys_create(v, sc, pos4, vel4, &ctx) != 0)
			goto out;
		if (phys_checkpoint_due(rs) &&
		    phys_checkpoint(rs, k, samples, every, pos4, vel4, before, ser) != 0)
			goto out_destroy;
	}
	*clamps = before + now.clamps;
	rc = 0;
out_destroy:
	v->ops->destroy(ctx);
out:
	free(pos4);
	free(rho);
	free(vel4);
	free(acc4);
	rs->vel4 = rs->acc4 = NULL;
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

static int phys_dambreak(const struct phys_options *o, struct phys_rows *rs, bool *all_pass)
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

static int phys_rest(const struct phys_options *o, struct phys_rows *rs, bool *all_pass)
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

/* --trace: the fastest particle at each look (sph_trace.h), as curves. */
enum { TRACE_PARTICLE, TRACE_X, TRACE_Y, TRACE_Z, TRACE_SPEED, TRACE_CFL, TRACE_WALL_H,
       TRACE_WALLS_NEAR, TRACE_FLUID_H, TRACE_BOUNDARY_H, TRACE_FLUID_NBRS, TRACE_BOUNDARY_NBRS,
       TRACE_DENSITY, TRACE_ACC, /* SPH_TRACE_TERMS of them */
       TRACE_ACC_REFERENCE = TRACE_ACC + SPH_TRACE_TERMS, TRACE_ACC_VARIANT, TRACE_DOMINANT,
       TRACE_CURVES };
static const char *const trace_curve_names[TRACE_CURVES] = {
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
static int phys_leak(const struct phys_options *o, struct phys_rows *rs, bool *all_pass)
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
static void phys_plan(const struct phys_options *o, struct progress *pg, struct keep *keep)
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

/* ---- output ------------------------------------------------------------- */

/* "leak on 255600": check's name and column, as phys_plan labels it. */
static const char *phys_check_label(const struct phys_options *o, int check)
{
	static char label[KEEP_LABEL];
	if (check == PHYS_CHECK_DAMBREAK)
		snprintf(label, sizeof label, "dambreak on %s", o->dam_col.name);
	else if (check == PHYS_CHECK_REST)
		snprintf(label, sizeof label, "rest on %s", o->rest_col.name);
	else if (check - PHYS_CHECK_LEAK < (int)o->nleak)
		snprintf(label, sizeof label, "leak on %s", o->leak_cols[check - PHYS_CHECK_LEAK].name);
	else
		snprintf(label, sizeof label, "check %d", check);
	return label;
}

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
	json_kv_double(j, "cfl", rs->cfl);
	json_key(j, "checks");
	json_begin_object(j);
	json_kv_string(j, "dambreak",
		       "Martin and Moyce (1952), n^2 = 2: surge front Z = z / a and residual height "
		       "H / (n^2 a) against T = t sqrt(2 g / a); *_curve rows are the simulation "
		       "sampled, the others its linear interpolation at the tabulated points "
		       "(results/published/martin_moyce1952.csv); surge_front: the simulated front at T "
		       "against the experiment at T + 0.175 (the time correction of the Martin and Moyce "
		       "example of the VOF code Lethe, results/published/lethe_dambreak.csv), judged for "
		       "T in [1, 3]; surge_speed: the least-squares slope of Z against T over the "
		       "experiment's points with T in [1.5, 3] and of the simulation at the same T; "
		       "residual_height: at the experiment's T, judged for T in [1, 3]; each at "
		       "|rel_err| <= 0.10; surge_front_uncorrected: the front at the experiment's T, "
		       "not judged");
	json_kv_string(j, "rest",
		       "water at rest, no jitter, box that fits it, relaxed by 3 s of kinetic damping "
		       "(rest_relaxed_height: its height over the lattice's, not judged), then 1 s: "
		       "residual height over its start and mean density of the particles more than h "
		       "below the top, each within 0.01 of 1 or rho0 at every sample; the largest "
		       "density shown, not judged (the floor's hydrostatic compression)");
	json_kv_string(j, "leak",
		       "the dam break of each leak column (tank 4 widths) for at least 3 s of flow, "
		       "through the impact on the far wall and the slosh back: leak_clamps, the "
		       "coordinates the last-resort clamp put back on a wall, and leak_outside, the most "
		       "particles outside the box at one look (every 0.05 s), each judged against 0; "
		       "leak_cfl_number dt (c + v) / (h / 2) and leak_force_number dt sqrt(a / (h / 2)) "
		       "for the fastest and most accelerated particle at a look (h / 2 the smoothing "
		       "length), judged against Monaghan's 0.4 and 0.25; at every look, not judged: "
		       "leak_centre_curve (the water's mean x over the box's length, from the back "
		       "wall), leak_clamps_curve (clamped so far), leak_outside_curve, leak_cfl_curve "
		       "and leak_force_curve (that look's fastest and most accelerated particle); with "
		       "--trace, that look's fastest particle closely (harness/sph/sph_trace.h): "
		       "trace_particle (its index), trace_x, _y, _z [m], trace_speed [m/s], "
		       "trace_cfl_number, trace_wall_h (to the nearest face of the box, / h), "
		       "trace_walls_near (faces within h: 1 a wall, 2 an edge, 3 a corner), "
		       "trace_fluid_h and trace_boundary_h (to the nearest fluid and boundary "
		       "particle, / h), trace_fluid_neighbours and trace_boundary_neighbours (within "
		       "h), trace_density (rho / rho0, by the double reference), trace_acc_* (the "
		       "magnitude of each term of its acceleration by the double reference: fluid and "
		       "wall pressure and viscosity, gravity, their sum as trace_acc_reference; the "
		       "variant's own as trace_acc_variant) [m/s^2] and trace_dominant (the largest "
		       "term: 0 fluid pressure, 1 fluid viscosity, 2 wall pressure, 3 wall viscosity, "
		       "4 gravity)");
	json_end_object(j);
	json_kv_string(j, "physics", "reference/sph_ref.h: Mueller 2003, clamped pressure, walls of boundary particles (Akinci 2012), symplectic Euler");
	json_kv_string(j, "looks", "between two looks the variant is made again from the look's "
		       "particles, as a restart from a checkpoint makes it");
	json_key(j, "ends");
	json_begin_array(j);
	for (size_t e = 0; e < rs->nends; e++) {
		char hex[17];
		snprintf(hex, sizeof hex, "%016llx", (unsigned long long)rs->ends[e].fnv);
		json_begin_object(j);
		json_kv_string(j, "check", phys_check_label(rs->o, rs->ends[e].check));
		json_kv_int(j, "step", (long long)rs->ends[e].step);
		json_kv_string(j, "state_fnv1a64", hex);
		json_end_object(j);
	}
	json_end_array(j);
	if (rs->o->checkpoint) {
		json_key(j, "checkpoints");
		json_begin_object(j);
		json_kv_string(j, "path", rs->o->checkpoint);
		if (rs->o->ck_every_steps > 0)
			json_kv_int(j, "every_steps", rs->o->ck_every_steps);
		else
			json_kv_double(j, "every_s", rs->o->ck_every_s);
		json_kv_int(j, "written", (long long)rs->checkpoints);
		json_end_object(j);
	}
	if (rs->resume) {
		json_key(j, "restarted_from");
		json_begin_object(j);
		json_kv_string(j, "checkpoint", rs->resume->path);
		json_kv_string(j, "check", phys_check_label(rs->o, rs->resume->check));
		json_kv_int(j, "step", (long long)rs->resume->ck.state.step);
		json_end_object(j);
	}
}

/* ---- the command ---------------------------------------------------------- */

static void phys_help(void)
{
	printf("usage: harness sph physics [--variant NAME] [--check dambreak|rest|leak|all]\n"
	       "                           [--column C] [--rest-column C] [--leak-columns LIST]\n"
	       "                           [--leak-seconds S] [--out FILE.csv]\n"
	       "                           [--checkpoint FILE [--checkpoint-every N|Ss]]\n"
	       "                           [--restart FILE]\n\n"
	       "What a variant's water does over time, against experiment and known answers:\n"
	       "  dambreak  the column of Martin and Moyce (1952), 2 x as high as wide,\n"
	       "            collapses; against their tables, each within 10 %%, for\n"
	       "            T = t sqrt(2g/a) in [1, 3]: the surge front at T against the\n"
	       "            experiment at T + 0.175 (a published correction for the\n"
	       "            experiment's release), the front's speed over [1.5, 3] and\n"
	       "            the residual height; the front's uncorrected lead is shown\n"
	       "  rest      water at rest, relaxed first (3 s of kinetic damping), for\n"
	       "            1 s: its height and the mean density of its bulk within\n"
	       "            1 %% at every sample (the densest particle shown, not judged)\n"
	       "  leak      the dam break of each leak column through the impact on the\n"
	       "            far wall and the slosh back: no coordinate clamped back\n"
	       "            onto a wall, no particle outside the box, and a time step\n"
	       "            within Monaghan's CFL (0.4) and force (0.25) conditions\n"
	       "            for the fastest particle at every look (every 0.05 s)\n\n"
	       "  --variant, -v NAME  one SPH variant (sph-gpu-verlet where a GPU is, else\n"
	       "                      sph-cpu-grid)\n"
	       "  --check C           dambreak, rest, leak or all (all)\n"
	       "  --column C          the dam break's column (martin-moyce), a name or\n"
	       "                      NXxNYxNZ[@L]\n"
	       "  --rest-column C     the still water's column (%s; jitter 0)\n"
	       "  --leak-columns LIST the leak check's columns, comma-separated\n"
	       "                      (" SPH_PHYSICS_LEAK_COLUMNS ")\n"
	       "  --leak-seconds S    seconds of flow the leak check runs (3, at least 3)\n"
	       "  --wall-layers N     planes of boundary particles per wall (1 .. 8; the\n"
	       "                      scene's default otherwise)\n"
	       "  --lid, --no-lid     boundary particles close the box's top as well (the\n"
	       "                      default), or the box is open\n"
	       "  --wall-height X     the walls X times the column's height (1 .. 8; 2)\n"
	       "  --seed S            jitter of the dam break's lattice (42)\n"
	       "  --wall-friction F   the dam break's walls: 0 free slip (the default),\n"
	       "                      1 as if the wall were fluid at rest (0 .. 10)\n"
	       "  --cfl C             the time step dt = C h / c, h the support radius (0.14,\n"
	       "                      the water's: reference/sph_ref.h; 0.01 .. 0.5)\n"
	       "  --gpu INDEX         the GPU to use among those visible, as for 'harness sph run'\n"
	       "  --trace             the leak check's fastest particle at every look, closely:\n"
	       "                      its place against the walls and corners, its nearest\n"
	       "                      fluid and boundary particles, its neighbours, and its\n"
	       "                      acceleration split into fluid and wall pressure and\n"
	       "                      viscosity and gravity by the double reference (trace_*\n"
	       "                      rows)\n"
	       "  --checkpoint FILE   write the run's state there at a look every so often\n"
	       "                      (atomically; FILE.json names its build, variant, scene\n"
	       "                      and step), so that a run cut by a time limit goes on\n"
	       "                      with --restart FILE\n"
	       "  --checkpoint-every N|Ss  at the first look N steps or S seconds of wall\n"
	       "                      clock after the last checkpoint (300s)\n"
	       "  --restart FILE      go on from a checkpoint of the same command: the same\n"
	       "                      binary, variant and options (else refused); the run\n"
	       "                      ends bit for bit where an unbroken one does\n"
	       "  --out, -o FILE.csv  every sample and point (results/local/sph-physics-<UTC>.csv)\n"
	       "  --quiet, -q         no table, no progress\n"
	       "Between two looks the variant is made again from the look's particles, as a\n"
	       "restart makes it. An interrupted run says which checkpoint goes on.\n"
	       "Exit status: 0 every judged value within its bound, 1 one outside or a\n"
	       "failure, 2 bad input or a checkpoint refused.\n",
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

/* A comma-separated list of columns into o->leak_cols. */
static int phys_parse_leak_columns(const char *list, struct phys_options *o, char *err,
				   size_t errlen)
{
	char buf[512];
	if (strlen(list) >= sizeof buf) {
		snprintf(err, errlen, "--leak-columns: list too long");
		return CLI_USAGE;
	}
	snprintf(buf, sizeof buf, "%s", list);
	o->nleak = 0;
	for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (o->nleak == SPH_PHYSICS_LEAK_MAX_COLUMNS) {
			snprintf(err, errlen, "--leak-columns: at most %d columns",
				 SPH_PHYSICS_LEAK_MAX_COLUMNS);
			return CLI_USAGE;
		}
		if (sph_scene_column_parse(tok, &o->leak_cols[o->nleak], err, errlen) != 0)
			return CLI_USAGE;
		o->nleak++;
	}
	if (o->nleak == 0) {
		snprintf(err, errlen, "--leak-columns: no column given");
		return CLI_USAGE;
	}
	return CLI_OK;
}

/* Seconds between checkpoints when --checkpoint-every is not given. */
#define PHYS_CHECKPOINT_EVERY_S 300.0

/* --checkpoint-every: STEPS, or S seconds of wall clock when it ends in s. */
static int phys_parse_every(const char *arg, struct phys_options *o, char *err, size_t errlen)
{
	const size_t len = strlen(arg);
	if (len > 1 && arg[len - 1] == 's') {
		char num[64];
		snprintf(num, sizeof num, "%.*s", (int)(len - 1), arg);
		o->ck_every_steps = 0;
		return cli_parse_double("--checkpoint-every", num, 1, 86400, &o->ck_every_s, err,
					errlen);
	}
	double steps;
	int rc = cli_parse_double("--checkpoint-every", arg, 1, 1e9, &steps, err, errlen);
	if (rc == CLI_OK && steps != floor(steps)) {
		snprintf(err, errlen, "--checkpoint-every: '%s' is neither whole steps nor seconds "
			 "ending in s", arg);
		rc = CLI_USAGE;
	}
	o->ck_every_steps = (long)steps;
	return rc;
}

static int phys_parse(int argc, char **argv, struct phys_options *o, bool *help, char *err,
		      size_t errlen)
{
	enum { OPT_CHECK = 300, OPT_COLUMN, OPT_REST_COLUMN, OPT_SEED, OPT_FRICTION, OPT_LEAK_COLUMNS,
	       OPT_LEAK_SECONDS, OPT_WALL_LAYERS, OPT_LID, OPT_NO_LID, OPT_WALL_HEIGHT, OPT_CFL,
	       OPT_GPU, OPT_CHECKPOINT, OPT_CHECKPOINT_EVERY, OPT_RESTART, OPT_TRACE };
	static const struct option longopts[] = {
		{ "variant", required_argument, NULL, 'v' },
		{ "check", required_argument, NULL, OPT_CHECK },
		{ "column", required_argument, NULL, OPT_COLUMN },
		{ "rest-column", required_argument, NULL, OPT_REST_COLUMN },
		{ "seed", required_argument, NULL, OPT_SEED },
		{ "wall-friction", required_argument, NULL, OPT_FRICTION },
		{ "leak-columns", required_argument, NULL, OPT_LEAK_COLUMNS },
		{ "leak-seconds", required_argument, NULL, OPT_LEAK_SECONDS },
		{ "wall-layers", required_argument, NULL, OPT_WALL_LAYERS },
		{ "lid", no_argument, NULL, OPT_LID },
		{ "no-lid", no_argument, NULL, OPT_NO_LID },
		{ "wall-height", required_argument, NULL, OPT_WALL_HEIGHT },
		{ "cfl", required_argument, NULL, OPT_CFL },
		{ "gpu", required_argument, NULL, OPT_GPU },
		{ "checkpoint", required_argument, NULL, OPT_CHECKPOINT },
		{ "checkpoint-every", required_argument, NULL, OPT_CHECKPOINT_EVERY },
		{ "restart", required_argument, NULL, OPT_RESTART },
		{ "trace", no_argument, NULL, OPT_TRACE },
		{ "out", required_argument, NULL, 'o' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	memset(o, 0, sizeof *o);
	o->variant = -1;
	o->gpu = -1;
	o->dambreak = o->rest = o->leak = true;
	o->leak_s = SPH_PHYSICS_LEAK_MIN_S;
	o->seed = 42;
	o->friction = SPH_WATER_FRICTION;
	o->ck_every_s = PHYS_CHECKPOINT_EVERY_S;
	*help = false;
	if (sph_scene_column_parse("martin-moyce", &o->dam_col, err, errlen) != 0 ||
	    sph_scene_column_parse(SPH_PHYSICS_REST_COLUMN, &o->rest_col, err, errlen) != 0 ||
	    phys_parse_leak_columns(SPH_PHYSICS_LEAK_COLUMNS, o, err, errlen) != CLI_OK)
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
			o->leak = strcmp(optarg, "leak") == 0 || strcmp(optarg, "all") == 0;
			if (!o->dambreak && !o->rest && !o->leak) {
				snprintf(err, errlen, "unknown check '%s' (dambreak, rest, leak or all)",
					 optarg);
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
		case OPT_LEAK_COLUMNS: rc = phys_parse_leak_columns(optarg, o, err, errlen); break;
		case OPT_LEAK_SECONDS:
			rc = cli_parse_double("--leak-seconds", optarg, SPH_PHYSICS_LEAK_MIN_S, 60,
					      &o->leak_s, err, errlen);
			break;
		case OPT_WALL_LAYERS: {
			double l;
			rc = cli_parse_double("--wall-layers", optarg, 1, SPH_REF_MAX_LAYERS, &l, err,
					      errlen);
			if (rc == CLI_OK && l != floor(l)) {
				snprintf(err, errlen, "--wall-layers: '%s' is not a whole number", optarg);
				rc = CLI_USAGE;
			}
			o->layers = (int)l;
			break;
		}
		case OPT_LID: o->lid = 1; break;
		case OPT_NO_LID: o->lid = -1; break;
		case OPT_WALL_HEIGHT:
			rc = cli_parse_double("--wall-height", optarg, 1, SPH_SCENE_MAX_TOP, &o->top, err,
					      errlen);
			break;
		case OPT_SEED: rc = cli_parse_u64("--seed", optarg, &o->seed, err, errlen); break;
		case OPT_CFL:
			rc = cli_parse_double("--cfl", optarg, 0.01, 0.5, &o->cfl, err, errlen);
			break;
		case OPT_FRICTION:
			rc = cli_parse_double("--wall-friction", optarg, 0, 10, &o->friction, err, errlen);
			break;
		case OPT_GPU: rc = cli_parse_gpu(optarg, &o->gpu, err, errlen); break;
		case OPT_CHECKPOINT: o->checkpoint = optarg; break;
		case OPT_RESTART: o->restart = optarg; break;
		case OPT_TRACE: o->trace = true; break;
		case OPT_CHECKPOINT_EVERY: rc = phys_parse_every(optarg, o, err, errlen); break;
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
	/* --wall-layers applies to every column the checks build */
	o->dam_col.layers = o->rest_col.layers = o->layers;
	o->dam_col.lid = o->rest_col.lid = o->lid;
	o->dam_col.top = o->top;
	for (size_t c = 0; c < o->nleak; c++) {
		o->leak_cols[c].layers = o->layers;
		o->leak_cols[c].lid = o->lid;
		o->leak_cols[c].top = o->top;
	}
	return rc;
}

/* The judged rows of the first nrows of rs, worst first per quantity,
 * as a short table. */
/* The trace value of quantity q on column at time t (NAN when none). */
static double phys_trace_at(const struct phys_rows *rs, size_t nrows, const char *column,
			    const char *q, double t)
{
	for (size_t r = 0; r < nrows; r++)
		if (rs->r[r].t == t && strcmp(rs->r[r].quantity, q) == 0 &&
		    strcmp(rs->r[r].column, column) == 0)
			return rs->r[r].sim;
	return NAN;
}

/* With --trace: the look of column whose fastest particle had the
 * largest CFL number, that particle closely. */
static void phys_print_trace(const struct phys_rows *rs, size_t nrows, const char *column)
{
	const struct phys_row *worst = NULL;
	for (size_t r = 0; r < nrows; r++)
		if (strcmp(rs->r[r].quantity, "trace_cfl_number") == 0 &&
		    strcmp(rs->r[r].column, column) == 0 && (!worst || rs->r[r].sim > worst->sim))
			worst = &rs->r[r];
	if (!worst)
		return;
	const double t = worst->t;
#define TR(q) phys_trace_at(rs, nrows, column, "trace_" q, t)
	const int dom = (int)TR("dominant");
	static const char *const near[4] = { "in the bulk", "at a wall", "at an edge", "in a corner" };
	const int wn = (int)TR("walls_near");
	printf("%-20s %-18s its fastest particle at %.3f s (CFL %.3f): particle %.0f at (%.4f, %.4f, "
	       "%.4f) m, %.2f m/s, %s (%.2f h from the box's face), nearest fluid %.2f h and "
	       "boundary %.2f h, %.0f fluid and %.0f boundary neighbours, rho / rho0 %.3f; "
	       "acceleration %.4g m/s^2 (variant %.4g), mostly %s (%.4g)\n",
	       "trace", column, t, worst->sim, TR("particle"), TR("x"), TR("y"), TR("z"), TR("speed"),
	       wn >= 0 && wn <= 3 ? near[wn] : "?", TR("wall_h"), TR("fluid_h"), TR("boundary_h"),
	       TR("fluid_neighbours"), TR("boundary_neighbours"), TR("density"),
	       TR("acc_reference"), TR("acc_variant"),
	       dom >= 0 && dom < SPH_TRACE_TERMS ? sph_trace_term_names[dom] : "?",
	       dom >= 0 && dom < SPH_TRACE_TERMS
		       ? phys_trace_at(rs, nrows, column, trace_curve_names[TRACE_ACC + dom], t)
		       : NAN);
#undef TR
}

static void phys_print(const struct phys_rows *rs, size_t nrows)
{
	static const char *const qs[] = { "surge_front", "surge_speed", "residual_height",
					  "rest_height", "rest_density_bulk", "rest_density_max" };
	printf("%-20s %-18s %7s %9s %9s %9s %6s %s\n", "check", "quantity", "judged", "worst_T/t",
	       "rel_err", "tol", "pass", "clamps");
	for (size_t q = 0; q < sizeof qs / sizeof qs[0]; q++) {
		const struct phys_row *worst = NULL;
		size_t judged = 0, failed = 0;
		for (size_t r = 0; r < nrows; r++) {
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
		char at[32];
		double wt = isnan(worst->T) ? worst->t : worst->T;
		if (isnan(wt)) /* the speed: a window of T */
			snprintf(at, sizeof at, "%g-%g", SPH_PHYSICS_SPEED_T_LO, SPH_PHYSICS_T_HI);
		else
			snprintf(at, sizeof at, "%.3g", wt);
		printf("%-20s %-18s %7zu %9s %+9.4f %9.2f %6s %llu\n", worst->check, qs[q], judged, at,
		       worst->rel, worst->tol, failed ? "FAIL" : "ok", worst->clamps);
	}
	/* a leak column's four rows, in phys_leak's order */
	for (size_t r = 0; r + 3 < nrows; r++) {
		const struct phys_row *c = &rs->r[r], *o = c + 1, *cf = c + 2, *fo = c + 3;
		if (strcmp(c->quantity, "leak_clamps") != 0)
			continue;
		printf("%-20s %-18s %.1f s of flow: %.0f coordinates clamped, at most %.0f particles "
		       "outside the box; at the looks, CFL number %.3f (limit %.2f), force number "
		       "%.3f (limit %.2f): %s\n",
		       "leak", c->column, c->t, c->sim, o->sim, cf->sim, SPH_PHYSICS_CFL_LIMIT, fo->sim,
		       SPH_PHYSICS_FORCE_LIMIT,
		       c->pass && o->pass && cf->pass && fo->pass ? "ok" : "FAIL");
		phys_print_trace(rs, nrows, c->column);
	}
}

/* Prints (unless quiet) and writes the first nrows rows of rs to out,
 * with inc for an interrupted run (NULL: a whole one). 0, or -1 with err. */
static int phys_write(int argc, char **argv, const struct phys_rows *rs, size_t nrows, const char *out,
		      bool quiet, const struct results_incomplete *inc, char *err, size_t errlen)
{
	if (!quiet)
		phys_print(rs, nrows);
	struct results_table t = { .schema = "sph-harness-physics/1", .columns = phys_columns,
				   .ncols = PHYS_NCOLS, .nrows = nrows, .rows = rs,
				   .format = phys_format, .json = phys_json, .ctx = rs };
	struct results_meta meta = { argc, argv, NULL, NULL, 0, NULL, inc };
	return results_write_table(out, &t, &meta, err, errlen);
}

/* What an interruption of sph physics keeps (core/keep.h): the rows of
 * the checks finished, a check being the unit. */
struct phys_keep {
	struct keep k;
	int argc;
	char **argv;
	struct phys_rows *rs;
	bool quiet;
};

static void phys_keep_label(void *ctx, size_t r, char *out)
{
	const struct phys_keep *m = ctx;
	snprintf(out, KEEP_LABEL, "%s", m->rs->done[r]);
}

static int phys_keep_write(void *ctx, const struct results_incomplete *inc, char *err,
			   size_t errlen)
{
	const struct phys_keep *m = ctx;
	return phys_write(m->argc, m->argv, m->rs, m->rs->kept, m->k.out, m->quiet, inc, err, errlen);
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
	if (o.gpu >= 0 && cli_use_gpu(o.gpu, v->device == VARIANT_GPU, err, sizeof err) != CLI_OK)
		return cli_usage_error("sph physics", err);
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
	struct phys_rows rs = { .v = v, .device_name = host.cpu_model, .friction = o.friction,
				.cfl = o.cfl > 0.0 ? o.cfl : SPH_WATER_CFL };
	if (v->device == VARIANT_GPU && gpu_device_query(gpu_device_current(), &gpu) == 0)
		rs.device_name = gpu.name;
	rs.o = &o;
	phys_options_text(&o, rs.options, sizeof rs.options);
	if (o.checkpoint && atomic_path_writable(o.checkpoint, err, sizeof err) != 0)
		return cli_usage_error("sph physics", err);
	struct phys_resume resume;
	if (o.restart) {
		/* refused now, before any check runs: another binary, command,
		 * variant or options (the scene: when its check begins) */
		if (phys_resume_read(&rs, &resume, err, sizeof err) != 0 ||
		    sph_checkpoint_check(&resume.ck, o.restart, "sph physics", v->name, rs.options,
					 &resume.ck.state, err, sizeof err) != 0) {
			if (o.restart && resume.path)
				phys_resume_free(&resume);
			free(rs.r);
			free(rs.names);
			return cli_usage_error("sph physics", err);
		}
		rs.resume = &resume;
	}
	rs.ck_last_s = timing_now();
	bool all_pass = true;
	for (size_t r = 0; r < rs.n; r++) /* the restored checks' */
		if (rs.r[r].judged && !rs.r[r].pass)
			all_pass = false;
	int status = CLI_OK;
	struct progress pg;
	struct phys_keep keep = { .argc = argc, .argv = argv, .rs = &rs, .quiet = o.quiet };
	keep_init(&keep.k, out, &rs.checks_done, phys_keep_label, phys_keep_write, &keep);
	rs.keep = &keep.k;
	keep.k.unit = "check";
	progress_init(&pg, "sph physics", o.quiet);
	phys_plan(&o, &pg, &keep.k);
	interrupt_set_keeper(keep_rows, &keep.k);
	rs.pg = &pg;
	if ((o.dambreak && phys_dambreak(&o, &rs, &all_pass) != 0) ||
	    (o.rest && phys_rest(&o, &rs, &all_pass) != 0) ||
	    (o.leak && phys_leak(&o, &rs, &all_pass) != 0)) {
		progress_finish(&pg);
		interrupt_set_keeper(NULL, NULL);
		keep_free(&keep.k);
		free(rs.r);
		free(rs.names);
		if (rs.resume)
			phys_resume_free(rs.resume);
		return CLI_FAILED; /* nothing written: the run did not finish */
	}
	progress_finish(&pg);
	if (!all_pass)
		status = CLI_FAILED;
	interrupt_lock();
	keep.k.written = true;
	if (phys_write(argc, argv, &rs, rs.n, out, o.quiet, NULL, err, sizeof err) != 0) {
		fprintf(stderr, "harness: sph physics: %s\n", err);
		status = CLI_FAILED;
	} else if (!o.quiet) {
		printf("wrote %s%s\n", out, all_pass ? "" : " (a judged value is outside its bound)");
	}
	interrupt_unlock();
	interrupt_set_keeper(NULL, NULL);
	keep_free(&keep.k);
	free(rs.r);
	free(rs.names);
	if (rs.resume)
		phys_resume_free(rs.resume);
	return status;
}
