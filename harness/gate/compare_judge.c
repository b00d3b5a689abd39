/* compare_judge.c - compare's one rule: a pair's change against its resolution and the threshold, each joined pair judged, a report counted and its exit status */
#include "compare_judge.h"

#include <math.h>
#include <string.h>

#include "floors.h"

struct compare_judgement compare_decide(double base, double new, double resolution_pct,
					double threshold_pct, double min_change_pct)
{
	struct compare_judgement j = { COMPARE_UNCOMPARED, false, NAN, NAN, NAN };
	if (!(base > 0) || !(new > 0) || isinf(base) || isinf(new) || !(resolution_pct >= 0))
		return j;
	double u = resolution_pct, change, slowdown;
	j.ratio = new / base;
	j.resolution_pct = u;
	change = 100.0 * (j.ratio - 1.0);
	slowdown = -change;
	if (slowdown - u > threshold_pct && slowdown > min_change_pct) {
		j.verdict = COMPARE_SLOWER;
		j.regression = true;
	} else if (slowdown + u <= fmax(threshold_pct, min_change_pct)) {
		double band = fmax(u, min_change_pct);
		j.verdict = fabs(change) <= band ? COMPARE_SAME
			    : change > 0	 ? COMPARE_FASTER
						 : COMPARE_SLOWER;
	} else {
		j.verdict = COMPARE_INCONCLUSIVE;
	}
	return j;
}

/* The pair's combined noise, percent. */
static double compare_noise(double base_noise_pct, double new_noise_pct)
{
	return sqrt(base_noise_pct * base_noise_pct + new_noise_pct * new_noise_pct);
}

struct compare_judgement compare_judge(double base, double base_noise_pct, double new,
				       double new_noise_pct, double threshold_pct,
				       double min_change_pct)
{
	double noise = compare_noise(base_noise_pct, new_noise_pct);
	struct compare_judgement j = compare_decide(base, new, noise, threshold_pct, min_change_pct);
	if (j.verdict != COMPARE_UNCOMPARED)
		j.noise_pct = noise;
	return j;
}

/* The between-run floor of a pair of kind (floors.h): that of BASE's
 * device, kind and device class, in the band of the shorter of the two
 * rows' calls; NULL where none is calibrated. */
static const struct floor_class *compare_floor(const struct compare_kind *kind,
					       const struct compare_entry *e)
{
	if (strcmp(e->base.device_name, e->new.device_name) != 0)
		return NULL; /* across devices: each row's own runs are not calibrated together */
	return floors_find(e->base.device_name, kind->slug, e->base.device_class,
			   fmin(e->base.call_s, e->new.call_s));
}

/* Judges a joined pair of kind on its raw figures and, across devices, on
 * its share of each device's ceiling, with the estimate x (NAN parts: the
 * files' figures and the rows' combined noise with the between-run floor). */
void compare_judge_entry(struct compare_entry *e, const struct compare_kind *kind,
			 const struct compare_opts *o, struct compare_estimate x)
{
	if (e->untimed) {
		/* its validation alone: valid in both is the pass */
		const struct compare_judgement none = { COMPARE_UNCOMPARED, false, NAN, NAN, NAN };
		e->raw = e->ceiling = none;
		e->raw.verdict = e->base.valid && e->new.valid ? COMPARE_SAME : COMPARE_UNCOMPARED;
		e->counts_ceiling = false;
		return;
	}
	if (!isnan(x.ratio) && isfinite(x.base) && isfinite(x.new) && x.base > 0 && x.new > 0 &&
	    e->base.value > 0 && e->new.value > 0) {
		e->base.value = x.base;
		e->new.value = x.new;
	}
	const struct compare_side *b = &e->base, *v = &e->new;
	double noise = compare_noise(b->noise_pct, v->noise_pct);
	e->by_noise = isnan(x.resolution_pct);
	e->floor = e->by_noise ? compare_floor(kind, e) : NULL;
	double u = !isnan(x.resolution_pct) ? x.resolution_pct
		   : e->floor		    ? compare_noise(noise, e->floor->floor_pct)
					    : noise;
	bool given = !isnan(x.ratio) && b->value > 0 && v->value > 0;
	e->raw = compare_decide(given ? 1.0 : b->value, given ? x.ratio : v->value, u,
				o->threshold_pct, o->min_change_pct);
	e->ceiling = compare_decide(b->pct_of_ceiling, v->pct_of_ceiling, u, o->threshold_pct,
				    o->min_change_pct);
	e->raw.noise_pct = e->ceiling.noise_pct = noise;
	if (!b->valid || !v->valid || e->raw.verdict == COMPARE_UNCOMPARED) {
		e->raw.verdict = e->ceiling.verdict = COMPARE_UNCOMPARED;
		e->raw.regression = e->ceiling.regression = false;
	}
	e->counts_ceiling = o->across_devices && e->ceiling.verdict != COMPARE_UNCOMPARED;
}

/* The judgement that decides the exit status for a joined pair. */
const struct compare_judgement *compare_counting(const struct compare_entry *e)
{
	return e->counts_ceiling ? &e->ceiling : &e->raw;
}

/* Whether a side's row of e failed: invalid, or valid but not timed
 * (where e is judged by its timing). */
bool compare_side_failed(const struct compare_entry *e, const struct compare_side *s)
{
	return !s->valid || (!e->untimed && isnan(s->value));
}

static void compare_count(struct compare_report *r, const struct compare_entry *e)
{
	if (!e->in_new) {
		r->only_base++;
		return;
	}
	if (!e->in_base) {
		r->only_new++;
		r->failed_new += compare_side_failed(e, &e->new);
		return;
	}
	const struct compare_judgement *j = compare_counting(e);
	if (j->verdict == COMPARE_UNCOMPARED) {
		/* BASE's failure makes the pair uncomparable whatever NEW did */
		if (compare_side_failed(e, &e->base))
			r->uncompared++;
		else
			r->failed_new++;
		return;
	}
	if (!e->untimed && !isnan(j->resolution_pct)) {
		r->floored += e->floor != NULL;
		r->unfloored += e->floor == NULL && e->by_noise;
	}
	r->faster += j->verdict == COMPARE_FASTER;
	r->same += j->verdict == COMPARE_SAME;
	r->slower += j->verdict == COMPARE_SLOWER;
	r->inconclusive += j->verdict == COMPARE_INCONCLUSIVE;
	r->regressions += j->regression;
}

/* Counts every entry of r afresh. */
void compare_recount(struct compare_report *r)
{
	r->faster = r->same = r->slower = r->regressions = r->inconclusive = 0;
	r->only_base = r->only_new = r->failed_new = r->uncompared = 0;
	r->floored = r->unfloored = 0;
	for (size_t i = 0; i < r->count; i++)
		compare_count(r, &r->entries[i]);
}

void compare_rejudge(struct compare_report *r,
		     struct compare_estimate (*est)(void *ctx, const struct compare_entry *e),
		     void *ctx, const char *rule, int rounds)
{
	for (size_t i = 0; i < r->count; i++) {
		struct compare_entry *e = &r->entries[i];
		if (e->in_base && e->in_new)
			compare_judge_entry(e, r->kind, &r->opts, est(ctx, e));
	}
	snprintf(r->resolution_rule, sizeof r->resolution_rule, "%s", rule);
	r->rounds = rounds;
	compare_recount(r);
}

/* Rows compared: both sides there and timed, whatever the verdict. */
size_t compare_compared(const struct compare_report *r)
{
	return r->faster + r->same + r->slower + r->inconclusive;
}

int compare_exit_status(const struct compare_report *r)
{
	const struct compare_opts *o = &r->opts;
	if (r->regressions > 0 || r->failed_new > 0)
		return COMPARE_REGRESSED;
	if (compare_compared(r) == 0)
		return COMPARE_UNDECIDED;
	if (r->inconclusive > 0 && !o->allow_inconclusive)
		return COMPARE_UNDECIDED;
	if ((r->only_base > 0 || r->uncompared > 0 || r->skipped_new > 0 || r->incomplete[0] > 0 ||
	     r->incomplete[1] > 0) && !o->allow_missing)
		return COMPARE_UNDECIDED;
	return COMPARE_OK;
}
