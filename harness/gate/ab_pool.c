/* ab_pool.c - one side of an A/B run: its rounds' samples pooled into one results table */
#define _POSIX_C_SOURCE 200809L
#include "ab_pool.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/csv_table.h"
#include "../core/json_in.h"
#include "../core/json_out.h"
#include "../core/results.h"
#include "../core/stats.h"
#include "../core/sysinfo.h"

/* One round of one side: its table and its sidecar. */
struct ab_round {
	const char *path;
	struct csv_table t;
	struct json_in_value side;
	const struct json_in_value *samples; /* the sidecar's samples array, one entry per row */
};

/* How a column of the pooled table is made from the rounds' cells. */
enum ab_rule {
	AB_KEEP,      /* the first round's cell */
	AB_SAMPLES,   /* how many pooled samples */
	AB_MIN, AB_MEDIAN, AB_MAX, AB_STDDEV, /* of the pooled seconds per call */
	AB_NOISE,     /* their relative standard deviation, percent */
	AB_NOISE_MET, /* that noise against the run's --max-noise */
	AB_RATE,      /* work per second: rescaled to the pooled median */
	AB_HIGHEST,   /* the highest of the rounds' cells (errors, clock drops) */
	AB_LOWEST,    /* the lowest (SM clocks) */
	AB_MEAN,      /* the mean (phase times) */
};

static enum ab_rule ab_rule_of(const char *col)
{
	static const struct {
		const char *name;
		enum ab_rule rule;
	} named[] = {
		{ "samples", AB_SAMPLES },         { "time_min_s", AB_MIN },
		{ "time_min_step_s", AB_MIN },     { "time_median_s", AB_MEDIAN },
		{ "time_median_step_s", AB_MEDIAN }, { "time_max_s", AB_MAX },
		{ "time_max_step_s", AB_MAX },     { "time_stddev_s", AB_STDDEV },
		{ "noise_pct", AB_NOISE },         { "noise_met", AB_NOISE_MET },
		{ "interactions_per_s", AB_RATE }, { "gflop_per_s", AB_RATE },
		{ "steps_per_s", AB_RATE },        { "pct_of_ceiling", AB_RATE },
		{ "sm_clock_start_mhz", AB_LOWEST }, { "sm_clock_end_mhz", AB_LOWEST },
		{ "clock_dropped", AB_HIGHEST },
	};
	for (size_t i = 0; i < sizeof named / sizeof *named; i++)
		if (strcmp(col, named[i].name) == 0)
			return named[i].rule;
	size_t len = strlen(col);
	if (len > 4 && strcmp(col + len - 4, "_err") == 0)
		return AB_HIGHEST;
	if (len > 3 && strcmp(col + len - 3, "_ms") == 0)
		return AB_MEAN;
	return AB_KEEP;
}

static int ab_round_read(const char *path, struct ab_round *r, char *err, size_t errlen)
{
	char *side = results_sidecar_path(path);
	int rc = -1;
	r->path = path;
	if (!side) {
		snprintf(err, errlen, "out of memory reading %s", path);
		return -1;
	}
	if (csv_table_read(path, &r->t, err, errlen) != 0 ||
	    json_in_read_file(side, &r->side, err, errlen) != 0)
		goto out_free;
	r->samples = json_in_member(&r->side, "samples");
	if (!r->samples || r->samples->type != JSON_IN_ARRAY || r->samples->count != r->t.nrows) {
		snprintf(err, errlen, "%s: no 'samples' array with one entry per row of %s", side, path);
		goto out_free;
	}
	rc = 0;
out_free:
	free(side);
	return rc;
}

/* The seconds_per_call array of row i of a round (NULL when malformed). */
static const struct json_in_value *ab_row_samples(const struct ab_round *r, size_t i)
{
	const struct json_in_value *s = json_in_member(&r->samples->items[i], "seconds_per_call");
	return s && s->type == JSON_IN_ARRAY ? s : NULL;
}

/* Whether row i of round k names the same (variant, n) as round 0's row,
 * and its samples entry does too. */
static bool ab_row_agrees(const struct ab_round *r, size_t k, size_t i, int cv, int cn)
{
	const char *v = csv_table_cell(&r[k].t, i, (size_t)cv), *n = csv_table_cell(&r[k].t, i, (size_t)cn);
	const struct json_in_value *e = &r[k].samples->items[i];
	const struct json_in_value *ev = json_in_member(e, "variant"), *en = json_in_member(e, "n");
	return strcmp(v, csv_table_cell(&r[0].t, i, (size_t)cv)) == 0 &&
	       strcmp(n, csv_table_cell(&r[0].t, i, (size_t)cn)) == 0 && ev &&
	       ev->type == JSON_IN_STRING && strcmp(ev->string, v) == 0 && en &&
	       en->type == JSON_IN_NUMBER && en->number == strtod(n, NULL) && ab_row_samples(&r[k], i);
}

/* Checks that every round ran the same rows as round 0. 0 or -1 with err. */
static int ab_rounds_agree(const struct ab_round *r, size_t n, char *err, size_t errlen)
{
	const struct csv_table *t0 = &r[0].t;
	int cv = csv_table_col(t0, "variant"), cn = csv_table_col(t0, "n");
	if (cv < 0 || cn < 0 || csv_table_col(t0, "valid") < 0) {
		snprintf(err, errlen, "%s: no column 'variant', 'n' or 'valid' (not a results CSV of bin/harness?)",
			 r[0].path);
		return -1;
	}
	for (size_t k = 0; k < n; k++) {
		const struct csv_table *t = &r[k].t;
		bool same = t->ncols == t0->ncols && t->nrows == t0->nrows;
		for (size_t c = 0; same && c < t->ncols; c++)
			same = strcmp(t->header[c], t0->header[c]) == 0;
		for (size_t i = 0; same && i < t->nrows; i++) {
			same = ab_row_agrees(r, k, i, cv, cn);
			if (!same) {
				snprintf(err, errlen, "%s:%zu: row differs from %s's (variant, n) or from its sidecar's samples",
					 r[k].path, t->row_line[i], r[0].path);
				return -1;
			}
		}
		if (!same) {
			snprintf(err, errlen, "%s has other columns or rows than %s: the rounds ran different rows",
				 r[k].path, r[0].path);
			return -1;
		}
	}
	return 0;
}

/* Whether row i validated and was timed in round k. */
static bool ab_row_counts(const struct ab_round *r, size_t i)
{
	int cvalid = csv_table_col(&r->t, "valid");
	return strcmp(csv_table_cell(&r->t, i, (size_t)cvalid), "1") == 0 && ab_row_samples(r, i)->count > 0;
}

/* The seconds per call of row i in every round, in one new array. */
static double *ab_row_pool(const struct ab_round *r, size_t n, size_t i, size_t *count)
{
	size_t total = 0;
	for (size_t k = 0; k < n; k++)
		total += ab_row_samples(&r[k], i)->count;
	double *all = malloc((total ? total : 1) * sizeof *all);
	*count = 0;
	for (size_t k = 0; all && k < n; k++) {
		const struct json_in_value *s = ab_row_samples(&r[k], i);
		for (size_t j = 0; j < s->count; j++)
			all[(*count)++] = s->items[j].type == JSON_IN_NUMBER ? s->items[j].number : NAN;
	}
	return all;
}

/* Combines the rounds' numeric cells of (i, c) by rule; false when none is a number. */
static bool ab_combine(const struct ab_round *r, size_t n, size_t i, size_t c, enum ab_rule rule,
		       double *out)
{
	double acc = NAN;
	size_t seen = 0;
	for (size_t k = 0; k < n; k++) {
		const char *cell = csv_table_cell(&r[k].t, i, c);
		char *end;
		double v = strtod(cell, &end);
		if (cell[0] == '\0' || *end != '\0' || isnan(v))
			continue;
		if (seen++ == 0)
			acc = v;
		else if (rule == AB_HIGHEST)
			acc = fmax(acc, v);
		else if (rule == AB_LOWEST)
			acc = fmin(acc, v);
		else
			acc += v;
	}
	*out = rule == AB_MEAN && seen ? acc / (double)seen : acc;
	return seen > 0;
}

/* Pooled figures of one counting row. */
struct ab_pooled {
	struct stats_summary s; /* of all samples, but median: that of the rounds' medians */
	double first_median; /* round 0's median, what its rates were computed from */
	double max_noise;    /* the run's --max-noise; NAN if the sidecar does not say */
};

/* The pooled value of cell (i, c) by its rule, formatted into num; returns
 * num, or round 0's cell where the rule keeps it or has nothing to combine. */
static const char *ab_pooled_cell(const struct ab_round *r, size_t n, size_t i, size_t c,
				  const struct ab_pooled *p, char *num, size_t numlen)
{
	enum ab_rule rule = ab_rule_of(r[0].t.header[c]);
	const char *first = csv_table_cell(&r[0].t, i, c);
	double v = NAN;
	switch (rule) {
	case AB_KEEP: return first;
	case AB_SAMPLES: snprintf(num, numlen, "%zu", p->s.count); return num;
	case AB_MIN: v = p->s.min; break;
	case AB_MEDIAN: v = p->s.median; break;
	case AB_MAX: v = p->s.max; break;
	case AB_STDDEV: v = p->s.stddev; break;
	case AB_NOISE: v = 100.0 * p->s.rel_stddev; break;
	case AB_NOISE_MET:
		if (isnan(p->max_noise))
			return first;
		return 100.0 * p->s.rel_stddev <= p->max_noise ? "1" : "0";
	case AB_RATE:
		if (first[0] == '\0')
			return first;
		v = strtod(first, NULL) * p->first_median / p->s.median;
		break;
	default:
		if (!ab_combine(r, n, i, c, rule, &v))
			return first;
		break;
	}
	snprintf(num, numlen, "%.6g", v);
	return num;
}

/* Writes row i: pooled when it counts in every round, else as the first
 * round where it failed wrote it. Returns 1 (pooled), 0 (failed), -1 (I/O
 * or memory). */
static int ab_write_row(FILE *fp, const struct ab_round *r, size_t n, size_t i, double max_noise)
{
	size_t ncols = r[0].t.ncols, count;
	for (size_t k = 0; k < n; k++) {
		if (ab_row_counts(&r[k], i))
			continue;
		const char **cells = malloc(ncols * sizeof *cells);
		for (size_t c = 0; cells && c < ncols; c++)
			cells[c] = csv_table_cell(&r[k].t, i, c);
		int rc = cells && csv_write_row(fp, cells, ncols) == 0 ? 0 : -1;
		free(cells);
		return rc;
	}
	struct ab_pooled p = { .max_noise = max_noise };
	double *all = ab_row_pool(r, n, i, &count);
	double *medians = malloc(n * sizeof *medians);
	const char **cells = malloc(ncols * sizeof *cells);
	char (*nums)[32] = malloc(ncols * sizeof *nums);
	int rc = -1;
	for (size_t k = 0; all && medians && k < n; k++) {
		double *one = ab_row_pool(&r[k], 1, i, &(size_t){ 0 });
		medians[k] = one ? stats_median(one, ab_row_samples(&r[k], i)->count) : NAN;
		free(one);
	}
	if (all && medians && cells && nums && stats_summarize(all, count, &p.s) == 0) {
		p.first_median = medians[0];
		p.s.median = stats_median(medians, n);
		for (size_t c = 0; c < ncols; c++)
			cells[c] = ab_pooled_cell(r, n, i, c, &p, nums[c], sizeof nums[c]);
		rc = csv_write_row(fp, cells, ncols) == 0 ? 1 : -1;
	}
	free(all);
	free(medians);
	free(cells);
	free(nums);
	return rc;
}

/* Writes a parsed JSON value back out. */
static void ab_json_copy(struct json_out *j, const struct json_in_value *v)
{
	switch (v->type) {
	case JSON_IN_NULL: json_null(j); break;
	case JSON_IN_BOOL: json_bool(j, v->boolean); break;
	case JSON_IN_NUMBER: json_double(j, v->number); break;
	case JSON_IN_STRING: json_string(j, v->string); break;
	case JSON_IN_ARRAY:
		json_begin_array(j);
		for (size_t i = 0; i < v->count; i++)
			ab_json_copy(j, &v->items[i]);
		json_end_array(j);
		break;
	case JSON_IN_OBJECT:
		json_begin_object(j);
		for (size_t i = 0; i < v->count; i++) {
			json_key(j, v->keys[i]);
			ab_json_copy(j, &v->items[i]);
		}
		json_end_object(j);
		break;
	}
}

/* The "ab" object of the pooled sidecar. */
static void ab_json_info(struct json_out *j, const char *const *csv, size_t n,
			 const struct ab_pool_info *info, const struct ab_pool_summary *sum)
{
	json_key(j, "ab");
	json_begin_object(j);
	json_kv_string(j, "side", info->side);
	json_kv_string(j, "binary", info->binary);
	json_kv_string(j, "git_commit", info->commit ? info->commit : sum->commit);
	if (sum->dirty >= 0)
		json_kv_bool(j, "git_dirty", sum->dirty);
	else
		json_kv_null(j, "git_dirty");
	json_kv_int(j, "rounds", (long long)n);
	json_kv_string(j, "order", info->order);
	json_key(j, "round_files");
	json_begin_array(j);
	for (size_t k = 0; k < n; k++)
		json_string(j, csv[k]);
	json_end_array(j);
	json_kv_string(j, "pooling", "a row counts when it validated and was timed in every round; "
		       "its median is the median of the rounds' medians (each run weighs the same), "
		       "its rates follow that median, its noise, min, max and standard deviation are "
		       "those of all the rounds' samples together");
	json_end_object(j);
}

/* The pooled samples, one entry per row (empty for rows that failed). */
static void ab_json_samples(struct json_out *j, const struct ab_round *r, size_t n)
{
	json_key(j, "samples");
	json_begin_array(j);
	for (size_t i = 0; i < r[0].t.nrows; i++) {
		const struct json_in_value *e = &r[0].samples->items[i];
		bool counts = true;
		for (size_t k = 0; k < n; k++)
			counts = counts && ab_row_counts(&r[k], i);
		json_begin_object(j);
		json_key(j, "variant");
		ab_json_copy(j, json_in_member(e, "variant"));
		json_key(j, "n");
		ab_json_copy(j, json_in_member(e, "n"));
		json_kv_int(j, "rounds", (long long)n);
		json_key(j, "seconds_per_call");
		json_begin_array(j);
		for (size_t k = 0; counts && k < n; k++) {
			const struct json_in_value *s = ab_row_samples(&r[k], i);
			for (size_t m = 0; m < s->count; m++)
				ab_json_copy(j, &s->items[m]);
		}
		json_end_array(j);
		json_end_object(j);
	}
	json_end_array(j);
}

/* The sidecar: round 0's, with this file's csv, time and argv, "ab", and
 * the pooled samples. */
static void ab_json_sidecar(FILE *fp, const struct ab_round *r, const char *const *csv, size_t n,
			    const char *out_csv, const struct ab_pool_info *info,
			    const struct ab_pool_summary *sum, const struct results_stamp *stamp)
{
	struct json_out j;
	char now[32];
	sysinfo_utc_now(now, sizeof now);
	json_init(&j, fp);
	json_begin_object(&j);
	for (size_t m = 0; m < r[0].side.count; m++) {
		const char *key = r[0].side.keys[m];
		/* the rounds' own stamps describe their CSVs, not this one */
		if (strcmp(key, "samples") == 0 || strcmp(key, "ab") == 0 ||
		    strcmp(key, "csv_fnv1a64") == 0 || strcmp(key, "csv_rows") == 0 ||
		    strcmp(key, "csv_bytes") == 0)
			continue;
		if (strcmp(key, "csv") == 0) {
			json_kv_string(&j, key, out_csv);
			results_json_stamp(&j, stamp);
		} else if (strcmp(key, "created_utc") == 0) {
			json_kv_string(&j, key, now);
		} else if (strcmp(key, "argv") == 0) {
			json_key(&j, key);
			json_begin_array(&j);
			for (int a = 0; a < info->argc; a++)
				json_string(&j, info->argv[a]);
			json_end_array(&j);
		} else {
			json_key(&j, key);
			ab_json_copy(&j, &r[0].side.items[m]);
		}
	}
	ab_json_info(&j, csv, n, info, sum);
	ab_json_samples(&j, r, n);
	json_end_object(&j);
	json_finish(&j);
}

/* What the rounds' sidecars say about the build: commit and dirty flag. */
static void ab_read_build(const struct ab_round *r, struct ab_pool_summary *sum)
{
	const struct json_in_value *b = json_in_member(&r->side, "build");
	const struct json_in_value *c = json_in_member(b, "git_commit"), *d = json_in_member(b, "git_dirty");
	snprintf(sum->commit, sizeof sum->commit, "%s",
		 c && c->type == JSON_IN_STRING ? c->string : "unknown");
	sum->dirty = d && d->type == JSON_IN_BOOL ? d->boolean : -1;
}

/* What ab_pool_write hands results_write_files. */
struct ab_pool_job {
	const struct ab_round *r;
	const char *const *csv;
	size_t n;
	const char *out_csv;
	const struct ab_pool_info *info;
	struct ab_pool_summary *sum;
};

static int ab_pool_csv(FILE *fp, void *ctx)
{
	struct ab_pool_job *job = ctx;
	const struct ab_round *r = job->r;
	const struct json_in_value *mn = json_in_member(json_in_member(&r[0].side, "timing"), "max_noise_pct");
	double max_noise = mn && mn->type == JSON_IN_NUMBER ? mn->number : NAN;
	if (csv_write_row(fp, (const char *const *)r[0].t.header, r[0].t.ncols) != 0)
		return -1;
	for (size_t i = 0; i < r[0].t.nrows; i++) {
		int counted = ab_write_row(fp, r, job->n, i, max_noise);
		if (counted < 0)
			return -1;
		job->sum->failed += counted == 0;
	}
	return 0;
}

static void ab_pool_sidecar(FILE *fp, void *ctx, const struct results_stamp *stamp)
{
	struct ab_pool_job *job = ctx;
	ab_json_sidecar(fp, job->r, job->csv, job->n, job->out_csv, job->info, job->sum, stamp);
}

int ab_pool(const char *const *csv, size_t nrounds, const char *out_csv,
	    const struct ab_pool_info *info, struct ab_pool_summary *sum, char *err, size_t errlen)
{
	struct ab_round *r = calloc(nrounds ? nrounds : 1, sizeof *r);
	int rc = -1;
	if (!r || nrounds == 0) {
		snprintf(err, errlen, nrounds ? "out of memory pooling into %s" : "no rounds to pool into %s",
			 out_csv);
		goto out_free;
	}
	for (size_t k = 0; k < nrounds; k++)
		if (ab_round_read(csv[k], &r[k], err, errlen) != 0)
			goto out_free;
	if (ab_rounds_agree(r, nrounds, err, errlen) == 0) {
		struct ab_pool_job job = { r, csv, nrounds, out_csv, info, sum };
		sum->rows = r[0].t.nrows;
		sum->failed = 0;
		ab_read_build(&r[0], sum);
		rc = results_write_files(out_csv, ab_pool_csv, ab_pool_sidecar, &job, err, errlen);
	}
out_free:
	for (size_t k = 0; r && k < nrounds; k++) {
		csv_table_free(&r[k].t);
		json_in_free(&r[k].side);
	}
	free(r);
	return rc;
}
