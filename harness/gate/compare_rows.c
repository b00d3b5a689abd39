/* compare.c - two results CSVs side by side: faster, slower or within the noise */
#define _POSIX_C_SOURCE 200809L
#include "compare.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/atomic_file.h"
#include "../cli.h"
#include "../core/json_in.h"
#include "../core/json_out.h"
#include "../core/results.h"
#include "../core/skips.h"

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

/* How compare finds a pair's resolution. */
#define COMPARE_NOISE_RULE                                                                    \
	"sqrt(noise_base^2 + noise_new^2 + floor^2): the rows' noise_pct and the between-run "   \
	"floor of their device, kind and time per call (harness/floors.def; none where not "     \
	"calibrated)"

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

static bool compare_is_numeric(const struct compare_kind *kind, const char *col)
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
static void compare_judge_entry(struct compare_entry *e, const struct compare_kind *kind,
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
static const struct compare_judgement *compare_counting(const struct compare_entry *e)
{
	return e->counts_ceiling ? &e->ceiling : &e->raw;
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

/* Whether a side's row of e failed: invalid, or valid but not timed
 * (where e is judged by its timing). */
static bool compare_side_failed(const struct compare_entry *e, const struct compare_side *s)
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
static void compare_recount(struct compare_report *r)
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

/* Rows compared: both sides there and timed, whatever the verdict. */
static size_t compare_compared(const struct compare_report *r)
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

/* ---- printing ---------------------------------------------------------- */

/* The verdict as printed: SLOWER when it is a regression that counts. */
static const char *compare_verdict_word(const struct compare_entry *e,
					const struct compare_judgement *j)
{
	switch (j->verdict) {
	case COMPARE_SAME: return e->untimed ? "valid in both" : "same";
	case COMPARE_FASTER: return "faster";
	case COMPARE_SLOWER: return j->regression && compare_counting(e) == j ? "SLOWER" : "slower";
	case COMPARE_INCONCLUSIVE: return "inconclusive";
	default: return "-";
	}
}

/* Why a joined pair was not compared, or NULL when it was. */
static const char *compare_why_not(const struct compare_entry *e)
{
	if (!e->in_new)
		return "only in BASE";
	if (!e->in_base)
		return !e->new.valid ? "only in NEW, invalid"
		       : !e->untimed && isnan(e->new.value) ? "only in NEW, not timed" : "only in NEW";
	if (!e->base.valid && !e->new.valid)
		return "invalid in both";
	if (!e->base.valid)
		return "invalid in BASE";
	if (!e->new.valid)
		return "invalid in NEW";
	if (!e->untimed && isnan(e->base.value))
		return "not timed in BASE";
	if (!e->untimed && isnan(e->new.value))
		return "not timed in NEW";
	return NULL;
}

/* What the entry says in the verdict column and the verdict file. */
static const char *compare_entry_word(const struct compare_entry *e)
{
	const char *why = compare_why_not(e);
	return why ? why : compare_verdict_word(e, compare_counting(e));
}

/* A figure in a 10-wide cell, "-" for none. */
static void compare_num(FILE *fp, double v, const char *fmt)
{
	if (isnan(v))
		fprintf(fp, " %10s", "-");
	else
		fprintf(fp, fmt, v);
}

/* Width of the variant column: the longest name, at least 16. */
static int compare_name_width(const struct compare_report *r)
{
	size_t w = 16;
	for (size_t i = 0; i < r->count; i++)
		if (r->entries[i].key.count && strlen(r->entries[i].key.cells[0]) > w)
			w = strlen(r->entries[i].key.cells[0]);
	return (int)w;
}

/* Width of shown key column i when it holds words: its longest cell or
 * heading, at least 6. */
static int compare_shown_width(const struct compare_report *r, size_t i)
{
	size_t w = strlen(r->kind->shown_heading[i]);
	for (size_t k = 0; k < r->count; k++) {
		const char *v = compare_key_value(r, &r->entries[k], r->kind->shown[i]);
		if (v && strlen(v) > w)
			w = strlen(v);
	}
	return w > 6 ? (int)w : 6;
}

/* A key cell or heading: numbers right in 9, words left in their width. */
static void compare_print_shown(FILE *fp, const struct compare_report *r, size_t i,
				const char *text)
{
	if (compare_is_numeric(r->kind, r->kind->shown[i]))
		fprintf(fp, " %9s", text);
	else
		fprintf(fp, " %-*s", compare_shown_width(r, i), text);
}

static void compare_print_header(FILE *fp, const struct compare_report *r)
{
	const struct compare_kind *kind = r->kind;
	bool more = r->opts.across_devices || kind->details[0];
	fprintf(fp, "%-*s", compare_name_width(r), "variant");
	for (size_t i = 0; kind->shown[i]; i++)
		compare_print_shown(fp, r, i, kind->shown_heading[i]);
	if (r->untimed) {
		fprintf(fp, " %-8s %-8s  verdict\n", "base", "new");
		return;
	}
	fprintf(fp, " %10s %10s %8s %7s  %-*s", "base", "new", "new/base", "resol", more ? 12 : 0,
		"verdict");
	if (r->opts.across_devices)
		fprintf(fp, " %10s %10s %8s  %-*s", "base%ceil", "new%ceil", "new/base",
			kind->details[0] ? 12 : 0, "verdict");
	for (size_t d = 0; kind->details[d]; d++)
		fprintf(fp, " %8s", kind->detail_heading[d]);
	fputc('\n', fp);
}

/* The kind's details as new/base, "-" where a side has none. */
static void compare_print_details(FILE *fp, const struct compare_kind *kind,
				  const struct compare_entry *e)
{
	for (size_t d = 0; kind->details[d]; d++) {
		double b = e->base.details[d], v = e->new.details[d];
		compare_num(fp, b > 0 && v > 0 ? v / b : NAN, " %8.3f");
	}
}

static void compare_print_entry(FILE *fp, const struct compare_report *r,
				const struct compare_entry *e)
{
	const struct compare_kind *kind = r->kind;
	const char *why = compare_why_not(e);
	fprintf(fp, "%-*s", compare_name_width(r), e->key.cells[0]);
	for (size_t i = 0; kind->shown[i]; i++)
		compare_print_shown(fp, r, i, compare_key_value(r, e, kind->shown[i]));
	if (e->untimed) {
		fprintf(fp, " %-8s %-8s  %s\n", !e->in_base ? "-" : e->base.valid ? "valid" : "invalid",
			!e->in_new ? "-" : e->new.valid ? "valid" : "invalid", compare_entry_word(e));
		return;
	}
	compare_num(fp, e->in_base ? e->base.value : NAN, " %10.4g");
	compare_num(fp, e->in_new ? e->new.value : NAN, " %10.4g");
	compare_num(fp, why ? NAN : e->raw.ratio, " %8.3f");
	if (why) {
		fprintf(fp, " %7s  %s\n", "-", why);
		return;
	}
	bool more = r->opts.across_devices || kind->details[0];
	fprintf(fp, " %6.*f%%  %-*s", e->raw.resolution_pct < 1 ? 2 : 1, e->raw.resolution_pct,
		more ? 12 : 0, compare_verdict_word(e, &e->raw));
	if (r->opts.across_devices) {
		compare_num(fp, e->base.pct_of_ceiling, " %9.2f%%");
		compare_num(fp, e->new.pct_of_ceiling, " %9.2f%%");
		compare_num(fp, e->ceiling.ratio, " %8.3f");
		fprintf(fp, "  %-*s", kind->details[0] ? 12 : 0,
			e->counts_ceiling ? compare_verdict_word(e, &e->ceiling)
					  : "(no ceiling: raw counts)");
	}
	compare_print_details(fp, kind, e);
	fputc('\n', fp);
}

/* "auto N=16384 mode=forces P=1": a key as a summary names it. */
static void compare_key_short(const struct compare_report *r, const struct compare_entry *e,
			      char *out, size_t len)
{
	size_t n = (size_t)snprintf(out, len, "%s", e->key.cells[0]);
	for (size_t i = 0; r->kind->shown[i] && n < len; i++) {
		const char *v = compare_key_value(r, e, r->kind->shown[i]);
		if (v && v[0]) /* an empty optional key says nothing */
			n += (size_t)snprintf(out + n, len - n, " %s=%s", r->kind->shown_heading[i], v);
	}
}

/* Appends "; COUNT WHAT (row, row, row, ...)" for the entries of r that
 * pick selects, when there are any. Returns the new length. */
static size_t compare_name_rows(const struct compare_report *r,
				bool (*pick)(const struct compare_report *r, const struct compare_entry *e),
				const char *what, char *out, size_t len, size_t n)
{
	size_t count = 0;
	for (size_t i = 0; i < r->count; i++)
		count += pick(r, &r->entries[i]);
	if (count == 0 || n >= len)
		return n;
	n += (size_t)snprintf(out + n, len - n, "%s%zu row%s %s (", n ? "; " : "", count,
			      count == 1 ? "" : "s", what);
	for (size_t i = 0, named = 0; i < r->count && n < len; i++) {
		if (!pick(r, &r->entries[i]))
			continue;
		char key[256];
		compare_key_short(r, &r->entries[i], key, sizeof key);
		if (named++ == 3) {
			n += (size_t)snprintf(out + n, len - n, ", ...");
			break;
		}
		n += (size_t)snprintf(out + n, len - n, "%s%s", named > 1 ? ", " : "", key);
	}
	if (n < len)
		n += (size_t)snprintf(out + n, len - n, ")");
	return n < len ? n : len - 1;
}

static bool compare_is_regression(const struct compare_report *r, const struct compare_entry *e)
{
	(void)r;
	return e->in_base && e->in_new && compare_counting(e)->regression;
}

static bool compare_is_failed_new(const struct compare_report *r, const struct compare_entry *e)
{
	(void)r;
	return e->in_new && compare_side_failed(e, &e->new) &&
	       (!e->in_base || !compare_side_failed(e, &e->base));
}

static bool compare_is_inconclusive(const struct compare_report *r, const struct compare_entry *e)
{
	(void)r;
	return e->in_base && e->in_new && compare_counting(e)->verdict == COMPARE_INCONCLUSIVE;
}

static bool compare_is_missing(const struct compare_report *r, const struct compare_entry *e)
{
	(void)r;
	return e->in_base && (!e->in_new || compare_side_failed(e, &e->base));
}

void compare_why_not_passed(const struct compare_report *r, char *out, size_t len)
{
	size_t n = 0;
	int st = compare_exit_status(r);
	char what[96];
	out[0] = '\0';
	if (st == COMPARE_OK)
		return;
	snprintf(what, sizeof what, "slower by more than %g%% beyond their resolution",
		 r->opts.threshold_pct);
	n = compare_name_rows(r, compare_is_regression, what, out, len, n);
	n = compare_name_rows(r, compare_is_failed_new, "failed validation or timing in NEW", out,
			      len, n);
	if (st == COMPARE_REGRESSED) {
		snprintf(out + n, len - n, ": a regression (exit 1)");
		return;
	}
	if (compare_compared(r) == 0)
		n += (size_t)snprintf(out + n, len - n, "%snothing compared: no row is in both files "
				      "with a figure on each side", n ? "; " : "");
	if (!r->opts.allow_inconclusive) {
		snprintf(what, sizeof what, "inconclusive (too noisy to decide at %g%%)",
			 fmax(r->opts.threshold_pct, r->opts.min_change_pct));
		n = compare_name_rows(r, compare_is_inconclusive, what, out, len, n);
	}
	if (!r->opts.allow_missing) {
		n = compare_name_rows(r, compare_is_missing, "of BASE not compared (missing in NEW, or failed in BASE)",
				      out, len, n);
		if (r->skipped_new && n < len)
			n += (size_t)snprintf(out + n, len - n, "%sNEW's run skipped %s", n ? "; " : "",
					      r->skipped_note);
		for (int k = 0; k < 2; k++)
			if (r->incomplete[k] && n < len)
				n += (size_t)snprintf(out + n, len - n, "%s%s's run was %s", n ? "; " : "",
						      k ? "NEW" : "BASE", r->incomplete_note[k]);
	}
	if (n < len)
		snprintf(out + n, len - n, ": not a pass (exit 3)");
}

/* The verdict line: the exit status and what it rests on. */
static void compare_print_verdict(FILE *fp, const struct compare_report *r)
{
	int st = compare_exit_status(r);
	if (st == COMPARE_REGRESSED) {
		fprintf(fp, "verdict: REGRESSION (exit 1)\n");
		return;
	}
	if (st == COMPARE_UNDECIDED) {
		fprintf(fp, "verdict: NOT A PASS (exit 3): %s\n",
			compare_compared(r) == 0 ? "nothing was compared"
						 : "rows undecided or not measured (see above)");
		return;
	}
	if (r->untimed)
		fprintf(fp, "verdict: pass (exit 0): nothing timed to compare; %zu row%s valid in both, "
			"none failed in NEW", compare_compared(r), compare_compared(r) == 1 ? "" : "s");
	else
		fprintf(fp, "verdict: pass (exit 0): %zu row%s compared and decided, none slower by more "
			"than %g%%", compare_compared(r), compare_compared(r) == 1 ? "" : "s",
			r->opts.threshold_pct);
	if (r->inconclusive)
		fprintf(fp, "; %zu inconclusive accepted (--allow-inconclusive)", r->inconclusive);
	if (r->only_base + r->uncompared + r->skipped_new + r->incomplete[0] + r->incomplete[1])
		fprintf(fp, "; %zu of BASE not compared%s%s accepted (--allow-missing)",
			r->only_base + r->uncompared,
			r->skipped_new ? " and the variants NEW skipped" : "",
			r->incomplete[0] + r->incomplete[1] ? " and the rows an interrupted run never ran" : "");
	fprintf(fp, "\n");
}

/* A line per between-run floor the pairs were judged with, and one for
 * the pairs judged without one. */
static void compare_print_floors(FILE *fp, const struct compare_report *r)
{
	for (size_t i = 0; i < r->count; i++) {
		const struct floor_class *f = r->entries[i].floor;
		bool seen = false;
		for (size_t q = 0; q < i && f && !seen; q++)
			seen = r->entries[q].floor == f;
		if (!f || seen)
			continue;
		size_t rows = 0;
		for (size_t q = 0; q < r->count; q++)
			rows += r->entries[q].floor == f;
		fprintf(fp, "floor %.2f%%: %zu pair%s of %s %s rows on %s, calls of %s 100 us (from %d "
			    "pairs of separate runs, %s)\n", f->floor_pct, rows, rows == 1 ? "" : "s",
			f->device, r->kind->name, f->device_name, f->min_call_s > 0 ? "at least" : "under",
			f->pairs, f->source);
	}
	if (r->unfloored)
		fprintf(fp, "no floor: %zu pair%s on a device, kind or time per call that no separate "
			    "runs calibrated: their resolution is their noise alone, blind to what two "
			    "runs differ by\n", r->unfloored, r->unfloored == 1 ? "" : "s");
}

void compare_print(FILE *fp, const struct compare_report *r, const char *base_path,
		   const char *new_path)
{
	fprintf(fp, "BASE %s%s%s%s\nNEW  %s%s%s%s\n", base_path, r->notes[0][0] ? " (" : "",
		r->notes[0], r->notes[0][0] ? ")" : "", new_path, r->notes[1][0] ? " (" : "",
		r->notes[1], r->notes[1][0] ? ")" : "");
	fprintf(fp, "%s rows; figures: %s%s\n\n", r->kind->name,
		r->untimed && !r->kind->untimed ? "none timed, the rows' validation" : r->kind->unit,
		r->opts.across_devices ? "; %ceil: share of the row's own device's ceiling" : "");
	compare_print_header(fp, r);
	for (size_t i = 0; i < r->count; i++)
		compare_print_entry(fp, r, &r->entries[i]);
	double t = r->opts.threshold_pct, floor = r->opts.min_change_pct;
	if (r->untimed) {
		fprintf(fp, "\n%s: valid in both is the pass, valid in BASE and not in NEW a "
			    "regression\n", r->resolution_rule);
	} else {
		fprintf(fp, "\nresol: the change a row can tell from none: %s.\n", r->resolution_rule);
		compare_print_floors(fp, r);
		fprintf(fp, "SLOWER (a regression): slowdown - resol > %g%% (and slowdown > %g%%); "
			    "decided, no regression: slowdown + resol <= %g%%, then same (|change| within "
			    "max(resol, %g%%)), faster or slower; else inconclusive%s\n",
			t, floor, fmax(t, floor), floor,
			r->opts.across_devices ? "; across devices the %ceil verdict counts" : "");
	}
	if (r->untimed)
		fprintf(fp, "%zu valid in both, %zu failed in NEW, %zu not compared, %zu only in BASE, "
			    "%zu only in NEW\n", r->same, r->failed_new, r->uncompared, r->only_base,
			r->only_new);
	else
		fprintf(fp, "%zu faster, %zu same, %zu slower (%zu regression%s), %zu inconclusive, "
			    "%zu failed in NEW, %zu not compared, %zu only in BASE, %zu only in NEW\n",
			r->faster, r->same, r->slower, r->regressions, r->regressions == 1 ? "" : "s",
			r->inconclusive, r->failed_new, r->uncompared, r->only_base, r->only_new);
	if (r->skipped_new)
		fprintf(fp, "NEW's run skipped %s\n", r->skipped_note);
	for (int k = 0; k < 2; k++)
		if (r->incomplete[k])
			fprintf(fp, "%s's run was %s\n", k ? "NEW" : "BASE", r->incomplete_note[k]);
	compare_print_verdict(fp, r);
}

/* ---- the verdict file ---------------------------------------------------- */

static const char *const compare_verdict_columns[] = {
	"metric", "base_value", "new_value", "ratio", "change_pct", "noise_pct", "floor_pct",
	"resolution_pct", "threshold_pct", "rounds", "verdict",
};
#define COMPARE_VERDICT_NCOLS (sizeof compare_verdict_columns / sizeof *compare_verdict_columns)

/* What the callbacks of compare_write_verdicts see. */
struct compare_verdicts_ctx {
	const struct compare_report *r;
	const char *base_path, *new_path;
};

/* A number into cell, "" for NAN. */
static void compare_cell(char *cell, double v, const char *fmt)
{
	if (isnan(v))
		cell[0] = '\0';
	else
		snprintf(cell, RESULTS_CELL, fmt, v);
}

static void compare_verdict_row(const void *ctx_, size_t row, char (*cells)[RESULTS_CELL])
{
	const struct compare_verdicts_ctx *ctx = ctx_;
	const struct compare_report *r = ctx->r;
	const struct compare_entry *e = &r->entries[row];
	const struct compare_judgement *j = compare_counting(e);
	size_t c = 0, nkeys = 0;
	bool judged = e->in_base && e->in_new && j->verdict != COMPARE_UNCOMPARED;
	while (r->kind->keys[nkeys])
		nkeys++;
	for (; c < nkeys; c++)
		snprintf(cells[c], RESULTS_CELL, "%s", c < e->key.count ? e->key.cells[c] : "");
	const char *mode = r->kind->mode_col ? compare_key_value(r, e, r->kind->mode_col) : NULL;
	snprintf(cells[c++], RESULTS_CELL, "%s",
		 e->counts_ceiling ? "pct_of_ceiling"
		 : mode && strcmp(mode, r->kind->mode_when[1]) == 0 ? r->kind->metric[1]
								     : r->kind->metric[0]);
	compare_cell(cells[c++], !e->in_base ? NAN : e->counts_ceiling ? e->base.pct_of_ceiling : e->base.value, "%.6g");
	compare_cell(cells[c++], !e->in_new ? NAN : e->counts_ceiling ? e->new.pct_of_ceiling : e->new.value, "%.6g");
	compare_cell(cells[c++], judged ? j->ratio : NAN, "%.6g");
	compare_cell(cells[c++], judged ? 100.0 * (j->ratio - 1.0) : NAN, "%.4g");
	compare_cell(cells[c++], judged ? j->noise_pct : NAN, "%.4g");
	compare_cell(cells[c++], judged && e->floor ? e->floor->floor_pct : NAN, "%.4g");
	compare_cell(cells[c++], judged ? j->resolution_pct : NAN, "%.4g");
	compare_cell(cells[c++], r->opts.threshold_pct, "%g");
	if (r->rounds > 0)
		snprintf(cells[c++], RESULTS_CELL, "%d", r->rounds);
	else
		cells[c++][0] = '\0';
	snprintf(cells[c], RESULTS_CELL, "%s", compare_entry_word(e));
}

static void compare_verdict_json(struct json_out *j, const void *ctx_)
{
	const struct compare_verdicts_ctx *ctx = ctx_;
	const struct compare_report *r = ctx->r;
	char why[2048];
	json_kv_string(j, "kind", r->kind->name);
	json_kv_string(j, "base_csv", ctx->base_path);
	json_kv_string(j, "new_csv", ctx->new_path);
	json_kv_double(j, "threshold_pct", r->opts.threshold_pct);
	json_kv_double(j, "min_change_pct", r->opts.min_change_pct);
	json_kv_bool(j, "across_devices", r->opts.across_devices);
	json_kv_bool(j, "allow_missing", r->opts.allow_missing);
	json_kv_bool(j, "allow_inconclusive", r->opts.allow_inconclusive);
	json_kv_string(j, "resolution", r->resolution_rule);
	json_kv_int(j, "rounds", r->rounds);
	json_kv_int(j, "pairs_with_floor", (long long)r->floored);
	json_kv_int(j, "pairs_without_floor", (long long)r->unfloored);
	json_kv_string(j, "rule", "change = 100 (new/base - 1), slowdown = -change; SLOWER (a regression) "
				  "when slowdown - resolution > threshold and slowdown > min_change; "
				  "decided, no regression, when slowdown + resolution <= max(threshold, "
				  "min_change): same when |change| <= max(resolution, min_change), else "
				  "faster or slower; otherwise inconclusive");
	json_key(j, "counts");
	json_begin_object(j);
	json_kv_int(j, "faster", (long long)r->faster);
	json_kv_int(j, "same", (long long)r->same);
	json_kv_int(j, "slower", (long long)r->slower);
	json_kv_int(j, "regressions", (long long)r->regressions);
	json_kv_int(j, "inconclusive", (long long)r->inconclusive);
	json_kv_int(j, "failed_in_new", (long long)r->failed_new);
	json_kv_int(j, "not_compared", (long long)r->uncompared);
	json_kv_int(j, "only_in_base", (long long)r->only_base);
	json_kv_int(j, "only_in_new", (long long)r->only_new);
	json_kv_int(j, "skipped_by_new", (long long)r->skipped_new);
	json_kv_int(j, "never_ran_in_base", (long long)r->incomplete[0]);
	json_kv_int(j, "never_ran_in_new", (long long)r->incomplete[1]);
	json_end_object(j);
	json_kv_int(j, "exit_status", compare_exit_status(r));
	compare_why_not_passed(r, why, sizeof why);
	json_kv_string(j, "why_not_a_pass", why);
}

int compare_write_verdicts(const char *csv_path, const struct compare_report *r,
			   const char *base_path, const char *new_path, int argc, char **argv,
			   char *err, size_t errlen)
{
	const char *cols[COMPARE_MAX_KEYS + COMPARE_VERDICT_NCOLS];
	size_t ncols = 0;
	for (; r->kind->keys[ncols]; ncols++)
		cols[ncols] = r->kind->keys[ncols];
	for (size_t i = 0; i < COMPARE_VERDICT_NCOLS; i++)
		cols[ncols++] = compare_verdict_columns[i];
	struct compare_verdicts_ctx ctx = { r, base_path, new_path };
	struct results_table t = { .schema = "harness-verdicts/1", .columns = cols, .ncols = ncols,
				   .nrows = r->count, .rows = r->entries,
				   .format = compare_verdict_row, .json = compare_verdict_json,
				   .ctx = &ctx };
	struct results_meta meta = { argc, argv, NULL, NULL, 0, NULL, NULL };
	return results_write_table(csv_path, &t, &meta, err, errlen);
}

/* ---- the command ------------------------------------------------------- */

#define COMPARE_USAGE \
	"usage: harness compare BASE.csv NEW.csv [--threshold PCT] [--min-change PCT]\n" \
	"                       [--allow-missing] [--allow-inconclusive] [--across-devices] [--out FILE.csv]\n" \
	"                       [--unchecked]"

static int compare_usage_error(const char *what, const char *value)
{
	if (value)
		fprintf(stderr, "harness: compare: %s '%s' (see 'harness compare --help')\n", what, value);
	else
		fprintf(stderr, "harness: compare: %s (see 'harness compare --help')\n", what);
	return COMPARE_BAD_INPUT;
}

static void compare_help(void)
{
	printf("%s\n\n"
	       "Joins the rows of two results CSVs of one kind and compares their figures:\n"
	       "  N-body rows on (variant, n, tile_p, threads_q, unroll, bodies_k, precision,\n"
	       "  mode, ranks), by interactions/s (steps/s in steps mode);\n"
	       "  SPH rows on (variant, column), by steps/s, with the per-phase times beside;\n"
	       "  rendering rows by overall frames/s. Files with nothing timed (check's rows,\n"
	       "  the sph-memory suite's, and sph physics' judged quantities, joined on\n"
	       "  (variant, check, column, quantity, T, time_s)) compare each row's\n"
	       "  validation (its pass flag): valid in BASE and not in NEW is a regression.\n"
	       "Each row's resolution (resol) is the change it can tell from none:\n"
	       "  sqrt(noise_base^2 + noise_new^2 + floor^2): its noise_pct columns and\n"
	       "  what separate runs of the same code on its device differ by, the floor\n"
	       "  that harness calibrate measured for its kind and time per call\n"
	       "  (harness/floors.def; none where no runs calibrated it, said so). With\n"
	       "  slowdown = 100 (1 - new/base) %%:\n"
	       "  SLOWER        slowdown - resol > --threshold PCT (default %g) and slowdown >\n"
	       "                --min-change PCT (default %g): a regression\n"
	       "  same, faster, slower\n"
	       "                decided, no regression: slowdown + resol <= max(PCT, MIN);\n"
	       "                same when |change| <= max(resol, MIN)\n"
	       "  inconclusive  neither: too noisy to tell at that threshold\n"
	       "Rows only in BASE, rows that failed in BASE (not compared), variants NEW's\n"
	       "sidecar says its run skipped, and the rows a file's run planned and never ran\n"
	       "(its sidecar says the run was interrupted) are rows asked for and not measured.\n\n"
	       "  --allow-missing       those do not make the exit status 3\n"
	       "  --allow-inconclusive  inconclusive rows do not make it 3\n"
	       "  --across-devices      allow different device_name values; also compare each\n"
	       "                        row's pct_of_ceiling, which then decides regressions\n"
	       "  --out FILE.csv        write each row's verdict, change and resolution there\n"
	       "                        (with a sidecar)\n"
	       "  --unchecked           compare a CSV its sidecar cannot check (it has none, or\n"
	       "                        one without a checksum) as it is; else such a file is\n"
	       "                        bad input. A CSV whose sidecar stamps another file is\n"
	       "                        refused either way.\n\n"
	       "Exit status:\n"
	       "  0  every row compared and decided, none slower by more than PCT\n"
	       "  1  a regression: a row SLOWER, or a row that failed validation or timing in NEW\n"
	       "  2  bad input: an unreadable or malformed file, a bad option, other devices,\n"
	       "     a file its sidecar cannot check (unless --unchecked)\n"
	       "  3  not a pass: a row inconclusive, a row of BASE missing in NEW or not\n"
	       "     compared, variants NEW skipped, rows an interrupted run never ran (unless\n"
	       "     allowed), or nothing compared at all\n",
	       COMPARE_USAGE, COMPARE_DEFAULT_THRESHOLD_PCT, COMPARE_DEFAULT_MIN_CHANGE_PCT);
}

/* Parses a percentage: the whole text a finite number in [0, 1000]. */
static int compare_parse_pct(const char *s, double *out)
{
	char *end;
	double v = strtod(s, &end);
	if (end == s || *end != '\0' || !(v >= 0 && v <= 1000))
		return -1;
	*out = v;
	return 0;
}

/* A flag of compare's: sets it and returns true, or false for another word. */
static bool compare_flag(const char *a, struct compare_opts *o)
{
	static const char *const names[] = { "--across-devices", "--allow-missing",
					     "--allow-inconclusive", "--unchecked" };
	bool *dest[] = { &o->across_devices, &o->allow_missing, &o->allow_inconclusive,
			 &o->unchecked };
	for (size_t k = 0; k < sizeof names / sizeof *names; k++)
		if (strcmp(a, names[k]) == 0)
			return *dest[k] = true;
	return false;
}

/* Fills opts, the two paths and the verdict file (NULL: none) from argv;
 * COMPARE_OK, COMPARE_BAD_INPUT, or -1 for --help. */
static int compare_parse_args(int argc, char **argv, struct compare_opts *o, const char **paths,
			      const char **out)
{
	int npaths = 0;
	static const char *const pct_opts[] = { "--threshold", "--min-change" };
	double *pct_dest[] = { &o->threshold_pct, &o->min_change_pct };
	memset(o, 0, sizeof *o);
	o->threshold_pct = COMPARE_DEFAULT_THRESHOLD_PCT;
	o->min_change_pct = COMPARE_DEFAULT_MIN_CHANGE_PCT;
	*out = NULL;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = NULL;
		char what[96];
		int t = 0;
		size_t k = 0;
		for (; k < 2 && (t = cli_take_option(argc, argv, &i, pct_opts[k], &v)) == 0; k++)
			;
		if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0)
			return -1;
		if (compare_flag(a, o))
			continue;
		if (t != 0) {
			snprintf(what, sizeof what, "%s needs a percentage", pct_opts[k]);
			if (t < 0)
				return compare_usage_error(what, NULL);
			snprintf(what, sizeof what, "%s takes a percentage in [0, 1000], not", pct_opts[k]);
			if (compare_parse_pct(v, pct_dest[k]) != 0)
				return compare_usage_error(what, v);
		} else if ((t = cli_take_option(argc, argv, &i, "--out", &v)) != 0) {
			if (t < 0 || !v[0])
				return compare_usage_error("--out needs a file name", NULL);
			*out = v;
		} else if (a[0] == '-' && a[1] != '\0') {
			return compare_usage_error("unknown option", a);
		} else if (npaths < 2) {
			paths[npaths++] = a;
		} else {
			return compare_usage_error("one BASE and one NEW file only; extra", a);
		}
	}
	if (npaths != 2)
		return compare_usage_error("needs BASE.csv and NEW.csv", NULL);
	return COMPARE_OK;
}

int compare_command(int argc, char **argv)
{
	struct compare_opts o;
	const char *paths[2], *out;
	char err[1024], why[2048];
	struct compare_report r;
	int rc = compare_parse_args(argc, argv, &o, paths, &out);
	if (rc < 0) {
		compare_help();
		return COMPARE_OK;
	}
	if (rc != COMPARE_OK)
		return rc;
	if (out && atomic_path_writable(out, err, sizeof err) != 0)
		return compare_usage_error(err, NULL);
	if (compare_files(paths[0], paths[1], &o, &r, err, sizeof err) != 0) {
		fprintf(stderr, "harness: %s\n", err);
		return COMPARE_BAD_INPUT;
	}
	for (int k = 0; k < 2 && !o.unchecked; k++)
		if (results_require_checked(paths[k], "--unchecked", err, sizeof err) != 0) {
			compare_report_free(&r);
			return compare_usage_error(err, NULL);
		}
	compare_print(stdout, &r, paths[0], paths[1]);
	rc = compare_exit_status(&r);
	if (out && compare_write_verdicts(out, &r, paths[0], paths[1], argc, argv, err, sizeof err) != 0) {
		fprintf(stderr, "harness: compare: %s\n", err);
		rc = COMPARE_BAD_INPUT;
	} else if (out) {
		printf("wrote %s\n", out);
	}
	compare_why_not_passed(&r, why, sizeof why);
	if (why[0] && rc != COMPARE_BAD_INPUT)
		fprintf(stderr, "harness: compare: %s\n", why);
	compare_report_free(&r);
	return rc;
}
