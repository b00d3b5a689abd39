/* ab_judge.c - an A/B run's verdicts: the pooled sides compared, each row's change and resolution from its rounds */
#include "ab_judge.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/stats.h"

/* The standard error of a median over its samples' standard deviation,
 * for many samples of a normal spread: sqrt(pi / 2). */
#define AB_JUDGE_MEDIAN_SE 1.2533

struct compare_estimate ab_judge_estimate(const double *r, const double *w, size_t n)
{
	struct compare_estimate x = { NAN, NAN, NAN, NAN };
	double *l = n >= 2 ? malloc(n * sizeof *l) : NULL, w2 = 0;
	struct stats_summary s;
	for (size_t k = 0; l && k < n; k++) {
		if (!(r[k] > 0)) {
			free(l);
			return x;
		}
		l[k] = log(r[k]);
		w2 += w[k] * w[k];
	}
	if (l && stats_summarize(l, n, &s) == 0) {
		double h = stats_t995(n - 1) * fmax(s.stddev, sqrt(w2 / (double)n)) / sqrt((double)n);
		x.ratio = exp(s.mean);
		x.resolution_pct = 100.0 * (exp(h) - 1.0);
	}
	free(l);
	return x;
}

/* Rounds from which a side of one sample a round (no spread of its own:
 * noise_pct infinite) is judged by the rounds' spread alone. A round's
 * ratio then holds that sample's noise, so the spread of three or more
 * ratios measures it; with two, t(1) and two values say too little. */
#define AB_JUDGE_ROUNDS_FOR_ONE_SAMPLE 3

/* One side's spread of its median, as a fraction: from its noise and
 * samples; 0 (nothing to add to the rounds' spread) for one sample when
 * there are enough rounds. */
static double ab_judge_side_se(const struct compare_side *s, size_t rounds)
{
	if (isinf(s->noise_pct) && rounds >= AB_JUDGE_ROUNDS_FOR_ONE_SAMPLE)
		return 0;
	double n = s->samples > 0 ? s->samples : 1;
	return AB_JUDGE_MEDIAN_SE * s->noise_pct / 100.0 / sqrt(n);
}

/* The entry of r with key k, or NULL. */
static const struct compare_entry *ab_judge_find(const struct compare_report *r,
						 const struct compare_key *k)
{
	for (size_t i = 0; i < r->count; i++) {
		const struct compare_key *x = &r->entries[i].key;
		bool eq = x->count == k->count;
		for (size_t c = 0; eq && c < k->count; c++)
			eq = strcmp(x->cells[c], k->cells[c]) == 0;
		if (eq)
			return &r->entries[i];
	}
	return NULL;
}

/* The rounds' comparisons, for the estimate callback. */
struct ab_judge_rounds {
	const struct compare_report *round;
	size_t n;
	double *r, *w;
};

/* The geometric mean of the n figures v[0..n) taken from the rounds'
 * sides: exp(mean ln v); NAN when one is not > 0. */
static double ab_judge_geomean(const double *v, size_t n)
{
	double s = 0;
	for (size_t k = 0; k < n; k++) {
		if (!(v[k] > 0))
			return NAN;
		s += log(v[k]);
	}
	return n ? exp(s / (double)n) : NAN;
}

/* The estimate of entry e from the rounds; NANs (the files' figures and
 * noise) with one round, or when a round lacks a timed pair for it (the
 * pooled row then failed and is not judged anyway). */
static struct compare_estimate ab_judge_entry_estimate(void *ctx, const struct compare_entry *e)
{
	struct ab_judge_rounds *r = ctx;
	double *b = calloc(r->n ? r->n : 1, sizeof *b), *v = calloc(r->n ? r->n : 1, sizeof *v);
	struct compare_estimate x = { NAN, NAN, NAN, NAN };
	for (size_t k = 0; b && v && k < r->n; k++) {
		const struct compare_entry *y = ab_judge_find(&r->round[k], &e->key);
		if (!y || !y->in_base || !y->in_new || y->raw.verdict == COMPARE_UNCOMPARED)
			goto out_free;
		r->r[k] = y->raw.ratio;
		b[k] = y->base.value;
		v[k] = y->new.value;
		double sb = ab_judge_side_se(&y->base, r->n), sn = ab_judge_side_se(&y->new, r->n);
		r->w[k] = sqrt(sb * sb + sn * sn);
	}
	if (b && v) {
		x = ab_judge_estimate(r->r, r->w, r->n);
		/* the sides' geometric means, whose ratio is that of the rounds */
		x.base = ab_judge_geomean(b, r->n);
		x.new = ab_judge_geomean(v, r->n);
	}
out_free:
	free(b);
	free(v);
	return x;
}

int ab_judge(const char *base_csv, const char *new_csv, const char *const *base_rounds,
	     const char *const *new_rounds, size_t nrounds, const struct compare_opts *o,
	     struct compare_report *out, char *err, size_t errlen)
{
	struct compare_report *round = calloc(nrounds ? nrounds : 1, sizeof *round);
	double *d = calloc(nrounds ? nrounds : 1, sizeof *d), *w = calloc(nrounds ? nrounds : 1, sizeof *w);
	size_t done = 0;
	int rc = -1;
	memset(out, 0, sizeof *out);
	if (!round || !d || !w) {
		snprintf(err, errlen, "out of memory judging %s against %s", new_csv, base_csv);
		goto out_free;
	}
	if (compare_files(base_csv, new_csv, o, out, err, errlen) != 0)
		goto out_free;
	if (nrounds >= 2) {
		for (; done < nrounds; done++)
			if (compare_files(base_rounds[done], new_rounds[done], o, &round[done], err, errlen) != 0)
				goto out_free;
		struct ab_judge_rounds ctx = { round, nrounds, d, w };
		char rule[512];
		snprintf(rule, sizeof rule, "the 99 %% interval of the mean of the %zu rounds' log ratios "
			 "(Student's t; at least what the rounds' samples allow, where a run has more than one "
			 "sample a row); base and new are the geometric means of the rounds' figures, "
			 "new/base their ratio, the geometric mean of the rounds' ratios", nrounds);
		compare_rejudge(out, ab_judge_entry_estimate, &ctx, rule, (int)nrounds);
	} else {
		compare_rejudge(out, ab_judge_entry_estimate, &(struct ab_judge_rounds){ NULL, 0, d, w },
				"one round: sqrt(noise_base^2 + noise_new^2), the rows' noise_pct", 1);
	}
	rc = 0;
out_free:
	for (size_t k = 0; round && k < done; k++)
		compare_report_free(&round[k]);
	if (rc != 0)
		compare_report_free(out);
	free(round);
	free(d);
	free(w);
	return rc;
}
