/* sph_window.c - the timed window of bin/harness sph (the state kept, replayed and hashed) and the moments of the flow a row is timed at */
#define _GNU_SOURCE
#include "sph_window.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../reference/sph_scene.h"
#include "../../variants/sph_registry.h"
#include "../core/keep.h"
#include "../cli.h"
#include "../core/progress.h"
#include "../core/repetitions.h"
#include "../render/render_run.h"
#include "../core/results.h"
#include "sph_flow.h"
#include "sph_validate.h"
#include "../core/testhook.h"
#include "../core/timing.h"
#include "sph_row.h"

/*
 * The timed window: every call starts a fresh context of the variant from
 * the state kept after the warm-up and validation (kept: its positions and
 * velocities, read back bit for bit, and the walls) and runs the same
 * window steps, so every sample does the same work whatever the flow's
 * own cost does over time. Starting the context is not timed; the window
 * is, by the variant's phase times. The positions and velocities each
 * window ends on are hashed and must be the first window's, bit for bit:
 * a window that ended elsewhere fails the row.
 */
struct sph_window {
	const struct sph_ops *ops;
	const struct sph_params *p;
	const struct sph_input *kept;
	int steps;               /* of a window */
	int drift;               /* the test hook's planted drift (testhook.h); 0 */
	void *ctx;               /* the last window's, NULL before the first */
	float *pos4, *vel4;      /* 4n each: the state a window ended on */
	bool hashed;
	uint64_t fnv1a64;        /* of the first window's end */
	unsigned long long clamps; /* in a window (the last one's) */
	struct sph_phase_times *ph;
	long long *ph_steps;
	char err[256];
};

/* The hash of what a window ended on: positions then velocities, as bytes. */
static uint64_t sph_window_hash(const float *pos4, const float *vel4, size_t n)
{
	uint64_t h[2] = { results_fnv1a64(pos4, 4 * n * sizeof *pos4),
			  results_fnv1a64(vel4, 4 * n * sizeof *vel4) };
	return results_fnv1a64(h, sizeof h);
}

/* One window from the kept state (sph_window). 0, or -1 with w->err. */
static int sph_window_one(struct sph_window *w, double *seconds)
{
	struct sph_phase_times ph = { 0 }, ignored = { 0 };
	struct sph_counts c;
	if (w->ctx && w->drift > 0) {
		/* the planted fault (testhook.h): the flow goes on */
		if (w->ops->steps(w->ctx, w->drift, &ignored) != 0) {
			snprintf(w->err, sizeof w->err, "%s", w->ops->error(w->ctx));
			return -1;
		}
	} else {
		if (w->ctx)
			w->ops->destroy(w->ctx);
		w->ctx = NULL;
		if (w->ops->create(&w->ctx, w->kept, w->p, w->err, sizeof w->err) != 0)
			return -1;
	}
	if (w->ops->steps(w->ctx, w->steps, &ph) != 0 ||
	    w->ops->read(w->ctx, w->pos4, w->vel4, NULL, NULL) != 0) {
		snprintf(w->err, sizeof w->err, "%s", w->ops->error(w->ctx));
		return -1;
	}
	const uint64_t h = sph_window_hash(w->pos4, w->vel4, w->kept->n);
	if (w->hashed && h != w->fnv1a64) {
		snprintf(w->err, sizeof w->err,
			 "a window of %d steps from the kept state ended on other positions or "
			 "velocities than the first one (fnv1a64 %016llx, not %016llx): the samples "
			 "would not time the same work",
			 w->steps, (unsigned long long)h, (unsigned long long)w->fnv1a64);
		return -1;
	}
	w->hashed = true;
	w->fnv1a64 = h;
	w->ops->counts(w->ctx, &c);
	w->clamps = c.clamps;
	*seconds += ph.build_s + ph.density_s + ph.force_s + ph.integrate_s;
	w->ph->build_s += ph.build_s;
	w->ph->density_s += ph.density_s;
	w->ph->force_s += ph.force_s;
	w->ph->integrate_s += ph.integrate_s;
	*w->ph_steps += w->steps;
	return 0;
}

/* timing_fn: reps windows; a call's seconds are its windows' phase times
 * (CUDA events on a GPU, the wall clock on the CPU). */
static int sph_window_calls(void *arg, int reps, double *seconds)
{
	*seconds = 0;
	for (int r = 0; r < reps; r++)
		if (sph_window_one(arg, seconds) != 0)
			return -1;
	return 0;
}

/* The steps of v's timed window: --window-steps, else its registry
 * line's, else its device's. */
int sph_window_steps(const struct sph_options *o, const struct sph_variant *v)
{
	return o->window_steps   ? o->window_steps
	       : v->window_steps ? v->window_steps
	       : v->device == VARIANT_GPU ? SPH_RUN_WINDOW_GPU : SPH_RUN_WINDOW_CPU;
}

/* The rendering pipeline on row's variant (render_run.h): what = its
 * validation (after the physics validation), with its timing or not.
 * 0, or -1 with one line (the row has failed). */
static int sph_render_step(const struct sph_options *o, struct sph_row *row,
			   const struct sph_params *p, void *ctx, int what)
{
	char err[256];
	struct render_run_opts ro = o->ro;
	ro.slowdown = testhook_slowdown(row->v->name);
	if (render_run(row->v->ops, ctx, row->v->device == VARIANT_GPU, p, row->n, &ro, what,
		       &row->r, err, sizeof err) != 0) {
		fprintf(stderr, "harness: sph: rendering %s on %s failed: %s\n", row->v->name,
			row->col.name, err);
		return -1;
	}
	if (!row->r.valid) {
		fprintf(stderr,
			"harness: sph: %s on %s FAILED rendering validation: surface %zu mismatches (%zu borderline), field %.2f of its bound (%zu max mismatches, %zu non-finite), image PSNR %.1f dB (min %.0f), against converged %.1f dB (min %.0f) and holes %.2f %% (max %.0f %%)\n",
			row->v->name, row->col.name, row->r.surface.mismatches,
			row->r.surface.borderline, row->r.field.worst_ratio,
			row->r.field.max_mismatches, row->r.field.nonfinite, row->r.image.psnr_db,
			RENDER_VALIDATE_PSNR_DB, row->r.converge.psnr_db, RENDER_CONVERGE_PSNR_DB,
			100.0 * row->r.converge.holes.share, 100.0 * RENDER_CONVERGE_HOLES);
		return -1;
	}
	return 0;
}

/* The registry's test hook (sph_variant_planted_drop_wall): a copy of the
 * scene's nb boundary particles less the one nearest fluid particle 0,
 * nb - 1 of them. Returns the copy (caller frees), or NULL when out of
 * memory. */
static float *sph_plant_drop_wall(const struct sph_scene *sc)
{
	float *copy = malloc((sc->nb ? 4 * sc->nb : 1) * sizeof(float));
	size_t near = 0;
	double best = HUGE_VAL;
	if (!copy)
		return NULL;
	for (size_t b = 0; b < sc->nb; b++) {
		double d2 = 0;
		for (int c = 0; c < 3; c++)
			d2 += ((double)sc->bnd4[4 * b + c] - sc->pos4[c]) *
			      ((double)sc->bnd4[4 * b + c] - sc->pos4[c]);
		if (d2 < best)
			best = d2, near = b;
	}
	memcpy(copy, sc->bnd4, 4 * near * sizeof(float));
	if (sc->nb > near + 1)
		memcpy(copy + 4 * near, sc->bnd4 + 4 * (near + 1),
		       4 * (sc->nb - near - 1) * sizeof(float));
	return copy;
}

/* Seconds one particle's step takes, roughly: the scale of the predicted
 * costs (the progress estimate corrects it by what the rows took). */
#define SPH_RUN_CPU_STEP 1e-6
#define SPH_RUN_GPU_STEP 5e-9

/* Predicted seconds of the row of v on col, by stage: the scene (first:
 * the column's first row, which builds it), reading the flow's state and
 * one evaluation (the states themselves: sph_states_cost), the double
 * reference, and for run the timing (repetitions_predict), and
 * --max-time twice again for the rendering's validation and timing. */
struct sph_cost sph_row_costs(const struct sph_options *o, const struct sph_variant *v,
			      const struct sph_column *col, bool first)
{
	double n = (double)sph_scene_particles(col->nx, col->ny, col->nz);
	double step = n * (v->device == VARIANT_GPU ? SPH_RUN_GPU_STEP : SPH_RUN_CPU_STEP);
	struct sph_cost c = { { 0 } };
	c.stage[SPH_STAGE_SETUP] = 0.01 + (first ? n * SPH_RUN_CPU_STEP : 0);
	c.stage[SPH_STAGE_WARM] = step + n * SPH_RUN_CPU_STEP / 8;
	c.stage[SPH_STAGE_REFERENCE] = 2 * n * SPH_RUN_CPU_STEP;
	if (o->cmd == SPH_RUN) {
		double limit = o->timing.max_time > o->timing.min_time ? o->timing.max_time
								       : o->timing.min_time;
		/* a call: a window, and a context started from the kept state */
		c.stage[SPH_STAGE_TIMING] =
			repetitions_predict(&o->timing, sph_window_steps(o, v) * step +
							       n * SPH_RUN_CPU_STEP / 8);
		if (o->render)
			c.stage[SPH_STAGE_RENDER] = 2 * limit;
	}
	return c;
}

/* The predicted seconds of the stages before stage upto and of it. */
static double sph_cost_upto(const struct sph_cost *c, enum sph_stage upto)
{
	double s = 0;
	for (int k = 0; k <= (int)upto; k++)
		s += c->stage[k];
	return s;
}

double sph_cost_total(const struct sph_cost *c)
{
	return sph_cost_upto(c, SPH_STAGES - 1);
}

/* Predicted seconds of the row of v on col (sph_row_costs, added up). */
static double sph_row_cost(const struct sph_options *o, const struct sph_variant *v,
			   const struct sph_column *col, bool first)
{
	struct sph_cost c = sph_row_costs(o, v, col, first);
	return sph_cost_total(&c);
}

/* On pg: stage done of a row with predicted stages c, so the part of it
 * done is the stages up to that one. */
static void sph_row_part(struct progress *pg, const struct sph_cost *c, enum sph_stage done)
{
	double total = sph_cost_total(c);
	if (total > 0)
		progress_part(pg, sph_cost_upto(c, done) / total);
}

/* Whether the variant holds the state it was created from: its positions
 * and velocities read back (x, y, z; the fourth float is the variant's)
 * are the state's, bit for bit. */
static bool sph_holds_state(const float *pos4, const float *vel4, const float *sp4,
			    const float *sv4, size_t n)
{
	for (size_t i = 0; i < 4 * n; i++)
		if (i % 4 != 3 && (memcmp(&pos4[i], &sp4[i], sizeof *pos4) != 0 ||
				   memcmp(&vel4[i], &sv4[i], sizeof *vel4) != 0))
			return false;
	return true;
}

/* The state of the flow at the row's moment (fs), validation of the
 * variant started from it, then (run) timing, each stage reported on pg
 * as a part of the row's predicted cost c. Returns CLI_OK, or CLI_FAILED
 * when the variant failed or is invalid. */
int sph_measure(const struct sph_options *o, const struct sph_scene *sc,
		const struct sph_flow_states *fs, struct sph_row *row,
		const struct sph_cost *c, struct progress *pg)
{
	const struct sph_params *p = &sc->p;
	const struct sph_ops *ops = row->v->ops;
	size_t n = row->n;
	char err[512];
	void *ctx = NULL;
	int status = CLI_FAILED;
	const size_t n4 = 4 * (n ? n : 1) * sizeof(float);
	float *sp = malloc(n4), *sv = malloc(n4); /* the state */
	float *rp = malloc(n4), *rv = malloc(n4), *ra = malloc(n4);
	float *rr = malloc((n ? n : 1) * sizeof(float));
	const bool planted = sph_variant_planted_drop_wall(row->v) && sc->nb > 0;
	float *walls = planted ? sph_plant_drop_wall(sc) : NULL;
	struct sph_state_meta sm;
	if (!sp || !sv || !rp || !rv || !rr || !ra || (planted && !walls)) {
		fprintf(stderr, "harness: sph: out of memory for %zu particles\n", n);
		goto out_free;
	}
	if (sph_flow_load(fs, (unsigned long)row->warm_steps, sp, sv, &sm, err, sizeof err) != 0) {
		fprintf(stderr, "harness: sph: %s on %s: %s\n", row->v->name, row->col.name, err);
		goto out_free;
	}
	row->state_fnv1a64 = sm.payload_fnv;
	row->state_by = fs->producer->name;
	row->state_clamps = sm.clamps;
	row->state_reused = fs->reused;
	const struct sph_input in = { n, sp, sv, planted ? sc->nb - 1 : sc->nb,
				      planted ? walls : sc->bnd4 };
	if (ops->create(&ctx, &in, p, err, sizeof err) != 0) {
		fprintf(stderr, "harness: sph: %s on %s: %s\n", row->v->name, row->col.name, err);
		goto out_free;
	}
	sph_row_part(pg, c, SPH_STAGE_SETUP);
	if (ops->evaluate(ctx, 1) != 0 || ops->read(ctx, rp, rv, rr, ra) != 0) {
		fprintf(stderr, "harness: sph: %s on %s failed: %s\n", row->v->name, row->col.name,
			ops->error(ctx));
		goto out_destroy;
	}
	if (!sph_holds_state(rp, rv, sp, sv, n)) {
		fprintf(stderr, "harness: sph: %s on %s FAILED: created from the flow's state at "
			"step %d, it reads back other positions or velocities\n", row->v->name,
			row->col.name, row->warm_steps);
		goto out_destroy;
	}
	sph_row_part(pg, c, SPH_STAGE_WARM);
	ops->counts(ctx, &row->counts);
	if (sph_validate(p, rp, rv, rr, ra, n, sc->bnd4, sc->nb, &row->counts, &row->val) != 0) {
		fprintf(stderr, "harness: sph: the reference could not evaluate %s's state\n", row->v->name);
		goto out_destroy;
	}
	sph_row_part(pg, c, SPH_STAGE_REFERENCE);
	if (!row->val.pass) {
		fprintf(stderr,
			"harness: sph: %s on %s FAILED validation: rho_err %.3e (tol %.0e) at %zu, acc_err %.3e (tol %.0e) at %zu, pairs %llu vs %llu (+-%llu near h)%s\n",
			row->v->name, row->col.name, row->val.rho_err, SPH_VALIDATE_RHO_TOL,
			row->val.worst_rho, row->val.acc_err, SPH_VALIDATE_ACC_TOL, row->val.worst_acc,
			row->val.var_pairs, row->val.ref_pairs, row->val.near_h,
			row->val.overflow ? ", a bucket overflowed" : "");
		goto out_destroy;
	}
	/* the rendering pipeline validated on the same state as the physics,
	 * and timed from it: every variant's frames are the same stretch of
	 * flow (render_run.h) */
	if (o->render &&
	    sph_render_step(o, row, p, ctx,
			    RENDER_RUN_VALIDATE | (o->cmd == SPH_RUN ? RENDER_RUN_TIME : 0)) != 0)
		goto out_destroy;
	if (o->render)
		sph_row_part(pg, c, SPH_STAGE_RENDER);
	status = CLI_OK;
	struct sph_counts after;
	ops->counts(ctx, &after);
	/* the flow's clamps up to the moment, then the variant's own */
	row->clamps = sm.clamps + after.clamps;
	/* its memory back before the windows' contexts take theirs */
	ops->destroy(ctx);
	ctx = NULL;
	if (o->cmd == SPH_RUN) {
		/* the kept state: the flow's, which was validated, not what
		 * the rendering's frames moved ctx to */
		const struct sph_input kept = { n, sp, sv, in.nb, in.bnd4 };
		struct sph_window w = { .ops = ops, .p = p, .kept = &kept,
					.steps = row->window_steps, .pos4 = rp, .vel4 = rv,
					.drift = testhook_drift(row->v->name),
					.ph = &row->ph, .ph_steps = &row->ph_steps };
		struct timing_opts topt = o->timing;
		topt.slowdown = testhook_slowdown(row->v->name);
		topt.test_work = testhook_work(row->v->name);
		if (repetitions_measure(sph_window_calls, &w, &topt, &row->t) != 0) {
			fprintf(stderr, "harness: sph: timing %s on %s failed: %s\n", row->v->name,
				row->col.name, w.err);
			status = CLI_FAILED;
		} else {
			/* a sample's figure is seconds per step */
			timing_result_per(&row->t, row->window_steps);
		}
		if (w.ctx)
			ops->destroy(w.ctx);
		row->timed = status == CLI_OK;
		row->window_fnv1a64 = w.fnv1a64;
		row->clamps += w.clamps;
	}
out_destroy:
	if (ctx)
		ops->destroy(ctx);
out_free:
	free(walls);
	free(sp);
	free(sv);
	free(rp);
	free(rv);
	free(rr);
	free(ra);
	return status;
}

/* The steps of --warm-steps' moments on column col (seconds of flow in
 * its time step). 0, or -1 with one line in err. */
int sph_warm_steps(const struct sph_options *o, const struct sph_column *col,
		   unsigned long warm[CLI_MAX_MOMENTS], char *err, size_t errlen)
{
	struct sph_params p;
	sph_scene_box(col, &p);
	return cli_moments_steps("--warm-steps", &o->warm, p.dt, SPH_RUN_MAX_WARM, false, warm, err,
				 errlen);
}

/* A row's label, in the plan, the progress, the sidecar and compare's
 * list of rows never run: "sph-gpu-verlet on 255600 at step 20", or
 * for the row of the whole flow "sph-gpu-verlet on 255600 over steps 20
 * to 8929". */
void sph_row_label(const char *variant, const char *column, unsigned long warm,
		   unsigned long flow_to, char *out, size_t len)
{
	if (flow_to)
		snprintf(out, len, "%s on %s over steps %lu to %lu", variant, column, warm, flow_to);
	else
		snprintf(out, len, "%s on %s at step %lu", variant, column, warm);
}

/* The first and last of the moments warm (o->warm.n of them) when they
 * make a row of the whole flow: a timed run of two or more distinct
 * moments. Else false. */
bool sph_flow_planned(const struct sph_options *o, const unsigned long *warm,
		      unsigned long *lo, unsigned long *hi)
{
	if (o->cmd != SPH_RUN || o->warm.n < 2)
		return false;
	*lo = *hi = warm[0];
	for (size_t m = 0; m < o->warm.n; m++) {
		for (size_t q = 0; q < m; q++)
			if (warm[q] == warm[m])
				return false;
		*lo = warm[m] < *lo ? warm[m] : *lo;
		*hi = warm[m] > *hi ? warm[m] : *hi;
	}
	return true;
}

/* The last of the moments warm (o->warm.n of them). */
static unsigned long sph_last_moment(const struct sph_options *o, const unsigned long *warm)
{
	unsigned long last = 0;
	for (size_t m = 0; m < o->warm.n; m++)
		last = warm[m] > last ? warm[m] : last;
	return last;
}

/* The progress class of making the flow's states (after the variants'). */
#define SPH_RUN_STATES_CLASS ((int)SPH_VARIANT_COUNT)

/* Predicted seconds of making col's states to step last. */
static double sph_states_cost(const struct sph_column *col, unsigned long last)
{
	const struct sph_variant *v = sph_flow_producer();
	const double n = (double)sph_scene_particles(col->nx, col->ny, col->nz);
	return 0.01 + (double)last * n *
			      (v && v->device == VARIANT_GPU ? SPH_RUN_GPU_STEP : SPH_RUN_CPU_STEP);
}

/* The variants of o that run here, on every column, planned on pg and
 * by label on keep (either may be NULL): each column's states, then its
 * rows, a row of the whole flow after each variant's moments. */
void sph_plan(const struct sph_options *o, struct progress *pg, struct keep *keep)
{
	for (size_t k = 0; k < o->ncolumns; k++) {
		unsigned long warm[CLI_MAX_MOMENTS], lo, hi;
		char err[256], label[KEEP_LABEL];
		const struct sph_column *col = &o->columns[k];
		if (sph_warm_steps(o, col, warm, err, sizeof err) != 0)
			continue;
		const bool flow = sph_flow_planned(o, warm, &lo, &hi);
		bool states = false;
		for (size_t i = 0, first = 1; i < SPH_VARIANT_COUNT; i++) {
			if (!sph_wants(o, i) || !sph_variant_available(&sph_variants[i], NULL))
				continue;
			if (!states && pg)
				progress_plan(pg, sph_states_cost(col, sph_last_moment(o, warm)),
					      SPH_RUN_STATES_CLASS);
			states = true;
			for (size_t m = 0; m < o->warm.n; m++) {
				if (pg)
					progress_plan(pg, sph_row_cost(o, &sph_variants[i], col, first),
						      (int)i);
				sph_row_label(sph_variants[i].name, col->name, warm[m], 0, label,
					      sizeof label);
				keep_plan(keep, "%s", label);
				first = 0;
			}
			if (flow) {
				sph_row_label(sph_variants[i].name, col->name, lo, hi, label, sizeof label);
				keep_plan(keep, "%s", label);
			}
		}
	}
}

/* Every column of o: against this machine's memory (sph_run_check_memory),
 * and its --warm-steps in its time step (sph_warm_steps). */
int sph_check_columns(const struct sph_options *o, char *err, size_t errlen)
{
	unsigned long warm[CLI_MAX_MOMENTS];
	for (size_t k = 0; k < o->ncolumns; k++)
		if (sph_run_check_memory(&o->columns[k], err, errlen) != 0 ||
		    sph_warm_steps(o, &o->columns[k], warm, err, errlen) != 0)
			return -1;
	return 0;
}

/*
 * The flow's states this process has made, kept for the rest of it: a
 * suite's lines, and the suites of --suite all, that time the same
 * column at the same moments read them again instead of making them anew.
 */
#define SPH_RUN_STATE_CACHE 32
static struct sph_flow_states sph_state_cache[SPH_RUN_STATE_CACHE];
static size_t sph_state_cached, sph_state_next;

/* Whether fs holds the states of col and seed at exactly the distinct
 * steps of warm (o->warm.n of them) made by producer. */
static bool sph_states_match(const struct sph_flow_states *fs, const struct sph_column *col,
			     uint64_t seed, const unsigned long *warm, size_t nwarm,
			     const struct sph_variant *producer)
{
	if (fs->k == 0 || fs->producer != producer || fs->meta[0].seed != seed)
		return false;
	const struct sph_column *c = &fs->meta[0].col;
	if (strcmp(c->name, col->name) != 0 || c->nx != col->nx || c->ny != col->ny ||
	    c->nz != col->nz || c->tank != col->tank || c->jitter != col->jitter ||
	    c->layers != col->layers || c->lid != col->lid || c->top != col->top)
		return false;
	size_t distinct = 0;
	for (size_t m = 0; m < nwarm; m++) {
		bool repeat = false, held = false;
		for (size_t q = 0; q < m; q++)
			repeat = repeat || warm[q] == warm[m];
		for (size_t i = 0; i < fs->k; i++)
			held = held || fs->step[i] == warm[m];
		if (!held)
			return false;
		distinct += !repeat;
	}
	return distinct == fs->k;
}

/* The states of col's flow (scene sc) at the moments warm, made by the
 * producer once per process (sph_state_cache) as a progress item of its
 * own; NULL with one line in err. */
const struct sph_flow_states *sph_states_of(const struct sph_options *o,
					    const struct sph_column *col,
					    const struct sph_scene *sc,
					    const unsigned long *warm, struct progress *pg,
					    char *err, size_t errlen)
{
	const struct sph_variant *producer = sph_flow_producer();
	if (!producer) {
		snprintf(err, errlen, "no variant that can make the flow's states runs here");
		return NULL;
	}
	progress_begin(pg, sph_states_cost(col, sph_last_moment(o, warm)), SPH_RUN_STATES_CLASS,
		       "the flow of %s to step %lu, by %s", col->name, sph_last_moment(o, warm),
		       producer->name);
	for (size_t c = 0; c < sph_state_cached; c++)
		if (sph_states_match(&sph_state_cache[c], col, o->seed, warm, o->warm.n, producer)) {
			progress_end(pg);
			return &sph_state_cache[c];
		}
	struct sph_flow_states *fs = &sph_state_cache[sph_state_next];
	sph_flow_states_free(fs);
	const int rc = sph_flow_produce(fs, producer, col, o->seed, sc, warm, o->warm.n,
					o->states_dir, pg, err, errlen);
	progress_end(pg);
	if (rc != 0)
		return NULL;
	sph_state_next = (sph_state_next + 1) % SPH_RUN_STATE_CACHE;
	sph_state_cached += sph_state_cached < SPH_RUN_STATE_CACHE;
	return fs;
}

/* The rendering of the whole flow from its moments' rows m (in order),
 * weighted as their steps are (sph_flow_combine): each stage's ms a frame
 * and the frames' spread; done, valid and timed when every moment's is. */
static void sph_flow_render(const struct sph_row *m, const size_t *order, size_t count,
			    const double *w, struct render_run_result *out)
{
	struct sph_flow_timing t[CLI_MAX_MOMENTS], f;
	const struct render_run_result *first = &m[order[0]].r;
	memset(out, 0, sizeof *out);
	out->done = out->valid = out->timed = true;
	for (size_t i = 0; i < count; i++) {
		const struct render_run_result *r = &m[order[i]].r;
		out->done = out->done && r->done;
		out->valid = out->valid && r->valid;
		out->timed = out->timed && r->timed;
		out->frames += r->frames;
		const double frame = r->extraction_s + r->field_s + r->raycast_s;
		t[i] = (struct sph_flow_timing){ frame, frame, frame, r->frame_noise_pct,
						 { r->extraction_s, r->field_s, r->raycast_s, 0 } };
	}
	out->shading = first->shading;
	out->width = first->width;
	out->height = first->height;
	out->res = first->res;
	if (!out->done || !out->timed)
		return;
	sph_flow_combine(t, w, count, &f);
	out->extraction_s = f.phase_ms[0];
	out->field_s = f.phase_ms[1];
	out->raycast_s = f.phase_ms[2];
	out->frame_noise_pct = f.noise_pct;
}

/* The row of the whole flow of the moment rows m[0..count) (all of one
 * variant and column, at distinct steps) into *out (sph_flow.h): valid
 * and timed when every moment is. */
void sph_flow_row(const struct sph_row *m, size_t count, struct sph_row *out)
{
	unsigned long steps[CLI_MAX_MOMENTS];
	double w[CLI_MAX_MOMENTS];
	struct sph_flow_timing t[CLI_MAX_MOMENTS], f;
	size_t order[CLI_MAX_MOMENTS];
	for (size_t i = 0; i < count; i++) {
		size_t at = i;
		while (at > 0 && m[order[at - 1]].warm_steps > m[i].warm_steps) {
			order[at] = order[at - 1];
			at--;
		}
		order[at] = i;
	}
	*out = m[order[0]];
	memset(&out->t, 0, sizeof out->t);
	memset(&out->ph, 0, sizeof out->ph);
	memset(&out->r, 0, sizeof out->r);
	out->ph_steps = 0;
	out->flow_to = (unsigned long)m[order[count - 1]].warm_steps;
	out->timed = true;
	out->t.noise_met = true;
	for (size_t i = 0; i < count; i++) {
		const struct sph_row *r = &m[order[i]];
		steps[i] = (unsigned long)r->warm_steps;
		out->val.pass = out->val.pass && r->val.pass;
		out->val.rho_err = fmax(out->val.rho_err, r->val.rho_err);
		out->val.acc_err = fmax(out->val.acc_err, r->val.acc_err);
		out->clamps = r->clamps > out->clamps ? r->clamps : out->clamps;
		if (r->counts.aux_bytes > out->counts.aux_bytes)
			out->counts.aux_bytes = r->counts.aux_bytes;
		out->timed = out->timed && r->timed;
		if (!r->timed)
			continue;
		out->t.count += r->t.count;
		out->t.noise_met = out->t.noise_met && r->t.noise_met;
		double ms[4];
		sph_row_phase_ms(r, ms);
		t[i] = (struct sph_flow_timing){ r->t.s.median, r->t.s.min, r->t.s.max,
						 100.0 * r->t.s.rel_stddev,
						 { ms[0], ms[1], ms[2], ms[3] } };
	}
	if (!out->timed || sph_flow_weights(steps, count, w) != 0) {
		out->timed = false;
		return;
	}
	sph_flow_combine(t, w, count, &f);
	out->t.s.median = f.median_s;
	out->t.s.min = f.min_s;
	out->t.s.max = f.max_s;
	out->t.s.rel_stddev = f.noise_pct / 100.0;
	memcpy(out->flow_phase_ms, f.phase_ms, sizeof f.phase_ms);
	sph_flow_render(m, order, count, w, &out->r);
}
