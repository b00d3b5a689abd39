/* sph_physics_run.c - the looks of an sph physics check, its checkpoints and restarts */
#define _GNU_SOURCE
#include "sph_physics_rows.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/interrupt.h"
#include "../core/timing.h"

/* The options' changes to a scene just built: the time step. */
void phys_scene_apply(const struct phys_options *o, struct sph_scene *sc)
{
	if (o->cfl > 0.0)
		sc->p.dt = o->cfl * sc->p.h / sqrt(sc->p.k);
}

/* For the line an interruption prints: check on column is under way. */
void phys_doing(const char *check, const char *column)
{
	char doing[KEEP_LABEL + 32];
	snprintf(doing, sizeof doing, "%s of %s", check, column);
	interrupt_set_doing(doing);
}

/* The check under way is finished, its rows complete: an interruption
 * from now on keeps them. label as phys_plan planned it. */
void phys_check_done(struct phys_rows *rs, const char *check, const char *column)
{
	interrupt_lock();
	rs->kept = rs->n;
	snprintf(rs->done[rs->checks_done++], KEEP_LABEL, "%s on %s", check, column);
	interrupt_unlock();
	interrupt_set_doing(NULL);
	interrupt_row_finished();
}

/* steps more of the check under way are done. */
void phys_advance(struct phys_rows *rs, long steps)
{
	rs->steps_done += steps;
	if (rs->steps_total > 0)
		progress_part(rs->pg, (double)rs->steps_done / (double)rs->steps_total);
}

struct phys_row *phys_add(struct phys_rows *rs)
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
int phys_add_judged(struct phys_rows *rs, const struct phys_row *proto, const char *quantity,
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


/* ---- checkpoints ----------------------------------------------------------- */

/* The options that change what sph physics computes, as text: a
 * checkpoint goes on only under the same (sph_checkpoint_check). */
void phys_options_text(const struct phys_options *o, char *out, size_t len)
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
int phys_resume_read(struct phys_rows *rs, struct phys_resume *res, char *err, size_t errlen)
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

void phys_resume_free(struct phys_resume *res)
{
	for (size_t q = 0; q < res->nser; q++)
		free(res->ser[q]);
	sph_checkpoint_free(&res->ck);
}

/* Whether check is before the restart's: finished, its rows restored. */
bool phys_restored(const struct phys_rows *rs, int check)
{
	return rs->resume && check < rs->resume->check;
}

/* The check under way starts on sc, built from col and not yet changed
 * (water at rest relaxes it first): what its checkpoints say of its
 * scene. */
void phys_begin(struct phys_rows *rs, const struct sph_column *col, const struct sph_scene *sc)
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
int phys_run(struct phys_rows *rs, const struct sph_scene *sc, long every, size_t samples,
	     phys_sample_fn fn, void *arg, struct phys_series *ser, unsigned long long *clamps)
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
