/* compare_rows.c - compare's reading and joining: the kinds of results CSV, each file's rows keyed, BASE's and NEW's joined, what their sidecars say */
#define _POSIX_C_SOURCE 200809L
#include "compare.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/json_in.h"
#include "../core/results.h"
#include "../core/skips.h"
#include "compare_judge.h"

/* The kinds of results CSV the harness writes. */
const struct compare_kind compare_kinds[] = {
	{
		.name = "N-body",
		.slug = "nbody",
		.signature = "interactions_per_s",
		.keys = { "variant", "n", "tile_p", "threads_q", "unroll", "bodies_k", "precision",
			  "mode", "ranks" },
		.numeric = { "n", "tile_p", "threads_q", "unroll", "bodies_k", "ranks" },
		/* a row on P ranks is another measurement than one on 1 */
		.optional = { { "ranks", "1", "rows of one rank each" } },
		.metric = { "interactions_per_s", "steps_per_s" },
		.mode_col = "mode",
		.mode_when = { "forces", "steps" },
		.unit = "interactions/s (forces rows), steps/s (steps rows)",
		.shown = { "n", "mode", "ranks" },
		.shown_heading = { "N", "mode", "P" },
		.time_col = "time_median_s",
		.samples_col = "samples",
		.reps_col = "reps_per_sample",
		.counters = { "interactions_per_s", "gflop_per_s", "steps_per_s", "pct_of_ceiling",
			      "noise_pct", "max_norm_err", "rel_l2_err", "sm_clock_end_mhz" },
	},
	{
		/* before SPH: its files have every SPH column too */
		.name = "SPH rendering",
		.slug = "sph-render",
		.signature = "overall_fps",
		.keys = { "variant", "column", "warm_steps", "flow_to_steps", "width", "height",
			  "field_res", "shading" },
		.numeric = { "warm_steps", "width", "height", "field_res" },
		/* a row drawn in the paper's shading is another measurement
		 * than Phong's; files from before the column were Phong's; a
		 * row of the whole flow another than its first moment's */
		.optional = { { "shading", "phong", "rows in Phong's shading" },
			      { "flow_to_steps", "", "rows of single moments, none of the whole flow" } },
		.metric = { "overall_fps" },
		.unit = "frames/s overall (step + extraction + field + raycast); per stage new/base of ms",
		.shown = { "column", "warm_steps", "flow_to_steps", "width", "height" },
		.shown_heading = { "particles", "after", "to", "W", "H" },
		.details = { "extraction_ms", "field_ms", "raycast_ms" },
		.detail_heading = { "extract", "field", "raycast" },
		.noise_col = "frame_noise_pct",
		.valid_col = "render_valid",
		.time_col = "time_median_step_s",
		.samples_col = "samples",
		.counters = { "overall_fps", "physics_fps", "extraction_fps", "rendering_fps",
			      "extraction_ms", "field_ms", "raycast_ms", "frame_noise_pct",
			      "surface_particles", "image_psnr_db", "converged_psnr_db",
			      "converged_holes_pct" },
	},
	{
		.name = "SPH",
		.slug = "sph",
		.signature = "build_ms",
		.keys = { "variant", "column", "warm_steps", "window_steps", "flow_to_steps" },
		.numeric = { "warm_steps" },
		/* "column" is a particle count, a name or NXxNYxNZ@L: text */
		/* a row timed over a window of K steps from a kept state is
		 * another measurement than one of another K, or one that
		 * followed the flow (files from before the column; their rows,
		 * like untimed ones, have none); a row of the whole flow to a
		 * step is another than its first moment's (files from before
		 * the column have moments' rows only) */
		.optional = { { "window_steps", "",
				"rows timed along the flow, before the window of steps: another "
				"measurement than rows with one, never joined to them" },
			      { "flow_to_steps", "", "rows of single moments, none of the whole flow" } },
		.metric = { "steps_per_s" },
		.unit = "steps/s; per phase new/base of ms per step (lower is faster)",
		.shown = { "column", "warm_steps", "flow_to_steps" },
		.shown_heading = { "particles", "after", "to" },
		.details = { "build_ms", "density_ms", "force_ms", "integrate_ms" },
		.detail_heading = { "build", "density", "force", "integr" },
		.time_col = "time_median_step_s",
		.call_units_col = "window_steps",
		.samples_col = "samples",
		.counters = { "steps_per_s", "build_ms", "density_ms", "force_ms", "integrate_ms",
			      "noise_pct", "aux_bytes_per_particle", "candidates_per_neighbour",
			      "rho_max_rel_err", "acc_max_rel_rms_err" },
	},
	{
		/* sph physics: a row per quantity, the judged ones with a pass
		 * flag; the curves (judged 0) are shown data, not joined */
		.name = "SPH physics",
		.slug = "sph-physics",
		.signature = "judged",
		.keys = { "variant", "check", "column", "quantity", "T", "time_s" },
		.unit = "the judged quantities' pass flags (nothing timed)",
		.shown = { "check", "column", "quantity", "T" },
		.shown_heading = { "check", "column", "quantity", "T" },
		.untimed = true,
		.valid_name = "pass",
		.row_filter = "judged",
	},
};

const size_t compare_kind_count = sizeof compare_kinds / sizeof compare_kinds[0];

/* Columns every kind needs besides its keys and metrics. */
static const char *const compare_common[] = { "device_name", "valid", "noise_pct" };

const struct compare_optional *compare_optional_of(const struct compare_kind *kind,
						   const char *col)
{
	for (const struct compare_optional *opt = kind->optional; opt->key; opt++)
		if (strcmp(opt->key, col) == 0)
			return opt;
	return NULL;
}

const struct compare_kind *compare_kind_of(const struct csv_table *t)
{
	for (size_t k = 0; k < compare_kind_count; k++)
		if (csv_table_col(t, compare_kinds[k].signature) >= 0)
			return &compare_kinds[k];
	return NULL;
}

static int compare_need_column(const struct csv_table *t, const char *col, char *err,
			       size_t errlen)
{
	if (!col || csv_table_col(t, col) >= 0)
		return 0;
	snprintf(err, errlen, "%s:%zu: no column '%s' (not a results CSV of bin/harness?)", t->path,
		 t->header_line, col);
	return -1;
}

/* The kind of t, with every column it needs. NULL with err when none fits. */
static const struct compare_kind *compare_check_columns(const struct csv_table *t, char *err,
							size_t errlen)
{
	const struct compare_kind *kind = compare_kind_of(t);
	if (!kind) {
		size_t n = (size_t)snprintf(err, errlen, "%s:%zu: not a results CSV of bin/harness (no column",
					    t->path, t->header_line);
		for (size_t k = 0; k < compare_kind_count && n < errlen; k++)
			n += (size_t)snprintf(err + n, errlen - n, "%s '%s' of %s rows",
					      k ? (k + 1 < compare_kind_count ? "," : ", nor") : "",
					      compare_kinds[k].signature, compare_kinds[k].name);
		if (n < errlen)
			snprintf(err + n, errlen - n, ")");
		return NULL;
	}
	for (size_t i = 0; kind->keys[i]; i++)
		if (!compare_optional_of(kind, kind->keys[i]) &&
		    compare_need_column(t, kind->keys[i], err, errlen) != 0)
			return NULL;
	if (kind->untimed)
		return compare_need_column(t, "device_name", err, errlen) != 0 ||
		       compare_need_column(t, kind->valid_name, err, errlen) != 0 ||
		       compare_need_column(t, kind->row_filter, err, errlen) != 0
			       ? NULL
			       : kind;
	for (size_t i = 0; i < sizeof compare_common / sizeof *compare_common; i++)
		if (compare_need_column(t, compare_common[i], err, errlen) != 0)
			return NULL;
	if (compare_need_column(t, kind->metric[0], err, errlen) != 0)
		return NULL;
	return kind;
}

/* A number that may be empty: NAN when it is. Returns 0 or -1 with err. */
static int compare_optional_double(const struct csv_table *t, size_t row, const char *col,
				   double *out, char *err, size_t errlen)
{
	if (csv_table_named(t, row, col)[0] == '\0') {
		*out = NAN;
		return 0;
	}
	if (csv_table_double(t, row, col, out, err, errlen) != 0)
		return -1;
	if (*out < 0 || isinf(*out)) {
		snprintf(err, errlen, "%s:%zu: column '%s': '%s' must be a finite number >= 0",
			 t->path, t->row_line[row], col, csv_table_named(t, row, col));
		return -1;
	}
	return 0;
}

/* A cell that must be one of two words; stores which (0 or 1). */
static int compare_choice(const struct csv_table *t, size_t row, const char *col,
			  const char *w0, const char *w1, int *out, char *err, size_t errlen)
{
	const char *s = csv_table_named(t, row, col);
	if (strcmp(s, w0) == 0 || strcmp(s, w1) == 0) {
		*out = strcmp(s, w1) == 0;
		return 0;
	}
	snprintf(err, errlen, "%s:%zu: column '%s': '%s' is not '%s' or '%s'", t->path,
		 t->row_line[row], col, s, w0, w1);
	return -1;
}

bool compare_is_numeric(const struct compare_kind *kind, const char *col)
{
	for (size_t i = 0; kind->numeric[i]; i++)
		if (strcmp(kind->numeric[i], col) == 0)
			return true;
	return false;
}

static int compare_read_key(const struct compare_kind *kind, const struct csv_table *t,
			    size_t row, struct compare_key *k, char *err, size_t errlen)
{
	long long ignored;
	if (csv_table_named(t, row, kind->keys[0])[0] == '\0') {
		snprintf(err, errlen, "%s:%zu: column '%s' is empty", t->path, t->row_line[row],
			 kind->keys[0]);
		return -1;
	}
	for (k->count = 0; kind->keys[k->count]; k->count++) {
		const char *col = kind->keys[k->count];
		const struct compare_optional *opt = compare_optional_of(kind, col);
		const bool absent = opt && csv_table_col(t, col) < 0;
		if (!absent && compare_is_numeric(kind, col) &&
		    csv_table_long(t, row, col, &ignored, err, errlen) != 0)
			return -1;
		k->cells[k->count] = strdup(absent ? opt->dflt : csv_table_named(t, row, col));
		if (!k->cells[k->count]) {
			snprintf(err, errlen, "%s: out of memory", t->path);
			return -1;
		}
	}
	return 0;
}

/* Reads one row's side; the figure is the one its mode selects. */
static int compare_read_side(const struct compare_kind *kind, const struct csv_table *t,
			     size_t row, struct compare_side *s, char *err, size_t errlen)
{
	int valid, alt = 0;
	s->line = t->row_line[row];
	if (kind->untimed) {
		if (compare_choice(t, row, kind->valid_name, "0", "1", &valid, err, errlen) != 0)
			return -1;
		s->valid = valid;
		s->value = s->pct_of_ceiling = s->samples = NAN;
		s->noise_pct = 0;
		for (size_t d = 0; d < COMPARE_MAX_DETAILS; d++)
			s->details[d] = NAN;
		s->device_name = strdup(csv_table_named(t, row, "device_name"));
		if (!s->device_name) {
			snprintf(err, errlen, "%s: out of memory", t->path);
			return -1;
		}
		return 0;
	}
	if (compare_choice(t, row, "valid", "0", "1", &valid, err, errlen) != 0 ||
	    (kind->mode_col && compare_choice(t, row, kind->mode_col, kind->mode_when[0],
					      kind->mode_when[1], &alt, err, errlen) != 0))
		return -1;
	if (valid && kind->valid_col &&
	    compare_choice(t, row, kind->valid_col, "0", "1", &valid, err, errlen) != 0)
		return -1;
	s->valid = valid;
	if (compare_optional_double(t, row, kind->metric[alt], &s->value, err, errlen) != 0 ||
	    compare_optional_double(t, row, kind->noise_col ? kind->noise_col : "noise_pct",
				    &s->noise_pct, err, errlen) != 0 ||
	    compare_optional_double(t, row, "pct_of_ceiling", &s->pct_of_ceiling, err, errlen) != 0)
		return -1;
	for (size_t d = 0; kind->details[d]; d++)
		if (compare_optional_double(t, row, kind->details[d], &s->details[d], err, errlen) != 0)
			return -1;
	s->samples = NAN;
	if (kind->samples_col && csv_table_col(t, kind->samples_col) >= 0 &&
	    compare_optional_double(t, row, kind->samples_col, &s->samples, err, errlen) != 0)
		return -1;
	double units = 1;
	s->call_s = NAN;
	if ((kind->time_col && csv_table_col(t, kind->time_col) >= 0 &&
	     compare_optional_double(t, row, kind->time_col, &s->call_s, err, errlen) != 0) ||
	    (kind->call_units_col && csv_table_col(t, kind->call_units_col) >= 0 &&
	     compare_optional_double(t, row, kind->call_units_col, &units, err, errlen) != 0))
		return -1;
	s->call_s *= isnan(units) ? 1 : units;
	snprintf(s->device_class, sizeof s->device_class, "%s",
		 csv_table_col(t, "device") >= 0 ? csv_table_named(t, row, "device") : "");
	if (isnan(s->noise_pct))
		s->noise_pct = 0;
	/* one sample has no spread to measure: its noise is unknown, not 0 */
	if (s->samples < 2)
		s->noise_pct = INFINITY;
	if (!(s->value > 0))
		s->value = NAN; /* 0 or empty: not timed */
	if (!(s->pct_of_ceiling > 0))
		s->pct_of_ceiling = NAN;
	s->device_name = strdup(csv_table_named(t, row, "device_name"));
	if (!s->device_name) {
		snprintf(err, errlen, "%s: out of memory", t->path);
		return -1;
	}
	return 0;
}

static bool compare_key_eq(const struct compare_key *a, const struct compare_key *b)
{
	if (a->count != b->count)
		return false;
	for (size_t i = 0; i < a->count; i++)
		if (strcmp(a->cells[i], b->cells[i]) != 0)
			return false;
	return true;
}

/* "variant 'x' n 16384 tile_p 256 ...": a key as messages name it. */
static void compare_key_text(const struct compare_kind *kind, const struct compare_key *k,
			     char *out, size_t outlen)
{
	size_t n = 0;
	out[0] = '\0';
	for (size_t i = 0; i < k->count && n < outlen; i++)
		n += (size_t)snprintf(out + n, outlen - n, i ? " %s %s" : "%s '%s'", kind->keys[i],
				      k->cells[i]);
}

const char *compare_key_value(const struct compare_report *r, const struct compare_entry *e,
			      const char *col)
{
	for (size_t i = 0; r->kind && i < e->key.count; i++)
		if (strcmp(r->kind->keys[i], col) == 0)
			return e->key.cells[i];
	return NULL;
}

/* One file's rows, parsed. */
struct compare_rowset {
	const struct compare_kind *kind;
	struct compare_key *keys;
	struct compare_side *sides;
	bool *matched;
	size_t count;
};

static void compare_key_free(struct compare_key *k)
{
	for (size_t i = 0; i < k->count; i++)
		free(k->cells[i]);
	k->count = 0;
}

static void compare_rowset_free(struct compare_rowset *s)
{
	for (size_t i = 0; s->keys && i < s->count; i++) {
		compare_key_free(&s->keys[i]);
		free(s->sides[i].device_name);
	}
	free(s->keys);
	free(s->sides);
	free(s->matched);
	memset(s, 0, sizeof *s);
}

/* Refuses a table where two rows share a key: the join would be ambiguous. */
static int compare_check_unique(const struct csv_table *t, const struct compare_rowset *s,
				char *err, size_t errlen)
{
	for (size_t i = 0; i < s->count; i++) {
		for (size_t j = 0; j < i; j++) {
			if (!compare_key_eq(&s->keys[i], &s->keys[j]))
				continue;
			char key[512];
			compare_key_text(s->kind, &s->keys[i], key, sizeof key);
			snprintf(err, errlen, "%s:%zu: row repeats %s of line %zu", t->path,
				 s->sides[i].line, key, s->sides[j].line);
			return -1;
		}
	}
	return 0;
}

static int compare_rowset_read(const struct csv_table *t, struct compare_rowset *s, char *err,
			       size_t errlen)
{
	memset(s, 0, sizeof *s);
	s->kind = compare_check_columns(t, err, errlen);
	if (!s->kind)
		return -1;
	size_t n = t->nrows ? t->nrows : 1;
	s->keys = calloc(n, sizeof *s->keys);
	s->sides = calloc(n, sizeof *s->sides);
	s->matched = calloc(n, sizeof *s->matched);
	if (!s->keys || !s->sides || !s->matched) {
		snprintf(err, errlen, "%s: out of memory", t->path);
		return -1;
	}
	for (size_t row = 0; row < t->nrows; row++) {
		if (s->kind->row_filter && strcmp(csv_table_named(t, row, s->kind->row_filter), "1") != 0)
			continue; /* shown data, not a verdict */
		if (compare_read_key(s->kind, t, row, &s->keys[s->count], err, errlen) != 0 ||
		    compare_read_side(s->kind, t, row, &s->sides[s->count], err, errlen) != 0) {
			s->count++; /* so the partly filled row is freed */
			return -1;
		}
		s->count++;
	}
	return compare_check_unique(t, s, err, errlen);
}

/* Whether a row of s was timed. */
static bool compare_rowset_timed(const struct compare_rowset *s)
{
	for (size_t i = 0; i < s->count; i++)
		if (s->sides[i].value > 0)
			return true;
	return false;
}

/* Moves one file's row (key and side) into a new entry of r. */
static struct compare_entry *compare_add(struct compare_report *r, struct compare_rowset *s,
					 size_t i)
{
	struct compare_entry *e = &r->entries[r->count++];
	e->key = s->keys[i];
	memset(&s->keys[i], 0, sizeof s->keys[i]);
	return e;
}

static void compare_take_side(struct compare_side *dst, struct compare_rowset *s, size_t i)
{
	*dst = s->sides[i];
	s->sides[i].device_name = NULL;
	s->matched[i] = true;
}

/* Index in s of the row with key k, or s->count. */
static size_t compare_find(const struct compare_rowset *s, const struct compare_key *k)
{
	size_t i = 0;
	while (i < s->count && !compare_key_eq(&s->keys[i], k))
		i++;
	return i;
}

static int compare_check_devices(const struct compare_report *r, const struct compare_entry *e,
				 const char *base_path, const char *new_path, char *err,
				 size_t errlen)
{
	if (strcmp(e->base.device_name, e->new.device_name) == 0)
		return 0;
	char key[512];
	compare_key_text(r->kind, &e->key, key, sizeof key);
	snprintf(err, errlen,
		 "%s and %s were measured on different devices ('%s' vs '%s', %s); "
		 "pass --across-devices to compare them by share of each device's ceiling",
		 base_path, new_path, e->base.device_name, e->new.device_name, key);
	return -1;
}

/* The join: every base row in order (matched or not), then NEW's leftovers. */
static int compare_join(struct compare_report *r, struct compare_rowset *b,
			struct compare_rowset *v, const char *bpath, const char *vpath, char *err,
			size_t errlen)
{
	for (size_t i = 0; i < b->count; i++) {
		size_t j = compare_find(v, &b->keys[i]);
		struct compare_entry *e = compare_add(r, b, i);
		e->untimed = r->untimed;
		e->in_base = true;
		compare_take_side(&e->base, b, i);
		if (j == v->count)
			continue;
		e->in_new = true;
		compare_take_side(&e->new, v, j);
		if (!r->opts.across_devices &&
		    compare_check_devices(r, e, bpath, vpath, err, errlen) != 0)
			return -1;
		compare_judge_entry(e, r->kind, &r->opts,
				    (struct compare_estimate){ NAN, NAN, NAN, NAN });
	}
	for (size_t j = 0; j < v->count; j++) {
		if (v->matched[j])
			continue;
		struct compare_entry *e = compare_add(r, v, j);
		e->untimed = r->untimed;
		e->in_new = true;
		compare_take_side(&e->new, v, j);
	}
	compare_recount(r);
	return 0;
}

int compare_rows(const struct csv_table *base, const struct csv_table *new,
		 const struct compare_opts *o, struct compare_report *out, char *err,
		 size_t errlen)
{
	struct compare_rowset b, v;
	int rc = -1;
	memset(out, 0, sizeof *out);
	out->opts = *o;
	snprintf(out->resolution_rule, sizeof out->resolution_rule, "%s", COMPARE_NOISE_RULE);
	if (compare_rowset_read(base, &b, err, errlen) != 0)
		goto out_free_base;
	if (compare_rowset_read(new, &v, err, errlen) != 0)
		goto out_free_both;
	if (b.kind != v.kind) {
		snprintf(err, errlen, "%s holds %s results and %s %s results: compare files of one kind",
			 base->path, b.kind->name, new->path, v.kind->name);
		goto out_free_both;
	}
	out->kind = b.kind;
	out->untimed = b.kind->untimed || (!compare_rowset_timed(&b) && !compare_rowset_timed(&v));
	if (out->untimed)
		snprintf(out->resolution_rule, sizeof out->resolution_rule,
			 "nothing timed to compare: each row by its validation");
	out->entries = calloc(b.count + v.count + 1, sizeof *out->entries);
	if (!out->entries) {
		snprintf(err, errlen, "out of memory comparing %s and %s", base->path, new->path);
		goto out_free_both;
	}
	rc = compare_join(out, &b, &v, base->path, new->path, err, errlen);
out_free_both:
	compare_rowset_free(&v);
out_free_base:
	compare_rowset_free(&b);
	if (rc != 0)
		compare_report_free(out);
	return rc;
}

/* What an interrupted run's sidecar v (at side) says it never ran, into
 * *missing and note ("interrupted by SIGINT: 3 of 9 rows never ran: a,
 * b, c"); nothing when the run was complete. 0, or -1 with err when the
 * record is malformed. */
static int compare_read_incomplete(const struct json_in_value *v, const char *side,
				   size_t *missing, char *note, size_t notelen, char *err,
				   size_t errlen)
{
	const struct json_in_value *c = json_in_member(v, "complete");
	const struct json_in_value *inc = json_in_member(v, "incomplete");
	*missing = 0;
	note[0] = '\0';
	if (!c || (c->type == JSON_IN_BOOL && c->boolean))
		return 0; /* complete, or written before runs said so */
	const struct json_in_value *reason = json_in_member(inc, "reason");
	const struct json_in_value *unit = json_in_member(inc, "unit");
	const struct json_in_value *planned = json_in_member(inc, "planned");
	const struct json_in_value *list = json_in_member(inc, "missing");
	if (c->type != JSON_IN_BOOL || !reason || reason->type != JSON_IN_STRING || !unit ||
	    unit->type != JSON_IN_STRING || !planned || planned->type != JSON_IN_NUMBER || !list ||
	    list->type != JSON_IN_ARRAY) {
		snprintf(err, errlen, "%s: 'complete' is false but 'incomplete' is not {reason, unit, "
			 "planned, finished, missing}", side);
		return -1;
	}
	*missing = list->count > 0 ? list->count : 1; /* never 0: the run did not end */
	size_t n = (size_t)snprintf(note, notelen, "%s: %zu of %.0f planned %ss never ran",
				    reason->string, list->count, planned->number, unit->string);
	for (size_t i = 0; i < list->count && i < 3 && n < notelen; i++)
		n += (size_t)snprintf(note + n, notelen - n, "%s%s", i ? ", " : ": ",
				      list->items[i].type == JSON_IN_STRING ? list->items[i].string : "?");
	if (list->count > 3 && n < notelen)
		snprintf(note + n, notelen - n, ", ...");
	return 0;
}

/* What the sidecars say of their runs, into r: NEW's skipped variants,
 * each side's rows never run when its run was interrupted, and in its
 * note whether it ran on a busy machine (nothing for a file without
 * sidecar). 0, or -1 with err when a record is malformed. */
static int compare_read_sidecars(const char *const paths[2], struct compare_report *r, char *err,
				 size_t errlen)
{
	int rc = 0;
	for (int k = 0; k < 2 && rc == 0; k++) {
		char *side = results_sidecar_path(paths[k]);
		struct json_in_value v;
		struct skips *sk = calloc(1, sizeof *sk);
		if (!side || !sk) {
			snprintf(err, errlen, "out of memory reading %s's sidecar", paths[k]);
			rc = -1;
		} else if (access(side, F_OK) == 0 && json_in_read_file(side, &v, err, errlen) == 0) {
			rc = compare_read_incomplete(&v, side, &r->incomplete[k], r->incomplete_note[k],
						     sizeof r->incomplete_note[k], err, errlen);
			results_busy_note(&v, r->notes[k], sizeof r->notes[k]);
			if (rc == 0 && k == 1 && skips_from_sidecar(&v, sk) != 0) {
				snprintf(err, errlen, "%s: 'skipped' is not a list of {variant, why}", side);
				rc = -1;
			}
			if (k == 1) {
				r->skipped_new = skips_total(sk);
				skips_describe(sk, r->skipped_note, sizeof r->skipped_note);
			}
			json_in_free(&v);
		} /* else no sidecar, or one results_pair_check has judged */
		free(sk);
		free(side);
	}
	return rc;
}

int compare_files(const char *base_path, const char *new_path, const struct compare_opts *o,
		  struct compare_report *out, char *err, size_t errlen)
{
	struct csv_table b = { 0 }, v = { 0 };
	char notes[2][COMPARE_NOTE_LEN];
	int rc = -1;
	memset(out, 0, sizeof *out);
	const char *paths[2] = { base_path, new_path };
	for (int k = 0; k < 2; k++) {
		if (results_pair_check(paths[k], notes[k], sizeof notes[k]) == RESULTS_PAIR_MISMATCH) {
			snprintf(err, errlen, "%s", notes[k]);
			return -1;
		}
	}
	if (csv_table_read(base_path, &b, err, errlen) == 0 &&
	    csv_table_read(new_path, &v, err, errlen) == 0)
		rc = compare_rows(&b, &v, o, out, err, errlen);
	if (rc == 0) {
		/* one file without an optional key's column: say what it holds */
		const struct csv_table *t[2] = { &b, &v };
		for (const struct compare_optional *opt = out->kind->optional; opt->key; opt++)
			for (int k = 0; k < 2; k++)
				if (csv_table_col(t[k], opt->key) < 0 &&
				    csv_table_col(t[1 - k], opt->key) >= 0) {
					size_t len = strlen(notes[k]);
					snprintf(notes[k] + len, sizeof notes[k] - len,
						 "%sno column %s: %s", len ? "; " : "", opt->key,
						 opt->absent);
				}
		memcpy(out->notes, notes, sizeof notes);
		if (compare_read_sidecars(paths, out, err, errlen) != 0) {
			compare_report_free(out);
			rc = -1;
		}
	}
	csv_table_free(&b);
	csv_table_free(&v);
	return rc;
}

void compare_report_free(struct compare_report *r)
{
	for (size_t i = 0; r->entries && i < r->count; i++) {
		compare_key_free(&r->entries[i].key);
		free(r->entries[i].base.device_name);
		free(r->entries[i].new.device_name);
	}
	free(r->entries);
	r->entries = NULL;
	r->count = 0;
}
