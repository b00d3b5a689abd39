/* ab_judge.c - an A/B run's verdicts: the pooled sides compared, each row's resolution from its rounds */
#include "ab_judge.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

/* The standard error of a median over its samples' standard deviation,
 * for many samples of a normal spread: sqrt(pi / 2). */
#define AB_JUDGE_MEDIAN_SE 1.2533

double ab_judge_resolution(const double *d, const double *w, size_t r)
{
	if (r < 2)
		return NAN;
	struct stats_summary s;
	if (stats_summarize(d, r, &s) != 0)
		return NAN;
	double w2 = 0;
	for (size_t k = 0; k < r; k++)
		w2 += w[k] * w[k];
	double spread = fmax(s.stddev, sqrt(w2 / (double)r));
	return stats_t975(r - 1) * spread / sqrt((double)r);
}

/* One side's spread of its median, percent: from its noise and samples. */
static double ab_judge_side_se(const struct compare_side *s)
{
	double n = s->samples > 0 ? s->samples : 1;
	return AB_JUDGE_MEDIAN_SE * s->noise_pct / sqrt(n);
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

/* The rounds' comparisons, for the resolution callback. */
struct ab_judge_rounds {
	const struct compare_report *round;
	size_t n;
	double *d, *w;
};

/* The resolution of entry e from the rounds; NAN (compare's noise) with
 * one round, or when a round lacks a timed pair for it (the pooled row
 * then failed and is not judged anyway). */
static double ab_judge_entry_resolution(void *ctx, const struct compare_entry *e)
{
	struct ab_judge_rounds *r = ctx;
	for (size_t k = 0; k < r->n; k++) {
		const struct compare_entry *x = ab_judge_find(&r->round[k], &e->key);
		if (!x || !x->in_base || !x->in_new || x->raw.verdict == COMPARE_UNCOMPARED)
			return NAN;
		r->d[k] = 100.0 * (x->raw.ratio - 1.0);
		double sb = ab_judge_side_se(&x->base), sn = ab_judge_side_se(&x->new);
		r->w[k] = sqrt(sb * sb + sn * sn);
	}
	return ab_judge_resolution(r->d, r->w, r->n);
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
		char rule[200];
		snprintf(rule, sizeof rule, "the 95 %% interval of the mean of the %zu rounds' changes "
			 "(Student's t; at least what the rounds' samples allow)", nrounds);
		compare_rejudge(out, ab_judge_entry_resolution, &ctx, rule, (int)nrounds);
	} else {
		compare_rejudge(out, ab_judge_entry_resolution, &(struct ab_judge_rounds){ NULL, 0, d, w },
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
